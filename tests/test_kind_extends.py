"""Kinds that extend kinds (issue 23, item 3): `kind Boss extends Unit { ... }` parsed into a kind
holding its parent's items; the characters it makes (inherited fields, new defaults, a child where
the parent is asked for: its fields, the checker's, `is_a`); `mech check`'s errors with their place,
caret and hint; the closures and the written back end fighting such kinds alike; `:help KIND`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mechscript
from mechscript.backend.quiet import QuietFight
from mechscript.interpreter import ast
from mechscript.interpreter.parser import parse_program
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
from mechscript.sim.batch import run_seed
from mechscript.sim.prepared import fight_once

from support import mech_forked
from test_repl import CTRL_D, ENTER, Terminal

KINDS = """\
kind Weapon {
    stat power 1..6 = 2
}
kind Unit {
    stat skill 1..10
    stat armor 0..3 = 0
    derived hp_max = 8 + armor
    state hp = hp_max
    state hits = 0
    gear weapon: Weapon
}
kind Boss extends Unit {
    stat armor = 2
    state rage = 0
}
kind Overlord extends Boss {
    derived hp_max = 14
    stat title ["lord", "tyrant"] = "lord"
}
"""

# A module fighting Units, Bosses and Overlords: its rules read the inherited fields, and a Boss
# (or an Overlord) grows in rage as it is hit, which `is_a` tells.
BRAWL = KINDS + """
fn standing(c) = c.hp > 0

fn power(c) {
    let best = 1
    for w in c.weapon { best = max(best, w.power) }
    if is_a(c, "Boss") { best += c.rage }
    return best
}

fn foe_of(c, encounter) {
    for o in encounter.characters {
        if o.side != c.side and standing(o) { return o }
    }
    return none
}

fn fight(encounter) {
    while not ended(encounter) {
        encounter.round += 1
        for c in encounter.characters {
            let foe = foe_of(c, encounter)
            if standing(c) and foe != none and d10 + c.skill > d10 + foe.skill {
                foe.hp -= max(0, power(c) - foe.armor + d4)
                c.hits += 1
                if is_a(foe, "Boss") { foe.rage += 1 }
            }
        }
    }
    for c in encounter.characters {
        if standing(c) { return c.side }
    }
    return none
}
"""

FIGHT = """\
use brawl
character Grunt is brawl.Unit { skill 5; weapon Club { power 3 } }
character Grunt2 is brawl.Unit { skill 6; armor 1 }
character Megatron is brawl.Boss { skill 5; weapon Cannon { power 4 } }
character Galvatron is brawl.Overlord { skill 3; title "tyrant" }
encounter "x" {
    side autobots: Grunt, Grunt2
    side decepticons: Megatron, Galvatron
    until one_side_left or round > 20
}
"""


def said(text: str) -> list[str]:
    return mechscript.run(text, seed=1).log


def checked(tmp_path: Path, text: str, module: str | None = None):
    """`mech check` of `text` saved as script.mech (beside `module` saved as brawl.mech)."""
    if module is not None:
        (tmp_path / "brawl.mech").write_text(module)
    (tmp_path / "script.mech").write_text(text)
    return mech_forked(["check", "script.mech"], tmp_path)


# ---- parsing ----

def test_a_kind_that_extends_holds_its_parent_s_items_first_then_its_own():
    program = parse_program(KINDS, "kinds.mech")
    kinds = {s.name: s for s in program.statements if type(s) is ast.KindDef}
    boss, overlord = kinds["Boss"], kinds["Overlord"]
    assert boss.extends == ["Unit"] and boss.ancestors == ["Unit"]
    assert overlord.ancestors == ["Boss", "Unit"] and kinds["Unit"].ancestors == []
    assert [(i.what, i.name, i.inherited) for i in boss.items] == [
        ("stat", "skill", "Unit"), ("stat", "armor", None), ("derived", "hp_max", "Unit"), ("state", "hp", "Unit"),
        ("state", "hits", "Unit"), ("gear", "weapon", "Unit"), ("state", "rage", None)]
    # the new default keeps the parent's range; an item from two steps away names the kind that declared it
    armor = boss.items[1]
    assert (armor.low.value, armor.high.value, armor.value.value) == (0, 3, 2)
    assert [(i.name, i.inherited) for i in overlord.items] == [
        ("skill", "Unit"), ("armor", "Boss"), ("hp_max", None), ("hp", "Unit"), ("hits", "Unit"), ("weapon", "Unit"),
        ("rage", "Boss"), ("title", None)]
    # the parent's own items are left as they were
    assert [i.inherited for i in kinds["Unit"].items] == [None] * 6


def test_a_kind_may_extend_one_declared_below_it():
    program = parse_program("kind Boss extends Unit { state rage = 0 }\nkind Unit { state hp = 5 }\n", "k.mech")
    assert [i.name for i in program.statements[0].items] == ["hp", "rage"]


# ---- characters of a kind that extends ----

def test_a_character_of_the_child_has_the_parent_s_fields_and_the_new_defaults():
    log = said(KINDS + """
character Grunt is Unit { skill 4 }
character Megatron is Boss { skill 6; weapon Cannon { power 5 } }
character Galvatron is Overlord { skill 3; armor 1 }
for c in [Grunt, Megatron, Galvatron] {
    say "{c} {c.kind}: armor {c.armor} hp {c.hp}/{c.hp_max} weapons {len(c.weapon)} rage {has(c, "rage")}"
}
say "{Megatron.weapon[0].power} {Galvatron.title}"
""")
    assert log == ["Grunt Unit: armor 0 hp 8/8 weapons 0 rage false",
                   # hp_max (declared above in Unit) reads the Boss's default armor 2
                   "Megatron Boss: armor 2 hp 10/10 weapons 1 rage true",
                   # Overlord's new formula for hp_max is the one hp starts from
                   "Galvatron Overlord: armor 1 hp 14/14 weapons 0 rage true",
                   "5 lord"]


def test_the_child_s_stats_are_checked_against_the_parent_s_range():
    with pytest.raises(mechscript.MechError) as error:
        said(KINDS + "character Megatron is Boss { skill 6; armor 4 }\n")
    assert "`armor` of Boss is a whole number from 0 to 3, not 4" in str(error.value)


def test_state_inherited_changes_and_a_stat_inherited_does_not():
    log = said(KINDS + "character M is Boss { skill 6 }\nM.hp -= 3\nM.rage += 1\nsay \"{M.hp} {M.rage}\"\n")
    assert log == ["7 1"]
    with pytest.raises(mechscript.MechError) as error:
        said(KINDS + "character M is Boss { skill 6 }\nM.skill = 2\n")
    assert "`skill` is a stat of M and does not change" in str(error.value)


def test_is_a_accepts_the_kind_and_the_kinds_that_extend_it():
    log = said(KINDS + """
character Grunt is Unit { skill 4 }
character Megatron is Boss { skill 6 }
character Galvatron is Overlord { skill 3 }
for c in [Grunt, Megatron, Galvatron] {
    say "{c}: {is_a(c, "Unit")} {is_a(c, "Boss")} {is_a(c, "Overlord")} {is_a(c, "Weapon")}"
}
""")
    assert log == ["Grunt: true false false false", "Megatron: true true false false", "Galvatron: true true true false"]


@pytest.mark.parametrize("call, message", [
    ('is_a(G, "Bos")', "`is_a` asks for kind `Bos`, which G's rules do not declare"),
    ('is_a(3, "Boss")', "`is_a` takes a character, not a number"),
    ("is_a(G, Boss)", "`is_a` takes the kind's name as a string, not a kind"),
])
def test_is_a_refuses_what_would_be_a_test_that_is_never_true(call, message):
    with pytest.raises(mechscript.MechError) as error:
        said(KINDS + f"character G is Unit {{ skill 4 }}\nsay {call}\n")
    assert message in str(error.value)
    if "Bos`" in message:
        assert "did you mean `Boss`?" in str(error.value.hint)


def test_the_checker_knows_the_inherited_fields_and_still_catches_an_unknown_one(tmp_path):
    ok = checked(tmp_path, "use brawl\ncharacter M is brawl.Boss { skill 4 }\nsay M.hp + M.rage\n"
                 "fn hurt(c) { c.hp -= 1 }\nhurt(M)\n", BRAWL)
    assert ok.code == 0, ok.err
    typo = checked(tmp_path, "use brawl\ncharacter M is brawl.Boss { skill 4 }\nsay M.rag\n")
    assert typo.code == 1
    assert typo.err == ("script.mech:3:7: M (a Boss) has no `rag`\n"
                        "  say M.rag\n"
                        "        ^~~\n"
                        "  hint: did you mean `rage`?\n")
    # a field of the child only, read on a character of the parent
    parent = checked(tmp_path, "use brawl\ncharacter G is brawl.Unit { skill 4 }\nsay G.rage\n")
    assert parent.code == 1 and "script.mech:3:7: G (a Unit) has no `rage`" in parent.err


# ---- mech check's errors ----

@pytest.mark.parametrize("text, expected", [
    ("kind Unit { state hp = 5 }\nkind Boss extends Unti { state rage = 0 }\n",
     "script.mech:2:19: kind `Boss` extends `Unti`, which is not a kind declared here\n"
     "  kind Boss extends Unti { state rage = 0 }\n"
     "                    ^~~~\n"
     "  hint: did you mean `Unit`?\n"),
    ("kind Boss extends Unit { state rage = 0 }\n",
     "script.mech:1:19: kind `Boss` extends `Unit`, which is not a kind declared here\n"
     "  kind Boss extends Unit { state rage = 0 }\n"
     "                    ^~~~\n"
     "  hint: a kind extends a kind declared beside it, in the same file (in the REPL, the same entry)\n"),
    ("kind A extends C { state a = 1 }\nkind B extends A { state b = 1 }\nkind C extends B { state c = 1 }\n",
     "script.mech:2:16: kind `B` extends itself: B extends A extends C extends B\n"
     "  kind B extends A { state b = 1 }\n"
     "                 ^\n"
     "  hint: one of these kinds declares its items without `extends`\n"),
    ("kind A extends A { state a = 1 }\n",
     "script.mech:1:16: kind `A` extends itself: A extends A\n"
     "  kind A extends A { state a = 1 }\n"
     "                 ^\n"
     "  hint: one of these kinds declares its items without `extends`\n"),
    ("kind Unit { state hp = 5 }\nkind Boss extend Unit { state rage = 0 }\n",
     "script.mech:2:11: a kind's name is followed by `{` or `extends KIND`, not `extend`\n"
     "  kind Boss extend Unit { state rage = 0 }\n"
     "            ^~~~~~\n"
     "  hint: did you mean `extends`?\n"),
    ("kind Unit { state hp = 5 }\nkind Boss extends Unit { stat hp 1..9 }\n",
     "script.mech:2:31: `hp` is a state of Unit; Boss cannot make it a stat\n"
     "  kind Boss extends Unit { stat hp 1..9 }\n"
     "                                ^~\n"
     "  hint: a kind extending Unit may give `hp` a new starting value: `state hp = ...`\n"),
    ("kind Unit { stat arm [\"gun\", \"claw\"] = \"gun\" }\nkind Boss extends Unit { stat arm [\"gun\"] = \"gun\" }\n",
     "script.mech:2:31: `arm` of Unit allows other values than this; Boss can give it a new default, not other "
     "values\n"
     "  kind Boss extends Unit { stat arm [\"gun\"] = \"gun\" }\n"
     "                                ^~~\n"
     "  hint: leave the range out to keep Unit's: `stat arm = ...`\n"),
    ("kind W { stat p 1..3 }\nkind V { stat p 1..3 }\nkind Unit { gear arm: W }\nkind Boss extends Unit { gear arm: V }\n",
     "script.mech:4:36: `arm` of Unit holds W; Boss cannot make it hold V\n"
     "  kind Boss extends Unit { gear arm: V }\n"
     "                                     ^\n"
     "  hint: gear arm: W\n"),
], ids=["unknown", "none-here", "loop", "itself", "word", "state-as-stat", "other-choices", "gear-kind"])
def test_mech_check_refuses_a_kind_that_cannot_extend(tmp_path, text, expected):
    ran = checked(tmp_path, text)
    assert (ran.code, ran.out, ran.err) == (1, "", expected)


def test_a_script_cannot_yet_extend_a_module_s_kind(tmp_path):
    ran = checked(tmp_path, "use brawl\nkind Mine extends brawl.Unit { state mood = 0 }\n", BRAWL)
    assert ran.code == 1
    assert ran.err.startswith("script.mech:2:19: kind `Mine` extends `brawl.Unit`, a kind of another module\n"
                              "  kind Mine extends brawl.Unit { state mood = 0 }\n"
                              "                    ^~~~~~~~~~\n"
                              "  hint: a kind extends a kind declared beside it, in the same file")


def test_the_same_range_written_again_is_accepted():
    assert said("kind U { stat s 1..4 }\nkind B extends U { stat s 1..4 = 3 }\ncharacter X is B {}\nsay X.s\n") == ["3"]


# ---- fights: the closures and the written back end ----

def test_a_fight_of_kinds_that_extend_is_fought_alike_by_the_closures_and_the_written_code(tmp_path):
    (tmp_path / "brawl.mech").write_text(BRAWL)
    script = compile_script(FIGHT, str(tmp_path / "fight.mech"), tmp_path, Limits())
    quiet = QuietFight(script)
    outcomes, rages = set(), set()
    for index in range(150):
        seed = run_seed(1, index)
        fought = quiet.fight(seed)
        assert fought is not None, f"run {index} (seed {seed}) bailed"
        assert fought == fight_once(script, seed), f"run {index} (seed {seed})"
        winner, _, states = fought[0]
        outcomes.add(winner)
        rages.add(states["Megatron"][1]["rage"])
    assert outcomes == {"autobots", "decepticons"}
    assert len(rages) > 2  # a Boss's rage (`is_a`) takes part in the fights compared


def test_the_fight_reports_the_child_s_own_state_too(tmp_path):
    (tmp_path / "brawl.mech").write_text(BRAWL)
    (tmp_path / "fight.mech").write_text(FIGHT)
    ran = mech_forked(["run", "fight.mech", "--seed", "1", "--json"], tmp_path)
    assert ran.code == 0, ran.err
    characters = json.loads(ran.out)["result"]["characters"]
    assert set(characters["Grunt"]) == {"side", "hp", "hits"}
    assert set(characters["Megatron"]) == {"side", "hp", "hits", "rage"}


# ---- the REPL ----

def test_help_of_a_kind_that_extends_lists_what_it_inherits():
    printed = Terminal().run("kind Unit { stat speed 1..10; state hp = 5 }; kind Boss extends Unit { state hp = 9; "
                             "state rage = 0 }" + ENTER, ":help Boss" + ENTER, CTRL_D)
    at = printed.index("kind Boss: a kind of this session, with these fields:")
    assert printed[at + 1:at + 5] == ["  extends Unit: its own fields first, then what it inherits `(from KIND)`",
                                      "  state   hp     = 9",
                                      "  state   rage   = 0",
                                      "  stat    speed  1 to 10, required  (from Unit)"]


# ---- the standard modules ----

def test_robomacs_kinds_extend_fighter_and_keep_their_own_names():
    log = said("""use robomacs
character Mac is RoboMAC { brawn 1 }
character Johnny is Pilot { guts 0  reflexes 0 }
character Gigantic is Robo { brawn 0  pilot Johnny }
character Trooper is Npc { chart "NT" }
for c in [Mac, Johnny, Gigantic, Trooper] {
    say "{c.kind} {is_a(c, "Fighter")} {is_a(c, "Robo")} {c.status} {len(c.skill)} {c.merging}"
}
""")
    assert log == ["RoboMAC true false active 0 0", "Pilot true false active 0 0", "Robo true true active 0 0",
                   "Npc true false active 0 0"]
