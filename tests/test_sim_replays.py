"""The runs worth watching (issue 20, item 5): a batch's JSON and report give the run seeds of the
first runs of each outcome and of the longest fight, and `mech run FILE --seed S` fights each of
them exactly so."""

from __future__ import annotations

import json
import re

from support import mech_forked
from test_sim import AMBUSH
from test_sim_sweep import SCRIPT, DUEL


def run_result(script, seed: int, cwd, *more) -> dict:
    ran = mech_forked(["run", str(script), "--seed", str(seed), "--json", *more], cwd)
    assert ran.code == 0, ran.err
    return json.loads(ran.out)["result"]


def test_each_replay_seed_fights_the_outcome_it_is_given_for(tmp_path):
    ran = mech_forked(["sim", str(AMBUSH), "-n", "400", "--seed", "3", "--jobs", "1", "--json"], tmp_path)
    data = json.loads(ran.out)
    replays = data["replays"]
    assert list(replays["first"]) == [side for side, won in data["winners"].items() if won["count"]]
    for outcome, seeds in replays["first"].items():
        assert len(seeds) == min(3, data["winners"][outcome]["count"]) and len(set(seeds)) == len(seeds)
        for seed in seeds:
            winner = run_result(AMBUSH, seed, tmp_path)["winner"]
            assert winner == (None if outcome == "draw" else outcome)
    longest = replays["longest"]
    assert longest["rounds"] == max(int(r) for r in data["rounds"]["histogram"])
    assert run_result(AMBUSH, longest["seed"], tmp_path)["rounds"] == longest["rounds"]


def test_the_first_runs_are_the_first_of_the_batch_for_any_jobs(tmp_path):
    one = mech_forked(["sim", str(AMBUSH), "-n", "300", "--seed", "8", "--jobs", "1", "--json"], tmp_path)
    longer = mech_forked(["sim", str(AMBUSH), "-n", "900", "--seed", "8", "--jobs", "1", "--json"], tmp_path)
    first, then = json.loads(one.out)["replays"]["first"], json.loads(longer.out)["replays"]["first"]
    # a longer batch starts with the same runs: the same first ones, where there were three already
    assert {k: v for k, v in first.items() if len(v) == 3} == {k: then[k] for k, v in first.items() if len(v) == 3}


def test_the_report_says_how_to_watch_them_with_the_encounter_named(tmp_path):
    (tmp_path / "duel.mech").write_text(DUEL, encoding="utf-8")
    script = tmp_path / "two.mech"
    script.write_text(SCRIPT + 'encounter "Return match" {\n    side first: Shield\n    side second: Lance\n}\n',
                      encoding="utf-8")
    ran = mech_forked(["sim", str(script), "-n", "200", "--seed", "1", "--jobs", "1", "--encounter", "Return match"],
                      tmp_path)
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    start = lines.index(f'runs to watch: mech run {script} --encounter "Return match" --seed S')
    watched = dict(re.match(r"  (.+?)  +(.+)$", line).groups() for line in lines[start + 1:start + 4])
    assert list(watched) == ["first wins", "second wins", "longest"]  # no draw in this fight: no line for draws
    for outcome in ("first", "second"):
        for seed in watched[f"{outcome} wins"].split(", "):
            assert run_result(script, int(seed), tmp_path, "--encounter", "Return match")["winner"] == outcome
    seed, rounds = re.match(r"(\d+) \((\d+) rounds?\)$", watched["longest"]).groups()
    assert run_result(script, int(seed), tmp_path, "--encounter", "Return match")["rounds"] == int(rounds) == 1
