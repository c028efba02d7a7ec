"""`mech sim --balance CHARACTER.STAT [--side S] [--target RATE]` (issue 20, item 3): the value of a
stat in its range whose win rate is nearest the target, found by a bisection with few runs a probe
and all the runs near the crossing; checked on a fight whose crossing is counted by hand."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from support import mech_forked
from test_sim_sweep import DUEL, SCRIPT, exact_win


@pytest.fixture
def duel(tmp_path):
    (tmp_path / "duel.mech").write_text(DUEL, encoding="utf-8")
    script = tmp_path / "one_shot.mech"
    script.write_text(SCRIPT, encoding="utf-8")
    return script


def balance(script, *args) -> dict:
    ran = mech_forked(["sim", str(script), "--seed", "3", "--jobs", "1", "--json", *map(str, args)], script.parent)
    assert (ran.code, ran.err) == (0, ""), ran.err
    return json.loads(ran.out)


def test_the_crossing_counted_by_hand():
    # Lance's skill s against Shield's 4: the attacker wins with exact_win(s), rising with s.
    assert [exact_win(s) for s in (6, 7, 8)] == [Fraction(64, 100), Fraction(72, 100), Fraction(79, 100)]
    assert exact_win(13) == Fraction(99, 100) and exact_win(14) == 1


@pytest.mark.parametrize("side, target", [("attacker", 0.72), ("defender", 0.28)])
def test_it_finds_the_value_whose_crossing_is_known_rising_or_falling(duel, side, target):
    data = balance(duel, "--balance", "Lance.skill", "--side", side, "--target", target, "-n", "4000")
    assert (data["balance"], data["side"], data["target"], data["runs"]) == ("Lance.skill", side, target, 4000)
    assert data["value"] == 7
    assert data["ci95"][0] <= target <= data["ci95"][1]
    assert [n["value"] for n in data["neighbours"]] == [6, 8]
    for neighbour in data["neighbours"]:   # each clearly farther from the target
        assert abs(neighbour["rate"] - target) > abs(data["rate"] - target)
    # a bisection over 0..20 in probes of a quarter of the runs; all the runs only near the crossing
    probes = [(p["value"], p["runs"]) for p in data["probes"]]
    assert probes[:2] == [(0, 1000), (20, 1000)] and len([p for p in probes if p[1] == 1000]) <= 2 + 5
    assert {value for value, runs in probes if runs == 4000} <= set(range(5, 10))
    assert data["point"]["winners"][side]["rate"] == data["rate"]


def test_a_target_beyond_the_range_gives_its_end(duel):
    assert balance(duel, "--balance", "Lance.skill", "--target", "1", "-n", "800")["value"] == 14
    lowest = balance(duel, "--balance", "Lance.skill", "--target", "0", "-n", "800")
    assert lowest["value"] == 0 and [n["value"] for n in lowest["neighbours"]] == [1]
    # the first side is the default
    assert lowest["side"] == "attacker"


def test_the_report(duel):
    ran = mech_forked(["sim", str(duel), "--balance", "Lance.skill", "--target", "0.72", "-n", "2000", "--seed", "3",
                       "--jobs", "1"], duel.parent)
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    assert lines[0] == "One shot: the Lance.skill nearest a win rate of 72.0% for the attacker, seed 3"
    assert lines[2].startswith("  Lance.skill 7: the attacker win 7") and lines[2].endswith("of 2000 runs")
    assert lines[3].startswith("  Lance.skill 6: 6") and lines[4].startswith("  Lance.skill 8: 7")
    assert lines[6].startswith("  values tried, in order (runs): 0: 1")


@pytest.mark.parametrize("args, said", [
    (["--balance", "Lanse.skill"], ["--balance:1:1: the script has no character `Lanse`", "  Lanse.skill",
                                    "  ^~~~~~~~~~~", "  hint: did you mean `Lance`?"]),
    (["--balance", "Lance.skil"], ["--balance:1:1: `skil` is no stat of Mech with a range of whole numbers",
                                   "  Lance.skil", "  ^~~~~~~~~~", "  hint: did you mean `skill`?"]),
    (["--balance", "Lance.skill", "--side", "atacker"], ["--side: the encounter has no side `atacker`",
                                                         "  hint: did you mean `attacker`?"]),
])
def test_mistakes_are_said_at_the_option(duel, args, said):
    ran = mech_forked(["sim", str(duel), "-n", "100", "--jobs", "1", *args], duel.parent)
    assert (ran.code, ran.out) == (1, "") and ran.err.splitlines() == said


@pytest.mark.parametrize("args", [["--balance", "Lance.skill", "--vary", "edge=1"],
                                  ["--balance", "Lance.skill", "--precision", "0.05"],
                                  ["--side", "attacker"], ["--balance", "Lance.skill", "--target", "2"],
                                  ["--balance", "Lance.skill", "--plot", "balance.png"]])
def test_options_that_do_not_go_together_are_usage_errors(duel, args):
    ran = mech_forked(["sim", str(duel), "-n", "100", "--jobs", "1", *args], duel.parent)
    assert ran.code == 2 and ran.out == "" and "Traceback" not in ran.err
