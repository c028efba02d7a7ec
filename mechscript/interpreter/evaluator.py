"""Evaluates expressions, compiled once into Python closures that are then run many times (a dice
expression is parsed once and rolled thousands of times). Values are ints, Fractions, bools, lists,
rolls (DiceRoll, KeepRoll) and unrolled roll-and-keep pools (Pool); scripts add more (values.py).

A roll counts as its total wherever a number is needed. A pool stays unrolled while it is added to
or subtracted from (that is pool arithmetic: `7k3 + 2k0 - 0k1 + 5` is one 9k2+5 roll); it is rolled
when a number is needed (a comparison, `*`, a function) or at the end. Faces go to terms left to
right, a pool's where it is written (see `_compile_pool_sum`).
Evaluation never formats text: showing results is `show.py`.

The statement language (script.py) extends the Compiler; names, functions and their arity are
checked while compiling, before any die is rolled.
"""

from __future__ import annotations

from fractions import Fraction

from ..dice.engine import DiceRoll, Tally, roll_dice, sampler
from ..dice.faces import FaceSource
from ..dice.rollkeep import KeepRoll, Pool, pool_of, roll_and_keep
from . import ast
from .builtins import BUILTINS, NOT_ROLLED
from ..errors import MechError, Span, did_you_mean
from ..limits import Limits, limit_error, out_of_time
from .odds import compile_call
from .operators import ARITHMETIC, COMPARISONS, CONSTANTS, FUDGE, exact_power, may_roll, pool_after_pool, pool_chain
from .values import TEXT_STEP, equal, format_value, type_name



def _at(error: MechError, span: Span) -> MechError:
    """Errors of the face source (out of faces, impossible face) happen at the roll that drew."""
    if error.span is None:
        error.span = span
    return error


class Evaluation(Tally):
    """One run of a compiled expression: its face source, the dice it has rolled (counted against
    the limits, and kept in order for showing them)."""

    __slots__ = ("source", "rolls", "steps", "step_limit")

    def __init__(self, source: FaceSource, limits: Limits):
        self.limits = limits
        self.dice = 0
        self.source = source
        self.rolls: list = []
        self.steps = 0
        # loop rounds and calls count their step inline against it; CpuTime sets it to -1 when the
        # time is up, so that the next count stops the run there
        self.step_limit = limits.steps

    def step(self, span: Span | None, work: int = 1) -> None:
        """Counts loop rounds (a `for` its whole length at once), calls, and the work of list and
        string operations (one step an item), against `Limits.steps`. `step(span, 0)` raises the
        error of a count already past the limit."""
        self.steps += work
        if self.steps > self.step_limit:
            if self.step_limit < 0:
                raise out_of_time(self.limits, span)
            raise limit_error("steps", f"the script ran more than {self.limits.steps} steps", self.limits.steps, span)

    def number(self, value, span: Span):
        """The numeric value of `value`: rolls give their totals, pools are rolled."""
        kind = type(value)
        if kind is int or kind is Fraction:
            return value
        if kind is DiceRoll or kind is KeepRoll:
            return value.total
        if kind is Pool:
            return self.roll_pool(value).total
        raise MechError(f"expected a number here, not {type_name(value)}", span)

    def roll_pool(self, pool: Pool, explode: bool = True) -> KeepRoll:
        try:
            roll = roll_and_keep(self.source, pool, self, explode)
        except MechError as error:
            raise _at(error, pool.span)
        self.rolls.append(roll)
        return roll


class Compiler:
    """Turns each node into a closure `code(ev) -> value`; static errors are raised here."""

    def __init__(self, limits: Limits, record: bool = True):
        self.limits = limits
        self.record = record

    def compile(self, node: ast.Node):
        return getattr(self, "compile_" + type(node).__name__)(node)

    def compile_Number(self, node: ast.Number):
        value = node.value
        return lambda ev: value

    def compile_PoolLiteral(self, node: ast.PoolLiteral):
        pool = pool_of(node.unkept, node.kept, 0, node.span)
        return lambda ev: pool

    def compile_Name(self, node: ast.Name):
        if node.id in CONSTANTS:
            value = CONSTANTS[node.id]
            return lambda ev: value
        if node.id in BUILTINS:
            raise MechError(f"`{node.id}` is a function", node.span, hint=f"call it: {BUILTINS[node.id].doc}")
        raise MechError(f"unknown name `{node.id}`", node.span,
                        hint=did_you_mean(node.id, [*CONSTANTS, *BUILTINS]))

    def compile_Group(self, node: ast.Group):
        return self.compile(node.inner)

    def compile_ListLiteral(self, node: ast.ListLiteral):
        if all(type(item) is ast.Number for item in node.items):  # a table of numbers: no code per item
            values = [item.value for item in node.items]
            return lambda ev: list(values)
        items = [self.compile(item) for item in node.items]
        return lambda ev: [item(ev) for item in items]

    def compile_Unary(self, node: ast.Unary):
        operand, negate = self.compile(node.operand), node.op == "-"

        def sign(ev):
            value = operand(ev)
            if type(value) is int:  # the common case without a call (`-2` is a Unary)
                return -value if negate else value
            return unary(ev, node, value)
        return sign

    def compile_BinOp(self, node: ast.BinOp):
        chain = pool_chain(node)
        if chain is not None:
            return self._compile_pool_sum(chain)
        left, right, op = self.compile(node.left), self.compile(node.right), node.op
        if op in ("+", "-"):
            sign, small = (1 if op == "+" else -1), small_whole(self.limits)

            def add(ev):
                a, b = left(ev), right(ev)
                if type(a) is int and type(b) is int and -small < a < small and -small < b < small:
                    return a + sign * b
                return binary(ev, op, a, b, node)
            return add
        return lambda ev: binary(ev, op, left(ev), right(ev), node)

    def _compile_pool_sum(self, chain):
        """A sum that may hold roll-and-keep pools, in the order the brief gives faces: terms left
        to right, a pool's dice where the pool stands. A pool's size is known only once every term
        of the sum is (`7k3 + d6 + 2k0` rolls 9k3), so once a pool appears, the terms that may roll
        dice wait: the terms without dice are worked out, the pool is rolled, then the waiting terms."""
        terms = [(binop, self.compile(term), may_roll(term), binop is not None and binop.op == "+")
                 for binop, term in chain]
        small = small_whole(self.limits)

        def pool_sum(ev):
            total, waiting = None, []
            for binop, code, may_roll, plus in terms:
                if may_roll and type(total) is Pool:
                    waiting.append((binop, code))
                    continue
                value = code(ev)
                if binop is None:
                    total = value
                elif type(total) is int and type(value) is int and -small < total < small and -small < value < small:
                    total = total + value if plus else total - value
                else:
                    total = binary(ev, binop.op, total, value, binop)
            if waiting:
                total = ev.roll_pool(total)
                for binop, code in waiting:
                    value = code(ev)
                    if type(value) is Pool:
                        raise pool_after_pool(binop)
                    total = binary(ev, binop.op, total, value, binop)
            return total
        return pool_sum

    def compile_Power(self, node: ast.Power):
        base, exponent = self.compile(node.base), self.compile(node.exponent)
        return lambda ev: power(ev, base(ev), exponent(ev), node)

    def compile_Compare(self, node: ast.Compare):
        left, right, op = self.compile(node.left), self.compile(node.right), node.op
        compare = COMPARISONS[op]
        constant = _constant(node.right)  # `c.status == "active"`: known without a call

        def comparison(ev) -> bool:
            a = left(ev)
            b = constant if constant is not _NOT_CONSTANT else right(ev) if type(a) is not Pool else None
            if type(a) is int and type(b) is int or type(a) is str and type(b) is str and len(a) < TEXT_STEP:
                return compare(a, b)  # the common case (a long string's work is counted: compare_values)
            return general(ev, a, b)

        def general(ev, a, b) -> bool:
            if type(a) is Pool:
                a = ev.roll_pool(a)
                b = right(ev)
            return compare_values(ev, node, a, b)
        return comparison

    def compile_Call(self, node: ast.Call):
        callee = node.callee
        if type(callee) is ast.Name and callee.id in NOT_ROLLED:
            return compile_call(self, node)
        if type(callee) is not ast.Name or callee.id not in BUILTINS:
            name = callee.id if type(callee) is ast.Name else None
            raise MechError(f"unknown function `{name}`" if name else "only functions can be called", callee.span,
                            hint=(did_you_mean(name, BUILTINS) if name else None) or "functions: " + ", ".join(BUILTINS))
        return self.compile_builtin_call(BUILTINS[callee.id], node)

    def compile_builtin_call(self, builtin, node: ast.Call):
        count = len(node.args)
        if count < builtin.min_args or (builtin.max_args is not None and count > builtin.max_args):
            raise MechError(f"`{builtin.name}` takes {builtin.arity_text()}, not {count}", node.span, hint=builtin.doc)
        for key in node.kwargs:
            if builtin.options is not None and key not in builtin.options:
                raise MechError(f"`{builtin.name}` has no option `{key}`", node.kwargs[key].span,
                                hint=did_you_mean(key, builtin.options) or builtin.doc)
        args = [self.compile(arg) for arg in node.args]
        options = {key: self.compile(value) for key, value in node.kwargs.items()}
        impl = builtin.impl
        if not options and len(args) == 1:  # the usual call, without comprehensions (a call each)
            first, = args
            return lambda ev: impl(ev, [first(ev)], {}, node)
        if not options and len(args) == 2:
            first, second = args
            return lambda ev: impl(ev, [first(ev), second(ev)], {}, node)
        return lambda ev: impl(ev, [arg(ev) for arg in args], {k: v(ev) for k, v in options.items()}, node)

    def compile_Dice(self, node: ast.Dice):
        limits, span, modifiers = self.limits, node.span, node.modifiers
        if len(modifiers) > limits.modifiers:
            raise limit_error("modifiers", f"{len(modifiers)} modifiers on one roll are too many", limits.modifiers,
                              modifiers[limits.modifiers].span)
        count_code = self._whole(node.count, "the number of dice") if node.count is not None else None
        die_code = self._die(node)
        constant_count = node.count is None or (type(node.count) is ast.Number and type(node.count.value) is int)
        if constant_count and not callable(die_code):  # the common case, `4d6kh3`: all known now
            count = 1 if node.count is None else node.count.value
            die = die_code
            _check_count(count, limits, span)
            sample = None if self.record else sampler(count, die, modifiers)
            if sample is not None:
                return _sampled_dice(sample, count, span)
            return lambda ev: _roll_dice(ev, count, die, modifiers, span)

        def dice(ev) -> DiceRoll:
            count = 1 if count_code is None else count_code(ev)
            _check_count(count, limits, span)
            if count < 0:
                raise MechError(f"cannot roll {format_value(count)} dice", node.count.span)
            return _roll_dice(ev, count, die_code(ev) if callable(die_code) else die_code, modifiers, span)
        return dice

    def _whole(self, node: ast.Node, what: str):
        code, span = self.compile(node), node.span

        def whole(ev) -> int:
            value = ev.number(code(ev), span)
            if type(value) is not int:
                raise MechError(f"{what} must be a whole number, not {format_value(value)}", span)
            return value
        return whole

    def _die(self, node: ast.Dice):
        """The die, if it is known now (an int of sides or a tuple of faces), else a closure giving it."""
        sides = node.sides
        if sides == "%":
            return 100
        if sides == "F":
            return FUDGE
        if type(sides) is ast.ListLiteral:
            if not sides.items:
                raise MechError("a die needs at least one face", sides.span, hint="list its faces: d[1,1,2,3,5,8]")
            items = [(self.compile(item), item.span) for item in sides.items]
            return lambda ev: tuple(ev.number(item(ev), span) for item, span in items)
        if type(sides) is ast.Number and type(sides.value) is int:
            return self._check_sides(sides.value, sides.span)
        whole = self._whole(sides, "the number of sides")
        return lambda ev: self._check_sides(whole(ev), sides.span)

    def _check_sides(self, count: int, span: Span) -> int:
        if count < 1:
            raise MechError(f"a die needs at least one side, not {format_value(count)}", span)
        if count > self.limits.die_sides:
            raise limit_error("die_sides", f"a die of {format_value(count)} sides is too big", self.limits.die_sides, span)
        return count


def small_whole(limits: Limits) -> int:
    """Whole numbers below this size add and subtract with none of `binary`'s checks: the result
    cannot outgrow `number_bits`."""
    return 2 ** max(0, min(60, limits.number_bits - 1))


def _check_count(count: int, limits: Limits, span: Span) -> None:
    if count > limits.dice_per_roll:
        raise limit_error("dice_per_roll", f"{format_value(count)} dice in one roll is too many",
                          limits.dice_per_roll, span)


def _roll_dice(ev: Evaluation, count: int, die, modifiers, span: Span) -> DiceRoll:
    """Roll a dice term with its whole breakdown, and keep it for showing."""
    try:
        roll = roll_dice(ev.source, count, die, modifiers, ev, span)
    except MechError as error:
        raise _at(error, span)
    ev.rolls.append(roll)
    return roll


def _sampled_dice(sample, count: int, span: Span):
    """The hot path of sampling: `4d6kh3` as a number, no breakdown kept."""
    def sampled_dice(ev) -> int:
        ev.dice += count
        if ev.dice > ev.limits.total_dice:
            ev.spend(0, span)  # raises the limit error
        try:
            return sample(ev.source)
        except MechError as error:
            raise _at(error, span)
    return sampled_dice


def unary(ev: Evaluation, node: ast.Unary, value):
    """`-x` and `+x`: a pool stays a pool; anything else is a number."""
    if type(value) is Pool:
        return value.negated(node.span) if node.op == "-" else value
    number = ev.number(value, node.operand.span)
    return -number if node.op == "-" else number


def compare_values(ev: Evaluation, node: ast.Compare, a, b) -> bool:
    """`a op b` for any values, once a pool on the left is rolled (and the right worked out after it)."""
    op = node.op
    if type(b) is Pool:
        b = ev.roll_pool(b)
    # L24 (rule text 000): an automatic failure fails whatever it is compared against.
    if type(a) is KeepRoll and a.auto_fail and op in (">", ">="):
        return False
    if type(b) is KeepRoll and b.auto_fail and op in ("<", "<="):
        return False
    if op == "==" or op == "!=":
        try:
            return equal(a, b, ev) == (op == "==")
        except MechError as error:
            raise _at(error, node.span)
    compare = COMPARISONS[op]
    if type(a) is str and type(b) is str:
        # Python orders them a block of memory at a time, up to the first difference (values.equal)
        ev.step(node.span, min(len(a), len(b)) // TEXT_STEP)
        return compare(a, b)
    return compare(ev.number(a, node.left.span), ev.number(b, node.right.span))


def binary(ev: Evaluation, op: str, a, b, node: ast.Node):
    """`a op b` for + - * / // %: numbers (rolls by their totals), pools, strings and lists.
    `node` gives the positions for errors (a BinOp, or the Assign of a `+=`)."""
    kind_a, kind_b = type(a), type(b)
    if kind_a is Pool or kind_b is Pool:
        if op in ("+", "-"):
            return _pool_arithmetic(ev, a, op, b, node)
    elif op == "+" and kind_a is kind_b and (kind_a is str or kind_a is list):
        return _concatenate(ev, a, b, node.span)
    elif kind_a in (str, list) or kind_b in (str, list):
        raise MechError(f"cannot {_VERBS[op]} {type_name(a)} and {type_name(b)}", node.span,
                        hint='`+` joins two strings or two lists; put a number in a string with "{x}"')
    left_span, right_span = _operand_spans(node)
    a = ev.number(a, left_span)
    b = ev.number(b, right_span)
    if b == 0 and op in ("/", "//", "%"):
        raise MechError("division by zero", right_span, hint="the right side of this operator is 0")
    result = ARITHMETIC[op](a, b)
    size = result.bit_length() if type(result) is int else max(result.numerator.bit_length(),
                                                             result.denominator.bit_length())
    if size > ev.limits.number_bits:
        raise limit_error("number_bits", f"a number of more than {ev.limits.number_bits} bits is too big",
                          ev.limits.number_bits, node.span)
    return result


def power(ev: Evaluation, base, exponent, node: ast.Power):
    """`base ** exponent` of numbers (rolls by their totals, pools rolled), as binary's `*`: both
    sides are worked out first."""
    return exact_power(ev.number(base, node.base.span), ev.number(exponent, node.exponent.span),
                       ev.limits, node)


def _operand_spans(node) -> tuple[Span, Span]:
    if type(node) is ast.BinOp:
        return node.left.span, node.right.span
    return node.target.span, node.value.span  # `target += value`


def _concatenate(ev: Evaluation, a, b, span: Span):
    """`"a" + "b"` and `[1] + [2]`, within the size limits."""
    ev.step(span, (len(a) + len(b)) // (TEXT_STEP if type(a) is str else 1))
    if type(a) is str:
        if len(a) + len(b) > ev.limits.string_size:
            raise limit_error("string_size", f"a string of {len(a) + len(b)} characters is too long",
                              ev.limits.string_size, span)
    elif len(a) + len(b) > ev.limits.list_size:
        raise limit_error("list_size", f"a list of {len(a) + len(b)} items is too long", ev.limits.list_size, span)
    return a + b


def _pool_arithmetic(ev: Evaluation, left, op: str, right, node) -> Pool:
    sign = 1 if op == "+" else -1
    left_span, right_span = _operand_spans(node)
    if type(left) is Pool and type(right) is Pool:
        return left.combine(right, sign, node.span)
    if type(left) is Pool:
        return left.plus(sign * ev.number(right, right_span), node.span)
    pool = right if sign == 1 else right.negated(node.span)
    return pool.plus(ev.number(left, left_span), node.span)


_NOT_CONSTANT = object()


def _constant(node: ast.Node):
    """The value of a number or plain string literal; _NOT_CONSTANT for anything else."""
    if type(node) is ast.Number:
        return node.value
    if type(node) is ast.String and all(type(part) is str for part in node.parts):
        return "".join(node.parts)
    return _NOT_CONSTANT


_VERBS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "divide", "%": "take the remainder of"}
