"""What the REPL prints, as lines of (style, text) fragments: the terminal colours them, a pipe
prints their text alone. A roll shows its dice with the dice that count emphasised and the others
(dropped, rerolled) dimmed; an error shows its message, the line and a caret.
"""

from __future__ import annotations

from ..dice.engine import DiceRoll
from ..dice.rollkeep import KeepRoll
from ..errors import MechError
from ..interpreter.session import Shown
from ..interpreter.show import dice_text, expression_text
from ..interpreter.values import Character, format_value

Fragments = list[tuple[str, str]]

STYLE = {
    "die.counts": "bold",
    "die.dropped": "dim",
    "total": "bold",
    "error": "ansired bold",
    "note": "ansibrightblack",
    "heading": "bold",
    "bottom-toolbar": "noreverse bg:ansibrightblack fg:ansiwhite",
    "pygments.keyword": "ansimagenta bold",
    "pygments.keyword.constant": "ansimagenta",
    "pygments.name.builtin": "ansicyan",
    "pygments.literal.number": "ansiblue",
    "pygments.literal.number.dice": "ansiyellow bold",
    "pygments.literal.string": "ansigreen",
    "pygments.comment": "ansibrightblack italic",
    "pygments.error": "ansired underline",
}

# show.expression_text dresses each die through a mark; these characters (of Unicode's private use
# area, never in a roll's text) bracket a die's text there and are turned into styles here.
_COUNTS, _DROPPED, _END = "\ue000", "\ue001", "\ue002"


def _mark(text: str, counts: bool) -> str:
    return (_COUNTS if counts else _DROPPED) + text + _END


def shown(item: Shown, limits) -> Fragments | None:
    """An expression's value; with its rolls, the expression with their dice (a roll a function
    made and gave back: its dice after the expression). None shows nothing."""
    if item.rolls:
        text = expression_text(item.source, item.value, item.rolls, _mark)
    elif type(item.value) is DiceRoll or type(item.value) is KeepRoll:
        text = f"{item.source.strip()} [{dice_text(item.value, _mark)}] = {format_value(item.value)}"
    elif item.value is None:
        return None
    else:
        return [("", describe(item.value, limits))]
    fragments, style, start = [], "", 0
    for i, char in enumerate(text):
        if char in (_COUNTS, _DROPPED, _END):
            if i > start:
                fragments.append((style, text[start:i]))
            style = {_COUNTS: "class:die.counts", _DROPPED: "class:die.dropped", _END: ""}[char]
            start = i + 1
    head, equals, total = text[start:].rpartition(" = ")
    fragments += [("", head + equals), ("class:total", total)] if equals else [("", text[start:])]
    return fragments


def describe(value, limits) -> str:
    """A value as the prompt shows it: a character with its stats and state."""
    if type(value) is Character:
        fields = ", ".join(f"{name} {format_value(v, limits)}" for name, v in value.fields.items())
        return f"{value.name} (a {value.kind.name}): {fields}"
    return format_value(value, limits)


def error(problem: MechError) -> list[Fragments]:
    first, *rest = problem.render().split("\n")
    return [[("class:error", first)]] + [[("", line)] for line in rest]


def plain(fragments: Fragments) -> str:
    return "".join(text for _, text in fragments)
