"""A rules module refusing a character's sheet, as a user sees it through `mech` (issue 21, item 4):
the error points at the character's declaration in the user's script (FILE:LINE:COL, the line, a
caret under its name), names the character, and gives the module's `fail` line as a "from" line.
`mech sim` names a seed to replay only for an error that depends on the dice.
"""

from __future__ import annotations

import re
from pathlib import Path

from support import mech_forked

STDLIB = Path(__file__).resolve().parent.parent / "mechscript" / "stdlib"

# An Ishtar needs Charisma 3 bought (rule text 004 L387-389); Rin has 2. The check runs in the kind
# `Pilot`'s derived `eff` when Rin is made, before any die.
NEOJOVE = """\
use neojove

character Rin is Pilot {
    genotype "ishtar"  physique 3  wits 3  intellect 2  clarity 2  perception 3  charisma 2
    piloting 2  gunnery 2
}
character Kessler is Pilot { genotype "baseline" }
character WhiteRose is Unit { pilot Rin  durability 18 }
character Nightjar is Unit { pilot Kessler  durability 16 }

encounter "Duel" {
    side white_rose: WhiteRose
    side cygnus: Nightjar
    until one_side_left or round > 3
}
"""

# A Brute Squad may not have Personalities (rule text 000 L267): checked by the fight's `sheet_of`,
# before any die is rolled.
TRANSFORMERS = """\
use transformers

character Sparkplug is Transformer {
    strength 5  intelligence 6  speed 6  endurance 5  rank 4  courage 6  firepower 3  skill 6
    armament Blaster { damage 3k2  type "firepower"  range 8 }
}

character Slagtrap is Transformer {
    strength 7  intelligence 5  speed 5  endurance 7  rank 5  courage 5  firepower 6  skill 7
    role "brute"
    personality Cool { points 4 }
    armament Blaster { damage 3k2  type "firepower"  range 8 }
}

encounter "Dam at dusk" {
    side autobots: Sparkplug
    side decepticons: Slagtrap
    until one_side_left or round > 3
}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sheet.mech"
    path.write_text(text, encoding="utf-8")
    return path


def module_line(module: str, text: str) -> int:
    """The line of the module's source holding `text` (so that the test follows the module's edits)."""
    lines = (STDLIB / f"{module}.mech").read_text(encoding="utf-8").splitlines()
    found = [number for number, line in enumerate(lines, 1) if text in line]
    assert len(found) == 1, found
    return found[0]


def test_a_genotype_the_sheet_breaks_points_at_the_pilot_and_names_it(tmp_path):
    path = write(tmp_path, NEOJOVE)
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert (ran.code, ran.out) == (1, "")
    fail_line = module_line("neojove", "needs {g.min_stat} of at least 3 bought")
    assert ran.err.splitlines() == [
        f"{path}:3:11: Rin: genotype ishtar needs charisma of at least 3 bought (L377-399), not 2",
        "  character Rin is Pilot {",
        "            ^~~",
        f"  from {STDLIB / 'neojove.mech'}:{fail_line}:9: "
        'fail("genotype {name} needs {g.min_stat} of at least 3 bought (L377-399), not {…',  # cut at 80
    ]


def test_a_limit_of_a_brute_squad_points_at_it_with_fail_s_character(tmp_path):
    path = write(tmp_path, TRANSFORMERS)
    ran = mech_forked(["run", str(path), "--seed", "1"], tmp_path)
    assert ran.code == 1 and "Traceback" not in ran.err
    fail_line = module_line("transformers", "Brutes may not have Personalities")
    lines = ran.err.splitlines()
    assert lines[:3] == [
        f"{path}:8:11: Slagtrap is a Brute Squad, and Brutes may not have Personalities (rule text 000 L267)",
        "  character Slagtrap is Transformer {",
        "            ^~~~~~~~",
    ]
    assert lines[3].startswith(f"  from {STDLIB / 'transformers.mech'}:{fail_line}:")
    assert "fail(" in lines[3] and len(lines) == 4


def test_a_gear_item_a_module_refuses_points_at_the_item(tmp_path):
    # neojove's Unit checks its control systems (L715-735) when it is made; a weapon's or a unit's
    # error stays at the declaration that has it
    path = write(tmp_path, 'use neojove\ncharacter P is Pilot { }\n'
                           'character U is Unit { pilot P  durability 5  controls ["holotank"] }\n')
    ran = mech_forked(["run", str(path)], tmp_path)
    assert ran.code == 1
    lines = ran.err.splitlines()
    assert lines[0].startswith(f'{path}:3:11: U: no control system "holotank": they are screen, ')
    assert lines[1:3] == ["  character U is Unit { pilot P  durability 5  controls [\"holotank\"] }", "            ^"]
    assert lines[3].startswith(f"  from {STDLIB / 'neojove.mech'}:") and "no control system" in lines[3]


def test_an_error_of_the_script_s_own_value_stays_at_that_value(tmp_path):
    # a stat outside its range is the script's own line already: no "from" line
    path = write(tmp_path, 'use neojove\ncharacter P is Pilot { charisma 12 }\n')
    ran = mech_forked(["run", str(path)], tmp_path)
    assert ran.code == 1
    assert ran.err.splitlines()[:3] == [
        f"{path}:2:33: `charisma` of Pilot is a whole number from 0 to 10, not 12",
        "  character P is Pilot { charisma 12 }", "                                  ^~"]
    assert len(ran.err.splitlines()) == 3


def test_fail_s_second_argument_is_a_character(tmp_path):
    path = write(tmp_path, 'fail("no", 3)\n')
    ran = mech_forked(["run", str(path)], tmp_path)
    assert (ran.code, ran.err.splitlines()[0]) == (1, f"{path}:1:12: `fail`'s second argument is the character "
                                                      "the error is about, not a number")


def test_a_script_s_own_fail_about_a_character_points_at_its_declaration(tmp_path):
    # fail(message, c) in the user's own rule: the declaration, and the rule's line as "from"
    path = write(tmp_path, 'use pbem\ncharacter Punch is Transformer {\n'
                           '    strength 6  intelligence 5  speed 4  endurance 6  rank 3  courage 7  firepower 5  skill 7\n}\n'
                           'fn too_slow(c) {\n    if c.speed < 5 { fail("too slow for this mission", c) }\n}\n'
                           'too_slow(Punch)\n')
    ran = mech_forked(["run", str(path)], tmp_path)
    assert ran.code == 1
    assert ran.err.splitlines() == [
        f"{path}:2:11: Punch: too slow for this mission",
        "  character Punch is Transformer {",
        "            ^~~~~",
        f"  from {path}:6:22: if c.speed < 5 {{ fail(\"too slow for this mission\", c) }}",
    ]


def test_sim_of_a_sheet_error_gives_the_error_without_a_seed(tmp_path):
    for text in (NEOJOVE, TRANSFORMERS):
        path = write(tmp_path, text)
        ran = mech_forked(["run", str(path), "--seed", "5"], tmp_path)
        simmed = mech_forked(["sim", str(path), "-n", "20", "--seed", "5", "--jobs", "1"], tmp_path)
        assert (simmed.code, simmed.out) == (1, "")
        assert "replay" not in simmed.err and "--seed" not in simmed.err
        assert simmed.err == ran.err  # the error exactly as `mech run` gives it, whatever the seed


def test_sim_of_an_error_after_a_die_names_the_seed_that_replays_it(tmp_path):
    # a house rule checking the sheet after a die is rolled: the run depends on the seed
    text = TRANSFORMERS.replace("use transformers\n", "use transformers\n"
                                'fn transformers.check_sheet(c) { if d6 > 0 { fail("checked after a die", c) } }\n')
    path = write(tmp_path, text)
    simmed = mech_forked(["sim", str(path), "-n", "20", "--seed", "5", "--jobs", "1"], tmp_path)
    assert simmed.code == 1
    found = re.match(rf"{re.escape(str(path))}: run 1 of the batch failed; replay it with "
                     rf"`mech run {re.escape(str(path))} --seed (\d+)`:\n", simmed.err)
    assert found, simmed.err
    assert f"{path}:4:11: Sparkplug: checked after a die" in simmed.err
    replayed = mech_forked(["run", str(path), "--seed", found[1]], tmp_path)
    assert replayed.code == 1 and simmed.err.endswith(replayed.err)
