"""The one error type users see, and the one function that shows it.

Every user error (bad dice, bad script, exceeded limit) is a MechError that knows where it happened.
Showing it is `MechError.render`: `FILE:LINE:COL: message`, the line, a caret under the spot, a hint.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node sits in its source: 1-based line and column, 0-based character offsets."""

    line: int
    col: int
    start: int
    end: int


class MechError(Exception):
    """A user error with its position. `render` gives the message users read."""

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint
        self.source: str | None = None
        self.filename = "<expr>"

    def located(self, source: str, filename: str) -> "MechError":
        """Attach the source text the span points into (done once, where the source is known)."""
        if self.source is None:
            self.source = source
            self.filename = filename
        return self

    def render(self) -> str:
        if self.span is None or self.source is None:
            head = f"{self.filename}: {self.message}"
            return head + (f"\n  hint: {self.hint}" if self.hint else "")
        lines = self.source.split("\n")  # the parser counts lines by \n alone
        line_text = lines[self.span.line - 1].rstrip("\r") if self.span.line <= len(lines) else ""
        col = self.span.col
        width = max(1, min(self.span.end - self.span.start, len(line_text) - col + 1, 60))
        if len(line_text) > 100:  # show the part of a long line around the spot
            start = max(0, col - 50)
            line_text, col = ("…" if start else "") + line_text[start:start + 100] + "…", col - start + (1 if start else 0)
        # tabs stay tabs under the line, so the caret lines up with the same characters
        caret = "".join("\t" if c == "\t" else " " for c in line_text[:col - 1]) + "^" + "~" * (width - 1)
        parts = [
            f"{self.filename}:{self.span.line}:{self.span.col}: {self.message}",
            f"  {line_text}",
            f"  {caret}",
        ]
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.render() if self.source is not None else self.message


def did_you_mean(name: str, candidates) -> str | None:
    """A hint naming the closest known name, if one is close enough."""
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None
