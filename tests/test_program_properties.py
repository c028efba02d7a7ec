"""Property-based tests (hypothesis) of whole scripts: whatever the text, mechscript either runs it
or stops with a MechError, never another exception, and always within its limits.

Generated inputs:
- programs drawn from the grammar itself (hypothesis.extra.lark, start `program`), with explicit
  strategies for the terminals hypothesis cannot draw from their regexes (lookarounds, `_NL`) and
  names from a small pool, so that programs sometimes make sense;
- programs built statement by statement from a prelude that defines names, functions and a table,
  so that most of them pass the checker and really run (loops, calls, tables, records, dice);
- the example scripts (tests/scripts, examples/ and the wrong scripts of test_script_errors.py),
  mutated: characters and lines deleted, doubled, swapped, tokens inserted;
- arbitrary text, through `mechscript.check`.

Every run uses small limits and a fixed seed. Checked for each: only MechError escapes; the error
renders as `FILE:LINE:COL: message` quoting its line; when `check` fails (but for what it finds from
the types, which a run meets only if it gets there), running fails with the same error, before the
first die; the same seed gives the same log or the same error; nothing is said
past `output_lines`; a hang becomes a failure (an alarm, generous: not a speed check).

The example counts are kept small so the module runs in well under 30 s; set
MECH_PROPERTY_EXAMPLES=N to run N examples of each (the scratch runs used several thousand).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from importlib import resources
from pathlib import Path

import lark
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

import mechscript
from mechscript import Limits, MechError
from mechscript.checker.problems import TypeProblem
from mechscript.errors import printable
from support import PBEM, deadline, dice_token_strategies

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

SMALL = Limits(steps=2000, loop_iterations=200, recursion=30, dice_per_roll=20, total_dice=200, list_size=200,
               string_size=2000, output_lines=50, explosion_depth=10)
SEED = 12345
SECONDS = 120  # a guard against a hang, not a speed check: examples take milliseconds

EXAMPLES = int(os.environ.get("MECH_PROPERTY_EXAMPLES", "0"))


def examples(n: int):
    return settings(max_examples=EXAMPLES or n, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A folder with the modules scripts may use: pbem, and copies of tests/scripts and examples/."""
    root = tmp_path_factory.mktemp("programs")
    (root / "pbem.mech").write_text(PBEM, encoding="utf-8")
    for source in (HERE / "scripts", REPO / "examples"):
        if source.is_dir():
            shutil.copytree(source, root / source.name)
    for module in (HERE / "scripts").glob("*.mech"):
        shutil.copy(module, root / module.name)
    return root


# ---------------------------------------------------------------------------------------------
# One script, every property
# ---------------------------------------------------------------------------------------------

# Characters str.splitlines() breaks lines at, besides \n and \r\n: the quoted line of an error is
# only compared for text without them (a known bug, pinned in test_script_errors.py).
_ODD_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def assert_renders(error: MechError, source: str, filename: str) -> None:
    text = error.render()
    first = text.split("\n")[0]
    if error.span is None:
        return
    if error.filename != filename:  # an error inside a used module
        assert first.startswith(f"{error.filename}:{error.span.line}:{error.span.col}: "), text
        return
    assert first == f"{filename}:{error.span.line}:{error.span.col}: {printable(error.message, chr(10))}", text
    if not _ODD_LINE_BREAKS.search(source):
        lines = source.split("\n")
        assert 1 <= error.span.line <= len(lines), (error.span, text)
        line = printable(lines[error.span.line - 1].rstrip("\r"))  # control characters shown escaped
        shown = text.split("\n")[1][2:]
        if len(line) > 100:  # a long line is shown as a window around the spot, between "…"
            assert shown.strip("…") in line, text
        else:
            assert shown == line, text
        assert 1 <= error.span.col <= len(lines[error.span.line - 1]) + 1, (error.span, text)


def outcome(script: Path, limits: Limits = SMALL):
    """("ok", log) or ("error", message, line, col, log said before it)."""
    try:
        with deadline(SECONDS):
            result = mechscript.run(str(script), seed=SEED, limits=limits)
    except MechError as error:
        assert_renders(error, script.read_text(encoding="utf-8"), str(script))
        log = getattr(error, "log", None) or []
        assert len(log) <= limits.output_lines
        span = (error.span.line, error.span.col) if error.span else None
        return ("error", error.message, span, list(log))
    assert len(result.log) <= limits.output_lines
    return ("ok", result.log)


def check_outcome(script: Path, limits: Limits = SMALL):
    try:
        with deadline(SECONDS):
            mechscript.check(str(script), limits=limits)
    except MechError as error:
        assert_renders(error, script.read_text(encoding="utf-8"), str(script))
        found = "types" if isinstance(error, TypeProblem) else "error"
        return (found, error.message, (error.span.line, error.span.col) if error.span else None)
    return ("ok",)


def exercise(folder: Path, source: str, name: str = "generated.mech") -> tuple:
    """Check and run `source` (twice); every property of the module docstring."""
    script = folder / name
    script.write_text(source, encoding="utf-8")
    checked = check_outcome(script)
    first = outcome(script)
    if checked[0] == "error":
        # check's error is exactly the error running stops with, before the first die (what the
        # script said before it aside); one found from the types is met only if the run gets there
        assert first[:3] == checked, (source, checked, first)
        return first
    assert outcome(script) == first, source  # the same seed, the same run
    return first


# ---------------------------------------------------------------------------------------------
# Programs from the grammar
# ---------------------------------------------------------------------------------------------

GRAMMAR = resources.files("mechscript.grammar").joinpath("mechscript.lark").read_text()
LARK = lark.Lark(GRAMMAR, parser="lalr", lexer="contextual", start="program")
TERMINALS, _, IGNORED = LARK.grammar.compile(["program"], ())

# A small pool of names: variables, the module, its rules, builtins, constants, roll fields.
NAMES = ["x", "y", "hp", "n", "f", "g", "t", "l", "r", "s", "pbem", "to_hit", "bonus", "hits", "damage",
         "len", "push", "range", "floor", "max", "min", "sum", "sorted", "contains", "roll", "pool", "abs",
         "true", "false", "none", "explode", "total", "faces", "kept", "dodge"]


def _grammar_strategies() -> dict:
    small, dice_tokens = dice_token_strategies(max_half=12)
    spaced = lambda *words: st.sampled_from([f" {w} " for w in words])
    strategies = {
        # lookarounds: drawn by hand, always valid
        **dice_tokens,
        "_NL": st.sampled_from(["\n", "\n    ", "\n\n", "\r\n"]),
        # small values, and names from the pool
        "NUMBER": st.one_of(small, st.sampled_from(["0", "1.5", "0.5", "100", "1000000", "3"])),
        "NAME": st.sampled_from(NAMES),
        "STRING": st.sampled_from(['""', '"hit"', '"hp {hp}"', '"{x + 1}!"', '"a\\n\\{b\\}"', '"{l}"', '"{s}{s}"',
                                   '"{"', '"\\q"', '"{}"', '"{d6}"', '"}"']),
        # operators with spaces, so that tokens never run together into other tokens
        "COMP_OP": spaced("<=", ">=", "==", "!=", "<", ">"),
        "AUG_OP": spaced("+=", "-="),
        "ADD_OP": st.sampled_from([" + ", " - ", "-", "+", " − ", "–"]),  # minus as a document writes it too
        "MUL_OP": spaced("//", "*", "/", "%"),
        "EQUAL": spaced("="),
        "__ANON_0": spaced("=>"),
        # what the lexer ignores
        "COMMENT": st.just(" # note\n"),
        "__IGNORE_1": st.just("\n"),
        "__IGNORE_2": st.sampled_from([" ", "\t"]),
        "__IGNORE_3": st.just(" \\\n"),
    }
    for terminal in TERMINALS:  # keywords, spaced: `let x`, never `letx`
        if isinstance(terminal.pattern, lark.lexer.PatternStr) and terminal.pattern.value.isalpha():
            strategies[terminal.name] = spaced(terminal.pattern.value)
    return strategies


GRAMMAR_PROGRAMS = from_lark(LARK, start="program", explicit=_grammar_strategies())
# Half of them inside a function, so `return` is allowed and `use` is not.
PROGRAMS = st.one_of(GRAMMAR_PROGRAMS,
                     GRAMMAR_PROGRAMS.map(lambda p: "fn main() {\n" + p + "\n}\nsay main()\n"))


@examples(60)  # drawing from the grammar is slow: most draws grow too deep and are thrown away
@given(PROGRAMS)
@example("while true {}")
@example("fn f(n) = f(n + 1)\nsay f(0)")
@example("use pbem\nfn pbem.to_hit(a, b) = true\nsay pbem.to_hit(1, 2)\nsay hits[7]")
def test_grammar_programs_run_or_raise_mecherror(folder, text):
    exercise(folder, text)


# ---------------------------------------------------------------------------------------------
# Programs that mostly make sense
# ---------------------------------------------------------------------------------------------

PRELUDE = """\
let x = 3
let y = 2
let l = [1, 2, 3]
let r = {hp: 10, name: "Punch"}
let hp = 5
let s = "ab"
let n = 0
table t {
    a: 10 => "crit", 5 => "hit", else => "miss"
    b: 1 => 2
}
fn f(a) = a + 1
fn g(a, b) {
    if a > b {
        return a
    }
    return b
}
fn h() = hp
"""

_ATOMS = st.one_of(
    st.integers(-3, 12).map(str),
    st.sampled_from(["1/2", "1.5", "0", "100", "7k3", "2k1", "4.5k2.5", "0k1", "12k5"]),
    st.sampled_from(["d6", "3d6", "2d20kh1", "4d6kh3", "d%", "4dF", "d[1,2,3]", "3d6!", "6d10!c>=8f1", "2d6r1",
                     "3d6mi2", "(1d4)d6", "d(x)", "2d6ro<2", "3d6!p", "5d10!!"]),
    st.sampled_from(["x", "y", "hp", "l", "r", "s", "n", "t", "true", "false", "none", "f", "pbem"]),
    st.sampled_from(['"hit"', '""', '"hp {hp}"', '"{x + 1} dmg"', '"{l}"', '"\\{b\\}"', '"{r.hp}"', '"{r}"']),
    st.sampled_from(["t.a", "t.a[x]", "t.b[1]", "t[3]", "r.hp", "r.name", "l[0]", "l[-1]", "(3d6).faces",
                     "(7k3).kept", "(3d6).total", "(4d6kh3).dropped", "(7k3).notation", "pbem.bonus"]),
)


def _compound(inner):
    calls = [("f", 1), ("g", 2), ("h", 0), ("k", 1), ("floor", 1), ("ceil", 1), ("round", 1), ("abs", 1),
             ("min", 2), ("max", 1), ("len", 1), ("range", 1), ("range", 2), ("sum", 1), ("sorted", 1),
             ("contains", 2), ("push", 2), ("roll", 1), ("pool", 2), ("pbem.to_hit", 2), ("pbem.damage", 1)]
    return st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "<", ">=", "==", "!=", "and", "or"]), inner)
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda e: f"(not {e})"),
        inner.map(lambda e: f"(-{e})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(inner, inner).map(lambda t: f"({{hp: {t[0]}, name: {t[1]}}})"),
        st.tuples(st.sampled_from(calls), st.lists(inner, min_size=3, max_size=3))
        .map(lambda t: f"{t[0][0]}({', '.join(t[1][:t[0][1]])})"),
        st.tuples(inner, inner, inner).map(lambda t: f"(match {t[0]} {{ {t[1]} => {t[2]}; else => 0 }})"),
        st.tuples(inner, inner).map(lambda t: f"(({t[0]})d({t[1]}))"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, st.sampled_from(["hp", "name", "total", "faces", "kept", "rolled", "a"]))
        .map(lambda t: f"({t[0]}).{t[1]}"),
    )


EXPRESSIONS = st.recursive(_ATOMS, _compound, max_leaves=6)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.split("\n"))


def _block(statements):
    return statements.map(lambda ss: "{\n" + "\n".join(_indent(s) for s in ss) + "\n}")


def _statements(depth: int):
    simple = st.one_of(
        st.tuples(st.sampled_from(["u", "v", "w"]), EXPRESSIONS).map(lambda t: f"let {t[0]} = {t[1]}"),
        st.tuples(st.sampled_from(["x", "y", "hp", "l", "r", "s", "n"]), st.sampled_from(["=", "+=", "-="]),
                  EXPRESSIONS).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(["r.hp", "l[0]", "r.name", "l[x]", "pbem.bonus"]), EXPRESSIONS)
        .map(lambda t: f"{t[0]} = {t[1]}"),
        EXPRESSIONS.map(lambda e: f"say {e}"),
        EXPRESSIONS,
        st.tuples(st.sampled_from(["l", "x"]), EXPRESSIONS).map(lambda t: f"push({t[0]}, {t[1]})"),
        st.tuples(st.sampled_from(["k", "m"]), st.sampled_from(["a", "b"]), EXPRESSIONS)
        .map(lambda t: f"fn {t[0]}({t[1]}) = {t[2]}"),
        st.sampled_from(['table tt { 10 => "crit", 5 => "hit", else => "miss" }',
                         'table tt {\n    a: 3 => 1, else => 2\n    b: 1 => "x", 0 => "y"\n}',
                         "return", "return x", "say x > 3", "x = x + 1", "hp -= d6",
                         "if x > 2 { x -= 1 } else { say hp }", "fn pbem.to_hit(a, b) = a > b",
                         "l = l + l", 's = s + s', "x = x * x"]),
    )
    if depth == 0:
        return simple
    body = _block(st.lists(_statements(depth - 1), max_size=3))
    return st.one_of(
        simple, simple,
        st.tuples(EXPRESSIONS, body, st.one_of(st.just(""), body.map(lambda b: " else " + b)))
        .map(lambda t: f"if {t[0]} {t[1]}{t[2]}"),
        st.tuples(st.sampled_from(["true", "x > 0", "n < 5", "hp > 0"]), body).map(lambda t: f"while {t[0]} {t[1]}"),
        st.tuples(EXPRESSIONS, body).map(lambda t: f"repeat {t[0]} {t[1]}"),
        st.tuples(st.sampled_from(["i", "x"]), st.one_of(EXPRESSIONS, st.just("l"), st.just("range(1, 5)")), body)
        .map(lambda t: f"for {t[0]} in {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(["k", "m"]), st.sampled_from(["a", "x"]), body).map(lambda t: f"fn {t[0]}({t[1]}) {t[2]}"),
    )


SENSIBLE = st.tuples(st.sampled_from(["use pbem\n" + PRELUDE]), st.lists(_statements(2), min_size=1, max_size=6)) \
    .map(lambda t: t[0] + "\n".join(t[1]) + "\n")


@examples(100)
@given(SENSIBLE)
def test_sensible_programs_run_or_raise_mecherror(folder, text):
    exercise(folder, text)


# ---------------------------------------------------------------------------------------------
# The example scripts, mutated
# ---------------------------------------------------------------------------------------------

def _seed_scripts() -> list[str]:
    import importlib.util
    spec = importlib.util.spec_from_file_location("_script_error_cases", HERE / "test_script_errors.py")
    cases = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    scripts = [case.source for case in cases.CASES]  # the wrong scripts
    for source in (HERE / "scripts", REPO / "examples"):
        scripts += [path.read_text(encoding="utf-8") for path in sorted(source.glob("*.mech"))]
    return scripts


SEED_SCRIPTS = _seed_scripts()
_TOKENS = ["{", "}", "(", ")", "[", "]", '"', "\n", ";", ",", ".", ":", "=", "=>", " else ", " if ", " let x = ",
           " fn ", " return ", " use pbem\n", " d6", "!", "kh3", " 0", " -", " + ", " * ", " / 0", " true ", "#",
           "\\", "{x}", " match x { ", " say ", " for i in ", " while true ", " repeat 1000000 "]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEED_SCRIPTS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "double", "swap_lines", "drop_line", "cut"]))
        at = draw(st.integers(0, len(text)))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)):]
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(_TOKENS)) + text[at:]
        elif kind == "double":
            end = at + draw(st.integers(1, 20))
            text = text[:end] + text[at:end] + text[end:]
        elif kind == "cut":
            text = text[:at]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "swap_lines":
                lines[i], lines[j] = lines[j], lines[i]
            else:
                del lines[i]
            text = "\n".join(lines)
    return text


@examples(300)
@given(mutated())
def test_mutated_example_scripts_run_or_raise_mecherror(folder, text):
    exercise(folder / "examples" if (folder / "examples").is_dir() else folder, text)


def test_unmutated_seed_scripts(folder):
    for text in SEED_SCRIPTS:
        exercise(folder / "examples" if (folder / "examples").is_dir() else folder, text)


# ---------------------------------------------------------------------------------------------
# Arbitrary text
# ---------------------------------------------------------------------------------------------

_PIECES = list('say let fn x=(){}[]"\\\n;:,.+-*/%<>!#d6k3 \t\r') + \
    ["if ", "else", "elif ", "match ", "=>", "table t ", "use ", "{x}", "1d6", "7k3", "\u2028", "é", "\0"]


@examples(500)
@given(st.one_of(st.text(max_size=100), st.lists(st.sampled_from(_PIECES), max_size=50).map("".join)))
def test_arbitrary_text_checks_or_raises_mecherror(text):
    if text.endswith(".mech") and "\n" not in text:
        text += "\n"  # a one-line text ending in .mech would be taken for a file name
    try:
        with deadline(SECONDS):
            mechscript.check(text, limits=SMALL)
    except MechError as error:
        assert_renders(error, text, "<script>")
