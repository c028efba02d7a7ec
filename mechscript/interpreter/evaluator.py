"""Evaluates the AST. Values are ints, Fractions, bools, lists, rolls (DiceRoll, KeepRoll) and
unrolled roll-and-keep pools (Pool).

A roll counts as its total wherever a number is needed. A pool stays unrolled while it is added to
or subtracted from (that is pool arithmetic: `7k3 + 2k0 - 0k1 + 5` is one 9k2+5 roll); it is rolled
when a number is needed (a comparison, `*`, a function) or at the end. So in `7k3 + d6` the d6 falls
first and the pool after it: the pool's size is known only once its whole sum is.
Evaluation never formats text: showing results is `show.py`.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..dice.engine import DiceRoll, Tally, roll_dice
from ..dice.faces import FaceSource
from ..dice.rollkeep import KeepRoll, Pool, roll_and_keep
from . import ast
from .errors import MechError, Span, did_you_mean
from .limits import Limits, limit_error

FUDGE = (-1, 0, 1)
CONSTANTS = {"true": True, "false": False}


def normal(x):
    """Fractions that are whole become ints, so `4/2` is 2 and prints as 2."""
    return x.numerator if type(x) is Fraction and x.denominator == 1 else x


def round_half_away(x):
    """`round` as a game master expects it: 2.5 -> 3, -2.5 -> -3 (not Python's banker's rounding)."""
    return int(math.floor(abs(x) + Fraction(1, 2))) * (1 if x >= 0 else -1)


def type_name(value) -> str:
    if type(value) is bool:
        return "true/false"
    if type(value) is list:
        return "a list"
    if type(value) is Pool:
        return "a pool"
    return "a number"


def _at(error: MechError, span: Span) -> MechError:
    """Errors of the face source (out of faces, impossible face) happen at the roll that drew."""
    if error.span is None:
        error.span = span
    return error


class Builtin:
    __slots__ = ("name", "min_args", "max_args", "options", "doc")

    def __init__(self, name, min_args, max_args, options, doc):
        self.name, self.min_args, self.max_args, self.options, self.doc = name, min_args, max_args, options, doc


BUILTINS = {
    b.name: b for b in (
        Builtin("floor", 1, 1, (), "floor(x): round down, floor(7/2) = 3"),
        Builtin("ceil", 1, 1, (), "ceil(x): round up, ceil(7/2) = 4"),
        Builtin("round", 1, 1, (), "round(x): nearest whole number, halves away from zero: round(5/2) = 3"),
        Builtin("abs", 1, 1, (), "abs(x): distance from zero, abs(-3) = 3"),
        Builtin("min", 1, None, (), "min(a, b, ...): the smallest, min(2d6, 8)"),
        Builtin("max", 1, None, (), "max(a, b, ...): the largest, max(d20, d20)"),
        Builtin("roll", 1, 1, ("explode",), "roll(pool, explode: false): roll a pool, with options: "
                "roll(7k3, explode: false) for a Fatigued character"),
    )
}


class Evaluator:
    """One evaluation: its face source, its limits, the dice it has rolled (for showing them)."""

    __slots__ = ("source", "tally", "rolls")

    def __init__(self, source: FaceSource, limits: Limits):
        self.source = source
        self.tally = Tally(limits)
        self.rolls: list = []

    def result(self, node: ast.Node):
        """Evaluate a whole expression; a pool left standing at the end is rolled."""
        value = self.eval(node)
        if type(value) is Pool:
            value = self.roll_pool(value)
        return value

    def eval(self, node: ast.Node):
        return _DISPATCH[type(node)](self, node)

    # ---- values ----

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

    def whole(self, node: ast.Node, what: str) -> int:
        value = self.number(self.eval(node), node.span)
        if type(value) is not int:
            raise MechError(f"{what} must be a whole number, not {value}", node.span)
        return value

    def roll_pool(self, pool: Pool, explode: bool = True) -> KeepRoll:
        try:
            roll = roll_and_keep(self.source, pool, self.tally, explode)
        except MechError as error:
            raise _at(error, pool.span)
        self.rolls.append(roll)
        return roll

    # ---- nodes ----

    def eval_number(self, node: ast.Number):
        return node.value

    def eval_pool(self, node: ast.PoolLiteral):
        return Pool(node.unkept, node.kept, 0, node.span)

    def eval_name(self, node: ast.Name):
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id in BUILTINS:
            raise MechError(f"`{node.id}` is a function", node.span, hint=f"call it: {BUILTINS[node.id].doc}")
        raise MechError(f"unknown name `{node.id}`", node.span,
                        hint=did_you_mean(node.id, [*CONSTANTS, *BUILTINS]))

    def eval_group(self, node: ast.Group):
        return self.eval(node.inner)

    def eval_list(self, node: ast.ListLiteral):
        return [self.eval(item) for item in node.items]

    def eval_unary(self, node: ast.Unary):
        value = self.eval(node.operand)
        if type(value) is Pool:
            return value.negated(node.span) if node.op == "-" else value
        number = self.number(value, node.operand.span)
        return -number if node.op == "-" else number

    def eval_binop(self, node: ast.BinOp):
        left = self.eval(node.left)
        right = self.eval(node.right)
        op = node.op
        if op in ("+", "-") and (type(left) is Pool or type(right) is Pool):
            return self._pool_arithmetic(left, op, right, node)
        a = self.number(left, node.left.span)
        b = self.number(right, node.right.span)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return normal(a * b)
        if b == 0:
            raise MechError("division by zero", node.right.span, hint="the right side of this operator is 0")
        if op == "/":
            return normal(Fraction(a) / b)
        if op == "//":
            return a // b
        return normal(a % b)

    def _pool_arithmetic(self, left, op: str, right, node: ast.BinOp) -> Pool:
        sign = 1 if op == "+" else -1
        if type(left) is Pool and type(right) is Pool:
            return left.combine(right, sign, node.span)
        if type(left) is Pool:
            return left.plus(sign * self.number(right, node.right.span), node.span)
        pool = right if sign == 1 else right.negated(node.span)
        return pool.plus(self.number(left, node.left.span), node.span)

    def eval_compare(self, node: ast.Compare) -> bool:
        left = self._comparand(self.eval(node.left))
        right = self._comparand(self.eval(node.right))
        op = node.op
        # L24: an automatic failure fails whatever it is compared against, as the roller's side.
        if type(left) is KeepRoll and left.auto_fail and op in (">", ">="):
            return False
        if type(right) is KeepRoll and right.auto_fail and op in ("<", "<="):
            return False
        if type(left) is bool or type(right) is bool:
            if type(left) is not type(right) or op not in ("==", "!="):
                raise MechError(f"cannot compare {type_name(left)} with {type_name(right)} using `{op}`", node.span)
            return (left == right) == (op == "==")
        a = self.number(left, node.left.span)
        b = self.number(right, node.right.span)
        if op == ">":
            return a > b
        if op == ">=":
            return a >= b
        if op == "<":
            return a < b
        if op == "<=":
            return a <= b
        if op == "==":
            return a == b
        return a != b

    def _comparand(self, value):
        return self.roll_pool(value) if type(value) is Pool else value

    def eval_call(self, node: ast.Call):
        builtin = BUILTINS.get(node.name)
        if builtin is None:
            raise MechError(f"unknown function `{node.name}`", node.name_span,
                            hint=did_you_mean(node.name, BUILTINS) or "functions: " + ", ".join(BUILTINS))
        count = len(node.args)
        if count < builtin.min_args or (builtin.max_args is not None and count > builtin.max_args):
            wanted = (f"{builtin.min_args}" if builtin.min_args == builtin.max_args
                      else f"at least {builtin.min_args}")
            plural = "" if builtin.min_args == 1 else "s"
            raise MechError(f"`{node.name}` takes {wanted} argument{plural}, not {count}",
                            node.span, hint=builtin.doc)
        for key in node.kwargs:
            if key not in builtin.options:
                raise MechError(f"`{node.name}` has no option `{key}`", node.kwargs[key].span,
                                hint=did_you_mean(key, builtin.options) or builtin.doc)
        if node.name == "roll":
            return self._roll_builtin(node)
        numbers = [self.number(self.eval(arg), arg.span) for arg in node.args]
        name = node.name
        if name == "floor":
            return math.floor(numbers[0])
        if name == "ceil":
            return math.ceil(numbers[0])
        if name == "round":
            return round_half_away(numbers[0])
        if name == "abs":
            return abs(numbers[0])
        return min(numbers) if name == "min" else max(numbers)

    def _roll_builtin(self, node: ast.Call) -> KeepRoll:
        pool = self.eval(node.args[0])
        if type(pool) is not Pool:
            raise MechError(f"`roll` takes a roll-and-keep pool such as 7k3, not {type_name(pool)}",
                            node.args[0].span, hint=BUILTINS["roll"].doc)
        explode = True
        if "explode" in node.kwargs:
            explode = self.eval(node.kwargs["explode"])
            if type(explode) is not bool:
                raise MechError("`explode` is true or false", node.kwargs["explode"].span)
        return self.roll_pool(pool, explode)

    def eval_dice(self, node: ast.Dice) -> DiceRoll:
        count_node = node.count
        if count_node is None:
            count = 1
        elif type(count_node) is ast.Number and type(count_node.value) is int:
            count = count_node.value
        else:
            count = self.whole(count_node, "the number of dice")
            if count < 0:
                raise MechError(f"cannot roll {count} dice", count_node.span)
        die = self._die(node)
        try:
            roll = roll_dice(self.source, count, die, node.modifiers, self.tally, node.span)
        except MechError as error:
            raise _at(error, node.span)
        self.rolls.append(roll)
        return roll

    def _die(self, node: ast.Dice):
        sides = node.sides
        if sides == "%":
            return 100
        if sides == "F":
            return FUDGE
        if type(sides) is ast.ListLiteral:
            faces = tuple(self.number(self.eval(item), item.span) for item in sides.items)
            if not faces:
                raise MechError("a die needs at least one face", sides.span, hint="list its faces: d[1,1,2,3,5,8]")
            return faces
        if type(sides) is ast.Number and type(sides.value) is int:
            count = sides.value
        else:
            count = self.whole(sides, "the number of sides")
        if count < 1:
            raise MechError(f"a die needs at least one side, not {count}", sides.span)
        limit = self.tally.limits.die_sides
        if count > limit:
            raise limit_error("die_sides", f"a die of {count} sides is too big", limit, sides.span)
        return count


_DISPATCH = {
    ast.Number: Evaluator.eval_number,
    ast.PoolLiteral: Evaluator.eval_pool,
    ast.Name: Evaluator.eval_name,
    ast.Group: Evaluator.eval_group,
    ast.ListLiteral: Evaluator.eval_list,
    ast.Unary: Evaluator.eval_unary,
    ast.BinOp: Evaluator.eval_binop,
    ast.Compare: Evaluator.eval_compare,
    ast.Call: Evaluator.eval_call,
    ast.Dice: Evaluator.eval_dice,
}
