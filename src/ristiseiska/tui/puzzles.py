"""The puzzle trainer in the terminal (``ristiseiska puzzles train``, issue 21).

The position as its seat saw it (the table, every player's card count, the last events, the
hand), the legal moves to choose from (arrows and Enter, or the digits), then the verdict, the
explanation and every move's cost; ``n`` goes on to the next puzzle. The streak and the score
(Elo against each puzzle's rating, as in the browser) last for the session. Fits 80×24.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..i18n import cards_left_label, t
from ..puzzles.present import position, update_score, verdict

SUITS = ("♣", "♦", "♥", "♠")
RED = {1, 2}
LAST_EVENTS = 3


def _rank(code: str) -> str:
    return code[1:].rstrip("+'")


def board_text(pos: dict[str, Any], lang: str, full_history: bool = False,
               width: int = 0) -> Text:
    """The table, the card counts and the latest events as terminal text; ``width`` (the
    widget's, when known) keeps each player's count whole on one line."""
    out = Text()
    for r in pos["rows"] or [{"suit": s, "cards": []} for s in range(4)]:
        suit = int(r["suit"])
        style = "red" if suit in RED else "bold"
        out.append(f" {SUITS[suit] if 0 <= suit < 4 else '?'} ", style=style)
        out.append(" ".join(_rank(c) for c in r["cards"]) or "·", style=style)
        out.append("\n")
    counts = []
    for s, name in enumerate(pos["names"]):
        mark = f" ({t('puzzles.token_here', lang)})" if pos["token_holder"] == s else ""
        # "Pelaaja 2: 5 korttia", never a bare number after a name
        counts.append(f"{name}: {cards_left_label(pos['hand_sizes'][s], lang)}{mark}")
    text = t("puzzles.tui.counts", lang, counts=" · ".join(counts))
    if width > 0 and len(text) > width:  # break between players, never inside "5 korttia"
        lines = [counts[0]]
        for c in counts[1:]:
            if len(lines[-1]) + 3 + len(c) <= width:
                lines[-1] += " · " + c
            else:
                lines.append(c)
        text = t("puzzles.tui.counts", lang, counts="\n".join(lines))
    out.append(text + "\n", style="cyan")
    events = pos["history"] if full_history else pos["history"][-LAST_EVENTS:]
    if full_history:
        out.append(t("puzzles.history", lang, n=len(pos["history"])) + "\n", style="bold")
        for k, e in enumerate(events, 1):
            out.append(f"{k:>3}. {e}\n")
    elif events:
        out.append(t("puzzles.tui.history_last", lang, events=" ".join(events)) + "\n", style="dim")
    return out


def hand_text(pos: dict[str, Any], lang: str) -> Text:
    out = Text(t("puzzles.hand", lang) + ": ", style="bold")
    for c in pos["hand"]:
        suit = "CDHS".find(c[0])
        out.append(f"{SUITS[suit] if suit >= 0 else '?'}{_rank(c)} ", style="red" if suit in RED else "")
    return out


def verdict_text(res: dict[str, Any], lang: str) -> Text:
    out = Text()
    head = t("puzzles.right" if res["correct"] else "puzzles.wrong", lang)
    out.append(head + ("" if head.endswith((".", "!", "?")) else ".") + " ",
               style="bold green" if res["correct"] else "bold red")
    out.append(res["verdict"] + "\n")
    out.append(t("puzzles.why", lang) + " ", style="bold")
    out.append(res["why"] + "\n", style="italic")
    width = max(len(m["label"]) for m in res["moves"])
    for m in res["moves"]:
        mark = "▶ " if m["chosen"] else "  "
        cost = t("puzzles.best", lang) if m["best"] else m["cost"]
        out.append(f"{mark}{m['label']:<{width}}  {cost}\n",
                   style="green" if m["best"] else ("red" if m["chosen"] else ""))
    return out


class PuzzleApp(App[None]):
    """Solve puzzles one after another."""

    CSS = """
    Screen { layout: vertical; }
    #head { height: 1; background: $primary; color: $text; }
    #stats { height: 1; color: $text-muted; }
    #scroll { height: 1fr; }
    #board { height: auto; }
    #hand { height: auto; }
    #task { height: auto; text-style: bold; }
    #moves { height: auto; max-height: 10; border: none; }
    #verdict { height: auto; }
    #keys { height: 1; dock: bottom; background: $boost; }
    """

    BINDINGS = [
        Binding("q", "quit", show=False),
        Binding("n", "next", show=False),
        Binding("h", "history", show=False),
        *[Binding(str(k), f"pick({k})", show=False) for k in range(1, 10)],
    ]

    def __init__(self, puzzles: Sequence[dict[str, Any]], lang: str = "fi", seed: int | None = None) -> None:
        super().__init__()
        self.items = list(puzzles)
        (random.Random(seed) if seed is not None else random.Random()).shuffle(self.items)
        self.lang = lang
        self.k = 0
        self.pos: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None
        self.full_history = False
        self.score, self.streak, self.best_streak, self.solved, self.tried = 1000, 0, 0, 0, 0

    def compose(self) -> ComposeResult:
        yield Static(id="head")
        yield Static(id="stats")
        with VerticalScroll(id="scroll"):
            yield Static(id="board")
            yield Static(id="hand")
            yield Static(id="task")
            yield OptionList(id="moves")
            yield Static(id="verdict")
        yield Static(t("puzzles.tui.keys", self.lang), id="keys")

    def on_mount(self) -> None:
        self.title = t("puzzles.tui.title", self.lang)
        self.show()

    # -- drawing ---------------------------------------------------------------------------------
    def show(self) -> None:
        p = self.items[self.k]
        self.pos = pos = position(p, self.lang)
        self.result = None
        self.full_history = False
        self.query_one("#head", Static).update(t(
            "puzzles.tui.header", self.lang, preset=pos["preset"], grade=pos["grade_text"],
            rating=pos["rating"], k=self.k + 1, total=len(self.items)))
        self.draw_stats()
        board = self.query_one("#board", Static)
        board.update(board_text(pos, self.lang, width=board.content_region.width or self.size.width))
        self.query_one("#hand", Static).update(hand_text(pos, self.lang))
        self.query_one("#task", Static).update(pos["task"])
        moves = self.query_one("#moves", OptionList)
        moves.clear_options()
        moves.add_options([Option(f"{i}. {m['label']}", id=m["move"]) for i, m in enumerate(pos["moves"], 1)])
        moves.display = True
        moves.highlighted = 0
        moves.focus()
        self.query_one("#verdict", Static).update("")

    def draw_stats(self) -> None:
        self.query_one("#stats", Static).update(t(
            "puzzles.tui.stats", self.lang, score=self.score, streak=self.streak,
            solved=self.solved, tried=self.tried))

    # -- choosing --------------------------------------------------------------------------------
    def choose(self, move: str) -> None:
        if self.result is not None or self.pos is None:
            return
        p = self.items[self.k]
        res = verdict(p, move, self.lang)
        self.result = res
        self.tried += 1
        if res["correct"]:
            self.solved += 1
            self.streak += 1
            self.best_streak = max(self.best_streak, self.streak)
        else:
            self.streak = 0
        self.score = update_score(self.score, int(res["rating"]), bool(res["correct"]))
        self.draw_stats()
        self.query_one("#moves", OptionList).display = False
        self.query_one("#verdict", Static).update(verdict_text(res, self.lang))
        self.query_one("#scroll", VerticalScroll).scroll_end(animate=False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.choose(event.option.id)

    def action_pick(self, k: int) -> None:
        if self.pos is not None and 1 <= k <= len(self.pos["moves"]):
            self.choose(self.pos["moves"][k - 1]["move"])

    def action_next(self) -> None:
        self.k += 1
        if self.k >= len(self.items):
            self.k = 0
            self.notify(t("puzzles.tui.done", self.lang))
        self.show()

    def action_history(self) -> None:
        if self.pos is None:
            return
        self.full_history = not self.full_history
        board = self.query_one("#board", Static)
        board.update(board_text(self.pos, self.lang, self.full_history,
                                width=board.content_region.width or self.size.width))
