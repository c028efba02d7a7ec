"""The REPL: `mech` (or `mech repl`) as an interactive dice table. On a terminal, a prompt_toolkit
application (app.py); reading from a pipe, plain lines (plain.py); both answer through commands.py."""

from __future__ import annotations

import sys

from ..limits import Limits
from .commands import Commands


def start(seed: int | None = None, limits: Limits = Limits(), module_path=()) -> int:
    commands = Commands(seed, limits, module_path=module_path)
    if sys.stdin is None:  # no standard input at all: nothing to answer
        return 0
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        from .plain import run_plain
        try:
            return run_plain(commands, sys.stdin, sys.stdout, sys.stderr)
        except KeyboardInterrupt:
            return 130
    from .app import TerminalRepl
    from .history import open_history
    history, note = open_history()
    return TerminalRepl(commands, history, note=note).run()
