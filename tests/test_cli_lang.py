"""The measuring tools take ``--lang fi`` where the README says they do (issue 45): each is run
as a user types it, in a separate process, and answers in Finnish with a decimal comma; English
stays the default."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from ristiseiska.cli import main; "
                           "raise SystemExit(main())", *argv],
                          capture_output=True, text=True, timeout=600)


def test_the_readme_names_the_tools_that_take_lang_fi() -> None:
    text = README.read_text("utf-8")
    m = re.search(r"measuring\s+tools\s+—\s+(.*?)\s+—\s+print English unless given `--lang fi`", text)
    assert m, "the README's sentence about the measuring tools moved"
    tools = re.findall(r"`(\w+)`", m.group(1))
    assert set(tools) == {"simulate", "tournament", "bench"}


@pytest.mark.parametrize("argv, finnish, english", [
    (("simulate", "--games", "20", "--seed", "1", "--engine", "python"), "jakoa", "deals"),
    (("tournament", "--bots", "expert,random,random", "--games", "4", "--quiet"),
     "voitto-%", "win %"),
    (("bench", "--engine", "python", "--deals", "50"), "jakoa/s", "deals/s"),
])
def test_lang_fi_is_taken_and_answers_in_finnish(argv: tuple[str, ...], finnish: str,
                                                 english: str) -> None:
    fi = _run(*argv, "--lang", "fi")
    assert fi.returncode == 0, fi.stderr
    assert finnish in fi.stdout and re.search(r"\d,\d", fi.stdout), fi.stdout
    en = _run(*argv)
    assert en.returncode == 0, en.stderr
    assert english in en.stdout and finnish not in en.stdout


def test_a_command_line_imports_only_its_own_command() -> None:
    """`ristiseiska play --help` builds the play command's options alone: the other commands'
    modules (the web server's stack, the trainer) are not imported, which keeps every start
    quick; the bare `--help` still lists every command."""
    import subprocess
    import sys

    code = ("import sys; from ristiseiska.cli import build_parser, _command_of\n"
            "build_parser(_command_of(['presets', '--help']))\n"
            "print(sorted(m for m in sys.modules if m.startswith('ristiseiska.commands.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert "ristiseiska.commands.presets" in out
    assert "ristiseiska.commands.serve" not in out and "ristiseiska.commands.train" not in out
    from ristiseiska.cli import COMMANDS, build_parser

    text = build_parser().format_help()
    assert all(name in text for name in COMMANDS)
