"""The AST: plain classes, one per grammar rule they come from, each with its Span.

Nothing here knows about lark; the builder makes these from the parse tree in one pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .errors import Span
from ..dice.engine import Condition, Modifier  # noqa: F401  (re-exported: part of the AST)


@dataclass(slots=True)
class Node:
    span: Span


@dataclass(slots=True)
class Number(Node):  # number
    value: int | Fraction


@dataclass(slots=True)
class PoolLiteral(Node):  # pool: roll-and-keep XkY, halves allowed
    unkept: Fraction
    kept: Fraction


@dataclass(slots=True)
class Name(Node):  # name
    id: str


@dataclass(slots=True)
class ListLiteral(Node):  # list
    items: list[Node]


@dataclass(slots=True)
class Group(Node):  # group: parentheses, kept for their span
    inner: Node


@dataclass(slots=True)
class Unary(Node):  # unary
    op: str
    operand: Node


@dataclass(slots=True)
class BinOp(Node):  # binop (sum, product)
    op: str
    left: Node
    right: Node


@dataclass(slots=True)
class Compare(Node):  # compare
    op: str
    left: Node
    right: Node


@dataclass(slots=True)
class Call(Node):  # call
    name: str
    name_span: Span
    args: list[Node]
    kwargs: dict[str, Node]


@dataclass(slots=True)
class Dice(Node):  # dice, fudge_dice
    count: Node | None       # None means one die
    sides: Node | str        # a node giving a number or a list of faces, or "%" or "F"
    modifiers: tuple[Modifier, ...]
