"""Kinds, characters and encounters (shared/design/mechscript.md, the `character` and `encounter`
forms; mechscript/interpreter/characters.py).

Every mistake a user can make in a kind, a character declaration or an encounter is one small
wrong script, written to its own folder with the modules it uses beside it. Its error is checked as
the user sees it: `FILE:LINE:COL: message`, the quoted line, the caret under the spot, the hint; from
the Python API and from `mech run` (and `mech check`, for what the checker finds). The rules are
written in the tests themselves (a tiny module `rules.mech`), never taken from the standard library.

Then what works: stats, defaults, derived values and state, gear, the fight with its sides, the
result as `mech run` prints it and as `--json` gives it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import mechscript
from support import api_errors, error_file, mech_forked, write_case

# A tiny rules module: two kinds, two options, and the two rules an encounter needs. Its fight has
# no dice: each round, every standing robot hits the first standing robot of another side for its
# strength (plus `damage_bonus`), so every result is worked out by hand.
RULES = """\
let max_rounds = 20
let damage_bonus = 0
kind Weapon {
    stat uses ["gun", "fists", "blade"] = "gun"
    stat power 1..5 = 2
}
kind Robot {
    stat strength 1..10
    stat speed 1..10 = 5
    stat style ["gun", "fists"] = "fists"
    derived hp_max = strength * 2
    derived tn = floor(2.5 * speed)
    state hp = hp_max
    state hits = 0
    gear weapon: Weapon
}
fn standing(robot) = robot.hp > 0
fn enemy(battle, robot) {
    for other in battle.characters {
        if other.side != robot.side and standing(other) { return other }
    }
    return none
}
fn fight(battle) {
    say "fighting {battle.name}, at most {max_rounds} rounds, damage bonus {damage_bonus}"
    while not ended(battle) {
        battle.round += 1
        for robot in battle.characters {
            let target = enemy(battle, robot)
            if standing(robot) and target != none {
                target.hp -= robot.strength + damage_bonus
                robot.hits += 1
                say "round {battle.round}: {robot} ({robot.side}) hits {target} ({target.side}), {target.hp} hp left"
            }
        }
    }
    let left = none
    for side in battle.sides {
        for robot in side.members {
            if standing(robot) and left != side.name {
                if left != none { return none }
                left = side.name
            }
        }
    }
    return left
}
"""

# Rules that lack one of the two rules, or break them.
ROBOT = "kind Robot {\n    stat strength 1..10\n    state hp = strength\n}\n"
NO_FIGHT = ROBOT + "fn standing(robot) = robot.hp > 0\n"
NO_STANDING = ROBOT + "fn fight(battle) = none\n"
FIGHT_TAKES_TWO = ROBOT + "fn standing(robot) = true\nfn fight(battle, rounds) = none\n"
BAD_WINNER = ROBOT + "fn standing(robot) = true\nfn fight(battle) {\n    battle.round = 1\n    return \"nobody\"\n}\n"
NUMBER_WINNER = ROBOT + "fn standing(robot) = true\nfn fight(battle) = 1\n"
STANDING_NUMBER = ROBOT + ("fn standing(robot) = robot.hp\nfn fight(battle) {\n"
                           "    while not ended(battle) { battle.round += 1 }\n    return none\n}\n")
# Kinds whose own formulas are wrong: the errors are the module's, and point into it.
BROKEN_KINDS = """\
kind Gauge {
    stat level 1..3 = 5
}
kind Dial {
    stat mode ["low", "high"] = "medium"
}
kind Ratio {
    stat parts 0..3
    derived share = 6 / parts
}
"""
# A module that declares characters (that is fine) and an encounter (that is not).
ROSTER_WITH_ENCOUNTER = """\
use rules
character Punch is Robot { strength 6 }
character Ransack is Robot { strength 5 }
encounter "In a module" {
    side autobots: Punch
    side decepticons: Ransack
}
"""
OTHER_RULES = "kind Jet {\n    stat thrust 1..10\n}\nfn standing(jet) = true\nfn fight(battle) = none\n"

TWO = "character Punch is Robot { strength 6 }\ncharacter Ransack is Robot { strength 5 }\n"
SIDES = "    side autobots: Punch\n    side decepticons: Ransack\n"
OPTIONS_HINT = "options: max_rounds, damage_bonus"
STATE_HINT = "what changes in a fight is the kind's state: hits, hp"
GEAR_NAME_HINT = 'weapon Blowpipe { ... }  or  weapon "concussion rifle"'


@dataclass
class Case:
    id: str
    source: str                  # the script, main.mech; `use rules` on its first line unless it says otherwise
    message: str
    line: int
    spot: str                    # the text the caret sits under, on that line
    hint: str | None
    when: str = "check"          # "check": the checker finds it; "run": only running does
    modules: dict = field(default_factory=lambda: {"rules.mech": RULES})
    file: str = "main.mech"      # the file the error is reported in
    stdout: str = ""             # what `mech run` prints before the error
    col: int | None = None       # when the spot is not the first of its text on the line


def use(source: str) -> str:
    return "use rules\n" + source


CASES = [
    # ---- a character's entries, against its kind (the checker) ----
    Case("unknown_stat_did_you_mean", use("character Punch is Robot { strenght 6 }\n"),
         "Robot has no stat `strenght`", 2, "strenght", "did you mean `strength`?"),
    Case("unknown_stat_lists_the_stats", use("character Punch is Robot { strength 6  armor 3 }\n"),
         "Robot has no stat `armor`", 2, "armor", "the stats of Robot: strength, speed, style"),
    Case("missing_stat", use("character Punch is Robot { speed 4 }\n"),
         "missing stat of Robot: strength", 2, "Punch", "add strength ..."),
    Case("missing_stats", "kind Jet {\n    stat altitude 1..10\n    stat thrust 1..10\n}\ncharacter Starscream is Jet { }\n",
         "missing stats of Jet: altitude, thrust", 5, "Starscream", "add altitude ...  thrust ...", modules={}),
    Case("derived_given_by_hand", use("character Punch is Robot { strength 6  hp_max 20 }\n"),
         "`hp_max` is worked out by kind Robot from its stats; it cannot be given", 2, "hp_max",
         "give the stats it comes from"),
    Case("stat_given_twice", use("character Punch is Robot {\n    strength 6\n    speed 4  strength 7\n}\n"),
         "`strength` is given twice (line 3)", 4, "strength", None),
    Case("state_given_twice", use("character Punch is Robot { strength 6; hp 3; hp 4 }\n"),
         "`hp` is given twice (line 2)", 2, "hp", None, col=46),
    Case("entries_on_a_plain_stat", use("character Punch is Robot { strength 6 { power 3 } }\n"),
         "`strength` is a value of Robot; only gear items have entries of their own", 2, "strength", None),
    Case("gear_item_named_by_a_number", use("character Punch is Robot { strength 6  weapon 3 }\n"),
         "a `weapon` is named by a name or plain text", 2, "3", GEAR_NAME_HINT),
    Case("gear_item_named_by_interpolated_text",
         use('let n = 2\ncharacter Punch is Robot { strength 6  weapon "gun {n}" }\n'),
         "a `weapon` is named by a name or plain text", 3, '"gun {n}"', GEAR_NAME_HINT),
    Case("gear_item_unknown_stat", use('character Punch is Robot { strength 6\n    weapon Blowpipe { usse "gun" }\n}\n'),
         "Weapon has no stat `usse`", 3, "usse", "did you mean `uses`?"),
    Case("unknown_kind_did_you_mean", use("character Punch is Robto { strength 6 }\n"),
         "unknown kind `Robto`", 2, "Robto", "did you mean `Robot`?"),
    Case("unknown_kind_without_rules", "character Punch is Transformer { strength 6 }\n",
         "unknown kind `Transformer`", 1, "Transformer", "kinds come from rules modules: `use pbem` gives `Transformer`",
         modules={}),
    Case("unknown_kind_of_a_module", use("character Punch is rules.Robto { strength 6 }\n"),
         "module `rules` has no kind `Robto`", 2, "rules.Robto", "did you mean `Robot`?"),
    Case("kind_of_a_module_not_used", "character Punch is rules.Robot { strength 6 }\n",
         "`rules` is not a module this script uses", 1, "rules.Robot", "add `use rules` at the top of the script"),
    Case("a_function_is_not_a_kind", use("character Punch is standing { strength 6 }\n"),
         "`standing` is a function, not a kind", 2, "standing", None),
    Case("a_variable_is_not_a_kind", use("character Punch is max_rounds { strength 6 }\n"),
         "`max_rounds` is a variable, not a kind", 2, "max_rounds", None),
    Case("a_character_is_not_a_kind", use("character Punch is Robot { strength 6 }\ncharacter Ransack is Punch { strength 5 }\n"),
         "`Punch` is a character, not a kind", 3, "Punch", None),
    Case("assigning_to_a_character", use("character Punch is Robot { strength 6 }\nPunch = 3\n"),
         "`Punch` is a character and cannot be assigned to", 3, "Punch", None),

    # ---- a kind (the checker) ----
    Case("kind_declares_an_own_field", "kind Jet {\n    stat name [\"Starscream\"]\n}\n",
         "`name` is every character's own name; a kind cannot declare it", 2, "name",
         "call it something else, e.g. `name_of`", modules={}),
    Case("kind_declares_a_name_twice", "kind Jet {\n    stat speed 1..10\n    state speed = 3\n}\n",
         "`speed` is declared twice in kind `Jet` (line 2)", 3, "speed", None, modules={}),
    Case("gear_of_an_unknown_kind", "kind Jet {\n    gear missile: Misile\n}\nkind Missile { stat yield 1..3 = 1 }\n",
         "unknown kind `Misile`", 2, "Misile", "did you mean `Missile`?", modules={}),
    Case("formula_reads_a_later_stat", "kind Jet {\n    derived lift = thrust * 2\n    stat thrust 1..10\n}\n",
         "unknown name `thrust`", 2, "thrust", "a formula sees the items above it, and this one is declared below `lift`",
         modules={}),

    # ---- a character's values, when it is made ----
    Case("value_above_its_range", use('say "before"\ncharacter Punch is Robot { strength 11 }\n'),
         "`strength` of Robot is a whole number from 1 to 10, not 11", 3, "11", None, stdout="before\n"),
    Case("value_below_its_range", use("character Punch is Robot { strength 6  speed 0 }\n"),
         "`speed` of Robot is a whole number from 1 to 10, not 0", 2, "0", None),
    Case("value_not_a_choice_did_you_mean", use('character Punch is Robot { strength 6  style "gunn" }\n'),
         '`style` of Robot is one of "gun", "fists", not "gunn"', 2, '"gunn"', 'did you mean "gun"?'),
    Case("value_not_a_choice", use('character Punch is Robot { strength 6  style "laser" }\n'),
         '`style` of Robot is one of "gun", "fists", not "laser"', 2, '"laser"', None),
    Case("number_for_choices", use("character Punch is Robot { strength 6  style 3 }\n"),
         '`style` of Robot is one of "gun", "fists", not 3', 2, "3", None),
    Case("fraction_for_a_range_stat", use("character Punch is Robot { strength 5/2 }\n"),
         "`strength` of Robot is a whole number from 1 to 10, not 5/2", 2, "5/2", None),
    Case("decimal_for_a_range_stat", use("character Punch is Robot { strength 2.5 }\n"),
         "`strength` of Robot is a whole number from 1 to 10, not 5/2", 2, "2.5", None),
    Case("text_for_a_range_stat", use('character Punch is Robot { strength "six" }\n'),
         '`strength` of Robot is a whole number from 1 to 10, not "six"', 2, '"six"', None),
    Case("gear_item_value_out_of_range", use("character Punch is Robot { strength 6\n    weapon Blowpipe { power 9 }\n}\n"),
         "`power` of Weapon is a whole number from 1 to 5, not 9", 3, "9", None),
    Case("gear_item_not_a_choice", use('character Punch is Robot { strength 6  weapon Sword { uses "blades" } }\n'),
         '`uses` of Weapon is one of "gun", "fists", "blade", not "blades"', 2, '"blades"', 'did you mean "blade"?'),
    # the kind's own mistakes are shown in the kind's file, not in the script making the character
    Case("default_outside_its_range", "use broken\ncharacter G is Gauge { }\n",
         "`level` of Gauge is a whole number from 1 to 3, not 5", 2, "5", None,
         modules={"broken.mech": BROKEN_KINDS}, file="broken.mech"),
    Case("default_not_a_choice", "use broken\ncharacter D is Dial { }\n",
         '`mode` of Dial is one of "low", "high", not "medium"', 5, '"medium"', None,
         modules={"broken.mech": BROKEN_KINDS}, file="broken.mech"),
    Case("derived_formula_fails", 'use broken\nsay "before"\ncharacter R is Ratio { parts 0 }\n',
         "division by zero", 9, "parts", "the right side of this operator is 0",
         modules={"broken.mech": BROKEN_KINDS}, file="broken.mech", stdout="before\n"),
    Case("range_bound_not_a_number", 'let top = "ten"\nkind Gauge {\n    stat level 1..top\n}\ncharacter G is Gauge { level 3 }\n',
         "a stat's range goes between numbers, and this is a string", 3, "top", None, modules={}),

    # ---- only state changes ----
    Case("setting_a_stat", use("character Punch is Robot { strength 6 }\nPunch.speed = 3\n"),
         "`speed` is a stat of Punch and does not change", 3, "speed", STATE_HINT),
    Case("adding_to_a_stat", use("character Punch is Robot { strength 6 }\nPunch.strength += 1\n"),
         "`strength` is a stat of Punch and does not change", 3, "strength", STATE_HINT),
    Case("setting_a_derived_value", use("character Punch is Robot { strength 6 }\nPunch.hp_max = 30\n"),
         "`hp_max` is a derived value of Punch and does not change", 3, "hp_max", STATE_HINT),
    Case("setting_a_gear_list", use("character Punch is Robot { strength 6 }\nPunch.weapon = []\n"),
         "`weapon` is a gear list of Punch and does not change", 3, "weapon", STATE_HINT),
    Case("setting_the_side", use('character Punch is Robot { strength 6 }\nPunch.side = "autobots"\n'),
         "`side` is an own field of Punch and does not change", 3, "side", STATE_HINT),
    Case("unknown_field_did_you_mean", use("character Punch is Robot { strength 6 }\nsay Punch.hpp\n"),
         "Punch (a Robot) has no `hpp`", 3, "hpp", "did you mean `hp`?"),
    Case("setting_an_unknown_field", use("character Punch is Robot { strength 6 }\nPunch.armour = 2\n"),
         "Punch (a Robot) has no `armour`", 3, "armour", None),

    # ---- the encounter: where, and how many ----
    Case("encounter_in_a_module", "use roster\nsay Punch\n",
         "an encounter is declared at the top level of the script that is run", 4, 'encounter "In a module" {',
         "a module can hold characters; the script fighting them declares the encounter",
         modules={"rules.mech": RULES, "roster.mech": ROSTER_WITH_ENCOUNTER}, file="roster.mech"),
    Case("encounter_inside_a_block", use(TWO + 'if true {\n    encounter "Inside" {\n' + SIDES + "    }\n}\n"),
         "an encounter is declared at the top level of the script that is run", 5, 'encounter "Inside" {',
         "a module can hold characters; the script fighting them declares the encounter"),
    Case("two_encounters_of_one_name", use(TWO + 'encounter "First" {\n' + SIDES + '}\nencounter "First" {\n' + SIDES
                                           + "}\n"),
         'two encounters are named "First" (the first is on line 4)', 8, '"First"',
         "give each encounter of a script its own name"),
    # several encounters: `mech check` checks them all; a run must be told which to fight
    Case("two_encounters_none_named", use(TWO + 'encounter "First" {\n' + SIDES + '}\nencounter "Second" {\n' + SIDES
                                          + "}\n"),
         "this script has 2 encounters; say which one to fight", 8, '"Second"',
         "choose one with --encounter First, --encounter Second (Python: encounter=NAME)", when="run"),

    # ---- the encounter's sides ----
    Case("encounter_with_one_side", use(TWO + 'encounter "Alone" {\n    side autobots: Punch, Ransack\n}\n'),
         "an encounter needs two sides or more", 4, 'encounter "Alone" {',
         "one `side NAME: ...` line per side: side decepticons: Triggerhappy, Ransack"),
    Case("side_declared_twice", use(TWO + 'encounter "Twice" {\n    side autobots: Punch\n    side autobots: Ransack\n}\n'),
         "side `autobots` is declared twice", 6, "autobots", None),
    Case("a_function_on_a_side", use(TWO + 'encounter "E" {\n    side autobots: Punch\n    side decepticons: standing\n}\n'),
         "`standing` is a function, not a character", 6, "standing", None),
    Case("a_kind_on_a_side", use(TWO + 'encounter "E" {\n    side autobots: Punch\n    side decepticons: Robot\n}\n'),
         "`Robot` is a kind, not a character", 6, "Robot", None),
    Case("a_number_on_a_side", use(TWO + 'let crowd = 3\nencounter "E" {\n    side autobots: Punch\n    side decepticons: crowd\n}\n'),
         "a side is made of characters, and this is a number", 7, "crowd", None),
    Case("a_character_on_two_sides", use(TWO + 'encounter "E" {\n    side autobots: Punch\n    side decepticons: Ransack, Punch\n}\n'),
         "Punch is already on side autobots", 6, "Punch", None),
    Case("characters_of_other_rules",
         "use rules\nuse jets\ncharacter Punch is Robot { strength 6 }\ncharacter Starscream is Jet { thrust 7 }\n"
         'encounter "E" {\n    side autobots: Punch\n    side decepticons: Starscream\n}\n',
         "Starscream is a Jet and Punch a Robot of other rules: one encounter is fought by one module's rules",
         7, "Starscream", None, modules={"rules.mech": RULES, "jets.mech": OTHER_RULES}),
    Case("encounter_title_with_braces", use(TWO + 'let n = 1\nencounter "Round {n}" {\n' + SIDES + "}\n"),
         "an encounter's name is plain text, without `{...}`", 5, '"Round {n}"', None),

    # ---- settings and `until` ----
    Case("unknown_setting_did_you_mean", use(TWO + 'encounter "E" {\n' + SIDES + "    max_round: 5\n}\n"),
         "the rules of kind Robot have no option `max_round`", 7, "max_round", "did you mean `max_rounds`?"),
    Case("unknown_setting_lists_the_options", use(TWO + 'encounter "E" {\n' + SIDES + "    weather: 5\n}\n"),
         "the rules of kind Robot have no option `weather`", 7, "weather", OPTIONS_HINT),
    Case("a_rule_is_not_a_setting", use(TWO + 'encounter "E" {\n' + SIDES + "    standing: 5\n}\n"),
         "the rules of kind Robot have no option `standing`", 7, "standing", OPTIONS_HINT),
    Case("setting_given_twice", use(TWO + 'encounter "E" {\n' + SIDES + "    max_rounds: 5\n    max_rounds: 6\n}\n"),
         "setting `max_rounds` is given twice", 8, "max_rounds", None),
    Case("two_untils", use(TWO + 'encounter "E" {\n' + SIDES + "    until round > 3\n    until one_side_left\n}\n"),
         "an encounter has one `until`", 8, "one_side_left", "join the conditions: `until one_side_left or round > 20`"),
    Case("until_not_a_boolean", use(TWO + 'encounter "E" {\n' + SIDES + "    until round\n}\n"),
         "`until` gives true or false, not a number", 7, "round", "until one_side_left or round > 20",
         stdout="fighting E, at most 20 rounds, damage bonus 0\n"),
    Case("until_fails", use(TWO + 'encounter "E" {\n' + SIDES + "    until Punch.hpp < 1\n}\n"),
         "Punch (a Robot) has no `hpp`", 7, "hpp", "did you mean `hp`?",
         stdout="fighting E, at most 20 rounds, damage bonus 0\n"),
    Case("until_reads_an_unknown_name", use(TWO + 'encounter "E" {\n' + SIDES + "    until rounds > 3\n}\n"),
         "unknown name `rounds`", 7, "rounds", "did you mean `round`?"),

    # ---- the rules an encounter needs ----
    Case("rules_without_fight", use(TWO + 'encounter "E" {\n' + SIDES + "}\n"),
         "the rules of kind Robot have no `fn fight(encounter)`, so they cannot fight an encounter", 4,
         'encounter "E" {', "a rules module fighting encounters defines `fight` and `standing`",
         modules={"rules.mech": NO_FIGHT}),
    Case("rules_without_standing", use(TWO + 'encounter "E" {\n' + SIDES + "}\n"),
         "the rules of kind Robot have no `fn standing(character)`, so they cannot fight an encounter", 4,
         'encounter "E" {', "a rules module fighting encounters defines `fight` and `standing`",
         modules={"rules.mech": NO_STANDING}),
    Case("fight_takes_two_arguments", use(TWO + 'encounter "E" {\n' + SIDES + "}\n"),
         "the rules of kind Robot have no `fn fight(encounter)`, so they cannot fight an encounter", 4,
         'encounter "E" {', "a rules module fighting encounters defines `fight` and `standing`",
         modules={"rules.mech": FIGHT_TAKES_TWO}),
    Case("fight_gives_a_name_that_is_not_a_side", use(TWO + 'encounter "E" {\n' + SIDES + "}\n"),
         '`fight` gave "nobody" as the winner, which is not a side of the encounter (autobots, decepticons) or none',
         4, 'encounter "E" {', None, modules={"rules.mech": BAD_WINNER}),
    Case("fight_gives_a_number", use(TWO + 'encounter "E" {\n' + SIDES + "}\n"),
         "`fight` gave 1 as the winner, which is not a side of the encounter (autobots, decepticons) or none",
         4, 'encounter "E" {', None, modules={"rules.mech": NUMBER_WINNER}),
    Case("standing_gives_a_number", use(TWO + 'encounter "E" {\n' + SIDES + "}\n"),
         "`standing` gave a number for Punch, not true or false", 7, "ended(battle)", None,
         modules={"rules.mech": STANDING_NUMBER}, file="rules.mech"),

    # ---- after a die: only running finds them (`mech check` runs the script up to its first die) ----
    Case("value_after_a_die", use("say d1\ncharacter Punch is Robot { strength 11 }\n"),
         "`strength` of Robot is a whole number from 1 to 10, not 11", 3, "11", None, when="run", stdout="1\n"),
    Case("value_from_a_die", use("character Punch is Robot { strength 10 + d1 }\n"),
         "`strength` of Robot is a whole number from 1 to 10, not 11", 2, "10 + d1", None, when="run"),
    Case("setting_a_stat_after_a_die", use("character Punch is Robot { strength 6 }\nif d1 == 1 { Punch.speed = 3 }\n"),
         "`speed` is a stat of Punch and does not change", 3, "speed", STATE_HINT, when="run"),
]
CASE_IDS = [case.id for case in CASES]
assert len(set(CASE_IDS)) == len(CASES)


def expected_lines(case: Case, script: Path) -> list[str]:
    """The error as `mech` shows it: where and what, the line, the caret under the spot, the hint."""
    text = case.source if case.file == "main.mech" else case.modules[case.file]
    line = text.split("\n")[case.line - 1]
    col = case.col if case.col is not None else line.index(case.spot) + 1
    assert line[col - 1:col - 1 + len(case.spot)] == case.spot, f"{case.id}: the spot is not at column {col}"
    lines = [f"{error_file(case, script)}:{case.line}:{col}: {case.message}",
             "  " + line,
             "  " + " " * (col - 1) + "^" + "~" * (len(case.spot) - 1)]
    if case.hint is not None:
        lines += ("  hint: " + case.hint).split("\n")
    return lines


def test_the_cases_cover_check_and_run():
    assert sum(case.when == "check" for case in CASES) >= 30
    assert sum(case.when == "run" for case in CASES) >= 3  # what comes after a die


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_api_error(case, tmp_path):
    script = write_case(tmp_path, case)
    errors = api_errors(case, script)
    for error in errors:
        assert error.message == case.message
        assert error.hint == case.hint
        assert error.filename == error_file(case, script)
        assert error.render().splitlines() == expected_lines(case, script)
    assert (getattr(errors[-1], "log", None) or []) == case.stdout.splitlines()


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """(case id, "run" | "check") -> what `mech` printed and its exit status; case id -> script."""
    root = tmp_path_factory.mktemp("characters")
    scripts = {case.id: write_case(root, case) for case in CASES}
    results = {}
    for case in CASES:
        results[case.id, "run"] = mech_forked(["run", str(scripts[case.id]), "--seed", "1"], root)
        results[case.id, "check"] = mech_forked(["check", str(scripts[case.id])], root)
    return results, scripts


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cli_error(case, cli):
    results, scripts = cli
    script = scripts[case.id]
    ran = results[case.id, "run"]
    assert ran.code == 1 and "Traceback" not in ran.err, ran
    assert ran.err.splitlines() == expected_lines(case, script), ran.err
    assert ran.out == case.stdout
    checked = results[case.id, "check"]
    if case.when == "check":
        assert checked.code == 1 and checked.err.splitlines() == expected_lines(case, script), checked
        assert checked.out == ""  # check shows nothing the script says
    else:
        assert (checked.code, checked.out, checked.err) == (0, f"{script}: ok\n", ""), checked


# ======================================================================================
# What works
# ======================================================================================

def run_script(tmp_path: Path, source: str, modules: dict | None = None, seed: int = 1):
    modules = {"rules.mech": RULES} if modules is None else modules
    for name, text in modules.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    script = tmp_path / "main.mech"
    script.write_text(source, encoding="utf-8")
    return mechscript.run(str(script), seed=seed), script


class TestCharacters:
    def test_stats_defaults_derived_values_and_state(self, tmp_path):
        ran, _ = run_script(tmp_path, use(
            "character Punch is Robot { strength 6  speed 4 }\n"
            "character Ransack is Robot { strength 3 }\n"
            'for robot in [Punch, Ransack] {\n'
            '    say "{robot}: {robot.strength} {robot.speed} {robot.style} {robot.hp_max} {robot.tn} {robot.hp} {robot.hits}"\n'
            "}\n"))
        assert ran.log == ["Punch: 6 4 fists 12 10 12 0", "Ransack: 3 5 fists 6 12 6 0"]
        assert ran.result is None  # no encounter, no result

    def test_a_state_given_starts_from_that_value_and_changes(self, tmp_path):
        ran, _ = run_script(tmp_path, use(
            "character Punch is Robot { strength 6; hp 2 }\n"
            "say Punch.hp\nPunch.hp -= 5\nPunch.hits += 1\nsay [Punch.hp, Punch.hits, Punch.hp_max]\n"))
        assert ran.log == ["2", "[-3, 1, 12]"]

    def test_each_character_has_its_own_state(self, tmp_path):
        ran, _ = run_script(tmp_path, "kind Log {\n    state seen = []\n}\ncharacter A is Log { }\n"
                            "character B is Log { }\npush(A.seen, 1)\nsay [A.seen, B.seen]\n", modules={})
        assert ran.log == ["[[1], []]"]

    def test_a_stat_rolled_when_the_character_is_made(self, tmp_path):
        ran, _ = run_script(tmp_path, use("character Punch is Robot { strength d10 }\nsay Punch.strength == Punch.hp_max / 2\n"))
        assert ran.log == ["true"]

    def test_gear_lists(self, tmp_path):
        ran, _ = run_script(tmp_path, use(
            "character Punch is Robot { strength 6\n"
            '    weapon Blowpipe { uses "fists"; power 4 }\n'
            '    weapon "concussion rifle"\n'
            "}\n"
            "character Ransack is Robot { strength 5 }\n"
            "say Punch.weapon\n"
            'for item in Punch.weapon { say "{item.name}: {item.kind} {item.uses} {item.power}" }\n'
            "say Ransack.weapon\nsay len(Punch.weapon)\n"))
        assert ran.log == ["[Blowpipe, concussion rifle]", "Blowpipe: Weapon fists 4", "concussion rifle: Weapon gun 2",
                           "[]", "2"]

    def test_own_fields(self, tmp_path):
        ran, _ = run_script(tmp_path, use(
            "character Punch is rules.Robot { strength 6 }\n"
            'say "{Punch.name} {Punch.kind} {Punch.side}"\nsay Punch\nsay Punch == Punch\n'))
        assert ran.log == ["Punch Robot none", "Punch", "true"]

    def test_formulas_see_the_rules_options(self, tmp_path):
        ran, _ = run_script(tmp_path, "let base = 10\nlet top = 4\nkind Jet {\n    stat thrust 1..top = top\n"
                            "    derived lift = base + thrust\n    state fuel = lift * 2\n}\n"
                            "character Starscream is Jet { }\nsay [Starscream.thrust, Starscream.lift, Starscream.fuel]\n",
                            modules={})
        assert ran.log == ["[4, 14, 28]"]

    def test_characters_declared_in_a_module(self, tmp_path):
        roster = "use rules\ncharacter Punch is Robot { strength 6 }\ncharacter Ransack is Robot { strength 5 }\n"
        ran, _ = run_script(tmp_path, 'use roster\nencounter "E" {\n' + SIDES + "}\n",
                            modules={"rules.mech": RULES, "roster.mech": roster})
        assert ran.result["winner"] == "autobots"


class TestEncounters:
    def test_the_fight_plays_after_the_top_level_and_sets_the_sides(self, tmp_path):
        ran, _ = run_script(tmp_path, use(
            TWO + "character Triggerhappy is Robot { strength 2 }\n"
            'encounter "Ambush at the dam" {\n    side autobots: Punch\n    side decepticons: Ransack, Triggerhappy\n}\n'
            'say "{Punch.side} before the fight"\n'))
        # Punch 12 hp, Ransack 10, Triggerhappy 4: round 1 Punch hits Ransack (4), Ransack hits Punch (7),
        # Triggerhappy hits Punch (5); round 2 Punch hits Ransack (-2), Triggerhappy hits Punch (3);
        # round 3 Punch hits Triggerhappy (-2): one side left.
        assert ran.log == [
            "none before the fight",
            "fighting Ambush at the dam, at most 20 rounds, damage bonus 0",
            "round 1: Punch (autobots) hits Ransack (decepticons), 4 hp left",
            "round 1: Ransack (decepticons) hits Punch (autobots), 7 hp left",
            "round 1: Triggerhappy (decepticons) hits Punch (autobots), 5 hp left",
            "round 2: Punch (autobots) hits Ransack (decepticons), -2 hp left",
            "round 2: Triggerhappy (decepticons) hits Punch (autobots), 3 hp left",
            "round 3: Punch (autobots) hits Triggerhappy (decepticons), -2 hp left",
        ]
        assert ran.result == {"winner": "autobots", "rounds": 3, "characters": {
            "Punch": {"side": "autobots", "hp": 3, "hits": 3},
            "Ransack": {"side": "decepticons", "hp": -2, "hits": 1},
            "Triggerhappy": {"side": "decepticons", "hp": -2, "hits": 2},
        }}

    def test_settings_set_the_rules_options_for_the_fight(self, tmp_path):
        ran, _ = run_script(tmp_path, use(TWO + 'encounter "E" {\n' + SIDES + "    damage_bonus: 10\n}\n"
                                          'say "bonus {damage_bonus} while the top level runs"\n'))
        assert ran.log == ["bonus 0 while the top level runs",
                           "fighting E, at most 20 rounds, damage bonus 10",
                           "round 1: Punch (autobots) hits Ransack (decepticons), -6 hp left"]
        assert ran.result["winner"] == "autobots"

    def test_until_sees_the_round_about_to_begin(self, tmp_path):
        source = use("character Punch is Robot { strength 1; hp 40 }\ncharacter Ransack is Robot { strength 1; hp 40 }\n"
                     'encounter "E" {\n' + SIDES + "    max_rounds: 3\n    until round > max_rounds\n}\n")
        ran, _ = run_script(tmp_path, source)
        assert ran.result["rounds"] == 3
        assert ran.result["winner"] is None  # both still standing: no winner
        assert ran.result["characters"]["Punch"] == {"side": "autobots", "hp": 37, "hits": 3}

    def test_until_sees_one_side_left_and_sides_left(self, tmp_path):
        source = use(TWO + "character Triggerhappy is Robot { strength 1 }\n"
                     'encounter "E" {\n    side autobots: Punch\n    side decepticons: Ransack\n'
                     "    side neutral: Triggerhappy\n    until sides_left < 3 or one_side_left\n}\n")
        ran, _ = run_script(tmp_path, source)
        # round 1: Punch hits Ransack (4), Ransack hits Punch (7), Triggerhappy hits Punch (6);
        # round 2: Punch hits Ransack (-2): two sides left, so `until` holds before round 3
        assert ran.result["rounds"] == 2
        assert ran.result["winner"] is None

    def test_without_until_the_fight_goes_on_until_one_side_is_left(self, tmp_path):
        ran, _ = run_script(tmp_path, use("character Punch is Robot { strength 1 }\n"
                                          "character Ransack is Robot { strength 1; hp 40 }\n"
                                          'encounter "E" {\n' + SIDES + "}\n"))
        assert (ran.result["winner"], ran.result["rounds"]) == ("decepticons", 2)

    def test_the_rules_may_be_the_scripts_own(self, tmp_path):
        ran, _ = run_script(tmp_path, RULES + TWO + 'encounter "E" {\n' + SIDES + "    max_rounds: 1\n"
                            "    until round > max_rounds\n}\n", modules={})
        assert ran.result["rounds"] == 1

    def test_a_house_rule_replaces_the_fight(self, tmp_path):
        ran, _ = run_script(tmp_path, use(TWO + "fn rules.fight(battle) {\n    battle.round = 7\n"
                                          '    return "decepticons"\n}\nencounter "E" {\n' + SIDES + "}\n"))
        assert (ran.result["winner"], ran.result["rounds"]) == ("decepticons", 7)

    def test_the_state_is_reported_in_the_order_the_kind_declares_it(self, tmp_path):
        """Not in the order of a set (which changes with PYTHONHASHSEED from run to run)."""
        names = ["zeta", "alpha", "mu", "beta", "omega", "kappa", "delta", "eta"]
        kind = "kind Drone {\n" + "".join(f"    state {name} = {n}\n" for n, name in enumerate(names)) + "}\n"
        rules = kind + "fn standing(drone) = true\nfn fight(battle) = none\n"
        ran, _ = run_script(tmp_path, "use drones\ncharacter A is Drone { }\ncharacter B is Drone { }\n"
                            'encounter "E" {\n    side a: A\n    side b: B\n}\n', modules={"drones.mech": rules})
        assert list(ran.result["characters"]["A"]) == ["side", *names]

    def test_mech_run_prints_the_result_after_the_log(self, tmp_path):
        _, script = run_script(tmp_path, use(TWO + 'encounter "E" {\n' + SIDES + "}\n"))
        ran = mech_forked(["run", str(script), "--seed", "1"], tmp_path)
        assert ran.code == 0, ran
        assert ran.out.splitlines() == [
            "fighting E, at most 20 rounds, damage bonus 0",
            "round 1: Punch (autobots) hits Ransack (decepticons), 4 hp left",
            "round 1: Ransack (decepticons) hits Punch (autobots), 7 hp left",
            "round 2: Punch (autobots) hits Ransack (decepticons), -2 hp left",
            "",
            "Result: autobots win after 2 rounds",
            "  Punch (autobots): hp 7, hits 2",
            "  Ransack (decepticons): hp -2, hits 1",
        ]

    def test_mech_run_json_gives_the_result(self, tmp_path):
        _, script = run_script(tmp_path, use(TWO + 'say "ready"\nencounter "E" {\n' + SIDES + "}\n"))
        ran = mech_forked(["run", str(script), "--seed", "3", "--json"], tmp_path)
        assert ran.code == 0, ran
        data = json.loads(ran.out)
        assert data["log"][:2] == ["ready", "fighting E, at most 20 rounds, damage bonus 0"]
        assert data["result"] == {"winner": "autobots", "rounds": 2, "characters": {
            "Punch": {"side": "autobots", "hp": 7, "hits": 2},
            "Ransack": {"side": "decepticons", "hp": -2, "hits": 1},
        }}
        assert data["seed"] == 3

    def test_no_winner_is_null_in_json(self, tmp_path):
        _, script = run_script(tmp_path, use(TWO + 'encounter "E" {\n' + SIDES + "    until round > 1\n}\n"))
        data = json.loads(mech_forked(["run", str(script), "--seed", "1", "--json"], tmp_path).out)
        assert data["result"]["winner"] is None and data["result"]["rounds"] == 1

    def test_mech_check_passes_a_good_encounter(self, tmp_path):
        _, script = run_script(tmp_path, use(TWO + 'encounter "E" {\n' + SIDES + "    max_rounds: 3\n"
                                             "    until one_side_left or round > max_rounds\n}\n"))
        ran = mech_forked(["check", str(script)], tmp_path)
        assert (ran.code, ran.out) == (0, f"{script}: ok\n"), ran


def test_the_words_of_declarations_are_names_everywhere_else(tmp_path):
    # `encounter`, `character`, `kind` start declarations, `stat`, `state`, `side`, `until`... lines in
    # them; elsewhere they are names, even at the start of a line.
    result, _ = run_script(tmp_path, """\
let state = 1
state += 1
let side = "left"
let until = 3
let kind = [state, side, until]
kind[0] = 5
say kind
kind Robot {
    stat speed 1..10
    state hp = 2
}
fn standing(character) = character.hp > 0
fn fight(encounter) {
    while not ended(encounter) {
        encounter.round += 1
        for character in encounter.characters { character.hp -= 1 }
    }
    return none
}
character A is Robot { speed 3 }
character B is Robot { speed 4 }
encounter "words" {
    side a: A
    side b: B
}
""")
    assert result.log == ['[5, "left", 3]']
    assert result.result["rounds"] == 2


def test_gear_lists_do_not_change(tmp_path):
    # only state changes: reading a gear list gives a copy
    result, _ = run_script(tmp_path, """\
kind Weapon {
    stat uses ["gun", "fists"] = "gun"
}
kind Robot {
    gear weapon: Weapon
}
character A is Robot { weapon Gun }
let weapons = A.weapon
push(weapons, A.weapon[0])
push(A.weapon, A.weapon[0])
say [len(weapons), len(A.weapon)]
""")
    assert result.log == ["[2, 1]"]


def test_a_field_chosen_at_run_time_is_an_index_by_its_name(tmp_path):
    # `c[stat]` reads and changes what `c.stat` does, with the same rules and errors
    result, _ = run_script(tmp_path, """\
kind Robot {
    stat metal 0..4
    state wounds = 0
}
character G is Robot { metal 2 }
for part in ["metal", "wounds", "name"] { say G[part] }
G["wounds"] += 3
say G.wounds
""")
    assert result.log == ["2", "0", "G", "3"]
    for line, message in [('say G["metl"]', "G (a Robot) has no `metl`"),
                          ('G["metal"] = 3', "`metal` is a stat of G and does not change")]:
        source = f"kind Robot {{\n    stat metal 0..4\n}}\ncharacter G is Robot {{ metal 2 }}\n{line}\n"
        with pytest.raises(mechscript.MechError) as error:
            run_script(tmp_path, source)
        assert message in error.value.message and error.value.span.line == 5


def test_an_option_a_kind_reads_inside_a_match_cannot_be_an_encounter_setting(tmp_path):
    # the options a kind's formulas read are found inside every part of them, a match's arms too
    rules = """\
let scale = 2
kind Robot {
    stat speed 1..10
    derived hp_max = match speed { 1 => 1; else => speed * scale }
    state hp = hp_max
}
fn standing(robot) = robot.hp > 0
fn fight(battle) = none
"""
    source = ("use rules\ncharacter A is Robot { speed 3 }\ncharacter B is Robot { speed 4 }\n"
              'encounter "e" {\n    side a: A\n    side b: B\n    scale: 3\n}\n')
    with pytest.raises(mechscript.MechError) as error:
        run_script(tmp_path, source, {"rules.mech": rules})
    assert "`scale` is read when a Robot is made, before the fight: an encounter cannot set it" in error.value.message


REPORTED = """\
kind Robot {
    stat speed 1..10
    state hp = 3
    state counter = 0
}
let report = REPORT
fn standing(robot) = robot.hp > 0
fn fight(battle) {
    battle.round += 1
    return none
}
character A is Robot { speed 3 }
character B is Robot { speed 4 }
encounter "report" {
    side a: A
    side b: B
}
"""


def test_the_rules_choose_what_the_result_reports(tmp_path):
    result, _ = run_script(tmp_path, REPORTED.replace("REPORT", '["hp", "speed"]'))
    assert result.result["characters"] == {"A": {"side": "a", "hp": 3, "speed": 3}, "B": {"side": "b", "hp": 3, "speed": 4}}
    result, _ = run_script(tmp_path, REPORTED.replace("let report = REPORT\n", ""))
    assert result.result["characters"]["A"] == {"side": "a", "hp": 3, "counter": 0}


@pytest.mark.parametrize("report, message", [
    ('"hp"', "`report` of these rules is a list of names, not a string"),
    ('["hp", "armor"]', "`report` of these rules names `armor`, which A (a Robot) does not have"),
])
def test_a_report_that_names_nothing_is_a_clear_error(tmp_path, report, message):
    with pytest.raises(mechscript.MechError) as error:
        run_script(tmp_path, REPORTED.replace("REPORT", report))
    assert error.value.message == message
    assert error.value.render().splitlines()[0].endswith(f":14:1: {message}")
