"""Showing results as text: a roll's dice, and a whole expression with the dice it rolled.

Die marks: `(3)` dropped, `1r` rerolled (the die after it replaced it), `6!` exploded (the die
after it was added), `14!!` compounded, `4p` a penetrating extra die (shown as counted, one under
its face), `8*` a success, `1f` a failure, `2^` raised by `mi`, `5v` lowered by `ma`.
Roll-and-keep shows the kept dice highest first, then the dropped ones in parentheses, and a halved
die as `5/2`: `7k3: 14 9 8 (6 5 3 2) = 31`.
"""

from __future__ import annotations

from ..dice.engine import (COMPOUNDED, DROPPED, EXPLODED, FAILURE, LOWERED, PENETRATING, RAISED, REROLLED,
                           SUCCESS)
from ..dice.rollkeep import KeepRoll
from .values import format_value

_MARKS = ((REROLLED, "r"), (EXPLODED, "!"), (COMPOUNDED, "!!"), (PENETRATING, "p"), (RAISED, "^"),
          (LOWERED, "v"), (SUCCESS, "*"), (FAILURE, "f"))


def _unmarked(text: str, counts: bool) -> str:
    return text


def dice_text(roll, mark=_unmarked) -> str:
    """The dice of one roll, e.g. `3 (1) 6 5` or `14 9 8 (6 5 3 2)`. `mark(text, counts)` may dress
    each die's text, knowing whether the die counts (the REPL emphasises those and dims the others)."""
    if type(roll) is KeepRoll:
        if roll.auto_fail:
            return "automatic failure"
        kept = [str(v) for v in roll.kept]
        if roll.halved is not None:
            kept[-1] = f"{roll.halved}/2"
        dropped = " " + mark("(" + " ".join(str(v) for v in roll.dropped) + ")", False) if roll.dropped else ""
        return " ".join(mark(text, True) for text in kept) + dropped
    if not roll.values:
        return "no dice"
    if roll.flags is None:
        return " ".join(mark(format_value(v), True) for v in roll.values)
    shown = []
    for value, flags in zip(roll.values, roll.flags):
        text = format_value(value) + "".join(sign for bit, sign in _MARKS if flags & bit)
        shown.append(mark(f"({text})", False) if flags & DROPPED else mark(text, not flags & REROLLED))
    return " ".join(shown)


def roll_text(roll) -> str:
    """One roll as `mech roll` shows a lone roll, with the notation it was rolled as:
    `7k3: 14 9 8 (6 5 3 2) = 31`, `0k3: automatic failure`, `3 (1) 6 = 9` for NdS."""
    if type(roll) is KeepRoll:
        if roll.auto_fail:
            return f"{roll.pool.notation}: automatic failure"
        return f"{roll.normalized.notation}: {dice_text(roll)} = {format_value(roll.total)}"
    return f"{dice_text(roll)} = {format_value(roll.total)}"


def _label(roll, source: str) -> str:
    written = source[roll.span.start:roll.span.end]
    if type(roll) is KeepRoll and roll.normalized.notation != written and not roll.auto_fail:
        return f"{written} as {roll.normalized.notation}"
    return written


def expression_text(source: str, value, rolls: list, mark=_unmarked) -> str:
    """The expression with every roll's dice shown (each die dressed by `mark`, see dice_text), then
    its value: `7k3: 14 9 8 (6 5 3 2) = 31`, or `4d6kh3 [3 (1) 6 5] + 2 = 16` when there is more than a roll."""
    total = format_value(value)
    text = source.strip()
    if len(rolls) == 1 and source[rolls[0].span.start:rolls[0].span.end] == text:
        roll = rolls[0]
        if type(roll) is KeepRoll and roll.auto_fail:
            return f"{text}: automatic failure"
        return f"{_label(roll, source)}: {dice_text(roll, mark)} = {total}"
    ordered = sorted(rolls, key=lambda r: (r.span.start, -r.span.end))
    start = len(source) - len(source.lstrip())
    return f"{_splice(source, start, start + len(text), ordered, mark)} = {total}"


def _splice(source: str, start: int, end: int, rolls: list, mark=_unmarked) -> str:
    """source[start:end] with each roll's text followed by its dice; rolls nested in a roll's span
    (a d6 added to a pool) are shown inside it."""
    out, pos, i = [], start, 0
    while i < len(rolls):
        roll = rolls[i]
        span = roll.span
        inner = []
        j = i + 1
        while j < len(rolls) and rolls[j].span.end <= span.end:
            inner.append(rolls[j])
            j += 1
        out.append(source[pos:span.start])
        written = _splice(source, span.start, span.end, inner, mark)
        label = _label(roll, source)
        note = label[len(source[span.start:span.end]) + 1:] if label != source[span.start:span.end] else ""
        out.append(f"{written} [{note + ': ' if note else ''}{dice_text(roll, mark)}]")
        pos = span.end
        i = j
    out.append(source[pos:end])
    return "".join(out)
