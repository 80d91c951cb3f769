"""Bots by name, ours and other people's (issue 59, docs/simulation.md, *Bring your own bot*).

A bot name is one of three things, tried in this order:

1. one of our levels (``random``, ``basic``, ``expert``, ``master``, …; :data:`BOTS`);
2. the name of an entry point in the group ``ristiseiska.bots`` of an installed package
   (``[project.entry-points."ristiseiska.bots"] opener = "opener_bot:OpenerBot"``);
3. ``package.module:Class``, a class importable from ``sys.path``.

A plugin class fits when ``Class(seed=S, **options)`` (or ``Class()`` when it takes no
arguments and none are given) makes an object with a ``choose(view)`` method that returns one
of ``view.legal_moves`` (:class:`ristiseiska.bots.base.Bot` is the interface to subclass).

    >>> bot = make_bot("basic", seed=1)
    >>> type(bot).__name__
    'BasicBot'
    >>> make_bot("no_such_bot")
    Traceback (most recent call last):
    ...
    ristiseiska.bots.plugins.PluginError: unknown bot 'no_such_bot': none of the known bots (random, basic, ...), no entry point of that name in the group 'ristiseiska.bots', and not of the form package.module:Class

Plugins are somebody else's code, so :func:`make_bot` wraps them in a :class:`GuardedBot`: a
move that raises, takes longer than its limit or is not legal is played by :data:`STAND_IN`
(our ``basic`` bot) instead, and the fault is counted by kind (:data:`FAULT_KINDS`) so that a
tournament can report it. Our own bots are not wrapped.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import threading
from typing import Any

from ..moves import Move
from . import BOTS

GROUP = "ristiseiska.bots"
STAND_IN = "basic"  # plays a plugin's move when the plugin fails to
MOVE_LIMIT = 5.0  # seconds a plugin may think per move by default
FAULT_KINDS = ("error", "timeout", "illegal")


class PluginError(ValueError):
    """A bot name that resolves to nothing, or a class that does not fit the interface."""


class IllegalMove(ValueError):
    """Raised by a bot that knows its answer is no legal move (an adapter whose policy chose a
    masked action): a :class:`GuardedBot` counts it as ``illegal``, not ``error``."""


def is_ours(name: str) -> bool:
    return name.strip().lower() in BOTS


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=GROUP)}


def plugin_names() -> list[str]:
    """The entry-point names of the installed bot plugins, sorted."""
    return sorted(_entry_points())


def resolve(name: str) -> Any:
    """The class (or factory) a bot name stands for; :class:`PluginError` if none."""
    if not isinstance(name, str) or not name.strip():
        raise PluginError(f"a bot name must be a non-empty text, not {name!r}")
    name = name.strip()
    if name.lower() in BOTS:
        return BOTS[name.lower()]
    eps = _entry_points()
    if name in eps:
        try:
            obj = eps[name].load()
        except Exception as e:  # noqa: BLE001 - any import failure of foreign code
            raise PluginError(f"bot plugin {name!r} ({eps[name].value}) cannot be loaded: "
                              f"{type(e).__name__}: {e}") from None
        return _check_class(obj, name)
    if ":" in name:
        module_name, _, attr = name.partition(":")
        if not module_name or not attr or not all(
                part.isidentifier() for part in (*module_name.split("."), *attr.split("."))):
            raise PluginError(f"bot {name!r}: write a class as package.module:Class")
        try:
            target: Any = importlib.import_module(module_name)
        except Exception as e:  # noqa: BLE001
            raise PluginError(f"bot {name!r}: cannot import {module_name}: "
                              f"{type(e).__name__}: {e}") from None
        for part in attr.split("."):
            if not hasattr(target, part):
                raise PluginError(f"bot {name!r}: {module_name} has no {attr}")
            target = getattr(target, part)
        return _check_class(target, name)
    ours = ", ".join(BOTS)
    raise PluginError(f"unknown bot {name!r}: none of the known bots ({ours}), no entry point of "
                      f"that name in the group {GROUP!r}, and not of the form "
                      "package.module:Class")


def _check_class(obj: Any, name: str) -> Any:
    if not callable(obj):
        raise PluginError(f"bot {name!r} is a {type(obj).__name__}, not a class")
    if isinstance(obj, type) and not callable(getattr(obj, "choose", None)):
        raise PluginError(f"bot {name!r} ({obj.__module__}.{obj.__qualname__}) does not fit the "
                          "bot interface: it has no choose(view) method "
                          "(subclass ristiseiska.bots.base.Bot)")
    return obj


def _construct(cls: Any, name: str, seed: int | None, options: dict[str, Any]) -> Any:
    try:
        bot = cls(seed=seed, **options)
    except TypeError as first:
        if options:
            raise PluginError(f"bot {name!r} does not take these options "
                              f"({', '.join(sorted(options))}): {first}") from None
        try:  # a class that takes no seed: it gets none
            bot = cls()
        except Exception as e:  # noqa: BLE001
            raise PluginError(f"bot {name!r} cannot be made: {type(e).__name__}: {e}") from None
    except ValueError as e:
        raise PluginError(f"bot {name!r}: {e}") from None
    except Exception as e:  # noqa: BLE001
        raise PluginError(f"bot {name!r} cannot be made: {type(e).__name__}: {e}") from None
    if not callable(getattr(bot, "choose", None)):
        raise PluginError(f"bot {name!r} does not fit the bot interface: what it makes has no "
                          "choose(view) method")
    return bot


def make_bot(name: str, seed: int | None = None, move_limit: float = MOVE_LIMIT,
             **options: Any) -> Any:
    """A bot by name (ours, an entry point or ``package.module:Class``) with its options;
    a plugin comes wrapped in a :class:`GuardedBot` with ``move_limit`` seconds a move."""
    cls = resolve(name)
    if is_ours(name):
        try:
            return cls(seed=seed, **options)
        except TypeError as e:
            raise PluginError(f"bot {name!r}: {e}") from None
    inner = _construct(cls, name.strip(), seed, options)
    return GuardedBot(inner, name.strip(), seed=seed, move_limit=move_limit)


class GuardedBot:
    """A plugin bot that can never stop a game.

    Its move is asked for in a helper thread and waited for up to ``move_limit`` seconds
    (``None``: no limit). When the plugin raises, is late or answers with a move that is not
    in ``view.legal_moves``, the :data:`STAND_IN` bot plays instead and ``faults[kind]`` grows
    by one. A late answer is dropped (the thread cannot be stopped; it is a daemon, so it does
    not keep the process alive). ``last_fault`` is the kind of the last move's fault or ``None``.
    """

    def __init__(self, inner: Any, name: str, seed: int | None = None,
                 move_limit: float | None = MOVE_LIMIT) -> None:
        if move_limit is not None and not move_limit > 0:
            raise PluginError(f"the move limit must be a positive number of seconds, not {move_limit!r}")
        from . import get_bot

        self.inner = inner
        self.name = name
        self.seed = seed
        self.move_limit = move_limit
        self.stand_in = get_bot(STAND_IN, seed=seed if seed is not None else 0)
        self.faults: dict[str, int] = {}
        self.last_fault: str | None = None
        self.last_error: str = ""

    def _ask(self, view: Any) -> tuple[str, Any]:
        if self.move_limit is None:
            try:
                return "ok", self.inner.choose(view)
            except IllegalMove as e:
                return "illegal", e
            except Exception as e:  # noqa: BLE001
                return "error", e
        box: list[tuple[str, Any]] = []
        done = threading.Event()

        def work() -> None:
            try:
                box.append(("ok", self.inner.choose(view)))
            except IllegalMove as e:
                box.append(("illegal", e))
            except BaseException as e:  # noqa: BLE001 - SystemExit from a plugin too
                box.append(("error", e))
            finally:
                done.set()

        threading.Thread(target=work, name=f"bot-{self.name}", daemon=True).start()
        if not done.wait(self.move_limit):
            return "timeout", None
        return box[0]

    def choose(self, view: Any) -> Move:
        kind, answer = self._ask(view)
        self.last_fault = None
        if kind == "ok":
            try:
                if answer in view.legal_moves:
                    return answer  # type: ignore[no-any-return]
            except Exception:  # noqa: BLE001 - an answer that cannot even be compared
                pass
            kind = "illegal"
            self.last_error = f"returned {answer!r}"
        elif kind in ("error", "illegal"):
            self.last_error = f"{type(answer).__name__}: {answer}"
        else:
            self.last_error = f"no move within {self.move_limit:g} s"
        self.last_fault = kind
        self.faults[kind] = self.faults.get(kind, 0) + 1
        return self.stand_in.choose(view)

    def __call__(self, view: Any) -> Move:
        return self.choose(view)

    def __repr__(self) -> str:
        return f"<GuardedBot {self.name} seed={self.seed}>"
