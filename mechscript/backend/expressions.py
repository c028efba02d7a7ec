"""Expressions written as Python (emit.py): each gives a Python expression that is a literal, a local
or a temporary, the work before it written as lines, so that values are worked out in the closures'
order; a read or test that does nothing else may be written inline (`pure`)."""

from __future__ import annotations

import re

from fractions import Fraction

from ..dice.engine import sampler
from ..dice.faces import ONE_DIE, face_table
from ..dice.rollkeep import Pool
from ..interpreter import ast
from ..numbers import normal
from ..interpreter.operators import CONSTANTS, may_be_pool, may_roll, pool_chain
from ..interpreter.values import TEXT_STEP
from .writer import BOOLEAN, COMPARE, NOT_LITERAL, Unsupported, Writer, is_literal, literal_value


# a local, or a field of one: cheap to read twice
SIMPLE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class Expressions(Writer):

    def expr(self, node) -> str:
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(type(node).__name__)
        return method(node)

    def value(self, node) -> str:
        """An expression used once: written inline when it has a typed form with no test and no
        effect (`pure`), else worked out into a temporary."""
        pure = self.pure(node)
        return pure if pure is not None else self.expr(node)

    def values(self, nodes) -> list[str]:
        """Expressions worked out left to right and used once each (arguments, items): the ones after
        the last that does anything but read are written inline, the rest into temporaries in order."""
        pure = [self.pure(node) for node in nodes]
        cut = max((i + 1 for i, text in enumerate(pure) if text is None), default=0)
        return [self.expr(node) if i < cut else pure[i] for i, node in enumerate(nodes)]

    def pure(self, node) -> "str | None":
        """`node` as one Python expression when every part of it has a typed form that needs no test
        of a value and does nothing but read (so where it is worked out cannot matter): literals,
        names, fields the checker knows, comparisons of known types, and/or/not of true or false."""
        kind = type(node)
        if kind is ast.Group:
            return self.pure(node.inner)
        if kind is ast.Number:
            return self.e_Number(node) if type(node.value) is int else None
        if kind is ast.String:
            return self.e_String(node) if all(type(part) is str for part in node.parts) else None
        if kind is ast.Name:
            if node.id in CONSTANTS:
                return self.e_Name(node)
            place = self.resolve(node.id)
            if place is None or place[0] in ("unset", "module"):
                return None
            return place[1]
        if kind is ast.Field:
            if self.module_of(node.target) is not None:
                module = self.module_of(node.target)
                return None if module.names.get(node.name) == "module" else module.global_name(node.name)
            target = self.pure(node.target)
            if target is None:
                return None
            if self.kept_field(node):
                return self.attr(target, node.name)
            if self.surely(node.target, "encounter") and node.name in ("round", "name") or \
                    self.kinds(self.types.of(node.target)) is not None and node.name in ("name", "side"):
                return f"{target}.{node.name}"
            if self.kinds(self.types.of(node.target)) is not None and node.name == "kind":
                return f"{target}.kind.name"
            return None
        if kind is ast.Compare:
            a, b = self.pure(node.left), self.pure(node.right)
            if a is None or b is None:
                return None
            literal = literal_value(node.right)
            if self.surely(node.left, "int") and self.surely(node.right, "int") or \
                    self.surely(node.left, "str") and self.surely(node.right, "str") or \
                    node.op in ("==", "!=") and (type(literal) is str or self.python_equality(node.left, node.right)):
                if not self.may_compare_long_text(node):
                    return f"({a} {node.op} {b})"
                if not SIMPLE.fullmatch(a):   # read again below: only a name or a field of one
                    return None
                # the same answer; a long text's work is counted (values.equal, compare_values)
                return f"({a} {node.op} {b} if type({a}) is not str or len({a}) < {TEXT_STEP} " \
                       f"else compare_values(EV, {self.constant(node)}, {a}, {b}))"
            if self.may_compare_long_text(node):
                return None
            if node.op in ("==", "!=") and (literal is None or type(literal) is bool):
                return f"({a} {'is' if node.op == '==' else 'is not'} {b})"
            return None
        if kind is ast.Logic:
            if not (self.surely(node.left, "bool") or isinstance(node.left, BOOLEAN)) or \
                    not (self.surely(node.right, "bool") or isinstance(node.right, BOOLEAN)):
                return None
            a, b = self.pure(node.left), self.pure(node.right)
            return None if a is None or b is None else f"({a} {node.op} {b})"
        if kind is ast.Not:
            if not (self.surely(node.operand, "bool") or isinstance(node.operand, BOOLEAN)):
                return None
            a = self.pure(node.operand)
            return None if a is None else f"(not {a})"
        return None

    def e_Group(self, node):
        return self.expr(node.inner)

    def e_Number(self, node):
        if type(node.value) is int:
            return repr(node.value) if node.value >= 0 else f"({node.value!r})"
        return self.constant(node.value)

    def e_String(self, node):
        if all(type(part) is str for part in node.parts):
            return repr("".join(node.parts))
        span = self.constant(node.span)
        pieces = []
        for part in node.parts:
            if type(part) is str:
                pieces.append(repr(part))
            else:
                value = self.expr(part)
                pieces.append(self.into(self.shown(part, value, span)))
        text = self.into(" + ".join(pieces))
        self.line(f"if len({text}) > STRING_SIZE: bail()")
        return text

    def shown(self, node, value: str, span: str) -> str:
        """`value` as "{...}" shows it: a character by its name, a whole number or a short string as
        it is, without a call where the types tell which; everything else by `show`."""
        general = f"show(EV, {value}, {span})"
        if self.surely(node, "character") or self.surely(node, "encounter"):
            return f"{value}.name"
        if self.surely(node, "int") and not self.can_be_pool(node):
            return f"str({value}) if -SHOWN_WHOLE < {value} < SHOWN_WHOLE else {general}"
        if self.surely(node, "str"):
            return f"{value} if len({value}) < 100 else {general}"
        return general

    def e_PoolLiteral(self, node):
        return self.constant(Pool(node.unkept, node.kept, 0, node.span))

    def e_Name(self, node):
        if node.id in CONSTANTS:
            return {"true": "True", "false": "False", "none": "None"}[node.id]
        place = self.resolve(node.id)
        if place is None:
            raise Unsupported(f"the name {node.id}")
        if place[0] == "local":
            return place[1]
        if place[0] == "unset":
            return self.into("bail()")
        if place[0] == "module":
            raise Unsupported("a module as a value")
        return self.into(place[1])

    def e_ListLiteral(self, node):
        items = self.values(node.items)
        return self.into("[" + ", ".join(items) + "]")

    def e_Record(self, node):
        unread = self.unread.get(id(node), ())
        values = self.values([value for name, value in node.fields if name not in unread])[::-1]
        fields = [f"{name!r}: {'None' if name in unread else values.pop()}" for name, _ in node.fields]
        return self.into("Record({" + ", ".join(fields) + "})")

    def e_Power(self, node):
        # both sides worked out first, then numbers of them (a pool rolled), as the closures do
        base, exponent = self.expr(node.base), self.expr(node.exponent)
        return self.into(f"power(EV, {base}, {exponent}, {self.constant(node)})")

    def e_Unary(self, node):
        value = self.expr(node.operand)
        k = self.constant(node)
        if node.op == "-":
            return self.into(f"-{value} if type({value}) is int else unary(EV, {k}, {value})")
        return self.into(f"{value} if type({value}) is int else unary(EV, {k}, {value})")

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

    def arithmetic(self, op: str, a: str, b: str, k: str, ints: bool = False, bounds=(None, None)) -> str:
        """`a op b` of whole numbers inline, its result's size tested against `number_bits` unless no
        result can outgrow them (a small literal, or an operand whose `bound` is below SMALL, or
        SMALL_FACTOR for a product, with another such); anything else by `binary`."""
        if op == "/" and is_literal(a) and is_literal(b) and int(b.strip("()")) != 0:
            return self.e_Number(ast.Number(None, normal(Fraction(int(a.strip("()")), int(b.strip("()"))))))
        if op in ("/", "//", "%"):   # no result is larger than its operands
            exact = f"({a} // {b} if {a} % {b} == 0 else Fraction({a}, {b}))" if op == "/" else f"{a} {op} {b}"
            tests = [] if ints else [f"type({x}) is int" for x in (a, b) if not is_literal(x)]
            if not (is_literal(b) and int(b.strip("()")) != 0):
                tests.append(f"{b} != 0")
            if not tests:
                return self.into(exact)
            return self.into(f"{exact} if {' and '.join(tests)} else binary(EV, {op!r}, {a}, {b}, {k})")
        if ints and op in "+-":
            one_sided = self.past_literal(op, a, b, k)
            if one_sided is not None:
                return one_sided
        limit = self.small if op in "+-" else self.small_factor
        types, sized = [], False
        for operand, known in ((a, bounds[0]), (b, bounds[1])):
            if is_literal(operand):
                if abs(int(operand.strip("()"))) >= limit:
                    return self.into(f"binary(EV, {op!r}, {a}, {b}, {k})")
                continue
            if not ints:
                types.append(f"type({operand}) is int")
            if not (ints and known is not None and known < limit):
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
            if op in "+-" and len(types) == 2 and self.pools:   # pools add up as _pool_arithmetic adds them
                span = self.constant(self.constants[k].span)
                self.line(f"elif type({a}) is Pool and type({b}) is Pool: "
                          f"{result} = {a}.combine({b}, {1 if op == '+' else -1}, {span})")
            self.line(f"else: {result} = binary(EV, {op!r}, {a}, {b}, {k})")
        return result

    def joined_lists(self, a: str, b: str, k: str, lists: bool) -> str:
        """`a + b` of two lists (tested to be, unless the types say so; else `binary`): a step for
        each item of the new list and its size tested, as binary's `_concatenate` does."""
        result = self.temp()
        if not lists:
            self.line(f"if type({a}) is list and type({b}) is list:")
            self.depth += 1
        self.line(f"{result} = {a} + {b}")
        self.line(f"if len({result}) > LIST_SIZE: bail()")
        self.line(f"if {result}: next(islice(STEP, len({result}) - 1, None))")
        if not lists:
            self.depth -= 1
            self.line(f"else: {result} = binary(EV, '+', {a}, {b}, {k})")
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

    def e_BinOp(self, node):
        chain = pool_chain(node) if node.op in ("+", "-") else None
        if chain is None:
            a = self.expr(node.left)
            b = self.expr(node.right)
            if node.op == "+" and self.types.of(node.left).maybe("list") and self.types.of(node.right).maybe("list"):
                return self.joined_lists(a, b, self.constant(node), self.surely(node.left, "list") and
                                         self.surely(node.right, "list"))
            ints = self.surely(node.left, "int") and self.surely(node.right, "int")
            return self.arithmetic(node.op, a, b, self.constant(node), ints,
                                   (self.bound(node.left), self.bound(node.right)))
        # A sum that may hold a pool: terms left to right; the closures make a term that may roll dice
        # wait while the sum so far is a pool (the pool rolls first): that case is theirs.
        total = None
        pool_before = False
        ints = True
        total_bound = 0
        lists = surely_lists = True   # the sum so far may be (is surely) a list
        for binop, term in chain:
            if total is not None and pool_before and self.pools and may_roll(term):
                self.line(f"if type({total}) is Pool: bail()")
            value = self.expr(term)
            pool_before = pool_before or (may_be_pool(term) and self.types.of(term).maybe("pool"))
            ints = ints and self.surely(term, "int")
            term_bound = self.bound(term)
            found = self.types.of(term)
            lists, surely_lists = lists and found.maybe("list"), surely_lists and found.surely("list")
            if total is None:
                total = value   # a literal, a local or a temporary: each sum step makes a new one
                total_bound = term_bound
            elif binop.op == "+" and lists:
                total = self.joined_lists(total, value, self.constant(binop), surely_lists)
            else:
                total = self.arithmetic(binop.op, total, value, self.constant(binop), ints, (total_bound, term_bound))
                total_bound = None if total_bound is None or term_bound is None else total_bound + term_bound
        return total

    def e_Compare(self, node):
        op = COMPARE[node.op]
        k = self.constant(node)
        # numbers (whole or fractions, Python compares them exactly) and strings as Python compares them
        direct = self.surely(node.left, "number") and self.surely(node.right, "number") or \
            self.surely(node.left, "str") and self.surely(node.right, "str") or \
            op in ("==", "!=") and self.python_equality(node.left, node.right)
        if direct and not self.can_be_pool(node.left):
            a, b = self.values([node.left, node.right])
            if self.may_compare_long_text(node):   # the same answer; a long text's work is counted
                a = a if a.isidentifier() else self.into(a)
                return self.into(f"{a} {op} {b} if type({a}) is not str or len({a}) < {TEXT_STEP} "
                                 f"else compare_values(EV, {k}, {a}, {b})")
            return self.into(f"{a} {op} {b}")   # Python's own comparison is the closures' here
        direct = direct and not self.may_compare_long_text(node)
        a = self.expr(node.left)
        if self.can_be_pool(node.left):
            if not a.startswith("t"):
                a = self.into(a)
            self.line(f"if type({a}) is Pool: {a} = EV.roll_pool({a})")
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
                return f"{a} {'is' if op == '==' else 'is not'} {b}"
            if short:
                return f"{a} {op} {b}"   # a string equals only the same string, as in Python
        if type(literal) is int:
            return f"{a} {op} {b} if type({a}) is int else {general}"
        if short:
            return f"{a} {op} {b} if type({a}) is str else {general}"
        fast = f"type({a}) is int and type({b}) is int or type({a}) is str and type({b}) is str and len({a}) < {TEXT_STEP}"
        if op in ("==", "!="):
            # a character equals itself alone (a pool on the right is rolled first: the closures' case)
            fast_is = f"{a} {'is' if op == '==' else 'is not'} {b}"
            return (f"{a} {op} {b} if {fast} else {fast_is} if type({a}) is Character and type({b}) is not Pool "
                    f"else {general}")
        return f"{a} {op} {b} if {fast} else {general}"

    def may_compare_long_text(self, node) -> bool:
        """Whether a comparison may be of two strings of TEXT_STEP characters or more: work that
        values.equal and compare_values count against the steps, so not written as Python's own."""
        for side in (node.left, node.right):
            literal = literal_value(side)
            if type(literal) is str and len(literal) < TEXT_STEP:
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
        a = self.value(node.left) if left_bool else self.expr(node.left)
        if left_bool:
            self.line(f"if {'not ' if node.op == 'and' else ''}{a}: {result} = {stop}")
        else:
            self.line(f"if {a} is {stop}: {result} = {stop}")
        self.line("else:")
        with self.indented():
            if not left_bool:
                self.line(f"if {a} is not {go}: bail()")
            b = self.value(node.right) if right_bool else self.expr(node.right)
            if not right_bool:
                self.line(f"if {b} is not True and {b} is not False: bail()")
            self.line(f"{result} = {b}")
        return result

    def e_Not(self, node):
        if isinstance(node.operand, BOOLEAN) or self.surely(node.operand, "bool"):
            return self.into(f"not {self.value(node.operand)}")
        value = self.expr(node.operand)
        self.line(f"if {value} is not True and {value} is not False: bail()")
        return self.into(f"not {value}")

    def e_Match(self, node):
        subject = self.expr(node.subject)
        result = self.temp()
        self.arms(node.arms, subject, result)
        return result

    def arms(self, arms, subject: str, result: str) -> None:
        if not arms:
            self.line("bail()")
            return
        arm = arms[0]
        if type(arm.body) is ast.Block:
            raise Unsupported("a match arm that is a block")
        if arm.patterns is None:
            self.line(f"{result} = {self.expr(arm.body)}")
            return
        self.patterns(arm, arm.patterns, arms, subject, result)

    def patterns(self, arm, patterns, arms, subject, result) -> None:
        pattern = self.expr(patterns[0])
        general = f"equal({subject}, {pattern}, EV)"
        literal = literal_value(patterns[0])
        if literal is NOT_LITERAL or type(literal) is int:
            test = general if literal is NOT_LITERAL else \
                f"({subject} == {pattern} if type({subject}) is int else {general})"
        else:
            test = self.comparison("==", subject, pattern, patterns[0], general)
        self.line(f"if {test}:")
        with self.indented():
            self.line(f"{result} = {self.expr(arm.body)}")
        self.line("else:")
        with self.indented():
            if len(patterns) > 1:
                self.patterns(arm, patterns[1:], arms, subject, result)
            else:
                self.arms(arms[1:], subject, result)

    def worked_out_dice(self, node, count, die) -> str:
        """Dice whose count or die is worked out as they are rolled, `(n)d6`, `d(x)`, `d[1, x]`: in
        the closures' order (the count, then the die), numbers of them (a roll's total), whole and
        within the limits; anything else bails for the closures to word."""
        if count is None:
            n = self.into(self.expr(node.count))
            self.line(f"if type({n}) is not int: {n} = EV.number({n}, None)")
            self.line(f"if type({n}) is not int or not 0 <= {n} <= DICE_PER_ROLL: bail()")
        else:
            n = str(count)
        if die is not None:
            die = self.constant(die)
        elif type(node.sides) is ast.ListLiteral:
            faces = ", ".join(self.expr(item) for item in node.sides.items)
            die = self.into(f"tuple(f if type(f) is int else EV.number(f, None) for f in ({faces},))")
        else:
            die = self.into(self.expr(node.sides))
            self.line(f"if type({die}) is not int: {die} = EV.number({die}, None)")
            self.line(f"if type({die}) is not int or not 1 <= {die} <= DIE_SIDES: bail()")
        return self.into(f"roll_dice(EV.source, {n}, {die}, {self.constant(node.modifiers)}, EV)")

    def e_Dice(self, node):
        count = 1 if node.count is None else node.count.value if type(node.count) is ast.Number else None
        sides = node.sides
        die = 100 if sides == "%" else (-1, 0, 1) if sides == "F" else \
            sides.value if type(sides) is ast.Number and type(sides.value) is int else None
        if type(count) is not int or die is None:
            return self.worked_out_dice(node, count, die)
        sample = sampler(count, die, node.modifiers) if self.rolls_as_numbers else None
        if sample is not None and count == 1 and not node.modifiers and type(die) is int and 2 <= die <= 255:
            # one plain die, drawn inline from the run's bits exactly as its face source draws it
            self.line("next(DICE)")
            table = self.constant(face_table(die))
            drawn = self.into(ONE_DIE.replace("TABLE", table))
            return self.into(f"{drawn}[0] if {drawn} else later_face(BITS, {table})")
        if sample is not None:   # the total alone, from the same faces (as the closures' sampling)
            self.line("next(DICE)" if count == 1 else f"next(islice(DICE, {count - 1}, None))")
            return self.into(f"{self.constant(sample)}(EV.source)")
        return self.into(f"roll_dice(EV.source, {count}, {self.constant(die)}, {self.constant(node.modifiers)}, EV)")
