"""Records kept as their fields: a `let` of a record whose every use, in the `fn` that makes it,
reads one of its fields is written as one Python local a field read, and each read of a field is
that local. The record is a literal, or the value of a call written in place (inlining.py) whose
every `return` gives a literal with those fields (robomacs' `attempt`: `let shift = summed(shifts)`,
then `shift.by`): the `return`s set the locals. No object is made, and a read is a local's, not an
attribute's: robomacs' `attempt` made 2 such records a call, some 75 a fight.

Kept as fields only where nothing can tell the difference: the name is bound once in the `fn` (no
parameter, `for` or second `let` of it, nothing assigned to it or to one of its fields), every
mention of it reads a field, and the `fn` holds no `fn` (a Python closure would read the locals
too, but it is not worth the care)."""

from __future__ import annotations

from ..interpreter import ast
from .writer import Writer


def record_lets(functions, nodes_of) -> dict[int, set[str]]:
    """id of each `let` of `functions` ((ModuleText, FnDef) pairs) that may be written as its
    fields -> the fields read of it; `nodes_of(fn)`: every node of a `fn` (narration.Purity.nodes)."""
    found: dict[int, set[str]] = {}
    for _, fn in functions:
        found.update(_in_function(fn, nodes_of(fn)))
    return found


def _in_function(fn: ast.FnDef, nodes) -> dict[int, set[str]]:
    lets: dict[str, list] = {}
    bound = set(fn.params)
    fields_read = {}   # id of a Name node -> the field read of it
    changed = set()    # names assigned, or one of whose fields or items is
    for node in nodes:
        kind = type(node)
        if kind is ast.FnDef and node is not fn:
            return {}
        if kind is ast.Let:
            lets.setdefault(node.name, []).append(node)
        elif kind is ast.For:
            bound.add(node.name)
        elif kind is ast.Field and type(node.target) is ast.Name:
            fields_read[id(node.target)] = node.name
        elif kind is ast.Assign:
            target = node.target
            if type(target) in (ast.Field, ast.Index):
                target = target.target
            if type(target) is ast.Name:
                changed.add(target.id)
    candidates = {}   # name -> (its let, the fields it may have: a literal's, or None for a call's value)
    for name, made in lets.items():
        value = record_made(made[0])
        if len(made) > 1 or name in bound or name in changed:
            continue
        if type(value) is ast.Record:
            names = [field for field, _ in value.fields]
            if len(set(names)) == len(names):
                candidates[name] = (made[0], set(names), set())
        elif type(value) is ast.Call:
            candidates[name] = (made[0], None, set())
    for node in nodes:
        if type(node) is ast.Name and node.id in candidates:
            let, fields, read = candidates[node.id]
            field = fields_read.get(id(node))
            if field is None or not field.isidentifier() or fields is not None and field not in fields:
                del candidates[node.id]   # read whole, or a field it has not
            else:
                read.add(field)
    return {id(let): read for let, _, read in candidates.values()}


def record_made(node):
    """The value of a `let` or a `return`, out of its parentheses."""
    value = node.value
    while type(value) is ast.Group:
        value = value.inner
    return value


class Scalars(Writer):
    """The locals of the records kept as their fields, for the reads of their fields."""

    def __init__(self, *args):
        super().__init__(*args)
        self.record_lets: dict[int, set[str]] = {}   # record_lets' answer: set by QuietFight
        self.scalars: dict[str, dict[str, str]] = {}   # the record's local -> field -> its local or "None"
        # while a call's value is asked for: (the call, field -> local) of a call that a `let` keeps
        # as its fields; while a body written in place of that call is written: field -> local
        self.wanted_fields: "tuple | None" = None
        self.returned_fields: "dict | None" = None

    def scalar_field(self, value: str, name: str) -> "str | None":
        """The local holding the field `name` of `value` when `value` is a record kept as its fields."""
        fields = self.scalars.get(value)
        return None if fields is None else fields[name]

    def field_locals(self, let: ast.Let, names) -> dict[str, str]:
        """A new Python local for each field of `names` of the record of `let` (in the order of
        their names: the same text in every process)."""
        fields = {}
        for name in sorted(names):
            self.count += 1
            fields[name] = python = f"v{self.count}_{let.name}_{name}"
            if self.fixed_locals is not None:
                self.fixed_locals.add(python)
        return fields
