"""``ristiseiska presets``: the named rule sets."""

from __future__ import annotations

import argparse

HELP = "list the named rule sets (presets) with a one-line description each"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--options", action="store_true", help="also show each preset's options that differ from the default")
    p.add_argument("--lang", default="fi", help="language of the descriptions: fi (default) or en")


def run(args: argparse.Namespace) -> int:
    from ristiseiska.commands.common import CliError
    from ristiseiska.i18n import LANGS, t
    from ristiseiska.rules import preset, preset_description, preset_names

    lang = str(args.lang).strip().lower()
    if lang not in LANGS:
        raise CliError(f"unknown language {args.lang!r}; choose one of: {', '.join(LANGS)}")
    width = max(len(n) for n in preset_names())
    for name in preset_names():
        text = t(f"core.preset.{name}", lang)
        if text.startswith("core."):  # no catalog text: the preset's own description
            text = preset_description(name)
        print(f"{name:<{width}}  {text}")
        if args.options:
            diff = preset(name).differences()
            if diff:
                print(" " * (width + 2) + ", ".join(f"{k}={v!r}" for k, v in diff.items()))
    return 0
