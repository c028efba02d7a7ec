"""End-to-end tests of `mech roll` as a user runs it: the real console script in a subprocess.

The contract (shared/design/mechscript.md, "Command line and API contract"): text output; JSON
`{expr, total, text}` and with -n `{expr, totals}`; the same seed gives the same output in every
process; exit 0 success, 1 an error in the expression (`<expr>:LINE:COL: message`, the line, a caret,
a hint, never a traceback), 2 a usage error.

Starting `mech` takes a while (Python + the grammar), so every command of this module is started
at once, in parallel, the first time any test needs one; each test then checks its own result.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from pathlib import Path

import pytest

import mechscript
from support import MECH


E01 = "2,3,5,6,8,9,10,4"

# Every command this module runs: name -> argv (after `mech`, or a full argv for python -m).
COMMANDS = {
    "text": ["roll", "7k3", "--faces", E01],
    "text_sum": ["roll", "2d6 + 3", "--faces", "2,5"],
    "json": ["roll", "7k3", "--faces", E01, "--json"],
    "json_bool": ["roll", "d6 > 3", "--faces", "5", "--json"],
    "json_fraction": ["roll", "7/2", "--json"],
    "json_n": ["roll", "3d6", "-n", "4", "--seed", "7", "--json"],
    "json_n_faces": ["roll", "d6", "-n", "3", "--faces", "4,1,6", "--json"],
    "text_n": ["roll", "3d6", "-n", "5", "--seed", "7"],
    "text_n_faces": ["roll", "d6", "-n", "3", "--faces", "4,1,6"],
    "seed_a1": ["roll", "10d6 + 7k3", "--seed", "12345", "--json"],
    "seed_a2": ["roll", "10d6 + 7k3", "--seed", "12345", "--json"],
    "seed_b": ["roll", "10d6 + 7k3", "--seed", "54321", "--json"],
    "fudge": ["roll", "4dF", "--faces=-1,0,1,1", "--json"],
    "negative_expr": ["roll", "--json", "--", "-0k1"],
    "negative_expr_bare": ["roll", "-0k1", "--json"],
    "err_name": ["roll", "2d6 + foo"],
    "err_sides": ["roll", "3d"],
    "err_faces_out": ["roll", "7k3", "--faces", "1,2,3"],
    "err_face_bad": ["roll", "d4 + d6", "--faces", "2,7"],
    "err_div": ["roll", "d6 / (2 - 2)", "--faces", "3"],
    "usage_faces": ["roll", "3d6", "--faces", "a,b"],
    "usage_limit_name": ["roll", "3d6", "--limit", "dice=5"],
    "usage_limit_value": ["roll", "3d6", "--limit", "dice_per_roll=many"],
    "usage_missing": ["roll"],
    "usage_n": ["roll", "3d6", "-n", "0"],
    "usage_seed": ["roll", "3d6", "--seed", "abc"],
    "usage_command": ["frobnicate"],
    "usage_options_first": ["--seed", "1", "roll", "3d6", "-n", "2"],
    "limit_default": ["roll", "2000d6", "--seed", "1"],
    "limit_raised": ["roll", "2000d6", "--seed", "1", "--limit", "dice_per_roll=5000", "--json"],
    "limit_lowered": ["roll", "6d6", "--seed", "1", "--limit", "dice_per_roll=5"],
    "help": ["roll", "--help"],
    "module": [sys.executable, "-m", "mechscript", "roll", "d6", "--seed", "1"],
    "script_same": ["roll", "d6", "--seed", "1"],
}


class Ran:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def json(self):
        assert self.code == 0, self.err
        return json.loads(self.out)


_results: dict[str, Ran] = {}


def mech(name: str) -> Ran:
    """The result of COMMANDS[name]; the first call runs all of them in parallel."""
    if not _results:
        procs = {}
        for key, argv in COMMANDS.items():
            full = argv if argv[0] == sys.executable else [MECH, *argv]
            procs[key] = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          env={k: v for k, v in os.environ.items() if k != "MECH_DEBUG"})
        for key, proc in procs.items():
            out, err = proc.communicate(timeout=120)
            _results[key] = Ran(proc.returncode, out, err)
    return _results[name]


# ---------------------------------------------------------------------------------------------
# Success
# ---------------------------------------------------------------------------------------------
def test_text_output():
    ran = mech("text")
    assert ran.code == 0
    assert ran.out == "7k3: 14 9 8 (6 5 3 2) = 31\n"
    assert ran.err == ""
    assert mech("text_sum").out == "2d6 [2 5] + 3 = 10\n"


def test_json_roll_shape():
    data = mech("json").json()
    assert {"expr", "total", "text"} <= set(data)
    assert data["expr"] == "7k3"
    assert data["total"] == 31 and type(data["total"]) is int
    assert data["text"] == "7k3: 14 9 8 (6 5 3 2) = 31"


def test_json_total_is_a_bool_for_a_comparison():
    data = mech("json_bool").json()
    assert data["total"] is True
    assert data["text"] == "d6 [5] > 3 = true"


def test_json_total_of_an_exact_fraction_is_a_number():
    data = mech("json_fraction").json()
    assert data["total"] == 3.5
    assert data["text"] == "7/2 = 7/2"


def test_json_many_shape():
    data = mech("json_n").json()
    assert {"expr", "totals"} <= set(data)
    assert data["expr"] == "3d6"
    assert len(data["totals"]) == 4
    assert all(type(t) is int and 3 <= t <= 18 for t in data["totals"])


def test_json_many_with_faces_uses_them_in_turn():
    data = mech("json_n_faces").json()
    assert data["totals"] == [4, 1, 6]


def test_n_prints_one_line_per_roll():
    lines = mech("text_n").out.splitlines()
    assert len(lines) == 5
    assert all(re.fullmatch(r"3d6: [1-6] [1-6] [1-6] = \d+", line) for line in lines), lines
    assert mech("text_n_faces").out == "d6: 4 = 4\nd6: 1 = 1\nd6: 6 = 6\n"


def test_n_totals_match_the_text_lines():
    """-n 5 --seed 7 as text and -n 4 --seed 7 as JSON: the same stream of rolls."""
    text_totals = [int(line.rsplit("= ", 1)[1]) for line in mech("text_n").out.splitlines()]
    assert text_totals[:4] == mech("json_n").json()["totals"]


def test_seed_is_deterministic_across_processes():
    a1, a2, b = mech("seed_a1"), mech("seed_a2"), mech("seed_b")
    assert a1.out == a2.out
    assert a1.json()["text"] == a2.json()["text"]
    # a different seed gives a different roll (10d6 + an exploding 7k3: a tie would be a fluke)
    assert a1.json()["text"] != b.json()["text"]


def test_seed_matches_the_python_api():
    data = mech("seed_a1").json()
    result = mechscript.roll("10d6 + 7k3", seed=12345)
    assert (data["total"], data["text"]) == (result.total, result.text)


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("call", [
    lambda seed: mechscript.roll("3d6", seed=seed),
    lambda seed: mechscript.run("say d6", seed=seed),
    lambda seed: mechscript.simulate(str(EXAMPLES / "pbem_ambush.mech"), 2, seed=seed),
])
@pytest.mark.parametrize("seed", [-1, 2.5, True])
def test_the_python_api_refuses_the_seeds_the_cli_refuses(call, seed):
    # as `--seed`: the generator would roll -1 as 1
    with pytest.raises(ValueError, match="a seed is a whole number of 0 or more"):
        call(seed)


def test_fudge_faces_with_negative_numbers():
    data = mech("fudge").json()
    assert (data["total"], data["text"]) == (1, "4dF: -1 0 1 1 = 1")


def test_expression_starting_with_minus_after_double_dash():
    data = mech("negative_expr").json()
    assert (data["total"], data["text"]) == (0, "-0k1: automatic failure")


def test_expression_starting_with_minus():
    ran = mech("negative_expr_bare")
    assert ran.code == 0, ran.err
    assert ran.json()["text"] == "-0k1: automatic failure"


def test_module_entry_point():
    ran = mech("module")
    assert ran.code == 0, ran.err
    assert re.fullmatch(r"d6: [1-6] = [1-6]\n", ran.out)
    assert ran.out == mech("script_same").out
    assert ran.out == mechscript.roll("d6", seed=1).text + "\n"


def test_help_lists_the_options():
    ran = mech("help")
    assert ran.code == 0
    for option in ("EXPR", "-n N", "--seed", "--faces", "--json", "--limit"):
        assert option in ran.out, option


# ---------------------------------------------------------------------------------------------
# Errors in the expression: exit 1, `<expr>:1:COL: message`, the line, a caret, no traceback
# ---------------------------------------------------------------------------------------------
def _expression_error(name: str) -> list[str]:
    ran = mech(name)
    assert ran.code == 1, (ran.code, ran.err)
    assert ran.out == ""
    assert "Traceback" not in ran.err
    assert "internal error" not in ran.err
    return ran.err.splitlines()


def test_error_unknown_name():
    head, line, caret, *rest = _expression_error("err_name")
    assert head == "<expr>:1:7: unknown name `foo`"
    assert line == "  2d6 + foo"
    assert caret == "        ^~~"


def test_error_missing_sides():
    head, line, caret, hint = _expression_error("err_sides")
    assert re.match(r"<expr>:1:\d+: a die needs a number of sides$", head)
    assert line == "  3d"
    assert caret.strip() == "^"
    assert hint.strip().startswith("hint:") and "sides" in hint


def test_error_out_of_faces():
    head, line, caret, hint = _expression_error("err_faces_out")
    assert head.startswith("<expr>:1:1: ran out of faces")
    assert (line, caret) == ("  7k3", "  ^~~")
    assert hint.strip().startswith("hint:")


def test_error_impossible_face():
    head, line, caret, *_ = _expression_error("err_face_bad")
    assert head == "<expr>:1:6: face 7 (given face number 2) cannot come up on a d6"
    assert caret == "       ^~"


def test_error_division_by_zero():
    head, line, caret, *_ = _expression_error("err_div")
    assert head == "<expr>:1:6: division by zero"
    assert line == "  d6 / (2 - 2)"
    assert caret == "       ^~~~~~~"


# ---------------------------------------------------------------------------------------------
# Usage errors: exit 2, no traceback
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, words", [
    ("usage_faces", "--faces"),
    ("usage_limit_name", "unknown limit 'dice'"),
    ("usage_limit_value", "NAME=N"),
    ("usage_missing", "EXPR"),
    ("usage_n", "-n"),
    ("usage_seed", "--seed"),
    ("usage_command", "frobnicate"),
])
def test_usage_errors(name, words):
    ran = mech(name)
    assert ran.code == 2, (ran.code, ran.err)
    assert ran.out == ""
    assert "Traceback" not in ran.err
    assert words in ran.err
    assert "usage:" in ran.err


def test_options_before_the_command_are_shown_after_it():
    ran = mech("usage_options_first")
    assert (ran.code, ran.out) == (2, "")
    assert ran.err.endswith("mech: error: --seed 1: a command's options go after it: mech roll 3d6 -n 2 --seed 1\n")


def test_unknown_limit_lists_the_limits():
    err = mech("usage_limit_name").err
    for name in mechscript.Limits.names():
        assert name in err


# ---------------------------------------------------------------------------------------------
# Limits on the command line
# ---------------------------------------------------------------------------------------------
def test_limit_exceeded_by_default():
    head, line, caret, hint = _expression_error("limit_default")
    assert head == "<expr>:1:1: 2000 dice in one roll is too many; the limit `dice_per_roll` is 1000"
    assert "--limit dice_per_roll=N" in hint


def test_limit_raised_lets_the_roll_through():
    data = mech("limit_raised").json()
    assert 2000 <= data["total"] <= 12000
    assert data["total"] == mechscript.roll("2000d6", seed=1, limits=mechscript.Limits(dice_per_roll=5000)).total


def test_limit_lowered():
    head, *_ = _expression_error("limit_lowered")
    assert "the limit `dice_per_roll` is 5" in head
