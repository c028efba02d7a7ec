"""What the written code works out as it is written (a part of expressions.Expressions): a
comparison of two values it knows (a literal of the text, an option no run changes, Writer.frozen,
or a character's field that every run reads as one value, unchanging.py), and a test of the truth
of one. Python's compiler then leaves out an `if False:` block: a rule the encounter never uses is
tested once, in the set-up, not at every use."""

from __future__ import annotations

from ..checker.types import CharT
from ..interpreter import ast
from .writer import COMPARE, NOT_LITERAL, Writer, folded, literal_value, python_literal


class Folding(Writer):

    def fixed(self, node) -> "str | None":
        """A literal, the name of an option no run changes, or a field no run changes (`unchanging`),
        as a Python literal; else None."""
        while type(node) is ast.Group:
            node = node.inner
        value = literal_value(node)
        if value is NOT_LITERAL and type(node) is ast.Name:
            place = self.resolve(node.id)
            if place is not None and place[0] == "global" and place[1] in self.frozen:
                value = self.frozen[place[1]]
        if value is NOT_LITERAL and type(node) is ast.Field:
            return self.unchanging_field(node)
        return None if value is NOT_LITERAL else python_literal(value)

    def fixed_compare(self, node) -> "str | None":
        """`node`, a comparison of two literals, options or fields no run changes, worked out: "True"
        or "False" (pbem's `tie == "defender"`); None for any other."""
        a, b = self.fixed(node.left), self.fixed(node.right)
        return None if a is None or b is None else folded(a, COMPARE.get(node.op, node.op), b)

    def truth(self, node) -> "str | None":
        """"True" or "False" for an option or a field no run changes that is surely true or false;
        else None. Read so only where a truth is tested (`if`, `while`, `and`, `or`, `not`, and in
        comparisons, `fixed_compare`): elsewhere a literal could stand where Python warns of one
        (`False(1)`, `2 is not True`), in code that no run reaches."""
        while type(node) is ast.Group:
            node = node.inner
        if type(node) not in (ast.Name, ast.Field) or not self.surely(node, "bool"):
            return None
        text = self.fixed(node)
        return text if text in ("True", "False") else None

    def tested(self, node) -> str:
        """`node` worked out to be tested for being true or false (`x is not True and ...`): a number
        (negated or not) or text the script writes there is neither, an error the closures word (the
        written code bails), and Python warns of `is` with such a literal."""
        literal = node
        while type(literal) is ast.Group or type(literal) is ast.Unary and literal.op == "-":
            literal = literal.inner if type(literal) is ast.Group else literal.operand   # `-2`, `-(2)`: `(-2)`
        if type(literal_value(literal)) in (int, str):
            return self.into("bail()")
        return self.expr(node)

    def unchanging_field(self, node: ast.Field) -> "str | None":
        """`x.name` as a Python literal when x is a name that is surely a character (not none, whose
        field is an error), and every kind it may be holds the field with one value that no run
        changes (unchanging.py); else None."""
        if not self.unchanging or self.module_of(node.target) is not None:
            return None
        found = self.types.of(node.target)
        if found.is_any or found.is_empty or any(type(atom) is not CharT for atom in found):
            return None
        values = [self.unchanging.get((atom.kind, node.name), NOT_LITERAL) for atom in found]
        first = values[0]
        if first is NOT_LITERAL or any(type(v) is not type(first) or v != first for v in values):
            return None
        if type(node.target) is not ast.Name or self.pure(node.target) is None:
            return None   # a call, or a read that may fail (a field of none): worked out as it is
        return python_literal(first)
