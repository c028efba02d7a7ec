"""`mech sim --vary` (issue 20, item 1): a stat, a rules option or a `let` of the script fought at
each of its values, several --vary making a grid; its table, its chart, its JSON; a value the
script refuses said at the option, as a declaration would say it."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from support import mech_forked
from test_sim import AMBUSH, assert_adds_up, mech

# One opposed roll, d10 + skill against d10 + 4: the attacker wins when strictly higher, else a tie
# goes by the option `tie` ("defender": the defender wins; "draw": nobody does).
DUEL = """\
let tie = "defender"
let choices = {tie: ["defender", "draw"]}
kind Mech {
    stat skill 0..20
    state hp = 1
}
fn standing(m) = m.hp > 0
fn fight(enc) {
    enc.round = 1
    let att = enc.sides[0].members[0]
    let def = enc.sides[1].members[0]
    let mine = d10 + att.skill
    let theirs = d10 + def.skill
    if mine > theirs {
        def.hp = 0
        return enc.sides[0].name
    }
    if mine == theirs and tie == "draw" { return none }
    att.hp = 0
    return enc.sides[1].name
}
"""

SCRIPT = """\
use duel
let edge = 0
character Lance is Mech { skill 6 + edge }
character Shield is Mech { skill 4 }
encounter "One shot" {
    side attacker: Lance
    side defender: Shield
}
"""


def exact_win(skill: int, against: int = 4) -> Fraction:
    """P(d10 + skill > d10 + against), counted over the 100 pairs of faces."""
    return Fraction(sum(a + skill > d + against for a in range(1, 11) for d in range(1, 11)), 100)


def exact_tie(skill: int, against: int = 4) -> Fraction:
    return Fraction(sum(a + skill == d + against for a in range(1, 11) for d in range(1, 11)), 100)


@pytest.fixture
def duel(tmp_path) -> Path:
    (tmp_path / "duel.mech").write_text(DUEL, encoding="utf-8")
    script = tmp_path / "one_shot.mech"
    script.write_text(SCRIPT, encoding="utf-8")
    return script


def sweep(script: Path, *args) -> dict:
    ran = mech_forked(["sim", str(script), "--seed", "5", "--jobs", "1", "--json", *map(str, args)], script.parent)
    assert (ran.code, ran.err) == (0, ""), ran.err
    return json.loads(ran.out)


def test_a_stat_with_a_known_monotone_effect_gives_monotone_rates_within_their_intervals(duel):
    data = sweep(duel, "--vary", "Lance.skill=1..8", "-n", "1500")
    assert data["vary"] == ["Lance.skill"] and data["runs"] == 1500 and data["seed"] == 5
    assert data["encounter"] == "One shot"
    assert [point["values"] for point in data["points"]] == [{"Lance.skill": s} for s in range(1, 9)]
    rates = []
    for skill, point in zip(range(1, 9), data["points"]):
        assert_adds_up({"seed": 5, **point}, 1500, ["attacker", "defender"], ["Lance", "Shield"])
        won = point["winners"]["attacker"]
        low, high = won["ci95"]
        assert low <= exact_win(skill) <= high   # the exact odds, at this seed
        rates.append(won["rate"])
    # Every point fights the same run seeds, so a higher skill only turns losses into wins: the
    # rates rise strictly (the exact odds rise by 3 to 10 points a step, far beyond the noise).
    assert rates == sorted(rates) and len(set(rates)) == len(rates)


def test_several_vary_make_a_grid_of_a_stat_an_option_and_a_let(duel):
    data = sweep(duel, "--vary", "Shield.skill=4,6", "--vary", "duel.tie=defender,draw", "--vary", "edge=0,1",
                 "-n", "400")
    assert data["vary"] == ["Shield.skill", "duel.tie", "edge"]
    assert [list(point["values"].values()) for point in data["points"]] == [
        [4, "defender", 0], [4, "defender", 1], [4, "draw", 0], [4, "draw", 1],
        [6, "defender", 0], [6, "defender", 1], [6, "draw", 0], [6, "draw", 1]]
    by = {tuple(point["values"].values()): point["winners"] for point in data["points"]}
    for (shield, tie, edge), winners in by.items():
        assert winners["attacker"]["ci95"][0] <= exact_win(6 + edge, shield) <= winners["attacker"]["ci95"][1]
        draws = winners["draw"]
        if tie == "defender":
            assert draws["count"] == 0
        else:   # the option reached the rules: ties are draws
            assert draws["ci95"][0] <= exact_tie(6 + edge, shield) <= draws["ci95"][1]
        # the same dice: a tie called a draw instead of the defender's win leaves the attacker's wins alone
        assert winners["attacker"] == by[(shield, "defender", edge)]["attacker"]


def test_the_option_set_by_vary_wins_over_the_encounter_s_and_the_script_s(duel):
    text = SCRIPT.replace("side defender: Shield", 'side defender: Shield\n    tie: "draw"')
    duel.write_text(text + 'duel.tie = "draw"\n', encoding="utf-8")
    data = sweep(duel, "--vary", "duel.tie=defender", "-n", "200")
    assert data["points"][0]["winners"]["draw"]["count"] == 0


def test_the_same_sweep_for_any_jobs_and_each_point_is_a_plain_batch(duel, tmp_path):
    args = ["sim", duel, "--vary", "Lance.skill=2,5", "-n", "300", "--seed", "9", "--json"]
    one = mech_forked([*map(str, args), "--jobs", "1"], tmp_path)
    two = mech(*args, "--jobs", "2")
    assert (two.returncode, two.stderr) == (0, "")
    assert one.out == two.stdout
    # a point is the batch of the script with that value written in it
    for skill, point in zip((2, 5), json.loads(one.out)["points"]):
        written = tmp_path / f"skill_{skill}.mech"
        written.write_text(SCRIPT.replace("skill 6 + edge", f"skill {skill}"), encoding="utf-8")
        alone = mech_forked(["sim", str(written), "-n", "300", "--seed", "9", "--jobs", "1", "--json"], tmp_path)
        expected = json.loads(alone.out)
        del expected["encounter"], expected["seed"]
        assert point == {"values": {"Lance.skill": skill}, **expected}


def test_the_table_and_the_chart(duel):
    ran = mech_forked(["sim", str(duel), "--vary", "Lance.skill=0,4,9", "-n", "500", "--seed", "1", "--jobs", "1"],
                      duel.parent)
    assert (ran.code, ran.err) == (0, "")
    lines = ran.out.splitlines()
    assert lines[0] == "One shot: 500 runs at each of 3 points, seed 1"
    assert lines[2].split()[:4] == ["Lance.skill", "attacker", "defender", "draw"]
    data = sweep(duel, "--vary", "Lance.skill=0,4,9", "-n", "500", "--seed", "1")
    for value, point in zip((0, 4, 9), data["points"]):
        won = point["winners"]["attacker"]
        row = next(line for line in lines[3:] if line.split()[0] == str(value))
        assert f"{won['rate']:.1%} [{won['ci95'][0]:.1%}, {won['ci95'][1]:.1%}]" in row
    chart = lines[lines.index("attacker win rate by Lance.skill (● the rate, ├─┤ its 95% interval)"):]
    assert chart[1].strip().startswith("0%") and chart[1].endswith("100%")
    rows = [line for line in chart[2:5]]
    # each row: the rate's cell (●) between its interval's ends (├ ┤), left to right as the rate grows
    centres = [row.index("●") for row in rows]
    assert centres == sorted(centres) and centres[0] < centres[2]
    assert all(row.index("|") < row.index("●") < row.rindex("|") for row in rows)
    assert "├" in rows[1] and "┤" in rows[1]  # 500 runs near 25%: an interval wider than a cell
    assert "draws by" not in ran.out  # no side drew: no chart of draws


def test_a_value_outside_a_stat_s_range_is_the_declaration_s_error_said_at_the_option(duel, tmp_path):
    declared = tmp_path / "declared.mech"
    declared.write_text(SCRIPT.replace("skill 6 + edge", "skill 21"), encoding="utf-8")
    ran = mech_forked(["run", str(declared), "--seed", "1"], tmp_path)
    assert ran.code == 1
    message = ran.err.splitlines()[0].split(": ", 1)[1]
    assert message == "`skill` of Mech is a whole number from 0 to 20, not 21"
    swept = mech_forked(["sim", str(duel), "--vary", "Lance.skill=18..21", "-n", "10", "--jobs", "1"], tmp_path)
    assert swept.code == 1 and swept.out == ""  # refused before any fight
    assert swept.err.splitlines() == [f"--vary:1:13: {message}", "  Lance.skill=18..21", "              ^~~~~~"]


@pytest.mark.parametrize("vary, said", [
    ("Lance.skil=3", ["--vary:1:1: Mech has no stat `skil`", "  Lance.skil=3", "  ^~~~~~~~~~",
                      "  hint: did you mean `skill`?"]),
    ("Lanse.skill=3", ["--vary:1:1: the script has no character or module `Lanse`", "  Lanse.skill=3",
                       "  ^~~~~~~~~~~", "  hint: did you mean `Lance`?"]),
    ("duel.tie=attacker,draw", ['--vary:1:10: `tie` is one of "defender", "draw", not "attacker"',
                                "  duel.tie=attacker,draw", "           ^~~~~~~~"]),
    ("duel.ties=draw", ["--vary:1:11: module `duel` has no `ties`", "  duel.ties=draw", "            ^~~~",
                        "  hint: did you mean `tie`?"]),
    ("edgy=1", ["--vary:1:1: the script has no top-level `let edgy`", "  edgy=1", "  ^~~~",
                "  hint: did you mean `edge`?"]),
])
def test_a_target_the_script_does_not_have_is_said_at_the_option(duel, vary, said):
    ran = mech_forked(["sim", str(duel), "--vary", vary, "-n", "10", "--jobs", "1"], duel.parent)
    assert (ran.code, ran.out) == (1, "")
    assert ran.err.splitlines() == said


@pytest.mark.parametrize("vary", ["Lance.skill", "Lance.skill=", "Lance.skill=3,,4", "Lance.skill=9..3",
                                  "Lance..skill=1", "Lance.skill=1..5000"])
def test_a_malformed_vary_is_a_usage_error(duel, vary):
    ran = mech_forked(["sim", str(duel), "--vary", vary, "-n", "10", "--jobs", "1"], duel.parent)
    assert ran.code == 2 and "--vary" in ran.err and "Traceback" not in ran.err


def test_the_same_target_twice_is_a_usage_error(duel):
    ran = mech_forked(["sim", str(duel), "--vary", "Lance.skill=1", "--vary", "Lance.skill=2", "--jobs", "1"],
                      duel.parent)
    assert ran.code == 2 and ran.err == "mech sim: --vary Lance.skill is given twice\n"


def test_vary_with_an_encounter_among_several(tmp_path):
    text = SCRIPT.replace("side defender: Shield\n}", "side defender: Shield\n}\n"
                          'encounter "Return match" {\n    side first: Shield\n    side second: Lance\n}')
    (tmp_path / "duel.mech").write_text(DUEL, encoding="utf-8")
    script = tmp_path / "two.mech"
    script.write_text(text, encoding="utf-8")
    data = sweep(script, "--vary", "Lance.skill=4,8", "-n", "300", "--encounter", "Return match")
    assert data["encounter"] == "Return match"
    assert list(data["points"][0]["winners"]) == ["first", "second", "draw"]
    # Shield (4) attacks Lance: it wins when d10 + 4 > d10 + skill
    for skill, point in zip((4, 8), data["points"]):
        low, high = point["winners"]["first"]["ci95"]
        assert low <= exact_win(4, skill) <= high
    none_named = mech_forked(["sim", str(script), "--vary", "Lance.skill=4", "-n", "5", "--jobs", "1"], tmp_path)
    assert none_named.code == 1 and "2 encounters" in none_named.err


def test_a_sweep_of_the_ambush_by_the_standard_rules(tmp_path):
    data = sweep(AMBUSH, "--vary", "Punch.endurance=2,10", "--vary", "pbem.tie=defender,attacker", "-n", "200")
    assert len(data["points"]) == 4
    for point in data["points"]:
        assert_adds_up({"seed": 5, **point}, 200, ["autobots", "decepticons"], ["Punch", "Triggerhappy", "Ransack"])
    low, high = data["points"][0], data["points"][2]   # endurance 2 and 10, ties to the defender
    assert high["characters"]["Punch"]["survival_rate"] > low["characters"]["Punch"]["survival_rate"]
    assert high["characters"]["Punch"]["mean"]["hp"] > low["characters"]["Punch"]["mean"]["hp"]


def test_the_api_mirrors_the_command(duel, tmp_path):
    import mechscript
    data = mechscript.sweep(str(duel), ["Lance.skill=2,5", "duel.tie=draw"], 300, seed=5)
    assert data == sweep(duel, "--vary", "Lance.skill=2,5", "--vary", "duel.tie=draw", "-n", "300")
    with pytest.raises(ValueError, match="TARGET=VALUES"):
        mechscript.sweep(str(duel), ["Lance.skill"], 10)
