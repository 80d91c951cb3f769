"""Textual's header, made safe to retitle while it is being taken down."""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.events import Mount
from textual.widgets import Header
from textual.widgets._header import HeaderTitle


class SafeHeader(Header):
    """:class:`textual.widgets.Header` whose title update tolerates a header whose title
    widget is already gone. A title set while the app closed (a switch of screen or language
    just before the end, on a loaded machine) reached Textual's handler after the header's
    children were removed, and its ``NoMatches`` (Textual 8 catches only ``NoScreen``) took
    the app down in CI twice."""

    def _on_mount(self, event: Mount) -> None:
        event.prevent_default()  # instead of Header's own handler, which registers the same

        async def set_title() -> None:
            try:
                self.query_one(HeaderTitle).update(self.format_title())
            except (NoScreen, NoMatches):
                pass

        self.watch(self.app, "title", set_title)
        self.watch(self.app, "sub_title", set_title)
        self.watch(self.screen, "title", set_title)
        self.watch(self.screen, "sub_title", set_title)
