"""The one error type users see, and the one function that shows it.

Every user error (bad dice, bad script, exceeded limit) is a MechError that knows where it happened.
Showing it is `MechError.render`: `FILE:LINE:COL: message`, the line, a caret under the spot, a hint.
"""

from __future__ import annotations

import difflib
import re
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
        """The message, with every control character of the script (NUL, ESC...) escaped."""
        filename, message = printable(self.filename), printable(self.message, "\n")
        hint = f"  hint: {printable(self.hint, chr(10))}" if self.hint else None
        if self.span is None or self.source is None:
            return "\n".join([f"{filename}: {message}", *([hint] if hint else [])])
        lines = self.source.split("\n")  # the parser counts lines by \n alone
        line_text = lines[self.span.line - 1].rstrip("\r") if self.span.line <= len(lines) else ""
        col = self.span.col
        width = max(1, min(self.span.end - self.span.start, len(line_text) - col + 1, 60))
        if len(line_text) > 100:  # show the part of a long line around the spot
            start = max(0, col - 50)
            line_text, col = ("…" if start else "") + line_text[start:start + 100] + "…", col - start + (1 if start else 0)
        # escaped piece by piece, so that the caret stays under the same characters; tabs stay tabs
        before = printable(line_text[:col - 1])
        marked = printable(line_text[col - 1:col - 1 + width])
        caret = "".join("\t" if c == "\t" else " " for c in before) + "^" + "~" * (max(1, len(marked)) - 1)
        parts = [
            f"{filename}:{self.span.line}:{self.span.col}: {message}",
            f"  {before}{marked}{printable(line_text[col - 1 + width:])}",
            f"  {caret}",
        ]
        if hint:
            parts.append(hint)
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.render() if self.source is not None else self.message


# Control characters (C0 but the tab, DEL, C1) and the marks that reorder text on the screen: in a
# terminal they would move the cursor, change colours or hide text of the message.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str, keep: str = "") -> str:
    """`text` with its control characters written as escapes (`\\x00`, `\\u202e`), but those of `keep`
    (a message keeps its line breaks)."""
    def escaped(match):
        c = match.group()
        return c if c in keep else f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
    return _CONTROL.sub(escaped, text)


def did_you_mean(name: str, candidates) -> str | None:
    """A hint naming the closest known name, if one is close enough."""
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None
