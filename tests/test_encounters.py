"""Several encounters in one script, each named: `mech run`, `mech sim`, `mech check` and the REPL's
`:run` choose one with `--encounter NAME` (the only one when there is one), as a user drives them:
the errors when none is named or the name is none of them, and the fight chosen being exactly the
fight of a script holding it alone."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import mechscript
from mechscript.backend.quiet import QuietFight
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
from mechscript.sim.batch import run_seed
from mechscript.sim.prepared import fight_once

from support import MECH, mech_forked

ROOT = Path(__file__).resolve().parent.parent

CHARACTERS = """\
use pbem
character Punch is Transformer { speed 4 skill 7 rank 3 firepower 5 strength 6 endurance 6 courage 7
    weapon Gun }
character Ransack is Transformer { speed 3 skill 5 rank 2 firepower 6 strength 5 endurance 5 courage 4 }
character Jazz is Transformer { speed 6 skill 6 rank 2 firepower 4 strength 4 endurance 5 courage 8 }
say "the characters are ready"
"""
AMBUSH = """\
encounter "Ambush at the dam" {
    side autobots: Punch
    side decepticons: Ransack
    tie: "attacker"
    until one_side_left or round > 1
}
"""
BRIDGE = """\
encounter "Bridge" {
    side autobots: Jazz, Punch
    side decepticons: Ransack
}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("encounters")
    (root / "adventure.mech").write_text(CHARACTERS + AMBUSH + BRIDGE, encoding="utf-8")
    (root / "ambush.mech").write_text(CHARACTERS + AMBUSH, encoding="utf-8")
    (root / "bridge.mech").write_text(CHARACTERS + BRIDGE, encoding="utf-8")
    (root / "no_fight.mech").write_text('say "no encounter here"\n', encoding="utf-8")
    # the second encounter sets an option its rules do not have: `mech check` finds it
    (root / "second_wrong.mech").write_text(CHARACTERS + AMBUSH + BRIDGE.replace("}\n", "    tye: 1\n}\n"),
                                            encoding="utf-8")
    (root / "same_name.mech").write_text(CHARACTERS + AMBUSH + AMBUSH, encoding="utf-8")
    return root


def mech(folder: Path, *argv: str):
    return mech_forked(list(argv), folder)


# ---- choosing ----

def test_several_encounters_and_none_named_is_an_error_naming_them(folder):
    ran = mech(folder, "run", "adventure.mech", "--seed", "1")
    assert ran.code == 1 and ran.out == ""   # refused before anything runs
    assert ran.err == (
        'adventure.mech:13:11: this script has 2 encounters; say which one to fight\n'
        '  encounter "Bridge" {\n'
        '            ^~~~~~~~\n'
        '  hint: choose one with --encounter "Ambush at the dam", --encounter Bridge (Python: encounter=NAME)\n')
    assert mech(folder, "sim", "adventure.mech", "-n", "5", "--jobs", "1").err == ran.err


@pytest.mark.parametrize("command", [["run", "adventure.mech", "--seed", "1"],
                                     ["sim", "adventure.mech", "-n", "5", "--jobs", "1"],
                                     ["check", "adventure.mech"]])
def test_a_name_mistyped_gets_a_did_you_mean_at_the_closest_encounter(folder, command):
    ran = mech(folder, *command, "--encounter", "Brige")
    assert ran.code == 1 and ran.out == ""
    assert ran.err == ('adventure.mech:13:11: there is no encounter named "Brige"\n'
                       '  encounter "Bridge" {\n'
                       '            ^~~~~~~~\n'
                       '  hint: did you mean --encounter Bridge?\n')


def test_a_name_like_none_of_them_lists_them(folder):
    ran = mech(folder, "run", "adventure.mech", "--encounter", "Rematch")
    assert ran.code == 1
    assert ran.err.splitlines()[0] == 'adventure.mech:7:11: there is no encounter named "Rematch"'
    assert ran.err.splitlines()[-1] == '  hint: the encounters: "Ambush at the dam", Bridge'
    # a name differing in its capitals alone is found as the closest
    assert "did you mean --encounter \"Ambush at the dam\"?" in \
        mech(folder, "run", "adventure.mech", "--encounter", "AMBUSH AT THE DAM").err


def test_naming_an_encounter_of_a_script_with_none(folder):
    ran = mech(folder, "run", "no_fight.mech", "--encounter", "Bridge")
    assert ran.code == 1
    assert ran.err == ('no_fight.mech: there is no encounter named "Bridge": the script declares none\n'
                       '  hint: --encounter chooses among the encounters a script declares\n')


@pytest.mark.parametrize("name, alone", [("Bridge", "bridge.mech"), ("Ambush at the dam", "ambush.mech")])
def test_the_encounter_chosen_is_fought_as_in_a_script_of_its_own(folder, name, alone):
    for seed in ("1", "2", "3"):
        chosen = mech(folder, "run", "adventure.mech", "--encounter", name, "--seed", seed)
        assert chosen.code == 0, chosen.err
        assert chosen == mech(folder, "run", alone, "--seed", seed)
    assert chosen.out.startswith(f"the characters are ready\n{name}: ")
    data = json.loads(mech(folder, "run", "adventure.mech", "--encounter", name, "--seed", "1", "--json").out)
    assert data == json.loads(mech(folder, "run", alone, "--seed", "1", "--json").out)


def test_the_only_encounter_needs_no_name_and_may_be_named(folder):
    alone = mech(folder, "run", "bridge.mech", "--seed", "4")
    assert alone.code == 0 and "Result:" in alone.out
    assert mech(folder, "run", "bridge.mech", "--seed", "4", "--encounter", "Bridge") == alone
    assert mech(folder, "run", "bridge.mech", "--encounter", "Ambush").code == 1


def test_sim_fights_the_encounter_chosen(folder):
    chosen = mech(folder, "sim", "adventure.mech", "--encounter", "Bridge", "-n", "60", "--seed", "5", "--json",
                  "--jobs", "1")
    assert chosen.code == 0, chosen.err
    data = json.loads(chosen.out)
    assert data["encounter"] == "Bridge" and set(data["characters"]) == {"Jazz", "Punch", "Ransack"}
    assert chosen == mech(folder, "sim", "bridge.mech", "-n", "60", "--seed", "5", "--json", "--jobs", "1")


def test_sim_workers_fight_the_encounter_chosen(folder):
    # the real command, its worker processes compiling the script with the choice
    argv = [MECH, "sim", "adventure.mech", "--encounter", "Ambush at the dam", "-n", "300", "--seed", "9", "--json"]
    env = {k: v for k, v in os.environ.items() if k != "MECH_DEBUG"}
    two = subprocess.run(argv + ["--jobs", "2"], cwd=folder, capture_output=True, text=True, env=env, timeout=300)
    assert two.returncode == 0, two.stderr
    one = mech(folder, *argv[1:], "--jobs", "1")
    assert json.loads(two.stdout) == json.loads(one.out)
    assert json.loads(two.stdout)["rounds"]["histogram"].keys() <= {"1", "2"}   # its `until`: round > 1


# ---- mech check ----

def test_check_checks_every_encounter(folder):
    ok = mech(folder, "check", "adventure.mech")
    assert (ok.code, ok.out) == (0, "adventure.mech: ok\n")
    assert mech(folder, "check", "adventure.mech", "--encounter", "Bridge").out == "adventure.mech: ok\n"
    wrong = mech(folder, "check", "second_wrong.mech")
    assert wrong.code == 1
    assert wrong.err.splitlines()[:3] == ["second_wrong.mech:16:5: the rules of kind Transformer have no option `tye`",
                                          "      tye: 1", "      ^~~"]


def test_two_encounters_of_one_name_are_refused(folder):
    ran = mech(folder, "check", "same_name.mech")
    assert ran.code == 1
    assert ran.err == ('same_name.mech:13:11: two encounters are named "Ambush at the dam" (the first is on line 7)\n'
                       '  encounter "Ambush at the dam" {\n'
                       '            ^~~~~~~~~~~~~~~~~~~\n'
                       '  hint: give each encounter of a script its own name\n')


# ---- the REPL ----

def test_the_repl_runs_the_encounter_named(folder):
    lines = [":load adventure.mech", ":run", ":run --encounter Brige", ":run --encounter Bridge", ":run Bridge",
             'encounter "Bridge" {', "side autobots: Punch", "side decepticons: Ransack", "}",
             ':run --encounter "Bridge"']
    env = {k: v for k, v in os.environ.items() if k != "MECH_DEBUG"}
    ran = subprocess.run([MECH, "repl", "--seed", "1"], cwd=folder, input="\n".join(lines) + "\n",
                         capture_output=True, text=True, env=env, timeout=120)
    assert ran.returncode == 1   # some lines failed
    assert ran.stderr.splitlines() == [
        "this session has 2 encounters; say which one to fight",
        '  hint: choose one with :run --encounter "Ambush at the dam", :run --encounter Bridge',
        'there is no encounter named "Brige"',
        "  hint: did you mean :run --encounter Bridge?",
        "`:run` takes --encounter NAME and --set PARAM=VALUE, or nothing",
        '  hint: :run --encounter "Ambush at the dam"',
    ]
    fights = [line for line in ran.stdout.splitlines() if line.startswith("Bridge: ")]
    # the second Bridge, declared in the session under the same name, replaced the first
    assert fights == ["Bridge: autobots (Jazz, Punch) against decepticons (Ransack)",
                      "Bridge: autobots (Punch) against decepticons (Ransack)"]


# ---- Python, and the quiet batches ----

def test_the_api_takes_the_encounter(folder):
    chosen = mechscript.run(folder / "adventure.mech", seed=2, encounter="Bridge")
    assert chosen.log == mechscript.run(folder / "bridge.mech", seed=2).log
    with pytest.raises(mechscript.MechError, match="this script has 2 encounters"):
        mechscript.run(folder / "adventure.mech", seed=2)
    assert mechscript.simulate(folder / "adventure.mech", 30, seed=1, encounter="Ambush at the dam") == \
        mechscript.simulate(folder / "ambush.mech", 30, seed=1)
    mechscript.check(folder / "adventure.mech")
    with pytest.raises(mechscript.MechError, match="did you mean --encounter Bridge"):
        mechscript.check(folder / "adventure.mech", encounter="bridge ")


@pytest.mark.parametrize("name", ["Ambush at the dam", "Bridge"])
def test_the_quiet_back_end_fights_the_encounter_chosen_with_its_own_until(folder, name):
    text = (folder / "adventure.mech").read_text()
    script = compile_script(text, str(folder / "adventure.mech"), folder, Limits()).choose(name)
    quiet = QuietFight(script)
    assert quiet.encounter.name == name
    for index in range(120):
        seed = run_seed(1, index)
        assert quiet.fight(seed) == fight_once(script, seed), f"run {index} (seed {seed})"
