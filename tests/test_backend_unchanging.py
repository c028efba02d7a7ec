"""A character's field that every run reads as one value is written as that value (backend/
unchanging.py, folding.py): the rules' tests of a feature no character of the encounter has are
worked out once, in the set-up, and the fights are the closures' all the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mechscript.backend.quiet import QuietFight
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
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


def written(tmp_path: Path, rules: str = "", leader: int = 0, more: str = "") -> tuple[set, object]:
    """The fields `strike`'s written code reads of `leader` and `prone`, and the script (its first
    fights checked to be the closures')."""
    script = scripted(tmp_path, RULES + rules, leader, more)
    source = QuietFight(script).source
    strike = source[source.index("def m1_strike("):]
    strike = strike[:strike.index("\ndef ")]
    assert_same_fights(script, 40)
    return set(re.findall(r"\.(leader|prone)\b", strike)), script


@pytest.mark.parametrize("rules, leader, more, read", [
    ("", 0, "", set()),
    # a stat that differs between characters of the kind
    ("", 2, "", {"leader"}),
    # a state some rule assigns, though no run calls it; by a field or an index that names it
    ("fn trip(m) { m.prone = true }\n", 0, "", {"prone"}),
    ('fn trip(m) { m["prone"] = true }\n', 0, "", {"prone"}),
    # an index whose key is not written out may name any field
    ("fn set(m, name) { m[name] = true }\n", 0, "", {"leader", "prone"}),
    # a character a run could make has the stats it is given
    ('fn recruit() = make(Mech, "Extra", skill: 1, leader: 3)\n', 0, "", {"leader", "prone"}),
    # a character outside the encounter that a run can reach is one of the kind too
    ("", 0, "character Boss is Mech { skill 5 leader 4 }", {"leader"}),
    ("", 0, "character Boss is Mech { skill 5 leader 0 }\nlet reserve = [Boss]", set()),
], ids=["none", "stat-differs", "state-assigned", "state-assigned-by-index", "any-index", "make",
        "outside-the-encounter", "outside-the-same"])
def test_a_field_every_run_reads_as_one_value_is_written_as_that_value(tmp_path, rules, leader, more, read):
    assert written(tmp_path, rules, leader, more)[0] == read


def test_a_field_of_what_may_be_none_is_read_and_fails_as_it_does(tmp_path):
    # every Mech's `leader` is 0, but `found` stays none in every run: the closures' error
    rules = ("fn first_ace(enc) {\n let found = none\n for m in enc.characters { if m.skill > 10 { found = m } }\n"
             " return found.leader\n}\n")
    script = scripted(tmp_path, RULES.replace("    let a =", "    if first_ace(enc) > 9 { return none }\n    let a =") + rules)
    source = QuietFight(script).source
    assert re.search(r"\.leader\b", source[source.index("def m1_first_ace("):])
    assert_both_stop(script, "none")


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


def test_a_number_read_as_its_value_is_fought_the_same_where_the_types_allow_a_fraction(tmp_path):
    # `reach` is 0 for every Mech, but a derived value of a division: the checker's types allow a
    # fraction there, and the written code reads it as the number it is, in arithmetic and tests
    rules = RULES.replace("    state hp = 3", "    derived reach = leader / 2\n    state hp = 3").replace(
        "    let bonus = 0", "    let bonus = att.reach * 3 + floor(att.reach)\n    if att.reach >= def.reach / 3 { bonus += 1 }")
    script = scripted(tmp_path, rules)
    source = QuietFight(script).source
    assert ".reach" not in source
    assert_same_fights(script, 40)


def test_a_number_read_as_its_value_is_written_as_python_reads_it_before_a_dot(tmp_path):
    # `lower` of what is surely no text is written `x.lower() if type(x) is str else ...`: of the
    # number 0 read as its value, `(0).lower()` (`0.lower()` is no Python); the closures' error
    rules = RULES.replace("    let bonus = 0", '    let bonus = 0\n    if lower(att.leader) == "x" { bonus = 1 }')
    script = scripted(tmp_path, rules)
    assert "(0).lower()" in QuietFight(script).source
    assert_both_stop(script, "lower")


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
    assert [entry[-1] for entry in quiet.reporting] == [plain, plain]
    assert [entry[2] for entry in quiet.reporting] == [("hp",) if plain else ("hp", "prone")] * 2
    assert_same_fights(script, 40)
