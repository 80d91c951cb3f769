"""``ristiseiska bots add|list|remove``: the Bot API's identities (issue 59; docs/web-api.md,
*The Bot API*). A token is printed once, at ``add``; the database keeps only its hash."""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

HELP = "make, list and remove Bot API identities (outside programs at the server's tables)"
DESCRIPTION = (
    "Bot API identities for `serve`'s database: `add NAME` prints the bot's token once (only "
    "its hash is kept), `list` names them, `remove NAME` revokes one. A table's creator seats "
    "one with the seat kind bot-api:NAME; the program connects to /ws with its token "
    "(docs/web-api.md)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("add", "list", "remove"), help="what to do")
    p.add_argument("name", nargs="?", default=None, metavar="NAME",
                   help="the bot's name (add, remove): lower-case letters, digits, - or _")
    p.add_argument("--database-url", "--db", dest="database_url", default=None, metavar="URL",
                   help="the server's database (default: its SQLite file in the user data "
                   "directory, as for serve)")
    p.add_argument("--lang", default="en", help="language of the messages (fi, en, sv)")


def run(args: argparse.Namespace) -> int:
    from ristiseiska.i18n import norm_lang, t

    from ..store import Store, StoreError, describe_error
    from ..store import bot_tokens as bt
    from .common import CliError

    lang = norm_lang(args.lang)
    if args.action in ("add", "remove") and not args.name:
        raise CliError(t("cli.bots.need_name", lang, action=args.action))
    if args.action == "list" and args.name:
        raise CliError(t("cli.bots.no_name", lang))
    try:
        store = Store(args.database_url)
    except Exception as e:  # a malformed URL or a missing driver
        raise CliError(t("cli.bots.bad_database", lang,
                         error=" ".join(str(e).split())[:200])) from None

    async def go() -> Any:
        try:
            await store.migrate()  # the same schema serve makes at its start
            if args.action == "add":
                return await bt.add_bot(store, args.name)
            if args.action == "remove":
                return await bt.remove_bot(store, args.name)
            return await bt.list_bots(store)
        except (StoreError, bt.BotTokenError):
            raise
        except Exception as e:  # noqa: BLE001 - every driver error becomes one sentence
            raise StoreError(describe_error(e, store.url)) from None
        finally:
            await store.engine.dispose()

    try:
        out = asyncio.run(go())
    except bt.BotTokenError as e:
        key = {"bad-name": "cli.bots.bad_name", "name-taken": "cli.bots.taken",
               "no-bot": "cli.bots.unknown"}[e.code]
        raise CliError(t(key, lang, name=str(args.name)[:40])) from None
    except StoreError as e:
        raise CliError(str(e)) from None
    if args.action == "add":
        print(t("cli.bots.added", lang, name=args.name))
        print(out)
    elif args.action == "remove":
        print(t("cli.bots.removed", lang, name=args.name))
    elif not out:
        print(t("cli.bots.none", lang))
    else:
        for name, created in out:
            print(f"{name}\t{time.strftime('%Y-%m-%d %H:%M', time.gmtime(created))} UTC")
    return 0
