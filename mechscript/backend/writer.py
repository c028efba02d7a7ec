"""The base of the back end's writer (emit.py): the Python text as it is written (lines, indentation,
temporaries, constants), the names a function sees, and what the checker's types tell of a value
(so the written code can skip a test).
"""

from __future__ import annotations

import contextlib
import keyword
import re
from ast import literal_eval

from ..checker.types import NONE, CharT, ListT, RecordT, RollT, RowT, TableT, Type
from ..interpreter import ast
from ..interpreter.operators import CONSTANTS
from ..interpreter.script import declared_name
from ..interpreter.tokens import MAX_DIGITS
from ..interpreter.values import TEXT_STEP, Character
from .changes import may_change

# A character's attributes of its own (values.Character's slots and `fields`), and a record's (values.Record):
# a field of the same name is read through `fields`, not as the attribute
_OWN_ATTRIBUTES = frozenset(Character.__slots__) - {"__dict__"} | {"fields"}
_RECORD_ATTRIBUTES = frozenset({"fields"})


class Unsupported(Exception):
    """A construct this writer does not write: the script runs on the closures."""


# Nodes whose value is true or false whenever they give one (no test of it needed).
BOOLEAN = (ast.Compare, ast.Logic, ast.Not)
# Nodes that never give a roll-and-keep pool.
_NEVER_POOL = (ast.Number, ast.String, ast.Compare, ast.Logic, ast.Not, ast.Dice, ast.ListLiteral, ast.Record)

COMPARE = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "==": "==", "!=": "!="}


NOT_LITERAL = object()
# `contains` of a string in a shorter list is Python's `in` (its steps counted); in a longer, the builtin's
SHORT_LIST = 1000
SIMPLE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")   # a name, or a field of one
TEMPORARY = re.compile(r"t\d+")   # a temporary of the written code (Writer.temp): no code but its own line sets it


class Narrowed:
    """The checker's types, but for a local the function being written has tested: past `if x ==
    none { return ... }`, a name `x` that no assignment can make none again is not none (Emitter
    `not_none`); past `x.kind == "Robo" and`, or inside `if x.kind == "Robo" { ... }`, it is a
    character of that kind (`kind_tested`); in the body of a one-line `fn` written in place of a call
    (Calls.inlined), a parameter is what the call's argument is (`argument_types`). The checker's
    types are the same at every point of a function, and a parameter's are those of every call's
    argument."""

    def __init__(self, types, writer: "Writer"):
        self._types, self._writer = types, writer

    def of(self, node) -> Type:
        found = self._types.of(node)
        writer = self._writer
        if writer.argument_types and type(node) is ast.Name:
            place = writer.resolve(node.id)
            given = writer.argument_types.get(place[1]) if place is not None and place[0] == "local" else None
            if given is not None:
                found = narrower(found, given)
        if writer.not_none and type(node) is ast.Name and not found.top and NONE in found.atoms:
            place = writer.resolve(node.id)
            if place is not None and place[0] == "local" and place[1] in writer.not_none:
                found = Type(found.atoms - {NONE})   # and of a kind, if tested (below)
        if writer.kind_tested and type(node) is ast.Name and writer.kinds(found) is not None:
            place = writer.resolve(node.id)
            kind = writer.kind_tested.get(place[1]) if place is not None and place[0] == "local" else None
            atoms = frozenset(atom for atom in found.atoms if type(atom) is CharT and atom.kind[1] == kind)
            if atoms:
                return Type(atoms)
        return found

    def __getattr__(self, name):
        return getattr(self._types, name)


def narrower(found: Type, given: Type) -> Type:
    """What both types allow (a value both say it may be), or `found` when they share nothing."""
    if found.top:
        return given
    if given.top:
        return found
    common = found.atoms & given.atoms
    return Type(common) if common else found


def roll_or_none(found) -> bool:
    """Whether a value of Type `found` is surely a roll, or none (robomacs' `best` before a roll)."""
    return not (found.is_any or found.is_empty) and found.maybe("roll") and \
        all(atom == "none" or type(atom) is RollT for atom in found)


def character_or_none(found) -> bool:
    """Whether a value of Type `found` is surely a character (one or more kinds), or none."""
    return not (found.is_any or found.is_empty) and all(atom == "none" or type(atom) is CharT for atom in found)


def literal_value(node):
    """The value of a number, plain string, true, false or none written as such; else NOT_LITERAL."""
    while type(node) is ast.Group:
        node = node.inner
    if type(node) is ast.Number and type(node.value) is int:
        return node.value
    if type(node) is ast.String and all(type(part) is str for part in node.parts):
        return "".join(node.parts)
    if type(node) is ast.Name and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    return NOT_LITERAL


# the values an option no run changes is read as, written as a literal (Writer.frozen)
FROZEN = (int, str, bool, type(None))
# (`is` of two values of one of these types, as the writer writes it of none, true and false, is `==`)
_FOLDS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "is": lambda a, b: a == b,
          "is not": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
          ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def class_of(value: str) -> str:
    """The class of the written value `value` as an attribute load, `x.__class__` (for `x.__class__
    is int`): no call of `type`, a builtin, which costs two bytecodes and a C call more, and
    transformers tests a value's class 700 times a fight. No value a run holds has a class that
    sets `__class__`."""
    return f"{value}.__class__" if SIMPLE.fullmatch(value) else f"({value}).__class__"


def small_literal(value) -> bool:
    """Whether a value no run changes is written as a literal (Writer.frozen, unchanging.py): true,
    false, none, a whole number of 64 bits at most or a text shorter than TEXT_STEP, whose
    comparison counts no step (not one of thousands of digits, nor a long text)."""
    kind = type(value)
    return kind is int and value.bit_length() <= 64 or kind is str and len(value) < TEXT_STEP \
        or kind in (bool, type(None))


def python_literal(value) -> str:
    """A number, string, true, false or none as a Python literal (a negative number in brackets)."""
    return f"({value!r})" if type(value) is int and value < 0 else repr(value)


def folded(a: str, op: str, b: str) -> "str | None":
    """`a op b` worked out now ("True" or "False") when `a` and `b` are Python literals of one type,
    as an option no run changes is against a literal; None otherwise. Python's compiler works out
    none of these itself, but it leaves out an `if False:` block and the test of an `if True:`."""
    values = []
    for text in (a, b):
        try:
            value = literal_eval(text)
        except Exception:   # not a literal: a name, a temporary, an expression
            return None
        if type(value) not in FROZEN or text != python_literal(value):
            return None
        values.append(value)
    x, y = values
    if op in ("==", "!=", "is", "is not") and type(x) is not type(y) and (type(x) in (bool, type(None)) or
                                                                        type(y) in (bool, type(None))):
        return str(op in ("!=", "is not"))   # none, true and false equal themselves alone
    if type(x) is not type(y) or op not in _FOLDS or op not in ("==", "!=", "is", "is not") and type(x) not in (int, str):
        return None
    return str(_FOLDS[op](x, y))


LITERAL_BITS = (10 ** MAX_DIGITS).bit_length()   # the most bits a number written in the text has


def is_literal(text: str) -> bool:
    """Whether written Python `text` is a whole-number literal (as e_Number writes one)."""
    return text.strip("()").lstrip("-").isdigit()


def is_number_or_text(text: str) -> bool:
    """Whether written Python `text` is a whole-number or text literal: never true or false, and
    Python warns of one compared with `is`, or called."""
    return is_literal(text) or text[:1] in ("'", '"')


def is_constant(text: str) -> bool:
    """Whether written Python `text` is a literal true, false, none or whole number: one that a
    script indexes or calls is an error (and Python warns of indexing or calling a literal)."""
    return text in ("True", "False", "None") or is_literal(text)


def kind_tests(node) -> list[tuple[str, str]]:
    """(name, kind name) of each `name.kind == "Kind"` that must hold for `node` to be true: the
    test itself, or one of the `and`s of a chain of them."""
    while type(node) is ast.Group:
        node = node.inner
    if type(node) is ast.Logic and node.op == "and":
        return kind_tests(node.left) + kind_tests(node.right)
    test = kind_test(node)
    return [(test[0].id, test[1])] if test is not None and node.op == "==" else []


def kind_test(node) -> "tuple[ast.Name, str] | None":
    """(x, "Robo") of `x.kind == "Robo"`, `x.kind != "Robo"` or the same the other way round, x a
    name; None for any other node."""
    if type(node) is not ast.Compare or node.op not in ("==", "!="):
        return None
    for field, other in ((node.left, node.right), (node.right, node.left)):
        kind = literal_value(other)
        if type(field) is ast.Field and field.name == "kind" and type(field.target) is ast.Name and type(kind) is str:
            return field.target, kind
    return None


def spent(count: str, budget: str = "STEP_BULK") -> str:
    """The test that spends `count` steps (or dice) at once (runtime.Budget): true, or a bail past
    the limit. The function that holds it declares the budget global (Emitter.define)."""
    return f"(({budget} := {budget} - {count}) >= 0 or bail())"


def spending(count: str, budget: str = "STEP_BULK", unless_empty: str = "") -> str:
    """The line that spends `count` steps (or dice) at once; with `unless_empty`, a list whose
    length the count is, none when it is empty (told by its truth: no call of len)."""
    return f"if {unless_empty + ' and ' if unless_empty else ''}({budget} := {budget} - {count}) < 0: bail()"


def short_text(node) -> bool:
    """Whether `node` is a literal string shorter than TEXT_STEP: comparing it costs no step."""
    literal = literal_value(node)
    return type(literal) is str and len(literal) < TEXT_STEP


def _can_be_pool(node) -> bool:
    while type(node) is ast.Group:
        node = node.inner
    return type(node) not in _NEVER_POOL and not (type(node) is ast.BinOp and node.op not in ("+", "-"))


class ModuleText:
    """What the writer knows of one module (or the script): its prefix in the namespace, its
    top-level names, and the modules it uses, in order (name -> ModuleText)."""

    def __init__(self, prefix: str, program: ast.Program):
        self.prefix = prefix
        self.program = program
        self.uses: dict[str, "ModuleText"] = {}
        self.names: dict[str, str] = {}   # top-level name -> "fn", "let", "module", "other"
        for statement in program.statements:
            if type(statement) is ast.Use:
                self.names[statement.name] = "module"
            name = declared_name(statement)
            if name is not None:
                self.names[name] = {ast.FnDef: "fn", ast.Let: "let"}.get(type(statement), "other")

    def global_name(self, name: str) -> str:
        return f"{self.prefix}_{name}"

    def lookup(self, name: str) -> "tuple[ModuleText, str] | None":
        """The module declaring a top-level `name` seen from here (its own, then its uses'), and what it is."""
        if name in self.names:
            return self, self.names[name]
        for used in self.uses.values():
            if name in used.names:
                return used, used.names[name]
        return None


class Writer:
    """The text of the namespace and the state of the function being written; `constants` are the
    objects the text refers to by name (AST nodes for the helpers' error positions, pools, modifiers)."""

    def __init__(self, small: int, purity, pools: bool, types, functions: dict, rolls_as_numbers: bool):
        # no roll's own fields (faces, kept...) are read and none is shown with `breakdown`: a die
        # is its total, a whole number, as in the closures' sampling
        self.rolls_as_numbers = rolls_as_numbers
        self.states: dict = {}   # (path, kind name) -> its state's names, for typed assignments
        self.types = Narrowed(types, self)   # checker.infer.Types: what each expression surely is
        self.functions = functions  # id(FnDef) -> the Python name of the function bound to it
        self.purity = purity        # narration.Purity: what a quiet run may leave out
        self.pools = pools          # whether the program can make a roll-and-keep pool at all
        self.dropped_statements, self.dropped_names = set(), set()   # what a quiet run leaves out (narration.py)
        self.recursive: set = set()   # the fns (ids) that may reach themselves, which count their depth (depth.py)
        self.own_names: set = set()   # the local names of the function being written (narration.local_names)
        self.unread: dict = {}   # id of a record literal -> the fields a quiet run leaves out (unread.py)
        self.short_sides = False  # every side name of the encounter is shorter than TEXT_STEP
        self.lines: list[str] = []
        self.depth = 0
        self.constants: dict[str, object] = {}
        self.count = 0
        self.small = small
        self.limits = None          # the script's Limits (QuietFight sets them)
        self.small_factor = 2 ** max(0, min(30, (small.bit_length() - 1) // 2))
        # per function
        self.module: ModuleText | None = None
        self.scopes: list[dict] = []
        self.assigned_globals: set[str] = set()
        self.every_assigned: set[str] = set()  # the globals any function assigns
        self.changed = None                  # the list and record sites code changes (changes.py)
        self.bounds: dict[str, int] = {}     # local -> a bound on its size (a `let` never reassigned)
        self.not_none: set[str] = set()      # locals past an `if x == none { return }` (Narrowed)
        self.short_texts: set[str] = set()   # locals never reassigned from short literal strings alone
        self.kind_tested: dict[str, str] = {}  # local -> the name of its kind, where a test says (Narrowed)
        self.argument_types: dict[str, Type] = {}  # a parameter's Python name -> its argument's type (Narrowed)
        self.fixed_tables: dict = {}   # global name -> a Table every run reads as the set-up left it (quiet.fixed_tables)
        self.function_nodes: list = []       # every node of the function being written
        self.private_lists: frozenset = frozenset()   # its lists no other name holds (narration.private_lists)
        # id of a function's nodes (Purity.nodes, kept for the set-up) -> not_none._assignments' answer
        self.assignments: dict[int, tuple] = {}
        # the locals of the function being written that its own lines alone change: none when it
        # holds a nested `fn` (which may assign them through a closure cell), else all
        self.fixed_locals: "set[str] | None" = None
        self.reassigned: set[str] = set()    # the names the function's assignments assign
        self.nonlocals: set[str] = set()     # names of enclosing functions a nested one assigns
        self.function_base = 0               # self.scopes[function_base:] are this function's
        self.fresh: set[str] = set()         # temporaries holding a list nobody else holds
        # push calls (by id) whose list cannot pass `list_size`, and the loops (by id) that test it
        # for them at entry (narration.bounded_pushes)
        self.bounded_pushes: set[int] = set()
        self.bounded_loops: set[int] = set()
        self.owners: dict = {}               # id(FnDef) -> the ModuleText of a top-level `fn`
        # the options no run changes, by global name: their values (quiet.frozen_options)
        self.frozen: dict[str, object] = {}
        # (kind, field name) -> the value every run reads it as (unchanging.py)
        self.unchanging: dict = {}
        self.encounter_size: int | None = None   # how many characters every encounter has (quiet.py)
        self.short_text_lists: dict = {}   # list options with no long string -> their length (quiet.short_text_lists)
        self.remembered: set[int] = set()    # the `fn`s (by id) whose answers a run remembers (memo.py)
        self.remembered_names: set[str] = set()   # the global names they are bound to
        self.keyed_calls: dict = {}           # global name -> (state read, never none) of those keyed by state
        self.leaf_works: dict[int, "int | None"] = {}   # id(FnDef) -> its Work.leaf_work
        # the Python names of locals the types say are a character or a record wherever they are
        # read (never none): a field of one read as it is cannot fail (truths.py)
        self.present_names: set[str] = set()
        self.zeros: set[str] = set()   # temporaries of the literal 0 (a number plus one is that number)
        self.forwardings: dict[int, "list | None"] = {}   # id(FnDef) -> its Work.forwarded
        # where a body written in place of its call (inlining.py) puts what it returns: None outside one
        self.returning: "str | None" = None

    # -- text --

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    @contextlib.contextmanager
    def indented(self):
        self.depth += 1
        start = len(self.lines)
        try:
            yield
        finally:
            if len(self.lines) == start:
                self.line("pass")
            self.depth -= 1

    def temp(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def constant(self, value) -> str:
        name = f"k{len(self.constants)}"
        self.constants[name] = value
        return name

    def local(self, name: str) -> str:
        self.count += 1
        python = f"v{self.count}_{name}"
        self.scopes[-1][name] = python
        if self.fixed_locals is not None:
            self.fixed_locals.add(python)
        return python

    @staticmethod
    def attr(value: str, name: str, record: bool = False) -> str:
        """A field read or written as the Python attribute it is (values.py), or through `fields` where
        the name is an attribute of a character's own (`declared`), or of a record's (`record`)."""
        if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_") and \
                name not in (_RECORD_ATTRIBUTES if record else _OWN_ATTRIBUTES):
            return f"{value}.{name}"
        return f"{value}.fields[{name!r}]"

    # -- names --

    def resolve(self, name: str):
        """("local", python name), ("unset",), ("global", python name, kind), ("module", ModuleText),
        or None (a constant or builtin)."""
        for index in range(len(self.scopes) - 1, -1, -1):
            scope = self.scopes[index]
            if name in scope:
                python = scope[name]
                return ("unset",) if python is None else ("local", python, index)
        module = self.module
        if name in module.names:
            if module.names[name] == "module":
                return ("module", module.uses[name])
            return ("global", module.global_name(name), module.names[name])
        for used in module.uses.values():
            if name in used.names:
                if used.names[name] == "module":
                    return ("module", used.uses[name])
                return ("global", used.global_name(name), used.names[name])
        return None

    def into(self, text: str) -> str:
        t = self.temp()
        self.line(f"{t} = {text}")
        if text == "0":
            self.zeros.add(t)
        return t

    def module_of(self, node) -> "ModuleText | None":
        if type(node) is not ast.Name:
            return None
        place = self.resolve(node.id)
        return place[1] if place is not None and place[0] == "module" else None

    @contextlib.contextmanager
    def kinds_tested(self, node):
        """Within: the locals that `node`, true, says are characters of a kind (kind_tests) are
        those, for those no assignment of the function changes."""
        saved = self.kind_tested
        tests = [(name, kind) for name, kind in kind_tests(node) if name not in self.reassigned]
        places = [(self.resolve(name), kind) for name, kind in tests]
        found = {place[1]: kind for place, kind in places if place is not None and place[0] == "local"}
        if found:
            self.kind_tested = {**saved, **found}
        try:
            yield
        finally:
            self.kind_tested = saved

    def surely(self, node, kind: str) -> bool:
        found = self.types.of(node)
        if kind == "int" and self.rolls_as_numbers and not self.pools and not found.is_any and not found.is_empty:
            # every roll is a die's, and a die is its total
            return all(atom == "int" or type(atom) is RollT and atom.whole for atom in found)
        return found.surely(kind)

    def list_may_change(self, node) -> bool:
        """Whether the list `node` gives may be one some code changes in place (changes.py)."""
        found = self.types.of(node)
        if self.changed is None or found.is_any or found.is_empty or not found.surely("list"):
            return True
        return any(type(atom) is ListT and atom.site in self.changed for atom in found)

    def can_be_pool(self, node) -> bool:
        return self.pools and _can_be_pool(node) and self.types.of(node).maybe("pool")

    def state_of(self, kind) -> frozenset:
        return self.states.get(kind, frozenset())

    def python_equality(self, left, right) -> bool:
        """Whether Python's `==` is the closures' `equal` for these operands: numbers, strings, none,
        characters and encounters (by identity), in any mix; not true/false (Python has True == 1),
        rolls (a roll equals its total), lists or records (compared item by item, counted)."""
        for node in (left, right):
            found = self.types.of(node)
            if found.is_any or found.is_empty:
                return False
            for atom in found:
                if atom in ("int", "fraction", "str", "none", "encounter") or type(atom) is CharT:
                    continue
                if type(atom) is RollT and self.rolls_as_numbers and not self.pools:
                    continue   # a die is its total here
                return False
        return True

    @property
    def values_within_bits(self) -> bool:
        """Whether every whole number a run holds is within `number_bits`: what arithmetic made was
        tested, and a number written in the text (an option, a stat) has at most MAX_DIGITS digits.
        Then a quotient or remainder of two of them is within too, and needs no test of its own."""
        return self.limits.number_bits >= LITERAL_BITS

    def never_none(self, fn) -> set:
        """The indexes of the parameters of `fn` the types say are never none."""
        return {i for i, found in enumerate(self.types.params(fn)) if not found.maybe("none")}

    def characters_or_none(self, fn) -> set:
        """The indexes of the parameters of `fn` the types say are a character or none."""
        return {i for i, found in enumerate(self.types.params(fn)) if character_or_none(found)}

    def found_by_python_in(self, node) -> bool:
        """Whether Python's `in` finds this value in a list as `contains` does: a string (equal to
        the same string alone; one of TEXT_STEP characters or more costs steps to compare, which
        Python's `in` does not count), none, a character or an encounter (each equal to itself
        alone), in any mix. Not a number: Python has 1 in [true]."""
        found = self.types.of(node)
        return not found.is_any and not found.is_empty and \
            all(atom in ("str", "none", "encounter") or type(atom) is CharT for atom in found)

    @staticmethod
    def one_kind(found):
        """The one kind of character a value is, when it is that or none (a field of none bails)."""
        if found.is_any or found.is_empty:
            return None
        kinds = {atom.kind for atom in found if type(atom) is CharT}
        others = [atom for atom in found if type(atom) is not CharT and atom != "none"]
        return next(iter(kinds)) if len(kinds) == 1 and not others else None

    @staticmethod
    def kinds(found) -> "set | None":
        """The kinds of character a value may be, when it is surely a character or none (a field of
        none bails), else None."""
        if found.is_any or found.is_empty:
            return None
        kinds = {atom.kind for atom in found if type(atom) is CharT}
        others = [atom for atom in found if type(atom) is not CharT and atom != "none"]
        return kinds if kinds and not others else None

    def state_everywhere(self, kinds, name: str) -> bool:
        return all(name in self.state_of(kind) for kind in kinds)

    def kept_field(self, node: ast.Field) -> bool:
        """Whether `x.name` is surely an entry of x's `fields` given as it is: a stat, derived value or
        state of each kind of character x may be that is no list (gear is given as a copy), or a
        record's field. A value that may be none instead reads the same: `none.fields` fails, and the
        run bails."""
        target = self.types.of(node.target)
        kinds = self.kinds(target)
        if kinds is not None:
            return self.kept_by_kinds(kinds, node.name)
        shape = target.record_shape()
        return shape is not None and node.name in shape

    def table_or_row(self, node) -> "set | None":
        """{"table"}, {"row"} or both, when `node` is surely a table or a table's row."""
        found = self.types.of(node)
        if found.is_any or found.is_empty:
            return None
        holders = {"table" if type(atom) is TableT else "row" if type(atom) is RowT else None for atom in found}
        return None if None in holders else holders

    def named_fields(self, node) -> set:
        """{"character"}, {"record"} or both: what `node` may be of the values whose fields an index
        names, when it is nothing else that can be indexed (a number or none is, and fails)."""
        found = self.types.of(node)
        if found.is_any or found.is_empty or found.maybe("list") or found.maybe("table") or found.maybe("row"):
            return set()
        return {"character" if type(atom) is CharT else "record" for atom in found if type(atom) in (CharT, RecordT)}

    def holds_no_fields(self, node) -> bool:
        """Whether `node` is surely neither a character nor a record: nothing with `fields`."""
        found = self.types.of(node)
        return not (found.is_any or found.is_empty) and \
            not any(type(atom) in (CharT, RecordT) for atom in found)

    def kept_by_kinds(self, kinds, name: str) -> bool:
        """Whether `name` is an entry of `fields` given as it is in a character of each of `kinds`."""
        if name in ("name", "side", "kind"):
            return False
        for kind in kinds:
            fields = self.types.kind_fields(kind)
            # a list is given as it is when it is state; gear and list stats are given as copies
            # (get_field), unless no code changes such a list in place (changes.py): nobody can tell
            if name not in fields or name not in self.state_of(kind) and fields[name].maybe("list") and \
                    may_change(fields[name], self.types, self.changed):
                return False
        return True

    def kept_if_character(self, node: ast.Field) -> bool:
        """Whether `x.name` is kept_by_kinds for the characters x may be, when x may also be some
        other value (a number, a record): the character's is then read as kept_field reads it."""
        found = self.types.of(node.target)
        if found.is_any or found.is_empty:
            return False
        kinds = {atom.kind for atom in found if type(atom) is CharT}
        return bool(kinds) and self.kept_by_kinds(kinds, node.name)
