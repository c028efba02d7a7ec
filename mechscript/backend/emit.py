"""A whole script and the modules it uses, written as the text of one Python module, for quiet runs.

This is the first piece of the one back end (shared/design/compiler.md): every `fn` of the script
and of its modules becomes a Python function of one namespace, named `<module>_<name>`, and calls
between them are plain Python calls. A module's top-level `let`s (its options) are globals of the
namespace; a house rule `fn pbem.x(...)` is a function of the script bound to pbem's global `x`.
Function-local names are Python locals. A quiet run keeps no narration: a `say` works out its
parts (for the same dice and calls) and logs an empty line, as the closures' quiet runs do.

What is written: the common case of each operation inline (whole numbers, strings, a character's
or a record's fields), everything else through the interpreter's own helpers (`binary`,
`compare_values`, `get_field`, the builtins), which give the same values. What is never written:
errors. Where the closures would raise one, the code raises `Bail` (runtime.py) and the run is
played again by the closures, which word it. Loops and calls count against the `steps` limit as
the closures do (a loop round, a call; a `for` is charged its length at entry); a count past a
limit bails too.

A program this writer does not handle (a `fn` inside a `fn`, a `match` arm that is a block, exact
odds, dice whose count is worked out) raises `Unsupported` while it is written: such a script's
batches run on the closures, as before.
"""

from __future__ import annotations

import contextlib


from ..checker.types import CharT, RollT
from ..dice.engine import sampler
from ..interpreter import ast
from ..interpreter.builtins import BUILTINS, NOT_ROLLED
from ..interpreter.evaluator import CONSTANTS, pool_chain
from ..interpreter.script import declared_name
from .narration import narration_only, pushed_to


class Unsupported(Exception):
    """A construct this writer does not write: the script runs on the closures."""


def _may_roll(node) -> bool:
    return any(type(part) in (ast.Dice, ast.Call, ast.Compare) for part in ast.walk(node))


def _may_be_pool(node) -> bool:
    while type(node) in (ast.Group, ast.Unary):
        node = node.inner if type(node) is ast.Group else node.operand
    return type(node) in (ast.PoolLiteral, ast.Name, ast.Call, ast.Field, ast.Index)


# Nodes whose value is true or false whenever they give one (no test of it needed).
_BOOLEAN = (ast.Compare, ast.Logic, ast.Not)
# Nodes that never give a roll-and-keep pool.
_NEVER_POOL = (ast.Number, ast.String, ast.Compare, ast.Logic, ast.Not, ast.Dice, ast.ListLiteral, ast.Record)

_COMPARE = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "==": "==", "!=": "!="}


_NOT_LITERAL = object()


def _literal(node):
    """The value of a number, plain string, true, false or none written as such; else _NOT_LITERAL."""
    while type(node) is ast.Group:
        node = node.inner
    if type(node) is ast.Number and type(node.value) is int:
        return node.value
    if type(node) is ast.String and all(type(part) is str for part in node.parts):
        return "".join(node.parts)
    if type(node) is ast.Name and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    return _NOT_LITERAL


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
    """Writes the Python text of the namespace; `constants` are the objects it refers to by name
    (AST nodes for the helpers' error positions, pools, modifiers)."""

    def __init__(self, small: int, purity, pools: bool, types, functions: dict, rolls_as_numbers: bool):
        # no roll's own fields (faces, kept...) are read and none is shown with `breakdown`: a die
        # is its total, a whole number, as in the closures' sampling
        self.rolls_as_numbers = rolls_as_numbers
        self.states: dict = {}   # (path, kind name) -> its state's names, for typed assignments
        self.types = types          # checker.infer.Types: what each expression surely is
        self.functions = functions  # id(FnDef) -> the Python name of the function bound to it
        self.purity = purity        # narration.Purity: what a quiet run may leave out
        self.pools = pools          # whether the program can make a roll-and-keep pool at all
        self.dropped_says: set = set()
        self.dropped_names: set = set()
        self.lines: list[str] = []
        self.depth = 0
        self.constants: dict[str, object] = {}
        self.count = 0
        self.small = small
        self.small_factor = 2 ** max(0, min(30, (small.bit_length() - 1) // 2))
        # per function
        self.module: ModuleText | None = None
        self.scopes: list[dict] = []
        self.assigned_globals: set[str] = set()
        self.nonlocals: set[str] = set()     # names of enclosing functions a nested one assigns
        self.function_base = 0               # self.scopes[function_base:] are this function's

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

    # -- functions --

    def function(self, module: ModuleText, node: ast.FnDef, python_name: str) -> None:
        """`def python_name(params):` with the function's body."""
        if node.module is not None and module.prefix != "s":
            raise Unsupported("a house rule in a module")
        self.module = module
        self.scopes = []
        self.define(node, python_name)

    def define(self, node: ast.FnDef, python_name: str) -> None:
        """The `def` of a function at this point of the text: at the top level, or inside another
        function's block (its names are then Python's closure cells of the enclosing function)."""
        saved = self.assigned_globals, self.nonlocals, self.function_base, self.dropped_says, self.dropped_names
        self.assigned_globals, self.nonlocals = set(), set()
        self.function_base = len(self.scopes)
        self.dropped_says, self.dropped_names = narration_only(self.module, node, self.purity)
        self.scopes.append({})
        try:
            params = [self.local(param) for param in node.params]
            self.line(f"def {python_name}({', '.join(params)}):")
            self.depth += 1
            header = len(self.lines)
            self.line("")   # the function's `global` and `nonlocal` names, once known
            self.line("EV.steps += 1")   # a call counts a step (the closures' count)
            self.line("if EV.steps > EV.step_limit: bail()")
            if node.line_form:
                self.line(f"return {self.expr(node.body)}")
            else:
                self.block(node.body, shares_parent=True)
            declared = []
            if self.assigned_globals:
                declared.append("global " + ", ".join(sorted(self.assigned_globals)))
            if self.nonlocals:
                declared.append("nonlocal " + ", ".join(sorted(self.nonlocals)))
            if declared:
                self.lines[header] = "    " * self.depth + "; ".join(declared)
            else:
                del self.lines[header]
            self.depth -= 1
        finally:
            del self.scopes[self.function_base:]
            self.assigned_globals, self.nonlocals, self.function_base, self.dropped_says, self.dropped_names = saved

    def until(self, module: ModuleText, node: ast.Node | None, python_name: str) -> None:
        """The encounter's `until` as `python_name(round, one_side_left, sides_left)`."""
        self.module = module
        self.scopes = [{}]
        self.assigned_globals = set()
        self.function_base = 0
        self.dropped_says, self.dropped_names = set(), set()
        params = [self.local(name) for name in ("round", "one_side_left", "sides_left")]
        self.line(f"def {python_name}({', '.join(params)}):")
        with self.indented():
            if node is None:
                self.line(f"return {params[2]} <= 1")
            else:
                self.line(f"return {self.expr(node)}")

    def local(self, name: str) -> str:
        self.count += 1
        python = f"v{self.count}_{name}"
        self.scopes[-1][name] = python
        return python

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

    # -- statements --

    def block(self, node: ast.Block, shares_parent: bool = False) -> None:
        # every name the block declares hides outer ones from its start; it has a value once its
        # `let` has run (None marks "not yet": reading it bails, as the closures raise)
        declared = {declared_name(s) for s in node.statements if declared_name(s) is not None}
        for statement in node.statements:
            if type(statement) not in (ast.Let, ast.FnDef) and declared_name(statement) is not None:
                raise Unsupported(f"a {type(statement).__name__} inside a function")
        if shares_parent:
            scope = self.scopes[-1]
            for name in declared:
                scope[name] = None
        else:
            self.scopes.append({name: None for name in declared})
        try:
            # a block's functions are defined before its statements run (as the closures do)
            functions = [s for s in node.statements if type(s) is ast.FnDef]
            named = [(fn, self.local(fn.name)) for fn in functions]
            for fn, python in named:
                self.define(fn, python)
            for statement in node.statements:
                if type(statement) is not ast.FnDef:
                    self.statement(statement)
        finally:
            if not shares_parent:
                self.scopes.pop()

    def statement(self, node) -> None:
        kind = type(node)
        if kind is ast.Let and node.name in self.dropped_names or \
                kind is ast.Assign and type(node.target) is ast.Name and node.target.id in self.dropped_names or \
                pushed_to(node) in self.dropped_names:
            return   # a value only narration reads (narration.py)
        if kind is ast.Let:
            value = self.value(node.value)
            local = self.local(node.name)
            self.line(f"{local} = {value}")
        elif kind is ast.ExprStatement:
            value = self.expr(node.expr)
            if not value.startswith("t"):
                return
        elif kind is ast.Say:
            self.say(node)
        elif kind is ast.Return:
            self.line(f"return {self.value(node.value) if node.value is not None else 'None'}")
        elif kind is ast.If:
            self.if_(node.branches, node.otherwise)
        elif kind is ast.For:
            self.for_(node)
        elif kind is ast.While:
            self.while_(node)
        elif kind is ast.Repeat:
            self.repeat(node)
        elif kind is ast.Assign:
            self.assign(node)
        else:
            raise Unsupported(f"a {kind.__name__} inside a function")

    def say(self, node: ast.Say) -> None:
        # A quiet run works out what the text shows (the same dice, calls and errors), rolls a pool
        # as showing it would, and logs an empty line against `output_lines`.
        value = node.value
        parts = [p for p in value.parts if type(p) is not str] if type(value) is ast.String else [value]
        if id(node) in self.dropped_says:
            parts = []
        for part in parts:
            shown = self.expr(part)
            if self.can_be_pool(part):
                self.line(f"if type({shown}) is Pool: EV.roll_pool({shown})")
        self.line("if len(EV.log) >= OUTPUT_LINES: bail()")
        self.line("EV.log.append('')")

    def condition(self, node) -> str:
        """The condition's value, tested to be true or false."""
        if self.surely(node, "bool") or isinstance(node, _BOOLEAN):
            pure = self.pure(node)
            if pure is not None:
                return pure
        value = self.expr(node)
        if not isinstance(node, _BOOLEAN) and not self.surely(node, "bool"):
            self.line(f"if {value} is not True and {value} is not False: bail()")
        return value

    def if_(self, branches, otherwise) -> None:
        condition, block = branches[0]
        value = self.condition(condition)
        self.line(f"if {value}:")
        with self.indented():
            self.block(block)
        if len(branches) > 1 or otherwise is not None:
            self.line("else:")
            with self.indented():
                if len(branches) > 1:
                    self.if_(branches[1:], otherwise)
                else:
                    self.block(otherwise)

    def for_(self, node: ast.For) -> None:
        items = self.expr(node.iterable)
        self.line(f"if type({items}) is not list or len({items}) > LOOP_ITERATIONS: bail()")
        self.line(f"EV.steps += len({items})")   # a `for` is charged its length at entry
        self.line("if EV.steps > EV.step_limit: bail()")
        self.scopes.append({})
        try:
            variable = self.local(node.name)
            self.line(f"for {variable} in list({items}):")
            with self.indented():
                self.block(node.body)
        finally:
            self.scopes.pop()

    def while_(self, node: ast.While) -> None:
        rounds = self.temp()
        self.line(f"{rounds} = 0")
        self.line("while True:")
        with self.indented():
            value = self.condition(node.condition)
            self.line(f"if not {value}: break")
            self.line(f"{rounds} += 1")
            self.line(f"if {rounds} > LOOP_ITERATIONS: bail()")
            self.line("EV.steps += 1")
            self.line("if EV.steps > EV.step_limit: bail()")
            self.block(node.body)

    def repeat(self, node: ast.Repeat) -> None:
        count = self.expr(node.count)
        rounds = self.temp()
        self.line(f"{rounds} = repeat_count(EV, {count}, {self.constant(node.count.span)})")
        self.line(f"EV.steps += {rounds}")
        self.line("if EV.steps > EV.step_limit: bail()")
        self.line(f"for _ in range({rounds}):")
        with self.indented():
            self.block(node.body)

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
            else:
                old = self.temp()
                self.line(f"{old} = {name}")
                self.line(f"{name} = {self.arithmetic(node.op[0], old, self.expr(node.value), k)}")
            return
        if type(target) is ast.Field and self.module_of(target.target) is not None:
            name = self.module_of(target.target).global_name(target.name)
            self.assigned_globals.add(name)
            if node.op == "=":
                self.line(f"{name} = {self.expr(node.value)}")
            else:
                old = self.temp()
                self.line(f"{old} = {name}")
                self.line(f"{name} = {self.arithmetic(node.op[0], old, self.expr(node.value), k)}")
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
                new = self.arithmetic(node.op[0], old, self.expr(node.value), k)
            kind = self.one_kind(self.types.of(target.target))
            if kind is not None and target.name in self.state_of(kind):
                self.line(f"{holder}.fields[{field}] = {new}")   # the state of one kind of character
            elif self.surely(target.target, "encounter") and target.name == "round":
                self.line(f"if type({new}) is int and {new} >= 0: {holder}.round = {new}")
                self.line(f"else: set_field({holder}, {field}, {new}, {span})")
            else:
                self.line(f"if type({holder}) is Character and {field} in {holder}.kind.schema.changes: "
                          f"{holder}.fields[{field}] = {new}")
                self.line(f"else: set_field({holder}, {field}, {new}, {span})")
            return
        key = self.temp()
        self.line(f"{key} = {self.expr(target.key)}")
        span = self.constant(target.key.span)
        if node.op == "=":
            new = self.expr(node.value)
        else:
            old = self.temp()
            self.line(f"{old} = get_index(EV, {holder}, {key}, {span})")
            new = self.arithmetic(node.op[0], old, self.expr(node.value), k)
        self.line(f"set_index(EV, {holder}, {key}, {new}, {span})")

    # -- expressions: each gives a Python expression that is a literal, a local or a temporary, the
    # work before it written as lines (so the order of evaluation is the closures') --

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
                return f"{target}.fields[{node.name!r}]"
            if self.surely(node.target, "encounter") and node.name in ("round", "name") or \
                    self.one_kind(self.types.of(node.target)) is not None and node.name in ("name", "side"):
                return f"{target}.{node.name}"
            if self.one_kind(self.types.of(node.target)) is not None and node.name == "kind":
                return f"{target}.kind.name"
            return None
        if kind is ast.Compare:
            a, b = self.pure(node.left), self.pure(node.right)
            if a is None or b is None:
                return None
            literal = _literal(node.right)
            if self.surely(node.left, "int") and self.surely(node.right, "int") or \
                    self.surely(node.left, "str") and self.surely(node.right, "str") or \
                    node.op in ("==", "!=") and (type(literal) is str or self.python_equality(node.left, node.right)):
                return f"({a} {node.op} {b})"
            if node.op in ("==", "!=") and (literal is None or type(literal) is bool):
                return f"({a} {'is' if node.op == '==' else 'is not'} {b})"
            return None
        if kind is ast.Logic:
            if not (self.surely(node.left, "bool") or isinstance(node.left, _BOOLEAN)) or \
                    not (self.surely(node.right, "bool") or isinstance(node.right, _BOOLEAN)):
                return None
            a, b = self.pure(node.left), self.pure(node.right)
            return None if a is None or b is None else f"({a} {node.op} {b})"
        if kind is ast.Not:
            if not (self.surely(node.operand, "bool") or isinstance(node.operand, _BOOLEAN)):
                return None
            a = self.pure(node.operand)
            return None if a is None else f"(not {a})"
        return None

    def into(self, text: str) -> str:
        t = self.temp()
        self.line(f"{t} = {text}")
        return t

    def can_be_pool(self, node) -> bool:
        return self.pools and _can_be_pool(node) and self.types.of(node).maybe("pool")

    def surely(self, node, kind: str) -> bool:
        found = self.types.of(node)
        if kind == "int" and self.rolls_as_numbers and not self.pools and not found.is_any and not found.is_empty:
            # every roll is a die's, and a die is its total
            return all(atom == "int" or type(atom) is RollT and atom.whole for atom in found)
        return found.surely(kind)

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
                pieces.append(self.into(f"show(EV, {value}, {span})"))
        text = self.into(" + ".join(pieces))
        self.line(f"if len({text}) > STRING_SIZE: bail()")
        return text

    def e_PoolLiteral(self, node):
        from ..dice.rollkeep import Pool
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
        fields = [f"{name!r}: {text}" for (name, _), text in zip(node.fields, self.values([v for _, v in node.fields]))]
        return self.into("Record({" + ", ".join(fields) + "})")

    def e_Unary(self, node):
        value = self.expr(node.operand)
        k = self.constant(node)
        if node.op == "-":
            return self.into(f"-{value} if type({value}) is int else unary(EV, {k}, {value})")
        return self.into(f"{value} if type({value}) is int else unary(EV, {k}, {value})")

    def arithmetic(self, op: str, a: str, b: str, k: str, ints: bool = False) -> str:
        """`a op b` on whole numbers inline while no result can outgrow `number_bits` (operands below
        SMALL, factors below SMALL_FACTOR; a small literal needs no test), else `binary`."""
        if op in ("/", "//", "%"):   # no result is larger than its operands
            exact = f"({a} // {b} if {a} % {b} == 0 else Fraction({a}, {b}))" if op == "/" else f"{a} {op} {b}"
            return self.into(f"{exact} if type({a}) is int and type({b}) is int and {b} != 0 "
                             f"else binary(EV, {op!r}, {a}, {b}, {k})")
        bound = "SMALL" if op in "+-" else "SMALL_FACTOR"
        limit = self.small if op in "+-" else self.small_factor
        tests = []
        for operand in (a, b):
            literal = operand.strip("()")
            if literal.lstrip("-").isdigit():
                if abs(int(literal)) >= limit:
                    return self.into(f"binary(EV, {op!r}, {a}, {b}, {k})")
                continue
            if not ints:
                tests.append(f"type({operand}) is int")
            tests.append(f"-{bound} < {operand} < {bound}")
        fast = f"{a} {op} {b}"
        return self.into(f"{fast} if {' and '.join(tests)} else binary(EV, {op!r}, {a}, {b}, {k})" if tests else fast)

    def e_BinOp(self, node):
        chain = pool_chain(node) if node.op in ("+", "-") else None
        if chain is None:
            a = self.expr(node.left)
            b = self.expr(node.right)
            ints = self.surely(node.left, "int") and self.surely(node.right, "int")
            return self.arithmetic(node.op, a, b, self.constant(node), ints)
        # A sum that may hold a pool: terms left to right; the closures make a term that may roll dice
        # wait while the sum so far is a pool (the pool rolls first): that case is theirs.
        total = None
        pool_before = False
        ints = True
        for binop, term in chain:
            if total is not None and pool_before and self.pools and _may_roll(term):
                self.line(f"if type({total}) is Pool: bail()")
            value = self.expr(term)
            pool_before = pool_before or (_may_be_pool(term) and self.types.of(term).maybe("pool"))
            ints = ints and self.surely(term, "int")
            if total is None:
                total = value
                if value[0] not in "t(-" and not value[0].isdigit():
                    total = self.into(value)
            else:
                total = self.arithmetic(binop.op, total, value, self.constant(binop), ints)
        return total

    def e_Compare(self, node):
        op = _COMPARE[node.op]
        k = self.constant(node)
        a = self.expr(node.left)
        if self.can_be_pool(node.left):
            if not a.startswith("t"):
                a = self.into(a)
            self.line(f"if type({a}) is Pool: {a} = EV.roll_pool({a})")
        b = self.expr(node.right)
        if self.surely(node.left, "int") and self.surely(node.right, "int") or \
                self.surely(node.left, "str") and self.surely(node.right, "str") or \
                op in ("==", "!=") and self.python_equality(node.left, node.right):
            return self.into(f"{a} {op} {b}")   # Python's own comparison is the closures' here
        general = f"compare_values(EV, {k}, {a}, {b})"
        return self.into(self.comparison(op, a, b, node.right, general))

    def comparison(self, op: str, a: str, b: str, right, general: str) -> str:
        """`a op b` as the closures work it out (`equal` for == and !=), the cases a literal on the
        right settles written as Python's own operators."""
        literal = _literal(right)
        if op in ("==", "!="):
            if literal is None or type(literal) is bool:
                # none, true and false equal themselves alone (a roll counts as a number)
                return f"{a} {'is' if op == '==' else 'is not'} {b}"
            if type(literal) is str:
                return f"{a} {op} {b}"   # a string equals only the same string, as in Python
        if type(literal) is int:
            return f"{a} {op} {b} if type({a}) is int else {general}"
        if type(literal) is str:
            return f"{a} {op} {b} if type({a}) is str else {general}"
        fast = f"type({a}) is int and type({b}) is int or type({a}) is str and type({b}) is str"
        if op in ("==", "!="):
            # a character equals itself alone (a pool on the right is rolled first: the closures' case)
            fast_is = f"{a} {'is' if op == '==' else 'is not'} {b}"
            return (f"{a} {op} {b} if {fast} else {fast_is} if type({a}) is Character and type({b}) is not Pool "
                    f"else {general}")
        return f"{a} {op} {b} if {fast} else {general}"

    def e_Logic(self, node):
        stop, go = ("False", "True") if node.op == "and" else ("True", "False")
        result = self.temp()
        a = self.expr(node.left)
        self.line(f"if {a} is {stop}: {result} = {stop}")
        self.line("else:")
        with self.indented():
            if not isinstance(node.left, _BOOLEAN) and not self.surely(node.left, "bool"):
                self.line(f"if {a} is not {go}: bail()")
            b = self.expr(node.right)
            if not isinstance(node.right, _BOOLEAN) and not self.surely(node.right, "bool"):
                self.line(f"if {b} is not True and {b} is not False: bail()")
            self.line(f"{result} = {b}")
        return result

    def e_Not(self, node):
        value = self.expr(node.operand)
        if not isinstance(node.operand, _BOOLEAN) and not self.surely(node.operand, "bool"):
            self.line(f"if {value} is not True and {value} is not False: bail()")
        return self.into(f"not {value}")

    def module_of(self, node) -> "ModuleText | None":
        if type(node) is not ast.Name:
            return None
        place = self.resolve(node.id)
        return place[1] if place is not None and place[0] == "module" else None

    def e_Field(self, node):
        module = self.module_of(node.target)
        if module is not None:
            if module.names.get(node.name) == "module":
                raise Unsupported("a module as a value")
            return self.into(module.global_name(node.name))
        value = self.expr(node.target)
        if self.rolls_as_numbers and node.name == "total" and self.surely(node.target, "roll"):
            if not self.pools:
                return value   # a die is its total here, and no other roll exists
            return self.into(f"{value} if type({value}) is int else {value}.total")   # a die, or a pool's roll
        if not value.startswith(("t", "v")):
            value = self.into(value)
        return self.field_of(value, node)

    def field_of(self, value: str, node: ast.Field) -> str:
        """`value.name`: a character's stat or state that is not a list, a record's field, inline;
        everything else (a gear list given as a copy, an encounter's fields) by `get_field`."""
        field, span = repr(node.name), self.constant(node.name_span)
        result = self.temp()
        if self.kept_field(node):
            self.line(f"{result} = {value}.fields[{field}]")
            return result
        if self.surely(node.target, "encounter") and node.name in ("round", "name"):
            self.line(f"{result} = {value}.{node.name}")
            return result
        if self.one_kind(self.types.of(node.target)) is not None and node.name in ("name", "side", "kind"):
            self.line(f"{result} = {value}.{'kind.name' if node.name == 'kind' else node.name}")
            return result
        if node.name in ("name", "side", "round", "characters"):   # not kept in `fields`
            branch = "if"
            if node.name in ("name", "side"):
                self.line(f"if type({value}) is Character: {result} = {value}.{node.name}")
                branch = "elif"
            if node.name != "side":
                copy = f"list({value}.characters)" if node.name == "characters" else f"{value}.{node.name}"
                self.line(f"{branch} type({value}) is Encounter: {result} = {copy}")
            self.line(f"else: {result} = get_field({value}, {field}, {span})")
            return result
        # only characters and records keep `fields`; a character's list that is not state (gear) is
        # given as a copy, by get_field
        self.line(f"try: {result} = {value}.fields[{field}]")
        self.line(f"except (AttributeError, KeyError): {result} = get_field({value}, {field}, {span})")
        self.line("else:")
        with self.indented():
            self.line(f"if type({result}) is list and type({value}) is Character: "
                      f"{result} = get_field({value}, {field}, {span})")
        return result

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

    @staticmethod
    def one_kind(found):
        """The one kind of character a value is, when it is that or none (a field of none bails)."""
        if found.is_any or found.is_empty:
            return None
        kinds = {atom.kind for atom in found if type(atom) is CharT}
        others = [atom for atom in found if type(atom) is not CharT and atom != "none"]
        return next(iter(kinds)) if len(kinds) == 1 and not others else None

    def kept_field(self, node: ast.Field) -> bool:
        """Whether `x.name` is surely an entry of x's `fields` given as it is: a stat, derived value or
        state of one kind of character that is no list (gear is given as a copy), or a record's field.
        A value that may be none instead reads the same: `none.fields` fails, and the run bails."""
        target = self.types.of(node.target)
        kind = self.one_kind(target)
        if kind is not None:
            # a list is given as it is only when it is state (gear and list stats are copies)
            fields = self.types.kind_fields(kind)
            return node.name in fields and node.name not in ("name", "side", "kind") and \
                (node.name in self.state_of(kind) or not self.types.field(target, node.name).maybe("list"))
        shape = target.shape()
        return shape is not None and node.name in shape

    def e_Index(self, node):
        value = self.expr(node.target)
        key = self.expr(node.key)
        span = self.constant(node.key.span)
        return self.into(f"{value}[{key}] if type({value}) is list and type({key}) is int and "
                         f"-len({value}) <= {key} < len({value}) else get_index(EV, {value}, {key}, {span})")

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
        literal = _literal(patterns[0])
        if literal is _NOT_LITERAL or type(literal) is int:
            test = general if literal is _NOT_LITERAL else \
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

    def e_Dice(self, node):
        count = 1 if node.count is None else node.count.value if type(node.count) is ast.Number else None
        sides = node.sides
        die = 100 if sides == "%" else (-1, 0, 1) if sides == "F" else \
            sides.value if type(sides) is ast.Number and type(sides.value) is int else None
        if type(count) is not int or die is None:
            raise Unsupported("dice worked out at run time")
        sample = sampler(count, die, node.modifiers) if self.rolls_as_numbers else None
        if sample is not None:   # the total alone, from the same faces (as the closures' sampling)
            self.line(f"EV.dice += {count}")
            self.line("if EV.dice > TOTAL_DICE: bail()")
            return self.into(f"{self.constant(sample)}(EV.source)")
        return self.into(f"roll_dice(EV.source, {count}, {self.constant(die)}, {self.constant(node.modifiers)}, EV)")

    def e_Call(self, node):
        callee = node.callee
        if type(callee) is ast.Name and self.resolve(callee.id) is None:
            if callee.id in NOT_ROLLED:
                raise Unsupported("exact odds")
            return self.builtin(callee.id, node)
        if node.kwargs:
            raise Unsupported("named options of a script function")
        if type(callee) is ast.Name and self.resolve(callee.id)[0] == "global" \
                and self.resolve(callee.id)[2] == "fn":
            function = self.resolve(callee.id)[1]
            args = self.values(node.args)
            return self.into(f"{function}({', '.join(args)})")
        if type(callee) is ast.Field and self.module_of(callee.target) is not None:
            module = self.module_of(callee.target)
            if module.names.get(callee.name) == "fn":
                args = self.values(node.args)
                return self.into(f"{module.global_name(callee.name)}({', '.join(args)})")
        # a function value (a parameter, a field): the one function it surely is, called directly;
        # else a Python function of this namespace, or the closures' business
        target = self.types.callee(node)
        if target is not None and id(target) in self.functions:
            self.expr(callee)   # read as the closures read it (a name with no value yet bails)
            args = self.values(node.args)
            return self.into(f"{self.functions[id(target)]}({', '.join(args)})")
        function = self.expr(callee)
        args = [self.expr(arg) for arg in node.args]
        return self.into(f"{function}({', '.join(args)}) if type({function}) is FunctionType and "
                         f"{function}.__code__.co_argcount == {len(args)} else bail()")

    def builtin(self, name: str, node: ast.Call):
        args = [self.expr(arg) for arg in node.args]
        options = "{" + ", ".join(f"{key!r}: {self.expr(value)}" for key, value in node.kwargs.items()) + "}"
        k = self.constant(node)
        general = f"B_{name}(EV, [{', '.join(args)}], {options}, {k})"
        if name == "ended":
            return self.into(f"ended({args[0]})")
        if name == "len":
            a, = args
            return self.into(f"len({a}) if type({a}) is list or type({a}) is str else {general}")
        if name == "push":
            a, b = args
            self.line(f"if type({a}) is list and len({a}) < LIST_SIZE: {a}.append({b})")
            self.line(f"else: {general}")
            return "None"
        if name == "contains" and not node.kwargs:
            a, b = args
            return self.into(f"{b} in {a} if type({a}) is list and type({b}) is str and "
                             f"len({a}) < SHORT_LIST else {general}")
        return self.into(general)


def builtin_impls() -> dict:
    return {f"B_{name}": builtin.impl for name, builtin in BUILTINS.items()}


