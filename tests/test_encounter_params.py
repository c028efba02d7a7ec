"""Encounters with parameters (`encounter "Drones"(count = 2, rounds = 20) { ... }`), as a user
drives them: the default fought by `mech run`, a value given by `--set` and swept by `--vary` being
exactly the fight of the script with that value written in, and the errors (an unknown parameter, a
value of another type, a default that is not a plain value), each said once with its place."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mechscript import cli
from support import MECH, mech_forked

HEAD = """\
use pbem
character Punch is Transformer { speed 4 skill 7 rank 3 firepower 5 strength 6 endurance 6 courage 7 }
character D1 is Transformer { speed 5 skill 4 rank 1 firepower 3 strength 3 endurance 3 courage 3 }
character D2 is Transformer { speed 5 skill 4 rank 1 firepower 3 strength 3 endurance 3 courage 3 }
character D3 is Transformer { speed 5 skill 4 rank 1 firepower 3 strength 3 endurance 3 courage 3 }
fn first(n, list) {
    if n < 1 or n > len(list) { fail("count is 1 to {len(list)}, not {n}") }
    let chosen = []
    for member in list { if len(chosen) < n { push(chosen, member) } }
    return chosen
}
"""
DRONES = """\
encounter "Drones"(count = 2, rounds = 20, tie = "defender") {
    side autobots: Punch
    side drones: first(count, [D1, D2, D3])
    tie: tie
    until one_side_left or round > rounds
}
"""
WRITTEN = """\
encounter "Drones" {{
    side autobots: Punch
    side drones: first({count}, [D1, D2, D3])
    tie: "{tie}"
    until one_side_left or round > {rounds}
}}
"""
OTHER = """\
encounter "Duel" {
    side autobots: Punch
    side drones: D1
}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("params")
    (root / "drones.mech").write_text(HEAD + DRONES + OTHER, encoding="utf-8")
    for count, rounds, tie in ((2, 20, "defender"), (3, 20, "defender"), (1, 2, "attacker"), (3, 20, "attacker")):
        (root / f"written_{count}_{rounds}_{tie}.mech").write_text(
            HEAD + WRITTEN.format(count=count, rounds=rounds, tie=tie), encoding="utf-8")
    return root


def mech(folder: Path, *argv: str):
    return mech_forked(list(argv), folder)


def test_the_defaults_are_fought_without_set(folder):
    for seed in ("1", "2", "3"):
        ran = mech(folder, "run", "drones.mech", "--encounter", "Drones", "--seed", seed)
        assert ran.code == 0, ran.err
        assert ran == mech(folder, "run", "written_2_20_defender.mech", "--seed", seed)
    assert "D2 (drones)" in ran.out and "D3 (drones)" not in ran.out


@pytest.mark.parametrize("sets, written", [(["count=3"], "written_3_20_defender.mech"),
                                           (["count=1", "rounds=2", "tie=attacker"], "written_1_2_attacker.mech")])
def test_set_fights_as_the_value_written_in(folder, sets, written):
    argv = [arg for s in sets for arg in ("--set", s)]
    for seed in ("1", "4"):
        ran = mech(folder, "run", "drones.mech", "--encounter", "Drones", *argv, "--seed", seed)
        assert ran.code == 0, ran.err
        assert ran == mech(folder, "run", written, "--seed", seed)
    sim = mech(folder, "sim", "drones.mech", "--encounter", "Drones", *argv, "-n", "50", "--seed", "3", "--json",
               "--jobs", "1")
    assert sim.code == 0, sim.err
    data = json.loads(sim.out)
    # the values fought with, after the encounter's name; the rest is the written script's batch, which
    # has no parameters and so no such key
    assert list(data)[:3] == ["runs", "encounter", "parameters"]
    given = dict(s.split("=") for s in sets)
    assert data.pop("parameters") == {"count": int(given.get("count", 2)), "rounds": int(given.get("rounds", 20)),
                                      "tie": given.get("tie", "defender")}
    assert data == json.loads(mech(folder, "sim", written, "-n", "50", "--seed", "3", "--json", "--jobs", "1").out)


def test_sim_json_lists_the_parameters_only_of_an_encounter_with_parameters(folder):
    data = json.loads(mech(folder, "sim", "drones.mech", "--encounter", "Drones", "-n", "5", "--seed", "1", "--json",
                           "--jobs", "1").out)
    assert data["parameters"] == {"count": 2, "rounds": 20, "tie": "defender"}
    duel = json.loads(mech(folder, "sim", "drones.mech", "--encounter", "Duel", "-n", "5", "--seed", "1", "--json",
                           "--jobs", "1").out)
    assert "parameters" not in duel and list(duel)[:3] == ["runs", "encounter", "seed"]


def test_vary_sweeps_a_parameter_each_point_as_written(folder):
    argv = ["sim", "drones.mech", "--encounter", "Drones", "--vary", "count=2..3", "-n", "40", "--seed", "7", "--json"]
    swept = json.loads(mech(folder, *argv, "--jobs", "1").out)
    assert [point["values"] for point in swept["points"]] == [{"count": 2}, {"count": 3}]
    assert set(swept["points"][0]["characters"]) == {"Punch", "D1", "D2"}
    assert set(swept["points"][1]["characters"]) == {"Punch", "D1", "D2", "D3"}
    for point, written in zip(swept["points"], ("written_2_20_defender.mech", "written_3_20_defender.mech")):
        alone = json.loads(mech(folder, "sim", written, "-n", "40", "--seed", "7", "--json", "--jobs", "1").out)
        assert point["winners"] == alone["winners"] and point["characters"] == alone["characters"]
    # --set and --vary together; the real command, its worker processes given the values
    env = {k: v for k, v in os.environ.items() if k != "MECH_DEBUG"}
    two = subprocess.run([MECH, *argv, "--set", "tie=attacker", "--jobs", "2"], cwd=folder, capture_output=True,
                         text=True, env=env, timeout=300)
    assert two.returncode == 0, two.stderr
    last = json.loads(two.stdout)["points"][1]
    alone = json.loads(mech(folder, "sim", "written_3_20_attacker.mech", "-n", "40", "--seed", "7", "--json",
                            "--jobs", "1").out)
    assert last["winners"] == alone["winners"]
    # the text table: a column for every point's characters
    table = mech(folder, *argv[:-1], "--jobs", "1").out.splitlines()
    assert table[2].split()[-4:] == ["Punch", "D1", "D2", "D3"]


def test_an_unknown_parameter_gets_a_did_you_mean_at_the_option(folder):
    ran = mech(folder, "run", "drones.mech", "--encounter", "Drones", "--set", "cuont=3")
    assert (ran.code, ran.out) == (1, "")
    assert ran.err == ("--set:1:1: the script has no encounter parameter or top-level `let cuont`\n"
                       "  cuont=3\n"
                       "  ^~~~~\n"
                       "  hint: did you mean `count`?\n")
    swept = mech(folder, "sim", "drones.mech", "--encounter", "Drones", "--vary", "roundz=1..3", "-n", "5",
                 "--jobs", "1")
    assert swept.err.splitlines()[0] == "--vary:1:1: the script has no encounter parameter or top-level `let roundz`"
    assert swept.err.splitlines()[-1] == "  hint: did you mean `rounds`?"


@pytest.mark.parametrize("option, said", [
    ("count=three", ['--set:1:7: `count` of encounter "Drones" is a number (its default is 2), not text',
                     "  count=three", "        ^~~~~", "  hint: e.g. --set count=2"]),
    ("tie=true", ['--set:1:5: `tie` of encounter "Drones" is text (its default is defender), not a boolean',
                  "  tie=true", "      ^~~~", "  hint: e.g. --set tie=defender"]),
])
def test_a_value_of_another_type_is_refused_at_the_option(folder, option, said):
    ran = mech(folder, "run", "drones.mech", "--encounter", "Drones", "--set", option)
    assert (ran.code, ran.out) == (1, "")
    assert ran.err.splitlines() == said


def test_a_value_the_script_refuses_is_its_error(folder):
    # the count is a number, but the encounter's own `first` refuses it: the script's error, before a fight
    ran = mech(folder, "run", "drones.mech", "--encounter", "Drones", "--set", "count=5")
    assert (ran.code, ran.out) == (1, "")
    assert ran.err.splitlines()[0] == "drones.mech:7:33: count is 1 to 3, not 5"
    # said inside the function the side called: the hint names the parameters it was given
    assert ran.err.splitlines()[-1] == "  hint: made with the encounter's count = 5 (--set count=5)"
    # an option's value the rules do not allow: their own check, said at the option
    assert "not \"sideways\"" in mech(folder, "run", "drones.mech", "--encounter", "Drones", "--set",
                                      "tie=sideways").err


@pytest.mark.parametrize("option, origin", [([], "its default"), (["--set", "rounds=7"], "--set rounds=7"),
                                            (["--vary", "rounds=7..8"], "--vary rounds=7")])
def test_a_value_refused_where_it_is_used_is_said_there_naming_it(tmp_path, option, origin):
    # a value refused at the parameter itself (a number standing as a side's member): said where the
    # parameter is written in the body, not at its default, with the parameter, its value and whence
    (tmp_path / "member.mech").write_text(HEAD + DRONES.replace("first(count, [D1, D2, D3])", "D1, rounds"),
                                          encoding="utf-8")
    swept = option[:1] == ["--vary"]
    ran = mech(tmp_path, "sim" if swept else "run", "member.mech", "--encounter", "Drones", *option, "--seed", "1",
               *(["-n", "5", "--jobs", "1"] if swept else []))
    assert (ran.code, ran.out) == (1, "")
    value = origin.rpartition("=")[2] if "=" in origin else "20"
    assert ran.err.splitlines() == [
        "member.mech:14:22: a side is made of characters, and this is a number",
        "      side drones: D1, rounds",
        "                       ^~~~~~",
        f"  hint: `rounds` is the encounter's parameter, here {value} ({origin})"]


def test_set_is_one_value_and_once(folder):
    ran = mech(folder, "run", "drones.mech", "--set", "count=1..3")
    assert ran.code == 2 and "--set is TARGET=VALUE" in ran.err
    twice = mech(folder, "run", "drones.mech", "--encounter", "Drones", "--set", "count=1", "--set", "count=2")
    assert (twice.code, twice.err) == (2, "mech: --set count is given twice\n")


def test_check_knows_the_parameters_and_types_them(folder, tmp_path):
    ran = mech(folder, "check", "drones.mech")
    assert (ran.code, ran.err) == (0, "")
    # the checker sees the default's type where the parameter is named: text passed on to `first`
    (tmp_path / "typed.mech").write_text(HEAD + DRONES.replace("count = 2", 'count = "two"'), encoding="utf-8")
    typed = mech(tmp_path, "check", "typed.mech")
    assert typed.code == 1
    assert typed.err.splitlines()[0] == "typed.mech:7:8: expected a number here, not a string"
    # and text standing as a side's member, said where the parameter is used, with its value
    (tmp_path / "member.mech").write_text(HEAD + DRONES.replace('count = 2', 'count = "two"').replace(
        "first(count, [D1, D2, D3])", "D1, count"), encoding="utf-8")
    member = mech(tmp_path, "check", "member.mech")
    assert member.err.splitlines() == [
        "member.mech:14:22: a side is made of characters, and this is a string",
        "      side drones: D1, count",
        "                       ^~~~~",
        """  hint: `count` is the encounter's parameter, here "two" (its default)"""]


@pytest.mark.parametrize("header, said", [
    ('encounter "D"(count = 1 + 1) {', "a parameter's default is a plain value: a number, text, true, false or none"),
    ('encounter "D"(count = 1, count = 2) {', "parameter `count` is listed twice"),
    ('encounter "D"(count) {', None),
    ('encounter "D"(round = 3) {', "`round` is what `until` reads of the fight: a parameter cannot be named so"),
])
def test_a_parameter_needs_one_plain_default(tmp_path, header, said):
    (tmp_path / "bad.mech").write_text(HEAD + DRONES.replace('encounter "Drones"(count = 2, rounds = 20, '
                                                             'tie = "defender") {', header), encoding="utf-8")
    ran = mech(tmp_path, "check", "bad.mech")
    assert ran.code == 1 and "Traceback" not in ran.err
    if said is not None:
        assert ran.err.splitlines()[0].endswith(said)
    assert ran.err.startswith("bad.mech:12:")


def test_a_side_of_a_list_that_is_not_characters(tmp_path):
    (tmp_path / "numbers.mech").write_text(HEAD + DRONES.replace("first(count, [D1, D2, D3])", "[1, 2]"),
                                           encoding="utf-8")
    ran = mech(tmp_path, "run", "numbers.mech", "--seed", "1")
    assert ran.code == 1 and "a side is made of characters, and this is a number" in ran.err


# ---- mech compare and the REPL's :run ----

def test_compare_gives_every_version_the_values_of_set(folder, tmp_path):
    argv = ["compare", "drones.mech", "--encounter", "Drones", "--set", "count=3", "--set", "tie=attacker",
            "-n", "60", "--seed", "5", "--json", "--jobs", "1"]
    (tmp_path / "same.mech").write_text("# changes nothing\n", encoding="utf-8")
    data = json.loads(mech(folder, *argv, "--rule", str(tmp_path / "same.mech")).out)
    assert data["parameters"] == {"count": 3, "rounds": 20, "tie": "attacker"}
    alone = json.loads(mech(folder, "sim", "written_3_20_attacker.mech", "-n", "60", "--seed", "5", "--json",
                            "--jobs", "1").out)
    # the script with the values, and the house rule's version with them too: both the written fight
    for version in (data["base"], data["variants"][0]):
        assert version["winners"] == alone["winners"] and version["characters"] == alone["characters"]
    # two scripts: each given the values
    two = json.loads(mech(folder, *argv[:1], "drones.mech", "drones.mech", *argv[2:]).out)
    assert two["base"]["winners"] == two["variants"][0]["winners"] == alone["winners"]
    # refused at the option, as by mech sim
    wrong = mech(folder, "compare", "drones.mech", "--encounter", "Drones", "--set", "count=three", "--rule",
                 str(tmp_path / "same.mech"), "-n", "5", "--jobs", "1")
    assert (wrong.code, wrong.out) == (1, "")
    assert wrong.err.splitlines()[0] == \
        '--set:1:7: `count` of encounter "Drones" is a number (its default is 2), not text'


def repl(folder: Path, lines: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    """The REPL reading `lines` from a pipe, in `folder`."""
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code = cli.main(["repl", "--seed", "1"])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_repl_runs_an_encounter_with_the_values_of_set(folder, monkeypatch, capsys):
    written = mech(folder, "run", "written_3_20_attacker.mech", "--seed", "1").out
    defaults = mech(folder, "run", "written_2_20_defender.mech", "--seed", "1").out
    code, out, err = repl(folder, [":load drones.mech", ":seed 1",
                                   ":run --set count=3 --encounter Drones --set tie=attacker", ":seed 1",
                                   ":run --encounter Drones"], monkeypatch, capsys)
    assert (code, err) == (0, "")
    # the values given, then the encounter as declared again: --set changes one fight, not the session
    assert out == f"loaded drones.mech\nseed 1\n{written}seed 1\n{defaults}"


@pytest.mark.parametrize("option, said", [
    ("--set cuont=3", ['encounter "Drones" has no parameter `cuont`', "  hint: did you mean `count`?"]),
    ("--set count=three", ['`count` of encounter "Drones" is a number (its default is 2), not text',
                           "  hint: :run --set count=2"]),
    ("--set count=1 --set count=2", ["--set count is given twice"]),
    ("--set count", ["--set is PARAM=VALUE, not 'count'", "  hint: :run --set count=4"]),
    ("--sett count=1", ["`:run` takes --encounter NAME and --set PARAM=VALUE, or nothing",
                        '  hint: :run --encounter Drones']),
    # a value the script refuses: its error, at the line refusing it, naming the parameter's value
    ("--set count=5", ["drones.mech:7:33: count is 1 to 3, not 5",
                       "  hint: made with the encounter's count = 5 (:run --set count=5)"]),
])
def test_the_repl_refuses_a_set_it_cannot_fight(folder, monkeypatch, capsys, option, said):
    code, out, err = repl(folder, [":load drones.mech", f":run --encounter Drones {option}"], monkeypatch, capsys)
    assert (code, out) == (1, "loaded drones.mech\n")
    assert [line for line in err.splitlines() if not line.startswith("      ") and "^" not in line] == said


def test_the_repl_says_an_encounter_without_parameters_takes_no_set(folder, monkeypatch, capsys):
    code, out, err = repl(folder, [":load drones.mech", ":run --encounter Duel --set count=1"], monkeypatch, capsys)
    assert code == 1
    assert err.splitlines() == ['encounter "Duel" has no parameters',
                                "  hint: in the session, give a stat or an option its value at the prompt "
                                "(Punch.skill = 6)"]
