"""Dice notation: one or more rows for every row of the design brief's "Dice notation" table
(shared/design/mechscript.md, normative), each with given faces and the exact total worked out by
hand; then the face source's errors and the error messages users read.

Faces are consumed in the order dice fall: all dice of a roll left to right, then the extra dice
(explosions, rerolls) in rounds, left to right; terms of an expression left to right.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import mechscript
from mechscript import Limits, MechError
from mechscript.dice.faces import GivenFaces

# (expr, faces, total): totals worked out by hand from the brief.
NOTATION = [
    # NdS, dS (N defaults to 1)
    ("3d6", [2, 5, 6], 13),
    ("d6", [4], 4),
    ("1d20", [20], 20),
    ("d100", [73], 73),
    # N and S parenthesised: the count's dice fall first, then the dice it counts
    ("(1d4)d6", [3, 1, 2, 6], 9),
    ("(1+1)d6", [3, 4], 7),
    ("2d(2*3)", [6, 1], 7),
    ("2d(1d4)", [3, 3, 2], 5),            # 1d4 -> 3, then 2d3: 3 + 2
    # d% is d100
    ("d%", [100], 100),
    ("2d%", [37, 64], 101),
    # dF: -1, 0, +1
    ("dF", [-1], -1),
    ("4dF", [-1, 0, 1, 1], 1),
    # custom faces
    ("d[1,1,2,3,5,8]", [5], 5),
    ("3d[1,1,2,3,5,8]", [1, 8, 2], 11),
    ("2d[0,10,100]", [100, 0], 100),
    # keep / drop: faces 3,1,6,5
    ("4d6kh3", [3, 1, 6, 5], 14),
    ("4d6k3", [3, 1, 6, 5], 14),
    ("4d6kl1", [3, 1, 6, 5], 1),
    ("4d6kl2", [3, 1, 6, 5], 4),
    ("4d6dh1", [3, 1, 6, 5], 9),
    ("4d6dl1", [3, 1, 6, 5], 14),
    ("2d20kh1", [7, 15], 15),          # advantage
    ("2d20kl1", [7, 15], 7),           # disadvantage
    # ! explode on the max face, repeatedly: 6 -> 6 -> 1
    ("3d6!", [6, 2, 3, 6, 1], 18),
    ("1d6!", [5], 5),
    # !>=N / !>N: round 1 draws for the 5 and the 6 (1, 5), round 2 for that new 5 (3)
    ("3d6!>=5", [5, 2, 6, 1, 5, 3], 22),
    ("2d6!>5", [6, 5, 2], 13),         # the 5 does not explode
    ("2d6!>4", [6, 5, 2, 3], 16),      # both explode
    # !! compounding: the extra rolls add into the same die
    ("2d6!!", [6, 3, 6, 4], 19),
    ("1d6!!>=5", [5, 5, 2], 12),
    ("1d6!!>5", [6, 5], 11),
    # !p penetrating: each extra die counts one less (6 -> 5, 3 -> 2)
    ("2d6!p", [6, 2, 6, 3], 15),
    # rN r<N r<=N: reroll while it matches (the replaced die does not count)
    ("3d6r1", [1, 4, 1, 1, 5, 2], 11),   # round 1: 1 -> 1, 1 -> 5; round 2: 1 -> 2
    ("2d6r<3", [2, 6, 1, 4], 10),
    ("2d6r<=2", [2, 6, 2, 3], 9),
    ("2d6r>5", [6, 1, 6, 2], 3),
    # roN ro<N: reroll once, keep the new face even if it matches
    ("2d6ro1", [1, 1, 1, 3], 4),
    ("2d6ro<3", [2, 5, 1], 6),
    ("2d6ro<=2", [2, 5, 2], 7),
    # miN maN
    ("3d6mi3", [1, 2, 5], 11),
    ("3d6ma4", [1, 5, 6], 9),
    ("3d6mi2ma5", [1, 6, 3], 10),
    # c>=N c>N c=N: count successes
    ("5d10c>=8", [8, 3, 10, 7, 9], 3),
    ("5d10c>8", [8, 3, 10, 7, 9], 2),
    ("5d10c=10", [8, 3, 10, 7, 9], 1),
    ("5d10c10", [8, 3, 10, 7, 9], 1),
    ("5d10c<4", [8, 3, 10, 7, 9], 1),
    # f after c: subtract failures
    ("5d10c>=8f1", [8, 1, 10, 1, 3], 0),
    ("5d10c>=8f<=3", [8, 1, 9, 2, 5], 0),
    ("6d10c>=8f1", [8, 2, 10, 7, 9, 5], 3),
    # modifiers chain left to right
    ("4d6r1kh3", [1, 4, 2, 6, 3], 13),     # 1 -> 3, then keep 6, 4, 3
    ("6d10!c>=8f1", [8, 1, 10, 7, 2, 9, 5], 2),  # the 10 explodes into a 5: 8, 10, 9 succeed; 1 fails
    ("4d6kh3mi2", [1, 1, 4, 6], 12),       # keep 6, 4, 1; the kept 1 counts as 2
    # XkY roll-and-keep (E01)
    ("7k3", [2, 3, 5, 6, 8, 9, 10, 4], 31),
    ("3k3", [10, 10, 1, 2, 3], 26),        # both 10s reroll in one round (2, 3): 12 + 13 + 1
    # arithmetic on totals
    ("2d6+3", [2, 5], 10),
    ("d6-1", [1], 0),
    ("2*d6", [4], 8),
    ("d6*d6", [3, 4], 12),
    ("d6/2", [3], Fraction(3, 2)),
    ("d6//2", [3], 1),
    ("d6%4", [6], 2),
    ("7/2", [], Fraction(7, 2)),
    ("8/2", [], 4),
    ("7//2", [], 3),
    ("-7//2", [], -4),
    ("7%3", [], 1),
    ("-7%3", [], 2),
    ("1+2*3", [], 7),
    ("(1+2)*3", [], 9),
    ("10-4-3", [], 3),
    ("2*(d6+1)", [5], 12),
    ("-d6", [4], -4),
    ("d4+d6+d8", [1, 2, 3], 6),
    # functions
    ("floor(7/2)", [], 3),
    ("floor(-7/2)", [], -4),
    ("ceil(7/2)", [], 4),
    ("ceil(-7/2)", [], -3),
    ("round(5/2)", [], 3),
    ("round(-5/2)", [], -3),
    ("round(7/3)", [], 2),
    ("abs(-3)", [], 3),
    ("abs(d6-4)", [1], 3),
    ("min(2d6, 8)", [6, 5], 8),
    ("max(d20, d20)", [3, 17], 17),
    ("min(3, 1, 2)", [], 1),
    ("floor(2.5 * 7)", [], 17),
    # comparisons give booleans
    ("d6 < 4", [3], True),
    ("d6 < 4", [4], False),
    ("d6 <= 4", [4], True),
    ("d6 > 4", [4], False),
    ("d6 >= 4", [4], True),
    ("d6 == 4", [4], True),
    ("d6 != 4", [4], False),
    ("2d6 + 3 > 10", [4, 4], True),
    ("7/2 == 3.5", [], True),
    # the space rule: with a space `>=` compares; without, it is the explode condition
    ("1d6! >= 4", [6, 2], True),       # 6 explodes (max face) into 2: 8 >= 4
    ("1d6! >= 4", [3], False),
    ("1d6!>=4", [4, 5, 1], 10),        # 4 explodes, 5 explodes, 1 stops
    ("1d6!>=4", [3], 3),
    ("1d6!>=4 > 3", [4, 1], True),     # explode on 4+, then compare: 5 > 3
]


def _id(row):
    expr, faces, _ = row
    return f"{expr} | {','.join(map(str, faces))}"


@pytest.mark.parametrize("expr, faces, total", NOTATION, ids=[_id(r) for r in NOTATION])
def test_notation_total(expr, faces, total):
    source = GivenFaces(faces)
    result = mechscript.compile_roll(expr).roll(source)
    assert result.total == total
    assert type(result.total) is type(total), f"{result.total!r} should be a {type(total).__name__}"
    assert source.used == len(faces), "every face is consumed"


@pytest.mark.parametrize("expr, faces, text", [
    ("4d6kh3", [3, 1, 6, 5], "4d6kh3: 3 (1) 6 5 = 14"),
    ("3d6!", [6, 2, 3, 6, 1], "3d6!: 6! 6! 1 2 3 = 18"),
    ("3d6r1", [1, 4, 1, 1, 5, 2], "3d6r1: 1r 1r 2 4 1r 5 = 11"),
    ("2d6!!", [6, 3, 6, 4], "2d6!!: 16!! 3 = 19"),
    ("2d6!p", [6, 2, 6, 3], "2d6!p: 6! 5!p 2p 2 = 15"),
    ("5d10c>=8f1", [8, 1, 10, 1, 3], "5d10c>=8f1: 8* 1f 10* 1f 3 = 0"),
    ("3d6mi3", [1, 2, 5], "3d6mi3: 3^ 3^ 5 = 11"),
    ("3d6ma4", [1, 5, 6], "3d6ma4: 1 4v 4v = 9"),
    ("3d6", [2, 5, 6], "3d6: 2 5 6 = 13"),
    ("2d6+3", [2, 5], "2d6 [2 5]+3 = 10"),         # the source as written, dice after each roll
    ("2d6 + 3", [2, 5], "2d6 [2 5] + 3 = 10"),
    ("d6/2", [3], "d6 [3]/2 = 3/2"),
    ("d6 < 4", [3], "d6 [3] < 4 = true"),
    ("4dF", [-1, 0, 1, 1], "4dF: -1 0 1 1 = 1"),
])
def test_notation_text(expr, faces, text):
    assert mechscript.roll(expr, faces=faces).text == text


def test_space_before_explode_hints_about_spaces():
    error = _error("3d6 !")
    assert "without a space" in error.hint
    assert error.span.col == 5


def test_exact_division():
    assert mechscript.roll("7/2", faces=[]).total == Fraction(7, 2)
    assert mechscript.roll("1/3 + 1/3 + 1/3", faces=[]).total == 1
    assert mechscript.roll("2/3 * 3", faces=[]).total == 2
    assert mechscript.roll("7//2", faces=[]).total == 3
    assert mechscript.roll("7/2", faces=[]).to_json()["total"] == 3.5


@pytest.mark.parametrize("expr, total, text", [
    ("1/2 + 1/2", 1, "1/2 + 1/2 = 1"),
    ("1/2 - 1/2", 0, "1/2 - 1/2 = 0"),
])
def test_whole_fraction_sum_is_an_int(expr, total, text):
    result = mechscript.roll(expr, faces=[])
    assert type(result.total) is int and result.total == total
    assert result.text == text
    assert result.to_json()["total"] == total and type(result.to_json()["total"]) is int


def test_die_not_name():
    """Anything that reads as a die is a die, never a name; `dodge`-like words are names."""
    assert mechscript.roll("d6+d6", faces=[1, 2]).total == 3
    with pytest.raises(MechError, match="unknown name `dodge`"):
        mechscript.roll("dodge", faces=[])


# ---------------------------------------------------------------------------------------------
# Face source errors
# ---------------------------------------------------------------------------------------------
def _error(expr, faces=None, limits=Limits(), seed=None) -> MechError:
    with pytest.raises(MechError) as info:
        mechscript.roll(expr, faces=faces, seed=0 if faces is None and seed is None else seed, limits=limits)
    return info.value


def _rendered_lines(error: MechError):
    text = error.render()
    assert "Traceback" not in text
    return text.splitlines()


def test_running_out_of_faces():
    error = _error("2d6 + 3d6", faces=[1, 2, 3, 4])
    head, line, caret, *rest = _rendered_lines(error)
    assert head.startswith("<expr>:1:7: ran out of faces")
    assert line == "  2d6 + 3d6"
    assert caret == "        ^~~"  # under the 3d6 that needed the fifth face
    assert any("hint:" in r for r in rest)


def test_running_out_of_faces_in_an_explosion():
    error = _error("1d6!", faces=[6])
    head, line, caret, *_ = _rendered_lines(error)
    assert "ran out of faces" in head
    assert caret.strip().startswith("^")


def test_running_out_of_faces_in_a_pool():
    error = _error("7k3", faces=[1, 2, 3])
    head, line, caret, *_ = _rendered_lines(error)
    assert head.startswith("<expr>:1:1: ran out of faces")
    assert caret == "  ^~~"


def test_face_the_die_cannot_show():
    error = _error("d4 + d6", faces=[2, 7])
    head, line, caret, *_ = _rendered_lines(error)
    assert head.startswith("<expr>:1:6: face 7 (given face number 2) cannot come up on a d6")
    assert caret == "       ^~"


@pytest.mark.parametrize("expr, faces, die", [
    ("d6", [7], "a d6"),
    ("d6", [0], "a d6"),
    ("dF", [2], "a dF"),
    ("d[1,2,3]", [4], "a d[1,2,3]"),
    ("7k3", [11, 1, 1, 1, 1, 1, 1], "a d10"),
    ("d6", [Fraction(7, 2)], "a d6"),
])
def test_impossible_faces(expr, faces, die):
    error = _error(expr, faces=faces)
    assert f"cannot come up on {die}" in error.message
    assert "^" in error.render()


# ---------------------------------------------------------------------------------------------
# Error messages
# ---------------------------------------------------------------------------------------------
def test_missing_sides():
    error = _error("3d")
    assert error.message == "a die needs a number of sides"
    assert "sides" in error.hint and "3d6" in error.hint
    head, line, caret, *_ = _rendered_lines(error)
    assert head.startswith("<expr>:1:")
    assert "^" in caret


def test_modifier_after_a_space_hints_about_spaces():
    error = _error("4d6 kh3")
    assert error.span.col == 5
    assert "space" in (error.hint or ""), error.render()


def test_unknown_name_did_you_mean():
    error = _error("flor(7/2)")
    assert "unknown function `flor`" in error.message
    assert error.hint == "did you mean `floor`?"
    assert _rendered_lines(error)[2] == "  ^~~~"
    error = _error("2 + ture")
    assert error.message == "unknown name `ture`"
    assert error.hint == "did you mean `true`?"
    assert _rendered_lines(error)[0].startswith("<expr>:1:5:")


def test_unknown_name_without_a_close_match():
    error = _error("xyzzy + 1")
    assert error.message == "unknown name `xyzzy`"


@pytest.mark.parametrize("expr, message", [
    ("floor(1, 2)", "`floor` takes 1 argument, not 2"),
    ("abs()", "`abs` takes 1 argument, not 0"),
    ("min()", "`min` takes at least 1 argument, not 0"),
    ("roll(7k3, 2k0)", "`roll` takes 1 argument, not 2"),
])
def test_wrong_arity(expr, message):
    error = _error(expr)
    assert error.message == message
    assert error.hint  # the function's usage
    assert "^" in error.render()


def test_unknown_option():
    error = _error("roll(7k3, explod: false)")
    assert error.message == "`roll` has no option `explod`"
    assert error.hint == "did you mean `explode`?"


@pytest.mark.parametrize("expr, col", [("1/0", 3), ("5//0", 4), ("5%0", 3), ("d6/(1-1)", 4)])
def test_division_by_zero(expr, col):
    error = _error(expr, faces=[3] if "d6" in expr else [])
    assert error.message == "division by zero"
    assert error.span.col == col
    assert "^" in _rendered_lines(error)[2]


# ---------------------------------------------------------------------------------------------
# Limits: exceeded -> a message naming the limit and how to raise it; Limits(...) raises it
# ---------------------------------------------------------------------------------------------
def _assert_limit_message(error: MechError, name: str):
    assert f"`{name}`" in error.message
    assert f"--limit {name}=N" in error.hint
    assert f"Limits({name}=N)" in error.hint
    assert "^" in error.render()


def test_limit_dice_per_roll():
    _assert_limit_message(_error("2000d6"), "dice_per_roll")
    result = mechscript.roll("2000d6", seed=1, limits=Limits(dice_per_roll=5000))
    assert 2000 <= result.total <= 12000
    assert mechscript.roll("1000d6", seed=1).total >= 1000  # the default limit is 1000


def test_limit_explosion_depth():
    faces = [6, 6, 6, 6, 2]  # four rounds of explosions
    _assert_limit_message(_error("d6!", faces=faces, limits=Limits(explosion_depth=3)), "explosion_depth")
    assert mechscript.roll("d6!", faces=faces, limits=Limits(explosion_depth=4)).total == 26


def test_limit_explosion_depth_in_a_pool():
    faces = [10, 10, 10, 10, 3]
    _assert_limit_message(_error("1k1", faces=faces, limits=Limits(explosion_depth=3)), "explosion_depth")
    assert mechscript.roll("1k1", faces=faces, limits=Limits(explosion_depth=4)).total == 43


def test_limit_rerolls():
    # rerolls have their own bound (issue 22, item 7): `explosion_depth` no longer stops them
    faces = [1, 1, 1, 4]
    _assert_limit_message(_error("d6r1", faces=faces, limits=Limits(rerolls=2)), "rerolls")
    assert mechscript.roll("d6r1", faces=faces, limits=Limits(rerolls=3)).total == 4
    assert mechscript.roll("d6r1", faces=faces, limits=Limits(explosion_depth=1)).total == 4
    _assert_limit_message(_error("d6!", faces=[6, 6, 6, 1], limits=Limits(explosion_depth=2)), "explosion_depth")


def test_a_die_rerolled_many_times_costs_work_in_proportion():
    # each round of rerolls built the roll's dice again, so a roll's work grew with its rounds
    # squared (`mech roll '1d20r<20' -n 20000`: 2.8 s of CPU, 1.5 s now); counted in list appends
    import sys
    appends = [0]

    def count(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") == "append":
            appends[0] += 1
    rounds = 900
    sys.setprofile(count)
    try:
        result = mechscript.roll("1d20r<20", faces=[1] * rounds + [20])
    finally:
        sys.setprofile(None)
    assert result.total == 20 and result.text.count("r") == rounds + 1  # the expression's `r`, and a mark a die
    assert appends[0] < 10 * rounds  # about 4 an extra die; over 800,000 before


def test_limit_total_dice():
    faces = [1, 2, 3, 4, 5, 6]
    _assert_limit_message(_error("3d6 + 3d6", faces=faces, limits=Limits(total_dice=5)), "total_dice")
    assert mechscript.roll("3d6 + 3d6", faces=faces, limits=Limits(total_dice=6)).total == 21


def test_limit_die_sides():
    _assert_limit_message(_error("d2000000"), "die_sides")
    assert mechscript.roll("d2000000", faces=[1999999], limits=Limits(die_sides=2_000_000)).total == 1999999


def test_limit_nesting():
    expr = "(" * 30 + "1" + ")" * 30
    _assert_limit_message(_error(expr, limits=Limits(nesting=10)), "nesting")
    assert mechscript.roll(expr, faces=[], limits=Limits(nesting=100)).total == 1


def test_limit_nesting_raised_deep():
    expr = "(" * 600 + "1" + ")" * 600
    try:
        total = mechscript.roll(expr, faces=[], limits=Limits(nesting=1000)).total
    except MechError:
        return  # a clear user error is acceptable too
    assert total == 1


def test_limit_nesting_default():
    expr = "(" * 300 + "1" + ")" * 300
    _assert_limit_message(_error(expr), "nesting")


def test_a_modifier_that_never_stops():
    error = _error("d1!")
    assert "never stop" in error.message


def test_the_condition_of_a_modifier_is_worked_out_once_for_each_die_and_stays_its_own():
    # engine.trigger_condition keeps what it works out by the modifier's id and the die: the same
    # modifier on another die has that die's highest face; one whose every face triggers is an
    # error each time it is asked; and at most TRIGGERS are kept
    from mechscript.dice import engine
    from mechscript.dice.notation import Condition, Modifier
    bang = Modifier("!", None, None)
    assert engine.trigger_condition(bang, 10) == Condition("=", 10)
    assert engine.trigger_condition(bang, 6) == Condition("=", 6)
    assert engine.trigger_condition(bang, 10) == Condition("=", 10)
    assert engine.trigger_condition(bang, (1, 3, 5)) == Condition("=", 5)
    for _ in range(2):
        with pytest.raises(MechError, match="never stop"):
            engine.trigger_condition(bang, 1)
    kept = [Modifier("!", None, Condition(">=", n + 2)) for n in range(engine.TRIGGERS + 10)]
    for modifier in kept:
        assert engine.trigger_condition(modifier, 10**6) is modifier.condition
    assert len(engine._triggers) <= engine.TRIGGERS
