"""The command line as a new user types it (issue 21, item 2): `mech roll 1d20 + 5` unquoted,
`mech roll -` reading one expression a line, `mech sim` without -n, a negative seed, `mech --version`."""

from __future__ import annotations

import json
import subprocess

import pytest

import mechscript
from mechscript.dice.faces import RandomFaces

from support import MECH, mech_forked
from test_sim import DUEL_RULES, encounter


def mech(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([MECH, *args], input=input, capture_output=True, text=True, timeout=120)


# ---- the words of an expression ----

@pytest.mark.parametrize("words, faces, text", [
    (["1d20", "+", "5"], "12", "1d20 [12] + 5 = 17\n"),
    (["2d6", "-", "1"], "3,4", "2d6 [3 4] - 1 = 6\n"),
    (["1d20", "-5"], "12", "1d20 [12] -5 = 7\n"),          # `-5` is a word of the expression, not an option
    (["4d6kh3", "+", "2", "*", "3"], "3,1,6,5", "4d6kh3 [3 (1) 6 5] + 2 * 3 = 20\n"),
    (["1d20", "−", "5"], "12", "1d20 [12] − 5 = 7\n"),     # U+2212
])
def test_mech_roll_joins_its_words(tmp_path, words, faces, text):
    ran = mech_forked(["roll", *words, "--faces", faces], tmp_path)
    assert (ran.code, ran.out, ran.err) == (0, text, "")


def test_the_joined_words_are_the_expression_of_the_json(tmp_path):
    ran = mech_forked(["roll", "1d20", "+", "5", "--faces", "12", "--json"], tmp_path)
    assert json.loads(ran.out) == {"expr": "1d20 + 5", "total": 17, "text": "1d20 [12] + 5 = 17"}
    ran = mech_forked(["prob", "2d6", "+", "1", "--json"], tmp_path)
    data = json.loads(ran.out)
    assert data["expr"] == "2d6 + 1" and data["mean"] == 8 and data["exact"] is True


def test_options_may_follow_the_words(tmp_path):
    ran = mech_forked(["roll", "3d6", "+", "1", "-n", "2", "--seed", "7", "--json"], tmp_path)
    seeded = mechscript.roll_many("3d6 + 1", 2, seed=7)
    assert json.loads(ran.out)["totals"] == [r.total for r in seeded]


# ---- mech roll - ----

def test_roll_dash_reads_one_expression_a_line():
    ran = mech("roll", "-", "--seed", "5", input="d20\n\n# a comment line\n3d6 + 2\n  4d6kh3\n")
    assert (ran.returncode, ran.stderr) == (0, "")
    source = RandomFaces(5)  # one source for all the lines, in turn
    expected = [mechscript.compile_roll(expr).roll(source).text for expr in ("d20", "3d6 + 2", "4d6kh3")]
    assert ran.stdout.splitlines() == expected
    # its first line is `mech roll EXPR --seed S`'s
    assert expected[0] == mechscript.roll("d20", seed=5).text


def test_roll_dash_uses_the_given_faces_across_lines():
    ran = mech("roll", "-", "--faces", "3,5,6,2,9", input="d6\n2d6\n")
    assert (ran.returncode, ran.stdout) == (0, "d6: 3 = 3\n2d6: 5 6 = 11\n")
    assert ran.stderr == "note: 2 of the given faces were not used\n"


def test_roll_dash_json_is_one_document_a_line():
    ran = mech("roll", "-", "--faces", "3,5,6,1", "--json", "-n", "2", input="d6\n1d6 + 1\n")
    assert ran.returncode == 0
    assert [json.loads(line) for line in ran.stdout.splitlines()] == [
        {"expr": "d6", "totals": [3, 5], "texts": ["d6: 3 = 3", "d6: 5 = 5"]},
        {"expr": "1d6 + 1", "totals": [7, 2], "texts": ["1d6 [6] + 1 = 7", "1d6 [1] + 1 = 2"]},
    ]


def test_roll_dash_names_the_line_in_error_and_goes_on():
    ran = mech("roll", "-", "--faces", "4,6", input="d6\n  2d6 + foo\nd6\n")
    assert ran.returncode == 1
    assert ran.stdout == "d6: 4 = 4\nd6: 6 = 6\n"
    assert ran.stderr == ("<stdin>:2:9: unknown name `foo`\n"
                          "    2d6 + foo\n"
                          "          ^~~\n"
                          "  hint: did you mean `floor`?\n")
    assert "Traceback" not in ran.stderr


def test_roll_dash_says_the_notes_of_a_line():
    ran = mech("roll", "-", "--seed", "1", input="10d10>7\n")
    assert ran.returncode == 0 and ran.stderr.startswith("note: `10d10>7` compares the total with 7;")


# ---- mech sim without -n ----

def test_sim_fights_ten_thousand_times_by_default(tmp_path):
    script = encounter(tmp_path, "duel", DUEL_RULES)
    default = mech_forked(["sim", str(script), "--seed", "3", "--jobs", "1", "--json"], tmp_path)
    assert (default.code, default.err) == (0, "")
    assert json.loads(default.out)["runs"] == 10_000
    given = mech_forked(["sim", str(script), "-n", "10000", "--seed", "3", "--jobs", "1", "--json"], tmp_path)
    assert default.out == given.out
    assert "default 10,000" in mech_forked(["sim", "--help"], tmp_path).out


# ---- a negative seed ----

@pytest.mark.parametrize("argv", [
    ["roll", "3d6", "--seed", "-1"],
    ["prob", "3d6", "--samples", "10", "--seed", "-1"],
    ["run", "SCRIPT", "--seed", "-1"],
    ["sim", "SCRIPT", "-n", "5", "--seed", "-1"],
    ["repl", "--seed", "-1"],
])
def test_a_negative_seed_is_a_usage_error(tmp_path, argv):
    script = encounter(tmp_path, "duel", DUEL_RULES)
    ran = mech_forked([str(script) if word == "SCRIPT" else word for word in argv], tmp_path)
    assert (ran.code, ran.out) == (2, "")
    assert "a seed is a whole number of 0 or more, got '-1'" in ran.err and "Traceback" not in ran.err


def test_seed_zero_is_a_seed(tmp_path):
    ran = mech_forked(["roll", "3d6", "--seed", "0", "--json"], tmp_path)
    assert json.loads(ran.out)["total"] == mechscript.roll("3d6", seed=0).total


def test_the_repl_refuses_a_negative_seed_and_goes_on():
    ran = mech("repl", "--seed", "4", input=":seed -1\nd20\n")
    assert ran.returncode == 1
    assert ran.stderr == "a seed is a whole number of 0 or more, not `-1`\n  hint: :seed 7\n"
    assert ran.stdout == mechscript.roll("d20", seed=4).text + "\n"


# ---- the version ----

def test_version(tmp_path):
    ran = mech("--version")
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, f"mech {mechscript.__version__}\n", "")
