"""The back end draws one plain die inline (faces.ONE_DIE, later_face): the very faces, in the same
order, that RandomFaces.roll(1, sides) gives, whatever other rolls come between."""

from __future__ import annotations

import pytest

from mechscript.dice.faces import ONE_DIE, RandomFaces, face_table, later_face


def inline_die(source: RandomFaces, sides: int) -> int:
    drawn = eval(ONE_DIE, {"BITS": source.getrandbits, "TABLE": face_table(sides)})
    return drawn[0] if drawn else later_face(source.getrandbits, face_table(sides))


# d129 rejects 127 bytes of 256: a first draw of three rejected bytes (1 in 8) takes later_face
@pytest.mark.parametrize("sides", [2, 6, 10, 20, 100, 129, 255])
def test_one_die_drawn_inline_is_the_face_sources_die(sides):
    for seed in range(200):
        given, inline = RandomFaces(seed), RandomFaces(seed)
        for turn in range(12):
            if turn % 4 == 3:   # a roll of several dice between: the sources stay in step
                assert inline.roll(3, 8) == given.roll(3, 8)
            assert inline_die(inline, sides) == given.roll(1, sides)[0], (sides, seed, turn)
