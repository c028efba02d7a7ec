"""`**`: its values and errors on every
evaluator (the closures, the Python of busy functions, exact odds, quiet batches) and their types
in the checker."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import mechscript
from mechscript.backend.quiet import QuietFight
from mechscript.backend.writer import Unsupported
from mechscript.checker import types as T
from mechscript.checker.infer import infer, load_modules
from mechscript.interpreter import ast
from mechscript.interpreter.parser import parse_expression, parse_program
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
from mechscript.repl.lexer import grammar_tokens
from mechscript.sim.batch import prepared_for, run_seed
from mechscript.sim.prepared import fight_once

from test_pycode import assert_same

ROOT = Path(__file__).resolve().parent.parent
AMBUSH = (ROOT / "examples" / "pbem_ambush.mech").read_text()
CHARACTERS = AMBUSH[AMBUSH.index("character Punch"):AMBUSH.index("encounter")]
ENCOUNTER = 'encounter "x" {\n side autobots: Punch\n side decepticons: Triggerhappy, Ransack\n' \
            ' until one_side_left or round > 20\n}\n'


def typed(text: str):
    path = ROOT / "examples" / "<test>.mech"
    program = parse_program(text, str(path))
    return infer(program, load_modules(program, path), path), program


def said(text: str, **options) -> list[str]:
    return mechscript.run(text, seed=1, **options).log


def error_of(text: str, **options) -> str:
    with pytest.raises(mechscript.MechError) as error:
        mechscript.run(text, seed=1, **options)
    return str(error.value)


# ---- ** ----

@pytest.mark.parametrize("expr, value", [
    ("2 ** 10", "1024"),
    ("2 ** -2", "1/4"),
    ("(2/3) ** 3", "8/27"),
    ("(-3) ** 3", "-27"),
    ("0 ** 0", "1"),
    ("4 ** (1/2)", "2"),
    ("8 ** (2/3)", "4"),
    ("8 ** (-2/3)", "1/4"),
    ("(9/4) ** (1/2)", "3/2"),
    ("(-8) ** (1/3)", "-2"),
    ("1 ** (1/1000000)", "1"),
    ("-2 ** 2", "-4"),              # tighter than the sign on its left
    ("2 ** 3 ** 2", "512"),         # right to left
    ("2 * 3 ** 2", "18"),
    ("2 ** 1/2", "1"),              # (2 ** 1) / 2
    ("(1d1) ** 3", "1"),            # a roll by its total
    ("10 ** 3 - 1", "999"),
])
def test_power_values(expr, value):
    assert said(f"say {expr}") == [value]


@pytest.mark.parametrize("expr, message", [
    ("2 ** (1/2)", "2 has no exact square root, so this power is not a fraction"),
    ("(8/3) ** (1/3)", "8/3 has no exact cube root"),
    ("5 ** (1/21)", "5 has no exact 21st root"),
    ("(-4) ** (1/2)", "-4 is negative, so it has no square root"),
    ("0 ** -1", "division by zero"),
    ("2 ** 20000", "the limit `number_bits` is 10000"),
    ("2 ** 10 ** 9", "the limit `number_bits` is 10000"),     # refused before it is worked out
    ("(1/3) ** 7000", "the limit `number_bits` is 10000"),
    ('"a" ** 2', "expected a number here, not a string"),
    ("2 ** [1]", "expected a number here, not a list"),
])
def test_power_errors(expr, message):
    text = error_of(f"say {expr}")
    assert message in text
    assert text.startswith("<script>:1:") and f"\n  say {expr}\n" in text and "^" in text


def test_power_error_points_at_the_power_with_a_hint():
    assert error_of("let x = 1\nsay x + 2 ** (1/2)") == (
        "<script>:2:9: 2 has no exact square root, so this power is not a fraction\n"
        "  say x + 2 ** (1/2)\n"
        "          ^~~~~~~~~~\n"
        "  hint: numbers are exact, so a fractional power needs an exact root: 9 ** (1/2) is 3, "
        "8 ** (2/3) is 4; round a power of whole numbers instead")


def test_the_number_bits_limit_bounds_a_power_and_can_be_raised():
    assert said("say 2 ** 64 == 18446744073709551616", limits=Limits(number_bits=65)) == ["true"]
    assert "number_bits" in error_of("say 2 ** 65", limits=Limits(number_bits=65))
    assert said("say 2 ** 20000 > 0", limits=Limits(number_bits=20001)) == ["true"]


@settings(max_examples=150, deadline=None)
@given(base=st.fractions(min_value=-50, max_value=50, max_denominator=20), exponent=st.integers(-12, 12))
def test_a_whole_power_is_python_s_exact_power(base, exponent):
    text = f"say ({base.numerator}/{base.denominator}) ** ({exponent})"
    if base == 0 and exponent < 0:
        assert "division by zero" in error_of(text)
        return
    expected = base ** exponent
    shown = str(expected.numerator) if expected.denominator == 1 else f"{expected.numerator}/{expected.denominator}"
    assert said(text) == [shown]


@settings(max_examples=150, deadline=None)
@given(root=st.fractions(min_value=0, max_value=30, max_denominator=12), degree=st.integers(1, 7),
       power=st.integers(-4, 4), negative=st.booleans())
def test_a_fractional_power_of_an_exact_power_is_its_root(root, degree, power, negative):
    # (r ** q) ** (p/q) is r ** p; a negative base has odd roots only
    sign = -1 if negative and degree % 2 == 1 else 1
    base = sign * root ** degree
    text = f"say ({base.numerator}/{base.denominator}) ** ({power}/{degree})"
    if root == 0 and power < 0:
        assert "division by zero" in error_of(text)
        return
    # p/q may reduce (2/4 is 1/2): the root is then of a lower degree, odd when the degree is
    expected = (sign * root) ** power
    shown = str(expected.numerator) if expected.denominator == 1 else f"{expected.numerator}/{expected.denominator}"
    assert said(text) == [shown]


def test_power_in_the_grammar():
    assert type(parse_expression("-2 ** 2")) is ast.Unary
    node = parse_expression("2 ** 3 ** 2")
    assert type(node) is ast.Power and type(node.exponent) is ast.Power
    assert type(parse_expression("2 * 3")) is ast.BinOp    # `*` is still `*`
    assert "unexpected `*`" in error_of("say 2 * * 3")
    assert ("POW_OP", "**") in [(kind, text) for _, kind, text in grammar_tokens("2 ** 3")]


def test_power_in_exact_odds():
    assert said("say dist(d4 ** 2)") == ["{1: 1/4, 4: 1/4, 9: 1/4, 16: 1/4}"]
    assert said("say mean(2 ** d4)") == ["15/2"]
    assert said("say prob(d6 ** 2 >= 16)") == ["1/2"]
    assert mechscript.prob("d6 ** 2").distribution[-1][0] == 36
    assert "2 has no exact cube root" in error_of("say dist(d4 ** (1/3))")


def test_power_on_the_command_line(capsys):
    from mechscript import cli
    assert cli.main(["roll", "2 ** 3 + d1", "--seed", "1"]) == 0
    assert capsys.readouterr().out == "2 ** 3 + d1 [1] = 9\n"
    assert cli.main(["roll", "2 ** (1/2)"]) == 1
    assert "2 has no exact square root" in capsys.readouterr().err


def test_power_in_busy_functions_is_the_closures():
    # the Python written for a busy function gives what the closures give, errors included
    assert_same("fn f(x, y) = x ** y + 1\nsay f(2, 10)\nsay f(2/3, -2)\nsay f(27, 1/3)\nsay f(d6, 2)\n"
                "say f(7k3, 1)\n", says="1025")
    assert_same("fn f(x) = x ** (1/2)\nsay f(9)\nsay f(2)\n", error="2 has no exact square root")
    assert_same("fn f(x) = 2 ** x\nsay f(3)\nsay f(20000)\n", error="number_bits")


def test_power_types_in_the_checker():
    # whole only for whole numbers and a literal exponent of 0 or more: the back end trusts it
    types, program = typed("let a = 3 ** 2\nlet b = 3 ** -1\nlet c = (1/2) ** 2\nlet n = 2\nlet d = 3 ** n\n"
                           "let e = 2k1 ** 2\n")
    found = {node.name: types.of(node.value) for node in program.statements if type(node) is ast.Let}
    assert found["a"] == T.T_INT
    assert found["b"] == T.T_NUMBER     # 3 ** -1 is 1/3
    assert found["c"] == T.T_NUMBER
    assert found["d"] == T.T_NUMBER     # the exponent may be negative
    assert found["e"] == T.T_INT        # a pool is rolled to a number


def test_a_rule_with_power_is_fought_by_the_closures_in_a_batch():
    # the quiet back end does not write `**`: the batch runs on the closures, with the same results
    script = compile_script(f"use pbem\nfn pbem.damage_power(att, weapon) = att.firepower ** 2 // 8\n"
                            f"{CHARACTERS}{ENCOUNTER}", str(ROOT / "examples" / "t.mech"), ROOT / "examples", Limits())
    with pytest.raises(Unsupported, match="Power"):
        QuietFight(script)
    prepared = prepared_for(script)
    assert not isinstance(prepared, QuietFight)
    seed = run_seed(1, 0)
    assert fight_once(script, seed) == fight_once(script, seed)

