"""The command line: ``ristiseiska <command> …``. Thin: each command lives in
``ristiseiska.commands.<name>`` with ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .commands.common import CliError  # noqa: F401 - the commands' error, re-exported here

# command name -> module under ristiseiska.commands (imported lazily when it has heavy deps)
COMMANDS = {
    "play": "play",
    "serve": "serve",
    "presets": "presets",
    "rules": "rules_cmd",
    "simulate": "simulate",
    "bench": "bench",
    "replay": "replay",
    "tournament": "tournament",
    "ladder": "ladder",
    "analyze": "analyze",
    "puzzles": "puzzles",
    "train": "train",
    "ceiling": "ceiling",
    "daily": "daily",
    "backup": "backup",
    "restore": "restore",
    "rate-bots": "rate_bots",
    "migrate": "migrate",
    "bots": "bots",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``only``, that command's options in full and the others by name
    alone (importing every command's module costs a second of start-up: numba, numpy, the web
    stack), which is all a command line naming ``only`` needs."""
    parser = argparse.ArgumentParser(
        prog="ristiseiska",
        description="Ristiseiska (Sevens, Fan Tan, Sjuan) with every house rule.",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name)
            continue
        try:
            module = importlib.import_module(f"ristiseiska.commands.{module_name}")
        except ImportError:
            continue  # a command whose module is not there yet
        p = sub.add_parser(name, help=module.HELP, description=getattr(module, "DESCRIPTION", module.HELP))
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The command a command line names (its first word, when that is a command)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(words))
    args = parser.parse_args(words)
    if args.version:
        from ristiseiska import __version__

        print(__version__)
        return 0
    if not getattr(args, "_run", None):
        # No command: start the game people came for.
        try:
            importlib.import_module("ristiseiska.commands.serve")
        except ImportError:
            parser.print_help()
            return 0
        parser = build_parser("serve")
        args = parser.parse_args(["serve", *words])
    try:
        from .commands.common import check_numbers

        check_numbers(str(args.command or "serve"), args)  # every number bounded (issue 19)
        return int(args._run(args) or 0)
    except CliError as e:
        print(f"ristiseiska: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head & co.
        return 0
    except KeyboardInterrupt:
        print("ristiseiska: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
