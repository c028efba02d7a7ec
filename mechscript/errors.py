"""The one error type users see, and the one function that shows it.

Every user error (bad dice, bad script, exceeded limit) is a MechError that knows where it happened.
Showing it is `MechError.render`: `FILE:LINE:COL: message`, the line, a caret under the spot, a hint.
An error a rules module raises about a character's sheet (`for_character`) is shown at that
character's declaration in the user's script, naming it, with the module's line as a "from" line.
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


@dataclass(frozen=True, slots=True)
class ParamSpan(Span):
    """Where an encounter's parameter is named: its value stands there (interpreter/encounter_params.py),
    and an error said there names the parameter and the value it had."""

    param: str = ""
    value: str = ""    # the value as written: 3, "Ransack", true
    origin: str = ""   # "its default" or the option that gave it: "--set count=4"

    def note(self) -> str:
        return f"`{self.param}` is the encounter's parameter, here {self.value} ({self.origin})"


class MechError(Exception):
    """A user error with its position. `render` gives the message users read."""

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint
        self.source: str | None = None
        self.filename = "<expr>"
        # (name, span, source, filename) of the character whose sheet this error is about
        self.character: tuple | None = None
        self.rolled = True  # whether a die was drawn before it, so that its seed matters (sim/prepared.py)

    def located(self, source: str, filename: str) -> "MechError":
        """Attach the source text the span points into (done once, where the source is known)."""
        if self.source is None:
            self.source = source
            self.filename = filename
        return self

    def for_character(self, name: str, span: Span, source: str, filename: str) -> "MechError":
        """This error, raised in a rules module, is about the sheet of character `name` declared at
        `span` of `source`: it is shown there (the first character it is said of: a gear item's
        error stays at the item)."""
        if self.character is None:
            self.character = (name, span, source, filename)
        return self

    def render(self) -> str:
        """The message, with every control character of the script (NUL, ESC...) escaped."""
        said = self.hint
        if type(self.span) is ParamSpan:  # a parameter's value refused where it is used: which value it was
            said = self.span.note() + (f"; {said}" if said else "")
        hint = f"  hint: {printable(said, chr(10))}" if said else None
        if self.character is not None and self.source is not None and self.span is not None:
            name, span, source, filename = self.character
            message = self.message if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", self.message) else \
                f"{name}: {self.message}"
            excerpt = _excerpt(printable(filename), printable(message, "\n"), source, span)
            code = _line(self.source, self.span.line).strip()
            code = printable(code if len(code) <= 80 else code[:79] + "…")
            origin = f"  from {printable(self.filename)}:{self.span.line}:{self.span.col}: {code}"
            return "\n".join([*excerpt, origin, *([hint] if hint else [])])
        filename, message = printable(self.filename), printable(self.message, "\n")
        if self.span is None or self.source is None:
            return "\n".join([f"{filename}: {message}", *([hint] if hint else [])])
        return "\n".join([*_excerpt(filename, message, self.source, self.span), *([hint] if hint else [])])

    def __str__(self) -> str:
        return self.render() if self.source is not None else self.message


class Failed(MechError):
    """The error of a script's own `fail(...)`: a rule refusing what it was given. One raised while a
    character is made (by its kind's formulas, in a module) is said at the character's declaration."""


def _excerpt(filename: str, message: str, source: str, span: Span) -> tuple[str, str, str]:
    """`FILE:LINE:COL: message`, the line and a caret under the spot (a long line cut around it)."""
    line_text = _line(source, span.line)
    col = span.col
    width = max(1, min(span.end - span.start, len(line_text) - col + 1, 60))
    if len(line_text) > 100:  # show the part of a long line around the spot
        start = max(0, col - 50)
        line_text, col = ("…" if start else "") + line_text[start:start + 100] + "…", col - start + (1 if start else 0)
    # escaped piece by piece, so that the caret stays under the same characters; tabs stay tabs
    before = printable(line_text[:col - 1])
    marked = printable(line_text[col - 1:col - 1 + width])
    caret = "".join("\t" if c == "\t" else " " for c in before) + "^" + "~" * (max(1, len(marked)) - 1)
    return (f"{filename}:{span.line}:{span.col}: {message}",
            f"  {before}{marked}{printable(line_text[col - 1 + width:])}",
            f"  {caret}")


def _line(source: str, number: int) -> str:
    lines = source.split("\n")  # the parser counts lines by \n alone
    return lines[number - 1].rstrip("\r") if number <= len(lines) else ""


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
