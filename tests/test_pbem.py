"""Golden tests of the `pbem` module (rule text 002): the worked examples T1-T9 of the digest
(shared/rules/pbem-transformers.md, section 5), each played as a fight through `mech run --faces`
with the dice in the order the text rolls them (in an opposed roll the defender's d10 first, L42-44
and L50), and each PROPOSAL of the digest's section 7 changed as an option, or a rule replaced by
a house rule, changing the fight as it should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import mech_forked

ROOT_TESTS = Path(__file__).parent

# The three Transformers of L20-44. The text gives Punch's Speed 4 and Endurance 6, Triggerhappy's
# Speed 7, Skill 6 and Firepower 8, Ransack's Speed 3; the rest is chosen.
AMBUSH = """\
use pbem
character Punch is Transformer { speed 4 endurance 6  skill 7 rank 3 firepower 5 strength 6 courage 7  weapon Gun }
character Triggerhappy is Transformer { speed 7 skill 6 firepower 8  rank 4 strength 4 endurance 5 courage 5
    weapon Blowpipe }
character Ransack is Transformer { speed 3  skill 5 rank 2 firepower 6 strength 5 endurance 5 courage 4
    weapon "concussion rifle" }
encounter "Punch is attacked" {
    side autobots: Punch
    side decepticons: Triggerhappy, Ransack
    until round > 1
}
"""


def fight(tmp_path, script: str, faces: list[int], *options: str) -> dict:
    """`mech run FILE --faces ... --json`: the log and the result; every face must be used."""
    path = tmp_path / "fight.mech"
    path.write_text(script)
    ran = mech_forked(["run", str(path), "--faces", ",".join(map(str, faces)), "--json", *options], tmp_path)
    assert ran.code == 0, ran.err
    assert "unused" not in ran.err, ran.err
    return json.loads(ran.out)


def test_t2_t4_t5_declaring_and_acting_order_to_hit_and_no_damage(tmp_path):
    # T4: Punch rolls 3 + Speed 4 = 7, Triggerhappy 10 + Skill 6 = 16: hit. T5: Punch 6 + Endurance 6
    # = 12 against Triggerhappy 2 + Firepower 8 = 10: no damage. Then Punch misses Ransack (9+3
    # against 1+7), and Ransack attacks Punch, whose second defense this round is d10 + 4 - 1 (T3).
    # Punch was hit, so he checks courage at the end of the round (L59): 3 <= 7.
    ran = fight(tmp_path, AMBUSH, [3, 10, 6, 2, 9, 1, 5, 2, 3])
    assert ran["log"] == [
        "Punch is attacked: autobots (Punch) against decepticons (Triggerhappy, Ransack)",
        "Acting order: Triggerhappy (7), Punch (4), Ransack (3)",
        "Round 1",
        # T2: "Ransack must declare his attack first, then Punch, then Triggerhappy" (L22)
        "  Ransack declares: attack Punch with concussion rifle",
        "  Punch declares: attack Ransack with Gun",
        "  Triggerhappy declares: attack Punch with Blowpipe",
        # T2: "Triggerhappy has his TURN. Then it is Punch's TURN ... Ransack's TURN" (L76-78)
        "  Triggerhappy attacks Punch with Blowpipe: 10+6 = 16 vs 3+4 = 7: hit",
        "    damage 2+8 = 10 vs endurance 6+6 = 12: no damage (Punch 6/6 hp)",
        "  Punch attacks Ransack with Gun: 1+7 = 8 vs 9+3 = 12: miss",
        "  Ransack attacks Punch with concussion rifle: 2+5 = 7 vs 5+4-1 = 8: miss",
        "  Punch was hit: courage 3 <= 7, fights on",
    ]
    result = ran["result"]
    assert (result["winner"], result["rounds"]) == (None, 1)
    assert result["characters"]["Punch"] == {"side": "autobots", "hp": 6, "status": "active", "rank_points": 3}


def test_t6_damage_is_the_margin_and_lowers_hit_points(tmp_path):
    # L54: Punch 4 + 6 = 10 against Triggerhappy 4 + 8 = 12: two points of damage, 6 -> 4.
    ran = fight(tmp_path, AMBUSH, [3, 10, 4, 4, 9, 1, 5, 2, 3])
    assert ran["log"][7] == "    damage 4+8 = 12 vs endurance 4+6 = 10: Punch takes 2 (Punch 4/6 hp)"
    assert ran["result"]["characters"]["Punch"]["hp"] == 4


BOB = """\
use pbem
character Bob is Transformer { speed 5 skill 4 rank 2 firepower 4 strength 4 endurance 5 courage 5 }
character Jazz is Transformer { speed 9 skill 5 rank 3 firepower 5 strength 5 endurance 5 courage 5 }
character Hound is Transformer { speed 8 skill 5 rank 3 firepower 5 strength 5 endurance 5 courage 5 }
character Mirage is Transformer { speed 7 skill 5 rank 3 firepower 5 strength 5 endurance 5 courage 5 }
encounter "Bob is attacked three times" {
    side autobots: Jazz, Hound, Mirage
    side decepticons: Bob
    until round > 1
}
"""


def test_t3_each_further_defense_in_a_round_is_one_lower(tmp_path):
    # L30: "adds speed -1 to it ... adds speed -2 to it"; Bob rolls 4 each time.
    ran = fight(tmp_path, BOB, [4, 1, 4, 1, 4, 1, 10, 1])
    attacks = [line for line in ran["log"] if "attacks Bob" in line]
    assert attacks == [
        "  Jazz attacks Bob with gun: 1+5 = 6 vs 4+5 = 9: miss",
        "  Hound attacks Bob with gun: 1+5 = 6 vs 4+5-1 = 8: miss",
        "  Mirage attacks Bob with gun: 1+5 = 6 vs 4+5-2 = 7: miss",
    ]


MEGATRON = """\
use pbem
character Bob is Transformer { speed 6 skill 6 rank 2 firepower 1 strength 1 endurance 5 courage 5 }
character Megatron is Transformer { speed 2 skill 9 rank 10 firepower 9 strength 9 endurance 9 courage 9 }
character Hound is Transformer { speed 6 skill 3 rank 3 firepower 3 strength 3 endurance 10 courage 5 }
encounter "Megatron leads" {
    side decepticons: Bob, Megatron
    side autobots: Hound
    until round > 1
}
"""


def test_t7_rank_bonus_turns_a_miss_into_a_hit_and_is_the_leaders_action(tmp_path):
    # L65: Bob's 10 against 11; Megatron (Rank 10) spends 2, Bob hits with 12, Megatron keeps 8 points
    # and takes no other action this round.
    ran = fight(tmp_path, MEGATRON, [5, 4, 10, 1, 3, 2, 4])
    log = ran["log"]
    assert "  Bob attacks Hound with gun: 4+6+2 rank (Megatron) = 12 vs 5+6 = 11: hit" in log
    assert not any(line.startswith("  Megatron attacks") for line in log)
    assert ran["result"]["characters"]["Megatron"]["rank_points"] == 8


def test_rank_cannot_help_an_equal_rank_unless_the_option_says_so(tmp_path):
    # L63 "a lower rank"; PROPOSAL 8d makes equal ranks an option.
    script = MEGATRON.replace("rank 10", "rank 2")
    # Bob misses Hound; Hound misses Megatron (1+3 against 6+2); Megatron hits Hound, no damage
    log = fight(tmp_path, script, [5, 4, 6, 1, 1, 1, 10, 1, 1])["log"]
    assert "  Bob attacks Hound with gun: 4+6 = 10 vs 5+6 = 11: miss" in log
    equal = script.replace("until round > 1", "until round > 1\n    rank_equal: true")
    log = fight(tmp_path, equal, [5, 4, 10, 1, 3, 2, 4])["log"]
    assert "  Bob attacks Hound with gun: 4+6+2 rank (Megatron) = 12 vs 5+6 = 11: hit" in log


def test_rank_timing_declared_lets_the_leader_help_after_its_place_in_the_order(tmp_path):
    # PROPOSAL 8c: by default a leader who has already acted cannot help: Megatron, faster than Bob,
    # attacks first (hits, no damage), then Bob misses alone. With rank_timing "declared" (L65
    # "Megatron can say that he will use his rank"), Megatron declares rank and helps later.
    fast = MEGATRON.replace("speed 2 skill 9 rank 10", "speed 9 skill 9 rank 10")
    log = fight(tmp_path, fast, [1, 1, 10, 1, 5, 4, 1, 1, 1])["log"]
    assert "  Megatron attacks Hound with gun: 1+9 = 10 vs 1+6 = 7: hit" in log
    assert "  Bob attacks Hound with gun: 4+6 = 10 vs 5+6-1 = 10: miss" in log
    declared = fast.replace("until round > 1", 'until round > 1\n    rank_timing: "declared"')
    log = fight(tmp_path, declared, [5, 4, 10, 1, 1, 1, 1])["log"]
    assert "  Megatron declares: use rank to help an ally" in log
    assert "  Bob attacks Hound with gun: 4+6+2 rank (Megatron) = 12 vs 5+6 = 11: hit" in log
    assert not any(line.startswith("  Megatron attacks") for line in log)


BRAWL = """\
use pbem
character Punch is Transformer { speed 4 skill 7 rank 3 firepower 5 strength 6 endurance 6 courage 7 }
character Brawler is Transformer { speed 8 skill 10 rank 3 firepower 10 strength 10 endurance 10 courage 10 }
# Brawler keeps attacking Punch, even unconscious (PROPOSAL 6: he may be attacked)
fn pbem.pick_target(c, enc, plans) = match c.name {
    "Brawler" => Punch
    else => Brawler
}
encounter "Brawl" {
    side autobots: Punch
    side decepticons: Brawler
    until round > 3
}
"""


def test_t8_unconscious_at_zero_and_dead_at_minus_endurance(tmp_path):
    # L88: Endurance 6, unconscious at 0 hp, dead at -6 (12 damage in all).
    faces = [2, 9, 3, 4, 10, 1, 1,    # round 1: 5 damage, hp 1; Punch misses; courage 1 <= 7
             2, 9, 3, 5,              # round 2: 15 vs 9, 6 damage, hp -5: unconscious, not dead
             2, 9, 4, 1]              # round 3: 11 vs 10, 1 damage, hp -6: dead
    ran = fight(tmp_path, BRAWL, faces)
    damage = [line for line in ran["log"] if line.startswith("    damage")]
    assert damage == [
        "    damage 4+10 = 14 vs endurance 3+6 = 9: Punch takes 5 (Punch 1/6 hp)",
        "    damage 5+10 = 15 vs endurance 3+6 = 9: Punch takes 6 (Punch -5/6 hp): Punch is knocked unconscious",
        "    damage 1+10 = 11 vs endurance 4+6 = 10: Punch takes 1 (Punch -6/6 hp): Punch is dead",
    ]
    # an unconscious character takes no turn and checks no courage (PROPOSAL 6)
    assert not any(line.startswith("  Punch attacks") for line in ran["log"][ran["log"].index("Round 2"):])
    assert ran["result"]["winner"] == "decepticons"
    assert ran["result"]["characters"]["Punch"]["status"] == "dead"


def test_t8_exactly_zero_is_unconscious(tmp_path):
    ran = fight(tmp_path, BRAWL.replace("until round > 3", "until round > 1"), [2, 9, 3, 5])
    assert ran["log"][-1] == ("    damage 5+10 = 15 vs endurance 3+6 = 9: Punch takes 6 (Punch 0/6 hp): "
                              "Punch is knocked unconscious")


INSTANT = """\
use pbem
character Ultra is Transformer { speed 2 skill 2 rank 9 firepower 2 strength 2 endurance 10 courage 10 }
character Shooter is Transformer { speed 9 skill 5 rank 1 firepower 1 strength 1 endurance 5 courage 5 }
encounter "Natural tens" {
    side autobots: Ultra
    side decepticons: Shooter
    until round > 1
}
"""


def test_t9_natural_tens_against_natural_ones_kill_outright(tmp_path):
    # L90: the attacker's natural 10s to hit and to damage, the defender's natural 1s to dodge and to
    # resist: dead whatever the hit points (11 against 11 would do no damage at all).
    ran = fight(tmp_path, INSTANT, [1, 10, 1, 10])
    assert ran["log"][-1] == ("    damage 10+1 = 11 vs endurance 1+10 = 11: no damage (Ultra 10/10 hp): natural 10s "
                              "against natural 1s, Ultra is killed outright (L90)")
    assert ran["result"]["characters"]["Ultra"] == {"side": "autobots", "hp": 10, "status": "dead", "rank_points": 9}
    assert ran["result"]["winner"] == "decepticons"


@pytest.mark.parametrize("faces", [[2, 10, 1, 10], [1, 10, 2, 10], [1, 9, 1, 10], [1, 10, 1, 9]])
def test_t9_needs_all_four_natural_faces(tmp_path, faces):
    ran = fight(tmp_path, INSTANT, faces + [10, 1, 10])  # then Ultra misses; Ultra's courage check
    assert ran["result"]["characters"]["Ultra"]["status"] == "active"


SURPRISE = """\
use pbem
character TerrorTank is Transformer { speed 3 skill 6 rank 2 firepower 5 strength 5 endurance 5 courage 5 }
character Jazz is Transformer { speed 8 skill 5 rank 2 firepower 5 strength 5 endurance 5 courage 5 }
encounter "Ambush" {
    side autobots: Jazz
    side decepticons: TerrorTank
    surprise: "decepticons"
    until round > 1
}
"""


@pytest.mark.parametrize("face", range(1, 11))
def test_t1_surprise_needs_a_roll_of_skill_or_less(tmp_path, face):
    # L15 "If TerrorTank has a skill of six, he must roll a 1-6": then only his side attacks in
    # round 1 (Jazz, faster, does not even declare). Otherwise PROPOSAL 4: a Military attack.
    if face <= 6:
        ran = fight(tmp_path, SURPRISE, [face, 10, 1])  # Jazz dodges 10, TerrorTank rolls 1
        assert ran["log"][2:6] == [
            f"  TerrorTank tries a surprise attack: {face} <= skill 6, unseen",
            "  surprise: decepticons attack first, their opponents get no attacks in round 1",
            "Round 1",
            "  TerrorTank declares: attack Jazz with gun",
        ]
        assert not any("Jazz declares" in line or "Jazz attacks" in line for line in ran["log"])
    else:
        ran = fight(tmp_path, SURPRISE, [face, 10, 1, 10, 1])  # both attack and miss
        assert ran["log"][2:4] == [f"  TerrorTank tries a surprise attack: {face} > skill 6, spotted",
                                   "  surprise fails: combat opens as a Military attack"]
        assert "  Jazz declares: attack TerrorTank with gun" in ran["log"]


def test_a_failed_surprise_can_give_the_free_round_to_the_victims(tmp_path):
    # PROPOSAL 4 as an option: surprise_failure "reversed"
    script = SURPRISE.replace('surprise: "decepticons"', 'surprise: "decepticons"\n    surprise_failure: "reversed"')
    ran = fight(tmp_path, script, [7, 10, 1])
    assert "  surprise fails: decepticons are caught out, their opponents attack first" in ran["log"]
    assert not any("TerrorTank declares" in line for line in ran["log"])


def test_a_surprise_by_a_side_that_does_not_exist_is_a_clear_error(tmp_path):
    path = tmp_path / "fight.mech"
    path.write_text(SURPRISE.replace('"decepticons"\n', '"decepticon"\n'))
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1
    assert 'surprise: "decepticon" is not a side of Ambush (its sides: autobots, decepticons)' in ran.err
    assert "Traceback" not in ran.err


# ---- house rules ----

TIE = """\
use pbem
character Jazz is Transformer { speed 8 skill 5 rank 2 firepower 5 strength 5 endurance 5 courage 5 }
character Bob is Transformer { speed 5 skill 4 rank 2 firepower 4 strength 4 endurance 5 courage 5 }
encounter "A tie" {
    side autobots: Jazz
    side decepticons: Bob
    until round > 1
}
"""
TIE_FACES = [4, 4]          # Jazz attacks Bob: 4+5 = 9 against 4+5 = 9


def test_a_tied_attack_misses_by_default(tmp_path):
    # PROPOSAL 1: the defender holds
    ran = fight(tmp_path, TIE, TIE_FACES + [10, 1])
    assert ran["log"][5] == "  Jazz attacks Bob with gun: 4+5 = 9 vs 4+5 = 9: miss"


@pytest.mark.parametrize("how", ['pbem.tie = "attacker"\n', "setting"])
def test_a_house_rule_making_ties_hit_changes_the_fight(tmp_path, how):
    script = TIE + how if how != "setting" else TIE.replace("until", 'tie: "attacker"\n    until')
    ran = fight(tmp_path, script, TIE_FACES + [1, 10, 10, 1, 1])  # damage 10+5 against 1+5: 9; Bob misses
    assert ran["log"][5:7] == ["  Jazz attacks Bob with gun: 4+5 = 9 vs 4+5 = 9: hit",
                               "    damage 10+5 = 15 vs endurance 1+5 = 6: Bob takes 9 (Bob -4/5 hp): "
                               "Bob is knocked unconscious"]
    assert ran["result"]["winner"] == "autobots"


def test_ties_can_be_rolled_again(tmp_path):
    script = TIE.replace("until", 'tie: "reroll"\n    until')
    ran = fight(tmp_path, script, TIE_FACES + [9, 1, 10, 1])
    assert ran["log"][5:7] == ["  Jazz attacks Bob with gun: 4+5 = 9 vs 4+5 = 9: tie, both roll again",
                               "  Jazz attacks Bob with gun: 1+5 = 6 vs 9+5 = 14: miss"]


def test_a_house_rule_replacing_a_rule_function_is_used_by_the_module(tmp_path):
    # fists hit harder at this table: Strength + 3
    script = TIE + 'pbem.tie = "attacker"\nfn pbem.damage_power(att, weapon) = att.strength + 3\n'
    ran = fight(tmp_path, script, TIE_FACES + [1, 10, 10, 1, 1])
    assert ran["log"][6].startswith("    damage 10+8 = 18 vs endurance 1+5 = 6: Bob takes 12")


# ---- the other PROPOSALs as options ----

def test_initiative_ties_are_rolled_off_or_kept_as_written(tmp_path):
    # PROPOSAL 2: a tie on Speed, Skill and Rank rolls off on d10, higher first
    twins = TIE.replace("speed 5 skill 4 rank 2", "speed 8 skill 5 rank 2")
    ran = fight(tmp_path, twins.replace("until round > 1", "until round > 0"), [3, 8])
    assert ran["log"][1:3] == ["  roll-off for the tie on Speed, Skill and Rank: Jazz 3, Bob 8",
                               "Acting order: Bob (8), Jazz (8)"]
    written = twins.replace("until round > 1", 'tied_initiative: "written"\n    until round > 0')
    assert fight(tmp_path, written, [])["log"][1:] == ["Acting order: Jazz (8), Bob (8)"]


def test_l12_a_speed_tie_goes_to_skill_then_to_rank(tmp_path):
    # L12 "If there is a tie in Speed, skill breaks the tie. If Skill is tied, Rank breaks that tie."
    # Bob is written second each time, so neither order is the encounter's; no roll-off (PROPOSAL 2) is
    # needed, so no die is rolled.
    by_skill = TIE.replace("speed 5 skill 4 rank 2", "speed 8 skill 6 rank 1").replace("until round > 1", "until round > 0")
    assert fight(tmp_path, by_skill, [])["log"][1:] == ["Acting order: Bob (8), Jazz (8)"]
    by_rank = TIE.replace("speed 5 skill 4 rank 2", "speed 8 skill 5 rank 3").replace("until round > 1", "until round > 0")
    assert fight(tmp_path, by_rank, [])["log"][1:] == ["Acting order: Bob (8), Jazz (8)"]


@pytest.mark.parametrize("fizzle, last", [
    ("true", "  Ransack's attack on Punch fizzles: Punch is unconscious"),
    ("false", "  Ransack finds no one left to attack"),
])
def test_a_target_that_fell_before_the_turn_fizzles_or_is_replaced(tmp_path, fizzle, last):
    # PROPOSAL 10: Triggerhappy knocks Punch out (9 against 8: 1 damage, Endurance 1); Ransack's
    # declared attack on him fizzles, or with `fizzle: false` he looks for another target.
    script = AMBUSH.replace("endurance 6  skill 7", "endurance 1  skill 7").replace(
        "until round > 1", f"fizzle: {fizzle}\n    until round > 1")
    ran = fight(tmp_path, script, [3, 10, 7, 1])
    assert ran["log"][-1] == last


def test_courage_can_follow_damage_instead_of_a_hit(tmp_path):
    # PROPOSAL 9: a hit without damage (T4-T5) calls for a courage check; with courage_after
    # "damaged" it does not.
    log = fight(tmp_path, AMBUSH, [3, 10, 6, 2, 9, 1, 5, 2, 3])["log"]
    assert log[-1] == "  Punch was hit: courage 3 <= 7, fights on"
    script = AMBUSH.replace("until round > 1", 'courage_after: "damaged"\n    until round > 1')
    log = fight(tmp_path, script, [3, 10, 6, 2, 9, 1, 5, 2])["log"]
    assert log[-1] == "  Ransack attacks Punch with concussion rifle: 2+5 = 7 vs 5+4-1 = 8: miss"


def test_a_failed_courage_check_retreats_at_once(tmp_path):
    # L59: above Courage, the character must retreat; out of the fight, its side has lost
    ran = fight(tmp_path, AMBUSH.replace("until round > 1", "until one_side_left or round > 5"),
                [3, 10, 6, 2, 9, 1, 5, 2, 8])
    assert ran["log"][-1] == "  Punch was hit: courage 8 > 7, retreats"
    assert (ran["result"]["winner"], ran["result"]["rounds"]) == ("decepticons", 1)
    assert ran["result"]["characters"]["Punch"]["status"] == "retreated"


def test_the_defense_penalty_can_count_hits_only(tmp_path):
    # PROPOSAL 7: by default a missed attack lowers the next defense too (5+4-1 above, after a hit);
    # with penalty_counts "hits", Bob's first two defenses (misses) leave the third at +5.
    script = BOB.replace("until round > 1", 'penalty_counts: "hits"\n    until round > 1')
    attacks = [line for line in fight(tmp_path, script, [4, 1, 4, 1, 4, 1, 10, 1])["log"] if "attacks Bob" in line]
    assert [line.rsplit(": ", 2)[1] for line in attacks] == ["1+5 = 6 vs 4+5 = 9"] * 3


def test_resisting_with_hit_points_left(tmp_path):
    # PROPOSAL 5: by default the Endurance stat never drops; with resist_with "hp" the damage roll
    # adds the hit points left.
    script = BRAWL.replace("until round > 3", 'resist_with: "hp"\n    until round > 2')
    damage = [line for line in fight(tmp_path, script, [2, 9, 3, 4, 10, 1, 1, 2, 9, 3, 4])["log"]
              if line.startswith("    damage")]
    assert damage == ["    damage 4+10 = 14 vs hp 3+6 = 9: Punch takes 5 (Punch 1/6 hp)",
                      "    damage 4+10 = 14 vs hp 3+1 = 4: Punch takes 10 (Punch -9/6 hp): Punch is dead"]


def test_unconscious_characters_can_be_spared(tmp_path):
    # PROPOSAL 6 as an option: with attack_unconscious false, Brawler's declared attack on the
    # unconscious Punch fizzles (and by default he would not have chosen him: see pick_target).
    script = BRAWL.replace("until round > 3", "attack_unconscious: false\n    until round > 2")
    log = fight(tmp_path, script, [2, 9, 3, 5])["log"]  # round 1: 6 damage, Punch unconscious
    assert log[-1] == "  Brawler's attack on Punch fizzles: Punch is unconscious"


def test_surprise_by_each_member_who_passes(tmp_path):
    # PROPOSAL 4: by default one failed check spoils the surprise for the whole side; with
    # surprise_needs "each", those who pass attack alone in round 1.
    two = SURPRISE.replace("side decepticons: TerrorTank", "side decepticons: TerrorTank, Ravage").replace(
        "character Jazz", "character Ravage is Transformer { speed 2 skill 3 rank 1 firepower 5 strength 5 "
        "endurance 5 courage 5 }\ncharacter Jazz")
    log = fight(tmp_path, two, [6, 9, 10, 1, 10, 1, 10, 1])["log"]  # TerrorTank passes, Ravage fails
    assert "  surprise fails: combat opens as a Military attack" in log
    each = two.replace("until round > 1", 'surprise_needs: "each"\n    until round > 1')
    log = fight(tmp_path, each, [6, 9, 10, 1])["log"]
    assert log[4:7] == ["  surprise: TerrorTank attacks first", "Round 1", "  TerrorTank declares: attack Jazz with gun"]
    assert sum("declares" in line for line in log) == 1


@pytest.mark.parametrize("face, passed", [(5, "true"), (6, "false")])
def test_an_assorted_roll_is_d10_under_a_stat(tmp_path, face, passed):
    # L66, PROPOSAL 12: the referee names the stat, Skill unless said: `pbem.check(c)`
    script = "use pbem\ncharacter Jazz is Transformer { speed 8 skill 5 rank 2 firepower 5 strength 5 " \
             "endurance 5 courage 5 }\nsay pbem.check(Jazz)\npbem.check_stat = \"speed\"\nsay pbem.check(Jazz)\n"
    assert fight(tmp_path, script, [face, face + 3])["log"] == [passed, "false" if face + 3 > 8 else "true"]


def test_stats_are_checked_against_the_ranges_of_the_text(tmp_path):
    # PROPOSAL 3: whole numbers from 1 to 10, an option of the module (stat_high)
    path = tmp_path / "fight.mech"
    path.write_text("use pbem\ncharacter Jazz is Transformer { speed 11 skill 5 rank 2 firepower 5 strength 5 "
                    "endurance 5 courage 5 }\n")
    ran = mech_forked(["run", str(path)], tmp_path)
    assert ran.code == 1 and "fight.mech:2:39: `speed` of Transformer is a whole number from 1 to 10, not 11" in ran.err
    path.write_text("use pbem\npbem.stat_high = 12\ncharacter Jazz is Transformer { speed 11 skill 5 rank 2 "
                    "firepower 5 strength 5 endurance 5 courage 5 }\nsay Jazz.speed\n")
    assert mech_forked(["run", str(path)], tmp_path).out == "11\n"


def test_a_fight_that_cannot_end_stops_at_the_rounds_limit_with_a_clear_error(tmp_path):
    # Firepower 1 against Endurance 10 never wins, and Courage 10 never fails: no side can lose.
    path = tmp_path / "stalemate.mech"
    path.write_text("use pbem\n"
                    "character A is Transformer { speed 4 skill 7 rank 3 firepower 1 strength 1 endurance 10 courage 10 }\n"
                    "character B is Transformer { speed 4 skill 7 rank 3 firepower 1 strength 1 endurance 10 courage 10 }\n"
                    'encounter "stalemate" {\n    side a: A\n    side b: B\n}\n')
    ran = mech_forked(["run", str(path), "--seed", "1", "--limit", "rounds=5"], tmp_path)
    assert ran.code == 1
    assert ran.err.splitlines()[:4] == [
        f"{path}:4:1: the encounter went 5 rounds and its `until` never held; the limit `rounds` is 5",
        '  encounter "stalemate" {',
        "  ^~~~~~~~~~~~~~~~~~~~~~~",
        "  hint: end it after some rounds too: `until one_side_left or round > 20`; raise it with --limit rounds=N "
        "(Python: Limits(rounds=N))",
    ]
    assert ran.out.count("Round ") == 5


# ---- what a game master gets wrong, and what the rules must not get wrong ----

def test_an_option_set_to_a_value_it_does_not_have_is_an_error(tmp_path):
    # a typo would silently drop a rule: "hit" for "hits" would end the multiple-defense penalty
    path = tmp_path / "fight.mech"
    path.write_text(AMBUSH.replace("until round > 1", 'penalty_counts: "hit"\n    until round > 1'))
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1
    assert ran.err.splitlines() == [
        f'{path}:10:5: `penalty_counts` is one of "every", "hits", not "hit"',
        '      penalty_counts: "hit"',
        "      ^~~~~~~~~~~~~~",
        '  hint: did you mean "hits"?',
    ]
    # set by the script's top level: refused at the assignment (issue 21, item 3)
    path.write_text(AMBUSH + 'pbem.tie = "atacker"\n')
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1
    line = len(AMBUSH.splitlines()) + 1
    assert ran.err.splitlines() == [
        f'{path}:{line}:12: `tie` is one of "defender", "attacker", "reroll", not "atacker"',
        '  pbem.tie = "atacker"', "             ^~~~~~~~~", '  hint: did you mean "attacker"?']
    # set by a function the script calls: when the fight starts, at the encounter
    path.write_text(AMBUSH + 'fn careless() { pbem.tie = "atacker" }\ncareless()\n')
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1
    assert 'the option `tie` of these rules is one of "defender", "attacker", "reroll", not "atacker"' in ran.err
    assert 'did you mean "attacker"?' in ran.err


def test_an_option_read_when_characters_are_made_cannot_be_an_encounter_setting(tmp_path):
    path = tmp_path / "fight.mech"
    path.write_text(AMBUSH.replace("until round > 1", "stat_high: 12\n    until round > 1"))
    ran = mech_forked(["check", str(path)], tmp_path)
    assert ran.code == 1
    assert "`stat_high` is read when a Transformer is made, before the fight: an encounter cannot set it" in ran.err
    assert "hint: set it in the script before the characters: `pbem.stat_high = ...`" in ran.err


def test_t7_the_leaders_declared_action_gives_way_to_rank_in_the_log(tmp_path):
    log = fight(tmp_path, MEGATRON, [5, 4, 10, 1, 3, 2, 4])["log"]
    assert "  Megatron gave this turn to rank instead of: attack Hound with gun" in log


def test_a_leader_who_declared_a_retreat_does_not_help(tmp_path):
    # Megatron (2 hp of 9) declares a retreat; Bob's 10 against 11 stays a miss, and Megatron leaves.
    script = MEGATRON.replace("endurance 9 courage 9 }", "endurance 9 courage 9  hp 2 }")
    log = fight(tmp_path, script, [5, 4, 10, 1])["log"]
    assert "  Megatron declares: retreat" in log
    assert "  Bob attacks Hound with gun: 4+6 = 10 vs 5+6 = 11: miss" in log
    assert log[-1] == "  Megatron retreats"


def test_rank_equal_lets_an_equal_leader_declare_rank(tmp_path):
    script = MEGATRON.replace("rank 10", "rank 2").replace(
        "until round > 1", 'rank_timing: "declared"\n    rank_equal: true\n    until round > 1')
    log = fight(tmp_path, script, [5, 4, 10, 1, 1, 1, 1])["log"]
    assert "  Megatron declares: use rank to help an ally" in log
    assert "  Bob attacks Hound with gun: 4+6+2 rank (Megatron) = 12 vs 5+6 = 11: hit" in log


def test_a_tie_to_be_rolled_again_opens_no_rank_window(tmp_path):
    # PROPOSAL 1 "reroll": a tie is neither side's loss; rank helps on the roll that decides
    script = MEGATRON.replace("until round > 1", 'tie: "reroll"\n    until round > 1')
    log = fight(tmp_path, script, [4, 4, 5, 4, 10, 1, 3, 2, 10, 1, 4])["log"]
    assert log[6:8] == ["  Bob attacks Hound with gun: 4+6 = 10 vs 4+6 = 10: tie, both roll again",
                        "  Bob attacks Hound with gun: 4+6+2 rank (Megatron) = 12 vs 5+6 = 11: hit"]


def test_the_target_tactic_follows_the_acting_order_after_a_roll_off(tmp_path):
    # L38 "take him out before he hits me": B acts after Punch once the roll-off puts A, Punch, B
    same = "speed 4 skill 7 rank 3 firepower 5 strength 6 endurance 6 courage 7"
    script = (f"use pbem\ncharacter Punch is Transformer {{ {same} }}\ncharacter A is Transformer {{ {same} }}\n"
              f"character B is Transformer {{ {same} }}\n"
              'encounter "Three alike" {\n    side autobots: Punch\n    side decepticons: A, B\n    until round > 1\n}\n')
    log = fight(tmp_path, script, [5, 9, 1, 10, 1, 10, 1, 10, 1])["log"]
    assert log[1:6] == ["  roll-off for the tie on Speed, Skill and Rank: Punch 5, A 9, B 1",
                        "Acting order: A (4), Punch (4), B (4)", "Round 1",
                        "  B declares: attack Punch with gun", "  Punch declares: attack B with gun"]


def test_a_character_declared_hurt_starts_as_its_hit_points_say(tmp_path):
    # L88: at 0 hit points or less, unconscious: Bob starts out of the fight
    script = TIE.replace("endurance 5 courage 5 }\nencounter", "endurance 5 courage 5  hp -3 }\nencounter").replace(
        "until round > 1", "until one_side_left or round > 1")
    ran = fight(tmp_path, script, [])
    assert (ran["result"]["winner"], ran["result"]["rounds"]) == ("autobots", 0)
    assert ran["result"]["characters"]["Bob"]["status"] == "unconscious"


def test_a_new_target_is_told_in_the_log(tmp_path):
    # PROPOSAL 10 with fizzle false: Ransack's target is knocked out before his turn
    script = (ROOT_TESTS / "scripts" / "pbem_retarget.mech").read_text()
    log = fight(tmp_path, script, [10, 1, 3, 10, 7, 1, 10, 1])["log"]
    assert log[-2:] == ["  Ransack's target Punch is unconscious: Ransack turns on Jazz",
                        "  Ransack attacks Jazz with concussion rifle: 1+5 = 6 vs 10+9 = 19: miss"]


# ---- the design brief's Transformer, and the assorted roll as an action (issue 19) ----

# shared/design/mechscript.md, its normative example, word for word: a Transformer with the eight Tech
# Specs. The brief does not declare Punch's two foes; they are the example's (examples/pbem_ambush.mech)
BRIEF = """\
use pbem                             # load a module: the script's folder first, then the standard library

character Punch is Transformer {     # a declaration checked against the module's schema
    strength 6  intelligence 5  speed 4  endurance 6
    rank 3  courage 7  firepower 5  skill 7
}                                    # nested declarations (weapons, armaments) as a module's schema defines them

encounter "Ambush at the dam" {
    side autobots: Punch
    side decepticons: Triggerhappy, Ransack
    until one_side_left or round > 20
}
"""
FOES = """\
character Triggerhappy is Transformer { speed 7 skill 6 firepower 8  rank 4 strength 4 endurance 5 courage 5
    weapon Blowpipe }
character Ransack is Transformer { speed 3  skill 5 rank 2 firepower 6 strength 5 endurance 5 courage 4
    weapon "concussion rifle" }
"""


def brief_script() -> str:
    head, encounter = BRIEF.split("encounter ")
    return head + FOES + "\nencounter " + encounter


def test_the_design_briefs_transformer_with_eight_tech_specs_checks_runs_and_simulates(tmp_path):
    (tmp_path / "brief.mech").write_text(brief_script())
    checked = mech_forked(["check", "brief.mech"], tmp_path)
    assert checked.code == 0, checked.err
    ran = mech_forked(["run", "brief.mech", "--seed", "1", "--json"], tmp_path)
    assert ran.code == 0, ran.err
    log = json.loads(ran.out)["log"]
    # kept on the sheet and shown; Part Two has no rule that reads it (the digest: Part One is missing)
    assert log[2] == "  Punch: intelligence 5 (on the sheet; no rule of Part Two reads it)"
    assert not any("intelligence" in line for line in log[3:])
    sim = mech_forked(["sim", "brief.mech", "-n", "40", "--seed", "1", "--jobs", "1", "--json"], tmp_path)
    assert sim.code == 0, sim.err
    assert sum(w["count"] for w in json.loads(sim.out)["winners"].values()) == 40


def test_intelligence_may_be_left_out_and_is_checked_when_given(tmp_path):
    # the seven stats of Part Two are enough (AMBUSH has no intelligence); a value is 1 to 10
    path = tmp_path / "bad.mech"
    path.write_text(AMBUSH)
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 0 and "intelligence" not in ran.out, ran.err
    path.write_text(brief_script().replace("intelligence 5", "intelligence 11"))
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1 and "Traceback" not in ran.err
    assert ran.err.startswith(f"{path}:4:30: `intelligence` of Transformer is one of none, 1, 2,")


WAITING = """\
fn pbem.choose(c, enc, plans) {
    if c == Punch and enc.round == 1 { return pbem.assorted(c, "pick up a boulder for a shield", STAT) }
    if c == Punch and enc.round == 2 { say "done: {Punch.done}" }
    return pbem.plan(c, "wait", none, none)
}
"""


@pytest.mark.parametrize("stat, face, line", [
    ("none", 7, "  Punch tries to pick up a boulder for a shield: 7 <= skill 7, done"),      # PROPOSAL 12: Skill
    ("none", 8, "  Punch tries to pick up a boulder for a shield: 8 > skill 7, fails"),
    ('"strength"', 6, "  Punch tries to pick up a boulder for a shield: 6 <= strength 6, done"),
    ('"intelligence"', 6, "  Punch tries to pick up a boulder for a shield: 6 > intelligence 5, fails"),
])
def test_l66_an_assorted_roll_is_an_action_a_tactic_chooses(tmp_path, stat, face, line):
    # L66: not attacking, retreating or using rank, "you must say what you want to do ... The Referee
    # will decide what you need to roll"; the turn's one die, d10 <= the stat
    script = brief_script().replace("round > 20", "round > 2") + WAITING.replace("STAT", stat)
    log = fight(tmp_path, script, [face])["log"]
    named = "skill" if stat == "none" else stat.strip('"')
    assert f"  Punch declares: pick up a boulder for a shield ({named})" in log
    assert line in log
    assert ('done: ["pick up a boulder for a shield"]' if line.endswith("done") else "done: []") in log


def test_an_assorted_roll_on_intelligence_not_on_the_sheet_is_a_clear_error(tmp_path):
    script = AMBUSH + WAITING.replace("STAT", '"intelligence"')
    path = tmp_path / "fight.mech"
    path.write_text(script)
    ran = mech_forked(["run", str(path), "--faces", "5"], tmp_path)
    assert ran.code == 1 and "Traceback" not in ran.err
    assert "Punch has no intelligence on its sheet for this roll: give it `intelligence N` (1 to 10)" in ran.err
