"""Every third-party package the product imports is declared in pyproject.toml (issue 10).

The test environment has many more packages than a plain install (test tools bring greenlet,
httpx, …), so an undeclared import works here and fails for users. This reads every import in
``src/ristiseiska`` and checks it against ``[project] dependencies``; packages of the optional
extras (``postgres``, ``ray``) may only be imported inside functions, behind a clear message.
``python3 dev.py test`` also installs the wheel alone into a new environment and plays with it.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import ristiseiska

SRC = Path(ristiseiska.__file__).resolve().parent
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

# import name -> distribution, for what importlib.metadata cannot tell (not installed here)
KNOWN = {"ray": "ray", "psycopg": "psycopg",
         # the sb3 extra, not among the test tools
         "stable_baselines3": "stable-baselines3", "sb3_contrib": "sb3-contrib"}
# Needed although nothing imports them by name: the extra that brings greenlet.
IMPLICIT = {"sqlalchemy[asyncio]": "SQLAlchemy's async engines need greenlet"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(reqs: list[str]) -> set[str]:
    return {_norm(re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0]) for r in reqs}


def _imports() -> dict[str, set[tuple[str, bool]]]:
    """Top-level import name -> {(file, at module level)}."""
    out: dict[str, set[tuple[str, bool]]] = {}
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                root = name.split(".")[0]
                if root in sys.stdlib_module_names or root == "ristiseiska":
                    continue
                out.setdefault(root, set()).add((str(path.relative_to(SRC)), id(node) in top))
    return out


def _distribution(module: str) -> str:
    if module in KNOWN:
        return KNOWN[module]
    dists = metadata.packages_distributions().get(module)
    assert dists, f"{module!r} is imported but no installed distribution provides it"
    return dists[0]


def test_every_import_is_a_declared_dependency() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    required = _requirement_names(project["dependencies"])
    optional = {extra: _requirement_names(reqs)
                for extra, reqs in project["optional-dependencies"].items() if extra != "dev"}
    problems = []
    for module, where in sorted(_imports().items()):
        dist = _norm(_distribution(module))
        if dist in required:
            continue
        extras = [e for e, names in optional.items() if dist in names]
        # an extra's own subpackage or module (rl/ for the extra "rl", rl/sb3.py for "sb3")
        # may import it at module level: only someone who installed the extra imports it
        at_top = sorted(f for f, top in where
                        if top and not any(f.startswith(f"{e}/") or f.endswith(f"/{e}.py")
                                           for e in extras))
        if not extras:
            problems.append(f"{module} (distribution {dist}) is imported in "
                            f"{sorted(f for f, _ in where)} but not declared")
        elif at_top:
            problems.append(f"{module} belongs to the extra {extras[0]!r} but is imported at "
                            f"module level in {at_top}")
    assert not problems, "\n".join(problems)


def test_sqlalchemy_comes_with_its_asyncio_extra() -> None:
    deps = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    assert any(d.replace(" ", "").startswith("sqlalchemy[asyncio]") for d in deps), IMPLICIT


def test_every_dependency_has_a_lower_bound() -> None:
    deps = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    assert all(">=" in d for d in deps), [d for d in deps if ">=" not in d]
