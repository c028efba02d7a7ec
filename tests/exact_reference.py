"""Exact probability distributions of dice: the tests' reference (it was mechscript/dice/exact.py).

A distribution is a plain ``dict`` mapping outcome -> probability, where
probabilities are ``fractions.Fraction`` and sum to exactly 1.  Every function
here is pure: it returns a new dict (with keys in ascending order) and never
mutates its arguments.  Outcomes with probability 0 are never stored.

The exact-odds engine of `mech prob` is mechscript/dice/distribution.py. This module is the
small reference that tests compare sampled rolls (and distribution.py) against:
a different programme (Fractions throughout, the tail lumped onto one value),
so it favours being obviously correct over being clever.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

Outcome = int | Fraction
Dist = dict[Outcome, Fraction]

__all__ = [
    "Dist",
    "die",
    "constant",
    "compounding_d10",
    "add",
    "keep_highest",
    "keep_lowest",
    "mean",
    "variance",
    "sd",
    "cdf",
]


# --------------------------------------------------------------------------
# Constructors
# --------------------------------------------------------------------------

def constant(value: Outcome) -> Dist:
    """The distribution that is always ``value``."""
    return {value: Fraction(1)}


def die(sides: int) -> Dist:
    """A fair die: uniform over 1..sides."""
    if sides < 1:
        raise ValueError(f"a die needs at least 1 side, got {sides}")
    p = Fraction(1, sides)
    return {face: p for face in range(1, sides + 1)}


def compounding_d10(max_tens: int = 4, explode: bool = True) -> Dist:
    """The 7th Sea roll-and-keep d10.

    Roll a d10; on a 10, add 10 and roll again, as often as 10s keep coming
    (10 then 4 = 14; 10, 10, 3 = 23).  So the value 10*j + r (r in 1..9) needs
    j tens then an r: probability 10**-(j+1).  Multiples of 10 are never a
    final result (P(10) = 0).

    The true support is infinite, so it is truncated after ``max_tens``
    consecutive 10s.  The lost tail -- rolling a 10 again after ``max_tens``
    tens, probability 10**-(max_tens+1) -- is lumped onto the single value
    10*(max_tens+1), as if that last 10 simply did not explode.  That is
    exactly a house rule "at most max_tens explosions", the result still sums
    to exactly 1, and the value 10*(max_tens+1) should be read as "this or
    more" (it slightly understates the tail, never the body).  With
    max_tens=4 the lumped mass is 1/100000.

    ``max_tens=0`` (or ``explode=False``) is a plain d10.
    """
    if not explode:
        return die(10)
    if max_tens < 0:
        raise ValueError(f"max_tens must be >= 0, got {max_tens}")
    dist: Dist = {}
    for tens in range(max_tens + 1):
        p = Fraction(1, 10 ** (tens + 1))
        for r in range(1, 10):
            dist[10 * tens + r] = p
    dist[10 * (max_tens + 1)] = Fraction(1, 10 ** (max_tens + 1))  # lumped tail
    return dict(sorted(dist.items()))


# --------------------------------------------------------------------------
# Combinators
# --------------------------------------------------------------------------

def add(a: Dist, b: Dist) -> Dist:
    """Distribution of X + Y for independent X ~ a, Y ~ b (convolution)."""
    out: dict[Outcome, Fraction] = defaultdict(Fraction)
    for x, px in a.items():
        for y, py in b.items():
            out[x + y] += px * py
    return _finish(out)


def keep_highest(die_dist: Dist, n: int, k: int) -> Dist:
    """Sum of the k highest of n independent dice, each distributed as die_dist.

    k >= n keeps every die (plain sum); k <= 0 (or n == 0) gives {0: 1}.

    Dynamic programme over face values, highest first, deciding how many of
    the n dice show each face (c dice on a face of weight w: comb(free, c) *
    w**c ways).  Because higher faces are placed first, the first k dice
    placed are exactly the kept ones, so the state is just (dice placed, sum
    kept so far), and once k dice are placed the kept sum is final and the
    remaining dice only have to show lower faces: (weight below)**remaining.
    Cost is about faces * k * (#distinct partial sums) * n steps, for any k
    (7 compounding d10s keep 3: a few ms; 10 keep 9: well under 1 s).

    (A DP over dice with the sorted tuple of the k highest values as state is
    the obvious alternative, but it has up to C(faces + k - 1, k) states:
    fine for keep 3, hopeless for 10 keep 5+ with ~40 faces.  The tests use it
    as an independent check.)

    Probabilities are handled as integer weights over a common denominator D
    (a result is an int over D**n), converted to Fractions once at the end:
    Fraction arithmetic in the inner loop would be far slower (a gcd per step).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if k <= 0 or n == 0:
        return {0: Fraction(1)}
    k = min(k, n)

    values, weights, denom = _integer_weights(die_dist)
    below = sum(weights)  # weight of faces lower than the current one (after update)
    # partial[(placed, kept_sum)]: weight of the ways to place `placed` < k dice
    # on the faces swept so far.
    partial: dict[tuple[int, Outcome], int] = {(0, 0): 1}
    result: dict[Outcome, int] = defaultdict(int)
    for v, w in zip(reversed(values), reversed(weights)):
        below -= w
        nxt: dict[tuple[int, Outcome], int] = defaultdict(int)
        for (placed, kept_sum), pw in partial.items():
            free = n - placed
            w_pow = 1  # w**c
            for c in range(free + 1):
                ways = pw * math.comb(free, c) * w_pow
                if placed + c >= k:
                    # Kept set complete (ties at v: only k - placed of them
                    # count); the other free - c dice must show lower faces.
                    rest = free - c
                    if rest == 0 or below:
                        result[kept_sum + (k - placed) * v] += ways * below**rest
                else:
                    nxt[(placed + c, kept_sum + c * v)] += ways
                w_pow *= w
        partial = nxt
    # Anything still in `partial` placed fewer than k <= n dice in total: not
    # a complete roll, so it is dropped.

    scale = denom**n
    return _finish({s: Fraction(wt, scale) for s, wt in result.items()})


def keep_lowest(die_dist: Dist, n: int, k: int) -> Dist:
    """Sum of the k lowest of n dice: keep_highest on the negated die, negated."""
    negated = {-x: p for x, p in die_dist.items()}
    return _finish({-x: p for x, p in keep_highest(negated, n, k).items()})


# --------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------

def mean(dist: Dist) -> Fraction:
    """Exact expected value."""
    return sum((Fraction(x) * p for x, p in dist.items()), Fraction(0))


def variance(dist: Dist) -> Fraction:
    """Exact variance, E[(X - mean)^2]."""
    mu = mean(dist)
    return sum(((x - mu) ** 2 * p for x, p in dist.items()), Fraction(0))


def sd(dist: Dist) -> float:
    """Standard deviation (a float: the square root is usually irrational)."""
    return math.sqrt(variance(dist))


def cdf(dist: Dist) -> list[tuple[Outcome, Fraction]]:
    """Sorted list of (outcome, P(X <= outcome)); the last entry is exactly 1."""
    out = []
    acc = Fraction(0)
    for x in sorted(dist):
        acc += dist[x]
        out.append((x, acc))
    return out


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def _finish(dist: dict) -> Dist:
    """Drop zero-probability outcomes and sort keys, as every result promises."""
    return {x: Fraction(p) for x, p in sorted(dist.items()) if p != 0}


def _integer_weights(dist: Dist) -> tuple[list[Outcome], list[int], int]:
    """Sorted outcomes, their probabilities as ints over a common denominator D, and D."""
    items = [(x, Fraction(p)) for x, p in sorted(dist.items()) if p != 0]
    if not items:
        raise ValueError("empty distribution")
    if any(p < 0 for _, p in items):
        raise ValueError("negative probability")
    denom = math.lcm(*(p.denominator for _, p in items))
    values = [x for x, _ in items]
    weights = [p.numerator * (denom // p.denominator) for _, p in items]
    return values, weights, denom
