"""Sampled rolls against exact distributions, with a fixed seed and a stated tolerance.

Tolerance: the Kolmogorov-Smirnov distance between the sampled and the exact CDF must stay under
1.63 / sqrt(N), the 1% critical value: a fair engine passes, and with a fixed seed it passes the same
way every time. A biased engine (no explosions, keeping the wrong dice, an off-by-one face) fails by
far more. The means must also agree within 4 standard errors.
"""

import math

import pytest

import mechscript
import exact_reference as exact
from mechscript.dice.faces import RandomFaces

SAMPLES = 40_000
SEED = 20261129


def sample(expr: str) -> list:
    compiled = mechscript.compile_roll(expr)
    source = RandomFaces(SEED)
    return [compiled.total(source) for _ in range(SAMPLES)]


def ks_distance(totals: list, dist: dict) -> float:
    totals = sorted(totals)
    worst, i = 0.0, 0
    for outcome, cumulative in exact.cdf(dist):
        while i < len(totals) and totals[i] <= outcome:
            i += 1
        worst = max(worst, abs(i / len(totals) - float(cumulative)))
    return worst


CASES = {
    "4d6kh3": lambda: exact.keep_highest(exact.die(6), 4, 3),
    "7k3": lambda: exact.keep_highest(exact.compounding_d10(6), 7, 3),
    "3d6": lambda: exact.keep_highest(exact.die(6), 3, 3),
}


@pytest.mark.parametrize("expr", sorted(CASES))
def test_sampled_distribution_matches_exact(expr):
    dist = CASES[expr]()
    totals = sample(expr)
    assert ks_distance(totals, dist) < 1.63 / math.sqrt(SAMPLES)
    sampled_mean = sum(totals) / SAMPLES
    standard_error = exact.sd(dist) / math.sqrt(SAMPLES)
    assert abs(sampled_mean - float(exact.mean(dist))) < 4 * standard_error


def test_the_tolerance_catches_a_biased_engine():
    # 7k3 without explosions is a different distribution; the test above must be able to tell.
    dist = exact.keep_highest(exact.compounding_d10(6), 7, 3)
    totals = sample("roll(7k3, explode: false)")
    assert ks_distance(totals, dist) > 1.63 / math.sqrt(SAMPLES)
