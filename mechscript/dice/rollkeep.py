"""Roll-and-keep `XkY` (7th Sea), as rule text 000 plays it (digest transformers-7thsea.md, 2.3-2.4).

A pool is X rolled ("unkept") and Y kept d10s, in half-dice steps, plus a flat bonus. Pools add up
component-wise (`7k3 + 2k0` is 9k3, `- 0k1` removes a kept die, `+ 5` adds to the total), and are
normalised just before rolling: auto-fail, half dice, the ten-dice rule, keep at most what was rolled.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

from ..errors import MechError, Span
from ..limits import limit_error
from .engine import Tally
from .faces import FaceSource, RandomFaces, completed, drawn_bits, face_table, later_face
from ..numbers import normal

HALF = Fraction(1, 2)


def format_dice_count(x: Fraction) -> str:
    return str(int(x)) if x.denominator == 1 else f"{float(x):g}"


def format_flat(flat) -> str:
    if not flat:
        return ""
    text = str(flat) if not isinstance(flat, Fraction) else f"{flat.numerator}/{flat.denominator}"
    return f"+{text}" if flat > 0 else text


class Pool:
    """An unrolled roll-and-keep pool, never changed once made. `span` is the source of the
    expression that built it, not part of its value.

    The dice counts are kept as whole numbers of half dice (`unkept2`, `kept2`: 7 for 3.5), so that
    adding pools is int arithmetic, halves or not (transformers' Tech Spec Dice are halves: Fractions
    made and added, a hundred times a fight); `unkept` and `kept` give them as the language keeps
    numbers (`numbers.normal`: an int when whole, a Fraction for a half). A plain class, not a
    frozen dataclass: a fight makes hundreds of pools, and a frozen dataclass's `__init__` costs
    three times as much. Made by `pool_of`; it has no `__init__`, so that `Pool()`, its slots
    then set, is Python's own making of an object (`_halves`, the written code's pools): 23 ns less
    a pool than `object.__new__(Pool)`."""

    __slots__ = ("unkept2", "kept2", "flat", "span")

    @property
    def unkept(self):
        return _count(self.unkept2)

    @property
    def kept(self):
        return _count(self.kept2)

    def __eq__(self, other):
        if type(other) is not Pool:
            return NotImplemented
        return self.unkept2 == other.unkept2 and self.kept2 == other.kept2 and self.flat == other.flat

    def __hash__(self):
        return hash((self.unkept2, self.kept2, self.flat))

    def __repr__(self):
        return f"Pool(unkept={self.unkept!r}, kept={self.kept!r}, flat={self.flat!r}, span={self.span!r})"

    @property
    def notation(self) -> str:
        return f"{format_dice_count(self.unkept)}k{format_dice_count(self.kept)}{format_flat(self.flat)}"

    def combine(self, other: "Pool", sign: int, span: Span | None) -> "Pool":
        if sign > 0:   # no product by the sign: of a Fraction, that is a Fraction made for nothing
            flat = self.flat + other.flat
            return _halves(self.unkept2 + other.unkept2, self.kept2 + other.kept2,
                           flat if type(flat) is int else normal(flat), span)
        flat = self.flat - other.flat
        return _halves(self.unkept2 - other.unkept2, self.kept2 - other.kept2,
                       flat if type(flat) is int else normal(flat), span)

    def plus(self, amount, span: Span | None) -> "Pool":
        return _halves(self.unkept2, self.kept2, normal(self.flat + amount), span)

    def negated(self, span: Span | None) -> "Pool":
        return _halves(-self.unkept2, -self.kept2, -self.flat, span)


def pool_of(unkept, kept, flat=0, span: Span | None = None) -> Pool:
    """The pool `{unkept}k{kept}` plus `flat`: counts whole or half (an int or a Fraction)."""
    if type(unkept) is int and type(kept) is int:
        return _halves(unkept * 2, kept * 2, flat, span)
    # in lowest terms, a whole or half count has denominator 1 or 2
    if unkept.denominator > 2 or kept.denominator > 2:
        amount = unkept if unkept.denominator > 2 else kept
        raise MechError(f"a pool has whole or half dice, not {amount}", span,
                        hint="roll-and-keep dice come in halves: 3k3, 3.5k3.5")
    return _halves(unkept.numerator * (3 - unkept.denominator), kept.numerator * (3 - kept.denominator), flat, span)


def _halves(unkept2: int, kept2: int, flat, span: Span | None) -> Pool:
    """The pool of these counts of half dice."""
    pool = Pool()
    pool.unkept2, pool.kept2, pool.flat, pool.span = unkept2, kept2, flat, span
    return pool


def _count(halves: int):
    """A count of half dice as the language keeps the number of dice: 7 halves are 7/2."""
    return halves >> 1 if not halves & 1 else Fraction(halves, 2)


@dataclass(frozen=True, slots=True)
class Normalized:
    """What is actually rolled: `rolled` d10s, keep `kept`, halve the lowest kept die if `halve`."""

    rolled: int
    kept: int
    flat: int | Fraction
    halve: bool
    auto_fail: bool

    @property
    def notation(self) -> str:
        if self.auto_fail:
            return "automatic failure"
        kept = Fraction(self.kept) - HALF if self.halve else Fraction(self.kept)
        return f"{self.rolled}k{format_dice_count(kept)}{format_flat(self.flat)}"


@functools.lru_cache(maxsize=1024)  # the same few pools are rolled again and again
def normalize(unkept: Fraction, kept: Fraction, flat: int | Fraction = 0) -> Normalized:
    """Rule text 000 §2.3 (digest), in the digest's order: auto-fail, half dice, ten dice, keep <= rolled."""
    # L24: "Any roll with either a unkept or kept dice of 0 or less automatically fails."
    if unkept <= 0 or kept <= 0:
        return Normalized(0, 0, flat, False, True)
    # L28: a kept half die halves one kept die; an unkept half die counts whole with a kept half, else is lost.
    halve = kept.denominator == 2
    kept_dice = math.ceil(kept)
    rolled = math.ceil(unkept) if halve else math.floor(unkept)
    if rolled <= 0:  # digest PROPOSAL (2.3 step 2): 0.5k1 loses its only die, so it fails
        return Normalized(0, 0, flat, False, True)
    # L32: never roll more than 10 dice; extra rolled dice become kept dice, extra kept dice +10 each.
    # Digest PROPOSAL (A3): halves are settled before this rule.
    if rolled > 10:
        kept_dice += rolled - 10
        rolled = 10
    if kept_dice > 10:
        # Digest PROPOSAL (2.3 step 3): a pending half die among the extra kept dice is worth +5, not +10.
        flat += 10 * (kept_dice - 10) - (5 if halve else 0)
        kept_dice = 10
        halve = False
    # L24: with fewer dice rolled than kept, keep them all. Digest PROPOSAL (A4): the half die is
    # then the die that does not exist, so nothing is halved.
    if kept_dice > rolled:
        kept_dice = rolled
        halve = False
    return Normalized(rolled, kept_dice, flat, halve, False)


class KeepRoll:
    """A rolled pool: kept and dropped dice (highest first), the halved die if any, the total, and
    how many dice were rolled for it (explosions included). Whether it failed automatically and
    where it was written are read from its pool and what was rolled, not stored: a fight rolls dozens
    of pools, and few of them are ever shown. Made by `roll_and_keep` alone, as `KeepRoll()` (no
    `__init__`: Python's own making of an object) with its slots then set:
    - `kept`: the values of the kept dice, highest first (an exploded die is 10*n + last face);
    - `dropped`: the values of the dropped dice, highest first;
    - `halved`: the value of the kept die that was halved (it is last in `kept`), or None;
    - `dice`: how many dice were rolled, explosions included."""

    __slots__ = ("pool", "normalized", "kept", "dropped", "halved", "total", "dice")

    @property
    def auto_fail(self) -> bool:
        return self.normalized.auto_fail

    @property
    def span(self) -> Span | None:
        return self.pool.span


@functools.lru_cache(maxsize=1024)
def normalize_halves(unkept2: int, kept2: int, flat) -> Normalized:
    """`normalize` of a pool's counts of half dice, looked up by the ints (a Fraction's hash is
    worked out in Python, each time)."""
    return normalize(_count(unkept2), _count(kept2), flat)


def roll_and_keep(source: FaceSource, pool: Pool, tally: Tally | None, explode: bool = True,
                  depth: int = 0) -> KeepRoll:
    """Roll a pool. 10s compound-explode (L20-22) unless `explode` is off (Fatigued, L161). Its dice
    are spent from `tally` as they are rolled; with no tally (the written code's quiet runs, which
    spend the roll's `dice` at once after it), none, and `depth` is the explosion_depth limit.

    A fight rolls dozens of pools (transformers: 48), so a seeded source's d10s are drawn here as
    RandomFaces.roll(n, 10) draws them."""
    normalized = normalize_halves(pool.unkept2, pool.kept2, pool.flat)
    if normalized.auto_fail:
        roll = KeepRoll()
        roll.pool, roll.normalized, roll.kept, roll.dropped, roll.halved, roll.total, roll.dice = \
            pool, normalized, [], [], None, 0, 0
        return roll
    n = dice = normalized.rolled
    if tally is not None:
        tally.spend(n, pool.span)
        depth = tally.limits.explosion_depth
    if type(source) is RandomFaces:
        k = D10_BYTES[n]
        faces = source.getrandbits(k << 3).to_bytes(k, "little").translate(D10)
        values = sorted(faces[:n] if 0 not in faces else completed(source.getrandbits, faces, n, D10), reverse=True)
    else:
        values = sorted(source.roll(n, 10), reverse=True)
    if explode and values[0] == 10:
        # Each round rolls one die for each die that came up 10 in the round before, left to right,
        # and adds it. Those dice are all worth the same (10 for each round so far), so which of them
        # gets which face does not change the values; and each is worth more than any die finished
        # in the rounds before, so a round's finished dice go in front of them, highest first.
        pending = values.count(10)
        del values[:pending]   # the 10s, first in the sorted dice
        base = rounds = 0
        while pending:
            rounds += 1
            if rounds > depth:
                raise limit_error("explosion_depth", f"the dice kept exploding for more than {depth} rounds",
                                  depth, pool.span)
            base += 10
            dice += pending
            if tally is not None:
                tally.spend(pending, pool.span)
            if pending == 1 and type(source) is RandomFaces:
                # one die, the usual case, drawn as RandomFaces.roll(1, 10) draws it (faces.ONE_DIE)
                drawn = source.getrandbits(24)
                face = D10_FACES[drawn & 255] or D10_FACES[drawn >> 8 & 255] or D10_FACES[drawn >> 16] or \
                    later_face(source.getrandbits, D10)
                if face != 10:
                    values.insert(0, base + face)
                    pending = 0
                continue
            faces = source.roll(pending, 10)
            values[:0] = sorted([base + face for face in faces if face != 10], reverse=True)
            pending = faces.count(10)
    roll = KeepRoll()
    roll.pool, roll.normalized, roll.dice = pool, normalized, dice
    roll.kept = kept = values[:normalized.kept]
    roll.dropped = values[normalized.kept:]
    total = sum(kept) + normalized.flat
    if normalized.halve:
        # L28: halve one kept die, rounded down, "usually ... the lowest die".
        roll.halved = halved = kept[-1]
        total -= halved - halved // 2
    else:
        roll.halved = None
    roll.total = total
    return roll


D10 = face_table(10)
D10_FACES = tuple(D10)
# the bytes RandomFaces.roll(n, 10) draws first, by n: a normalized pool rolls at most 10 dice
D10_BYTES = tuple(drawn_bits(n) >> 3 for n in range(11))
