"""The back end draws one plain die inline (faces.ONE_DIE, later_face), and the total of a few
(faces.few_dice, later_total): the very faces, in the same order, that RandomFaces.roll gives,
whatever other rolls come between."""

from __future__ import annotations

import pytest

from mechscript.dice.faces import (FEW_DICE, ONE_DIE, RandomFaces, drawn_bits, face_table, few_dice, later_face,
                                  later_total)


def inline_die(source: RandomFaces, sides: int) -> int:
    return eval(ONE_DIE, {"DRAWN": source.getrandbits(24), "FACES": tuple(face_table(sides)),
                          "BITS": source.getrandbits, "TABLE": face_table(sides), "later_face": later_face})


# d129 rejects 127 bytes of 256: a first draw of three rejected bytes (1 in 8) takes later_face
@pytest.mark.parametrize("sides", [2, 6, 10, 20, 100, 129, 255])
def test_one_die_drawn_inline_is_the_face_sources_die(sides):
    for seed in range(200):
        given, inline = RandomFaces(seed), RandomFaces(seed)
        for turn in range(12):
            if turn % 4 == 3:   # a roll of several dice between: the sources stay in step
                assert inline.roll(3, 8) == given.roll(3, 8)
            assert inline_die(inline, sides) == given.roll(1, sides)[0], (sides, seed, turn)


def inline_total(source: RandomFaces, n: int, sides: int) -> int:
    text = few_dice(n, "DRAWN", "FACES", "TABLE", [f"f{i}" for i in range(n)])
    return eval(text, {"DRAWN": source.getrandbits(drawn_bits(n)), "FACES": tuple(face_table(sides)),
                       "BITS": source.getrandbits, "TABLE": face_table(sides), "later_total": later_total})


# d129 rejects half the bytes: a draw with a rejected byte among its first n (later_total) is common,
# and one with too few left (more bytes drawn) happens
@pytest.mark.parametrize("sides", [2, 6, 10, 100, 129, 255])
@pytest.mark.parametrize("n", range(2, FEW_DICE + 1))
def test_a_few_dice_drawn_inline_are_the_face_sources_dice(n, sides):
    for seed in range(200):
        given, inline = RandomFaces(seed), RandomFaces(seed)
        for turn in range(12):
            if turn % 4 == 3:
                assert inline.roll(3, 8) == given.roll(3, 8)
            assert inline_total(inline, n, sides) == sum(given.roll(n, sides)), (n, sides, seed, turn)


def test_a_source_seeded_anew_gives_the_faces_of_a_new_source():
    # a batch's written code draws each run from one source, reseeded (QuietFight.fight): the same
    # faces, and the same `drawn`, as RandomFaces(seed), whatever was drawn from it before
    source = RandomFaces(99)
    for seed in [0, 1, 7, 2**31 - 1, 2**32 + 5, 10**30, 1220045158]:
        source.roll(5, 10)
        source.roll(1, 300)   # a die of more than 255 sides: bits drawn one by one
        assert source.reseeded(seed) is source and source.seed == seed
        assert not source.drawn()
        new = RandomFaces(seed)
        assert [source.roll(4, 6), source.roll(1, 1000), source.getrandbits(40)] == \
            [new.roll(4, 6), new.roll(1, 1000), new.getrandbits(40)], seed
        assert source.drawn()
