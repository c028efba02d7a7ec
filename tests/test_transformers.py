"""Golden tests of the `transformers` module (rule text 000: the Transformers RPG on 7th Sea's
roll-and-keep; digest shared/rules/transformers-7thsea.md, original text
shared/seeds/000_6706884ff34b4b73.txt, cited as `L<n>`).

- the worked examples E10-E22 of the digest's section 5.2-5.3 that the module covers (E01-E09, the
  dice alone, are in test_rollkeep_golden.py; E17, Persistent Effects, has no rule in the module);
- the derived vectors of section 5.5 that apply to it;
- one short fight with fixed faces, every line checked against a hand computation;
- each option of the module changing what it names, and a house rule replacing the Size table;
- places where a first cut of the module contradicted the text or the digest (found by these
  tests, then fixed).

Every script runs as a user runs it, `mech run FILE --faces ... --json`, in a forked child
(support.mech_forked). Faces are d10 faces in the order the dice fall: a roll-and-keep pool's dice
left to right, then its explosions (10s) in rounds. Each hand computation below reads: the pool
(Tech Spec Dice = level / 2, L35; + a Concentration's Level as unkept dice, L38), its normalised
form (half dice, L28), the kept dice, the total, the TN, and "hit" only when the total is above the
TN (L43 "roll above", L146 "roll over"; the option success_at).
"""

from __future__ import annotations

import pytest

from support import keyed, run_json


SPECS = ("strength", "intelligence", "speed", "endurance", "rank", "courage", "firepower", "skill")


def transformer(name: str, *entries: str, **values) -> str:
    """`character NAME is Transformer { ... }`: the eight Tech Specs, 5 unless given, then any other
    stat or starting state given (`major=8`, `defends_with='"acrobatics"'`), then `entries` (gear)."""
    given = dict.fromkeys(SPECS, 5) | values
    body = "  ".join(f"{key} {value}" for key, value in given.items())
    return f"character {name} is Transformer {{ {body}  {'  '.join(entries)} }}\n"


def conc(name: str, level: int) -> str:
    return f"concentration {name} {{ level {level} }}"


def encounter(name: str, first: str, second: str, *settings: str, until: str = "round > 1") -> str:
    lines = "".join(f"    {setting}\n" for setting in settings)
    return (f'encounter "{name}" {{\n    side autobots: {first}\n    side decepticons: {second}\n'
            f"{lines}    until {until}\n}}\n")


# ---- formulas: one script, read by the tests of the examples below ----

FORMULAS = ("use transformers\n"
            'let robot = "robot"\nlet beast = "beast"\nlet vehicle = "vehicle"\nlet object = "object"\n'
            # E10 (L141): Base Defense 6 (Intelligence 6, Size modifier 0), Dodge 3
            + transformer("Wheeljack", conc("Dodge", 3), intelligence=6)
            # E11 (L148): Skill 8, Shooting 3; the target: Base Defense 7 with Dodge 3 and Acrobatics 4,
            # its last action plain (Dodge) or with Acrobatics (L143)
            + transformer("Sunstreaker", conc("Shooting", 3), 'armament "Solar blaster" { damage 3k2 }', skill=8)
            + transformer("Dodger", conc("Dodge", 3), conc("Acrobatics", 4), intelligence=7)
            + transformer("Acrobat", conc("Dodge", 3), conc("Acrobatics", 4), intelligence=7,
                          defends_with='"acrobatics"')
            # E13 (L164): 8 Major, Courage 5, recovered (active); Speed and Endurance 8: 4k4 pools
            + transformer("Wreck", 'armament "Fusion cannon" { damage 3k2 }', speed=8, endurance=8, firepower=4,
                          major=8)
            # E14 (L171): Courage 6, 12 Major
            + transformer("Dying", courage=6, major=12)
            # E22 (L197): Sprinting 2; Walker has none
            + transformer("Runner", conc("Sprinting", 2))
            + transformer("Walker")
            # L164: Wheeljack again, in the round it recovers from Knocked Out
            + transformer("Waking", conc("Dodge", 3), intelligence=6, status='"recovering"')
            + 'say "E10: {Wheeljack.base_defense} {passive_defense(Wheeljack)}"\n'
              'say "E11: {attack_pool(Sunstreaker, Sunstreaker.armament[0]).notation} {passive_defense(Dodger)} '
              '{passive_defense(Acrobat)} {succeeds(24, passive_defense(Dodger))} '
              '{succeeds(24, passive_defense(Acrobat))}"\n'
              'say "E12: {prone_tn(2)} {prone_tn(5/2)} {prone_tn(1)} {prone_tn(3)}"\n'
              'say "E13: {penalty(Wreck).notation} {initiative_pool(Wreck).notation} '
              '{durability_pool(Wreck).notation} {status_for(Wreck)}"\n'
              'say "E14: {dying_tn(Dying)} {status_for(Dying)}"\n'
              'let start = add(8k4, pool(4, 0))\nlet rounds = []\n'
              "for r in range(5) { push(rounds, continuous(start, r).notation) }\n"
              'say "E16: {rounds}"\n'
              'say "E18: {called_shot(2)} {called_shot(0)}"\n'
              'say "E19: {autofire_tn(3, 1)} {autofire_tn(3, 2)}"\n'
              'say "E20: {doubleshot_tn(1, 1)} {doubleshot_tn(1, 2)}"\n'
              "let bands = []\nfor h in range(8) { push(bands, range_band(8, h)) }\n"
              'say "E21: {bands}"\n'
              'say "E22: {movement(Runner, robot, 0)} {movement(Runner, beast, 0)} {movement(Runner, vehicle, 4)} '
              '{movement(Runner, object, 0)}"\n'
              'say "opposed: {opposed_tn(7)} {opposed_tn(5)} {opposed_tn(8)}"\n'
              'say "speed 7: {speed_mods(7)}"\nsay "speed 16: {speed_mods(16)}"\n'
              'say "recovering: {passive_defense(Waking)}"\n'
              'say "wreck damage: {damage_pool(Wreck, Wreck.armament[0], 0).notation}"\n'
              'say "vehicle on foot: {movement(Runner, vehicle, 0)} {movement(Walker, vehicle, 0)}"\n'
              'say "object flying: {movement(Runner, object, 4)}"\n'
              # the option vehicle_move last: it changes every vehicle above
              "transformers.vehicle_move = 2\n"
              'say "vehicle_move 2: {movement(Runner, robot, 0)} {movement(Runner, beast, 0)} '
              '{movement(Runner, vehicle, 4)}"\n')


@pytest.fixture(scope="module")
def formulas(tmp_path_factory) -> dict[str, str]:
    """The FORMULAS script's lines, `KEY: value` as {KEY: value}."""
    log = run_json(tmp_path_factory.mktemp("formulas"), FORMULAS)["log"]
    return keyed(log)


# ---- 5.2: defense, attack, damage, status ----

def test_e10_passive_defense_is_base_defense_plus_five_per_dodge_level(formulas):
    # L141: "(6 + 3 x 5 = 21)"
    assert formulas["E10"] == "6 21"


def test_e11_the_attack_pool_and_the_defense_it_must_beat(formulas):
    # L148: Skill Dice 4 + Shooting 3 = 7k4; Base Defense 7: Dodge 7 + 15 = 22, Acrobatics 7 + 20 = 27;
    # 24 is above 22 (a hit), not above 27 (a miss)
    assert formulas["E11"] == "7k4 22 27 true false"


E11_FIGHT = ("use transformers\n"
             + transformer("Sunstreaker", conc("Shooting", 3), 'armament "Solar blaster" { damage 3k2 }',
                           speed=6, skill=8)
             + transformer("Target", conc("Dodge", 3), conc("Acrobatics", 4), intelligence=7, speed=1,
                           defends_with='"DEFENSE"')
             + encounter("E11", "Sunstreaker", "Target"))
# Initiative: Sunstreaker Speed 6: 3k3: 3 2 1 = 6; the target Speed 1: 0.5k0.5, rolled as 1k0.5, one die
# halved: 1 -> 0, so it never acts. The attack, 7k4: 9 6 5 4 (3 2 1) = 24 (the text's result).
E11_FACES = [3, 2, 1, 1, 9, 6, 5, 4, 3, 2, 1]
E11_OPENING = ["E11: autobots (Sunstreaker) against decepticons (Target)", "Round 1",
               "  initiative: Sunstreaker 3k3: 3 2 1 = 6; Target 1k0.5: 1/2 = 0"]


def test_e11_a_24_hits_the_dodge_passive_defense_of_22(tmp_path):
    # The target at Initiative 0 borrows 5 phases of the next round for an Active Defense (L151):
    # Intelligence Dice 3.5 + Dodge 3 = 6.5k3.5, rolled as 7k3.5 (keep 4, halve the lowest kept, L28):
    # 9 9 8 7 (6 5 4): 9 + 9 + 8 + floor(7/2) = 29, above the attack's 24: avoided, no damage.
    ran = run_json(tmp_path, E11_FIGHT.replace("DEFENSE", "dodge"), E11_FACES + [9, 9, 8, 7, 6, 5, 4])
    assert ran["log"] == E11_OPENING + [
        "  phase 6: Sunstreaker attacks Target with Solar blaster: 7k4: 9 6 5 4 (3 2 1) = 24 vs PD 22: hit",
        "    Target defends actively, borrowing 5 phases from next round: 7k3.5: 9 9 8 7/2 (6 5 4) = 29 vs 24: "
        "avoids it",
    ]
    assert ran["result"]["characters"]["Target"] == {"side": "decepticons", "major": 0, "minor": 0, "energon": 2.5,
                                                     "status": "active", "prone": False}


def test_e11_the_same_24_misses_the_acrobatics_passive_defense_of_27(tmp_path):
    ran = run_json(tmp_path, E11_FIGHT.replace("DEFENSE", "acrobatics"), E11_FACES)
    assert ran["log"] == E11_OPENING + [
        "  phase 6: Sunstreaker attacks Target with Solar blaster: 7k4: 9 6 5 4 (3 2 1) = 24 vs PD 27: miss"]


def test_e12_the_prone_check_is_15_per_major_damage_above_one(formulas):
    # L159: 2 Major -> TN 15 = 15 x (2 - 1); half points ignored (A10); 1 Major -> 0 (digest 4.10)
    assert formulas["E12"] == "15 15 0 30"


def test_e12_a_melee_hit_for_2_major_damage_needs_a_skill_roll_above_15(tmp_path):
    # Endurance 2: Durability 1k1: 3 against Minor 25, failed by 22: 1 + 0.5 x floor(22/10) = 2 Major.
    # A melee hit (not ranged): a plain Skill roll (A11), Skill 4: 2k2 against 15 x (2 - 1) = 15.
    # Ratchet rolls 9 6 = 15, not above 15: prone. Hoist rolls 9 7 = 16: keeps its feet.
    script = ("use transformers\n"
              + transformer("Ratchet", endurance=2, skill=4, courage=6, rank=1)
              + transformer("Hoist", endurance=2, skill=4, courage=6, rank=1)
              + "take_damage(Ratchet, 25, false)\ntake_damage(Hoist, 25, false)\n"
                'say "prone: {Ratchet.prone} {Hoist.prone}"\n')
    assert run_json(tmp_path, script, [3, 9, 6, 3, 9, 7])["log"] == [
        "    Ratchet Durability 1k1: 3 = 3 vs Minor 25: fails by 22, 2 Major (now 2)",
        "    Ratchet falls prone: 2k2: 9 6 = 15 vs 15 (L159)",
        "    Hoist Durability 1k1: 3 = 3 vs Minor 25: fails by 22, 2 Major (now 2)",
        "    Hoist keeps its feet: 2k2: 9 7 = 16 vs 15 (L159)",
        "prone: true false",
    ]


def test_e13_major_damage_above_courage_is_minus_1k0_per_point_on_rolls(formulas):
    # L164: 8 Major, Courage 5: -3k0; Initiative and Durability 4k4 - 3k0 = 1k4 (keep the one die);
    # still Knocked Out by the ladder until it recovers
    assert formulas["E13"] == "3k0 1k4 1k4 knocked out"


def test_e14_a_dying_spark_is_saved_against_5_per_major_above_courage(formulas):
    # L171: Courage 6, 12 Major = 2 x 6: dying; "(12 - 6 = 6, 6 x 5 = 30)"
    assert formulas["E14"] == "30 dying"


def test_e15_an_explosion_loses_its_lowest_kept_die_each_hex_out(tmp_path):
    # L344: 5k3 rolling 12 (a 10, then 2), 9, 7, 4, 2: the dice fall 10 9 7 4 2, then the 10's reroll 2.
    # Keep 12 9 7: the base hex 28, one hex out 12 + 9 = 21, two hexes 12, three hexes nothing.
    script = ("use transformers\nlet grenade = roll(5k3)\nsay breakdown(grenade)\n"
              'say "{explosion(grenade, 0)} {explosion(grenade, 1)} {explosion(grenade, 2)} {explosion(grenade, 3)}"\n')
    assert run_json(tmp_path, script, [10, 9, 7, 4, 2, 2])["log"] == ["5k3: 12 9 7 (4 2) = 28", "28 21 12 0"]


def test_e16_a_continuous_effect_loses_1k1_a_round_before_the_ten_dice_rule(formulas, tmp_path):
    # L357: 8k4 with 4 damage Boosts is 12k4 (rolled as 10k6); the next rounds are worked out from 12k4,
    # not from 10k6: 11k3 (as 10k4), 10k2, 9k1, then 8k0, out of dice
    assert formulas["E16"] == '["12k4", "11k3", "10k2", "9k1", "8k0"]'
    script = ("use transformers\nlet start = add(8k4, pool(4, 0))\n"
              "for r in range(5) { say breakdown(roll(continuous(start, r))) }\n")
    ten = [9, 8, 7, 6, 5, 4, 3, 2, 1, 1]
    assert run_json(tmp_path, script, ten * 3 + ten[:9])["log"] == [
        "10k6: 9 8 7 6 5 4 (3 2 1 1) = 39",
        "10k4: 9 8 7 6 (5 4 3 2 1 1) = 30",
        "10k2: 9 8 (7 6 5 4 3 2 1 1) = 17",
        "9k1: 9 (8 7 6 5 4 3 2 1) = 9",
        "8k0: automatic failure",
    ]


def test_e18_each_boost_beyond_a_called_shots_two_applies_it_once_more(formulas):
    # L322: 2 extra Boosts: -5 becomes -15 (3 times), and 10 more damage needed
    assert formulas["E18"] == "{times: 3, more_damage: 10} {times: 1, more_damage: 0}"


def test_e19_autofire_raises_the_tn_5_per_extra_attack_per_target(formulas):
    # L740: three attacks on one target +10, on two targets +20
    assert formulas["E19"] == "10 20"


def test_e20_doubleshot_raises_the_tn_5_per_extra_attack_per_target(formulas):
    # L776, L779: two attacks on one target +5, on two targets +10
    assert formulas["E20"] == "5 10"


def test_e21_range_8_is_short_to_2_medium_to_6_long_to_8(formulas):
    # L1339
    assert formulas["E21"] == '["short", "short", "medium", "medium", "medium", "medium", "long", "long"]'


def test_e22_movement_by_mode_and_propulsion(formulas):
    # L197: Sprinting 2: Robot 1 + 2 = 3, Beast 3 x 2 = 6; Vehicle flight Quickness 4: (1 + 4) x 3 = 15
    # (x3 by L195 and L1550, where L182 says x2: C1); Object x0 (L195)
    assert formulas["E22"] == "3 6 15 0"


# ---- 5.5: derived vectors ----

def test_opposed_tn_is_two_and_a_half_times_the_tech_spec_rounded_down(formulas):
    # L46: 17.5 -> 17, 12.5 -> 12, 20
    assert formulas["opposed"] == "17 12 20"


def test_speed_table_spot_checks(formulas):
    # L206-227, rows 7 and 16: (PD, AD, mounted, held/turreted)
    assert formulas["speed 7"] == "{passive: 3, active: -3, mounted: -3, held: -1}"
    assert formulas["speed 16"] == "{passive: 8, active: -8, mounted: -8, held: -4}"


def test_durability_failed_by_21_is_2_major_and_minor_starts_again(tmp_path):
    # L154: Minor 0 + 23 = 23; Endurance 2: 1k1 rolls 2, failed by 21: 1 + 0.5 x floor(21/10) = 2 Major,
    # Minor back to 0. A ranged hit: blown back 2 - 1 = 1 hex (L159). Courage 5: 2 is not above 2.5.
    script = ("use transformers\n" + transformer("Huffer", endurance=2, rank=1)
              + 'take_damage(Huffer, 23, true)\nsay "major {Huffer.major}, minor {Huffer.minor}, {Huffer.status}"\n')
    assert run_json(tmp_path, script, [2])["log"] == [
        "    Huffer Durability 1k1: 2 = 2 vs Minor 23: fails by 21, 2 Major (now 2)",
        "    Huffer is blown back 1 hex (L159)",
        "major 2, minor 0, active",
    ]


def test_fatigue_at_courage_5_starts_above_two_and_a_half_major(tmp_path):
    # L161: Courage 5. Brawn, 1.5 Major, fails a Durability Check (2k2: 4 3 = 7 vs 12, by 5): 1 Major,
    # 2.5 in all, not above 5/2: not Fatigued, no roll. Gears, 2 Major, the same: 3 > 2.5, Fatigued:
    # a Durability roll against 5 x 3 = 15, and no die explodes: 10 6 = 16 (the 10 draws no extra
    # die), above 15: stays up. Rank 1: half an Energon Die, never spent.
    script = ("use transformers\n"
              + transformer("Brawn", endurance=4, rank=1, major=1.5)
              + transformer("Gears", endurance=4, rank=1, major=2)
              + "take_damage(Brawn, 12, true)\n"
                'say "Brawn: {halves(Brawn.major)} Major, fatigued {fatigued(Brawn)}"\n'
                "take_damage(Gears, 12, true)\n"
                'say "Gears: {halves(Gears.major)} Major, fatigued {fatigued(Gears)}, {Gears.status}"\n')
    assert run_json(tmp_path, script, [4, 3, 4, 3, 10, 6])["log"] == [
        "    Brawn Durability 2k2: 4 3 = 7 vs Minor 12: fails by 5, 1 Major (now 2.5)",
        "Brawn: 2.5 Major, fatigued false",
        "    Gears Durability 2k2: 4 3 = 7 vs Minor 12: fails by 5, 1 Major (now 3)",
        "    Gears is Fatigued: Durability 2k2: 10 6 = 16 vs 15: stays up",
        "Gears: 3 Major, fatigued true, active",
    ]


def test_initiative_25_acts_at_phases_25_15_and_5(tmp_path):
    # L126: Speed 6: 3k3: 9 8 8 = 25; each action takes 10 phases: 25, 15, 5, then 0 (A6: no action at 0).
    # Skill 2, no Brawling: 1k1 against PD 5 + 5 unskilled (L40); the other, Speed 1: 1 -> 0, never acts.
    script = ("use transformers\n" + transformer("Blurr", speed=6, skill=2) + transformer("Astrotrain", speed=1)
              + encounter("Initiative 25", "Blurr", "Astrotrain"))
    log = run_json(tmp_path, script, [9, 8, 8, 1, 1, 1, 1])["log"]
    assert log[2:] == [
        "  initiative: Blurr 3k3: 9 8 8 = 25; Astrotrain 1k0.5: 1/2 = 0",
        "  phase 25: Blurr attacks Astrotrain with fists: 1k1: 1 = 1 vs PD 5 + 5 unskilled: miss",
        "  phase 15: Blurr attacks Astrotrain with fists: 1k1: 1 = 1 vs PD 5 + 5 unskilled: miss",
        "  phase 5: Blurr attacks Astrotrain with fists: 1k1: 1 = 1 vs PD 5 + 5 unskilled: miss",
    ]


def test_initiative_25_after_an_interrupt_action_is_10(tmp_path):
    # L138: an Interrupt Action costs an Energon Die and 15 phases at once, one a round. Blurr (25, Rank 4:
    # 2 Energon Dice) interrupts Astrotrain's first action (Speed 10: 5k5: 6 6 6 6 6 = 30), acting at
    # phase 30, and is left with 25 - 15 = 10: its next action at phase 10 (Blurr written first on the
    # tie with Astrotrain's 30 - 10 - 10). Every attack: 1k1 rolls 1, a miss.
    script = ("use transformers\nfn transformers.interrupts(c, acting, enc) = c.name == \"Blurr\"\n"
              + transformer("Blurr", speed=6, skill=2, rank=4) + transformer("Astrotrain", speed=10, skill=2)
              + encounter("Interrupt", "Blurr", "Astrotrain"))
    ran = run_json(tmp_path, script, [9, 8, 8, 6, 6, 6, 6, 6, 1, 1, 1, 1, 1])
    miss = "with fists: 1k1: 1 = 1 vs PD 5 + 5 unskilled: miss"
    assert ran["log"][2:] == [
        "  initiative: Blurr 3k3: 9 8 8 = 25; Astrotrain 5k5: 6 6 6 6 6 = 30",
        "  phase 30: Blurr spends an Energon Die to interrupt Astrotrain",
        f"  phase 30: Blurr attacks Astrotrain {miss}",
        f"  phase 30: Astrotrain attacks Blurr {miss}",
        f"  phase 20: Astrotrain attacks Blurr {miss}",
        f"  phase 10: Blurr attacks Astrotrain {miss}",
        f"  phase 10: Astrotrain attacks Blurr {miss}",
    ]
    assert ran["result"]["characters"]["Blurr"]["energon"] == 1


# ---- one fight, every step by hand ----

DAM = """\
use transformers
character Ironhide is Transformer { strength 6 intelligence 4 speed 6 endurance 6 rank 4 courage 6 firepower 4 skill 6
    concentration Shooting { level 2 }  concentration Dodge { level 1 }  armament Blaster { damage 2k2 } }
character Skywarp is Transformer { strength 4 intelligence 4 speed 4 endurance 4 rank 1 courage 3 firepower 4 skill 4
    concentration Shooting { level 1 }  concentration Dodge { level 1 }  armament "Null ray" { damage 2k2 } }
encounter "Ambush at the dam" {
    side autobots: Ironhide
    side decepticons: Skywarp
}
"""
# Ironhide. Initiative: Speed Dice 3: 3k3 (L126). Attack: Skill Dice 3 + Shooting 2 = 5k3 (L146).
#   PD: Base Defense 4 (Intelligence 4 + Size modifier 0) + 5 x Dodge 1 = 9 (L141). Active Defense:
#   Intelligence Dice 2 + Dodge 1 = 3k2 (L151). Damage: the Blaster's 2k2 + Firepower Dice 2 unkept = 4k2
#   (A18). No damage Boost: the tactic takes one when 3 kept x 6 >= PD 9 + 15, and 18 < 24.
# Skywarp. Initiative 2k2; attack 2 + 1 = 3k2; PD 4 + 5 = 9; Active Defense 3k2; Durability: Endurance
#   Dice 2: 2k2 (L154). Courage 3: Fatigued above 1.5 Major, Knocked Out above 3 (L161). Rank 1: half an
#   Energon Die, never a whole one to spend (L99-103): no Energon after a roll, no recovery.
# Round 1
#   Initiative: Ironhide 4 + 3 + 2 = 9, Skywarp 5 + 3 = 8.
#   Phase 9: Ironhide 5k3: 8 7 6 (2 1) = 21 > PD 9: hit. Skywarp defends actively, 5 phases off its 8
#     (-> 3): 3k2: 5 4 (1) = 9, not above 21: fails. Damage 4k2: 9 6 (3 2) = 15; Minor 0 + 15 = 15.
#     Durability 2k2: 5 3 = 8 against 15: failed by 7, 1 + 0.5 x floor(7/10) = 1 Major, Minor back to
#     0 (L154). Ranged: blown back 1 - 1 = 0 hexes, nothing said; 1 is not above 1.5: not Fatigued.
#     Ironhide: 9 - 10 -> 0.
#   Phase 3: Skywarp 3k2: 9 6 (2) = 15 > 9: hit. Ironhide is at Initiative 0: borrows 5 phases of the
#     next round (L151, ad_borrow): 3k2: 8 8 (1) = 16 > 15: avoids it, no damage, no Durability Check.
# Round 2
#   Initiative: Ironhide 5 + 4 + 2 = 11 - 5 borrowed = 6; Skywarp 4 + 3 = 7: Skywarp acts first.
#   Phase 7: Skywarp 3k2: 4 3 (1) = 7, not above 9: miss. Skywarp: 7 - 10 -> 0.
#   Phase 6: Ironhide 5k3: 9 8 5 (3 1) = 22 > 9: hit. Skywarp at 0 borrows 5: 3k2: 6 2 (1) = 8: fails.
#     Damage 4k2: 7 5 (4 1) = 12; Minor 0 + 12 = 12. Durability 2k2: 5 3 = 8: failed by 4, 1 Major:
#     2 in all, above 1.5: Fatigued, a Durability roll against 5 x 2 = 10 (L161): 2k2: 6 3 = 9, not
#     above 10: Knocked Out.
# Before round 3 Skywarp is out (Knocked Out, no whole Energon Die to recover): the autobots win.
DAM_FACES = [4, 3, 2, 5, 3,                 # round 1: initiative
             8, 7, 6, 2, 1, 5, 4, 1,        # Ironhide's attack, Skywarp's Active Defense
             9, 6, 3, 2, 5, 3,              # damage, Durability
             9, 6, 2, 8, 8, 1,              # Skywarp's attack, Ironhide's Active Defense
             5, 4, 2, 4, 3,                 # round 2: initiative
             4, 3, 1,                       # Skywarp's attack
             9, 8, 5, 3, 1, 6, 2, 1,        # Ironhide's attack, Skywarp's Active Defense
             7, 5, 4, 1, 5, 3, 6, 3]        # damage, Durability, the Fatigue roll


def test_a_fight_line_by_line(tmp_path):
    ran = run_json(tmp_path, DAM, DAM_FACES)
    assert ran["log"] == [
        "Ambush at the dam: autobots (Ironhide) against decepticons (Skywarp)",
        "Round 1",
        "  initiative: Ironhide 3k3: 4 3 2 = 9; Skywarp 2k2: 5 3 = 8",
        "  phase 9: Ironhide attacks Skywarp with Blaster: 5k3: 8 7 6 (2 1) = 21 vs PD 9: hit",
        "    Skywarp defends actively: 3k2: 5 4 (1) = 9 vs 21: fails",
        "    damage 4k2: 9 6 (3 2) = 15",
        "    Skywarp Durability 2k2: 5 3 = 8 vs Minor 15: fails by 7, 1 Major (now 1)",
        "  phase 3: Skywarp attacks Ironhide with Null ray: 3k2: 9 6 (2) = 15 vs PD 9: hit",
        "    Ironhide defends actively, borrowing 5 phases from next round: 3k2: 8 8 (1) = 16 vs 15: avoids it",
        "Round 2",
        "  initiative: Ironhide 3k3: 5 4 2 = 11 - 5 borrowed; Skywarp 2k2: 4 3 = 7",
        "  phase 7: Skywarp attacks Ironhide with Null ray: 3k2: 4 3 (1) = 7 vs PD 9: miss",
        "  phase 6: Ironhide attacks Skywarp with Blaster: 5k3: 9 8 5 (3 1) = 22 vs PD 9: hit",
        "    Skywarp defends actively, borrowing 5 phases from next round: 3k2: 6 2 (1) = 8 vs 22: fails",
        "    damage 4k2: 7 5 (4 1) = 12",
        "    Skywarp Durability 2k2: 5 3 = 8 vs Minor 12: fails by 4, 1 Major (now 2)",
        "    Skywarp is Fatigued: Durability 2k2: 6 3 = 9 vs 10: Knocked Out",
    ]
    result = ran["result"]
    assert (result["winner"], result["rounds"]) == ("autobots", 2)
    ironhide, skywarp = result["characters"]["Ironhide"], result["characters"]["Skywarp"]
    assert {key: ironhide[key] for key in ("major", "minor", "energon", "status")} == \
        {"major": 0, "minor": 0, "energon": 2, "status": "active"}
    assert {key: skywarp[key] for key in ("major", "minor", "energon", "status")} == \
        {"major": 2, "minor": 0, "energon": 0.5, "status": "knocked out"}


# ---- options ----

@pytest.mark.parametrize("setting, line, defense", [
    # A1: a 22 against PD 22 is not "above" it; with "at" it hits, and the Active Defense's 22 against
    # the attack's 22 avoids it: 7k3.5: 9 6 5 4 (3 2 1): 9 + 6 + 5 + floor(4/2) = 22
    (None, "22 vs PD 22: miss", []),
    ('success_at: "at"', "22 vs PD 22: hit", [9, 6, 5, 4, 3, 2, 1]),
])
def test_success_at_decides_a_roll_equal_to_its_tn(tmp_path, setting, line, defense):
    script = E11_FIGHT.replace("DEFENSE", "dodge")
    if setting:
        script = script.replace("    until", f"    {setting}\n    until")
    log = run_json(tmp_path, script, [3, 2, 1, 1, 8, 6, 4, 4, 3, 2, 1] + defense)["log"]
    assert log[3] == f"  phase 6: Sunstreaker attacks Target with Solar blaster: 7k4: 8 6 4 4 (3 2 1) = {line}"
    if defense:
        assert log[4:] == ["    Target defends actively, borrowing 5 phases from next round: "
                           "7k3.5: 9 6 5 4/2 (3 2 1) = 22 vs 22: avoids it"]
    else:
        assert log[4:] == []


def test_vehicle_move_is_the_vehicle_mode_multiplier(formulas):
    # C1: x3 by default (15 above); x2 (L182): (1 + 4) x 2 = 10; Robot and Beast unchanged
    assert formulas["E22"].split()[2] == "15"
    assert formulas["vehicle_move 2"] == "3 6 10"


def test_fatigue_roll_each_gain_or_only_on_crossing(tmp_path):
    # A7. Courage 6: Fatigued above 3. Endurance 8: 4k4, no explosions while Fatigued. Each takes 30:
    # 6 6 6 5 = 23, failed by 7: 1 Major. Prowl (4 -> 5, already Fatigued) rolls against 5 x 5 = 25 by
    # default ("each_gain"); with "crossing", Bluestreak (the same) does not, and Jazz (3 -> 4, crossing
    # into Fatigue) does, against 20.
    script = ("use transformers\n"
              + transformer("Prowl", endurance=8, courage=6, rank=1, major=4)
              + transformer("Bluestreak", endurance=8, courage=6, rank=1, major=4)
              + transformer("Jazz", endurance=8, courage=6, rank=1, major=3)
              + 'take_damage(Prowl, 30, true)\ntransformers.fatigue_roll = "crossing"\n'
                "take_damage(Bluestreak, 30, true)\ntake_damage(Jazz, 30, true)\n")
    check = [6, 6, 6, 5]
    assert run_json(tmp_path, script, check + [9, 8, 7, 6] + check + check + [9, 8, 7, 6])["log"] == [
        "    Prowl Durability 4k4: 6 6 6 5 = 23 vs Minor 30: fails by 7, 1 Major (now 5)",
        "    Prowl is Fatigued: Durability 4k4: 9 8 7 6 = 30 vs 25: stays up",
        "    Bluestreak Durability 4k4: 6 6 6 5 = 23 vs Minor 30: fails by 7, 1 Major (now 5)",
        "    Jazz Durability 4k4: 6 6 6 5 = 23 vs Minor 30: fails by 7, 1 Major (now 4)",
        "    Jazz is Fatigued: Durability 4k4: 9 8 7 6 = 30 vs 20: stays up",
    ]


def test_energon_explodes_fatigued_decides_whether_an_energon_die_explodes(tmp_path):
    # A23. Courage 3, 2 Major: Fatigued, its own dice never explode. Durability 2k2: 5 4 = 9 against
    # Minor 12: 3 short, so the tactic spends an Energon Die after the roll (Rank 2: one die). By
    # default it explodes: 10, then 3: 13, total 22. With the option false: a plain 10, total 19.
    script = ("use transformers\n"
              + transformer("Cliffjumper", endurance=4, courage=3, rank=2, major=2)
              + transformer("Windcharger", endurance=4, courage=3, rank=2, major=2)
              + "take_damage(Cliffjumper, 12, true)\ntransformers.energon_explodes_fatigued = false\n"
                "take_damage(Windcharger, 12, true)\n"
                'say "Energon left: {Cliffjumper.energon} {Windcharger.energon}"\n')
    assert run_json(tmp_path, script, [5, 4, 10, 3, 5, 4, 10])["log"] == [
        "    Cliffjumper Durability 2k2: 5 4 = 9 + 13 Energon = 22 vs Minor 12: holds",
        "    Windcharger Durability 2k2: 5 4 = 9 + 10 Energon = 19 vs Minor 12: holds",
        "Energon left: 0 0",
    ]


TIE = ("use transformers\n" + transformer("Mirage", speed=4, skill=2) + transformer("Thundercracker", speed=4, skill=2))
# Both Speed 4: 2k2: 4 4 = 8 and 5 3 = 8, the same phase. Skill 2, unarmed, no Brawling: 1k1 against
# PD 5 + 5 unskilled; both roll 1 and miss.


def test_ties_in_phase_written_acts_in_the_encounters_order(tmp_path):
    log = run_json(tmp_path, TIE + encounter("Same phase", "Mirage", "Thundercracker"), [4, 4, 5, 3, 1, 1])["log"]
    assert [line.split(" with")[0] for line in log[3:]] == ["  phase 8: Mirage attacks Thundercracker",
                                                            "  phase 8: Thundercracker attacks Mirage"]


def test_ties_in_phase_speed_check_lets_the_contested_speed_check_decide(tmp_path):
    # L128: a Contested Speed Check (L46): each rolls Speed 2k2 against floor(2.5 x 4) = 10.
    # Thundercracker 9 8 = 17 succeeds, Mirage 2 1 = 3 fails: Thundercracker acts first.
    script = TIE + encounter("Same phase", "Mirage", "Thundercracker", 'ties_in_phase: "speed_check"')
    log = run_json(tmp_path, script, [4, 4, 5, 3, 9, 8, 2, 1, 1, 1])["log"]
    assert [line.split(" with")[0] for line in log[3:]] == [
        "  phase 8: Contested Speed Check, Thundercracker against Mirage: Thundercracker first",
        "  phase 8: Thundercracker attacks Mirage", "  phase 8: Mirage attacks Thundercracker"]


def test_ad_borrow_is_how_much_active_defense_takes_from_next_round(tmp_path):
    # L151: at Initiative 0, each Active Defense (5 phases) is borrowed from the next round, up to
    # ad_borrow in all (beyond it, an Energon Die, which the default tactic does not spend). Each is
    # hit three times by a 30; Intelligence 4 + Dodge 1: 3k2. Default 5: one Active Defense; 10: two; 0: none.
    defender = conc("Dodge", 1)
    script = ("use transformers\n" + transformer("Hound", defender, intelligence=4, rank=4)
              + transformer("Trailbreaker", defender, intelligence=4, rank=4)
              + transformer("Bumper", defender, intelligence=4, rank=4)
              + transformer("Shockwave")
              + "repeat 3 { active_defense(Hound, Shockwave, 30) }\n"
                "transformers.ad_borrow = 10\nrepeat 3 { active_defense(Trailbreaker, Shockwave, 30) }\n"
                "transformers.ad_borrow = 0\nrepeat 3 { active_defense(Bumper, Shockwave, 30) }\n"
                'say "debts: {Hound.debt} {Trailbreaker.debt} {Bumper.debt}; '
                'Energon: {Hound.energon} {Trailbreaker.energon} {Bumper.energon}"\n')
    borrowing = "defends actively, borrowing 5 phases from next round: 3k2"
    assert run_json(tmp_path, script, [5, 4, 1, 6, 3, 2, 7, 2, 1])["log"] == [
        f"    Hound {borrowing}: 5 4 (1) = 9 vs 30: fails",
        f"    Trailbreaker {borrowing}: 6 3 (2) = 9 vs 30: fails",
        f"    Trailbreaker {borrowing}: 7 2 (1) = 9 vs 30: fails",
        "debts: 5 10 0; Energon: 2 2 2",
    ]


# ---- a house rule: a Size table (M1 is missing from the text) ----

SIZE_TABLE = """\
# small robots are harder to hit, big ones shrug off damage
fn transformers.size_mod(size, what) = match what {
    "base_defense" => 5 - size
    "durability" => size - 5
    else => 0
}
"""


@pytest.mark.parametrize("house_rule, pd, durability", [
    # Size = Strength (L66). Without a table every modifier is 0: PD 6 + 5 x 2 = 16 for both; Grimlock's
    # Durability 2k2: 5 3 = 8 against Minor 10 fails by 2: 1 Major.
    (False, "PD: Bumblebee 16, Grimlock 16",
     "    Grimlock Durability 2k2: 5 3 = 8 vs Minor 10: fails by 2, 1 Major (now 1)"),
    # With it: Bumblebee (Size 2) Base Defense 6 + 3 = 9, PD 19; Grimlock (Size 9) 6 - 4 = 2, PD 12,
    # and +4 on the Durability Check (L154, A17: added to the total): 8 + 4 = 12 > 10, holds.
    (True, "PD: Bumblebee 19, Grimlock 12", "    Grimlock Durability 2k2+4: 5 3 = 12 vs Minor 10: holds"),
])
def test_a_size_table_changes_passive_defense_and_durability(tmp_path, house_rule, pd, durability):
    dodge = conc("Dodge", 2)
    script = ("use transformers\n" + (SIZE_TABLE if house_rule else "")
              + transformer("Bumblebee", dodge, strength=2, intelligence=6, rank=1)
              + transformer("Grimlock", dodge, strength=9, intelligence=6, endurance=4, rank=1)
              + 'say "PD: Bumblebee {passive_defense(Bumblebee)}, Grimlock {passive_defense(Grimlock)}"\n'
                "take_damage(Grimlock, 10, true)\n")
    assert run_json(tmp_path, script, [5, 3])["log"] == [pd, durability]


# ---- where the module and the text disagree ----

def test_a_prone_character_may_defend_actively_with_two_boosts(tmp_path):
    # Intelligence 8 + Dodge 1: 5k4: 7 6 6 6 (1) = 25 against the attack's 20 + 10 (two Boosts); 5
    # short, so the tactic adds an Energon Die after the roll: 1, 26: fails
    script = ("use transformers\n" + transformer("Tracks", conc("Dodge", 1), intelligence=8, prone="true")
              + transformer("Shockwave") + "say active_defense(Tracks, Shockwave, 20)\n")
    log = run_json(tmp_path, script, [7, 6, 6, 6, 1, 1])["log"]
    assert len(log) == 2 and "Tracks defends actively" in log[0] and "= 25" in log[0] and log[0].endswith(": fails")
    assert log[1] == "false"


def test_a_character_recovering_from_knocked_out_has_no_concentration_in_passive_defense(formulas):
    # Wheeljack's PD 21 without Dodge 3: Base Defense 6
    assert formulas["recovering"] == "6"


def test_the_over_courage_penalty_applies_to_damage_rolls(formulas):
    # E13's Wreck (8 Major, Courage 5: -3k0): the Fusion cannon 3k2 + Firepower Dice 2 unkept = 5k2, less 3k0
    assert formulas["wreck damage"] == "2k2"


def test_the_over_courage_penalty_applies_to_opposed_rolls(tmp_path):
    # Kup (6 Major, Courage 5, recovered: -1k0) and Blitzwing, both Speed 4, TN floor(2.5 x 4) = 10 each.
    # Kup's Speed 2k2 - 1k0 = 1k2 rolls one die: 9, not above 10; Blitzwing 2 1 = 3: neither wins.
    # (Without the penalty Kup rolls 9 2 = 11 and wins.)
    script = ("use transformers\n" + transformer("Kup", speed=4, major=6) + transformer("Blitzwing", speed=4)
              + 'let speed = "speed"\nlet plain = ""\nsay opposed(Kup, speed, plain, Blitzwing, speed, plain)\n')
    assert run_json(tmp_path, script, [9, 2, 1, 1])["log"] == ["none"]


def test_a_fatigue_roll_against_a_half_point_tn_reads_as_a_decimal(tmp_path):
    # Courage 3, 1 Major; Durability 2k2: 5 4 = 9 against 20, failed by 11: 1.5 Major, 2.5 in all:
    # Fatigued, a roll against 5 x 2.5 = 12.5: 3 2 = 5, Knocked Out
    script = "use transformers\n" + transformer("Skids", endurance=4, courage=3, rank=1, major=1) + \
        "take_damage(Skids, 20, true)\n"
    assert run_json(tmp_path, script, [5, 4, 3, 2])["log"][1] == \
        "    Skids is Fatigued: Durability 2k2: 3 2 = 5 vs 12.5: Knocked Out"


def test_no_energon_die_is_spent_on_a_durability_check_that_already_holds(tmp_path):
    # success_at "at": 5 + 4 = 9 against Minor 9 holds; the Energon Die (and the face 3) stay unused
    script = ('use transformers\ntransformers.success_at = "at"\n' + transformer("Tailgate", endurance=4, rank=4)
              + 'take_damage(Tailgate, 9, true)\nsay "Energon: {Tailgate.energon}"\n')
    assert run_json(tmp_path, script, [5, 4, 3])["log"] == ["    Tailgate Durability 2k2: 5 4 = 9 vs Minor 9: holds",
                                                      "Energon: 2"]


def test_an_automatically_failed_attack_misses_a_prone_target(tmp_path):
    # Wreck: Skill 2 + Brawling 1 = 2k1, less 3k0 (8 Major, Courage 5): -1k1, an automatic failure (L24);
    # no Energon to add. The prone target has no Passive Defense (L143, A15: TN 0). Initiative: Speed 10,
    # 5k5 - 3k0 = 2k5, both dice kept: 4 3 = 7.
    script = ("use transformers\n"
              + transformer("Wreck", conc("Brawling", 1), speed=10, skill=2, major=8, energon=0)
              + transformer("Sunny", speed=1, prone="true")
              + encounter("Automatic failure", "Wreck", "Sunny", 'success_at: "at"'))
    log = run_json(tmp_path, script, [4, 3, 1, 6, 5, 4, 3, 2, 1])["log"]
    assert log[3] == "  phase 7: Wreck attacks Sunny with fists: -1k1: automatic failure vs PD 0: miss"


def test_sprinting_does_not_move_a_vehicle(formulas):
    # Runner (Sprinting 2) and Walker (none), Vehicle-Mode without a Propulsion: both (1) x 3
    assert formulas["vehicle on foot"] == "3 3"


def test_an_object_with_a_propulsion_moves_as_a_robot(formulas):
    # Propulsion 4: 1 + 4 = 5, times the Robot's 1
    assert formulas["object flying"] == "5"


def test_a_held_action_that_wins_the_speed_check_is_taken(tmp_path):
    # Mirage holds at phase 9 (2k2: 5 4; Thundercracker 5 3 = 8). At phase 8 it acts first by winning a
    # Contested Speed Check (9 8 = 17 > 10; Thundercracker 2 1 = 3): its attack, 1k1: 1, misses.
    script = ("use transformers\nfn transformers.holds(c, enc) = c.name == \"Mirage\"\n"
              + TIE.removeprefix("use transformers\n") + encounter("Held", "Mirage", "Thundercracker"))
    log = run_json(tmp_path, script, [5, 4, 5, 3, 9, 8, 2, 1, 1, 1])["log"]
    assert log[3:6] == [
        "  phase 9: Mirage holds its action",
        "  phase 8: Mirage acts on its held action, before Thundercracker (Contested Speed Check)",
        "  phase 8: Mirage attacks Thundercracker with fists: 1k1: 1 = 1 vs PD 5 + 5 unskilled: miss",
    ]


# ---- rules added after the review of the first cut ----

def test_actions_on_the_same_phase_are_simultaneous(tmp_path):
    # L128 "simultaneous" (ties_in_phase "together", the default): on phase 8 Mirage knocks
    # Thundercracker out, and Thundercracker, who stood at the phase's start, still acts on it.
    script = ("use transformers\n" + transformer("Mirage", conc("Brawling", 5), speed=4, skill=10)
              + transformer("Thundercracker", speed=4, skill=2, courage=2, major=1, endurance=2)
              + encounter("Same phase", "Mirage", "Thundercracker"))
    # Initiative 2k2: 4 4 = 8 and 5 3 = 8. Mirage: Skill 10 + Brawling 5, 10k5: 45, a hit (one damage
    # Boost); Thundercracker's Active Defense 3k2.5: 1 1 1 fails; damage 3k1: 10+9, 9, 9 = 19;
    # Durability 1k1: 1 against 19, failed by 18: 1.5 Major, 2.5 in all, above Courage 2: Knocked Out.
    # Thundercracker's attack on the same phase: 1k1 and an Energon Die (2 Major or more): 2k2: 1 1.
    faces = [4, 4, 5, 3, 9, 9, 9, 9, 9, 1, 1, 1, 1, 1, 1, 1, 1, 10, 9, 9, 9, 1, 1, 1]
    log = run_json(tmp_path, script, faces)["log"]
    assert log[6:9] == [
        "    Thundercracker Durability 1k1: 1 = 1 vs Minor 19: fails by 18, 1.5 Major (now 2.5)",
        "    Thundercracker is knocked out: Major above its Courage (L161)",
        "  phase 8: Thundercracker attacks Mirage with fists: 2k2: 1 1 = 2 (with 1 Energon Die) vs PD 5 + 5 unskilled: miss",
    ]


def test_gunnery_is_operated_by_intelligence(tmp_path):
    # L799, L1340: an armament names the Tech Spec that operates it
    script = ("use transformers\n"
              + transformer("Gunner", conc("Gunnery", 3), 'armament Cannon { damage 4k2  uses "gunnery"  '
                            'operated_by "intelligence" }', skill=2, intelligence=8)
              + 'say transformers.attack_pool(Gunner, Gunner.armament[0]).notation\n')
    assert run_json(tmp_path, script, [])["log"] == ["7k4"]


def test_the_unskilled_penalty_follows_the_kind_of_concentration(tmp_path):
    # L40: Basic lacking +5, Advanced +10, enhancing (Observe) none; Diplomacy untrained +5 (L766)
    script = ("use transformers\n" + transformer("Rookie")
              + 'say [transformers.unskilled(Rookie, "shooting"), transformers.unskilled(Rookie, "gunnery"), '
                'transformers.unskilled(Rookie, "observe"), transformers.unskilled(Rookie, "diplomacy")]\n')
    assert run_json(tmp_path, script, [])["log"] == ["[5, 10, 0, 5]"]


def test_no_damage_means_no_durability_check(tmp_path):
    # digest 4.9: a hit for 0 damage (an automatic failure of the damage pool) asks for no check
    script = "use transformers\n" + transformer("Bumper") + "take_damage(Bumper, 0, true)\nsay Bumper.minor\n"
    assert run_json(tmp_path, script, [])["log"] == ["    no damage", "0"]


def test_size_modifiers_reach_active_defense_and_ranged_attacks(tmp_path):
    # M1: a Size table given by a script: +2 to Active Defense and +3 to ranged attacks, at any Size
    script = ("use transformers\nfn transformers.size_mod(size, what) = match what {\n"
              '    "active_defense" => 2\n    "ranged_attack" => 3\n    else => 0\n}\n'
              + transformer("Sizer", conc("Dodge", 1), 'armament Gun { damage 3k2 }')
              + "say transformers.active_defense_pool(Sizer).notation\n"
              + "say transformers.attack_mods(Sizer, Sizer, Sizer.armament[0])\n")
    assert run_json(tmp_path, script, [])["log"] == ["3.5k2.5+2", "3"]


def test_e17_a_persistent_explosion_loses_its_outermost_ring_each_round(tmp_path):
    # L360: "an explosion with 3 kept dice would lose its outermost ring at the end of the first round";
    # with faces 12 (10 then 2), 9, 7, 4, 2 the rings are 28 / 21 / 12 in round 1, 21 / 12 in round 2
    script = ("use transformers\nlet first = roll(transformers.persistent(5k3, 1))\n"
              "let second = roll(transformers.persistent(5k3, 2))\n"
              "say [transformers.persistent(5k3, 2).notation, transformers.explosion(first, 0), "
              "transformers.explosion(second, 0), transformers.explosion(second, 1), transformers.explosion(second, 2)]\n")
    assert run_json(tmp_path, script, [10, 2, 9, 7, 4, 2, 10, 2, 9, 7, 4, 2])["log"] == ['["5k2", 28, 21, 12, 0]']


def test_distance_puts_the_sides_apart_and_they_close_in(tmp_path):
    # the `distance` option: 4 hexes apart; Movement 1 (no Sprinting), Blaster range 2: a double move
    # (L187) closes 2 hexes, and in range the attacker's own movement spoils a held weapon's aim only
    # from 4 hexes moved (L206-227)
    script = ("use transformers\n"
              + transformer("Hound", conc("Shooting", 1), "armament Blaster { damage 3k2  range 2 }", speed=2)
              + transformer("Dummy", speed=1)
              + encounter("Apart", "Hound", "Dummy", "distance: 4"))
    log = run_json(tmp_path, script, [3, 1, 1])["log"]
    assert log[1] == "  4 hexes apart"
    assert log[4] == "  phase 3: Hound moves 2 hexes toward Dummy (double move, L187), 2 hexes apart"


def test_a_readied_action_acts_before_its_trigger_without_a_check(tmp_path):
    # L136: Hound readies his action (phase 8) for Trailbreaker's attack; when Trailbreaker acts
    # (phase 2: Speed 2, 1k1: 2), Hound attacks first, no Contested Speed Check; unarmed without
    # Brawling, 1k1: 1, a miss.
    script = ("use transformers\n" + transformer("Hound", speed=4, skill=2) + transformer("Trailbreaker", speed=2, skill=2)
              + 'fn transformers.readies(c, enc) = c.name == "Hound" and c.initiative > 5\n'
              + 'fn transformers.acts_on_hold(c, acting, enc) = acting.name == "Trailbreaker"\n'
              + encounter("Ready", "Hound", "Trailbreaker"))
    log = run_json(tmp_path, script, [4, 4, 2, 1, 1, 1, 1, 1])["log"]
    assert [line.split(" with")[0] for line in log[3:6]] == [
        "  phase 8: Hound readies its action",
        "  phase 2: Hound acts on its readied action, before Trailbreaker",
        "  phase 2: Hound attacks Trailbreaker",
    ]


# ---- three divergences from the text, fixed (each test failed before its fix) ----

MELEE_CHARGE = ("use transformers\n"
                + transformer("Hound", conc("Brawling", 1), conc("Sprinting", 2), strength=4, speed=6, skill=6)
                + transformer("Dummy", intelligence=4, speed=1)
                + encounter("Charge", "Hound", "Dummy", "distance: 3", "SETTING"))
# Hound: Movement 1 + Sprinting 2 = 3 (L189); 3 hexes apart, reach 1: it moves 2 hexes and strikes in the same
# action (L187). Initiative 3k3: 5 4 3 = 12; Dummy (Speed 1) 1k0.5: 1 -> 0. The attack: Skill Dice 3 + Brawling 1
# = 4k3: 6 5 4 (1) = 15, against PD 4 (no damage Boost: 3 kept x 6 = 18 < 4 + 15; moving 2 hexes costs a held
# or unarmed attack nothing, L206-227). Dummy borrows 5 phases to defend actively: 2k2: 1 1 = 2, fails.
# Unarmed damage (A19): Strength Dice 2 k floor_0.5(Size 4 / 4) = 1: 2k1: 7 (3). Then the Durability Check,
# Endurance 5: 3k2.5: 1 1 1 = 1 + 1 + 0 = 2, and the prone check (Skill 5, 3k2.5, TN 0): 5 5 5. At phase 2
# Hound, who has not moved, misses: 4k3: 1 1 1 1 = 3.
MELEE_FACES = [5, 4, 3, 1, 6, 5, 4, 1, 1, 1, 7, 3, 1, 1, 1, 5, 5, 5, 1, 1, 1, 1]


@pytest.mark.parametrize("setting, damage, durability", [
    # L231 "Melee attacks gain a bonus to damage equal to the number of hexes you moved in a straight line
    # towards the target": 7 + 2 = 9 against Minor 9, failed by 7: 1 Major
    (None, "    damage 2k1+2: 7 (3) = 9", "    Dummy Durability 3k2.5: 1 1 1/2 = 2 vs Minor 9: fails by 7, 1 Major (now 1)"),
    # A12: the other reading, the hexes as unkept dice (as a ram's, L394): 4k1: 7 (3 1 1) = 7; the
    # Durability Check and the prone check then fall on the next faces
    ('melee_move: "dice"', "    damage 4k1: 7 (3 1 1) = 7", None),
])
def test_l231_melee_damage_adds_the_hexes_moved_straight_at_the_target(tmp_path, setting, damage, durability):
    script = MELEE_CHARGE.replace("    SETTING\n", f"    {setting}\n" if setting else "")
    log = run_json(tmp_path, script, MELEE_FACES + [1] * 8)["log"]
    assert log[4:8] == [
        "  phase 12: Hound moves 2 hexes toward Dummy",
        "  phase 12: Hound attacks Dummy with fists: 4k3: 6 5 4 (1) = 15 vs PD 4: hit",
        "    Dummy defends actively, borrowing 5 phases from next round: 2k2: 1 1 = 2 vs 15: fails",
        damage,
    ]
    if durability:
        assert log[8] == durability


def test_l231_a_melee_attack_without_moving_adds_nothing(tmp_path):
    # the same fight at 1 hex: no move, damage 2k1: 7 (3) = 7 against Minor 7, failed by 5: 1 Major
    script = MELEE_CHARGE.replace("distance: 3", "distance: 1").replace("    SETTING\n", "")
    log = run_json(tmp_path, script, MELEE_FACES + [1] * 8)["log"]
    assert log[4:7] == [
        "  phase 12: Hound attacks Dummy with fists: 4k3: 6 5 4 (1) = 15 vs PD 4: hit",
        "    Dummy defends actively, borrowing 5 phases from next round: 2k2: 1 1 = 2 vs 15: fails",
        "    damage 2k1: 7 (3) = 7",
    ]


def test_an_automatically_failed_durability_check_fails_by_the_tn(tmp_path):
    # L24: a roll of 0 or fewer dice fails automatically; digest 2.5: where a margin is needed its total
    # is 0, as a Knocked Out character's roll is (L164). Wreck (8 Major, Courage 5, recovered: -3k0, L164):
    # Endurance 4, 2k2 - 3k0 = -1k2, no dice. Against Minor 19 it fails by 19 (not 20): 1 + 0.5 x
    # floor(19/10) = 1.5 Major, 9.5 in all (below 2 x 5 = 10: not dying), above Courage: Knocked Out.
    script = ("use transformers\n" + transformer("Wreck", endurance=4, rank=1, major=8)
              + 'take_damage(Wreck, 19, true)\nsay "{halves(Wreck.major)} {Wreck.status}"\n')
    assert run_json(tmp_path, script, [])["log"] == [
        "    Wreck Durability -1k2: automatic failure vs Minor 19: fails by 19, 1.5 Major (now 9.5)",
        "    Wreck is knocked out: Major above its Courage (L161)",
        "9.5 knocked out",
    ]


@pytest.mark.parametrize("allies, faces, end, status", [
    # L169: no one standing on its side: the Spark goes out
    ("", [], "no one can save Hulk: its Spark goes out (L169)", "dead"),
    # L171 with L40: Ratchet lacks Fix (Basic) and Repair (Advanced): he may still try, at +5 (the lesser
    # penalty, Fix's): Skill 4, 2k2 against 10 + 5 = 15. 9 6 = 15 is not above 15; 9 7 = 16 is.
    (transformer("Ratchet", skill=4), [9, 6],
     "Ratchet cannot save Hulk: 2k2: 9 6 = 15 vs 10 + 5 unskilled; its Spark goes out (L169)", "dead"),
    (transformer("Ratchet", skill=4), [9, 7], "Ratchet saves Hulk's Spark: 2k2: 9 7 = 16 vs 10 + 5 unskilled (L171)",
     "dying"),
    # with Fix 2: Skill Dice 2 + 2 = 4k2 against 10
    (transformer("Ratchet", conc("Fix", 2), skill=4), [9, 9, 9, 9],
     "Ratchet saves Hulk's Spark: 4k2: 9 9 (9 9) = 18 vs 10 (L171)", "dying"),
    # the best chance tries: Wheeljack's Fix 1 (Skill 6: 4k3 against 10) before Ratchet (no Fix, Skill 8, at +5)
    (transformer("Ratchet", skill=8) + transformer("Wheeljack", conc("Fix", 1), skill=6), [5, 4, 3, 2],
     "Wheeljack saves Hulk's Spark: 4k3: 5 4 3 (2) = 12 vs 10 (L171)", "dying"),
    # L164: a medic above its Courage in Major Damage rolls at -1k0 a point: Fix 2, Skill 4, 7 Major,
    # Courage 5: 4k2 - 2k0 = 2k2: 9 1 = 10, not above 10
    (transformer("Ratchet", conc("Fix", 2), skill=4, major=7), [9, 1],
     "Ratchet cannot save Hulk: 2k2: 9 1 = 10 vs 10; its Spark goes out (L169)", "dead"),
])
def test_l171_anyone_standing_may_try_to_save_a_dying_spark(tmp_path, allies, faces, end, status):
    # Courage 2, 4 Major: dying (2C, L169); the scene ends at once (until round > 0); TN 5 x (4 - 2) = 10
    names = ", ".join(["Hulk"] + [line.split()[1] for line in allies.splitlines()])
    script = ("use transformers\n" + transformer("Hulk", courage=2, major=4) + allies + transformer("Foe")
              + f'encounter "End" {{\n    side a: {names}\n    side b: Foe\n    until round > 0\n}}\n')
    ran = run_json(tmp_path, script, faces)
    assert ran["log"][-1] == "  " + end
    assert ran["result"]["characters"]["Hulk"]["status"] == status


# ---- rules right from the first cut, guarded (a deliberate break of each fails one of these) ----

def test_l161_knocked_out_only_above_courage(tmp_path):
    # L161 "Knocked Out when you have taken an amount of Major Damage greater than your Courage". Courage 4,
    # 3 Major (Fatigued: above 2); a ranged hit for 10, Durability Endurance 8: 4k4: 3 2 1 1 = 7, failed by
    # 3: 1 Major, 4 in all: equal to its Courage, not above it: still up, and (Fatigued) a Durability roll
    # against 5 x 4 = 20: 9 9 9 9 = 36, stays up. Gears, with 4.5, is above it: Knocked Out.
    script = ("use transformers\n" + transformer("Brawn", endurance=8, courage=4, rank=1, major=3)
              + transformer("Gears", courage=4, major=4.5)
              + 'take_damage(Brawn, 10, true)\nsay "{Brawn.status} {status_for(Brawn)} {status_for(Gears)}"\n')
    assert run_json(tmp_path, script, [3, 2, 1, 1, 9, 9, 9, 9])["log"] == [
        "    Brawn Durability 4k4: 3 2 1 1 = 7 vs Minor 10: fails by 3, 1 Major (now 4)",
        "    Brawn is Fatigued: Durability 4k4: 9 9 9 9 = 36 vs 20: stays up",
        "active active knocked out",
    ]


def test_l164_a_knocked_out_characters_durability_check_counts_as_0(tmp_path):
    # L164 "any Durability Checks made are treated as if they had rolled a 0": no die is rolled; against
    # Minor 12 it fails by 12: 1 + 0.5 x floor(12/10) = 1.5 Major, 6 + 1.5 = 7.5 (Courage 5: not dying)
    script = ("use transformers\n" + transformer("Wreck", major=6, status='"knocked out"')
              + 'take_damage(Wreck, 12, true)\nsay "{halves(Wreck.major)} {Wreck.minor} {Wreck.status}"\n')
    assert run_json(tmp_path, script, [])["log"] == [
        "    Wreck Durability Knocked Out, counts as 0 vs Minor 12: fails by 12, 1.5 Major (now 7.5)",
        "7.5 0 knocked out",
    ]


def test_l164_an_attack_on_a_knocked_out_character_hits_automatically(tmp_path):
    # L164 "Any attacks against them automatically succeed": Skill 2, no Brawling: 1k1 rolls 1, far below
    # PD 5 + 5 unskilled, and hits all the same; no Active Defense (A16). Unarmed damage Strength 5:
    # 2.5k1, rolled as 2k1: 3 (2) = 3; the Durability Check counts 0: fails by 3, 1 Major (6 -> 7).
    script = ("use transformers\n" + transformer("Blitzwing", skill=2) + transformer("Wreck", major=6, status='"knocked out"')
              + "attack(Blitzwing, Wreck, none, none, 5)\n")
    assert run_json(tmp_path, script, [1, 3, 2])["log"] == [
        "  phase 5: Blitzwing attacks Wreck with fists: 1k1: 1 = 1: Wreck is Knocked Out, the attack hits (L164)",
        "    damage 2k1: 3 (2) = 3",
        "    Wreck Durability Knocked Out, counts as 0 vs Minor 3: fails by 3, 1 Major (now 7)",
    ]


@pytest.mark.parametrize("faces, line", [
    # L49 "increase the TN by 5 by taking what is called a Boost": PD 9 + 5 = 14; a 14 misses
    ([5, 3, 3, 3, 1, 1, 1], "7k4: 5 3 3 3 (1 1 1) = 14 vs PD 9 + 5 (1 Boost): miss"),
    # and a 15 hits; the Boost's +1k0 on damage (L57): the Blaster 3k2 + Firepower Dice 2.5 + 1k0 = 6.5k2, as 6k2
    ([6, 3, 3, 3, 1, 1, 1, 1, 1, 1], "7k4: 6 3 3 3 (1 1 1) = 15 vs PD 9 + 5 (1 Boost): hit"),
])
def test_l49_each_boost_adds_5_to_the_tn(tmp_path, faces, line):
    # E11's attacker (Skill 8, Shooting 3: 7k4) against PD 9 (Intelligence 4, Dodge 1): the tactic takes one
    # damage Boost (4 kept x 6 = 24 >= 9 + 15). After a hit, the target's Active Defense 3k2: 1 1 1 = 2 fails.
    script = ("use transformers\n" + transformer("Sunstreaker", conc("Shooting", 3), 'armament "Solar blaster" { damage 3k2 }', skill=8)
              + transformer("Target", conc("Dodge", 1), intelligence=4)
              + "attack(Sunstreaker, Target, Sunstreaker.armament[0], none, 6)\n")
    log = run_json(tmp_path, script, faces + [1] * 12)["log"]
    assert log[0] == "  phase 6: Sunstreaker attacks Target with Solar blaster: " + line
    if line.endswith("hit"):
        assert log[2].startswith("    damage 6k2: ")


# ---- the worked examples E23-E52 (digest 5.3-5.4): the numbers of a character sheet ----

SHEET = ("use transformers\n"
         'let robot = "robot"\nlet vehicle = "vehicle"\nlet none_body = "transformer"\nlet human = "human"\n'
         'let minicon = "minicon"\nlet automaton = "automaton"\nlet standard = "standard"\nlet henchman = "henchman"\n'
         'let brute = "brute"\nlet criminal_spy = ["Criminal", "Spy"]\nlet criminal = ["Criminal"]\n'
         'let piloting = ["Piloting"]\nlet three = ["Firearms", "Weapons", "Unarmed"]\nlet stealth = "Stealth"\n'
         'let shadowing = "Shadowing"\nlet dodge = "Dodge"\nlet maneuvering = "Maneuvering"\nlet block = "block"\n'
         + transformer("BodyA", major=2, minor=12) + transformer("BodyB", major=3, minor=9)
         + 'say "E23: {days_per_cube(0)} {days_per_cube(-1)} {days_per_cube(1/2)} {days_per_cube(1)}"\n'
           'say "E24: {taunt_penalty(1)} {taunt_penalty(2)}"\n'
           'say "E25: {skillset_level(criminal_spy, stealth)} {skillset_level(criminal_spy, shadowing)} '
           '{skillset_level(criminal, dodge)} {skillset_level(piloting, maneuvering)} {skillset_level(three, block)}"\n'
           'say "E26: {deficit_left(3, [1, 1])}"\n'
           'let merged = merged_damage([BodyA, BodyB])\nsay "E27: {merged.major} {merged.minor}"\n'
           'say "E28: {extra_body_size(6)} {extra_body_levels_lost(2)} {extra_body_cost(1)} {extra_body_cost(3)}"\n'
           'say "E29: {extra_mode_limit(6, 1)} {extra_mode_limit(6, 2)}"\n'
           'say "E30: {platform_limits(12, 12, 12, 4, 8)} {platform_limits(12, 12, 12, 7, 5)} {platform_capacity(6, 6)}"\n'
           'say "E31: {equipment_cost(2, -3)} {cost_lost(2, -3)} {equipment_cost(3, -3/2)} '
           '{equipment_cost(2, -1) + equipment_cost(3, -2)}"\n'
           'say "E32: {multi_mode_cost(3, 2)}"\n'
           'say "E33: {connected_cut(2)} {connected_cut(3)} {connected_cut(4)}"\n'
           'let hours = [360, 240, 72, 24, 8, 6, 3, 1, 1/4]\nlet tns = []\n'
           'for h in hours { push(tns, linguist_tn[h]) }\nsay "E34: {tns} {linguist_tn[30]} {linguist_tn[2]}"\n'
           'let awards = []\nfor scope in ["routine", "easy", "hard", "challenging", "epic"] { push(awards, episode_award[scope]) }\n'
           'say "E35: {awards}"\n'
           'say "E36: {lift_limit(6, human)} {lift_limit(6, none_body)}"\n'
           'say "E37: {starting_cp(standard, none_body)} {starting_cp(henchman, minicon)} '
           '{starting_cp(brute, minicon)} {starting_cp(henchman, human)} '
           '{starting_cp(brute, human)} {starting_cp(henchman, automaton)} '
           '{starting_cp(brute, automaton)}"\n'
           'say "E38: {robot_movement(0, minicon)} {robot_movement(0, human)} {robot_movement(2, minicon)}"\n'
           'say "E39: {decimal(mega_melee_hexes(1), 2)} {mega_melee_hexes(2)} {mega_melee_hexes(3)} {mega_melee_hexes(4)}"\n'
           'say "E40: {mega_effect_reduction(2)} {mega_effect_reduction(3)}"\n'
           'say "E41: {mega_major_limit(2, 8)}"\n'
           'say "E42: {mega_equipment_limit(4, 10)}"\n'
           'say "E43: {mega_transformation_limit(3, 6)}"\n'
           'say "E44: {mega_move_multiplier(2, vehicle)} {mega_move_multiplier(2, robot)}"\n'
           'say "E45: {mega_size(1)} {mega_size(2)} {mega_size(3)} {mega_size(4)} {mega_size(5)} {mega_size(10)}"\n'
           'say "E46: {mega_lift(3, 9)}"\n'
           'say "E47: {mega_hexes(1)} {mega_hexes(2)} {mega_hexes(3)} {mega_hexes(10)}"\n'
           'say "E48: {mega_energon_cubes(1)} {mega_energon_cubes(2)}"\n'
           'say "E49: {mega_cost(1)} {mega_cost(2)} {mega_cost(3)} {mega_cost(10)}"\n'
           'say "E50: {transport_mega_cost(1)} {transport_mega_cost(2)}"\n'
           'say "E51: {transport_spark_cost(2)} {transport_spark_cost(0)}"\n'
           'say "E52: {energon_slips(0, 1)} {energon_slips(1, 0)} {overpower_from(3)} {overpower_from(5)}"\n'
           # the options of the inconsistent examples, last: each changes what it names
           'transformers.cube_days = "formula"\ntransformers.taunt = "formula"\ntransformers.merge_minor = "lost"\n'
           'let lost = merged_damage([BodyA, BodyB])\n'
           'say "other readings: {days_per_cube(0)} {days_per_cube(-1)} {taunt_penalty(1)} {lost.major} {lost.minor}"\n')


@pytest.fixture(scope="module")
def sheet(tmp_path_factory) -> dict[str, str]:
    return keyed(run_json(tmp_path_factory.mktemp("sheet"), SHEET)["log"])


def test_e23_energon_consumption_below_1_a_cube_every_2_minus_rate_days(sheet):
    # L86 is inconsistent (C6): "1 minus your consumption rate" days, yet rate 0 gives "one Cube every two
    # days, since 1 minus -1 is 2". The digest's proposal, 2 - rate, gives the example's 2 days at rate 0
    # (and 1 day at rate 1, where the formula would give none); the option cube_days "formula" gives 1 - rate
    assert sheet["E23"] == "2 3 3/2 1"
    assert sheet["other readings"].split()[:2] == ["1", "2"]


def test_e24_a_taunt_with_one_boost_is_minus_10(sheet):
    # L293 is inconsistent (C5): "Boosts ... times 5", yet "one Boost gives that villain a -10". The digest's
    # proposal 5 x (Boosts + 1) keeps the example (the mandatory Boost counts once more); "formula": 5
    assert sheet["E24"] == "10 15"
    assert sheet["other readings"].split()[2] == "5"


def test_a_taunt_needs_a_boost(tmp_path):
    # L293 "Taunt Rolls must be made with a Boost"
    err = run_json(tmp_path, "use transformers\nsay taunt_penalty(0)\n", code=1)
    assert "a Taunt Roll must be made with a Boost (rule text 000 L293)" in err and "Traceback" not in err


def test_e25_overlapping_skillsets_add_a_level(sheet):
    # L452: Criminal and Spy both give Stealth: Level 2; Shadowing only from Spy: 1; Dodge from neither: 0;
    # L526: Piloting's Maneuvering at Level 2; Block from Firearms and Weapons (not Unarmed): 2
    assert sheet["E25"] == "2 1 0 2 2"


@pytest.mark.parametrize("skillsets, message", [
    ('["Scholar"]', "the Scholar Skillset's Concentrations are chosen by the player (rule text 000 L459-L521)"),
    ('["Spies"]', 'no Skillset "Spies" in rule text 000 (L456-538)'),
])
def test_a_skillset_that_cannot_be_counted_is_named(tmp_path, skillsets, message):
    err = run_json(tmp_path, f'use transformers\nsay skillset_level({skillsets}, "stealth")\n', code=1)
    assert message in err and "Traceback" not in err


def test_e26_energon_deficit_deducted_from_npcs(sheet, tmp_path):
    # L882: a Deficit of 3; 2 of 4 NPCs each lose an Energon Die; 1 point is saved for another Scene
    assert sheet["E26"] == "1"
    err = run_json(tmp_path, "use transformers\nsay deficit_left(3, [2, 2])\n", code=1)
    assert "only 3 points of Energon Deficit to deduct (rule text 000 L882)" in err


def test_e27_merged_bodies_add_their_wounds(sheet):
    # L1192 is inconsistent (C7): the example merges 2 Major / 12 Minor and 3 / 9 into 5 Major and 21 Minor,
    # yet "Minor Wounds are lost when you merge". The digest's proposal follows the example (merge_minor
    # "sum"); "lost" gives 5 and 0
    assert sheet["E27"] == "5 21"
    assert sheet["other readings"].split()[3:] == ["5", "0"]


def test_e28_extra_bodies_are_a_size_smaller_and_lose_levels(sheet):
    # L1192: a Size 6 Robot as two Vehicles: base Size 5 each; two extra bodies: 4 levels less each;
    # 8 CP per extra body (8, 16, 24)
    assert sheet["E28"] == "5 4 8 24"


def test_e29_the_nth_extra_mode_has_2_rank_minus_2n_cp(sheet):
    # L1196: Rank 6: 10 CP on the second mode, 8 on the third
    assert sheet["E29"] == "10 8"


def test_e30_a_platform_cuts_the_limits_by_its_equipment(sheet):
    # L1277: 12 CP on the Platform: Equipment -4 and Transformation -8, or -7 and -5 (limits 12 each,
    # Strength and Rank 6); the Platform carries up to Strength + Rank = 12
    assert sheet["E30"] == "{equipment: 8, transformation: 4} {equipment: 5, transformation: 7} 12"


@pytest.mark.parametrize("call, message", [
    ("platform_limits(12, 12, 12, 4, 7)", "the limits must be cut by 12 in all, the CP on the Platform (rule text 000 L1277)"),
    ("platform_limits(12, 12, 12, 12, 0)", "neither limit may be cut below 1 (rule text 000 L1277)"),
])
def test_a_platform_that_breaks_its_limits_is_refused(tmp_path, call, message):
    err = run_json(tmp_path, f"use transformers\nsay {call}\n", code=1)
    assert message in err and "Traceback" not in err


def test_e31_a_disposable_modification_never_takes_a_cost_below_half(sheet):
    # L1648: Velocity Reducer 2 - 3 = -1, costs 0.5, 1.5 lost; spent on a Null Signature System: 3 - 1.5 = 1.5;
    # rebalanced to 1 + 1 = 2 CP, 3 less than the 5 of both
    assert sheet["E31"] == "1/2 3/2 3/2 2"


def test_e32_multi_mode_costs_one_per_extra_mode(sheet):
    # L1686: Defensive Gear (3) in Robot, tank and submarine: 3 + 2 = 5
    assert sheet["E32"] == "5"


def test_e33_connected_cuts_each_piece_by_the_number_connected(sheet, tmp_path):
    # L1655-1658
    assert sheet["E33"] == "-1/2 -1 -3/2"
    err = run_json(tmp_path, "use transformers\nsay connected_cut(5)\n", code=1)
    assert "Connected joins 2 to 4 pieces of Equipment (rule text 000 L1655-1658)" in err


def test_e34_linguist_tn_by_time_exposed(sheet):
    # L1239-1248: 15 days 0, 10 days 5, 3 days 10, 1 day 15, 8 hours 20, 6 hours 25, 3 hours 30, 1 hour 35,
    # 15 minutes 40 (in hours); 30 hours count as the last row reached, 1 day (15); 2 hours as 1 hour (35)
    assert sheet["E34"] == "[0, 5, 10, 15, 20, 25, 30, 35, 40] 15 35"


def test_e35_episode_awards_by_scope(sheet):
    # L1740-1745
    assert sheet["E35"] == "[1/2, 1, 3/2, 2, 5/2]"


def test_e36_a_human_lifts_strength_minus_2_halved(sheet):
    # L1918: Strength 6: (6 - 2) / 2 = 2; a Transformer lifts its Strength (L77)
    assert sheet["E36"] == "2 6"


def test_e37_starting_character_points_by_kind(sheet):
    # L438: 160; L1860: Minicon Henchman 70, Brute 40; L1897: Human Henchman 100, Brute 70; L2007: the same
    # for Automatons
    assert sheet["E37"] == "160 70 40 100 70 100 70"


def test_e38_a_minicon_or_human_moves_half_a_hex(sheet):
    # L1870, L1922: x0.5 in Robot-Mode: without Sprinting half a hex; with Sprinting 2, 1.5
    assert sheet["E38"] == "1/2 1/2 3/2"


def test_e39_to_e51_mega_size(sheet):
    assert sheet["E39"] == "0.33 1 3 9"                  # L1786: 3^(MS - 2) hexes
    assert sheet["E40"] == "10 15"                       # L1802: Effect Reduction 5 x MS
    assert sheet["E41"] == "24"                          # L1808: (2 + 1) x 8
    assert sheet["E42"] == "50"                          # L1810: (4 + 1) x 10
    assert sheet["E43"] == "24"                          # L1812: (3 + 1) x 6
    assert sheet["E44"] == "9 3"                         # L1816: (2 + 1) x 3 in Vehicle-Mode; x3 as a Robot
    assert sheet["E45"] == "25 125 625 3125 15625 48828125"   # L1818: 5^(MS + 1); Unicron MS 10
    assert sheet["E46"] == "562"                         # L1820: 625 / 10 x 9 = 562.5, "up to Size 562"
    assert sheet["E48"] == "5 25"                        # L1830: 5^MS Cubes
    assert sheet["E49"] == "40 160 640 10485760"         # L1832: 10 x 4^MS
    assert sheet["E50"] == "10 40"                       # L1982: 10 x MS^2
    assert sheet["E51"] == "120 10"                      # L2000: 160 - 40; a non-Mega Transport pays 10


def test_e47_mega_size_hexes_occupied(sheet):
    # L1828: a radius of MS hexes counting the base: 1, 7, 19. The text's "Unicron occupies 3067 hexes"
    # (MS 10) is no count of rings (C8; 3 x 10 x 9 + 1 = 271): the test follows the rule the text states,
    # as the digest proposes; there is no other reading to make an option of
    assert sheet["E47"] == "1 7 19 271"


def test_e52_energon_units(sheet):
    # L82: 50 Slips a Cube, 5 Cubes a Hypercube (250 Slips); L116: 3 Hypercubes consumed, one Overpower Die
    assert sheet["E52"] == "50 250 1 1"


# ---- combat rules a tactic plays (issue 18, build item 2) ----

PREPARE = ("use transformers\nfn transformers.prepares(c, enc) = c.name == \"Blurr\" and enc.round == 1\n"
           + transformer("Blurr", speed=6, skill=2, rank=1) + transformer("Astrotrain", speed=1)
           + encounter("Prepare", "Blurr", "Astrotrain", until="round > 3"))
# Blurr, Speed 6: 3k3; Astrotrain, Speed 1: 1k0.5: 1 -> 0, never acts. Skill 2, no Brawling: 1k1 against
# PD 5 + 5 unskilled, every attack a 1 and a miss.


def test_l130_preparing_with_the_last_action_gives_10_initiative_next_round(tmp_path):
    # L130 "take an action at the end of a Round to Prepare for the next round ... apply a +10 modifier to
    # their Initiative for the next round". Round 1: 4 3 2 = 9, its last action (9 <= 10 phases left): it
    # prepares. Round 2: 9 + 10 = 19: phases 19 and 9. Round 3: no bonus, it did not prepare again: phase 9.
    faces = [4, 3, 2, 1] + [4, 3, 2, 1, 1, 1] + [4, 3, 2, 1, 1]
    miss = "with fists: 1k1: 1 = 1 vs PD 5 + 5 unskilled: miss"
    assert run_json(tmp_path, PREPARE, faces)["log"][1:] == [
        "Round 1",
        "  initiative: Blurr 3k3: 4 3 2 = 9; Astrotrain 1k0.5: 1/2 = 0",
        "  phase 9: Blurr prepares for the next round (L130)",
        "Round 2",
        "  initiative: Blurr 3k3: 4 3 2 = 9 + 10 prepared; Astrotrain 1k0.5: 1/2 = 0",
        f"  phase 19: Blurr attacks Astrotrain {miss}",
        f"  phase 9: Blurr attacks Astrotrain {miss}",
        "Round 3",
        "  initiative: Blurr 3k3: 4 3 2 = 9; Astrotrain 1k0.5: 1/2 = 0",
        f"  phase 9: Blurr attacks Astrotrain {miss}",
    ]


def test_l130_an_action_with_phases_left_after_it_is_not_spent_preparing(tmp_path):
    # the tactic asks every round, but only the last action of a round Prepares: 9 8 8 = 25 attacks at 25
    # and 15, prepares at 5; round 2 has 25 + 10 = 35
    script = PREPARE.replace("and enc.round == 1", "").replace("round > 3", "round > 1")
    log = run_json(tmp_path, script, [9, 8, 8, 1, 1, 1])["log"]
    assert [line.split(" with")[0] for line in log[3:]] == [
        "  phase 25: Blurr attacks Astrotrain", "  phase 15: Blurr attacks Astrotrain",
        "  phase 5: Blurr prepares for the next round (L130)"]
    assert run_json(tmp_path, script.replace("round > 1", "round > 2"), [9, 8, 8, 1, 1, 1] + [9, 8, 8, 1, 1, 1, 1])["log"][7] == \
        "  initiative: Blurr 3k3: 9 8 8 = 25 + 10 prepared; Astrotrain 1k0.5: 1/2 = 0"


def test_l130_by_default_a_last_action_that_could_do_nothing_else_prepares(tmp_path):
    # The default `prepares`: an Object (Movement x0, L195) whose foe is beyond its Blaster's 2 hexes can neither shoot
    # nor move; its last action of the round (2 phases left) Prepares, plainly better than nothing (L130): +10 next
    # round. Its earlier actions are still a double move of 0 (a last action only, L130 "at the end of a Round").
    script = ("use transformers\n"
              + transformer("Turret", 'mode "object"', conc("Shooting", 1), "armament Blaster { damage 3k2  range 2 }")
              + transformer("Astrotrain", speed=1) + encounter("Stuck", "Turret", "Astrotrain", "distance: 6", until="round > 2"))
    log = run_json(tmp_path, script, [9, 9, 9, 1] + [4, 3, 2, 1] + [1] * 20)["log"]
    assert log[3:] == [
        "  initiative: Turret 3k2.5: 9 9 9/2 = 22; Astrotrain 1k0.5: 1/2 = 0",
        "  phase 22: Turret moves 0 hexes toward Astrotrain (double move, L187), 6 hexes apart",
        "  phase 12: Turret moves 0 hexes toward Astrotrain (double move, L187), 6 hexes apart",
        "  phase 2: Turret prepares for the next round (L130)",
        "Round 2",
        "  initiative: Turret 3k2.5: 4 3 2/2 = 8 + 10 prepared; Astrotrain 1k0.5: 1/2 = 0",
        "  phase 18: Turret moves 0 hexes toward Astrotrain (double move, L187), 6 hexes apart",
        "  phase 8: Turret prepares for the next round (L130)",
    ]
    # within its reach it shoots with its last action instead
    log = run_json(tmp_path, script.replace("distance: 6", "distance: 2"), [9, 9, 9, 1] + [1] * 30)["log"]
    assert not any("prepares" in line for line in log)


def test_l132_each_effect_maintained_by_focus_costs_5_initiative(tmp_path):
    # L132 "For each effect that a character is maintaining, apply a -5 modifier to their Initiative total":
    # 2 effects (a script sets `focus`): 9 8 8 = 25 - 10 = 15: phases 15 and 5
    script = (PREPARE.replace("and enc.round == 1", "and false").replace("speed 6", "speed 6  focus 2")
              .replace("round > 3", "round > 1"))
    log = run_json(tmp_path, script, [9, 8, 8, 1, 1, 1])["log"]
    assert log[2] == "  initiative: Blurr 3k3: 9 8 8 = 25 - 10 focus; Astrotrain 1k0.5: 1/2 = 0"
    assert [line.split(" with")[0] for line in log[3:]] == [
        "  phase 15: Blurr attacks Astrotrain", "  phase 5: Blurr attacks Astrotrain"]


# L319 Surprise: Ravage (Skill 6, Stealth 2, Brawling 1) waits unobserved for Hound (all 5); the fight ends
# before its first round (until round > 0), so all that happens is the surprise
SURPRISE = ("use transformers\n"
            + transformer("Hound") + transformer("Ravage", conc("Stealth", 2), conc("Brawling", 1), skill=6)
            + encounter("Surprise", "Hound", "Ravage", 'unobserved: "decepticons"', until="round > 0"))


def test_l319_a_surprise_is_a_free_action_without_passive_or_active_defense(tmp_path):
    # L319 "Make a Opposed Roll against their Intelligence and Ambush Concentration using your Skill Tech Spec
    # and Stealth ...": Ravage 3 + 2 = 5k3: 7 6 4 (1 1) = 17 against 2.5 x Intelligence 5 = 12, made; Hound,
    # Intelligence Dice 2.5 + Ambush 0: 3k2.5: 6 5 3/2 = 12 against 2.5 x Skill 6 = 15, failed: surprised.
    # "they may not use Passive or Active Defense against this free action": the TN is 0 (A15) + the damage
    # Boost the tactic takes (3 kept x 6 >= 0 + 15), 4k3: 8 5 5 (2) = 18, a hit; Hound, at Initiative 0, could
    # borrow 5 phases for an Active Defense (L151) but may not. Damage 2.5k1 + 1k0: 3k1: 9 (5 5) = 9;
    # Durability 3k2.5: 8 7 3/2 = 16 holds.
    log = run_json(tmp_path, SURPRISE, [7, 6, 4, 1, 1, 6, 5, 3, 8, 5, 5, 2, 9, 5, 5, 8, 7, 3])["log"]
    assert log[1:] == [
        "  Ravage tries to surprise Hound (L319): Skill + Stealth 5k3: 7 6 4 (1 1) = 17 vs 12; "
        "Hound's Intelligence + Ambush 3k2.5: 6 5 3/2 = 12 vs 15: surprised",
        "  surprise: Ravage attacks Hound with fists: 4k3: 8 5 5 (2) = 18 vs no PD (surprised, L319) + 5 (1 Boost): hit",
        "    damage 3k1: 9 (5 5) = 9",
        "    Hound Durability 3k2.5: 8 7 3/2 = 16 vs Minor 9: holds",
    ]


def test_l319_a_target_who_wins_the_opposed_roll_is_not_surprised(tmp_path):
    # Ravage 1 1 1 (1 1) = 3 fails against 12; Hound 9 9 9/2 = 22 makes 15: no free action
    log = run_json(tmp_path, SURPRISE, [1, 1, 1, 1, 1, 9, 9, 9])["log"]
    assert log[1:] == [
        "  Ravage tries to surprise Hound (L319): Skill + Stealth 5k3: 1 1 1 (1 1) = 3 vs 12; "
        "Hound's Intelligence + Ambush 3k2.5: 9 9 9/2 = 22 vs 15: not surprised",
    ]


def test_l319_surprise_only_from_unobserved_and_with_the_best_concentration(tmp_path):
    # without the GM's `unobserved` no one tries (the text: "only works in situations where you can approach
    # or wait for a target unobserved")
    assert run_json(tmp_path, SURPRISE.replace('    unobserved: "decepticons"\n', ""), [])["log"][1:] == []
    # with Ambush 3 beside Stealth 2 the roll takes Ambush: 6k3; a defender's Ambush 2 adds 2 unkept dice
    script = (SURPRISE.replace('concentration Stealth { level 2 }', 'concentration Stealth { level 2 }  concentration Ambush { level 3 }')
              .replace("character Hound is Transformer {", "character Hound is Transformer { concentration Ambush { level 2 }"))
    log = run_json(tmp_path, script, [1] * 6 + [9] * 5)["log"]
    assert log[1] == ("  Ravage tries to surprise Hound (L319): Skill + Ambush 6k3: 1 1 1 (1 1 1) = 3 vs 12; "
                      "Hound's Intelligence + Ambush 5k2.5: 9 9 9/2 (9 9) = 22 vs 15: not surprised")


def test_l319_one_of_the_unobserved_side_without_stealth_tries_a_surprise_unskilled(tmp_path):
    # L319 "You may attempt" a surprise; unobserved, it is plainly the better choice (a free action won, nothing lost
    # on a failure), so by default everyone of the `unobserved` side tries. Without Stealth, Shadowing or Ambush,
    # Stealth unskilled: +5 TN (L40, a Basic Concentration). Ravage, Skill Dice 3, 3k3: 9 8 7 = 24 against 2.5 x
    # Intelligence 5 = 12 + 5, made; Hound 3k2.5: 6 5 3/2 = 12 against 15, failed: surprised, a free action.
    no_skill = SURPRISE.replace('concentration Stealth { level 2 }', 'concentration Dodge { level 2 }')
    log = run_json(tmp_path, no_skill, [9, 8, 7, 6, 5, 3] + [4, 4, 4, 3] + [1, 1, 8] + [7, 3, 1])["log"]
    assert log[1:3] == [
        "  Ravage tries to surprise Hound (L319): Skill + Stealth 3k3: 9 8 7 = 24 vs 12 + 5 unskilled (L40); "
        "Hound's Intelligence + Ambush 3k2.5: 6 5 3/2 = 12 vs 15: surprised",
        "  surprise: Ravage attacks Hound with fists: 4k3: 4 4 4 (3) = 12 vs no PD (surprised, L319) + 5 (1 Boost): hit",
    ]
    # the +5 counts: 5 5 4 = 14 is above 12 but not above 17, and Hound fails too: no one wins, not surprised
    log = run_json(tmp_path, no_skill, [5, 5, 4, 1, 1, 1])["log"]
    assert log[1].endswith("3k3: 5 5 4 = 14 vs 12 + 5 unskilled (L40); Hound's Intelligence + Ambush 3k2.5: 1 1 1/2 = 2 vs 15: not surprised")


# L178-180 transforming mid-combat. Jazz (all 5; Shooting 1) has a Robot-Mode Blaster (range 4) and a
# Vehicle-Mode, Porsche, with Speed +1 (L1638); Dummy (Speed 1: 1k0.5, 1/2 = 0) never acts. Jazz's
# Transformation Roll is his Courage Dice, 2.5k2.5: 3k2.5 (L28).
JAZZ = transformer("Jazz", conc("Shooting", 1), "armament Blaster { damage 3k2  range 4 }",
                   'transformation Porsche { type "vehicle"  speed_change 1 }', major=2)


def transforming(*settings, jazz=JAZZ, extra="", until="round > 2"):
    return ("use transformers\n" + extra + jazz + transformer("Dummy", speed=1)
            + encounter("Roll out", "Jazz", "Dummy", *settings, until=until))


def test_l178_a_transformation_roll_gains_5_for_each_action_spent_and_the_mode_has_its_own_stats(tmp_path):
    # 20 hexes apart, beyond a Robot-Mode double move (2 x 1 hex, L187): the default tactic transforms into
    # the faster Mode (L201). TN 5 x 2 Major = 10 (L178). Phase 22: 1 1 1/2 = 2, fails; phase 12: +5 for the
    # action spent (A22), 2 2 2/2 + 5 = 10, not above 10; phase 2: +10, 5 5 5/2 + 10 = 22: made, in Porsche.
    # Round 2, in Porsche: Initiative from Speed 6 (5 + 1): 3k3 (L126, L1638); Movement 1 x 3 (L195, C1):
    # double moves of 6 hexes. Round 3: 2 hexes apart, within a Robot-Mode move of the Blaster's range 4:
    # Porsche has no armament of its own (L180), so he transforms back, and fails (3 3 3/2 = 7 vs 10).
    faces = [9, 9, 9, 1, 1, 1, 1, 2, 2, 2, 5, 5, 5] + [5, 5, 5, 1] + [5, 5, 5, 1, 3, 3, 3]
    log = run_json(tmp_path, transforming("distance: 20", until="round > 3"), faces)["log"]
    assert log[2:] == [
        "Round 1",
        "  initiative: Jazz 3k2.5: 9 9 9/2 = 22; Dummy 1k0.5: 1/2 = 0",
        "  phase 22: Jazz transforms into Porsche (L178): Courage 3k2.5: 1 1 1/2 = 2 vs 10: fails, the action spent (1 of 3)",
        "  phase 12: Jazz transforms into Porsche (L178): Courage 3k2.5+5: 2 2 2/2 = 10 vs 10: fails, the action spent (2 of 3)",
        "  phase 2: Jazz transforms into Porsche (L178): Courage 3k2.5+10: 5 5 5/2 = 22 vs 10: made: it is in Porsche",
        "Round 2",
        "  initiative: Jazz 3k3: 5 5 5 = 15; Dummy 1k0.5: 1/2 = 0",
        "  phase 15: Jazz moves 6 hexes toward Dummy (double move, L187), 14 hexes apart",
        "  phase 5: Jazz moves 6 hexes toward Dummy (double move, L187), 8 hexes apart",
        "Round 3",
        "  initiative: Jazz 3k3: 5 5 5 = 15; Dummy 1k0.5: 1/2 = 0",
        "  phase 15: Jazz moves 6 hexes toward Dummy (double move, L187), 2 hexes apart",
        "  phase 5: Jazz transforms into Robot-Mode (L178): Courage 3k2.5: 3 3 3/2 = 7 vs 10: fails, the action spent (1 of 3)",
    ]
    # A22's other reading: the action of the roll counts too, the first roll already +5
    log = run_json(tmp_path, transforming("distance: 20", 'transform_bonus: "this"', until="round > 1"), faces)["log"]
    assert log[4] == ("  phase 22: Jazz transforms into Porsche (L178): Courage 3k2.5+5: 1 1 1/2 = 7 vs 10: "
                      "fails, the action spent (1 of 3)")


@pytest.mark.parametrize("setting, line", [
    # L178 "if you cannot transform after three actions, you must remain in your current form": for the rest
    # of the fight by default (after_three), so in round 2 he walks
    (None, "  phase 12: Jazz moves 2 hexes toward Dummy (double move, L187), 18 hexes apart"),
    # or a new transformation, from +0 again
    ('after_three: "again"', "  phase 12: Jazz transforms into Porsche (L178): Courage 3k2.5: 5 5 5/2 = 12 vs 15: fails, "
                             "the action spent (1 of 3)"),
])
def test_l178_after_three_failed_actions_it_remains_in_its_form(tmp_path, setting, line):
    # 3 Major: TN 15; 2, 7 and 12 fail
    script = transforming("distance: 20", *([setting] if setting else []), jazz=JAZZ.replace("major 2", "major 3"),
                          until="round > 2")
    log = run_json(tmp_path, script, [9, 9, 9, 1] + [1, 1, 1] * 3 + [5, 5, 5, 1, 5, 5, 5, 1, 1, 1])["log"]
    assert log[6] == ("  phase 2: Jazz transforms into Porsche (L178): Courage 3k2.5+10: 1 1 1/2 = 12 vs 15: "
                      "fails a third time: it remains in Robot-Mode")
    assert log[9] == line


# Jazz with a Porsche armament of its own (in_mode, L180); a tactic transforms him at once; 1 Major: TN 5
INTO_PORSCHE = 'fn transformers.transforms(c, enc) = match c.form == "robot" and c.name == "Jazz" { true => "Porsche"; else => none }\n'
JAZZ_ARMED = transformer("Jazz", conc("Shooting", 1), "armament Blaster { damage 3k2  range 4 }",
                         'armament Photon { damage 2k2  in_mode "Porsche" }',
                         'transformation Porsche { type "vehicle"  speed_change 1  RATE }', major=1)


@pytest.mark.parametrize("rate, boosts, line", [
    # L178 "You may transform one action faster (minimum 0) for every two Boosts taken with this roll": two
    # Boosts, TN 5 + 10 (L49)
    ("", 2, "Courage 3k2.5: 9 9 9/2 = 22 vs 5 + 10 (2 Boosts): in 0 actions, it acts on at +5 TN"),
    # L1615 Quick Transformation Rate: a free action, +5 TN while transforming
    ('rate "quick"', 0, "Courage 3k2.5: 9 9 9/2 = 22 vs 5: in 0 actions, it acts on at +5 TN"),
])
def test_l178_a_transformation_in_0_actions_acts_at_5_tn(tmp_path, rate, boosts, line):
    # "If your Transformation takes place in 0 actions, you may perform another action but suffer a +5 TN
    # penalty to any rolls made": in the same phase he attacks, with Porsche's Photon (the Robot-Mode Blaster,
    # listed first, is unusable, L180): Skill Dice 2.5 + Shooting 1, 3.5k2.5: 4k2.5: 6 5 1/2 (1) = 11 against
    # PD 5 + 5. Dummy borrows for an Active Defense, 1 1 1/2 = 2, fails; Photon 2k2 + Firepower Dice 2.5 =
    # 4.5k2: 4k2: 1 1 (1 1) = 2; Durability 2 + an Energon Die 1 = 3 holds. At phase 12 no +5.
    extra = INTO_PORSCHE + (f"fn transformers.transform_boosts(c, into) = {boosts}\n" if boosts else "")
    script = transforming(jazz=JAZZ_ARMED.replace("RATE", rate), extra=extra, until="round > 1")
    log = run_json(tmp_path, script, [9, 9, 9, 1, 9, 9, 9, 6, 5, 1, 1] + [1] * 20)["log"]
    assert log[3:5] == ["  phase 22: Jazz transforms into Porsche (L178): " + line,
                        "  phase 22: Jazz attacks Dummy with Photon: 4k2.5: 6 5 1/2 (1) = 11 vs PD 5 + 5 transforming (L178): hit"]
    assert log[8] == "  phase 12: Jazz attacks Dummy with Photon: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss"


def test_an_action_spent_transforming_moves_no_hex(tmp_path):
    # L146 "the target's Passive Defense, as determined by that target's last action" (A29): after a double
    # move of 6 hexes PD 5 + 3 (L206-227); the next action transforms, and moves nothing: PD 5
    script = ("use transformers\n" + JAZZ + "Jazz.moved = 6\nsay passive_defense(Jazz)\n"
              'transform(Jazz, "Porsche", 5)\nsay passive_defense(Jazz)\n')
    assert run_json(tmp_path, script, [9, 9, 9])["log"] == [
        "8", "  phase 5: Jazz transforms into Porsche (L178): Courage 3k2.5: 9 9 9/2 = 22 vs 10: made: it is in Porsche", "5"]


def test_l1630_a_slow_rate_takes_a_second_action(tmp_path):
    # L1630 "It takes you an additional action to transform": made at phase 22, in Porsche after phase 12
    script = transforming(jazz=JAZZ_ARMED.replace("RATE", 'rate "slow"'), extra=INTO_PORSCHE, until="round > 1")
    log = run_json(tmp_path, script, [9, 9, 9, 1, 9, 9, 9] + [1] * 20)["log"]
    assert log[3:6] == ["  phase 22: Jazz transforms into Porsche (L178): Courage 3k2.5: 9 9 9/2 = 22 vs 5: made",
                        "  phase 12: Jazz spends the action transforming: it is in Porsche",
                        "  phase 2: Jazz attacks Dummy with Photon: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss"]


def test_l180_robot_mode_equipment_is_unusable_in_another_mode(tmp_path):
    # a script's tactic that picks the Blaster in Porsche is refused with one message
    extra = INTO_PORSCHE + "fn transformers.pick_weapon(c, target) = c.armament[0]\n"
    err = run_json(tmp_path, transforming(jazz=JAZZ_ARMED.replace("RATE", ""), extra=extra), [9, 9, 9, 1, 9, 9, 9], code=1)
    assert "Jazz cannot use Blaster in Porsche (rule text 000 L180)" in err and "Traceback" not in err
    # and a transformation the character does not have
    extra = INTO_PORSCHE.replace('=> "Porsche"', '=> "Jet"')
    err = run_json(tmp_path, transforming(jazz=JAZZ_ARMED.replace("RATE", ""), extra=extra), [9, 9, 9, 1], code=1)
    assert 'Jazz has no transformation "Jet" (rule text 000 L178)' in err and "Traceback" not in err


def test_a_modes_size_change_and_tech_specs(tmp_path):
    # L1533: the Size Change (Vehicle: +1 to -2), here -2: Size 5 - 2 = 3, and the Size table (a house
    # rule) reads it; L1635: a Tech Spec Decrease not below 1 (Skill 1 - 2 -> 1); L1639 with C11: an
    # Increase not above 10; Intelligence has no change
    script = ("use transformers\n"
              'fn transformers.size_mod(size, what) = match what { "base_defense" => 5 - size; else => 0 }\n'
              + transformer("Jazz", 'transformation Porsche { type "vehicle"  size_change -2  skill_change -2  speed_change 2 }',
                            skill=1, speed=9)
              + 'let sk = "skill"\nlet sp = "speed"\n'
              + 'say "{size_of(Jazz)} {tech_spec(Jazz, sk)} {tech_spec(Jazz, sp)} {passive_defense(Jazz)} {mode_of(Jazz)}"\n'
              + 'Jazz.form = "Porsche"\n'
              + 'say "{size_of(Jazz)} {tech_spec(Jazz, sk)} {tech_spec(Jazz, sp)} {passive_defense(Jazz)} {mode_of(Jazz)}"\n')
    assert run_json(tmp_path, script, [])["log"] == ["5 1 9 5 robot", "3 1 10 7 vehicle"]


# ---- Henchmen (L254) and Brute Squads (L260-269) ----

def test_l254_a_henchmans_major_damage_limits_use_half_its_courage_rounded_up(tmp_path):
    # L254 "calculating the amount of Major Damage they may take using half their Courage (rounded up)": Courage
    # 5 gives 3: with 4 Major a Henchman is Knocked Out (above 3), a standard Transformer not (L161); dying at 6
    # (2 x 3, L169). "Henchman receive half the standard Energon Dice ... rounded down": Rank 7, 3.5 / 2 = 1.75,
    # 1.5 (A20: to a half die); Rank 3: 0.5.
    script = ("use transformers\n" + transformer("Starscream", role='"henchman"', rank=7, major=4)
              + transformer("Frenzy", role='"henchman"', rank=3, major=6) + transformer("Thundercracker", rank=7, major=4)
              + 'for c in [Starscream, Frenzy, Thundercracker] { say "{c}: {courage_limit(c)} {c.energon} '
                '{status_for(c)} {fatigued(c)}" }\n')
    assert run_json(tmp_path, script, [])["log"] == [
        "Starscream: 3 3/2 knocked out true", "Frenzy: 3 1/2 dying true", "Thundercracker: 5 7/2 active true"]


# Vehicons, a Brute Squad of Courage 4 (4 members, L269), Endurance 4 (2k2), Intelligence 4 (PD 4, Active
# Defense 2k2); Jazz shoots: Skill 6 + Shooting 2, 5k3; Blaster 3k2 + Firepower Dice 2.5: 5k2 (L28)
SQUAD = ("use transformers\n"
         + transformer("Jazz", conc("Shooting", 2), "armament Blaster { damage 3k2 }", skill=6)
         + transformer("Vehicons", role='"brute"', courage=4, endurance=4, intelligence=4, rank=3)
         + "repeat 3 { attack(Jazz, Vehicons, Jazz.armament[0], none, 5) }\n"
         + 'say "{Vehicons.status} {Vehicons.casualties} {Vehicons.major} {Vehicons.minor}"\n')


def test_l265_a_brute_squad_loses_members_to_hits_and_failed_durability_checks(tmp_path):
    # L269 "For each member of a Brute Squad, add +1 to all dice rolls": its Active Defense 2k2+4: 1 1 = 6
    # fails against 27. L265 "When a Brute Squad takes a hit, a member ... is Knocked Out. Additionally ... a
    # Durability Check ... if the check fails, one member ... is Knocked Out. For every 10 points by which the
    # Durability Check failed, knock out another": 3 standing, +3: 1 1 + 3 = 5 against Minor 16, failed by 11:
    # 2 more, 1 standing; its Minor resets (PROPOSAL: its losses are its Major Damage). The second hit knocks
    # out the last (no Durability Check is left to make; no Active Defense either: the 5 phases it could borrow
    # are spent, and half an Energon Die buys none, L151): the squad is Knocked Out. The third attack hits
    # automatically (L164), and "A Knocked Out Brute who takes a single point of damage is treated as dead".
    # No Major Damage, prone or Fatigue of its own.
    faces = [9, 9, 9, 1, 1, 1, 1, 9, 7, 1, 1, 1, 1, 1] + [9, 9, 9, 1, 1, 9, 7, 1, 1, 1] + [1] * 10
    log = run_json(tmp_path, SQUAD, faces)["log"]
    assert log == [
        "  phase 5: Jazz attacks Vehicons with Blaster: 5k3: 9 9 9 (1 1) = 27 vs PD 4: hit",
        "    Vehicons defends actively, borrowing 5 phases from next round: 2k2+4: 1 1 = 6 vs 27: fails",
        "    damage 5k2: 9 7 (1 1 1) = 16",
        "    Vehicons loses a member to the hit (L265): 3 of 4 standing",
        "    Vehicons Durability 2k2+3: 1 1 = 5 vs Minor 16: fails by 11, 2 members more Knocked Out: 1 of 4 standing",
        "  phase 5: Jazz attacks Vehicons with Blaster: 5k3: 9 9 9 (1 1) = 27 vs PD 4: hit",
        "    damage 5k2: 9 7 (1 1 1) = 16",
        "    Vehicons loses a member to the hit (L265): 0 of 4 standing",
        "    Vehicons is knocked out: every member is down (L265)",
        "  phase 5: Jazz attacks Vehicons with Blaster: 5k3: 1 1 1 (1 1) = 3: Vehicons is Knocked Out, the attack hits (L164)",
        "    damage 5k2: 1 1 (1 1 1) = 2",
        "    Vehicons is dead (L265)",
        "dead 4 0 0",
    ]
    # "unless the attacking character would rather count them as Knocked Out" (the tactic `spares`)
    spared = SQUAD.replace("repeat 3", "fn transformers.spares(att, squad) = true\nrepeat 3")
    assert run_json(tmp_path, spared, faces)["log"][-1] == "knocked out 4 0 0"


def test_l267_brute_energon_and_casualties_in_a_transformation_roll(tmp_path):
    # C4: L267 "half as much starting Energon Dice" (Rank 3: 1.5 / 2 = 0.75, 0.5) by default, L111 "Brutes do
    # not receive Energon Dice" as the option; L269 "Treat the number of casualties ... as its Major Damage for
    # purposes of Transformation": 2 casualties, TN 10; its roll gets +2, the members left (Courage 4: 2k2)
    script = ("use transformers\n" + transformer("Vehicons", role='"brute"', courage=4, rank=3, casualties=2)
              + 'say "{Vehicons.energon} {transform_damage(Vehicons)}"\n')
    script = script.replace("character Vehicons is Transformer {",
                            'character Vehicons is Transformer { transformation Tank { type "vehicle" }')
    script += 'say transform(Vehicons, "Tank", 5)\n'
    assert run_json(tmp_path, script, [4, 3])["log"] == [
        "1/2 2",
        "  phase 5: Vehicons transforms into Tank (L178): Courage 2k2+2: 4 3 = 9 vs 10: fails, the action spent (1 of 3)",
        "false",
    ]
    none = "use transformers\ntransformers.brute_energon = \"none\"\n" + transformer("Vehicons", role='"brute"') + "say Vehicons.energon\n"
    assert run_json(tmp_path, none, [])["log"] == ["0"]


# ---- the example of a leader, a Brute Squad and a transforming Autobot (issue 18, build item 7) ----

def test_the_squad_example_runs_simulates_and_checks(tmp_path):
    import json
    from pathlib import Path

    from support import mech_forked

    root = Path(__file__).resolve().parent.parent
    example = str(root / "examples" / "transformers_squad.mech")
    checked = mech_forked(["check", example], tmp_path)
    assert checked.code == 0 and checked.out.strip().endswith("ok"), checked.err
    ran = mech_forked(["run", example, "--seed", "12"], tmp_path)
    assert ran.code == 0, ran.err
    # Jazz transforms to close in (L201), drives in Porsche and transforms back to shoot (L180); the
    # Vehicons lose members (L265) with +1 a member on their rolls (L269)
    assert "Jazz transforms into Porsche (L178)" in ran.out and "it is in Porsche" in ran.out
    assert "Jazz transforms into Robot-Mode (L178)" in ran.out and "it is in Robot-Mode" in ran.out
    assert "Jazz attacks" in ran.out.split("it is in Robot-Mode", 1)[1]
    assert "Vehicons loses a member to the hit (L265)" in ran.out and "Vehicons 2k2+4:" in ran.out
    simmed = mech_forked(["sim", example, "-n", "50", "--seed", "1", "--json", "--jobs", "1"], tmp_path)
    assert simmed.code == 0, simmed.err
    sim = json.loads(simmed.out)
    assert sim["runs"] == 50 and set(sim["characters"]) == {"Jazz", "Bumblebee", "Thrust", "Vehicons"}
    assert sim["winners"]["autobots"]["count"] + sim["winners"]["decepticons"]["count"] > 0


# ---- docs/transformers.md (issue 18, build item 6): the console commands run in tests/test_docs.py ----

def test_the_reference_page_lists_every_option_and_only_real_rules():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    module = (root / "mechscript" / "stdlib" / "transformers.mech").read_text()
    page = (root / "docs" / "transformers.md").read_text()
    # every option (a top-level `let` of the module but its lists of names and its `report` and `choices`)
    # has a row of the options table, with its default as the module gives it
    options = dict(re.findall(r"^let (\w+) = (\S+)", module, flags=re.M))
    for name in ("report", "choices", "survival", "advanced", "untrained_advanced", "enhancing", "systems", "trait_names"):
        options.pop(name)
    rows = dict(re.findall(r"^\| `(\w+)` \| `?([^`|]+?)`? \|", page.split("## Options", 1)[1], flags=re.M))
    assert set(rows) == set(options)
    for name, default in options.items():
        assert rows[name] == default.strip('"') or rows[name] == default, name
    # every rule the page says a script replaces is a function of the module with those arguments
    rules = page.split("## Rules a script replaces", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`(\w+)\(([^)]*)\)`", rules)
    assert len(named) >= 25
    for name, arguments in named:
        assert re.search(rf"^fn {name}\({re.escape(arguments)}\)", module, flags=re.M), f"{name}({arguments})"
