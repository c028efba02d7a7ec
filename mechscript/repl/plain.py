"""The REPL when standard input is not a terminal (`mech < rolls.txt`, `echo 3d6 | mech`): lines
are read and answered plainly, without prompts or colours; an entry with a bracket open goes on to
the next line as at the prompt. Errors go to standard error; the exit status is 1 if any entry
failed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from .commands import Commands
from .display import plain
from .lexer import needs_more


def run_plain(commands: Commands, lines: Iterable[str], out: TextIO, err: TextIO) -> int:
    failed, entry = False, ""
    for line in lines:
        entry += line
        if not entry.strip():
            entry = ""
            continue
        if needs_more(entry):
            continue
        reply = commands.handle(entry.rstrip("\n"))
        entry = ""
        failed |= _print(reply, out, err)
        if reply.quit:
            return 1 if failed else 0
    if entry.strip():  # the input ended with a bracket open: its error is the answer
        failed |= _print(commands.handle(entry), out, err)
    return 1 if failed else 0


def _print(reply, out: TextIO, err: TextIO) -> bool:
    for is_error, fragments in reply.lines:
        print(plain(fragments), file=err if is_error else out, flush=True)
    return reply.failed
