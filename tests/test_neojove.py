"""Golden tests of the `neojove` module (rule text 004, Rise of Neo-Jove; digest
shared/rules/neo-jove.md, original text shared/seeds/004_74dfcb7ebf85d23a.txt, cited as `L<n>`;
`P<n>` is item n of the digest's section 7).

- the worked examples NJ1-NJ16 of the digest's section 5, and its derived vectors;
- the damage pipeline of 4.8, step by step and in its order;
- a short fight with fixed faces, every line checked against a hand computation;
- options changing what they name, user errors, and the two examples (`mech run` reads well and ends
  with a result; `mech sim` gives the same JSON twice).

Every script runs as a user runs it, `mech run FILE [--faces ...] --json`, in a forked child
(support.mech_forked). Faces are d10 faces in the order the dice fall (2d10: two faces).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support import keyed, run_json

ROOT = Path(__file__).resolve().parent.parent


def pilot(name: str, **stats) -> str:
    body = "  ".join(f"{key} {value}" for key, value in stats.items())
    return f"character {name} is Pilot {{ {body} }}\n"


# ---- formulas: one script, its lines `KEY: value` read by the tests below ----

FORMULAS = """use neojove
let q_moderately_close = "Moderately Close"
let q_moderately_near = "Moderately Near"
let q_easy = "easy"
let q_electronic = "electronic"
let q_fore = "fore"
let q_hard = "hard"
let q_kinetic = "kinetic"
let q_melee = "melee"
let q_moderate = "moderate"
let q_rear = "rear"
let q_very_hard = "very_hard"
let costs = []
for n in range(10) { push(costs, level_cost(n)) }
say "NJ1: {costs} {step_cost(0)} {step_cost(4)} {step_cost(9)}"
say "NJ2: {quirks_for(1)} {quirks_for(2)} {quirks_for(3)} {quirk_refund(1)} {quirk_refund(2)} {quirk_refund(3)} {quirk_refund(5)} {quirk_refund(6)}"
let throws = []
for t in range(0, 6) { push(throws, pluck_from_throws(t)) }
say "NJ3: {throws}"
say "NJ4: {aleph_slots_cost(1)} {aleph_slots_cost(2)} {aleph_slots_cost(3)} {aleph_slots_cost(4)}"
fn pipe(dmg, shield, armor) = damage_pipeline(dmg, 0, shield, 0, false, 1, armor, 0, false, 0, 1)
let nj5 = pipe(3, 2, 3)
say "NJ5: {nj5.after_shield} {nj5.final} {nj5.crit_allowed} {nj5.stopped}"
let nj5b = pipe(3, 2, 4)
say "NJ5 armor 4: {nj5b.final} {nj5b.crit_allowed}"
let nj6 = pipe(3, 0, 5)
say "NJ6: {nj6.final} {nj6.crit_allowed}"
let nj6s = pipe(3, 2, 5)
say "NJ6 with the shields of NJ5: {nj6s.final}"
let nj7 = damage_pipeline(5, 0, 0, 0, false, 1, 2, 0, false, 0, 4)
say "NJ7: {nj7.after_armor} {nj7.final}"
let gatling = {glance: 4, assault_at: 2, assault_max: 10}
let hits = assault_hits(7, 2, 10)
let total = 0
let crits = 0
repeat hits {
    let h = pipe(4, 0, 2)
    total += h.final
    if h.crit_allowed { crits += 1 }
}
say "NJ8: {hits} {total} {crits}"
say "NJ9: {concentrate_damage(2, 5, 1, 1, 10)}"
say "NJ10: {concentrate_damage(2, 10, 1, 1, 10)} {2 + 10 * 1}"
let sword = {solid: 6, solid_at: 4, smash: none, smash_at: 8, glance: 4}
say "NJ11: {hit_class(sword, 1, threshold_shift(q_rear, none))} {hit_class(sword, 2, threshold_shift(q_rear, none))} {hit_class(sword, 3, threshold_shift(q_fore, none))} {hit_class(sword, 4, threshold_shift(q_fore, none))}"
let nj12 = damage_pipeline(10, 0, 2, 0, false, 1, 3, 0, false, 0, 5)
let nj12b = damage_pipeline(10, 0, 0, 0, false, 1, 5, 0, false, 0, 5)
let nj12c = damage_pipeline(10, 0, 5, 0, false, 1, 0, 0, false, 0, 5)
say "NJ12: {nj12.final} {nj12b.final} {nj12c.final}"
say "NJ13: {fabrication(none, 6, [1, 1, 1, 1, 1, 1]).done} {fabrication(none, 6, [6]).done} {fabrication(none, 6, [2, 2, 2]).done} {fabrication(none, 6, [2, 2]).done}"
say "NJ14: {fabrication(4, 8, [4, 4]).done} {fabrication(4, 8, [4, 3]).done} {fabrication(4, 8, [8]).allowed} {fabrication(4, 8, [2, 2, 2, 2]).done}"
say "NJ15: {hit_class(sword, 3, 0)} {hit_class(sword, 4, 0)}"
character Average is Pilot { clarity 2 }
character Dull is Pilot { clarity 1 }
character Keen is Pilot { clarity 3 }
say "NJ16: {mind_trick(Dull)} {mind_trick(Average)} {mind_trick(Keen)}"
let bonuses = []
for diff in [0, 1, 2, 3, 5, 6, 9, 10, 14, 15, 20, 21, 27, 28, 35, 36, 44, 45, 54, 55, 200] { push(bonuses, positioning_bonus(diff)) }
say "positioning: {bonuses}"
let shielded = pipe(3, 3, 0)
say "shield >= damage: {shielded.final} {shielded.crit_allowed} {shielded.stopped}"
let over = damage_pipeline(5, 0, 0, 0, false, 1, 2, 0, false, 4, 1)
say "overpenetration: {over.overpenetration} {over.final}"
let over_all = damage_pipeline(2, 0, 0, 0, false, 1, 0, 0, false, 4, 1)
say "overpenetration whole: {over_all.final} {over_all.crit_allowed}"
say "assault: {assault_hits(0, 2, 10)} {assault_hits(1, 2, 10)} {assault_hits(2, 2, 10)} {assault_hits(100, 2, 10)}"
say "concentrate: {concentrate_damage(2, 5, 2, 1, 10)}"
let moves = []
for t in [1, 10, 11, 20, 25] { push(moves, movement_allowance(t, none)) }
say "movement: {moves} {movement_allowance(25, 1)} {movement_allowance(none, none)} {movement_allowance(0, none)}"
say "difficulty: {skill_check_total(3, 2, q_easy, 0, 11)} {skill_check_total(3, 2, q_moderate, 0, 11)} {skill_check_total(3, 2, q_hard, 0, 11)} {skill_check_total(3, 2, q_very_hard, 0, 11)} {skill_check_total(3, 0, q_hard, 0, 11)}"
say "attribute check: {attribute_check_total(3, q_easy, 1, 11)} {attribute_check_total(3, q_very_hard, 0, 11)}"
character Dodger is Pilot { perception 4 piloting 3 }
say "full dodge: {full_dodge_total(Dodger, 11)} {per_five(full_dodge_total(Dodger, 11))}"
character Thrower is Pilot { wits 2 }
say "sacrificial parry: {sacrificial_parry_total(Thrower, 8) >= 15} {sacrificial_parry_total(Thrower, 9) >= 15}"
let crowd = []
for prior in [0, 1, 2] { push(crowd, crowding_penalty(prior, q_kinetic)) }
say "crowding: {crowd} {crowding_penalty(3, q_electronic)} {crowding_penalty(3, q_melee)}"
say "multi-action: {multi_action_penalty(1, 1)} {multi_action_penalty(2, 1)} {multi_action_penalty(2, 2)} {multi_action_penalty(3, 1)} {multi_action_penalty(3, 2)} {multi_action_penalty(3, 3)}"
say "scarlet: {scarlet_strength([4, 4])} {scarlet_strength([4, 4, 4, 4])} {scarlet_strength([4, 2])} {scarlet_strength([4, 4, 4, 4, 4, 4, 4, 4])}"
let fractions = []
for n in range(0, 5) { push(fractions, scarlet_fraction(n)) }
say "scarlet range: {fractions} {scarlet_electronic(5, 6, 4, 4)}"
say "initiative: {initiative_bonus(7)} {initiative_bonus(2)} {initiative_bonus(3)}"
character Trans is Pilot { genotype "high_transhuman" physique 3 wits 3 intellect 3 clarity 3 perception 3 charisma 3 }
say "CP high transhuman: {cp_spent(Trans) - pluck_cost(0) - level_cost(0)} {Trans.eff.physique} {Trans.eff.wits} {Trans.pluck_max}"
let ranges = []
for b in ["Brawl", "Point Blank", "Very Close", "Close", "Extreme", "Extreme x2"] { push(ranges, range_steps(ordinal(b))) }
say "range steps: {ranges} {ordinal(q_moderately_close) == ordinal(q_moderately_near)}"
say "components: {component_condition(2, 5)} {component_condition(3, 6)} {component_condition(5, 5)} {component_condition(9, 6)} {component_condition(10, 6)}"
say "fittings: {fittings_penalty(4, 4)} {fittings_penalty(5, 4)} {fittings_penalty(8, 4)} {fittings_penalty(9, 4)} {fittings_penalty(0, 0)}"
say "triangle: {triangle_steps(0, 10)} {triangle_steps(2, 10)} {triangle_steps(3, 10)}"
"""


@pytest.fixture(scope="module")
def formulas(tmp_path_factory) -> dict[str, str]:
    log = run_json(tmp_path_factory.mktemp("formulas"), FORMULAS)["log"]
    return keyed(log)


# ---- the worked examples of the digest's section 5 ----

def test_nj1_attribute_and_skill_levels_cost_the_triangular_numbers(formulas):
    # L57-68: 1, 3, 6, ... 55; "the base cost to improve a stat costs (current level + 1)"
    assert formulas["NJ1"] == "[1, 3, 6, 10, 15, 21, 28, 36, 45, 55] 1 5 10"


def test_nj2_quirks_return_points_on_the_same_scale(formulas):
    # L144: 1 CP needs 1 quirk, 2 need 3, 3 need 6; so 1, 2, 3, 5 and 6 quirks return 1, 1, 2, 2, 3
    assert formulas["NJ2"] == "1 3 6 1 1 2 2 3"


def test_nj3_thrown_rolls_recover_pluck_on_the_same_scale(formulas):
    # L150: the 1st throw gives 1 Pluck, two more give the 2nd, three more the 3rd (0..6 throws)
    assert formulas["NJ3"] == "[0, 1, 1, 2, 2, 2, 3]"


def test_nj4_extra_aleph_slots_cost_1_3_6_10(formulas):
    assert formulas["NJ4"] == "1 3 6 10"


def test_nj5_shields_first_then_armor_more_than_twice_the_damage_stops_it(formulas):
    # L455: 3 damage, Shield 2 -> 1; Armor 3 > 2 x 1 -> 0. Derived: Armor 3 <= 3 x 1 still lets a
    # critical roll through (L565); Armor 4 does not.
    assert formulas["NJ5"] == "1 0 true armor"
    assert formulas["NJ5 armor 4"] == "0 false"


def test_nj6_three_damage_on_armor_5_without_shields_is_1(formulas):
    # L455 as the digest reads it: no shield; 3 - 5 < 1, but 5 <= 2 x 3, so at least 1.
    # With the 2 shields of the sentence before it would be 0 (the reason the digest drops them).
    assert formulas["NJ6"] == "1 true"
    assert formulas["NJ6 with the shields of NJ5"] == "0"


def test_nj7_after_armor_effect_multiplies_the_damage_left(formulas):
    # L627: 3 damage after shield and armor, AAE x4 -> 12 (5 damage on Armor 2 leaves 3)
    assert formulas["NJ7"] == "3 12"


def test_nj8_assault_gatling_four_hits_of_two_and_four_critical_chances(formulas):
    # L631: margin 7, threshold +2, max 10: hits at 0, +2, +4, +6 = 4; (4 - 2) x 4 = 8; 4 crit rolls
    assert formulas["NJ8"] == "4 8 4"


def test_nj9_nj10_concentrate_beam_sweeper(formulas):
    # L635: 2 + (5 x 1) = 7; margin 10 would be 12 but the maximum is 10
    assert formulas["NJ9"] == "7"
    assert formulas["NJ10"] == "10 12"


def test_nj11_the_rear_arc_lowers_solid_from_plus_4_to_plus_2(formulas):
    # L530: from the rear, margin 1 is Glancing, 2 Solid; from the fore, 3 Glancing, 4 Solid
    assert formulas["NJ11"] == "glance solid glance solid"


def test_nj12_warship_beam_cannon_aae_5(formulas):
    # L685: 10 damage, shield + armor 5 (any split: 2 + 3, 0 + 5, 5 + 0) -> 5, x5 = 25
    assert formulas["NJ12"] == "25 25 25"


def test_nj13_an_item_of_6_work_units_takes_any_split(formulas):
    # L772: 1 every cycle, 6 in one cycle, 2 for three cycles; 2 + 2 is not enough
    assert formulas["NJ13"] == "true true true false"


def test_nj14_a_4x2_item_takes_8_work_units_at_most_4_a_cycle(formulas):
    # L774: total 8, no more than 4 at any time
    assert formulas["NJ14"] == "true false false true"


def test_nj15_a_plus_4_threshold_needs_a_margin_of_4(formulas):
    # L611: "needs to beat the target's defense by 4 or more"
    assert formulas["NJ15"] == "glance solid"


def test_nj16_mind_trick_on_an_average_human_gives_1_to_3(formulas):
    # L231: Clarity + Aleph, Aleph 0: "An average human is going to get 1-3"
    assert formulas["NJ16"] == "1 2 3"


# ---- derived vectors (digest section 5, second table) ----

def test_positioning_table(formulas):
    # L509-518: 1-2 +1, 3-5 +2, 6-9 +3, 10-14 +4, 15-20 +5, 21-27 +6, 28-35 +7, 36-44 +8, 45-54 +9, 55+ +10
    assert formulas["positioning"] == "[0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10]"


def test_shield_at_or_above_the_damage_stops_it_and_its_critical(formulas):
    assert formulas["shield >= damage"] == "0 false shield"       # L457


def test_overpenetration_costs_the_excess_ap_with_no_minimum(formulas):
    # L459: 5 damage, Armor 2, AP 4: excess 2 -> 3; P17: 2 damage with excess 4 -> 0, and no critical
    assert formulas["overpenetration"] == "2 3"
    assert formulas["overpenetration whole"] == "0 false"


def test_assault_edges_and_concentrate_tick(formulas):
    assert formulas["assault"] == "1 1 2 10"
    assert formulas["concentrate"] == "4"          # base 2, tick +2, +1 a tick, margin 5: 2 + 2


def test_movement_one_bracket_per_ten_or_part(formulas):
    # L589-591: Thrust 1-10 -> 1, 11 -> 2, 20 -> 2, 25 -> 3; a bracketed value wins; no entry: immobile
    assert formulas["movement"] == "[1, 1, 2, 2, 3] 1 0 0"


def test_difficulty_multipliers_and_the_untrained_halving(formulas):
    # L407-417: Attribute 3, Skill 2, 2d10 = 11: Easy 20, Moderate 18, Hard 16, Very Hard floor(18/2) = 9;
    # untrained (skill 0, Hard): 3 + floor(11/2) = 8
    assert formulas["difficulty"] == "20 18 16 9 8"
    # L408: an Easy attribute check, Attribute x3: 9 + 1 + 11 = 21; Very Hard: floor((6 + 11) / 2) = 8
    assert formulas["attribute check"] == "21 8"


def test_full_dodge_and_sacrificial_parry(formulas):
    # L477: Perception 4 + 3 x Pilot 3 + 11 = 24 -> +4; L485: Wits 2 -> 6 + 2d10 >= 15 needs 9
    assert formulas["full dodge"] == "24 4"
    assert formulas["sacrificial parry"] == "false true"


def test_crowding_and_multiple_actions(formulas):
    # L469, P10: 3 Kinetic attacks: 0, -2, -4; an Electronic 4th: -3; melee apart
    assert formulas["crowding"] == "[0, 2, 4] 3 0"
    # L465, P9 reading A: 2 actions -4, -6; 3 actions -6, -8, -10
    assert formulas["multi-action"] == "0 4 6 6 8 10"


def test_scarlet_curtain_stacking_and_range(formulas):
    # L755: 4 and 4 -> ratio 2 -> 5; four 4s -> 4 -> 6; 4 and 2 -> 1.5 -> 4; eight 4s -> 8 -> 7
    assert formulas["scarlet"] == "5 6 4 7"
    # L745-751: Brawl, Point Blank 0, Very Close 1/4, Close 1/3, Not So Close 1/2, farther full;
    # P27: suit 5 halved to 2, + 6 + floor(4 x 1/2) = 10
    assert formulas["scarlet range"] == "[0, 0, 1/4, 1/3, 1/2, 1] 10"


def test_initiative_and_character_points(formulas):
    # L429: margin 7 -> +2; the High Transhuman minimum, 3 in all six Core: 6 x 6 = 36 CP (L319, L295)
    assert formulas["initiative"] == "2 0 1"
    assert formulas["CP high transhuman"] == "36 5 4 1"


def test_range_steps_start_at_very_close(formulas):
    # L613, P14; P5: "Moderately Close" is Moderately Near
    assert formulas["range steps"] == "[0, 0, 1, 2, 10, 11] true"


def test_component_thresholds_follow_l503_505(formulas):
    # P3: >= 50% disabled, >= 100% destroyed, > 150% trashed (2 of 5 works; 3 of 6 is exactly 50%)
    assert formulas["components"] == "working disabled destroyed destroyed trashed"


def test_external_fittings_penalty(formulas):
    # P26: a load up to Carrying is free; each further multiple (or part) -1 on Glancing hits
    assert formulas["fittings"] == "0 1 1 2 0"


# ---- the damage pipeline of 4.8: every step, in its order ----

ORDER = """use neojove
fn show(r) = "{r.base} {r.shield} {r.after_shield} {r.fitted} {r.effective} {r.overpenetration} {r.after_armor} {r.final} {r.crit_allowed} {r.stopped}"
say "all steps: {show(damage_pipeline(12, 2, 3, 1, false, 2, 5, 1, true, 2, 3))}"
say "range before shields: {show(damage_pipeline(4, 1, 3, 0, false, 1, 0, 0, false, 0, 1))}"
say "SP before ESW: {show(damage_pipeline(10, 0, 3, 1, false, 2, 0, 0, false, 0, 1))}"
say "ignore: {show(damage_pipeline(10, 0, 3, 1, true, 2, 0, 0, false, 0, 1))}"
say "fittings before AP, glance: {show(damage_pipeline(5, 0, 0, 0, false, 1, 3, 1, true, 3, 1))}"
say "fittings only on a glance: {show(damage_pipeline(5, 0, 0, 0, false, 1, 3, 1, false, 3, 1))}"
say "minimum 1 before AAE: {show(damage_pipeline(3, 0, 0, 0, false, 1, 5, 0, false, 0, 4))}"
say "range floor 0: {show(damage_pipeline(2, 5, 0, 0, false, 1, 0, 0, false, 0, 1))}"
"""


@pytest.fixture(scope="module")
def order(tmp_path_factory) -> dict[str, str]:
    log = run_json(tmp_path_factory.mktemp("order"), ORDER)["log"]
    return keyed(log)


def test_damage_pipeline_every_step_in_its_order(order):
    # base, shield, after shield, armor after fittings, effective armor, overpenetration, after armor,
    # final, critical allowed, what stopped it.
    # 12 damage, -2 range (P15) = 10; shield (3 - SP 1) x ESW 2 = 4 (P16) -> 6; armor 5 - 1 fittings
    # (a Glancing hit, L765) = 4, - AP 2 = 2 (L619); 6 - 2 = 4 (at least 1, L453); x AAE 3 = 12 (L625)
    assert order["all steps"] == "10 4 6 4 2 0 4 12 true none"


def test_each_step_comes_where_4_8_puts_it(order):
    # the range penalty first: 4 - 1 = 3, which Shield 3 stops, with no critical roll (L457); taken
    # after the shield it would be 1 - 1 = 0 by other means
    assert order["range before shields"] == "3 3 0 0 0 0 0 0 false shield"
    # SP before the Weakness: (3 - 1) x 2 = 4, not 3 x 2 - 1 = 5; E-Shield Ignore drops both (L623)
    assert order["SP before ESW"] == "10 4 6 0 0 0 6 6 true none"
    assert order["ignore"] == "10 0 10 0 0 0 10 10 true none"
    # the fittings penalty before AP: Armor 3 - 1 = 2 < AP 3: overpenetration by 1 (5 -> 4, L459);
    # on a Solid hit there is no fittings penalty: AP 3 = Armor 3, effective 0, the full 5
    assert order["fittings before AP, glance"] == "5 0 5 2 0 1 4 4 true none"
    assert order["fittings only on a glance"] == "5 0 5 3 0 0 5 5 true none"
    # the minimum of 1 before the After-Armor Effect: 1 x 4 = 4 (not 3 x 4 - 5 = 7)
    assert order["minimum 1 before AAE"] == "3 0 3 5 5 0 1 4 true none"
    # P15: the range penalty leaves at least 0, and nothing (even unshielded: 0 >= 0, L457) does nothing
    assert order["range floor 0"] == "0 0 0 0 0 0 0 0 false shield"


# ---- fights with fixed faces ----

UNIT = ("character {name} is Unit {{ pilot {pilot} kinetic 3 energy 3 electronic 2 melee 2 thrust 10 armor 2 shields 1"
        " durability 10 targeting 1 {extra}\n"
        '    weapon Rifle {{ type "kinetic" attack 1 glance 4 solid 6 solid_at 4 range "Close" attack_penalty 1 crit 15 }} }}\n')
CREW = (pilot("Ann", physique=2, wits=2, intellect=1, clarity=2, perception=3, charisma=1, piloting=1, gunnery=2)
        + pilot("Bo", physique=2, wits=2, intellect=1, clarity=2, perception=3, charisma=1, piloting=1, gunnery=2))


# The fights below test other rules at Close: nearer than L541's dogfight (its own tests set it back to
# Close, the default), so their targets show the Fore arc.
NO_DOGFIGHT = '    dogfight_range: "Very Close"\n'


def skirmish(*settings: str, lance: str = "", pike: str = "", crew: str = CREW, rules: str = "") -> str:
    lines = "".join(f"    {s}\n" for s in settings)
    return ("use neojove\n" + rules + crew + UNIT.format(name="Lance", pilot="Ann", extra=lance)
            + UNIT.format(name="Pike", pilot="Bo", extra=pike)
            + 'encounter "Skirmish" {\n    side white: Lance\n    side red: Pike\n    start_range: "Close"\n'
            + NO_DOGFIGHT + lines + "    until round > 1\n}\n")


# Positioning: Lance 6+4 + Thrust 10 + Clarity 2 = 22, Pike 3+2 + 12 = 17: difference 5, +2 (L509-518).
# Lance fires: 7+5 = 12 + 7 (Rifle 1, Gunnery 2, Targeting 1, Perception 3) + 2 positioning - 2 range
# (-1 per bracket from Very Close: Close is the 2nd, L613) = 19 against Kinetic Defense 3 + Physique 2 +
# Pilot 1 = 6 (L829): margin 13 >= 4, Solid 6; shield 1 -> 5, armor 2 -> 3; critical 8+7 = 15 >= 15: Vital.
# Pike fires: 2+2 = 4 + 7 - 2 - 2 = 7 against 6: margin 1, Glancing 4; shield -> 3, armor -> 1; crit 1+1.
SKIRMISH_FACES = [6, 4, 3, 2, 7, 5, 8, 7, 2, 2, 1, 1]


def test_a_turn_line_by_line(tmp_path):
    ran = run_json(tmp_path, skirmish(), SKIRMISH_FACES)
    assert ran["log"] == [
        "Skirmish: white (Lance) against red (Pike)",
        "  at Close range, in space",
        "Turn 1",
        "  Positioning: Lance 22; Pike 17",
        "  Lance fires Rifle at Pike (Close): 2d10 7 5 = 12 + 7 + 2 positioning - 2 range = 19 vs Kinetic Defense 6: "
        "hit by 13, solid",
        "    solid 6, shield 1 -> 5, armor 2 -> 3: Pike Durability 7 of 10",
        "      critical roll 8 7 = 15 vs 15: a Vital Hit",
        "  Pike fires Rifle at Lance (Close): 2d10 2 2 = 4 + 7 - 2 positioning - 2 range = 7 vs Kinetic Defense 6: "
        "hit by 1, glance",
        "    glance 4, shield 1 -> 3, armor 2 -> 1: Lance Durability 9 of 10",
        "      critical roll 1 1 = 2 vs 15: no critical",
    ]
    assert ran["result"]["winner"] is None
    assert ran["result"]["characters"]["Pike"] == {"side": "red", "durability_left": 7, "status": "active",
                                                   "surface_hits": 0, "vital_hits": 1}


def test_positioning_on_attack_and_defense_swings_twice(tmp_path):
    # P7's alternative: the defender's defense also takes its signed bonus: Pike's 6 - 2 = 4 against
    # Lance (19 hits by 15), Lance's 6 + 2 = 8 against Pike (7 misses; no critical roll follows)
    ran = run_json(tmp_path, skirmish('positioning_mode: "attack_and_defense"'), SKIRMISH_FACES[:10])
    assert ran["log"][4].endswith("= 19 vs Kinetic Defense 4: hit by 15, solid")
    assert ran["log"][7].endswith("= 7 vs Kinetic Defense 8: miss")


def test_an_untrained_gunner_halves_the_2d10(tmp_path):
    # L407: Bo without Gunnery: 4 halved to 2, + 5 - 2 - 2 = 3 against 6: a miss
    crew = CREW.replace("piloting 1  gunnery 2 }\ncharacter Bo", "piloting 1  gunnery 2 }\ncharacter Bo").replace(
        'character Bo is Pilot { physique 2  wits 2  intellect 1  clarity 2  perception 3  charisma 1  piloting 1  gunnery 2 }',
        'character Bo is Pilot { physique 2  wits 2  intellect 1  clarity 2  perception 3  charisma 1  piloting 1 }')
    ran = run_json(tmp_path, skirmish(crew=crew), SKIRMISH_FACES[:10])
    assert ran["log"][7] == ("  Pike fires Rifle at Lance (Close): 2d10 2 2 = 4 halved (untrained, L407) 2 + 5 - 2 positioning"
                             " - 2 range = 3 vs Kinetic Defense 6: miss")


def test_every_hit_of_a_warship_weapon_goes_through_the_whole_pipeline(tmp_path):
    # Two warships that keep their range: the target presents its Flank (L540), Armor 7. The cannon's 20
    # Glancing - 5 range (Moderate is the 5th bracket, -1 each, P15) = 15; shield (3 - SP 1) x ESW 2 = 4
    # -> 11; armor 7 - 1 fittings (load 3 on Carrying 2, P26) - AP 2 = 4 -> 7; AAE x3 -> 21; above
    # Vital Protection 10: Vital, x2 -> 42 (P23); the critical roll of a Vital strike is a Vital Hit.
    script = ("use neojove\n" + pilot("Captain", perception=3, gunnery=2) + pilot("Skipper")
              + 'character Haydee is Unit { pilot Captain type "warship" thrust 10 durability 100\n'
                '    weapon "Test cannon" { type "energy" glance 20 range "Distant" damage_penalty 1 sp 1 esw 2 ap 2'
                ' aae 3 crit 12 } }\n'
                'character Picket is Unit { pilot Skipper type "warship" durability 100 shields 3 armor 6 armor_flank 7'
                ' carrying 2 external_load 3 vital_protection 10 vital_multiplier 2 }\n'
                'encounter "Pipeline" {\n    side cygnus: Haydee\n    side picket: Picket\n    until round > 1\n}\n')
    ran = run_json(tmp_path, script, [9, 9, 1, 1, 5, 5, 6, 6])
    assert ran["log"][3:7] == [
        "  Positioning: Haydee 29; Picket 3",
        "  Haydee fires Test cannon at Picket (Moderate): 2d10 5 5 = 10 + 5 + 6 positioning = 21 vs Energy Defense 1: "
        "hit by 20, glance, flank arc",
        "    glance 20, range -5 -> 15, shield 4 (SP 1, ESW x2) -> 11, armor 4 (flank, fittings -1, AP 2) -> 7, "
        "AAE x3 -> 21, Vital strike x2 -> 42 (L687): Picket Durability 58 of 100",
        "      critical roll 6 6 = 12 vs 12: a Vital Hit",
    ]
    assert ran["result"]["characters"]["Picket"]["vital_hits"] == 1


def duel(lance_weapons: str, pike_weapons: str = "", *settings: str, crew: str = CREW, rules: str = "",
         lance: str = "", pike: str = "", until: str = "round > 1") -> str:
    """Lance against Pike at Close, each with its own weapons (the skirmish's units otherwise)."""
    unit = ("character {name} is Unit {{ pilot {pilot} kinetic 3 energy 3 electronic 2 melee 2 thrust 10 armor 2"
            " durability 10 targeting 1 {extra}\n{weapons} }}\n")
    lines = "".join(f"    {s}\n" for s in settings)
    return ("use neojove\n" + rules + crew + unit.format(name="Lance", pilot="Ann", extra=lance, weapons=lance_weapons)
            + unit.format(name="Pike", pilot="Bo", extra=pike, weapons=pike_weapons)
            + 'encounter "Duel" {\n    side white: Lance\n    side red: Pike\n    start_range: "Close"\n'
            + NO_DOGFIGHT + lines + f"    until {until}\n}}\n")


GATLING = '    weapon Gatling { type "kinetic" glance 4 assault_at 2 assault_max 10 range "Close" crit 15 }\n'


def test_nj8_the_gatling_through_faces_four_hits_eight_damage_four_critical_rolls(tmp_path):
    # L631 in a fight: Positioning 22 against 17 (+2). 2d10 2+3 = 5 + 6 (Gunnery 2, Perception 3,
    # Targeting 1) + 2 = 13 against Kinetic Defense 6: margin 7, hits at 0, +2, +4, +6 = 4; each 4 - armor
    # 2 = 2, 8 in all; four critical rolls (9+6 = 15 makes the third a Surface Hit). Pike has no weapon.
    ran = run_json(tmp_path, duel(GATLING), [6, 4, 3, 2, 2, 3, 1, 1, 2, 2, 9, 6, 4, 4])
    assert ran["log"][4:] == [
        "  Lance fires Gatling at Pike (Close): 2d10 2 3 = 5 + 6 + 2 positioning = 13 vs Kinetic Defense 6: hit by 7, "
        "glance, 4 hits (Assault, L629)",
        "    glance 4, armor 2 -> 2: Pike Durability 8 of 10",
        "      critical roll 1 1 = 2 vs 15: no critical",
        "    glance 4, armor 2 -> 2: Pike Durability 6 of 10",
        "      critical roll 2 2 = 4 vs 15: no critical",
        "    glance 4, armor 2 -> 2: Pike Durability 4 of 10",
        "      critical roll 9 6 = 15 vs 15: a Surface Hit",
        "    glance 4, armor 2 -> 2: Pike Durability 2 of 10",
        "      critical roll 4 4 = 8 vs 15: no critical",
        "  Pike has no weapon that can fire",
    ]
    assert ran["result"]["characters"]["Pike"]["durability_left"] == 2
    assert ran["result"]["characters"]["Pike"]["surface_hits"] == 1


def test_nj9_the_beam_sweeper_concentrates_through_faces(tmp_path):
    # L635: base 2, +1 a tick of +1, max 10. Attack -5: 2d10 + 1 + 2 against 6. 2+1: margin 0, 2 damage
    # (armor 2, at least 1, L453); 2+6: margin 5, 2 + 5 = 7 (armor 2 -> 5); 10+10: margin 17, capped at 10.
    sweeper = ('    weapon Sweeper { type "kinetic" attack -5 glance 2 concentrate_at 1 concentrate_plus 1'
               ' concentrate_max 10 range "Close" crit 20 }\n')
    lines = []
    for dice in ([2, 1], [2, 6], [10, 10]):
        lines += run_json(tmp_path, duel(sweeper), [6, 4, 3, 2, *dice, 1, 1])["log"][4:6]
    assert lines == [
        "  Lance fires Sweeper at Pike (Close): 2d10 2 1 = 3 + 1 + 2 positioning = 6 vs Kinetic Defense 6: hit by 0, glance",
        "    glance 2, armor 2 -> 1: Pike Durability 9 of 10",
        "  Lance fires Sweeper at Pike (Close): 2d10 2 6 = 8 + 1 + 2 positioning = 11 vs Kinetic Defense 6: hit by 5, glance",
        "    glance 7, armor 2 -> 5: Pike Durability 5 of 10",
        "  Lance fires Sweeper at Pike (Close): 2d10 10 10 = 20 + 1 + 2 positioning = 23 vs Kinetic Defense 6: hit by 17, "
        "glance",
        "    glance 10, armor 2 -> 8: Pike Durability 2 of 10",
    ]


def test_checks_through_faces(tmp_path):
    # L407-417 with dice from --faces: Attribute 3, Skill 2, 5+6 = 11: Hard 16, Easy 20; untrained 8;
    # Very Hard with +1: floor((3 + 4 + 1 + 11) / 2) = 9;
    # an Easy attribute check (Wits 2 x 3 + 9 = 15) makes a Sacrificial Parry's 15 (L485)
    script = ('use neojove\nlet hard = "hard"\nlet easy = "easy"\nlet very_hard = "very_hard"\n'
              'say "{skill_check(3, 2, hard, 0)} {skill_check(3, 2, easy, 0)} {skill_check(3, 0, hard, 0)} '
              '{skill_check(3, 2, very_hard, 1)} {succeeds(attribute_check(2, easy, 0), 15)}"\n')
    assert run_json(tmp_path, script, [5, 6, 5, 6, 5, 6, 5, 6, 4, 5])["log"] == ["16 20 8 9 true"]


def test_a_newtype_flash_turns_a_solid_hit_into_a_glance(tmp_path):
    # L191: Bo (Aleph 1, Newtype Flash) takes Lance's Solid as a Glancing 4: shield 1 -> 3, armor 2 -> 1
    crew = CREW.replace("piloting 1  gunnery 2 }\n", "piloting 1  gunnery 2  aleph 1  abilities [\"newtype_flash\"] }\n", 2)
    crew = crew.replace('aleph 1  abilities ["newtype_flash"] }\ncharacter Bo', '}\ncharacter Bo', 1)
    ran = run_json(tmp_path, skirmish(crew=crew), SKIRMISH_FACES)
    assert ran["log"][4:8] == [
        "  Lance fires Rifle at Pike (Close): 2d10 7 5 = 12 + 7 + 2 positioning - 2 range = 19 vs Kinetic Defense 6: "
        "hit by 13, solid",
        "    Bo has a Newtype Flash: solid becomes glance (L191)",
        "    glance 4, shield 1 -> 3, armor 2 -> 1: Pike Durability 9 of 10",
        "      critical roll 8 7 = 15 vs 15: a Surface Hit",
    ]


def test_hot_blooded_pluck_full_dodge_and_limit_break(tmp_path):
    # L84: Ann (Hot-Blooded, Pluck 4 as a Baseline) spends 1 at the start of the turn: +2 to all rolls
    # and defenses, Positioning 24. Bo declares a Full Dodge (a house rule for `plan`): Easy Perception 3
    # + 3 x Pilot 1 + 5+5 = 16: +3 to non-melee defenses (L477): Kinetic 6 + 3 = 9 against Ann's
    # 7+5 + 9 + 3 - 2 = 22. Ann (Aleph 1, Limit Break, used here whenever it can be) acts again (L199),
    # the second attack on Pike this turn crowded out by 2 (L469).
    crew = CREW.replace("piloting 1  gunnery 2 }\n",
                        'piloting 1  gunnery 2  traits ["hot_blooded"]  aleph 1  abilities ["limit_break"] }\n', 1)
    rules = ('fn neojove.plan(u, enc) = match u.name { "Pike" => "full_dodge"; else => "attack" }\n'
             "fn neojove.limit_breaks(u, enc) = true\n")
    ran = run_json(tmp_path, skirmish(crew=crew, rules=rules), [6, 4, 3, 2, 5, 5, 7, 5, 8, 7, 4, 4, 1, 1])
    assert ran["log"][3:] == [
        "  Lance: Ann spends 1 Pluck, Hot-Blooded: +2 to all rolls and defenses this turn (L84)",
        "  Positioning: Lance 24; Pike 17",
        "  Pike declares a Full Dodge: Easy Perception + Piloting 10 = 16: +3 to non-melee defenses (L477)",
        "  Lance fires Rifle at Pike (Close): 2d10 7 5 = 12 + 9 + 3 positioning - 2 range = 22 vs Kinetic Defense 9: "
        "hit by 13, solid",
        "    solid 6, shield 1 -> 5, armor 2 -> 3: Pike Durability 7 of 10",
        "      critical roll 8 7 = 15 vs 15: a Vital Hit",
        "  Lance: Ann spends 1 aleph, Limit Break: an immediate full action (L199)",
        "  Lance fires Rifle at Pike (Close): 2d10 4 4 = 8 + 9 + 3 positioning - 2 range - 2 crowding = 16 vs "
        "Kinetic Defense 9: hit by 7, solid",
        "    solid 6, shield 1 -> 5, armor 2 -> 3: Pike Durability 4 of 10",
        "      critical roll 1 1 = 2 vs 15: no critical",
    ]


def test_charge_time_then_cooldown(tmp_path):
    # L645: Charge Time 1: turn 1 charges, turn 2 fires (P13); L647: Cooldown 1: not in turn 3; turn 4
    # charges again. 5+5 = 10 + 6 + 2 = 18 against 6: Glancing 5, armor 2 -> 3.
    cannon = '    weapon Cannon { type "kinetic" glance 5 range "Close" charge 1 cooldown 1 crit 20 }\n'
    turn = [6, 4, 3, 2]
    ran = run_json(tmp_path, duel(cannon, until="round > 4"), turn + turn + [5, 5, 1, 1] + turn + turn)
    fired = [line for line in ran["log"] if line.startswith("  Lance") or line.startswith("Turn")]
    assert fired == [
        "Turn 1", "  Lance charges its Cannon (1 of 1, L645)",
        "Turn 2", "  Lance fires Cannon at Pike (Close): 2d10 5 5 = 10 + 6 + 2 positioning = 18 vs Kinetic Defense 6: "
                  "hit by 12, glance",
        "Turn 3", "  Lance has no weapon that can fire",
        "Turn 4", "  Lance charges its Cannon (1 of 1, L645)",
    ]


def test_charge_rules(tmp_path):
    # P13: a charged weapon fires from the turn after its last charging turn; a Continuous one only then
    script = ('use neojove\n'
              'let w = {charge: 2, charged: 2, charged_turn: 3, continuous: false}\n'
              'let c = {charge: 2, charged: 2, charged_turn: 3, continuous: true}\n'
              'say "{needs_charge(w, 3)} {needs_charge(w, 4)} {needs_charge(w, 6)} {needs_charge(c, 4)} {needs_charge(c, 5)}"\n'
              'w.charged = 1\nsay needs_charge(w, 4)\n')
    assert run_json(tmp_path, script)["log"] == ["true false false false true", "true"]


def test_a_sacrificial_parry_puts_a_weapon_in_the_way(tmp_path):
    # L485: Easy Wits (2 x 3 = 6) + 5+5 = 16 against 15: the Buckler (space 4) takes the Solid 6 with
    # Armor 0: 6 of 4 is destroyed (100% or more, not more than 150%, L503-505); Pike is untouched.
    rifle = '    weapon Rifle { type "kinetic" attack 1 glance 4 solid 6 solid_at 4 range "Close" attack_penalty 1 crit 15 }\n'
    buckler = '    weapon Buckler { type "melee" glance 1 range "Brawl" space 4 }\n'
    rules = "fn neojove.sacrifices(def, att, w) = true\n"
    ran = run_json(tmp_path, duel(rifle, buckler, rules=rules), [6, 4, 3, 2, 7, 5, 5, 5, 1, 1])
    assert ran["log"][4:] == [
        "  Lance fires Rifle at Pike (Close): 2d10 7 5 = 12 + 7 + 2 positioning - 2 range = 19 vs Kinetic Defense 6: "
        "hit by 13, solid",
        "    Pike throws its Buckler in the way: Easy Wits 10 = 16 vs 15: it takes the strike (L485)",
        "    solid 6, armor 0 -> 6 to its Buckler: 6 of 4, destroyed",
        "      critical roll 1 1 = 2 vs 15: no critical",
        "  Pike has no weapon that can fire",
    ]
    assert ran["result"]["characters"]["Pike"]["durability_left"] == 10


def test_an_alpha_strike_fires_everything_and_drops_defenses_a_quarter(tmp_path):
    # L108: Ann (No Such Thing As Overkill) fires both weapons at Pike, the second crowded out by 2
    # (P10: each weapon counts); until her next activation her defenses are floor(6 x 3/4) = 4 (P37).
    crew = CREW.replace("piloting 1  gunnery 2 }\n", 'piloting 1  gunnery 2  traits ["overkill"] }\n', 1)
    guns = ('    weapon Rifle { type "kinetic" attack 1 glance 4 range "Close" crit 20 }\n'
            '    weapon Carbine { type "kinetic" glance 3 range "Close" crit 20 }\n')
    rules = "fn neojove.alpha_strikes(u, enc) = true\n"
    ran = run_json(tmp_path, duel(guns, guns, crew=crew, rules=rules), [6, 4, 3, 2, 5, 5, 1, 1, 5, 5, 1, 1, 1, 1, 1, 1])
    assert ran["log"][4:] == [
        "  Lance: Alpha Strike (L108), defenses -25% until its next activation",
        "  Lance fires Rifle at Pike (Close): 2d10 5 5 = 10 + 7 + 2 positioning = 19 vs Kinetic Defense 6: hit by 13, glance",
        "    glance 4, armor 2 -> 2: Pike Durability 8 of 10",
        "      critical roll 1 1 = 2 vs 20: no critical",
        "  Lance fires Carbine at Pike (Close): 2d10 5 5 = 10 + 6 + 2 positioning - 2 crowding = 16 vs Kinetic Defense 6: "
        "hit by 10, glance",
        "    glance 3, armor 2 -> 1: Pike Durability 7 of 10",
        "      critical roll 1 1 = 2 vs 20: no critical",
        "  Pike fires Rifle at Lance (Close): 2d10 1 1 = 2 + 7 - 2 positioning = 7 vs Kinetic Defense 4: hit by 3, glance",
        "    glance 4, armor 2 -> 2: Lance Durability 8 of 10",
        "      critical roll 1 1 = 2 vs 20: no critical",
    ]


# ---- pilots: genotypes, traits, character points ----

PILOTS = """use neojove
character Rin is Pilot { genotype "ishtar" physique 3 wits 3 intellect 2 clarity 2 perception 3 charisma 3
    piloting 2 gunnery 2 melee 2 electronic_warfare 1 pluck 1 traits ["hot_blooded"] pluck_conditions ["second_wind"] }
character Odd is Pilot { genotype "outlier" physique 3 wits 3 intellect 3 clarity 3 perception 3 charisma 3
    picks ["aleph", "wits"] }
character Alf is Pilot { genotype "alpha" picks ["physique", "wits", "clarity", "charisma"] }
character Vet is Pilot { traits ["veteran"] veteran_choice "leadership" aleph 2 piloting 1 }
character Cyber is Pilot { traits ["cyber_newtype", "rival"] }
character Quirky is Pilot { quirks 3 pluck_conditions ["heavy_sleeper", "mama_bear", "crusader"] extra_slots 2 }
say "Rin: {Rin.eff} {Rin.pluck_max} {cp_spent(Rin)}"
say "Odd: {Odd.eff.physique} {Odd.eff.wits} {Odd.eff.aleph} {Odd.slots}"
say "Alf: {Alf.eff} {Alf.pluck_max}"
say "Vet: {Vet.sk.piloting} {Vet.sk.gunnery} {Vet.sk.leadership} {Vet.eff.aleph} {cp_spent(Vet)}"
say "Cyber: {Cyber.eff.aleph} {has_ability(Cyber, cyber_flash)} {ability_cost(Cyber, cyber_flash)} {cp_spent(Cyber)}"
say "Quirky: {cp_spent(Quirky)}"
"""


def test_genotypes_traits_and_character_points(tmp_path):
    log = run_json(tmp_path, PILOTS.replace("{has_ability(Cyber, cyber_flash)} {ability_cost(Cyber, cyber_flash)}",
                                       "{has_ability(Cyber, flash)} {ability_cost(Cyber, flash)}")
              .replace("say \"Rin", 'let flash = "newtype_flash"\nsay "Rin'))["log"]
    assert log == [
        # L387-389: Ishtar +1 Phy, Wits, Int, Per, +2 Cha, Pluck 1 (+1 bought); the duel example's 45 CP
        "Rin: {physique: 4, wits: 4, intellect: 3, clarity: 2, perception: 4, charisma: 5, aleph: 0} 2 45",
        # L331-333: Outlier +3 Phy, +1 the rest, and its two picks (Aleph allowed)
        "Odd: 6 5 1 1",
        # L369: Alpha, four different Core +1s, Pluck 2
        "Alf: {physique: 2, wits: 2, intellect: 1, clarity: 2, perception: 1, charisma: 2, aleph: 0} 2",
        # L80, P28: Veteran +1 Pilot and +1 Leadership here; -1 effective Aleph; CP: 8 + 6 core + 3 Aleph + 1 Pilot
        "Vet: 2 0 1 1 18",
        # L100: Cyber Newtype counts as Aleph 4 and has Newtype Flash free; P29: its cost 0, Rival refunds 5
        "Cyber: 4 true 0 1",
        # L144: 3 quirks return 2; L148: two more conditions cost 10; L183: 2 extra slots cost 3
        "Quirky: 17",
    ]


def test_within_budget_checks_a_sheet_against_the_budget_option(tmp_path):
    # L53: 75 CP; Rin spends 45, Quirky 17 (above); a script may lower the budget for its campaign
    checks = ('say "budget {neojove.budget}: {within_budget(Rin)} {within_budget(Quirky)}"\n'
              'neojove.budget = 40\n'
              'say "budget {neojove.budget}: {within_budget(Rin)} {within_budget(Quirky)}"\n')
    log = run_json(tmp_path, PILOTS.split("say ")[0] + checks)["log"]
    assert log[-2:] == ["budget 75: true true", "budget 40: false true"]


@pytest.mark.parametrize("entries, message", [
    ('genotype "outlier" physique 3 wits 3 intellect 3 clarity 3 perception 3 charisma 3 picks ["physique", "wits"]',
     "genotype outlier: the two +1s go to non-Physique attributes (L331), not physique"),
    ('genotype "alpha" picks ["wits", "wits", "clarity", "charisma"]', "the +1s go to different attributes (P31), wits twice"),
    ('genotype "high_transhuman" physique 2', "genotype high_transhuman needs physique of at least 3 bought"),
    ('genotype "atlas" physique 2', "genotype atlas needs physique of at least 3 bought (L377-399), not 2"),
    ('traits ["hot_bloded"]', 'no trait "hot_bloded": the traits are veteran, hot_blooded'),
    ('genotype "martian"', '`genotype` of Pilot is one of'),
])
def test_a_pilot_sheet_that_breaks_the_rules_is_one_clear_error(tmp_path, entries, message):
    err = run_json(tmp_path, f"use neojove\ncharacter P is Pilot {{ {entries} }}\n", code=1)
    assert message in err and "Traceback" not in err
    assert err.count("\n") <= 4 and ":" in err.splitlines()[0]


@pytest.mark.parametrize("unit, message", [
    ("vital_protection 10", "a unit with vital_protection needs a vital_multiplier: the text gives none (L687, P23)"),
    ('controls ["trace", "synaptic"]', "a Trace system is incompatible with a Synaptic one (L725)"),
    ('controls ["holotank"]', 'no control system "holotank"'),
])
def test_a_unit_that_breaks_the_rules_is_one_clear_error(tmp_path, unit, message):
    err = run_json(tmp_path, f"use neojove\ncharacter P is Pilot {{ }}\ncharacter U is Unit {{ pilot P durability 5 {unit} }}\n",
              code=1)
    assert message in err and "Traceback" not in err


def test_an_option_outside_its_choices_is_an_error_at_the_setting(tmp_path):
    err = run_json(tmp_path, skirmish('positioning_mode: "both"'), code=1)
    assert err.splitlines()[0].endswith('`positioning_mode` is one of "attack_only", "attack_and_defense", not "both"')


def test_tactical_initiative_adds_to_positioning(tmp_path):
    # L429: the leaders' Command, 2d10 + Intellect 1 + Charisma 1 + Leadership 0: 9+8 + 2 = 19 against
    # 5+5 + 2 = 12, margin 7: +2 to white's Positioning rolls (the digest's vector). Lance 10 + 12 + 2 = 24
    # against 17: difference 7, +3.
    ran = run_json(tmp_path, skirmish("tactical_initiative: true"), [9, 8, 5, 5, 6, 4, 3, 2, 7, 5, 8, 7, 2, 2, 1, 1])
    assert ran["log"][3:6] == [
        "  Tactical Initiative: Lance 19, Pike 12: white wins by 7, +2",
        "  Positioning: Lance 24; Pike 17",
        "  Lance fires Rifle at Pike (Close): 2d10 7 5 = 12 + 7 + 3 positioning - 2 range = 20 vs Kinetic Defense 6: "
        "hit by 14, solid",
    ]


def test_a_hot_blooded_leader_gives_half_the_command_bonus(tmp_path):
    # L84, P33: the same margin 7 from a Hot-Blooded leader: floor(2 / 2) = +1
    crew = CREW.replace("piloting 1  gunnery 2 }\n", 'piloting 1  gunnery 2  traits ["hot_blooded"]  pluck 0 }\n', 1)
    rules = "fn neojove.spends_pluck(u, enc) = false\n"
    ran = run_json(tmp_path, skirmish("tactical_initiative: true", crew=crew, rules=rules), [9, 8, 5, 5, 6, 4, 3, 2, 7, 5, 8, 7, 2, 2, 1, 1])
    assert ran["log"][3] == "  Tactical Initiative: Lance 19, Pike 12: white wins by 7, +1"


def test_tied_positioning_is_broken_by_a_d10_each(tmp_path):
    # P8: 5+5 and 6+4: both 22, no Tactical Initiative, the same Thrust: a d10 each, 3 and 8: Pike first
    ran = run_json(tmp_path, skirmish(), [5, 5, 6, 4, 3, 8, 2, 2, 1, 1, 2, 2, 1, 1])
    assert ran["log"][3:7] == [
        "  Positioning: Lance 22; Pike 22",
        "  Lance breaks a tie in Positioning with a d10: 3 (P8)",
        "  Pike breaks a tie in Positioning with a d10: 8 (P8)",
        "  Pike fires Rifle at Lance (Close): 2d10 2 2 = 4 + 7 - 2 range = 9 vs Kinetic Defense 6: hit by 3, glance",
    ]


TRAITS = """use neojove
let rear = "rear"
let fore = "fore"
let gunnery = {type: "kinetic"}
let sword = {type: "melee"}
character Iron is Pilot { physique 2 wits 3 intellect 4 clarity 2 perception 3 charisma 4 piloting 1 gunnery 1 melee 2
    traits ["made_of_iron", "char_custom", "fan_favorite", "zealot", "idealist", "photosynthetic", "type_master"]
    type_master_vs "Hylas" }
character Plain is Pilot { physique 2 wits 3 intellect 4 clarity 2 perception 3 charisma 4 piloting 1 gunnery 1 melee 2 }
character Tank is Unit { pilot Iron model "Gelgoog" thrust 20 durability 10 kinetic 1 energy 1 electronic 1 melee 1 }
character Panorama is Unit { pilot Plain model "Hylas" thrust 20 durability 10 kinetic 1 energy 1 electronic 1 melee 1
    controls ["panoramic", "mmi", "telescopic", "command_cockpit", "trace"] }
character Zero is Unit { pilot Plain thrust 20 durability 10 kinetic 1 energy 1 electronic 1 melee 1 controls ["synaptic"] }
say "iron: {threshold_shift(fore, Tank)} {threshold_shift(rear, Tank)} {threshold_shift(rear, Panorama)} {mobility(Tank)} {Tank.durability_max}"
say "iron defenses: {Tank.base_defense}"
say "iron attacks: {Tank.base_attack}"
say "type master: {trait_bonus(Tank, Panorama)} {trait_bonus(Tank, Zero)}"
neojove.daylight = true
say "daylight: {trait_bonus(Tank, Zero)}"
neojove.daylight = false
say "night: {trait_bonus(Tank, Zero)}"
say "panoramic: {Panorama.base_defense} {Panorama.base_attack} {command_static(Panorama)}"
say "synaptic: {Zero.base_defense.electronic} {Zero.base_attack.gunnery}"
"""


def test_traits_and_control_systems_change_the_numbers(tmp_path):
    log = run_json(tmp_path, TRAITS)["log"]
    assert log == [
        # L116 Made Of Iron: +2 to non-glancing thresholds against it (-2 from the rear, L530: 0), -1 Thrust;
        # L128 Char Custom: Thrust + Charisma 4 = 23; L124 Fan Favorite: Durability + 4
        "iron: 2 0 -2 23 14",
        # 3.10: Kinetic 1 + Phy 2 + Pilot 1, Energy 1 + Wits 3 + 1, Electronic 1 + Cla 2 + EW 0; Melee 1 + Per 3 +
        # Melee 2 + Idealist floor(4/2) = 8 (L136)
        "iron defenses: {kinetic: 4, energy: 5, electronic: 3, melee: 8}",
        # Gunnery: Per 3 + Gunnery 1; Electronic: Int 4 + EW 0; Melee: Wits 3 + Melee 2 + Zealot 2 (L132)
        "iron attacks: {gunnery: 4, electronic: 4, melee: 7}",
        # L120 Type Master against the Hylas: +2
        "type master: 2 0",
        # L92 Photosynthetic: +1 by day, -1 by night (P38)
        "daylight: 1",
        "night: -1",
        # P34: Panoramic +Wits 3 (Energy); MMI +floor(Int 4/2) = 2 (Energy, Melee); Trace +Phy 2 (Kinetic, and
        # Melee attacks); Telescopic +floor(Per 3/2) = 1 to Gunnery and Electronic attacks; Command Cockpit
        # doubles Int 4 + Cha 4 + Leadership 0 = 16 (L733, P33)
        "panoramic: {kinetic: 6, energy: 10, electronic: 3, melee: 8} {gunnery: 5, electronic: 5, melee: 7} 16",
        # P34: Synaptic: Electronic Defense + Clarity 2 = 5; Gunnery + floor(2/2) = 5
        "synaptic: 5 5",
    ]


def test_a_newtype_flash_on_a_glance_leaves_nothing_or_a_glance(tmp_path):
    # P21: flashed below Glance, the hit does nothing and rolls no critical; the option "glance" keeps it
    crew = CREW.replace("piloting 1  gunnery 2 }\ncharacter Bo",
                        "piloting 1  gunnery 2 }\ncharacter Bo").replace(
        "piloting 1  gunnery 2 }\n", "piloting 1  gunnery 2 }\n", 1)
    crew = crew.rsplit("piloting 1  gunnery 2 }", 1)
    crew = crew[0] + 'piloting 1  gunnery 2  aleph 1  abilities ["newtype_flash"] }' + crew[1]
    rules = "fn neojove.flashes(def, att, class) = true\n"
    faces = [6, 4, 3, 2, 2, 2, 1, 1]                       # Lance 4 + 6 + 2 = 12 against 6: a Glance
    ran = run_json(tmp_path, duel(GATLING.replace("assault_at 2 assault_max 10", "assault_at 20 assault_max 1"), crew=crew,
                             rules=rules), faces)
    assert ran["log"][5:7] == ["    Bo has a Newtype Flash: glance becomes none (L191)",
                               "    the hit does nothing (Newtype Flash below Glance, P21)"]
    ran = run_json(tmp_path, duel(GATLING.replace("assault_at 2 assault_max 10", "assault_at 20 assault_max 1"),
                             "", 'glance_flash: "glance"', crew=crew, rules=rules), faces + [1, 1])
    assert ran["log"][5:7] == ["    Bo has a Newtype Flash: glance stays glance (L191, P21)",
                               "    glance 4, armor 2 -> 2: Pike Durability 8 of 10"]


def test_the_option_for_the_critical_armor(tmp_path):
    # P18: 2 damage on Armor 7 less AP 2 = 5: 5 > 4 stops it, 5 <= 6 lets a critical through; by the listed
    # armor (7 > 6) it does not.
    script = ('use neojove\nlet pipe = damage_pipeline(2, 0, 0, 0, false, 1, 7, 0, false, 2, 1)\n'
              'say "{pipe.final} {pipe.crit_allowed}"\nneojove.crit_armor = "listed"\n'
              'let listed = damage_pipeline(2, 0, 0, 0, false, 1, 7, 0, false, 2, 1)\n'
              'say "{listed.final} {listed.crit_allowed}"\n')
    assert run_json(tmp_path, script)["log"] == ["0 true", "0 false"]


def test_overthrusting_adds_to_thrust_up_to_the_baseline(tmp_path):
    # L489: Easy Physique, 3 x 2 + 9+9 = 24: +4 Thrust (at most the baseline 10), before Positioning:
    # Lance 6+4 + 14 + 2 = 26
    rules = 'fn neojove.overthrusts(u, enc) = u.name == "Lance"\n'
    ran = run_json(tmp_path, skirmish(rules=rules), [9, 9, 6, 4, 3, 2, 7, 5, 8, 7, 2, 2, 1, 1])
    assert ran["log"][3:5] == ["  Lance overthrusts: Easy Physique 18 = 24: +4 (L489)", "  Positioning: Lance 26; Pike 17"]


def test_full_dodge_with_peak_senses_shows_the_natural_20(tmp_path):
    # L207: Bo's Peak Senses (1 aleph) makes the Full Dodge's Perception roll a natural 20, a number
    # rather than a roll: Easy Perception 3 + 3 x Pilot 1 + 20 = 26, +5 to non-melee defenses (L477).
    before, sheet_end, after = CREW.rpartition("piloting 1  gunnery 2 }\n")  # Bo's, the last sheet
    crew = before + 'piloting 1  gunnery 2  aleph 1  abilities ["peak_senses"] }\n' + after
    rules = 'fn neojove.plan(u, enc) = match u.name { "Pike" => "full_dodge"; else => "attack" }\n'
    ran = run_json(tmp_path, skirmish(crew=crew, rules=rules), [6, 4, 3, 2, 5, 5, 7, 5, 8, 7])
    assert "  Bo spends 1 aleph on Peak Senses: a natural 20 (L207)" in ran["log"]
    assert "  Pike declares a Full Dodge: Easy Perception + Piloting 20 = 26: +5 to non-melee defenses (L477)" \
        in ran["log"]


# ---- Neo-Jove in play: the armor boundary, arcs, pulling out, Alpha Strikes (issue 19, item 3) ----

def test_the_armor_boundary_l453_more_than_twice_not_twice(tmp_path):
    # L453: "An attack will always do 1 damage unless the Armor is more than twice the damage value":
    # 3 damage on Fore armor 6 (exactly twice) still does 1; on 7 (more than twice) 0, and 7 <= 3 x 3
    # still lets a critical roll through (L565). Positioning 22 against 17 (+2); 5+5 + 6 + 2 = 18 against
    # Kinetic Defense 6.
    pea = '    weapon Pea { type "kinetic" glance 3 range "Close" crit 20 }\n'
    lines = []
    for armor in (6, 7):
        ran = run_json(tmp_path, duel(pea, pike=f"armor_fore {armor}"), [6, 4, 3, 2, 5, 5, 1, 1])
        lines += ran["log"][5:7]
    assert lines == [
        "    glance 3, armor 6 -> 1: Pike Durability 9 of 10",
        "      critical roll 1 1 = 2 vs 20: no critical",
        "    glance 3, armor 7, more than twice the damage -> 0: Pike Durability 10 of 10",
        "      critical roll 1 1 = 2 vs 20: no critical",
    ]


CHASE_PILOTS = CREW.replace("piloting 1  gunnery 2 }\n", 'piloting 1  gunnery 2  pluck_conditions ["crusader"] }\n', 1)


def chase(*settings: str, rules: str = "", lance: str = "", pike: str = "", lance_weapons: str = "",
          pike_weapons: str = "", until: str = "round > 2", crew: str = CHASE_PILOTS, extra: str = "",
          sides: str = "    side white: Lance\n    side red: Pike\n") -> str:
    """Lance (Durability 20) against Pike (18), at Close: Lance's Rifle (-3, Glancing 4, Solid 8 at +4,
    Smash 11 at +8, to Not So Close), Pike's Pop (-9: it only hits on a high roll)."""
    rifle = lance_weapons or ('    weapon Rifle { type "kinetic" attack -3 glance 4 solid 8 solid_at 4 smash 11 smash_at 8'
                              ' range "Not So Close" crit 20 }\n')
    pop = pike_weapons or '    weapon Pop { type "kinetic" attack -9 glance 1 range "Close" crit 20 }\n'
    unit = ("character {name} is Unit {{ pilot {pilot} kinetic 3 energy 3 electronic 2 melee 2 thrust 10 armor 2"
            " targeting 1 {extra}\n{weapons} }}\n")
    lines = "".join(f"    {s}\n" for s in settings)
    return ("use neojove\n" + rules + crew + unit.format(name="Lance", pilot="Ann", extra="durability 20 " + lance, weapons=rifle)
            + unit.format(name="Pike", pilot="Bo", extra="durability 18 " + pike, weapons=pop) + extra
            + 'encounter "Chase" {\n' + sides + '    start_range: "Close"\n' + lines + f"    until {until}\n}}\n")


# Turn 1: Positioning Lance 6+4 + 12 = 22, Pike 3+2 + 12 = 17 (+2 to Lance). Lance: 9+9 = 18 + 3 + 2 =
# 23 against 6, margin 17: Smash 11 - armor 2 = 9, Pike 9 of 18, half its Durability lost. Pike: 1+1 - 3
# - 2 = -3: a miss. Turn 2: Pike has lost half, and Lance none: it pulls out (L162) and shows its Rear
# arc to Lance, who acts first (declared in step 4, it holds the whole turn): 1+2 = 3 + 3 + 2 = 8,
# margin 2: from the Fore a Glance, from the Rear Solid (+4 - 2, L530): 8 - Rear armor 1 = 7, Pike 2
# of 18. Then Pike opens 1 bracket (Thrust 10, L591), to Not So Close: Lance's Rifle reaches it after
# Lance's next move, so Pike is still in the fight.
CHASE_FACES = [6, 4, 3, 2, 9, 9, 1, 1, 1, 1, 6, 4, 3, 2, 1, 2, 1, 1]


def test_a_unit_that_lost_half_pulls_out_and_is_shot_in_its_rear_arc(tmp_path):
    ran = run_json(tmp_path, chase('dogfight_arc: "fore"', pike="armor_rear 1"), CHASE_FACES)
    assert ran["log"][3:] == [
        "  Positioning: Lance 22; Pike 17",
        "  Lance fires Rifle at Pike (Close): 2d10 9 9 = 18 + 3 + 2 positioning = 23 vs Kinetic Defense 6: hit by 17, smash",
        "    smash 11, armor 2 -> 9: Pike Durability 9 of 18",
        "      critical roll 1 1 = 2 vs 20: no critical; the Smash's automatic Vital Hit (P20)",
        "  Pike fires Pop at Lance (Close): 2d10 1 1 = 2 - 3 - 2 positioning = -3 vs Kinetic Defense 6: miss",
        "Turn 2",
        "  Positioning: Lance 22; Pike 17",
        "  Pike pulls out: it flees, showing its Rear arc (L539)",
        "  Lance fires Rifle at Pike (Close): 2d10 1 2 = 3 + 3 + 2 positioning = 8 vs Kinetic Defense 6: hit by 2, solid, "
        "rear arc",
        "    solid 8, armor 1 (rear) -> 7: Pike Durability 2 of 18",
        "      critical roll 1 1 = 2 vs 20: no critical",
        "  Pike opens 1 bracket from Lance, now at Not So Close",
    ]
    assert ran["result"]["characters"]["Pike"]["status"] == "active"


def test_the_arc_roll_off_at_range_is_an_option_the_defender_may_win(tmp_path):
    # L542: "Generally the longer the range, the easier it is for a defender to present whatever arc
    # they desire during combat, if it comes down to a rolloff": no roll is given. The PROPOSAL (option
    # arc_rolloff "range"): fleeing Pike shows its Rear (armor 1), but wants its Fore (armor 2,
    # `wanted_arc`), so after the hit's 2d10 (margin 2) both roll 2d10 + Positioning static (12 each),
    # Pike adding the bracket, Close 3. 5+5 + 12 = 22 against 5+5 + 12 + 3 = 25: Pike turns its Fore, and
    # margin 2 is a Glance (4 - armor 2); 9+9 + 12 = 30 against 1+1 + 15 = 17: the Rear arc stands (Solid,
    # +4 - 2, L530). By default ("none") the arcs of L538-541 stand with no roll: the test before this one
    def turn_two(rolloff):
        faces = CHASE_FACES[:16] + rolloff + [1, 1]
        ran = run_json(tmp_path, chase('dogfight_arc: "fore"', 'arc_rolloff: "range"', pike="armor_rear 1"), faces)
        log = ran["log"]
        return log[log.index("  Pike pulls out: it flees, showing its Rear arc (L539)") + 1:][:4]

    assert turn_two([5, 5, 5, 5]) == [
        "  Lance fires Rifle at Pike (Close): 2d10 1 2 = 3 + 3 + 2 positioning = 8 vs Kinetic Defense 6: hit by 2, glance",
        "    arc roll-off (L542, a proposal): Lance 2d10 5 5 = 10 + 12 = 22; Pike 2d10 5 5 = 10 + 12 + 3 range = 25: "
        "Pike presents its fore arc",
        "    glance 4, armor 2 -> 2: Pike Durability 7 of 18",
        "      critical roll 1 1 = 2 vs 20: no critical",
    ]
    assert turn_two([9, 9, 1, 1]) == [
        "  Lance fires Rifle at Pike (Close): 2d10 1 2 = 3 + 3 + 2 positioning = 8 vs Kinetic Defense 6: hit by 2, solid, rear arc",
        "    arc roll-off (L542, a proposal): Lance 2d10 9 9 = 18 + 12 = 30; Pike 2d10 1 1 = 2 + 12 + 3 range = 17: "
        "Lance keeps the rear arc",
        "    solid 8, armor 1 (rear) -> 7: Pike Durability 2 of 18",
        "      critical roll 1 1 = 2 vs 20: no critical",
    ]


def test_a_fleeing_unit_that_cannot_break_away_turns_to_fight(tmp_path):
    # Turn 3: Pike (9+9 + 12 = 30) acts first: it had gained a bracket on the turn before (3 -> 4), so it
    # flees again, to Moderately Near; Lance (1+1 + 12 = 14, -5 positioning) closes 1 and misses: 1+1 + 3
    # - 5 = 0. Turn 4: Pike is 4 brackets away, no farther than when it declared its flight: cornered, it
    # turns to fight (L538: closing, it shows its Fore). It closes 1 and fires: 9+9 - 3 + 5 = 20 against
    # 6, Glancing 1 against Lance's Armor 2: twice the damage, not more than twice, so 1 goes through
    # (L453's boundary again).
    faces = CHASE_FACES + [1, 1, 9, 9, 1, 1] + [1, 1, 9, 9, 9, 9, 1, 1, 1, 1]
    ran = run_json(tmp_path, chase('dogfight_arc: "fore"', pike="armor_rear 1", until="round > 4"), faces)
    log = ran["log"]
    assert log[log.index("Turn 3"):] == [
        "Turn 3",
        "  Positioning: Lance 14; Pike 30",
        "  Pike pulls out: it flees, showing its Rear arc (L539)",
        "  Pike opens 1 bracket from Lance, now at Moderately Near",
        "  Lance closes 1 bracket on Pike, now at Not So Close",
        "  Lance fires Rifle at Pike (Not So Close): 2d10 1 1 = 2 + 3 - 5 positioning = 0 vs Kinetic Defense 6: miss",
        "Turn 4",
        "  Positioning: Lance 14; Pike 30",
        "  Pike could not break away: it turns to fight (L538)",
        "  Pike closes 1 bracket on Lance, now at Close",
        "  Pike fires Pop at Lance (Close): 2d10 9 9 = 18 - 3 + 5 positioning = 20 vs Kinetic Defense 6: hit by 14, glance",
        "    glance 1, armor 2 -> 1: Lance Durability 19 of 20",
        "      critical roll 1 1 = 2 vs 20: no critical",
        "  Lance fires Rifle at Pike (Close): 2d10 1 1 = 2 + 3 - 5 positioning = 0 vs Kinetic Defense 6: miss",
    ]


def test_pulling_out_beyond_reach_leaves_the_battle_and_a_crusader_recovers_pluck(tmp_path):
    # L162: Pike (3 brackets a turn, `thrust_brackets`, L591) pulls out at half its Durability; Lance
    # (Hot-Blooded: 1 Pluck spent each turn, +2) shoots it in the Rear arc first (2 + 5 + 3 = 10, margin
    # 4: Solid), then Pike flees from Close to Moderate: Lance's Rifle (to Not So Close) cannot reach it
    # even after Lance's 1 bracket of movement: Pike is out of the battle, and Ann, a Crusader whose hit
    # last cost it Durability ("forcing them to pull out ... at least 50%"), recovers 1 Pluck.
    crew = CHASE_PILOTS.replace('pluck_conditions ["crusader"]', 'traits ["hot_blooded"]  pluck_conditions ["crusader"]')
    faces = [6, 4, 3, 2, 9, 9, 1, 1, 1, 1] + [6, 4, 3, 2, 1, 1, 1, 1]
    script = chase('dogfight_arc: "fore"', pike="thrust_brackets 3", crew=crew, until="one_side_left or round > 2")
    ran = run_json(tmp_path, script, faces)
    assert ran["log"][-8:] == [
        "  Lance: Ann spends 1 Pluck, Hot-Blooded: +2 to all rolls and defenses this turn (L84)",
        "  Positioning: Lance 24; Pike 17",
        "  Pike pulls out: it flees, showing its Rear arc (L539)",
        "  Lance fires Rifle at Pike (Close): 2d10 1 1 = 2 + 5 + 3 positioning = 10 vs Kinetic Defense 6: hit by 4, solid, "
        "rear arc",
        "    solid 8, armor 2 (rear) -> 6: Pike Durability 3 of 18",
        "      critical roll 1 1 = 2 vs 20: no critical",
        "  Pike opens 3 brackets from Lance, now at Moderate",
        "  Pike is beyond the reach of its foes' weapons and pulls out of the battle (L162)",
        "    Ann recovers 1 Pluck (Crusader: Pike forced to pull out at half its Durability, L162)",
    ][1:]
    assert ran["result"]["winner"] == "white"
    assert ran["result"]["characters"]["Pike"]["status"] == "withdrawn"
    # pull_out "at_once" (P24: withdrawal at any time): Pike leaves as it declares, before Lance fires;
    # the Crusader's Pluck comes all the same
    ran = run_json(tmp_path, script.replace('dogfight_arc: "fore"', 'dogfight_arc: "fore"\n    pull_out: "at_once"'),
                   faces[:14])
    assert ran["log"][-4:] == [
        "  Positioning: Lance 24; Pike 17",
        "  Pike pulls out of the battle (P24)",
        "    Ann recovers 1 Pluck (Crusader: Pike forced to pull out at half its Durability, L162)",
        "  Lance has no one left to fight",
    ]


def test_a_unit_pulling_out_before_it_lost_half_gives_a_crusader_nothing(tmp_path):
    # L162 "only applies if they have lost at least 50% of their Durability": Pike pulls out on turn 1
    # (a house rule), unhurt: no Pluck for Ann
    crew = CHASE_PILOTS.replace('pluck_conditions ["crusader"]', 'traits ["hot_blooded"]  pluck_conditions ["crusader"]')
    rules = 'fn neojove.pulls_out(u, enc) = u.name == "Pike"\n'
    script = chase('pull_out: "at_once"', crew=crew, rules=rules, until="one_side_left or round > 2")
    ran = run_json(tmp_path, script, [6, 4, 3, 2])
    assert ran["log"][-2:] == ["  Pike pulls out of the battle (P24)", "  Lance has no one left to fight"]
    assert not any("recovers" in line for line in ran["log"])


@pytest.mark.parametrize("setting, lance_line, damage", [
    # L541: at Close (the default `dogfight_range`), Lance's higher Positioning avoids Pike's Fore arc
    # (Armor 5): the Flank, at the plain Armor 2; 4+4 = 8 + 3 + 2 = 13 against 6, margin 7: Solid
    ("", "hit by 7, solid, flank arc", "    solid 8, armor 2 (flank) -> 6: Pike Durability 12 of 18"),
    # dogfight_arc "rear": the Rear, so -2 on the thresholds (L530): margin 7 makes Smash (+8 - 2)
    ('dogfight_arc: "rear"', "hit by 7, smash, rear arc", "    smash 11, armor 2 (rear) -> 9: Pike Durability 9 of 18"),
    # a dogfight only at Very Close or nearer: at Close Pike shows its Fore
    ('dogfight_range: "Very Close"', "hit by 7, solid", "    solid 8, armor 5 -> 3: Pike Durability 15 of 18"),
])
def test_in_a_dogfight_the_higher_positioning_avoids_the_fore_arc(tmp_path, setting, lance_line, damage):
    # Pike, the lower, gets no such help: Lance shows its Fore (Armor 4) to Pike's 9+9 = 18 - 3 - 2 = 13,
    # Glancing 1: armor 4, more than twice, 0; 4 > 3 x 1: no critical roll (L565)
    ran = run_json(tmp_path, chase(setting, lance="armor_fore 4", pike="armor_fore 5", until="round > 1"),
                   [6, 4, 3, 2, 4, 4, 1, 1, 9, 9])
    assert ran["log"][4].endswith(lance_line)
    assert ran["log"][5] == damage
    assert ran["log"][7:] == [
        "  Pike fires Pop at Lance (Close): 2d10 9 9 = 18 - 3 - 2 positioning = 13 vs Kinetic Defense 6: hit by 7, glance",
        "    glance 1, armor 4, more than twice the damage -> 0: Lance Durability 20 of 20",
        "      no critical roll: the armor is more than three times the damage (L565)",
    ]


ALPHA_CREW = CREW.replace("piloting 1  gunnery 2 }\n", 'piloting 1  gunnery 2  traits ["overkill"] }\n', 1) + pilot(
    "Cy", physique=2, wits=2, intellect=1, clarity=2, perception=3, charisma=1, piloting=1, gunnery=2)
ALPHA_GUNS = ('    weapon Carbine { type "kinetic" glance 3 range "Very Close" crit 20 }\n'
              '    weapon Missiles { type "electronic" glance 5 range "Close" crit 20 }\n')
GRUNT = ('character Grunt is Unit { pilot Cy kinetic 3 energy 3 electronic 2 melee 2 thrust 10 armor 2 targeting 1'
         ' durability 18\n    weapon Pop { type "kinetic" attack -9 glance 1 range "Very Close" crit 20 } }\n')
SIDES3 = "    side white: Lance\n    side red: Pike, Grunt\n"


def test_an_alpha_strike_on_two_targets_takes_minus_1_on_every_attack(tmp_path):
    # L108: Ann (No Such Thing As Overkill) Alpha Strikes by default when two weapons can fire. Her
    # target is Grunt (a house rule), at Close; her Carbine reaches only Very Close, where Pike has
    # closed (Pop reaches Very Close): it fires at Pike, the Missiles at Grunt: two targets, -1 to
    # all her attack rolls. Positioning Lance 6+4 + 12 = 22, Pike 9+9 + 12 = 30, Grunt 1+1 + 12 = 14.
    # Carbine: 5+5 + 6 - 3 positioning (30 - 22 = 8) - 1 = 12 against Pike's 6: Glancing 3 - 2 = 1.
    # Missiles (Electronic: Intellect 1 + EW 0, untrained: 5+5 halved to 5, L407) + 1 Targeting + 3
    # positioning (22 - 14) - 1 = 8 against Grunt's Electronic Defense 2 + Clarity 2 = 4: Glancing 5 - 2.
    rules = ('fn neojove.pick_target(u, enc) {\n    if u.name == "Lance" { return Grunt }\n    return Lance\n}\n'
             "fn neojove.sacrifices(def, att, w) = false\n")
    pop = '    weapon Pop { type "kinetic" attack -9 glance 1 range "Very Close" crit 20 }\n'
    script = chase('dogfight_arc: "fore"', crew=ALPHA_CREW, rules=rules, lance_weapons=ALPHA_GUNS, pike_weapons=pop,
                   extra=GRUNT, sides=SIDES3, until="round > 1")
    ran = run_json(tmp_path, script, [6, 4, 9, 9, 1, 1, 1, 1, 5, 5, 1, 1, 5, 5, 1, 1, 1, 1])
    assert ran["log"][3:] == [
        "  Positioning: Lance 22; Pike 30; Grunt 14",
        "  Pike closes 1 bracket on Lance, now at Very Close",
        "  Pike fires Pop at Lance (Very Close): 2d10 1 1 = 2 - 3 + 3 positioning = 2 vs Kinetic Defense 6: miss",
        "  Lance: Alpha Strike (L108) at Pike, Grunt, -1 to all its attacks, defenses -25% until its next activation",
        "  Lance fires Carbine at Pike (Very Close): 2d10 5 5 = 10 + 6 - 3 positioning - 1 targets = 12 vs Kinetic Defense 6: "
        "hit by 6, glance",
        "    glance 3, armor 2 -> 1: Pike Durability 17 of 18",
        "      critical roll 1 1 = 2 vs 20: no critical",
        "  Lance fires Missiles at Grunt (Close): 2d10 5 5 = 10 halved (untrained, L407) 5 + 2 + 3 positioning - 1 targets = 9"
        " vs Electronic Defense 4: hit by 5, glance",
        "    glance 5, armor 2 -> 3: Grunt Durability 15 of 18",
        "      critical roll 1 1 = 2 vs 20: no critical",
        "  Grunt closes 1 bracket on Lance, now at Very Close",
        # crowded out by Pike's attack (L469), against Lance's Kinetic Defense floor(6 x 3/4) = 4 (P37)
        "  Grunt fires Pop at Lance (Very Close): 2d10 1 1 = 2 - 3 - 3 positioning - 2 crowding = -6 vs Kinetic Defense 4: "
        "miss",
    ]
