"""Arithmetic written as Python (a part of expressions.Expressions): whole numbers inline, their size
tested against `number_bits` unless the text bounds it, lists joined inline; anything else by the
closures' `binary`."""

from __future__ import annotations

from fractions import Fraction

from ..interpreter import ast
from ..interpreter.operators import may_roll, pool_chain
from ..interpreter.values import TEXT_STEP
from ..checker.types import PoolT
from ..numbers import normal
from .runtime import EXACT
from .writer import SIMPLE, TEMPORARY, Writer, class_of, is_literal, spending


class Arithmetic(Writer):
    def e_Power(self, node):
        # both sides worked out first, then numbers of them (a pool rolled), as the closures do
        base, exponent = self.expr(node.base), self.expr(node.exponent)
        return self.into(f"power(EV, {base}, {exponent}, {self.constant(node)})")

    def e_Unary(self, node):
        value = self.expr(node.operand)
        if is_literal(value):   # `-1`: a literal
            number = int(value.strip("()"))
            return self.e_Number(ast.Number(None, -number if node.op == "-" else number))
        if self.surely(node.operand, "number"):   # unary's answer for a number: no test
            return self.into(f"-{value}") if node.op == "-" else value
        k = self.constant(node)
        if node.op == "-":
            return self.into(f"-{value} if {class_of(value)} is int else unary(EV, {k}, {value})")
        return self.into(f"{value} if {class_of(value)} is int else unary(EV, {k}, {value})")

    def bound(self, node) -> "int | None":
        """A bound on the size of the whole number `node` gives, when the text alone tells one: a
        literal, a plain roll, `len`, a local `let` once from such, their sums and products."""
        kind = type(node)
        if kind is ast.Group:
            return self.bound(node.inner)
        if kind is ast.Number:
            return abs(node.value) if type(node.value) is int else None
        if kind is ast.Dice:
            sides = node.sides
            sides = 100 if sides == "%" else 1 if sides == "F" else \
                sides.value if type(sides) is ast.Number and type(sides.value) is int else None
            count = 1 if node.count is None else node.count.value if type(node.count) is ast.Number else None
            return count * sides if type(count) is int and sides is not None and not node.modifiers else None
        if kind is ast.Name:
            place = self.resolve(node.id)
            return self.bounds.get(place[1]) if place is not None and place[0] == "local" else None
        if kind is ast.Unary:
            return self.bound(node.operand)
        if kind is ast.BinOp and node.op in ("+", "-", "*"):
            a, b = self.bound(node.left), self.bound(node.right)
            if a is None or b is None:
                return None
            return a + b if node.op != "*" else a * b
        if kind is ast.Call and type(node.callee) is ast.Name and node.callee.id == "len" and \
                self.resolve("len") is None:
            return self.limits.list_size
        return None

    def arithmetic(self, op: str, a: str, b: str, k: str, known=(False, False), bounds=(None, None),
                   numbers: bool = False, pooled: "str | None" = None, whole: bool = False,
                   rolled: bool = False) -> str:
        """`a op b` of whole numbers inline, its result's size tested against `number_bits` unless no
        result can outgrow them (a small literal, or an operand whose `bound` is below SMALL, or
        SMALL_FACTOR for a product, with another such); the class of an operand tested unless the
        types say it is a whole number (`known`, for `a` and `b`); of numbers (`numbers`: the types
        say both are) with a Fraction, exactly (`runtime.exact_sum` and its kin); of a pool and a pool or
        a whole number (`pooled`: "pool" or "int", what the types say `b` is when `a` is surely a
        pool), as the pool adds them (`whole`: the types say the sum's flat bonus is a whole number);
        anything else by `binary`."""
        ints = all(known)
        if pooled is not None and op in "+-" and self.pools:
            return self.pool_made(a, op, b, pooled, self.constant(self.constants[k].span), whole)
        # a number plus 0 is that number (transformers' `size_mod(...) = 0`, written in place), as
        # it is now: a name is read into a temporary, as a sum would be (a later call may change it)
        if numbers and op in "+-" and (b == "0" or b in self.zeros):
            return a if TEMPORARY.fullmatch(a) else self.into(a)
        if numbers and op == "+" and (a == "0" or a in self.zeros):
            return b if TEMPORARY.fullmatch(b) else self.into(b)
        if op in ("/", "//", "%") and not self.values_within_bits:
            # an option or literal past number_bits: its quotient or remainder may be too (found by review)
            return self.into(f"binary(EV, {op!r}, {a}, {b}, {k})")
        if op == "/" and is_literal(a) and is_literal(b) and int(b.strip("()")) != 0:
            return self.e_Number(ast.Number(None, normal(Fraction(int(a.strip("()")), int(b.strip("()"))))))
        if op in ("/", "//", "%"):   # no result is larger than its operands (values_within_bits)
            exact = f"({a} // {b} if {a} % {b} == 0 else ratio({a}, {b}))" if op == "/" else f"{a} {op} {b}"
            if op == "/" and b == "2":   # a half, the rules' usual quotient: no remainder worked out, no gcd
                exact = f"({a} >> 1 if not {a} & 1 else half({a}))"
            tests = [] if ints else [f"{class_of(x)} is int" for x in (a, b) if not is_literal(x)]
            if not (is_literal(b) and int(b.strip("()")) != 0):
                tests.append(f"{b} != 0")
            if not tests:
                return self.into(exact)
            other = f"binary(EV, {op!r}, {a}, {b}, {k})"
            if numbers and op == "/" and not ints:   # a Fraction on a side: as binary divides, but by 0
                quotient = f"exact_quotient({a}, {b}, NUMBER_BITS)"
                nonzero = is_literal(b) and int(b.strip("()")) != 0
                other = quotient if nonzero else f"{quotient} if {b} != 0 else {other}"
            return self.into(f"{exact} if {' and '.join(tests)} else {other}")
        if ints and op in "+-":
            one_sided = self.past_literal(op, a, b, k)
            if one_sided is not None:
                return one_sided
        limit = self.small if op in "+-" else self.small_factor
        types, sized = [], False
        for operand, whole_number, bound in ((a, known[0], bounds[0]), (b, known[1], bounds[1])):
            if is_literal(operand):
                if abs(int(operand.strip("()"))) >= limit:
                    return self.into(f"binary(EV, {op!r}, {a}, {b}, {k})")
                continue
            if not whole_number:
                types.append(f"{class_of(operand)} is int")
            if not (ints and bound is not None and bound < limit):
                sized = True
        result = self.temp()
        if types:
            self.line(f"if {' and '.join(types)}:")
            self.depth += 1
        self.line(f"{result} = {a} {op} {b}")
        if sized:   # past number_bits, binary's error: the closures give it
            self.line(f"if {result}.bit_length() > NUMBER_BITS: bail()")
        if types:
            self.depth -= 1
            if numbers:   # a Fraction on a side
                self.line(f"else: {result} = {EXACT[op]}({a}, {b}, NUMBER_BITS)")
                return result
            if op in "+-" and not known[0] and not is_literal(a) and not is_literal(b) and self.pools:
                # pools add up as _pool_arithmetic adds them
                span = self.constant(self.constants[k].span)
                if not known[1]:
                    self.line(f"elif {class_of(a)} is Pool and {class_of(b)} is Pool: "
                              f"{result} = {pool_sum(a, op, b, 'pool', span)}")
                # a pool and a whole number: the number added to the pool's flat bonus (_pool_arithmetic)
                whole_b = "" if known[1] else f" and {class_of(b)} is int"
                self.line(f"elif {class_of(a)} is Pool{whole_b}: {result} = {pool_sum(a, op, b, 'int', span)}")
            if rolled and op in "+-" and not is_literal(a) and SIMPLE.fullmatch(b):   # `b` read again: a name or its field
                self.line(f"elif {class_of(a)} is int and {class_of(b)} is DiceRoll and {b}.total.__class__ is int:")
                with self.indented():
                    self.line(f"{result} = {a} {op} {b}.total")
                    self.line(f"if {result}.bit_length() > NUMBER_BITS: bail()")
            self.line(f"else: {result} = binary(EV, {op!r}, {a}, {b}, {k})")
        return result

    def pool_made(self, a: str, op: str, b: str, right: str, span: str, whole: bool) -> str:
        """The pool `a` plus or minus `b`, a pool or a whole number (`right`), made here as
        Pool.combine and Pool.plus make it (`_halves`: `Pool()` and its four slots), with no
        Python call: transformers adds pools a hundred times a fight. `whole`: the types say the
        new flat bonus is a whole number, which `normal` would leave as it is."""
        a, b = (x if x.isidentifier() or is_literal(x) else self.into(x) for x in (a, b))
        result = self.temp()
        self.line(f"{result} = Pool()")
        if right == "pool":
            self.line(f"{result}.unkept2 = {a}.unkept2 {op} {b}.unkept2")
            self.line(f"{result}.kept2 = {a}.kept2 {op} {b}.kept2")
            flat = f"{a}.flat {op} {b}.flat"
        else:
            self.line(f"{result}.unkept2 = {a}.unkept2")
            self.line(f"{result}.kept2 = {a}.kept2")
            flat = f"{a}.flat {op} {b}"
        if whole:
            self.line(f"{result}.flat = {flat}")
        else:
            summed = self.into(flat)
            self.line(f"{result}.flat = {summed} if {class_of(summed)} is int else normal({summed})")
        self.line(f"{result}.span = {span}")
        return result

    def joined_lists(self, a: str, b: str, k: str, lists: bool) -> str:
        """`a + b` of two lists (tested to be, unless the types say so; else `binary`): a step for
        each item of the new list and its size tested, as binary's `_concatenate` does, in one line."""
        result = self.temp()
        if not lists:
            self.line(f"if {class_of(a)} is list and {class_of(b)} is list:")
            self.depth += 1
        self.line(f"{result} = {a} + {b}")
        # of an empty list (robomacs' modifiers, mostly none), nothing: told by its truth; its
        # length asked once (LENGTH, a local)
        self.line(f"if {result} and ((LENGTH := len({result})) > LIST_SIZE or "
                  f"(STEP_BULK := STEP_BULK - LENGTH) < 0): bail()")
        if not lists:
            self.depth -= 1
            self.line(f"else: {result} = binary(EV, '+', {a}, {b}, {k})")
        return result

    def joined_texts(self, a: str, b: str) -> str:
        """`a + b` of two strings (the types say so), as binary's `_concatenate` joins them: its size
        tested, a step a TEXT_STEP characters of the new string."""
        result = self.temp()
        self.line(f"{result} = {a} + {b}")
        self.line(f"if (LENGTH := len({result})) > STRING_SIZE: bail()")   # its length asked once
        self.line(f"if LENGTH >= {TEXT_STEP}:")
        with self.indented():
            self.line(spending(f"LENGTH // {TEXT_STEP}"))
        return result

    def past_literal(self, op: str, a: str, b: str, k: str) -> "str | None":
        """`a + n`, `a - n`, `n + a`, `n - a` of a whole number `a` and a small literal `n`: the
        result outgrows `a` on one side only, so one comparison tells whether it may outgrow
        `number_bits` (every whole number a run holds is within them). None for any other sum."""
        x, y = (int(text.strip("()")) if is_literal(text) else None for text in (a, b))
        if (x is None) == (y is None) or abs(x if x is not None else y) >= self.small:
            return None
        if y is not None:   # a + y, a - y: grows upward when it adds a positive amount
            up = (y >= 0) == (op == "+")
            operand = a
        else:               # x + b grows with b; x - b grows upward as b goes down
            up = op == "+"
            operand = b
        test = f"{operand} < SMALL" if up else f"{operand} > -SMALL"
        return self.into(f"{a} {op} {b} if {test} else binary(EV, {op!r}, {a}, {b}, {k})")

    def whole_flats(self, left, right) -> bool:
        """Whether a pool `left` plus a pool or whole number `right` (`pooled`) surely has a whole
        flat bonus: each pool `left` and `right` may be has one."""
        found = [self.types.of(side) for side in (left, right)]
        return not any(t.is_any for t in found) and all(type(atom) is not PoolT or atom.whole for t in found for atom in t)

    def pooled(self, left, right) -> "str | None":
        """What `right` surely is, "pool" or "int", when `left` is surely a pool (`arithmetic`)."""
        if not self.surely(left, "pool"):
            return None
        return "pool" if self.surely(right, "pool") else "int" if self.surely(right, "int") else None

    def e_BinOp(self, node):
        chain = pool_chain(node) if node.op in ("+", "-") else None
        if chain is None:
            a = self.expr(node.left)
            b = self.expr(node.right)
            if node.op == "+" and self.types.of(node.left).maybe("list") and self.types.of(node.right).maybe("list"):
                return self.joined_lists(a, b, self.constant(node), self.surely(node.left, "list") and
                                         self.surely(node.right, "list"))
            if node.op == "+" and self.surely(node.left, "str") and self.surely(node.right, "str"):
                return self.joined_texts(a, b)
            known = (self.surely(node.left, "int"), self.surely(node.right, "int"))
            numbers = self.surely(node.left, "number") and self.surely(node.right, "number")
            return self.arithmetic(node.op, a, b, self.constant(node), known,
                                   (self.bound(node.left), self.bound(node.right)), numbers,
                                   self.pooled(node.left, node.right), self.whole_flats(node.left, node.right),
                                   self.types.of(node.right).maybe("roll"))
        # A sum that may hold a pool: terms left to right; the closures make a term that may roll dice
        # wait while the sum so far is a pool (the pool rolls first): that case is theirs.
        total = None
        pool_before = False
        ints = numbers = True
        total_bound = 0
        lists = surely_lists = True   # the sum so far may be (is surely) a list
        texts = True                  # the sum so far is surely a string
        for binop, term in chain:
            if total is not None and pool_before and self.pools and may_roll(term):
                self.line(f"if {class_of(total)} is Pool: bail()")
            value = self.expr(term)
            ints_before = ints
            # the sum so far may be a pool once a term may be one, of any shape (`(2k1 - 1) - f(c)`:
            # a group, found by the fuzz test)
            pool_before = pool_before or self.types.of(term).maybe("pool")
            ints = ints and self.surely(term, "int")
            numbers = numbers and self.surely(term, "number")
            term_bound = self.bound(term)
            found = self.types.of(term)
            lists, surely_lists = lists and found.maybe("list"), surely_lists and found.surely("list")
            texts = texts and found.surely("str")
            if total is None:
                total = value   # a literal, a local or a temporary: each sum step makes a new one
                total_bound = term_bound
            elif binop.op == "+" and texts:
                total = self.joined_texts(total, value)
            elif binop.op == "+" and lists:
                total = self.joined_lists(total, value, self.constant(binop), surely_lists)
            else:
                total = self.arithmetic(binop.op, total, value, self.constant(binop),
                                        (ints_before, self.surely(term, "int")), (total_bound, term_bound),
                                        numbers, self.pooled(binop.left, term), self.whole_flats(binop.left, term),
                                        found.maybe("roll"))
                total_bound = None if total_bound is None or term_bound is None else total_bound + term_bound
        return total


def pool_sum(a: str, op: str, b: str, right: str, span: str) -> str:
    """The pool `a` plus or minus `b`, a pool or a whole number (`right`), as _pool_arithmetic adds them."""
    if right == "pool":
        return f"{a}.combine({b}, {1 if op == '+' else -1}, {span})"
    return f"{a}.plus({b if op == '+' else '-' + b}, {span})"
