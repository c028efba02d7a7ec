"""A character's field that every run reads as one value is written as that value (backend/
unchanging.py, folding.py): the rules' tests of a feature no character of the encounter has are
worked out once, in the set-up, and the fights are the closures' all the same."""

from __future__ import annotations

import dis
import re
import warnings
from pathlib import Path

import pytest

from mechscript.backend.quiet import QuietFight
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
from mechscript.sim.batch import run_seed
from test_backend_quiet import assert_both_stop, assert_same_fights

# `leader` is a stat, `prone` a state; both are the same for every Mech below, unless a case
# changes that
RULES = """\
kind Mech {
    stat skill 0..20
    stat leader 0..5
    state hp = 3
    state prone = false
}
fn standing(m) = m.hp > 0
fn strike(att, def) {
    let bonus = 0
    if att.leader > 0 { bonus = bonus + att.leader }
    if def.prone { bonus = bonus + 2 }
    if d10 + att.skill + bonus > d10 + def.skill { def.hp -= 1 }
}
fn fight(enc) {
    let a = enc.sides[0].members[0]
    let b = enc.sides[1].members[0]
    while a.hp > 0 and b.hp > 0 and enc.round < 30 {
        enc.round += 1
        strike(a, b)
        if b.hp > 0 { strike(b, a) }
    }
    if a.hp > 0 { return enc.sides[0].name }
    return enc.sides[1].name
}
"""

SCRIPT = """\
use rules
character Lance is Mech {{ skill 6 leader {leader} }}
character Shield is Mech {{ skill 4 leader 0 }}
{more}
encounter "One shot" {{
    side attacker: Lance
    side defender: Shield
}}
"""


def scripted(tmp_path: Path, rules: str, leader: int = 0, more: str = ""):
    """The script fighting Lance against Shield (`leader`: Lance's) by the rules module `rules`."""
    (tmp_path / "rules.mech").write_text(rules, encoding="utf-8")
    path = tmp_path / "s.mech"
    path.write_text(SCRIPT.format(leader=leader, more=more), encoding="utf-8")
    return compile_script(path.read_text(), str(path), tmp_path, Limits())


def read_by(quiet: QuietFight, function: str) -> set:
    """The attributes the written `function` reads, as Python compiled it (an `if False:` block,
    which Python leaves out, reads none)."""
    return {op.argval for op in dis.get_instructions(quiet.namespace[function]) if op.opname == "LOAD_ATTR"}


def written(tmp_path: Path, rules: str = "", leader: int = 0, more: str = "") -> tuple[set, object]:
    """Which of `leader` and `prone` the written `strike` reads, and the script (its first fights
    checked to be the closures')."""
    script = scripted(tmp_path, RULES + rules, leader, more)
    assert_same_fights(script, 40)
    return read_by(QuietFight(script), "m1_strike") & {"leader", "prone"}, script


@pytest.mark.parametrize("rules, leader, more, read", [
    ("", 0, "", set()),
    # a stat that differs between characters of the kind
    ("", 2, "", {"leader"}),
    # a state some rule assigns, though no run calls it; by a field or an index that names it
    ("fn trip(m) { m.prone = true }\n", 0, "", {"prone"}),
    ('fn trip(m) { m["prone"] = true }\n', 0, "", {"prone"}),
    # an index whose key is not written out may name any state (robomacs' `c[level] -= 1`): a stat
    # never changes (characters.set_field stops the run that tries)
    ("fn set(m, name) { m[name] = true }\n", 0, "", {"prone"}),
    # a record's field of the same name is not the character's; a value that may be either is
    ("fn note() { let r = {leader: 1, prone: false}\n r.prone = true\n r.leader = 2\n return r }\n", 0, "", set()),
    ("fn note(m) { let r = {leader: 1}\n if m.hp > 1 { r = m }\n r.leader = 2 }\n", 0,
     "fn poke() = rules.note(Lance)", {"leader"}),
    # a character a run could make has the stats it is given
    ('fn recruit() = make(Mech, "Extra", skill: 1, leader: 3)\n', 0, "", {"leader", "prone"}),
    # a character outside the encounter that a run can reach is one of the kind too
    ("", 0, "character Boss is Mech { skill 5 leader 4 }", {"leader"}),
    ("", 0, "character Boss is Mech { skill 5 leader 0 }\nlet reserve = [Boss]", set()),
], ids=["none", "stat-differs", "state-assigned", "state-assigned-by-index", "any-index", "record-field",
        "record-or-character", "make",
        "outside-the-encounter", "outside-the-same"])
def test_a_field_every_run_reads_as_one_value_is_written_as_that_value(tmp_path, rules, leader, more, read):
    assert written(tmp_path, rules, leader, more)[0] == read


def test_a_field_of_what_may_be_none_is_read_and_fails_as_it_does(tmp_path):
    # every Mech's `leader` is 0, but `found` stays none in every run: the closures' error
    rules = ("fn first_ace(enc) {\n let found = none\n for m in enc.characters { if m.skill > 10 { found = m } }\n"
             " return found.leader\n}\n")
    script = scripted(tmp_path, RULES.replace("    let a =", "    if first_ace(enc) > 9 { return none }\n    let a =") + rules)
    assert "leader" in read_by(QuietFight(script), "m1_first_ace")
    assert_both_stop(script, "none")


def test_an_index_that_names_a_stat_stops_the_run_the_stat_is_written_as_its_value(tmp_path):
    # `leader`, a stat, is every Mech's 0 and written as 0, though `set` assigns a field by a key
    # not written out: a stat never changes, so the one run that tries stops, in both, with the
    # closures' error (characters.set_field)
    rules = 'fn set(m, name) { m[name] = 1 }\n'
    script = scripted(tmp_path, RULES.replace("        enc.round += 1\n",
                                              '        enc.round += 1\n        if enc.round == 3 { set(a, "leader") }\n') + rules)
    assert "leader" not in read_by(QuietFight(script), "m1_strike")
    assert_both_stop(script, "`leader` is a stat")


@pytest.mark.parametrize("rules, read", [
    ("", False),
    ("fn call_it(enc) { sudden_death = true }\n", True),
], ids=["no-run-changes-it", "a-rule-assigns-it"])
def test_an_option_no_run_changes_is_tested_as_its_value(tmp_path, rules, read):
    # `if sudden_death {`: the option as the set-up left it, where no run assigns it
    script = scripted(tmp_path, "let sudden_death = false\n"
                      + RULES.replace("def.hp -= 1 }", "def.hp -= 1 }\n    if sudden_death { def.hp = 0 }") + rules)
    quiet = QuietFight(script)
    assert (re.search(rf"\b{quiet.home.global_name('sudden_death')}\b", quiet.source) is not None) == read
    assert_same_fights(script, 40)


def test_a_comparison_of_a_number_no_run_changes_is_worked_out_where_the_types_allow_a_fraction(tmp_path):
    # `reach` is 0 for every Mech, but a derived value of a division: the checker's types allow a
    # fraction there; `att.reach > 0` is false in every run, and what it guards is never read
    rules = RULES.replace("    state hp = 3", "    derived reach = leader / 2\n    state hp = 3").replace(
        "    let bonus = 0", "    let bonus = 0\n    if att.reach > 0 { bonus = att.reach * 3 + floor(def.reach) }")
    script = scripted(tmp_path, rules)
    assert "reach" not in read_by(QuietFight(script), "m1_strike")
    assert_same_fights(script, 40)


@pytest.mark.parametrize("standing, plain", [
    ("m.hp > 0", True),
    # `hp` may be halved (never: a d10 is no 11): the types say it may be a fraction, which a report
    # gives as JSON writes it (a float)
    ("m.hp > 0 or d10 == 11 and wear(m) == none\nfn wear(m) { m.hp = m.hp / 2 }", False),
], ids=["whole-numbers-and-true-or-false", "may-be-a-fraction"])
def test_a_report_of_whole_numbers_and_other_values_takes_the_numbers_as_they_are(tmp_path, standing, plain):
    # each run reports `hp` (a whole number) and not `prone` (true or false) of each Mech, with no
    # test of each value's type where the types tell them apart
    script = scripted(tmp_path, RULES.replace("m.hp > 0", standing, 1))
    quiet = QuietFight(script)
    each = "{'hp': C%d.hp}" if plain else "NUMBERS((('hp', C%d.hp), ('prone', C%d.prone), ))"
    reports = re.findall(r"\(standing\(C\d\) is True, (.*?)\)(?:, '|})", quiet.report_source)
    assert reports == [each.replace("%d", str(i)) for i in range(2)]
    assert_same_fights(script, 40)


# each round, a Mech of `roster` with a `leader` above 2 ends the fight for Lance
ROSTER_RULES = RULES.replace("        strike(a, b)\n", "        for r in roster { if r.leader > 2 { a.hp = 0 } }\n"
                             "        strike(a, b)\n") + "let roster = []\n"


def test_a_character_the_encounter_s_until_makes_is_no_character_of_the_set_up(tmp_path):
    # the `until` runs in each run, and makes a Mech whose `leader` is 3 (found by review)
    rules = ROSTER_RULES.replace("    while a.hp > 0", "    while not ended(enc) and a.hp > 0") + \
        "fn enrol(c) {\n push(roster, c)\n return false\n}\n"
    (tmp_path / "rules.mech").write_text(rules, encoding="utf-8")
    path = tmp_path / "s.mech"
    path.write_text(SCRIPT.replace("Shield\n", 'Shield\n    until enrol(make(Mech, "E", skill: 1, leader: 3)) or one_side_left\n')
                    .format(leader=0, more=""), encoding="utf-8")
    assert_same_fights(compile_script(path.read_text(), str(path), tmp_path, Limits()), 40)


def test_a_kind_declared_in_a_block_folds_no_field(tmp_path):
    # a `Mech` declared in a block is another kind, which the checker names as the top level's
    # (found by review): its character's `leader` is 3
    rules = ROSTER_RULES + ("if true {\n kind Mech {\n  stat skill 0..20\n  stat leader 0..5 = 3\n  state hp = 3\n"
                            "  state prone = false\n }\n character Hid is Mech { skill 1 }\n push(roster, Hid)\n}\n")
    assert_same_fights(scripted(tmp_path, rules), 40)


@pytest.mark.parametrize("line, top", [
    ("if att.leader > 0 { bonus = att.leader[0] }", ""),
    ("if att.leader > 0 { bonus = att.leader(1) }", ""),
    ("if att.leader > 0 { bonus = lvl[0] + lvl(1) }", "let lvl = 2\n"),
    ("if d10 == 11 and lvl { bonus = 1 }", "let lvl = 2\n"),
    ("if d10 == 11 { bonus = roll(3k2, explode: lvl) }", "let lvl = 2\n"),
    ("if d10 == 11 { bonus = not lvl }", "let lvl = 2\n"),
    ('if d10 == 11 and lower(att.leader) == "x" { bonus = 1 }', ""),
    # a number or text the script writes where a truth is tested (older than folding)
    ("if d10 == 11 { if 2 { bonus = 1 } }", ""),
    ("if d10 == 11 { bonus = roll(3k2, explode: 2) }", ""),
    ("if d10 == 11 { bonus = not 2 }", ""),
    ('if d10 == 11 { bonus = 2 and d6 > 3 or "x" }', ""),
    ("if d10 == 11 { while -2 { bonus = not - -(2) } }", ""),
], ids=["index", "call", "option-index-and-call", "option-and", "option-explode", "option-not", "a-number-s-method",
        "if-a-number", "explode-a-number", "not-a-number", "and-or-a-number-and-a-text", "negative-numbers"])
def test_a_literal_tested_indexed_or_called_is_written_as_python_compiles_it_without_a_warning(tmp_path, line, top):
    # in code no run reaches, a value no run changes, or a number the script writes, would stand
    # where Python warns of a literal (`2[0]`, `0(1)`, `2 is not True`): the written code compiles
    # with warnings as errors, and fights as the closures do (found by review)
    script = scripted(tmp_path, top + RULES.replace("    let bonus = 0", "    let bonus = 0\n    " + line))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        QuietFight(script)
    assert_same_fights(script, 20)


@pytest.mark.parametrize("line", [
    "if d10 == 11 { bonus = (att.leader == 0)[0] }",
    "if d10 == 11 { bonus = (def.prone == false)(1) }",
    "if d10 == 11 { bonus = (def.prone and d6 > 3)[0] }",
    "if d10 == 11 { bonus = (sudden_death and d6 > 3)(1) }",
], ids=["comparison-indexed", "comparison-called", "and-indexed", "option-and-called"])
def test_a_test_worked_out_is_indexed_or_called_as_the_closures_do(tmp_path, line):
    # a comparison or `and` worked out as it is written is True or False, which a script may index
    # or call (an error, in code no run reaches here): the written code bails there, with no
    # literal indexed or called that Python warns of (found by review)
    rules = "let sudden_death = false\n" + RULES.replace("    let bonus = 0", "    let bonus = 0\n    " + line)
    script = scripted(tmp_path, rules)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        QuietFight(script)
    assert_same_fights(script, 20)


@pytest.mark.parametrize("line", ["if 2 { bonus = 1 }", "bonus = roll(3k2, explode: 2)"], ids=["if", "explode"])
def test_a_number_tested_for_its_truth_stops_a_run_as_the_closures_stop_it(tmp_path, line):
    script = scripted(tmp_path, RULES.replace("    let bonus = 0", "    let bonus = 0\n    " + line))
    assert_both_stop(script)


def test_a_report_the_rules_change_in_place_keeps_its_fractions(tmp_path):
    # a fight that pushes a name onto `report` is reported the closures' way (end_states), whose
    # values are JSON's already: a fraction is a float there, kept (found by review: it was dropped)
    rules = RULES.replace("    state prone = false", "    state prone = false\n    state part = 0") \
        .replace("def.hp -= 1 }", "def.hp -= 1\n def.part = 7/3 }") \
        .replace("fn standing(m)", 'let report = ["hp"]\nfn standing(m)') \
        .replace("        enc.round += 1", '        enc.round += 1\n        if d6 == 1 { push(report, "part") }')
    script = scripted(tmp_path, rules)
    assert_same_fights(script, 40)
    quiet = QuietFight(script)
    parts = [numbers.get("part") for index in range(40)
             for _, numbers in quiet.fight(run_seed(1, index))[0][2].values()]
    assert 7 / 3 in parts


def test_a_reported_whole_number_json_writes_as_text_is_left_out_as_the_closures_leave_it_out(tmp_path):
    # a whole number of JSON_WHOLE_BITS bits or more is JSON's text, not a number (values.number_json),
    # possible where `number_bits` is raised past them (found by review)
    rules = RULES.replace("    state prone = false", "    state prone = false\n    state big = 0") \
        .replace("def.hp -= 1 }", "def.hp -= 1\n def.big = 2 ** 14000 + d6 }")
    (tmp_path / "rules.mech").write_text(rules, encoding="utf-8")
    path = tmp_path / "s.mech"
    path.write_text(SCRIPT.format(leader=0, more=""), encoding="utf-8")
    script = compile_script(path.read_text(), str(path), tmp_path, Limits(number_bits=20000))
    assert_same_fights(script, 20)
    reported = QuietFight(script).fight(run_seed(1, 0))[0][2]
    assert all("big" not in numbers for _, numbers in reported.values())


def test_a_character_pushed_by_exact_odds_onto_a_list_of_records_keeps_its_field_read(tmp_path):
    # `prob` runs a call in its argument as a value: Shield is pushed onto `notes`, and the loop
    # over `notes` assigns its `prone` (found by review: the types saw a list of records only, and
    # `b.prone` was written as false)
    path = tmp_path / "s.mech"
    path.write_text("""\
kind Mech {
    stat skill 0..20
    state hp = 3
    state prone = false
}
let notes = [{prone: false}]
fn standing(m) = m.hp > 0
fn fight(enc) {
    for n in notes { n.prone = true }
    let b = enc.sides[1].members[0]
    if b.prone { return "defender" }
    return "attacker"
}
character Lance is Mech { skill 6 }
character Shield is Mech { skill 4 }
let p = prob(len([push(notes, Shield)]) == 1)
encounter "x" {
    side attacker: Lance
    side defender: Shield
}
""", encoding="utf-8")
    script = compile_script(path.read_text(), str(path), tmp_path, Limits())
    assert "prone" in read_by(QuietFight(script), "s_fight")
    assert_same_fights(script, 3)
