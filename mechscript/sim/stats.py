"""The statistics of a batch: win rates with their 95% Wilson intervals, the rounds, survival and
the average end state. Runs are added in the order of their index, so the numbers do not depend on
how the batch was split between processes."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

from ..interpreter.values import float_json

Z95 = 1.959963984540054  # the normal quantile of 0.975


def wilson(count: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion count/n: it stays within [0, 1] and behaves at 0 and n."""
    if n == 0:
        return (0.0, 1.0)
    p = count / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    low = 0.0 if count == 0 else max(0.0, (centre - spread) / denominator)   # exact at the ends, no rounding dust
    high = 1.0 if count == n else min(1.0, (centre + spread) / denominator)
    return (low, high)


def runs_for(half_width: float, step: int = 100) -> int:
    """Runs enough for every Wilson interval to be at most `half_width` either side of its rate:
    the widest, at a rate of 1/2, has a half-width below z / (2 sqrt(n)). A whole number of `step`s."""
    return math.ceil((Z95 / (2 * half_width)) ** 2 / step) * step


class Tally:
    """Adds up the outcomes of runs: (winner or None, rounds, {name: (standing, {state: value})})."""

    def __init__(self, sides: list[str]):
        self.sides = sides
        self.runs = 0
        self.winners: Counter = Counter()
        self.rounds: Counter = Counter()
        self.standing: Counter = Counter()
        self.sums: dict[str, dict[str, float]] = {}
        self.order: list[str] = []

    def add(self, outcome) -> None:
        winner, rounds, characters = outcome
        self.runs += 1
        self.winners["draw" if winner is None else winner] += 1
        self.rounds[rounds] += 1
        for name, (standing, state) in characters.items():
            if name not in self.sums:
                self.sums[name] = {}
                self.order.append(name)
            self.standing[name] += bool(standing)
            sums = self.sums[name]
            for key, value in state.items():
                sums[key] = _added(sums.get(key, 0), value)

    def widest(self) -> float:
        """The largest half-width of the intervals the result reports: each side's win rate, the
        draws', each character's survival (the distance from the rate to the farther end)."""
        n = self.runs
        counts = [self.winners.get(side, 0) for side in [*self.sides, "draw"]]
        counts += [self.standing[name] for name in self.order]
        widest = 0.0
        for count in counts:
            low, high = wilson(count, n)
            widest = max(widest, count / n - low if n else 1.0, high - count / n if n else 1.0)
        return widest

    def to_json(self) -> dict:
        n = self.runs
        winners = {}
        for side in [*self.sides, "draw"]:
            count = self.winners.get(side, 0)
            low, high = wilson(count, n)
            winners[side] = {"count": count, "rate": count / n if n else 0.0, "ci95": [low, high]}
        mean = sum(r * c for r, c in self.rounds.items()) / n if n else 0.0
        characters = {}
        for name in self.order:
            count = self.standing[name]
            low, high = wilson(count, n)
            characters[name] = {"survival_rate": count / n if n else 0.0, "survival_ci95": [low, high],
                                "mean": {key: _mean(total, n) for key, total in self.sums[name].items()}}
        return {"runs": n, "winners": winners,
                "rounds": {"mean": mean, "histogram": {str(r): self.rounds[r] for r in sorted(self.rounds)}},
                "characters": characters}


def _added(total, value):
    """A sum of states: whole numbers exactly; floats as floats, until the sum would pass a float's
    range (to infinity, which JSON cannot write): from there on exactly, as a Fraction."""
    if type(total) is not Fraction:
        added = total + value
        if type(added) is not float or not math.isinf(added):
            return added
    return Fraction(total) + Fraction(value)


def _mean(total: int | float | Fraction, n: int) -> int | float | str:
    """A state's mean over n runs. An exact total is divided exactly and written as float_json
    writes it (`total / n` overflows for huge states); a float total as before."""
    return total / n if type(total) is float else float_json(Fraction(total, n))
