"""Golden tests of RoboMACs in play (issue 19, item 2): the vehicle Maneuvering phase (rule text 001,
section 3.5, L1626-1859), rams tied to the facings, Explosive Weapons, personal Overkill tables,
hordes. Each forces its dice through `mech run --faces` (d8 faces in the order they fall, see the
module's comment on the Maneuvering phase) and cites the lines of the text
(shared/seeds/001_339126d73d002dcf.txt) it checks.

In a round with anyone in vehicle form, the dice fall: the first time, everyone's initiative d8 (the
better of two with Fast) in the encounter's order; a d8 for each one tied with a foe; then, in the
order of the Maneuvering phase (the highest first), each one's positions with the one he chases (his
side, the range, [his elevation,] the target's side[, the target's elevation]) and his maneuvers'
2d8; then the Advantage, NPC and Responsive phases as before.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from support import mech_forked

ROOT = Path(__file__).resolve().parent.parent


def script(characters: str, tactics: str = "", settings: tuple[str, ...] = (), sides: tuple[str, str] = ("", ""),
           until: str = "round > 1") -> str:
    """A fight: `characters` (declarations), `tactics` (house rules), sides a and b (names, comma
    separated; by default the first character against the others), `settings` of the encounter."""
    names = re.findall(r"^character (\w+)", characters, re.M)
    a, b = sides if sides[0] else (names[0], ", ".join(names[1:]))
    lines = "".join(f"    {s}\n" for s in settings)
    return (f"use robomacs\n{characters}\n{tactics}\n"
            f'encounter "Test" {{\n    side a: {a}\n    side b: {b}\n{lines}    until one_side_left or {until}\n}}\n')


def run(tmp_path: Path, text: str, faces: list[int]) -> list[str]:
    path = tmp_path / "fight.mech"
    path.write_text(text)
    ran = mech_forked(["run", str(path), "--faces", ",".join(map(str, faces)), "--json"], tmp_path)
    assert ran.code == 0, ran.err
    return json.loads(ran.out)["log"]


def between(log: list[str], first: str, last: str | None = None) -> list[str]:
    """The lines from the one starting `first` up to (not with) the next starting `last`."""
    start = next(i for i, line in enumerate(log) if line.startswith(first))
    end = next((i for i in range(start + 1, len(log)) if last and log[i].startswith(last)), len(log))
    return log[start:end]


QUIET = 'fn robomacs.plan_for(c, enc) = plan("none", [])\n'

RACER = 'character Racer is RoboMAC { fast 0  weapons 0  skill Blast  system "Combat Form"  form "vehicle" }'
TRUCK = 'character Truck is RoboMAC { skill Blast  system "Combat Form"  form "vehicle" }'


def test_initiative_the_chasers_positions_and_a_dogfight_that_keeps_them(tmp_path):
    # L1643-1647: d8, the better of two with Fast, the highest first. L1662-1700: the chaser rolls his
    # side facing the target (1-2 front, 3-4 left), the range (1-6 Close) and the target's side.
    # L1704-1708: the target who picks him back enters a Dogfight and rolls nothing; the positions
    # stay from round to round with no new rolls (round 2 takes no die)
    tactics = QUIET + "fn robomacs.maneuvers_for(c, t, enc) = []\n"
    log = run(tmp_path, script(RACER + "\n" + TRUCK, tactics, until="round > 2"), [2, 6, 5, 1, 1, 3])
    assert log[4:10] == [
        "  Maneuvering order (d8, the better of two with Fast; the highest first, L1643-1647): Racer 6, Truck 5",
        "  Maneuvering: Racer chases Truck: his front faces Truck's left, Close",
        "  Maneuvering: Truck takes on Racer: a Dogfight, no new positions (L1704-1708): his left faces Racer's front, Close",
        "Round 2",
        "  Maneuvering: Racer stays in the Dogfight with Truck: his front faces Truck's left, Close",
        "  Maneuvering: Truck stays in the Dogfight with Racer: his left faces Racer's front, Close",
    ]


def test_ties_with_a_foe_reroll_each_round(tmp_path):
    # L1655-1657: "Ties reroll each round that they fight each other": both 4, then d8 each (2, 7):
    # Truck goes first this round
    tactics = QUIET + "fn robomacs.maneuvers_for(c, t, enc) = []\n"
    racer = RACER.replace("fast 0  ", "")
    log = run(tmp_path, script(racer + "\n" + TRUCK, tactics), [4, 4, 2, 7, 8, 7, 5])
    assert log[4] == "  Maneuvering order (d8, the better of two with Fast; the highest first, L1643-1647): Racer 4, Truck 4"
    assert log[5] == "  Maneuvering: Truck chases Racer: his back faces Racer's right, Not Close"


def test_change_facing_a_roll_per_90_degrees_and_map_on_combined_maneuvers(tmp_path):
    # L1718-1724: each 90 degrees a Difficult roll, MAP for several; L1737-1738 Range Difficult; L1744-1746:
    # combined maneuver rolls are each one degree harder. Front to back is two turns. A Mixed turns (L1172)
    tactics = (QUIET + "fn robomacs.maneuvers_for(c, t, enc) {\n"
               ' if c == Truck { return [facing_act("change facing", t, "back"), act("Range", t)] }\n return []\n}\n')
    racer = RACER.replace("fast 0  ", "")
    log = run(tmp_path, script(racer + "\n" + TRUCK, tactics), [3, 6, 1, 8, 3, 5, 5, 6, 6, 4, 4])
    assert between(log, "  Maneuvering: Truck chases", "  Maneuvering: Racer") == [
        "  Maneuvering: Truck chases Racer: his front faces Racer's left, Not Close",
        "  Maneuvering: Truck changes facing to right toward Racer (L1722-1725), Difficult +1 (MAP) = Tasking: 2d8 [5 5] = 10: mixed",
        "    his right faces Racer's left, Not Close",
        "  Maneuvering: Truck changes facing to back toward Racer (L1722-1725), Difficult +1 (MAP) = Tasking: 2d8 [6 6] = 12: success",
        "    his back faces Racer's left, Not Close",
        "  Maneuvering: Truck moves to Close with Racer (Range maneuver, L1737-1742), Difficult +1 (MAP) = Tasking: 2d8 [4 4] = 8: failure",
    ]


def test_a_stunt_driver_turns_free_and_ranges_at_routine_a_humanoid_uses_the_range_skill(tmp_path):
    # L1724-1725: Stunt Driver changes facing for free; L1738-1739: Range is Routine for him; L1739-1740:
    # a humanoid uses the Range skill (Tasking without it), which pays no MAP (L1747)
    driver = 'character Driver is RoboMAC { skill "Stunt Driver"  system "Combat Form"  form "vehicle" }'
    walker = "character Walker is RoboMAC { skill Blast }"
    tactics = (QUIET + "fn robomacs.maneuvers_for(c, t, enc) {\n"
               ' if c == Driver { return [facing_act("change facing", t, "front"), act("Range", t)] }\n'
               ' return [act("Range", Driver), act("Range", Driver)]\n}\n')
    log = run(tmp_path, script(driver + "\n" + walker, tactics), [7, 2, 8, 7, 1, 4, 4, 3, 3, 5, 5])
    assert log[4:] [:6] == [
        "  Maneuvering order (d8, the better of two with Fast; the highest first, L1643-1647): Driver 7, Walker 2",
        "  Maneuvering: Driver chases Walker: his back faces Walker's front, Not Close",
        "  Maneuvering: Driver changes facing, free (L1724-1725): his front faces Walker's front, Not Close",
        "  Maneuvering: Driver moves to Close with Walker (Range maneuver, L1737-1742), Routine: 2d8 [4 4] = 8: success",
        "  Maneuvering: Walker moves to Not Close with Driver, Routine +2 (no Range skill) = Tasking: 2d8 [3 3] = 6: failure",
        "  Maneuvering: Walker moves to Not Close with Driver, Routine +2 (no Range skill) = Tasking: 2d8 [5 5] = 10: mixed",
    ]


def test_enter_facing_works_in_a_dogfight_and_is_wasted_when_the_target_declines(tmp_path):
    # L1730-1734: Enter (foe's) Facing moves him out of the foe's front; Routine for a Stunt Driver.
    # In round 2 the two are in a Dogfight, and it holds; the default tactics use it against a foe who
    # fires forward (Truck lacks Weapons and Gadgets: a fixed forward arc, L1636-1639), who turns back
    racer = RACER.replace("skill Blast", 'skill Blast  skill "Stunt Driver"')
    log = run(tmp_path, script(racer + "\n" + TRUCK, "", until="round > 2"), [2, 6, 5, 1, 1, 1] + [4] * 4 + [5] * 4 + [6] * 4)
    assert between(log, "Round 2", "  Advantage") == [
        "Round 2",
        "  Maneuvering: Racer stays in the Dogfight with Truck: his front faces Truck's front, Close",
        "  Maneuvering: Racer enters Truck's facing, to his right (L1730-1734), Routine: 2d8 [5 5] = 10: success",
        "    his front faces Truck's right, Close",
        "  Maneuvering: Truck stays in the Dogfight with Racer: his right faces Racer's front, Close",
        "  Maneuvering: Truck changes facing to front toward Racer (L1722-1725), Difficult: 2d8 [5 5] = 10: success",
        "    his front faces Racer's front, Close",
    ]
    # L1731-1732: "a 'wasted' action if your target declines the invitation to Dogfight": Truck chases
    # Ally instead, and Racer's move is undone
    text = script(RACER + "\n" + TRUCK + '\ncharacter Van is RoboMAC { form "vehicle" }\ncharacter Ally is RoboMAC { }',
                  QUIET + "fn robomacs.chase_for(c, enc) = match c { Truck => Ally; Racer => Truck; else => none }\n"
                  'fn robomacs.maneuvers_for(c, t, enc) = match c { Racer => [facing_act("enter facing", t, "right")]; else => [] }\n',
                  sides=("Racer, Ally", "Truck, Van"))
    log = run(tmp_path, text, [2, 6, 5, 1, 1, 1, 1, 1, 5, 5, 3, 3, 3])
    assert between(log, "  Maneuvering: Racer chases") == [
        "  Maneuvering: Racer chases Truck: his front faces Truck's front, Close",
        "  Maneuvering: Racer enters Truck's facing, to his right (L1730-1734), Difficult: 2d8 [5 5] = 10: success",
        "    his front faces Truck's right, Close",
        "  Maneuvering: Truck chases Ally: his left faces Ally's left, Close",
        "  Maneuvering: Racer's Enter Facing is wasted: Truck did not take on the Dogfight (L1731-1732)",
        "No side has won: a, b still stand.",
    ]


JOHNNY = "character Johnny is Pilot { guts 0  reflexes 0  skill Blast }"
GIGANTIC = 'character Gigantic is Robo { weapons 0  pilot Johnny  system "Combat Form"  form "vehicle" }'


def test_a_robomacs_maneuver_map_stays_in_the_phase_a_human_pilots_adds_up(tmp_path):
    # L1744-1749 (A11): combined maneuver rolls pay MAP "but not on rolls in the other Phases, IF the
    # Robo is a RoboMAC"; "Human pilots add all MAPs together": Gigantic's Advantage Blast is a degree
    # harder for his two turns, Racer's is not. Both turn front to back: two rolls each (L1723-1724)
    plain = RACER.replace("fast 0  ", "")
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Truck => plan("none", []); else => plan("advantage", [act("Blast", Truck)]) }\n'
               "fn robomacs.chase_for(c, enc) = match c { Truck => none; else => Truck }\n"
               'fn robomacs.maneuvers_for(c, t, enc) = match c { Truck => []; else => [facing_act("change facing", t, "back")] }\n')
    text = script(JOHNNY + "\n" + GIGANTIC + "\n" + plain + '\ncharacter Truck is RoboMAC { form "vehicle" }', tactics,
                  sides=("Gigantic, Racer", "Truck"))
    log = run(tmp_path, text, [8, 7, 1, 1, 1, 1, 7, 7, 7, 7, 1, 1, 1, 6, 6, 6, 6, 4, 4, 4, 4])
    assert [line for line in log if "uses Blast" in line or "changes facing" in line] == [
        "  Maneuvering: Gigantic changes facing to right toward Truck (L1722-1725), Difficult +1 (MAP) = Tasking: 2d8 [7 7] -2 (IP) = 12: success",
        "  Maneuvering: Gigantic changes facing to back toward Truck (L1722-1725), Difficult +1 (MAP) = Tasking: 2d8 [7 7] -2 (IP) = 12: success",
        "  Maneuvering: Racer changes facing to right toward Truck (L1722-1725), Difficult +1 (MAP) = Tasking: 2d8 [6 6] = 12: success",
        "  Maneuvering: Racer changes facing to back toward Truck (L1722-1725), Difficult +1 (MAP) = Tasking: 2d8 [6 6] = 12: success",
        "  Advantage: Gigantic uses Blast on Truck, Difficult +1 (pilot's maneuver MAP) = Tasking: 2d8 [4 4] -2 (IP) = 6: failure",
        "  Advantage: Racer uses Blast on Truck, Difficult: 2d8 [4 4] = 8: failure",
    ]


def test_opportunity_fire_is_minus_2_and_pays_map_after_any_maneuver(tmp_path):
    # L1751-1755: Opportunity Fire "takes MAP if any maneuvers were used, even the Range skill", and is
    # "at -2 on the dice"; its damage is the Advantage column's (option opportunity_column). Walker
    # (humanoid) closes with the Range skill, then fires; Racer fires with no maneuver: no MAP
    walker = "character Walker is RoboMAC { weapons 0  skill Blast  skill Range }"
    tactics = (QUIET + "fn robomacs.chase_for(c, enc) = match c { Racer => Walker; else => none }\n"
               'fn robomacs.maneuvers_for(c, t, enc) = match c { Walker => [act("Range", Racer), act("Blast", Racer)]; '
               'else => [act("Blast", Walker)] }\n')
    racer = RACER.replace("fast 0  ", "")
    log = run(tmp_path, script(racer + "\n" + walker, tactics), [5, 3, 1, 7, 1, 6, 6, 7, 7])
    assert between(log, "  Maneuvering: Racer chases", "No side") == [
        "  Maneuvering: Racer chases Walker: his front faces Walker's front, Not Close",
        "  Maneuvering: Racer cannot use Blast on Walker: it needs Close range (L604-688)",
        "  Maneuvering: Walker moves to Close with Racer, Routine: 2d8 [6 6] = 12: success",
        "  Maneuvering: Walker uses Blast on Racer, Difficult +1 (MAP) = Tasking: 2d8 [7 7] -2 (Opportunity Fire) = 12: success",
        "    Metal to Racer",
        "    Racer takes a Metal wound: wounds (2/3/2) Wrecked 1",
    ]


def test_a_vehicle_rams_not_brawls_fires_only_with_combat_form_and_the_facings_set_the_ram(tmp_path):
    # L1758-1760: vehicles "cannot make hand-to-hand attacks... Instead they Ram"; L1633-1634: without
    # Combat Form "you can't do anything in vehicle combat except ram". R1: front to Truck's left is a
    # T-Bone (L1790), Tasking, one more for MAP (three actions); Critical to Truck, Structural to Hauler,
    # Metal with his front Ramplate (L1772-1774). R2: a Head-On declared where the facings make a
    # T-Bone is refused; R3: Not Close, no ram (L1737-1738)
    hauler = 'character Hauler is RoboMAC { brawn 0  skill Brawl { bonus 2 }  skill Blast  form "vehicle"  system Ramplate }'
    tactics = ('fn robomacs.plan_for(c, enc) {\n if c == Truck { return plan("none", []) }\n let r = act("ram", Truck)\n'
               ' if enc.round == 2 { r.ram = "head-on" }\n return plan("advantage", [act("Brawl", Truck), act("Blast", Truck), r])\n}\n'
               "fn robomacs.maneuvers_for(c, t, enc) = []\nfn robomacs.chase_for(c, enc) = match c { Hauler => Truck; else => none }\n")
    log = run(tmp_path, script(hauler + "\n" + TRUCK, tactics, until="round > 3"), [5, 1, 1, 1, 3, 6, 6, 1, 1, 3, 1, 7, 3])
    assert [line for line in log if line.startswith("  Advantage") or line.startswith("    Critical")] == [
        "  Advantage: Hauler cannot use Brawl on Truck: a vehicle makes no hand-to-hand attack, it rams (L1758-1760)",
        "  Advantage: Hauler cannot use Blast on Truck: without Combat Form a vehicle can only ram (L1633-1634)",
        "  Advantage: Hauler rams Truck (t-bone), Tasking +1 (MAP) = Limit: 2d8 [6 6] +2 (ram) = 14: success",
        "    Critical to Truck, Metal to Hauler",
        "  Advantage: Hauler cannot use Brawl on Truck: a vehicle makes no hand-to-hand attack, it rams (L1758-1760)",
        "  Advantage: Hauler cannot use Blast on Truck: without Combat Form a vehicle can only ram (L1633-1634)",
        "  Advantage: Hauler cannot ram Truck: his front faces Truck's left, which makes a t-bone, not a head-on (L1776-1799)",
        "  Advantage: Hauler cannot use Brawl on Truck: a vehicle makes no hand-to-hand attack, it rams (L1758-1760)",
        "  Advantage: Hauler cannot use Blast on Truck: without Combat Form a vehicle can only ram (L1633-1634)",
        "  Advantage: Hauler cannot ram Truck: they are Not Close (L1737-1738)",
    ]


def test_a_mutual_tailgate_and_a_chart_npcs_ram_in_the_npc_phase(tmp_path):
    # L1783-1785: the target of a Tailgate who "hit[s] the brakes and help[s] the ram along": it succeeds
    # "if either rolls a Routine, and both will take a Structural" (Hauler's front Ramplate: Metal).
    # The chart NPC's ram by the default tactics, its back to Hauler's front: a Reverse Tailgate
    # (L1786-1788), Metal and Bone; in the NPC phase its damage waits (L1431-1433, A03)
    hauler = 'character Hauler is RoboMAC { brawn 0  skill Brawl { bonus 2 }  form "vehicle"  system Ramplate }'
    npc = 'character Truck is Npc { chart "NT"  form "vehicle" }'
    tactics = ("fn robomacs.maneuvers_for(c, t, enc) = []\n"
               'fn robomacs.joins_ram(t, c, kind, struck, enc) = kind == "tailgate"\n')
    log = run(tmp_path, script(hauler + "\n" + npc, tactics), [5, 1, 1, 1, 7, 1, 1, 4, 4, 6, 6])
    assert between(log, "  Advantage", "No side") == [
        "  Advantage: Truck joins Hauler's tailgate (L1778-1805)",
        "    Hauler rams, Routine: 2d8 [1 1] +2 (ram) = 4: failure",
        "    Truck rams, Routine: 2d8 [4 4] = 8: success",
        "    Structure to Truck, Metal to Hauler",
        "    Truck takes a Structure wound: wounds (2/1/1) Wrecked 0",
        "    Hauler takes a Metal wound: wounds (2/4/3) Wrecked 1",
        "  NPC: Truck rams Hauler (reverse tailgate), Difficult: 2d8 [6 6] = 12: success",
        "    Hauler's front Ramplate takes a level off",
        "    Bone to Hauler, Bone to Truck, pending",
        "  Hauler takes the Bone from Truck's ram",
        "    a Bone wound does nothing to a Robo (L2338-2340)",
        "  Truck takes the Bone from Truck's ram",
        "    a Bone wound does nothing to a Robo (L2338-2340)",
    ]


def test_in_the_air_directly_above_no_forward_weapon_bears_and_each_elevation_line_is_a_turn(tmp_path):
    # L1674-1681: aerial combat rolls the elevation chart (1 directly above); "You can bring
    # front-mounted weapons to bear as long as you are not directly above or directly below" (L1683-1686).
    # L1726-1729: each line of the elevation chart is one Change Facing roll (Above to Same Level: one)
    racer = 'character Racer is RoboMAC { skill Blast  system "Combat Form"  form "vehicle" }'
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Racer => plan("advantage", [act("Blast", Truck)]); else => plan("none", []) }\n'
               "fn robomacs.chase_for(c, enc) = match c { Racer => Truck; else => none }\n"
               'fn robomacs.maneuvers_for(c, t, enc) = match enc.round { 1 => []; else => [facing_act("change facing", t, "same level")] }\n')
    text = script(racer + '\ncharacter Truck is RoboMAC { form "vehicle" }', tactics, ("aerial: true",), until="round > 2")
    log = run(tmp_path, text, [5, 1, 1, 1, 1, 3, 8, 1, 1, 2, 3, 8, 6, 6, 6, 6])
    assert log[5:12] == [
        "  Maneuvering: Racer chases Truck: his front faces Truck's left, Close, directly above",
        "  Advantage: Racer cannot use Blast on Truck: Truck is not in his arc of fire: his front faces Truck's left, "
        "Close, directly above (L1635-1639, L1683-1686)",
        "Round 2",
        "  Maneuvering: Racer chases Truck: his front faces Truck's left, Close, above",
        "  Maneuvering: Racer changes facing to same level toward Truck (L1722-1725), Difficult: 2d8 [6 6] = 12: success",
        "    his front faces Truck's left, Close, same level",
        "  Advantage: Racer uses Blast on Truck, Difficult: 2d8 [6 6] = 12: success",
    ]


def test_a_mishap_while_maneuvering_puts_him_out_for_the_round_or_is_a_mishap(tmp_path):
    # L1830-1832: "A Mishap on a Maneuvering roll could put the player out of action for the rest of the
    # round": Truck's turn fails on a Mishap (2 on Difficult, L1160) and his Blast never comes. With
    # maneuver_mishap "mishap" the usual Mishap (L1177-1180) and he fires
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Truck => plan("advantage", [act("Blast", Racer)]); else => plan("none", []) }\n'
               'fn robomacs.maneuvers_for(c, t, enc) = match c { Truck => [facing_act("change facing", t, "front")]; else => [] }\n'
               "fn robomacs.chase_for(c, enc) = match c { Truck => Racer; else => none }\n")
    faces = [1, 1, 5, 3, 1, 1, 1, 1, 4, 4]
    log = run(tmp_path, script(RACER + "\n" + TRUCK, tactics), faces)
    assert "    Mishap: Truck is out of action for the rest of the round (L1830-1832)" in log
    assert not any("uses Blast" in line for line in log)
    log = run(tmp_path, script(RACER + "\n" + TRUCK, tactics, ('maneuver_mishap: "mishap"',)), faces)
    assert "    Mishap: a Really Bad Mistake (L1177)" in log
    assert "  Advantage: Truck cannot use Blast on Racer: Racer is not in his arc of fire: his left faces Racer's front, Close (L1635-1639, L1683-1686)" in log


# ---- Explosive Weapons, Overkill tables, hordes ----

BOMBS = ('character Blueblaze is RoboMAC {\n    weapons 0  gadgets 0  skill Blast { bonus 1 }\n'
         '    system "Shoulder bombs" { is "Built-In Weapon"  built_in true  mode "matter"  explosive true  autoranging true }\n}')
FODDER = "".join(f'character {n} is Npc {{ chart "CF" }}\n' for n in "ABC")


def test_an_explosive_weapon_hits_all_foes_or_d8_over_2_when_scattered(tmp_path):
    # L871-873: an Explosive Weapon "does damage to all foes (or d8/2 foes if they're scattered
    # about)"; A17: max(1, floor(d8/2)), the target among them
    tactics = 'fn robomacs.plan_for(c, enc) = match c { Blueblaze => plan("advantage", [act("Blast", A)]); else => plan("none", []) }\n'
    log = run(tmp_path, script(BOMBS + "\n" + FODDER, tactics), [5, 5])
    assert between(log, "  Advantage", "No side") == [
        "  Advantage: Blueblaze uses Blast on A (Shoulder bombs), Difficult -1 (built-in) = Routine: 2d8 [5 5] +1 (skill) = 11: success",
        "    Metal to A",
        "    A takes a Metal wound: wounds (1/1/0) Wrecked 0",
        "    the blast hits all foes (L871-873): B, C too",
        "    Metal to B",
        "    B takes a Metal wound: wounds (1/1/0) Wrecked 0",
        "    Metal to C",
        "    C takes a Metal wound: wounds (1/1/0) Wrecked 0",
    ]
    log = run(tmp_path, script(BOMBS + "\n" + FODDER, tactics, ("scattered: true",)), [5, 5, 5])
    assert "    the blast hits 2 of the scattered foes, d8/2 (L871-873, A17): B too" in log
    assert not any(line.startswith("    C takes") for line in log)
    log = run(tmp_path, script(BOMBS + "\n" + FODDER, tactics, ("scattered: true",)), [5, 5, 1])
    assert "    the blast reaches no one else: 1 of the scattered foes, d8/2 (L871-873, A17)" in log


RIFLE = ('character Blueblaze is RoboMAC {\n    weapons 0  gadgets 0  skill Blast { bonus 1 }\n'
         '    system "Energy rifle" { is "Built-In Weapon"  built_in true  overkills "blueblaze" }\n}')


def test_blueblazes_overkill_table_in_play(tmp_path):
    # L1343-1369, with overkill_effect "table" (A04's pluggable table): 2d8 on the weapon's own table in
    # place of the level more. 10-11 Spazz: the attempted damage and -3 on all rolls for d8 rounds
    # (L1361-1362); 4-5 Discharge! on a chart NPC: "he drops one level in attack power and takes a
    # Structural instead" (L1351-1354): the NT line becomes CF's; 3 or less Lightning Bolt!: Critical
    # to the target, Metal to everyone else Close to it, "Guardian and MACE alike" (L1347-1350)
    characters = RIFLE + '\ncharacter Thug is RoboMAC { armored 0 }\ncharacter Trooper is Npc { chart "NT" }'
    tactics = ('fn robomacs.plan_for(c, enc) = match c {\n Blueblaze => plan("advantage", [act("Blast", enc.characters[enc.round])])\n'
               ' Trooper => plan("npc", [act("chart", Blueblaze)])\n else => plan("none", [])\n}\n')
    log = run(tmp_path, script(characters, tactics, ('overkill_effect: "table"',), until="round > 2"),
              [7, 7, 5, 5, 3, 4, 4, 7, 7, 2, 2, 4, 4])
    assert [line for line in log if line.startswith("    ") and "takes a" not in line] == [
        "    Overkill on Blueblaze's table for his Energy rifle: 2d8 [5 5] = 10: Spazz (L1343-1369)",
        "    Metal to Thug",
        "    Thug is -3 on all rolls for 3 rounds",
        "    Metal to Blueblaze, pending",
        "    Overkill on Blueblaze's table for his Energy rifle: 2d8 [2 2] = 4: Discharge! (L1343-1369)",
        "    Trooper drops one line of attack power",
        "    Structure to Trooper",
    ]
    assert "  NPC: Trooper attacks Blueblaze on the CF line: 2d8 [4 4] = 8: miss" in log
    tactics = 'fn robomacs.plan_for(c, enc) = match c { Blueblaze => plan("advantage", [act("Blast", Thug)]); else => plan("none", []) }\n'
    log = run(tmp_path, script(characters, tactics, ('overkill_effect: "table"',)), [7, 7, 1, 1])
    assert between(log, "    Overkill", "No side") == [
        "    Overkill on Blueblaze's table for his Energy rifle: 2d8 [1 1] = 2: Lightning Bolt! (L1343-1369)",
        "    Critical to Thug",
        "    Thug takes a Critical wound: wounds (4/4/2) Wrecked 2",
        "    Scramble: Thug loses his actions next round",
        "    the bolt strikes Blueblaze too, Close to Thug",
        "    Metal to Blueblaze",
        "    Blueblaze takes a Metal wound: wounds (3/3/2) Wrecked 1",
        "    the bolt strikes Trooper too, Close to Thug",
        "    Metal to Trooper",
        "    Trooper takes a Metal wound: wounds (1/2/1) Wrecked 0",
    ]
    # by default (A04) the table is not used: one level more
    log = run(tmp_path, script(characters, tactics), [7, 7])
    assert "    Overkill: one damage level more (A04)" in log and not any("table" in line for line in log)


def test_a_horde_rolls_once_on_a_higher_line_e28(tmp_path):
    # L1472-1475 (E28): "you can roll for a group of one type as a single member of a higher type if they
    # all attack one target. So a horde of Cannon Fodder might be as effective as one Elite Troop":
    # three CF roll once on the ET line (12: Structure); the Normal Troop rolls alone
    characters = "character Blueblaze is RoboMAC { weapons 0 }\n" + FODDER + 'character D is Npc { chart "NT" }'
    tactics = 'fn robomacs.plan_for(c, enc) = match c { Blueblaze => plan("none", []); else => plan("npc", [act("chart", Blueblaze)]) }\n'
    log = run(tmp_path, script(characters, tactics, ("horde: true",)), [6, 6, 4, 4])
    assert between(log, "  NPC", "  Blueblaze takes") == [
        "  NPC: A, B, C mob Blueblaze: one roll on the ET line (L1472-1475)",
        "  NPC: A attacks Blueblaze on the ET line: 2d8 [6 6] = 12: structure",
        "    Structure to Blueblaze, pending",
        "  NPC: B attacks Blueblaze in A's mob (L1472-1475)",
        "  NPC: C attacks Blueblaze in A's mob (L1472-1475)",
        "  NPC: D attacks Blueblaze on the NT line: 2d8 [4 4] = 8: metal",
        "    Metal to Blueblaze, pending",
    ]
    # the rule is optional ("you can"): by default each rolls on his own line
    log = run(tmp_path, script(characters, tactics), [6, 6, 4, 4, 1, 1, 2, 2])
    assert "  NPC: A attacks Blueblaze on the CF line: 2d8 [6 6] = 12: metal" in log


def test_a_horde_member_who_points_out_a_hidden_foe_stays_in_the_horde(tmp_path):
    # L903: pointing out costs nothing by default (option point_out "free"), so A, whose Sensor Pack
    # (L932-933) sees Ghost, points him out to B and C and still attacks Blueblaze with them: the three
    # roll once on the ET line (L1472-1475), not A alone on CF and B and C on NT
    characters = ("character Blueblaze is RoboMAC { weapons 0 }\ncharacter Ghost is RoboMAC { gadgets 0  system Invisibility }\n"
                  + FODDER.replace('chart "CF" }', 'chart "CF"  system "Sensor Pack" }', 1))
    tactics = 'fn robomacs.plan_for(c, enc) = match c { Blueblaze => plan("none", []); Ghost => plan("none", []); else => default_plan(c, enc) }\n'
    log = run(tmp_path, script(characters, tactics, ("horde: true",), ("Blueblaze, Ghost", "A, B, C")), [6, 6, 4, 4])
    assert between(log, "  NPC", "  Blueblaze takes") == [
        "  NPC: A points out Ghost to B, C (L903, no action spent): he can be attacked now, though hard to hit",
        "  NPC: A, B, C mob Blueblaze: one roll on the ET line (L1472-1475)",
        "  NPC: A attacks Blueblaze on the ET line: 2d8 [6 6] = 12: structure",
        "    Structure to Blueblaze, pending",
        "  NPC: B attacks Blueblaze in A's mob (L1472-1475)",
        "  NPC: C attacks Blueblaze in A's mob (L1472-1475)",
    ]


# ---- the example ----

def test_the_dogfight_example_runs_and_simulates(tmp_path):
    # examples/robomacs_dogfight.mech by the default tactics: a Maneuvering phase every round, a
    # Dogfight, rams whose kind the facings set, with `--seed 1` and in a batch
    path = ROOT / "examples" / "robomacs_dogfight.mech"
    ran = mech_forked(["run", str(path), "--seed", "1", "--json"], tmp_path)
    assert ran.code == 0, ran.err
    log = json.loads(ran.out)["log"]
    assert log[6].startswith("  Maneuvering order (d8, the better of two with Fast; the highest first, L1643-1647): ")
    assert any("a Dogfight, no new positions" in line for line in log)
    assert any(re.match(r"  Advantage: Blueblaze rams Razorback \(t-bone\)", line) for line in log)
    assert not any("uses Brawl" in line or "uses Weaponmaster" in line for line in log)   # vehicles ram (L1758-1760)
    ran = mech_forked(["sim", str(path), "-n", "30", "--seed", "1", "--json", "--jobs", "1"], tmp_path)
    assert ran.code == 0, ran.err
    assert json.loads(ran.out)["runs"] == 30


# ---- systems in play ----

def test_a_snare_gun_holds_a_mode_breaks_it_the_other_bypasses_it(tmp_path):
    # L945-953: a Snare Gun's Metal result "translates into the foe needing a Difficult roll to escape
    # the snare"; "While snared, the foe has the same penalties as if Grabbed" (one level more, L629);
    # "Attacks of the same Mode as the snare will first break the snare, while attacks of the other
    # mode will ignore it". R1 Prey is snared and fails to escape (the default tactics try); R2 an
    # Energy Rifle breaks the Energy snare, a Matter one does a level more
    def characters(mode):
        return ('character Trapper is RoboMAC { weapons 0  gadgets 0  skill Blast  system Net { is "Snare Gun"  snare true } }\n'
                "character Prey is RoboMAC { skill Blast  skill Brawl }\n"
                f'character Gunner is RoboMAC {{ skill Blast  system Rifle {{ is "Weapon"  mode "{mode}" }} }}')
    tactics = ('fn robomacs.plan_for(c, enc) {\n if c == Trapper and enc.round == 1 { return plan("advantage", [act("Blast", Prey)]) }\n'
               ' if c == Gunner and enc.round == 2 { return plan("advantage", [act("Blast", Prey)]) }\n'
               ' if c == Prey { return default_plan(c, enc) }\n return plan("none", [])\n}\n')
    log = run(tmp_path, script(characters("energy"), tactics, sides=("Trapper, Gunner", "Prey"), until="round > 2"),
              [5, 5, 4, 4, 6, 6])
    assert log[5:11] == [
        "  Advantage: Trapper uses Blast on Prey (Net), Difficult: 2d8 [5 5] = 10: success",
        "    Prey is snared (energy), and needs Difficult to escape (L945-947)",
        "  Advantage: Prey tries to escape Trapper's snare, Difficult: 2d8 [4 4] = 8: failure",
        "Round 2",
        "  Advantage: Gunner uses Blast on Prey (Rifle), Difficult: 2d8 [6 6] = 12: success",
        "    the energy attack breaks Prey's snare first (L948-949)",
    ]
    log = run(tmp_path, script(characters("matter"), tactics, sides=("Trapper, Gunner", "Prey"), until="round > 2"),
              [5, 5, 4, 4, 6, 6, 7, 7])
    assert between(log, "  Advantage: Gunner", "No side") == [
        "  Advantage: Gunner uses Blast on Prey (Rifle), Difficult: 2d8 [6 6] = 12: success",
        "    Metal -> Structure (snared) to Prey",
        "    Prey takes a Structure wound: wounds (2/1/2) Wrecked 1",
        "    Scramble: Prey is -2 next round",
        "  Responsive: Prey tries to escape Trapper's snare, Difficult: 2d8 [7 7] = 14: success",
        "    Prey is free of the snare",
    ]


def test_invisibility_until_he_fires_then_minus_4_a_sensor_pack_sees_and_a_hit_ends_it(tmp_path):
    # L902-904: "As long as no weapons are used, user cannot be attacked or seen without Sensor Pack. If
    # he fires or is pointed out by someone, he's still -4 to be hit. Being hit will deactivate this
    # system for the rest of combat"; L932-933: a Sensor Pack sees through it
    characters = ("character Ghost is RoboMAC { gadgets 0  skill Blast  system Invisibility }\n"
                  'character Hunter is RoboMAC { skill Blast }\ncharacter Seer is RoboMAC { gadgets 0  skill Blast  system "Sensor Pack" }')
    tactics = ('fn robomacs.plan_for(c, enc) {\n if c == Ghost and enc.round == 2 { return plan("advantage", [act("Blast", Hunter)]) }\n'
               ' if c == Ghost { return plan("none", []) }\n return plan("advantage", [act("Blast", Ghost)])\n}\n')
    log = run(tmp_path, script(characters, tactics, until="round > 3"), [4, 4, 4, 4, 7, 7, 6, 6, 4, 4, 4, 4])
    assert [line for line in log if line.startswith("  Advantage") or "switches" in line or "fired" in line] == [
        "  Advantage: Hunter cannot use Blast on Ghost: Ghost cannot be seen or attacked without a Sensor Pack (L902-903)",
        "  Advantage: Seer uses Blast on Ghost, Difficult: 2d8 [4 4] = 8: failure",
        "  Advantage: Ghost uses Blast on Hunter, Difficult: 2d8 [4 4] = 8: failure",
        "    Ghost has fired: he can be attacked now, though hard to hit (L903-904)",
        "  Advantage: Hunter uses Blast on Ghost, Difficult: 2d8 [7 7] -4 (Invisibility) = 10: success",
        "    the hit switches off Ghost's Invisibility for the rest of combat (L904)",
        "  Advantage: Seer uses Blast on Ghost, Difficult: 2d8 [6 6] = 12: success",
        "  Advantage: Hunter uses Blast on Ghost, Difficult: 2d8 [4 4] = 8: failure",          # no longer -4
        "  Advantage: Seer uses Blast on Ghost, Difficult: 2d8 [4 4] = 8: failure",
    ]


def test_holograms_hide_him_at_minus_2_once_he_fires(tmp_path):
    # L899-901: Holograms "used to simulate Invisibility... [work] like that system but only confer -2
    # penalty to attackers who know where he is": a Holograms roll at the degree he declares
    characters = ("character Phantom is RoboMAC { gadgets 0  skill Blast  system Holograms }\n"
                  "character Hunter is RoboMAC { skill Blast }")
    tactics = ('fn robomacs.plan_for(c, enc) = match c {\n'
               ' Phantom => match enc.round { 1 => plan("advantage", [act("Holograms", none)]); 2 => plan("advantage", [act("Blast", Hunter)]); else => plan("none", []) }\n'
               ' else => plan("advantage", [act("Blast", Phantom)])\n}\n')
    log = run(tmp_path, script(characters, tactics, until="round > 2"), [5, 5, 4, 4, 7, 7])
    assert [line for line in log if line.startswith("  Advantage") or line.startswith("    Phantom")] == [
        "  Advantage: Phantom raises Holograms (declared Difficult), Difficult: 2d8 [5 5] = 10: success",
        "    Phantom hides behind his Holograms: observers need Difficult to see the flaws (L899-900)",
        "  Advantage: Hunter cannot use Blast on Phantom: Phantom cannot be seen or attacked without a Sensor Pack (L902-903)",
        "  Advantage: Phantom uses Blast on Hunter, Difficult: 2d8 [4 4] = 8: failure",
        "    Phantom has fired: he can be attacked now, though hard to hit (L903-904)",
        "  Advantage: Hunter uses Blast on Phantom, Difficult: 2d8 [7 7] -2 (Holograms) = 12: success",
        "    Phantom takes a Metal wound: wounds (2/2/2) Wrecked 1",
    ]


def test_a_fusion_hits_a_level_harder_hand_to_hand_and_cannot_be_parried_at_the_referees_option(tmp_path):
    # L843-845: "At Referee discretion, Fusions and other FortressRobos do one level of damage higher in
    # hand-to-hand combat and cannot be Parried by normal-sized Robos" (option fusion_hand, off by default)
    characters = "character Colossus is RoboMAC { fortress true  skill Brawl }\ncharacter Guard is RoboMAC { skill Parry }"
    tactics = ('fn robomacs.plan_for(c, enc) = match c { Colossus => plan("advantage", [act("Brawl", Guard)]); '
               'else => plan("responsive", [act("Parry", Colossus)]) }\n')
    log = run(tmp_path, script(characters, tactics, ("fusion_hand: true",)), [6, 6])
    assert log[4:7] == [
        "  Advantage: Colossus uses Brawl on Guard, Difficult: 2d8 [6 6] = 12: success",
        "    Structure to Guard",
        "    Guard takes a Structure wound: wounds (2/1/2) Wrecked 1",
    ]
    assert "  Responsive: Guard cannot parry Colossus: a Fusion or FortressRobo cannot be Parried by a normal-sized Robo (L843-845)" in log
    log = run(tmp_path, script(characters, tactics), [6, 6, 4, 4])
    assert "    Metal to Guard" in log and "  Responsive: Guard parries Colossus, Tasking: 2d8 [4 4] = 8: failure" in log


def test_size_change_takes_the_action_unless_quickchange(tmp_path):
    # L939-942: "changing size takes the character's action unless he has Quickchange as well": as a
    # transformation (A10, option transform_cost), MAP on his other actions
    plain = "character Grower is RoboMAC { gadgets 0  skill Brawl  system \"Size Change\" }"
    tactics = ('fn robomacs.plan_for(c, enc) {\n if c != Grower { return plan("none", []) }\n let g = act("size change", none)\n g.to = "giant size"\n'
               ' return plan("advantage", [g, act("Brawl", Foe)])\n}\n')
    log = run(tmp_path, script(plain + "\ncharacter Foe is RoboMAC { }", tactics), [5, 5])
    assert log[4:6] == ["  Advantage: Grower changes to giant size: MAP on his other actions this round (L941-942, as transforming: A10)",
                        "  Advantage: Grower uses Brawl on Foe, Difficult +1 (MAP) = Tasking: 2d8 [5 5] = 10: mixed"]
    quick = plain.replace("}", " system Quickchange }")
    log = run(tmp_path, script(quick + "\ncharacter Foe is RoboMAC { }", tactics), [5, 5])
    assert log[4:6] == ["  Advantage: Grower changes to giant size: Quickchange: no cost",
                        "  Advantage: Grower uses Brawl on Foe, Difficult: 2d8 [5 5] = 10: success"]


def test_a_merge_takes_a_full_round_a_hit_disrupts_it_and_the_form_fights(tmp_path):
    # L829-836: the members "may merge (taking a full round, disrupted if any member is hit by an
    # attack) into a giant RoboMAC"; "The Merged form adds the Traits of the members (If three of them
    # have Brawn, he's Brawn +2, etc) but has its own systems and skills". R1 Foe's hit on Alpha
    # disrupts it; R2 it holds and Titan (Brawn +1 from two Brawn +0) fights in R3. Both members have
    # the Trait Transforming, which Merge needs (L822, tests/test_robomacs_more.py)
    characters = ("character Alpha is RoboMAC { brawn 0  transforming true  skill Brawl  system Merge }\n"
                  "character Beta is RoboMAC { brawn 0  armored 0  transforming true  system Merge }\n"
                  'character Titan is RoboMAC { brawn 1  armored 0  skill Brawl { bonus 2 }  members [Alpha, Beta]  status "unformed" }\n'
                  "character Foe is RoboMAC { skill Blast }")
    tactics = ('fn robomacs.plan_for(c, enc) = match c {\n Foe => plan("advantage", [act("Blast", Alpha)])\n'
               ' Titan => default_plan(c, enc)\n else => plan("advantage", [act("merge", none), act("Brawl", Foe)])\n}\n')
    log = run(tmp_path, script(characters, tactics, sides=("Alpha, Beta, Titan", "Foe"), until="round > 3"), [5, 5, 4, 4, 6, 6])
    assert [line for line in log if "erge" in line or "Titan" in line or "Foe uses" in line][2:] == [
        "  Advantage: Alpha merges, his round taken (L830)",
        "  Advantage: Beta merges, his round taken (L830)",
        "  Advantage: Foe uses Blast on Alpha, Difficult: 2d8 [5 5] = 10: success",
        "    the hit disrupts Alpha's Merge (L830)",
        "  the Merge into Titan fails this round: 1 of 2 members merged unhurt (L830)",
        "  Advantage: Alpha merges, his round taken (L830)",
        "  Advantage: Beta merges, his round taken (L830)",
        "  Advantage: Foe uses Blast on Alpha, Difficult: 2d8 [4 4] = 8: failure",
        "  Alpha, Beta merge into Titan (L829-836)",
        "  Advantage: Titan uses Brawl on Foe, Difficult: 2d8 [6 6] +2 (skill) = 14: success",
        "  Advantage: Foe's Blast has no target: Alpha is merged",
    ]
    # a form declared with other traits than its members' added is said so
    log = run(tmp_path, script(characters.replace("brawn 1  armored 0  skill Brawl { bonus 2 }", "brawn 3  skill Brawl { bonus 2 }"),
                               tactics, sides=("Alpha, Beta, Titan", "Foe"), until="round > 2"), [5, 5, 4, 4])
    assert "    (his brawn is declared 3; his members' add up to 1, L831-832)" in log
    assert "    (his armored is declared none; his members' add up to 0, L831-832)" in log


def test_transforming_into_a_vehicle_brings_the_maneuvering_phase_the_next_round(tmp_path):
    # L1632-1634, L1648-1650: a Transforming Robo's vehicle form fights by section 3.5; a transform
    # action with `form: "vehicle"` changes it (its cost as ever, A10); the round after has the phase
    racer = 'character Racer is RoboMAC { transforming true  weapons 0  skill Blast  system "Combat Form"  system Quickchange }'
    tactics = ('fn robomacs.plan_for(c, enc) {\n if c == Racer and enc.round == 1 {\n  let t = act("transform", none)\n'
               '  t.form = "vehicle"\n  return plan("advantage", [t])\n }\n return plan("none", [])\n}\n'
               "fn robomacs.maneuvers_for(c, t, enc) = []\n")
    log = run(tmp_path, script(racer + '\ncharacter Truck is RoboMAC { }', tactics, until="round > 2"), [3, 5, 1, 1, 3])
    assert log[4:9] == [
        "  Advantage: Racer transforms into vehicle form: Quickchange: no cost",
        "Round 2",
        "  Maneuvering order (d8, the better of two with Fast; the highest first, L1643-1647): Racer 3, Truck 5",
        "  Maneuvering: Racer chases Truck: his front faces Truck's left, Close",
        "No side has won: a, b still stand.",
    ]
