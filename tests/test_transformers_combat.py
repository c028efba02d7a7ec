"""Golden tests of the `transformers` module's combat actions beyond a plain attack (issue 18, item 2;
rule text 000, shared/seeds/000_6706884ff34b4b73.txt, cited `L<n>`; digest
shared/rules/transformers-7thsea.md): several attacks as one action (Autofire, Doubleshot,
Dual-Strike), the advanced unarmed moves, called shots at Systems, Area-of-Effect attacks targeted
and untargeted, and the Continuous, Persistent and Homing effects.

As in test_transformers.py, each script runs as `mech run FILE --faces ... --json`; faces are d10
faces in the order the dice fall. Every Tech Spec is 5 unless said: Tech Spec Dice 2.5 (L35), so
Skill 5 with a Level 1 Concentration is 3.5k2.5, rolled as 4k2.5 (L28: the lowest kept die counts
half, shown `4/2`). A target with Speed 1 rolls 1k0.5 for Initiative, 0, and never acts; with Rank 1
it has half an Energon Die and spends none. Passive Defense 5 is its Intelligence (no Dodge, L141).
"""

from __future__ import annotations

import pytest

from support import mech_forked, run_json
from test_transformers import conc, encounter, transformer

DUMMY = dict(speed=1, rank=1)       # never acts, spends no Energon Die
ONES = [1] * 60


def fight(*characters: str, first: str, second: str, settings=(), extra: str = "", until: str = "round > 1") -> str:
    return ("use transformers\n" + extra + "".join(characters)
            + encounter("Test", first, second, *settings, until=until))


# ---- several attacks as one action (L740, L776, L779) ----

BLUESTREAK = transformer("Bluestreak", conc("Shooting", 1), conc("Autofire", 1), "armament Blaster { damage 3k2 }")


def test_l740_autofire_makes_two_attacks_at_5_tn_each_and_gives_the_defense_as_much(tmp_path):
    # The default tactic `volley`: with Autofire, one attack more at the target (PROPOSAL). L740: +5 x (2 - 1) x 1
    # target = +5 on each attack; "Apply this modifier to attack rolls as a bonus to any Active Defense rolls":
    # Dummy's Active Defense 3k2.5 + 5. Each attack rolls Skill Dice 2.5 + Autofire 1 (volley_roll "own").
    # First: 6 5 1/2 = 11 > 10, hit; AD 1 1 1/2 + 5 = 7, fails; Blaster 3k2 + Firepower Dice 2.5 (A18): 5k2,
    # 7 5 = 12; Durability 4 4 4/2 = 10 fails by 2 (L154). Second: 8 8 2/2 = 17, hit; no AD left (Initiative 0,
    # 5 phases borrowed already, L151); 3 3 = 6, Minor 6, 3 3 3/2 = 7 holds.
    script = fight(BLUESTREAK, transformer("Dummy", **DUMMY), first="Bluestreak", second="Dummy")
    faces = [9, 9, 9, 1, 6, 5, 1, 1, 1, 1, 1, 7, 5, 3, 2, 1, 4, 4, 4, 8, 8, 2, 2, 3, 3, 1, 1, 1, 3, 3, 3] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[3:11] == [
        "  phase 22: Bluestreak makes 2 attacks as one action (Autofire, L740): + 5 TN each",
        "  phase 22: Bluestreak attacks Dummy with Blaster: 4k2.5: 6 5 1/2 (1) = 11 vs PD 5 + 5 Autofire: hit",
        "    Dummy defends actively, borrowing 5 phases from next round: 3k2.5+5: 1 1 1/2 = 7 vs 11: fails",
        "    damage 5k2: 7 5 (3 2 1) = 12",
        "    Dummy Durability 3k2.5: 4 4 4/2 = 10 vs Minor 12: fails by 2, 1 Major (now 1)",
        "  phase 22: Bluestreak attacks Dummy with Blaster: 4k2.5: 8 8 2/2 (2) = 17 vs PD 5 + 5 Autofire: hit",
        "    damage 5k2: 3 3 (1 1 1) = 6",
        "    Dummy Durability 3k2.5: 3 3 3/2 = 7 vs Minor 6: holds",
    ]


AT_BOTH = ('fn transformers.volley(c, target, weapon, enc) = match c.name {\n'
           '    "Bluestreak" => {how: "autofire", shots: [{target: Dummy, weapon: weapon}, {target: Dummy, weapon: weapon},'
           ' {target: Dummy2, weapon: weapon}]}\n    else => none\n}\n')


def test_l740_autofire_at_two_targets_costs_5_per_extra_attack_per_target(tmp_path):
    # E19's second case played: three attacks between two targets, +5 x (3 - 1) x 2 = +20 each
    script = fight(BLUESTREAK, transformer("Dummy", **DUMMY), transformer("Dummy2", **DUMMY),
                   first="Bluestreak", second="Dummy, Dummy2", extra=AT_BOTH)
    log = run_json(tmp_path, script, [9, 9, 9, 1, 1] + ONES)["log"]
    assert log[3:7] == [
        "  phase 22: Bluestreak makes 3 attacks as one action (Autofire, L740): + 20 TN each",
        "  phase 22: Bluestreak attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5 + 20 Autofire: miss",
        "  phase 22: Bluestreak attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5 + 20 Autofire: miss",
        "  phase 22: Bluestreak attacks Dummy2 with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5 + 20 Autofire: miss",
    ]


def test_l740_autofire_targets_must_be_within_its_level_in_hexes(tmp_path):
    # A tactic that sprays Dummy and Hound, 2 hexes apart: Autofire 1 allows 1 hex between targets
    extra = AT_BOTH.replace("target: Dummy2", "target: Hound")
    script = fight(BLUESTREAK, transformer("Hound", **DUMMY), transformer("Dummy", **DUMMY),
                   first="Bluestreak, Hound", second="Dummy", settings=["distance: 2"], extra=extra)
    error = run_json(tmp_path, script, [9, 9, 9, 1, 1] + ONES, code=1)
    assert "Bluestreak's Autofire targets must be within its Autofire Level (1) in hexes of each other (rule text 000 L740)" in error


MIRAGE = transformer("Mirage", conc("Doubleshot", 2), 'armament "Left gun" { damage 2k2 }',
                     'armament "Right gun" { damage 2k2  range 2 }')
SIDESWIPE = transformer("Sideswipe", conc("Dual_Strike", 1), 'armament Sword { damage 2k2  type "strength"  uses "strike" }',
                        'armament Mace { damage 1k1  type "strength"  uses "strike" }')


def test_l776_doubleshot_fires_each_projectile_armament_at_5_tn(tmp_path):
    # Two armaments, one target: +5 x 1 x 1 (E20). Doubleshot 2: 4.5k2.5, rolled 5k2.5 (L28). No Active Defense
    # bonus (L776 gives none). 2k2 + Firepower Dice 2.5 = 4.5k2, rolled 4k2 (L28).
    script = fight(MIRAGE, transformer("Dummy", **DUMMY), first="Mirage", second="Dummy")
    faces = [9, 9, 9, 1] + [6, 5, 4, 3, 2] + [1, 1, 1] + [6, 5, 4, 1] + [6, 5, 4] + [1, 1, 1, 1, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[3:10] == [
        "  phase 22: Mirage makes 2 attacks as one action (Doubleshot, L776): + 5 TN each",
        "  phase 22: Mirage attacks Dummy with Left gun: 5k2.5: 6 5 4/2 (3 2) = 13 vs PD 5 + 5 Doubleshot: hit",
        "    Dummy defends actively, borrowing 5 phases from next round: 3k2.5: 1 1 1/2 = 2 vs 13: fails",
        "    damage 4k2: 6 5 (4 1) = 11",
        "    Dummy Durability 3k2.5: 6 5 4/2 = 13 vs Minor 11: holds",
        "  phase 22: Mirage attacks Dummy with Right gun: 5k2.5: 1 1 1/2 (1 1) = 2 vs PD 5 + 5 Doubleshot: miss",
        "  phase 12: Mirage makes 2 attacks as one action (Doubleshot, L776): + 5 TN each",
    ]


def test_l779_dual_strike_strikes_with_each_melee_armament(tmp_path):
    # C13: Dual-Strike is for melee and thrown armaments. Dual_Strike 1: 4k2.5 each
    script = fight(SIDESWIPE, transformer("Dummy", **DUMMY), first="Sideswipe", second="Dummy")
    log = run_json(tmp_path, script, [9, 9, 9, 1] + ONES)["log"]
    assert log[3:6] == [
        "  phase 22: Sideswipe makes 2 attacks as one action (Dual-Strike, L779): + 5 TN each",
        "  phase 22: Sideswipe attacks Dummy with Sword: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5 + 5 Dual-Strike: miss",
        "  phase 22: Sideswipe attacks Dummy with Mace: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5 + 5 Dual-Strike: miss",
    ]


def test_volley_roll_weapon_rolls_the_armaments_concentration(tmp_path):
    # Bluestreak's Shooting 1 against his Autofire 1: the same pool; give him Shooting 3 to tell them apart:
    # Skill Dice 2.5 + 3 = 5.5k2.5, rolled 6k2.5
    script = fight(BLUESTREAK.replace("Shooting { level 1 }", "Shooting { level 3 }"), transformer("Dummy", **DUMMY),
                   first="Bluestreak", second="Dummy", settings=['volley_roll: "weapon"'])
    log = run_json(tmp_path, script, [9, 9, 9, 1] + ONES)["log"]
    assert log[4] == "  phase 22: Bluestreak attacks Dummy with Blaster: 6k2.5: 1 1 1/2 (1 1 1) = 2 vs PD 5 + 5 Autofire: miss"
    log = run_json(tmp_path, script.replace('    volley_roll: "weapon"\n', ""), [9, 9, 9, 1] + ONES)["log"]
    assert log[4] == "  phase 22: Bluestreak attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5 + 5 Autofire: miss"


def test_without_the_concentration_no_volley_by_default(tmp_path):
    # Two guns but no Doubleshot: one attack an action
    script = fight(MIRAGE.replace('concentration Doubleshot { level 2 }', 'concentration Shooting { level 2 }'),
                   transformer("Dummy", **DUMMY), first="Mirage", second="Dummy")
    log = run_json(tmp_path, script, [9, 9, 9, 1] + ONES)["log"]
    assert log[3] == "  phase 22: Mirage attacks Dummy with Left gun: 5k2.5: 1 1 1/2 (1 1) = 2 vs PD 5: miss"


# ---- the advanced unarmed moves (L719, L839, L860, L866) ----

def grimlock(move: str, level: int = 2) -> str:
    return transformer("Grimlock", conc(move, level), strength=6)


def test_l860_a_solid_hit_is_10_tn_and_0k1_damage(tmp_path):
    # Solid_Hit 2: Skill Dice 2.5 + 2 = 4.5k2.5, rolled 5k2.5; TN 5 + 10. Unarmed damage (A19): Strength Dice 3 k
    # floor_0.5(6 / 4) = 1.5, + 0k1: 3k2.5. 9 8 7/2 = 20 hits; AD 1 1 1/2 = 2 fails; 6 5 4/2 = 13
    script = fight(grimlock("Solid_Hit"), transformer("Dummy", **DUMMY), first="Grimlock", second="Dummy")
    log = run_json(tmp_path, script, [9, 9, 9, 1, 9, 8, 7, 1, 1, 1, 1, 1, 6, 5, 4, 9, 9, 9] + ONES)["log"]
    assert log[3:6] == [
        "  phase 22: Grimlock attacks Dummy with fists: 5k2.5: 9 8 7/2 (1 1) = 20 vs PD 5 + 10 (Solid Hit: +0k1, L860): hit",
        "    Dummy defends actively, borrowing 5 phases from next round: 3k2.5: 1 1 1/2 = 2 vs 20: fails",
        "    damage 3k2.5: 6 5 4/2 = 13",
    ]


def test_l839_a_quick_hit_costs_5_phases_and_5_on_the_roll(tmp_path):
    # Initiative 22: actions at 22, 17, 12, 7, 2 (L126 with 5 phases an action)
    script = fight(grimlock("Quick_Hit"), transformer("Dummy", **DUMMY), first="Grimlock", second="Dummy")
    log = run_json(tmp_path, script, [9, 9, 9, 1] + ONES)["log"]
    assert log[3:] == [
        f"  phase {phase}: Grimlock attacks Dummy with fists: 5k2.5-5: 1 1 1/2 (1 1) = -3 vs PD 5 (Quick Hit: -5, 5 phases, L839): miss"
        for phase in (22, 17, 12, 7, 2)]


def test_l719_an_aggressive_hit_leaves_the_attacker_without_defense_for_2x_phases(tmp_path):
    # Aggressive_Hit 3: +3k0 damage and no PD or AD for 6 phases: at phase 22 he misses (1s); Slag acts at 18,
    # within 22 - 6, and hits a PD of 0 (Slag's Brawling 1: 4k2.5, 9 8 7/2 = 20; one damage Boost, L57, as his
    # tactic counts PD 0: 15 >= 0 + 15); no Active Defense. At Slag's 8, Grimlock's own action at 12 opened him again.
    slag = transformer("Slag", conc("Brawling", 1), rank=1)
    script = fight(grimlock("Aggressive_Hit", 3).replace("rank 5", "rank 1"), slag, first="Grimlock", second="Slag")
    faces = [9, 9, 9, 9, 9, 1] + [1] * 6 + [9, 8, 7, 5] + [4, 3, 2] + [1, 1, 1] + [1, 1, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[3:8] == [
        "  phase 22: Grimlock attacks Slag with fists: 6k2.5: 1 1 1/2 (1 1 1) = 2 vs PD 5 (Aggressive Hit: +3k0, no defense for 6 phases, L719): miss",
        "  phase 18: Slag attacks Grimlock with fists: 4k2.5: 9 8 7/2 (5) = 20 vs no PD (Aggressive Hit, L719) + 5 (1 Boost): hit",
        "    damage 3k1: 4 (3 2) = 4",
        "    Grimlock Durability 3k2.5: 1 1 1/2 = 2 vs Minor 4: fails by 2, 1 Major (now 1)",
        "    Grimlock keeps its feet: 3k2.5: 1 1 1/2 = 2 vs 0 (L159)",
    ]


def test_l719_the_aggressive_hits_opening_ends_after_2x_phases(tmp_path):
    # Aggressive_Hit 1: 2 phases; Slag's 18 is past 22 - 2: PD 5 + the unskilled 5 (no Brawling)
    slag = transformer("Slag", rank=1)
    script = fight(grimlock("Aggressive_Hit", 1).replace("rank 5", "rank 1"), slag, first="Grimlock", second="Slag")
    log = run_json(tmp_path, script, [9, 9, 9, 9, 9, 1] + ONES)["log"]
    assert log[4] == "  phase 18: Slag attacks Grimlock with fists: 3k2.5: 1 1 1/2 = 2 vs PD 5 + 5 unskilled: miss"


def test_l866_a_stunning_hit_costs_initiative_instead_of_damage(tmp_path):
    # L866: the Stun Effect's TN is the damage a standard melee attack would deal (3k1.5: 6 5/2 = 8); L377: a
    # Durability Roll 3 2 1/2 = 5 fails by 3: Initiative 18 - floor(3 / 2) = 17 (Slag already spent 5 on his AD:
    # 13 - 1 = 12). No Minor Damage.
    slag = transformer("Slag", rank=1)
    script = fight(grimlock("Stunning_Hit"), slag, first="Grimlock", second="Slag")
    faces = [9, 9, 9, 9, 9, 1] + [6, 5, 4, 3, 2] + [1, 1, 1] + [6, 5, 4] + [3, 2, 1] + ONES
    ran = run_json(tmp_path, script, faces)
    assert ran["log"][3:8] == [
        "  phase 22: Grimlock attacks Slag with fists: 5k2.5: 6 5 4/2 (3 2) = 13 vs PD 5 (Stunning Hit, L866): hit",
        "    Slag defends actively: 3k2.5: 1 1 1/2 = 2 vs 13: fails",
        "    Stun Effect (L866): TN 3k1.5: 6 5/2 (4) = 8",
        "    Slag Durability 3k2.5: 3 2 1/2 = 5 vs 8: fails by 3, 1 Initiative lost (L377): 12 left",
        "  phase 12: Grimlock attacks Slag with fists: 5k2.5: 1 1 1/2 (1 1) = 2 vs PD 5 (Stunning Hit, L866): miss",
    ]
    assert ran["log"][8].startswith("  phase 12: Slag attacks Grimlock")


def test_an_unknown_unarmed_move_is_named(tmp_path):
    extra = 'fn transformers.unarmed_move(c, target) = "headbutt"\n'
    script = fight(grimlock("Solid_Hit"), transformer("Dummy", **DUMMY), first="Grimlock", second="Dummy", extra=extra)
    error = run_json(tmp_path, script, [9, 9, 9, 1] + ONES, code=1)
    assert 'Grimlock has no unarmed move "headbutt": aggressive_hit, quick_hit, solid_hit or stunning_hit (rule text 000 L718-866)' in error


# ---- called shots at Systems (L59, L322-324) ----

RATCHET = transformer("Ratchet", conc("Shooting", 2), "armament Laser { damage 3k2 }", rank=1)
MEGATRON = transformer("Megatron", 'armament "Fusion cannon" { damage 3k2 }', rank=10)


def called(system: str, extra: int) -> str:
    return ('fn transformers.called_shot_at(att, def, weapon) = match att.name {\n'
            f'    "Ratchet" => {{system: "{system}", extra: {extra}}}\n    else => none\n}}\n')


CALLED_FACES = [9, 9, 9, 5, 5, 1] + [9, 9, 8, 1, 1] + [9, 1, 1] + [8, 7, 6, 5, 2] + [2, 1, 1] + ONES


def test_l322_a_called_shot_disables_an_armament(tmp_path):
    # A called shot takes 2 Boosts (L59): TN 5 + 10. Shooting 2: 4.5k2.5, rolled 5k2.5: 9 9 8/2 = 22 hits; the AD
    # 9 1 1/2 = 10 fails; the damage 5k2, 8 7 = 15, above the System's minimum (M6 is lost: 0); a Durability Roll
    # against 15: 2 1 1/2 = 3 fails by 12, more than 10: disabled. Megatron takes no Minor Damage, and his Fusion
    # cannon is unusable: at phase 5 (10 less his AD's 5) he fights unarmed, +5 unskilled without Brawling.
    ran = run_json(tmp_path, fight(RATCHET, MEGATRON, first="Ratchet", second="Megatron", extra=called("armament", 0)),
                   CALLED_FACES)
    assert ran["log"][3:9] == [
        "  phase 22: Ratchet attacks Megatron with Laser: 5k2.5: 9 9 8/2 (1 1) = 22 vs PD 5 + 10 (2 Boosts), a called shot at its armament (L322): hit",
        "    Megatron defends actively: 3k2.5: 9 1 1/2 = 10 vs 22: fails",
        "    damage 5k2: 8 7 (6 5 2) = 15 at Megatron's armament",
        "    Megatron Durability 3k2.5: 2 1 1/2 = 3 vs 15: fails by 12, its armament is disabled (L322)",
        "  phase 12: Ratchet attacks Megatron with Laser: 5k2.5: 1 1 1/2 (1 1) = 2 vs PD 5 + 10 (2 Boosts), a called shot at its armament (L322): miss",
        "  phase 5: Megatron attacks Ratchet with fists: 3k2.5: 1 1 1/2 = 2 vs PD 5 + 5 unskilled: miss",
    ]
    assert ran["result"]["characters"]["Megatron"]["minor"] == 0


def test_l322_each_extra_boost_applies_the_effect_once_more(tmp_path):
    # E18 played: one extra Boost, 3 in all (TN 5 + 15), the damage must be above 5 (L322 "add 5 to the damage
    # required"); disabled twice: the energon System (PROPOSAL) loses 2 Energon Dice a time disabled, 4 of 5
    ran = run_json(tmp_path, fight(RATCHET, MEGATRON, first="Ratchet", second="Megatron", extra=called("energon", 1)),
                   CALLED_FACES)
    assert ran["log"][3:8] == [
        "  phase 22: Ratchet attacks Megatron with Laser: 5k2.5: 9 9 8/2 (1 1) = 22 vs PD 5 + 15 (3 Boosts), a called shot at its energon (L322): hit",
        "    Megatron defends actively: 3k2.5: 9 1 1/2 = 10 vs 22: fails",
        "    damage 5k2: 8 7 (6 5 2) = 15 at Megatron's energon",
        "    Megatron Durability 3k2.5: 2 1 1/2 = 3 vs 15: fails by 12, its energon is disabled, 2 times (L322)",
        "    Megatron loses 4 Energon Dice",
    ]
    assert ran["result"]["characters"]["Megatron"]["energon"] == 1   # Rank 10: 5 (L111); his AD paid in phases


def test_l322_damage_not_above_the_minimum_has_no_effect(tmp_path):
    # A house rule gives the sensors a minimum of 20 (M6): 15 is not above it
    extra = called("sensors", 0) + "fn transformers.system_min_damage(c, system) = 20\n"
    log = run_json(tmp_path, fight(RATCHET, MEGATRON, first="Ratchet", second="Megatron", extra=extra), CALLED_FACES)["log"]
    assert log[5:7] == ["    damage 5k2: 8 7 (6 5 2) = 15 at Megatron's sensors",
                        "    not above the 20 it needs: no effect (L322)"]


def test_l322_a_system_that_is_not_there_is_named(tmp_path):
    error = run_json(tmp_path, fight(RATCHET, MEGATRON, first="Ratchet", second="Megatron", extra=called("legs", 0)),
                     CALLED_FACES, code=1)
    assert "Ratchet's called shot aims at no System \"legs\" (rule text 000 L322; the table is lost, M6)" in error


# ---- Area-of-Effect attacks (L342-352) ----

BRAWN = transformer("Brawn", conc("Throwing", 1), rank=1)
STARSCREAM = transformer("Starscream", **DUMMY)
DRONES = transformer("Drones", **DUMMY, role='"brute"')


def brawn(armament: str) -> str:
    return BRAWN.replace(" }\n", f"  armament {armament} }}\n")


def test_l348_a_targeted_explosion_rolls_once_against_each_passive_defense(tmp_path):
    # 8 hexes apart: the default tactic `pick_area` throws the grenade (range 8), its blast of 3 kept dice far from
    # Brawn. Throwing 1: 4k2.5, 9 8 7/2 = 20, against each one's PD in the base hex; Drones's Active Defense (3k2.5 +
    # 5 members, L269) 9 8 4/2 + 5 = 24 avoids it; one damage roll, 2k2 + 2.5k0 = 4k2 (no damage Boosts, L57).
    script = fight(brawn('Grenade { damage 2k2  uses "throwing"  area "explosion" }'), STARSCREAM, DRONES,
                   first="Brawn", second="Starscream, Drones", settings=["distance: 8"])
    faces = [9, 9, 9, 1, 1] + [9, 8, 7, 2] + [1, 6, 5] + [9, 8, 4] + [7, 6, 5, 4] + [3, 3, 2] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[4:12] == [
        "  phase 22: Brawn fires Grenade at Starscream's hex (explosion, L348): 4k2.5: 9 8 7/2 (2) = 20",
        "    vs Starscream's PD 5: hit",
        "    Starscream defends actively, borrowing 5 phases from next round: 3k2.5: 6 5 1/2 = 11 vs 20: fails",
        "    vs Drones's PD 5: hit",
        "    Drones defends actively: 3k2.5+5: 9 8 4/2 = 24 vs 20: avoids it",
        "    damage 4k2: 7 6 (5 4) = 13",
        "    Starscream, in the base hex: 13",
        "    Starscream Durability 3k2.5: 3 3 2/2 = 7 vs Minor 13: fails by 6, 1 Major (now 1)",
    ]


def test_l342_an_explosion_loses_its_lowest_kept_die_each_hex_out(tmp_path):
    # E15 played: a 5k3 grenade (Firepower 1: no unkept dice added), the damage 12 9 7 (10 + 2 exploding): the base
    # hex 28, one hex out 21, two hexes out 12 (L344). Drones 1 hex and Starscream 2 hexes beyond the base hex (a
    # character's `hex` counts from its side's place),
    # Dummy in it; no one defends (no phases, and half an Energon Die).
    dummy = transformer("Dummy", **DUMMY)
    script = fight(brawn('Grenade { damage 5k3  uses "throwing"  area "explosion" }').replace("firepower 5", "firepower 1"),
                   dummy, STARSCREAM.replace("speed 1", "speed 1  hex 2"), DRONES.replace("speed 1", "speed 1  hex 1"),
                   first="Brawn", second="Dummy, Starscream, Drones", settings=["distance: 8"],
                   extra="fn transformers.wants_active_defense(def, att, total) = false\n")
    faces = [9, 9, 9, 1, 1, 1] + [9, 8, 7, 2] + [10, 9, 7, 4, 2, 2] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[4:8] == [
        "  phase 22: Brawn fires Grenade at Dummy's hex (explosion, L348): 4k2.5: 9 8 7/2 (2) = 20",
        "    vs Dummy's PD 5: hit",
        "    vs Starscream's PD 5: hit",
        "    vs Drones's PD 5: hit",
    ]
    assert log[8] == "    damage 5k3: 12 9 7 (4 2) = 28"
    assert [line for line in log if ", in the base hex: " in line or " out: " in line][:3] == [
        "    Dummy, in the base hex: 28", "    Starscream, 2 hexes out: 12", "    Drones, 1 hex out: 21"]
    # L352: a Brute Squad loses as many members as the kept dice where it stands (2), then checks
    assert "    Drones loses 2 members to the blast (L352): 3 of 5 standing" in log


def test_l350_an_untargeted_blast_is_avoided_only_by_active_defense_against_5_x_rating(tmp_path):
    # A Rating 3 bomb: 3k3 damage, no attack roll, no Passive Defense; Active Defense against 15
    script = fight(brawn('Bomb { damage 3k3  uses "throwing"  area "explosion"  rating 3 }'), STARSCREAM, DRONES,
                   first="Brawn", second="Starscream, Drones", settings=["distance: 8"])
    faces = [9, 9, 9, 1, 1] + [1, 1, 1] + [9, 8, 7] + [6, 2, 1] + [9, 5, 4] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[4:10] == [
        "  phase 22: Brawn sets off Bomb at Starscream's hex (untargeted explosion, Rating 3, L350)",
        "    Starscream defends actively, borrowing 5 phases from next round: 3k2.5: 1 1 1/2 = 2 vs 15 (5 x Rating 3, L350): fails",
        "    Drones defends actively: 3k2.5+5: 9 8 7/2 = 25 vs 15 (5 x Rating 3, L350): avoids it",
        "    damage 3k3: 6 2 1 = 9",
        "    Starscream, in the base hex: 9",
        "    Starscream Durability 3k2.5: 9 5 4/2 = 16 vs Minor 9: holds",
    ]


def test_the_default_tactic_throws_no_blast_that_would_catch_the_thrower(tmp_path):
    # At distance 0 the grenade's base hex is Brawn's own: he fights with fists (Brawling unskilled, +5)
    script = fight(brawn('Grenade { damage 2k2  uses "throwing"  area "explosion" }'), STARSCREAM,
                   first="Brawn", second="Starscream")
    log = run_json(tmp_path, script, [9, 9, 9, 1] + ONES)["log"]
    assert log[3] == "  phase 22: Brawn attacks Starscream with fists: 3k2.5: 1 1 1/2 = 2 vs PD 5 + 5 unskilled: miss"


def test_l346_a_stream_loses_a_die_every_three_hexes(tmp_path):
    # A stream from Brawn toward Starscream (8 hexes): the first three hexes full, the next three -1 die, the next
    # -2 (L346): at 8 hexes, 2 dice lost of 4k4 (Firepower 1): the two highest. Shooting unskilled: 2.5k2.5, +5 TN
    script = fight(brawn('Flamer { damage 4k4  area "stream" }').replace("firepower 5", "firepower 1"), STARSCREAM,
                   first="Brawn", second="Starscream", settings=["distance: 8"],
                   extra="fn transformers.wants_active_defense(def, att, total) = false\n")
    log = run_json(tmp_path, script, [9, 9, 9, 1] + [9, 9, 9] + [8, 6, 4, 2] + ONES)["log"]
    assert log[4:8] == [
        "  phase 22: Brawn fires Flamer at Starscream's hex (stream, L348): 3k2.5: 9 9 9/2 = 22",
        "    vs Starscream's PD 5 + 5 unskilled: hit",
        "    damage 4k4: 8 6 4 2 = 20",
        "    Starscream, 2 dice less: 14",
    ]


# ---- Continuous, Persistent and Homing effects (L355-365) ----

IRONHIDE = transformer("Ironhide", conc("Shooting", 1), "armament ARMAMENT", rank=1)


def ironhide(armament: str, *foes: str, until: str = "round > 1") -> str:
    names = ", ".join(foe.split()[1] for foe in foes)
    return fight(IRONHIDE.replace("ARMAMENT", armament), *foes, first="Ironhide", second=names,
                 settings=["distance: 4"], until=until)


def test_l355_a_continuous_effect_deals_its_damage_again_at_the_end_of_the_round_at_1k1_less(tmp_path):
    # Napalm 3k2 + Firepower Dice 2.5: 5.5k2; at the end of round 1 again, -1k1 (E16: from the pool before the
    # ten-dice rule): 4.5k1, rolled 4k1; at the end of round 2, 3.5k0: no kept dice, it is over
    script = ironhide("Napalm { damage 3k2  continuous true }", transformer("Dummy", **DUMMY), until="round > 2")
    faces = [9, 9, 9, 1] + [9, 9, 8, 1] + [1, 1, 1] + [9, 8, 1, 1, 1] + [9, 9, 9] + [1] * 8 + [7, 5, 1, 1] + [1, 1, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[4:] == [
        "  phase 22: Ironhide attacks Dummy with Napalm: 4k2.5: 9 9 8/2 (1) = 22 vs PD 5: hit",
        "    Dummy defends actively, borrowing 5 phases from next round: 3k2.5: 1 1 1/2 = 2 vs 22: fails",
        "    damage 5k2: 9 8 (1 1 1) = 17",
        "    Dummy Durability 3k2.5: 9 9 9/2 = 22 vs Minor 17: holds",
        "  phase 12: Ironhide attacks Dummy with Napalm: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
        "  phase 2: Ironhide attacks Dummy with Napalm: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
        "  Dummy burns on (Napalm, Continuous, L355): 4k1: 7 (5 1 1) = 7",
        "    Dummy Durability 3k2.5: 1 1 1/2 = 2 vs Minor 24: fails by 22, 2 Major (now 2)",
        "Round 2",
        "  initiative: Ironhide 3k2.5: 1 1 1/2 = 2; Dummy 1k0.5: 1/2 = 0 - 5 borrowed",
        "  phase 2: Ironhide attacks Dummy with Napalm: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
    ]


def test_l360_a_persistent_effect_loses_its_outermost_ring_and_strikes_again(tmp_path):
    # E17 played: 3 kept dice (3k3 + 2.5k0: 5k3), 7 6 5; at the end of the round the lowest goes, and those still
    # in it (PROPOSAL) take 7 + 6 = 13
    script = ironhide('"Acid bomb" { damage 3k3  area "explosion"  persistent true }', transformer("Dummy", **DUMMY))
    faces = [9, 9, 9, 1] + [9, 9, 8, 1] + [1, 1, 1] + [7, 6, 5, 1, 1] + [9, 9, 9] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[7:10] == ["    damage 5k3: 7 6 5 (1 1) = 18", "    Dummy, in the base hex: 18",
                         "    Dummy Durability 3k2.5: 9 9 9/2 = 22 vs Minor 18: holds"]
    assert log[14:18] == ["  Acid bomb lingers (Persistent, L360): [7, 6]", "    Dummy, in the base hex: 13",
                          "    Dummy Durability 3k2.5: 1 1 1/2 = 2 vs Minor 31: fails by 29, 2 Major (now 2)",
                          "    Dummy is blown back 1 hex (L159)"]


def test_l363_a_homing_attack_comes_again_10_phases_after_an_active_defense(tmp_path):
    # Homing 1: Dummy's AD 9 9 9/2 = 22 avoids the 20; 10 phases later, at 12, it homes in: no AD left (its 5
    # phases are borrowed already), so it hits
    script = ironhide("Seeker { damage 3k2  homing 1 }", transformer("Dummy", **DUMMY))
    faces = [9, 9, 9, 1] + [9, 8, 7, 1] + [9, 9, 9] + [9, 1, 1, 1, 1] + [9, 9, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[4:11] == [
        "  phase 22: Ironhide attacks Dummy with Seeker: 4k2.5: 9 8 7/2 (1) = 20 vs PD 5: hit",
        "    Dummy defends actively, borrowing 5 phases from next round: 3k2.5: 9 9 9/2 = 22 vs 20: avoids it",
        "    Seeker turns to home in again (Homing 1, L363)",
        "  phase 12: Seeker homes in on Dummy again (Homing, L363)",
        "    damage 5k2: 9 1 (1 1 1) = 10",
        "    Dummy Durability 3k2.5: 9 9 1/2 = 18 vs Minor 10: holds",
        "  phase 12: Ironhide attacks Dummy with Seeker: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
    ]


# ---- wrestling and throws (L327-339) ----

BONECRUSHER = transformer("Bonecrusher", conc("Grapple", 2), strength=6, rank=1)
SLAG = transformer("Slag", rank=1)


def test_l327_a_grapple_takes_a_hold_and_l335_a_throw_deals_impact_damage(tmp_path):
    # The default tactic `grapples`: Grapple 2 above Brawling 0. Skill Dice 2.5 + 2: 5k2.5, 9 8 7/2 = 20 hits; AD
    # fails; the hold deals no damage (L329). At phase 12 the default `wrestles` throws Slag (Size 5, within
    # Strength 6, L335, L77): unkept dice Strength 6 (A14), kept max(Slag's Base Impact Damage 5/2 + 1 = 3.5, his
    # own unarmed 1.5) (L392): 6k3.5, 9 9 6 1/2 = 24. The throw lets go: Slag acts freely at 5.
    script = fight(BONECRUSHER, SLAG, first="Bonecrusher", second="Slag")
    faces = [9, 9, 9, 5, 5, 1] + [9, 8, 7, 1, 1] + [1, 1, 1] + [9, 9, 6, 1, 1, 1] + [5, 4, 3] + [5, 2, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[3:10] == [
        "  phase 22: Bonecrusher attacks Slag with fists: 5k2.5: 9 8 7/2 (1 1) = 20 vs PD 5 (a Grapple, L327): hit",
        "    Slag defends actively: 3k2.5: 1 1 1/2 = 2 vs 20: fails",
        "    Bonecrusher has Slag in a hold (L327)",
        "  phase 12: Bonecrusher throws Slag (L335): Impact Damage 6k3.5: 9 9 6 1/2 (1 1) = 24",
        "    Slag Durability 3k2.5: 5 4 3/2 = 10 vs Minor 24: fails by 14, 1.5 Major (now 1.5)",
        "    Slag keeps its feet: 3k2.5: 5 2 1/2 = 7 vs 0 (L159)",
        "  phase 5: Slag attacks Bonecrusher with fists: 3k2.5: 1 1 1/2 = 2 vs PD 5 + 5 unskilled: miss",
    ]


def test_l329_breaking_a_hold_is_a_contested_strength_roll_at_a_boost_per_improvement(tmp_path):
    # A tactic that tightens the hold once: phase 22 the Grapple, 13 (after his AD) Slag struggles: Strength + Grapple
    # (none: no penalty in an Opposed Roll, L46) 3k2.5 against 2.5 x 6 = 15 and Bonecrusher's 5k3 against 12 (L46):
    # both made, the higher wins. Phase 12 the Grapple again, 2 an improvement: Slag's next struggle is at + 5.
    extra = 'fn transformers.wrestles(c, victim) = match victim.grip { 0 => "improve"; else => "squeeze" }\n'
    script = fight(BONECRUSHER, SLAG, first="Bonecrusher", second="Slag", extra=extra, until="round > 2")
    faces = ([9, 9, 9, 9, 9, 1] + [9, 8, 7, 1, 1] + [1, 1, 1] + [9, 9, 9] + [5, 5, 5, 5, 5] + [5, 5, 5, 1, 1]
             + [1, 1, 1] + [9, 9, 9] + [5, 5, 1] + [9, 9, 9] + [9, 8, 7, 1, 1] + ONES)
    log = run_json(tmp_path, script, faces)["log"]
    assert log[3:11] == [
        "  phase 22: Bonecrusher attacks Slag with fists: 5k2.5: 9 8 7/2 (1 1) = 20 vs PD 5 (a Grapple, L327): hit",
        "    Slag defends actively: 3k2.5: 1 1 1/2 = 2 vs 20: fails",
        "    Bonecrusher has Slag in a hold (L327)",
        "  phase 13: Slag struggles against Bonecrusher's hold (L329): Strength + Grapple 3k2.5: 9 9 9/2 = 22 vs 15; "
        "Bonecrusher 5k3: 5 5 5 (5 5) = 15 vs 12: it breaks free",
        "  phase 12: Bonecrusher attacks Slag with fists: 5k2.5: 5 5 5/2 (1 1) = 12 vs PD 5 (a Grapple, L327): hit",
        "    Slag defends actively, borrowing 2 phases from next round: 3k2.5: 1 1 1/2 = 2 vs 12: fails",
        "    Bonecrusher has Slag in a hold (L327)",
        "  phase 2: Bonecrusher tightens its hold on Slag (L329): 1 Boost on its actions",
    ]
    # Round 2: the hold improved once, he squeezes (L333: an unarmed attack with Grapple, 3k1.5 damage), and Slag
    # may try to escape at once, at + 5
    assert log[13:18] == [
        "  phase 22: Bonecrusher attacks Slag with fists: 5k2.5: 9 9 9/2 (9 8) = 22 vs PD 5: hit",
        "    Slag defends actively: 3k2.5: 7 1 1/2 = 8 vs 22: fails",
        "    damage 3k1.5: 1 1/2 (1) = 1",
        "    Slag Durability 3k2.5: 1 1 1/2 = 2 vs Minor 1: holds",
        "  phase 22: Slag struggles against Bonecrusher's hold (L329): Strength + Grapple 3k2.5: 1 1 1/2 = 2 vs 15 + 5 "
        "(1 Boost); Bonecrusher 5k3: 1 1 1 (1 1) = 3 vs 12: the hold holds",
    ]


def test_l758_crushing_move_damages_the_one_held_at_each_struggle_and_round_end(tmp_path):
    # L758 "You may deal damage to an opponent whenever they attempt to break a grapple you have on them or a round ends
    # when they are in your grasp. The damage is xk1, where x is your Level": free damage, so by default always
    # (`crushes`). Crushing Move 2: 2k1. Slag's struggle at phase 5 fails (2 against 15 + 5); after it, 6 3: 6, which
    # his Durability 10 holds; at the round's end 1 1: 1, Minor 7, failed by 5: 1 Major (L154)
    crusher = transformer("Bonecrusher", conc("Grapple", 2), conc("Crushing_Move", 2), strength=6, rank=1)
    extra = 'fn transformers.wrestles(c, victim) = "improve"\n'
    script = fight(crusher, SLAG, first="Bonecrusher", second="Slag", extra=extra)
    faces = ([9, 9, 9, 5, 5, 1] + [9, 8, 7, 1, 1] + [1, 1, 1] + [1, 1, 1] + [5, 5, 5, 5, 5] + [6, 3] + [4, 4, 4]
             + [1] * 8 + ONES)
    log = run_json(tmp_path, script, faces)["log"]
    assert log[7:14] == [
        "  phase 5: Slag struggles against Bonecrusher's hold (L329): Strength + Grapple 3k2.5: 1 1 1/2 = 2 vs 15 + 5 "
        "(1 Boost); Bonecrusher 5k3: 5 5 5 (5 5) = 15 vs 12: the hold holds",
        "    Bonecrusher crushes Slag (Crushing Move, L758): 2k1: 6 (3) = 6",
        "    Slag Durability 3k2.5: 4 4 4/2 = 10 vs Minor 6: holds",
        "  phase 2: Bonecrusher tightens its hold on Slag (L329): 2 Boosts on its actions",
        "  Bonecrusher crushes Slag (Crushing Move, L758): 2k1: 1 (1) = 1",
        "    Slag Durability 3k2.5: 1 1 1/2 = 2 vs Minor 7: fails by 5, 1 Major (now 1)",
        "    Slag keeps its feet: 3k2.5: 1 1 1/2 = 2 vs 0 (L159)",
    ]
    # `crushes` false: no damage
    log = run_json(tmp_path, script.replace(extra, extra + "fn transformers.crushes(c, victim) = false\n"), faces)["log"]
    assert not any("Crushing Move" in line for line in log)


def test_a_throw_needs_a_character_it_can_lift(tmp_path):
    extra = 'fn transformers.wrestles(c, victim) = "throw"\n'
    script = fight(BONECRUSHER.replace("strength 6", "strength 4"), SLAG, first="Bonecrusher", second="Slag", extra=extra)
    error = run_json(tmp_path, script, [9, 9, 9, 5, 5, 1] + [9, 8, 7, 1, 1] + [1, 1, 1] + ONES, code=1)
    assert "Bonecrusher cannot lift Slag (Size 5, a lift of 4) to throw it (rule text 000 L335, L77)" in error


# ---- Intimidate, Taunt, Tactics Rolls, the emergency tap (L118, L289-306) ----

def social(how: str, boosts: int) -> str:
    return ('fn transformers.other_action(c, enc) = match c.name {\n'
            f'    "Jazz" => {{how: "{how}", target: Megatron, boosts: {boosts}}}\n    else => none\n}}\n')


JAZZ = transformer("Jazz", rank=1)
MEGATRON_ARMED = transformer("Megatron", conc("Shooting", 1), "armament Cannon { damage 3k2 }", rank=1)
SOCIAL_FACES = [9, 9, 9, 5, 5, 5] + [9, 8, 7, 1, 1, 1] + [1, 1, 1, 1] + ONES


def test_l290_each_successful_intimidate_roll_is_1k0_off_the_targets_actions_against_the_intimidator(tmp_path):
    # Courage against Courage, each against 2.5 x the other's, 12 (L46; Size modifiers 0, M1): 20 made, 2 not; at
    # Megatron's phase 12 his attack on Jazz is 3.5k2.5 - 1k0 = 2.5k2.5, rolled 3k2.5
    log = run_json(tmp_path, fight(JAZZ, MEGATRON_ARMED, first="Jazz", second="Megatron", extra=social("intimidate", 0)),
                   SOCIAL_FACES)["log"]
    assert log[3:5] == [
        "  phase 22: Jazz intimidates Megatron (L290): Courage 3k2.5: 9 8 7/2 = 20 vs 12; Megatron 3k2.5: 1 1 1/2 = 2 vs 12: "
        "cowed: -1k0 on its actions against Jazz",
        "  phase 12: Jazz intimidates Megatron (L290): Courage 3k2.5: 1 1 1/2 = 2 vs 12; Megatron 3k2.5: 1 1 1/2 = 2 vs 12: unmoved",
    ]
    assert log[5] == "  phase 12: Megatron attacks Jazz with Cannon: 3k2.5: 1 1 1/2 = 2 (cowed by Jazz: -1k0, L290, L293) vs PD 5: miss"


def test_l293_a_taunt_with_one_boost_is_minus_10_on_the_targets_actions_against_the_taunter(tmp_path):
    # E24 played (C5, the option taunt "example"): Intelligence against Intelligence at a Boost, 20 against 12 + 5
    log = run_json(tmp_path, fight(JAZZ, MEGATRON_ARMED, first="Jazz", second="Megatron", extra=social("taunt", 1)),
                   SOCIAL_FACES)["log"]
    assert log[3] == ("  phase 22: Jazz taunts Megatron (L293): Intelligence 3k2.5: 9 8 7/2 = 20 vs 12 + 5 (1 Boost); "
                      "Megatron 3k2.5: 1 1 1/2 = 2 vs 12: provoked: -10 on its actions against Jazz")
    assert log[5] == ("  phase 12: Megatron attacks Jazz with Cannon: 4k2.5-10: 1 1 1/2 (1) = -8 (cowed by Jazz: -10, L290, L293) "
                      "vs PD 5: miss")


def test_a_taunt_without_a_boost_is_refused(tmp_path):
    error = run_json(tmp_path, fight(JAZZ, MEGATRON_ARMED, first="Jazz", second="Megatron", extra=social("taunt", 0)),
                     SOCIAL_FACES, code=1)
    assert "a Taunt Roll must be made with a Boost (rule text 000 L293)" in error


OPTIMUS = transformer("Optimus", conc("Tactics", 2), conc("Shooting", 1), "armament Rifle { damage 3k2 }", rank=8)
JAZZ_ARMED = transformer("Jazz", conc("Shooting", 1), "armament Rifle { damage 3k2 }", rank=1)


def test_l306_the_leader_with_tactics_wins_tactics_dice_for_its_side(tmp_path):
    # The default `other_action`: Optimus leads (Rank 8, L283) and has Tactics: his first action is the Tactics Roll
    # against Megatron, the other side's leader: Intelligence + Tactics 5k2.5, 20 against 12; Megatron's 3k2.5, 18
    # against 12: both made, the higher wins (L46). 1 Tactics Die for the side, at most 2 a roll; Jazz spends it on
    # his attack (the default `tactics_before`: one a roll): 3.5k2.5 + 1k0; it is gone at his next. Once a Scene.
    script = fight(OPTIMUS, JAZZ_ARMED, transformer("Megatron", conc("Shooting", 1), "armament Cannon { damage 3k2 }", **DUMMY),
                   first="Optimus, Jazz", second="Megatron")
    faces = [9, 9, 9, 8, 8, 8, 1] + [9, 8, 7, 1, 1] + [9, 9, 1] + [9, 1, 1, 1, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[3:5] == [
        "  phase 22: Optimus makes a Tactics Roll against Megatron (L306): Intelligence + Tactics 5k2.5: 9 8 7/2 (1 1) = 20 vs 12; "
        "Megatron 3k2.5: 9 9 1/2 = 18 vs 12: 1 Tactics Die for its side, 2 a roll at most",
        "  phase 20: Jazz attacks Megatron with Rifle: 5k2.5: 9 1 1/2 (1 1) = 10 (with 1 Tactics Die, L306) vs PD 5: hit",
    ]
    assert log[8:11] == ["  phase 12: Optimus attacks Megatron with Rifle: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
                         "  phase 10: Jazz attacks Megatron with Rifle: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
                         "  phase 2: Optimus attacks Megatron with Rifle: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss"]


def test_l118_the_emergency_tap_gives_an_overpower_die_for_1_major_damage(tmp_path):
    # A tactic that taps before each action: Courage 3k2.5 against 5 x 1 Major: 9 8 7/2 = 20 made: an Overpower Die
    # (counted with the Energon Dice, L116) and 1 Major (now 2); the next tap, against 10, fails: nothing
    extra = 'fn transformers.taps(c, enc) = c.name == "Megatron"\n'
    script = fight(JAZZ, MEGATRON_ARMED.replace("rank 1", "rank 1  major 1"), first="Jazz", second="Megatron", extra=extra)
    faces = [1, 1, 1, 9, 9, 9] + [9, 8, 7] + [1, 1, 1, 1] + [1, 1, 1] + [1, 1, 1, 1] + ONES
    ran = run_json(tmp_path, script, faces)
    assert ran["log"][3] == ("  phase 22: Megatron taps its emergency Energon (L118): Courage 3k2.5: 9 8 7/2 = 20 vs 5: "
                             "an Overpower Die and 1 Major (now 2)")
    assert ran["log"][5] == "  phase 12: Megatron taps its emergency Energon (L118): Courage 3k2.5: 1 1 1/2 = 2 vs 10: nothing"
    # Rank 1: half an Energon Die (L111), + 1; the default `energon_before` spends one on his attack at 2 Major
    assert ran["result"]["characters"]["Megatron"]["energon"] == 1 / 2
    assert ran["result"]["characters"]["Megatron"]["major"] == 2


# ---- Mega-Size in a fight (L1772-1832, E39-E46) ----

OMEGA = transformer("Omega", conc("Shooting", 1), "armament Cannon { damage 3k2 }", strength=10, intelligence=6,
                    endurance=8, rank=6, courage=8, firepower=6, mega=2)
TARGET = transformer("Target", conc("Shooting", 1), "armament Blaster { damage 3k2 }", rank=1)
MEGA_FORMULAS = ('let vehicle = "vehicle"\nlet speed = "speed"\nlet skill = "skill"\n'
                 'say "E41: {courage_limit(Omega)}"\nsay "E44: {movement(Omega, vehicle, 0)}"\n'
                 'say "E45: {size_of(Omega)}"\nsay "E46: {lift(Omega)}"\n'
                 'say "L1774: {tech_spec(Omega, speed)} {tech_spec(Omega, skill)}"\n'
                 'say "L1776: {initiative_pool(Omega).notation} {attack_pool(Omega, Omega.armament[0]).notation}"\n'
                 'say "L1778: {passive_defense(Omega)}"\nsay "L1780: {active_defense_pool(Omega).notation}"\n'
                 'say "L1786: {damage_pool(Omega, none, 0).notation}"\nsay "L1794: {durability_pool(Omega).notation}"\n'
                 'say "L1804: {Omega.energon}"\n')


def test_mega_size_numbers_on_a_character(tmp_path):
    # Mega-Size 2, Strength 10 (Size 10: L1832), Courage 8
    said = dict(line.split(": ", 1) for line in run_json(tmp_path, "use transformers\n" + OMEGA + TARGET + MEGA_FORMULAS, [])["log"])
    assert said["E41"] == "24"            # L1808: (2 + 1) x 8 Major before Knocked Out
    assert said["E44"] == "9"             # L1816: Vehicle-Mode x3, x (2 + 1)
    assert said["E45"] == "125"           # L1818: 5^3
    assert said["E46"] == "125"           # L1820: 5^3 / 10 x Strength 10
    assert said["L1774"] == "3 3"         # Speed and Skill -2
    # L1776: Tech Spec Dice + 2: Speed 3: 1.5 + 2; Skill 3: 3.5 + Shooting 1
    assert said["L1776"] == "3.5k3.5 4.5k3.5"
    assert said["L1778"] == "-9"          # Intelligence 6 - 5 - 5 x 2
    assert said["L1780"] == "5k5+15"      # Intelligence Dice 3 + 2, + 5 + 5 x 2
    assert said["L1786"] == "7k3.5"       # Strength Dice 5 + 2 k 2.5 + 0.5 x 2
    assert said["L1794"] == "8k6+10"      # Endurance Dice 4 + 2, + 10 and + 2k0
    assert said["L1804"] == "5"           # Rank 6: 3, + 2


def test_l1782_l1800_a_mega_size_shot_and_its_effect_augmentation(tmp_path):
    # L1782: ranged, -5 and -1k0 a Mega-Size: 4.5k3.5 - 2k0 - 5 = 2.5k3.5 - 5, rolled 3k3-5 (A4: it keeps all it
    # rolls). L1800: Effect Augmentation 5 x 2 on its damage (L389): 17 + 10. Initiative 3.5k3.5: 9 9 9 9/2 = 31.
    script = fight(OMEGA, TARGET, first="Omega", second="Target",
                   extra="fn transformers.wants_active_defense(def, att, total) = false\n")
    faces = [9, 9, 9, 9, 9, 9, 5] + [1, 1, 1] + [9, 8, 7] + [9, 8, 1, 1, 1, 1, 1, 1, 1] + [5, 5, 5] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[3:8] == [
        "  phase 31: Omega attacks Target with Cannon: 3k3-5: 1 1 1 = -2 vs PD 5 + 5 (1 Boost): miss",
        "  phase 21: Omega attacks Target with Cannon: 3k3-5: 9 8 7 = 19 vs PD 5 + 5 (1 Boost): hit",
        "    damage 9k2: 9 8 (1 1 1 1 1 1 1) = 17",
        "    Effect Augmentation and Reduction +10 (L389): 27",
        "    Target Durability 3k2.5: 5 5 5/2 = 12 vs Minor 27: fails by 15, 1.5 Major (now 1.5)",
    ]


def test_e40_a_mega_size_2_takes_10_less_from_an_armament(tmp_path):
    # L1802: Effect Reduction 10; Target's 6k2 (3k2 + 2.5k0 + a Boost: PD -9, L1778) 9 8 = 17 - 10 = 7; Omega's
    # Durability 8k6+10 holds
    script = fight(OMEGA, TARGET, first="Omega", second="Target",
                   extra="fn transformers.wants_active_defense(def, att, total) = false\n")
    faces = [9, 9, 9, 9, 9, 9, 5] + [1, 1, 1] + [1, 1, 1] + [9, 8, 7, 1] + [9, 8, 1, 1, 1, 1] + [1] * 8 + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[5:9] == [
        "  phase 20: Target attacks Omega with Blaster: 4k2.5: 9 8 7/2 (1) = 20 vs PD -9 + 5 (1 Boost): hit",
        "    damage 6k2: 9 8 (1 1 1 1) = 17",
        "    Effect Augmentation and Reduction -10 (L389): 7",
        "    Omega Durability 8k6+10: 1 1 1 1 1 1 (1 1) = 16 vs Minor 7: holds",
    ]


def test_l1832_only_size_10_may_be_mega_size(tmp_path):
    script = fight(OMEGA.replace("strength 10", "strength 9"), TARGET, first="Omega", second="Target")
    error = run_json(tmp_path, script, ONES, code=1)
    assert "Omega is Mega-Size 2 but Size 9: only Size 10 or 10+ may take Mega-Size (rule text 000 L1832)" in error


def test_l1806_a_mega_size_transformation_takes_ms_actions_and_energon_dice(tmp_path):
    # A tactic that transforms at once: TN 0 (no Major); made, 2 Energon Dice spent (5 - 2 = 3) and 2 actions
    extra = 'fn transformers.transforms(c, enc) = match c.name == "Omega" and c.form == "robot" { true => "Jet"; else => none }\n'
    omega = OMEGA.replace(" }\n", '  transformation Jet { type "vehicle" } }\n')
    ran = run_json(tmp_path, fight(omega, TARGET, first="Omega", second="Target", extra=extra),
                   [9, 9, 9, 9, 1, 1, 1] + [5, 5, 5, 5, 5, 5] + ONES)
    assert ran["log"][3:5] == ["  phase 31: Omega transforms into Jet (L178): Courage 6k6: 5 5 5 5 5 5 = 30 vs 0: made",
                               "  phase 21: Omega spends the action transforming: it is in Jet"]
    assert ran["result"]["characters"]["Omega"]["energon"] == 3


# ---- the character sheet (issue 18, item 3) ----

def sheet_fight(att_entries: str, def_entries: str = "", extra: str = "", faces=None, code: int = 0, **values):
    att = transformer("Hound", conc("Shooting", 1), "armament Blaster { damage 3k2 }", att_entries, rank=1, **values)
    target = transformer("Target", def_entries, rank=1)
    return fight(att, target, first="Hound", second="Target", extra=extra)


def test_l1469_l1342_a_targeting_computer_and_automated_response_systems_add_dice(tmp_path):
    # Targeting Computer: +0k1 on a non-thrown ranged attack, 3.5k2.5 + 0k1 = 3.5k3.5 rolled 4k3.5; Automated
    # Response Systems 6 points: +2k0 Initiative, 4.5k2.5 rolled 5k2.5
    script = sheet_fight('equipment "Targeting Computer" { points 5 }  equipment Automated_Response_Systems { points 6 }')
    log = run_json(tmp_path, script, [9, 9, 9, 1, 1, 1, 1, 1, 1] + ONES)["log"]
    assert log[2] == "  initiative: Hound 5k2.5: 9 9 9/2 (1 1) = 22; Target 3k2.5: 1 1 1/2 = 2"
    assert log[3] == "  phase 22: Hound attacks Target with Blaster: 4k3.5: 1 1 1 1/2 = 3 vs PD 5: miss"


def test_l1188_l1463_l1363_evasive_structural_reinforcement_and_defensive_gear_on_the_defender(tmp_path):
    # Evasive: Active Defense 2.5k2.5 + 0k1, rolled 3k3; Structural Reinforcement 3: Durability +1k0 (4k2.5);
    # Defensive Gear 6: Effect Reduction 6 (L389) on the 4k2 damage 9 8 = 17
    script = sheet_fight("", "advantage Evasive { points 5 }  equipment Structural_Reinforcement { points 3 }  "
                             "equipment \"Defensive Gear\" { points 6 }")
    faces = [9, 9, 9, 1, 1, 1] + [9, 9, 8, 1] + [1, 1, 1] + [9, 8, 1, 1, 1] + [5, 4, 3, 2] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[3:8] == [
        "  phase 22: Hound attacks Target with Blaster: 4k2.5: 9 9 8/2 (1) = 22 vs PD 5: hit",
        "    Target defends actively, borrowing 3 phases from next round: 3k3: 1 1 1 = 3 vs 22: fails",
        "    damage 5k2: 9 8 (1 1 1) = 17",
        "    Effect Augmentation and Reduction -6 (L389): 11",
        "    Target Durability 4k2.5: 5 4 3/2 (2) = 10 vs Minor 11: fails by 1, 1 Major (now 1)",
    ]


def test_l1334_an_ablative_coat_ignores_a_major_damage(tmp_path):
    script = sheet_fight("", 'equipment "Ablative Coat" { points 3 }')
    faces = [9, 9, 9, 1, 1, 1] + [9, 9, 8, 1] + [1, 1, 1] + [9, 8, 1, 1, 1] + [1, 1, 1] + ONES
    ran = run_json(tmp_path, script, faces)
    assert ran["log"][6] == ("    Target Durability 3k2.5: 1 1 1/2 = 2 vs Minor 17: fails by 15, 1 ignored (Ablative Coat, L1334), "
                             "0.5 Major (now 0.5)")


def test_l906_cool_has_no_fatigue_nor_over_courage_penalty(tmp_path):
    # 4 Major, Courage 5: Fatigued above 2.5 (L161) and -0k0 penalty below Courage; at 7 Major, -2k0 (L164) but Cool
    # has none: the Initiative pool stays 2.5k2.5; nor does it lose its exploding 10s (a 10 explodes: 10 + 3)
    script = sheet_fight("personality Cool { points 4 }", major=7)
    ran = run_json(tmp_path, script, [10, 9, 9, 3, 1, 1, 1] + ONES)
    assert ran["log"][2] == "  initiative: Hound 3k2.5: 13 9 9/2 = 26; Target 3k2.5: 1 1 1/2 = 2"


def test_l919_fanatical_recovers_at_the_end_of_the_round_and_halves_the_penalty(tmp_path):
    # 7 Major above Courage 5: -2k0, halved: -1k0 (PROPOSAL: rounded down): 1.5k2.5 rolled 2k2; Knocked Out (Major
    # above Courage, L161) at the start, up again at the end of round 1
    script = sheet_fight("personality Fanatical { points 5 }", major=7, status='"knocked out"')
    script = script.replace("until round > 1", "until round > 2")
    ran = run_json(tmp_path, script, [1, 1, 1] + [9, 9] + [1, 1, 1] + ONES)
    assert ran["log"][2:6] == ["  initiative: Target 3k2.5: 1 1 1/2 = 2",
                               "  phase 2: Target has no one left to attack and waits out the round",
                               "  Hound is Fanatical: it recovers from being Knocked Out (L919)",
                               "Round 2"]
    assert ran["log"][6] == "  initiative: Hound 2k2: 9 9 = 18; Target 3k2.5: 1 1 1/2 = 2"


def test_l1448_reserve_power_recovers_without_an_energon_die(tmp_path):
    script = sheet_fight('equipment "Reserve Power" { points 2 }', major=6, status='"knocked out"')
    ran = run_json(tmp_path, script, ONES)
    assert ran["log"][2] == "  Hound recovers from being Knocked Out on its Reserve Power (L1448; the whole round)"
    assert ran["result"]["characters"]["Hound"]["energon"] == 1 / 2


def test_l980_l926_victorious_and_fortunate_when_activated_for_half_an_energon_die(tmp_path):
    # A tactic activating both: the failed 1 1 1/2 is rolled again (9 9 8/2 = 22, a hit), and the hit deals 1 Major
    # Damage without a damage roll
    extra = "fn transformers.activates(c, trait, roll) = true\n"
    script = sheet_fight("personality Victorious { points 4 }  advantage Fortunate { points 3 }", extra=extra)
    script = script.replace("rank 1", "rank 5", 1)
    ran = run_json(tmp_path, script, [9, 9, 9, 1, 1, 1] + [1, 1, 1, 1] + [9, 9, 8, 1] + [1, 1, 1] + ONES)
    assert ran["log"][3:7] == [
        "  phase 22: Hound attacks Target with Blaster: 4k2.5: 9 9 8/2 (1) = 22 (failed: 4k2.5: 1 1 1/2 (1) = 2; "
        "Fortunate, re-rolled, L926) vs PD 5: hit",
        "    Target defends actively, borrowing 3 phases from next round: 3k2.5: 1 1 1/2 = 2 vs 22: fails",
        "    Hound is Victorious (L980): 1 Major Damage",
        "    Target takes 1 Major (now 1)",
    ]
    # Rank 5's 2.5 Energon Dice: four halves spent (the re-rolls at phases 12 and 2 too)
    assert ran["result"]["characters"]["Hound"]["energon"] == 1 / 2


def test_l1328_points_beyond_the_equipment_limit_cost_base_defense_and_active_defense(tmp_path):
    # Strength 5: 10 points of Equipment without penalty; 13: -3 Base Defense (PD 5 - 3 = 2) and -3 Active Defense
    script = sheet_fight("", 'equipment "Null Signature System" { points 6 }  equipment "Point Defense System" { points 2 }  '
                             'equipment Torch { points 5 }')
    log = run_json(tmp_path, script, [9, 9, 9, 1, 1, 1] + [9, 9, 8, 1] + [1, 1, 1] + ONES)["log"]
    assert log[3:5] == ["  phase 22: Hound attacks Target with Blaster: 4k2.5: 9 9 8/2 (1) = 22 vs PD 2: hit",
                        "    Target defends actively, borrowing 3 phases from next round: 3k2.5-3: 1 1 1/2 = -1 vs 22: fails"]


@pytest.mark.parametrize("entries, role, message", [
    ("advantage Evasive { points 3 }", "standard", "Target's Evasive costs [5] Character Points, not 3 (rule text 000 L1188)"),
    ("personality Cool { points 4 }  personality Fanatical { points 5 }", "standard",
     "Target has 2 positive and 0 negative Personalities: one of each at most (rule text 000 L878)"),
    ("personality Cool { points 4 }", '"brute"', "Target is a Brute Squad, and Brutes may not have Personalities (rule text 000 L267)"),
    ("equipment Armor { points 6 }", '"brute"',
     "Target is a Brute Squad with 6 Character Points of Equipment, above its Strength, 5 (rule text 000 L267)"),
    ('transformation Jet { type "vehicle"  points 8 }', '"henchman"',
     "Target is a Henchman with 8 Character Points of Transformations, above 1.5 x its Rank (rule text 000 L254)"),
])
def test_a_sheet_that_breaks_a_limit_is_refused_naming_the_character_and_the_line(tmp_path, entries, role, message):
    target = transformer("Target", entries, rank=5, **({} if role == "standard" else {"role": role}))
    script = fight(transformer("Hound"), target, first="Hound", second="Target")
    assert message in run_json(tmp_path, script, ONES, code=1)


def test_l1814_a_mega_size_character_has_at_most_firepower_armaments(tmp_path):
    omega = OMEGA.replace("firepower 6", "firepower 1").replace(" }\n", "  armament Gun { damage 2k2 } }\n")
    error = run_json(tmp_path, fight(omega, TARGET, first="Omega", second="Target"), ONES, code=1)
    assert "Omega is Mega-Size with 2 Armaments, above its Firepower, 1 (rule text 000 L1814)" in error


# ---- the effect types (L367-383): an armament's `effect`, its damage roll the TN (A24) ----

def wheeljack(effect: str) -> str:
    return transformer("Wheeljack", conc("Shooting", 1), f'armament Gun {{ damage 3k2  effect "{effect}" }}', rank=1)


TARGET_ACTS = transformer("Target", conc("Shooting", 1), "armament Blaster { damage 3k2 }", rank=1)
EFFECT_FACES = [9, 9, 9, 5, 5, 1] + [9, 9, 8, 1] + [1, 1, 1] + [9, 8, 1, 1, 1] + [1, 1, 1]


def effect_log(tmp_path, effect: str, more: list[int], until: str = "round > 1") -> list[str]:
    script = fight(wheeljack(effect), TARGET_ACTS, first="Wheeljack", second="Target", until=until)
    return run_json(tmp_path, script, EFFECT_FACES + more + ONES)["log"]


def test_l383_a_knock_out_effect_and_the_roll_to_come_to_at_the_end_of_the_round(tmp_path):
    # The hit's 5k2 damage roll, 17, is the TN (A24); Durability 2 fails: Knocked Out. At the end of the round the
    # effect again, 0k1 weaker (A26): 5k1, 4; Durability 4 3 2/2 = 8 above it: it comes to
    log = effect_log(tmp_path, "knock_out", [4, 4, 3, 3, 2] + [4, 3, 2])
    assert log[5:10] == [
        "    Knock-Out Effect (L383): TN 5k2: 9 8 (1 1 1) = 17",
        "    Target Durability 3k2.5: 1 1 1/2 = 2 vs 17: fails by 15, Knocked Out (L383)",
        "  phase 12: Wheeljack has no one left to attack and waits out the round",
        "  Target rolls against the Knock-Out Effect 5k1: 4 (4 3 3 2) = 4 (L383): Durability 3k2.5: 4 3 2/2 = 8: it comes to",
    ]


def test_l380_a_paralysis_effect_takes_kept_dice_and_passive_defense(tmp_path):
    # Failed by 15: -0k1 on all rolls and -5 Passive Defense: at phase 12 the PD is 5 - 5 = 0 and the Active
    # Defense 3k1.5
    log = effect_log(tmp_path, "paralysis", [4, 4, 3, 2] + [4, 3, 2])
    assert log[6] == "    Target Durability 3k2.5: 1 1 1/2 = 2 vs 17: fails by 15, paralysed: -0k1 on its rolls, -5 Passive Defense (L380)"
    assert log[7:9] == ["  phase 12: Wheeljack attacks Target with Gun: 4k2.5: 4 4 3/2 (2) = 9 vs PD 0 + 5 (1 Boost): hit",
                        "    Target defends actively: 3k1.5: 4 3/2 (2) = 5 vs 9: fails"]


def test_l368_a_blinded_character_rolls_when_it_next_acts_and_loses_half_the_tn(tmp_path):
    # At its phase 5 (10 less its Active Defense), Durability 8 against 17 fails: -8 (half of 17, rounded down) on
    # that action's roll
    log = effect_log(tmp_path, "blinding", [1] + [4, 3, 2] + [4, 3, 3, 2])
    assert log[6] == "    Target is blinded: it rolls against 17 when it next acts (L368)"
    assert log[8:10] == [
        "  phase 5: Target is blinded: Durability 3k2.5: 4 3 2/2 = 8 vs 17: -8 on this action (L368)",
        "  phase 5: Target attacks Wheeljack with Blaster: 4k2.5-8: 4 3 3/2 (2) = 0 (blinded or entangled: -8, L368, L371) vs PD 5: miss",
    ]


def test_l371_an_entangled_character_spends_its_action_breaking_free(tmp_path):
    # A Skill Roll (+ the Size's Durability modifier, 0) against 17 fails by 15: -10 Passive Defense and Skill rolls,
    # -2 Movement: Wheeljack's 2 hits a PD of 5 - 10 + 5 at phase 12 (a second entanglement, TN 2, resisted). Target's
    # Active Defenses take its actions in round 1; in round 2 its first action is a Skill Roll against 17 (the worse
    # of the two, PROPOSAL), failed
    faces = ([1, 1, 1, 1] + [1, 1, 1] + [1, 1, 1, 1, 1, 1] + [9, 9, 9] + [1, 1, 1, 1] + [5, 5, 5] + [5, 5, 5]
             + [9, 9, 9])
    log = effect_log(tmp_path, "entanglement", faces, until="round > 2")
    assert log[6] == ("    Target Skill 3k2.5: 1 1 1/2 = 2 vs 17: fails by 15, entangled: -10 Passive Defense and Skill rolls, "
                      "-2 Movement (L371)")
    assert log[7] == "  phase 12: Wheeljack attacks Target with Gun: 4k2.5: 1 1 1/2 (1) = 2 vs PD -5 + 5 (1 Boost): hit"
    assert log[10] == "    Target Skill 3k2.5: 9 9 9/2 = 22 vs 2: it resists (L371)"
    assert log[15] == "  phase 17: Target struggles in the entanglement (L371): Skill 3k2.5: 1 1 1/2 = 2 vs 17"


def test_l374_a_stumbling_character_falls_prone_and_is_slower_to_defend_once_up(tmp_path):
    # Failed by 15: prone (PD 0, L143), and once up -10 Passive and Active Defense; getting up is its action
    # (phase 5); round 2: PD 5 - 10 + 5 = 0 for the action that reduced it
    log = effect_log(tmp_path, "stumbling", [1, 1, 1, 1] + [1, 1, 1, 1, 1, 1], until="round > 2")
    assert log[6] == "    Target Skill 3k2.5: 1 1 1/2 = 2 vs 17: fails by 15, it stumbles and falls prone (L374)"
    assert log[7] == "  phase 12: Wheeljack attacks Target with Gun: 4k2.5: 1 1 1/2 (1) = 2 vs PD 0 + 5 (1 Boost): miss"
    assert log[8] == "  phase 5: Target gets up"


def test_l394_a_ram_deals_half_its_impact_damage_to_each(tmp_path):
    # A tactic that rams after moving: an unarmed attack (Brawling 1, 4k2.5); the Impact Damage's unkept dice the hexes
    # moved (1), kept the Base Impact Damage 6 / 2 + 1 = 4 (L392): 1k4, rolled 1k1 (A4); 9, 4 to each (A13)
    extra = 'fn transformers.rams(c, target) = c.name == "Ironhide"\n'
    ironhide = transformer("Ironhide", conc("Brawling", 1), strength=6, rank=1)
    script = fight(ironhide, transformer("Target", **DUMMY), first="Ironhide", second="Target", settings=["distance: 2"],
                   extra=extra)
    log = run_json(tmp_path, script, [9, 9, 9, 1] + [9, 8, 7, 1] + [1, 1, 1] + [9] + [8, 7, 1] + ONES)["log"]
    assert log[4:11] == [
        "  phase 22: Ironhide moves 1 hex toward Target",
        "  phase 22: Ironhide attacks Target with fists: 4k2.5: 9 8 7/2 (1) = 20 vs PD 5 (a ram, L394): hit",
        "    Target defends actively, borrowing 5 phases from next round: 3k2.5: 1 1 1/2 = 2 vs 20: fails",
        "    Impact Damage (L392) 1k1: 9 = 9: 4 to each (L394)",
        "    Target Durability 3k2.5: 8 7 1/2 = 15 vs Minor 4: holds",
        "    Ironhide takes its half",
        "    Ironhide Durability 3k2.5: 1 1 1/2 = 2 vs Minor 4: fails by 2, 1 Major (now 1)",
    ]


def test_l1256_martial_artist_and_l1205_heavyweight(tmp_path):
    # Martial Artist: +0k1 on an unarmed attack that is no wrestling: Brawling 1, 3.5k2.5 + 0k1 = 3.5k3.5, rolled
    # 4k3.5. Heavyweight on the target: a Size more to be lifted (L1205), so Bonecrusher (Strength 6) cannot throw a
    # Size 6 Heavyweight: he squeezes
    script = fight(transformer("Brawler", conc("Brawling", 1), 'advantage "Martial Artist" { points 5 }', rank=1),
                   transformer("Dummy", **DUMMY), first="Brawler", second="Dummy")
    log = run_json(tmp_path, script, [9, 9, 9, 1] + ONES)["log"]
    assert log[3] == "  phase 22: Brawler attacks Dummy with fists: 4k3.5: 1 1 1 1/2 = 3 vs PD 5: miss"
    said = run_json(tmp_path, "use transformers\n" + BONECRUSHER + transformer("Heavy", "advantage Heavyweight { points 1 }", strength=6)
                    + "Heavy.traits = sheet_of(Heavy)\nsay wrestles(Bonecrusher, Heavy)\n", [])["log"]
    assert said == ["squeeze"]


# ---- Nullify Effects (L386) ----

SHOCKWAVE = transformer("Shockwave", conc("Shooting", 1), 'armament Nullray { damage 3k2  effect "nullify" }', rank=1)
JAZZ_SHOOTS = transformer("Jazz", conc("Shooting", 1), "armament Blaster { damage 3k2 }", rank=1)
NO_AD = "fn transformers.wants_active_defense(def, att, total) = false\n"


def test_l386_a_readied_nullify_cancels_the_foes_action(tmp_path):
    # The default tactics: one with a Nullify armament readies its action while a foe is in reach (L386 "performed as
    # part of a Held, Readied, or Interrupt Action"), keeps it readied at its own next phase (PROPOSAL), and fires it
    # before the foe's action. The Nullray's damage roll 5k2 (3k2 + Firepower Dice 2.5, rolled 5k2) is the TN (A24);
    # Jazz's Durability 2 fails by 15: "there is no effect to whatever action the Nullify Effect was targeting"
    script = fight(SHOCKWAVE, JAZZ_SHOOTS, first="Shockwave", second="Jazz", extra=NO_AD)
    faces = [9, 9, 9, 5, 5, 1] + [9, 9, 8, 1] + [9, 8, 1, 1, 1] + [1, 1, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[2:10] == [
        "  initiative: Shockwave 3k2.5: 9 9 9/2 = 22; Jazz 3k2.5: 5 5 1/2 = 10",
        "  phase 22: Shockwave readies its action",
        "  phase 12: Shockwave keeps its action readied (Nullify, L386)",
        "  phase 10: Shockwave acts on its readied action, before Jazz",
        "  phase 10: Shockwave attacks Jazz with Nullray: 4k2.5: 9 9 8/2 (1) = 22 vs PD 5: hit",
        "    Nullify Effect (L386): TN 5k2: 9 8 (1 1 1) = 17",
        "    Jazz Durability 3k2.5: 1 1 1/2 = 2 vs 17: fails by 15, its action has no effect (L386)",
        "  phase 10: Jazz's action has no effect (Nullify, L386)",
    ]


def test_l386_a_nullify_resisted_lets_the_action_stand(tmp_path):
    # Durability 9 9 9/2 = 22 above 17: Jazz shoots as he meant to
    script = fight(SHOCKWAVE, JAZZ_SHOOTS, first="Shockwave", second="Jazz", extra=NO_AD)
    faces = [9, 9, 9, 5, 5, 1] + [9, 9, 8, 1] + [9, 8, 1, 1, 1] + [9, 9, 9] + [1, 1, 1, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[8:10] == ["    Jazz Durability 3k2.5: 9 9 9/2 = 22 vs 17: it resists (L386)",
                         "  phase 10: Jazz attacks Shockwave with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss"]


def test_l386_a_nullify_on_an_ordinary_action_targets_no_action(tmp_path):
    # A tactic that never readies: Shockwave's own action, the Nullray its only armament and so kept (pick_weapon
    # takes no Nullify), is a punch; given the Nullray by a tactic, the hit finds no action to cancel (PROPOSAL)
    extra = NO_AD + ("fn transformers.readies(c, enc) = false\n"
                     "fn transformers.pick_weapon(c, target) = c.armament[0]\n")
    script = fight(SHOCKWAVE, JAZZ_SHOOTS, first="Shockwave", second="Jazz", extra=extra)
    faces = [9, 9, 9, 5, 5, 1] + [9, 9, 8, 1] + [9, 8, 1, 1, 1] + [1, 1, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[5] == "    Jazz Durability 3k2.5: 1 1 1/2 = 2 vs 17: fails by 15, but no action of its was the target (L386)"
    assert log[6] == "  phase 12: Shockwave attacks Jazz with Nullray: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss"


def test_l386_a_nullify_ends_continuous_effects_its_roll_beats(tmp_path):
    # L386 with L355: a Continuous Effect ends when the Nullify's roll beats its last damage (above it, L43)
    script = ("use transformers\n" + JAZZ_SHOOTS
              + 'Jazz.burning = [{start: 4k2, round: 1, name: "Napalm", last: 12}, {start: 3k1, round: 2, name: "Acid", last: 13}]\n'
              "nullify_burning(Jazz, 13)\nsay len(Jazz.burning)\n")
    log = run_json(tmp_path, script, [])["log"]
    assert log == ["    the Nullify ends Napalm's Continuous Effect on Jazz: 13 vs 12 (L386, L355)", "1"]


def test_l386_a_nullify_called_shot_disables_but_never_destroys(tmp_path):
    # A called shot (2 Boosts, +10 TN, L59) with the Nullray, 4k2 + 2.5k0 rolled 6k2: 10+5 and 9 = 24; Durability 2
    # fails by 22, more than 20, which would destroy the System (L322): a Nullify disables it
    extra = NO_AD + ("fn transformers.readies(c, enc) = false\nfn transformers.pick_weapon(c, target) = c.armament[0]\n"
                     'fn transformers.called_shot_at(att, def, weapon) = match att.name { "Shockwave" => {system: "movement", extra: 0}; else => none }\n')
    script = fight(SHOCKWAVE.replace("damage 3k2", "damage 4k2"), JAZZ_SHOOTS, first="Shockwave", second="Jazz", extra=extra)
    faces = [9, 9, 9, 5, 5, 1] + [9, 9, 9, 9] + [10, 9, 1, 1, 1, 1, 5] + [1, 1, 1] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[4:6] == ["    damage 6k2: 15 9 (1 1 1 1) = 24 at Jazz's movement",
                        "    Jazz Durability 3k2.5: 1 1 1/2 = 2 vs 24: fails by 22, its movement is disabled (L322)"]


# ---- falls (L392) ----

FLYER = transformer("Starscream", major=5, elevation=6, **DUMMY)
FALL_FACES = [9, 9, 9, 1] + [9, 9, 8, 1] + [9, 8, 1, 1, 1] + [1, 1, 1] + [7, 6, 5, 4, 3, 2] + ONES


def test_l392_a_flyer_knocked_out_falls_its_elevations(tmp_path):
    # 5 Major, Courage 5: a hit's 1.5 Major more Knocks Out (L161), and one up 6 Elevations falls (PROPOSAL): Impact
    # Damage 6 (the Elevations, at most 15) k the Base Impact Damage, Size 5 / 2 + 1 = 3.5 (L392): 6k3.5, keep 4 and
    # halve one (L28): 7 6 5 4/2 = 20; Knocked Out, its Durability counts 0 (L164): failed by 20, 2 Major
    script = fight(JAZZ_SHOOTS, FLYER, first="Jazz", second="Starscream", extra=NO_AD)
    log = run_json(tmp_path, script, FALL_FACES)["log"]
    assert log[3:9] == [
        "  phase 22: Jazz attacks Starscream with Blaster: 4k2.5: 9 9 8/2 (1) = 22 vs PD 5: hit",
        "    damage 5k2: 9 8 (1 1 1) = 17",
        "    Starscream Durability 3k2.5: 1 1 1/2 = 2 vs Minor 17: fails by 15, 1.5 Major (now 6.5)",
        "    Starscream is knocked out: Major above its Courage (L161)",
        "    Starscream falls 6 Elevations (L392): Impact Damage 6k3.5: 7 6 5 4/2 (3 2) = 20",
        "    Starscream Durability Knocked Out, counts as 0 vs Minor 20: fails by 20, 2 Major (now 8.5)",
    ]


def test_l1485_velocity_reducers_take_4k0_or_8k0_off_a_fall(tmp_path):
    # 4 points: -8k0: 6k3.5 - 8k0 has no dice left to roll, an automatic failure (L24): no damage
    script = fight(JAZZ_SHOOTS, FLYER.replace(" }\n", '  equipment "Velocity Reducers" { points 4 } }\n'),
                   first="Jazz", second="Starscream", extra=NO_AD)
    log = run_json(tmp_path, script, FALL_FACES)["log"]
    assert log[7:9] == ["    Starscream falls 6 Elevations (L392): Impact Damage -2k3.5: automatic failure (Velocity Reducers -8k0, L1485)",
                        "    no damage"]
    said = run_json(tmp_path, "use transformers\n" + FLYER.replace(" }\n", '  equipment Velocity_Reducers { points 2 } }\n')
                    + "Starscream.traits = sheet_of(Starscream)\nsay crash_pool(Starscream, 20).notation\n", [])["log"]
    assert said == ["13k3.5"]         # a crash: 15 (at most) - 2k0 (L1485)


def test_on_the_ground_no_one_falls(tmp_path):
    script = fight(JAZZ_SHOOTS, FLYER.replace("elevation 6", "elevation 0"), first="Jazz", second="Starscream", extra=NO_AD)
    log = run_json(tmp_path, script, FALL_FACES)["log"]
    assert not any("falls" in line for line in log)


def falling(elevation: int, *foes: str, until: str = "round > 1") -> str:
    names = ", ".join(["Starscream", *(foe.split()[1] for foe in foes)])
    return fight(JAZZ_SHOOTS, FLYER.replace("elevation 6", f"elevation {elevation}"), *foes, first="Jazz", second=names,
                 settings=['fall_time: "actions"'], extra=NO_AD, until=until)


def test_l392_with_fall_time_a_fall_of_6_elevations_lands_one_action_later(tmp_path):
    # fall_time "actions": "Falling takes a number of actions equal to the number of Elevations fallen divided by 10,
    # minimum 1" (L392): 6 Elevations, 1 action, 10 phases (L122). Knocked Out at phase 22, Starscream lands at phase
    # 12, before Jazz's action there; the Impact Damage as at once: 6k3.5, 7 6 5 4/2 = 20, 2 Major
    log = run_json(tmp_path, falling(6), FALL_FACES)["log"]
    assert log[6:12] == [
        "    Starscream is knocked out: Major above its Courage (L161)",
        "    Starscream falls from 6 Elevations (L392): 1 action to land, 10 phases",
        "  phase 12: Starscream lands",
        "    Starscream falls 6 Elevations (L392): Impact Damage 6k3.5: 7 6 5 4/2 (3 2) = 20",
        "    Starscream Durability Knocked Out, counts as 0 vs Minor 20: fails by 20, 2 Major (now 8.5)",
        "  phase 12: Jazz has no one left to attack and waits out the round",
    ]


def test_l392_a_fall_of_25_elevations_takes_two_actions_and_lands_in_a_phase_no_one_acts_in(tmp_path):
    # 25 / 10 = 2.5, PROPOSAL rounded down: 2 actions, 20 phases: from phase 22 to phase 2, where no one acts. The
    # velocity is at most 15k0 (L392): 15k3.5, rolled as 10k8.5 (L32): 7 6 5 4 3 2 1 1 1/2 = 29
    log = run_json(tmp_path, falling(25), FALL_FACES)["log"]
    assert log[7:12] == [
        "    Starscream falls from 25 Elevations (L392): 2 actions to land, 20 phases",
        "  phase 12: Jazz has no one left to attack and waits out the round",
        "  phase 2: Starscream lands",
        "    Starscream falls 25 Elevations (L392): Impact Damage 10k8.5: 7 6 5 4 3 2 1 1 1/2 (1) = 29",
        "    Starscream Durability Knocked Out, counts as 0 vs Minor 29: fails by 29, 2 Major (now 8.5)",
    ]


def test_l392_a_long_fall_goes_on_into_the_next_round(tmp_path):
    # 40 Elevations: 4 actions, 40 phases. Round 1 passes 22 - 12, 12 - 2 and the last 2 (PROPOSAL: down to 0): 18
    # left; round 2 counts from its first phase, 22: phase 12 leaves 8, so Starscream lands at phase 4. Damage 15k3.5
    # as 10k8.5: 7 6 5 4 3 2 2 2 2/2 = 32; Knocked Out, counts 0: fails by 32, 2.5 Major (L154)
    faces = ([9, 9, 9, 1, 1] + [9, 9, 8, 1] + [9, 8, 1, 1, 1] + [1, 1, 1] + [1, 1, 1, 1] * 2 + [9, 9, 9, 1]
             + [1, 1, 1, 1] * 2 + [7, 6, 5, 4, 3, 2, 2, 2, 2, 2] + ONES)
    log = run_json(tmp_path, falling(40, transformer("Dummy", **DUMMY), until="round > 2"), faces)["log"]
    assert log[7] == "    Starscream falls from 40 Elevations (L392): 4 actions to land, 40 phases"
    assert log[10:18] == [
        "Round 2",
        "  initiative: Jazz 3k2.5: 9 9 9/2 = 22; Dummy 1k0.5: 1/2 = 0",
        "  phase 22: Jazz attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
        "  phase 12: Jazz attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
        "  phase 4: Starscream lands",
        "    Starscream falls 40 Elevations (L392): Impact Damage 10k8.5: 7 6 5 4 3 2 2 2 2/2 (2) = 32",
        "    Starscream Durability Knocked Out, counts as 0 vs Minor 32: fails by 32, 2.5 Major (now 9)",
        "  phase 2: Jazz attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
    ]


def test_l392_a_fall_still_under_way_when_the_fight_ends_lands_then(tmp_path):
    # PROPOSAL: the fight's end (here after round 1, `until`) does not stop a fall; with collisions "hex" those in the
    # hex it lands in take half (L392): 16
    script = falling(40, transformer("Dummy", **DUMMY)).replace("    until", '    collisions: "hex"\n    until')
    faces = [9, 9, 9, 1, 1] + [9, 9, 8, 1] + [9, 8, 1, 1, 1] + [1, 1, 1] + [1, 1, 1, 1] * 2 + [7, 6, 5, 4, 3, 2, 2, 2, 2, 2] + ONES
    log = run_json(tmp_path, script, faces)["log"]
    assert log[10:13] == [
        "  end of the fight: Starscream lands",
        "    Starscream falls 40 Elevations (L392): Impact Damage 10k8.5: 7 6 5 4 3 2 2 2 2/2 (2) = 32",
        "    Starscream Durability Knocked Out, counts as 0 vs Minor 32: fails by 32, 2.5 Major (now 9)",
    ]
    # distance 0: everyone is in the one hex
    assert [line for line in log if "impact (L392)" in line] == [
        "    Jazz is hit by Starscream's impact (L392): half of it, 16", "    Dummy is hit by Starscream's impact (L392): half of it, 16"]


def in_zone(*settings: str, until: str = "round > 2") -> str:
    # Starscream's own `elevation` 0: in Flight Zone 2 or 3 the Zone gives the height
    return fight(JAZZ_SHOOTS, FLYER.replace("elevation 6", "elevation 0"), transformer("Dummy", **DUMMY), first="Jazz",
                 second="Starscream, Dummy", settings=settings, extra=NO_AD, until=until)


ZONE_FACES = ([9, 9, 9, 1, 1] + [9, 9, 8, 1] + [9, 8, 1, 1, 1] + [1, 1, 1] + [1, 1, 1, 1] * 2 + [9, 9, 9, 1]
              + [1, 1, 1, 1] * 3 + [7, 6, 5, 4, 3, 2, 2, 2, 2, 2] + ONES)


def test_l392_one_knocked_out_in_flight_zone_2_falls_15_elevations_a_round_later(tmp_path):
    # flight_zone 2 (L236: a fight is among those in one Flight Zone): "Falls from Flight Zone 2 take between 1 and 3
    # rounds to resolve" (L392); zone_fall "least": 1 round, counted from the next round (PROPOSAL), so Knocked Out in
    # round 1 Starscream lands at the end of round 2. The text gives no Elevations for a Zone: PROPOSAL, 15, the
    # velocity's maximum ("maximum 15k0"): 15k3.5 as 10k8.5 (L32), 7 6 5 4 3 2 2 2 2/2 = 32; counts 0 (L164): 2.5 Major
    log = run_json(tmp_path, in_zone("flight_zone: 2"), ZONE_FACES)["log"]
    assert log[1] == "  in Flight Zone 2 (L236)"
    assert log[7:9] == ["    Starscream is knocked out: Major above its Courage (L161)",
                        "    Starscream falls from Flight Zone 2 (L392): 1 round to land"]
    assert log[11:] == [
        "Round 2",
        "  initiative: Jazz 3k2.5: 9 9 9/2 = 22; Dummy 1k0.5: 1/2 = 0",
        "  phase 22: Jazz attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
        "  phase 12: Jazz attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
        "  phase 2: Jazz attacks Dummy with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss",
        "  end of round: Starscream lands",
        "    Starscream falls 15 Elevations (L392): Impact Damage 10k8.5: 7 6 5 4 3 2 2 2 2/2 (2) = 32",
        "    Starscream Durability Knocked Out, counts as 0 vs Minor 32: fails by 32, 2.5 Major (now 9)",
    ]
    # Flight Zone 1 (no height given: a script's `elevation`) and the ground: no fall
    for zone in ("flight_zone: 1", "flight_zone: 0"):
        assert not any("falls" in line for line in run_json(tmp_path, in_zone(zone), ZONE_FACES)["log"])


def test_l392_a_fall_from_flight_zone_3_takes_4_or_10_rounds_and_lands_at_the_fights_end_if_sooner(tmp_path):
    # zone_fall "most": 10 rounds (L392 "between 4 to 10 rounds"); the fight ends after round 1 (`until`): it lands then
    log = run_json(tmp_path, in_zone("flight_zone: 3", 'zone_fall: "most"', until="round > 1"), ZONE_FACES)["log"]
    assert log[8] == "    Starscream falls from Flight Zone 3 (L392): 10 rounds to land"
    assert log[11:13] == ["  end of the fight: Starscream lands",
                          "    Starscream falls 15 Elevations (L392): Impact Damage 10k8.5: 9 9 9 1 1 1 1 1 1/2 (1) = 32"]
    log = run_json(tmp_path, in_zone("flight_zone: 3", until="round > 1"), ZONE_FACES)["log"]
    assert log[8] == "    Starscream falls from Flight Zone 3 (L392): 4 rounds to land"


def test_l383_one_knocked_out_by_an_effect_in_flight_zone_2_falls_the_same_way(tmp_path):
    # L383's Knocked Out is out of the fight too (PROPOSAL, as for falls from an `elevation`): it falls a round
    script = fight(wheeljack("knock_out"), TARGET_ACTS, first="Wheeljack", second="Target", settings=["flight_zone: 2"])
    log = run_json(tmp_path, script, EFFECT_FACES + [4, 4, 3, 3, 2] + [4, 3, 2] + ONES)["log"]
    assert log[7:9] == ["    Target Durability 3k2.5: 1 1 1/2 = 2 vs 17: fails by 15, Knocked Out (L383)",
                        "    Target falls from Flight Zone 2 (L392): 1 round to land"]


def test_l236_movement_in_flight_zones_1_2_3_is_x1_5_x2_x3(tmp_path):
    # Robot Movement 1 + Sprinting 2 = 3 (L189): x1.5 rounded down, x2, x3 (L236 "All Movement is multiplied by x1.5
    # when travelling at Flight Zone 1, by x2 when travelling at Flight Zone 2, and by x3 when travelling at Flight Zone 3")
    script = ("use transformers\n" + transformer("Runner", conc("Sprinting", 2))
              + "".join(f'transformers.flight_zone = {zone}\nsay movement(Runner, "robot", 0)\n' for zone in range(4)))
    assert run_json(tmp_path, script, [])["log"] == ["3", "4", "6", "9"]


# ---- the Leadership Die (L285) ----

LEADERS = (transformer("Bumblebee", **DUMMY) + transformer("Optimus", speed=1, rank=8)
           + transformer("Megatron", conc("Shooting", 1), "armament Blaster { damage 3k2 }", rank=1))
LEADERSHIP_FACES = [1, 1, 9, 9, 9] + [9, 9, 8, 1] + [7, 5, 1, 1, 1] + [4, 3, 2] + [9] + ONES


def test_l285_the_leaders_leadership_die_saves_a_member_s_durability_check(tmp_path):
    # leadership_die true: each side's leader (the highest Rank, L283) has one Leadership Die for its group. Bumblebee
    # (half an Energon Die: none to spend, L99) misses his Durability Check by 4; the default `leadership_after` gives
    # him Optimus's, an exploding d10 after the roll (L101): 8 + 9 = 17 above 12
    script = ("use transformers\n" + NO_AD + LEADERS
              + encounter("Test", "Bumblebee, Optimus", "Megatron", "leadership_die: true"))
    log = run_json(tmp_path, script, LEADERSHIP_FACES)["log"]
    assert log[1:3] == ["  Optimus leads autobots: a Leadership Die (L285)", "  Megatron leads decepticons: a Leadership Die (L285)"]
    assert log[6:8] == ["    damage 5k2: 7 5 (1 1 1) = 12",
                        "    Bumblebee Durability 3k2.5: 4 3 2/2 = 8 + 9 with Optimus's Leadership Die (L285) vs Minor 12: holds"]


def test_l285_no_leadership_die_by_default(tmp_path):
    script = "use transformers\n" + NO_AD + LEADERS + encounter("Test", "Bumblebee, Optimus", "Megatron")
    log = run_json(tmp_path, script, LEADERSHIP_FACES)["log"]
    assert log[5] == "    Bumblebee Durability 3k2.5: 4 3 2/2 = 8 vs Minor 12: fails by 4, 1 Major (now 1)"


def test_l285_a_leadership_die_before_an_attack_is_1k1(tmp_path):
    # A tactic spending it on Megatron's attack: 3.5k2.5 + 1k1 = 4.5k3.5, rolled 5k3.5 (L28); the die is gone after
    extra = NO_AD + 'fn transformers.leadership_before(c, roll, tn) = roll == "attack"\n'
    script = ("use transformers\n" + extra + LEADERS + encounter("Test", "Bumblebee, Optimus", "Megatron", "leadership_die: true"))
    log = run_json(tmp_path, script, [1, 1, 9, 9, 9] + [1, 1, 1, 1, 1] + ONES)["log"]
    assert log[5] == "  phase 22: Megatron attacks Bumblebee with Blaster: 5k3.5: 1 1 1 1/2 (1) = 3 (with Megatron's Leadership Die, L285) vs PD 5: miss"
    assert log[6] == "  phase 12: Megatron attacks Bumblebee with Blaster: 4k2.5: 1 1 1/2 (1) = 2 vs PD 5: miss"


# ---- emitters and layers (L346) ----

def emitter_fight(*settings: str, area: str = "emitter", extra: str = "") -> str:
    jazz = transformer("Jazz", conc("Shooting", 1), f'armament Flamer {{ damage 3k3  area "{area}" }}', rank=1)
    targets = "".join(transformer(name, **DUMMY, **({"hex": n} if n else {})) for n, name in enumerate("ABCD"))
    return fight(jazz, targets, first="Jazz", second="A, B, C, D", settings=["distance: 2", *settings], extra=NO_AD + extra)


EMITTER_FACES = [9, 9, 9, 1, 1, 1, 1] + [9, 9, 8, 1] + [9, 8, 7, 2, 1] + [9, 9, 9] * 4 + ONES


def test_l346_an_emitter_has_three_base_hexes_and_radiates_on(tmp_path):
    # A at 2 hexes, B 3, C 4, D 5. PROPOSAL (emitter_base "target"): the base hexes are the target's and the two
    # beyond it, then a die less a hex (L342). Damage 3k3 + Firepower Dice 2.5: 5.5k3, rolled 5k3 (L28): 9 8 7 = 24
    log = run_json(tmp_path, emitter_fight(), EMITTER_FACES)["log"]
    assert log[4:18] == [
        "  phase 22: Jazz fires Flamer at A's hex (emitter, L348): 4k2.5: 9 9 8/2 (1) = 22",
        "    vs A's PD 5: hit", "    vs B's PD 5: hit", "    vs C's PD 5: hit", "    vs D's PD 5: hit",
        "    damage 5k3: 9 8 7 (2 1) = 24",
        "    A, in the base hex: 24", "    A Durability 3k2.5: 9 9 9/2 = 22 vs Minor 24: fails by 2, 1 Major (now 1)",
        "    B, in the base hex: 24", "    B Durability 3k2.5: 9 9 9/2 = 22 vs Minor 24: fails by 2, 1 Major (now 1)",
        "    C, in the base hex: 24", "    C Durability 3k2.5: 9 9 9/2 = 22 vs Minor 24: fails by 2, 1 Major (now 1)",
        "    D, 1 hex out: 17", "    D Durability 3k2.5: 9 9 9/2 = 22 vs Minor 17: holds",
    ]


def test_emitter_base_beside_starts_the_base_hexes_beside_the_attacker(tmp_path):
    # Hexes 1-3 from Jazz are the base: A (2) and B (3) in it, C one hex out (17), D two (9)
    log = run_json(tmp_path, emitter_fight('emitter_base: "beside"'), EMITTER_FACES)["log"]
    assert log[10:17:2] == ["    A, in the base hex: 24", "    B, in the base hex: 24", "    C, 1 hex out: 17", "    D, 2 hexes out: 9"]


def test_c12_a_layer_needs_a_house_rule(tmp_path):
    error = run_json(tmp_path, emitter_fight(area="layer"), EMITTER_FACES, code=1)
    assert "the text of Layers is cut off (rule text 000 L346, digest C12)" in error
    # a house rule that makes a layer of the target's hex alone
    extra = "fn transformers.layer_lost(origin, dir, c) = match c.hex == origin { true => 0; else => -1 }\n"
    log = run_json(tmp_path, emitter_fight(area="layer", extra=extra), EMITTER_FACES)["log"]
    assert log[4:8] == ["  phase 22: Jazz fires Flamer at A's hex (layer, L348): 4k2.5: 9 9 8/2 (1) = 22",
                        "    vs A's PD 5: hit", "    damage 5k3: 9 8 7 (2 1) = 24", "    A, in the base hex: 24"]


# ---- Mega-Size melee as a Spray (L1786, E39) ----

def sweep_fight(*settings: str) -> str:
    trypticon = transformer("Trypticon", conc("Brawling", 1), strength=10, skill=6, rank=1, mega=3)
    targets = "".join(transformer(name, **DUMMY, **({"hex": n} if n else {})) for n, name in enumerate("ABCD"))
    return fight(trypticon, targets, first="Trypticon", second="A, B, C, D", settings=["distance: 1", *settings], extra=NO_AD)


SWEEP_FACES = [9, 9, 9, 9, 1, 1, 1, 1, 1] + [9, 9, 8, 7, 6, 1] + [9, 8, 7, 6, 5, 4, 3, 2] + [9] * 30 + ONES * 3


def test_l1786_a_mega_size_3_melee_attack_is_a_spray_of_3_hexes(tmp_path):
    # E39: 3^(3 - 2) = 3 hexes, from A's onward: A, B, C; D, a fourth hex on, is out of it. The attack: Skill 6 - 2
    # (L1774): 2 dice + 3 (L1776) + Brawling 1 = 6k5, melee +5 +3k0 (L1784): 9k5+5, one roll against each PD (L348).
    # Damage: Strength Dice 5 + 3 k 2.5 + 1.5 (L1786): 8k4; a die less a hex (a Spray, L346); Effect Augmentation 15
    # (L1800)
    log = run_json(tmp_path, sweep_fight(), SWEEP_FACES)["log"]
    assert log[4:10] == [
        "  phase 36: Trypticon sweeps fists through A's hex (Mega-Size melee, a spray of 3 hexes, L1786): 9k5+5: 9 9 9 8 8 (7 7 6 1) = 48",
        "    vs A's PD 5: hit",
        "    vs B's PD 5: hit",
        "    vs C's PD 5: hit",
        "    damage 8k4: 9 9 9 6 (5 4 3 2) = 33",
        "    A, in the base hex: 33",
    ]
    assert "    B, 1 hex out: 27" in log and "    C, 2 hexes out: 18" in log
    assert not any(line.startswith("    D") or line.startswith("    vs D") for line in log[4:20])


def test_mega_melee_attack_is_a_normal_attack(tmp_path):
    # One target, with the damage Boost an area attack may not take (L57): 8k4 + 1k0
    log = run_json(tmp_path, sweep_fight('mega_melee: "attack"'), SWEEP_FACES)["log"]
    assert log[4:6] == ["  phase 36: Trypticon attacks A with fists: 9k5+5: 9 9 9 8 8 (7 7 6 1) = 48 vs PD 5 + 5 (1 Boost): hit",
                        "    damage 9k4: 9 9 9 9 (6 5 4 3 2) = 36"]


# ---- the sheet's totals: the 160 Character Points (L438) ----

SPENT = 'say "{points_spent(Jazz)}"\n'


def spent(tmp_path, *entries: str, **values) -> str:
    return run_json(tmp_path, "use transformers\n" + transformer("Jazz", *entries, **values) + SPENT, [])["log"][0]


def test_l438_points_spent_counts_each_part_of_the_sheet(tmp_path):
    # Tech Specs 5: 4 x 4 each (L442), 8 of them: 128. E25: Criminal and Spy (2 each, L454) both give Stealth, so Stealth
    # 2 costs nothing more (L452); Shooting 2 (Firearms' Level 1 + 1 bought, L542: 1); Autofire 1, an Advanced one: 2
    # (L542); Dodge 2 with 1 `chosen` from Physical (L521): 1. Evasive 5, Cool 4, a Blaster at 3, a Mode at 4
    log = spent(tmp_path, "skillset Criminal", "skillset Spy", "skillset Firearms", "skillset Physical",
                conc("Stealth", 2), conc("Shooting", 2), conc("Autofire", 1), "concentration Dodge { level 2  chosen 1 }",
                "advantage Evasive { points 5 }", "personality Cool { points 4 }",
                "armament Blaster { damage 3k2  points 3 }", 'transformation Car { type "vehicle"  points 4 }')
    assert log == ("{tech_specs: 128, skillsets: 8, concentrations: 4, advantages: 5, equipment: 3, personalities: 4, "
                   "backgrounds: 0, transformations: 4, mega: 0, total: 156}")


def test_l446_a_heritage_s_tech_spec_levels_are_free_when_a_script_gives_them(tmp_path):
    # M5: the Heritage table is lost; `heritage_mod` is 0 (every level bought), and a script's table
    # makes its levels free: Strength 5 with +2 from Heritage costs 8, not 16
    heritage = 'fn transformers.heritage_mod(c, spec) = match spec { "strength" => 2; else => 0 }\n'
    script = "use transformers\n" + heritage + transformer("Jazz") + SPENT
    log = run_json(tmp_path, script, [])["log"][0]
    assert log.startswith("{tech_specs: 120,") and log.endswith("total: 120}")   # 128 - 8
    assert spent(tmp_path).startswith("{tech_specs: 128,")


def test_a_negative_personality_gives_points_back_and_mega_size_costs_10_x_4_to_the_ms(tmp_path):
    # Indecisive -4 (L1024); Mega-Size 1: 40 (E49, L1832)
    log = spent(tmp_path, "personality Indecisive { points -4 }", strength=10, mega=1)
    assert log.endswith("personalities: -4, backgrounds: 0, transformations: 0, mega: 40, total: 184}")   # 128 + 20 - 4 + 40


def test_chosen_levels_beyond_what_the_skillsets_give_are_refused(tmp_path):
    script = "use transformers\n" + transformer("Jazz", "skillset Artist", "concentration Acting { level 3  chosen 3 }") + SPENT
    assert ("Jazz's Concentrations take 3 Levels from Skillsets whose Concentrations are chosen, and its Artist, "
            "Profession, Scholar and Physical Skillsets give 2 (rule text 000 L459-L521)") in run_json(tmp_path, script, [], code=1)


def sheet_check(tmp_path, jazz: str, *settings: str, code: int = 0):
    script = fight(jazz, transformer("Dummy", **DUMMY), first="Jazz", second="Dummy", settings=settings)
    return run_json(tmp_path, script, ONES, code=code)


def test_sheet_points_checked_refuses_a_sheet_above_its_160_points(tmp_path):
    # Tech Specs 6: 20 each, 160; Evasive 5 more: 165 > 160
    jazz = transformer("Jazz", "advantage Evasive { points 5 }", **dict.fromkeys(
        ("strength", "intelligence", "speed", "endurance", "rank", "courage", "firepower", "skill"), 6))
    error = sheet_check(tmp_path, jazz, 'sheet_points: "checked"', code=1)
    assert ("Jazz spends 165 Character Points, above the 160 it has (rule text 000 L438): Tech Specs 160, Skillsets 0, "
            "Concentrations 0, Advantages 5") in error
    # unchecked, the default: it fights
    assert sheet_check(tmp_path, jazz)["log"][0].startswith("Test: ")
    # with 5 Character Points earned since (L1740) it fits
    assert sheet_check(tmp_path, jazz.replace("speed 6", "speed 6  earned 5"), 'sheet_points: "checked"')["log"][0].startswith("Test: ")


def test_sheet_points_checked_gives_a_henchman_130_and_a_brute_squad_100(tmp_path):
    # Tech Specs 5: 128 (L256: a Henchman has 130; L267: a Brute Squad 100)
    assert sheet_check(tmp_path, transformer("Jazz", role='"henchman"'), 'sheet_points: "checked"')["log"][0].startswith("Test: ")
    error = sheet_check(tmp_path, transformer("Jazz", role='"brute"'), 'sheet_points: "checked"', code=1)
    assert "Jazz spends 128 Character Points, above the 100 it has (rule text 000 L267)" in error


def test_l1159_l1320_civilian_and_warrior_make_their_skillsets_cost_1(tmp_path):
    # Criminal is a Civil Skillset (L456-501), Firearms a Martial one (L503-538): 2 each, or 1 with the Advantage
    log = spent(tmp_path, "skillset Criminal", "skillset Firearms", "advantage Civilian { points 4 }")
    assert "skillsets: 3," in log
    log = spent(tmp_path, "skillset Criminal", "skillset Firearms", "advantage Warrior { points 2 }")
    assert "skillsets: 3," in log
    assert "skillsets: 4," in spent(tmp_path, "skillset Criminal", "skillset Firearms")


# ---- Backgrounds (L1093-1119): their points, their limits, Fear in a fight ----

def test_l1095_a_background_costs_its_value_and_jinx_s_is_given(tmp_path):
    # L1095: "Backgrounds cost 1, 2, or 3 points for a 1, 2, or 3 point value": Hunted 2 and Debt 1, 3 points
    log = spent(tmp_path, "background Hunted { value 2 }", "background Debt { value 1 }")
    assert log.endswith("personalities: 0, backgrounds: 3, transformations: 0, mega: 0, total: 131}")     # 128 + 3
    # L1222: Jinx (5, L1221) gives "one 4-point Background": it costs nothing more
    log = spent(tmp_path, "advantage Jinx { points 5 }", "background Nemesis { value 4 }")
    assert log.endswith("advantages: 5, equipment: 0, personalities: 0, backgrounds: 0, transformations: 0, mega: 0, total: 133}")


def test_l1095_backgrounds_count_against_the_160_points(tmp_path):
    # Tech Specs 6 (160) and a 1-point Background: 161 > 160
    jazz = transformer("Jazz", "background Debt { value 1 }", **dict.fromkeys(
        ("strength", "intelligence", "speed", "endurance", "rank", "courage", "firepower", "skill"), 6))
    error = sheet_check(tmp_path, jazz, 'sheet_points: "checked"', code=1)
    assert "Jazz spends 161 Character Points, above the 160 it has (rule text 000 L438): Tech Specs 160, Skillsets 0, Concentrations 0, Backgrounds 1" in error


@pytest.mark.parametrize("entries, message", [
    (("background Hunted { value 3 }", "background Debt { value 2 }"),
     "Jazz has 5 value levels of Backgrounds: 4 at most (rule text 000 L1097)"),
    (("background Nemesis { value 4 }",),
     "Jazz's Background Nemesis is at 4: no single Background above 3 (rule text 000 L1097; a 4-point one is Jinx's, L1222)"),
    (("advantage Jinx { points 5 }", "background Nemesis { value 4 }", "background Debt { value 1 }"),
     "Jazz has Jinx: its one Background is a 4-point one, and it may take no other (rule text 000 L1222-L1223)"),
    (("advantage Jinx { points 5 }", "background Nemesis { value 3 }"),
     "Jazz has Jinx: its one Background is a 4-point one, and it may take no other (rule text 000 L1222-L1223)"),
    (("advantage Jinx { points 4 }",), "Jazz's Jinx costs [5] Character Points, not 4 (rule text 000 L1221)"),
])
def test_l1097_l1222_a_sheet_breaking_the_background_limits_is_refused(tmp_path, entries, message):
    error = sheet_check(tmp_path, transformer("Jazz", *entries), code=1)
    assert message in error and "character Jazz is Transformer" in error
    # `mech check` finds it too, before any die
    path = tmp_path / "sheet.mech"
    path.write_text(fight(transformer("Jazz", *entries), transformer("Dummy", **DUMMY), first="Jazz", second="Dummy"))
    checked = mech_forked(["check", str(path)], tmp_path)
    assert checked.code == 1 and message in checked.err


def test_l1097_four_levels_in_backgrounds_of_3_at_most_are_accepted(tmp_path):
    jazz = transformer("Jazz", "background Hunted { value 3 }", "background Debt { value 1 }")
    assert sheet_check(tmp_path, jazz)["log"][0].startswith("Test: ")


FEARFUL = JAZZ_SHOOTS.replace(" }\n", '  background Fear { value 2  subject "SUBJECT" } }\n')


def test_l1107_fear_gives_minus_xkx_on_all_rolls_while_its_subject_is_in_the_fight(tmp_path):
    # L1107: "All Actions Checks made while exposed to the subject of this Background suffer -XkX, where X is the
    # Rating": Fear 2 of Megatron, -2k2 (PROPOSAL: on all Jazz's rolls, as L164's penalty). Initiative 3k2.5 - 2k2 =
    # 1k0.5: 9/2 = 4; the attack 3.5k2.5 - 2k2 = 1.5k0.5, rolled 2k0.5 (L28): 9/2 = 4, a miss against PD 5;
    # Durability 3k2.5 - 2k2: 1/2 = 0
    script = fight(FEARFUL.replace("SUBJECT", "Megatron"), transformer("Megatron", conc("Brawling", 1), speed=1, rank=1),
                   first="Jazz", second="Megatron", extra=NO_AD)
    log = run_json(tmp_path, script, [9, 9] + [9, 1] + [9, 9, 8, 1] + ONES)["log"]
    assert log[1:8] == [
        "  Jazz is exposed to what it fears: -2k2 on its rolls (Fear, L1107)",
        "Round 1",
        "  initiative: Jazz 1k0.5: 9/2 = 4; Megatron 1k0.5: 9/2 = 4",
        "  phase 4: Jazz attacks Megatron with Blaster: 2k0.5: 9/2 (1) = 4 vs PD 5: miss",
        "  phase 4: Megatron attacks Jazz with fists: 4k2.5: 9 9 8/2 (1) = 22 vs PD 5: hit",
        "    damage 2k1: 1 (1) = 1",
        "    Jazz Durability 1k0.5: 1/2 = 0 vs Minor 1: fails by 1, 1 Major (now 1)",
    ]


@pytest.mark.parametrize("subject, foe, exposed", [
    ("decepticons", transformer("Soundwave", **DUMMY), True),     # PROPOSAL: a side's name is a subject too
    ("megatron", transformer("Megatron", **DUMMY), True),         # names in any case
    ("Unicron", transformer("Megatron", **DUMMY), False),         # not on the line: not played
    ("Megatron", transformer("Megatron", major=15, **DUMMY), False),   # dead (3 x Courage, L173): not in the fight
])
def test_l1107_what_a_fear_is_exposed_to(tmp_path, subject, foe, exposed):
    name = foe.split()[1]
    log = run_json(tmp_path, fight(FEARFUL.replace("SUBJECT", subject), foe, first="Jazz", second=name, extra=NO_AD),
                   [9, 9, 9, 1] + ONES)["log"]
    assert (log[1] == "  Jazz is exposed to what it fears: -2k2 on its rolls (Fear, L1107)") == exposed
    assert any(line.startswith("  initiative: Jazz " + ("1k0.5" if exposed else "3k2.5")) for line in log)


def test_l1107_a_house_rule_says_what_a_fear_is_exposed_to(tmp_path):
    # exposed_to replaced: a Fear of "Dummy" is felt only from the second round on, so Jazz's first Initiative is
    # whole (3k2.5) and its second -2k2 (1k0.5)
    extra = NO_AD + "fn transformers.exposed_to(c, subject, enc) = enc.round >= 2\n"
    script = fight(FEARFUL.replace("SUBJECT", "Dummy"), transformer("Dummy", **DUMMY), first="Jazz", second="Dummy",
                   extra=extra, until="round > 2")
    log = run_json(tmp_path, script, [9, 9, 9, 1] + ONES)["log"]
    assert [line for line in log if "Jazz is " in line and "fear" in line or line.startswith("  initiative: Jazz")] == [
        "  initiative: Jazz 3k2.5: 9 9 9/2 = 22; Dummy 1k0.5: 1/2 = 0",
        "  Jazz is exposed to what it fears: -2k2 on its rolls (Fear, L1107)",
        "  initiative: Jazz 1k0.5: 1/2 = 0; Dummy 1k0.5: 1/2 = 0",
    ]


def test_c14_a_background_in_play_awards_1_5_times_its_value_or_twice(tmp_path):
    # L1747 "times 1.5" (the digest's proposal, C14), or L1095 "twice its value"
    script = "use transformers\nsay background_experience(2)\ntransformers.background_reward = \"twice\"\nsay background_experience(2)\n"
    assert run_json(tmp_path, script, [])["log"] == ["3", "4"]


# ---- Mega-Size's extra base hexes (L1792), what a fall or crash lands on, crashes (L392) ----

def mega_spray_fight(*settings: str) -> str:
    # Mega-Size 1 (Size 10: Strength 10, L1832), a Spray armament, four targets from 2 hexes on, one a hex
    jazz = transformer("Jazz", conc("Shooting", 1), 'armament Bomb { damage 3k3  area "spray" }', rank=1, strength=10, mega=1)
    targets = "".join(transformer(name, **DUMMY, **({"hex": n} if n else {})) for n, name in enumerate("ABCD"))
    return fight(jazz, targets, first="Jazz", second="A, B, C, D", settings=["distance: 2", *settings], extra=NO_AD)


MEGA_SPRAY_FACES = [9, 9, 9, 1, 1, 1, 1] + [9, 9, 9] + [9, 8, 7, 2, 1, 1] + [9] * 12 + ONES


def test_l1792_a_mega_size_character_adds_its_mega_size_to_an_area_s_base_hexes(tmp_path):
    # L1792: MS 1 adds one base hex: a Spray's base is A's hex and B's (PROPOSAL: onward), then a die less a hex
    # (L346): C one hex out, D two. The attack 3k2.5-5 (L1782): 9 9 9/2 = 17 against each PD 5. Damage 3k3 +
    # Firepower Dice 2.5 + 1 (L1776) = 6.5k3, rolled 6k3: 9 8 7 = 24, 17 one hex out, 9 two; Effect Augmentation +5
    # (L1800)
    log = run_json(tmp_path, mega_spray_fight(), MEGA_SPRAY_FACES)["log"]
    assert log[4] == "  phase 22: Jazz fires Bomb at A's hex (spray, L348): 3k2.5-5: 9 9 9/2 = 17"
    assert log[5:10] == ["    vs A's PD 5: hit", "    vs B's PD 5: hit", "    vs C's PD 5: hit", "    vs D's PD 5: hit",
                         "    damage 6k3: 9 8 7 (2 1 1) = 24"]
    assert log[10:22:3] == ["    A, in the base hex: 24", "    B, in the base hex: 24", "    C, 1 hex out: 17",
                            "    D, 2 hexes out: 9"]


def test_mega_area_none_keeps_the_base_hexes_of_l346(tmp_path):
    # without L1792's extra hex: B one hex out, C two, D three: beyond the three kept dice, out of the spray
    log = run_json(tmp_path, mega_spray_fight('mega_area: "none"'), MEGA_SPRAY_FACES)["log"]
    assert log[5:9] == ["    vs A's PD 5: hit", "    vs B's PD 5: hit", "    vs C's PD 5: hit", "    damage 6k3: 9 8 7 (2 1 1) = 24"]
    assert log[9:18:3] == ["    A, in the base hex: 24", "    B, 1 hex out: 17", "    C, 2 hexes out: 9"]


def mega_area_fight(area: str, hexes: dict, *settings: str, distance: int = 4) -> str:
    # Jazz, Mega-Size 1 (Size 10), an area armament 3k3, `distance` hexes from its foes; each foe `hex` beyond that
    jazz = transformer("Jazz", conc("Shooting", 1), f'armament Bomb {{ damage 3k3  area "{area}" }}', rank=1,
                       strength=10, mega=1)
    targets = "".join(transformer(name, **DUMMY, **({"hex": n} if n else {})) for name, n in hexes.items())
    return fight(jazz, targets, first="Jazz", second=", ".join(hexes), settings=[f"distance: {distance}", *settings], extra=NO_AD)


# Jazz's initiative, one die for each of five foes (Speed 1), the attack, the damage, then each one's Durability
MEGA_AREA_FACES = [9, 9, 9, 1, 1, 1, 1, 1] + [9, 9, 9] + [9, 8, 7, 2, 1, 1] + [9] * 15 + ONES


def where_hit(log: list[str]) -> list[str]:
    # the lines naming where each one stands in the first attack's area, and its damage there
    end = next(n for n, line in enumerate(log) if n > 4 and not line.startswith("    "))
    return [line for line in log[5:end] if any(mark in line for mark in (", in the base hex: ", " out: ", " less: "))]


# The attack, as in the Spray's test: Skill 5 - 2 (L1774) = 1.5 dice + 1 (L1776) + Shooting 1 - 1k0 (L1782) =
# 2.5k2.5, rolled 3k2.5 (L28): 9 9 9/2 = 22 - 5 = 17 against each PD 5; damage 3k3 + Firepower Dice 2.5 + 1 = 6.5k3,
# rolled 6k3: 9 8 7 = 24; one die less: 17 (9 8); two: 9 (L344); then Effect Augmentation +5 (L1800).
@pytest.mark.parametrize("mega_area, expected", [
    ("base", ["    A, in the base hex: 24", "    Z, 1 hex out: 17", "    B, in the base hex: 24",
              "    C, 1 hex out: 17", "    D, 2 hexes out: 9"]),
    ("none", ["    A, in the base hex: 24", "    Z, 1 hex out: 17", "    B, 1 hex out: 17", "    C, 2 hexes out: 9"]),
])
def test_l1792_a_mega_size_explosion_has_one_base_hex_more_onward(tmp_path, mega_area, expected):
    # An explosion (L346: "a single base hex ... radiate outward in all directions") at A's hex, 4 hexes from Jazz:
    # Z one hex short of it, B, C, D one, two, three beyond. L1792 adds MS 1 base hex: PROPOSAL, onward, so B is in
    # the base and C, D one and two hexes out; Z, on the attacker's side of the base, is still one hex out. Without
    # it (mega_area "none"), B one hex out, C two, D three: beyond the three kept dice (L342), not caught.
    log = run_json(tmp_path, mega_area_fight("explosion", {"A": 0, "Z": -1, "B": 1, "C": 2, "D": 3},
                                             f'mega_area: "{mega_area}"'), MEGA_AREA_FACES)["log"]
    assert log[4] == "  phase 22: Jazz fires Bomb at A's hex (explosion, L348): 3k2.5-5: 9 9 9/2 = 17"
    assert log[5:5 + len(expected)] == [f"    vs {line.split(',')[0].strip()}'s PD 5: hit" for line in expected]
    assert log[5 + len(expected)] == "    damage 6k3: 9 8 7 (2 1 1) = 24"
    assert where_hit(log) == expected
    assert log[5 + len(expected) + 2] == "    Effect Augmentation and Reduction +5 (L389): 29"


@pytest.mark.parametrize("mega_area, expected", [
    ("base", ["    A, 0 dice less: 24", "    B, 0 dice less: 24", "    C, 1 die less: 17", "    D, 1 die less: 17",
              "    E, 1 die less: 17"]),
    ("none", ["    A, 0 dice less: 24", "    B, 1 die less: 17", "    C, 1 die less: 17", "    D, 1 die less: 17",
              "    E, 2 dice less: 9"]),
])
def test_l1792_a_mega_size_stream_has_four_full_strength_hexes(tmp_path, mega_area, expected):
    # A stream's first three hexes from the attacker are at full strength, then a die less every three (L346); MS 1
    # adds a base hex (L1792): the first four are full, 5-7 one die less, 8-10 two. A at 3 hexes, B 4, C 5, D 6, E 7
    # (distance 3). Without it: 1-3 full, 4-6 one die less, 7-9 two.
    hexes = {"A": 0, "B": 1, "C": 2, "D": 3, "E": 4}
    log = run_json(tmp_path, mega_area_fight("stream", hexes, f'mega_area: "{mega_area}"', distance=3),
                   MEGA_AREA_FACES)["log"]
    assert log[4] == "  phase 22: Jazz fires Bomb at A's hex (stream, L348): 3k2.5-5: 9 9 9/2 = 17"
    assert log[5:11] == [f"    vs {name}'s PD 5: hit" for name in hexes] + ["    damage 6k3: 9 8 7 (2 1 1) = 24"]
    assert where_hit(log) == expected


@pytest.mark.parametrize("settings, expected", [
    # emitter_base "target": the base is A's hex and the two beyond it (B, C), with MS 1 D's too; E one hex out
    ((), ["    A, in the base hex: 24", "    B, in the base hex: 24", "    C, in the base hex: 24",
          "    D, in the base hex: 24", "    E, 1 hex out: 17"]),
    (('mega_area: "none"',), ["    A, in the base hex: 24", "    B, in the base hex: 24", "    C, in the base hex: 24",
                              "    D, 1 hex out: 17", "    E, 2 hexes out: 9"]),
    # emitter_base "beside": the base is hexes 1-3 from Jazz, with MS 1 hex 4 too: A (3) and B (4) in it, C one hex
    # out, D two, E three (beyond the kept dice); without L1792, B is one hex out
    (('emitter_base: "beside"',), ["    A, in the base hex: 24", "    B, in the base hex: 24", "    C, 1 hex out: 17",
                                   "    D, 2 hexes out: 9"]),
    (('emitter_base: "beside"', 'mega_area: "none"'), ["    A, in the base hex: 24", "    B, 1 hex out: 17",
                                                       "    C, 2 hexes out: 9"]),
])
def test_l1792_a_mega_size_emitter_has_four_base_hexes(tmp_path, settings, expected):
    # L346: "Emitters have three connected base hexes, all in the direction the emitter is aimed, and radiate outward
    # from there"; L1792 adds MS 1: four. A at 3 hexes, B 4, C 5, D 6, E 7 (distance 3)
    hexes = {"A": 0, "B": 1, "C": 2, "D": 3, "E": 4}
    log = run_json(tmp_path, mega_area_fight("emitter", hexes, *settings, distance=3), MEGA_AREA_FACES)["log"]
    assert log[4] == "  phase 22: Jazz fires Bomb at A's hex (emitter, L348): 3k2.5-5: 9 9 9/2 = 17"
    assert where_hit(log) == expected


def test_l392_with_collisions_what_a_fall_lands_on_takes_half(tmp_path):
    # collisions "hex": Jazz stands in the hex Starscream falls into (distance 0): half of the fall's 20, 10 (L392),
    # an effect; Jazz's Durability 1 1 1/2 = 2 fails by 8: 1 Major
    script = fight(JAZZ_SHOOTS, FLYER, first="Jazz", second="Starscream", settings=['collisions: "hex"'], extra=NO_AD)
    ran = run_json(tmp_path, script, FALL_FACES)
    assert ran["log"][7:11] == [
        "    Starscream falls 6 Elevations (L392): Impact Damage 6k3.5: 7 6 5 4/2 (3 2) = 20",
        "    Starscream Durability Knocked Out, counts as 0 vs Minor 20: fails by 20, 2 Major (now 8.5)",
        "    Jazz is hit by Starscream's impact (L392): half of it, 10",
        "    Jazz Durability 3k2.5: 1 1 1/2 = 2 vs Minor 10: fails by 8, 1 Major (now 1)",
    ]
    assert ran["result"]["characters"]["Jazz"]["major"] == 1
    # by default no one is hit (the test above: the fall's lines, then the round goes on)
    default = run_json(tmp_path, fight(JAZZ_SHOOTS, FLYER, first="Jazz", second="Starscream", extra=NO_AD), FALL_FACES)
    assert not any("impact (L392)" in line for line in default["log"])


CAR = transformer("Wildrider", major=5, mode='"vehicle"', moved=4, **DUMMY)


def test_l392_with_crashes_a_vehicle_taken_out_while_travelling_crashes(tmp_path):
    # crashes "out" (PROPOSAL): Wildrider, in Vehicle-Mode, moved 4 hexes on its last action; Knocked Out, its travel
    # stops: Impact Damage 4 (the hexes) k 3.5 (Size 5 / 2 + 1, L392): 7 6 5 4/2 = 20; Knocked Out, its Durability
    # counts 0 (L164): 2 Major. With collisions "hex", Jazz in its hex takes half, 10: 3 2 1/2 = 5 fails by 5
    script = fight(JAZZ_SHOOTS, CAR, first="Jazz", second="Wildrider", settings=['crashes: "out"', 'collisions: "hex"'],
                   extra=NO_AD)
    log = run_json(tmp_path, script, FALL_FACES)["log"]
    assert log[6:11] == [
        "    Wildrider is knocked out: Major above its Courage (L161)",
        "    Wildrider crashes at 4 hexes (L392): Impact Damage 4k3.5: 7 6 5 4/2 = 20",
        "    Wildrider Durability Knocked Out, counts as 0 vs Minor 20: fails by 20, 2 Major (now 8.5)",
        "    Jazz is hit by Wildrider's impact (L392): half of it, 10",
        "    Jazz Durability 3k2.5: 3 2 1/2 = 5 vs Minor 10: fails by 5, 1 Major (now 1)",
    ]


@pytest.mark.parametrize("settings, car", [((), CAR), (('crashes: "out"',), CAR.replace('"vehicle"', '"robot"')),
                                           (('crashes: "out"',), CAR.replace("moved 4", "moved 0"))])
def test_no_crash_by_default_nor_for_a_robot_or_one_standing_still(tmp_path, settings, car):
    script = fight(JAZZ_SHOOTS, car, first="Jazz", second="Wildrider", settings=list(settings), extra=NO_AD)
    log = run_json(tmp_path, script, FALL_FACES)["log"]
    assert "    Wildrider is knocked out: Major above its Courage (L161)" in log
    assert not any("crashes" in line for line in log)


def test_l1485_velocity_reducers_take_2k0_off_a_crash_in_a_fight(tmp_path):
    # 2 points: -2k0: 4k3.5 - 2k0 = 2k2 (L28: no more kept than rolled): 7 6 = 13
    car = CAR.replace(" }\n", '  equipment "Velocity Reducers" { points 2 } }\n')
    script = fight(JAZZ_SHOOTS, car, first="Jazz", second="Wildrider", settings=['crashes: "out"'], extra=NO_AD)
    log = run_json(tmp_path, script, FALL_FACES)["log"]
    assert any(line.startswith("    Wildrider crashes at 4 hexes (L392): Impact Damage 2k") and "(Velocity Reducers -2k0, L1485)" in line
               for line in log), log
