"""Tests for tests/exact_reference.py (the small reference of exact dice odds): checked against brute force."""

import time
from bisect import insort
from collections import defaultdict
from fractions import Fraction
from itertools import product

import pytest

from exact_reference import (
    add,
    cdf,
    compounding_d10,
    die,
    keep_highest,
    keep_lowest,
    mean,
    sd,
    variance,
)


def brute_keep(die_dist, n, k, highest=True):
    """Enumerate all n-tuples of faces; the obviously-correct reference."""
    out = defaultdict(Fraction)
    for faces in product(die_dist.items(), repeat=n):
        values = sorted((v for v, _ in faces), reverse=highest)
        p = Fraction(1)
        for _, q in faces:
            p *= q
        out[sum(values[:k])] += p
    return {x: p for x, p in out.items() if p != 0}


def tuple_dp_keep_highest(die_dist, n, k):
    """Independent reference: DP over dice, state = sorted tuple of the k highest."""
    states = {(): Fraction(1)}
    for _ in range(n):
        nxt = defaultdict(Fraction)
        for state, ps in states.items():
            for v, p in die_dist.items():
                kept = list(state)
                insort(kept, v)
                nxt[tuple(kept[-k:])] += ps * p
        states = nxt
    out = defaultdict(Fraction)
    for state, p in states.items():
        out[sum(state)] += p
    return dict(out)


def test_die():
    d6 = die(6)
    assert d6 == {i: Fraction(1, 6) for i in range(1, 7)}
    assert mean(d6) == Fraction(7, 2)
    assert variance(d6) == Fraction(35, 12)
    assert sd(d6) == pytest.approx((35 / 12) ** 0.5)
    with pytest.raises(ValueError):
        die(0)


def test_4d6_keep_highest_3_matches_brute_force():
    got = keep_highest(die(6), 4, 3)
    assert got == brute_keep(die(6), 4, 3)
    assert mean(got) == Fraction(15869, 1296)
    # Spot values: 18 needs at least three 6s: (1 + 4*5) / 1296.
    assert got[18] == Fraction(21, 1296)
    assert got[3] == Fraction(1, 1296)
    assert min(got) == 3 and max(got) == 18


def test_keep_all_equals_convolution():
    three_d6 = add(add(die(6), die(6)), die(6))
    assert keep_highest(die(6), 3, 3) == three_d6
    assert keep_highest(die(6), 3, 5) == three_d6  # k > n keeps all
    assert three_d6[10] == Fraction(27, 216)
    assert mean(three_d6) == Fraction(21, 2)


def test_keep_none():
    assert keep_highest(die(6), 4, 0) == {0: 1}
    assert keep_highest(die(6), 4, -2) == {0: 1}
    assert keep_highest(die(6), 0, 3) == {0: 1}


def test_custom_die_brute_force():
    # Uneven 3-valued die including a negative face and a Fraction face.
    custom = {-1: Fraction(1, 2), 2: Fraction(1, 3), Fraction(7, 2): Fraction(1, 6)}
    for k in range(0, 6):
        assert keep_highest(custom, 5, k) == (brute_keep(custom, 5, k) if k > 0 else {0: 1})
        if k > 0:
            assert keep_lowest(custom, 5, k) == brute_keep(custom, 5, k, highest=False)


def test_keep_lowest_d20_disadvantage():
    got = keep_lowest(die(20), 2, 1)
    # P(min = x) = ((21 - x)^2 - (20 - x)^2) / 400
    assert got == {x: Fraction((21 - x) ** 2 - (20 - x) ** 2, 400) for x in range(1, 21)}


@pytest.mark.parametrize(
    "dist",
    [
        die(6),
        keep_highest(die(6), 4, 3),
        keep_lowest(die(8), 5, 2),
        keep_highest(compounding_d10(3), 5, 2),
        add(die(4), compounding_d10(2)),
        compounding_d10(0),
        compounding_d10(4),
        compounding_d10(explode=False),
    ],
)
def test_sums_to_exactly_one(dist):
    assert sum(dist.values()) == 1
    assert all(isinstance(p, Fraction) and p > 0 for p in dist.values())
    c = cdf(dist)
    assert [x for x, _ in c] == sorted(dist)
    assert c[-1][1] == 1
    assert all(a[1] < b[1] for a, b in zip(c, c[1:]))


def test_compounding_d10():
    d = compounding_d10(4)
    assert d[14] == Fraction(1, 100)
    assert d[23] == Fraction(1, 1000)
    assert d[5] == Fraction(1, 10)
    assert d.get(10, 0) == 0
    assert d.get(20, 0) == 0
    # Lost tail (a 5th consecutive 10) is lumped onto 50.
    assert d[50] == Fraction(1, 10**5)
    assert max(d) == 50
    assert len(d) == 5 * 9 + 1
    # Truncation error in the mean is tiny: true mean is 5.5 / (1 - 1/10) = 55/9.
    assert abs(mean(d) - Fraction(55, 9)) < Fraction(1, 10**3)
    assert mean(d) < Fraction(55, 9)


def test_plain_d10():
    assert compounding_d10(explode=False) == die(10)
    assert compounding_d10(explode=False)[10] == Fraction(1, 10)
    assert compounding_d10(0) == die(10)
    with pytest.raises(ValueError):
        compounding_d10(-1)


def test_compounding_keep_highest_brute_force():
    d = compounding_d10(1)  # 19 outcomes, small enough to enumerate 19**4
    assert keep_highest(d, 4, 2) == brute_keep(d, 4, 2)


@pytest.mark.parametrize("max_tens,n,k", [(2, 6, 3), (4, 5, 2), (4, 4, 1), (1, 6, 5)])
def test_compounding_keep_highest_vs_tuple_dp(max_tens, n, k):
    d = compounding_d10(max_tens)
    assert keep_highest(d, n, k) == tuple_dp_keep_highest(d, n, k)


def test_7k3_speed_and_sanity():
    t0 = time.perf_counter()
    got = keep_highest(compounding_d10(4), 7, 3)
    assert time.perf_counter() - t0 < 2.0
    assert sum(got.values()) == 1
    # 3 kept dice can't sum to less than 3 or more than 3 * 50.
    assert min(got) == 3 and max(got) == 150
    # P(all seven dice are 1) = 10**-7 is the only way to total 3.
    assert got[3] == Fraction(1, 10**7)
    # Keeping more of the same roll can only raise the mean.
    assert mean(keep_highest(compounding_d10(4), 7, 2)) < mean(got)


def test_add():
    assert add(die(2), die(2)) == {2: Fraction(1, 4), 3: Fraction(1, 2), 4: Fraction(1, 4)}
    assert mean(add(die(6), die(8))) == mean(die(6)) + mean(die(8))
    assert variance(add(die(6), die(8))) == variance(die(6)) + variance(die(8))


def test_inputs_not_mutated():
    d = die(6)
    keep_highest(d, 4, 3)
    keep_lowest(d, 4, 3)
    add(d, d)
    assert d == die(6)
