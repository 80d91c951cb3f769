"""No module imports from a layer above its own (issue 48). The layers are the numbered list
under "## Layers" in docs/architecture.md, read here, so the docs and the check cannot drift
apart; every import counts, also one inside a function (the graph of test_import_cycles)."""

from __future__ import annotations

import re
from pathlib import Path

from test_import_cycles import _modules, import_graph

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
PACKAGE = "ristiseiska"

# (importer, imported) -> why it must stay. Empty: every upward import was turned around
# (issue 48). An entry needs a reason a reviewer accepts, and goes when its import goes.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def read_layers(text: str) -> list[tuple[str, list[str]]]:
    """``[(layer name, [module names]), …]`` from the numbered list of the "Layers" section,
    bottom layer first; a name ``x`` stands for ``ristiseiska.x``, ``__init__`` for the
    package itself."""
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    layers = []
    for line in section.splitlines():
        m = re.match(r"(\d+)\. \*\*([^*]+)\*\*: (.+)$", line)
        if not m:
            continue
        assert int(m.group(1)) == len(layers), f"layers are numbered 0, 1, …: {line!r}"
        names = [PACKAGE if n == "__init__" else f"{PACKAGE}.{n}"
                 for n in re.findall(r"`([^`]+)`", m.group(3))]
        layers.append((m.group(2), names))
    return layers


def layer_map(layers: list[tuple[str, list[str]]]) -> dict[str, int]:
    """Each listed name and its layer's number."""
    out: dict[str, int] = {}
    for k, (_label, names) in enumerate(layers):
        for name in names:
            assert name not in out, f"{name} is listed twice"
            out[name] = k
    return out


def layer_of(module: str, listed: dict[str, int]) -> int | None:
    """The layer of the longest listed name that is ``module`` or a package holding it (the
    top package, ``__init__`` in the list, stands for its own ``__init__`` only)."""
    if module == PACKAGE:
        return listed.get(PACKAGE)
    parts = module.split(".")
    for end in range(len(parts), 1, -1):
        got = listed.get(".".join(parts[:end]))
        if got is not None:
            return got
    return None


def upward(graph: dict[str, set[str]], listed: dict[str, int],
           labels: list[str]) -> list[str]:
    """Every import of a module of a higher layer, in words."""
    out = []
    for name in sorted(graph):
        mine = layer_of(name, listed)
        for dep in sorted(graph[name]):
            theirs = layer_of(dep, listed)
            if mine is None or theirs is None or theirs <= mine:
                continue
            if (name, dep) in EXCEPTIONS:
                continue
            out.append(f"{name} (layer {mine}, {labels[mine]}) imports {dep} "
                       f"(layer {theirs}, {labels[theirs]})")
    return out


def _layers() -> tuple[dict[str, int], list[str]]:
    layers = read_layers(DOC.read_text(encoding="utf-8"))
    return layer_map(layers), [label for label, _names in layers]


def test_the_checker_finds_an_upward_import() -> None:
    text = ("# X\n\n## Layers\n\nintro `not.a.layer`\n\n0. **low**: `a`, `__init__`\n"
            "1. **high**: `b`, `a.top`\n\n## Next\n\n2. **not here**: `c`\n")
    layers = read_layers(text)
    assert layers == [("low", ["ristiseiska.a", "ristiseiska"]),
                      ("high", ["ristiseiska.b", "ristiseiska.a.top"])]
    listed = layer_map(layers)
    assert layer_of("ristiseiska.a.top.x", listed) == 1
    assert layer_of("ristiseiska.a.low", listed) == 0
    assert layer_of("ristiseiska.zzz", listed) is None
    assert layer_of("ristiseiska", listed) == 0
    graph = {"ristiseiska.a.low": {"ristiseiska.a.top", "ristiseiska"},
             "ristiseiska.b": {"ristiseiska.a.low"}}
    assert upward(graph, listed, ["low", "high"]) == [
        "ristiseiska.a.low (layer 0, low) imports ristiseiska.a.top (layer 1, high)"]


def test_the_docs_list_the_layers() -> None:
    listed, labels = _layers()
    assert len(labels) >= 5
    assert listed["ristiseiska.game"] == 0  # the engine at the bottom
    assert listed["ristiseiska.cli"] == len(labels) - 1  # the command line on top


def test_every_module_has_a_layer() -> None:
    listed, _labels = _layers()
    missing = [m for m in sorted(_modules()) if layer_of(m, listed) is None]
    assert missing == [], f"add these to the Layers of docs/architecture.md: {missing}"


def test_every_listed_name_is_a_module() -> None:
    listed, _labels = _layers()
    mods = _modules()
    assert [n for n in listed if n not in mods] == []


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    listed, labels = _layers()
    bad = upward(import_graph(), listed, labels)
    assert bad == [], "\n".join(bad)


def test_every_exception_is_still_needed() -> None:
    if not EXCEPTIONS:
        return
    graph = import_graph()
    listed, _labels = _layers()
    for (name, dep), why in EXCEPTIONS.items():
        assert why.strip(), (name, dep)
        assert dep in graph.get(name, set()), f"{name} no longer imports {dep}: drop it"
        mine, theirs = layer_of(name, listed), layer_of(dep, listed)
        assert mine is not None and theirs is not None and theirs > mine, (name, dep)
