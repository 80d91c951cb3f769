"""The pieces of the game screen: the table, the hand, the players, the score sheet.

Rendering functions return Rich ``Text``/``Table`` objects built from a :class:`SeatView`, so
the replay viewer and the tests use the same drawing as the game.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from rich.table import Table as RichTable
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Select, Static
from textual.widgets._select import NoSelection, SelectCurrent, SelectOverlay

from ..cards import RANK_TEXT, SUIT_SYMBOLS, Card
from ..i18n import cards_left_label, t, tn
from ..moves import Move
from ..table import NO

RED_SUITS = (1, 2)  # diamonds, hearts


def rank_text(rank: int) -> str:
    return RANK_TEXT.get(rank, str(rank))


def suit_style(suit: int) -> str:
    return "bold red" if suit in RED_SUITS else "bold"


# --- a drop-down that survives a slow mount ------------------------------------------------------

class _SafeCurrent(SelectCurrent):
    """Textual's ``SelectCurrent`` whose ``update`` may come before its label is mounted.

    On a loaded machine ``Select``'s mount handler can run before its current-value line has
    composed its label, and the stock widget then raises ``NoMatches`` and takes the whole app
    down (Textual issue 6581; it failed our CI once). This one remembers the value and draws it
    when the label exists.
    """

    def update(self, label: Any) -> None:
        try:
            super().update(label)
        except NoMatches:
            pass  # ``label`` and ``has_value`` are already set; ``on_mount`` draws them

    def on_mount(self) -> None:
        try:
            label = self.label
            self.query_one("#label", Static).update(
                self.placeholder if isinstance(label, NoSelection) else label)
        except NoMatches:
            pass


class MarkedCheckbox(Checkbox):
    """A checkbox whose state reads without colour (issue 62): ``[x]`` checked, ``[ ]`` not;
    Textual's own draws the same ``▐X▌`` for both and tells them apart by colour alone."""

    @property
    def _button(self) -> Content:
        plain = self.get_visual_style("toggle--label")
        return Content.assemble(("[", plain),
                                ("x" if self.value else " ", self.get_visual_style("toggle--button")),
                                ("]", plain))


class SafeSelect(Select[Any]):
    """``Select`` with :class:`_SafeCurrent` as its current-value line."""

    def compose(self) -> ComposeResult:
        yield _SafeCurrent(self.prompt)
        yield SelectOverlay(type_to_search=self._type_to_search).data_bind(
            compact=Select.compact)


# --- the table ----------------------------------------------------------------------------------

def render_table(view: Any, lang: str, recent: Collection[int] = ()) -> Text:
    """One line per row (suit, and deck with two decks): the low pile, the centre card and the
    high pile, every slot of the row shown so that the gaps are visible; a closed pile is
    marked with a bar at its end. Cards in ``recent`` (ids) are lit up, so that the moves
    since your last turn can be followed on the table."""
    table = view.table
    out = Text()
    two_decks = view.rules.decks == 2
    # Before the first card only the opening card fits (the table's own open ends start
    # with it): mark its slot like any other.
    opening = None
    if not any(rv.cards for rv in view.rows) and getattr(view.rules, "opening", None):
        from ..cards import CardError, parse_card

        try:
            first = parse_card(view.rules.opening)
            opening = (first.suit, first.deck, first.rank)
        except CardError:
            opening = None
    for rv in view.rows:
        row = rv.row
        suit = rv.suit
        label = SUIT_SYMBOLS[suit] + (str(rv.deck + 1) if two_decks else " ")
        out.append(f" {label} ", style=suit_style(suit))
        line = table.line[row]
        lo, hi = table.lo[row], table.hi[row]
        if not line:  # free Fan Tan before the first card: no shape yet
            out.append(t("tui.table.not_started", lang), style="dim")
            out.append("\n")
            continue
        out.append("▐" if rv.low_closed else " ", style="yellow")
        occupied = {}
        if lo != NO:
            for slot, c in zip(range(lo, hi + 1), rv.cards, strict=False):
                occupied[slot] = c
        for slot, rank in enumerate(line):
            if rank == 10:
                # the ten's cell is a column wider: "+10" fills three, and ran into the
                # card before it ("9+10", issue 62)
                out.append(" ")
            if slot < table.minr or slot > table.maxr:
                out.append("   ")
                continue
            # Three cells a slot: a mark, then the rank. A card down is a white face; a slot
            # where a card fits now carries a "+" (so the two differ without colour too).
            if slot in occupied:
                card = occupied[slot]
                # a joker shows the card it stands for (its slot's rank), marked with "*"
                text = rank_text(rank).rjust(2)
                ink = "magenta" if card.is_joker else "black" if suit not in RED_SUITS else "red"
                style = ink + (" on yellow" if int(card) in recent else " on white")
                if slot == table.center or card.is_joker:
                    style = "bold " + style
                if card.is_joker:
                    out.append(" " * (2 - len(text.strip())))
                    out.append("*" + text.strip(), style=style)
                else:
                    out.append(" ")
                    out.append(text, style=style)
            elif (table.fits[row] >> table.types[row][slot]) & 1:
                # the next card that fits here: shown so that learners see the open ends
                out.append(("+" + rank_text(rank)).rjust(3), style="green")
            elif opening is not None and (suit, rv.deck, rank) == opening:
                out.append(("+" + rank_text(rank)).rjust(3), style="green")  # the opening card
            else:
                out.append("  ·", style="dim")
        out.append("▌" if rv.high_closed else " ", style="yellow")
        out.append("\n")
    out.rstrip()
    return out


def table_legend(view: Any, lang: str) -> str:
    """What the table's marks mean ("*" only where jokers are played)."""
    return t("tui.table.legend" + ("_jokers" if view.rules.jokers else ""), lang)


class TableView(Static):
    """The rows on the table."""

    DEFAULT_CSS = """
    TableView { border: round $secondary; padding: 0 1; height: auto; width: auto; min-width: 30; }
    """

    def show(self, view: Any, lang: str, recent: Collection[int] = ()) -> None:
        self.border_title = t("tui.table.title", lang)
        self.border_subtitle = table_legend(view, lang)
        self.update(render_table(view, lang, recent))


def recent_plays(events: Sequence[Any], seat: int) -> set[int]:
    """Ids of the cards played since ``seat``'s last move (or, when ``seat`` moved last, the
    cards of that move)."""
    j = len(events)
    while j > 0 and events[j - 1].seat != seat:
        j -= 1
    block = events[j:]
    if not block:
        k = j
        while k > 0 and events[k - 1].seat == seat:
            k -= 1
        block = events[k:j]
    return {int(e.card) for e in block if e.type == "play" and e.card is not None}


# --- the players ----------------------------------------------------------------------------------

def hand_text(cards: Sequence[Card]) -> Text:
    """A hand in little room: each suit's symbol once, then its ranks (``♣ 2 10 Q  ♦ 3 J``)."""
    out = Text()
    last = None
    for c in cards:
        if c.is_joker:
            out.append(" 🃏", style="bold magenta")
            continue
        if c.suit != last:
            if last is not None:
                out.append("  ")
            out.append(SUIT_SYMBOLS[c.suit], style=suit_style(c.suit))
            last = c.suit
        out.append(" " + rank_text(c.rank), style="red" if c.suit in RED_SUITS else "")
    return out


def hand_lines(cards: Sequence[Card], width: int) -> list[Text]:
    """A hand in lines of at most ``width`` cells, broken only between suits (a suit's ranks
    stay together on one line unless the suit alone is wider)."""
    groups: list[Text] = []
    for c in cards:
        same = groups and not c.is_joker and groups[-1].plain[:1] == SUIT_SYMBOLS[c.suit]
        if same:
            groups[-1].append(" " + rank_text(c.rank), style="red" if c.suit in RED_SUITS else "")
        else:
            groups.append(hand_text([c]))
    lines: list[Text] = []
    for g in groups:
        if g.plain.startswith(" "):  # a joker's own leading space
            g = g[1:]
        if lines and lines[-1].cell_len + 2 + g.cell_len <= width:
            lines[-1].append("  ")
            lines[-1].append_text(g)
        else:
            lines.append(g)
    return lines


def render_players(view: Any, lang: str, levels: Sequence[str] | None = None,
                   hints: dict[int, str] | None = None, show_all: bool = False,
                   width: int = 0) -> Text:
    """Each seat: name, cards left, the dealer, whose turn, the token or chips; with open
    cards every hand (and what a bot would play). ``width``: the panel's inner width when it
    is narrow (under 40 cells): each seat then stays on one line (the token is a bare ● and
    the dealer is named on a line of its own below), and open hands break only between
    suits."""
    compact = 0 < width < 40
    out = Text()
    rules = view.rules
    for seat in range(view.players):
        turn = seat == view.to_move and view.phase != "over"
        out.append("▶ " if turn else "  ", style="bold green")
        name = view.names[seat]
        out.append(name, style="bold" if seat == view.seat else "")
        if levels and seat > 0 and seat - 1 < len(levels):
            from .session import level_label

            out.append(f" ({level_label(levels[seat - 1], lang)})", style="dim")
        if seat == view.dealer and not compact:
            out.append(" " + t("tui.players.dealer", lang), style="dim italic")
        n = view.hand_sizes[seat]
        if seat in view.out_order and n == 0:  # "pääsi pois" says it: no "0 korttia" beside
            out.append("  " + t("tui.players.out", lang), style="green")
        else:
            out.append(f"  {cards_left_label(n, lang)}")
        if rules.uses_token and view.token_holder == seat:
            out.append("  ●" + ("" if compact else " " + t("tui.players.token", lang)),
                       style="bold yellow")
        if rules.fines_per_miss and view.token_fines and view.token_fines[seat]:
            out.append("  " + t("tui.fines.count", lang, n=view.token_fines[seat]), style="yellow")
        if rules.uses_chips:
            out.append("  " + t("tui.players.chips", lang, n=view.chips_paid[seat]), style="yellow")
        if seat in view.out_order and n != 0:
            out.append("  " + t("tui.players.out", lang), style="green")
        out.append("\n")
        if view.open_hands is not None and (seat != view.seat or show_all):
            if compact:
                for line in hand_lines(view.open_hands[seat], width - 4):
                    out.append("    ")
                    out.append_text(line)
                    out.append("\n")
            else:
                out.append("    ")
                out.append_text(hand_text(view.open_hands[seat]))
                out.append("\n")
        if hints and seat in hints:
            out.append("    " + hints[seat] + "\n", style="italic cyan")
    if compact and 0 <= view.dealer < view.players:  # the dealer, off the seats' lines
        out.append(t("tui.players.dealer_line", lang, name=view.names[view.dealer]) + "\n",
                   style="dim italic")
    if rules.fines_per_miss:  # V18: no token moves; the fines show per seat above
        out.append(t("tui.fines.line", lang, value=rules.token_value) + "\n", style="yellow")
    elif rules.uses_token:
        who = view.names[view.token_holder] if view.token_holder is not None else None
        out.append((t("tui.players.token_line", lang, name=who) if who
                    else t("tui.players.token_nobody", lang)) + "\n", style="yellow")
    elif rules.uses_chips:
        out.append(tn("tui.players.pot", view.pot, lang) + "\n", style="yellow")
    if view.stock_size:
        out.append(tn("tui.players.stock", view.stock_size, lang))
    out.rstrip()
    return out


class PlayersView(Static):
    DEFAULT_CSS = """
    PlayersView { border: round $secondary; padding: 0 1; height: auto; width: 1fr; min-width: 28; }
    """

    def show(self, view: Any, lang: str, levels: Sequence[str] | None = None,
             hints: dict[int, str] | None = None, show_all: bool = False) -> None:
        self.border_title = t("tui.players.title", lang)
        self._last = (view, lang, levels, hints, show_all)
        # in a narrow terminal the bots' levels would push every line onto two
        narrow = 0 < self.size.width < 48
        inner = self.content_region.width if self.size.width else 0
        self.update(render_players(view, lang, None if narrow else levels, hints, show_all,
                                   width=inner))

    def on_resize(self) -> None:
        last = getattr(self, "_last", None)
        if last is not None:
            self.show(*last)


# --- the score sheet ---------------------------------------------------------------------------------

def render_sheet(names: Sequence[str], results: Sequence[Any], lang: str,
                 chips: bool = False) -> RichTable:
    """Deals as rows, players as columns; the token part shown separately (``10 + 21``)."""
    tab = RichTable(title=t("tui.sheet.title", lang), expand=False)
    tab.add_column(t("tui.sheet.deal", lang), justify="right")
    for name in names:
        tab.add_column(name, justify="right")
    totals = [0] * len(names)
    for k, r in enumerate(results):
        cells = []
        for i in range(len(names)):
            tok = r.token_points[i]
            pen = r.penalty_points[i] if r.penalty_points else 0
            total = r.points[i]
            totals[i] += total
            if chips and r.chips is not None:
                cells.append(f"{r.chips[i]:+d}")
                continue
            rest = total - tok - pen
            parts = [str(rest)] + ([str(tok)] if tok else []) + ([str(pen)] if pen else [])
            cell = " + ".join(parts)
            if r.winner == i:
                cell = "★ " + cell
            cells.append(cell)
        tab.add_row(str(k + 1), *cells)
    if results:
        tab.add_section()
        tab.add_row(t("tui.sheet.total", lang), *[str(x) for x in totals], style="bold")
    return tab


# --- the hand ------------------------------------------------------------------------------------------

class CardChip(Static):
    """One card in the hand: a framed face. A card you may play now has a double frame (and
    bright text); the others a thin, dim one. In a short terminal the chip is one line high
    and a playable card is bracketed: ``[♣7]``."""

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, card: Card, index: int, legal: bool, cursor: bool,
                 mark_deck: bool = False, compact: bool = False) -> None:
        classes = "chip" + (" legal" if legal else "") + (" cursor" if cursor else "")
        classes += " red" if card.suit in RED_SUITS else (" joker" if card.is_joker else "")
        # two different decks: the second deck's cards carry a small 2, like their rows
        label = card.symbol() + ("²" if mark_deck and card.deck == 1 else "")
        if compact:
            label = f"[{label}]" if legal else f" {label} "
        super().__init__(label, classes=classes, id=f"card-{index}")
        self.card = card
        self.index = index

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.index))


class HandView(Widget, can_focus=True):
    """The person's hand sorted by suit and rank, in a grid; arrows move the cursor, Enter or
    a click chooses the card. Typing a letter or digit jumps to the input line. In a short
    terminal (the screen's ``-short`` class) the chips are one line high and the hand scrolls
    within a few lines, so that the table stays on the screen."""

    COLUMNS = 20
    DEFAULT_CSS = """
    HandView { layout: grid; grid-size: 20; grid-columns: 5; height: auto; min-height: 3; width: 100%;
               padding: 0 1; border: round $primary 50%; }
    HandView:focus { border: round $accent; }
    HandView .chip { width: 5; height: 3; border: round $panel-lighten-2; content-align: center middle;
                     color: $text-muted; text-style: dim; }
    HandView .chip.red { color: $error-darken-1; }
    HandView .chip.legal { color: $text; text-style: bold; border: double $success; }
    HandView .chip.legal.red { color: $error-lighten-1; }
    HandView .chip.cursor { background: $accent 40%; border: heavy $accent; }
    HandView.wide { grid-columns: 6; }
    HandView.wide .chip { width: 6; }
    HandView.compact { max-height: 5; overflow-y: auto; scrollbar-size-vertical: 1; }
    HandView.compact .chip, HandView.compact .chip.legal, HandView.compact .chip.cursor {
        height: 1; border: none; }
    HandView.compact .chip.cursor { text-style: bold reverse; }
    """
    BINDINGS = [
        Binding("left", "move(-1)", show=False),
        Binding("right", "move(1)", show=False),
        Binding("up", "move_row(-1)", show=False),
        Binding("down", "move_row(1)", show=False),
        Binding("home", "jump(0)", show=False),
        Binding("end", "jump(-1)", show=False),
        Binding("enter", "choose", show=False),
        Binding("space", "choose", show=False),
    ]
    class Activated(Message):
        """The person chose ``card`` (``None``: Enter with no card, e.g. a forced move)."""

        def __init__(self, card: Card | None) -> None:
            super().__init__()
            self.card = card

    class TypeAhead(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.cards: list[Card] = []
        self.legal: set[int] = set()
        self.cursor = 0
        self._typing = False
        self.columns = self.COLUMNS

    def compose(self) -> Any:
        compact = self.has_class("compact")
        for i, c in enumerate(self.cards):
            yield CardChip(c, i, int(c) in self.legal, i == self.cursor, self.has_class("wide"),
                           compact)

    def set_hand(self, cards: Sequence[Card], legal: set[int], title: str = "") -> None:
        """Show ``cards``; ``legal`` holds the ids of cards that can be chosen now. The
        cursor stays on the same card when it is still there, else moves to a legal one."""
        old = self.cards[self.cursor] if 0 <= self.cursor < len(self.cards) else None
        self.cards = list(cards)
        self.legal = set(legal)
        if old is not None and old in self.cards and (int(old) in self.legal or not self.legal):
            self.cursor = self.cards.index(old)
        else:
            first = next((i for i, c in enumerate(self.cards) if int(c) in self.legal), None)
            self.cursor = first if first is not None else min(self.cursor, max(len(self.cards) - 1, 0))
        self.border_title = title
        self.refresh(recompose=True)

    def point_at(self, card: Card) -> None:
        if card in self.cards:
            self.cursor = self.cards.index(card)
            self._mark()

    def set_compact(self, compact: bool) -> None:
        """One-line chips (a short terminal) or framed ones."""
        if compact != self.has_class("compact"):
            self.set_class(compact, "compact")
            self.refresh(recompose=True)

    def _mark(self) -> None:
        for chip in self.query(CardChip):
            chip.set_class(chip.index == self.cursor, "cursor")
            if chip.index == self.cursor:
                self.scroll_to_widget(chip, animate=False)

    def action_move(self, step: int) -> None:
        if not self.cards:
            return
        self.cursor = max(0, min(len(self.cards) - 1, self.cursor + step))
        self._mark()

    def on_resize(self, event: Any) -> None:
        # as many cards a row as fit (each chip is 5 wide; border, padding and a scroll bar
        # take 4 or 5)
        room = event.size.width - (5 if self.has_class("compact") else 4)
        self.columns = max(4, room // (6 if self.has_class("wide") else 5))
        self.styles.grid_size_columns = self.columns

    def action_move_row(self, rows: int) -> None:
        self.action_move(rows * self.columns)

    def action_jump(self, where: int) -> None:
        if self.cards:
            self.cursor = where % len(self.cards)
            self._mark()

    def action_choose(self) -> None:
        card = self.cards[self.cursor] if 0 <= self.cursor < len(self.cards) else None
        self.post_message(self.Activated(card))

    def on_card_chip_chosen(self, msg: CardChip.Chosen) -> None:
        msg.stop()
        self.cursor = msg.index
        self._mark()
        self.focus()
        self.action_choose()

    def on_key(self, event: Any) -> None:
        # Keys typed quickly after the first letter may still arrive here before the input
        # line has focus: pass them on (Enter too, so that "h6⏎" never plays the card under
        # the cursor).
        ch = event.character
        if ch and (ch.isalnum() or ch in "♣♦♥♠?" or (self._typing and ch.isprintable())):
            self._typing = True
            event.stop()
            event.prevent_default()
            self.post_message(self.TypeAhead(ch))
        elif self._typing and event.key in ("enter", "backspace", "escape"):
            # through the same queue as the letters: an Esc right behind them drops them
            # (handled at once it would clear the line before they reached it)
            event.stop()
            event.prevent_default()
            if event.key != "backspace":
                self._typing = False  # the next Enter plays the card under the cursor again
            self.post_message(self.TypeAhead({"enter": "\n", "backspace": "\b"}.get(
                event.key, "\x1b")))

    def on_focus(self) -> None:
        self._typing = False


def legal_card_ids(moves: Sequence[Move], hand: Sequence[Card], identical: bool) -> set[int]:
    """Ids of the hand's cards that some legal move uses (either copy with identical decks)."""
    used = {int(m.card) for m in moves if m.card is not None and m.kind in ("play", "give", "swap")}
    out = set()
    for c in hand:
        if int(c) in used or (identical and not c.is_joker and c.kind in used):
            out.add(int(c))
    return out


def moves_for_card(moves: Sequence[Move], card: Card, identical: bool) -> list[Move]:
    out = []
    for m in moves:
        if m.card is None or m.kind not in ("play", "give", "swap"):
            continue
        if int(m.card) == int(card) or (identical and not card.is_joker and m.card.kind == card.kind):
            out.append(m)
    return out
