"""Neo-Jove in play (issue 19, item 3): the Scarlet Curtain in a fight (rule text 004, L737-757; digest
4.17 and P27), at a unit or at a point, and on a Command Cockpit (L753); attacks aimed at components
(L497-505) and critical hits that break components (L561-573, P22). Faces are d10 faces in the order
they fall, as in tests/test_neojove.py, whose helpers (the duel of Lance and Pike at Close) these use."""

from __future__ import annotations

from support import mech_forked, run_json
from test_neojove import CREW, duel, pilot, skirmish

MISSILE = '    weapon Missiles { type "electronic" attack 1 glance 4 solid 6 solid_at 4 range "Moderate" crit 15 }\n'
TRAINED = CREW.replace("gunnery 2 }", "gunnery 2  electronic_warfare 2 }", 1)       # Ann only
# Positioning 6+4 and 3+2 (22 against 17, +2 for Lance, tests/test_neojove.py); then Lance's 2d10
START = [6, 4, 3, 2]


def test_the_curtain_halves_the_targets_own_electronic_defense_and_adds_its_strength_by_range(tmp_path):
    # L737-753 with P27: Pike emits a Curtain of strength 6 (scenario data: the text gives none); at
    # Close it works at a third (L749): Electronic Defense 4 (the suit's 2 + Clarity 2) becomes
    # floor(2 / 2) + 2 + floor(6 / 3) = 5. Without the Curtain, 4
    ran = run_json(tmp_path, duel(MISSILE, "", crew=TRAINED, pike="scarlet 6"), START + [7, 5, 1, 1])
    assert ran["log"][4] == ("  Lance fires Missiles at Pike (Close): 2d10 7 5 = 12 + 5 + 3 positioning = 20 vs Electronic Defense 5 "
                             "(Scarlet Curtain 6 at Close: Electronic 4 -> 5, L737-757): hit by 15, solid")
    ran = run_json(tmp_path, duel(MISSILE, "", crew=TRAINED), START + [7, 5, 1, 1])
    assert ran["log"][4].endswith("= 20 vs Electronic Defense 4: hit by 16, solid")


def test_curtains_stack_by_doublings_and_reach_only_within_not_so_close_of_an_emitter(tmp_path):
    # L755: two emitters of 4: ratio 2, strength 5; at Close a third: floor(5/3) = 1 -> ED 1 + 2 + 1 = 4.
    # A Kinetic weapon is not touched (the Curtain is on Electronic Defense, L741)
    rifle = '    weapon Rifle { type "kinetic" attack 1 glance 4 range "Moderate" crit 15 }\n'
    text = duel(MISSILE + rifle, "", crew=TRAINED, pike="scarlet 4", lance="scarlet 4")
    ran = run_json(tmp_path, text, START + [7, 5, 1, 1])
    assert "(Scarlet Curtain 5 at Close: Electronic 4 -> 4, L737-757)" in ran["log"][4]
    # at Moderate (6 brackets) both units are beyond Not So Close (4) of the emitter: no Curtain; a
    # third unit far off emits it
    far = duel(MISSILE, "", crew=TRAINED + pilot("Cy"), lance="scarlet 0").replace('start_range: "Close"', 'start_range: "Moderate"')
    ran = run_json(tmp_path, far, START + [7, 5, 1, 1])
    assert "Scarlet" not in ran["log"][4] and "vs Electronic Defense 4" in ran["log"][4]


def test_a_curtain_decays_once_its_emitter_is_shot_down(tmp_path):
    # L757: "when they are no longer being replenished (due to deactivation or destruction) the effect
    # will degrade over time. For every turn that passes, treat all units as being progressively one
    # step 'closer'". Pike's Curtain of 8, switched off by the script in turn 2: at Close (3) turn 3
    # reads Very Close (2), a quarter: floor(8/4) = 2, ED 1 + 2 + 2 = 5 (turns 1 and 2: floor(8/3) = 2
    # too); turn 4 reads Point Blank, where the Curtain gives nothing (L751): it has decayed away there,
    # and its halving (L753) with it (option curtain_decay "gone"), ED 4 as with no Curtain. Lance's weak
    # missiles miss throughout
    rules = ('fn neojove.aims_at(att, def, w, enc) {\n if enc.round == 2 { Pike.scarlet_on = false }\n return none\n}\n')
    weak = MISSILE.replace("attack 1", "attack -5")

    def shots(*settings):
        text = duel(weak, "", *settings, crew=TRAINED, pike="scarlet 8", rules=rules, until="round > 4")
        ran = run_json(tmp_path, text, (START + [1, 1]) * 4 + [1, 1])      # turn 4 may hit: a critical roll
        return [line for line in ran["log"] if "fires Missiles" in line]

    fading = shots()
    assert "(Scarlet Curtain 8 at Close: Electronic 4 -> 5, L737-757)" in fading[0]
    assert "(Scarlet Curtain 8 at Close: Electronic 4 -> 5, L737-757)" in fading[1]     # stopped this turn: full
    assert "(Scarlet Curtain 8 at Very Close: Electronic 4 -> 5, L737-757)" in fading[2]
    assert "Scarlet" not in fading[3] and "vs Electronic Defense 4" in fading[3]
    # curtain_decay "halves": a decayed Curtain still halves the unit's own Electronic Defense, 1 + 2 = 3
    assert "(Scarlet Curtain 8 at Point Blank: Electronic 4 -> 3, L737-757)" in shots('curtain_decay: "halves"')[3]


def test_a_curtain_emitted_at_a_point_reaches_units_within_not_so_close_of_it_and_decays(tmp_path):
    # L741: "Any weapons firing into or out of a distance within the Not So Close range bracket of the
    # emitting unit or point are effected": option scarlet_points, CurtainPoints of the line (Lance at 0,
    # Pike at Close, 3). A point of strength 6 at 7 is Not So Close (4) to Pike: at Close a third,
    # ED 1 + 2 + 2 = 5 (as a unit's Curtain of 6, the first test); at 8 it reaches neither unit. The
    # missiles are too weak to hit (no critical rolls): the target numbers are what is checked
    weak = MISSILE.replace("attack 1", "attack -7")

    def shots(point, turns):
        canister = f"character Canister is CurtainPoint {{ {point} }}\n"
        text = duel(weak, "", "scarlet_points: [Canister]", crew=TRAINED, rules=canister, until=f"round > {turns}")
        ran = run_json(tmp_path, text, (START + [1, 1]) * turns)
        return [line for line in ran["log"] if "fires Missiles" in line]

    assert "(Scarlet Curtain 6 at Close: Electronic 4 -> 5, L737-757)" in shots("place 7  strength 6", 1)[0]
    far = shots("place 8  strength 6", 1)[0]
    assert "Scarlet" not in far and "vs Electronic Defense 4" in far
    # L757: no longer replenished after turn 1 (`stops 1`), turn 2 treats them one bracket closer: Very
    # Close, a quarter: floor(6/4) = 1, ED 1 + 2 + 1 = 4; turn 3 Point Blank: nothing left (L751,
    # option curtain_decay), ED 4 as with no Curtain
    fading = shots("place 7  strength 6  stops 1", 3)
    assert "(Scarlet Curtain 6 at Close: Electronic 4 -> 5, L737-757)" in fading[0]
    assert "(Scarlet Curtain 6 at Very Close: Electronic 4 -> 4, L737-757)" in fading[1]
    assert "Scarlet" not in fading[2] and "vs Electronic Defense 4" in fading[2]


def test_a_curtain_halves_a_leaders_command_cockpit(tmp_path):
    # L753: "A unit under a Scarlet Curtain halves ... the effects of any specialized communication gear
    # it may have"; the text names no such gear, and the module reads the Command Cockpit ("in-flight
    # tactical management", L731: +100% to Command) as one (option curtain_comms). Ann's Command static is
    # Intellect 1 + Charisma 1 + Leadership 2 = 4, 8 with the cockpit (P33); under Pike's Curtain (Lance
    # is at Close, within Not So Close of it, P27) the cockpit adds half: 4 + 2 = 6. Tactical Initiative
    # (L429): 9+8 + 6 = 23 against 5+5 + 2 = 12, margin 11, +3; without the Curtain 25, margin 13, +4
    crew = CREW.replace("piloting 1  gunnery 2 }", "piloting 1  gunnery 2  leadership 2 }", 1)
    faces = [9, 8, 5, 5, 6, 4, 3, 2, 7, 5, 8, 7, 2, 2, 1, 1]

    def initiative(*settings, pike="scarlet 6"):
        text = skirmish("tactical_initiative: true", *settings, lance='controls ["command_cockpit"]', pike=pike, crew=crew)
        return run_json(tmp_path, text, faces)["log"][3:6]

    assert initiative() == ["  Tactical Initiative: Lance is under a Scarlet Curtain: its Command Cockpit adds half (L753), Command 8 -> 6",
                            "  Tactical Initiative: Lance 23, Pike 12: white wins by 11, +3",
                            "  Positioning: Lance 25; Pike 17"]
    assert initiative(pike="")[:2] == ["  Tactical Initiative: Lance 25, Pike 12: white wins by 13, +4", "  Positioning: Lance 26; Pike 17"]
    assert initiative('curtain_comms: "none"')[:2] == ["  Tactical Initiative: Lance 25, Pike 12: white wins by 13, +4",
                                                       "  Positioning: Lance 26; Pike 17"]


# ---- components aimed at (L497-505) ----

RIFLE = '    weapon Rifle {{ type "kinetic" attack 1 glance 4 solid 6 solid_at 4 range "Close" crit 15 space {space} }}\n'


def test_an_attack_aimed_at_an_external_weapon_disables_it_through_shields_only(tmp_path):
    # L497-499: "All weapons or other systems have a durability equal to their space"; "Components
    # carried externally are protected by Shields but are not protected by Armor"; L503: "at least 50%
    # damage it is disabled". Lance's Solid 6 on Pike's Rifle (space 10): armor 2 does not count, 6 of
    # 10: disabled, and Pike cannot fire it (the tactic `aims_at` picks it)
    rules = "fn neojove.aims_at(att, def, w, enc) = match def { Pike => Pike.weapon[0]; else => none }\n"
    text = duel(RIFLE.format(space=4), RIFLE.format(space=10), rules=rules)
    ran = run_json(tmp_path, text, START + [7, 5, 1, 1])
    assert ran["log"][4].endswith(", aimed at its Rifle: hit by 15, solid")
    assert ran["log"][5:] == ["    solid 6, armor 0 -> 6 to its Rifle: 6 of 10, disabled", "      critical roll 1 1 = 2 vs 15: no critical",
                              "  Pike has no weapon that can fire"]
    assert ran["result"]["characters"]["Pike"]["durability_left"] == 10


def test_an_internal_component_cannot_be_aimed_at_unless_the_option_allows_it_then_armor_counts(tmp_path):
    # L500-502: internal components "are protected by both Shields and Armor. Note that in many cases an
    # internal component simply cannot be targeted": option aim_internal (false by default). Allowed,
    # Solid 6 - armor 2 = 4 on the Reactor (space 4): 4 of 4, destroyed (L504)
    rules = "fn neojove.aims_at(att, def, w, enc) = match def { Pike => Pike.component[0]; else => none }\n"
    pike = "component Reactor { space 4 }"
    ran = run_json(tmp_path, duel(RIFLE.format(space=4), "", rules=rules, pike=pike), START + [7, 5, 1, 1])
    assert ran["log"][4] == "  Lance cannot aim at Pike's internal Reactor: it cannot be targeted (L501-502)"
    assert ran["log"][6] == "    solid 6, armor 2 -> 4: Pike Durability 6 of 10"
    ran = run_json(tmp_path, duel(RIFLE.format(space=4), "", "aim_internal: true", rules=rules, pike=pike), START + [7, 5, 1, 1])
    assert ran["log"][5] == "    solid 6, armor 2 -> 4 to its Reactor: 4 of 4, destroyed"


# ---- critical hits on components (L561-573; option crit_effect "components") ----

GLANCING = RIFLE.replace("solid_at 4", "solid_at 20")     # every hit a Glance
COMPONENTS = 'crit_effect: "components"'


def test_a_surface_hit_disables_an_external_component_a_vital_hit_destroys_an_internal_one(tmp_path):
    # L563, L567: "Critical Hits reduce the ability of the unit in question to fight effectively";
    # "they are disabling or destroying components"; L569: a Glance's critical is a Surface Hit, a
    # Solid's a Vital Hit. The effect list is blank (L573, P22): with crit_effect "components", a
    # Surface Hit disables the first working external one (Pike's Rifle: it no longer fires), a Vital
    # Hit destroys the first internal one (the Reactor). Critical roll 9 6 = 15 against Crit 15
    ran = run_json(tmp_path, duel(GLANCING.format(space=4), RIFLE.format(space=10), COMPONENTS), START + [7, 5, 9, 6])
    assert ran["log"][4:] == [
        "  Lance fires Rifle at Pike (Close): 2d10 7 5 = 12 + 7 + 2 positioning = 21 vs Kinetic Defense 6: hit by 15, glance",
        "    glance 4, armor 2 -> 2: Pike Durability 8 of 10",
        "      critical roll 9 6 = 15 vs 15: a Surface Hit",
        "        the surface hit: its Rifle is disabled (L563, L567)",
        "  Pike has no weapon that can fire",
    ]
    text = duel(RIFLE.format(space=4), RIFLE.format(space=10), COMPONENTS, pike="component Reactor { space 4 }")
    ran = run_json(tmp_path, text, START + [7, 5, 9, 6, 1, 1, 1, 1])
    assert ran["log"][6:8] == ["      critical roll 9 6 = 15 vs 15: a Vital Hit", "        the vital hit: its Reactor is destroyed (L563, L567)"]
    assert ran["log"][8].startswith("  Pike fires Rifle at Lance")       # the Rifle, external, still works
    # by default (P22) the critical is counted and breaks nothing: Pike fires back
    ran = run_json(tmp_path, duel(GLANCING.format(space=4), RIFLE.format(space=10)), START + [7, 5, 9, 6, 1, 1, 1, 1])
    assert ran["log"][6] == "      critical roll 9 6 = 15 vs 15: a Surface Hit"
    assert ran["log"][7].startswith("  Pike fires Rifle at Lance")
    assert ran["result"]["characters"]["Pike"]["surface_hits"] == 1


def test_the_critical_of_a_hit_aimed_at_a_component_breaks_that_component(tmp_path):
    # L497-505 with L567: Lance's Solid 6 on Pike's Rifle (space 10, external: no armor) disables it (6
    # of 10, L503), and its Vital Hit destroys it (L504); the unit's own count is untouched
    rules = "fn neojove.aims_at(att, def, w, enc) = match def { Pike => Pike.weapon[0]; else => none }\n"
    text = duel(RIFLE.format(space=4), RIFLE.format(space=10), COMPONENTS, rules=rules)
    ran = run_json(tmp_path, text, START + [7, 5, 9, 6])
    assert ran["log"][5:] == ["    solid 6, armor 0 -> 6 to its Rifle: 6 of 10, disabled", "      critical roll 9 6 = 15 vs 15: a Vital Hit",
                              "        the vital hit: its Rifle is destroyed (L563, L567)", "  Pike has no weapon that can fire"]
    assert ran["result"]["characters"]["Pike"]["vital_hits"] == 0


def test_a_critical_with_no_component_left_breaks_nothing(tmp_path):
    # a unit with no working component: the critical is counted and has nothing to break
    ran = run_json(tmp_path, duel(GLANCING.format(space=4), "", COMPONENTS), START + [7, 5, 9, 6])
    assert ran["log"][6:8] == ["      critical roll 9 6 = 15 vs 15: a Surface Hit", "        the surface hit finds no component left to break"]


def test_the_critical_table_proposal_hits_sensors_verniers_or_a_gun_pod(tmp_path):
    # L573 "Critical Hit effect list goes here" is blank (P22). The PROPOSAL of option crit_effect
    # "table": a d10 per critical hit on the parts L563 names ("cameras, verniers, gun pods"), none doing
    # damage (L571): 1-4 sensors, -1 to the unit's attacks; 5-7 verniers, -1 to its Positioning; 8-10 a
    # gun pod, broken as crit_effect "components" breaks one; a Vital Hit -2; for the rest of the battle
    table = 'crit_effect: "table"'

    def fight(weapon, faces, until="round > 1"):
        return run_json(tmp_path, duel(weapon.format(space=4), RIFLE.format(space=10), table, until=until), START + [7, 5, 9, 6] + faces)["log"]

    # a Surface Hit, d10 2: sensors; Pike's shot back is 1 less (6 instead of 7)
    assert fight(GLANCING, [2, 1, 1, 1, 1])[6:9] == [
        "      critical roll 9 6 = 15 vs 15: a Surface Hit",
        '        the surface hit, d10 2: sensors ("cameras", L563): -1 to its attacks, -1 in all (crit_table, a proposal)',
        "  Pike fires Rifle at Lance (Close): 2d10 1 1 = 2 + 7 - 2 positioning - 1 sensors = 6 vs Kinetic Defense 6: hit by 0, glance",
    ]
    # d10 6: verniers; turn 2's Positioning is 5+5 + 12 - 1 = 16 (17 without)
    log = fight(GLANCING, [6, 1, 1, 1, 1] + START + [1, 1, 1, 1] * 2, until="round > 2")
    assert log[7] == "        the surface hit, d10 6: verniers (L563): -1 to its Positioning, -1 in all (crit_table, a proposal)"
    assert log[log.index("Turn 2") + 1] == "  Positioning: Lance 22; Pike 16"
    # d10 9: a gun pod: the Rifle, disabled
    assert fight(GLANCING, [9])[7:] == ["        the surface hit, d10 9: a gun pod or another component (L563; crit_table, a proposal)",
                                         "        the surface hit: its Rifle is disabled (L563, L567)", "  Pike has no weapon that can fire"]
    # a Solid's Vital Hit, d10 3: sensors -2: Pike's 2 + 7 - 2 - 2 = 5 misses
    log = fight(RIFLE, [3, 1, 1])
    assert log[7:9] == ['        the vital hit, d10 3: sensors ("cameras", L563): -2 to its attacks, -2 in all (crit_table, a proposal)',
                        "  Pike fires Rifle at Lance (Close): 2d10 1 1 = 2 + 7 - 2 positioning - 2 sensors = 5 vs Kinetic Defense 6: miss"]


def test_a_curtain_point_is_checked_as_a_character_is(tmp_path):
    # a CurtainPoint's entries are checked before the fight, at the script's own line
    canister = "character Canister is CurtainPoint { place 7  strenght 6 }\n"
    path = tmp_path / "fight.mech"
    path.write_text(duel(MISSILE, "", "scarlet_points: [Canister]", crew=TRAINED, rules=canister))
    ran = mech_forked(["run", str(path)], tmp_path)
    assert ran.code != 0 and "Traceback" not in ran.err
    assert "fight.mech:2:" in ran.err and "CurtainPoint has no stat `strenght`" in ran.err and "did you mean `strength`?" in ran.err
