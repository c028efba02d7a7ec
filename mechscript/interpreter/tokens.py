"""What the AST builder (builder*.py) reads from lark's tokens: their spans, numbers, minus signs,
names listed twice."""

from __future__ import annotations

from fractions import Fraction

from lark import Token

from ..errors import MechError, Span

# A minus may be written `-`, U+2212 (−) or an en dash (–), as text pasted from a document has it.
MINUS_SIGNS = "-−–"


def plain_minus(text: str) -> str:
    """`text` with each minus sign written `-`."""
    return text.replace("−", "-").replace("–", "-")


def first_repeat(names) -> int | None:
    """The place of the first name that one before it repeats, or None. A set: 10^5 parameters in
    a stranger's line are 10^5 look-ups, not the 5 * 10^9 comparisons of a search of those before."""
    seen = set()
    for place, name in enumerate(names):
        if name in seen:
            return place
        seen.add(name)
    return None


def token_span(token: Token) -> Span:
    return Span(token.line, token.column, token.start_pos, token.end_pos)


MAX_DIGITS = 1000  # a longer number in the source is a mistake (or an attack), never a rule


def parse_number(text: str) -> int | Fraction:
    if len(text) > MAX_DIGITS:
        raise MechError(f"a number of {len(text)} digits is too long to write; the most is {MAX_DIGITS}",
                        token_span(text) if isinstance(text, Token) else None)
    if text.isascii() and text.isdigit():  # most numbers: int() is a tenth of Fraction()'s time
        return int(text)
    value = Fraction(text)
    return int(value) if value.denominator == 1 else value
