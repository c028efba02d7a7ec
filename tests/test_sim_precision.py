"""`mech sim --precision P` (issue 20, item 4): a batch fights until every interval it reports is
within P of its rate, looking every 100 runs, and says how many runs that took; the same runs for
any --jobs; -n is the cap."""

from __future__ import annotations

import json

import pytest

from mechscript.sim.stats import runs_for, wilson
from support import mech_forked
from test_sim import AMBUSH, mech
from test_sim_sweep import SCRIPT, DUEL


def widest(data: dict) -> float:
    """The largest distance from a reported rate to the farther end of its interval."""
    pairs = [(won["rate"], won["ci95"]) for won in data["winners"].values()]
    pairs += [(c["survival_rate"], c["survival_ci95"]) for c in data["characters"].values()]
    return max(max(rate - low, high - rate) for rate, (low, high) in pairs)


def sim(*args, cwd) -> dict:
    ran = mech_forked(["sim", *map(str, args), "--jobs", "1", "--json"], cwd)
    assert (ran.code, ran.err) == (0, ""), ran.err
    return json.loads(ran.out)


@pytest.mark.parametrize("target", [0.05, 0.02])
def test_it_stops_at_the_first_look_where_every_half_width_is_within_the_target(target, tmp_path):
    data = sim(AMBUSH, "--precision", target, "--seed", "6", cwd=tmp_path)
    runs = data["runs"]
    assert data["precision"] == {"target": target, "reached": True} and "partial" not in data
    assert runs % 100 == 0 and widest(data) <= target
    # its runs are the first `runs` of the batch: a plain batch of that many gives the same numbers
    plain = sim(AMBUSH, "-n", runs, "--seed", "6", cwd=tmp_path)
    del data["precision"]
    assert data == plain
    # and 100 runs fewer were not enough
    assert widest(sim(AMBUSH, "-n", runs - 100, "--seed", "6", cwd=tmp_path)) > target


def test_the_same_runs_for_any_jobs(tmp_path):
    one = mech_forked(["sim", str(AMBUSH), "--precision", "0.03", "--seed", "2", "--jobs", "1", "--json"], tmp_path)
    two = mech("sim", AMBUSH, "--precision", "0.03", "--seed", "2", "--jobs", "2", "--json")
    assert two.stdout == one.out


def test_n_is_a_cap_and_the_default_cap_always_suffices(tmp_path):
    capped = sim(AMBUSH, "--precision", "0.01", "-n", "300", "--seed", "1", cwd=tmp_path)
    assert capped["runs"] == 300 and capped["precision"] == {"target": 0.01, "reached": False}
    assert "partial" not in capped
    report = mech_forked(["sim", str(AMBUSH), "--precision", "0.01", "-n", "300", "--seed", "1", "--jobs", "1"],
                         tmp_path)
    assert report.code == 0
    assert report.out.splitlines()[0] == ("Punch is attacked: 300 runs, seed 1 (the most allowed: some interval is "
                                          "still wider than ±1 points; raise -n)")
    # a rate of 1/2 has the widest interval: the default cap makes even that one narrow enough
    for target in (0.05, 0.01, 0.003):
        n = runs_for(target)
        assert max(high - 0.5 for _, high in [wilson(n // 2, n)]) <= target
        assert n % 100 == 0


def test_a_coin_flip_needs_about_the_runs_the_formula_says(tmp_path):
    # d10 + 4 against d10 + 4, ties to the defender: the attacker wins 45%, near the widest case
    (tmp_path / "duel.mech").write_text(DUEL, encoding="utf-8")
    script = tmp_path / "even.mech"
    script.write_text(SCRIPT.replace("skill 6 + edge", "skill 4"), encoding="utf-8")
    data = sim(script, "--precision", "0.02", "--seed", "3", cwd=tmp_path)
    assert data["precision"]["reached"] and widest(data) <= 0.02
    assert 0.9 * runs_for(0.02) < data["runs"] <= runs_for(0.02)


def test_a_sweep_stops_each_point_on_its_own(tmp_path):
    data = sim(AMBUSH, "--precision", "0.04", "--vary", "Punch.skill=2,9", "--seed", "1", cwd=tmp_path)
    assert data["runs"] == runs_for(0.04)
    for point in data["points"]:
        assert point["precision"] == {"target": 0.04, "reached": True} and widest(point) <= 0.04
        assert point["runs"] < data["runs"]


@pytest.mark.parametrize("value", ["0", "0.5", "-0.01", "one", "0.0001"])
def test_a_precision_out_of_its_range_is_a_usage_error(value, tmp_path):
    ran = mech_forked(["sim", str(AMBUSH), "--precision", value, "--jobs", "1"], tmp_path)
    assert ran.code == 2 and "a precision is a half-width" in ran.err
