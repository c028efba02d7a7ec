"""Kinds that extend kinds: `kind Npc extends Unit { ... }`.

The builder calls `inherit` on each block's statements once they are built, and gives every later
layer (the checker, the closures interpreter, the written back end, `:help KIND`) a kind whose items
already hold its parent's: the parent's items first, in the parent's order, then the child's own.
A child may give an inherited item a new default, formula or starting value by declaring it again
with the same word (`state hp = 30`); the item keeps its place, so the parent's items below it read
the new value. It may not change what the item is: a stat stays a stat with the same range or
choices (written again the same, or left out to keep the parent's), and a gear slot keeps its kind.

A kind extends a kind of the same block (a module's top level): the child's formulas then see the
same names as its parent's, and its characters are fought by the same module's `fight`. Extending
another module's kind (`extends robomacs.Robo`) is refused for now; see docs/language.md, "Kinds
that extend kinds".
"""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction

from . import ast
from ..errors import MechError, Span, did_you_mean


def inherit(statements: list) -> None:
    """Fills in the items of each kind of `statements` that extends another, and its ancestors."""
    kinds = {s.name: s for s in statements if type(s) is ast.KindDef}
    if not any(kind.extends for kind in kinds.values()):
        return
    done: set[str] = set()

    def complete(node: ast.KindDef, chain: list[str]) -> None:
        if node.name in done or node.extends is None:
            done.add(node.name)
            return
        parent = _parent(node, kinds, chain)
        complete(parent, chain + [node.name])
        node.items = _merged(node, parent)
        node.ancestors = [parent.name, *parent.ancestors]
        done.add(node.name)

    for node in kinds.values():
        complete(node, [])


def _parent(node: ast.KindDef, kinds: dict, chain: list[str]) -> ast.KindDef:
    path, span = node.extends, node.extends_span
    if len(path) == 2:
        raise MechError(f"kind `{node.name}` extends `{'.'.join(path)}`, a kind of another module", span,
                        hint="a kind extends a kind declared beside it, in the same file; copy the lines "
                             f"it needs from `{path[1]}`, or add the kind to that module")
    parent = kinds.get(path[0])
    if parent is None:
        others = [name for name in kinds if name != node.name]
        raise MechError(f"kind `{node.name}` extends `{path[0]}`, which is not a kind declared here", span,
                        hint=did_you_mean(path[0], others) or
                        ("kinds declared here: " + ", ".join(sorted(others)) if others else
                         "a kind extends a kind declared beside it, in the same file (in the REPL, the same entry)"))
    if parent.name == node.name or parent.name in chain:
        # the kinds on the way here each extend the next: from this one round to itself
        loop = [node.name, *chain[chain.index(parent.name):], node.name] if parent.name in chain else \
            [node.name, node.name]
        raise MechError(f"kind `{node.name}` extends itself: {' extends '.join(loop)}", span,
                        hint="one of these kinds declares its items without `extends`")
    return parent


def _merged(node: ast.KindDef, parent: ast.KindDef) -> list[ast.KindItem]:
    """The parent's items, copied (each kind's formulas are compiled and typed on their own), with
    the child's redeclarations in their places, then the child's new items."""
    items = []
    for item in parent.items:
        inherited = copy.deepcopy(item)
        inherited.inherited = item.inherited or parent.name
        items.append(inherited)
    where = {item.name: n for n, item in enumerate(items)}
    for own in node.items:
        if own.name not in where:
            items.append(own)
            continue
        n = where[own.name]
        items[n] = _redeclared(node, items[n], own)
    return items


_NEW = {"stat": "default", "derived": "formula", "state": "starting value"}
_WORDS = {"stat": "a stat", "derived": "a derived value", "state": "a state", "gear": "a gear slot"}


def _redeclared(node: ast.KindDef, old: ast.KindItem, own: ast.KindItem) -> ast.KindItem:
    """The child's own line for an inherited item: a new default, formula or starting value."""
    came = old.inherited
    if own.what != old.what:
        raise MechError(f"`{own.name}` is {_WORDS[old.what]} of {came}; {node.name} cannot make it "
                        f"{_WORDS[own.what]}", own.span,
                        hint=f"a kind extending {came} may give `{own.name}` a new "
                             f"{_NEW[old.what]}: "
                             f"`{old.what} {own.name} = ...`" if old.what != "gear" else
                             f"call it something else: `{own.what} {own.name}_of ...`")
    if own.what == "gear":
        if own.gear_kind != old.gear_kind:
            raise MechError(f"`{own.name}` of {came} holds {old.gear_kind}; {node.name} cannot make it hold "
                            f"{own.gear_kind}", own.gear_kind_span, hint=f"gear {own.name}: {old.gear_kind}")
        return old
    if own.what == "stat":
        has_allowed = own.low is not None or own.choices is not None
        if has_allowed and (_shape(own.low), _shape(own.high), _shape(own.choices)) != \
                (_shape(old.low), _shape(old.high), _shape(old.choices)):
            raise MechError(f"`{own.name}` of {came} allows other values than this; {node.name} can give it a "
                            "new default, not other values", own.span,
                            hint=f"leave the range out to keep {came}'s: `stat {own.name} = ...`")
        if not has_allowed:
            own = dataclasses.replace(own, low=old.low, high=old.high, choices=old.choices)
        if own.value is None:  # `stat speed` again without a default: the parent's default, if any, stays
            own = dataclasses.replace(own, value=old.value)
    return own


def _shape(node):
    """A node without its positions: two ranges written alike compare equal."""
    if isinstance(node, list):
        return tuple(_shape(part) for part in node)
    if isinstance(node, tuple):
        return tuple(_shape(part) for part in node)
    if not dataclasses.is_dataclass(node):
        return node if isinstance(node, (str, int, bool, float, Fraction, type(None))) else None
    return (type(node).__name__, *(_shape(getattr(node, f.name)) for f in dataclasses.fields(node)
                                   if not isinstance(getattr(node, f.name), Span)))
