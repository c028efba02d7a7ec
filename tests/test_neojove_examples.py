"""The neojove examples (examples/neojove_duel.mech, neojove_frigate.mech, neojove_pursuit.mech): `mech
run` reads well and ends with a result, `mech sim -n 60 --seed 1 --jobs 1` gives the same JSON twice,
`mech check` passes them; in the pursuit a unit flees and is shot in its Rear arc."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support import HANG_GUARD, MECH, mech_forked

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["neojove_duel.mech", "neojove_frigate.mech", "neojove_pursuit.mech"]


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


@pytest.mark.parametrize("name", EXAMPLES)
def test_mech_check_passes_the_example(name, tmp_path):
    ran = mech_forked(["check", str(ROOT / "examples" / name)], tmp_path)
    assert (ran.code, ran.err) == (0, "")
    assert ran.out.strip().endswith(f"{name}: ok")


def test_in_the_pursuit_a_unit_flees_and_is_shot_in_its_rear_arc(tmp_path):
    # `mech run examples/neojove_pursuit.mech --seed 8` (docs/neojove.md): the Corsair, at 6 of 18 and
    # against a Kestrel at 10 of 16, pulls out (L162) and shows its Rear arc (L539): margin 4 makes Solid
    # (it would from the Fore too), and margin 10 on the next turn a Smash (+8 - 2, L530), each through
    # its Rear armor 1; the Kestrel's Flank shot of turn 2 came from the higher Positioning in a
    # dogfight (L541)
    ran = mech_forked(["run", str(ROOT / "examples" / "neojove_pursuit.mech"), "--seed", "8"], tmp_path)
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    assert lines.count("  Corsair pulls out: it flees, showing its Rear arc (L539)") == 2
    assert "    smash 10, shield 1 -> 9, armor 2 (flank) -> 7: Corsair Durability 6 of 18" in lines
    assert "    solid 7, shield 1 -> 6, armor 1 (rear) -> 5: Corsair Durability 1 of 18" in lines
    assert any(line.endswith("= 17 vs Kinetic Defense 7: hit by 10, smash, rear arc") for line in lines)
    assert "Result: neo_jove win after 4 rounds" in lines
