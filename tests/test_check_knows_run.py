"""`mech check` knows what `mech run` knows (issue 21, item 3): examples/pbem_ambush.mech changed in
one place, and each change found by `mech check FILE` with the message `mech run` gives (or, for a
house rule, a clearer one), without running the fight. `mech check` runs a script up to its first
die (checker/setup.py) and reads the checker's types (checker/problems.py); what comes after a die
stays a run-time error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import mechscript
from support import mech_forked
from test_sheet_errors import NEOJOVE, TRANSFORMERS

ROOT = Path(__file__).resolve().parent.parent
AMBUSH = (ROOT / "examples" / "pbem_ambush.mech").read_text(encoding="utf-8")
STDLIB = ROOT / "mechscript" / "stdlib"


def changed(old: str, new: str) -> str:
    """The ambush with `old` (found once) written `new`."""
    assert AMBUSH.count(old) == 1, old
    return AMBUSH.replace(old, new)


def line_of(text: str, part: str) -> int:
    found = [number for number, line in enumerate(text.splitlines(), 1) if part in line]
    assert len(found) == 1, (part, found)
    return found[0]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "a.mech"
    path.write_text(text, encoding="utf-8")
    return path


def check_and_run(tmp_path: Path, text: str):
    path = write(tmp_path, text)
    return path, mech_forked(["check", str(path)], tmp_path), mech_forked(["run", str(path), "--seed", "1"], tmp_path)


def assert_same_error(checked, ran, lines: list[str]) -> None:
    """Both commands exit 1 and their error begins with `lines`; check prints nothing else."""
    assert (checked.code, checked.out) == (1, ""), checked
    assert checked.err.splitlines()[:len(lines)] == lines, checked.err
    assert ran.code == 1 and ran.err == checked.err, ran


def test_a_stat_outside_its_range(tmp_path):
    text = changed("    speed 4  endurance 6", "    speed 40  endurance 6")
    path, checked, ran = check_and_run(tmp_path, text)
    assert_same_error(checked, ran, [
        f"{path}:16:11: `speed` of Transformer is a whole number from 1 to 10, not 40",
        "      speed 40  endurance 6",
        "            ^~",
    ])


def test_a_stat_of_the_wrong_type(tmp_path):
    text = changed("    speed 4  endurance 6", '    speed "fast"  endurance 6')
    path, checked, ran = check_and_run(tmp_path, text)
    assert_same_error(checked, ran, [
        f'{path}:16:11: `speed` of Transformer is a whole number from 1 to 10, not "fast"',
        '      speed "fast"  endurance 6',
        "            ^~~~~~",
    ])


def test_an_option_outside_its_choices_points_at_the_assignment(tmp_path):
    text = changed("use pbem\n", 'use pbem\npbem.tie = "attackr"\n')
    path, checked, ran = check_and_run(tmp_path, text)
    assert_same_error(checked, ran, [
        f'{path}:13:12: `tie` is one of "defender", "attacker", "reroll", not "attackr"',
        '  pbem.tie = "attackr"',
        "             ^~~~~~~~~",
        '  hint: did you mean "attacker"?',
    ])


def test_an_option_named_alone_is_checked_at_its_assignment_too(tmp_path):
    text = changed("use pbem\n", 'use pbem\ntie = "reroll"\ntied_initiative = "writen"\n')
    path, checked, ran = check_and_run(tmp_path, text)
    assert_same_error(checked, ran, [
        f'{path}:14:19: `tied_initiative` is one of "roll_off", "written", not "writen"',
        '  tied_initiative = "writen"',
        "                    ^~~~~~~~",
        '  hint: did you mean "written"?',
    ])


def test_an_unknown_field_of_a_character(tmp_path):
    path, checked, ran = check_and_run(tmp_path, AMBUSH + "say Punch.sped\n")
    line = line_of(AMBUSH + "say Punch.sped\n", "say Punch.sped")
    assert_same_error(checked, ran, [
        f"{path}:{line}:11: Punch (a Transformer) has no `sped`",
        "  say Punch.sped",
        "            ^~~~",
        "  hint: did you mean `speed`?",
    ])


def test_a_character_on_two_sides(tmp_path):
    text = changed("side decepticons: Triggerhappy, Ransack", "side decepticons: Triggerhappy, Ransack, Punch")
    path, checked, ran = check_and_run(tmp_path, text)
    assert_same_error(checked, ran, [
        f"{path}:39:46: Punch is already on side autobots",
        "      side decepticons: Triggerhappy, Ransack, Punch",
        "                                               ^~~~~",
    ])


def test_a_house_rule_giving_what_no_caller_can_use(tmp_path):
    # pbem's own `pick_target` gives a character or none, and its callers read the target's fields
    text = changed("use pbem\n", 'use pbem\nfn pbem.pick_target(c, enc, plans) = "Megatron"\n')
    path, checked, ran = check_and_run(tmp_path, text)
    problem = ("the house rule `pbem.pick_target` gives a string, where `pbem`'s own `pick_target` gives "
               "a Transformer or none")
    assert (checked.code, checked.out) == (1, "")
    assert checked.err.splitlines() == [
        f"{path}:13:9: {problem}",
        '  fn pbem.pick_target(c, enc, plans) = "Megatron"',
        "          ^~~~~~~~~~~",
        "  hint: the rules of `pbem` use what `pick_target` gives: give them a Transformer or none too",
    ]
    # the run fails inside pbem, where the string is read as a character: its hint names the house rule
    lines = ran.err.splitlines()
    assert ran.code == 1 and lines[0].startswith(f"{STDLIB / 'pbem.mech'}:") and "a string has no fields" in lines[0]
    assert lines[-1] == f"  hint: {problem} ({path}:13:9)"


def test_a_house_rule_giving_what_the_rule_gives_passes(tmp_path):
    text = changed("use pbem\n", "use pbem\nfn pbem.pick_target(c, enc, plans) = none\n"
                                 "fn pbem.damage_power(att, weapon) = 3\n")
    path, checked, _ = check_and_run(tmp_path, text)
    assert (checked.code, checked.out, checked.err) == (0, f"{path}: ok\n", "")


def test_a_call_through_a_module_with_the_wrong_number_of_arguments(tmp_path):
    text = changed("use pbem\n", "use pbem\nsay pbem.acts_before(Punch)\n")
    path, checked, ran = check_and_run(tmp_path, text)
    assert_same_error(checked, ran, [
        f"{path}:13:5: `pbem.acts_before` takes 2 arguments, not 1",
        "  say pbem.acts_before(Punch)",
        "      ^~~~~~~~~~~~~~~~~~~~~~~",
        "  hint: fn acts_before(a, b)",
    ])


def test_a_sheet_a_module_refuses_when_the_character_is_made(tmp_path):
    # issue 18: neojove's genotype check, in the kind's formulas, names the user's declaration
    path, checked, ran = check_and_run(tmp_path, NEOJOVE)
    assert_same_error(checked, ran, [
        f"{path}:3:11: Rin: genotype ishtar needs charisma of at least 3 bought (L377-399), not 2",
        "  character Rin is Pilot {",
        "            ^~~",
    ])
    assert checked.err.splitlines()[3].startswith(f"  from {STDLIB / 'neojove.mech'}:")


def test_a_sheet_the_fight_refuses_before_its_first_die(tmp_path):
    # transformers checks the sheets when the fight starts, before any die: check goes that far
    path, checked, ran = check_and_run(tmp_path, TRANSFORMERS)
    assert (checked.code, checked.out) == (1, "")
    assert checked.err.splitlines()[:3] == [
        f"{path}:8:11: Slagtrap is a Brute Squad, and Brutes may not have Personalities (rule text 000 L267)",
        "  character Slagtrap is Transformer {",
        "            ^~~~~~~~",
    ]
    assert ran.code == 1 and ran.err == checked.err  # the fight's first line is said before it, on stdout


MULTI = """\
use pbem
character Punch is Transformer { speed 4  endurance 6  skill 7  rank 3  firepower 5  strength 6  courage 7 }
character Ransack is Transformer { speed 3  skill 5  rank 2  firepower 6  strength 5  endurance 5  courage 4 }
encounter "First" {
    side autobots: Punch
    side decepticons: Ransack
}
encounter "Second" {
    side autobots: Punch
    side decepticons: Ransack
    tie: "attackr"
}
"""


def test_every_encounter_is_checked(tmp_path):
    path = write(tmp_path, MULTI)
    lines = [f'{path}:11:5: `tie` is one of "defender", "attacker", "reroll", not "attackr"', '      tie: "attackr"',
             "      ^~~", '  hint: did you mean "attacker"?']
    for argv in (["check", str(path)], ["check", str(path), "--encounter", "First"]):
        checked = mech_forked(argv, tmp_path)
        assert (checked.code, checked.out, checked.err.splitlines()) == (1, "", lines), argv
    ran = mech_forked(["run", str(path), "--encounter", "Second", "--seed", "1"], tmp_path)
    assert (ran.code, ran.err.splitlines()) == (1, lines)
    assert mech_forked(["run", str(path), "--encounter", "First", "--seed", "1"], tmp_path).code == 0


def test_a_field_missing_in_code_that_runs_after_a_die(tmp_path):
    # found from the types, where the run only gets after a die: the character is not known by name
    text = changed("use pbem\n", "use pbem\nfn slow(c) = c.sped < 5\n") + "if d6 > 0 { say slow(Punch) }\n"
    path, checked, ran = check_and_run(tmp_path, text)
    assert (checked.code, checked.out) == (1, "")
    assert checked.err.splitlines() == [f"{path}:13:16: a Transformer has no `sped`", "  fn slow(c) = c.sped < 5",
                                        "                 ^~~~", "  hint: did you mean `speed`?"]
    assert ran.code == 1 and ran.err.splitlines()[0] == f"{path}:13:16: Punch (a Transformer) has no `sped`"


def test_a_record_field_missing_after_a_die(tmp_path):
    path, checked, ran = check_and_run(tmp_path, 'let r = {hp: d6, name: "Punch"}\nsay r.hpp\n')
    assert_same_error(checked, ran, [f"{path}:2:7: this record has no field `hpp`", "  say r.hpp", "        ^~~",
                                     "  hint: did you mean `hp`?"])


def test_a_field_asked_for_with_has_is_left_alone(tmp_path):
    text = 'let r = {hp: 3}\nif has(r, "armour") { say r.armour }\n'
    path, checked, ran = check_and_run(tmp_path, text)
    assert (checked.code, checked.out, checked.err) == (0, f"{path}: ok\n", "")
    assert (ran.code, ran.err) == (0, "")


def test_what_depends_on_the_dice_stays_a_run_time_error(tmp_path):
    # the value is known only once the die is rolled: check passes, run fails
    text = changed("    speed 4  endurance 6", "    speed 10 + d6  endurance 6")
    path, checked, ran = check_and_run(tmp_path, text)
    assert (checked.code, checked.out, checked.err) == (0, f"{path}: ok\n", "")
    assert ran.code == 1 and "`speed` of Transformer is a whole number from 1 to 10, not 1" in ran.err


def test_check_says_nothing_the_script_says(tmp_path):
    path, checked, _ = check_and_run(tmp_path, 'say "hello"\nsay 1 + 2\n')
    assert (checked.code, checked.out, checked.err) == (0, f"{path}: ok\n", "")


VALID = sorted((ROOT / "examples").glob("*.mech")) + sorted(STDLIB.glob("*.mech")) + \
    sorted((ROOT / "tests" / "scripts").glob("*.mech"))


@pytest.mark.parametrize("path", VALID, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_false_error_on_the_examples_and_modules(path):
    mechscript.check(path)  # the docs' scripts are checked in test_docs.py
