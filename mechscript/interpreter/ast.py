"""The AST: plain classes, one per grammar rule they come from, each with its Span.

Nothing here knows about lark; the builder makes these from the parse tree in one pass.
"""

from __future__ import annotations

import dataclasses
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

from ..errors import Span
from ..dice.notation import Condition, Modifier  # noqa: F401  (re-exported: part of the AST, plain data)


@dataclass(slots=True)
class Node:
    span: Span


@dataclass(slots=True)
class Number(Node):  # number
    value: int | Fraction


@dataclass(slots=True)
class PoolLiteral(Node):  # pool: roll-and-keep XkY, halves allowed
    unkept: int | Fraction   # whole counts are ints (numbers.normal)
    kept: int | Fraction


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
class Power(Node):  # power: `base ** exponent`
    base: Node
    exponent: Node


@dataclass(slots=True)
class Compare(Node):  # compare
    op: str
    left: Node
    right: Node


@dataclass(slots=True)
class Call(Node):  # call
    callee: Node
    args: list[Node]
    kwargs: dict[str, Node]


@dataclass(slots=True)
class Dice(Node):  # dice, fudge_dice
    count: Node | None       # None means one die
    sides: Node | str        # a node giving a number or a list of faces, or "%" or "F"
    modifiers: tuple[Modifier, ...]


# ---- the statement language ----

@dataclass(slots=True)
class String(Node):  # string: literal text and `{expr}` parts
    parts: list  # str or Node


@dataclass(slots=True)
class Field(Node):  # field: `target.intelligence`, `pbem.to_hit`
    target: Node
    name: str
    name_span: Span


@dataclass(slots=True)
class Index(Node):  # index: `list[0]`, `task_chart.difficult[12]`
    target: Node
    key: Node


@dataclass(slots=True)
class Logic(Node):  # and_, or_
    op: str
    left: Node
    right: Node


@dataclass(slots=True)
class Not(Node):  # not_
    operand: Node


@dataclass(slots=True)
class Record(Node):  # record
    fields: list[tuple[str, Node]]


@dataclass(slots=True)
class MatchArm:
    patterns: list[Node] | None  # None for `else`
    body: Node                   # an expression or a Block
    span: Span


@dataclass(slots=True)
class Match(Node):  # match
    subject: Node
    arms: list[MatchArm]


@dataclass(slots=True)
class Block(Node):  # block
    statements: list[Node]


@dataclass(slots=True)
class Program(Node):  # program
    statements: list[Node]


@dataclass(slots=True)
class Let(Node):  # let
    name: str
    name_span: Span
    value: Node


@dataclass(slots=True)
class Assign(Node):  # assign, augmented (op is "=", "+=" or "-=")
    target: Node  # Name, Field or Index
    op: str
    value: Node


@dataclass(slots=True)
class FnDef(Node):  # fn_line, fn_block
    module: str | None  # `fn pbem.to_hit(...)` replaces pbem's rule
    name: str
    name_span: Span
    params: list[str]
    body: Node  # an expression (one-line fn) or a Block
    line_form: bool


@dataclass(slots=True)
class If(Node):  # if_
    branches: list[tuple[Node, Block]]
    otherwise: Block | None


@dataclass(slots=True)
class For(Node):  # for_
    name: str
    iterable: Node
    body: Block


@dataclass(slots=True)
class While(Node):  # while_
    condition: Node
    body: Block


@dataclass(slots=True)
class Repeat(Node):  # repeat
    count: Node
    body: Block


@dataclass(slots=True)
class Return(Node):  # return_
    value: Node | None


@dataclass(slots=True)
class Say(Node):  # say
    value: Node


@dataclass(slots=True)
class TableRow:
    name: str | None               # None for a table of one unnamed row
    entries: list[tuple[Node | None, Node]]  # (key, value); key None for `else`
    span: Span


@dataclass(slots=True)
class TableDef(Node):  # table
    name: str
    rows: list[TableRow]


@dataclass(slots=True)
class Use(Node):  # use
    name: str       # the module's name (a path's file stem)
    path: str | None  # `use "house/rules.mech"`


@dataclass(slots=True)
class ExprStatement(Node):  # expr_statement
    expr: Node


@dataclass(slots=True)
class KindItem:
    """One line of a kind: `stat speed 1..10`, `derived hp_max = endurance`, `state hp = endurance`,
    `gear weapon: Weapon`."""
    what: str                     # "stat", "derived", "state" or "gear"
    name: str
    span: Span
    low: Node | None = None       # stat range bounds: Number or Name
    high: Node | None = None
    choices: Node | None = None   # stat choices: a ListLiteral
    value: Node | None = None     # a stat's default, a derived or state formula
    gear_kind: str | None = None
    gear_kind_span: Span | None = None
    inherited: str | None = None  # the kind it comes from, unchanged, when the kind extends another


@dataclass(slots=True)
class KindDef(Node):  # kind
    name: str
    name_span: Span
    items: list[KindItem]         # with the inherited ones (inherit.py), in the order they are worked out
    extends: list[str] | None = None   # ["Unit"] for `kind Npc extends Unit`
    extends_span: Span | None = None
    ancestors: list[str] = dataclasses.field(default_factory=list)  # the kinds it extends, nearest first


@dataclass(slots=True)
class Entry:
    """`speed 4` in a character, or `weapon Blowpipe { uses "gun" }` (a gear item with its entries)."""
    name: str
    span: Span
    value: Node
    entries: "list[Entry] | None"


@dataclass(slots=True)
class CharacterDef(Node):  # character
    name: str
    name_span: Span
    kind: list[str]               # ["Transformer"] or ["pbem", "Transformer"]
    kind_span: Span
    entries: list[Entry]


@dataclass(slots=True)
class Side:
    name: str
    span: Span
    members: list[Node]


@dataclass(slots=True)
class EncounterDef(Node):  # encounter
    title: str
    sides: list[Side]
    until: Node | None
    settings: list[tuple[str, Span, Node]]
    title_span: Span | None = None  # its name, where `--encounter` errors point
    # its parameters: (name, span, the default's node, which stands wherever the body names it:
    # interpreter/encounter_params.py)
    params: list = dataclasses.field(default_factory=list)


def children(node: Node) -> list:
    """The nodes right below `node`: in its fields, and in the lists, tuples, dicts and parts that
    are not nodes themselves (a match's arms, a table's rows) there. A list, gathered without
    nested generators, which the caller must not change: within `children_remembered()` it is
    gathered once for each node."""
    table = getattr(_remembered, "table", None)
    if table is not None:
        entry = table.get(id(node))
        if entry is not None and entry[0] is node:
            return entry[1]
    found: list = []
    for name in _field_names(type(node)):
        _gather(getattr(node, name), found)
    if table is not None:
        table[id(node)] = (node, found)   # the node itself kept: its id is not another's while this lasts
    return found


# .table: id(node) -> (node, its children); .walks: id(node) -> (node, walk(node) as a list), and
# .walked: the nodes those lists hold; all within children_remembered()
_remembered = threading.local()


@contextmanager
def children_remembered():
    """Within this, `children` gathers each node's children once, and `walk` each tree's nodes once,
    in this thread: the back end's set-up walks the same trees, which do not change, tens of times
    (backend/quiet.py)."""
    if getattr(_remembered, "table", None) is not None:   # within another: its tables serve, and it ends them
        yield
        return
    _remembered.table, _remembered.walks, _remembered.walked = {}, {}, 0
    try:
        yield
    finally:
        _remembered.table = _remembered.walks = None
        _remembered.walked = 0


# The field names of each dataclass, looked up once
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
# Values that hold no node
_LEAVES = frozenset({str, int, bool, float, type(None), Fraction, Span})


def _field_names(kind: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(field.name for field in dataclasses.fields(kind))
    return names


def _gather(value, found: list) -> None:
    kind = type(value)
    if kind in _LEAVES:
        return
    if isinstance(value, Node):
        found.append(value)
    elif kind is list or kind is tuple or isinstance(value, (list, tuple)):
        for item in value:
            if type(item) not in _LEAVES:
                _gather(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _gather(item, found)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for name in _field_names(type(value)):
            _gather(getattr(value, name), found)


def walk(node: Node):
    """`node` and every node below it, in no particular order: a stack, not nested generators, so a
    deep tree costs no more per node than a shallow one. Within `children_remembered()`, a list
    the caller must not change, gathered once for each tree."""
    walks = getattr(_remembered, "walks", None)
    if walks is None:
        return _walking(node)
    entry = walks.get(id(node))
    if entry is not None and entry[0] is node:
        return entry[1]
    found = list(_walking(node))
    # kept while the walks kept hold at most WALK_ROOM times the nodes seen: the examples' hold 3.5
    # times, and deeply nested loops, each walked, could otherwise hold nodes times depth
    if _remembered.walked + len(found) <= WALK_ROOM * len(_remembered.table):
        walks[id(node)] = (node, found)
        _remembered.walked += len(found)
    return found


WALK_ROOM = 8


def _walking(node: Node):
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))
