"""Assignments written as Python (a part of emit.Emitter): to a name (a local, an enclosing
function's, a global, a module's option), to a field (a character's state straight, the rest
through `set_field`) and to an index (a character's state by its name straight, the rest through
`set_index`)."""

from __future__ import annotations

from ..interpreter import ast
from .loops import Loops
from .writer import class_of


class Assignments(Loops):
    def assign(self, node: ast.Assign) -> None:
        target = node.target
        k = self.constant(node)
        if type(target) is ast.Name:
            place = self.resolve(target.id)
            if place is None or place[0] in ("unset", "module"):
                self.line("bail()")
                return
            name = place[1]
            if place[0] == "global":
                self.assigned_globals.add(name)
            elif place[2] < self.function_base:   # a name of the enclosing function
                self.nonlocals.add(name)
            if node.op == "=":
                self.line(f"{name} = {self.value(node.value)}")
            elif place[0] == "local" and (self.pure(node.value) is not None or self.unchanged_by_calls(name)):
                # nothing that runs between reading the local and adding to it can change it (the
                # value only reads, or the local is one no call can change): no copy of it is needed
                self.line(f"{name} = {self.updated(node, name, self.value(node.value), k)}")
            else:
                old = self.temp()
                self.line(f"{old} = {name}")
                self.line(f"{name} = {self.updated(node, old, self.expr(node.value), k)}")
            return
        if type(target) is ast.Field and self.module_of(target.target) is not None:
            name = self.module_of(target.target).global_name(target.name)
            self.assigned_globals.add(name)
            if node.op == "=":
                self.line(f"{name} = {self.expr(node.value)}")
            else:
                old = self.temp()
                self.line(f"{old} = {name}")
                self.line(f"{name} = {self.updated(node, old, self.expr(node.value), k)}")
            return
        holder = self.expr(target.target)
        if not holder.startswith(("t", "v")):   # a local or temporary holds as it is
            holder = self.into(holder)
        if type(target) is ast.Field:
            field, span = repr(target.name), self.constant(target.name_span)
            if node.op == "=":
                new = self.expr(node.value)
            else:
                old = self.field_of(holder, target)
                new = self.updated(node, old, self.expr(node.value), k)
            kinds = self.kinds(self.types.of(target.target))
            if kinds is not None and self.state_everywhere(kinds, target.name):
                self.line(f"{self.attr(holder, target.name)} = {new}")   # the state of one kind of character
            elif self.record_field(target.target, target.name):
                self.line(f"{self.attr(holder, target.name, True)} = {new}")   # a field every record it may be has
            elif self.surely(target.target, "encounter") and target.name == "round" and node.op == "=" and \
                    self.rolls_as_numbers and self.types.of(node.value).maybe("roll"):
                self.line("bail()")   # a roll, a number here, is no round to the closures' set_field (found by review)
            elif self.surely(target.target, "encounter") and target.name == "round":
                whole = self.surely(node.value, "int") and (node.op == "=" or self.surely(target, "int"))
                self.line(f"if {'' if whole else f'{class_of(new)} is int and '}{new} >= 0: {holder}.round = {new}")
                self.line(f"else: set_field({holder}, {field}, {new}, {span})")
            else:
                self.line(f"if {class_of(holder)} is Character and {field} in {holder}.kind.schema.changes: "
                          f"{self.attr(holder, target.name)} = {new}")
                self.line(f"else: set_field({holder}, {field}, {new}, {span})")
            return
        key = self.temp()
        self.line(f"{key} = {self.expr(target.key)}")
        span = self.constant(target.key.span)
        indexed = self.character_indexed(target)
        if node.op == "=":
            new = self.expr(node.value)
        else:
            old = self.character_field(holder, key, target.key, span) if indexed else \
                self.into(f"get_index(EV, {holder}, {key}, {span})")
            new = self.updated(node, old, self.expr(node.value), k)
        if indexed:   # a character's state by its name (robomacs' `c[level] -= 1`) straight, as set_field sets it
            self.line(f"if {key} in {holder}.kind.schema.changes: {holder}.__dict__[{key}] = {new}")
            self.line(f"else: set_index(EV, {holder}, {key}, {new}, {span})")
        else:
            self.line(f"set_index(EV, {holder}, {key}, {new}, {span})")

    def updated(self, node: ast.Assign, old: str, value: str, k: str) -> str:
        """`old` (the target's value) with `value` added, taken away... (`+=`, `-=`...): without the
        test of their types where the checker knows them, as an expression's operands."""
        target, right = node.target, node.value
        known = (self.surely(target, "int"), self.surely(right, "int"))
        numbers = self.surely(target, "number") and self.surely(right, "number")
        return self.arithmetic(node.op[0], old, value, k, known, (None, self.bound(right)), numbers,
                               rolled=self.types.of(right).maybe("roll"))

    def record_field(self, node, name: str) -> bool:
        """Whether `node` is surely a record, of shapes that all have the field `name` (a record's
        fields are fixed: set_field would only check that it has it)."""
        found = self.types.of(node)
        return found.surely("record") and all(name in atom.names for atom in found)
