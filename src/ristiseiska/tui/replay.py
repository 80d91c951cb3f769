"""Step through a recorded deal in the game's own view (``ristiseiska replay FILE``).

Every hand is shown (a record is for looking back); → or space goes one move on, ← one back,
Home and End jump to the start and the end, q quits.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, RichLog, Static

from ..game import Game
from ..i18n import describe_event, reader_names, result_lines, t
from .header import SafeHeader
from .widgets import PlayersView, TableView


def load_record_game(record: dict[str, Any]) -> tuple[Game, list[Any]]:
    """The deal of ``record`` before its first move, and its moves in order."""
    from ..record import replay_record, setup_game

    start = setup_game(record)
    moves = replay_record(record).moves
    return start, moves


class ReplayApp(App[None]):
    TITLE = "Ristiseiska"
    ENABLE_COMMAND_PALETTE = False
    # The log sits under the table, beside the players' hands: at 80×24 every hand (broken
    # only between suits) and the latest moves are on the screen together.
    CSS = """
    #top { height: 1fr; }
    #left { width: 1fr; height: 1fr; }
    #log { height: 1fr; min-height: 4; border: round $secondary; padding: 0 1; }
    #players { width: 31; height: 1fr; overflow-y: auto; }
    #step { height: 1; padding: 0 1; color: $accent; }
    """

    def __init__(self, record: dict[str, Any], lang: str = "fi") -> None:
        super().__init__()
        self.record = record
        self.lang = lang
        self.game, self.moves = load_record_game(record)
        # the reader's own seat (a record the terminal game saved) as "Sinä"/"You"
        you = record.get("you")
        self.you = you if isinstance(you, int) and not isinstance(you, bool) else None
        self.game.names = reader_names(self.game.names, self.you, lang)
        self.step = 0
        for keys, action, key in (("right,space,n", "next", "tui.key.next"),
                                  ("left,backspace,p", "prev", "tui.key.prev"),
                                  ("home", "first", "tui.key.first"),
                                  ("end", "last", "tui.key.last"),
                                  ("q,escape", "quit", "tui.key.quit")):
            # priority: the log would take the arrows and Home/End for scrolling
            self._bindings.bind(keys, action, t(key, lang), priority=True)

    def compose(self) -> ComposeResult:
        yield SafeHeader()
        with Horizontal(id="top"):
            with Vertical(id="left"):
                yield TableView(id="table")
                yield RichLog(id="log", wrap=True, markup=False)
            yield PlayersView(id="players")
        yield Static("", id="step")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = t("tui.replay.title", self.lang)
        self.query_one("#log", RichLog).border_title = t("tui.log.title", self.lang)
        self.draw()

    def go(self, step: int) -> None:
        step = max(0, min(len(self.moves), step))
        if step == self.step:
            return
        if step > self.step:
            for m in self.moves[self.step:step]:
                self.game.push(m)
        else:
            for _ in range(self.step - step):
                self.game.pop()
        self.step = step
        self.draw()

    def draw(self) -> None:
        g = self.game
        lang = self.lang
        view = g.view(g.to_move if not g.is_over() else 0, open_cards=True)
        last = g.events[-1] if g.events else None
        recent = {int(last.card)} if last is not None and last.type == "play" and last.card is not None else set()
        self.query_one(TableView).show(view, lang, recent)
        # Every hand, as a record has no "own" seat.
        self.query_one(PlayersView).show(view, lang, show_all=True)
        n = len(self.moves)
        text = t("tui.replay.step", lang, i=self.step, n=n)
        if self.step == 0:
            text += " · " + t("tui.replay.start", lang)
        self.query_one("#step", Static).update(text + "   " + t("tui.replay.help", lang))
        log = self.query_one("#log", RichLog)
        log.clear()
        mark = g.rules.distinct_decks
        width = len(str(n))
        for i, e in enumerate(g.events, 1):  # numbered from 1, as replay --text and analyze
            log.write(Text(f"{i:>{width}}. {describe_event(e.to_dict(mark), g.names, lang, self.you)}"))
        if g.is_over() and g.result is not None:
            for line in result_lines(g.result, g.names, lang, self.you):
                log.write(Text(line, style="bold green"))

    def action_next(self) -> None:
        self.go(self.step + 1)

    def action_prev(self) -> None:
        self.go(self.step - 1)

    def action_first(self) -> None:
        self.go(0)

    def action_last(self) -> None:
        self.go(len(self.moves))

    async def action_quit(self) -> None:
        self.exit()
