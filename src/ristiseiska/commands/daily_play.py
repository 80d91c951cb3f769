"""Playing the daily deal for ``ristiseiska daily`` (commands/daily.py) and its ``--server``
form (commands/daily_server.py): a bot for ``--auto``, a ``--moves`` file, or the terminal
game."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

MAX_FILE = 1_000_000  # bytes: a moves file (or a results file of ten years) is far smaller


def _read_small(path: Path, what: str) -> bytes:
    from ristiseiska.commands.common import CliError

    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE + 1)
    except OSError as e:
        raise CliError(f"cannot read the {what} {path}: {e.strerror or e}") from None
    if len(data) > MAX_FILE:
        raise CliError(f"the {what} {path} is over {MAX_FILE:,} bytes: not a file of ours")
    return data


def _read_moves(path: Path) -> list[str]:
    """The moves of a --moves file, in order."""
    from ristiseiska.commands.common import CliError

    try:
        text = _read_small(path, "moves file").decode("utf-8")
    except UnicodeDecodeError:
        raise CliError(f"the moves file {path} is not UTF-8 text") from None
    return [w for line in text.splitlines() for w in line.split("#", 1)[0].split()]


def _bot_level(name: str, flag: str) -> str:
    from ristiseiska.bots import BOTS
    from ristiseiska.commands.common import CliError
    from ristiseiska.tui.session import level_id

    level = level_id(name) or name.strip().lower()  # Finnish names too (mestari)
    if level not in BOTS or level == "policy":
        known = ", ".join(b for b in BOTS if b != "policy")
        raise CliError(f"{flag}: unknown bot level {name!r}; known: {known}")
    return level


def _names(lang: str) -> list[str]:
    from ristiseiska.i18n import PLAYER_NAMES, t

    return [t("tui.you", lang), *PLAYER_NAMES[:3]]


def _play(deal: Any, auto: str | None, lang: str, base: Path, counted: bool,
          server: str | None = None) -> Any:
    """The finished deal, or None when the player left it unfinished."""
    from ristiseiska.bots import get_bot
    from ristiseiska.commands.common import CliError
    from ristiseiska.daily import SEAT, bot_seed, play

    if auto is not None:
        if auto.startswith("master") or auto == "neural":
            _warm(lang)
        bot = get_bot(auto, seed=bot_seed(deal.seed, SEAT))
        return play(deal, bot.choose, _names(lang))
    if not _terminal():
        raise CliError("the daily deal is played in a terminal; --auto LEVEL lets a bot play "
                       "your seat instead")
    return _play_terminal(deal, lang, base, counted, server)


def _terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def terminal_session(deal: Any, lang: str, base: Path, counted: bool) -> Any:
    """The terminal game's session of the deal: an unfinished counted try saved earlier, or a
    new one. A counted try is saved after every move in a folder of its own (beside no other
    saved game), so quitting and coming back continues it; practice is not saved."""
    from ristiseiska.daily import BOT_LEVEL, PLAYERS
    from ristiseiska.tui.session import Session, Setup

    folder = base / "daily" / f"{deal.day.isoformat()}-{deal.preset}" if counted else None
    session = None
    if folder is not None:
        try:
            session = Session.load(folder, lang=lang)
        except (ValueError, KeyError, TypeError, OSError):
            session = None  # a damaged save: the try starts again
        if session is not None and (session.setup.seed != deal.seed
                                    or session.rules != deal.rules):
            session = None  # a save of another secret's deal
    if session is None:
        setup = Setup(rules=deal.rules, players=PLAYERS, bots=[BOT_LEVEL] * (PLAYERS - 1),
                      seed=deal.seed, lang=lang)
        session = Session(setup, folder, save=counted)
    # the terminal game deals a match's first deal and seeds its bots as the daily deal does
    if session.game.seed != deal.shuffle_seed:  # pragma: no cover - one formula in both
        raise RuntimeError("the terminal game did not deal the daily deal")
    return session


def _play_terminal(deal: Any, lang: str, base: Path, counted: bool,
                   server: str | None = None) -> Any:
    from ristiseiska.i18n import t
    from ristiseiska.tui.app import PlayApp

    session = terminal_session(deal, lang, base, counted)
    app = PlayApp(session=session, data_dir_path=session.dir, save=counted)
    app.run()
    if not session.game.is_over():
        if counted:
            print(t("daily.result.unfinished", lang, command=_command(deal, lang, server)))
        return None
    return session.game


def _command(deal: Any, lang: str, server: str | None = None) -> str:
    cmd = "ristiseiska daily" + (f" --server {shlex.quote(server)}" if server else "")
    if deal.preset != "ristiseiska":
        cmd += f" --preset {deal.preset}"
    from ristiseiska.i18n import DEFAULT_LANG

    return cmd + (f" --lang {lang}" if lang != DEFAULT_LANG else "")


def _warm(lang: str) -> None:
    from ristiseiska.commands.common import warm_kernel

    try:
        warm_kernel(lang=lang)
    except ImportError:
        pass  # no numba: the master bot searches in Python
