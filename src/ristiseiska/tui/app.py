"""The Textual app of ``ristiseiska play``: set-up, the game, rules, score sheet, pickers.

Keys on the game screen: arrows move in the hand, Enter (or a click) plays the card, typing
starts the input line (``h6``, ``pata9``, ``ru3``, ``herttakuutonen``, ``stop``…); F1 rules, F2 hint, F3 score
sheet, Ctrl+Q quits (the match is saved after every move and continues with ``--resume``).

The screens live beside it: the game screen and its end-of-deal window (tui/game_screen.py),
the small windows (tui/dialogs.py) and the move log (tui/move_log.py); here are the set-up
screen, :class:`PlayApp` and :func:`run_play`. The screens' names are importable from here too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static

from ..i18n import LANGUAGES, describe_move, t
from ..rules import Rules, RulesError, preset, preset_description, preset_names
from .dialogs import PickMove as PickMove
from .dialogs import TextScreen, rules_markdown
from .game_screen import COMMANDS as COMMANDS
from .game_screen import FORCED_PAUSE as FORCED_PAUSE
from .game_screen import SHORT, GameScreen
from .game_screen import DealOver as DealOver
from .game_screen import _result_parts as _result_parts
from .game_screen import render_hands_left as render_hands_left
from .header import SafeHeader
from .move_log import _log_text as _log_text
from .session import HUMAN, Session, Setup, bot_levels, data_dir, level_id, level_label
from .widgets import HandView, MarkedCheckbox, SafeSelect, render_sheet


def _level_words(levels: list[str], lang: str) -> list[str]:
    """The bots' levels for the form, in ``lang``; one word when every bot is the same."""
    words = [level_label(level_id(b) or b, lang) for b in levels]
    return words[:1] if len(set(words)) == 1 else words


def _preset_title(name: str, lang: str) -> str:
    title = t(f"core.preset_title.{name}", lang)
    return name if title.startswith("core.") else f"{title} ({name})"


# --- set-up -----------------------------------------------------------------------------------------

class SetupScreen(Screen[None]):
    """Choose the rules, the players, the bots and the match length; Enter starts."""

    DEFAULT_CSS = """
    SetupScreen { align: center middle; }
    SetupScreen > VerticalScroll { width: 100%; max-width: 90; height: auto; max-height: 100%;
                                   border: thick $accent; padding: 1 2; }
    SetupScreen.-short > VerticalScroll { padding: 0 1; }
    SetupScreen.-short .row, SetupScreen.-short Checkbox, SetupScreen.-short #start,
    SetupScreen.-short .warning { margin-top: 0; }
    SetupScreen .row { height: 1; margin-top: 1; }
    SetupScreen .row Label { width: 26; }
    SetupScreen #preset-info, SetupScreen .note { color: $text-muted; padding-left: 26; }
    SetupScreen Checkbox { margin-top: 1; }
    SetupScreen .row Input, SetupScreen .row Select { width: 1fr; }
    SetupScreen #setup-error { color: $error; height: auto; }
    SetupScreen .warning { color: $warning; margin-top: 1; }
    SetupScreen #start { margin-top: 1; width: 100%; dock: bottom; }
    SetupScreen.-narrow .row Label { width: 20; }
    SetupScreen.-narrow #preset-info, SetupScreen.-narrow .note { padding-left: 20; }
    """

    def __init__(self, defaults: dict[str, Any]) -> None:
        super().__init__()
        self.defaults = defaults
        self.lang = defaults["lang"]

    def compose(self) -> ComposeResult:
        d = self.defaults
        lang = self.lang
        yield SafeHeader()
        with VerticalScroll():
            yield Static(Text(t("tui.setup.welcome", lang), style="bold"))
            yield Static(t("tui.setup.help", lang))
            if d.get("saved_game"):
                yield Static(t("tui.setup.saved_game", lang), classes="warning")
            options = [(_preset_title(n, lang), n) for n in preset_names()]
            if d.get("rules_file"):
                options.insert(0, (t("tui.setup.rules_file", lang, file=d["rules_file"]), "@file"))
            with Horizontal(classes="row"):
                yield Label(t("tui.setup.name", lang))
                yield Input(value=d.get("name", ""), placeholder=t("tui.you", lang), id="name",
                            compact=True)
            with Horizontal(classes="row"):
                yield Label(t("tui.setup.rules", lang))
                yield SafeSelect(options, value=d["preset_value"], allow_blank=False, id="preset",
                             compact=True)
            yield Static(self._describe(d["preset_value"]), id="preset-info")
            with Horizontal(classes="row"):
                r = d["rules"] if d["preset_value"] == "@file" else preset(str(d["preset_value"]))
                yield Label(t("tui.setup.players", lang, lo=r.min_players, hi=r.max_players),
                            id="players-label")
                yield Input(value=str(d["players"]), id="players", type="integer", compact=True)
            with Horizontal(classes="row"):
                yield Label(t("tui.setup.bots", lang))
                yield Input(value=",".join(_level_words(d["bots"], lang)), id="bots",
                            placeholder=",".join(level_label(b, lang) for b in bot_levels()),
                            compact=True)
            yield Static(t("tui.setup.levels", lang,
                           levels=", ".join(level_label(b, lang) for b in bot_levels())),
                         classes="note")
            with Horizontal(classes="row"):
                yield Label(t("tui.setup.deals", lang))
                yield Input(value=str(d.get("deals") or ""), id="deals", type="integer",
                            placeholder=t("tui.setup.deals_default", lang), compact=True)
            with Horizontal(classes="row"):
                yield Label(t("tui.setup.lang", lang))
                yield SafeSelect([(x["name"], x["code"]) for x in LANGUAGES], value=lang,
                             allow_blank=False, id="lang", compact=True)
            yield MarkedCheckbox(t("tui.setup.open", lang), value=bool(d.get("open_cards")), id="open",
                           compact=True)
            yield MarkedCheckbox(t("forced.lobby.label", lang), value=d.get("auto_forced", True) is not False,
                           id="auto-forced", compact=True, tooltip=t("forced.lobby.help", lang))
            yield Static("", id="setup-error")
            yield Button(t("tui.setup.start", lang), id="start", variant="success")
        yield Footer()

    def _describe(self, choice: Any) -> str:
        if choice == "@file":
            return str(self.defaults.get("rules_file") or "")
        text = t(f"core.preset.{choice}", self.lang)
        return preset_description(str(choice)) if text.startswith("core.") else text

    @on(Select.Changed, "#lang")
    def _lang_changed(self, event: Select.Changed) -> None:
        if event.value == self.lang:
            return
        # Draw the form again in the chosen language, keeping what was typed.
        d = dict(self.defaults)
        d.update(lang=str(event.value), name=self.query_one("#name", Input).value,
                 preset_value=self.query_one("#preset", Select).value)
        players = self.query_one("#players", Input).value.strip()
        if players.isdigit():
            d["players"] = int(players)
        # the levels as ids, so that the form in the other language names them in its words
        d["bots"] = [level_id(b) or b.strip()
                     for b in self.query_one("#bots", Input).value.split(",") if b.strip()]
        d["deals"] = self.query_one("#deals", Input).value.strip() or None
        d["open_cards"] = self.query_one("#open", Checkbox).value
        d["auto_forced"] = self.query_one("#auto-forced", Checkbox).value
        app = self.app
        assert isinstance(app, PlayApp)
        app.set_language(d["lang"])
        app.defaults = d
        app.switch_screen(SetupScreen(d))

    def chosen_rules(self) -> Rules:
        choice = self.query_one("#preset", Select).value
        return self.defaults["rules"] if choice == "@file" else preset(str(choice))

    @on(Select.Changed, "#preset")
    def _preset_changed(self, event: Select.Changed) -> None:
        self.query_one("#preset-info", Static).update(self._describe(event.value))
        # keep the number of players within what the chosen rules allow
        rules = self.chosen_rules()
        self.query_one("#players-label", Label).update(
            t("tui.setup.players", self.lang, lo=rules.min_players, hi=rules.max_players))
        players = self.query_one("#players", Input)
        try:
            n = int(players.value)
        except ValueError:
            return
        fitted = max(rules.min_players, min(rules.max_players, n))
        if fitted != n:
            players.value = str(fitted)

    def on_mount(self) -> None:
        self.title = "Ristiseiska"
        self.sub_title = t("tui.setup.title", self.lang)
        self.query_one("#name", Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        try:
            setup = self.read()
        except (ValueError, RulesError) as e:
            self.query_one("#setup-error", Static).update(str(e))
            return
        app = self.app
        assert isinstance(app, PlayApp)
        app.start(setup)

    def read(self) -> Setup:
        d = self.defaults
        lang = str(self.query_one("#lang", Select).value)
        rules = self.chosen_rules()
        players_text = self.query_one("#players", Input).value.strip()
        try:
            players = int(players_text)
        except ValueError:
            raise ValueError(t("tui.error.players", lang, text=players_text)) from None
        if not 2 <= players <= 8:
            raise ValueError(t("tui.error.players", lang, text=players_text))
        deals_text = self.query_one("#deals", Input).value.strip()
        if deals_text:
            try:
                deals = int(deals_text)
            except ValueError:
                raise ValueError(t("tui.error.deals", lang, text=deals_text)) from None
            if deals < 1:
                raise ValueError(t("tui.error.deals", lang, text=deals_text))
            rules = rules.replace(match_deals=deals, match_target=0)
        try:
            rules.check_players(players)
        except RulesError as e:
            raise ValueError(t("tui.error.players_rules", lang, lo=rules.min_players,
                               hi=rules.max_players, detail=str(e))) from None
        bots = [level_id(b) or b.strip() for b in self.query_one("#bots", Input).value.split(",")
                if b.strip()]
        if len(set(bots)) == 1:
            bots = bots[:1]  # one level for every bot, however many players
        return Setup(rules=rules, players=players, bots=bots,
                     name=self.query_one("#name", Input).value.strip(), seed=d.get("seed"),
                     lang=lang, open_cards=self.query_one("#open", Checkbox).value,
                     pace=d.get("pace", 0.6),
                     auto_forced=self.query_one("#auto-forced", Checkbox).value)

# --- the app -------------------------------------------------------------------------------------------

class PlayApp(App[Any]):
    """``ristiseiska play``. Give ``session`` to continue a match, or ``defaults`` for the
    set-up screen (``quick=True`` starts at once with them)."""

    TITLE = "Ristiseiska"
    CSS = """
    Screen { background: $background; }
    /* the end-of-deal window leaves the final table in view, undimmed */
    DealOver { background: $background 0%; }
    """
    ENABLE_COMMAND_PALETTE = False
    # the set-up form tightens in a small terminal (80x24)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT, "-tall")]

    def __init__(self, defaults: dict[str, Any] | None = None, session: Session | None = None,
                 data_dir_path: Path | None = None, quick: bool = False, save: bool = True) -> None:
        super().__init__()
        self.defaults = defaults or default_settings()
        self.session = session
        self.lang = session.lang if session else self.defaults["lang"]
        self.dir = data_dir_path
        self.quick = quick
        self.save = save
        self.set_language(self.lang)

    def set_language(self, lang: str) -> None:
        """Footer labels in ``lang`` (the keys stay the same)."""
        self.lang = lang
        for key, action in (("f1", "rules"), ("f2", "hint"), ("f3", "score"), ("ctrl+q", "quit")):
            self._bindings.key_to_bindings.pop(key, None)
            # Ctrl+Q has priority: it quits from any window, a dialog or a picker too
            self._bindings.bind(key, action, t(f"tui.key.{action}", lang),
                                priority=key == "ctrl+q")
        self.refresh_bindings()

    def on_mount(self) -> None:
        if self.session is not None:
            self.push_screen(GameScreen(self.session))
        elif self.quick:
            d = self.defaults
            self.start(Setup(rules=d["rules"], players=d["players"], bots=d["bots"],
                             name=d.get("name", ""), seed=d.get("seed"), lang=d["lang"],
                             open_cards=d.get("open_cards", False), pace=d.get("pace", 0.6),
                             auto_forced=d.get("auto_forced", True) is not False))
        else:
            self.push_screen(SetupScreen(self.defaults))

    def start(self, setup: Setup) -> None:
        if setup.lang != self.lang:
            self.set_language(setup.lang)
        # Saved on the first move, so that looking and quitting keeps an older saved match.
        self.session = Session(setup, self.dir, save=self.save)
        if isinstance(self.screen, SetupScreen):
            self.switch_screen(GameScreen(self.session))
        else:
            self.push_screen(GameScreen(self.session))

    def _game_screen(self) -> GameScreen | None:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, GameScreen):
                return screen
        return None

    def action_rules(self) -> None:
        if isinstance(self.screen, ModalScreen):
            return
        if self.session is not None:
            rules = self.session.rules
        elif isinstance(self.screen, SetupScreen):
            rules = self.screen.chosen_rules()
        else:
            rules = self.defaults["rules"]
        text = rules_markdown(rules, self.lang)
        if self._game_screen() is not None:  # how to type a card, under the rules (issue 62)
            text = f"{text.rstrip()}\n\n{t('tui.help.typing', self.lang)}\n"
        self.push_screen(TextScreen(text, self.lang, markdown=True))

    def action_score(self) -> None:
        if self.session is None or isinstance(self.screen, ModalScreen):
            return
        s = self.session
        body: Any = render_sheet(s.names, s.results, self.lang, s.rules.uses_chips)
        if not s.results:
            body = t("tui.sheet.empty", self.lang)
        self.push_screen(TextScreen(body, self.lang))

    def action_hint(self) -> None:
        gs = self._game_screen()
        if gs is None or self.session is None or isinstance(self.screen, ModalScreen):
            return
        move, reason = self.session.hint()
        if move is None:
            gs.set_status(t("tui.hint.none", self.lang), "error")
            return
        move_text = describe_move(move, self.lang)
        if reason.startswith(move_text):  # the reason already names the move: say it once
            move_text, reason = reason, ""
        text = t("tui.hint.text", self.lang, move=move_text, reason=reason).rstrip(" —")
        gs.set_status(text, "hint")
        if move.card is not None:
            for c in self.session.game.hand(HUMAN):
                if int(c) == int(move.card) or c.kind == move.card.kind:
                    gs.query_one(HandView).point_at(c)
                    break

    async def action_quit(self) -> None:
        self.exit(None)

    def exit(self, *args: Any, **kwargs: Any) -> None:
        # A master bot may be thinking (or compiling) in the worker pool: stop it now, or
        # quitting would wait for its answer; beside the screen, which closes meanwhile
        # (stopping the worker takes a moment on a busy machine: Ctrl+Q ends within 2 s).
        from ..bots.pool import release_shared_pool
        from .background import start

        start(release_shared_pool, name="pool-stop")
        super().exit(*args, **kwargs)


def default_settings(**over: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "rules": preset("ristiseiska"),
        "preset_value": "ristiseiska",
        "players": 4,
        "bots": ["expert"] * 3,
        "name": "",
        "seed": None,
        "lang": "fi",
        "open_cards": False,
        "pace": 0.6,
        "auto_forced": True,
        "deals": None,
        "rules_file": None,
    }
    d.update({k: v for k, v in over.items() if v is not None})
    return d


def resume_command(data_dir_override: str | None, path: Path) -> str:
    """The command that continues the saved match: with the same ``--data-dir`` when the game
    was started with one (``--resume`` alone looks in the default folder)."""
    import shlex

    cmd = "ristiseiska play --resume"
    if data_dir_override:
        cmd += " --data-dir " + shlex.quote(str(path.resolve()))
    return cmd


def exit_save_line(s: Session, lang: str, data_dir_override: str | None, path: Path) -> str:
    """What quitting says about the saved match: where it is and how to go on, only when the
    file was written; otherwise that it was not, and why (a file where the folder should be,
    a write that failed, or no move made yet)."""
    state = s.state_path
    if s.save_error is None and state is not None and state.is_file():
        return t("tui.exit.saved", lang, path=str(state),
                 command=resume_command(data_dir_override, path))
    if path.exists() and not path.is_dir():
        why = t("tui.exit.not_a_folder", lang, path=str(path))
    elif s.save_error is not None:
        why = t("tui.exit.write_failed", lang, path=str(state),
                error=s.save_error.strerror or str(s.save_error))
    else:
        why = t("tui.exit.no_moves", lang)
    return t("tui.exit.not_saved", lang, why=why)


def run_play(defaults: dict[str, Any] | None = None, session: Session | None = None,
             data_dir_override: str | None = None, quick: bool = False) -> int:
    """Run the game in this terminal; returns the exit status."""
    path = data_dir(data_dir_override)
    if defaults is not None and session is None:
        from .session import STATE_FILE

        defaults = dict(defaults, saved_game=(path / STATE_FILE).exists())
    from ..analysis.hint import warm
    from ..bots.pool import POOLED, shared_pool

    # The hint (F2) is the analysis's: load its compiled kernel while the game starts. With a
    # master (or neural) bot the pool's worker compiles the kernel anyway (a minute after
    # installing): the hint's thread then loads it from the disk cache instead of compiling
    # it a second time beside the worker, in this process.
    levels = session.setup.bots if session is not None else (defaults or {}).get("bots", [])
    if set(levels) & POOLED:
        def then(done: Any) -> None:  # not after a quit stopped the worker mid-way
            if not done.cancelled() and done.exception() is None:
                warm()

        shared_pool().ensure_warm().add_done_callback(then)
    else:
        warm()
    app = PlayApp(defaults, session, path, quick=quick)
    app.run()
    s = app.session
    lang = app.lang
    if s is not None and not s.match_over and s.save_enabled and s.state_path is not None:
        print(exit_save_line(s, lang, data_dir_override, path))
    if s is not None and s.records_path is not None:
        print(t("tui.exit.records", lang, path=str(s.records_path)))
    return 0
