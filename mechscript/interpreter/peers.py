"""Notes for spellings of other dice rollers that mean something else here (README, "Coming from
another roller"). They are valid mechscript, so they run as mechscript reads them; `mech roll`,
`mech prob` and the REPL add a one-line note naming the spelling that does what the other roller
means:

- Roll20's success count `10d10>7` (dice of 7 or more): here a comparison of the total with 7;
  the count is `10d10c>=7`.
- Roll20's compare point on an explosion, `!>4` (4 or more): here `>` is strictly above; 4 or
  more is `!>=4`.
"""

from __future__ import annotations

from . import ast
from .parser import parse_expression, parse_program
from ..errors import MechError
from ..limits import Limits

_OR_EQUAL = {">": ">=", "<": "<="}


def peer_notes(source: str, limits: Limits = Limits(), program: bool = False) -> list[str]:
    """The notes for `source` (an expression, or with `program` a REPL entry), each once, in the
    order they are written. None for a text that does not parse: its error is the answer."""
    try:
        tree = parse_program(source, "<notes>", limits) if program else parse_expression(source, "<notes>", limits)
    except MechError:
        return []
    found = []
    for node in ast.walk(tree):
        if type(node) is ast.Compare:
            found += _success_count(source, node)
        elif type(node) is ast.Dice:
            found += _compare_point(node)
    notes = []
    for _, note in sorted(found):
        if note not in notes:
            notes.append(note)
    return notes


def _success_count(source: str, node: ast.Compare) -> list:
    """`10d10>7`: a dice term, `>` or `<` and a number, written without spaces, as Roll20 counts
    successes."""
    left, right = node.left, node.right
    if node.op not in _OR_EQUAL or type(left) is not ast.Dice or type(right) is not ast.Number:
        return []
    between = source[left.span.end:right.span.start]
    if between != node.op:  # `1d20 > 7` with spaces reads as the comparison it is
        return []
    dice, number = source[left.span.start:left.span.end], source[right.span.start:right.span.end]
    written = f"{dice}{node.op}{number}"
    return [(left.span.start, f"`{written}` compares the total with {number}; to count the dice of {number} "
                              f"or {'more' if node.op == '>' else 'less'} (Roll20's success count), write "
                              f"`{dice}c{_OR_EQUAL[node.op]}{number}`")]


def _compare_point(node: ast.Dice) -> list:
    """`!>4`: Roll20 explodes on 4 or more; here `>` is strictly above."""
    found = []
    for modifier in node.modifiers:
        written, condition = str(modifier), modifier.condition
        if modifier.kind in ("!", "!!", "!p") and written.startswith("!") and condition is not None \
                and condition.op in _OR_EQUAL and modifier.span is not None:
            more, beyond = ("more", "above") if condition.op == ">" else ("less", "below")
            mark = written[:len(written) - len(str(condition))]
            found.append((modifier.span.start,
                          f"`{written}` explodes on faces {beyond} {condition.value}; Roll20's `{written}` "
                          f"({condition.value} or {more}) is `{mark}{_OR_EQUAL[condition.op]}{condition.value}`"))
    return found
