"""Golden tests of more RoboMACs rules in play (issue 19, item 2): the sample Overkills (rule text 001,
L1322-1339), the observers' roll against Holograms (L899-901), one hidden pointed out (L903), crashes
(L1828-1832), a turret limited to its elevation (L1683-1686), arcs of fire from named sides (L1635) and
the Merge's prerequisite (L820-823, L829). Each forces its dice through
`mech run --faces` as tests/test_robomacs_vehicles.py does (whose helpers these use) and cites the
lines of the text (shared/seeds/001_339126d73d002dcf.txt) it checks. Every rule here is behind an
option or a tactic whose default plays as before (the last test shows the defaults)."""

from __future__ import annotations

from support import mech_forked
from test_robomacs_vehicles import QUIET, RACER, TRUCK, between, run, script

# ---- the sample Overkills (L1322-1339, option overkill_effect "sample") ----

# Hitter's Brawl at Difficult (L604-606: Metal on Advantage without Brawn); 2d8 [8 7] = 15 is an
# Overkill (L1158); then the chart's two d8: the duration and the side effect (L1328-1331)
BRAWLERS = ("character Hitter is RoboMAC { skill Brawl  skill Dodge }\ncharacter Pal is RoboMAC { }\n"
            "character Foe is RoboMAC { skill Blast }\ncharacter Other is RoboMAC { }")
HITS_FOE = ('fn robomacs.plan_for(c, enc) = match c {\n Hitter => match enc.round { 1 => plan("advantage", [act("Brawl", Foe)]); '
            'else => plan("advantage", [act("Dodge", Foe)]) }\n Foe => match enc.round { 1 => plan("none", []); '
            'else => plan("advantage", [act("Blast", Hitter)]) }\n else => plan("none", [])\n}\n')
SAMPLE = ('overkill_effect: "sample"',)


def fight(tmp_path, tactics, faces, settings=SAMPLE, until="round > 1"):
    return run(tmp_path, script(BRAWLERS, tactics, settings, ("Hitter, Pal", "Foe, Other"), until), faces)


def test_the_sample_overkill_rolls_its_duration_and_side_effect_extra_damage_hits_everyone(tmp_path):
    # L1328-1331: "Duration(d8): 1-6 = Only for next round, 7-8 = For remainder of combat; Side
    # Effects?(d8): 1-6 = No, 7-8 = Yes"; L1333: "doing extra damage" (one level more, as A04); L1335:
    # "hitting everyone (allies as well as enemies)": the default tactics take the first of each list.
    # d8 3: next round; d8 8: a side effect: Structure to Foe, and to Pal (an ally) and Other
    log = fight(tmp_path, HITS_FOE, [8, 7, 3, 8])
    assert between(log, "  Advantage", "No side") == [
        "  Advantage: Hitter uses Brawl on Foe, Difficult: 2d8 [8 7] = 15: overkill",
        "    Overkill, the sample chart (L1322-1331): duration d8 3, next round; side effect d8 8, everyone",
        "    Hitter does extra damage: one level more (L1333)",
        "    Structure to Foe",
        "    Foe takes a Structure wound: wounds (2/1/2) Wrecked 1",
        "    Scramble: Foe is -2 next round",
        "    the Overkill strikes Pal too (L1335)",
        "    Structure to Pal",
        "    Pal takes a Structure wound: wounds (2/1/2) Wrecked 1",
        "    Scramble: Pal is -2 next round",
        "    the Overkill strikes Other too (L1335)",
        "    Structure to Other",
        "    Other takes a Structure wound: wounds (2/1/2) Wrecked 1",
        "    Scramble: Other is -2 next round",
    ]
    # no side effect on 1-6: the target alone
    log = fight(tmp_path, HITS_FOE, [8, 7, 3, 6])
    assert "    Overkill, the sample chart (L1322-1331): duration d8 3, next round; side effect d8 6, none" in log
    assert not any("strikes" in line for line in log)


def test_a_defensive_modifier_for_the_rest_of_combat_and_a_berserker_rage(tmp_path):
    # L1333-1334 "gaining a Defensive Modifier" (PROPOSAL: -1, the least of the DM table, L1260-1276),
    # for "remainder of combat" on a duration d8 of 7 (L1329); L1336-1337 "not being able to take
    # defensive actions for a while (locked in a berserker rage)": in round 2 his Dodge is refused, and
    # Foe's Blast on him is -1; both start the round after (A24)
    tactics = HITS_FOE + ('fn robomacs.overkill_boon(c, t, enc) = "defensive modifier"\n'
                          'fn robomacs.overkill_bane(c, t, enc) = "berserk"\n')
    log = fight(tmp_path, tactics, [8, 7, 7, 7, 5, 5], until="round > 2")
    assert between(log, "  Advantage", "No side") == [
        "  Advantage: Hitter uses Brawl on Foe, Difficult: 2d8 [8 7] = 15: overkill",
        "    Overkill, the sample chart (L1322-1331): duration d8 7, rest of combat; side effect d8 7, berserk",
        "    Hitter gains a Defensive Modifier: -1 to be hit, rest of combat (L1333-1334)",
        "    Hitter is locked in a berserker rage: no defensive actions, rest of combat (L1336-1337)",
        "    Metal to Foe",
        "    Foe takes a Metal wound: wounds (1/2/2) Wrecked 1",
        "Round 2",
        "  Advantage: Hitter cannot dodge: in a berserker rage he takes no defensive actions (L1336-1337)",
        "  Advantage: Foe uses Blast on Hitter, Difficult: 2d8 [5 5] -1 (Overkill's Defensive Modifier) = 9: mixed",
        "    Mixed: one damage level less (A05)",
        "    Bone to Hitter",
        "    a Bone wound does nothing to a Robo (L2338-2340)",
    ]
    # "Only for next round" (d8 1-6): in round 3 the rage is over and he dodges
    log = fight(tmp_path, tactics, [8, 7, 2, 7, 5, 5, 6, 6, 6, 6], until="round > 3")
    assert "  Advantage: Hitter cannot dodge: in a berserker rage he takes no defensive actions (L1336-1337)" in log
    assert "  Advantage: Hitter dodges Foe, Routine: 2d8 [6 6] = 12: success" in between(log, "Round 3")


def test_an_energy_drain_leaves_him_d8_actions_before_he_drops(tmp_path):
    # L1337: "draining energy reserves dangerously (only d8 actions before you drop)": d8 2, his Dodge in
    # round 2 is the first, in round 3 the second, and he drops (System Shutdown)
    tactics = HITS_FOE + 'fn robomacs.overkill_bane(c, t, enc) = "drain"\n'
    log = fight(tmp_path, tactics, [8, 7, 1, 8, 2, 1, 1, 1, 1, 1, 1, 1, 1], until="round > 4")
    assert "    Hitter's energy reserves drain dangerously: only 2 actions before he drops (L1337)" in log
    assert between(log, "Round 3", "Round 4")[1:3] == ["  Advantage: Hitter dodges Foe, Routine: 2d8 [1 1] = 2: failure",
                                                       "    Hitter's energy reserves run dry: he drops (L1337)"]
    assert between(log, "Round 4", "No side") == ["Round 4", "  Advantage: Foe's Blast has no target: Hitter is shutdown"]
    assert log.count("    Hitter's energy reserves run dry: he drops (L1337)") == 1


def test_an_overkill_that_gains_actions_in_both_phases(tmp_path):
    # L1333-1334 "Possible effects include ... gaining actions in both Advantage and Responsive phases":
    # duration d8 3, next round (L1328); side effect d8 1, none. From round 2 (A24) Hitter acts on
    # Advantage and again on Responsive, his actions asked for again; in round 3 on Advantage alone
    tactics = ('fn robomacs.plan_for(c, enc) = match c {\n Hitter => plan("advantage", [act("Brawl", Foe)])\n else => plan("none", [])\n}\n'
               'fn robomacs.overkill_boon(c, t, enc) = "both phases"\n')
    log = fight(tmp_path, tactics, [8, 7, 3, 1, 5, 5, 4, 4, 3, 3], until="round > 3")
    assert between(log, "  Advantage", "No side") == [
        "  Advantage: Hitter uses Brawl on Foe, Difficult: 2d8 [8 7] = 15: overkill",
        "    Overkill, the sample chart (L1322-1331): duration d8 3, next round; side effect d8 1, none",
        "    Hitter gains actions in both the Advantage and Responsive phases, next round (L1334)",
        "    Metal to Foe",
        "    Foe takes a Metal wound: wounds (1/2/2) Wrecked 1",
        "Round 2",
        "  Advantage: Hitter uses Brawl on Foe, Difficult: 2d8 [5 5] = 10: success",
        "    Metal to Foe",
        "    Foe takes a Metal wound: wounds (0/2/2) Wrecked 1",
        "  Responsive: Hitter uses Brawl on Foe, Difficult: 2d8 [4 4] = 8: failure",
        "    a miss",
        "Round 3",
        "  Advantage: Hitter uses Brawl on Foe, Difficult: 2d8 [3 3] = 6: failure",
        "    a miss",
    ]


def test_finding_a_new_system_wakes_a_dormant_one_for_the_charts_duration(tmp_path):
    # L1334 "finding new systems" has no rule. The PROPOSAL of option found_systems "dormant": a system
    # marked `dormant true` works only once a sample Overkill finds it, from the next round (A24) for the
    # chart's duration (d8 3: next round, L1328); the default tactics pick "new system" while one is
    # dormant. Round 2: the found Megaweapon makes Godcannon Shot his strongest attack (L667-671);
    # round 3 it is dormant again: Brawl. With found_systems "none" (the default) it never works, and
    # the Overkill does extra damage (A04)
    characters = ('character Hitter is RoboMAC { skill Brawl  skill "Godcannon Shot"  system Massdriver { is "Megaweapon"  dormant true } }\n'
                  "character Foe is RoboMAC { armored 2 }")
    tactics = 'fn robomacs.plan_for(c, enc) = match c { Foe => plan("none", []); else => default_plan(c, enc) }\n'
    faces = [8, 7, 3, 1, 5, 5, 5, 5]
    log = run(tmp_path, script(characters, tactics, SAMPLE + ('found_systems: "dormant"',), until="round > 3"), faces)
    assert between(log, "  Advantage", "No side") == [
        "  Advantage: Hitter uses Brawl on Foe, Difficult: 2d8 [8 7] = 15: overkill",
        "    Overkill, the sample chart (L1322-1331): duration d8 3, next round; side effect d8 1, none",
        "    Hitter finds a new system, his Massdriver: it works for the next round (L1334, a proposal)",
        "    Metal to Foe",
        "    Foe takes a Metal wound: wounds (7/8/5) Wrecked 4",
        "Round 2",
        "  Advantage: Hitter uses Godcannon Shot on Foe (Massdriver), Tasking: 2d8 [5 5] = 10: mixed",
        "    Mixed: one damage level less (A05)",
        "    Structure to Foe",
        "    Foe takes a Structure wound: wounds (7/7/5) Wrecked 4",
        "    Scramble: Foe is -2 next round",
        "Round 3",
        "  Advantage: Hitter uses Brawl on Foe, Difficult: 2d8 [5 5] = 10: success",
        "    Metal to Foe",
        "    Foe takes a Metal wound: wounds (6/7/5) Wrecked 4",
    ]
    # d8 7: for the rest of combat (L1329): Godcannon Shot in round 3 too
    log = run(tmp_path, script(characters, tactics, SAMPLE + ('found_systems: "dormant"',), until="round > 3"), [8, 7, 7, 1, 5, 5, 5, 5])
    assert "    Hitter finds a new system, his Massdriver: it works for the rest of combat (L1334, a proposal)" in log
    assert sum("uses Godcannon Shot" in line for line in log) == 2
    log = run(tmp_path, script(characters, tactics, SAMPLE, until="round > 3"), faces)
    assert "    Hitter does extra damage: one level more (L1333)" in log and not any("Godcannon" in line for line in log)


# ---- Holograms: the observers' roll (L899-901, option hologram_detection "roll") ----

PHANTOM = ("character Phantom is RoboMAC { gadgets 0  skill Blast  system Holograms }\n"
           "character Hunter is RoboMAC { skill Blast }\ncharacter Dupe is RoboMAC { skill Blast }")
HIDES = ('fn robomacs.plan_for(c, enc) = match c {\n Phantom => match enc.round { 1 => plan("advantage", [act("Holograms", none)]); '
         'else => plan("none", []) }\n else => plan("advantage", [act("Blast", Phantom)])\n}\n')


def test_observers_roll_the_degree_of_the_image_to_see_its_flaws_then_attack_at_minus_2(tmp_path):
    # L899-901: "Degree rolled by user is the degree needed by observers to detect flaws in the image.
    # If used to simulate Invisibility, it works like that system but only confers -2 penalty to
    # attackers who know where he is". Phantom raises Holograms at Difficult in round 1; at the start of
    # round 2 Hunter rolls 10 (Difficult success) and sees through them, Dupe rolls 8 (failure): Hunter
    # attacks at -2, Dupe cannot attack; in round 3 only Dupe looks again (Hunter keeps what he saw)
    text = script(PHANTOM, HIDES, ('hologram_detection: "roll"',), until="round > 3")
    log = run(tmp_path, text, [5, 5, 5, 5, 4, 4, 5, 5, 4, 4, 7, 7, 3, 3])
    assert between(log, "Round 2") == [
        "Round 2",
        "  Hunter looks for the flaws in Phantom's Holograms (L899-900), Difficult: 2d8 [5 5] = 10: success",
        "    Hunter sees through them: he knows where Phantom is (-2 to hit him, L900-901)",
        "  Dupe looks for the flaws in Phantom's Holograms (L899-900), Difficult: 2d8 [4 4] = 8: failure",
        "  Advantage: Hunter uses Blast on Phantom, Difficult: 2d8 [5 5] -2 (Holograms) = 8: failure",
        "    a miss",
        "  Advantage: Dupe cannot use Blast on Phantom: Phantom cannot be seen or attacked without a Sensor Pack (L902-903)",
        "Round 3",
        "  Dupe looks for the flaws in Phantom's Holograms (L899-900), Difficult: 2d8 [4 4] = 8: failure",
        "  Advantage: Hunter uses Blast on Phantom, Difficult: 2d8 [7 7] -2 (Holograms) = 12: success",
        "    the hit switches off Phantom's Holograms for the rest of combat (L904)",
        "    Metal to Phantom",
        "    Phantom takes a Metal wound: wounds (2/2/2) Wrecked 1",
        "  Advantage: Dupe uses Blast on Phantom, Difficult: 2d8 [3 3] = 6: failure",
        "    a miss",
        "No side has won: a, b still stand.",
    ]


def test_the_default_tactics_attack_one_who_saw_through_the_image_and_point_him_out(tmp_path):
    # the default plan picks a foe it can attack (pick_target): once Hunter has seen the flaws, Phantom
    # is his target (Dupe, who failed, has no one to attack). Holograms work "like [Invisibility] but
    # only confer -2 penalty to attackers who know where he is" (L900-901), and one invisible "is
    # pointed out by someone" (L903): Hunter points him out to Dupe (free, option point_out), who
    # attacks him at -2 in round 3
    tactics = ('fn robomacs.plan_for(c, enc) = match c {\n Phantom => match enc.round { 1 => plan("advantage", '
               '[act("Holograms", none)]); else => plan("none", []) }\n else => default_plan(c, enc)\n}\n')
    text = script(PHANTOM, tactics, ('hologram_detection: "roll"',), until="round > 3")
    log = run(tmp_path, text, [5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 6, 6])
    assert between(log, "Round 2", "No side") == [
        "Round 2",
        "  Hunter looks for the flaws in Phantom's Holograms (L899-900), Difficult: 2d8 [5 5] = 10: success",
        "    Hunter sees through them: he knows where Phantom is (-2 to hit him, L900-901)",
        "  Dupe looks for the flaws in Phantom's Holograms (L899-900), Difficult: 2d8 [4 4] = 8: failure",
        "  Advantage: Hunter points out Phantom to Dupe (L903, no action spent): he can be attacked now, though hard to hit",
        "  Advantage: Hunter uses Blast on Phantom, Difficult: 2d8 [4 4] -2 (Holograms) = 6: failure",
        "    a miss",
        "Round 3",
        "  Advantage: Hunter uses Blast on Phantom, Difficult: 2d8 [4 4] -2 (Holograms) = 6: failure",
        "    a miss",
        "  Advantage: Dupe uses Blast on Phantom, Difficult: 2d8 [6 6] -2 (Holograms) = 10: success",
        "    the hit switches off Phantom's Holograms for the rest of combat (L904)",
        "    Metal to Phantom",
        "    Phantom takes a Metal wound: wounds (2/2/2) Wrecked 1",
    ]


# ---- pointed out (L903, option point_out) ----

SEEN = ('character Seer is RoboMAC { gadgets 0  skill Blast  system "Sensor Pack" }\ncharacter Hunter is RoboMAC { skill Blast }\n'
        "character Ghost is RoboMAC { gadgets 0  skill Blast  system Invisibility }")
GHOST_WAITS = 'fn robomacs.plan_for(c, enc) = match c { Ghost => plan("none", []); else => default_plan(c, enc) }\n'


def test_one_who_sees_the_invisible_points_him_out_and_his_side_attacks_at_minus_4(tmp_path):
    # L902-904: "As long as no weapons are used, user cannot be attacked or seen without Sensor Pack. If
    # he fires or is pointed out by someone, he's still -4 to be hit". Seer (a Sensor Pack, L932-933)
    # points Ghost out, free by default (the text names no cost; option point_out), and misses; Hunter,
    # who planned nothing in round 1 (no foe he could see), attacks him in round 2 at -4
    log = run(tmp_path, script(SEEN, GHOST_WAITS, sides=("Seer, Hunter", "Ghost"), until="round > 2"), [4, 4, 4, 4, 7, 7])
    assert between(log, "Round 1", "No side") == [
        "Round 1",
        "  Advantage: Seer points out Ghost to Hunter (L903, no action spent): he can be attacked now, though hard to hit",
        "  Advantage: Seer uses Blast on Ghost, Difficult: 2d8 [4 4] = 8: failure",
        "    a miss",
        "Round 2",
        "  Advantage: Seer uses Blast on Ghost, Difficult: 2d8 [4 4] = 8: failure",
        "    a miss",
        "  Advantage: Hunter uses Blast on Ghost, Difficult: 2d8 [7 7] -4 (Invisibility) = 10: success",
        "    the hit switches off Ghost's Invisibility for the rest of combat (L904)",
        "    Metal to Ghost",
        "    Ghost takes a Metal wound: wounds (2/2/2) Wrecked 1",
    ]


def test_pointing_out_as_an_action_pays_map_and_needs_one_who_sees_him(tmp_path):
    # point_out "action": pointing out is an action, so combined with an attack both pay MAP (L1204-1206);
    # the default tactics leave it to a script (Seer's default plan only attacks). Hunter, without a
    # Sensor Pack, cannot point out one he cannot see either
    log = run(tmp_path, script(SEEN, GHOST_WAITS, ('point_out: "action"',), ("Seer, Hunter", "Ghost")), [4, 4])
    assert between(log, "  Advantage", "No side") == ["  Advantage: Seer uses Blast on Ghost, Difficult: 2d8 [4 4] = 8: failure",
                                                      "    a miss"]
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Ghost => plan("none", []); Seer => plan("advantage", '
               '[act("point out", Ghost), act("Blast", Ghost)]); else => plan("advantage", [act("point out", Ghost)]) }\n')
    log = run(tmp_path, script(SEEN, tactics, ('point_out: "action"',), ("Hunter, Seer", "Ghost")), [4, 4])
    assert between(log, "  Advantage", "No side") == [
        "  Advantage: Hunter cannot point out Ghost: he cannot see him either (L902-903, L932-933)",
        "  Advantage: Seer points out Ghost to Hunter (L903): he can be attacked now, though hard to hit",
        "  Advantage: Seer uses Blast on Ghost, Difficult +1 (MAP) = Tasking: 2d8 [4 4] = 8: failure",
        "    a miss",
    ]


# ---- crashes and a turret limited to its elevation (L1683-1686, L1828-1832) ----

def test_a_crash_on_a_maneuvering_mishap_is_colour_from_the_scripts_table(tmp_path):
    # L1828-1832: "crashes are merely color and have no real combat effect. A Mishap on a Maneuvering
    # roll could put the player out of action for the rest of the round, however, as he pulls out of
    # the side of a building": the tactic crash_site (none by default) names the crash, from a script's
    # crash table on a d8 (7 here), after the Mishap (2 on Difficult, L1160)
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Truck => plan("advantage", [act("Blast", Racer)]); else => plan("none", []) }\n'
               'fn robomacs.maneuvers_for(c, t, enc) = match c { Truck => [facing_act("change facing", t, "front")]; else => [] }\n'
               "fn robomacs.chase_for(c, enc) = match c { Truck => Racer; else => none }\n"
               'table crashes { 7 => "through the side of a building", else => "into a ditch" }\n'
               "fn robomacs.crash_site(c, enc) = crashes[d8]\n")
    log = run(tmp_path, script(RACER + "\n" + TRUCK, tactics), [1, 1, 5, 3, 1, 1, 1, 1, 7])
    assert between(log, "  Maneuvering: Truck changes", "No side") == [
        "  Maneuvering: Truck changes facing to front toward Racer (L1722-1725), Difficult: 2d8 [1 1] = 2: mishap",
        "    Mishap: Truck is out of action for the rest of the round (L1830-1832)",
        "    Truck crashes: through the side of a building (colour only: a Robo rights himself by transforming, L1828-1830)",
    ]


def test_a_turret_limited_to_its_elevation_fires_all_round_but_not_straight_up_or_down(tmp_path):
    # L1683-1686: "If you have '360 degree' coverage of weapons that is actually limited to your
    # elevation (such as for a car that's currently flying) then locations 1 and 8 also prevent
    # firing": `arcs "level"`. Round 1 directly above (elevation d8 1): no shot; round 2 above (2), his
    # left to Truck: the turret fires with no turn (the default moves turn only a forward arc)
    racer = 'character Racer is RoboMAC { skill Blast  system "Combat Form"  form "vehicle"  arcs "level" }'
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Racer => plan("advantage", [act("Blast", Truck)]); else => plan("none", []) }\n'
               "fn robomacs.chase_for(c, enc) = match c { Racer => Truck; else => none }\n")
    text = script(racer + '\ncharacter Truck is RoboMAC { form "vehicle" }', tactics, ("aerial: true",), until="round > 2")
    log = run(tmp_path, text, [5, 1, 3, 1, 1, 3, 4, 3, 1, 2, 3, 4, 6, 6])
    assert log[5:10] == [
        "  Maneuvering: Racer chases Truck: his left faces Truck's left, Close, directly above",
        "  Advantage: Racer cannot use Blast on Truck: Truck is not in his arc of fire: his left faces Truck's left, "
        "Close, directly above (L1635-1639, L1683-1686)",
        "Round 2",
        "  Maneuvering: Racer chases Truck: his left faces Truck's left, Close, above",
        "  Advantage: Racer uses Blast on Truck, Difficult: 2d8 [6 6] = 12: success",
    ]


# ---- arcs of fire from the sides named (L1635) ----

def test_a_vehicle_fires_from_the_sides_it_names_and_turns_the_nearest_one_on_his_foe(tmp_path):
    # L1635: "If you do have Combat Mode, you should define what facings you can fire into": Gunboat's
    # broadsides, `arcs ["left", "right"]`. Initiative 8 and 1; he chases Truck: his front (d8 1) faces
    # Truck's left (3), Close (1). The default moves turn the nearest of his sides on him (right, the
    # first on a tie; Difficult, L1722-1725), and the default plan fires with him in the arc
    gunboat = 'character Gunboat is RoboMAC { skill Blast  system "Combat Form"  form "vehicle"  arcs ["left", "right"] }'
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Truck => plan("none", []); else => default_plan(c, enc) }\n'
               'fn robomacs.maneuvers_for(c, t, enc) = match c { Truck => []; else => default_maneuvers(c, t, enc) }\n')
    log = run(tmp_path, script(gunboat + "\n" + TRUCK, tactics), [8, 1, 1, 1, 3, 5, 5, 6, 6])
    assert between(log, "  Maneuvering: Gunboat", "No side") == [
        "  Maneuvering: Gunboat chases Truck: his front faces Truck's left, Close",
        "  Maneuvering: Gunboat changes facing to right toward Truck (L1722-1725), Difficult: 2d8 [5 5] = 10: success",
        "    his right faces Truck's left, Close",
        "  Maneuvering: Truck takes on Gunboat: a Dogfight, no new positions (L1704-1708): his left faces Gunboat's right, Close",
        "  Advantage: Gunboat uses Blast on Truck, Difficult: 2d8 [6 6] = 12: success",
        "    Metal to Truck",
        "    Truck takes a Metal wound: wounds (1/2/2) Wrecked 1",
    ]


def test_a_tail_gun_does_not_bear_forward_and_a_dogfight_foe_gets_out_of_its_arc(tmp_path):
    # `arcs "back"`: a tail gun. With his front on Truck, Tail's attack is refused (L1635-1639)
    tail = 'character Tail is RoboMAC { skill Blast  system "Combat Form"  form "vehicle"  arcs "back" }'
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Tail => plan("advantage", [act("Blast", Truck)]); else => plan("none", []) }\n'
               "fn robomacs.maneuvers_for(c, t, enc) = []\n")
    log = run(tmp_path, script(tail + "\n" + TRUCK, tactics), [8, 1, 1, 1, 3])
    assert log[-2] == ("  Advantage: Tail cannot use Blast on Truck: Truck is not in his arc of fire: his front faces Truck's "
                       "left, Close (L1635-1639, L1683-1686)")
    # L1730-1731, Enter (foe's) Facing "if you want to prevent an opponent from shooting at you": in the
    # Dogfight Racer, faced by Tail's back, moves to the nearest of Tail's sides that does not fire (his
    # right), Difficult
    racer = RACER.replace("fast 0  weapons 0  ", "")
    tactics = QUIET + 'fn robomacs.maneuvers_for(c, t, enc) = match c { Tail => []; else => default_maneuvers(c, t, enc) }\n'
    log = run(tmp_path, script(tail + "\n" + racer, tactics), [8, 1, 7, 1, 1, 5, 5])
    assert between(log, "  Maneuvering: Tail", "No side") == [
        "  Maneuvering: Tail chases Racer: his back faces Racer's front, Close",
        "  Maneuvering: Racer takes on Tail: a Dogfight, no new positions (L1704-1708): his front faces Tail's back, Close",
        "  Maneuvering: Racer enters Tail's facing, to his right (L1730-1734), Difficult: 2d8 [5 5] = 10: success",
        "    his front faces Tail's right, Close",
    ]


def test_arcs_the_text_does_not_name_are_an_error_at_the_declaration(tmp_path):
    # a number, a truth value or an empty list too: none of them is a word, a side or a list of sides
    for arcs, shown in (('"forward"', '"forward"'), ('["front", "sides"]', '["front", "sides"]'), ("3", "3"), ("true", "true"),
                        ("[]", "[]")):
        path = tmp_path / "fight.mech"
        path.write_text(script(f'character Bad is RoboMAC {{ skill Blast  system "Combat Form"  form "vehicle"  arcs {arcs} }}\n'
                               + TRUCK))
        ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
        assert ran.code == 1 and "Traceback" not in ran.err
        first, line, caret = ran.err.splitlines()[:3]
        assert first == (f"{path}:2:11: Bad's arcs {shown} are not arcs of fire (L1635): \"none\", \"all\", \"level\", "
                         "a side (front, right, back, left, top, bottom) or a list of sides")
        assert line.startswith("  character Bad is RoboMAC") and caret == "            ^~~"


# ---- the Merge's prerequisite (L820-823, L829; option merge_prerequisite) ----

def test_merge_needs_the_trait_transforming(tmp_path):
    # L820-823: "1.5.2.2 Transforming Systems. Must have Trait Transforming to use these systems", and
    # Merge is one (L829): Beta, without the Trait, cannot merge, and the Merge into Titan fails;
    # merge_prerequisite "system" (the module's former reading) lets the system alone do
    characters = ("character Alpha is RoboMAC { brawn 0  transforming true  system Merge }\n"
                  "character Beta is RoboMAC { brawn 0  system Merge }\n"
                  'character Titan is RoboMAC { brawn 1  skill Brawl  members [Alpha, Beta]  status "unformed" }\n'
                  "character Foe is RoboMAC { }")
    tactics = ('fn robomacs.plan_for(c, enc) = match c {\n Alpha => plan("advantage", [act("merge", none)])\n'
               ' Beta => plan("advantage", [act("merge", none)])\n else => plan("none", [])\n}\n')
    text = script(characters, tactics, sides=("Alpha, Beta, Titan", "Foe"), until="round > 1")
    assert between(run(tmp_path, text, []), "  Advantage", "No side") == [
        "  Advantage: Alpha merges, his round taken (L830)",
        "  Advantage: Beta cannot merge: Merge needs the Trait Transforming (L822)",
        "  the Merge into Titan fails this round: 1 of 2 members merged unhurt (L830)",
    ]
    text = script(characters, tactics, ('merge_prerequisite: "system"',), ("Alpha, Beta, Titan", "Foe"), "round > 1")
    assert between(run(tmp_path, text, []), "  Advantage", "No side") == [
        "  Advantage: Alpha merges, his round taken (L830)",
        "  Advantage: Beta merges, his round taken (L830)",
        "  Alpha, Beta merge into Titan (L829-836)",
    ]


# ---- the defaults play as before ----

def test_by_default_no_sample_chart_no_observers_roll_no_crash(tmp_path):
    # overkill_effect "level" (A04): one level more, no d8; hologram_detection "none": no one looks;
    # crash_site none: the Mishap alone
    log = fight(tmp_path, HITS_FOE, [8, 7], settings=())
    assert "    Overkill: one damage level more (A04)" in log and not any("sample" in line for line in log)
    log = run(tmp_path, script(PHANTOM, HIDES, until="round > 2"), [5, 5])
    assert between(log, "Round 2", "No side") == [
        "Round 2",
        "  Advantage: Hunter cannot use Blast on Phantom: Phantom cannot be seen or attacked without a Sensor Pack (L902-903)",
        "  Advantage: Dupe cannot use Blast on Phantom: Phantom cannot be seen or attacked without a Sensor Pack (L902-903)",
    ]
