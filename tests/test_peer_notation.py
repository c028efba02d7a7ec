"""The notation of other dice rollers (issue 21, item 1; README "Dice notation", "Coming from another
roller"): each spelling a synonym of a mechscript one, or a small addition with one meaning.

- golden rolls: given faces (in the order `--faces` gives them) and the total and breakdown
  worked out by hand, through the API and through `mech roll --faces`;
- synonyms: the same dice, the same total and the same exact odds as the mechscript spelling;
- exact odds of the additions: `mech prob` equals the distribution counted over every sequence of
  faces (each of the S**L sequences of L faces weighs 1/S**L; a roll uses a prefix of it);
- the one-line notes for the spellings that mean something else here, in `mech roll`, `mech prob`
  and the REPL, and no note where there is nothing to say.
"""

from __future__ import annotations

import itertools
import json
import subprocess
from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

import mechscript
from mechscript.dice.faces import GivenFaces
from mechscript.interpreter.show import dice_text

from support import MECH, mech_forked
from test_repl_terminal import mech_in_a_terminal

# (expr, faces, total, the breakdown `mech roll` prints): worked out by hand.
GOLDEN = [
    # without a count, keep or drop one (Roll20, Foundry)
    ("2d20kh", [7, 15], 15, "2d20kh: (7) 15 = 15"),
    ("2d20kl", [7, 15], 7, "2d20kl: 7 (15) = 7"),
    ("2d20k", [7, 15], 15, "2d20k: (7) 15 = 15"),
    ("4d6dh", [3, 1, 6, 5], 9, "4d6dh: 3 1 (6) 5 = 9"),
    ("4d6dl", [3, 1, 6, 5], 14, "4d6dl: 3 (1) 6 5 = 14"),
    # keep or drop by value (d20's selectors)
    ("4d6k>3", [3, 1, 6, 5], 11, "4d6k>3: (3) (1) 6 5 = 11"),
    ("4d6k>=3", [3, 1, 6, 5], 14, "4d6k>=3: 3 (1) 6 5 = 14"),
    ("4d6k<2", [3, 1, 6, 5], 1, "4d6k<2: (3) 1 (6) (5) = 1"),
    ("4d6d<3", [3, 1, 6, 5], 14, "4d6d<3: 3 (1) 6 5 = 14"),
    ("4d6d=6", [3, 1, 6, 5], 9, "4d6d=6: 3 1 (6) 5 = 9"),
    ("4d6d<3kh2", [2, 1, 6, 5], 11, "4d6d<3kh2: (2) (1) 6 5 = 11"),
    ("4d6d<3kl2", [2, 4, 6, 5], 9, "4d6d<3kl2: (2) 4 (6) 5 = 9"),
    ("4dFk>−1", [-1, 0, 1, 1], 2, "4dFk>−1: (-1) 0 1 1 = 2"),       # U+2212 in a condition
    # x explodes as `!` does; xo explodes once: the extra 6 does not explode again (Foundry)
    ("1d20x", [20, 20, 3], 43, "1d20x: 20! 20! 3 = 43"),
    ("3d6x>=5", [5, 2, 6, 1, 5, 3], 22, "3d6x>=5: 5! 1 2 6! 5! 3 = 22"),
    ("3d6xo", [6, 2, 6, 6, 4], 24, "3d6xo: 6! 6 2 6! 4 = 24"),
    ("2d6xo>=5", [5, 6, 5, 1], 17, "2d6xo>=5: 5! 5 6! 1 = 17"),
    # rr rerolls until (d20's `rr`, mechscript's `r`); ra: the first 1 adds one die and stays (d20)
    ("3d6rr1", [1, 4, 1, 1, 5, 2], 11, "3d6rr1: 1r 1r 2 4 1r 5 = 11"),
    ("3d6ra1", [1, 1, 4, 6], 12, "3d6ra1: 1! 6 1 4 = 12"),
    ("3d6ra6", [2, 3, 4], 9, "3d6ra6: 2 3 4 = 9"),
    # cs counts successes (`c`); cf counts failures on their own (Foundry)
    ("6d6cs>=5", [5, 6, 1, 2, 4, 5], 3, "6d6cs>=5: 5* 6* 1 2 4 5* = 3"),
    ("6d6cf<2", [1, 1, 3, 6, 2, 1], 3, "6d6cf<2: 1f 1f 3 6 2 1f = 3"),
    ("6d6cf1", [1, 1, 3, 6, 2, 1], 3, "6d6cf1: 1f 1f 3 6 2 1f = 3"),
    # d00 is d100
    ("d00", [100], 100, "d00: 100 = 100"),
    ("2d00", [100, 1], 101, "2d00: 100 1 = 101"),
    # U+2212 and the en dash are minus
    ("1d20 − 5", [12], 7, "1d20 [12] − 5 = 7"),
    ("1d20 – 5", [12], 7, "1d20 [12] – 5 = 7"),
    ("−(2d6)", [3, 4], -7, "−(2d6 [3 4]) = -7"),
    ("2d6kh1 – 1d4", [2, 5, 3], 2, "2d6kh1 [(2) 5] – 1d4 [3] = 2"),
]


@pytest.mark.parametrize("expr, faces, total, text", GOLDEN, ids=[row[0] for row in GOLDEN])
def test_golden_roll(expr, faces, total, text):
    result = mechscript.roll(expr, faces=faces)
    assert (result.total, result.text) == (total, text)
    assert result.faces_used == len(faces)  # every face given was a die of this roll


def test_golden_rolls_through_mech_roll_faces(tmp_path):
    for expr, faces, total, text in GOLDEN:
        ran = mech_forked(["roll", expr, "--faces=" + ",".join(map(str, faces)), "--json"], tmp_path)
        assert ran.code == 0, ran.err
        assert json.loads(ran.out) == {"expr": expr, "total": total, "text": text}
        assert ran.err == ""


# (another roller's spelling, mechscript's)
SYNONYMS = [
    ("2d20k", "2d20kh1"), ("2d20kh", "2d20kh1"), ("2d20kl", "2d20kl1"), ("4d6dh", "4d6dh1"), ("4d6dl", "4d6dl1"),
    ("4d6k3", "4d6kh3"), ("1d20x", "1d20!"), ("3d6x>=5", "3d6!>=5"), ("2d6x5", "2d6!5"), ("4d6rr1", "4d6r1"),
    ("4d6rr<3", "4d6r<3"), ("6d6cs>=5", "6d6c>=5"), ("6d10cs>=8f1", "6d10c>=8f1"), ("d00", "d100"),
    ("2d00", "2d100"), ("1d20 − 5", "1d20 - 5"), ("1d20 – 5", "1d20 - 5"), ("−3 + d6", "-3 + d6"),
    ("4d6mi−1", "4d6mi-1"), ("2d6xc>=5", "2d6!c>=5"),
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SYNONYMS), st.integers(0, 2**32 - 1))
def test_a_synonym_rolls_as_the_mechscript_spelling(pair, seed):
    peer, mech = (mechscript.roll(expr, seed=seed) for expr in pair)
    assert peer.total == mech.total
    assert [dice_text(roll) for roll in peer.rolls] == [dice_text(roll) for roll in mech.rolls]  # the same dice


@pytest.mark.parametrize("peer, mech", SYNONYMS, ids=[pair[0] for pair in SYNONYMS])
def test_a_synonym_has_the_exact_odds_of_the_mechscript_spelling(peer, mech):
    a, b = mechscript.prob(peer), mechscript.prob(mech)
    assert a.distribution == b.distribution and a.exact == b.exact and a.truncated == b.truncated


# (expr, sides of its die, faces a roll can use at most): odds counted over every sequence of faces
COUNTED = [
    ("2d20kl", 20, 2), ("2d20k", 20, 2), ("4d6dl", 6, 4), ("4d6dh", 6, 4),
    ("4d6k>3", 6, 4), ("4d6d<3", 6, 4), ("4d6d<3kh2", 6, 4), ("4d6d<3kl2", 6, 4), ("4d6kh3k>2", 6, 4),
    ("3d6d<3r=1", 6, 3), ("3d4d>2mi2", 4, 3), ("4d6k>3c>=5", 6, 4),
    ("2d6xo", 6, 4), ("2d6xo>=5c>=5", 6, 4), ("2d4xo>=3d<2", 4, 4), ("3d4ra1", 4, 4), ("3d6ra1c>=4", 6, 4),
    ("3d4ra>=3k>1", 4, 4),
    ("5d6cs>=5", 6, 5), ("5d6cf<2", 6, 5), ("5d6cf<=2", 6, 5), ("d00", 100, 1), ("4dFk>−1", None, 4),
]


def counted(expr: str, sides: int | None, length: int) -> dict:
    """The distribution of expr's total over every sequence of `length` faces."""
    faces = [-1, 0, 1] if sides is None else range(1, sides + 1)
    compiled = mechscript.compile_roll(expr)
    weights: dict = defaultdict(int)
    for sequence in itertools.product(faces, repeat=length):
        weights[compiled.total(GivenFaces(sequence))] += 1
    whole = len(faces) ** length
    return {total: Fraction(w, whole) for total, w in weights.items()}


@pytest.mark.parametrize("expr, sides, length", COUNTED, ids=[row[0] for row in COUNTED])
def test_exact_odds_of_a_new_form_are_counted_odds(expr, sides, length):
    result = mechscript.prob(expr)
    assert result.exact
    assert dict(result.distribution) == counted(expr, sides, length)


def test_exact_odds_through_mech_prob(tmp_path):
    ran = mech_forked(["prob", "3d6ra6", "--json"], tmp_path)
    data = json.loads(ran.out)
    assert data["exact"] is True
    # 3d6 (mean 10.5) and one more d6 (3.5) unless no 6 came up: 10.5 + (1 - (5/6)**3) * 3.5
    assert data["mean"] == pytest.approx(10.5 + (1 - (5 / 6) ** 3) * 3.5, abs=1e-12)


def test_cf_stands_alone():
    with pytest.raises(mechscript.MechError) as caught:
        mechscript.roll("6d6c>=5cf1", seed=1)
    assert caught.value.message == "`cf1` counts failures on their own, not with successes"
    assert "`6d10c>=8f1`" in caught.value.hint
    assert (caught.value.span.col, caught.value.span.end - caught.value.span.start) == (8, 3)


def test_an_error_names_the_spelling_as_written():
    with pytest.raises(mechscript.MechError) as caught:
        mechscript.roll("1d6x>=1", seed=1)
    assert caught.value.message.startswith("`x>=1` explodes on every face of a d6")


def test_new_forms_inside_a_script(tmp_path):
    script = tmp_path / "peers.mech"
    script.write_text(
        "let hp = 10\n"
        "hp −= 2d20kl\n"                            # U+2212 in an augmented assignment
        "say hp\n"
        "say 4d6k>3 + 3d6xo + 3d6ra1 + d00\n"
        "say 6d6cs>=5 – 6d6cf<2\n"                  # an en dash between two counts
        'say prob(2d20kh >= 15)\n'
        "fn worse(x) = x − 1\n"
        "say worse(d00)\n", encoding="utf-8")
    faces = [7, 15, 3, 1, 6, 5, 6, 2, 6, 6, 4, 1, 1, 4, 6, 37, 5, 6, 1, 2, 4, 5, 1, 1, 3, 6, 2, 1, 100]
    ran = mech_forked(["run", str(script), "--faces", ",".join(map(str, faces)), "--json"], tmp_path)
    assert ran.code == 0, ran.err
    # 10 - 7; 11 + 24 + 12 + 37 (as the golden rolls); 3 - 3; P(the higher of 2d20 >= 15) = 1 - (14/20)**2; 100 - 1
    assert json.loads(ran.out)["log"] == ["3", "84", "0", "51/100", "99"]
    assert mech_forked(["check", str(script)], tmp_path).out == f"{script}: ok\n"


# ---- notes for the spellings that mean something else here ----

SUCCESS_NOTE = ("note: `10d10>7` compares the total with 7; to count the dice of 7 or more (Roll20's success "
                "count), write `10d10c>=7`\n")
EXPLODE_NOTE = "note: `!>4` explodes on faces above 4; Roll20's `!>4` (4 or more) is `!>=4`\n"


def test_mech_roll_notes_a_roll20_success_count(tmp_path):
    ran = mech_forked(["roll", "10d10>7", "--faces", "7,8,1,2,3,4,5,6,9,10", "--json"], tmp_path)
    assert ran.code == 0
    assert json.loads(ran.out)["total"] is True  # as mechscript reads it: the total, 55, is above 7
    assert ran.err == SUCCESS_NOTE


def test_mech_roll_notes_a_roll20_compare_point(tmp_path):
    ran = mech_forked(["roll", "3d6!>4", "--faces", "4,5,2,1"], tmp_path)
    assert (ran.code, ran.out, ran.err) == (0, "3d6!>4: 4 5! 1 2 = 12\n", EXPLODE_NOTE)


def test_the_notes_name_the_less_than_forms(tmp_path):
    ran = mech_forked(["roll", "[6d10<3, 2d6!!<2]", "--seed", "1"], tmp_path)
    assert ran.err == ("note: `6d10<3` compares the total with 3; to count the dice of 3 or less (Roll20's "
                       "success count), write `6d10c<=3`\n"
                       "note: `!!<2` explodes on faces below 2; Roll20's `!!<2` (2 or less) is `!!<=2`\n")


def test_mech_prob_notes_too(tmp_path):
    ran = mech_forked(["prob", "10d10>7"], tmp_path)
    assert ran.code == 0 and ran.out.startswith("10d10>7: exact\nP(true) = 1 ")
    assert ran.err == SUCCESS_NOTE


@pytest.mark.parametrize("expr", ["10d10 > 7", "1d20 >= 15", "10d10c>=7", "3d6!>=4", "3d6!", "2d6 + 3 > 7",
                                  "3d6r<2", "(2d6)>7"])
def test_no_note_for_what_means_the_same(tmp_path, expr):
    ran = mech_forked(["roll", expr, "--seed", "1"], tmp_path)
    assert ran.code == 0 and ran.err == ""


def test_the_repl_notes_on_standard_error_from_a_pipe():
    ran = subprocess.run([MECH, "repl", "--seed", "1"], input="10d10>7\nlet a = 3d6!>4\n:prob 10d10>7\n1d20 > 7\n",
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0  # a note is no error
    assert ran.stderr == SUCCESS_NOTE + EXPLODE_NOTE + SUCCESS_NOTE
    first, *_ = ran.stdout.splitlines()
    assert first == mechscript.roll("10d10>7", seed=1).text


def test_the_repl_notes_in_a_terminal(tmp_path):
    with mech_in_a_terminal(tmp_path) as (child, screen):
        child.send("3d6!>4\r")
        lines = screen.wait_for(EXPLODE_NOTE.strip(), "3d6!>4: ")
        at = lines.index(EXPLODE_NOTE.strip())
        assert lines[at - 1] == "mech> 3d6!>4" and lines[at + 1].startswith("3d6!>4: ")
        # the next prompt drawn whole, its toolbar too, before Ctrl-D (a key sent earlier may be lost)
        screen.wait_until(lambda lines: lines[-1].startswith(" seed"), "the toolbar of the next prompt")
        child.sendcontrol("d")
        screen.wait_for_exit()
    assert child.exitstatus == 0
