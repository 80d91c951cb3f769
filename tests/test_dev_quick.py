"""`python3 dev.py test --quick` (issue 48): the core tests plus the tests that import what
changed, chosen from the import statements of the test files."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _dev():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_core_is_always_in_the_quick_run() -> None:
    dev = _dev()
    chosen = dev.quick_selection([])
    assert chosen == sorted(f"tests/{n}.py" for n in dev.QUICK_CORE)
    assert all((ROOT / p).is_file() for p in chosen)


def test_a_changed_module_brings_the_tests_that_import_it_and_no_others() -> None:
    dev = _dev()
    core = set(dev.quick_selection([]))
    chat = set(dev.quick_selection(["src/ristiseiska/web/chat.py"])) - core
    assert "tests/test_web_chat.py" in chat
    assert "tests/test_tui_app.py" not in chat and "tests/test_kernel.py" not in chat
    kernel = set(dev.quick_selection(["src/ristiseiska/kernel/core.py"])) - core
    assert "tests/test_kernel.py" in kernel and "tests/test_web_chat.py" not in kernel


def test_a_changed_test_file_is_run_and_a_catalog_counts_for_its_package() -> None:
    dev = _dev()
    assert "tests/test_tui_app.py" in dev.quick_selection(["tests/test_tui_app.py"])
    assert dev._module_of("src/ristiseiska/i18n/web.fi.json") == "ristiseiska.i18n"
    assert dev._module_of("src/ristiseiska/web/tables.py") == "ristiseiska.web.tables"
    assert dev._module_of("README.md") is None


def test_a_bad_base_is_named_in_a_clear_error() -> None:
    p = subprocess.run([sys.executable, str(ROOT / "dev.py"), "test", "--quick", "--base",
                        "no-such-revision-xyz"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    if "creating" in p.stdout and not (ROOT / ".venv").exists():  # pragma: no cover
        return
    assert p.returncode != 0
    assert "no-such-revision-xyz" in p.stderr and "Traceback" not in p.stderr


def test_an_engine_change_runs_the_core_that_tests_the_engine() -> None:
    dev = _dev()
    assert dev.quick_selection(["src/ristiseiska/game.py"]) == dev.quick_selection([])
    assert "tests/test_engine.py" in dev.quick_selection(["src/ristiseiska/game.py"])
