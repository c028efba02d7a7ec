"""Golden tests of the `robomacs` module (rule text 001, RoboMACs v2.1; digest
shared/rules/robomacs.md, original text shared/seeds/001_339126d73d002dcf.txt, cited as `L<n>`).

- the Task Resolution Chart against the text's printed rows, and its band counts out of 64 at
  modifier 0 (digest 2.2): exactly, through `--faces`, and statistically with a fixed seed;
- the task roll of digest 2.3: degree shifts and flat modifiers apart, impossible above Limit, the
  clamp at Automatic, the Multiple Attempt Bonus, intentional Overkill;
- the worked examples E01-E47 of the digest that are about rules (section 5), each named in its test;
  where the text contradicts its own formulas the module computes from the formula and the test
  records the printed value as the text's error (PRINTED_ERRORS);
- the sample combat E37-E47 round by round: examples/robomacs_spartacus.mech replayed with the
  natural rolls the text gives (`--faces`), and the example under `--seed 1` and `mech sim`.

Every script runs as a user runs it, `mech run FILE --faces ... --json` (or `--seed`), in a forked
child (support.mech_forked). Faces are d8 faces in the order the dice fall: each task's 2d8 in the
order the actions are taken (Advantage, NPC, Responsive; the encounter's order in each phase).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import MECH, deadline, keyed, mech_forked

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "robomacs_spartacus.mech"

DEGREES = ["automatic", "routine", "difficult", "tasking", "limit"]
BANDS = ["overkill", "success", "mixed", "failure", "mishap"]

# The chart as printed (L1156-1163), one string per row, columns Overkill Success Mixed Failure Mishap
PRINTED_CHART = """\
Automatic 13+ 12-4 3-2 --- -----------
Routine 14+ 13-8 7 6-2 less than 2
Difficult 15+ 14-10 9 8-3 2 or less
Tasking 16+ 15-12 11-10 9-5 4 or less
Limit 17+ 16-14 13-12 11-8 7 or less"""

# Digest 2.2: the 64 outcomes of 2d8 in each band at modifier 0
COUNTS_OF_64 = {
    "automatic": [10, 51, 3, 0, 0],
    "routine": [6, 37, 6, 15, 0],
    "difficult": [3, 25, 8, 27, 1],
    "tasking": [1, 14, 13, 30, 6],
    "limit": [0, 6, 9, 28, 21],
}

# Digest 4.4.1: Critical/Structure/Metal/Miss out of 64 on the NPC Robo Attack Chart
NPC_COUNTS_OF_64 = {"CF": [0, 3, 18, 43], "NT": [0, 10, 33, 21], "ET": [3, 12, 34, 15],
                    "WR": [10, 18, 26, 10], "Cm": [21, 22, 15, 6], "FR": [43, 15, 5, 1]}

# Where the text prints a value its own formulas contradict: (example, printed, computed)
PRINTED_ERRORS = {
    "E10 Gigantic Robo wounds (L1077)": ("(5/5/2) 1 12", "(5/5/3) 1 13"),
    "E29 WarRobo NPC rank (L1562)": ("22", "22"),     # 9 x 2.5 = 22.5, printed 22: floor agrees (A13)
    "E34 T-MAC wounds and rank (L2226-2228)": ("(17/15/8) 40", "(14/15/8) 5 37"),
    "E35 T-MAC after advances (L2233-2236)": ("(22/21/12) 55", "(19/21/12) 7 52"),
    "E40 R4 Weaponmaster Overkill (L1933-1934)": ("Structural", "Critical"),
    "E46 R15 MACJitsu throw of held Blueblaze (L2019-2020)": ("Metal", "Structure"),
}


def lifted(script: str) -> str:
    """A string cannot stand inside a string's `{...}`: each such expression of a `say` line is
    lifted into a `let` before it (in the same order, so the dice fall the same)."""
    out, n = [], 0
    for line in script.split("\n"):
        if line.lstrip().startswith('say "') and '\\"' in line:
            def lift(m):
                nonlocal n
                n += 1
                out.append(f"let lifted_{n} = {m[1].replace(chr(92) + chr(34), chr(34))}")
                return f"{{lifted_{n}}}"
            line = re.sub(r"\{([^{}]*\\\"[^{}]*)\}", lift, line)
        out.append(line)
    return "\n".join(out)


def run(tmp_path: Path, script: str, faces: list[int] | None = None, seed: int = 1, name: str = "script.mech") -> dict:
    """`mech run FILE --faces ... --json` (or `--seed`): {"log": [...], "result": ...}."""
    path = tmp_path / name
    path.write_text(lifted(script))
    dice = ["--faces", ",".join(map(str, faces))] if faces is not None else ["--seed", str(seed)]
    ran = mech_forked(["run", str(path), *dice, "--json"], tmp_path)
    assert ran.code == 0, ran.err
    return json.loads(ran.out)


def logged(tmp_path: Path, body: str, faces: list[int] | None = None) -> list[str]:
    """The log of `body` run after `use robomacs` and `now`, a round-1 encounter stand-in."""
    return run(tmp_path, "use robomacs\nlet now = {round: 1}\n" + body, faces)["log"]


def said(tmp_path: Path, body: str, faces: list[int] | None = None) -> dict[str, str]:
    """The `KEY: value` lines a script says (after `use robomacs`), as {KEY: value}."""
    log = logged(tmp_path, body, faces)
    return dict(line.split(": ", 1) for line in log if re.match(r"^[\w\- ]+: ", line))


# ---- the chart ----

def printed_band(row: str, total: int) -> str | None:
    """The band the printed row gives a total, or None where the row has none."""
    cells = re.match(r"(\w+) (\S+) (\S+) (\S+) (\S+) (.+)$", row).groups()[1:]
    for band, cell in zip(BANDS, cells):
        if m := re.fullmatch(r"(\d+)\+", cell):
            hit = total >= int(m[1])
        elif m := re.fullmatch(r"(\d+)-(\d+)", cell):
            hit = int(m[2]) <= total <= int(m[1])
        elif m := re.fullmatch(r"(\d+)", cell):
            hit = total == int(m[1])
        elif m := re.fullmatch(r"less than (\d+)", cell):
            hit = total < int(m[1])
        elif m := re.fullmatch(r"(\d+) or less", cell):
            hit = total <= int(m[1])
        else:
            assert set(cell) == {"-"}, cell
            hit = False
        if hit:
            return band
    return None


def test_the_chart_is_the_printed_one(tmp_path):
    # band(degree, total) for every total from -3 to 22 against the rows of L1158-1163
    body = ('for degree in degrees {\n let row = []\n for t in range(-3, 22) { push(row, band(degree, t)) }\n'
            ' say "{degree}: {row}"\n}\n')
    got = said(tmp_path, body)
    for row in PRINTED_CHART.splitlines():
        degree = row.split()[0].lower()
        module = json.loads(got[degree])
        for total, band in zip(range(-3, 22), module):
            # A01: the Automatic row has no band below 2; the module's default reads it as Mixed
            assert band == (printed_band(row, total) or "mixed"), (degree, total)


def band_counts(n: int) -> str:
    """A script body: each degree's task rolled `n` times at modifier 0, its band counts said as
    `degree: overkill success mixed failure mishap`."""
    return ('for degree in degrees {\n let counts = {overkill: 0, success: 0, mixed: 0, failure: 0, mishap: 0}\n'
            f' repeat {n} {{ counts[attempt(degree, [], [], 1, false).band] += 1 }}\n'
            ' say "{degree}: {counts.overkill} {counts.success} {counts.mixed} {counts.failure} {counts.mishap}"\n}\n')


def test_the_64_outcomes_of_2d8_through_the_faces(tmp_path):
    # Each row rolled 64 times with the faces of every 2d8 outcome, through the task roll itself
    pairs = [face for a, b in itertools.product(range(1, 9), repeat=2) for face in (a, b)]
    got = said(tmp_path, band_counts(64), pairs * 5)
    assert {d: list(map(int, got[d].split())) for d in DEGREES} == COUNTS_OF_64


def test_band_frequencies_with_a_fixed_seed(tmp_path):
    # 1000 task rolls a row at modifier 0, seed 5: every band within 4 standard deviations (plus one)
    # of 1000 x count/64. A chart off by one threshold moves a band by 1/64 to 8/64, 15 to 125 rolls.
    n = 1000
    log = run(tmp_path, "use robomacs\n" + band_counts(n), seed=5)["log"]
    got = dict(line.split(": ") for line in log)
    for degree, expected in COUNTS_OF_64.items():
        for seen, count in zip(map(int, got[degree].split()), expected):
            p = count / 64
            assert abs(seen - n * p) <= 4 * (n * p * (1 - p)) ** 0.5 + 1, (degree, seen, count)


def test_the_npc_robo_attack_chart_counts(tmp_path):
    # L1454-1462: each line's totals 2-16 weighted by the 2d8 count 8 - |s - 9|, against digest 4.4.1
    body = ('for row in ["CF", "NT", "ET", "WR", "Cm", "FR"] {\n'
            ' let counts = {critical: 0, structure: 0, metal: 0, miss: 0}\n'
            ' for s in range(2, 16) { counts[npc_chart[row][s]] += 8 - abs(s - 9) }\n'
            ' say "{row}: {counts.critical} {counts.structure} {counts.metal} {counts.miss}"\n}\n'
            # E28: a horde of Cannon Fodder rolls once on the Elite Troops line; L1462 the alternative
            'say "ET 15: {npc_chart.ET[15]}"\nsay "FR_alt: {npc_chart.FR_alt[15]} {npc_chart.FR_alt[8]} '
            '{npc_chart.FR_alt[7]} {npc_chart.FR_alt[2]}"\n'
            'say "human: {npc_chart.Warmonger[2]} {npc_chart.HeavyWeapons[15]} {npc_chart.Trooper[6]} {npc_chart.Commando[2]}"\n')
    got = said(tmp_path, body)
    assert {row: list(map(int, got[row].split())) for row in NPC_COUNTS_OF_64} == NPC_COUNTS_OF_64
    assert got["ET 15"] == "critical"
    assert got["FR_alt"] == "wrecked critical structure miss"          # A18: lower bands as the main line
    assert got["human"] == "bruise metal bruise miss"                  # L1493-1503 (Warmonger never misses)


# ---- the task roll (digest 2.3) ----

def test_shifts_move_the_row_and_modifiers_the_total(tmp_path):
    body = ('say "shift: {attempt(\\"difficult\\", [because(\\"MAP\\", 1)], [], 1, false).text}"\n'
            'say "mod: {attempt(\\"difficult\\", [], [because(\\"skill\\", 3)], 1, false).text}"\n'
            'say "both: {attempt(\\"difficult\\", [because(\\"MAP\\", 1)], [because(\\"skill\\", 3)], 1, false).text}"\n'
            # above Limit: impossible, no roll (L1215-1216): the d8 after it takes the next face, 1
            'say "impossible: {attempt(\\"limit\\", [because(\\"unskilled\\", 1)], [], 1, false).band} {d8}"\n'
            # A02: clamped at Automatic; A01: below 2 on Automatic is Mixed
            'say "clamp: {attempt(\\"routine\\", [because(\\"GM\\", -2)], [because(\\"rain\\", -4)], 1, false).text}"\n')
    got = said(tmp_path, body, [6, 5, 6, 5, 6, 5, 1, 1, 1])
    assert got["shift"] == "Difficult +1 (MAP) = Tasking: 2d8 [6 5] = 11: mixed"
    assert got["mod"] == "Difficult: 2d8 [6 5] +3 (skill) = 14: success"
    assert got["both"] == "Difficult +1 (MAP) = Tasking: 2d8 [6 5] +3 (skill) = 14: success"
    assert got["impossible"] == "impossible 1"
    assert got["clamp"] == "Routine -2 (GM) = Automatic: 2d8 [1 1] -4 (rain) = -2: mixed"


def test_automatic_low_is_an_option(tmp_path):
    body = ('robomacs.automatic_low = "failure"\nsay "A01: {band(\\"automatic\\", 1)} {band(\\"automatic\\", 2)}"\n')
    assert said(tmp_path, body)["A01"] == "failure mixed"


def test_multiple_attempt_bonus_and_intentional_overkill(tmp_path):
    body = ('character Quick is RoboMAC { mind 1  fast 3 }\ncharacter Slow is RoboMAC { mind 0 }\n'
            'character Both is RoboMAC { mind 2  fast 2 }\n'
            # E19 (L1254-1258): Mind +1 and Fast +3: Mind and Fast at +1 gives 2, Fast Only at +3 gives 3
            'say "E19: {mab_rolls(Quick, 1)} {mab_rolls(Slow, 1)} {mab_rolls(Both, 1)}"\n'
            'say "best: {attempt(\\"difficult\\", [], [], 3, false).text}"\n'
            # L1371-1385: a success becomes an Overkill; a Mixed and a Failure become Mishaps
            'say "declared: {attempt(\\"difficult\\", [], [], 1, true).band} {attempt(\\"difficult\\", [], [], 1, true).band} '
            '{attempt(\\"difficult\\", [], [], 1, true).band}"\n')
    got = said(tmp_path, body, [1, 2, 8, 7, 3, 3, 5, 5, 4, 5, 1, 3])
    assert got["E19"] == "3 1 3"
    assert got["best"] == "Difficult: best of 2d8 [1 2], 2d8 [8 7], 2d8 [3 3]: 15 = 15: overkill"
    assert got["declared"] == "overkill mishap mishap"


def test_character_numbers(tmp_path):
    body = (
        'character Smart is Pilot { smarts 3 }\n'
        'character Johnny is Pilot { guts 0  reflexes 0 }\n'
        'character Quick is Pilot { reflexes 2 }\n'
        'character Gigantic is Robo { brawn 0  armored 0  gadgets 0  pilot Johnny\n'
        '    system Cyberinterface  system "Remote Interface" }\n'
        'character Remote is Robo { pilot Johnny  remote true  system Cyberinterface  system "Remote Interface" }\n'
        'character Bare is Robo { pilot Quick }\n'
        'character Mind2 is RoboMAC { mind 2 }\n'
        'character Blueblaze is RoboMAC { mind 0  weapons 0  gadgets 0  fast 0  transforming true }\n'
        'character Thresher is RoboMAC { brawn 0  armored 0  transforming true }\n'
        'character WarRobo is RoboMAC { weapons 0  armored 0  brawn 0 }\n'
        'character TMAC is RoboMAC { brawn 1  mind 0  armored 2  weapons 2  gadgets 0  fast 0 }\n'
        'character TMAC2 is RoboMAC { brawn 3  mind 1  armored 3  weapons 2  gadgets 1  fast 0 }\n'
        'character Bruiser is Pilot { reflexes 1  guts 2 }\n'
        'character CF is Npc { chart "CF" }\ncharacter NT is Npc { chart "NT" }\ncharacter ET is Npc { chart "ET" }\n'
        'character WR is Npc { chart "WR" }\ncharacter Cm is Npc { chart "Cm" }\ncharacter FR is Npc { chart "FR" }\n'
        'fn w(c) = "({c.max_metal}/{c.max_structure}/{c.max_critical}) {c.max_wrecked}"\n'
        'say "E01: {smarts_bonus(Smart)}"\n'
        'say "E02: {interface_penalty(Gigantic)} {interface_penalty(Remote)} {interface_penalty(Bare)}"\n'
        'say "E03: {robo_wounds(\\"critical\\", true, none, none, none, none, 2) - robo_wounds(\\"critical\\", true, none, none, none, none, none)} '
        '{robo_wounds(\\"wrecked\\", true, none, none, none, none, 2) - robo_wounds(\\"wrecked\\", true, none, none, none, none, none)}"\n'
        'say "E06: {normal_bruise()} {normal_bruise()}"\n'
        'say "E07: {Bruiser.max_bruise}"\n'
        'say "E08: {w(Blueblaze)} {rank(Blueblaze)} {hero_hooks[d8]} {trait_counts[d8]}"\n'
        'say "E09: {w(Thresher)} {rank(Thresher)}"\n'
        'say "E10: {w(Gigantic)} {rank(Gigantic)}"\n'
        'character JohnnyWacko is Robo { pilot Johnny  system "Escape Craft"  system Flight }\n'
        'character Grounded is Robo { pilot Johnny  system "Escape Craft" }\n'
        'say "E11: {escape_craft(JohnnyWacko)} {escape_craft(Grounded).flight} {escape_craft(Bare)}"\n'
        'say "E12: ({Johnny.max_flesh}/{Johnny.max_bone}) {Johnny.max_bruise} {rank(Johnny)}"\n'
        'say "E13: {w(WarRobo)} {rank(WarRobo)}"\n'
        'say "E29: {rank(CF)} {rank(NT)} {rank(ET)} {rank(WR)} {rank(Cm)} {rank(FR)}"\n'
        'say "E34: {w(TMAC)} {rank(TMAC)}"\n'
        'say "E35: {w(TMAC2)} {rank(TMAC2)}"\n'
        'character Armored3 is RoboMAC { armored 3  fast 0 }\ncharacter Fast3 is RoboMAC { armored 0  fast 3 }\n'
        'say "E20: {defensive_mod(Armored3, 1)} {defensive_mod(Fast3, 1)} {defensive_mod(Thresher, 1)}"\n'
        'character Rammer is RoboMAC { skill Brawl { bonus 2 }  skill MACJitsu { bonus 1 }  skill "Stunt Driver" { bonus 3 } }\n'
        'say "E22: {ram_bonus(Rammer)}"\n'
        'robomacs.rank_rounding = "round"\nsay "round: {rank(WR)}"\n')
    got = said(tmp_path, body, [1, 8, 2, 6])
    assert got["E01"] == "4"                               # L182-186: Smarts +3 gives +4
    assert got["E02"] == "-1 -2 -1"                        # -3 +1 +1; remote -1 more; Reflexes +2: -1
    assert got["E03"] == "3 3"                             # L403-404
    assert got["E06"] == "0 4"                             # L528-530: d8 1 -> 0, 8 -> 4
    assert got["E07"] == "20"                              # L535-537: (2 + 3) instances x 4
    assert got["E08"] == "(4/3/3) 2 10 Hyperactive Any three Traits plus Mind (Hero) or Weapons (Villain)"
    assert got["E09"] == "(5/6/4) 2 15"
    assert got["E11"] == "{metal: 1, structure: 1, critical: 0, flight: true} false none"   # L972-977, L1083-1084
    assert got["E12"] == "(2/1) 8 3"
    assert got["E13"] == "(6/7/4) 2 17"
    assert got["E29"] == "3 5 14 22 39 104"
    assert got["round"] == "23"                            # the option: 22.5 rounded half up
    # where the text prints other numbers, the module computes from the table (A13); the printed
    # values are the text's errors, recorded in PRINTED_ERRORS
    assert got["E10"] == "(5/5/3) 1 13"                  # printed (5/5/2) Wreck 1, Rank 12
    assert got["E34"] == "(14/15/8) 5 37"                # printed (17/15/8), Rank 40
    assert got["E35"] == "(19/21/12) 7 52"               # printed (22/21/12), Rank 55
    for key in ("E10", "E34", "E35"):
        printed, computed = next(v for k, v in PRINTED_ERRORS.items() if k.startswith(key))
        assert got[key].startswith(computed.split()[0]) and not got[key].startswith(printed.split()[0])
    assert got["E20"] == "-1 -2 0"                         # L1275-1276; Armored Only +0 gives 0
    assert got["E22"] == "3"                               # L1769-1771: the best bonus, not the sum


def test_trait_rolls_e21(tmp_path):
    # L1409-1412: a Routine Fast roll. Thresher has no Fast: Difficult +0; Blueblaze (Fast +1): Routine +1
    body = ('character Thresher is RoboMAC { brawn 0  armored 0 }\ncharacter Blueblaze is RoboMAC { fast 1 }\n'
            'say "Thresher: {trait_roll(Thresher, \\"fast\\", \\"routine\\").text}"\n'
            'say "Blueblaze: {trait_roll(Blueblaze, \\"fast\\", \\"routine\\").text}"\n')
    got = said(tmp_path, body, [4, 4, 4, 3])
    assert got["Thresher"] == "Routine +1 (no fast) = Difficult: 2d8 [4 4] = 8: failure"
    assert got["Blueblaze"] == "Routine: 2d8 [4 3] +1 (fast) = 8: success"


# ---- wounds, overflow, pain ----

def test_jonny_overflows_flesh_into_bone_then_passes_out_e04(tmp_path):
    # L438-447: Jonny (Guts, Reflexes: 2 Flesh, 1 Bone) takes four Flesh wounds
    body = ('character Jonny is Pilot { guts 0  reflexes 0 }\n'
            'repeat 4 { wound(Jonny, "flesh", now, "test") }\nsay "E04: ({Jonny.flesh}/{Jonny.bone}) {Jonny.status}"\n'
            'say "pain: {effects_now(Jonny, \\"penalty\\", 2)[0].by}"\n')
    log = logged(tmp_path, body)
    assert log[:6] == [
        "    Jonny takes a Flesh wound: wounds (1/1)",
        "    Jonny takes a Flesh wound: wounds (0/1)",                    # out of Flesh: not yet an overflow
        "    no Flesh wounds left: Jonny overflows it (L410-416)",
        "    Jonny takes a Bone wound (overflow): wounds (0/0)",
        "    no Flesh wounds left",                                       # nothing above: the effect
        "    Jonny is knocked unconscious",
    ]
    assert "E04: (0/0) unconscious" in log
    assert "pain: -2" in log                                # overflow counts for pain (L480)


def test_blueblaze_may_climb_to_critical_thresher_may_not_e05(tmp_path):
    # L448-457: Metal and Structure empty, Critical left. Mind lets Blueblaze pass System Shutdown;
    # Thresher (no Mind, not Piloted) has only Automatic Recall
    body = ('character Blueblaze is RoboMAC { mind 0  weapons 0  gadgets 0  fast 0  metal 0  structure 0 }\n'
            'character Thresher is RoboMAC { brawn 0  armored 0  metal 0  structure 0 }\n'
            'character Gigantic is Robo { brawn 0  metal 0  structure 0 }\n'
            'say "climb: {can_climb(Blueblaze, \\"metal\\")} {can_climb(Thresher, \\"metal\\")} {can_climb(Gigantic, \\"metal\\")}"\n'
            'wound(Blueblaze, "metal", now, "test")\nwound(Thresher, "metal", now, "test")\n'
            'say "E05: {Blueblaze.status} {Blueblaze.critical} {Thresher.status} {Thresher.critical}"\n')
    got = said(tmp_path, body)
    assert got["climb"] == "true false true"               # a Piloted Robo may override Shutdown (L424)
    assert got["E05"] == "active 2 recalled 4"


def test_blueblaze_chooses_recall_by_a_tactic_e05(tmp_path):
    # "He decides the battle isn't very important": a script's overflow choice
    body = ('character Blueblaze is RoboMAC { mind 0  weapons 0  gadgets 0  fast 0  metal 0  structure 0 }\n'
            'fn robomacs.choose_overflow(c, level) = "effect"\n'
            'wound(Blueblaze, "metal", now, "test")\nsay "E05: {Blueblaze.status} {Blueblaze.critical}"\n')
    assert said(tmp_path, body)["E05"] == "recalled 3"


def test_critical_is_forced_into_wrecked_and_then_total_destruction(tmp_path):
    body = ('character Thresher is RoboMAC { brawn 0  armored 0  critical 0  wrecked 1 }\n'
            'character Trooper is Npc { chart "NT" }\ncharacter Fodder is Npc { chart "CF" }\ncharacter Elite is Npc { chart "ET" }\n'
            'wound(Thresher, "critical", now, "test")\nsay "first: {Thresher.status} {Thresher.wrecked}"\n'
            'Thresher.status = "active"\nwound(Thresher, "critical", now, "test")\nsay "second: {Thresher.status}"\n'
            # L433-435, L1483-1489: Normal Troops usually take the effect; Elite Troops override when they can;
            # A08: Cannon Fodder have no Critical and no Wrecked: any Critical wrecks them
            'repeat 3 { wound(Trooper, "metal", now, "test") }\nrepeat 4 { wound(Elite, "metal", now, "test") }\n'
            'wound(Fodder, "critical", now, "test")\n'
            'say "npcs: {Trooper.status} {Trooper.structure} {Elite.status} {Elite.structure} {Fodder.status}"\n')
    got = said(tmp_path, body)
    assert got["first"] == "wrecked 0"
    assert got["second"] == "destroyed"
    assert got["npcs"] == "recalled 2 active 1 destroyed"


def test_pain_effects(tmp_path):
    # L459-480, L928-929, L964-965: Thresher (no Mind) -2 after a Structure, loses a round after a
    # Critical; Spartacus (Mind) neither; Scrambleguard one step down; a pilot without Cyberinterface
    # only loses the round after a Critical; chart NPCs ignore pain
    body = ('character Thresher is RoboMAC { brawn 0  armored 0 }\ncharacter Spartacus is RoboMAC { mind 3 }\n'
            'character Guarded is RoboMAC { gadgets 0  system Scrambleguard }\n'
            'character Johnny is Pilot { guts 0  reflexes 0 }\ncharacter Plain is Robo { armored 0  pilot Johnny }\n'
            'character Trooper is Npc { chart "ET" }\n'
            'fn pains(c) {\n let found = []\n for e in c.effects { push(found, "{e.what} {e.by} r{e.first}") }\n return found\n}\n'
            'for c in [Thresher, Spartacus, Guarded, Plain, Trooper] {\n'
            ' wound(c, "structure", now, "test")\n wound(c, "critical", now, "test")\n say "{c}: {pains(c)}"\n}\n')
    got = said(tmp_path, body)
    assert got["Thresher"] == '["penalty -2 r2", "lose 0 r2"]'
    assert got["Spartacus"] == "[]"
    assert got["Guarded"] == '["penalty -2 r2"]'
    assert got["Plain"].startswith('["lose 0 r2"')            # and Johnny's Tricklethrough below
    assert got["Trooper"] == "[]"


def test_tricklethrough_and_the_level_shift_tables_e32(tmp_path):
    # L485-487 unshielded: -2; L905-908 Passenger Armor: -3 (A12) or the printed list; L966-968 CI+RI remote
    body = ('character J1 is Pilot { guts 4 }\ncharacter J2 is Pilot { guts 4 }\ncharacter J3 is Pilot { guts 4 }\n'
            'character J4 is Pilot { guts 4 }\n'
            'character Open is Robo { armored 4  pilot J1 }\n'
            'character Armor is Robo { armored 4  pilot J2  system "Passenger Armor" }\n'
            'character Printed is Robo { armored 4  pilot J3  system "Passenger Armor" }\n'
            'character Remote is Robo { armored 4  pilot J4  remote true  system Cyberinterface  system "Remote Interface" }\n'
            'fn hurt(c) {\n let p = c.pilot\n let before = [p.flesh, p.bone]\n wound(c, "structure", now, "t")\n'
            ' let s = [p.flesh, p.bone]\n wound(c, "critical", now, "t")\n let cr = [p.flesh, p.bone]\n'
            ' wound(c, "wrecked", now, "t")\n return "{before} {s} {cr} [{p.flesh}, {p.bone}]"\n}\n'
            'say "open: {hurt(Open)}"\nsay "armor: {hurt(Armor)}"\nsay "remote: {hurt(Remote)}"\n'
            'robomacs.passenger_armor = "printed"\nsay "printed: {hurt(Printed)}"\n')
    got = said(tmp_path, body)
    # Structure -> Bone; Critical -> Metal (a human has none: critically wounded); unshielded
    assert got["open"].startswith("[5, 5] [5, 4]")
    assert got["armor"] == "[5, 5] [4, 5] [4, 4] [4, 4]"          # Structure -> Flesh, Critical -> Bone, Wrecked -> Metal
    assert got["printed"] == "[5, 5] [4, 5] [4, 4] [4, 3]"        # the printed "Wrecked inflicts Bone"
    assert got["remote"] == "[5, 5] [5, 5] [4, 5] [4, 4]"         # Critical -> Flesh, Wrecked -> Bone


def test_human_combat_skills_do_two_levels_less_e31(tmp_path):
    # L711-717: Johnny's personal Brawl on Advantage does Flesh; Killing Shot with a rifle does Bone
    body = ('character Johnny is Pilot { guts 0  reflexes 0  skill Brawl  skill Blast  skill "Killing Shot" }\n'
            'fn level_of(skill, phase) = attack_level(Johnny, act(skill, none), phase, skill_data[lower(skill)])\n'
            'say "E31: {level_of(\\"Brawl\\", \\"advantage\\")} {level_of(\\"Blast\\", \\"advantage\\")} '
            '{level_of(\\"Killing Shot\\", \\"advantage\\")} {level_of(\\"Brawl\\", \\"responsive\\")}"\n'
            'robomacs.bruise = true\nsay "A16: {level_of(\\"Brawl\\", \\"responsive\\")}"\n')
    got = said(tmp_path, body)
    assert got["E31"] == "flesh flesh bone none"          # A16: Bone - 2 is below Flesh: nothing
    assert got["A16"] == "bruise"                         # with the Bruise rule, a Bruise


# ---- fights: a helper encounter whose choices the test scripts ----

def duel(first: str, second: str, plans: str, *settings: str, until: str = "round > 1", before: str = "") -> str:
    """A script: two characters (declarations), `plans` the body of `fn robomacs.plan_for(c, enc)`;
    `before`: declarations they need (a Robo's pilot)."""
    lines = "".join(f"    {s}\n" for s in settings)
    return ("use robomacs\n" + before + "\n" + first + "\n" + second + "\n"
            "fn robomacs.plan_for(c, enc) {\n" + plans + "\n}\n"
            f'encounter "Test" {{\n    side a: {first.split()[1]}\n    side b: {second.split()[1]}\n{lines}'
            f"    until one_side_left or {until}\n}}\n")


LYONHEART = "character Lyonheart is RoboMAC { brawn 0  skill Brawl  skill Grab }"
TROOPER = 'character Trooper is Npc { chart "NT" }'


def test_lyonheart_grab_and_the_escape_e30(tmp_path):
    # L633-637: Lyonheart (Brawn) holds a MACE trooper; Brawl with Brawn on Advantage is Structure, +1 held
    # = Critical, pending; the trooper rolls 16 and escapes, never taking the Critical
    plans = ('if c == Trooper {\n if c.held_by != none { return plan("npc", [act("escape", Lyonheart)]) }\n'
             ' return plan("none", [])\n}\n'
             'if enc.round == 1 { return plan("advantage", [act("Grab", Trooper)]) }\n'
             'return plan("advantage", [act("Brawl", Trooper)])')
    log = run(tmp_path, duel(LYONHEART, TROOPER, plans, until="round > 2"), [5, 5, 6, 6, 8, 8])["log"]
    assert "    Trooper is held, and needs Tasking to break free" in log      # Difficult +1: Brawn against none
    assert "    Structure -> Critical (held) to Trooper, pending" in log
    assert "  NPC: Trooper tries to break Lyonheart's hold, Tasking: 2d8 [8 8] = 16: overkill" in log
    assert "    Trooper is free, and the squeeze does nothing" in log
    assert not any("Trooper takes" in line for line in log)


def test_map_on_combined_actions_e17(tmp_path):
    # L1204-1206: three Difficult actions combined all become Tasking; the Range skill and a free
    # perception roll are exempt (L1205, sample R12)
    plans = ('if c == Trooper { return plan("none", []) }\n'
             'let look = gm_degree(act("Perception", none), "routine")\nlook.free = true\n'
             'return plan("advantage", [gm_degree(act("Aim", none), "difficult"), gm_degree(act("Hack", none), "difficult"), '
             'gm_degree(act("Spot", none), "difficult"), act("Range", Trooper), look])')
    log = run(tmp_path, duel(LYONHEART, TROOPER, plans), [4, 4] * 5)["log"]
    assert [line.split(", ", 1)[1] for line in log if line.startswith("  Advantage")] == [
        "Difficult +1 (MAP) = Tasking: 2d8 [4 4] = 8: failure",
        "Difficult +1 (MAP) = Tasking: 2d8 [4 4] = 8: failure",
        "Difficult +1 (MAP) = Tasking: 2d8 [4 4] = 8: failure",
        "Routine +2 (no Range skill) = Tasking: 2d8 [4 4] = 8: failure",    # no MAP on the Range skill
        "Routine: 2d8 [4 4] = 8: success",                                  # nor on a free perception roll
    ]


def test_unskilled_megaweapon_shot_e18(tmp_path):
    # L1217-1222: Automatic for the skilled (a stationary target); Blueblaze lacks Godcannon Shot, the
    # GM makes it two degrees harder: Difficult
    blue = "character Blueblaze is RoboMAC { mind 0  weapons 0  gadgets 0  fast 0 }"
    wall = 'character Barrier is Npc { chart "Noncombatant" }'
    plans = ('if c == Barrier { return plan("none", []) }\n'
             'let shot = gm_degree(act("Godcannon Shot", Barrier), "automatic")\nshot.weapon = "a captured Megaweapon"\n'
             'return plan("advantage", [shot])')
    log = run(tmp_path, duel(blue, wall, plans, "unskilled_shift: 2"), [5, 5])["log"]
    assert ("  Advantage: Blueblaze uses Godcannon Shot on Barrier (a captured Megaweapon), "
            "Automatic +2 (unskilled) = Difficult: 2d8 [5 5] = 10: success") in log


def test_npc_chart_with_dodge_e37_alternative(tmp_path):
    # E37 (derived, L1887-1888): Antiochus on the Commander line at +2; natural 8: with Spartacus's Dodge
    # 8 + 2 - 3 = 7, Metal; without it 10, Structure. The Dodge is rolled first (Advantage).
    spartacus = "character Spartacus is RoboMAC { mind 3  armored 0  brawn 0  weapons 0  skill Dodge }"
    antiochus = 'character Antiochus is Npc { chart "Cm"  bonus 2 }'
    plans = ('if c == Antiochus { return plan("npc", [act("chart", Spartacus)]) }\n'
             'if enc.round == 1 { return plan("advantage", [gm_bonus(act("Dodge", Antiochus), -2, "standing still")]) }\n'
             'return plan("none", [])')
    log = run(tmp_path, duel(spartacus, antiochus, plans, until="round > 2"), [5, 5, 4, 4, 4, 4])["log"]
    assert "  NPC: Antiochus attacks Spartacus on the Cm line: 2d8 [4 4] +2 (Cm bonus) -3 (Dodge) = 7: metal" in log
    assert "  NPC: Antiochus attacks Spartacus on the Cm line: 2d8 [4 4] +2 (Cm bonus) = 10: structure" in log


def test_held_target_takes_one_level_more_e44(tmp_path):
    # L1996-1997: a Critical on the held Blueblaze would be Wrecked ("would kill"); a Mixed outside
    # attack on a held pair hits the other party (A14)
    body = ('character Blueblaze is RoboMAC { mind 0  weapons 0  gadgets 0  fast 0 }\n'
            'character Antiochus is RoboMAC { brawn 0  weapons 0 }\ncharacter Spartacus is RoboMAC { mind 3 }\n'
            'Blueblaze.held_by = Antiochus\nAntiochus.holding = Blueblaze\n'
            'hit(Spartacus, Blueblaze, "critical", "energy", false, {band: "success", total: 12, degree: "tasking", row: none}, "advantage", now, act("Godcannon Shot", Blueblaze))\n'
            'hit(Spartacus, Antiochus, "metal", "energy", false, {band: "mixed", total: 9, degree: "difficult", row: none}, "advantage", now, act("Blast", Antiochus))\n'
            'say "E44: {Blueblaze.wrecked} {Blueblaze.status} {Antiochus.metal}"\n')
    log = logged(tmp_path, body)
    assert "    Critical -> Wrecked (held) to Blueblaze" in log
    assert "    Mixed: the shot hits Blueblaze instead (A14, L630)" in log
    assert "E44: 1 wrecked 4" in log


# ---- the sample combat, E37-E47 (L1861-2049) ----

# The text's natural rolls where it gives them (8, 16, 13, 15, 13, 2, "an Overkill" +3); elsewhere
# rolls that give the printed result: a success, a failure, "neither hitting the other"
SAMPLE_FACES = [
    5, 5, 4, 4,                 # R1: Spartacus's Dodge (a success at -2); Antiochus's natural 8
    8, 8, 5, 5,                 # R2: MACJitsu natural 16; Antiochus's Grab succeeds
    6, 7, 5, 5, 5, 5,           # R3: Brawl natural 13; Parry and MACJitsu succeed
    7, 8,                       # R4: Weaponmaster natural 15 (+1 = 16)
    *[6, 6, 6, 6] * 6,          # R5-R10: a sword stroke, a Parry
    6, 7, 1, 1,                 # R11: Brawl 13; Trip natural 2
    4, 4, 5, 5, 6, 6, 6, 6, 2, 3,   # R12: perception, Grab; escape and Grab (-2 Structure pain); Spartacus's perception
    2, 3, 4, 5,                 # R13: Blueblaze fails to escape; the sidearm's Godcannon Shot
    2, 3, 4, 5,                 # R14: the same
    5, 5, 2, 2,                 # R15: the throw; the Automatic shot
    6, 6, 6, 6, 6, 6,           # R16: Brawl +3 Overkill; the fall, two Commander rolls
]


def rounds_of(log: list[str]) -> dict[int, list[str]]:
    rounds, current = {}, 0
    for line in log:
        if m := re.fullmatch(r"Round (\d+)", line):
            current = int(m[1])
        rounds.setdefault(current, []).append(line)
    return rounds


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> dict:
    ran = mech_forked(["run", str(EXAMPLE), "--faces", ",".join(map(str, SAMPLE_FACES)), "--json"],
                      tmp_path_factory.mktemp("sample"))
    assert ran.code == 0, ran.err
    return json.loads(ran.out)


def test_sample_round_1_dodge_spoils_the_godcannon_e37(sample):
    r = rounds_of(sample["log"])[1]
    assert r[1] == "  Advantage: Spartacus dodges Antiochus, Routine: 2d8 [5 5] -2 (standing still) = 8: success"
    # L1884-1886: Tasking -1 for the built-in Megaweapon = Difficult; +3 skill -3 Dodge; the 8 misses
    assert r[3] == ("  NPC: Antiochus uses Godcannon Shot on Spartacus (Massdriver), Tasking -1 (built-in) = Difficult: "
                    "2d8 [4 4] +3 (skill) -3 (Dodge) = 8: failure")
    assert r[4] == "    a miss"
    # "would have hit if not for the Dodge": 8 + 3 = 11 on Difficult
    assert 8 + 3 >= 10


def test_sample_round_2_overkill_disarm_and_grab_e38(sample):
    r = rounds_of(sample["log"])[2]
    assert r[1:6] == [
        "  Advantage: Spartacus uses MACJitsu on Antiochus, Difficult: 2d8 [8 8] = 16: overkill",   # Brawn: Difficult
        "    Antiochus is disarmed",
        "    Overkill: the trick does its damage too",                                           # the GM: a Metal too
        "    Metal to Antiochus",
        "    Antiochus takes a Metal wound: wounds (3/5/2) Wrecked 1",
    ]
    assert "    Spartacus is held, and needs Difficult to break free" in r        # both have Brawn: Difficult
    assert not any("MACJitsu" in line and "to be hit" in line for line in r)    # the -2 was traded away


def test_sample_round_3_parry_cancels_the_pending_critical_e39(sample):
    r = rounds_of(sample["log"])[3]
    assert r[1:] == [
        "  NPC: Antiochus uses Brawl on Spartacus, Difficult: 2d8 [6 7] = 13: success",
        "    Structure -> Critical (held) to Spartacus, pending",                 # Brawn Brawl, Advantage column (A03), +1 held
        "  Responsive: Spartacus parries Antiochus, Routine +1 (MAP) = Difficult: 2d8 [5 5] = 10: success",
        "    Antiochus's attack is blocked",
        "  Responsive: Spartacus uses MACJitsu on Antiochus, Difficult: 2d8 [5 5] = 10: success",   # MAP waived
        "    and Spartacus breaks Antiochus's hold",
        "    Metal to Antiochus",
        "    Antiochus takes a Metal wound: wounds (2/5/2) Wrecked 1",
    ]


def test_sample_round_4_weaponmaster_overkill_e40(sample):
    r = rounds_of(sample["log"])[4]
    assert r[1] == ("  NPC: Antiochus uses Weaponmaster on Spartacus (a shard of debris), Tasking: "
                    "2d8 [7 8] +1 (skill) = 16: overkill")
    # The text ignores the Brawn version (improvised: Structural); Overkill +1 makes it a Critical.
    printed, computed = PRINTED_ERRORS["E40 R4 Weaponmaster Overkill (L1933-1934)"]
    assert f"    {computed} to Spartacus, pending" in r and printed != computed
    assert "    Spartacus has Mind: no pain effect" in r
    assert "  Responsive: Spartacus pulls the shard out to use as a sword" in r


def test_sample_rounds_5_to_10_no_hits_e41(sample):
    rounds = rounds_of(sample["log"])
    for n in range(5, 11):
        assert "    Antiochus's attack is blocked" in rounds[n]
        assert not any("takes a" in line for line in rounds[n])


def test_sample_round_11_structural_and_a_mishap_e42(sample):
    r = rounds_of(sample["log"])[11]
    assert r[1:4] == ["  Advantage: Spartacus uses Brawl on Antiochus, Difficult: 2d8 [6 7] = 13: success",
                      "    Structure to Antiochus",
                      "    Antiochus takes a Structure wound: wounds (2/4/2) Wrecked 1"]
    assert "  NPC: Antiochus trips Spartacus, Difficult: 2d8 [1 1] = 2: mishap" in r
    assert "    Mishap: he leans into the attack and goes over a ledge" in r


def test_sample_round_12_grab_reversed_e43(sample):
    r = rounds_of(sample["log"])[12]
    assert "    Antiochus is held, and needs Routine to break free" in r               # Brawn against none: -1
    assert ("  NPC: Antiochus tries to break Blueblaze's hold, Routine +1 (MAP) = Difficult: "
            "2d8 [6 6] -2 (Structure pain) = 10: success") in r
    assert ("  NPC: Antiochus grabs Blueblaze (declared Routine), Routine +1 (MAP) = Difficult: "
            "2d8 [6 6] -2 (Structure pain) = 10: success") in r
    # the declared Routine +1 for Brawn, not the MAP-raised Difficult +1
    assert "    Blueblaze is held, and needs Difficult to break free" in r
    assert "  Responsive: Spartacus tries Perception (no action spent), Tasking: 2d8 [2 3] = 5: failure" in r
    assert "  Advantage: Blueblaze tries Perception (no action spent), Routine: 2d8 [4 4] = 8: success" in r


def test_sample_rounds_13_and_14_spartacus_runs_out_of_criticals_e44_e45(sample):
    rounds = rounds_of(sample["log"])
    for n, left in ((13, 1), (14, 0)):
        r = rounds[n]
        assert "  Advantage: Blueblaze tries to break Antiochus's hold, Difficult: 2d8 [2 3] = 5: failure" in r
        assert ("  NPC: Antiochus uses Godcannon Shot on Spartacus (a MACE sidearm), Tasking: "
                "2d8 [4 5] +3 (skill) = 12: success") in r
        assert f"    Spartacus takes a Critical wound: wounds (6/7/{left}) Wrecked 6" in r
    # taking the last Critical is not an overflow: he still acts in round 15 (A06)
    assert "  Responsive: Spartacus falls to the ground" in rounds[15]


def test_sample_round_15_overflow_into_wrecked_and_one_more_round_e46(sample):
    r = rounds_of(sample["log"])[15]
    printed, computed = PRINTED_ERRORS["E46 R15 MACJitsu throw of held Blueblaze (L2019-2020)"]
    assert f"    {printed} -> {computed} (held) to Blueblaze, pending" in r               # held +1 (A28)
    assert "  NPC: Antiochus uses Godcannon Shot on Spartacus (a MACE sidearm), Automatic: 2d8 [2 2] +3 (skill) = 7: success" in r
    assert r[r.index("  Spartacus takes the Critical from Antiochus's Godcannon Shot") + 1:][:3] == [
        "    no Critical wounds left: the wound goes on into Wrecked, it cannot be avoided (L423)",
        "    Spartacus takes a Wrecked wound (overflow): wounds (6/7/0) Wrecked 5",
        "    Wrecked, but Armored: Spartacus acts one more round before falling (A07, L2021-2024)",
    ]


def test_sample_round_16_both_wrecked_e47(sample):
    r = rounds_of(sample["log"])[16]
    assert r[1:4] == ["  Advantage: Spartacus uses Brawl on Antiochus, Difficult: 2d8 [6 6] +3 (fake-out) = 15: overkill",
                      "    Overkill: one damage level more (A04)",
                      "    Critical to Antiochus"]
    assert r.count("    Antiochus takes a hit like a Cm line: 2d8 [6 6] = 12: critical") == 2
    assert "    Antiochus takes a Wrecked wound (overflow): wounds (2/4/0) Wrecked 0" in r
    assert "    Antiochus is Wrecked, out of the fight" in r
    assert "  Spartacus falls, Wrecked, out of the fight" in r
    assert not any(line.startswith("  NPC: Antiochus") for line in r)    # knocked out on Advantage (L1431-1433)
    result = sample["result"]
    assert result["rounds"] == 16 and result["winner"] == "guardians"
    assert result["characters"]["Antiochus"]["status"] == "wrecked"
    assert result["characters"]["Spartacus"]["status"] == "wrecked"


def test_without_the_referees_grace_spartacus_falls_in_round_15(tmp_path):
    script = EXAMPLE.read_text().replace("armored_wrecked_grace: true", "armored_wrecked_grace: false")
    (tmp_path / "sample.mech").write_text(script)
    # after round 16 the others fight on by the default tactics: faces enough for them
    ran = mech_forked(["run", "sample.mech", "--faces", ",".join(map(str, SAMPLE_FACES + [4] * 80)), "--json"], tmp_path)
    assert ran.code == 0, ran.err
    r = rounds_of(json.loads(ran.out)["log"])
    assert "    Spartacus is Wrecked, out of the fight" in r[15]
    assert not any("Spartacus uses Brawl" in line for line in r.get(16, []))


# ---- the example under a seed, and in a batch ----

def test_the_example_reads_like_the_sample_and_ends_with_a_result(tmp_path):
    ran = mech_forked(["run", str(EXAMPLE), "--seed", "1"], tmp_path)
    assert ran.code == 0, ran.err
    out = ran.out.splitlines()
    assert out[0] == "Atop Chiplex: guardians (Spartacus, Blueblaze, Thresher) against mace (Antiochus)"
    assert out[5] == "Round 1"
    assert out[6].startswith("  Advantage: Spartacus dodges Antiochus, Routine: 2d8 [")
    assert any(line.startswith("  NPC: Antiochus uses Godcannon Shot on Spartacus (Massdriver)") for line in out)
    assert any(line.startswith("Result: ") for line in out)


def test_a_batch_of_the_example_gives_the_same_json_twice(tmp_path):
    # The two batches run side by side (two processes): a batch of 60 fights takes seconds
    argv = [MECH, "sim", str(EXAMPLE), "-n", "60", "--seed", "1", "--jobs", "1", "--json"]
    with deadline():
        batches = [subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                   for _ in range(2)]
        (one, err), (two, _) = (batch.communicate() for batch in batches)
    assert batches[0].returncode == 0, err
    assert one == two
    data = json.loads(one)
    assert data["runs"] == 60 and data["seed"] == 1
    assert sum(w["count"] for w in data["winners"].values()) == 60


# ---- vehicles (L1626-1859) ----

def test_vehicle_tables_e22_to_e26(tmp_path):
    body = ('character Blue is RoboMAC { fast 0  skill "Stunt Driver" }\ncharacter Truck is RoboMAC { }\n'
            'character Plated is RoboMAC { system Ramplate { facing "front" } }\n'
            'character Four is RoboMAC { system Ramplate  system Ramplate { facing "back" }  system Ramplate { facing "side" }  '
            'system Ramplate { facing "left" } }\n'
            'say "E25: {facing_roll()}"\n'                               # d8 3, 1, 3
            'say "E26: {road_facing_roll(true)}"\n'                      # d8 4, then 3 (odd): Top
            'say "initiative: {vehicle_initiative(Blue)} {vehicle_initiative(Truck)}"\n'   # best of 2 with Fast
            'say "maneuvers: {maneuver_degree(Blue, \\"change facing\\")} {maneuver_degree(Blue, \\"range\\")} '
            '{maneuver_degree(Truck, \\"range\\")}"\n'
            'say "E23: {ramplate(Four, \\"top\\")} {ramplate(Plated, \\"front\\")} {ramplate(Plated, \\"top\\")}"\n'
            'let above = "directly above"\nlet side = "above"\nlet level = "same level"\n'
            'say "E24: {elevation_rolls(above, side)} {elevation_rolls(above, level)}"\n')
    got = said(tmp_path, body, [3, 1, 3, 4, 3, 2, 7, 5])
    assert got["E25"] == '{mine: "left", range: "close", theirs: "left"}'
    assert got["E26"] == "top"
    assert got["initiative"] == "7 5"
    assert got["maneuvers"] == "automatic routine difficult"
    assert got["E23"] == "true true false"
    assert got["E24"] == "1 2"


def test_a_line_not_on_the_elevation_chart_is_an_error_not_line_0(tmp_path):
    # "belw" once counted as "directly above", the chart's first line: 1 roll, without a word
    path = tmp_path / "typo.mech"
    path.write_text('use robomacs\nsay elevation_rolls("above", "below")\nsay elevation_rolls("above", "belw")\n')
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert (ran.code, ran.out) == (1, "2\n")
    assert 'no line "belw" on the elevation chart (the lines: directly above, above, same level, below, ' \
           'directly below)' in ran.err and "Traceback" not in ran.err


def test_a_ram_e22_and_ramplate(tmp_path):
    # L1762-1805: a T-Bone (Tasking), +3 ram bonus: Critical to the target, Structural to the rammer,
    # one level less for the rammer's front Ramplate
    body = ('character Rammer is RoboMAC { brawn 0  skill "Stunt Driver" { bonus 3 }  system Ramplate }\n'
            'character Truck is RoboMAC { }\n'
            'let r = ram(Rammer, Truck, "t-bone", "left", now)\n'
            'say "wounds: {Truck.critical} {Rammer.structure} {Rammer.metal}"\n')
    log = logged(tmp_path, body, [5, 5])
    assert log[0] == "  Advantage: Rammer rams Truck (t-bone), Tasking: 2d8 [5 5] +3 (ram) = 13: success"
    assert log[1] == "    Critical to Truck, Metal to Rammer"
    assert "wounds: 1 4 2" in log


# ---- options change what they name ----

def test_options_of_the_band_effects(tmp_path):
    plans = ('if c == Trooper { return plan("none", []) }\nreturn plan("advantage", [act("Brawl", Trooper)])')
    mixed = run(tmp_path, duel(LYONHEART, TROOPER, plans), [4, 5])["log"]             # 9: Mixed
    assert "    Mixed: one damage level less (A05)" in mixed and "    Metal to Trooper" in mixed
    full = run(tmp_path, duel(LYONHEART, TROOPER, plans, 'mixed_effect: "full"'), [4, 5])["log"]
    assert "    Structure to Trooper" in full
    over = run(tmp_path, duel(LYONHEART, TROOPER, plans, 'overkill_effect: "none"'), [8, 8])["log"]
    assert "    Structure to Trooper" in over
    broke = run(tmp_path, duel(LYONHEART, TROOPER, plans), [1, 1])["log"]
    assert "    Mishap: a Really Bad Mistake (L1177)" in broke
    table = run(tmp_path, duel(LYONHEART, TROOPER, plans, 'mishap_effect: "table"'), [1, 1, 4, 4])["log"]
    assert "    Mishap table, 8: Brownout" in table


def test_the_npc_phase_damage_column_option_a03(tmp_path):
    antiochus = "character Antiochus is RoboMAC { npc true  brawn 0  skill Brawl }"
    target = "character Target is RoboMAC { }"
    plans = ('if c == Antiochus { return plan("npc", [act("Brawl", Target)]) }\nreturn plan("none", [])')
    adv = run(tmp_path, duel(antiochus, target, plans), [6, 6])["log"]
    resp = run(tmp_path, duel(antiochus, target, plans, 'npc_phase_column: "responsive"'), [6, 6])["log"]
    assert "    Structure to Target, pending" in adv
    assert "    Metal to Target, pending" in resp


def test_a_responsive_dodge_spoils_the_npc_phase_attack_a22(tmp_path):
    blue = "character Blue is RoboMAC { skill Dodge }"
    plans = ('if c == Trooper { return plan("npc", [act("chart", Blue)]) }\nreturn plan("responsive", [act("Dodge", Trooper)])')
    log = run(tmp_path, duel(blue, TROOPER, plans), [5, 5, 5, 5])["log"]
    assert "    Trooper's attack (10) now misses (A22)" in log
    assert not any("Blue takes" in line for line in log)


def test_defensive_modifier_and_an_unknown_option_value(tmp_path):
    armored = "character Tank is RoboMAC { armored 4  fast 4 }"
    plans = ('if c == Trooper { return plan("npc", [act("chart", Tank)]) }\nreturn plan("none", [])')
    log = run(tmp_path, duel(armored, TROOPER, plans, "defensive_modifier: true"), [4, 4])["log"]
    assert "  NPC: Trooper attacks Tank on the NT line: 2d8 [4 4] -3 (DM) = 5: miss" in log
    path = tmp_path / "bad.mech"
    path.write_text(duel(armored, TROOPER, plans, 'mixed_effect: "half"'))
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1 and "Traceback" not in ran.err
    assert "mixed_effect" in ran.err


def test_a_trait_out_of_range_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.mech"
    path.write_text("use robomacs\ncharacter Spartacus is RoboMAC { mind 5 }\n")
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1 and "Traceback" not in ran.err
    assert ran.err.startswith(f"{path}:2:") and "mind" in ran.err and "^" in ran.err


# ---- more of the rules: transformation, operators, Mind skills, repairs ----

def test_transforming_puts_map_on_the_round_unless_quickchange_a10(tmp_path):
    plans = ('if c == Trooper { return plan("none", []) }\n'
             'return plan("advantage", [act("transform", none), act("Brawl", Trooper)])')
    plain = "character Racer is RoboMAC { transforming true  skill Brawl }"
    quick = "character Racer is RoboMAC { transforming true  skill Brawl  system Quickchange }"
    log = run(tmp_path, duel(plain, TROOPER, plans), [4, 4])["log"]
    assert "  Advantage: Racer transforms: MAP on his other actions this round (L1440-1442)" in log
    assert "  Advantage: Racer uses Brawl on Trooper, Difficult +1 (MAP) = Tasking: 2d8 [4 4] = 8: failure" in log
    log = run(tmp_path, duel(quick, TROOPER, plans), [4, 4])["log"]
    assert "  Advantage: Racer uses Brawl on Trooper, Difficult: 2d8 [4 4] = 8: failure" in log
    log = run(tmp_path, duel(plain, TROOPER, plans, 'transform_cost: "action"'), [])["log"]
    assert "  Advantage: Racer transforms: it takes his round (L850-851)" in log
    assert not any("uses Brawl" in line for line in log)


def test_a_tailgunner_attacks_once_without_map(tmp_path):
    # L816-817: a RoboMAC's Tailgunner gives one extra attack a round without MAP
    plans = ('if c == Trooper { return plan("none", []) }\nlet gun = act("Blast", Trooper)\ngun.operator = "tailgunner"\n'
             'return plan("advantage", [act("Brawl", Trooper), gun])')
    gunner = "character Hauler is RoboMAC { skill Brawl  skill Blast  system Tailgunner }"
    log = run(tmp_path, duel(gunner, TROOPER, plans), [4, 4, 4, 4])["log"]
    assert "  Advantage: Hauler uses Brawl on Trooper, Difficult: 2d8 [4 4] = 8: failure" in log
    assert "  Advantage: Hauler uses Blast on Trooper, Difficult: 2d8 [4 4] = 8: failure" in log


def test_scramble_rally_and_charisma(tmp_path):
    # L733-753: Scramble is Tasking (the target loses his next action) or Limit (out of combat), once per
    # foe; against Mind -1 - bonus, against a Piloted Robo +1 degree; Charisma: foes -2 for d8 rounds
    mind = 'character Patriarch is RoboMAC { mind 1  skill Scramble  skill Charisma  skill Rally }'
    foe = 'character Roughhouse is RoboMAC { mind 0  brawn 0 }'
    plans = ('if c == Roughhouse { return plan("none", []) }\n'
             'if enc.round == 1 { return plan("advantage", [act("Scramble", Roughhouse)]) }\n'
             'if enc.round == 2 { return plan("advantage", [act("Scramble", Roughhouse)]) }\n'
             'return plan("advantage", [act("Charisma", Roughhouse)])')
    log = run(tmp_path, duel(mind, foe, plans, until="round > 3"), [6, 7, 3, 5])["log"]
    assert "  Advantage: Patriarch tries to Scramble Roughhouse (Tasking), Tasking: 2d8 [6 7] -1 (Mind target) = 12: success" in log
    assert "    Roughhouse loses his next action" in log
    assert "  Roughhouse loses this round's actions (Scrambled by Patriarch)" in log
    assert "  Advantage: Patriarch has already tried Scramble on Roughhouse (L742)" in log
    assert "  Advantage: Patriarch uses Charisma, Difficult: 2d8 [3 5] = 8: failure" in log
    # declared at Limit, against a Piloted Robo (+1: beyond Limit, impossible) and a plain RoboMAC
    plans = ('if c != Patriarch { return plan("none", []) }\nlet out = act("Scramble", Roughhouse)\nout.declared = "limit"\n'
             'if enc.round == 1 { return plan("advantage", [out]) }\n'
             'let charm = act("Charisma", Roughhouse)\nreturn plan("advantage", [charm])')
    log = run(tmp_path, duel(mind, 'character Roughhouse is RoboMAC { brawn 0 }', plans, until="round > 2"),
              [8, 7, 5, 5, 3])["log"]
    assert "  Advantage: Patriarch tries to Scramble Roughhouse (Limit), Limit: 2d8 [8 7] = 15: success" in log
    assert "    Roughhouse is Scrambled, out of combat" in log
    piloted = 'character Pilot1 is Pilot { reflexes 0 }\ncharacter Roughhouse is Robo { brawn 0  pilot Pilot1 }'
    log = run(tmp_path, duel(mind, piloted, plans, until="round > 1"), [])["log"]
    assert "  Advantage: Patriarch tries to Scramble Roughhouse (Limit), Limit +1 (Piloted) = Impossible: harder than Limit, impossible (L1215-1216)" in log


def test_rally_and_charisma_cancel_each_other(tmp_path):
    # L747-753: Charisma puts the foes at -2 for d8 rounds, once a combat; the foes' Rally then cures
    # it instead of its own effect
    spartacus = "character Spartacus is RoboMAC { mind 3  skill Rally }"
    antiochus = "character Antiochus is RoboMAC { npc true  mind 0  skill Charisma }"
    plans = ('if c == Antiochus { return plan("npc", [act("Charisma", Spartacus)]) }\n'
             'if enc.round == 2 { return plan("advantage", [act("Rally", none)]) }\nreturn plan("none", [])')
    log = run(tmp_path, duel(spartacus, antiochus, plans, until="round > 3"), [5, 5, 6, 6, 6])["log"]
    assert "    Antiochus's foes are -2 on all rolls for 6 rounds" in log
    assert "  Advantage: Spartacus uses Rally, Difficult: 2d8 [6 6] -2 (Charisma) = 10: success" in log
    assert "    it ends the other side's Charisma" in log
    assert "  NPC: Antiochus has had his Charisma this combat (L745, L748)" in log


def test_autorepair_and_recovery(tmp_path):
    # L782-785: Autorepair, Difficult, once per combat, a combined d8 of Metal and Structure (A25:
    # Structure first); L1593-1613 recovery after the fight
    body = ('character Gigantic is RoboMAC { brawn 0  armored 0  metal 1  structure 2  system Autorepair }\n'
            'let r = autorepair(Gigantic, act("autorepair", none), "responsive", false, now)\n'
            'say "repaired: {wounds_line(Gigantic)}"\n'
            'let again = autorepair(Gigantic, act("autorepair", none), "responsive", false, now)\n'
            'say "minor: {recover(Gigantic, \\"minor\\")}"\nsay "scene: {recover(Gigantic, \\"scene\\")}"\n'
            'character Johnny is Pilot { guts 0  reflexes 0  flesh 0  bone 0 }\n'
            'say "rest: {recover(Johnny, \\"rest\\")} {recover(Johnny, \\"care\\")}"\n'
            'character Trooper is Npc { chart "Commando" }\nsay "bruise: {Trooper.bruise}"\n')
    got = said(tmp_path, body, [5, 5, 6, 8])
    assert got["repaired"] == "wounds (3/6/4) Wrecked 2"          # d8 = 6: 4 Structure first, then 2 Metal
    assert got["minor"] == "wounds (5/6/4) Wrecked 2"             # d8 = 8 Metal, capped at 5 (L1596-1598)
    assert got["scene"] == "wounds (5/6/4) Wrecked 2"
    assert got["rest"] == "wounds (1/0) wounds (1/1)"
    assert got["bruise"] == "7"                                    # L538-540: 2 per Flesh, 3 per Bone


def test_a_location_table_is_colour_only(tmp_path):
    body = ('table spots { 1 => "left arm", else => "torso" }\nfn robomacs.location_hit(c) = spots[d8]\n'
            'character Thresher is RoboMAC { brawn 0  armored 0 }\nwound(Thresher, "structure", now, "t")\n'
            'say "left: {Thresher.structure}"\n')
    log = logged(tmp_path, body, [1])
    assert "    (location: left arm)" in log and "left: 5" in log


# ---- docs/robomacs.md stays true ----

DOC = ROOT / "docs" / "robomacs.md"


def test_the_docs_characters_check_and_their_transcript_is_the_samples(tmp_path, sample):
    text = DOC.read_text()
    first = re.search(r"```mech\n(.*?)```", text, re.S)[1]
    (tmp_path / "doc.mech").write_text(first)
    ran = mech_forked(["check", "doc.mech"], tmp_path)
    assert ran.code == 0, ran.err
    command, shown = re.search(r"```console\n\$ (mech run [^\n]*)\n(.*?)```", text, re.S).groups()
    # the doc's command runs as written, with every face of the replay (tests/test_docs.py runs it)
    assert command == f"mech run examples/robomacs_spartacus.mech --faces {','.join(map(str, SAMPLE_FACES))}"
    transcript = shown.splitlines()
    assert transcript[-1] == "..."
    assert sample["log"][:len(transcript) - 1] == transcript[:-1]


def test_the_docs_list_every_option(tmp_path):
    got = said(tmp_path, 'let names = []\nsay "options: {robomacs.choices}"\n')
    for name in re.findall(r"(\w+): \[", got["options"]):
        assert f"`{name}`" in DOC.read_text(), name


def test_overflow_at_the_last_wound_is_an_option_a06(tmp_path):
    body = ('character Thresher is RoboMAC { brawn 0  armored 0  metal 1 }\ncharacter Other is RoboMAC { brawn 0  armored 0  metal 1 }\n'
            'wound(Thresher, "metal", now, "t")\nrobomacs.overflow_at = "last"\nwound(Other, "metal", now, "t")\n'
            'say "A06: {Thresher.status} {Other.status}"\n')
    assert said(tmp_path, body)["A06"] == "active recalled"


def test_a_ram_in_a_fight_and_the_obliterating_shot(tmp_path):
    # L1762-1764: rams on Advantage only; L673-674: an Obliterating Shot needs his own Megaweapon, does
    # Wrecked, and a Metal to the user (L671-672)
    racer = ('character Racer is RoboMAC { transforming true  weapons 0  skill "Stunt Driver" { bonus 1 }  '
             'skill "Obliterating Shot"  system Megaweapon }')
    plans = ('if c == Trooper { return plan("none", []) }\n'
             'if enc.round == 1 {\n let r = act("ram", Trooper)\n r.ram = "sideswipe"\n return plan("advantage", [r]) }\n'
             'if enc.round == 2 {\n let found = act("Obliterating Shot", Trooper)\n found.weapon = "a found cannon"\n'
             ' return plan("advantage", [found]) }\n'
             'return plan("advantage", [act("Obliterating Shot", Trooper)])')
    log = run(tmp_path, duel(racer, TROOPER, plans, until="round > 3"), [4, 4, 8, 8])["log"]
    assert "  Advantage: Racer rams Trooper (sideswipe), Routine: 2d8 [4 4] +1 (ram) = 9: success" in log
    assert "    Metal to Trooper, Bone to Racer" in log
    assert "  Advantage: Racer cannot use Obliterating Shot on Trooper: Racer must fire his own Megaweapon (L673-674)" in log
    assert "  Advantage: Racer uses Obliterating Shot on Trooper (Megaweapon), Limit: 2d8 [8 8] = 16: success" in log
    assert "    the strain does a Metal wound to Racer (L671-672)" in log


def test_the_multiple_attempt_bonus_in_a_fight_and_waived(tmp_path):
    quick = "character Quick is RoboMAC { mind 1  fast 3  skill Brawl }"
    plans = ('if c == Trooper { return plan("none", []) }\nlet one = act("Brawl", Trooper)\none.waive_mab = enc.round == 2\n'
             'return plan("advantage", [one])')
    log = run(tmp_path, duel(quick, TROOPER, plans, "mab: true", until="round > 2"), [1, 1, 2, 2, 3, 3, 5, 4])["log"]
    assert ("  Advantage: Quick uses Brawl on Trooper, Difficult: best of 2d8 [1 1], 2d8 [2 2], 2d8 [3 3]: 6 = 6: failure") in log
    assert "  Advantage: Quick uses Brawl on Trooper, Difficult: 2d8 [5 4] = 9: mixed" in log


def test_parries_on_advantage_with_a_shield_and_responsive_limits(tmp_path):
    # L634-640, L934-938: a Parry on Advantage blocks the foe's next blow; a Shield without Parry is two
    # degrees harder; A15: Blast does its damage on Advantage only
    guard = "character Guard is RoboMAC { skill Brawl  skill Parry  skill Blast }"
    brute = "character Brute is RoboMAC { npc true  skill Brawl }"
    plans = ('if c == Brute { return plan("npc", [act("Brawl", Guard)]) }\n'
             'if enc.round == 1 { return plan("advantage", [act("Parry", Brute)]) }\n'
             'return plan("responsive", [act("Blast", Brute)])')
    log = run(tmp_path, duel(guard, brute, plans, until="round > 2"), [4, 4, 6, 6, 1, 1])["log"]
    assert "  Advantage: Guard parries Brute, Routine: 2d8 [4 4] = 8: success" in log      # he has Brawl too
    assert "    Guard blocks it (Parry)" in log
    assert "  Responsive: Guard cannot use Blast on Brute: Blast does its damage on Advantage (A15)" in log
    shielded = "character Guard is RoboMAC { system Shield }"
    plans = ('if c == Brute { return plan("npc", [act("Brawl", Guard)]) }\nreturn plan("responsive", [act("Parry", Brute)])')
    log = run(tmp_path, duel(shielded, brute, plans), [5, 5, 6, 6])["log"]
    assert "  Responsive: Guard parries Brute, Routine +2 (Shield without Parry) = Tasking: 2d8 [6 6] = 12: success" in log
    assert "    Brute's attack is blocked" in log


def test_construction_rules_e14_to_e16_e27_e33_to_e36(tmp_path):
    body = (
        'character Mega is RoboMAC { system A { is "Megaweapon" }  system B { is "Megaweapon"  built_in true }  '
        'system C { is "Megaweapon"  built_in true  explosive true } }\n'
        'let costs = []\nfor s in Mega.system { push(costs, system_slots(s)) }\n'
        'say "E16: {costs}"\nsay "E15: {multiformer_systems(3)}"\n'
        'say "E27: {merged_bonus([0, 0, 0])}"\n'
        'say "E33: {advance_options(\\"gadgets\\")}"\n'
        # E34: the DinoMACs merged: Bronn (Brawn, Armored), Frill (Weapons, Armored), Pterro (Fast, Gadgets),
        # Ripclaw (Mind, Weapons, Fast), Klubb (Armored, Weapons, Brawn)
        'let t1 = {brawn: merged_bonus([0, 0]), armored: merged_bonus([0, 0, 0]), weapons: merged_bonus([0, 0, 0]),\n'
        '    mind: merged_bonus([0]), gadgets: merged_bonus([0]), fast: merged_bonus([0, 0])}\n'
        'say "E34: {t1} {earned_slots(t1)}"\n'
        # E35: Bronn and Klubb +1 Brawn, Frill +1 Armored, Ripclaw +1 Mind, Pterro +1 Gadgets
        'let t2 = {brawn: merged_bonus([1, 1]), armored: merged_bonus([0, 1, 0]), weapons: merged_bonus([0, 0, 0]),\n'
        '    mind: merged_bonus([1]), gadgets: merged_bonus([1]), fast: merged_bonus([0, 0])}\n'
        'say "E35: {t2} {earned_slots(t2)}"\n'
        'let printed = {brawn: 1, armored: 2, weapons: 2, mind: 0, gadgets: 0, fast: 0}\n'
        'say "printed: {earned_slots(printed)}"\n'
        'let printed2 = {brawn: 3, armored: 3, weapons: 2, mind: 1, gadgets: 1, fast: 0}\n'
        'say "printed2: {earned_slots(printed2)}"\n')
    got = said(tmp_path, body)
    assert got["E16"] == "[1, 2, 3]"                       # L876-880
    assert got["E15"] == "2"                               # L848: three non-humanoid forms
    assert got["E27"] == "2"                               # L831-832: three with Brawn, Brawn +2
    assert got["E33"] == "[[0, 5], [1, 3], [2, 1]]"        # L2190-2193
    # The text prints T-MAC's Fast as +0 (and 13 skills / 12 systems, which agree with +0); summing the
    # instances (L831-832) gives Fast +1, and 15/15: the printed Fast is the text's error (digest E34, E35)
    assert got["E34"] == "{brawn: 1, armored: 2, weapons: 2, mind: 0, gadgets: 0, fast: 1} [15, 15]"
    assert got["printed"] == "[13, 12]"
    assert got["E35"] == "{brawn: 3, armored: 3, weapons: 2, mind: 1, gadgets: 1, fast: 1} [30, 25]"
    assert got["printed2"] == "[28, 22]"                   # the printed 28 skills, 22 systems


def test_the_samples_characters_fill_their_slots_e14_e36(tmp_path):
    # E14: Blueblaze and Thresher fill 12 slots each; E36: no one above +6 in trait bonuses (L2209-2211)
    script = EXAMPLE.read_text().split("# The choices of the text")[0]
    script += 'say "E14: {slots(Blueblaze)} {slots(Thresher)}"\nsay "E36: {trait_total(Spartacus)} {trait_total(Antiochus)}"\n'
    got = keyed(run(tmp_path, script)["log"])
    assert got["E14"] == "12 12"
    assert got["E36"] == "3 0"


def test_thresher_against_a_trooper_by_the_default_tactics(tmp_path):
    # Digest 8.2 (a derived test): Thresher's Brawl +2 with Brawn is Difficult and does Structure on
    # Advantage; a natural 11 (13) takes the Trooper from (2/2/1) to (2/1/1). The Trooper's natural 9 on
    # the Normal Troops line (8-12) is a Metal: Thresher from (5/6/4) to (4/6/4), no pain for a Metal.
    script = ("use robomacs\n"
              "character Thresher is RoboMAC { brawn 0  armored 0  transforming true\n"
              "    skill Brawl { bonus 2 }  skill Weaponmaster  skill Parry  skill Grab  skill Trip  skill Blast\n"
              '    system "Threshing devices" { is "Sidearm"  mode "matter" }  system "Combat Form"  system Ramplate }\n'
              'character Trooper is Npc { chart "NT" }\n'
              'encounter "Thresher vs Trooper" {\n    side guardians: Thresher\n    side mace: Trooper\n    until round > 1\n}\n')
    ran = run(tmp_path, script, [5, 6, 4, 5])
    log = ran["log"]
    assert "  Advantage: Thresher uses Brawl on Trooper, Difficult: 2d8 [5 6] +2 (skill) = 13: success" in log
    assert "    Trooper takes a Structure wound: wounds (2/1/1) Wrecked 0" in log
    assert "  NPC: Trooper attacks Thresher on the NT line: 2d8 [4 5] = 9: metal" in log
    assert "    Thresher takes a Metal wound: wounds (4/6/4) Wrecked 2" in log
    assert not any("Scramble" in line for line in log)
    assert ran["result"]["characters"]["Trooper"]["structure"] == 1


def test_the_tables_of_overkills_mishaps_and_hooks(tmp_path):
    # L1322-1331: duration (d8 1-6 next round) and side effect (7-8); L1343-1369 Blueblaze's table;
    # L1280-1320 the Mishaps; L191-290 the Villain Hooks; L869-871, A17: d8/2 scattered foes, at least 1
    body = ('say "durations: {overkill_duration()} {overkill_duration()}"\n'
            'say "side: {overkill_side_effect()} {overkill_side_effect()}"\n'
            'say "blueblaze: {blueblaze_overkills[3]} {blueblaze_overkills[10]} {blueblaze_overkills[14]}"\n'
            'say "mishaps: {mishaps[3]} {mishaps[5]} {mishaps[9]} {mishaps[13]} {mishaps[16]}"\n'
            'say "villain: {villain_hooks[5]}"\nsay "foes: {scattered_foes()} {scattered_foes()}"\n')
    got = said(tmp_path, body, [6, 7, 6, 7, 1, 8])
    assert got["durations"] == "next round rest of combat"
    assert got["side"] == "false true"
    assert got["blueblaze"] == "Lightning Bolt! Spazz Scrambled!"
    assert got["mishaps"] == "Scrambled! Catastrophic Failure Glitch Identify Friend or Foe? Was That Important?"
    assert got["villain"] == "Craven"
    assert got["foes"] == "1 4"


def test_range_close_and_not_close(tmp_path):
    # L687-688: the Range skill (Routine; Tasking without it) moves a pair between Close and Not Close,
    # free of MAP; hand-to-hand and most shots need Close, Sniper Shot Not Close (L660-682)
    sniper = 'character Sniper is RoboMAC { skill Brawl  skill "Sniper Shot"  skill Range }'
    plans = ('if c == Trooper { return plan("none", []) }\n'
             'if enc.round == 1 { return plan("advantage", [act("Sniper Shot", Trooper)]) }\n'
             'return plan("advantage", [act("Range", Trooper), act("Sniper Shot", Trooper), act("Brawl", Trooper)])')
    log = run(tmp_path, duel(sniper, TROOPER, plans, until="round > 2"), [4, 4, 6, 6])["log"]
    assert "  Advantage: Sniper cannot use Sniper Shot on Trooper: it needs Not Close range (L604-688)" in log
    assert "  Advantage: Sniper moves to Not Close with Trooper, Routine: 2d8 [4 4] = 8: success" in log
    # two actions besides the Range skill: MAP on both; Brawl now out of reach
    assert "  Advantage: Sniper uses Sniper Shot on Trooper, Tasking +1 (MAP) = Limit: 2d8 [6 6] = 12: mixed" in log
    assert "  Advantage: Sniper cannot use Brawl on Trooper: it needs Close range (L604-688)" in log
    # the default tactics close in first when the fight starts apart, Range without the skill: Tasking
    brawler = "character Brawler is RoboMAC { skill Brawl }"
    log = run(tmp_path, duel(brawler, TROOPER, "return default_plan(c, enc)", "start_apart: true"), [6, 6, 5, 5, 3, 3])["log"]
    assert "  every side starts Not Close to the others" in log
    assert "  Advantage: Brawler moves to Close with Trooper, Routine +2 (no Range skill) = Tasking: 2d8 [6 6] = 12: success" in log
    assert "  Advantage: Brawler uses Brawl on Trooper, Difficult: 2d8 [5 5] = 10: success" in log


# ---- properties ----

TRAITS = ["armored", "brawn", "gadgets", "weapons", "mind"]
PER_INSTANCE = {"armored": (2, 2, 1, 1), "brawn": (1, 2, 1, 0), "gadgets": (1, 0, 0, 0), "weapons": (1, 1, 0, 0),
                "mind": (0, 0, 1, 1)}


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(*[st.one_of(st.none(), st.integers(0, 4))] * 5), min_size=1, max_size=10),
       st.lists(st.sampled_from(["metal", "structure", "critical", "wrecked"]), max_size=30))
def test_wounds_follow_the_chart_and_never_go_below_zero(tmp_path, combos, hits):
    # L378-404, computed here the long way: the Robo and MAC lines, each trait's line per instance.
    # Then any run of wounds leaves no level below 0, and a RoboMAC still active has Wrecked left.
    lines = ["use robomacs", "let now = {round: 1}"]
    for n, combo in enumerate(combos):
        traits = "  ".join(f"{t} {b}" for t, b in zip(TRAITS, combo) if b is not None)
        lines.append(f"character R{n} is RoboMAC {{ {traits} }}")
        lines.append(f'say "R{n}: {{R{n}.max_metal}} {{R{n}.max_structure}} {{R{n}.max_critical}} {{R{n}.max_wrecked}}"')
    for level in hits:
        lines.append(f'wound(R0, "{level}", now, "t")')
    lines.append('say "after: {R0.metal} {R0.structure} {R0.critical} {R0.wrecked} {R0.status}"')
    log = run(tmp_path, "\n".join(lines) + "\n")["log"]
    got = dict(line.split(": ", 1) for line in log if re.match(r"^(R\d+|after): ", line))
    for n, combo in enumerate(combos):
        expected = [1 + 1, 1 + 1, 1 + 1, 1]                       # the Robo line and the MAC line
        for trait, bonus in zip(TRAITS, combo):
            if bonus is not None:
                expected = [e + (bonus + 1) * w for e, w in zip(expected, PER_INSTANCE[trait])]
        assert got[f"R{n}"] == " ".join(map(str, expected))
    *counts, status = got["after"].split()
    assert all(int(k) >= 0 for k in counts)
    assert status in ("active", "recalled", "shutdown", "wrecked", "destroyed")
    if status == "active":
        assert int(counts[3]) > 0 or not hits


# ---- where the module once diverged from the text (issue 19), each with forced faces ----

JOHNNY = "character Johnny is Pilot { guts 0  reflexes 0  skill Brawl  skill Dodge }"
GIGANTIC = "character Gigantic is Robo { brawn 0  armored 0  pilot Johnny }"


def test_a_pilots_own_bone_wound_is_on_the_rolls_he_makes_for_the_robo(tmp_path):
    # L473-475: "Taking a Bone Wound gives a human -2 on all actions taken until the Wound is healed";
    # a Piloted Robo's rolls are its pilot's (L585-588). Round 1 the Trooper's 14 (NT: Structure)
    # trickles through as a Bone wound to Johnny (L482-485); round 2 Gigantic's Brawl and Dodge pay the
    # Interface Penalty (-3 +1 Reflexes, L1190-1198) and Johnny's -2
    plans = ('if c == Trooper {\n if enc.round == 1 { return plan("npc", [act("chart", Gigantic)]) }\n'
             ' return plan("none", [])\n}\n'
             'if enc.round == 2 { return plan("advantage", [act("Dodge", Trooper), act("Brawl", Trooper)]) }\n'
             'return plan("none", [])')
    log = run(tmp_path, duel(GIGANTIC, TROOPER, plans, until="round > 2", before=JOHNNY), [7, 7, 5, 5, 6, 6])["log"]
    assert "    Tricklethrough: Johnny inside takes a Bone wound" in log
    assert ("  Advantage: Gigantic dodges Trooper, Routine +1 (MAP) = Difficult: 2d8 [5 5] -2 (IP) "
            "-2 (Johnny's Bone wound) = 6: failure") in log
    assert ("  Advantage: Gigantic uses Brawl on Trooper, Difficult +1 (MAP) = Tasking: 2d8 [6 6] -2 (IP) "
            "-2 (Johnny's Bone wound) = 8: failure") in log


def test_a_tripped_victim_is_at_minus_4_on_ranged_attacks_only(tmp_path):
    # L644-646: tripped on Advantage, "the victim cannot make a hand-to-hand attack this round, and will
    # be at -4 if he tries a ranged attack": his Dodge is not at -4, his Blast is, his Brawl is refused
    tripper = "character Tripper is RoboMAC { skill Trip }"
    brute = "character Brute is RoboMAC { npc true  skill Dodge  skill Blast  skill Brawl }"
    plans = ('if c == Brute { return plan("npc", [act("Dodge", Tripper), act("Blast", Tripper), act("Brawl", Tripper)]) }\n'
             'return plan("advantage", [act("Trip", Brute)])')
    log = run(tmp_path, duel(tripper, brute, plans), [5, 5, 5, 5, 6, 6])["log"]
    assert "  NPC: Brute dodges Tripper, Routine +1 (MAP) = Difficult: 2d8 [5 5] = 10: success" in log
    assert "    Brute can make no hand-to-hand attack this round, and is -4 on ranged attacks" in log
    assert "  NPC: Brute uses Blast on Tripper, Difficult +1 (MAP) = Tasking: 2d8 [6 6] -4 (tripped) = 8: failure" in log
    assert any(line.startswith("  NPC: Brute cannot use Brawl on Tripper: tripped") for line in log)
    # a chart NPC's attack is a barrage of its weapons (L1471-1472): ranged, -4
    plans = 'if c == Trooper { return plan("npc", [act("chart", Tripper)]) }\nreturn plan("advantage", [act("Trip", Trooper)])'
    log = run(tmp_path, duel(tripper, TROOPER, plans), [5, 5, 6, 6])["log"]
    assert "  NPC: Trooper attacks Tripper on the NT line: 2d8 [6 6] -4 (tripped) = 8: metal" in log


def test_a_rams_kind_sets_the_facings_its_ramplates_count_on(tmp_path):
    # L1772-1774: a Ramplate takes a level off "only if it is on the proper facing"; the kind sets the
    # facings (L1776-1805): Head-On front to front (L1799), Tailgate front to back (L1781), T-Bone front
    # to side (L1790). Each ram here succeeds ([7 7] = 14 makes even a Limit, L1163)
    plated = ('character Plated is RoboMAC { system Ramplate { facing "front" }  system Ramplate { facing "back" }  '
              'system Ramplate { facing "left" } }')
    body = (plated + '\ncharacter Rammer is RoboMAC { }\n'
            'fn r(kind, facing) {\n Plated.metal = 20\n Plated.structure = 20\n Plated.critical = 20\n Plated.wrecked = 20\n'
            ' let t = ram(Rammer, Plated, kind, facing, now)\n'
            ' say "{kind} {facing}: ({Plated.metal}/{Plated.structure}/{Plated.critical}) {Plated.wrecked}"\n}\n'
            'r("head-on", "side")\nr("tailgate", "side")\nr("t-bone", "left")\nr("t-bone", "right")\n')
    log = logged(tmp_path, body, [7, 7] * 4)
    got = keyed([line for line in log if re.match(r"^[\w\- ]+: \(", line)])
    assert "    Plated's front Ramplate takes a level off" in log
    assert "    Critical to Plated, Critical to Rammer" in log          # Head-On: Wrecked, one less on the front
    assert log.count("    Metal to Plated, Metal to Rammer") == 1           # Tailgate: Structural, one less on the back
    assert log.count("    Structure to Plated, Structure to Rammer") == 1   # T-Bone on the plated left: Critical - 1
    assert log.count("    Critical to Plated, Structure to Rammer") == 1    # T-Bone on the bare right side
    assert got == {"head-on side": "(20/20/19) 20", "tailgate side": "(19/20/20) 20", "t-bone left": "(20/19/20) 20",
                   "t-bone right": "(20/20/19) 20"}


def test_a_ram_on_a_side_needs_a_side_and_in_a_fight_its_kind_sets_the_facing(tmp_path):
    # an action's `facing` names the side a Sideswipe or T-Bone strikes; a Sideswipe on the front is
    # no Sideswipe (L1777): a clear error, not a silent default
    plans = ('if c == Plated { return plan("none", []) }\nlet h = act("ram", Plated)\nh.ram = "head-on"\n'
             'return plan("advantage", [h])')
    plated = 'character Plated is RoboMAC { system Ramplate { facing "front" } }'
    log = run(tmp_path, duel("character Racer is RoboMAC { }", plated, plans), [7, 7])["log"]
    assert "    Critical to Plated, Critical to Racer" in log             # the default facing "side" no longer counts
    path = tmp_path / "bad.mech"
    path.write_text('use robomacs\nlet now = {round: 1}\ncharacter A is RoboMAC { }\ncharacter B is RoboMAC { }\n'
                    'let x = ram(A, B, "sideswipe", "front", now)\n')
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1 and "Traceback" not in ran.err
    assert 'a sideswipe strikes a side (L1777, L1790): facing "front" is not one' in ran.err


def test_human_chart_npcs_rank_by_flesh_and_bone_at_least_1(tmp_path):
    # L1476-1482: an NPC's Rank is his Flesh + Bone (a human) times the Rank Multiple (L1493-1500:
    # 1, 1, 1.5, 2, 3, 4); Noncombatant "treated as Rank 1" (L1512-1513), Joe Normal "at least Rank 1"
    # (L1515-1516); a Warmonger's from Flesh and Bone, not his Metal. Against Robos the types marked [2]
    # have a multiple of 1 (L1503), a Heavy Weapons trooper at least 1 (L1528-1529)
    types = ["Noncombatant", "JoeNormal", "Trooper", "Commando", "HeavyWeapons", "Warmonger"]
    body = "".join(f'character {t} is Npc {{ chart "{t}" }}\n' for t in types)
    body += ('let all = [' + ", ".join(types) + ']\nlet ranks = []\n'
             'for c in all { push(ranks, rank(c)) }\nsay "ranks: {ranks}"\n')
    # typical wounds (F/B): 0/0, 1/0, 1/0, 2/1, 2/1, 3/2 (the module's proposal from L1510-1533)
    assert said(tmp_path, body)["ranks"] == "[1, 1, 1, 6, 9, 20]"
    body += ('let robos = []\nfor c in all { push(robos, rank_against(c, true)) }\nsay "against Robos: {robos}"\n'
             'character Fodder is Npc { chart "CF" }\nsay "robo: {rank(Fodder)} {rank_against(Fodder, true)}"\n')
    got = said(tmp_path, body)
    assert got["against Robos"] == "[1, 1, 1, 6, 3, 5]"
    assert got["robo"] == "3 3"                                         # E29: NPC Robos as before


def test_total_destruction_at_the_last_wrecked_wound_is_an_option_l496(tmp_path):
    # L495-496: "character must take all their Wrecked wounds" to be totally destroyed; L424 and
    # L368-369 (the Overflow Effect once all of a type are taken) read with A06 put it one wound later,
    # at a Wrecked wound arriving with none left (A07, the default)
    body = ('character Thresher is RoboMAC { brawn 0  armored 0  wrecked 2 }\n'
            'wound(Thresher, "wrecked", now, "t")\nsay "first: {Thresher.status} {Thresher.wrecked}"\n'
            'wound(Thresher, "wrecked", now, "t")\nsay "last: {Thresher.status} {Thresher.wrecked}"\n'
            'wound(Thresher, "wrecked", now, "t")\nsay "beyond: {Thresher.status} {Thresher.wrecked}"\n')
    got = said(tmp_path, body)
    assert (got["first"], got["last"], got["beyond"]) == ("wrecked 1", "wrecked 0", "destroyed 0")
    log = logged(tmp_path, 'robomacs.total_destruction = "all"\n' + body)
    got = keyed([line for line in log if re.match(r"^\w+: ", line)])
    assert (got["first"], got["last"]) == ("wrecked 1", "destroyed 0")
    assert "    all his Wrecked wounds taken: Total Destruction (L495-496)" in log


def three(plans: str, until: str = "round > 3", *settings: str) -> str:
    """A script: Holder (side a) against Victim and Other (side b); `plans` the body of plan_for."""
    lines = "".join(f"    {s}\n" for s in settings)
    return ("use robomacs\ncharacter Holder is RoboMAC { skill Grab  skill Brawl }\n"
            "character Victim is RoboMAC { metal 0  structure 0 }\ncharacter Other is RoboMAC { }\n"
            "fn robomacs.plan_for(c, enc) {\n" + plans + "\n}\n"
            f'encounter "Test" {{\n    side a: Holder\n    side b: Victim, Other\n{lines}    until {until}\n}}\n')


def test_a_holder_lets_go_of_a_fallen_foe_and_fights_on(tmp_path):
    # L628-629: while grabbing someone he "may not attack anyone else"; nothing in the text keeps him
    # holding one who is out of the fight. R1 Holder grabs Victim; R2 his squeeze (Metal, +1 held:
    # Structure, L629) finds Victim's Structure empty: System Shutdown (L427-428). R3 the default plan
    # lets go (free: the text gives letting go no cost, L2019-2020) and attacks Other, without MAP
    plans = ('if c == Holder and enc.round == 1 { return plan("advantage", [act("Grab", Victim)]) }\n'
             'if c == Holder { return default_plan(c, enc) }\nreturn plan("none", [])')
    log = run(tmp_path, three(plans), [5, 5, 5, 5, 5, 5])["log"]
    assert "    System Shutdown: Victim is out" in log
    assert "  Advantage: Holder lets go of Victim, who is shutdown" in log
    assert "  Advantage: Holder uses Brawl on Other, Difficult: 2d8 [5 5] = 10: success" in log
    # let_go "action": letting go is an action, and the Brawl pays MAP
    log = run(tmp_path, three(plans, "round > 3", 'let_go: "action"'), [5, 5, 5, 5, 5, 5])["log"]
    assert "  Advantage: Holder uses Brawl on Other, Difficult +1 (MAP) = Tasking: 2d8 [5 5] = 10: mixed" in log


def test_a_holder_grabs_no_one_else_and_a_hold_is_never_left_half_set(tmp_path):
    # L628-629 (Grab is a hand-to-hand attack, L608, L626): holding Victim, Holder's Grab on Other is
    # refused; the GM may allow it (`allowed`), and then the first hold ends: never Victim still
    # "held by" Holder while Holder holds Other
    plans = ('if c != Holder { return plan("none", []) }\n'
             'say "R{enc.round}: {Holder.holding} {Victim.held_by} {Other.held_by}"\n'
             'if enc.round == 1 { return plan("advantage", [act("Grab", Victim)]) }\n'
             'let second = act("Grab", Other)\nsecond.allowed = enc.round == 3\n'
             'return plan("advantage", [second])')
    log = run(tmp_path, three(plans, "round > 4"), [5] * 8)["log"]
    assert "  Advantage: Holder cannot grab Other: holding Victim, Holder may attack no one else (L628-629)" in log
    said_lines = keyed([line for line in log if re.match(r"^R\d: ", line)])
    # plan_for is asked twice a round (the phase, then the actions): the state at the actions' turn
    assert said_lines["R2"] == "Victim Holder none"      # R2's Grab refused
    assert said_lines["R3"] == "Victim Holder none"
    assert said_lines["R4"] == "Other none Holder"       # R3's allowed Grab: Victim let go
