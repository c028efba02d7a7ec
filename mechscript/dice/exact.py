"""Exact probability distributions of dice.

A distribution is a plain ``dict`` mapping outcome -> probability, where
probabilities are ``fractions.Fraction`` and sum to exactly 1.  Every function
here is pure: it returns a new dict (with keys in ascending order) and never
mutates its arguments.  Outcomes with probability 0 are never stored.

This is the seed of an exact-odds engine; it is also the reference that the
statistical tests compare sampled rolls against, so it favours being obviously
correct over being clever.
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort
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

    Dynamic programme over the dice: the state after each die is the sorted
    tuple of the (up to) k highest values seen so far, which is all the future
    needs to know.  That costs about (#states * #faces) steps per die, with
    #states <= C(faces + k - 1, k), instead of faces**n for brute force.

    Two things keep it fast with ~40 faces (e.g. 7 compounding d10s keep 3):
    * Arithmetic is on integer weights over a common denominator D (so the
      weight of a state after m dice is an int over D**m), converted to
      Fractions only once at the end -- Fraction arithmetic in the inner loop
      would be ~50x slower because of the gcd on every operation.
    * Once k values are held, every face <= the lowest kept value leaves the
      state unchanged, so those faces are handled as one lump via a prefix
      sum instead of one by one.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if k <= 0 or n == 0:
        return {0: Fraction(1)}
    if k >= n:
        total = die_dist
        for _ in range(n - 1):
            total = add(total, die_dist)
        return _finish(dict(total))

    values, weights, denom = _integer_weights(die_dist)
    # at_most[j] = total weight of values[:j]
    at_most = [0]
    for w in weights:
        at_most.append(at_most[-1] + w)
    faces = list(zip(values, weights))

    states: dict[tuple, int] = {(): 1}
    for _ in range(n):
        nxt: dict[tuple, int] = defaultdict(int)
        for state, sw in states.items():
            if len(state) < k:
                # Still filling up: every face is kept.
                for v, w in faces:
                    kept = list(state)
                    insort(kept, v)
                    nxt[tuple(kept)] += sw * w
            else:
                lowest = state[0]
                cut = bisect_right(values, lowest)
                # Faces <= lowest kept value are discarded: state unchanged.
                nxt[state] += sw * at_most[cut]
                # Larger faces push out the lowest kept value.
                rest = state[1:]
                for v, w in faces[cut:]:
                    kept = list(rest)
                    insort(kept, v)
                    nxt[tuple(kept)] += sw * w
        states = nxt

    sums: dict[Outcome, int] = defaultdict(int)
    for state, sw in states.items():
        sums[sum(state)] += sw
    scale = denom ** n
    return _finish({s: Fraction(w, scale) for s, w in sums.items()})


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
