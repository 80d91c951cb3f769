"""The analysis in the terminal (issue 15): the replay viewer with each decision's verdict and
its alternatives, and "where did I lose points?" at the end of a deal.

The search runs in a worker thread (the compiled playouts are short calls, so the screen keeps
answering between them); its result is kept for the viewer's life, never recomputed.
"""

from __future__ import annotations

import math
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..analysis import Decision, SeatAnalysis, analyze_record, reason_text
from ..analysis.text import where_lines
from ..i18n import move_words, number, t
from . import background
from .replay import ReplayApp

STYLE = {"good": "green", "inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "bold red",
         "forced": "dim"}
BAR = 24  # characters of the longest bar


def _words(move: str, lang: str) -> str:
    return move_words(move, lang)


def current_decision(a: SeatAnalysis, step: int) -> Decision | None:
    """The decision made from the replayed position, else the last one before it."""
    got = None
    for d in a.decisions:
        if d.index <= step:
            got = d
    return got


def decision_text(a: SeatAnalysis, step: int, names: list[str], lang: str) -> Text:
    """The analysis at replay step ``step``: the seat's accuracy, the decision's verdict and a
    bar per alternative (expected points; fewer is better)."""
    name = names[a.seat] if a.seat < len(names) else str(a.seat)
    acc = "–" if a.accuracy is None else f"{a.accuracy:.0f} %"
    out = Text()
    out.append(f"{t('analysis.title', lang)}: {t('analysis.seat_of', lang, name=name)}"
               f" — {t('analysis.accuracy', lang, accuracy=acc)}\n", style="bold")
    out.append(t("analysis.summary", lang, **a.counts()) + "\n")
    d = current_decision(a, step)
    if d is None:
        out.append(t("analysis.tui.no_decision", lang))
        return out
    # the move's number from 1, as in the log; "next" when it is made from the shown position
    key = "analysis.decision_next" if d.index == step else "analysis.decision"
    out.append(t(key, lang, number=d.number, move=move_words(d.move, lang)) + " — ")
    out.append(t(f"analysis.verdict.{d.verdict}", lang), style=STYLE[d.verdict])
    if d.forced:
        return out
    out.append(" (" + t("analysis.loss_short", lang, loss=number(d.loss, lang), se=number(d.se, lang)) + ")\n")
    why = reason_text(d, lang)  # the reason for the best move, in a sentence
    if why:
        out.append(why + "\n", style="italic")
    top = max([1.0] + [m.points for m in d.moves if not math.isnan(m.points)])
    width = max(len(_words(m.move, lang)) for m in d.moves)
    for m in d.moves:
        filled = max(1, round(BAR * m.points / top))
        mark = (" · " + t("analysis.best_mark", lang) if m.move == d.best else "") + (
            " · " + t("analysis.played_mark", lang) if m.move == d.move else "")
        colour = "green" if m.move == d.best else STYLE[d.verdict] if m.move == d.move else "grey50"
        out.append(f"  {_words(m.move, lang):<{width}} ")
        out.append("█" * filled, style=colour)
        out.append("░" * (BAR - filled), style="grey23")
        out.append(f" {t('analysis.points_short', lang, points=number(m.points, lang))} · "
                   f"{t('analysis.win_short', lang, win=round(100 * m.win))}{mark}\n")
    return out


class AnalysisReplayApp(ReplayApp):
    """The replay viewer with the analysis: a analyses the chosen seat, s picks another seat,
    w shows the costliest decisions."""

    CSS = ReplayApp.CSS + """
    #analysis { height: auto; max-height: 16; border: round $primary; padding: 0 1; }
    """

    def __init__(self, record: dict[str, Any], lang: str = "fi", seat: int | None = None) -> None:
        super().__init__(record, lang)
        # the reader's own seat first (a record the terminal game saved), else the first seat
        self.seat = seat if seat is not None else (self.you or 0)
        self.analyses: dict[int, SeatAnalysis] = {}
        self.show_where = False
        self.running: int | None = None
        for keys, action, key in (("a", "analyse", "analysis.key.analyse"),
                                  ("s", "next_seat", "analysis.key.seat"),
                                  ("w", "where", "analysis.key.where")):
            self._bindings.bind(keys, action, t(key, lang), priority=True)

    def on_mount(self) -> None:
        self.mount(Static("", id="analysis"), after="#step")
        super().on_mount()

    @property
    def names(self) -> list[str]:
        return list(self.game.names)

    def draw(self) -> None:
        super().draw()
        panes = self.query("#analysis")
        if not panes:
            return
        pane = panes.first(Static)
        lang = self.lang
        name = self.names[self.seat] if self.seat < len(self.names) else str(self.seat)
        a = self.analyses.get(self.seat)
        if a is None:
            key = "analysis.tui.running" if self.running == self.seat else "analysis.tui.off"
            pane.update(t(key, lang, name=name))
        elif self.show_where:
            pane.update(Text("\n".join(where_lines(a, lang))))
        else:
            pane.update(decision_text(a, self.step, self.names, lang))

    def action_analyse(self) -> None:
        if self.seat in self.analyses or self.running is not None:
            return
        self.running = self.seat
        self.draw()
        self.run_worker(self._compute(self.seat), exclusive=True, group="analysis")

    async def _compute(self, seat: int) -> None:
        try:
            a = await background.run(analyze_record, self.record, seat)
        finally:
            self.running = None
        self.analyses[seat] = a
        self.draw()

    def action_next_seat(self) -> None:
        if self.running is not None:
            return
        self.seat = (self.seat + 1) % max(1, len(self.names))
        self.show_where = False
        self.draw()

    def action_where(self) -> None:
        if self.seat not in self.analyses:
            self.action_analyse()
        self.show_where = not self.show_where
        self.draw()


class WhereLost(ModalScreen[None]):
    """'Where did I lose points?' after a deal: the seat's two or three costliest decisions,
    computed in a worker thread when the screen opens."""

    DEFAULT_CSS = """
    WhereLost { align: center middle; }
    WhereLost > Vertical { width: 96; height: auto; max-height: 90%; border: thick $accent;
                           background: $surface; padding: 1 2; }
    """
    BINDINGS = [Binding("escape,enter,q", "close", show=False)]

    def __init__(self, record: dict[str, Any], seat: int, lang: str = "fi") -> None:
        super().__init__()
        self.record = record
        self.seat = seat
        self.lang = lang
        self.analysis: SeatAnalysis | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(t("analysis.where", self.lang), style="bold"))
            yield Static(t("analysis.busy", self.lang), id="where-body")
            yield Button(t("analysis.close", self.lang), id="close", variant="primary")

    def on_mount(self) -> None:
        self.query_one(Button).focus()
        self.run_worker(self._compute(), exclusive=True)

    async def _compute(self) -> None:
        a = await background.run(analyze_record, self.record, self.seat)
        self.analysis = a
        acc = "–" if a.accuracy is None else f"{a.accuracy:.0f} %"
        lines = [t("analysis.accuracy", self.lang, accuracy=acc),
                 t("analysis.summary", self.lang, **a.counts()), ""]
        lines += where_lines(a, self.lang)[1:]
        self.query_one("#where-body", Static).update(Text("\n".join(lines)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


def run_replay(record: dict[str, Any], lang: str = "fi") -> int:
    """Show ``record`` (one deal) in the terminal, with the move analysis (a, s, w), until the
    person quits."""
    AnalysisReplayApp(record, lang).run()
    return 0
