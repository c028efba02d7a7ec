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
        """One run's outcome added: the definition `add_runs` keeps (a batch adds its chunks' columns;
        the tests hold the two equal, and fight runs one by one against a batch with this)."""
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

    def add_runs(self, runs: "Runs", start: int = 0, stop: int | None = None) -> None:
        """Adds runs[start:stop] as `add` adds each in turn, a column at a time: counts by Counter,
        whole numbers by `sum` (exact, so the same in any grouping); a column holding anything
        else, or added to a sum that is not a whole number, one value at a time as `add` does."""
        stop = len(runs) if stop is None else stop
        self.runs += stop - start
        self.winners.update(["draw" if winner is None else winner for winner in runs.winners[start:stop]])
        self.rounds.update(runs.rounds[start:stop])
        ends = [part[0] for part in runs.parts[1:]] + [len(runs)]
        for (first, names, keys, standing, columns), end in zip(runs.parts, ends):
            if end <= start or first >= stop:
                continue
            a, b = max(start, first) - first, min(stop, end) - first
            column = iter(columns)
            for name, its_keys, stood in zip(names, keys, standing):
                if name not in self.sums:
                    self.sums[name] = {}
                    self.order.append(name)
                self.standing[name] += sum(map(bool, stood[a:b]))
                sums = self.sums[name]
                for key in its_keys:
                    sums[key] = _summed(sums.get(key, 0), next(column)[a:b])

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


class Runs:
    """The outcomes of consecutive runs, as a chunk of a batch keeps them: by column, a list of
    winners, of rounds, and of each character's standing and each reported state, in parts of runs
    whose characters report the same states (most batches: one part). A worker sends the parent a
    few lists of numbers, not a dict a run, and the parent adds them up a column at a time."""

    __slots__ = ("winners", "rounds", "parts", "_shape")

    def __init__(self):
        self.winners: list = []   # a run's winner, or None (a draw)
        self.rounds: list[int] = []
        # (the index of its first run, names, each name's state keys, standing columns, state columns)
        self.parts: list[tuple] = []
        self._shape = None

    def __len__(self) -> int:
        return len(self.rounds)

    def __getstate__(self):
        return self.winners, self.rounds, self.parts

    def __setstate__(self, state) -> None:
        self.winners, self.rounds, self.parts = state
        self._shape = None   # a part is not appended to once sent

    def append(self, outcome) -> None:
        """One run's outcome: (winner or None, rounds, {name: (standing, {state: value})})."""
        winner, rounds, characters = outcome
        shape = [tuple(state) for _, state in characters.values()]
        if shape != self._shape or list(characters) != self.parts[-1][1]:
            names = list(characters)
            self.parts.append((len(self.rounds), names, shape, [[] for _ in names],
                               [[] for keys in shape for _ in keys]))
            self._shape = shape
        self.winners.append(winner)
        self.rounds.append(rounds)
        _, _, _, standing, columns = self.parts[-1]
        column = 0
        for stood, (standing_now, state) in zip(standing, characters.values()):
            stood.append(standing_now)
            for value in state.values():
                columns[column].append(value)
                column += 1


def _summed(total, values: list):
    """total + each of values in turn, as `_added` adds them."""
    if type(total) is int:
        try:
            whole = sum(values)
        except OverflowError:   # an int too big for a float met a float: one at a time, as _added does
            whole = None
        if type(whole) is int:   # every value a whole number (an int plus a float or Fraction is not an int)
            return total + whole
    for value in values:
        total = _added(total, value)
    return total


def _added(total, value):
    """A sum of states: whole numbers exactly; floats as floats, until the sum would pass a float's
    range (to infinity, which JSON cannot write, or a whole number too big for a float): from
    there on exactly, as a Fraction."""
    if type(total) is not Fraction:
        try:
            added = total + value
        except OverflowError:   # a float and an int too big to be one: exactly
            added = math.inf
        if type(added) is not float or not math.isinf(added):
            return added
    return Fraction(total) + Fraction(value)


def _mean(total: int | float | Fraction, n: int) -> int | float | str:
    """A state's mean over n runs. An exact total is divided exactly and written as float_json
    writes it (`total / n` overflows for huge states); a float total as before."""
    return total / n if type(total) is float else float_json(Fraction(total, n))
