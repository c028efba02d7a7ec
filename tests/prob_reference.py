"""Independent references for the exact odds (tests/test_prob*.py): brute-force enumerations.

`enumerate_roll` runs the real sampling engine (`mechscript.compile_roll`) once for every sequence
of faces the dice can show, each with its probability, so it shares no code with the exact engine
(dice/distribution.py). Explosions are followed to at most `max_faces` faces in all; the paths
cut there are left out, and their mass is returned.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import mechscript
import exact_reference as exact
from mechscript.dice.engine import DiceRoll, faces_of
from mechscript.dice.rollkeep import KeepRoll


class _NeedFace(Exception):
    def __init__(self, die):
        self.die = die


class _Prefix:
    """A face source giving the faces of one path, and asking for the next die once they run out."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.pos = 0

    def roll(self, n, die):
        out = []
        for _ in range(n):
            if self.pos == len(self.prefix):
                raise _NeedFace(die)
            out.append(self.prefix[self.pos])
            self.pos += 1
        return out


def enumerate_roll(expr: str, max_faces: int) -> tuple[dict, Fraction]:
    """(outcome -> probability, mass of the paths cut at max_faces) for `expr` rolled by the engine."""
    compiled = mechscript.compile_roll(expr)
    out: dict = defaultdict(Fraction)
    cut = Fraction(0)
    stack = [((), Fraction(1))]
    while stack:
        prefix, p = stack.pop()
        try:
            value, _ = compiled.evaluate(_Prefix(prefix))
        except _NeedFace as need:
            faces = list(faces_of(need.die))
            if len(prefix) >= max_faces:
                cut += p
                continue
            for face in faces:
                stack.append((prefix + (face,), p / len(faces)))
            continue
        total = value.total if type(value) in (DiceRoll, KeepRoll) else value
        out[total] += p
    return dict(out), cut


def compounding_d10(depth: int) -> dict:
    """One roll-and-keep die: 10s add a new d10, at most `depth` times (deeper paths left out, where
    exact.compounding_d10 lumps them onto one value)."""
    die = exact.compounding_d10(depth)
    del die[10 * (depth + 1)]
    return die
