"""The neojove examples (examples/neojove_duel.mech, examples/neojove_frigate.mech): `mech run` reads
well and ends with a result, and `mech sim -n 60 --seed 1 --jobs 1` gives the same JSON twice."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support import HANG_GUARD, MECH, mech_forked

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["neojove_duel.mech", "neojove_frigate.mech"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_mech_run_reads_well_and_ends_with_a_result(name, tmp_path):
    ran = mech_forked(["run", str(ROOT / "examples" / name), "--seed", "1"], tmp_path)
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    assert lines[1].startswith("  at ") and "Turn 1" in lines
    assert any(" fires " in line for line in lines)
    # the narration never shows a record or a fraction of the machinery
    assert not any("{" in line or "none" in line for line in lines)
    result = lines.index("")
    assert lines[result + 1].startswith("Result: ") and " win after " in lines[result + 1]
    assert ran.err == ""
    data = json.loads(mech_forked(["run", str(ROOT / "examples" / name), "--seed", "1", "--json"], tmp_path).out)
    assert data["log"] == lines[:result]
    assert data["result"]["winner"] in {"white_rose", "cygnus", "neo_jove"}
    # one unit is out: shot down at 0 Durability, or pulled out (L162) after losing half of it
    out = [c for c in data["result"]["characters"].values() if c["status"] != "active"]
    assert len(out) == 1
    assert out[0]["durability_left"] <= 0 if out[0]["status"] == "shot down" else out[0]["status"] == "withdrawn"


@pytest.mark.parametrize("name", EXAMPLES)
def test_mech_sim_gives_the_same_json_twice(name, tmp_path):
    # the two runs side by side, each in its own process, so the test takes the time of one
    argv = [MECH, "sim", str(ROOT / "examples" / name), "-n", "60", "--seed", "1", "--jobs", "1", "--json"]
    both = [subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    (first, err), (second, _) = [p.communicate(timeout=HANG_GUARD) for p in both]
    assert both[0].returncode == 0, err
    assert first == second
    data = json.loads(first)
    assert data["runs"] == 60 and data["seed"] == 1
    assert sum(w["count"] for w in data["winners"].values()) == 60
    # both sides win sometimes: the placeholder stats are balanced on purpose
    assert all(data["winners"][side]["count"] > 0 for side in data["winners"] if side != "draw")
