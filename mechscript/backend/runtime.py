"""What the Python written by emit.py calls at run time besides the interpreter's own helpers.

The written code handles the common cases inline and stops (`Bail`) at anything unusual: a value
that is not true or false where one is needed, a limit reached, a name read before its `let` ran.
It never words an error itself. The run that bailed is played again by the closures, from its seed,
and that run gives the error the user reads: the same message, at the same place, as ever.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import chain
from math import gcd
from operator import length_hint

from ..interpreter.running import Run, set_field
from ..interpreter.values import Module, Record, Table, TableRow, record_of


class Bail(Exception):
    """The written code met something it leaves to the closures: replay this run there."""


def bail(*_):
    raise Bail()


# Exact arithmetic of numbers one of which is a Fraction, as the written code makes it: the value
# Python's Fraction operators give, whole as an int (numbers.normal), past `bits` (number_bits) in
# its numerator or denominator a bail, where the closures' `binary` words the error.
# Fraction's operators cost some 100 bytecodes each in Python (operator fallbacks, isinstance tests
# of the numbers ABCs, a normalising __new__), and transformers, whose damage and Energon come in
# halves, does some thirty a fight. A Fraction is made here from its parts in lowest terms, in its
# two slots (the ones Fraction's own arithmetic fills, Python 3.11 to 3.13).

_new_fraction = object.__new__


def _rational(n: int, d: int, bits: int):
    """n/d (d > 0) in lowest terms: an int when whole; past `bits`, a bail."""
    if d == 2:   # halves, the usual case: no gcd to work out
        if not n & 1:
            n >>= 1
            if n.bit_length() > bits:
                raise Bail()
            return n
        if n.bit_length() > bits or bits < 2:   # the denominator, 2, has 2 bits
            raise Bail()
        value = _new_fraction(Fraction)
        value._numerator, value._denominator = n, 2
        return value
    g = gcd(n, d)
    if g != 1:
        n //= g
        d //= g
    if d == 1:
        if n.bit_length() > bits:
            raise Bail()
        return n
    if n.bit_length() > bits or d.bit_length() > bits:
        raise Bail()
    value = _new_fraction(Fraction)
    value._numerator, value._denominator = n, d
    return value


def exact_sum(a, b, bits: int):
    """`a + b` of an int or Fraction `a` and `b`, as the closures' `binary` gives it (above). Written
    out for an int and a Fraction, the written code's case (its test of both found one not whole):
    no tuple made and unpacked, two class tests in all."""
    if a.__class__ is int:
        if b.__class__ is int:
            return _rational(a + b, 1, bits)
        d = b._denominator
        return _rational(a * d + b._numerator, d, bits)
    n, d = a._numerator, a._denominator
    if b.__class__ is int:
        return _rational(n + b * d, d, bits)
    bd = b._denominator
    return _rational(n + b._numerator, d, bits) if d == bd else _rational(n * bd + b._numerator * d, d * bd, bits)


def exact_difference(a, b, bits: int):
    """`a - b` of an int or Fraction `a` and `b`, as the closures' `binary` gives it (above); as
    exact_sum, written out."""
    if a.__class__ is int:
        if b.__class__ is int:
            return _rational(a - b, 1, bits)
        d = b._denominator
        return _rational(a * d - b._numerator, d, bits)
    n, d = a._numerator, a._denominator
    if b.__class__ is int:
        return _rational(n - b * d, d, bits)
    bd = b._denominator
    return _rational(n - b._numerator, d, bits) if d == bd else _rational(n * bd - b._numerator * d, d * bd, bits)


def exact_product(a, b, bits: int):
    """`a * b` of an int or Fraction `a` and `b`, as the closures' `binary` gives it (above)."""
    if a.__class__ is int:
        if b.__class__ is int:
            return _rational(a * b, 1, bits)
        return _rational(a * b._numerator, b._denominator, bits)
    if b.__class__ is int:
        return _rational(a._numerator * b, a._denominator, bits)
    return _rational(a._numerator * b._numerator, a._denominator * b._denominator, bits)


def exact_quotient(a, b, bits: int):
    """`a / b` of an int or Fraction `a` and `b`, `b` not 0, as the closures' `binary` gives it (above)."""
    an, ad = (a, 1) if type(a) is int else (a._numerator, a._denominator)
    bn, bd = (b, 1) if type(b) is int else (b._numerator, b._denominator)
    return _rational(an * bd, ad * bn, bits) if bn > 0 else _rational(-an * bd, -ad * bn, bits)


def half(a: int):
    """`Fraction(a, 2)` of an odd int (the written `a / 2`): in lowest terms as it is."""
    value = _new_fraction(Fraction)
    value._numerator, value._denominator = a, 2
    return value


def ratio(a: int, b: int):
    """`Fraction(a, b)` of ints, b not 0 and not dividing a (the written `a / b` of whole numbers)."""
    if b < 0:
        a, b = -a, -b
    g = gcd(a, b)
    value = _new_fraction(Fraction)
    value._numerator, value._denominator = a // g, b // g
    return value


EXACT = {"+": "exact_sum", "-": "exact_difference", "*": "exact_product"}   # their names in the written code


# What a spent budget goes on to: each next() bails (the run is replayed by the closures, which word
# the limit's error at its place).
BAILING = iter(bail, None)


class Budget:
    """What is left of a count (steps, dice), in two parts that each start with all of it. The written
    code spends one at a time from an iterator, `next(STEP)` (no count of its own to add to and test;
    past the end, next() bails), and n at a time from a number of the namespace, `if (STEP_BULK :=
    STEP_BULK - n) < 0: bail()` (a new islice to spend n from the iterator cost 8 times as much).
    Either part alone stops a run that spends more than the limit. A run that ends having spent more
    than the limit from the two together bails at its end (QuietFight.fight), and the closures,
    replaying it, stop it where they do. `spent` is the count as the closures keep it."""

    __slots__ = ("left", "items", "limit", "start", "namespace", "bulk")

    def __init__(self, spent: int, limit: int, namespace: dict, bulk: str):
        self.start = max(0, limit - spent)
        self.limit = limit
        self.namespace, self.bulk = namespace, bulk
        self.renewed()

    def renewed(self):
        """The budget whole again, for a new run: its iterator (`items`), its number set."""
        self.left = iter(range(self.start))
        self.items = chain(self.left, BAILING)
        self.namespace[self.bulk] = self.start
        return self.items

    @property
    def spent(self) -> int:
        return self.limit - length_hint(self.left) + self.start - self.namespace[self.bulk]

    @property
    def overspent(self) -> bool:
        return self.start - length_hint(self.left) - self.namespace[self.bulk] > 0   # spent > limit

    def spend(self, n: int) -> None:
        if n > 0:
            namespace = self.namespace
            left = namespace[self.bulk] - n
            namespace[self.bulk] = left
            if left < 0:
                bail()


class WrittenRun(Run):
    """A quiet run of the written code: its steps and dice are the namespace's budgets STEP and
    STEP_BULK, DICE and DICE_BULK (Budget), which the interpreter's helpers spend too, through the
    same `steps`, `dice`, `step` and `spend` as a closures' run. Its `say` lines are the budget SAY:
    a quiet run shows none, but counts them against `output_lines` (nothing else of the written code
    says anything)."""

    __slots__ = ("namespace", "step_budget", "dice_budget", "lines")

    def __init__(self, source, limits, namespace: dict, steps: int, dice: int, lines: int):
        self.namespace = namespace
        self.step_budget = Budget(steps, limits.steps, namespace, "STEP_BULK")
        self.dice_budget = Budget(dice, limits.total_dice, namespace, "DICE_BULK")
        self.lines = max(0, limits.output_lines - lines)
        super().__init__(source, limits, quiet=True)
        namespace["EV"] = self   # the written code's run, every run: renewed, never made again
        self.renew(source)

    def renew(self, source) -> "WrittenRun":
        """This run made ready for the next, with `source` for its dice: its budgets whole, nothing
        said or rolled. A batch renews one run for each of its runs (QuietFight.fight): a new one
        and its parts cost 2 microseconds of a pbem run's 50."""
        self.source = source
        namespace = self.namespace
        namespace["STEP"], namespace["DICE"] = self.step_budget.renewed(), self.dice_budget.renewed()
        namespace["SAY"] = chain(range(self.lines), BAILING)   # nobody asks what is spent
        if self.rolls:
            self.rolls = []
        if self.log:
            self.log = []
        return self

    # A count set lower than what is spent (Evaluation.__init__ sets 0) spends nothing: a budget
    # never gives back.
    def _set_steps(self, value: int) -> None:
        if value:
            self.step_budget.spend(value - self.step_budget.spent) if value <= self.limits.steps else bail()

    def _set_dice(self, value: int) -> None:
        if value:
            self.dice_budget.spend(value - self.dice_budget.spent) if value <= self.limits.total_dice else bail()

    def _set_step_limit(self, value: int) -> None:
        if value < 0:   # CpuTime: the time is up, and the next step stops the run
            self.namespace["STEP"] = BAILING
            self.namespace["STEP_BULK"] = -1   # below 0 whatever is spent from it

    steps = property(lambda self: self.step_budget.spent, _set_steps)
    dice = property(lambda self: self.dice_budget.spent, _set_dice)
    step_limit = property(lambda self: self.limits.steps, _set_step_limit)

    def step(self, span, work: int = 1) -> None:
        if self.namespace["STEP"] is BAILING:
            bail()
        self.step_budget.spend(work)

    def spend(self, n: int, span) -> None:
        if n > 0:   # Budget.spend, with one call fewer: a roll-and-keep pool spends here at each roll
            namespace = self.namespace
            left = namespace["DICE_BULK"] - n
            namespace["DICE_BULK"] = left
            if left < 0:
                bail()

    @property
    def overspent(self) -> bool:
        """Whether the run spent more steps or dice than its limits from the two parts of a budget
        together: the closures would have stopped it. Or its time is up: CpuTime's handler may
        set STEP_BULK below 0 between a bulk spend's read of it and its store, which writes over it."""
        return self.step_budget.overspent or self.dice_budget.overspent or self.namespace["STEP"] is BAILING


def module_field_set(value, name: str, new, span) -> None:
    """`set_field` as the written code calls it: a field of a module (an option set through a name
    that holds the module, `let p = pbem` then `p.tie = ...`) bails, since the written code reads
    each module's options as its own globals; the closures play the run."""
    if type(value) is Module:
        bail()
    set_field(value, name, new, span)


def fresh(value):
    """A copy of `value` for a new run: lists and records copied all the way down (what a run made
    anew each time), anything else (characters, functions, numbers, strings) as it is."""
    kind = type(value)
    if kind is list:
        return [fresh(item) for item in value]
    if isinstance(value, Record):
        return record_of({name: fresh(item) for name, item in value.fields.items()})
    if kind is Table and any(mutable(v) for row in value.rows.values() for v in _row_values(row)):
        rows = {name: TableRow(row.name, [(key, fresh(v)) for key, v in row.entries], fresh(row.default),
                               row.has_default) for name, row in value.rows.items()}
        return Table(value.name, rows)
    return value


def copier(value):
    """What copies `value` for each run as `fresh` does, made once: `list` for a list of values it
    leaves as they are; for a record that holds only such values and such lists (transformers'
    `traits`), a copy of its dict with each list copied, in C, where `fresh` would be called on each
    of its fields; else `fresh`."""
    if type(value) is list and not any(map(mutable, value)):
        return list
    if isinstance(value, Record) and all(type(item) is list and not any(map(mutable, item)) or not mutable(item)
                                     for item in value.fields.values()):
        lists = [name for name, item in value.fields.items() if type(item) is list]

        def copied(value):
            fields = value.fields.copy()
            for name in lists:
                fields[name] = fields[name][:]
            return record_of(fields)
        return copied
    return fresh


def copying(copies: list):
    """One function that puts a copy of each value of `copies` ((fields, name, copy, value): copy
    as copier made it) into its character's fields, written out as Python, each field one line: a
    run restores 16 of transformers' (in a loop, 15 bytecodes each; here 4 to 7). An empty list's
    copy is a new empty list."""
    names, lines = {}, []
    for i, (fields, name, copy, value) in enumerate(copies):
        names[f"F{i}"] = fields
        if copy is list and not value:
            lines.append(f"    F{i}[{name!r}] = []")
        else:
            names[f"C{i}"], names[f"V{i}"] = copy, value
            lines.append(f"    F{i}[{name!r}] = C{i}(V{i})")
    namespace = dict(names)   # each a default of the function: read as a local
    exec(f"def copy_all({', '.join(f'{n}={n}' for n in names)}):\n" + "\n".join(lines or ["    pass"]), namespace)
    return namespace["copy_all"]


def _row_values(row):
    yield row.default
    for _, value in row.entries:
        yield value


def mutable(value) -> bool:
    """Whether `fresh` copies anything of `value`."""
    return type(value) is list or isinstance(value, Record)
