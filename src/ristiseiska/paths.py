"""Where the game keeps what it stores on this machine: one home for the data folder, which
the terminal game's saved games, the server's default database and the daily deal share."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """``override`` (a ``--data-dir``), else ``$RISTISEISKA_DATA_DIR``, else the platform's
    user data folder (``~/.local/share/ristiseiska`` on Linux)."""
    if override:
        return Path(override)
    env = os.environ.get("RISTISEISKA_DATA_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("ristiseiska", appauthor=False))
