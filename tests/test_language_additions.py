"""`**`, strings inside a string's `{...}`, and `has(x, "name")`: their values and errors on every
evaluator (the closures, in functions too, exact odds, quiet batches) and their types in the
checker."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import mechscript
from mechscript.backend.quiet import QuietFight
from mechscript.checker import types as T
from mechscript.checker.infer import infer, load_modules
from mechscript.interpreter import ast
from mechscript.interpreter.parser import parse_expression, parse_program
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
from mechscript.repl.lexer import grammar_tokens
from mechscript.sim.batch import run_seed
from mechscript.sim.prepared import fight_once


ROOT = Path(__file__).resolve().parent.parent
AMBUSH = (ROOT / "examples" / "pbem_ambush.mech").read_text()
CHARACTERS = AMBUSH[AMBUSH.index("character Punch"):AMBUSH.index("encounter")]
ENCOUNTER = 'encounter "x" {\n side autobots: Punch\n side decepticons: Triggerhappy, Ransack\n' \
            ' until one_side_left or round > 20\n}\n'


def assert_run(text: str, *, error: str | None = None, says: str | None = None) -> None:
    """A seeded, loud run of `text` (as `mech run --seed 1`) stops with `error` (a part of its
    rendered message), or says `says`."""
    from mechscript.dice.faces import RandomFaces
    from mechscript.errors import MechError
    try:
        log = compile_script(text, str(ROOT / "examples" / "t.mech"), ROOT / "examples", Limits()).run(RandomFaces(1)).log
    except MechError as raised:
        assert error is not None and error in raised.render(), raised.render()
        return
    assert error is None, f"no error, said {log}"
    assert says is None or says in "\n".join(log), log


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


def test_power_in_functions():
    assert_run("fn f(x, y) = x ** y + 1\nsay f(2, 10)\nsay f(2/3, -2)\nsay f(27, 1/3)\nsay f(d6, 2)\n"
                "say f(7k3, 1)\n", says="1025")
    assert_run("fn f(x) = x ** (1/2)\nsay f(9)\nsay f(2)\n", error="2 has no exact square root")
    assert_run("fn f(x) = 2 ** x\nsay f(3)\nsay f(20000)\n", error="number_bits")


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


def assert_same_fights(script, runs: int) -> None:
    quiet = QuietFight(script)   # written: no Unsupported
    for index in range(runs):
        seed = run_seed(1, index)
        assert quiet.fight(seed) == fight_once(script, seed), f"run {index} (seed {seed})"


def ambush_with(rules: str):
    return compile_script(f"use pbem\n{rules}\n{CHARACTERS}{ENCOUNTER}", str(ROOT / "examples" / "t.mech"),
                          ROOT / "examples", Limits())


# ---- has ----

KINDS = """\
kind Weapon { stat uses ["gun", "fists"] = "fists" }
kind Robot {
    stat speed 1..10
    derived top = speed * 2
    state hp = 3
    gear weapon: Weapon
}
kind Tank { stat armor 1..5 }
character Punch is Robot { speed 4  weapon Blowpipe { uses "gun" } }
character Brick is Tank { armor 2 }
"""


@pytest.mark.parametrize("expr, value", [
    ('has(Punch, "speed")', "true"),      # a stat
    ('has(Punch, "top")', "true"),        # derived
    ('has(Punch, "hp")', "true"),         # state
    ('has(Punch, "weapon")', "true"),     # a gear slot
    ('has(Punch.weapon[0], "uses")', "true"),
    ('has(Punch, "name")', "true"),       # own fields
    ('has(Punch, "side")', "true"),
    ('has(Punch, "kind")', "true"),
    ('has(Punch, "armor")', "false"),
    ('has(Brick, "armor")', "true"),
    ('has(Brick, "hp")', "false"),
    ('has({hp: 1}, "hp")', "true"),
    ('has({hp: 1}, "HP")', "false"),
    ('has(none, "hp")', "false"),
    ('has(3, "hp")', "false"),
    ('has([1], "hp")', "false"),
    ('has("hp", "hp")', "false"),
    ('has(3d6, "faces")', "true"),
    ('has(3d6, "hp")', "false"),
    ('has(7k3, "notation")', "true"),
    ('has(7k3, "hp")', "false"),
])
def test_has(expr, value):
    assert said(f"{KINDS}say {expr}") == [value]


def test_has_reads_tables_modules_and_encounters():
    text = 'table chart { routine: 1 => "a" }\nsay has(chart, "routine")\nsay has(chart, "hard")\n' \
           'use duel\nsay has(duel, "attack")\nsay has(duel, "nope")\n'
    assert said(text, module_path=[ROOT / "examples"]) == ["true", "false", "true", "false"]


def test_has_guards_a_field_in_a_rule_for_characters_of_several_kinds():
    text = KINDS + 'fn speed_of(c) {\n    if has(c, "speed") { return c.speed }\n    return 0\n}\n' \
                   'say speed_of(Punch) + speed_of(Brick)\n'
    assert said(text) == ["4"]


@pytest.mark.parametrize("text, message", [
    ('say has({hp: 1}, 3)', "<script>:1:18: `has` takes the field's name as a string, not a number"),
    ('say has({hp: 1})', "<script>:1:5: `has` takes 2 arguments, not 1"),
])
def test_has_errors(text, message):
    assert error_of(text).startswith(message)


def test_has_in_functions():
    assert_run(KINDS + 'fn f(c, name) = has(c, name)\nsay [f(Punch, "hp"), f(Brick, "hp"), f(none, "x")]\n'
                'say f(Punch, 1)\n', error="`has` takes the field's name as a string")


def test_has_type_in_the_checker():
    types, program = typed('let r = {hp: 1}\nlet a = has(r, "hp")\n')
    found = {node.name: types.of(node.value) for node in program.statements if type(node) is ast.Let}
    assert found["a"] == T.T_BOOL


def test_a_rule_with_has_is_written_for_quiet_batches_and_fights_the_same():
    assert_same_fights(ambush_with('fn pbem.damage_power(att, weapon) {\n'
                                   '    if has(att, "firepower") and not has(att, "shield") { return att.firepower + 1 }\n'
                                   '    return 0\n}'), 100)


# ---- strings inside a string's {...} ----

@pytest.mark.parametrize("text, value", [
    ('let n = "Punch"\nsay "{n + " the brave"}!"', "Punch the brave!"),
    ('say "{lower("HIT")} and {len("abc")}{len("de")}"', "hit and 32"),
    ('say "{"{1 + 1}" + "x"}"', "2x"),                               # a string in braces interpolates too
    ('say "{lower("A \\"Q\\" \\{B\\}")}"', 'a "q" {b}'),              # its escapes
    ('say "{lower("}")}"'.replace('"}"', '"\\}"'), "}"),
    ('say "a \\{ {1} \\}"', "a { 1 }"),                             # braces written as before
    ('say "{1}" + "{2}"', "12"),                                   # two strings, as before
])
def test_strings_inside_interpolation(text, value):
    assert said(text) == [value]


@pytest.mark.parametrize("text, message", [
    # an error inside the inner string's own `{...}` is placed in the line
    ('say "{"{1 +}" + "x"}"', "<script>:1:12: the input ends too early"),
    ('say "{lower(1 + "a")}"', "<script>:1:13: cannot add a number and a string"),
    # `"x {" + c + "}"` would read as one string holding ` + c + `: refused, with the way to write braces
    ('let c = 1\nsay "x {" + c + "}"', "<script>:2:8: this `{...}` in a string holds nothing but a string"),
    ('say "a { b"', "<script>:1:8: `{` in a string opens an expression that is never closed"),
    ('say "{}"', "<script>:1:6: empty `{}` in a string"),
    ('say "} x"', "<script>:1:6: `}` in a string without its `{`"),
    ('say "{ {a: 1}.a }"', "<script>:1:13: a `{` is never closed"),    # no braces inside, as before
])
def test_string_interpolation_errors(text, message):
    assert error_of(text).startswith(message)


def test_the_way_to_write_braces_is_in_the_hint():
    assert error_of('let c = 1\nsay "x {" + c + "}"').endswith('hint: a brace in a string is written `\\{` or `\\}`: '
                                                             '"x \\{" + c + "\\}"')


def test_a_string_never_closed_is_refused_at_once():
    # the lexer's pattern backtracks linearly, not exponentially, over many `{...}` never closed by a `"`
    import time
    start = time.process_time()
    for text in ['say "' + "{a}" * 20000, 'say "' + '{"' * 20000, 'say "' + '{x "y" ' * 20000]:
        with pytest.raises(mechscript.MechError):
            mechscript.run(text)
    assert time.process_time() - start < 5


def test_a_string_with_strings_inside_is_one_token_for_the_repl():
    tokens = [(kind, text) for _, kind, text in grammar_tokens('say "{lower("A")}" + "b"')]
    assert ("STRING", '"{lower("A")}"') in tokens and ("STRING", '"b"') in tokens


def test_strings_inside_interpolation_in_functions():
    assert_run('fn f(x) = "{x + " hp"} ({lower("OK")})"\nsay f("3")\nsay f(3)\n', error="cannot add a number")


def test_a_rule_saying_strings_inside_interpolation_fights_the_same_quietly():
    assert_same_fights(ambush_with('fn pbem.damage_power(att, weapon) {\n'
                                   '    say "{att.name + " fires"} ({lower("BANG")})"\n'
                                   '    return att.firepower\n}'), 100)


@pytest.mark.parametrize("rule", [
    "att.firepower ** 2 // 8",
    "(att.firepower * att.firepower) ** (1/2) + (att.skill - 5) ** 2 % 3",
    "att.firepower ** (d6 - 4)",              # a negative power now and then: a fraction
    "floor(att.firepower ** 1000000) % 7",        # past number_bits: the run bails for the closures' error
])
def test_a_rule_with_power_is_written_and_fought_as_the_closures_fight_it(rule):
    script = ambush_with(f"fn pbem.damage_power(att, weapon) = floor({rule})")
    quiet = QuietFight(script)
    assert "power(EV" in quiet.source
    for index in range(40):
        seed = run_seed(1, index)
        fought = quiet.fight(seed)
        if "1000000" in rule:
            assert fought is None   # the batch fights this run whole, on the closures: their error
            with pytest.raises(mechscript.MechError, match="number_bits"):
                fight_once(script, seed)
            break
        assert fought == fight_once(script, seed), f"run {index} (seed {seed})"
