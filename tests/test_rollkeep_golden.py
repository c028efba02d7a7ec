"""Golden tests for roll-and-keep `XkY`: the dice-only worked examples of rule text 000.

Sources: digest shared/rules/transformers-7thsea.md §2.3, §2.4, §5.1 (E01-E09) and §5.5; original
text shared/seeds/000_6706884ff34b4b73.txt lines 18-36. Every expected total and text below was
worked out by hand from those rules and from the display rules in mechscript/interpreter/show.py
(kept dice highest first, dropped dice in parentheses, the halved die as `v/2`, a pool whose
normalised form differs from what was written is labelled `WRITTEN as NORMALISED`).

Each example that is a roll goes through three routes: a GivenFaces face source, the Python API
`mechscript.roll(expr, faces=...)`, and the `mech roll ... --json` command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction as F

import pytest
from hypothesis import given, strategies as st

import mechscript
from mechscript.dice.faces import GivenFaces
from mechscript.dice.rollkeep import Pool, normalize, normalize_halves, pool_of
from mechscript.numbers import normal

MECH = os.path.join(os.path.dirname(sys.executable), "mech")
if not os.path.exists(MECH):  # pragma: no cover - fall back to PATH
    MECH = "mech"


def cli_args(expr: str, faces) -> list[str]:
    args = [MECH, "roll", "--json"]
    if faces is not None:
        args.append("--faces=" + ",".join(str(f) for f in faces))
    return args + ["--", expr]  # `--`: an expression such as -0k1 is not an option


def run_cli(calls) -> dict:
    """Run `mech roll ... --json` for each (expr, faces), all processes at once (they are slow to
    start); returns {(expr, faces): CompletedProcess-like (returncode, stdout, stderr)}."""
    procs = {}
    for expr, faces in calls:
        key = (expr, None if faces is None else tuple(faces))
        if key not in procs:
            procs[key] = subprocess.Popen(cli_args(expr, faces), stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True)
    results = {}
    for key, proc in procs.items():
        out, err = proc.communicate(timeout=60)
        results[key] = (proc.returncode, out, err)
    return results


_CLI_CALLS: list = []  # filled below, next to the tables that need the CLI
_cli_cache: dict = {}


def cli_json(expr: str, faces) -> dict:
    """The JSON printed by `mech roll EXPR --faces ... --json` (exit status 0, no traceback)."""
    key = (expr, None if faces is None else tuple(faces))
    if key not in _cli_cache:
        _cli_cache.update(run_cli(([] if _cli_cache else _CLI_CALLS) + [(expr, faces)]))
    code, out, err = _cli_cache[key]
    assert code == 0, err
    assert "Traceback" not in err
    return json.loads(out)


# ---------------------------------------------------------------------------------------------
# Rolls with given faces: (id, expr, faces, total, text)
#
# E01 (L22): 7k3, faces 2,3,5,6,8,9,10 and the 10 rerolls to 4 -> die values 2,3,5,6,8,9,14;
#            keep 14, 9, 8 -> 31.
# E02 (L26): 5k3 -2k0 = 3k3 (keep all three: 7+4+1 = 12); 5k3 -0k1 = 5k2 (keep 9, 7 = 16);
#            5k3 -3k0 = 2k3, which keeps both rolled dice (6+3 = 9; normalised 2k2).
# E05 (L30): 4.5k2.5 is rolled as 5 dice, keep 3, halve the lowest kept: faces 1,2,5,7,8 keep
#            8,7,5 and the 5 becomes floor(5/2) = 2 -> 17. The same faces as 5k3 -> 20.
#            2.5k2.5 + 2k0 (Tech Spec dice + Concentration 2) is the same pool 4.5k2.5 -> 17.
# E06 (L32): 12k5 rolls as 10k7: faces 9..1,1 keep 9+8+7+6+5+4+3 = 42.
# E07 (L32): 15k9 -> 10k14 -> 10k10 + 40: faces 9,9,8..1 sum 54, +40 = 94.
# E08 (L35): Intelligence 6 -> 3k3: faces 4,9,2 -> 15.
# E09 (L296): Luck 3.5 -> 3.5k3.5 rolls as 4k3.5: faces 6,3,8,5 keep all four, halve the 3 -> 1:
#            8+6+5+1 = 20.
# ---------------------------------------------------------------------------------------------
ROLLS = [
    ("E01", "7k3", [2, 3, 5, 6, 8, 9, 10, 4], 31, "7k3: 14 9 8 (6 5 3 2) = 31"),
    ("E01-order", "7k3", [10, 9, 8, 6, 5, 3, 2, 4], 31, "7k3: 14 9 8 (6 5 3 2) = 31"),
    ("E02a", "5k3 - 2k0", [4, 7, 1], 12, "5k3 - 2k0 as 3k3: 7 4 1 = 12"),
    ("E02b", "5k3 - 0k1", [4, 7, 1, 9, 2], 16, "5k3 - 0k1 as 5k2: 9 7 (4 2 1) = 16"),
    ("E02c", "5k3 - 3k0", [6, 3], 9, "5k3 - 3k0 as 2k2: 6 3 = 9"),
    # E03 (L28): 3.5k2.5 is treated as 4k2.5: roll 4, keep 3, halve the lowest kept (4 -> 2).
    ("E03", "3.5k2.5", [4, 9, 2, 6], 17, "3.5k2.5 as 4k2.5: 9 6 4/2 (2) = 17"),
    # E04 (L28): 5.5k3 loses the unkept half die: 5k3.
    ("E04", "5.5k3", [1, 2, 5, 7, 8], 20, "5.5k3 as 5k3: 8 7 5 (2 1) = 20"),
    ("E05-half", "4.5k2.5", [1, 2, 5, 7, 8], 17, "4.5k2.5 as 5k2.5: 8 7 5/2 (2 1) = 17"),
    ("E05-whole", "5k3", [1, 2, 5, 7, 8], 20, "5k3: 8 7 5 (2 1) = 20"),
    ("E05-sum", "2.5k2.5 + 2k0", [1, 2, 5, 7, 8], 17, "2.5k2.5 + 2k0 as 5k2.5: 8 7 5/2 (2 1) = 17"),
    ("E06", "12k5", [9, 8, 7, 6, 5, 4, 3, 2, 1, 1], 42, "12k5 as 10k7: 9 8 7 6 5 4 3 (2 1 1) = 42"),
    ("E07", "15k9", [9, 9, 8, 7, 6, 5, 4, 3, 2, 1], 94, "15k9 as 10k10+40: 9 9 8 7 6 5 4 3 2 1 = 94"),
    ("E08", "3k3", [4, 9, 2], 15, "3k3: 9 4 2 = 15"),
    ("E09", "3.5k3.5", [6, 3, 8, 5], 20, "3.5k3.5 as 4k3.5: 8 6 5 3/2 = 20"),
]

ROLL_IDS = [row[0] for row in ROLLS]
_CLI_CALLS += [(expr, faces) for _, expr, faces, _, _ in ROLLS]


@pytest.mark.parametrize("name, expr, faces, total, text", ROLLS, ids=ROLL_IDS)
def test_golden_roll_face_source(name, expr, faces, total, text):
    source = GivenFaces(faces)
    result = mechscript.compile_roll(expr).roll(source)
    assert result.total == total
    assert result.text == text
    assert source.used == len(faces), "every given face is consumed, no more"


@pytest.mark.parametrize("name, expr, faces, total, text", ROLLS, ids=ROLL_IDS)
def test_golden_roll_api(name, expr, faces, total, text):
    result = mechscript.roll(expr, faces=faces)
    assert (result.total, result.text) == (total, text)
    assert result.to_json() == {"expr": expr, "total": total, "text": text}


@pytest.mark.parametrize("name, expr, faces, total, text", ROLLS, ids=ROLL_IDS)
def test_golden_roll_cli(name, expr, faces, total, text):
    data = cli_json(expr, faces)
    assert data["expr"] == expr
    assert data["total"] == total
    assert data["text"] == text


def test_e01_keeps_the_exploded_die_whole():
    """E01: the 10 and its reroll 4 are one die worth 14 (10*n + last face), not two dice."""
    roll = mechscript.roll("7k3", faces=[2, 3, 5, 6, 8, 9, 10, 4]).rolls[0]
    assert roll.kept == [14, 9, 8]
    assert roll.dropped == [6, 5, 3, 2]


def test_e01_second_ten_keeps_exploding():
    """L22: "If he had rolled another 10, he would have added 10 and re-rolled": 10, 10, 4 -> 24."""
    result = mechscript.roll("7k3", faces=[2, 3, 5, 6, 8, 9, 10, 10, 4])
    assert result.total == 24 + 9 + 8
    assert result.text == "7k3: 24 9 8 (6 5 3 2) = 41"


def test_explosions_come_in_rounds_left_to_right():
    """Two 10s: both extra dice are drawn in round 1 (left to right), then the 10 among them in round 2."""
    # faces of 3k3: 10, 5, 10 | round 1: 10 (for die 1), 3 (for die 3) | round 2: 6 (for die 1)
    result = mechscript.roll("3k3", faces=[10, 5, 10, 10, 3, 6])
    assert result.total == 26 + 13 + 5
    assert result.text == "3k3: 26 13 5 = 44"


def test_e05_halving_a_halved_exploded_die():
    """Digest 2.4 [INFERRED]: halving an exploded die halves its whole value: 14 -> 7."""
    # 1.5k1.5 rolls 2, keeps 2, halves the lowest kept: faces 10, 9, then the 10 rerolls to 4:
    # kept 14 and 9; the 9 is the lowest kept -> 4; 14 + 4 = 18.
    assert mechscript.roll("1.5k1.5", faces=[10, 9, 4]).total == 18
    # 0.5k0.5 rolls 1 die and halves it: 10 then 4 -> 14 -> 7.
    assert mechscript.roll("0.5k0.5", faces=[10, 4]).total == 7


# ---------------------------------------------------------------------------------------------
# normalize(): E02-E09 and digest §5.5 without rolling
# ---------------------------------------------------------------------------------------------
NORMALIZE = [
    # id, unkept, kept, flat, (rolled, kept, flat, halve, auto_fail), notation
    ("E02 5k3-2k0", F(3), F(3), 0, (3, 3, 0, False, False), "3k3"),
    ("E02 5k3-0k1", F(5), F(2), 0, (5, 2, 0, False, False), "5k2"),
    ("E02 5k3-3k0", F(2), F(3), 0, (2, 2, 0, False, False), "2k2"),
    ("E03 3.5k2.5", F(7, 2), F(5, 2), 0, (4, 3, 0, True, False), "4k2.5"),
    ("E04 5.5k3", F(11, 2), F(3), 0, (5, 3, 0, False, False), "5k3"),
    ("E05 4.5k2.5", F(9, 2), F(5, 2), 0, (5, 3, 0, True, False), "5k2.5"),
    ("E06 12k5", F(12), F(5), 0, (10, 7, 0, False, False), "10k7"),
    ("E07 15k9", F(15), F(9), 0, (10, 10, 40, False, False), "10k10+40"),
    ("E08 3k3", F(3), F(3), 0, (3, 3, 0, False, False), "3k3"),
    ("E09 3.5k3.5", F(7, 2), F(7, 2), 0, (4, 4, 0, True, False), "4k3.5"),
    ("5.5 2.5k2.5", F(5, 2), F(5, 2), 0, (3, 3, 0, True, False), "3k2.5"),
    ("5.5 0.5k0.5", F(1, 2), F(1, 2), 0, (1, 1, 0, True, False), "1k0.5"),
    ("5.5 4.5k2", F(9, 2), F(2), 0, (4, 2, 0, False, False), "4k2"),
    ("5.5 0k2", F(0), F(2), 0, (0, 0, 0, False, True), "automatic failure"),
    ("5.5 3k-0.5", F(3), F(-1, 2), 0, (0, 0, 0, False, True), "automatic failure"),
    ("auto 3k0", F(3), F(0), 0, (0, 0, 0, False, True), "automatic failure"),
    ("auto -0k1", F(0), F(-1), 0, (0, 0, 0, False, True), "automatic failure"),
    # digest 2.3 step 2 [PROPOSAL]: 0.5k1 loses its only (half) unkept die -> 0k1 -> auto-fail
    ("2.3 0.5k1", F(1, 2), F(1), 0, (0, 0, 0, False, True), "automatic failure"),
    # flat bonus carried through; ten-dice rule adds to it
    ("flat 7k3+5", F(7), F(3), 5, (7, 3, 5, False, False), "7k3+5"),
    ("flat 15k9-3", F(15), F(9), -3, (10, 10, 37, False, False), "10k10+37"),
    # digest 2.3 step 3 [PROPOSAL]: a pending half kept die in the overflow counts +5 and is dropped
    ("2.3 10k10.5", F(10), F(21, 2), 0, (10, 10, 5, False, False), "10k10+5"),
    # digest 2.3 step 4 [PROPOSAL]: Kn > U with a half die: nothing is halved
    ("2.3 2k3.5", F(2), F(7, 2), 0, (2, 2, 0, False, False), "2k2"),
    # 12k5.5: halves first (K has .5 and U whole: U stays 12, Kn = 6), then 12 -> 10 and Kn 8
    ("2.3 12k5.5", F(12), F(11, 2), 0, (10, 8, 0, True, False), "10k7.5"),
]


@pytest.mark.parametrize("name, unkept, kept, flat, expected, notation", NORMALIZE,
                         ids=[row[0] for row in NORMALIZE])
def test_normalize(name, unkept, kept, flat, expected, notation):
    n = normalize(unkept, kept, flat)
    rolled, kept_dice, flat_out, halve, auto_fail = expected
    assert n.auto_fail is auto_fail
    if not auto_fail:
        assert (n.rolled, n.kept, n.flat, n.halve) == (rolled, kept_dice, flat_out, halve)
    assert n.notation == notation


# ---------------------------------------------------------------------------------------------
# Automatic failure (L24 "Any roll with either a unkept or kept dice of 0 or less automatically fails")
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("expr", ["0k2", "3k0", "-0k1", "5k3 - 5k0", "5k3 - 0k3", "3k3 - 3k3 + 4"])
def test_auto_fail_rolls_nothing(expr):
    source = GivenFaces([])  # no faces: nothing may be rolled
    result = mechscript.compile_roll(expr).roll(source)
    assert source.used == 0
    assert result.total == 0  # digest 2.5: "When a rule needs a margin, treat its total as 0"
    assert "automatic failure" in result.text


AUTO_FAIL_TEXTS = [
    ("0k2", "0k2: automatic failure"),
    ("3k0", "3k0: automatic failure"),
    ("-0k1", "-0k1: automatic failure"),
]
_CLI_CALLS += [(expr, None) for expr, _ in AUTO_FAIL_TEXTS]


@pytest.mark.parametrize("expr, text", AUTO_FAIL_TEXTS)
def test_auto_fail_text(expr, text):
    assert mechscript.roll(expr, faces=[]).text == text
    data = cli_json(expr, None)
    assert (data["total"], data["text"]) == (0, text)


@pytest.mark.parametrize("expr", [
    "0k2 > 5",
    "0k2 >= 0",      # its total is 0, but an automatic failure fails whatever the TN
    "0k2 > -100",
    "3k0 >= -1",
    "-0k1 > 0",
    "5 < 0k2",        # the roll on the right: it is still the roller's side that fails
    "-1 <= 3k0",
    "7k3 - 7k0 > 0",
    "7k3 + 2k0 - 0k3 > 0",
])
def test_comparisons_with_an_automatic_failure_are_false(expr):
    source = GivenFaces([])
    assert mechscript.compile_roll(expr).roll(source).total is False
    assert source.used == 0


@pytest.mark.parametrize("expr", ["0k2 < 5", "0k2 <= 0", "5 > 3k0", "0 >= -0k1"])
def test_comparisons_asking_for_failure_hold(expr):
    """The other direction: asking whether the roll came in under a number is true for an automatic
    failure (its total counts as 0, digest 2.5). Only "did it succeed" comparisons are forced false."""
    assert mechscript.roll(expr, faces=[]).total is True


# ---------------------------------------------------------------------------------------------
# Pool arithmetic (design brief: `XkY + AkB` is one pool, `- 0k1` removes a kept die, `+ 5` adds)
# ---------------------------------------------------------------------------------------------
E01_FACES = [2, 3, 5, 6, 8, 9, 10, 4]
_CLI_CALLS += [("7k3 + 2k0 > 25", [2, 3, 5, 6, 8, 9, 10, 1, 7, 4]), ("7k3 + 5", E01_FACES),
               ("roll(7k3, explode: false)", E01_FACES[:7])]


def test_pool_sum_then_compare():
    # 7k3 + 2k0 is one 9k3 roll: faces 2,3,5,6,8,9,10,1,7, the 10 rerolls to 4.
    # Kept 14, 9, 8 = 31; 31 > 25 is true, 31 > 31 is false.
    faces = [2, 3, 5, 6, 8, 9, 10, 1, 7, 4]
    hit = mechscript.roll("7k3 + 2k0 > 25", faces=faces)
    assert hit.total is True
    assert hit.text == "7k3 + 2k0 [as 9k3: 14 9 8 (7 6 5 3 2 1)] > 25 = true"
    assert mechscript.roll("7k3 + 2k0 > 31", faces=faces).total is False
    assert mechscript.roll("7k3 + 2k0", faces=faces).text == "7k3 + 2k0 as 9k3: 14 9 8 (7 6 5 3 2 1) = 31"
    data = cli_json("7k3 + 2k0 > 25", faces)
    assert data["total"] is True


def test_pool_plus_flat():
    faces = [2, 3, 5, 6, 8, 9, 10, 4]
    result = mechscript.roll("7k3 + 5", faces=faces)
    assert result.total == 36
    assert result.text == "7k3 + 5 as 7k3+5: 14 9 8 (6 5 3 2) = 36"
    assert mechscript.roll("5 + 7k3", faces=faces).total == 36
    assert mechscript.roll("7k3 - 5", faces=faces).total == 26
    assert cli_json("7k3 + 5", faces)["total"] == 36


def test_pool_arithmetic_chain():
    # 7k3 + 2k0 - 0k1 + 5 is one 9k2+5 roll (evaluator docstring and digest 2.1)
    faces = [2, 3, 5, 6, 8, 9, 10, 1, 7, 4]
    result = mechscript.roll("7k3 + 2k0 - 0k1 + 5", faces=faces)
    assert result.total == 14 + 9 + 5
    assert result.rolls[0].normalized.notation == "9k2+5"


def test_a_pool_takes_its_faces_where_it_is_written():
    """The contract: terms of an expression take faces left to right. `7k3 + d6`: the pool's seven
    faces (E01's, with its explosion) come first, the d6's after."""
    source = GivenFaces([2, 3, 5, 6, 8, 9, 10, 4, 4])
    result = mechscript.compile_roll("7k3 + d6").roll(source)
    assert result.total == 31 + 4
    assert source.used == 9
    assert result.text == "7k3 [14 9 8 (6 5 3 2)] + d6 [4] = 35"
    # a 10 first goes to the pool: its explosion takes the 8th face (9), the d6 the 9th (6)
    assert mechscript.roll("7k3 + d6", faces=[10, 4, 2, 3, 5, 6, 8, 9, 6]).total == 19 + 8 + 6 + 6


def test_dice_written_before_a_pool_fall_before_it():
    """`3d6 + 7k3`: the 3d6 falls first (1, 2, 3), then the pool, rolled as 7k3+6."""
    faces = [1, 2, 3, 2, 3, 5, 6, 8, 9, 10, 4]
    before = mechscript.roll("3d6 + 7k3", faces=faces)
    assert before.total == 37
    assert before.text == "3d6 [1 2 3] + 7k3 [as 7k3+6: 14 9 8 (6 5 3 2)] = 37"


def test_a_pool_is_rolled_whole_before_the_dice_after_it():
    """`7k3 + d6 + 2k0` is one 9k3 pool: its nine faces and its explosion (10 then 1) first, then
    the d6's."""
    faces = [2, 3, 5, 6, 8, 9, 10, 4, 1, 1, 6]
    assert mechscript.roll("7k3 + d6 + 2k0", faces=faces).total == 11 + 9 + 8 + 6


def test_pool_times_is_a_number():
    """`*` needs a number, so the pool is rolled there: (7k3) * 2 = 62."""
    assert mechscript.roll("7k3 * 2", faces=[2, 3, 5, 6, 8, 9, 10, 4]).total == 62


# ---------------------------------------------------------------------------------------------
# Exploding switched off: roll(7k3, explode: false) (Fatigued, L161: a 10 counts as 10)
# ---------------------------------------------------------------------------------------------
def test_no_explode_counts_ten_and_draws_no_extra_face():
    expr = "roll(7k3, explode: false)"
    faces = [2, 3, 5, 6, 8, 9, 10]
    source = GivenFaces(faces + [4])
    result = mechscript.compile_roll(expr).roll(source)
    assert result.total == 10 + 9 + 8
    assert source.used == 7, "no extra face is drawn for the 10"
    assert result.text == "roll(7k3 [10 9 8 (6 5 3 2)], explode: false) = 27"
    # exactly seven faces are enough
    assert mechscript.roll(expr, faces=faces).total == 27
    data = cli_json(expr, faces)
    assert (data["total"], data["text"]) == (27, "roll(7k3 [10 9 8 (6 5 3 2)], explode: false) = 27")


def test_explode_true_is_the_default():
    faces = [2, 3, 5, 6, 8, 9, 10, 4]
    assert mechscript.roll("roll(7k3, explode: true)", faces=faces).total == 31
    assert mechscript.roll("roll(7k3)", faces=faces).total == 31


def test_no_explode_on_a_sum_pool():
    # roll(7k3 + 2k0, explode: false): 9k3, 10 counts 10: keep 10, 9, 8 = 27
    result = mechscript.roll("roll(7k3 + 2k0, explode: false) > 26", faces=[2, 3, 5, 6, 8, 9, 10, 1, 7])
    assert result.total is True


def test_a_pool_keeps_whole_counts_as_whole_numbers_and_refuses_thirds():
    # whole dice counts are ints, so that pools of whole dice add up as ints; a half stays a Fraction
    from mechscript.errors import MechError
    summed = pool_of(F(5, 2), 3).combine(pool_of(F(1, 2), F(1, 2)), 1, None)
    assert (type(summed.unkept), type(summed.kept)) == (int, F) and summed == pool_of(3, F(7, 2))
    assert hash(pool_of(3, 3)) == hash(pool_of(F(3), F(3)))
    with pytest.raises(MechError, match="whole or half dice, not 1/3"):
        pool_of(2, F(1, 3))
    with pytest.raises(MechError, match="whole or half dice, not 7/3"):
        mechscript.run("say roll(pool(7/3, 2))", seed=1)


def test_a_pool_and_its_roll_are_made_with_no_python_call():
    # issue 17: transformers makes some 190 pools and 48 rolls a fight. With no `__init__`, `Pool()`
    # and `KeepRoll()` are Python's own making of an object, 23 ns less than object.__new__(Pool);
    # pool_of and roll_and_keep then set their slots
    from mechscript.dice.engine import Tally
    from mechscript.dice.faces import GivenFaces
    from mechscript.dice.rollkeep import KeepRoll, roll_and_keep
    from mechscript.limits import Limits
    assert Pool.__init__ is object.__init__ and KeepRoll.__init__ is object.__init__
    made = pool_of(F(7, 2), 2, 1)
    assert (type(made), made.unkept2, made.kept2, made.flat, made.span) == (Pool, 7, 4, 1, None)
    roll = roll_and_keep(GivenFaces([9, 3, 5, 2]), pool_of(4, 2, 1), Tally(Limits()))
    assert (roll.kept, roll.dropped, roll.halved, roll.total, roll.dice) == ([9, 5], [3, 2], None, 15, 4)
    failed = roll_and_keep(GivenFaces([]), pool_of(0, 0, 3), Tally(Limits()))
    assert (failed.kept, failed.dropped, failed.halved, failed.total, failed.dice) == ([], [], None, 0, 0)


# ---- Pool keeps its counts as half dice: the same numbers as Fraction arithmetic gives ----

halves = st.integers(-40, 40).map(lambda n: normal(F(n, 2)))


@given(halves, halves, halves, halves, st.integers(-5, 5), st.integers(-5, 5), st.sampled_from([1, -1]))
def test_pool_counts_add_as_numbers(u1, k1, u2, k2, f1, f2, sign):
    a, b = pool_of(u1, k1, f1), pool_of(u2, k2, f2)
    made = a.combine(b, sign, None)
    assert (made.unkept, made.kept, made.flat) == (normal(u1 + sign * u2), normal(k1 + sign * k2), f1 + sign * f2)
    assert all(type(x) is int or type(x) is F and x.denominator == 2 for x in (made.unkept, made.kept))
    assert (a.negated(None).unkept, a.negated(None).kept) == (normal(-u1), normal(-k1))
    assert a.plus(3, None) == pool_of(u1, k1, f1 + 3)
    assert (pool_of(u1, k1, f1) == pool_of(F(u1), F(k1), f1)) and hash(a) == hash(pool_of(F(u1), F(k1), f1))
    assert normalize_halves(a.unkept2, a.kept2, a.flat) == normalize(F(u1), F(k1), f1)
