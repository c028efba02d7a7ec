"""Distributions as values: `prob(expr)`, `dist(expr)` and `mean(expr)` in expressions and scripts,
and the exact distribution behind `mech prob`.

The argument of these functions is not rolled: its AST is compiled into a closure giving its exact
distribution (dice/distribution.py), with the same meaning the evaluator gives it when it rolls.
Parts without dice (`skill`, `att.skill`, `floor(2.5 * tn)`) are compiled as usual and read when the
call runs; a name holding a distribution (`let d = dist(2d6)`) counts as a fresh draw of it each
time it is used. What cannot be computed exactly (a call of a script's function, a keep after an
explosion) is an error with a hint, or is estimated by sampling when asked: `prob(x, samples: N)`.
"""

from __future__ import annotations

import operator
from collections import defaultdict
from fractions import Fraction

from ..dice.distribution import PYTHON_STEPS, SAMPLING_HINT, Dist, Unsupported, Work, add, combine, dice_dist, mapped, \
    mix, outcome_bits, outcome_size, pool_dist
from ..dice.engine import DiceRoll
from ..dice.rollkeep import KeepRoll, Pool, normalize_halves, pool_of
from ..numbers import normal, weighted_sum
from . import ast
from .builtins import BUILTINS, NOT_ROLLED, round_half_away
from ..errors import MechError, Span, did_you_mean
from .lookup import get_index
from .operators import ARITHMETIC, COMPARISONS, FUDGE, exact_power, may_roll, pool_after_pool, pool_chain
from ..limits import limit_error
from .values import equal, format_value, type_name

FUNCTIONS = {  # builtins.NOT_ROLLED, with their help
    "prob": "prob(comparison): its exact probability, not rolled: prob(7k3 >= 25); "
            "prob(x, samples: 100000) estimates it by rolling",
    "dist": "dist(expr): its exact distribution, not rolled: let d = dist(2d6 + 3)",
    "mean": "mean(expr): its exact mean, not rolled: mean(4d6kh3) is 15869/1296",
}


class AutoFail(Dist):
    """A roll-and-keep pool that automatically fails (rule text 000 L24): a total of 0 that fails
    any comparison it should pass."""

    __slots__ = ()


class Distribution:
    """A distribution as a script value (`dist(2d6)`): exact, or estimated from `samples` rolls."""

    __slots__ = ("dist", "samples")
    TYPE_NAME = "a distribution"

    def __init__(self, dist: Dist, samples: int | None = None):
        self.dist = dist
        self.samples = samples

    def __str__(self) -> str:
        pairs = self.dist.probabilities()
        estimated = f" (estimated from {self.samples} rolls)" if self.samples else ""
        if len(pairs) > 24:
            low, high = format_value(pairs[0][0]), format_value(pairs[-1][0])
            mean = f", mean {float(dist_mean(self.dist)):.4g}" if type(pairs[0][0]) is not str else ""
            return f"<a distribution of {len(pairs)} outcomes from {low} to {high}{mean}{estimated}>"
        return "{" + ", ".join(f"{format_value(x)}: {_probability_text(p)}" for x, p in pairs) + "}" + estimated


def _probability_text(p: Fraction) -> str:
    return format_value(p) if p.denominator <= 1_000_000 else f"{float(p):.6g}"


def dist_mean(dist: Dist) -> Fraction:
    """The mean, given that no explosion went past the depth followed (weights over their mass)."""
    return Fraction(weighted_sum(dist.weights), dist.mass())


def _is_builtin_call(host, node, names) -> bool:
    """Whether `node` calls one of the language's own functions `names` (not a script's function of
    the same name)."""
    callee = node.callee
    if type(callee) is not ast.Name or callee.id not in names:
        return False
    static = getattr(host, "static", None)
    return static is None or static.resolve(callee.id, callee.span) is None


def _rolls_dice(host, node) -> bool:
    """Whether working out `node` the usual way could roll dice (then it is not read as a value):
    it holds a die, a block, or a call of anything but the language's own functions."""
    kind = type(node)
    if kind is ast.Dice or kind is ast.Block:
        return True
    if kind is ast.Call:
        if _is_builtin_call(host, node, NOT_ROLLED):
            return False  # prob, dist and mean do not roll their argument
        if not _is_builtin_call(host, node, BUILTINS) or node.callee.id == "roll":
            return True
    return any(_rolls_dice(host, child) for child in ast.children(node))


class ExactCompiler:
    """Turns an expression's AST into `code(ev, work) -> Dist | Pool`: its exact distribution (a
    pool stays unrolled while pool arithmetic goes on, as in the evaluator). `host` is the
    compiler of the script or expression, which compiles the parts without dice."""

    def __init__(self, host):
        self.host = host

    def compile(self, node: ast.Node):
        method = getattr(self, "compile_" + type(node).__name__, None)
        if method is not None and type(node) not in _LEAVES:
            return method(node)
        rolls = _rolls_dice(self.host, node)
        if method is not None and (rolls or type(node) is ast.Call and _is_builtin_call(self.host, node, _EXACT_CALLS)):
            return method(node)
        if rolls:
            raise Unsupported("this part is not computed exactly: it rolls dice in a way the exact odds do not follow",
                              node.span, hint=SAMPLING_HINT)
        return self._value(node)

    def _value(self, node: ast.Node):
        """A part without dice: worked out as usual when the call runs, then read as a constant.
        Should it roll after all (a function given a pool rolls it), that is an error, not a sample."""
        code, span = self.host.compile(node), node.span

        return lambda ev, work: lift(without_dice(ev, code, span), span)

    def compile_Number(self, node: ast.Number):
        value = Dist.constant(node.value)
        return lambda ev, work: value

    def compile_PoolLiteral(self, node: ast.PoolLiteral):
        pool = pool_of(node.unkept, node.kept, 0, node.span)
        return lambda ev, work: pool

    def compile_Group(self, node: ast.Group):
        return self.compile(node.inner)

    def compile_Unary(self, node: ast.Unary):
        operand, negate, span = self.compile(node.operand), node.op == "-", node.operand.span

        def unary(ev, work):
            value = operand(ev, work)
            if type(value) is Pool:
                return value.negated(node.span) if negate else value
            value = numbers(rolled(value, ev, work), span)
            return mapped(value, operator.neg, work, node.span) if negate else value
        return unary

    def compile_BinOp(self, node: ast.BinOp):
        chain = pool_chain(node)
        if chain is not None:
            return self._pool_sum(chain)
        left, right, op = self.compile(node.left), self.compile(node.right), node.op
        return lambda ev, work: arithmetic(ev, work, op, left(ev, work), right(ev, work), node)

    def compile_Power(self, node: ast.Power):
        base, exponent = self.compile(node.base), self.compile(node.exponent)

        def power(ev, work):
            a = numbers(rolled(base(ev, work), ev, work), node.base.span)
            b = numbers(rolled(exponent(ev, work), ev, work), node.exponent.span)
            power_work(a, b, ev.limits, work, node.span)
            return combine(a, b, lambda x, y: exact_power(x, y, ev.limits, node), work, node.span)
        return power

    def _pool_sum(self, chain):
        """As the evaluator's pool sum: terms that roll dice wait until the pool is rolled; the
        others add into it (a number into its bonus, a pool into its dice)."""
        terms = [(binop, self.compile(term), may_roll(term)) for binop, term in chain]

        def pool_sum(ev, work):
            total, waiting = None, []
            for binop, code, rolls in terms:
                if rolls and type(total) is Pool:
                    waiting.append((binop, code))
                    continue
                value = code(ev, work)
                total = value if binop is None else arithmetic(ev, work, binop.op, total, value, binop)
            if waiting:
                total = rolled(total, ev, work)
                for binop, code in waiting:
                    value = code(ev, work)
                    if type(value) is Pool:
                        raise pool_after_pool(binop)
                    total = arithmetic(ev, work, binop.op, total, value, binop)
            return total
        return pool_sum

    def compile_Compare(self, node: ast.Compare):
        left, right, op = self.compile(node.left), self.compile(node.right), node.op
        compare = COMPARISONS[op]

        def comparison(ev, work):
            a = rolled(left(ev, work), ev, work)
            b = rolled(right(ev, work), ev, work)
            # L24 (rule text 000): an automatic failure fails whatever it is compared against.
            if (type(a) is AutoFail and op in (">", ">=")) or (type(b) is AutoFail and op in ("<", "<=")):
                return Dist.constant(False)
            if op in ("==", "!="):
                if _only_numbers(a) and _only_numbers(b):  # equal by value: Python's own == of numbers
                    return combine(a, b, compare, work, node.span)
                return combine(a, b, lambda x, y: equal(x, y) == (op == "=="), work, node.span, PYTHON_STEPS)
            return combine(numbers(a, node.left.span), numbers(b, node.right.span), compare, work, node.span)
        return comparison

    def compile_Logic(self, node: ast.Logic):
        left, right, is_and = self.compile(node.left), self.compile(node.right), node.op == "and"

        def logic(ev, work):
            a = truths(rolled(left(ev, work), ev, work), node.left.span)
            b = truths(rolled(right(ev, work), ev, work), node.right.span)
            return combine(a, b, (lambda x, y: x and y) if is_and else (lambda x, y: x or y), work, node.span)
        return logic

    def compile_Not(self, node: ast.Not):
        operand = self.compile(node.operand)
        return lambda ev, work: truths(rolled(operand(ev, work), ev, work), node.operand.span).map(lambda x: not x)

    def compile_Call(self, node: ast.Call):
        if _is_builtin_call(self.host, node, ("floor", "ceil", "round", "abs")) and len(node.args) == 1 \
                and not node.kwargs:
            function = _ROUNDING[node.callee.id]
            arg, span = self.compile(node.args[0]), node.args[0].span
            return lambda ev, work: mapped(numbers(rolled(arg(ev, work), ev, work), span), function, work, node.span)
        if _is_builtin_call(self.host, node, ("min", "max")) and node.args and not node.kwargs:
            return self._extreme(node)
        if _is_builtin_call(self.host, node, ("roll",)) and len(node.args) == 1 and set(node.kwargs) <= {"explode"}:
            return self._roll(node)
        if type(node.callee) is ast.Name and not _is_builtin_call(self.host, node, BUILTINS):
            raise Unsupported(f"`{node.callee.id}(...)` is a function of the script: its odds are not computed "
                              "exactly", node.span, hint="give its result a name first (`let tn = target_number(x)`), "
                              "then use the name; or " + SAMPLING_HINT)
        raise Unsupported("the odds through this call are not computed exactly", node.span, hint=SAMPLING_HINT)

    def _extreme(self, node: ast.Call):
        pick = min if node.callee.id == "min" else max
        items = node.args[0].items if len(node.args) == 1 and type(node.args[0]) is ast.ListLiteral else node.args
        if not items:
            raise MechError("an empty list has no smallest or largest value", node.args[0].span)
        args = [(self.compile(item), item.span) for item in items]

        def extreme(ev, work):
            result = None
            for code, span in args:
                value = numbers(rolled(code(ev, work), ev, work), span)
                result = value if result is None else combine(result, value, pick, work, node.span)
            return result
        return extreme

    def _roll(self, node: ast.Call):
        pool_code, span = self.compile(node.args[0]), node.args[0].span
        explode_node = node.kwargs.get("explode")
        explode_code = self.host.compile(explode_node) if explode_node is not None else None

        def roll(ev, work):
            pool = pool_code(ev, work)
            if type(pool) is not Pool:
                raise MechError("`roll` takes a roll-and-keep pool such as 7k3", span, hint=BUILTINS["roll"].doc)
            explode = explode_code(ev) if explode_code is not None else True
            if type(explode) is not bool:
                raise MechError("`explode` is true or false", explode_node.span)
            return roll_pool(pool, explode, ev, work)
        return roll

    def compile_Index(self, node: ast.Index):
        """A look-up with a rolled key, `task_chart.difficult[2d8 + 1]`: each outcome of the key
        looked up in the table (or list) read when the call runs."""
        if _rolls_dice(self.host, node.target):
            raise Unsupported("a table or list that rolls dice to be made is not computed exactly", node.target.span,
                              hint=SAMPLING_HINT)
        target, key, span = self.host.compile(node.target), self.compile(node.key), node.key.span

        def index(ev, work):
            table, keys = target(ev), rolled(key(ev, work), ev, work)
            work.spend(len(keys.weights), node.span)
            out: dict = defaultdict(int)
            for k, w in keys.weights.items():
                out[outcome(get_index(ev, table, k, span), node.span)] += w
            if len({type(x) is str for x in out}) > 1:
                raise MechError("this look-up gives both strings and numbers, so its outcomes cannot be ordered",
                                node.span)
            return Dist(dict(out), keys.denom)
        return index

    def compile_Dice(self, node: ast.Dice):
        limits, span, modifiers = self.host.limits, node.span, node.modifiers
        if len(modifiers) > limits.modifiers:
            raise limit_error("modifiers", f"{len(modifiers)} modifiers on one roll are too many", limits.modifiers,
                              modifiers[limits.modifiers].span)
        count_code = self.compile(node.count) if node.count is not None else None
        sides = node.sides
        if sides == "%" or sides == "F":
            die_code = lambda ev, work: Dist.constant(100 if sides == "%" else FUDGE)  # noqa: E731
        elif type(sides) is ast.ListLiteral:
            if not sides.items:
                raise MechError("a die needs at least one face", sides.span, hint="list its faces: d[1,1,2,3,5,8]")
            faces_code = self.host.compile(sides) if not _rolls_dice(self.host, sides) else None
            if faces_code is None:
                raise Unsupported("a die whose faces are rolled is not computed exactly", sides.span, hint=SAMPLING_HINT)

            def die_code(ev, work):
                faces = without_dice(ev, lambda ev: tuple(ev.number(face, item.span) for face, item
                                                          in zip(faces_code(ev), sides.items)), sides.span)
                return Dist.constant(faces)
        else:
            sides_code, sides_span = self.compile(sides), sides.span

            def die_code(ev, work):
                return whole(rolled(sides_code(ev, work), ev, work), sides_span, "the number of sides").map(
                    lambda s: self.host._check_sides(s, sides_span))

        def dice(ev, work):
            counts = Dist.constant(1) if count_code is None else whole(
                rolled(count_code(ev, work), ev, work), node.count.span, "the number of dice")
            dies = die_code(ev, work)
            parts = []
            for count, wc in counts.weights.items():
                if count < 0:
                    raise MechError(f"cannot roll {format_value(count)} dice", node.count.span)
                if count > limits.dice_per_roll:
                    raise limit_error("dice_per_roll", f"{format_value(count)} dice in one roll is too many",
                                      limits.dice_per_roll, span)
                for die, wd in dies.weights.items():
                    parts.append((Fraction(wc * wd, counts.denom * dies.denom),
                                  dice_dist(count, die, modifiers, limits, work, span)))
            return parts[0][1] if len(parts) == 1 and parts[0][0] == 1 else mix(parts)
        return dice


def without_dice(ev, code, span: Span):
    """code(ev), where drawing a die is an error, not a sample."""
    saved, ev.source = ev.source, _NoDice(span)
    try:
        return code(ev)
    finally:
        ev.source = saved


class _NoDice:
    """The face source while a part without dice is worked out: drawing a die is an error."""

    def __init__(self, span: Span):
        self.span = span

    def roll(self, n, die):
        raise Unsupported("this part rolls dice where the exact odds do not follow them (a pool given to a "
                          "function)", self.span, hint=SAMPLING_HINT)


# The language's functions the exact odds follow through (a pool given to them is rolled exactly).
_EXACT_CALLS = ("floor", "ceil", "round", "abs", "min", "max", "roll")

# Parts that are values unless they hold dice; the rest always go through their compile_ method.
_LEAVES = {ast.Name, ast.Field, ast.Index, ast.String, ast.Record, ast.ListLiteral, ast.Match, ast.Call}

_ROUNDING = {"floor": lambda x: x.__floor__(), "ceil": lambda x: x.__ceil__(), "round": round_half_away,
             "abs": abs}


def lift(value, span: Span):
    """A value worked out the usual way, as a distribution (or a pool, still unrolled)."""
    kind = type(value)
    if kind is Pool:
        return value
    if kind is Distribution:
        return value.dist
    return Dist.constant(outcome(value, span))


def outcome(value, span: Span):
    """A value as one outcome of a distribution: a roll by its total."""
    value = value.total if type(value) in (DiceRoll, KeepRoll) else value
    if type(value) not in (int, Fraction, bool, str):
        raise MechError(f"odds are of numbers, true/false or strings, not {type_name(value)}", span)
    return value


def roll_pool(pool: Pool, explode: bool, ev, work: Work) -> Dist:
    normalized = normalize_halves(pool.unkept2, pool.kept2, pool.flat)
    if normalized.auto_fail:
        return AutoFail({0: 1}, 1)
    total = pool_dist(normalized.rolled, normalized.kept, normalized.halve, explode, ev.limits, work, pool.span)
    flat = normalized.flat
    return total.map(lambda x: normal(x + flat)) if flat else total


def rolled(value, ev, work: Work) -> Dist:
    """A pool is rolled where a number is needed, as in the evaluator."""
    return roll_pool(value, True, ev, work) if type(value) is Pool else value


def numbers(dist: Dist, span: Span) -> Dist:
    for x in dist.weights:
        if type(x) is bool or type(x) is str:
            raise MechError(f"expected a number here, not {type_name(x)}", span)
    return dist


def truths(dist: Dist, span: Span) -> Dist:
    for x in dist.weights:
        if type(x) is not bool:
            raise MechError(f"expected true or false here, not {type_name(x)}", span,
                            hint="compare to get true or false: `2d6 >= 8`")
    return dist


def whole(dist: Dist, span: Span, what: str) -> Dist:
    for x in numbers(dist, span).weights:
        if type(x) is not int:
            raise MechError(f"{what} must be a whole number, not {format_value(x)}", span)
    return dist


def arithmetic(ev, work: Work, op: str, a, b, node: ast.BinOp) -> Dist | Pool:
    """`a op b` as the evaluator's `binary`, over distributions; pools add up into one pool."""
    if op in ("+", "-") and (type(a) is Pool or type(b) is Pool):
        sign = 1 if op == "+" else -1
        constant_a = type(a) is not Pool and len(a.weights) == 1 and a.mass() == a.denom
        constant_b = type(b) is not Pool and len(b.weights) == 1 and b.mass() == b.denom
        if type(a) is Pool and type(b) is Pool:
            return a.combine(b, sign, node.span)
        if type(a) is Pool and constant_b:
            return a.plus(sign * next(iter(numbers(b, node.right.span).weights)), node.span)
        if type(b) is Pool and constant_a:
            pool = b if sign == 1 else b.negated(node.span)
            return pool.plus(next(iter(numbers(a, node.left.span).weights)), node.span)
    a, b = rolled(a, ev, work), rolled(b, ev, work)
    left_span, right_span = node.left.span, node.right.span
    numbers(a, left_span)
    numbers(b, right_span)
    if op in ("/", "//", "%") and 0 in b.weights:
        raise MechError("division by zero can happen here", right_span, hint="the right side of this operator can be 0")
    if op == "+":
        return add(a, b, work, node.span)
    if op == "-":
        return add(a, b.map(lambda x: -x), work, node.span)
    if op in _WHOLE_ARITHMETIC and _only_ints(a) and _only_ints(b):  # whole numbers give whole numbers
        return combine(a, b, _WHOLE_ARITHMETIC[op], work, node.span)
    return combine(a, b, ARITHMETIC[op], work, node.span, PYTHON_STEPS)


# Of whole numbers, these give whole numbers: Python's own operators, not ARITHMETIC's functions
# that make a whole fraction an int (a third of the time of a pair).
_WHOLE_ARITHMETIC = {"*": operator.mul, "//": operator.floordiv, "%": operator.mod}


def _only_ints(dist: Dist) -> bool:
    return all(type(x) is int for x in dist.weights)


def _only_numbers(dist: Dist) -> bool:
    return all(type(x) is int or type(x) is Fraction for x in dist.weights)


# A power of two outcomes (exact_power: its checks of size, the call, a new outcome hashed) costs
# this many steps beyond its pair, before the product of big numbers it makes.
POWER_STEPS = 8


def power_work(bases: Dist, exponents: Dist, limits, work: Work, span: Span) -> None:
    """Spends what `bases ** exponents` costs, before it is done: POWER_STEPS a pair, and for each
    pair the squarings that make a number of bits(x) * |y| bits (at most `number_bits`, where it
    stops with an error): about digits ** 1.585 / 100 steps, Karatsuba's, in 30-bit digits. A
    pair of 12k3 ** 12k3 (691 outcomes by 691, up to 695 ** 695) costs about 26 steps; counted as
    one, its 477,481 pairs took 5 s."""
    work.spend(len(bases.weights) * len(exponents.weights) * POWER_STEPS, span)
    sizes: dict = defaultdict(int)  # the bases by their size in bits: few sizes, many bases
    for x in bases.weights:
        sizes[max(abs(x.numerator).bit_length(), x.denominator.bit_length())] += 1
    cap = limits.number_bits + 1
    steps = 0
    for y in exponents.weights:
        magnitude = abs(y)
        for size, count in sizes.items():
            digits = min(cap, int(size * magnitude) + 1) // 30 + 1
            steps += count * int(digits ** 1.585) // 100
    work.spend(steps, span)


def exact(host, node: ast.Node):
    """The closure `code(ev) -> Dist` of an expression's exact distribution (a pool left standing
    is rolled); `host` compiles the parts without dice."""
    code = ExactCompiler(host).compile(node)

    def exactly(ev) -> Dist:
        work = Work(ev.limits)
        dist = rolled(code(ev, work), ev, work)
        work.spend(reading_steps(dist), node.span)
        return dist
    return exactly


# What reading one outcome of a distribution costs (its mean and sd, sorted, its chance and the
# outcome written as JSON): 2 to 3 microseconds for a small one. A weight of many digits is
# divided for its chance (a step one and a half digits: 7.5 microseconds an outcome of
# `12k3 * 12k3`, whose weights have 1,200 bits). A big number is written in decimal and squared
# for the sd, time growing as the square of its size (a step READ_DIGITS products of its 30-bit
# digits: the 167,000 outcomes of `max(4k3 ** 4k3)`, up to 2,000 bits, took 3 s). A fraction is
# sorted and summed as Python's Fractions (46 microseconds each for the 55,792 of `12k3 / 2.5k1`).
READ_STEPS = 15
READ_DIGITS = 50
READ_FRACTION_STEPS = 200


def reading_steps(dist: Dist) -> int:
    """What is done with a distribution once it is made, counted before: whoever asked for it reads
    every outcome (a mean, a table, JSON)."""
    weights = dist.weights
    steps = len(weights) * READ_STEPS + sum(map(int.bit_length, weights.values())) // 45
    if set(map(type, weights)) <= {int, bool} and outcome_bits(dist) < 30 * SMALL_DIGITS:
        return steps   # at once (in C) for the many small whole outcomes
    for x in weights:
        if type(x) is Fraction:
            steps += READ_FRACTION_STEPS
        steps += (outcome_size(x) // 30 + 1) ** 2 // READ_DIGITS
    return steps


# outcomes of fewer 30-bit digits than this cost no step beyond READ_STEPS: (7 ** 2) // READ_DIGITS
SMALL_DIGITS = 7


def compile_call(host, node: ast.Call):
    """`prob(x)`, `dist(x)`, `mean(x)` (and `samples: N`), for the compiler `host`."""
    name = node.callee.id
    if len(node.args) != 1:
        raise MechError(f"`{name}` takes 1 argument, not {len(node.args)}", node.span, hint=FUNCTIONS[name])
    for key in node.kwargs:
        if key != "samples":
            raise MechError(f"`{name}` has no option `{key}`", node.kwargs[key].span,
                            hint=did_you_mean(key, ["samples"]) or FUNCTIONS[name])
    arg = node.args[0]
    if "samples" in node.kwargs:
        return _sampled(host, name, arg, node)
    code = exact(host, arg)

    def odds(ev):
        return answer(name, code(ev), None, arg.span)
    return odds


def answer(name: str, dist: Dist, samples: int | None, span: Span):
    if name == "dist":
        return Distribution(dist.reduced(), samples)
    if name == "prob":
        if any(type(x) is not bool for x in dist.weights):
            raise MechError("`prob` takes a comparison, such as `prob(2d6 >= 8)`", span,
                            hint="for every outcome of a roll, use `dist(...)`; for its mean, `mean(...)`")
        return normal(Fraction(dist.weights.get(True, 0), dist.denom))
    return normal(dist_mean(numbers(dist, span)))


def _sampled(host, name: str, arg: ast.Node, node: ast.Call):
    """`prob(x, samples: N)`: x rolled N times with the run's own dice; the answer is an estimate."""
    code, samples_code, samples_span = host.compile(arg), host.compile(node.kwargs["samples"]), \
        node.kwargs["samples"].span

    def sampled(ev):
        n = samples_code(ev)
        if type(n) is not int or n < 1:
            raise MechError(f"`samples` is a whole number of at least 1, not {format_value(n)}", samples_span)
        if n > ev.limits.rolls:
            raise limit_error("rolls", f"{n} samples are too many", ev.limits.rolls, samples_span)
        counts: dict = {}
        for _ in range(n):
            value = code(ev)
            if type(value) is Pool:
                value = ev.roll_pool(value)
            value = outcome(value, arg.span)
            counts[value] = counts.get(value, 0) + 1
        return answer(name, Dist(counts, n), n, arg.span)
    return sampled
