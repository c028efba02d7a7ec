"""Sampled rolls against their exact distributions (issue 7): the sampling engine and the exact
engine agree. Fixed seeds; a chi-square statistic with a stated tolerance."""

from __future__ import annotations

import math

import pytest

import mechscript

SAMPLES = 20_000


def chi_square(expr_sampled: str, expr_exact: str, seed: int) -> tuple[float, int]:
    """The chi-square statistic of SAMPLES rolls of one expression against the exact distribution
    of another, outcomes merged from the tails inwards until each bin expects 5 rolls or more;
    and its degrees of freedom."""
    counts = dict(mechscript.prob(expr_sampled, samples=SAMPLES, seed=seed).dist.weights)
    exact = mechscript.prob(expr_exact).distribution
    bins, expected, observed = [], 0.0, 0
    for outcome, p in exact:
        expected += float(p) * SAMPLES
        observed += counts.pop(outcome, 0)
        if expected >= 5:
            bins.append([expected, observed])
            expected, observed = 0.0, 0
    bins[-1][0] += expected
    bins[-1][1] += observed
    assert not counts, f"outcomes the exact distribution does not have: {counts}"
    return sum((o - e) ** 2 / e for e, o in bins), len(bins) - 1


def tolerance(df: int) -> float:
    # about the 1-in-100,000 upper tail of chi-square for these df (mean df, sd sqrt(2 df))
    return df + 6 * math.sqrt(2 * df)


@pytest.mark.parametrize("expr,seed", [
    ("2d6", 1), ("4d6kh3", 2), ("7k3", 3), ("6d10!c>=8f1", 4), ("3d6r1kh2", 5), ("2.5k1.5 + d6", 6),
    ("d10 + 6 > d10 + 4", 7), ("4dF + d[1,1,2,3,5,8]", 8), ("(1d4)d6!", 9), ("12k5", 10),
])
def test_sampled_frequencies_match_the_exact_distribution(expr, seed):
    statistic, df = chi_square(expr, expr, seed)
    assert df >= 1
    assert statistic < tolerance(df), (expr, statistic, df)


def test_the_check_tells_a_wrong_distribution():
    # the same rolls against a neighbouring distribution fail the same tolerance: the test has power
    statistic, df = chi_square("7k3", "8k3", 3)
    assert statistic > tolerance(df)


# ---- rerolls: the exact odds leave out what sampling fails on (issue 22, item 7) ----

@pytest.mark.parametrize("expr, rerolls", [("1d20r<20", 30), ("3d6r<6", 8)])
def test_the_rate_of_rolls_failing_the_rerolls_limit_is_the_mass_prob_leaves_out(expr, rerolls):
    # `1d20r<20` rolled 20,000 times failed 116 times on the bound of explosions (100 rounds),
    # while `mech prob` called the same expression exact with nothing left out. Now rerolls have
    # their own bound, and prob leaves out exactly the chance of passing it: a die fails when its
    # roll and all its `rerolls` rerolls match, (19/20)^31 = 20.4% here; with 3 dice, when any does.
    limits = mechscript.Limits(rerolls=rerolls)
    truncated = mechscript.prob(expr, limits=limits).truncated
    n = 4_000
    failed = 0
    for seed in range(n):
        try:
            mechscript.roll(expr, seed=seed, limits=limits)
        except mechscript.MechError as error:
            assert "the limit `rerolls`" in error.message
            failed += 1
    spread = math.sqrt(truncated * (1 - truncated) / n)
    assert 0.05 < truncated < 0.5
    assert abs(failed / n - truncated) < 4 * spread, (failed, float(truncated))


def test_an_ordinary_reroll_never_fails_and_leaves_out_almost_nothing():
    assert mechscript.prob("1d20r<20").truncated < 1e-12
    for seed in range(2_000):
        assert mechscript.roll("1d20r<20", seed=seed).total == 20
