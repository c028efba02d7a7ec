"""A batch sets its script up once per process (sim/prepared.py) and gives exactly what fighting every
run whole gives: the same outcomes seed by seed, the same errors with the same seeds, the same
limits firing at the same point; and where that could not hold it fights every run whole.

Each script below is built so that a set-up that forgot what it tests would give other numbers: an
option the fight changes not restored, a list not copied, an alias split in two, a die rolled once
for all runs, a counter starting from zero.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mechscript.errors import MechError
from mechscript.limits import Limits
from mechscript.interpreter.script import compile_script
from mechscript.sim.batch import Batch, Replays, SimResult, run_seed, simulate
from mechscript.sim.stats import Tally
from mechscript.sim.prepared import Prepared, fight_once, run_once, survival

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WITH_ENCOUNTERS = ["neojove_duel", "neojove_frigate", "pbem_ambush", "robomacs_spartacus", "transformers_duel",
                   "transformers_house_rule"]

# A rules module: two mechs, a `fight` that the scripts below give their own bodies.
RULES = """\
kind Mech {{
    stat skill 0..20
    state hp = 1
    state effects = []
}}
fn standing(m) = m.hp > 0
let tie = "defender"
let extra = []
let bonus = {bonus}
{lets}
table marks {{ "k" => [] }}
fn pick(enc) = enc.sides[0].name
fn fight(enc) {{
    enc.round = 1
    let att = enc.sides[0].members[0]
    let def = enc.sides[1].members[0]
{body}
}}
"""

SCRIPT = """\
use rules
{before}
character Lance is Mech {{ skill 6 }}
character Shield is Mech {{ skill 4 }}
encounter "One shot" {{
    side attacker: Lance
    side defender: Shield
{settings}
}}
"""


def compiled(folder: Path, body: str, bonus: str = "0", lets: str = "", before: str = "", settings: str = "",
             limits: Limits = Limits()):
    (folder / "rules.mech").write_text(RULES.format(body=body, bonus=bonus, lets=lets), encoding="utf-8")
    path = folder / "one_shot.mech"
    path.write_text(SCRIPT.format(before=before, settings=settings), encoding="utf-8")
    return compile_script(path.read_text(), str(path), folder, limits)


def whole(script, seed: int):
    """A run as a batch fought every run before set-up once: its outcome, or its error's text."""
    try:
        return fight_once(script, seed)
    except MechError as error:
        return error.render()


def outcomes(script, n: int = 30) -> tuple[list, list]:
    """n runs set up once (in one Prepared, one after another) and fought whole: None where a set-up
    run failed (the batch fights it whole)."""
    prepared = Prepared.of(script)
    assert prepared is not None, "the script is expected to be set up once"
    seeds = [run_seed(7, index) for index in range(n)]
    return [prepared.fight(seed) for seed in seeds], [whole(script, seed) for seed in seeds]


def same_batch(script, n: int = 30, seed: int = 7) -> str:
    """`simulate` (set up once) gives what every run fought whole by `fight_once` gives: the same
    tally, or the error of the same first failing run; what it gave, as text."""
    try:
        prepared = simulate(Batch.of(script), n, seed).to_json()
    except MechError as error:
        prepared = error.render()
    tally, failed, words, replays = None, None, None, None
    for index in range(n):
        try:
            ev = run_once(script, run_seed(seed, index))
            outcome, name, sides = fight_once(script, run_seed(seed, index))
        except MechError as error:
            failed = index, run_seed(seed, index), error.render()
            break
        tally = tally or Tally(sides)
        tally.add(outcome)
        replays = replays or Replays(seed, sides)  # the runs to watch, each fought whole
        replays.add(index, outcome)
        words = words or survival(ev.encounter)  # what `survives` counts, in the rules' words
    if failed is None:
        assert prepared == SimResult(name, seed, tally, n, survival=words, replays=replays).to_json()
    else:
        index, failed_seed, message = failed
        assert f"run {index + 1} of the batch failed" in prepared and f"--seed {failed_seed}" in prepared
        assert message in prepared
    return str(prepared)


# ---- the examples ----

@pytest.mark.parametrize("name", WITH_ENCOUNTERS)
def test_each_example_is_set_up_once_and_fights_as_before(name):
    path = EXAMPLES / f"{name}.mech"
    script = compile_script(path.read_text(), str(path), path.parent, Limits())
    set_up, fought_whole = outcomes(script, 12)
    assert set_up == fought_whole


# ---- what a fight changes is restored for the next run ----

def test_an_option_the_fight_changes_starts_each_run_as_the_top_level_left_it(tmp_path):
    script = compiled(tmp_path, """\
    let winner = match tie { "defender" => enc.sides[1].name; else => enc.sides[0].name }
    tie = "attacker"
    return winner""")
    set_up, fought_whole = outcomes(script)
    assert set_up == fought_whole
    assert {outcome[0] for outcome, _, _ in set_up} == {"defender"}


def test_a_state_list_the_fight_pushes_to_is_a_fresh_copy_each_run(tmp_path):
    script = compiled(tmp_path, """\
    push(att.effects, "stunned")
    if len(att.effects) == 1 and d10 > 3 { def.hp = 0 }
    return pick(enc)""")
    set_up, fought_whole = outcomes(script)
    assert set_up == fought_whole
    assert {outcome[2]["Shield"][0] for outcome, _, _ in set_up} == {True, False}


def test_a_list_in_a_table_the_fight_pushes_to_is_a_fresh_copy_each_run(tmp_path):
    script = compiled(tmp_path, """\
    push(marks["k"], 1)
    if len(marks["k"]) == 1 { def.hp = 0 }
    return pick(enc)""")
    set_up, fought_whole = outcomes(script, 5)
    assert set_up == fought_whole
    assert {outcome[2]["Shield"][0] for outcome, _, _ in set_up} == {False}


def test_a_house_rule_and_the_encounter_settings_hold_in_every_run(tmp_path):
    # the setting `extra` is a list the fight pushes to; `tie` a setting the fight changes
    script = compiled(tmp_path, """\
    push(extra, 2)
    let winner = match [tie, len(extra)] { ["attacker", 2] => pick(enc); else => none }
    tie = "defender"
    return winner""", before="fn rules.pick(enc) = enc.sides[1].name",
                      settings='    tie: "attacker"\n    extra: [1]')
    set_up, fought_whole = outcomes(script)
    assert set_up == fought_whole
    assert {outcome[0] for outcome, _, _ in set_up} == {"defender"}  # the house rule's pick


# ---- where set-up once would not be exact, every run is fought whole ----

def test_a_top_level_that_rolls_is_run_again_each_run(tmp_path):
    script = compiled(tmp_path, """\
    if bonus + d10 > 8 { def.hp = 0 }
    return pick(enc)""", bonus="d6 + 0")  # a number, not a roll
    assert Prepared.of(script) is None
    assert len({str(outcome) for outcome in (whole(script, run_seed(7, i)) for i in range(30))}) == 2
    same_batch(script)


def test_a_stat_from_a_die_is_made_again_each_run(tmp_path):
    script = compiled(tmp_path, "    return pick(enc)")
    path = Path(script.filename)
    path.write_text(path.read_text().replace("skill 6", "skill d6"), encoding="utf-8")
    script = compile_script(path.read_text(), str(path), tmp_path, Limits())
    assert Prepared.of(script) is None
    same_batch(script)


def test_a_list_reachable_from_two_names_is_not_set_up_once(tmp_path):
    # `also` is `shared`: copied apart, the push to one would no longer show in the other
    script = compiled(tmp_path, """\
    push(shared, 1)
    if len(also) == 1 { def.hp = 0 }
    return pick(enc)""", lets="let shared = []\nlet also = shared")
    assert Prepared.of(script) is None
    same_batch(script, 5)
    assert all(whole(script, run_seed(7, i))[0][2]["Shield"][0] is False for i in range(5))


# ---- failures and limits: the same error, the same seed ----

def test_a_failing_run_gives_the_same_error_and_seed(tmp_path):
    # an error of the fight rule's own checks, which points into the script that declares the encounter
    script = compiled(tmp_path, """\
    if d10 > 7 { return "nobody" }
    return pick(enc)""")
    set_up, fought_whole = outcomes(script)
    failed = [i for i, outcome in enumerate(set_up) if outcome is None]
    assert failed and all(type(fought_whole[i]) is str and "`fight` gave \"nobody\"" in fought_whole[i]
                          for i in failed)
    assert [o for o in set_up if o is not None] == [o for o in fought_whole if type(o) is not str]
    text = same_batch(script)
    assert "replay it with `mech run" in text and "one_shot.mech:" in text


def test_output_lines_counts_what_the_top_level_said(tmp_path):
    # the top level says 5 (empty, quiet) lines; a fight saying d10 more passes the limit of 12 when
    # d10 > 7: only if its count goes on from the top level's
    script = compiled(tmp_path, """\
    repeat d10 { say "a round" }
    return pick(enc)""", before='repeat 5 { say "set up" }', limits=Limits(output_lines=12))
    set_up, fought_whole = outcomes(script)
    assert any(type(o) is str and "output_lines" in o for o in fought_whole)
    assert [o is None for o in set_up] == [type(o) is str for o in fought_whole]
    same_batch(script)


def test_steps_count_what_the_top_level_ran(tmp_path):
    # the top level runs 300 rounds and more; a fight of 10 to 100 rounds passes a limit 55 steps
    # beyond the top level's for the high rolls: only if its count goes on from the top level's
    body = """\
    repeat 10 * d10 { }
    return pick(enc)"""
    top_level = Prepared.of(compiled(tmp_path, body, before="repeat 300 { }")).steps
    assert top_level >= 300
    script = compiled(tmp_path, body, before="repeat 300 { }", limits=Limits(steps=top_level + 55))
    set_up, fought_whole = outcomes(script)
    assert any(type(o) is str and "steps" in o for o in fought_whole)
    assert any(type(o) is not str for o in fought_whole)
    assert [o is None for o in set_up] == [type(o) is str for o in fought_whole]
    same_batch(script)
