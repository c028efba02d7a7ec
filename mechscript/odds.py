"""`mech prob` and `mechscript.prob`: the exact distribution of an expression, or the probability of
a comparison, with its mean and standard deviation, as JSON or as a table with a bar chart.

Explosions are followed until less than `BOUND` (1e-12) of the mass is left: the result is then
not `exact`, and `truncated` says how much was left out (each probability is at most that much
below the true one). With `samples`, the expression is rolled instead and the result is an estimate.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction
from pathlib import Path

from .dice.distribution import BOUND, Dist
from .dice.engine import BatchDice
from .dice.faces import RandomFaces
from .errors import MechError
from .numbers import weighted_sum
from .interpreter.evaluator import Evaluation
from .limits import CpuTime, Limits, limit_error, too_deep
from .interpreter.odds import dist_mean, exact, outcome, truths
from .interpreter.parser import parse_expression
from .interpreter.script import ScriptCompiler
from .rolling import EXPR_FILE, compile_roll, new_seed
from .interpreter.values import fits_float, float_json, format_value, to_json
from .sim.report import bar

BAR_WIDTH = 40
LONG = 40  # a distribution of more outcomes shows its body, its thin tails summed up
ROWS = 60  # and a body of more outcomes than this is shown in ranges of outcomes


@dataclass
class ProbResult:
    expr: str
    dist: Dist                  # integer weights over a denominator (a comparison's has false and true)
    truncated: Fraction         # the mass left out beyond the explosions followed
    samples: int | None = None  # an estimate from this many rolls
    seed: int | None = None

    @property
    def distribution(self) -> list:
        """[(outcome, probability as a Fraction)], outcomes in order; a comparison: false, true."""
        return [(x, Fraction(w, self.dist.denom)) for x, w in self._items()]

    def _items(self) -> list:
        return sorted(self.dist.weights.items())

    @property
    def exact(self) -> bool:
        return self.samples is None and self.truncated == 0

    @property
    def comparison(self) -> bool:
        return all(type(x) is bool for x in self.dist.weights)

    @property
    def probability(self) -> Fraction | None:
        """A comparison's chance of being true."""
        return Fraction(self.dist.weights.get(True, 0), self.dist.denom) if self.comparison else None

    @property
    def numeric(self) -> bool:
        """Numbers or true/false (not the strings of a table's entries): they have a mean."""
        return not any(type(x) is str for x in self.dist.weights)

    @cached_property
    def mean(self) -> Fraction | None:
        """Over the outcomes computed (given that no explosion went past the depth followed)."""
        return dist_mean(self.dist) if self.numeric else None

    @cached_property
    def sd(self) -> float | Fraction | None:
        """A float, or, where the variance lies outside a float's range (huge or tiny outcomes), its
        root as a Fraction to 64 significant bits."""
        if not self.numeric:
            return None
        mass = self.dist.mass()
        square = Fraction(weighted_sum(self.dist.weights, 2), mass)
        variance = square - self.mean ** 2
        if fits_float(variance):
            return math.sqrt(variance)
        return _root(variance)

    def to_json(self) -> dict:
        denom = self.dist.denom
        data = {"expr": self.expr, "exact": self.exact,
                "distribution": [[to_json(x), _chance_json(w, denom)] for x, w in self._items()],
                "mean": float_json(self.mean) if self.numeric else None, "sd": _sd_json(self.sd),
                "truncated": float_json(self.truncated), "bound": float(BOUND), "estimated": self.samples is not None}
        if self.comparison:
            data["probability"] = float_json(self.probability)
        if self.exact and self.comparison:
            data["probability_exact"] = format_value(self.probability)
        if self.samples is not None:
            data["samples"] = self.samples
            data["seed"] = self.seed
        return data

    def text(self) -> list[str]:
        return _comparison_text(self) if self.comparison else _table_text(self)


def _chance_json(weight: int, denom: int):
    """float_json(weight / denom), at once where the chance is far within a float's range: a
    Fraction made and tested for each outcome took 4 s for the 234,000 of `7k10 * 7k10`. Python
    divides whole numbers to the float nearest, as float() of the Fraction does."""
    if denom.bit_length() - weight.bit_length() < 1000:
        return weight / denom
    return float_json(Fraction(weight, denom))


def _root(x: Fraction) -> Fraction:
    """The square root of x >= 0 to 64 significant bits: scaled by 4**k so that its whole part has
    128 bits, rooted as a whole number, scaled back."""
    if x == 0:
        return Fraction(0)
    k = max(0, (128 - x.numerator.bit_length() + x.denominator.bit_length()) // 2 + 1)
    return Fraction(math.isqrt(x.numerator * 4 ** k // x.denominator), 2 ** k)


def _sd_json(sd):
    return sd if type(sd) is float or sd is None else float_json(sd)


def prob(expr: str, samples: int | None = None, seed: int | None = None, limits: Limits = Limits()) -> ProbResult:
    """The exact distribution of `expr` (a comparison: its chance of being true); with `samples`,
    an estimate from that many rolls of it, seeded by `seed`. Raises MechError."""
    if samples is not None:
        return _estimate(expr, samples, seed, limits)
    node = parse_expression(expr, EXPR_FILE, limits)
    try:
        host = ScriptCompiler(limits, None, "", EXPR_FILE, Path.cwd())
        with CpuTime(limits):
            dist = exact(host, node)(Evaluation(None, limits))
    except MechError as error:
        raise error.located(expr, EXPR_FILE) from None
    except RecursionError:
        raise too_deep().located(expr, EXPR_FILE) from None
    return _result(expr, dist, None, None)


def _estimate(expr: str, samples: int, seed: int | None, limits: Limits) -> ProbResult:
    compiled = compile_roll(expr, limits)
    if samples > limits.rolls:
        raise limit_error("rolls", f"{samples} samples are too many", limits.rolls,
                          compiled.node.span).located(expr, EXPR_FILE)
    if compiled.direct_dice is not None and compiled.direct_dice * samples > limits.sample_dice:
        # a lone `1000d6` rolls as many dice each time: refused before the first
        raise limit_error("sample_dice", f"{samples} rolls of {compiled.direct_dice} dice are more than "
                          f"{limits.sample_dice} dice", limits.sample_dice, compiled.node.span).located(expr, EXPR_FILE)
    seed = new_seed() if seed is None else seed
    source = RandomFaces(seed)
    batch = BatchDice(limits, samples)
    counts: dict = {}
    try:
        with CpuTime(limits):
            for _ in range(samples):
                # a list, a record or none is no outcome, as in the exact odds (and no key of the tally)
                total = outcome(compiled.total(source, batch), compiled.node.span)
                counts[total] = counts.get(total, 0) + 1
    except MechError as error:  # the time ran out between two rolls
        raise error.located(expr, EXPR_FILE) from None
    return _result(expr, Dist(counts, samples), samples, seed)


def _result(expr: str, dist: Dist, samples: int | None, seed: int | None) -> ProbResult:
    if any(type(x) is bool for x in dist.weights):
        truths(dist, None)
        dist = Dist({False: dist.weights.get(False, 0), True: dist.weights.get(True, 0)}, dist.denom)
    return ProbResult(expr, dist, dist.missing() if samples is None else Fraction(0), samples, seed)


# ---- text ----

def _percent(p) -> str:
    if p == 0:
        return "0%"
    if p < 0.0001:
        return "<0.01%"
    return f"{float(p) * 100:.2f}%"


def _bar(p: float, top: float) -> str:
    """A horizontal bar, in eighths of a character, as long as p is of top."""
    return bar(p / top if top else 0, BAR_WIDTH)


def _status(result: ProbResult) -> str:
    if result.samples is not None:
        return f"estimated from {result.samples} rolls (seed {result.seed})"
    if result.truncated:
        return (f"exact but for explosions and rerolls, followed until less than {float(BOUND):g} was left: "
                f"{float(result.truncated):.2g} left out")
    return "exact"


def _table_text(result: ProbResult) -> list[str]:
    rows, at_most = [], 0
    denom = result.dist.denom
    total = result.dist.mass()
    for x, w in result._items():  # probabilities as floats: exact ints divided once, for showing
        at_least = total - at_most
        at_most += w
        rows.append((format_value(x), w / denom, at_least / denom, at_most / denom))
    shown, before, after = rows, [], []
    if len(rows) > LONG:  # thin tails in one line each
        thin = 1 / 2000
        start = next((i for i, row in enumerate(rows) if row[3] >= thin), 0)
        end = next((i for i in range(len(rows) - 1, -1, -1) if rows[i][2] >= thin), len(rows) - 1)
        shown = rows[start:end + 1]
        if start:
            before = [f"{'':>8}  {_percent(rows[start - 1][3]):>11}  in all below "
                      f"{rows[start][0]} ({start} outcomes)"]
        if end < len(rows) - 1:
            after = [f"{'':>8}  {_percent(rows[end + 1][2]):>11}  in all above {rows[end][0]} "
                     f"({len(rows) - 1 - end} outcomes)"]
    if len(shown) > ROWS:  # too many to read: outcomes in ranges of equal length
        size = -(-len(shown) // ROWS)
        shown = [(f"{group[0][0]}..{group[-1][0]}", sum(row[1] for row in group), group[0][2], group[-1][3])
                 for group in (shown[i:i + size] for i in range(0, len(shown), size))]
    width = max(7, *(len(row[0]) for row in shown))
    top = max(row[1] for row in shown)
    lines = [f"{result.expr}: {_status(result)}",
             f"{'outcome':>{width}}  {'probability':>11}  {'at least':>8}  {'at most':>8}"]
    lines += [" " * (width - 8) + line for line in before]
    for text, p, at_least, at_most in shown:
        lines.append(f"{text:>{width}}  {_percent(p):>11}  {_percent(at_least):>8}  {_percent(at_most):>8}  "
                     f"{_bar(p, top)}")
    lines += [" " * (width - 8) + line for line in after]
    if result.numeric:
        lines.append(f"mean {_decimal(result.mean)}, sd {_digits(result.sd, 4)}")
    return lines


def _comparison_text(result: ProbResult) -> list[str]:
    p = result.probability
    exact_text = f" = {format_value(p)}" if result.exact and p.denominator <= 10**6 and p not in (0, 1) else ""
    lines = [f"{result.expr}: {_status(result)}",
             f"P(true) = {_digits(p, 6)}{exact_text} ({_percent(p)})"]
    shown = [(x, float(q)) for x, q in reversed(result.distribution)]
    top = max(q for _, q in shown)
    for x, q in shown:
        lines.append(f"{format_value(x):>5}  {_percent(q):>7}  {_bar(q, top)}")
    return lines


def _decimal(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else _digits(x, 6)


def _digits(x: float | Fraction, digits: int) -> str:
    """x to `digits` significant digits, as a float shows it; outside a float's range (where it would
    overflow, or show 0), as a Decimal does: 1.5e+309, 3.33333e-400."""
    if type(x) is float or fits_float(x):
        return f"{float(x):.{digits}g}"
    with decimal.localcontext(prec=digits):
        return f"{(decimal.Decimal(x.numerator) / decimal.Decimal(x.denominator)).normalize():g}"
