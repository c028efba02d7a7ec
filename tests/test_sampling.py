"""Sampling (`CompiledRoll.total`, used for many rolls) takes shortcuts: keep/drop as a slice of the
sorted dice, success counting as a table of each face's worth, a lone dice term without any
evaluation state. From the same faces it must give exactly the total the full engine gives."""

from hypothesis import given, settings, strategies as st

import mechscript
from mechscript.dice.faces import RandomFaces

modifier = st.sampled_from(["kh2", "kl2", "dh1", "dl1", "k3", "kh9", "dl9", "c>=4", "c<3", "c=6", "c>=2f1",
                            "c>5f<=2", "!", "r1", "mi2", "ma5", "ro<2", "!!", "!p"])


@settings(max_examples=300, deadline=None)
@given(count=st.integers(0, 12), sides=st.sampled_from([2, 4, 6, 10, 20, 100, 300]),
       modifiers=st.lists(modifier, max_size=3), tail=st.sampled_from(["", " + 2", " > 10", " * 2"]),
       seed=st.integers(0, 2**32))
def test_sampling_gives_the_total_of_the_full_engine(count, sides, modifiers, tail, seed):
    expr = f"{count}d{sides}{''.join(modifiers)}{tail}"
    try:
        shown = mechscript.compile_roll(expr).roll(RandomFaces(seed)).total
    except mechscript.MechError:
        return  # e.g. `d2!` explodes on every face; sampling raises the same (checked below)
    assert mechscript.compile_roll(expr).total(RandomFaces(seed)) == shown


def test_sampling_raises_what_the_full_engine_raises():
    for expr in ("3d6f1", "d1!"):
        for run in (lambda c: c.total(RandomFaces(1)), lambda c: c.roll(RandomFaces(1))):
            try:
                run(mechscript.compile_roll(expr))
            except mechscript.MechError as error:
                assert error.span is not None
            else:
                raise AssertionError(f"{expr} should be an error")


def test_a_lone_term_out_of_faces_is_located():
    from mechscript.dice.faces import GivenFaces
    try:
        mechscript.compile_roll("4d6kh3").total(GivenFaces([1, 2]))
    except mechscript.MechError as error:
        assert "ran out of faces" in error.message
        assert (error.span.line, error.span.col) == (1, 1)
        assert "^" in error.render()
    else:
        raise AssertionError("expected an error")
