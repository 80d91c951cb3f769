"""The game screen of ``ristiseiska play`` (:class:`GameScreen`: the table, the players, the
log, the hand, the choices, the input line and the bots' turns) and its end-of-deal window
(:class:`DealOver`, which sizes itself by the game screen's table: the two go together)."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, RichLog, Static

from ..forced import forced_move
from ..i18n import LANGS, card_name, describe_move, t, tn
from ..moves import Move
from ..rules import Rules
from . import background
from .dialogs import PickMove
from .header import SafeHeader
from .move_log import MoveLog, _log_text
from .session import HUMAN, Session
from .widgets import (
    HandView,
    PlayersView,
    TableView,
    hand_text,
    legal_card_ids,
    moves_for_card,
    recent_plays,
    render_sheet,
)

# Below this many lines the game screen is "short" (80x24 and such): one-line cards in the
# hand, one-line buttons, a smaller log, so that the whole table stays on the screen.
SHORT = 32
FORCED_PAUSE = 1.5  # seconds the status line shows a forced move before it is made (issue 52)

# Words typed on the input line that are commands, not moves (Finnish and English).
COMMANDS = {
    "vihje": "hint", "hint": "hint", "?": "hint",
    "säännöt": "rules", "saannot": "rules", "rules": "rules",
    "pisteet": "score", "score": "score", "scores": "score",
    "lopeta peli": "quit", "quit": "quit", "exit": "quit",
}


def command_of(text: str) -> str | None:
    """The command a typed word means: :data:`COMMANDS`, or the words of any language's
    catalog (``tui.cmd.<command>``, comma-separated: "tips", "regler" in Swedish)."""
    word = text.strip().lower()
    if word in COMMANDS:
        return COMMANDS[word]
    for lang in LANGS:
        for cmd in ("hint", "rules", "score", "quit"):
            if word in (w.strip() for w in t(f"tui.cmd.{cmd}", lang).lower().split(",")):
                return cmd
    return None


class DealOver(ModalScreen[bool | None]):
    """The end of a deal: the result, every hand left face up, the score sheet; Enter for the
    next deal (or, at the end of the match, the winners and where the records were saved).

    The window sits below the table, which stays in view undimmed, so that the final table
    can be read beside the result; Esc closes the window to look at the table alone and Enter
    on the game screen brings it back."""

    DEFAULT_CSS = """
    DealOver { align: center bottom; }
    DealOver > #over-box { width: 100%; max-width: 100; height: auto; max-height: 100%;
                           border: thick $success; background: $surface; padding: 0 1; }
    DealOver #over-body { height: auto; max-height: 100%; }
    DealOver #over-body:focus { background-tint: $foreground 0%; }
    DealOver .sheet, DealOver .hands { margin-top: 1; }
    DealOver #over-keys { height: 1; margin-top: 1; }
    DealOver #over-keys Button { margin-right: 2; }
    DealOver #over-hint { color: $text-muted; width: 100%; height: auto; }
    """
    BINDINGS = [Binding("escape", "close", show=False), Binding("enter", "go", show=False)]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        s = self.session
        lang = s.lang
        with Vertical(id="over-box"):
            with VerticalScroll(id="over-body"):
                yield Label(Text(t("tui.over.deal", lang, n=s.deal_index), style="bold"))
                head, seats = _result_parts(s)
                yield Static("\n".join(head))
                yield Static(render_hands_left(s, seats), classes="hands")
                yield Static(render_sheet(s.names, s.results, lang, s.rules.uses_chips),
                             classes="sheet")
                if s.match_over:
                    winners = ", ".join(s.names[i] for i in s.winners)
                    text = (t("tui.over.match_you", lang) if s.winners == [HUMAN]
                            else t("tui.over.match", lang, names=winners))
                    yield Label(Text(text, style="bold green"))
                    if s.records_path:
                        yield Static(t("tui.over.saved", lang, path=str(s.records_path)))
                    elif s.record_error:
                        yield Static(t("tui.over.not_saved", lang, error=s.record_error))
            with Horizontal(id="over-keys"):
                if s.match_over:
                    yield Button(t("tui.over.quit", lang), id="quit", variant="primary",
                                 compact=True)
                else:
                    yield Button(t("tui.over.next", lang), id="next", variant="primary",
                                 compact=True)
                # the human seat's costliest decisions of this deal (tui/analysis.py)
                yield Button(t("analysis.where", lang), id="where", compact=True)
            # a line of its own: beside the buttons an 80-column screen cut it
            yield Static(t("tui.over.keys", lang), id="over-hint")

    def on_mount(self) -> None:
        # the body takes the keys (arrows scroll it), Enter and Esc are this screen's
        self.query_one("#over-body").focus()
        self._fit()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """Keep the window below the table: as high as the room under it (never less than
        a third of the screen); the body scrolls when the window is smaller than it."""
        top = 0
        for screen in self.app.screen_stack:
            if isinstance(screen, GameScreen):
                try:
                    # the table's own height is fixed for the deal (the players' panel
                    # beside it may grow by a line at the end; the window shows its facts)
                    top = screen.query_one(TableView).region.bottom
                except NoMatches:  # not composed yet: use the whole height
                    top = 0
        height = self.size.height or self.app.size.height
        room = max(height - top, height // 3, 8)
        self.query_one("#over-box").styles.max_height = room
        # border (2), the key line with its margin (2) and the line of keys under it (1)
        self.query_one("#over-body").styles.max_height = max(room - 5, 3)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_go(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "where":  # the human seat's costliest decisions of this deal
            from .analysis import WhereLost
            from .session import game_record

            s = self.session
            self.app.push_screen(WhereLost(game_record(s.game, s.rules), HUMAN, s.lang))
            return
        self.dismiss(True)


def _result_parts(s: Session) -> tuple[list[str], list[str]]:
    """The deal's result as its headline (who won, how it ended) and one points text a seat
    (``13 + 21 = 34``), so that the points can stand beside the cards left."""
    from ..i18n import result_lines

    if not s.results:
        return list(s.last_result_lines), []
    lines = result_lines(s.results[-1], s.names, s.lang)
    head, per_seat = lines[: len(lines) - s.n], lines[len(lines) - s.n:]
    if s.results[-1].winner == HUMAN and head:
        head[0] = t("tui.result.you_won", s.lang)
    seats = []
    for seat, line in enumerate(per_seat):
        prefix = f"{s.names[seat]}: "
        seats.append(line[len(prefix):] if line.startswith(prefix) else line)
    return [x for x in head if not x.startswith(("core.", "tui."))], seats


def render_hands_left(s: Session, points: list[str] | None = None) -> Any:
    """Every seat's cards left at the end of the deal, face up, with the deal's points."""
    from rich.table import Table as RichTable

    from ..i18n import cards_left_label

    lang = s.lang
    result = s.results[-1] if s.results else None
    tab = RichTable(title=t("tui.over.hands", lang), title_justify="left", show_header=False,
                    box=None, padding=(0, 1), expand=False)
    tab.add_column(no_wrap=True)
    tab.add_column()
    tab.add_column(justify="right", no_wrap=True)
    for seat in range(s.n):
        hand = s.game.hand(seat)
        mark = "★ " if result is not None and result.winner == seat else "  "
        cards = hand_text(hand) if hand else Text(cards_left_label(0, lang), style="dim")
        text = points[seat] if points and seat < len(points) else ""
        if result is not None and (not text or text.lstrip("-").isdigit() or " = " in text):
            # "34 pistettä (13 + 21)": the total first, the token part after it
            # (the token part only where the rules have a token: jokerit's "0 = 1" is the
            # cards' points and the loser's point, no token)
            parts = text.split(" = ")[0] if " = " in text and s.rules.uses_token else ""
            text = tn("tui.over.points", result.points[seat], lang) + (f" ({parts})" if parts else "")
        tab.add_row(Text(mark + s.names[seat], style="bold" if seat == HUMAN else ""), cards, text)
    return tab

# --- the game ---------------------------------------------------------------------------------------

class GameScreen(Screen[None]):
    """The table, the players, the log, the hand, the choices and the input line."""

    DEFAULT_CSS = """
    GameScreen #top { height: auto; }
    GameScreen #log { height: 1fr; min-height: 4; border: round $secondary; padding: 0 1; }
    GameScreen.-short #log { min-height: 3; }
    GameScreen #status { height: auto; min-height: 1; padding: 0 1; }
    GameScreen #status.error { color: $error; text-style: bold; }
    GameScreen #status.hint { color: $accent; }
    GameScreen #actions { height: auto; padding: 0 1; }
    GameScreen #actions Button { margin-right: 1; min-width: 16; }
    GameScreen #actions Button.-textual-compact { margin-right: 2; min-width: 10; }
    GameScreen #command { margin: 0 1; border-left: outer $primary; background: $boost; }
    GameScreen #command:focus { border-left: outer $accent; }
    """

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.lang = session.lang
        self._bot_timer: Any = None
        self._thinking: tuple[float, Any] | None = None  # (since, ticker) while a bot thinks
        self._warming_told: set[str] = set()  # levels whose stand-in the log has named
        self._logged = 0
        self._deal_shown = -1
        self._status_kind = ""
        self._status_at = (0, 0)  # the position the status line was set in
        self._button_gen = 0
        # a forced move waiting to be made for the person (issue 52): (moves so far, timer)
        self._forced: tuple[int, Any] | None = None
        self.forced_pause = FORCED_PAUSE

    def compose(self) -> ComposeResult:
        yield SafeHeader()
        with Horizontal(id="top"):
            yield TableView(id="table")
            yield PlayersView(id="players")
        yield MoveLog(id="log", wrap=True, markup=False, auto_scroll=True)
        yield Static("", id="status")
        yield HandView(id="hand")
        yield Horizontal(id="actions")
        yield Input(placeholder=t("tui.input.placeholder", self.lang), id="command",
                    select_on_focus=False, compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Ristiseiska"
        self.query_one("#log", RichLog).border_title = t("tui.log.title", self.lang)
        self.refresh_all()
        self.query_one(HandView).focus()
        self.schedule_bots()

    # -- drawing ------------------------------------------------------------------------------
    def refresh_all(self) -> None:
        s = self.session
        lang = self.lang
        view = s.view()
        rules_name = s.rules.name or t("tui.custom_rules", lang)
        self.sub_title = t("tui.subtitle", lang, n=s.deal_index + (0 if s.deal_over else 1),
                           rules=rules_name, deals=_match_length(s.rules, lang))
        self.query_one(TableView).show(view, lang, recent_plays(s.game.events, HUMAN))
        hints: dict[int, str] = {}
        if s.setup.open_cards and not s.deal_over:
            move, reason = s.hint(s.game.to_move, quick=True)
            if move is not None:
                hints[s.game.to_move] = t("tui.open.would_play", lang,
                                          move=describe_move(move, lang), reason=reason)
        self.query_one(PlayersView).show(view, lang, s.setup.bots, hints)
        log = self.query_one("#log", RichLog)
        for line in s.log[self._logged:]:
            log.write(_log_text(line))
        self._logged = len(s.log)
        self._draw_hand(view)
        self._draw_actions(view)
        if self._status_kind in ("error", "hint") and self._status_at != self._position():
            self._status_kind = ""  # the turn moved on: a refusal or a hint is old news
        if self._status_kind != "error" and self._status_kind != "hint":
            self.set_status(self._prompt(view), "")
        self._schedule_forced()

    def _schedule_forced(self) -> None:
        """A person whose only move is forced (token, pass, ask, draw, chip) gets it made for
        them after a pause the status line announces (``Setup.auto_forced``, issue 52)."""
        s = self.session
        if not s.setup.auto_forced or not s.human_to_move or forced_move(s.game) is None:
            return
        n = len(s.game.moves)
        if self._forced is not None and self._forced[0] == n:
            return
        if self._forced is not None:
            self._forced[1].stop()
        self._forced = (n, self.set_timer(self.forced_pause, lambda: self._forced_fire(n)))

    def _forced_fire(self, n: int) -> None:
        s = self.session
        self._forced = None
        if len(s.game.moves) != n or not s.human_to_move or s.deal_over:
            return  # the person moved meanwhile
        move = forced_move(s.game)
        if move is None or not s.setup.auto_forced:
            return
        s.apply(move, auto=True)
        self._status_kind = ""
        self.after_move()

    def on_resize(self) -> None:
        self._fit_hand()

    def _fit_hand(self) -> None:
        # a short terminal: one-line cards, so that the table, the log and the hand all fit
        self.query_one(HandView).set_compact(self.app.size.height < SHORT)

    def _draw_hand(self, view: Any) -> None:
        s = self.session
        identical = s.rules.decks == 2 and not s.rules.distinct_decks
        legal = legal_card_ids(view.legal_moves, view.hand, identical) if s.human_to_move else set()
        title = t("tui.hand.title", self.lang, n=len(view.hand))
        hand = self.query_one(HandView)
        hand.set_class(s.rules.distinct_decks, "wide")
        hand.set_class(self.app.size.height < SHORT, "compact")
        hand.set_hand(view.hand, legal, title)

    def _draw_actions(self, view: Any) -> None:
        bar = self.query_one("#actions", Horizontal)
        bar.remove_children()
        if not self.session.human_to_move:
            return
        buttons = []
        for i, m in enumerate(view.legal_moves):
            if m.kind in ("play", "give", "swap"):
                continue
            # removing the old buttons finishes later: a fresh id each time avoids a clash
            self._button_gen += 1
            buttons.append(Button(describe_move(m, self.lang), id=f"act-{m.kind}-{self._button_gen}-{i}",
                                  variant="warning" if m.kind != "stop" else "primary",
                                  compact=self.app.size.height < SHORT))
        if buttons:
            bar.mount_all(buttons)

    def _prompt(self, view: Any) -> str:
        s = self.session
        lang = self.lang
        if s.deal_over:
            return t("tui.prompt.deal_over", lang)
        if not s.human_to_move:
            return t("tui.prompt.waiting", lang, name=s.names[s.game.to_move])
        legal = view.legal_moves
        cards = [m for m in legal if m.kind in ("play", "give", "swap")]
        others = [m for m in legal if m not in cards]
        if view.phase == "give":
            return t("tui.prompt.give", lang, name=s.names[s.game.turn_seat])
        if view.phase == "more":
            return t("tui.prompt.more_multi" if s.rules.multi_play else "tui.prompt.more", lang)
        if not cards and others:
            move = forced_move(s.game)
            if s.setup.auto_forced and move is not None:  # made for the person in a moment
                return f"{t(f'forced.notice.{move.kind}', lang)} {t('forced.notice.soon', lang)}"
            return t("tui.prompt.forced", lang, move=describe_move(others[0], lang))
        if others:
            return t("tui.prompt.choice", lang, move=describe_move(others[0], lang))
        return t("tui.prompt.play", lang)

    def set_status(self, text: str, kind: str) -> None:
        if kind == "error":
            self.app.bell()
        st = self.query_one("#status", Static)
        st.update(text)
        st.set_class(kind == "error", "error")
        st.set_class(kind == "hint", "hint")
        self._status_kind = kind
        self._status_at = self._position()

    def _position(self) -> tuple[int, int]:
        """The deal and the number of moves made in it: what a status line is about."""
        return self.session.deal_index, len(self.session.game.moves)

    # -- the person's moves -----------------------------------------------------------------------
    def play(self, move: Move) -> None:
        try:
            self.session.apply(move)
        except ValueError as e:
            self.set_status(str(e), "error")
            return
        self._status_kind = ""
        self.after_move()

    def after_move(self) -> None:
        self.refresh_all()
        if self.session.deal_over:
            self.show_deal_over()
        else:
            self.schedule_bots()

    @on(HandView.Activated)
    def _card_activated(self, event: HandView.Activated) -> None:
        s = self.session
        if s.deal_over:
            self.show_deal_over(again=True)
            return
        if not s.human_to_move:
            self.set_status(t("tui.error.not_your_turn", self.lang,
                              name=s.names[s.game.to_move]), "error")
            return
        legal = s.game.legal_moves()
        non_card = [m for m in legal if m.kind not in ("play", "give", "swap")]
        card = event.card
        if card is None or not any(m.kind in ("play", "give", "swap") for m in legal):
            if len(non_card) == 1 and not any(m.kind in ("play", "give", "swap") for m in legal):
                self.play(non_card[0])  # the only thing to do (take the token, pass, …)
            elif card is None:
                self.set_status(t("tui.prompt.play", self.lang), "error")
            else:
                self.try_text(str(card))
            return
        identical = s.rules.decks == 2 and not s.rules.distinct_decks
        options = moves_for_card(legal, card, identical)
        if not options:
            self.try_text(card.notation(s.rules.distinct_decks))  # explains why not
        elif len(options) == 1:
            self.play(options[0])
        else:
            title = t("tui.pick.title", self.lang, card=card_name(card, self.lang))

            def done(move: Move | None) -> None:
                if move is not None:
                    self.play(move)
                else:
                    self.query_one(HandView).focus()

            self.app.push_screen(PickMove(options, title, self.lang), done)

    @on(HandView.TypeAhead)
    def _type_ahead(self, event: HandView.TypeAhead) -> None:
        inp = self.query_one("#command", Input)
        if event.text == "\x1b":  # Esc drops the move being typed
            inp.value = ""
            return
        if event.text == "\n":
            text = inp.value
            inp.value = ""
            self.query_one(HandView).focus()
            self.submit_text(text)
            return
        # The hand keeps the focus while a move is typed, so that every key of quickly typed
        # moves comes through this one queue in order and each reply follows its own input
        # (issue 62: with the focus moving to the input line mid-word, keys took two queues
        # and at heavy load one move got another's reply); the input line shows the text.
        inp.value = inp.value[:-1] if event.text == "\b" else inp.value + event.text
        inp.cursor_position = len(inp.value)

    @on(Button.Pressed)
    def _action(self, event: Button.Pressed) -> None:
        bid = event.button.id or ""
        if not bid.startswith("act-"):
            return
        index = int(bid.rsplit("-", 1)[1])
        legal = self.session.game.legal_moves() if self.session.human_to_move else []
        if 0 <= index < len(legal):
            self.play(legal[index])
        self.query_one(HandView).focus()

    @on(Input.Submitted, "#command")
    def _typed(self, event: Input.Submitted) -> None:
        event.input.value = ""
        self.query_one(HandView).focus()
        self.submit_text(event.value)

    def submit_text(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        cmd = command_of(text)
        if cmd == "hint":
            self.app.action_hint()  # type: ignore[attr-defined]
        elif cmd == "rules":
            self.app.action_rules()  # type: ignore[attr-defined]
        elif cmd == "score":
            self.app.action_score()  # type: ignore[attr-defined]
        elif cmd == "quit":
            self.app.exit()
        else:
            self.try_text(text)

    def try_text(self, text: str) -> None:
        try:
            move = self.session.parse(text)
        except ValueError as e:
            self.set_status(str(e), "error")
            return
        self.play(move)

    def on_key(self, event: Any) -> None:
        if event.key == "escape":
            hand = self.query_one(HandView)
            if hand.has_focus:  # Esc drops a move being typed
                self.query_one("#command", Input).value = ""
                hand._typing = False
            hand.focus()

    # -- bots ---------------------------------------------------------------------------------------
    def schedule_bots(self) -> None:
        s = self.session
        if not s.bot_to_move or self._bot_timer is not None:
            return
        pace = s.setup.pace
        # A searching bot (master, neural) thinks in the background even without a pause:
        # on the app's thread its seconds would hold every key, Ctrl+Q too (issue 62).
        if pace <= 0 and not any(getattr(s.bot(i), "pool", None) is not None
                                 for i in range(1, s.n)):
            guard = 0
            while s.bot_to_move and guard < 100_000:
                s.step_bot()
                guard += 1
            self.after_bots()
        else:
            # (a timer of 0 s never fires in Textual: it divides by its interval)
            self._bot_timer = self.set_timer(max(pace, 0.01), self._bot_tick)

    def _bot_tick(self) -> None:
        s = self.session
        if not s.bot_to_move:
            self._bot_timer = None
            return
        # Think in a thread so that a searching bot never freezes the screen; the move is
        # applied back on the app's thread. (The master bot's thread only waits: the search
        # and the kernel's compilation run in a worker process, see ristiseiska.bots.pool.)
        # (A daemon thread, not a Textual worker: quitting never waits for a think.)
        background.start(self._think, len(s.game.moves), name="bot")
        if self._thinking is None:
            self._thinking = (time.monotonic(), self.set_interval(0.5, self._think_tick))

    def _think_tick(self) -> None:
        """A long think shows its seconds, so the screen visibly lives (e.g. the first
        master move compiles for a while)."""
        s = self.session
        if self._thinking is None or not s.bot_to_move:
            return
        took = time.monotonic() - self._thinking[0]
        if took >= 1 and self._status_kind not in ("error", "hint"):
            self.set_status(t("bots.thinking_long", self.lang, name=s.names[s.game.to_move],
                              seconds=int(took)), "")

    def _think_done(self) -> None:
        if self._thinking is not None:
            self._thinking[1].stop()
            self._thinking = None

    def _think(self, n_moves: int) -> None:
        try:
            move = self.session.bot_choice()
        except Exception:  # noqa: BLE001 - a failing bot must not stop the game
            move = self.session.game.legal_moves()[0]
        try:
            self.app.call_from_thread(self._bot_apply, move, n_moves)
        except RuntimeError:  # the app has ended meanwhile (Ctrl+Q): nothing to apply
            pass

    def _bot_apply(self, move: Move, n_moves: int) -> None:
        self._bot_timer = None
        self._think_done()
        s = self.session
        if len(s.game.moves) != n_moves or not s.bot_to_move:
            return  # the position changed meanwhile
        self._tell_stand_in(s.bot(s.game.to_move))
        s.apply(move)
        if s.bot_to_move:
            self.refresh_all()
            self._bot_timer = self.set_timer(max(s.setup.pace, 0.01), self._bot_tick)
        else:
            self.after_bots()

    def _tell_stand_in(self, bot: Any) -> None:
        """Say once in the move log that a bot plays by its stand-in's rules while its
        compiled code is built (the first minute after installing; bots/pool.py)."""
        level = str(getattr(bot, "name", ""))
        if getattr(bot, "stood_in", None) is None or level in self._warming_told:
            return
        self._warming_told.add(level)
        log = self.query_one("#log", RichLog)
        # wrapped short of the scroll bar, which comes once the log is full
        width = log.scrollable_content_region.width - log.styles.scrollbar_size_vertical
        log.write(Text(t(f"bots.warming.{level}", self.lang), style="italic"),
                  width=width if width > 20 else None)

    def after_bots(self) -> None:
        self._status_kind = ""
        self.refresh_all()
        if self.session.deal_over:
            self.show_deal_over()

    # -- deal and match end ------------------------------------------------------------------------------
    def show_deal_over(self, again: bool = False) -> None:
        """The end-of-deal window: once by itself when the deal ends, again on request
        (Enter on the final table after Esc closed it)."""
        s = self.session
        if any(isinstance(sc, DealOver) for sc in self.app.screen_stack):
            return
        if self._deal_shown == s.deal_index and not again:
            return
        self._deal_shown = s.deal_index

        def done(next_deal: bool | None) -> None:
            if next_deal is None:  # Esc: look at the final table; Enter brings the window back
                self.query_one(HandView).focus()
                self.set_status(self._prompt(s.view()), "")
                return
            if s.match_over:
                self.app.exit(s.records_path)
                return
            s.next_deal()
            self._status_kind = ""
            self.refresh_all()
            self.query_one(HandView).focus()
            self.schedule_bots()

        self.app.push_screen(DealOver(s), done)


def _match_length(rules: Rules, lang: str) -> str:
    if rules.match_deals and not rules.match_target:
        return tn("tui.length.deals", rules.match_deals, lang)
    if rules.match_target and not rules.match_deals:
        return t("tui.length.target", lang, n=rules.match_target)
    return t("tui.length.both", lang, n=rules.match_deals, target=rules.match_target)
