"""Face sources: where the faces of dice come from.

A face source has one method, `roll(n, die)`, giving the faces of n dice of one kind, in the order
they fall. `die` is either a number of sides S (faces 1..S) or a tuple of the die's faces
(`dF` is (-1, 0, 1), `d[1,1,2]` is (1, 1, 2)).

- RandomFaces: a seeded pseudo-random generator, the same faces for the same seed on every machine
  and every Python version we support. The generator is MT19937, as Python's `random.Random(seed)`
  (an int seed); its output stream is part of Python's documented reproducibility guarantee. For n
  dice of S <= 255 sides, k = n + n//4 + 2 bytes are drawn as `getrandbits(8k).to_bytes(k, "little")`;
  each byte is a face (byte % S) + 1, rejecting the top `256 % S` byte values so every face is
  equally likely, and the first n faces are used (more bytes are drawn the same way if too many
  were rejected). A larger die takes `getrandbits(bits of S-1)` with the same rejection. A die with listed faces picks a face by position, as a die of len(faces) sides.
- GivenFaces: faces supplied by the user (`--faces`, physical dice, golden tests), consumed in the
  order the evaluator asks for them: all dice of a roll left to right, then the extra dice
  (explosions, rerolls) in rounds, left to right; terms of an expression left to right. A face the
  die cannot show, or running out of faces, is a user error.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol

from ..errors import MechError

Die = int | tuple  # sides, or the faces of the die


class FaceSource(Protocol):
    def roll(self, n: int, die: Die) -> Sequence[int | Fraction]: ...


def describe_die(die: Die) -> str:
    if type(die) is int:
        return f"a d{die}"
    if die == (-1, 0, 1):
        return "a dF"
    return "a d[" + ",".join(str(face) for face in die) + "]"


class _ByteTables(dict):
    """sides -> a table mapping a random byte to a face 1..sides, or to 0 (rejected) for the
    uneven top bytes; made on first use."""

    def __missing__(self, sides: int) -> bytes:
        usable = 256 - 256 % sides
        table = self[sides] = bytes(b % sides + 1 if b < usable else 0 for b in range(256))
        return table


_TABLES = _ByteTables()  # the same for every source: made once a process, not once a run


def face_table(sides: int) -> bytes:
    """The table RandomFaces maps random bytes through for a die of 2 to 255 sides."""
    return _TABLES[sides]


# One die of 2 to 255 sides, as RandomFaces.roll(1, sides) draws it, written inline by the back end
# (backend/expressions.py): DRAWN holds BITS(24), the 3 bytes RandomFaces.roll(1, sides) draws (BITS
# the source's getrandbits), lowest first; FACES is tuple(face_table(sides)), TABLE face_table(sides).
# The face of the first byte not rejected (0 in the table), else `later_face(BITS, TABLE)`. Indexing a
# tuple is 3 operations of Python where translating the bytes was 3 calls.
ONE_DIE = "FACES[DRAWN & 255] or FACES[DRAWN >> 8 & 255] or FACES[DRAWN >> 16] or later_face(BITS, TABLE)"


# The most dice of a plain roll (`2d6`) whose total the back end draws inline, as `few_dice` writes it.
FEW_DICE = 4


def few_dice(n: int, drawn: str, faces: str, table: str, names: list[str]) -> str:
    """Python text of the total of n (2 to FEW_DICE) plain dice of 2 to 255 sides, as
    RandomFaces.roll(n, sides) draws them: `drawn` names the BITS(drawn_bits(n)) drawn before it,
    `faces` tuple(face_table(sides)), `table` face_table(sides), `names` n names of the function's
    own to hold the faces. The sum of the first n bytes when none is rejected (0 in the table),
    else later_total's."""
    terms = [f"({name} := {faces}[{drawn}{f' >> {8 * i}' if i else ''} & 255])" for i, name in enumerate(names)]
    return f"{' and '.join(terms)} and {' + '.join(names)} or later_total(BITS, {drawn}, {n}, {table})"


def drawn_bits(n: int) -> int:
    """The bits RandomFaces.roll draws first for n dice of at most 255 sides: a byte a die, and some over."""
    return (n + (n >> 2) + 2) << 3


def later_total(getrandbits, drawn: int, n: int, table: bytes) -> int:
    """The total of n dice whose first draw (`drawn`, few_dice) had a rejected byte among its first n:
    RandomFaces.roll's faces, from that draw and the next ones."""
    k = drawn_bits(n) >> 3
    return sum(completed(getrandbits, drawn.to_bytes(k, "little").translate(table), n, table))


def completed(getrandbits, faces: bytes, n: int, table: bytes) -> bytes:
    """The first n faces of a draw that had rejected bytes (0 in `faces`): those removed, and more
    bytes drawn (`getrandbits`) while fewer than n are left."""
    faces = faces.replace(b"\0", b"")
    while len(faces) < n:
        faces += getrandbits(n << 3).to_bytes(n, "little").translate(table).replace(b"\0", b"")
    return faces[:n]


def later_face(getrandbits, table: bytes) -> int:
    """The face of one die whose first draw (ONE_DIE) was rejected whole: RandomFaces.roll's next
    draws, one byte each, until one is not rejected."""
    while True:
        face = getrandbits(8).to_bytes(1, "little").translate(table)[0]
        if face:
            return face


_SEED = random.Random.__base__.seed   # the C seeding that random.Random.seed ends with


class RandomFaces:
    """Faces from a seeded MT19937; see the module docstring for the exact method."""

    __slots__ = ("seed", "_random", "getrandbits")

    def __init__(self, seed: int):
        self.seed = seed
        self._random = random.Random(seed)
        # the source's random bits: what ONE_DIE and roll_and_keep's d10s draw from, with no call of ours
        self.getrandbits = self._random.getrandbits

    def roll(self, n: int, die: Die) -> Sequence[int | Fraction]:
        if type(die) is not int:
            return [die[i - 1] for i in self.roll(n, len(die))]
        if die > 255:
            return [self._large(die) for _ in range(n)]
        table = _TABLES[die]
        # One C-level draw for all n dice: bytes -> faces, rejected bytes removed. (roll_and_keep
        # draws its d10s these same three lines, and the back end one die or a few (ONE_DIE,
        # few_dice) from the same bits: a change here is a change there.)
        k = n + (n >> 2) + 2
        faces = self.getrandbits(k << 3).to_bytes(k, "little").translate(table)
        return faces[:n] if 0 not in faces else completed(self.getrandbits, faces, n, table)

    def reseeded(self, seed: int) -> "RandomFaces":
        """This source seeded anew: the same faces as RandomFaces(seed) (random.Random's seeding of a
        whole number is its C base class's, and gauss_next cleared), without a new generator, which
        a batch would make for each run (a microsecond of a pbem run's 80)."""
        self.seed = seed
        _SEED(self._random, seed)
        self._random.gauss_next = None
        return self

    def drawn(self) -> bool:
        """Whether any face (any random bit) was drawn yet: an error before the first is the same for every seed."""
        return self._random.getstate() != random.Random(self.seed).getstate()

    def _large(self, sides: int) -> int:
        bits = (sides - 1).bit_length()
        draw = self._random.getrandbits
        while True:
            value = draw(bits)
            if value < sides:
                return value + 1


class GivenFaces:
    """Faces given by the user, consumed in order; `used` counts what has been consumed."""

    __slots__ = ("faces", "used")

    def __init__(self, faces: Sequence[int | Fraction]):
        self.faces = list(faces)
        self.used = 0

    def roll(self, n: int, die: Die) -> Sequence[int | Fraction]:
        start, end = self.used, self.used + n
        if end > len(self.faces):
            raise MechError(
                f"ran out of faces: this roll needs face number {len(self.faces) + 1}, "
                f"but only {len(self.faces)} {'was' if len(self.faces) == 1 else 'were'} given",
                hint="give more faces with --faces; they are used in the order dice fall: each roll's "
                     "dice left to right, then explosions and rerolls in rounds",
            )
        chunk = self.faces[start:end]
        for offset, face in enumerate(chunk):
            if not _can_show(die, face):
                raise MechError(
                    f"face {face} (given face number {start + offset + 1}) cannot come up on {describe_die(die)}",
                    hint="faces are given in the order the dice fall",
                )
        self.used = end
        return chunk


def _can_show(die: Die, face) -> bool:
    if type(die) is int:
        return type(face) is int and 1 <= face <= die
    return face in die
