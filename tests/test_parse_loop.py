"""parse_loop.py runs lark's LALR parse in one loop of its own; it must give what lark's own parse
gives: the same AST for every text that parses, and for one that does not, the same error (the
loop gives up, and lark's parse says it). Each text is parsed both ways: with the loop, and with the
loop made to give up at once, which leaves the whole parse to lark."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mechscript.errors import MechError
from mechscript.interpreter import parse_loop, parser
from mechscript.limits import Limits
from test_program_properties import GRAMMAR_PROGRAMS

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("mechscript/stdlib/**/*.mech"), *ROOT.glob("examples/**/*.mech"),
                  *ROOT.glob("tests/scripts/**/*.mech")])


def outcome(text: str, start: str = "program", limits: Limits = Limits()):
    """The AST of `text`, or its error as the user reads it (not read from the parse cache)."""
    try:
        return parser._parse(text, "t.mech", limits, start)
    except MechError as error:
        return str(error)


def by_lark_alone(text: str, start: str = "program", limits: Limits = Limits()):
    def give_up(*args):
        raise parse_loop.NotPlain
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parse_loop, "parse", give_up)
        return outcome(text, start, limits)


def test_the_sources_are_many_and_the_loop_runs_with_this_lark():
    assert len(SOURCES) > 20
    # with another lark's insides the loop stands aside (every text parsed by lark), and the tests
    # here would compare lark with itself
    assert parse_loop._tables(parser.lark_parser()) is not None


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_each_source_parses_to_the_same_ast(path):
    text = path.read_text(encoding="utf-8")
    ast = outcome(text)
    assert not isinstance(ast, str), ast
    assert ast == by_lark_alone(text)


@pytest.mark.parametrize("text", [
    "", "\n\n", "# a comment only\n", "say 1 +", "say (1 +\n 2)\n", "say [1,\n 2,\n]\n", "say )", "let x = 3d\n",
    "say \"a {1 +} b\"\n", "say \"not closed\n", "fn f(x) = x\nsay f(1) $\n", "if true {\n say 1\n",
    "say 1 < 2 < 3\n", "say 3 d6\n", "say 2D6\n", "say 3d6 kh1\n", "say " + "(" * 300 + "1" + ")" * 300 + "\n",
    "say " + "+".join(["1"] * 2000) + "\n", "say \"{" + "-" * 400 + "1}\"\n", "say 1\x00\n", "kind K {\n stat a\n}\n",
])
def test_each_error_is_the_same(text):
    assert outcome(text) == by_lark_alone(text)


@pytest.mark.parametrize("text", ["3d6 + 2", "3d6 +", "(", "2d", "", "\"a\" + ", "1 2"])
def test_expressions_too(text):
    assert outcome(text, "expression") == by_lark_alone(text, "expression")


def test_a_lower_nesting_limit_stops_both_at_the_same_place():
    text = "say " + "(" * 30 + "1" + ")" * 30 + " +\n"
    limits = Limits(nesting=20)
    assert outcome(text, limits=limits) == by_lark_alone(text, limits=limits)
    assert "nested" in outcome(text, limits=limits)


@settings(max_examples=150, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(GRAMMAR_PROGRAMS, st.integers(0, 10**6), st.sampled_from(["", "(", ")", "\n", "+", "{", "}", "x", "\"", "3d"]))
@example("say 1\n", 0, "")
def test_generated_programs_and_their_mistakes(program, at, inserted):
    at %= len(program) + 1
    text = program[:at] + inserted + program[at:]
    assert outcome(text) == by_lark_alone(text)
