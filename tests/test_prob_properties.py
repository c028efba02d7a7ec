"""Expressions drawn from the grammar (hypothesis.extra.lark) and put together from the notation:
`mechscript.prob` gives a distribution
whose probabilities add up to 1 less what it reports left out, or a MechError; never another
exception, and never a hang (the work is limited)."""

from __future__ import annotations

from fractions import Fraction
from importlib import resources

import lark
from hypothesis import HealthCheck, example, given, settings, strategies as st
from hypothesis.extra.lark import from_lark

import mechscript
from mechscript.dice.distribution import BOUND
from mechscript.numbers import weighted_sum
from support import deadline, dice_token_strategies

GRAMMAR = resources.files("mechscript.grammar").joinpath("mechscript.lark").read_text()
LARK = lark.Lark(GRAMMAR, parser="lalr", lexer="contextual", start="expression")
LIMITS = mechscript.Limits(exact_work=200_000, dice_per_roll=50)
MODIFIERS = ["kh1", "kl2", "dl1", "r1", "ro<2", "mi2", "ma3", "c>=3", "f1", "!", "!!", "!p"]


def _strategies() -> dict:
    small, dice_tokens = dice_token_strategies(max_half=12)
    spaced = lambda *words: st.sampled_from([f" {w} " for w in words])  # noqa: E731
    return {
        **dice_tokens,
        "_NL": st.just(""),
        "NUMBER": st.one_of(small, st.sampled_from(["0", "1.5", "0.5", "3"])),
        "NAME": st.sampled_from(["floor", "ceil", "round", "abs", "min", "max", "roll", "pool", "true", "false",
                                 "none", "explode", "x"]),
        "STRING": st.sampled_from(['""', '"hit"']),
        "COMP_OP": spaced("<=", ">=", "==", "!=", "<", ">"),
        "ADD_OP": st.sampled_from([" + ", " - ", "-", "+", " − ", "–"]),  # minus as a document writes it too
        "MUL_OP": spaced("//", "*", "/", "%"),
        "COMMENT": st.just(" "),
        "__IGNORE_1": st.just(" "),
        "__IGNORE_2": st.just(" "),
        "__IGNORE_3": st.just(" "),
        **{name: spaced(word) for name, word in (("MATCH", "match"), ("AND", "and"), ("OR", "or"), ("NOT", "not"),
                                                 ("ELSE", "else"), ("KIND", "kind"), ("CHARACTER", "character"),
                                                 ("ENCOUNTER", "encounter"))},
    }


def _explicit() -> dict:
    terminals, _, _ = LARK.grammar.compile(["expression"], ())
    names = {t.name for t in terminals}
    strategies = {name: strategy for name, strategy in _strategies().items() if name in names}
    for terminal in terminals:  # keywords, spaced
        if isinstance(terminal.pattern, lark.lexer.PatternStr) and terminal.pattern.value.isalpha():
            strategies[terminal.name] = st.just(f" {terminal.pattern.value} ")
    return strategies


GRAMMAR_EXPRESSIONS = from_lark(LARK, start="expression", explicit=_explicit())

# Expressions of the notation put together directly (drawing from the grammar is slow, and most of
# its draws are not dice): terms, then operators, comparisons and functions over them.
_TERMS = st.one_of(
    st.builds(lambda n, s, mods: f"{n}d{s}{''.join(mods)}", st.integers(1, 4), st.sampled_from(["4", "6", "10", "F"]),
              st.lists(st.sampled_from(MODIFIERS), max_size=2)),
    st.builds(lambda a, b: f"{a}k{b}", st.sampled_from(["0", "1", "2.5", "4", "7", "12"]),
              st.sampled_from(["0", "1", "1.5", "3", "10"])),
    st.integers(-3, 12).map(str),
)
NOTATION = st.recursive(_TERMS, lambda inner: st.one_of(
    st.builds(lambda a, op, b: f"{a} {op} {b}", inner, st.sampled_from(["+", "-", "*", "//", "/", "%", "**"]), inner),
    st.builds(lambda a, op, b: f"({a} {op} {b})", inner, st.sampled_from(["<", ">=", "==", "!="]), inner),
    st.builds(lambda f, a: f"{f}({a})", st.sampled_from(["floor", "abs", "max", "-"]), inner),
    st.builds(lambda a, b: f"min({a}, {b})", inner, inner),
), max_leaves=4)
EXPRESSIONS = st.one_of(GRAMMAR_EXPRESSIONS, NOTATION, NOTATION, NOTATION)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(EXPRESSIONS)
@example("7k3 + 2k0 - 0k1 + 5 > 20")
@example("(1d4)d6!c>=5f1")
@example("d6!>=2")
@example("max([d6, 2d4]) // 2")
def test_prob_gives_a_distribution_or_a_clear_error(text):
    with deadline(60):
        try:
            result = mechscript.prob(text, limits=LIMITS)
        except mechscript.MechError as error:
            assert error.render()  # located, shown without a traceback
            return
    total = sum(p for _, p in result.distribution)
    assert all(p >= 0 for _, p in result.distribution)
    assert total + result.truncated == 1
    if result.truncated > BOUND:  # only where the explosion_depth limit stopped the explosions first
        assert "!" in text or "k" in text or "x" in text
    assert result.to_json()["exact"] == (result.truncated == 0)


@given(st.dictionaries(st.one_of(st.integers(-50, 50), st.fractions(max_denominator=60), st.booleans()),
                       st.integers(1, 10 ** 6), max_size=40), st.sampled_from([1, 2]))
def test_the_weighted_sums_of_the_mean_and_sd_are_the_sums_added_one_by_one(weights, power):
    assert weighted_sum(weights, power) == sum((Fraction(x) ** power * w for x, w in weights.items()), Fraction(0))
