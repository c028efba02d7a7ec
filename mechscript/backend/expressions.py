"""Expressions written as Python (emit.py): each gives a Python expression that is a literal, a local
or a temporary, the work before it written as lines, so that values are worked out in the closures'
order; a read or test that does nothing else may be written inline (`pure`)."""

from __future__ import annotations

import sys

from ..checker.types import CharT, RecordT
from ..dice.engine import sampler
from ..dice.faces import FEW_DICE, ONE_DIE, drawn_bits, face_table, few_dice
from ..dice.rollkeep import pool_of
from ..interpreter import ast
from ..interpreter.operators import CONSTANTS
from ..interpreter.values import record_shape
from .arithmetic import Arithmetic
from .comparisons import Comparisons, identity, logic
from .scalars import Scalars
from .writer import BOOLEAN, NOT_LITERAL, SIMPLE, Unsupported, class_of, folded, literal_value, spending


# a record literal of F fixed and M made fields costs F + M + 2 bytecodes written out, 5 + 2 M as
# a copy of a template: the copy pays when F exceeds M by more than this
TEMPLATE_COSTS = 3
# The most fields CPython keeps once for all the objects of a class (its dict's SHARED_KEYS_MAX_SIZE):
# a record of more is made from a dict
SHARED_KEYS = 30


class Expressions(Arithmetic, Comparisons, Scalars):

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
            return self.read_local(node, place[1]) if place[0] == "local" else place[1]
        if kind is ast.Field:
            if self.module_of(node.target) is not None:
                module = self.module_of(node.target)
                return None if module.names.get(node.name) == "module" else module.global_name(node.name)
            target = self.pure(node.target)
            if target is None:
                return None
            scalar = self.scalar_field(target, node.name)
            if scalar is not None:
                return scalar
            if self.kept_field(node):
                # of characters, or else of records: `attr` tells their own attributes apart
                return self.attr(target, node.name, self.kinds(self.types.of(node.target)) is None)
            if self.surely(node.target, "encounter") and node.name in ("round", "name") or \
                    self.kinds(self.types.of(node.target)) is not None and node.name in ("name", "side"):
                return f"{target}.{node.name}"
            if self.kinds(self.types.of(node.target)) is not None and node.name == "kind":
                return f"{target}.kind.name"
            return None
        if kind is ast.Compare:
            known = self.kind_known(node, lines=False) or self.fixed_compare(node)
            if known is not None:
                return known
            if self.can_be_pool(node.left) or self.can_be_pool(node.right):
                return None   # a pool compared is rolled first (evaluator.compile_Compare): dice drawn
            a, b = self.pure(node.left), self.pure(node.right)
            if a is None or b is None:
                return None
            if node.op in ("==", "!=") and (self.identity_only(node.left) or self.identity_only(node.right)):
                return f"({identity(a, node.op, b)})"   # as e_Compare: Python's `is`
            literal = literal_value(node.right)
            if self.surely(node.left, "int") and self.surely(node.right, "int") or \
                    self.surely(node.left, "str") and self.surely(node.right, "str") or \
                    node.op in ("==", "!=") and (type(literal) is str or self.python_equality(node.left, node.right)):
                if not self.may_compare_long_text(node):
                    return f"({a} {node.op} {b})"
                if not SIMPLE.fullmatch(a):   # read again below: only a name or a field of one
                    return None
                # the same answer; a long text's work is counted (values.equal, compare_values)
                return f"({self.counted_text_compare(node, a, node.op, b, self.constant(node))})"
            if self.may_compare_long_text(node):
                return None
            if node.op in ("==", "!=") and (literal is None or type(literal) is bool):
                return f"({identity(a, node.op, b)})"
            return None
        if kind is ast.Logic:
            if not (self.surely(node.left, "bool") or isinstance(node.left, BOOLEAN)) or \
                    not (self.surely(node.right, "bool") or isinstance(node.right, BOOLEAN)):
                return None
            a, b = self.truth(node.left) or self.pure(node.left), self.truth(node.right) or self.pure(node.right)
            return None if a is None or b is None else logic(a, node.op, b)
        if kind is ast.Not:
            if not (self.surely(node.operand, "bool") or isinstance(node.operand, BOOLEAN)):
                return None
            a = self.truth(node.operand) or self.pure(node.operand)
            return None if a is None else f"(not {a})"
        return None

    def read_local(self, node: ast.Name, python: str) -> str:
        """The local `python` that `node` reads, noted in `present_names` when the types (the
        checker's, the same at every read of it, not narrowed here) say it is a character or a
        record."""
        found = self.types._types.of(node)
        if not found.is_any and not found.is_empty and all(type(atom) in (CharT, RecordT) for atom in found):
            self.present_names.add(python)
        return python

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
        found = self.types.of(node)
        if found.is_any or found.is_empty or self.can_be_pool(node):
            return general
        # a value of a few kinds: each the types allow tested for in turn, as `show` shows it
        tests = {"int": f"str({value}) if {class_of(value)} is int and -SHOWN_WHOLE < {value} < SHOWN_WHOLE",
                 "str": f"{value} if {class_of(value)} is str and len({value}) < 100",
                 "bool": f"'true' if {value} is True else 'false' if {value} is False",
                 "none": f"'none' if {value} is None",
                 "character": f"{value}.name if {class_of(value)} is Character"}
        shown = [tests[kind] for kind in tests if found.maybe(kind)]
        return " else ".join(shown + [general]) if shown else general

    def e_PoolLiteral(self, node):
        return self.constant(pool_of(node.unkept, node.kept, 0, node.span))

    def e_Name(self, node):
        if node.id in CONSTANTS:
            return {"true": "True", "false": "False", "none": "None"}[node.id]
        place = self.resolve(node.id)
        if place is None:
            raise Unsupported(f"the name {node.id}")
        if place[0] == "local":
            return self.read_local(node, place[1])
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
        fields = [(name, None if name in unread else literal_value(value), None if name in unread else values.pop())
                  for name, value in node.fields]
        names = tuple(sys.intern(name) for name, _, _ in fields)
        if len(names) <= SHARED_KEYS and all(self.attr("t", name, record=True) == "t." + name for name in names):
            # an object of its shape's class, its fields set one by one: under half the time of a
            # dict given to `Record()`, a sixth for 27 fields (values.record_shape)
            record = self.into(f"{self.constant(record_shape(names))}()")
            for name, _, text in fields:
                self.line(f"{record}.{name} = {text or 'None'}")
            return record
        made = [f"{name!r}: {text or 'None'}" for name, value, text in fields if value is NOT_LITERAL]
        if len(fields) - len(made) <= len(made) + TEMPLATE_COSTS:
            values = "{" + ", ".join(f"{name!r}: {text or 'None'}" for name, _, text in fields) + "}"
        else:
            # mostly fixed values: a copy of them all, in the written order, with the others put in,
            # which Python loads two a field, not one every field (its names interned, as the
            # closures' records: characters.compile_kind says why)
            template = self.constant({name: None if value is NOT_LITERAL else value
                                      for name, (_, value, _) in zip(names, fields)})
            values = "{**" + template + "".join(", " + field for field in made) + "}"
        # made as Python makes an object of a class with no __init__ (values.Record), its dict given
        record = self.into("Record()")
        self.line(f"{record}.__dict__ = {values}")
        return record

    def e_Match(self, node):
        subject = self.fixed(node.subject) or self.expr(node.subject)
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
        known = folded(subject, "==", pattern)   # an option no run changes (`fixed`): Python leaves out the rest
        if known is not None:
            test = known
        elif literal is NOT_LITERAL or type(literal) is int:
            test = general if literal is NOT_LITERAL else \
                f"({subject} == {pattern} if {class_of(subject)} is int else {general})"
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
            self.line(f"if {class_of(n)} is not int: {n} = EV.number({n}, None)")
            self.line(f"if {class_of(n)} is not int or not 0 <= {n} <= DICE_PER_ROLL: bail()")
        else:
            n = str(count)
        if die is not None:
            die = self.constant(die)
        elif type(node.sides) is ast.ListLiteral:
            faces = ", ".join(self.expr(item) for item in node.sides.items)
            die = self.into(f"tuple(f if type(f) is int else EV.number(f, None) for f in ({faces},))")
        else:
            die = self.into(self.expr(node.sides))
            self.line(f"if {class_of(die)} is not int: {die} = EV.number({die}, None)")
            self.line(f"if {class_of(die)} is not int or not 1 <= {die} <= DIE_SIDES: bail()")
        return self.rolled(f"roll_dice(EV.source, {n}, {die}, {self.constant(node.modifiers)}, EV)")

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
            drawn = self.into("BITS(24)")
            faces = self.constant(tuple(face_table(die)))
            return self.into(ONE_DIE.replace("DRAWN", drawn).replace("FACES", faces)
                             .replace("TABLE", self.constant(face_table(die))))
        if sample is not None:   # the total alone, from the same faces (as the closures' sampling)
            if count == 1:
                self.line("next(DICE)")
            else:
                self.line(spending(str(count), "DICE_BULK"))
            if 2 <= count <= FEW_DICE and not node.modifiers and type(die) is int and 2 <= die <= 255:
                # a few plain dice (neojove's and robomacs' 2d6), drawn inline as their source draws them
                drawn = self.into(f"BITS({drawn_bits(count)})")
                names = [self.temp() for _ in range(count)]
                return self.into(few_dice(count, drawn, self.constant(tuple(face_table(die))), self.constant(face_table(die)),
                                          names))
            return self.into(f"{self.constant(sample)}(EV.source)")
        return self.rolled(f"roll_dice(EV.source, {count}, {self.constant(die)}, {self.constant(node.modifiers)}, EV)")

    def rolled(self, roll: str) -> str:
        """A roll by the dice engine: its total where the run takes every roll as its total
        (rolls_as_numbers), as the sampled rolls give it (found by review: `3d6! % 4` took the
        roll itself, which Python cannot divide, and every run bailed)."""
        return self.into(f"{roll}.total" if self.rolls_as_numbers else roll)
