"""Where the REPL keeps its history: the user's data folder, or the file named by MECH_HISTORY
(tests, or a history per campaign)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from prompt_toolkit.history import FileHistory, History, InMemoryHistory

HISTORY_VARIABLE = "MECH_HISTORY"


def history_path() -> Path:
    named = os.environ.get(HISTORY_VARIABLE)
    return Path(named) if named else platformdirs.user_data_path("mechscript") / "history"


def open_history() -> tuple[History, str | None]:
    """The history, and a note when it cannot be kept (an unwritable folder): then it lasts the
    session only, and the REPL still starts."""
    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as error:
        return InMemoryHistory(), f"history not kept: cannot write {path} ({error.strerror or error})"
    return FileHistory(str(path)), None
