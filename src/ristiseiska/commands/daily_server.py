"""``ristiseiska daily --server URL``: a server's daily deal in the terminal (issue 57).

The server hands out the deal as this player's try (``POST /api/daily/DAY/PRESET/package``);
it is played here as ``ristiseiska daily`` plays it (the terminal game, ``--auto`` or
``--moves``); its record goes back (``…/submit``), the server replays it itself and answers the
comparison with the reference bot and everyone who played the deal. The player is this
computer's device key (``daily-device`` in the data directory, made on first use).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import urllib.error
import urllib.request
from datetime import date
from pathlib import Path
from typing import Any

DEVICE_FILE = "daily-device"
TIMEOUT = 120.0  # seconds: the server's first comparison may wait on its reference bot


def device_key(base: Path) -> str:
    """This computer's key for daily deals (made on first use, kept private)."""
    from .common import CliError

    path = base / DEVICE_FILE
    if not path.exists():
        try:
            base.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(secrets.token_urlsafe(24) + "\n")
        except FileExistsError:
            pass
        except OSError as e:
            raise CliError(f"cannot make the device file {path}: {e.strerror or e}") from None
    try:
        key = path.read_text(encoding="ascii", errors="replace").strip()[:64]
    except OSError as e:
        raise CliError(f"cannot read the device file {path}: {e.strerror or e}") from None
    if len(key) < 16:
        raise CliError(f"the device file {path} is damaged (delete it to make a new one)")
    return key


def _call(server: str, path: str, body: dict[str, Any] | None, lang: str) -> Any:
    from ristiseiska.i18n import t

    from .common import CliError

    url = server.rstrip("/") + path
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",
                                 headers={"Content-Type": "application/json",
                                          "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:  # noqa: S310 - the user's URL
            return json.loads(r.read(2_000_000).decode("utf-8"))
    except urllib.error.HTTPError as e:
        try:
            answer = json.loads(e.read(20_000).decode("utf-8"))
            message = f"{answer.get('message', '')} ({answer.get('error', e.code)})"
        except (ValueError, AttributeError):
            message = f"HTTP {e.code}"
        raise CliError(t("daily.server.failed", lang, server=server, message=message)) from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        raise CliError(t("daily.server.unreachable", lang, server=server,
                         reason=str(reason))) from None


def run_server(args: argparse.Namespace, day: date, base: Path, lang: str) -> int:
    from ristiseiska.daily import DailyDeal, DailyError, play_moves, streak_line
    from ristiseiska.daily.streak import Streak
    from ristiseiska.i18n import t
    from ristiseiska.record import dumps_record, record_from_game

    from .common import CliError
    from .daily_play import _bot_level, _names, _play, _read_moves

    server = args.server
    if not server.startswith(("http://", "https://")):
        raise CliError(f"--server needs an http:// or https:// address, not {server[:80]!r}")
    device = device_key(base)
    where = f"/api/daily/{day.isoformat()}/{args.preset}"
    if args.show:
        res = _call(server, f"{where}/result", {"device": device, "lang": lang}, lang)
    else:
        if args.auto and args.moves:
            raise CliError("give --auto or --moves, not both")
        auto = _bot_level(args.auto, "--auto") if args.auto else None
        moves = _read_moves(Path(args.moves)) if args.moves else None
        print(t("daily.server.fetching", lang, server=server), file=sys.stderr)
        pkg = _call(server, f"{where}/package", {"device": device}, lang)
        try:
            deal = DailyDeal(date.fromisoformat(pkg["day"]), pkg["preset"], int(pkg["seed"]),
                             str(pkg["salt"]))
            if deal.shuffle_seed != pkg["shuffle_seed"]:
                raise DailyError("the package's seeds do not agree")
            if moves is not None:
                game = play_moves(deal, moves, _names(lang))
            else:
                game = _play(deal, auto, lang, base / "server", bool(pkg["counted"]), server)
        except (KeyError, TypeError, ValueError) as e:
            raise CliError(f"the server's package is not one this program can play ({e})") \
                from None
        if game is None:
            return 0
        record = dumps_record(record_from_game(game, preset=deal.preset,
                                               extra=pkg["record_extra"]))
        res = _call(server, f"{where}/submit",
                    {"device": device, "record": record, "lang": lang,
                     "practice": not pkg["counted"]}, lang)
    for line in result_lines(res, lang):
        print(line)
    lobby = _call(server, "/api/daily", {"device": device, "lang": lang}, lang)
    s = lobby.get("streak") or {}
    print(streak_line(Streak(int(s.get("current", 0)), int(s.get("best", 0))), lang))
    print(t("daily.result.share", lang))
    print(res.get("share", ""))
    return 0


def result_lines(res: dict[str, Any], lang: str) -> list[str]:
    """The server's comparison in words (these lines may name cards: they are the player's)."""
    from ristiseiska.daily.share import capital, game_name, level_name
    from ristiseiska.i18n import move_words, t

    n = len(res.get("table") or []) or 4
    ref = res["master"]
    level = level_name(str(ref.get("level", "master")), lang)
    lines = [t("daily.result.heading", lang, game=game_name(res["preset"], lang),
               date=res["day"]),
             t("daily.result.you", lang, points=res["points"], place=res["place"], n=n),
             capital(t("daily.result.reference", lang, level=level, points=ref["points"],
                       place=ref["place"], n=n))]
    d = ref.get("first_difference")
    if d is None:
        lines.append(t("daily.result.same", lang, level=level))
    else:
        lines.append(t("daily.result.differ", lang, index=d["index"], turn=d["turn"],
                       level=level, player=move_words(d["player"], lang),
                       reference=move_words(d["reference"], lang)))
    f = res["field"]
    if f.get("percentile") is None:
        lines.append(t("daily.server.alone", lang))
    else:
        lines.append(t("daily.server.field", lang, players=f["players"], rank=f["rank"],
                       percentile=round(f["percentile"])))
    lines.append(t("daily.server.counted" if res.get("counted") else "daily.server.practice",
                   lang))
    return lines
