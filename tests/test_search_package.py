"""The determinized search has one home, :mod:`ristiseiska.search` (issue 48): its users (the
master bots, ``master-neural``, the analysis, the hints, the puzzles) reach it by its public
names only, and no module reaches into another package's private names. The checks read the
source (AST), so an import inside a function counts too."""

from __future__ import annotations

import ast
import random

from test_import_cycles import _modules, import_graph

SEARCH = "ristiseiska.search"

# Private names imported across packages: none since issue 48 gave each such helper a public
# name in its owner. Keep it empty: a new entry is a new reach into another package's internals.
KNOWN: set[tuple[str, str, str]] = set()


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _in_search(name: str) -> bool:
    return name == SEARCH or name.startswith(SEARCH + ".")


def private_imports() -> list[tuple[str, str, str]]:
    """(importer, module, name) of every ``from module import _name`` where the module lies in
    another package than the importer's, or in the search package and the importer outside it."""
    mods = _modules()
    out = []
    for name, (path, pkg) in sorted(mods.items()):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target not in mods:
                continue
            same_package = mods[target][1] == pkg
            for alias in node.names:
                if not _private(alias.name):
                    continue
                if (_in_search(target) and not _in_search(name)) or not same_package:
                    out.append((name, target, alias.name))
    return out


def private_search_attributes() -> list[tuple[str, str]]:
    """(module, attribute) where a module outside the search reads ``x._name`` with ``_name``
    a private function or method of the search package (``self._name`` in a class of its own
    is that class's business)."""
    mods = _modules()
    private: set[str] = set()
    for name, (path, _pkg) in mods.items():
        if _in_search(name):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.ClassDef) and _private(node.name):
                    private.add(node.name)
    out = []
    for name, (path, _pkg) in sorted(mods.items()):
        if _in_search(name):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr in private
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                out.append((name, node.attr))
    return out


def test_the_checker_sees_a_private_import() -> None:
    tree = ast.parse("from ..bots.master import _x")
    node = tree.body[0]
    assert isinstance(node, ast.ImportFrom) and _private(node.names[0].name)
    assert not _private("__all__") and not _private("public")


def test_nothing_imports_private_names_of_another_package() -> None:
    found = set(private_imports())
    assert found - KNOWN == set()


def test_nothing_outside_the_search_reads_its_private_attributes() -> None:
    assert private_search_attributes() == []


def test_the_search_has_its_own_package_and_its_users_use_it() -> None:
    g = import_graph()
    assert SEARCH in g
    for user in ("ristiseiska.bots.master", "ristiseiska.analysis"):
        assert SEARCH in g[user], user
    assert "ristiseiska.search.network" in g["ristiseiska.bots.neural"]


def test_the_analysis_and_the_puzzles_do_not_import_the_master_bot() -> None:
    g = import_graph()
    for name, deps in g.items():
        if name.startswith(("ristiseiska.analysis", "ristiseiska.puzzles")):
            assert "ristiseiska.bots.master" not in deps, name


def test_the_search_imports_nothing_above_it() -> None:
    # the engine, the inference of bots.knowledge, the kernel and (for the network's
    # playouts) the learned network's code; never a bot, the analysis or an adapter
    g = import_graph()
    above = ("ristiseiska.bots.master", "ristiseiska.bots.neural", "ristiseiska.bots.expert",
             "ristiseiska.analysis", "ristiseiska.puzzles", "ristiseiska.web", "ristiseiska.tui",
             "ristiseiska.cli", "ristiseiska.commands", "ristiseiska.tournament")
    for name, deps in g.items():
        if _in_search(name):
            bad = [d for d in deps if d == "ristiseiska.bots" or d.startswith(above)]
            assert bad == [], name


def test_importing_the_search_first_works() -> None:
    # the search reads bots.knowledge inside its functions: importing it before the bots
    # (whose package imports the master, which imports the search) must not go in a circle
    import subprocess
    import sys

    code = ("import ristiseiska.search as s, ristiseiska.search.network as n; "
            "print(s.Sampler.__name__, n.playout_values.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Sampler", "playout_values"]


def test_the_master_and_the_analysis_draw_the_same_deals() -> None:
    """The one sampler: the master bot's deals for a view are the search's for the same rng."""
    from ristiseiska.bots.master import MasterBot
    from ristiseiska.game import Game
    from ristiseiska.rules import preset
    from ristiseiska.search import Sampler

    g = Game(preset("ristiseiska"), 4, seed=5)
    for _ in range(8):
        g.push(g.legal_moves()[0])
    v = g.view(g.to_move)
    a = MasterBot(seed=1, rollout="random").sampler.masks(v, random.Random(3), 30)
    b = Sampler().masks(v, random.Random(3), 30)
    assert a is not None and b is not None
    assert (a == b).all()


def test_the_packages_example_runs() -> None:
    import doctest

    import ristiseiska.search

    failures, tried = doctest.testmod(ristiseiska.search, optionflags=doctest.ELLIPSIS)
    assert tried >= 8 and failures == 0
