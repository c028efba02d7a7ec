"""What the evaluator (evaluator.py) and exact odds (odds.py) share: the constants' names, the
arithmetic and comparison tables, the shape of a sum that may hold roll-and-keep pools, and exact
powers. Both import it;
neither imports the other for it."""

from __future__ import annotations

import operator
from fractions import Fraction

from ..errors import MechError, Span
from ..limits import Limits, limit_error
from ..numbers import normal
from . import ast
from .values import format_value


FUDGE = (-1, 0, 1)
CONSTANTS = {"true": True, "false": False, "none": None}


def _sum_chain(node: ast.BinOp) -> list:
    """`a + b - c` as [(None, a), (a + b node, b), (a + b - c node, c)]: each term with the operation
    that adds it."""
    chain = []
    while type(node) is ast.BinOp and node.op in ("+", "-"):
        chain.append((node, node.right))
        node = node.left
    chain.append((None, node))
    return chain[::-1]


def pool_chain(node: ast.BinOp) -> list | None:
    """The terms of a sum (`_sum_chain`) if one of them may be a roll-and-keep pool, so that the sum
    is worked out in the pools' order; None for any other operation."""
    if node.op not in ("+", "-"):
        return None
    chain = _sum_chain(node)
    return chain if any(may_be_pool(term) for _, term in chain) else None


def may_be_pool(node) -> bool:
    """Whether a term of a sum can be a roll-and-keep pool (a literal, a name, a call...)."""
    while type(node) in (ast.Group, ast.Unary):
        node = node.inner if type(node) is ast.Group else node.operand
    return type(node) in (ast.PoolLiteral, ast.Name, ast.Call, ast.Field, ast.Index)


def may_roll(node) -> bool:
    """Whether working out a term can roll dice: it holds a die, a call or a comparison."""
    return any(type(part) in (ast.Dice, ast.Call, ast.Compare) for part in ast.walk(node))


def pool_after_pool(binop: ast.BinOp) -> MechError:
    return MechError("this pool rolls dice to know its size, after another pool of the same sum", binop.right.span,
                     hint="work it out first: `let p = ...`, then add `p`")


def exact_power(base, exponent, limits: Limits, node: ast.Power):
    """`base ** exponent` as an exact number: a whole or negative whole power of any number, or a
    fractional power p/q where the q-th root is exact (8 ** (2/3) is 4). The size is checked against
    `number_bits` before the power is worked out, so `2 ** 10 ** 9` stops at once."""
    if type(exponent) is Fraction:
        root = _exact_root(base, exponent.denominator, node)
        return exact_power(root, exponent.numerator, limits, node)
    if exponent < 0:
        if base == 0:
            raise MechError("division by zero", node.span, hint="0 has no negative power: 0 ** -1 would be 1/0")
        return normal(1 / Fraction(exact_power(base, -exponent, limits, node)))
    numerator, denominator = (base, 1) if type(base) is int else (base.numerator, base.denominator)
    size = max(abs(numerator).bit_length(), denominator.bit_length())
    # a number of `size` bits has at least (size - 1) * exponent + 1 bits once raised
    if size > 1 and (size - 1) * exponent + 1 > limits.number_bits:
        raise _too_big(limits, node.span)
    result = base ** exponent
    if max(abs(result.numerator).bit_length(), result.denominator.bit_length()) > limits.number_bits:
        raise _too_big(limits, node.span)
    return normal(result)


def _exact_root(base, degree: int, node: ast.Power):
    """The `degree`-th root of base, when it is a fraction; else an error."""
    if base < 0 and degree % 2 == 0:
        raise MechError(f"{format_value(base)} is negative, so it has no {_root_word(degree)} root", node.span,
                        hint="a fractional power p/q of a negative number needs an odd q: (-8) ** (1/3) is -2")
    magnitude = Fraction(abs(base))
    numerator, denominator = _whole_root(magnitude.numerator, degree), _whole_root(magnitude.denominator, degree)
    if numerator is None or denominator is None:
        raise MechError(f"{format_value(base)} has no exact {_root_word(degree)} root, so this power is not a "
                        "fraction", node.span,
                        hint="numbers are exact, so a fractional power needs an exact root: 9 ** (1/2) is 3, "
                             "8 ** (2/3) is 4; round a power of whole numbers instead")
    return normal(Fraction(numerator if base >= 0 else -numerator, denominator))


def _root_word(degree: int) -> str:
    if degree in (2, 3):
        return "square" if degree == 2 else "cube"
    last = "th" if degree % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(degree % 10, "th")
    return f"{degree}{last}"


def _whole_root(n: int, degree: int) -> int | None:
    """The whole `degree`-th root of n >= 0, or None when there is none."""
    if n < 2:
        return n
    if degree >= n.bit_length():  # 1 < root < 2
        return None
    x = 1 << -(-n.bit_length() // degree)  # at least the root
    while True:  # Newton's method on whole numbers, from above
        y = ((degree - 1) * x + n // x ** (degree - 1)) // degree
        if y >= x:
            break
        x = y
    return x if x ** degree == n else None


def _too_big(limits: Limits, span: Span) -> MechError:
    return limit_error("number_bits", f"a number of more than {limits.number_bits} bits is too big",
                       limits.number_bits, span)


ARITHMETIC = {
    "+": lambda a, b: normal(a + b),
    "-": lambda a, b: normal(a - b),
    "*": lambda a, b: normal(a * b),
    "/": lambda a, b: normal(Fraction(a) / b),
    "//": lambda a, b: a // b,
    "%": lambda a, b: normal(a % b),
}


COMPARISONS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
                "==": operator.eq, "!=": operator.ne}
