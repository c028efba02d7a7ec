"""`mech compare` (issue 20, item 2): a script and a version of it (a house rule file, or a second
script) fought on the same run seeds; each side's change in win rate with its paired interval, and
the runs whose winner changed. Checked against a fight whose exact odds are counted by hand."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from support import mech_forked
from test_sim import AMBUSH, mech
from test_sim_sweep import DUEL, SCRIPT, exact_tie, exact_win

# The duel's rules with a third way to settle a tie: the attacker wins it.
RULES = DUEL.replace('let choices = {tie: ["defender", "draw"]}', 'let choices = {tie: ["defender", "draw", "attacker"]}') \
    .replace('    if mine == theirs and tie == "draw" { return none }',
             '    if mine == theirs and tie == "draw" { return none }\n'
             '    if mine == theirs and tie == "attacker" {\n'
             '        def.hp = 0\n'
             '        return enc.sides[0].name\n'
             '    }')

# The house rule: ties go to the attacker. Lance (6) attacks Shield (4): the attacker wins when
# A + 6 > D + 4 (exact_win(6) = 64/100) and now also when A + 6 == D + 4 (exact_tie(6) = 8/100).
HOUSE_RULE = 'use duel\nduel.tie = "attacker"\n'
TRUE_CHANGE = exact_tie(6)


@pytest.fixture
def duel(tmp_path) -> Path:
    (tmp_path / "duel.mech").write_text(RULES, encoding="utf-8")
    script = tmp_path / "one_shot.mech"
    script.write_text(SCRIPT, encoding="utf-8")
    return script


def compare(*args, cwd: Path) -> dict:
    ran = mech_forked(["compare", *map(str, args), "--jobs", "1", "--json"], cwd)
    assert (ran.code, ran.err) == (0, ""), ran.err
    return json.loads(ran.out)


def test_the_odds_of_the_test_fight():
    assert exact_win(6) == Fraction(64, 100) and TRUE_CHANGE == Fraction(8, 100)


def test_a_file_compared_with_itself_differs_by_exactly_nothing(duel):
    data = compare(duel, duel, "-n", "3000", "--seed", "4", cwd=duel.parent)
    variant = data["variants"][0]
    assert variant["changed_winners"] == 0
    for side, moved in variant["difference"].items():
        assert moved["change"] == 0 and moved["ci95"] == [0, 0] and moved["gained"] == moved["lost"] == 0
        assert moved["from"] == moved["to"] == data["base"]["winners"][side]["rate"]
        assert moved["real"] is False
    assert variant["winners"] == data["base"]["winners"]
    # a house rule that sets an option to the value it has changes nothing either
    (duel.parent / "same.mech").write_text('use duel\nduel.tie = "defender"\n', encoding="utf-8")
    same = compare(duel, "--rule", duel.parent / "same.mech", "-n", "3000", "--seed", "4", cwd=duel.parent)
    assert same["variants"][0]["changed_winners"] == 0
    assert {side: moved["change"] for side, moved in same["variants"][0]["difference"].items()} == \
        {"attacker": 0, "defender": 0, "draw": 0}


def test_a_rule_with_a_known_effect_lies_in_the_paired_interval_narrower_than_two_batches(duel):
    house = duel.parent / "ties_to_attacker.mech"
    house.write_text(HOUSE_RULE, encoding="utf-8")
    data = compare(duel, "--rule", house, "-n", "4000", "--seed", "2", cwd=duel.parent)
    assert data["runs"] == 4000 and data["seed"] == 2 and data["encounter"] == "One shot"
    assert data["base"]["script"] == str(duel)
    variant = data["variants"][0]
    assert variant["script"] == str(house)
    moved = variant["difference"]["attacker"]
    low, high = moved["ci95"]
    assert low <= TRUE_CHANGE <= high                   # at this seed
    apart_low, apart_high = moved["unpaired_ci95"]
    assert high - low < (apart_high - apart_low) / 2    # pairing the runs: less than half as wide
    assert moved["real"] is True
    # only ties change hands, and all to the attacker: every changed run is a gain for it
    assert moved["lost"] == 0 and moved["gained"] == variant["changed_winners"] > 0
    assert moved["change"] == moved["gained"] / 4000 == pytest.approx(moved["to"] - moved["from"])
    defender = variant["difference"]["defender"]
    assert defender["lost"] == variant["changed_winners"] and defender["change"] == -moved["change"]
    assert defender["ci95"][0] <= -TRUE_CHANGE <= defender["ci95"][1]
    # each version's numbers are a batch's: the base's are `mech sim`'s
    alone = mech_forked(["sim", str(duel), "-n", "4000", "--seed", "2", "--jobs", "1", "--json"], duel.parent)
    sim = json.loads(alone.out)
    assert data["base"]["winners"] == sim["winners"] and data["base"]["characters"] == sim["characters"]


def test_two_scripts_compare_as_a_script_and_its_rule(duel):
    house = duel.parent / "ties_to_attacker.mech"
    house.write_text(HOUSE_RULE, encoding="utf-8")
    other = duel.parent / "house_script.mech"
    other.write_text(SCRIPT.replace("use duel\n", 'use duel\nduel.tie = "attacker"\n'), encoding="utf-8")
    by_rule = compare(duel, "--rule", house, "-n", "1000", "--seed", "8", cwd=duel.parent)
    by_script = compare(duel, other, "-n", "1000", "--seed", "8", cwd=duel.parent)
    for data in (by_rule, by_script):
        del data["variants"][0]["script"]
    assert by_rule == by_script


def test_the_report_reads_as_a_sentence(duel):
    house = duel.parent / "ties_to_attacker.mech"
    house.write_text(HOUSE_RULE, encoding="utf-8")
    draws = duel.parent / "ties_drawn.mech"
    draws.write_text('use duel\nduel.tie = "draw"\n', encoding="utf-8")
    ran = mech_forked(["compare", str(duel), "--rule", str(house), "--rule", str(draws), "-n", "2000", "--seed", "2",
                       "--jobs", "1"], duel.parent)
    assert (ran.code, ran.err) == (0, "")
    data = compare(duel, "--rule", house, "--rule", draws, "-n", "2000", "--seed", "2", cwd=duel.parent)
    lines = ran.out.splitlines()
    assert lines[0] == "One shot: 2000 runs of each version, on the same dice, seed 2"
    moved = data["variants"][0]["difference"]["attacker"]
    low, high = moved["ci95"]
    assert f"  {house} moves the attacker from {moved['from']:.1%} to {moved['to']:.1%}, " \
           f"{moved['change'] * 100:+.1f} points [{low * 100:+.1f}, {high * 100:+.1f}]: a real difference" in lines
    changed = data["variants"][0]["changed_winners"]
    assert f"{duel} -> {house}: the winner changed in {changed} of 2000 runs" in lines
    # the second rule: ties drawn; the attacker's wins are untouched, the defender's go to the draws
    second = data["variants"][1]["difference"]
    assert second["attacker"]["gained"] == second["attacker"]["lost"] == 0
    assert f"  {draws} changes nothing for the attacker: {second['attacker']['from']:.1%} either way, in every run" \
        in lines
    assert second["draw"]["gained"] == second["defender"]["lost"] == data["variants"][1]["changed_winners"]


def test_the_ambush_by_the_standard_rules_with_a_house_rule(tmp_path):
    house = tmp_path / "ties_to_attacker.mech"
    house.write_text('use pbem\npbem.tie = "attacker"\n', encoding="utf-8")
    data = compare(AMBUSH, "--rule", house, "-n", "300", "--seed", "1", cwd=tmp_path)
    variant = data["variants"][0]
    assert 0 < variant["changed_winners"] < 300
    assert sum(moved["change"] for moved in variant["difference"].values()) == pytest.approx(0)
    assert list(variant["difference"]) == ["autobots", "decepticons", "draw"]
    # the same seed, and --jobs 2, give the same JSON
    again = mech("compare", AMBUSH, "--rule", house, "-n", "300", "--seed", "1", "--jobs", "2", "--json")
    assert json.loads(again.stdout) == data


def test_mistakes(duel, tmp_path):
    neither = mech_forked(["compare", str(duel), "--jobs", "1"], tmp_path)
    assert neither.code == 2 and neither.err == "mech compare: give a second script or --rule VARIANT.mech (not both)\n"
    missing = mech_forked(["compare", str(duel), "--rule", str(tmp_path / "nope.mech"), "--jobs", "1"], tmp_path)
    assert missing.code == 2 and missing.err == f"mech compare: no such file: {tmp_path / 'nope.mech'}\n"
    broken = tmp_path / "broken.mech"
    broken.write_text('use duel\nduel.ties = "attacker"\n', encoding="utf-8")
    said = mech_forked(["compare", str(duel), "--rule", str(broken), "--jobs", "1", "-n", "5"], tmp_path)
    assert said.code == 1 and said.out == ""
    assert said.err.splitlines()[0] == f"{broken}:2:6: module `duel` has no `ties`"
    other_sides = tmp_path / "other.mech"
    other_sides.write_text(SCRIPT.replace("side attacker", "side red"), encoding="utf-8")
    sides = mech_forked(["compare", str(duel), str(other_sides), "--jobs", "1", "-n", "5"], tmp_path)
    assert sides.code == 1 and sides.err.splitlines() == [
        f"{other_sides}: {other_sides} fights the sides red, defender and {duel} the sides attacker, defender: only "
        "the same sides can be compared", "  hint: compare two versions of one encounter"]


def test_the_api_mirrors_the_command_and_encounter_chooses_in_both(duel):
    import mechscript
    house = duel.parent / "ties_to_attacker.mech"
    house.write_text(HOUSE_RULE, encoding="utf-8")
    assert mechscript.compare(str(duel), 500, rules=[str(house)], seed=3) == \
        compare(duel, "--rule", house, "-n", "500", "--seed", "3", cwd=duel.parent)
    with pytest.raises(ValueError):
        mechscript.compare(str(duel), 10)
    two = duel.parent / "two.mech"
    two.write_text(SCRIPT + 'encounter "Return match" {\n    side first: Shield\n    side second: Lance\n}\n',
                   encoding="utf-8")
    data = compare(two, "--rule", house, "-n", "500", "--seed", "3", "--encounter", "Return match", cwd=duel.parent)
    assert data["encounter"] == "Return match" and list(data["base"]["winners"]) == ["first", "second", "draw"]
    # Shield attacks now: its ties (d10 + 4 == d10 + 6) go to it under the house rule
    moved = data["variants"][0]["difference"]["first"]
    assert moved["lost"] == 0 and moved["ci95"][0] <= exact_tie(4, 6) <= moved["ci95"][1]


def test_a_house_rule_named_as_a_module_of_the_script_is_refused(duel, tmp_path):
    folder = tmp_path / "house"
    folder.mkdir()
    (folder / "duel.mech").write_text(HOUSE_RULE, encoding="utf-8")
    ran = mech_forked(["compare", str(duel), "--rule", str(folder / "duel.mech"), "-n", "5", "--jobs", "1"], tmp_path)
    assert (ran.code, ran.out) == (1, "")
    assert ran.err.splitlines() == [f"{(folder / 'duel.mech').resolve()}: this house rule has the name of the "
                                    "module `duel`, which the script uses", "  hint: rename it, e.g. duel_house.mech"]
