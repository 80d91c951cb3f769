"""No import circles between the project's modules (issue 10): ``game`` ↔ ``view`` and
``cli`` ↔ ``commands.serve`` were two; this keeps new ones out. Every import counts, also the
ones inside functions and under ``TYPE_CHECKING``: a circle hidden in a function still ties the
modules together."""

from __future__ import annotations

import ast
from pathlib import Path

import ristiseiska

ROOT = Path(ristiseiska.__file__).resolve().parent


def _modules() -> dict[str, tuple[Path, list[str]]]:
    mods: dict[str, tuple[Path, list[str]]] = {}
    for p in ROOT.rglob("*.py"):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            pkg = parts
        else:
            pkg = parts[:-1]
        mods[".".join(parts)] = (p, pkg)
    return mods


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for name, (path, pkg) in mods.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg[: len(pkg) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in mods]
                # `from pkg import submodule` needs the submodule, not the package's own names
                found = subs if subs and len(subs) == len(node.names) else [target, *subs]
            elif isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            else:
                continue
            deps.update(f for f in found if f in mods and f != name)
        # A package importing its own submodules counts too: importing the package runs them,
        # so bots/__init__ → bots.neural → … → tournament → bots is a real circle (issue 48).
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_checker_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_game_and_view_do_not_import_each_other() -> None:
    g = import_graph()
    assert "ristiseiska.view" in g["ristiseiska.game"]
    assert "ristiseiska.game" not in g["ristiseiska.view"]


def test_the_commands_do_not_import_the_cli() -> None:
    g = import_graph()
    for name, deps in g.items():
        if name.startswith("ristiseiska.commands"):
            assert "ristiseiska.cli" not in deps, name


def test_no_import_circles() -> None:
    assert cycles(import_graph()) == []


def test_a_package_that_imports_its_submodule_is_an_edge() -> None:
    # the edge that hid the circle through the bots' registry (issue 48)
    g = import_graph()
    assert "ristiseiska.bots.neural" in g["ristiseiska.bots"]
    assert "ristiseiska.tournament" not in g["ristiseiska.learn.dmc"]
