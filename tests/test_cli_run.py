"""End-to-end tests of `mech run` and `mech check` as a user runs them (the real console script):
the contract's run JSON `{"log": [...], "result": ...}`, scripts from standard input, the same seed
giving the same output byte for byte, and the exit statuses."""

from __future__ import annotations

import json
import subprocess

from support import MECH

SCRIPT = """\
# a duel in three lines
let punch = {name: "Punch", skill: 7}
let hit = d10 + punch.skill > 12
say "{punch.name} rolls to hit: {hit}"
say "damage {2d6}"
"""


def mech(*args, stdin: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([MECH, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_run_prints_what_the_script_says_with_given_faces(tmp_path):
    script = tmp_path / "duel.mech"
    script.write_text(SCRIPT)
    ran = mech("run", str(script), "--faces", "6,3,4")
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "Punch rolls to hit: true\ndamage 7\n", "")


def test_run_json_has_the_contract_keys(tmp_path):
    script = tmp_path / "duel.mech"
    script.write_text(SCRIPT)
    data = json.loads(mech("run", str(script), "--faces", "5,3,4", "--json").stdout)
    assert data["log"] == ["Punch rolls to hit: false", "damage 7"]
    assert "result" in data and data["result"] is None  # no encounter in this script


def test_the_same_seed_gives_the_same_output_byte_for_byte(tmp_path):
    script = tmp_path / "duel.mech"
    script.write_text(SCRIPT)
    first, second = mech("run", str(script), "--seed", "99"), mech("run", str(script), "--seed", "99")
    assert first.returncode == 0 and first.stdout == second.stdout


def test_an_unseeded_run_reports_the_seed_that_replays_it(tmp_path):
    script = tmp_path / "duel.mech"
    script.write_text(SCRIPT)
    unseeded = json.loads(mech("run", str(script), "--json").stdout)
    replayed = json.loads(mech("run", str(script), "--json", "--seed", str(unseeded["seed"])).stdout)
    assert replayed == unseeded


def test_run_reads_the_script_from_standard_input(tmp_path):
    ran = mech("run", "-", "--faces", "6,3,4", stdin=SCRIPT, cwd=tmp_path)
    assert (ran.returncode, ran.stdout) == (0, "Punch rolls to hit: true\ndamage 7\n")


def test_an_error_from_standard_input_is_named_stdin():
    ran = mech("run", "-", stdin="say nope\n")
    assert ran.returncode == 1
    assert ran.stderr.startswith("<stdin>:1:5: unknown name `nope`\n  say nope\n      ^~~~")
    assert "Traceback" not in ran.stderr


def test_check_says_ok_and_runs_nothing(tmp_path):
    script = tmp_path / "duel.mech"
    script.write_text(SCRIPT)
    ran = mech("check", str(script), "--limit", "steps=10")
    assert (ran.returncode, ran.stdout) == (0, f"{script}: ok\n")


def test_a_missing_script_is_a_usage_error(tmp_path):
    for command in ("run", "check"):
        ran = mech(command, str(tmp_path / "nowhere.mech"))
        assert ran.returncode == 2 and "no such file" in ran.stderr and "Traceback" not in ran.stderr


def test_run_prints_what_was_said_before_an_error(tmp_path):
    script = tmp_path / "late.mech"
    script.write_text('say "first"\nsay [1, 2][5]\n')
    ran = mech("run", str(script))
    assert ran.returncode == 1 and ran.stdout == "first\n"
    assert ran.stderr.startswith(f"{script}:2:12: index 5 is outside the list")
