"""``ristiseiska presets``: the named rule sets."""

from __future__ import annotations

import argparse

HELP = "list the named rule sets (presets) with a one-line description each"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--options", action="store_true", help="also show each preset's options that differ from the default")


def run(args: argparse.Namespace) -> int:
    from ristiseiska.rules import preset, preset_description, preset_names

    width = max(len(n) for n in preset_names())
    for name in preset_names():
        print(f"{name:<{width}}  {preset_description(name)}")
        if args.options:
            diff = preset(name).differences()
            if diff:
                print(" " * (width + 2) + ", ".join(f"{k}={v!r}" for k, v in diff.items()))
    return 0
