"""``ristiseiska rules``: the rules in force explained in words (Finnish, English, Swedish …)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ristiseiska.rules import Rules

HELP = "explain the rules of a preset or a house-rule file in Finnish, English or Swedish"
DESCRIPTION = (
    "Print the rules in force as Markdown: a preset (default: ristiseiska) or a TOML file of "
    "house rules, in Finnish (default), English or Swedish. With --options also list every rule option "
    "with its value and meaning."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--preset", metavar="NAME", help="a named rule set (see `ristiseiska presets`)")
    src.add_argument("--rules", metavar="FILE.toml", help="a TOML file of house rules")
    from ristiseiska.i18n import LANGS

    p.add_argument("--lang", default="fi", help="language: " + ", ".join(LANGS) + " (default fi)")
    p.add_argument("--options", action="store_true",
                   help="also print the table of every rule option, its value and meaning")
    p.add_argument("--format", choices=("auto", "markdown", "html"), default="auto",
                   help="auto: formatted on a terminal, Markdown when piped (default); "
                        "markdown; or an HTML fragment")


def _load(args: argparse.Namespace) -> Rules:
    from ristiseiska.commands.common import load_rules

    rules: Rules = load_rules(args.preset, args.rules)
    return rules


def option_table(rules: Rules, lang: str) -> str:
    """The ``--options`` table as Markdown."""
    from ristiseiska.explain import option_rows
    from ristiseiska.i18n import t

    rows = option_rows(rules, lang)
    head = (t("core.explain.col_option", lang), t("core.explain.col_value", lang),
            t("core.explain.col_meaning", lang))
    w0 = max(len(head[0]), *(len(r[0]) for r in rows))
    w1 = max(len(head[1]), *(len(r[1]) for r in rows))
    lines = [f"## {t('core.explain.options_head', lang)}", "",
             f"| {head[0]:<{w0}} | {head[1]:<{w1}} | {head[2]} |",
             f"|{'-' * (w0 + 2)}|{'-' * (w1 + 2)}|{'-' * (len(head[2]) + 2)}|"]
    for name, value, meaning in rows:
        lines.append(f"| {name:<{w0}} | {value:<{w1}} | {meaning} |")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from ristiseiska.commands.common import CliError
    from ristiseiska.explain import explain_rules
    from ristiseiska.i18n import LANGS

    lang = str(args.lang).strip().lower()
    if lang not in LANGS:
        raise CliError(f"unknown language {args.lang!r}; choose one of: {', '.join(LANGS)}")
    rules = _load(args)
    text = explain_rules(rules, lang)
    if args.options:
        text += "\n" + option_table(rules, lang)
    fmt = getattr(args, "format", "markdown")
    if fmt == "html":
        from ristiseiska.explain import markdown_to_html

        print(markdown_to_html(text), end="")
    elif fmt == "auto" and sys.stdout.isatty():
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(text))
    else:
        print(text, end="")
    return 0
