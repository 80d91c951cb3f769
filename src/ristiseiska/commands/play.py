"""``ristiseiska play``: the terminal game against bots (Textual).

    ristiseiska play                       set-up screen, then the game (Finnish)
    ristiseiska play --quick --lang en     start at once with the defaults, in English
    ristiseiska play --preset sjuan --players 5 --bots basic,expert,expert,master
    ristiseiska play --rules talon.toml --deals 5 --open
    ristiseiska play --resume              continue the match saved when you quit
"""

from __future__ import annotations

import argparse

HELP = "play in the terminal against bots (set-up screen, hints, rules, score sheet)"
DESCRIPTION = (
    "A full terminal game: you at seat 1 and bots at the other seats. Arrows and Enter, a "
    "mouse click, or typing a card (h6, pata9, p9, ru3, hertta10, herttakuutonen) plays; F1 rules, F2 hint, F3 score "
    "sheet, Ctrl+Q quits (the match is saved after every move: continue with --resume)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.i18n import LANGS

    p.add_argument("--preset", metavar="NAME", help="named rule set (see `ristiseiska presets`)")
    p.add_argument("--rules", metavar="FILE.toml", help="house rules file (a preset plus option changes)")
    p.add_argument("--players", type=int, metavar="N", help="number of players, 2–8 (default 4)")
    p.add_argument("--bots", metavar="LEVELS",
                   help="bot level per other seat, comma separated (e.g. expert,expert,master); one level applies to all; "
                        "Finnish names work too (aloittelija, taitava, itseoppinut, mestari); "
                        "a bot plugin by its entry-point name or package.module:Class")
    p.add_argument("--name", help="your name")
    p.add_argument("--deals", type=int, metavar="N", help="match length in deals (default: the rules' own)")
    p.add_argument("--target", type=int, metavar="POINTS", help="match ends when someone reaches this total")
    p.add_argument("--seed", type=int, help="seed for the deals (the same seed deals the same cards)")
    p.add_argument("--lang", choices=LANGS, default=None, help="language: " + ", ".join(LANGS) + " (default fi)")
    p.add_argument("--open", action="store_true", help="open cards: teaching mode showing every hand and the bots' choices")
    p.add_argument("--pace", type=float, default=None, metavar="SECONDS", help="pause between bot moves (default 0.6)")
    p.add_argument("--manual-forced", action="store_true",
                   help="make forced moves (token, pass, ask, draw, chip) yourself; by default the game makes them for you after a short pause")
    p.add_argument("--quick", action="store_true", help="skip the set-up screen")
    p.add_argument("--resume", action="store_true", help="continue the match saved when you last quit")
    p.add_argument("--data-dir", metavar="DIR", help="where saved games and records go (default: the user data directory)")


def settings_from_args(args: argparse.Namespace) -> dict[str, object]:
    """The set-up screen's starting values from the flags (errors as CliError)."""
    from ristiseiska.commands.common import CliError, load_rules
    from ristiseiska.rules import RulesError, preset
    from ristiseiska.tui.app import default_settings
    from ristiseiska.tui.session import bot_levels, level_id, level_label

    lang = args.lang or "fi"
    rules_file = None
    try:
        if args.rules:
            rules = load_rules(args.preset, args.rules)
            rules_file = args.rules
            preset_value = "@file"
        else:
            rules = preset(args.preset or "ristiseiska")
            preset_value = rules.name
        if args.deals is not None or args.target is not None:
            if args.deals is not None and args.deals < 1:
                raise CliError(f"--deals must be at least 1, not {args.deals}")
            if args.target is not None and args.target < 1:
                raise CliError(f"--target must be at least 1, not {args.target}")
            rules = rules.replace(match_deals=args.deals or 0, match_target=args.target or 0)
        players = args.players if args.players is not None else max(rules.min_players, min(4, rules.max_players))
        rules.check_players(players)
    except RulesError as e:
        raise CliError(str(e)) from None
    bots = []
    for b in (w.strip() for w in (args.bots or "").split(",")):
        if not b:
            continue
        level = level_id(b)  # the command-line name or the Finnish one (taitava)
        if level is None:
            finnish = ", ".join(level_label(x, "fi") for x in bot_levels())
            raise CliError(f"unknown bot level {b!r}; known: {', '.join(bot_levels())} "
                           f"(or in Finnish: {finnish})")
        bots.append(level)
    if len(bots) == 1:
        bots = bots * (players - 1)
    if not bots:
        bots = ["expert"] * (players - 1)
    if len(bots) != players - 1:
        raise CliError(f"--bots needs {players - 1} levels (one per other seat) or one for all, not {len(bots)}")
    if args.pace is not None and args.pace < 0:
        raise CliError("--pace cannot be negative")
    d = default_settings(rules=rules, preset_value=preset_value, players=players, bots=bots,
                         name=args.name, seed=args.seed, lang=lang, open_cards=args.open,
                         pace=args.pace, deals=args.deals, rules_file=rules_file,
                         auto_forced=not args.manual_forced)
    if args.target is not None and not args.rules:
        # The set-up screen has no target field: offer the changed rules as their own choice.
        d["rules_file"] = f"{rules.name} (--target {args.target})"
        d["preset_value"] = "@file"
    return d


def run(args: argparse.Namespace) -> int:
    from ristiseiska.commands.common import CliError
    from ristiseiska.tui.app import run_play
    from ristiseiska.tui.background import end_process
    from ristiseiska.tui.session import Session, data_dir

    if args.resume:
        path = data_dir(args.data_dir)
        try:
            session = Session.load(path, lang=args.lang, pace=args.pace)
        except (ValueError, KeyError, TypeError, OSError) as e:
            raise CliError(f"cannot resume the saved game in {path}: {e}") from None
        if session is None:
            raise CliError(f"no saved game in {path} (start one with `ristiseiska play`)")
        status = run_play(session=session, data_dir_override=args.data_dir)
    else:
        status = run_play(settings_from_args(args), data_dir_override=args.data_dir,
                          quick=args.quick)
    # The match is saved and the last lines are printed: quitting must not wait for a
    # search or a compilation still running beside the game, nor for Python's teardown of
    # numba (issue 62: within 2 s of Ctrl+Q).
    end_process(status)
    return status
