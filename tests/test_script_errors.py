"""Wrong scripts and the errors they give: exact message, line, column and hint, from the Python
API and from the real `mech` command.

Each case is one small wrong script written to its own folder (with the modules it uses beside
it). For an error the checker finds (`when="check"`: the compiler, or `mech check` running the
script up to its first die), `mechscript.check` and `mechscript.run` both raise it, and `mech check
FILE` and `mech run FILE` both exit 1. For an error only running can find (`when="run"`: after a
die), `mech check FILE` passes and `mech run FILE` exits 1. Either way stderr starts
`FILE:LINE:COL: message`, quotes the line with a caret under the spot, ends with the hint, and never
holds a Python traceback.

Starting `mech` takes a while (a new Python, lark building the grammar), so each command runs the
console script's `main` in a forked child of the test process (exit status, stdout and stderr as
the command gives them); a few cases also run the real `mech` command, which must agree.

Known bugs are kept as strict xfails (reason "BUG: ...").
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import mechscript
from mechscript import MechError
from support import MECH, PBEM, Ran, api_errors, error_file, mech_forked, write_case

BOOM = """\
let z = 1
fn crash(x) = x / (z - 1)
"""
SYNTAX_BAD = """\
let a = 1
say (a +
"""


@dataclass
class Case:
    id: str
    source: str
    message: str
    line: int
    col: int
    hint: str | None
    when: str = "check"                              # "check": the checker finds it; "run": only running does
    modules: dict = field(default_factory=dict)      # files beside the script
    file: str = "main.mech"                          # the file the error is reported in
    stdout: str = ""                                 # what `mech run` prints before the error


CASES = [
    # ---- names and functions ----
    Case("unknown_name_did_you_mean", "let health = 3\nsay helth\n",
         "unknown name `helth`", 2, 5, "did you mean `health`?"),
    Case("unknown_name_in_string", 'let hp = 3\nsay "hp: {hpp}"\n',
         "unknown name `hpp`", 2, 11, "did you mean `hp`?"),
    Case("unknown_function", "fn attack(x) = x + 1\nsay atack(2)\n",
         "unknown function `atack`", 2, 5, "did you mean `attack`?"),
    Case("arity_user_fn", "fn f(a, b) = a + b\nsay f(1)\n",
         "`f` takes 2 arguments, not 1", 2, 5, "fn f(a, b)"),
    Case("arity_builtin", "say floor(7, 2)\n",
         "`floor` takes 1 argument, not 2", 1, 5, "floor(x): round down: floor(7/2) is 3"),
    Case("arity_module_fn", "use pbem\nsay pbem.to_hit(1)\n",
         "`pbem.to_hit` takes 2 arguments, not 1", 2, 5, "fn to_hit(att, def)", modules={"pbem.mech": PBEM}),
    Case("arity_module_fn_unqualified", "use pbem\nsay to_hit(1, 2, 3)\n",
         "`to_hit` takes 2 arguments, not 3", 2, 5, "fn to_hit(att, def)", modules={"pbem.mech": PBEM}),
    Case("option_to_user_fn", "fn f(a) = a\nsay f(1, explode: false)\n",
         "functions written in mechscript take no named options (`explode:`)", 2, 19, None),  # under `false`
    Case("unknown_builtin_option", "say roll(7k3, explod: false)\n",
         "`roll` has no option `explod`", 1, 23, "did you mean `explode`?"),  # caret under `false`
    Case("calling_a_table", 'table t { 1 => "a" }\nsay t(1)\n',
         "`t` is a table, not a function", 2, 5, None),
    Case("sum_cut_in_two_lines", "let hp = 10\n    + 5\nsay hp\n",
         "this line is only `+ ...`: its value is dropped", 2, 5,
         "to go on with the line above, end that line with `\\` or put the whole expression in parentheses: "
         "`let a = (1` and `+ 2)` on the next line"),
    Case("duplicate_let", "let hp = 1\nlet hp = 2\n",
         "`hp` is already defined in this block (line 1)", 2, 5, "change it with `hp = ...`"),
    Case("duplicate_let_in_fn_block", "fn f(x) {\n    let y = 1\n    let y = 2\n}\n",
         "`y` is already defined in this block (line 2)", 3, 9, "change it with `y = ...`"),
    Case("duplicate_fn", "fn f() = 1\nfn f() = 2\n",
         "`f` is already defined in this block (line 1)", 2, 4, None),
    Case("duplicate_parameter", "fn f(a, a) = a\n",
         "parameter `a` is listed twice", 1, 9, None),
    Case("return_outside_fn", "say 1\nreturn 3\n",
         "`return` outside a function", 2, 1,
         "return gives a function's result; at the top level, use `say` to show a value"),
    Case("assign_to_fn", "fn f() = 1\nf = 2\n",
         "`f` is a function and cannot be assigned to", 2, 1, None),
    Case("assign_undeclared", "let x = 1\ny = 3\n",
         "unknown name `y`", 2, 1, "declare it first: `let y = ...`"),
    Case("assign_to_a_number", "3 = 4\n",
         "only a name, a field or an element can be assigned to", 1, 1,
         "assign like `hp = 10`, `def.defended += 1` or `list[0] = 3`; compare with `==`"),
    Case("dice_like_name", "let d6 = 3\n",
         "`d6` reads as a die, so it cannot be a name", 1, 5, "choose another name, e.g. `d6_roll` or `die`"),
    Case("record_field_twice", "let r = {a: 1, a: 2}\n",
         "field `a` is given twice", 1, 16, None),

    # ---- modules and house rules ----
    Case("use_missing_module_did_you_mean", "use pbme\n",
         "no module `pbme`", 1, 1, "did you mean `pbem`?", modules={"pbem.mech": PBEM}),
    Case("use_missing_module_file", 'use "rules/nothere.mech"\n',
         "no module file `rules/nothere.mech` (looked in {dir})", 1, 1, None),
    Case("use_inside_fn", "fn f() {\n    use pbem\n}\n",
         "`use` goes at the top level of a script", 2, 5, None, modules={"pbem.mech": PBEM}),
    Case("module_has_no_member", "use pbem\nsay pbem.tohit\n",
         "module `pbem` has no `tohit`", 2, 10, "did you mean `to_hit`?", modules={"pbem.mech": PBEM}),
    Case("assign_to_module_rule", "use pbem\npbem.to_hit = 3\n",
         "`pbem.to_hit` is a function and cannot be assigned to", 2, 6,
         "replace a rule with `fn pbem.to_hit(...) = ...`", modules={"pbem.mech": PBEM}),
    Case("replace_rule_of_module_not_used", "fn pbem.to_hit(a, b) = true\n",
         "`pbem` is not a module this script uses", 1, 1, "add `use pbem` at the top of the script",
         modules={"pbem.mech": PBEM}),
    Case("replace_rule_that_does_not_exist", "use pbem\nfn pbem.tohit(a, b) = true\n",
         "module `pbem` has no rule `tohit` to replace", 2, 9, "did you mean `to_hit`?",
         modules={"pbem.mech": PBEM}),
    Case("replace_rule_wrong_arity", "use pbem\nfn pbem.to_hit(a) = true\n",
         "`pbem.to_hit` takes 2 arguments; its replacement must too, not 1", 2, 9, "fn pbem.to_hit(att, def)",
         modules={"pbem.mech": PBEM}),
    Case("syntax_error_in_used_module", "use synbad\nsay 1\n",
         "the input ends too early", 2, 9,
         "expected `(`, `+` or `-`, `[`, `dF`, `match`, `{`, a die such as `d6`, a name, a number, "
         "a roll-and-keep pool such as `7k3` or a string",
         modules={"synbad.mech": SYNTAX_BAD}, file="synbad.mech"),
    Case("circular_use", "use ca\nsay fa()\n",
         "`use ca` goes round in a circle: ca.mech is already being loaded", 1, 1, None,
         modules={"ca.mech": "use cb\nfn fa() = 1\n", "cb.mech": "use ca\nfn fb() = 2\n"}, file="cb.mech"),
    Case("check_error_in_used_module", "use bad\nsay 1\n",
         "unknown name `nope`", 3, 9, "did you mean `none`?",
         modules={"bad.mech": "fn helper(x) = x + 1\nlet y = 3\nsay y + nope\n"}, file="bad.mech"),

    # ---- syntax ----
    Case("unclosed_brace", "let x = 1\nif x > 0 {\n    say x\n",
         "a `{` is never closed", 3, 10, "close each block with `}`"),
    Case("brace_on_next_line", "let x = 1\nif x > 0\n{\n    say x\n}\n",
         "the line ends before its block", 2, 9, "a block's `{` goes on the same line: `if x > 3 {`"),
    Case("bad_string_escape", 'say "a\\qb"\n',
         "unknown escape `\\q` in a string", 1, 7, 'escapes: \\n \\t \\" \\\\ \\{ \\}'),
    Case("unclosed_interpolation", 'let x = 1\nsay "x {x + 2"\n',
         "`{` in a string opens an expression that is never closed", 2, 8,
         "close it with `}`, or write `\\{` for a brace"),
    Case("lone_close_brace_in_string", 'say "a}"\n',
         "`}` in a string without its `{`", 1, 7, "write `\\}` for a brace"),
    Case("bad_dice_no_sides", "let x = 3d\nsay x\n",
         "a die needs a number of sides", 1, 11,
         "write the sides right after `d`: `3d6`, `d%`, `dF` or `d[1,2,3]` (`d` alone is a die, never a name)"),
    Case("bad_dice_no_sides_mid_expression", "say 3d + 1\n",
         "a die needs a number of sides", 1, 8,
         "write the sides right after `d`: `3d6`, `d%`, `dF` or `d[1,2,3]` (`d` alone is a die, never a name)"),
    Case("modifier_after_space", "say 4d6 kh3\n",
         "unexpected `kh3`", 1, 9, "dice modifiers are written without a space: `…d6kh3`"),
    Case("table_mixes_named_and_unnamed_rows", "table t {\n    a: 1 => 2\n    3 => 4\n}\n",
         "table `t` mixes named rows with an unnamed one", 1, 1,
         "name every row (`routine: 14 => ...`), or give the table one unnamed row"),
    Case("table_else_not_last", "table t { 1 => 2, else => 3, 4 => 5 }\n",
         "`else` must be the last entry of a row, and only one", 1, 11, None),

    # ---- errors only running finds ----
    Case("unknown_record_field", 'let r = {hp: 3, name: "Punch"}\nsay r.name\nsay r.hpp\n',
         "this record has no field `hpp`", 3, 7, "did you mean `hp`?", stdout="Punch\n"),
    Case("assign_unknown_record_field", "let r = {hp: 3}\nr.hpp = 4\n",
         "this record has no field `hpp`", 2, 3, "did you mean `hp`?"),
    Case("calling_a_number", "let n = 3\nsay n(2)\n",
         "only functions can be called, and this is a number", 2, 5, None),
    Case("if_needs_true_or_false", "if 3 {\n    say 1\n}\n",
         "expected true or false here, not a number", 1, 4,
         "compare to get true or false: `hp > 0`, `roll == 10`"),
    Case("for_over_a_number", "for x in 5 {\n    say x\n}\n",
         "`for` goes through a list, not a number", 1, 10,
         "for i in range(1, 6) { ... } counts 1 to 6"),
    Case("table_without_matching_entry", 'table dmg { 10 => "crit", 5 => "hit" }\nsay dmg[10]\nsay dmg[3]\n',
         "`dmg` has no entry for 3", 3, 9, "add a last entry `else => ...`", stdout="crit\n"),
    Case("division_by_zero", "let z = 0\nsay 10 / z\n",
         "division by zero", 2, 10, "the right side of this operator is 0"),
    Case("list_index_out_of_range", "let l = [1, 2]\nsay l[2]\n",
         "index 2 is outside the list (2 items, counted from 0)", 2, 7, None),
    Case("match_without_fitting_arm", 'say match 3 {\n    1 => "a"\n    2 => "b"\n}\n',
         "no arm of this `match` fits 3", 1, 5, "add a last arm `else => ...`"),
    Case("arity_through_a_variable", "fn f(a) = a\nlet g = f\nsay g(1, 2)\n",
         "`f` takes 1 argument, not 2", 3, 5, "fn f(a)"),
    Case("let_not_run_yet", "fn f() = later\nsay f()\nlet later = 1\n",
         "`later` has no value yet: its `let` has not run", 1, 10, None),
    Case("runtime_error_in_used_module", "use boom\nsay \"before\"\nsay crash(1)\n",
         "division by zero", 2, 19, "the right side of this operator is 0",
         modules={"boom.mech": BOOM}, file="boom.mech", stdout="before\n"),

    # ---- errors only running finds: after a die (`mech check` runs the script up to its first die) ----
    Case("division_by_zero_after_a_die", "let z = d1 - 1\nsay 10 / z\n",
         "division by zero", 2, 10, "the right side of this operator is 0", when="run"),
    Case("index_after_a_die", "let l = [d1, 2]\nsay l[2]\n",
         "index 2 is outside the list (2 items, counted from 0)", 2, 7, None, when="run"),
    Case("match_after_a_die", 'say "rolled {d1}"\nsay match 3 {\n    1 => "a"\n    2 => "b"\n}\n',
         "no arm of this `match` fits 3", 2, 5, "add a last arm `else => ...`", when="run", stdout="rolled 1\n"),
    Case("error_in_used_module_after_a_die", "use boom\nsay d1\nsay crash(1)\n",
         "division by zero", 2, 19, "the right side of this operator is 0", when="run",
         modules={"boom.mech": BOOM}, file="boom.mech", stdout="1\n"),
]
CASE_IDS = [case.id for case in CASES]
assert len(set(CASE_IDS)) == len(CASES)


def expected_message(case: Case, script: Path) -> str:
    return case.message.replace("{dir}", str(script.parent.resolve()))


# ---------------------------------------------------------------------------------------------
# The Python API
# ---------------------------------------------------------------------------------------------

def test_there_are_enough_distinct_cases():
    assert len({case.source for case in CASES}) >= 25
    assert sum(case.when == "check" for case in CASES) >= 25
    assert sum(case.when == "run" for case in CASES) >= 3  # what comes after a die


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_api_error(case, tmp_path):
    script = write_case(tmp_path, case)
    errors = api_errors(case, script)
    for error in errors:
        assert error.message == expected_message(case, script)
        assert (error.span.line, error.span.col) == (case.line, case.col)
        assert error.hint == case.hint
        assert error.filename == error_file(case, script)
        rendered = error.render()
        assert rendered.startswith(f"{error_file(case, script)}:{case.line}:{case.col}: {error.message}")
    assert (getattr(errors[-1], "log", None) or []) == case.stdout.splitlines()  # what the run said before it


def test_check_and_run_from_source_text_agree():
    """A script given as text is checked exactly as the same script in a file."""
    for case in CASES:
        if case.modules or "{dir}" in case.message:
            continue
        if case.when == "check":
            with pytest.raises(MechError) as info:
                mechscript.check(case.source)
        else:
            mechscript.check(case.source)
            with pytest.raises(MechError) as info:
                mechscript.run(case.source, seed=1)
        assert (info.value.message, info.value.span.line, info.value.span.col, info.value.hint) == \
            (case.message, case.line, case.col, case.hint), case.id
        assert info.value.render().startswith(f"<script>:{case.line}:{case.col}: "), case.id


# ---------------------------------------------------------------------------------------------
# The `mech` command
# ---------------------------------------------------------------------------------------------

def mech_process(argv: list[str], cwd: Path) -> subprocess.Popen:
    """The real `mech` command in a new process."""
    env = {k: v for k, v in os.environ.items() if k != "MECH_DEBUG"}
    return subprocess.Popen([MECH, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=cwd)


# A few cases also go through the real `mech` command, to show the forked `main` behaves as it does.
REAL_PROCESS_CASES = ("unknown_name_did_you_mean", "check_error_in_used_module", "table_without_matching_entry")


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """(case id, "run"/"check") -> Ran through `main`; (case id, command, "process") -> Ran through
    the real `mech`; and case id -> script path."""
    root = tmp_path_factory.mktemp("script_errors")
    scripts = {case.id: write_case(root, case) for case in CASES}
    argvs = {(case.id, command): [command, str(scripts[case.id])] + (["--seed", "1"] if command == "run" else [])
             for case in CASES for command in ("run", "check")}
    procs = {key + ("process",): mech_process(argv, root) for key, argv in argvs.items()
             if key[0] in REAL_PROCESS_CASES}
    results = {key: mech_forked(argv, root) for key, argv in argvs.items()}
    for key, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        results[key] = Ran(proc.returncode, out, err)
    return results, scripts


def _source_line(case: Case, script: Path) -> str:
    text = case.source if case.file == "main.mech" else case.modules[case.file]
    return text.split("\n")[case.line - 1]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cli_error(case, cli):
    results, scripts = cli
    script = scripts[case.id]
    commands = ("run", "check") if case.when == "check" else ("run",)
    for command in commands:
        ran = results[case.id, command]
        assert ran.code == 1, (command, ran)
        assert "Traceback" not in ran.err, (command, ran)
        lines = ran.err.splitlines()
        head = f"{error_file(case, script)}:{case.line}:{case.col}: {expected_message(case, script)}"
        assert lines[0] == head, (command, ran)
        assert lines[1] == "  " + _source_line(case, script), (command, ran)
        caret = lines[2]
        assert caret.startswith("  " + " " * (case.col - 1) + "^"), (command, ran)
        assert set(caret.strip()) <= {"^", "~"}, (command, ran)
        if case.hint is not None:
            assert lines[3] == f"  hint: {case.hint}", (command, ran)
            assert len(lines) == 4, (command, ran)
        else:
            assert len(lines) == 3, (command, ran)
    assert results[case.id, "run"].out == case.stdout
    if case.when == "check":
        assert results[case.id, "check"].out == ""  # check shows nothing the script says
    else:
        ran = results[case.id, "check"]
        assert (ran.code, ran.out, ran.err) == (0, f"{script}: ok\n", ""), ran


@pytest.mark.parametrize("case_id", REAL_PROCESS_CASES)
@pytest.mark.parametrize("command", ["run", "check"])
def test_real_mech_command_agrees_with_main(case_id, command, cli):
    results, _ = cli
    real, forked = results[case_id, command, "process"], results[case_id, command]
    assert (real.code, real.out, real.err) == (forked.code, forked.out, forked.err)


# ---------------------------------------------------------------------------------------------
# Known bugs
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x0c"])
def test_quoted_line_after_an_odd_line_separator(separator):
    with pytest.raises(MechError) as info:
        mechscript.check(f"# a{separator}b\nsay nope\n")
    assert (info.value.span.line, info.value.span.col) == (2, 5)
    assert info.value.render().splitlines()[1] == "  say nope"


def test_unreadable_script_is_named_by_its_file(tmp_path):
    script = tmp_path / "latin1.mech"
    script.write_bytes(b'say "caf\xe9"\n')
    ran = mech_forked(["run", str(script)], tmp_path)
    assert ran.code == 1 and "Traceback" not in ran.err, ran
    assert ran.err.startswith(f"{script}:"), ran


def test_a_crlf_line_that_ends_too_early_has_its_caret_just_after_the_line():
    # The \r of a CRLF line break was counted as a column of the line, which is shown without it:
    # the caret stood one past the line's end (found by test_program_properties' generated programs).
    with pytest.raises(MechError) as caught:
        mechscript.check("kind Mech {\r\n  hp \r\n}\r\n")
    assert caught.value.render() == "<script>:2:6: the line ends too early\n    hp \n       ^\n  hint: expected a name"
