"""The examples in docs/rl.md run as written (each library's block is skipped, with the
reason, when that library is not installed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "rl.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
NEEDS = {"pettingzoo": "ristiseiska.rl import env", "gymnasium": "import gymnasium",
         "pyspiel": "import pyspiel"}


def test_every_interface_has_an_example() -> None:
    assert len(BLOCKS) == 6
    for block in BLOCKS:
        assert len(block.strip().splitlines()) <= 14  # about ten lines, as promised


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_doc_example_runs(i: int) -> None:
    block = BLOCKS[i]
    for module, marker in NEEDS.items():
        if marker in block:
            pytest.importorskip(module, reason=f"{module} (the rl extra) is not installed")
    exec(compile(block, f"docs/rl.md example {i + 1}", "exec"), {})
