"""A refused request (:class:`ActionError`) and how a storage failure is told to a player."""

from __future__ import annotations

from ..store.errors import Fenced, StorageFault

# What a player is told when the database file changed under the server (the operator's log
# says which file and how; a player is not told the server's paths).
STORAGE_FAULT = ("the server's database was damaged or removed while it ran, so nothing more "
                 "can be saved: this was not accepted. Tell whoever runs the server")


MOVED = ("this table is now served by another server process; reconnect (nothing was "
         "changed here)")


def store_error(e: Exception, doing: str) -> ActionError:
    """A storage failure as a clear, stable error (nothing was changed)."""
    if isinstance(e, Fenced):
        return ActionError("moved", f"{doing}: {MOVED}")
    if isinstance(e, StorageFault):
        return ActionError("storage-fault", f"{doing}: {STORAGE_FAULT}")
    text = str(e).lower()
    if "readonly" in text or "read-only" in text or "read only" in text:
        why = "the database is read-only"
    elif "disk" in text and "full" in text:
        why = "the database disk is full"
    elif "locked" in text:
        why = "the database is busy"
    else:
        why = f"the database refused ({type(e).__name__})"
    return ActionError("store", f"{doing}: {why}; nothing was changed")

class ActionError(Exception):
    """A refused request: ``code`` is stable for programs, ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

