"""Small windows of the terminal game: a move picker and a text window (the rules in force,
the score sheet)."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from ..i18n import describe_move, t
from ..moves import Move
from ..rules import Rules


def rules_markdown(rules: Rules, lang: str) -> str:
    """The rules in force, in our own words (helper H's text when present)."""
    from ..explain import explain_rules

    try:
        return str(explain_rules(rules, lang))
    except Exception as e:  # noqa: BLE001 - a rules text must never take the game down
        return f"# {rules.name}\n\n{e}"


# --- small screens ----------------------------------------------------------------------------------

class PickMove(ModalScreen[Move | None]):
    """A card with several legal moves (a row, the ace's end, the joker's card): pick one."""

    # Below the table, which stays in view undimmed (issue 62: the joker's choices covered
    # it at 80x24): as high as the room under the table, the choices scrolling within.
    DEFAULT_CSS = """
    PickMove { align: center bottom; background: $background 0%; }
    PickMove > Vertical { width: 60; height: auto; max-height: 80%; border: thick $accent;
                          background: $surface; padding: 0 2; }
    PickMove OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "cancel", show=False)]

    def __init__(self, moves: list[Move], title: str, lang: str) -> None:
        super().__init__()
        self.moves = moves
        self.title_text = title
        self.lang = lang

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text)
            yield OptionList(*[Option(describe_move(m, self.lang), id=f"m{i}")
                               for i, m in enumerate(self.moves)])
            yield Label(t("tui.pick.cancel", self.lang), classes="dim")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        from .widgets import TableView

        top = 0
        for screen in self.app.screen_stack:
            if screen is not self:
                try:
                    top = max(top, screen.query_one(TableView).region.bottom)
                except NoMatches:
                    pass
        height = self.size.height or self.app.size.height
        room = max(height - top, height // 3, 7)
        self.query_one(Vertical).styles.max_height = room
        # the border (2), the title and the cancel line (2)
        self.query_one(OptionList).styles.max_height = max(room - 4, 3)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.moves[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextScreen(ModalScreen[None]):
    """A page of text (the rules) or a table (the score sheet); Escape closes it."""

    DEFAULT_CSS = """
    TextScreen { align: center middle; }
    TextScreen > Vertical { width: 90%; height: 90%; border: thick $accent; background: $surface;
                            padding: 0 1; }
    TextScreen VerticalScroll { height: 1fr; }
    TextScreen #close-hint { height: 1; color: $text-muted; }
    """
    BINDINGS = [Binding("escape", "close", show=False), Binding("q", "close", show=False),
                Binding("f1", "close", show=False), Binding("f3", "close", show=False),
                Binding("enter", "close", show=False)]

    def __init__(self, body: Any, lang: str, markdown: bool = False) -> None:
        super().__init__()
        self.body = body
        self.lang = lang
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll():
                yield Markdown(self.body) if self.markdown else Static(self.body)
            yield Static(t("tui.close_hint", self.lang), id="close-hint")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
