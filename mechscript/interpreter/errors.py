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
        line_text = self.source.splitlines()[self.span.line - 1] if self.source else ""
        caret = " " * (self.span.col - 1) + "^"
        width = min(self.span.end - self.span.start, len(line_text) - self.span.col + 1)
        if width > 1:
            caret += "~" * (width - 1)
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
