"""Exact distributions of dice terms: `NdS` with its modifiers, and roll-and-keep pools.

A `Dist` holds integer weights over one denominator (probability = weight / denom): exact, and
much faster than Fractions in the inner loops (no gcd per step). Its weights may sum to less than
the denominator: explosions are unbounded, so a chain of extra dice is followed only until the
mass left is below a bound, and what is beyond is left out (never lumped onto an outcome). Every
probability is then at most that missing mass below the true one, and `missing()` says how much
it is; no outcome's probability is ever overstated.

The modifiers are applied as the sampling engine (engine.py) applies them, left to right, on
the model of each die as a state (value, success bit, failure bit):
- `r ro mi ma !! c f` change each die on its own, so n dice stay independent and alike;
- `kh kl dh dl` keep a slice of the sorted dice: a dynamic programme over faces, highest first;
- `!` and `!p` make each die a chain of dice; what follows may change each die of a chain on its
  own (`c>=8`, `mi2`), but keeping a slice of them is not computed exactly (an error says so).
"""

from __future__ import annotations

import functools
import math
import operator
from collections import defaultdict
from fractions import Fraction

from ..errors import MechError, Span
from ..limits import Limits, limit_error
from .engine import KEEPS, failures_first, faces_of, kept_slice, trigger_condition
from .notation import Modifier
from .faces import Die

# The mass a whole expression may leave out by following explosions only so far.
BOUND = Fraction(1, 10**12)

Outcome = int | Fraction | bool


class Work:
    """Counts the work of one exact computation against `Limits.exact_work`: a huge expression is
    a clear error, never a hang."""

    __slots__ = ("limits", "done")

    def __init__(self, limits: Limits):
        self.limits = limits
        self.done = 0

    def spend(self, amount: int, span: Span | None = None) -> None:
        self.done += amount
        if self.done > self.limits.exact_work:
            raise limit_error("exact_work", "this is too much work to compute exactly",
                              self.limits.exact_work, span)

    def hold(self, size: int, span: Span | None = None) -> None:
        """Before `size` bytes are held at once (big integers of packed weights): within
        BYTES_PER_STEP bytes a step of the limit (150 MB at the default), else the limit's error."""
        if size > self.limits.exact_work * BYTES_PER_STEP:
            megabytes = -(-size // 2 ** 20)   # of a power of powers, a number of hundreds of digits
            amount = f"about {megabytes} MB" if megabytes < 2 ** 20 else "over a terabyte"
            raise limit_error("exact_work", f"this needs too much memory to compute exactly ({amount})",
                              self.limits.exact_work, span)


# memory one computation may hold, per step of `exact_work`: 150 MB at the default, so that the
# process, some 40 MB more, stays under 200 MB
BYTES_PER_STEP = 30


def multiply_steps(bits_a: int, bits_b: int) -> int:
    """The steps of `exact_work` one product of big integers of these sizes costs: Python multiplies
    by Karatsuba's method, about n * m**0.585 operations on 30-bit digits (n the longer, m the
    shorter), 16 of which take about as long as a step of a loop in Python."""
    longer, shorter = max(bits_a, bits_b) / 30 + 1, min(bits_a, bits_b) / 30 + 1
    return int(longer * shorter ** 0.585) // 16 + 1


class Unsupported(MechError):
    """An expression the exact engine does not compute; sampling can estimate it."""


class Dist:
    """A (sub-)probability distribution: outcome -> integer weight, over `denom`."""

    __slots__ = ("weights", "denom")

    def __init__(self, weights: dict, denom: int):
        self.weights = weights
        self.denom = denom

    @classmethod
    def constant(cls, value) -> "Dist":
        return cls({value: 1}, 1)

    @classmethod
    def uniform(cls, faces) -> "Dist":
        weights: dict = defaultdict(int)
        for face in faces:
            weights[face] += 1
        return cls(dict(weights), len(faces))

    def mass(self) -> int:
        return sum(self.weights.values())

    def missing(self) -> Fraction:
        """The mass left out (beyond the explosions followed)."""
        return 1 - Fraction(self.mass(), self.denom)

    def probabilities(self) -> list[tuple[Outcome, Fraction]]:
        denom = self.denom
        return [(x, Fraction(w, denom)) for x, w in sorted(self.weights.items()) if w]

    def map(self, f) -> "Dist":
        out: dict = {}   # made as it is kept: a defaultdict copied to a dict held both at once
        get = out.get
        for x, w in self.weights.items():
            y = f(x)
            out[y] = get(y, 0) + w
        return Dist(out, self.denom)

    def reduced(self) -> "Dist":
        """The same distribution over the smallest denominator."""
        g = math.gcd(self.denom, *self.weights.values())
        if g == 1:
            return self
        return Dist({x: w // g for x, w in self.weights.items()}, self.denom // g)


# A pair of outcomes that are not whole numbers (or whose result is not) costs as much as this
# many pairs of whole numbers: Fraction arithmetic, and hashing the result (`10k10 / 99k3`, 583,000
# pairs, took over 30 s and 500 MB, counted as 583,000 steps).
FRACTION_STEPS = 40

# A step is about 0.2 microseconds: a pair of whole numbers through an operator of C (`operator.mul`,
# `max`); through a function written in Python it is about three (`equal` for `==` of strings).
PYTHON_STEPS = 3

# Python multiplies two numbers of a few hundred 30-bit digits digit by digit (Karatsuba only
# above 70): about a nanosecond a product of two digits, so this many of them make a step.
DIGIT_PRODUCTS_PER_STEP = 200

# A pair's weights of many 30-bit digits cost beyond their product: the product is added to the
# result's weight, a new number as long as both, and the result's many big weights are read from
# memory, not from the cache. This many extra digits of the pair's two weights together make a step
# (measured: 2.5 million pairs of weights of 368 and 184 bits, `4k1.5 * 4k1.5 * 4k1.5`, took 2 s,
# where small weights take 0.5 s).
WEIGHT_DIGITS_PER_STEP = 10

# A new outcome of a combination's result costs this many steps beyond its pair: a new entry and
# number, and the result made over its smallest denominator (a gcd a weight).
NEW_OUTCOME_STEPS = 4

# What one outcome held by a combination's result takes, besides its number and weight: its slot in
# the dict and the int object of its outcome (1.2 million outcomes of `1d2000 * 1d2400`: 172 MB).
ENTRY_BYTES = 120


def mapped(d: Dist, f, work: Work, span: Span | None = None) -> Dist:
    """`d.map(f)` of a distribution of numbers (a negation, `abs`, `floor`), within the memory that
    `exact_work` allows: the new outcomes are held beside d's (`-(12k1 ** 12k1)`: 166,813 outcomes
    of up to 4,000 bits, 104 MB, and as much again for their negations, peaked at 206 MB)."""
    entry = ENTRY_BYTES + (outcome_bits(d) + _weight_bits(d)) // 8
    work.hold(2 * len(d.weights) * entry, span)
    return d.map(f)


def combine(a: Dist, b: Dist, f, work: Work, span: Span | None = None, steps: int = 1) -> Dist:
    """The distribution of f(x, y) for independent x ~ a, y ~ b. `steps`: what f costs a pair of
    whole numbers (1 for an operator of C).

    Counted before it is done: `steps` a pair (FRACTION_STEPS when the outcomes are not whole), and
    the products of the pairs' weights, big numbers when the dice are many (the weights of 12k3 have
    up to 600 bits: 20 digits by 20 is two steps more a pair), and their sums (WEIGHT_DIGITS_PER_STEP).
    Counted as it is done, a row at a
    time: NEW_OUTCOME_STEPS for each new outcome of the result (4.8 million pairs of
    `1d2000 * 1d2400` make 1.2 million), and the memory they hold, at most BYTES_PER_STEP a step
    of the limit."""
    pairs = len(a.weights) * len(b.weights)
    work.spend(pairs * steps + _digits(a) * _digits(b) // DIGIT_PRODUCTS_PER_STEP, span)
    work.spend((len(b.weights) * _extra_weight_digits(a) + len(a.weights) * _extra_weight_digits(b))
               // WEIGHT_DIGITS_PER_STEP, span)
    if f in _QUADRATIC:   # and the products of the outcomes, when they are big
        work.spend(_outcome_products(a, b) // DIGIT_PRODUCTS_PER_STEP, span)
    out: dict = defaultdict(int)
    b_items = list(b.weights.items())
    if pairs > 1 and not (_whole(a) and _whole(b) and _whole_results(a, b_items, f)):
        # and a fraction of many digits is reduced (a gcd) and hashed (a modular inverse): two
        # steps for three 30-bit digits of x and y together, summed over the pairs. Measured: 3
        # microseconds for 34 digits (the pairs of `3d6! / 10 ** 3d6!`, up to 10 ** 300: 2.9 s
        # before the error when not counted), 45 for the 333 of 10 ** 3000.
        digits = len(b.weights) * _digit_sum(a) + len(a.weights) * _digit_sum(b)
        work.spend(pairs * max(0, FRACTION_STEPS - steps) + digits * 2 // 3, span)
    # the bytes of one outcome of the result: its slot, its number (at most the sizes of x and y
    # together, as a product has) and its weight (a product of two)
    entry = ENTRY_BYTES + (outcome_bits(a) + outcome_bits(b) + _weight_bits(a) + _weight_bits(b)) // 8
    # a and b are held meanwhile (`1dF * 4k1.5 ** 12k3`: the power's 70 MB, and the product's)
    inputs = (len(a.weights) + len(b.weights)) * entry
    room = max(0, work.limits.exact_work * BYTES_PER_STEP - inputs) // entry
    made = 0
    for x, wx in a.weights.items():
        for y, wy in b_items:
            out[f(x, y)] += wx * wy
        if len(out) > made:
            work.spend((len(out) - made) * NEW_OUTCOME_STEPS, span)
            made = len(out)
            if made > room:
                work.hold(inputs + made * entry, span)
    return Dist(dict(out), a.denom * b.denom).reduced()


# Of whole numbers, what costs the product of their sizes (digit by digit): each pair of outcomes
_QUADRATIC = frozenset({operator.mul, operator.floordiv, operator.mod})


def _outcome_products(a: Dist, b: Dist) -> int:
    """The products of 30-bit digits of all pairs of outcomes, beyond one digit by one (which the
    pair's step counts): (X + n)(Y + m) - n m for X, Y digits beyond the first, summed over a's n
    and b's m outcomes. 0 at once when the outcomes fit a digit (`outcome_bits`, in C)."""
    if outcome_bits(a) < 30 and outcome_bits(b) < 30:
        return 0
    x, y = _extra_digits(a), _extra_digits(b)
    return x * y + x * len(b.weights) + y * len(a.weights)


def _extra_digits(d: Dist) -> int:
    return sum(outcome_size(x) // 30 for x in d.weights)


def _digits(d: Dist) -> int:
    """The 30-bit digits of all the weights of d together."""
    return sum(map(int.bit_length, d.weights.values())) // 30 + len(d.weights)


def _extra_weight_digits(d: Dist) -> int:
    """The 30-bit digits of all the weights of d together, beyond the first of each."""
    return sum(map(int.bit_length, d.weights.values())) // 30


def _digit_sum(d: Dist) -> int:
    """The sizes of d's outcomes in 30-bit digits, summed."""
    return sum(outcome_size(x) // 30 + 1 for x in d.weights)


def _weight_bits(d: Dist) -> int:
    return max(d.weights.values(), default=0).bit_length()


def outcome_bits(d: Dist) -> int:
    """The size in bits of d's largest outcome."""
    outcomes = d.weights
    if set(map(type, outcomes)) <= {int, bool}:  # at once, without a step of Python an outcome
        return max(max(outcomes, default=0), -min(outcomes, default=0)).bit_length()
    return max(map(outcome_size, outcomes), default=0)


def outcome_size(x) -> int:
    """An outcome's size in bits: of a fraction, its two parts; of a string, 64 (it is shared)."""
    kind = type(x)
    if kind is Fraction:
        return abs(x.numerator).bit_length() + x.denominator.bit_length()
    return abs(x).bit_length() if kind is int or kind is bool else 64


def _whole(d: Dist) -> bool:
    return all(type(x) is int or type(x) is bool for x in d.weights)


def _whole_results(a: Dist, b_items: list, f) -> bool:
    """Whether f of whole numbers gives whole numbers, as far as a few pairs tell (a division of
    two whole numbers may: 4/2): the first and last outcomes of each, in the order combine takes
    them, so an error (a division by zero) comes where combine would meet it, or later."""
    xs, ys = list(a.weights), [y for y, _ in b_items]
    pairs = [(xs[0], ys[0]), (xs[0], ys[-1]), (xs[-1], ys[0]), (xs[-1], ys[-1]), (xs[len(xs) // 2], ys[len(ys) // 3])]
    return all(type(result) is int or type(result) is bool for result in (f(x, y) for x, y in pairs))


def add(a: Dist, b: Dist, work: Work, span: Span | None = None) -> Dist:
    """x + y for independent x, y: big-integer multiplication when both are whole numbers."""
    if len(a.weights) * len(b.weights) > 64 and all(type(x) is int for x in a.weights) \
            and all(type(y) is int for y in b.weights):
        return _add_whole(a, b, work, span)
    return combine(a, b, lambda x, y: x + y, work, span)


def _add_whole(a: Dist, b: Dist, work: Work, span: Span | None) -> Dist:
    """Convolution by Kronecker substitution: each distribution becomes one big integer with a
    weight per fixed-width slot, so Python's multiplication of big integers does the sums of
    products (much faster than a loop over pairs)."""
    low_a, low_b = min(a.weights), min(b.weights)
    size_a, size_b = max(a.weights) - low_a + 1, max(b.weights) - low_b + 1
    largest = max(a.weights.values()) * max(b.weights.values()) * min(len(a.weights), len(b.weights))
    slot = (largest.bit_length() + 8) // 8  # bytes per slot, room for every sum of products
    # held at once: the two packed numbers, their product and its bytes, the weights read from them
    work.hold(3 * (size_a + size_b) * slot, span)
    work.spend(multiply_steps(size_a * slot * 8, size_b * slot * 8) + (size_a + size_b) * (slot // 8 + 1), span)
    pack_a = _pack(a.weights, low_a, size_a, slot)
    pack_b = _pack(b.weights, low_b, size_b, slot)
    product = (pack_a * pack_b).to_bytes((size_a + size_b) * slot, "little")
    low = low_a + low_b
    out = {}
    for i in range(size_a + size_b - 1):
        weight = int.from_bytes(product[i * slot:(i + 1) * slot], "little")
        if weight:
            out[low + i] = weight
    return Dist(out, a.denom * b.denom).reduced()


def _pack(weights: dict, low: int, size: int, slot: int) -> int:
    buffer = bytearray(size * slot)
    for x, w in weights.items():
        start = (x - low) * slot
        buffer[start:start + slot] = w.to_bytes(slot, "little")
    return int.from_bytes(buffer, "little")


def repeat_add(d: Dist, n: int, work: Work, span: Span | None = None) -> Dist:
    """The sum of n independent copies of d (by doubling)."""
    if n > 1 and all(type(x) is int for x in d.weights):  # its size, known before any work is done
        work.spend(n * (max(d.weights) - min(d.weights) + 1), span)
    result = Dist.constant(0)
    power = d
    while n:
        if n & 1:
            result = add(result, power, work, span)
        n >>= 1
        if n:
            power = add(power, power, work, span)
    return result


def mix(parts: list[tuple[Fraction, Dist]]) -> Dist:
    """The mixture: with probability p, a draw from d (the p may sum to less than 1). With every p
    1, sub-distributions of disjoint events added up."""
    denom = math.lcm(*(Fraction(p).denominator * d.denom for p, d in parts)) if parts else 1
    out: dict = defaultdict(int)
    for p, d in parts:
        p = Fraction(p)
        factor = p.numerator * (denom // (p.denominator * d.denom))
        for x, w in d.weights.items():
            out[x] += w * factor
    return Dist(dict(out), denom).reduced()


# ---- dice terms ----

# A die's state: its value, and whether `c` and `f` marked it (the engine's SUCCESS and FAILURE).
# A die dropped by value (`k>3`, `d<3`) is DROPPED: it adds nothing, and later modifiers pass it by.
DROPPED = (None, False, False)


def _value(state) -> Outcome:
    return 0 if state is DROPPED else state[0]


def raw_die(die: Die) -> Dist:
    return Dist({face: 1 for face in range(1, die + 1)}, die) if type(die) is int else Dist.uniform(die)


def _chain_depth(trigger: Fraction, target: Fraction, limits: Limits) -> int:
    """How many extra dice of a chain to follow: until the chance of going on is within `target`,
    and never past the `explosion_depth` limit (where sampling stops with an error)."""
    depth, going_on = 0, trigger
    while going_on > target and depth < limits.explosion_depth - 1:
        depth += 1
        going_on *= trigger
    return depth


def _reroll_rounds(trigger: Fraction, target: Fraction, limits: Limits) -> int:
    """How many times a die that matches is rolled again (`r`) before what is left is within
    `target`: at least once, and never past the `rerolls` limit (where sampling stops with an error)."""
    if trigger == 0:
        return 1
    rounds = math.ceil(math.log(target) / math.log(trigger)) if trigger < 1 else limits.rerolls
    return max(1, min(rounds, limits.rerolls))


def _compound_chain(raw: Dist, test, depth: int, work: Work, span) -> Dist:
    """The sum of fresh faces rolled while they meet the condition (`!!`), at most depth + 1."""
    trigger = Dist({f: w for f, w in raw.weights.items() if test(f)}, raw.denom)
    stop = Dist({f: w for f, w in raw.weights.items() if not test(f)}, raw.denom)
    parts, run = [], Dist.constant(0)  # run: the sum of the triggering faces so far
    for _ in range(depth + 1):
        parts.append((1, add(run, stop, work, span)))
        run = add(run, trigger, work, span)
    return mix(parts)


def _element(states: Dist, modifier: Modifier, raw: Dist, die: Die, targets, limits: Limits, work: Work) -> Dist:
    """One modifier that changes each die on its own (r ro mi ma !! c f cf, k d by value), as engine.py does."""
    dropped = states.weights.get(DROPPED)
    if dropped:  # the dropped dice stay as they are; the modifier changes the others
        standing = Dist({s: w for s, w in states.weights.items() if s is not DROPPED}, states.denom)
        return mix([(1, _element(standing, modifier, raw, die, targets, limits, work)),
                    (1, Dist({DROPPED: dropped}, states.denom))])
    kind = modifier.kind
    if kind in ("k", "d"):
        test, keep = modifier.condition.test, kind == "k"
        return states.map(lambda s: s if test(s[0]) == keep else DROPPED)
    if kind == "mi":
        low = modifier.count
        return states.map(lambda s: (low, s[1], s[2]) if s[0] < low else s)
    if kind == "ma":
        high = modifier.count
        return states.map(lambda s: (high, s[1], s[2]) if s[0] > high else s)
    test = trigger_condition(modifier, die).test  # an `r` or `!!` that would never stop is an error
    if kind == "c" or kind == "cf":  # a `cf` failure counts one, as a success does (it stands alone)
        return states.map(lambda s: (s[0], s[1] or test(s[0]), s[2]))
    if kind == "f":
        return states.map(lambda s: (s[0], s[1], s[2] or test(s[0])))
    work.spend(len(states.weights) * len(raw.weights), modifier.span)
    out: dict = defaultdict(int)
    if kind == "r":  # a matching die is replaced by a die rolled until it does not match
        # Rolled again at most `rounds` times, as sampling does (the `rerolls` limit), and only as
        # often as the chance of going on stays above the bound: the mass beyond is left out, as
        # for explosions. A face f that stops shows after j rerolls that match with weight
        # T^j * f over N^(j+1): over j < rounds, f * (N^rounds - T^rounds) / (N - T) over N^rounds.
        stop = {f: w for f, w in raw.weights.items() if not test(f)}
        stop_mass = sum(stop.values())
        rounds = _reroll_rounds(Fraction(raw.denom - stop_mass, raw.denom), targets, limits)
        whole, going_on = raw.denom ** rounds, (raw.denom - stop_mass) ** rounds
        for s, w in states.weights.items():
            if test(s[0]):
                for f, fw in stop.items():
                    out[(f, False, False)] += w * fw * (whole - going_on)
            else:
                out[s] += w * stop_mass * whole
        return Dist(dict(out), states.denom * stop_mass * whole).reduced()
    if kind == "ro":  # a matching die is replaced by one new die, whatever it shows
        for s, w in states.weights.items():
            if test(s[0]):
                for f, fw in raw.weights.items():
                    out[(f, False, False)] += w * fw
            else:
                out[s] += w * raw.denom
        return Dist(dict(out), states.denom * raw.denom).reduced()
    # `!!`: a matching die adds fresh faces into itself while they match
    trigger = Fraction(sum(w for f, w in raw.weights.items() if test(f)), raw.denom)
    chain = _compound_chain(raw, test, _chain_depth(trigger, targets, limits), work, modifier.span)
    for s, w in states.weights.items():
        if test(s[0]):
            for extra, cw in chain.weights.items():
                out[(s[0] + extra, s[1], s[2])] += w * cw
        else:
            out[s] += w * chain.denom
    return Dist(dict(out), states.denom * chain.denom).reduced()


_ELEMENTWISE = {"r", "ro", "mi", "ma", "!!", "c", "cf", "f", "k", "d"}
_COUNTS = ("c", "cf")  # modifiers that make the total a count


def dice_dist(count: int, die: Die, modifiers: tuple, limits: Limits, work: Work, span: Span | None = None,
              target: Fraction = BOUND) -> Dist:
    """The exact distribution of the total of `count` dice with these modifiers (engine.roll_dice).
    Chains of explosions leave out at most about `target` in all."""
    key = (count, die, tuple((m.kind, m.count, m.condition) for m in modifiers), limits, target)
    result, done = _dice_dist_cached(key, modifiers, span)
    work.spend(done, span)
    return result


def _dice_dist_cached(key, modifiers, span):
    """A script asks for the same odds again and again: each term is computed once per process."""
    cached = _DICE_CACHE.get(key)
    if cached is None:
        count, die, _, limits, target = key
        work = Work(limits)
        cached = (_dice_dist(count, die, modifiers, limits, work, span, target), work.done)
        if len(_DICE_CACHE) >= 256:
            _DICE_CACHE.pop(next(iter(_DICE_CACHE)))
        _DICE_CACHE[key] = cached
    return cached


_DICE_CACHE: dict = {}


def _dice_dist(count: int, die: Die, modifiers: tuple, limits: Limits, work: Work, span, target) -> Dist:
    # What is known to be needed, before any of it is done: a few passes through the faces, and a
    # sum of `count` dice has as many outcomes as the range of its totals.
    faces = faces_of(die)
    work.spend(len(faces) * (3 + len(modifiers)), span)
    if count > 1 and not any(m.kind in _COUNTS for m in modifiers):
        work.spend(2 * count * math.ceil(max(faces) - min(faces) + 1), span)
    raw = raw_die(die)
    states = raw.map(lambda f: (f, False, False))
    counting = False
    per_chain = target / max(1, count)
    mods = list(modifiers)
    i = 0
    # 1. modifiers that change each die on its own
    while i < len(mods) and mods[i].kind in _ELEMENTWISE:
        if mods[i].kind == "f" and not counting:
            raise failures_first(mods[i])
        counting = counting or mods[i].kind in _COUNTS
        states = _element(states, mods[i], raw, die, per_chain, limits, work)
        i += 1
    if i == len(mods):
        return repeat_add(_contributions(states, counting), count, work, span)
    modifier = mods[i]
    rest = mods[i + 1:]
    if modifier.kind in ("!", "!p", "xo"):
        return _exploding(states, modifier, rest, raw, die, count, counting, per_chain, limits, work, span)
    if modifier.kind == "ra":
        return _reroll_add(states, modifier, rest, raw, die, count, counting, per_chain, limits, work, span)
    # 2. keep a slice of the sorted dice; after it, only changes that keep the order (mi, ma),
    # counting and keeping or dropping by value, which touch the kept dice alone
    keeps = []
    after = []
    for modifier in mods[i:]:
        kind = modifier.kind
        if kind in KEEPS:
            keeps.append((kind, modifier.count))
        elif kind in ("mi", "ma", "c", "cf", "f", "k", "d"):
            if kind == "f" and not counting:
                raise failures_first(modifier)
            counting = counting or kind in _COUNTS
            after.append(modifier)
        else:
            raise Unsupported(f"`{modifier}` after keeping or dropping dice is not computed exactly",
                              modifier.span, hint=SAMPLING_HINT)
    dropped = states.weights.get(DROPPED)
    if not dropped:
        low, high = _slice(keeps, count)
        return _keep_slice(states, after, raw, die, count, low, high, counting, per_chain, limits, work, span)
    # Some dice were dropped by value before the slice: the slice is of the m dice that stand, m of
    # `count` with the chance of a binomial, each standing die drawn from the standing states.
    standing = Dist({s: w for s, w in states.weights.items() if s is not DROPPED}, states.denom)
    parts = []
    for m in range(count + 1):
        low, high = _slice(keeps, m)
        share = Fraction(math.comb(count, m) * dropped ** (count - m), states.denom ** (count - m))
        if m == 0 or high <= low:  # nothing is kept: a total of 0, with the chance of m standing dice
            kept = Dist({0: standing.mass() ** m}, standing.denom ** m)
        else:
            kept = _keep_slice(standing, after, raw, die, m, low, high, counting, per_chain, limits, work, span)
        parts.append((share, kept))
    return mix(parts)


def _slice(keeps: list, count: int) -> tuple[int, int]:
    """The positions of the sorted dice (lowest first) that the keeps and drops leave of `count` dice."""
    low, high = 0, count
    for kind, n in keeps:
        low, high = kept_slice(low, high, kind, n)
    return low, high


SAMPLING_HINT = "estimate it by sampling: `mech prob EXPR --samples 100000`, or in a script " \
                "`prob(expr, samples: 100000)`"


def _contributions(states: Dist, counting: bool) -> Dist:
    """What each die adds to the total: its value, or when counting, success (1) less failure (1)."""
    if counting:
        return states.map(lambda s: int(s[1]) - int(s[2]))  # DROPPED: 0 - 0
    return states.map(_value)


def _apply_each(states: Dist, modifiers, raw, die, target, limits, work) -> Dist:
    for modifier in modifiers:
        states = _element(states, modifier, raw, die, target, limits, work)
    return states


def _counting_after(rest: list, counting: bool, what: str) -> bool:
    """Whether the total is a count once the modifiers `rest` that follow `what` (an explosion, a
    reroll and add) are applied; each must change a die on its own to be computed exactly."""
    for later in rest:
        if later.kind not in _ELEMENTWISE:
            raise Unsupported(f"`{later}` after {what} is not computed exactly", later.span, hint=SAMPLING_HINT)
        if later.kind == "f" and not counting:
            raise failures_first(later)
        counting = counting or later.kind in _COUNTS
    return counting


def _exploding(states: Dist, modifier: Modifier, rest: list, raw: Dist, die: Die, count: int, counting: bool,
               target: Fraction, limits: Limits, work: Work, span) -> Dist:
    """`!` and `!p`: each die that meets the condition adds a fresh die (`!p`: counting one less),
    which may explode in turn; `xo`: adds one fresh die, which does not. What follows must change
    each die on its own."""
    condition = trigger_condition(modifier, die)
    counts_after = _counting_after(rest, counting, f"an explosion (`{modifier.kind}`)")
    test, less = condition.test, 1 if modifier.kind == "!p" else 0

    def element(state) -> Dist:  # what one die of a chain adds, once the later modifiers changed it
        return _contributions(_apply_each(Dist.constant(state), rest, raw, die, target, limits, work), counts_after)

    trigger_mass = sum(w for f, w in raw.weights.items() if test(f))
    go_on = mix([(Fraction(w, raw.denom), element((f - less, False, False)))
                     for f, w in raw.weights.items() if test(f)]) if trigger_mass else None
    stop = mix([(Fraction(w, raw.denom), element((f - less, False, False)))
                    for f, w in raw.weights.items() if not test(f)])
    # chain: what the fresh dice of one exploding die add: stop + go_on (+) chain, followed `depth` deep
    if modifier.kind == "xo":  # one fresh die, whatever it shows
        chain = mix([(1, stop), (1, go_on)]) if trigger_mass else stop
    else:
        depth = _chain_depth(Fraction(trigger_mass, raw.denom), target, limits)
        chain = stop
        for _ in range(depth):
            chain = mix([(1, stop), (1, add(go_on, chain, work, modifier.span))])
    parts = []
    for state, w in states.weights.items():
        own = element(state)
        triggers = state is not DROPPED and test(state[0])
        parts.append((Fraction(w, states.denom), add(own, chain, work, modifier.span) if triggers else own))
    return repeat_add(mix(parts), count, work, span)


def _reroll_add(states: Dist, modifier: Modifier, rest: list, raw: Dist, die: Die, count: int, counting: bool,
                target: Fraction, limits: Limits, work: Work, span) -> Dist:
    """`ra` (d20's reroll and add): if any die meets the condition, one fresh die is added (the die
    stays). The dice are alike and independent, so the total is the sum of `count` dice, plus a
    fresh die unless none met it. What follows must change each die on its own."""
    counts_after = _counting_after(rest, counting, f"`{modifier}`")
    test = trigger_condition(modifier, die).test

    def element(state) -> Dist:
        return _contributions(_apply_each(Dist.constant(state), rest, raw, die, target, limits, work), counts_after)

    def meets(state) -> bool:
        return state is not DROPPED and test(state[0])

    each = mix([(Fraction(w, states.denom), element(state)) for state, w in states.weights.items()])
    missing = mix([(Fraction(w, states.denom), element(state)) for state, w in states.weights.items()
                   if not meets(state)] or [(0, Dist.constant(0))])
    fresh = mix([(Fraction(w, raw.denom), element((f, False, False))) for f, w in raw.weights.items()])
    all_dice = repeat_add(each, count, work, span)
    none_met = repeat_add(missing, count, work, span)  # a sub-distribution: none of the dice met it
    some_met = _less(all_dice, none_met)
    return mix([(1, none_met), (1, add(some_met, fresh, work, modifier.span))])


def _less(a: Dist, b: Dist) -> Dist:
    """The sub-distribution a - b, for b a part of a (each weight of b at most a's)."""
    denom = math.lcm(a.denom, b.denom)
    fa, fb = denom // a.denom, denom // b.denom
    out = {x: w * fa - b.weights.get(x, 0) * fb for x, w in a.weights.items()}
    return Dist({x: w for x, w in out.items() if w}, denom)


def _keep_slice(states: Dist, after: list, raw: Dist, die: Die, count: int, low: int, high: int, counting: bool,
                target, limits: Limits, work: Work, span) -> Dist:
    """The dice at positions low..high-1 of the sorted dice (lowest first) are kept; the total is
    what the kept dice add, after the modifiers `after` changed each kept die."""
    by_value: dict = {}
    for state, w in states.weights.items():
        added = _contributions(_apply_each(Dist.constant(state), after, raw, die, target, limits, work), counting)
        (contribution, _), = added.weights.items()  # mi, ma, c and f give one state from one state
        known = by_value.get(state[0])
        if known is not None and known[1] != contribution:
            raise Unsupported("dice of the same face count differently here (rerolled dice lose their marks), "
                              "so which are kept matters; this is not computed exactly", span, hint=SAMPLING_HINT)
        by_value[state[0]] = ((known[0] if known else 0) + w, contribution)
    faces = [(v, w, g) for v, (w, g) in sorted(by_value.items(), reverse=True)]
    return keep_slice(faces, states.denom, count, low, high, False, work, span)


def keep_slice(faces: list, denom: int, n: int, low: int, high: int, halve: bool, work: Work, span) -> Dist:
    """n independent dice, each showing value v with weight w / denom (`faces`: (v, w, g), highest v
    first; the weights may sum to less than denom). Sort the dice lowest first and keep positions
    low..high-1; the total is the sum of the kept dice's g. `halve`: the lowest kept die counts
    half its value, rounded down (roll-and-keep, rule text 000 L28).

    A dynamic programme over the faces, highest first, deciding how many dice show each face
    (c dice on a face of weight w: comb(free, c) * w**c ways). Highest first, the dice placed take
    the sorted positions n-1, n-2, ...: so the state is (dice placed, sum kept so far), and once
    every position down to the lowest kept one is taken, the other dice only have to show lower
    faces: below**rest ways. exact.keep_highest is the same programme for a plain keep-highest.

    For speed, the sums kept so far for one number of dice placed are one big integer, a weight
    per fixed-width slot (Kronecker substitution, as in `add`): adding c dice of g to every sum is
    a shift, done by Python's big-integer arithmetic. No weight exceeds denom**n, which sets the
    width of a slot."""
    first, last = n - high, n - low  # the kept positions counted from the highest: first..last-1
    if last <= first or n == 0:
        return Dist.constant(0)
    scale = math.lcm(*(Fraction(g).denominator for _, _, g in faces))  # sums of whole numbers to pack
    gs = [int(g * scale) for _, _, g in faces]
    halving = [(v - v // 2) * scale if halve else 0 for v, _, _ in faces]
    kept = last - first
    lowest, highest = kept * min(0, *gs), kept * max(0, *gs)
    base = max(halving) - lowest  # slot i holds the sum i - base: never below slot 0
    slot = ((denom**n).bit_length() + 8) // 8 * 8
    size = base + highest + 1
    steps = 1 + size * slot // 8192  # a shift or a sum of packed sums takes about as long as this many loop steps
    work.hold(2 * (last + 1) * size * slot // 8, span)  # the packed sums of two faces' dice placed, at most
    below = sum(w for _, w, _ in faces)
    partial = {0: 1 << (slot * base)}  # dice placed -> their kept sums, packed
    result = 0
    comb = [[math.comb(free, c) for c in range(n + 1)] for free in range(n + 1)]
    for (v, w, _), g, halved in zip(faces, gs, halving):
        below -= w
        w_pow = [w**c for c in range(n + 1)]
        below_pow = [below**r for r in range(n + 1)]
        nxt: dict = defaultdict(int)
        work.spend(len(partial) * (last + 1) * steps, span)
        for placed, sums in partial.items():
            free, need = n - placed, last - placed
            for c in range(need):
                moved = max(0, placed + c - max(placed, first)) * g * slot
                ways = sums * (comb[free][c] * w_pow[c])
                nxt[placed + c] += ways << moved if moved >= 0 else ways >> -moved
            ways = sum(comb[free][c] * w_pow[c] * below_pow[free - c] for c in range(need, free + 1))
            if ways:
                moved = ((last - max(placed, first)) * g - halved) * slot  # the lowest kept die shows v
                ways = sums * ways
                result += ways << moved if moved >= 0 else ways >> -moved
        partial = nxt
    packed = result.to_bytes(size * slot // 8 + 1, "little")
    out = {}
    step = slot // 8
    for i in range(size):
        weight = int.from_bytes(packed[i * step:(i + 1) * step], "little")
        if weight:
            total = i - base
            out[total if scale == 1 else Fraction(total, scale)] = weight
    return Dist(out, denom**n).reduced()


# ---- roll-and-keep ----

@functools.lru_cache(maxsize=256)
def _pool_cached(rolled: int, kept: int, halve: bool, explode: bool, limits: Limits, target: Fraction):
    work = Work(limits)
    raw = raw_die(10)
    if explode:  # rule text 000 L20-22: 10s compound-explode
        chain = _compound_chain(raw, lambda f: f == 10, _chain_depth(Fraction(1, 10), target / rolled, limits),
                                work, None)
        die = mix([(Fraction(1, 10), Dist({f: 1}, 1)) for f in range(1, 10)]
                  + [(Fraction(1, 10), chain.map(lambda extra: 10 + extra))])
    else:
        die = raw
    if kept >= rolled and not halve:
        return repeat_add(die, rolled, work), work.done
    faces = [(v, w, v) for v, w in sorted(die.weights.items(), reverse=True)]
    return keep_slice(faces, die.denom, rolled, rolled - kept, rolled, halve, work, None), work.done


def pool_dist(rolled: int, kept: int, halve: bool, explode: bool, limits: Limits, work: Work,
              span: Span | None = None, target: Fraction = BOUND) -> Dist:
    """The total of a normalized roll-and-keep pool (rollkeep.normalize), before its flat bonus:
    `rolled` d10s, the `kept` highest summed, the lowest kept halved if `halve`."""
    result, done = _pool_cached(rolled, kept, halve, explode, limits, target)
    work.spend(done, span)
    return result
