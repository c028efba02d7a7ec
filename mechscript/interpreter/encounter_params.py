"""An encounter's parameters: `encounter "Drones"(count = 3, skill = 5) { ... }`.

A parameter stands for a plain value (a number, text, true, false or none) fixed for the whole fight:
its default, or the value `--set count=4` / `--vary count=3..6` gives it. The builder puts a copy of
the default's node wherever the encounter's sides, settings and `until` name the parameter, so the
checker, the interpreter and the back ends see a plain value there and need nothing of their own;
a variant (sim/variants.py) puts a copy of its value's node in place of each. A copy carries the
place of the name it stands for (a ParamSpan), so an error at it is said where the parameter is
used, naming the parameter and its value.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from . import ast
from ..errors import MechError, ParamSpan, Span

_WORDS = ("true", "false", "none")


def plain_value(node: ast.Node):
    """The value of a parameter's default, or a MechError when it is not a plain value."""
    if type(node) is ast.Number:
        return node.value
    if type(node) is ast.Unary and node.op == "-" and type(node.operand) is ast.Number:
        return -node.operand.value
    if type(node) is ast.String and all(type(part) is str for part in node.parts):
        return "".join(node.parts)
    if type(node) is ast.Name and node.id in _WORDS:
        return {"true": True, "false": False, "none": None}[node.id]
    raise MechError("a parameter's default is a plain value: a number, text, true, false or none", node.span,
                    hint='e.g. encounter "Drones"(count = 3, leader = "Ransack") { ... }')


def literal(value, span=None) -> ast.Node:
    """The node of a plain value, as a script writes it (`--set count=4` gives 4)."""
    span = span or Span(1, 1, 0, 0)
    if value is None or type(value) is bool:
        return ast.Name(span, written(value))
    if type(value) is str:
        return ast.String(span, [value])
    return ast.Number(span, value)


def written(value) -> str:
    """A plain value as --set and --vary take it."""
    if value is None or type(value) is bool:
        return {None: "none", True: "true", False: "false"}[value]
    if type(value) is Fraction:
        return str(float(value))
    return str(value)


def type_word(value) -> str:
    if value is None:
        return "none"
    if type(value) is bool:
        return "a boolean"
    if type(value) in (int, Fraction):
        return "a number"
    return "text"


def same_type(value, default) -> bool:
    """Whether `value` may stand where the parameter's default stands (none takes any value)."""
    return default is None or type_word(value) == type_word(default)


def replaced(node, swap):
    """`node` with each node below it for which `swap(n)` gives a node replaced by that node (new
    objects along the way, the rest shared)."""
    if isinstance(node, ast.Node):
        new = swap(node)
        if new is not None:
            return new
    if isinstance(node, (list, tuple)):  # the same object when nothing in it changed: a default stays itself
        items = [replaced(item, swap) for item in node]
        if all(new is old for new, old in zip(items, node)):
            return node
        return items if isinstance(node, list) else tuple(items)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {}
        for field in dataclasses.fields(node):
            value = getattr(node, field.name)
            if isinstance(value, (list, tuple, ast.Node)) or dataclasses.is_dataclass(value):
                new = replaced(value, swap)
                if new is not value:
                    changes[field.name] = new
        return dataclasses.replace(node, **changes) if changes else node
    return node


def shown(value) -> str:
    """A parameter's value as a script writes it."""
    if type(value) is str:
        return '"' + value + '"'
    if value is None or type(value) is bool:
        return {None: "none", True: "true", False: "false"}[value]
    return str(value)


def used(name: str, value: ast.Node, span, origin: str) -> ast.Node:
    """The node `value` standing where the parameter `name` is written at `span`."""
    return dataclasses.replace(value, span=ParamSpan(span.line, span.col, span.start, span.end, name,
                                                     shown(plain_value(value)), origin))


def _in_body(encounter: ast.EncounterDef, swap) -> ast.EncounterDef:
    return dataclasses.replace(encounter, sides=replaced(encounter.sides, swap), until=replaced(encounter.until, swap),
                               settings=replaced(encounter.settings, swap))


def bound(encounter: ast.EncounterDef) -> ast.EncounterDef:
    """The encounter with each name of a parameter in its sides, settings and `until` replaced by
    a copy of the parameter's default node, placed there."""
    defaults = {name: default for name, _, default in encounter.params}
    if not defaults:
        return encounter

    def swap(node):
        if type(node) is ast.Name and node.id in defaults:
            return used(node.id, defaults[node.id], node.span, "its default")
        return None
    return _in_body(encounter, swap)


def given(encounter: ast.EncounterDef, name: str, node: ast.Node, origin: str) -> ast.EncounterDef:
    """The (bound) encounter with the parameter `name` given the value of `node`, which `origin`
    gave (`--set count=4`)."""
    def swap(n):
        span = getattr(n, "span", None)
        if type(span) is ParamSpan and span.param == name:
            return used(name, node, span, origin)
        return None
    params = [(param, span, node if param == name else default) for param, span, default in encounter.params]
    return dataclasses.replace(_in_body(encounter, swap), params=params)


def params_in(node) -> list[ParamSpan]:
    """The places below `node` where a parameter stands, each parameter once."""
    found = sorted((below.span for below in ast.walk(node) if type(getattr(below, "span", None)) is ParamSpan),
                   key=lambda span: span.start)
    return list({span.param: span for span in reversed(found)}.values())[::-1]
