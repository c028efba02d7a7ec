"""Comparisons and logic written as Python (a part of expressions.Expressions): numbers and short
texts compared inline where the types tell, true-or-false values joined with `and`, `or`, `not`."""

from __future__ import annotations

from ..interpreter import ast
from ..interpreter.values import TEXT_STEP
from ..checker.types import NONE, CharT
from .folding import Folding
from .writer import BOOLEAN, COMPARE, TEMPORARY, class_of, is_number_or_text, kind_test, literal_value, short_text


class Comparisons(Folding):
    def e_Compare(self, node):
        known = self.kind_known(node) or self.fixed_compare(node)
        if known is not None:
            return known
        op = COMPARE[node.op]
        scaled = self.scaled(node, op)
        if scaled is not None:
            return scaled
        k = self.constant(node)
        # numbers (whole or fractions, Python compares them exactly) and strings as Python compares
        # them; two true/false values too (true == 1 is false, but neither side here is a number)
        direct = self.surely(node.left, "number") and self.surely(node.right, "number") or \
            self.surely(node.left, "str") and self.surely(node.right, "str") or \
            op in ("==", "!=") and (self.python_equality(node.left, node.right) or
                                    self.surely(node.left, "bool") and self.surely(node.right, "bool"))
        if direct and not self.can_be_pool(node.left):
            a, b = self.values([node.left, node.right])
            if op in ("==", "!=") and (self.identity_only(node.left) or self.identity_only(node.right)):
                # Python's `is`: `==` of a character or none calls __eq__ both ways before it
                # falls back to identity (CPython 3.11: some 40 ns, against 3 for `is`)
                return self.into(identity(a, op, b))
            if self.may_compare_long_text(node):   # the same answer; a long text's work is counted
                a = a if a.isidentifier() else self.into(a)
                return self.into(self.counted_text_compare(node, a, op, b, k))
            return self.into(f"{a} {op} {b}")   # Python's own comparison is the closures' here
        direct = direct and not self.may_compare_long_text(node)
        a = self.expr(node.left)
        if self.can_be_pool(node.left):
            if not a.startswith("t"):
                a = self.into(a)
            self.line(f"if {class_of(a)} is Pool: {a} = roll_and_keep(EV.source, {a}, EV)")
        b = self.expr(node.right)
        if direct:
            return self.into(f"{a} {op} {b}")
        general = f"compare_values(EV, {k}, {a}, {b})"
        return self.into(self.comparison(op, a, b, node.right, general))

    def comparison(self, op: str, a: str, b: str, right, general: str) -> str:
        """`a op b` as the closures work it out (`equal` for == and !=), the cases a literal on the
        right settles written as Python's own operators."""
        literal = literal_value(right)
        short = type(literal) is str and len(literal) < TEXT_STEP   # a long one's work is counted: general
        if op in ("==", "!="):
            if literal is None or type(literal) is bool:
                # none, true and false equal themselves alone (a roll counts as a number)
                return identity(a, op, b)
            if short:
                return f"{a} {op} {b}"   # a string equals only the same string, as in Python
        if type(literal) is int:
            return f"{a} {op} {b} if {class_of(a)} is int else {general}"
        if short:
            return f"{a} {op} {b} if {class_of(a)} is str else {general}"
        fast = f"{class_of(a)} is int and {class_of(b)} is int or {class_of(a)} is str and {class_of(b)} is str and len({a}) < {TEXT_STEP}"
        if op in ("==", "!="):
            # a character equals itself alone (a pool on the right is rolled first: the closures' case)
            fast_is = identity(a, op, b)
            return (f"{a} {op} {b} if {fast} else {fast_is} if {class_of(a)} is Character and {class_of(b)} is not Pool "
                    f"else {general}")
        return f"{a} {op} {b} if {fast} else {general}"

    def identity_only(self, node) -> bool:
        """Whether the value of `node` is surely none, a character or an encounter: values that equal
        themselves alone, so that `==` of it and anything is Python's `is`."""
        found = self.types.of(node)
        return not found.is_any and not found.is_empty and \
            all(atom in ("none", "encounter") or type(atom) is CharT for atom in found)

    def counted_text_compare(self, node, a: str, op: str, b: str, k: str) -> str:
        """`a op b` that may compare long texts (may_compare_long_text): Python's own when `a` is
        no text or a short one, else compare_values, which counts the work (values.equal). Of a
        text the types say is one, its length alone is tested (robomacs' `lower(a) == lower(b)`).
        `a` is read twice: a name or a field of one."""
        short = "" if self.surely(node.left, "str") else f"{class_of(a)} is not str or "
        return f"{a} {op} {b} if {short}len({a}) < {TEXT_STEP} else compare_values(EV, {k}, {a}, {b})"

    def scaled(self, node, op: str) -> "str | None":
        """`a < b / n` of numbers a and b and a whole literal n > 0 as `a * n < b` (and `b / n < a`
        as `b < a * n`): the same answer, exactly, with no Fraction made for b / n of whole numbers
        (transformers' `fatigued`, `c.major > courage_limit(c) / 2`, a Fraction for every odd
        limit). None for any other comparison."""
        for divided, other, first in ((node.right, node.left, False), (node.left, node.right, True)):
            while type(divided) is ast.Group:
                divided = divided.inner
            if type(divided) is not ast.BinOp or divided.op != "/":
                continue
            n = literal_value(divided.right)
            # b / n of whole numbers is no bigger than b and n, within number_bits when they are
            # (values_within_bits), so the closures' b / n never fails on its size; of a Fraction b,
            # its denominator grows (found by review)
            if type(n) is int and 0 < n and self.values_within_bits and \
                    self.surely(divided.left, "int") and self.surely(other, "number"):
                if first:   # worked out in the written order: the divided side first
                    b, a = self.values([divided.left, other])
                else:
                    a, b = self.values([other, divided.left])
                return self.into(self.times(other, a, n, divided.left, b, op, first))
        return None

    def times(self, node, a: str, n: int, whole, b: str, op: str, flipped: bool) -> str:
        """`a * n op b` (`b op a * n`, `flipped`) for `scaled` (`a` of `node`, `b` of `whole`): of
        an `a` that may be a Fraction and a `b` that is surely a whole number, a Fraction's
        `a._numerator * n op b * a._denominator` (its denominator is above 0): the same answer, with
        no Fraction made (transformers' `fatigued`, of half points of Major Damage), and no call of
        Fraction's properties `numerator` and `denominator`. `a` is read twice: a name."""
        def compared(left: str, right: str) -> str:
            return f"{right} {op} {left}" if flipped else f"{left} {op} {right}"
        whole_a = compared(f"{a} * {n}", b)
        if self.surely(node, "int") or not self.surely(whole, "int") or not a.isidentifier():
            return whole_a
        return f"{whole_a} if {class_of(a)} is int else {compared(f'{a}._numerator * {n}', f'{b} * {a}._denominator')}"

    def kind_known(self, node, lines: bool = True) -> "str | None":
        """`x.kind == "Robo"` ("True" or "False") where the types say which kinds the local x may be
        and none of them (or each) is Robo: robomacs' `standing`, whose characters in a fight of
        RoboMACs are never Robos. x may be none where `lines` allows a line that reads its kind (of
        none, that fails and the run bails, as the test would). None for any other node, or where
        the test may go either way."""
        while type(node) is ast.Group:
            node = node.inner
        test = kind_test(node)
        if test is None:
            return None
        name, kind = test
        found = self.types.of(name)
        place = self.resolve(name.id)
        same = {own == kind for _, own in self.kinds(found) or ()}
        if len(same) != 1 or place is None or place[0] != "local" or NONE in found.atoms and not lines:
            return None
        if NONE in found.atoms:
            self.line(f"{place[1]}.kind")
        return str(same.pop() == (node.op == "=="))

    def may_compare_long_text(self, node) -> bool:
        """Whether a comparison may be of two strings of TEXT_STEP characters or more: work that
        values.equal and compare_values count against the steps, so not written as Python's own."""
        for side in (node.left, node.right):
            if short_text(side):
                return False
            place = self.resolve(side.id) if type(side) is ast.Name else None
            if place is not None and place[0] == "local" and place[1] in self.short_texts:
                return False
            # a character's side is none or one of the encounter's side names, all short (quiet.py)
            if self.short_sides and type(side) is ast.Field and side.name == "side" and \
                    self.kinds(self.types.of(side.target)) is not None:
                return False
        return self.types.of(node.left).maybe("str") and self.types.of(node.right).maybe("str")

    def e_Logic(self, node):
        stop, go = ("False", "True") if node.op == "and" else ("True", "False")
        left_bool = isinstance(node.left, BOOLEAN) or self.surely(node.left, "bool")
        right_bool = isinstance(node.right, BOOLEAN) or self.surely(node.right, "bool")
        result = self.temp()
        # a value surely true or false is tested as Python tests it, and used once (inline if pure)
        a = self.kind_known(node.left)
        if a is None:
            a = self.truth(node.left) or (self.value(node.left) if left_bool else self.tested(node.left))
        if a == stop:   # known (kind_known): the right side is never worked out
            return stop
        if left_bool and right_bool:
            # the right side written aside, as if inside the `else` below: when that is no line, or
            # one that only gives its value, both sides are one Python `and`/`or`, which works the
            # right side out in the same case only
            lines, depth = self.lines, self.depth
            self.lines, self.depth = [], depth + 1
            try:
                with self.kinds_tested(node.left if node.op == "and" else None):
                    b = self.truth(node.right) or self.value(node.right)
            finally:
                aside, self.lines, self.depth = self.lines, lines, depth
            # worked out here, once, into a temporary (a later item of a list may change what the
            # sides read, or the right side may call a rule)
            if not aside:
                return self.into(logic(a, node.op, b))
            if len(aside) == 1 and TEMPORARY.fullmatch(b) and aside[0].startswith("    " * (depth + 1) + f"{b} = "):
                return self.into(logic(a, node.op, f"({aside[0].strip()[len(b) + 3:]})"))
            self.line(f"if {'not ' if node.op == 'and' else ''}{a}: {result} = {stop}")
            self.line("else:")
            self.lines.extend(aside)
            with self.indented():
                self.line(f"{result} = {b}")
            return result
        if left_bool:
            self.line(f"if {'not ' if node.op == 'and' else ''}{a}: {result} = {stop}")
        else:
            self.line(f"if {a} is {stop}: {result} = {stop}")
        self.line("else:")
        with self.indented():
            if not left_bool:
                self.line(f"if {a} is not {go}: bail()")
            with self.kinds_tested(node.left if node.op == "and" else None):
                b = self.value(node.right) if right_bool else self.tested(node.right)
            if not right_bool:
                self.line(f"if {b} is not True and {b} is not False: bail()")
            self.line(f"{result} = {b}")
        return result

    def e_Not(self, node):
        if isinstance(node.operand, BOOLEAN) or self.surely(node.operand, "bool"):
            return self.into(f"not {self.truth(node.operand) or self.value(node.operand)}")
        value = self.tested(node.operand)
        self.line(f"if {value} is not True and {value} is not False: bail()")
        return self.into(f"not {value}")


def identity(a: str, op: str, b: str) -> str:
    """`a is b` for `==` (`is not` for `!=`) of values that equal themselves alone: none, true,
    false, characters. A number or text literal is none of them: the answer is known (and Python
    warns of `is` with a literal)."""
    if any(is_number_or_text(x) for x in (a, b)):
        return str(op == "!=")
    return f"{a} {'is' if op == '==' else 'is not'} {b}"


def logic(a: str, op: str, b: str) -> str:
    """`a and b` / `a or b` of two true-or-false Python expressions; `x and True`, `x or False` (an
    option's test folded away) are `x`."""
    if b == ("True" if op == "and" else "False"):
        return a
    return f"({a} {op} {b})"
