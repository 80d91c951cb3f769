"""The game screen's move log and how each of its lines looks."""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from .session import HUMAN, LogLine


class MoveLog(RichLog):
    """The move log. When it gets shorter (a row of buttons appears under it) it scrolls back
    to its end, so that the latest moves stay in view."""

    def on_resize(self, event: Resize) -> None:
        super().on_resize(event)
        self.call_after_refresh(self.scroll_end, animate=False)


def _log_text(line: LogLine) -> Text:
    if line.kind == "deal":
        return Text(line.text, style="bold cyan")
    if line.kind == "result":
        return Text(line.text, style="bold green")
    style = "bold" if line.seat == HUMAN else ""
    if line.kind in ("token", "pass", "chip", "ask", "draw"):
        style += " yellow"
    text = Text(line.text, style=style.strip())
    if line.number is not None:  # numbered from 1, as the replay and the analysis count
        text = Text.assemble((f"{line.number}. ", "dim"), text)
    return text
