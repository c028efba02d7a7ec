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
from bisect import insort
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
    tuple of the k highest values seen so far, which is all the future needs
    to know; at most C(faces + k - 1, k) states, instead of faces**n n-tuples
    for brute force.  Three things keep it fast with ~40 faces (e.g. 7
    compounding d10s keep 3, ~0.1 s):

    * Faces are handled by their index in the sorted support, and
      probabilities as integer weights over a common denominator D (a state's
      weight after m dice is an int over D**m), converted to Fractions once at
      the end: Fraction arithmetic in the inner loop is far slower (a gcd on
      every operation).
    * A new face <= the lowest kept value changes nothing, so all such faces
      are one lump, via a prefix sum of weights.
    * States are grouped by their top k-1 values ("rest"), as an array over
      the lowest kept value.  A new face f > lowest gives a state that depends
      only on rest and f, so for each rest one sweep over f, carrying the
      running total weight of "lowest < f", does the work that would
      otherwise take one pass over the faces per state.
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
    nf = len(values)
    # at_most[i] = total weight of faces 0..i (indices into the sorted support)
    at_most = []
    running = 0
    for w in weights:
        running += w
        at_most.append(running)

    # First k dice: every face is kept.  State = sorted tuple of face indices.
    filling: dict[tuple[int, ...], int] = {(): 1}
    for _ in range(k):
        nxt_fill: dict[tuple[int, ...], int] = defaultdict(int)
        for state, sw in filling.items():
            for i, w in enumerate(weights):
                kept = list(state)
                insort(kept, i)
                nxt_fill[tuple(kept)] += sw * w
        filling = nxt_fill

    # Regroup: states[rest][lowest] = weight of sorted state (lowest, *rest).
    states: dict[tuple[int, ...], list[int]] = {}
    for (lowest, *rest), sw in filling.items():
        states.setdefault(tuple(rest), [0] * nf)[lowest] += sw

    for _ in range(n - k):
        nxt: dict[tuple[int, ...], list[int]] = {}
        for rest, arr in states.items():
            # Lowest kept value is at most rest[0]; with k == 1 rest is empty.
            top = rest[0] if rest else nf - 1
            same = nxt.get(rest)
            if same is None:
                same = nxt[rest] = [0] * nf
            below = 0  # total weight of states in this group with lowest < f
            for f in range(nf):
                sw = arr[f]
                if sw:
                    # New face <= lowest (= face f): state unchanged.
                    same[f] += sw * at_most[f]
                if below:
                    gain = below * weights[f]
                    if f <= top:
                        # f replaces the old lowest and becomes the lowest.
                        same[f] += gain
                    else:
                        # f goes into the top part; rest[0] becomes the lowest.
                        new_rest = list(rest[1:])
                        insort(new_rest, f)
                        new_rest = tuple(new_rest)
                        bucket = nxt.get(new_rest)
                        if bucket is None:
                            bucket = nxt[new_rest] = [0] * nf
                        bucket[rest[0]] += gain
                below += sw
        states = nxt

    sums: dict[Outcome, int] = defaultdict(int)
    for rest, arr in states.items():
        rest_sum = sum(values[i] for i in rest)
        for lowest, sw in enumerate(arr):
            if sw:
                sums[rest_sum + values[lowest]] += sw
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
