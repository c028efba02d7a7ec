"""`make(kind, name, stat: value, ...)` and `make(character, name, ...)`: characters made by a function,
so an encounter's parameter reaches their stats (`encounter "Drones"(count = 3, skill = 4)`). A made
character fights exactly as the same character declared by hand, on the closures and on the written
back end of quiet batches; its errors are a declaration's, said at the option that gave the value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import mech_forked

from mechscript.backend.quiet import QuietFight
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
from mechscript.sim.batch import run_seed
from mechscript.sim.prepared import fight_once

PUNCH = """\
use pbem
character Punch is Transformer { speed 4 skill 7 rank 3 firepower 5 strength 6 endurance 6 courage 7
    weapon Gun }
character Drone is Transformer { speed 5 skill 4 rank 1 firepower 3 strength 3 endurance 3 courage 3
    weapon Blaster { uses "fists" } }
"""
MADE = PUNCH + """\
# `count` drones like Drone, of the given skill
fn drones(count, skill) {
    let made = []
    for n in range(count) { push(made, make(Drone, "Drone {n}", skill: skill)) }
    return made
}
encounter "Drones"(count = 2, skill = 4) {
    side autobots: Punch
    side drones: drones(count, skill)
    until one_side_left or round > 20
}
"""
WRITTEN = """\
character {name} is Transformer {{ speed 5 skill {skill} rank 1 firepower 3 strength 3 endurance 3 courage 3
    weapon Blaster {{ uses "fists" }} }}
"""


def written(count: int, skill: int) -> str:
    """The encounter with its drones declared by hand: what `make` must fight as."""
    names = [f"Drone{n}" for n in range(1, count + 1)]
    text = "".join(WRITTEN.format(name=name, skill=skill) for name in names)
    return PUNCH + text + (f'encounter "Drones" {{\n side autobots: Punch\n side drones: {", ".join(names)}\n'
                           " until one_side_left or round > 20\n}\n")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("make")
    (root / "made.mech").write_text(MADE, encoding="utf-8")
    for count, skill in ((2, 4), (3, 6)):
        (root / f"written_{count}_{skill}.mech").write_text(written(count, skill), encoding="utf-8")
    return root


def mech(folder: Path, *argv: str):
    return mech_forked(list(argv), folder)


@pytest.mark.parametrize("sets, count, skill", [([], 2, 4), (["--set", "count=3", "--set", "skill=6"], 3, 6)])
def test_made_drones_fight_as_drones_declared_by_hand(folder, sets, count, skill):
    for seed in ("1", "2", "5"):
        made = mech(folder, "run", "made.mech", *sets, "--seed", seed)
        assert made.code == 0, made.err
        by_hand = mech(folder, "run", f"written_{count}_{skill}.mech", "--seed", seed)
        # the same fight, but for the names: "Drone 1" made, Drone1 declared
        assert made.out == by_hand.out.replace("Drone1", "Drone 1").replace("Drone2", "Drone 2") \
            .replace("Drone3", "Drone 3")
    assert f"Drone {count} (drones)" in made.out and f"Drone {count + 1} " not in made.out
    sim = json.loads(mech(folder, "sim", "made.mech", *sets, "-n", "60", "--seed", "3", "--json", "--jobs", "1").out)
    alone = json.loads(mech(folder, "sim", f"written_{count}_{skill}.mech", "-n", "60", "--seed", "3", "--json",
                            "--jobs", "1").out)
    assert sim["winners"] == alone["winners"]
    assert list(sim["characters"].values()) == list(alone["characters"].values())


def test_the_written_back_end_fights_made_characters_as_the_closures_do(folder):
    script = compile_script(MADE, str(folder / "made.mech"), folder, Limits())
    quiet = QuietFight(script)
    for index in range(150):
        seed = run_seed(1, index)
        fought = quiet.fight(seed)
        assert fought is not None, f"run {index} bailed"
        assert fought == fight_once(script, seed), f"run {index} (seed {seed})"


SHEETS = """\
kind Gun { stat uses ["gun", "fists"] = "gun"
    state shots = [1, 2] }
kind Robot {
    stat skill 1..10
    stat speed 1..10 = 5
    derived double = skill * 2
    state hp = 6
    gear weapon: Gun
}
fn standing(robot) = robot.hp > 0
fn fight(battle) = none
character Model is Robot { skill 3  hp 9  weapon Blaster { uses "fists" } }
"""


@pytest.mark.parametrize("line, said", [
    ('let c = make(Robot, "R", skill: 4)\nsay "{c.name} {c.skill} {c.speed} {c.double} {c.hp} {len(c.weapon)}"',
     "R 4 5 8 6 0"),
    ('let c = make(Model, "M", speed: 7)\nsay "{c.name} {c.skill} {c.speed} {c.double} {c.hp} {c.weapon[0].uses}"',
     "M 3 7 6 9 fists"),
    # the copy's gear is its own: a change to its state leaves the model's alone
    ('let c = make(Model, "M")\npush(c.weapon[0].shots, 3)\nsay "{c.weapon[0].shots} {Model.weapon[0].shots}"',
     "[1, 2, 3] [1, 2]"),
    ('let c = make(make(Model, "M", skill: 8), "N")\nsay "{c.name} {c.skill} {c.double}"', "N 8 16"),
])
def test_make_gives_a_character_as_its_declaration_would(tmp_path, line, said):
    (tmp_path / "sheet.mech").write_text(SHEETS + line + "\n", encoding="utf-8")
    ran = mech(tmp_path, "run", "sheet.mech")
    assert (ran.code, ran.err) == (0, "")
    assert ran.out == said + "\n"


@pytest.mark.parametrize("line, said", [
    ('make(Robot, "R", skil: 4)', ["sheet.mech:14:24: Robot has no stat `skil`", "  hint: did you mean `skill`?"]),
    ('make(Robot, "R", skill: 11)', ["sheet.mech:14:25: `skill` of Robot is a whole number from 1 to 10, not 11"]),
    ('make(Robot, "R", double: 4)', ["sheet.mech:14:26: `double` is worked out by kind Robot from its stats; "
                                     "it cannot be given", "  hint: give the stats it comes from"]),
    ('make(Robot, "R")', ["sheet.mech:14:1: missing stat of Robot: skill", "  hint: add skill: ..."]),
    ('make(Robot, 3, skill: 4)', ["sheet.mech:14:13: a character's name is text, not a number",
                                  '  hint: make(Drone, "Drone {n}")']),
    ('make(4, "R")', ["sheet.mech:14:6: `make` makes a character of a kind or like a character, not like a number",
                      '  hint: make(Transformer, "Drone 1", skill: 4) or make(Drone, "Drone 2")']),
])
def test_a_sheet_make_refuses_is_said_at_the_call_with_a_hint(tmp_path, line, said):
    (tmp_path / "sheet.mech").write_text(SHEETS + "let unused = 0\n" + line + "\n", encoding="utf-8")
    ran = mech(tmp_path, "run", "sheet.mech")
    assert (ran.code, ran.out) == (1, "")
    lines = ran.err.splitlines()
    assert [lines[0], *lines[3:]] == said


def test_the_checker_knows_what_make_makes(tmp_path):
    # a field the made character's kind lacks, in a function no run calls: found before running
    (tmp_path / "sheet.mech").write_text(SHEETS + 'fn later() {\n    let c = make(Model, "M")\n    say c.shield\n}\n',
                                         encoding="utf-8")
    ran = mech(tmp_path, "check", "sheet.mech")
    assert ran.code == 1
    assert ran.err.splitlines()[0] == "sheet.mech:15:11: a Robot has no `shield`"


@pytest.mark.parametrize("model", ["Robot", "Model"])
def test_an_option_the_kind_lacks_is_found_before_running(tmp_path, model):
    # in a function no run calls: the kind, or the declared character's kind, seen when compiling
    (tmp_path / "sheet.mech").write_text(SHEETS + f'fn later() = make({model}, "M", skil: 4)\n', encoding="utf-8")
    for command in ("check", "run"):
        ran = mech(tmp_path, command, "sheet.mech")
        assert (ran.code, ran.out) == (1, "")
        assert ran.err.splitlines()[0] == "sheet.mech:13:{}: Robot has no stat `skil`".format(32 + len(model))
        assert ran.err.splitlines()[-1] == "  hint: did you mean `skill`?"
    (tmp_path / "sheet.mech").write_text(SHEETS + f'fn later() = make({model}, "M", double: 4)\n', encoding="utf-8")
    assert "`double` is worked out by kind Robot" in mech(tmp_path, "check", "sheet.mech").err
