"""The store's exceptions: the database cannot be used, a table was taken over, the file
changed under the server."""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be used; the message says why in one sentence."""


class Fenced(StoreError):
    """Another server process has taken the table over (its fencing number is newer): this
    process's write was refused and its copy of the table is stale."""


class StorageFault(StoreError):
    """The database file changed under the running server (deleted, replaced, truncated or
    overwritten): nothing more is stored or acknowledged until the server is restarted."""
