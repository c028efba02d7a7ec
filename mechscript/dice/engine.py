"""Rolling `NdS` with its modifiers: pure functions over a face source.

Modifiers apply left to right, each to the dice as the previous one left them:
`4d6r1kh3` rerolls 1s, then keeps the highest three of the dice that stand.
Extra dice (explosions, rerolls) are drawn in rounds: every die that triggers in a round gets its
extra die, left to right, and the dice drawn in that round are looked at in the next.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import MechError, Span
from ..limits import Limits, limit_error
from .faces import Die, FaceSource, describe_die
from .notation import Condition, Modifier

# What happened to one die; a die's flags are these bits or-ed together.
DROPPED = 1       # removed by keep/drop
REROLLED = 2      # replaced by the die after it
EXPLODED = 4      # added the die after it (`!`, `!p`)
COMPOUNDED = 8    # further rolls were added into this die (`!!`)
PENETRATING = 16  # an extra die of `!p`: counts one less than its face
SUCCESS = 32      # met the `c` condition
FAILURE = 64      # met the `f` condition
RAISED = 128      # raised to the `mi` minimum
LOWERED = 256     # lowered to the `ma` maximum
INACTIVE = DROPPED | REROLLED

class DiceRoll:
    """The result of one `NdS` term: each die's counted value and flags, and the total."""

    __slots__ = ("values", "flags", "total", "counting", "span")

    def __init__(self, values: Sequence, flags: list[int] | None, total, counting: bool, span: Span | None):
        self.values = values      # counted value of each die, in the order they fell
        self.flags = flags        # None when no modifier touched the dice
        self.total = total
        self.counting = counting  # the total counts successes (`c`), not pips
        self.span = span


class Tally:
    """Counts the dice of one whole evaluation against `Limits.total_dice`."""

    __slots__ = ("limits", "dice")

    def __init__(self, limits: Limits):
        self.limits = limits
        self.dice = 0

    def spend(self, n: int, span: Span | None) -> None:
        self.dice += n
        if self.dice > self.limits.total_dice:
            raise limit_error("total_dice", f"more than {self.limits.total_dice} dice were rolled in all",
                              self.limits.total_dice, span)


class BatchDice:
    """Counts the dice of a batch of `planned` rolls (`mech roll -n N`, `mech prob --samples N`)
    against `Limits.sample_dice`: each roll is bounded by `total_dice`, but N of them were not, and
    10^5 rolls of `1000d6!` ran for minutes. The batch stops once its dice pass the limit, or
    sooner, from its `ON_COURSE`th roll on, once its rolls so far, as many again as are planned,
    would roll more than twice the limit: a roll of many dice takes about a microsecond a die, so
    the limit's 10^7 dice would take 10 s to reach. (In a script, `prob(x, samples: N)` rolls with
    the run's own dice, all counted against the run's `total_dice`.)"""

    ON_COURSE = 100  # rolls before the course of the batch is judged: enough for a mean of the dice a roll

    __slots__ = ("limits", "planned", "dice", "rolls")

    def __init__(self, limits: Limits, planned: int):
        self.limits, self.planned = limits, planned
        self.dice = self.rolls = 0

    def spend(self, n: int, span: Span | None) -> None:
        """One more roll of the batch, which rolled `n` dice."""
        self.dice += n
        self.rolls += 1
        most = self.limits.sample_dice
        if self.dice > most:
            raise limit_error("sample_dice", f"{self.rolls} rolls rolled more than {most} dice in all", most, span)
        if self.rolls >= self.ON_COURSE and self.dice * self.planned > 2 * most * self.rolls:
            raise limit_error("sample_dice", f"{self.planned} rolls would roll about "
                              f"{self.dice * self.planned // self.rolls} dice (the first {self.rolls} rolled "
                              f"{self.dice}), more than {most}", most, span)


def faces_of(die: Die) -> Sequence:
    return range(1, die + 1) if type(die) is int else die


def highest_face(die: Die):
    return die if type(die) is int else max(die)


def _matches_every_face(condition: Condition, die: Die) -> bool:
    if type(die) is int:  # decide from the ends of 1..S without listing a d1000000's faces
        return condition.test(1) and condition.test(die) and (condition.op != "=" or die == 1)
    return all(condition.test(face) for face in die)


# (id of a modifier, its die) -> (the modifier, its trigger_condition): a fight rolls the same few
# dice again and again (transformers' Energon Die, `d10!`, 2 or 3 times a fight), and working the
# condition out costs more than the rest of a roll of one die. The modifier is kept with it, so that
# its id stays its own while the entry lasts; at most TRIGGERS of them (a REPL's new dice).
_triggers: dict = {}
TRIGGERS = 1024


def trigger_condition(modifier: Modifier, die: Die) -> Condition:
    """A modifier's condition, the highest face when none is written. An explosion or an `r` whose
    condition every face meets would never stop: an error."""
    key = (id(modifier), die)
    known = _triggers.get(key)
    if known is not None and known[0] is modifier:
        return known[1]
    condition = _trigger(modifier, die)
    if len(_triggers) >= TRIGGERS:
        _triggers.clear()
    _triggers[key] = (modifier, condition)
    return condition


def _trigger(modifier: Modifier, die: Die) -> Condition:
    condition = modifier.condition or Condition("=", highest_face(die))
    if modifier.kind in ("!", "!!", "!p", "r") and _matches_every_face(condition, die):
        what = "rerolls" if modifier.kind == "r" else "explodes"
        raise MechError(f"`{modifier}` {what} on every face of {describe_die(die)}, so it would never stop",
                        modifier.span, hint="choose a condition some face fails")
    return condition


KEEPS = ("kh", "kl", "dh", "dl")


def kept_slice(low: int, high: int, kind: str, n: int) -> tuple[int, int]:
    """The dice that stand are sorted(faces)[low:high]; after a keep or drop (KEEPS) of `n`, these."""
    size = high - low
    if kind == "kh":
        return high - min(size, n), high
    if kind == "kl":
        return low, low + min(size, n)
    if kind == "dh":
        return low, high - min(size, n)
    return low + min(size, n), high


def sampler(count: int, die: Die, modifiers: Sequence[Modifier]):
    """`roll_dice` for sampling, where only the total matters: a function of the face source
    giving the same total from the same faces, without the breakdown. Keep/drop becomes a slice
    of the sorted dice and success counting a table of each face's worth. None when a modifier
    needs the whole engine (explosions, rerolls, mi/ma) or the die has listed faces."""
    if type(die) is not int:
        return None
    low, high = 0, count  # the dice that stand are sorted(faces)[low:high]
    success = failure = None  # per face: meets some `c` condition / some `f` condition
    for modifier in modifiers:
        kind, n = modifier.kind, modifier.count
        if kind in KEEPS:
            low, high = kept_slice(low, high, kind, n)
        elif kind in ("c", "cf", "f") and die <= 1000 and (kind != "f" or success is not None):
            success = success or [False] * (die + 1)
            failure = failure or [False] * (die + 1)
            marks = failure if kind == "f" else success  # a `cf` failure counts one, as a success does
            for face in range(1, die + 1):
                marks[face] = marks[face] or modifier.condition.test(face)
        else:
            return None
    keep_all = (low, high) == (0, count)
    if success is not None:
        face_worth = tuple(int(s) - int(f) for s, f in zip(success, failure)).__getitem__
        if keep_all:
            return lambda source: sum(map(face_worth, source.roll(count, die)))
        return lambda source: sum(map(face_worth, sorted(source.roll(count, die))[low:high]))
    if keep_all:
        return lambda source: sum(source.roll(count, die))
    return lambda source: sum(sorted(source.roll(count, die))[low:high])


def roll_dice(source: FaceSource, count: int, die: Die, modifiers: Sequence[Modifier], tally: Tally,
              span: Span | None = None) -> DiceRoll:
    """Roll `count` dice (already checked against `Limits.dice_per_roll`) and apply the modifiers."""
    tally.dice += count
    if tally.dice > tally.limits.total_dice:
        tally.spend(0, span)  # raises the limit error
    values = source.roll(count, die)
    if not modifiers:
        return DiceRoll(values, None, sum(values), False, span)

    values = list(values)
    flags = [0] * count
    counting = failures_alone = False
    for modifier in modifiers:
        kind = modifier.kind
        if kind in KEEPS:
            _keep(values, flags, kind, modifier.count)
        elif kind in ("!", "!!", "!p", "xo", "r", "ro", "ra"):
            _extra_dice(source, values, flags, die, modifier, tally)
        elif kind == "mi":
            for i, value in enumerate(values):
                if not flags[i] & INACTIVE and value < modifier.count:
                    values[i] = modifier.count
                    flags[i] |= RAISED
        elif kind == "ma":
            for i, value in enumerate(values):
                if not flags[i] & INACTIVE and value > modifier.count:
                    values[i] = modifier.count
                    flags[i] |= LOWERED
        elif kind in ("k", "d"):  # by value: keep the dice meeting the condition, or drop them
            test, keep = modifier.condition.test, kind == "k"
            for i, value in enumerate(values):
                if not flags[i] & INACTIVE and test(value) != keep:
                    flags[i] |= DROPPED
        elif kind in ("c", "f", "cf"):
            if kind == "f" and not counting:
                raise failures_first(modifier)
            counting = True
            failures_alone = failures_alone or kind == "cf"
            bit = SUCCESS if kind == "c" else FAILURE
            for i, value in enumerate(values):
                if not flags[i] & INACTIVE and modifier.condition.test(value):
                    flags[i] |= bit
    if counting:
        # `cf` counts its failures (the builder lets it stand alone); `c` counts successes less `f`'s failures
        failures = sum(1 for f in flags if f & FAILURE and not f & INACTIVE)
        if failures_alone:
            total = failures
        else:
            total = sum(1 for f in flags if f & SUCCESS and not f & INACTIVE) - failures
    else:   # a list, not a generator: some 40% less for a die or two
        total = sum([v for v, f in zip(values, flags) if not f & INACTIVE])
    return DiceRoll(values, flags, total, counting, span)


def failures_first(modifier: Modifier) -> MechError:
    """The error of an `f` with no `c` before it."""
    return MechError(f"`{modifier}` counts failures, which needs successes counted first", modifier.span,
                     hint=f"count successes with `c`, then failures: `6d10c>=8{modifier}`")


def _keep(values: list, flags: list[int], kind: str, n: int) -> None:
    standing = [i for i, f in enumerate(flags) if not f & INACTIVE]
    standing.sort(key=values.__getitem__)  # lowest first; ties keep the order the dice fell
    low, high = kept_slice(0, len(standing), kind, n)
    for i in standing[:low] + standing[high:]:
        flags[i] |= DROPPED


def _extra_dice(source: FaceSource, values: list, flags: list[int], die: Die, modifier: Modifier,
                tally: Tally) -> None:
    """Explosions (`!`, `!!`, `!p`, `xo` once) and rerolls (`r`, `ro` once, `ra` once and added), drawn in
    rounds."""
    kind = modifier.kind
    test = trigger_condition(modifier, die).test
    pending = [i for i, (v, f) in enumerate(zip(values, flags)) if not f & INACTIVE and test(v)]
    if not pending:   # no die asks for another (nine rolls in ten of transformers' Energon Die, `d10!`)
        return
    if kind == "ra":  # d20's reroll and add: the first die that matches adds one die, and stays
        pending = pending[:1]
    limits = tally.limits
    # rerolls have their own bound, far above explosions': `1d20r<20` rerolls 19 times in 20
    name, most = ("rerolls", limits.rerolls) if kind[0] == "r" else ("explosion_depth", limits.explosion_depth)
    rounds = 0
    chains: dict[int, list] = {}  # a die's index -> the [face, flags] of the dice it brought
    parent_flag = REROLLED if kind in ("r", "ro") else EXPLODED
    child_flag = PENETRATING if kind == "!p" else 0
    again = kind in ("!", "!p", "r")  # `ro`, `ra` and `xo` roll once
    while pending:
        rounds += 1
        if rounds > most:
            raise limit_error(name, f"the dice kept {'rerolling' if kind[0] == 'r' else 'exploding'} "
                              f"for more than {most} rounds", most, modifier.span)
        tally.spend(len(pending), modifier.span)
        new_faces = source.roll(len(pending), die)
        if kind == "!!":
            next_pending = []
            for i, face in zip(pending, new_faces):
                values[i] += face
                flags[i] |= COMPOUNDED
                if test(face):
                    next_pending.append(i)
            pending = next_pending
            continue
        # The extra die goes right after the die that asked for it, so each die of the roll is
        # followed by a chain of the dice it brought, in the order drawn; only a chain's last die
        # asks for more. The chains are put in place once, after the last round: rebuilding the
        # list each round made a roll's work grow with its rounds squared (`1d20r<20` rerolls 19
        # times on average, a few hundred times in its tail).
        next_pending = []
        for i, face in zip(pending, new_faces):
            chain = chains.setdefault(i, [])
            if chain:
                chain[-1][1] |= parent_flag
            else:
                flags[i] |= parent_flag
            chain.append([face - 1 if child_flag else face, child_flag])
            if again and test(face):
                next_pending.append(i)
        pending = next_pending
    if chains:
        new_values, new_flags = [], []
        for i, (value, f) in enumerate(zip(values, flags)):
            new_values.append(value)
            new_flags.append(f)
            for value, f in chains.get(i, ()):
                new_values.append(value)
                new_flags.append(f)
        values[:] = new_values
        flags[:] = new_flags
