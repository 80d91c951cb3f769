"""The README and the docstrings point at things that exist (issue 10, point 6)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_local_link_and_path_in_the_readme_exists() -> None:
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README)
    paths = re.findall(r"`((?:src|docs|tests)/[^`\s]+)`", README)
    assert links and paths
    missing = [p for p in links + paths if not (ROOT / p).exists()]
    assert not missing, missing


def test_the_card_artwork_licence_is_where_the_readme_says() -> None:
    m = re.search(r"Card artwork.*?`([^`]+)`", README, re.S)
    assert m, "the README names the card artwork's licence file"
    licence = ROOT / m.group(1)
    assert licence.is_file()
    assert "CC0" in licence.read_text(encoding="utf-8")


def test_no_reference_to_a_rules_file_that_is_not_in_the_repository() -> None:
    assert not (ROOT / "RULES.md").exists()
    offenders = [str(p.relative_to(ROOT)) for p in [ROOT / "README.md",
                                                      *sorted((ROOT / "src").rglob("*.py"))]
                 if "RULES.md" in p.read_text(encoding="utf-8")]
    assert not offenders, offenders


def test_every_figure_in_the_readme_names_its_command() -> None:
    # each section with measured numbers shows the command that measured them
    for section in ("## Speed", "Measured strength", "### First run"):
        assert section in README, section
        text = README.split(section, 1)[1].split("\n## ", 1)[0]
        assert "`ristiseiska " in text or "`python3 " in text or "`time " in text, section


def test_the_bench_row_says_what_plain_bench_runs() -> None:
    """Issue 45: the row named options plain ``bench`` does not use."""
    import argparse

    from ristiseiska.commands import bench

    row = next(line for line in README.splitlines() if line.startswith("| `ristiseiska bench` |"))
    p = argparse.ArgumentParser()
    bench.add_arguments(p)
    args = p.parse_args([])
    deals = args.deals
    kernel = args.kernel_deals if args.kernel_deals is not None else min(100 * deals, 2_000_000)
    assert f"{deals:,} random deals in the full engine" in row, row
    assert f"then {kernel:,} in the compiled kernel" in row, row
    assert "--deals 1000" not in row and "--kernel-deals 100000" not in row


def test_the_command_times_name_their_load_and_runs() -> None:
    """Issue 45: the times are a newcomer's (first and later run, the machine's load named),
    not a log of earlier measurements."""
    text = README.split("After the first run the `ristiseiska` command", 1)[1].split("\n## ", 1)[0]
    assert "first / later run" in text and re.search(r"load average \d+–\d+", text)
    assert "quiet machine" in text
    assert not re.search(r"20\d\d-\d\d-\d\d", text)  # no dated diary entries
