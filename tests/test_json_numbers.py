"""Numbers in `--json` output (issue 22, item 6, the table's row "`mech prob 10^309 --json`: internal
error (exit 3): OverflowError converting the mean to a float").

README, "Numbers in JSON": a whole number is a JSON integer with all its digits; a fraction is a
float when it lies in a float's normal range, else exactly the string "NUM/DEN". Each command's
`--json` is fuzzed here with huge and tiny numbers: it must exit 0 with strict JSON (no Infinity or
NaN), and the numbers whose exact value is known must read back as it: exactly, or, as floats, to a
float's precision.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from support import mech_forked

FLOAT_EPSILON = Fraction(2) ** -52


def strict_json(text: str):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def assert_means(written, exact: Fraction) -> None:
    """`written` (a JSON value) stands for `exact` as the README says."""
    if type(written) is float:
        assert exact == 0 or sys.float_info.min <= abs(exact) <= sys.float_info.max, (written, exact)
        assert abs(Fraction(written) - exact) <= abs(exact) * FLOAT_EPSILON, (written, exact)
    else:
        assert type(written) in (int, str), written
        assert type(written) is str or exact.denominator == 1, (written, exact)  # a fraction is never an int
        assert Fraction(written) == exact, (written, exact)


def text_of(x: Fraction) -> str:
    """x written in mechscript: a whole number, or `(NUM/DEN)`."""
    return str(x.numerator) if x.denominator == 1 else f"({x.numerator}/{x.denominator})"


# numbers from tiny to huge: a power of ten, times a few digits, over a few digits, either sign
NUMBERS = st.builds(lambda sign, power, top, bottom: sign * Fraction(top, bottom) * Fraction(10) ** power,
                    st.sampled_from([1, -1]), st.integers(-990, 990) | st.sampled_from([-309, -308, 308, 309]),
                    st.integers(1, 999), st.integers(1, 999))
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def run_json(argv: list[str], cwd):
    ran = mech_forked([*argv, "--json"], cwd)
    assert ran.code == 0, ran
    return strict_json(ran.out)


def test_the_issues_case(tmp_path):
    data = run_json(["prob", str(10 ** 309)], tmp_path)
    assert data["mean"] == 10 ** 309 and data["distribution"] == [[10 ** 309, 1.0]] and data["sd"] == 0.0
    tiny = run_json(["prob", f"d6 > 5 + 1/{10 ** 400}"], tmp_path)
    assert tiny["probability"] == tiny["distribution"][1][1] == 1 / 6


@FUZZ
@given(x=NUMBERS)
def test_prob(x, tmp_path):
    data = run_json(["prob", f"d2 * {text_of(x)}"], tmp_path)
    for (outcome, chance), face in zip(data["distribution"], sorted([x, 2 * x])):
        assert_means(outcome, face)
        assert chance == 0.5
    assert_means(data["mean"], Fraction(3, 2) * x)
    sd = data["sd"]  # |x| / 2, rooted to 64 bits where a float cannot hold its square
    assert abs(Fraction(sd) - abs(x) / 2) <= abs(x) / 2 * FLOAT_EPSILON, (sd, x)


@pytest.mark.parametrize("dice", [100, 397, 450])
def test_a_chance_too_small_for_a_float_is_written_exactly(dice, tmp_path):
    data = run_json(["prob", f"{dice}d6 == {6 * dice}"], tmp_path)  # 6**-397 is below a float's range: not 0
    assert_means(data["probability"], Fraction(1, 6 ** dice))
    assert_means(data["distribution"][1][1], Fraction(1, 6 ** dice))


@FUZZ
@given(x=NUMBERS)
def test_roll(x, tmp_path):
    data = run_json(["roll", f"{text_of(x)} + 0 * d6", "--seed", "1"], tmp_path)
    assert_means(data["total"], x)
    many = run_json(["roll", f"{text_of(x)} + 0 * d6", "--seed", "1", "-n", "3"], tmp_path)
    for total in many["totals"]:
        assert_means(total, x)


ENCOUNTER = """\
kind Robot {{ state hp = 0 }}
fn standing(robot) = true
fn fight(battle) {{
    battle.characters[0].hp = {x}
    battle.characters[1].hp = d6 * {x}
    return none
}}
character A is Robot {{ }}
character B is Robot {{ }}
encounter "numbers" {{
    side a: A
    side b: B
}}
say {x}
"""


@FUZZ
@given(x=NUMBERS)
def test_run_and_sim(x, tmp_path):
    (tmp_path / "numbers.mech").write_text(ENCOUNTER.format(x=text_of(x)))
    ran = run_json(["run", "numbers.mech", "--seed", "1"], tmp_path)
    assert_means(ran["result"]["characters"]["A"]["hp"], x)
    strict_json(json.dumps(ran["result"]))
    sim = run_json(["sim", "numbers.mech", "-n", "7", "--seed", "1", "--jobs", "1"], tmp_path)
    assert sim["runs"] == 7
    if x.denominator == 1:  # whole states are kept and averaged exactly; a fraction's float is averaged
        assert_means(sim["characters"]["A"]["mean"]["hp"], x)
