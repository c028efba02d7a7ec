"""Neo-Jove in play (issue 19, item 3): the Scarlet Curtain in a fight (rule text 004, L737-757; digest
4.17 and P27) and attacks aimed at components (L497-505). Faces are d10 faces in the order they fall,
as in tests/test_neojove.py, whose helpers (the duel of Lance and Pike at Close) these use."""

from __future__ import annotations

from support import run_json
from test_neojove import CREW, duel, pilot

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
    # too); turn 4 reads Point Blank: nothing, ED 1 + 2 = 3. Lance's weak missiles miss throughout
    rules = ('fn neojove.aims_at(att, def, w, enc) {\n if enc.round == 2 { Pike.scarlet_on = false }\n return none\n}\n')
    weak = MISSILE.replace("attack 1", "attack -5")
    text = duel(weak, "", crew=TRAINED, pike="scarlet 8", rules=rules, until="round > 4")
    ran = run_json(tmp_path, text, (START + [1, 1]) * 4 + [1, 1])      # turn 4 hits: a critical roll
    shots = [line for line in ran["log"] if "fires Missiles" in line]
    assert "(Scarlet Curtain 8 at Close: Electronic 4 -> 5, L737-757)" in shots[0]
    assert "(Scarlet Curtain 8 at Close: Electronic 4 -> 5, L737-757)" in shots[1]     # stopped this turn: full
    assert "(Scarlet Curtain 8 at Very Close: Electronic 4 -> 5, L737-757)" in shots[2]
    assert "(Scarlet Curtain 8 at Point Blank: Electronic 4 -> 3, L737-757)" in shots[3]


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
