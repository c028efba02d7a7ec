"""An encounter's parameters: `encounter "Drones"(count = 3, skill = 5) { ... }`.

A parameter stands for a plain value (a number, text, true, false or none) fixed for the whole fight:
its default, or the value `--set count=4` / `--vary count=3..6` gives it. The builder puts the
default's node wherever the encounter's sides, settings and `until` name the parameter, so the
checker, the interpreter and the back ends see a plain value there and need nothing of their own;
a variant (sim/variants.py) puts its value's node in place of that same node object.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from . import ast
from ..errors import MechError

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


def bound(encounter: ast.EncounterDef) -> ast.EncounterDef:
    """The encounter with each name of a parameter in its sides, settings and `until` replaced by
    the parameter's default node."""
    defaults = {name: default for name, _, default in encounter.params}
    if not defaults:
        return encounter

    def swap(node):
        return defaults.get(node.id) if type(node) is ast.Name else None
    return dataclasses.replace(encounter, sides=replaced(encounter.sides, swap),
                               until=replaced(encounter.until, swap), settings=replaced(encounter.settings, swap))


def given(encounter: ast.EncounterDef, name: str, node: ast.Node) -> ast.EncounterDef:
    """The (bound) encounter with the parameter `name` given the value of `node`."""
    old = next(default for param, _, default in encounter.params if param == name)

    def swap(n):
        return node if n is old else None
    params = [(param, span, node if param == name else default) for param, span, default in encounter.params]
    return dataclasses.replace(encounter, params=params, sides=replaced(encounter.sides, swap),
                               until=replaced(encounter.until, swap), settings=replaced(encounter.settings, swap))
