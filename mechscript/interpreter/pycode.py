"""Function bodies compiled to Python source: the fast back end of `fn`.

The closure compiler (script.py) checks a function and compiles it to closures first; then, if every
node of its body is one this module knows, the body is also written as the text of one Python
function, compiled with `compile`, and called in place of the closures (`Function.code`). The two
give the same values, the same dice in the same order, the same steps counted and the same errors
at the same places: the Python text does what the closures do, with the common cases (whole numbers,
strings, a character's fields) written inline and everything else handed to the closures' own
helpers. A function with a node this module does not know (a `fn` or `table` inside it, a `match`
arm that is a block, `prob`...) keeps its closures (`Unsupported`).

Why it is faster: every name, field, comparison and statement of the closures is a Python call;
here they are a few bytecodes each. The function's own names (parameters, `let`s, loop variables)
are Python locals; names of enclosing scopes are read from the runtime scopes, as hops up from the
scope the function was defined in.

The text is built from the AST (and the `number_bits` limit); spans, nodes and other objects it
needs are arguments of a factory (`k0`, `k1`, ... for this function's constants, then the helpers by
name), so the compiled Python code can be cached by its text.
"""

from __future__ import annotations

import contextlib
import functools

from ..dice.engine import DiceRoll
from ..dice.rollkeep import Pool
from . import ast
from .builtins import BUILTINS, NOT_ROLLED
from .characters import ENCOUNTER_FIELDS, OWN_FIELDS
from ..errors import MechError, Span
from .evaluator import CONSTANTS, _constant, _NOT_CONSTANT, may_roll, _roll_dice, binary, \
    compare_values, pool_after_pool, pool_chain, small_whole, unary
from ..limits import Limits
from .names import UNSET, StaticScope
from .values import TEXT_STEP, Character, Function, Record, equal


class Unsupported(Exception):
    """A node this back end does not write: the function keeps its closures."""


# Nodes whose value is always true or false (or an error): tests of them need no check.
_BOOLEAN = (ast.Compare, ast.Logic, ast.Not)
# Nodes that can never give a roll-and-keep pool.
_NEVER_POOL = (ast.Number, ast.String, ast.Compare, ast.Logic, ast.Not, ast.Dice, ast.ListLiteral, ast.Record)


def _can_be_pool(node) -> bool:
    """Whether a node's value can be a pool (what the closures test at run time, `type(x) is Pool`):
    any node but those above, and products and quotients, which roll a pool to a number."""
    while type(node) is ast.Group:
        node = node.inner
    return type(node) not in _NEVER_POOL and not (type(node) is ast.BinOp and node.op not in ("+", "-"))


# Field names read with a test of the value's type first: a character's own fields and an encounter's,
# which are not kept in a `fields` dict (for these, the try of e_Field would catch most of the time).
_DISPATCHED_FIELDS = frozenset(OWN_FIELDS + ENCOUNTER_FIELDS)


def _is_int_literal(atom: str) -> bool:
    return atom.strip("()").lstrip("-").isdigit()


# Writing and compiling a function's Python takes about 3 ms, the time of tens to hundreds of calls
# of its closures. After 100 calls, one `mech run` of each example takes no longer than with the
# closures alone (after 20, robomacs_spartacus took 0.38 s instead of 0.17), and a batch has written
# its busy functions within its first few runs.
PYTHON_AFTER = 100


class PythonBody:
    """A function's body as Python, written once the function has been called `after` times (by
    any run of the compiled script). Until then `code` is a stand-in that counts the call and runs the
    closures; after, it is the Python function, or None if the body cannot be written."""

    __slots__ = ("node", "static", "source_text", "filename", "limits", "after", "calls", "written", "code")

    def __init__(self, node: ast.FnDef, static: StaticScope, source_text: str, filename: str, limits: Limits,
                 after: int):
        self.node, self.static, self.source_text, self.filename, self.limits = node, static, source_text, filename, limits
        self.after, self.calls, self.written = after, 0, False
        self.code = self.write() if after == 0 else self.stand_in

    def write(self):
        self.code = write_function(self.node, self.static, self.source_text, self.filename, self.limits)
        self.written = True
        return self.code

    def stand_in(self, ev, function: Function, span: Span, *args):
        from .script import call_closures
        self.calls += 1
        if self.calls >= self.after:
            function.code = self.code if self.written else self.write()
            if function.code is not None:
                return function.code(ev, function, span, *args)
        return call_closures(ev, function, list(args), span)


def write_function(node: ast.FnDef, static: StaticScope, source_text: str, filename: str, limits: Limits):
    """The Python function `code(ev, function, span, *args)` running `node`'s body, or None when
    the body has a node this back end does not write. `static` is the function's own static scope
    (its parameters), with the scopes it was defined in above it."""
    # whole numbers below SMALL add without checks (as Compiler._small); a text no longer than
    # SHORT_TEXT costs no step for its length and fits in string_size (script._show, _concatenate)
    small, short_text = small_whole(limits), min(99, limits.string_size)
    try:
        text, constants = _Writer(node, static, small).function_text()
    except (Unsupported, MechError, RecursionError):
        # MechError: a REPL session's later `use` made a name ambiguous; RecursionError: a body nested
        # deeper than the writer's recursion goes (the closures manage, or give the error)
        return None
    factory = _factory(text, node.name)
    if factory is None:
        return None
    return factory(*constants, source_text, filename, SMALL=small, SHORT_TEXT=short_text, **_helpers())


@functools.lru_cache(maxsize=1024)
def _factory(text: str, name: str):
    """The factory function defined by `text`: the same module compiled again (tests, a batch's
    workers, the REPL) compiles its Python once."""
    namespace: dict = {}
    try:
        code = compile(text, f"<mechscript fn {name}>", "exec")
    except (SyntaxError, RecursionError, MemoryError):
        # more nested blocks or indentation than Python's compiler takes (a long `elif` chain
        # nests an `else` a branch): the function keeps its closures
        return None
    exec(code, namespace)
    return namespace["make"]


class _Writer:
    """Writes one function's Python text: statements as lines, each expression's parts into temporaries."""

    def __init__(self, node: ast.FnDef, static: StaticScope, small: int):
        self.node = node
        self.static = static
        self.small = small  # SMALL (write_function): a literal below it needs no check of its size
        self.lines: list = []       # strings, or ("unset", python name) placeholders
        self.depth = 2              # indentation, in units of 4 spaces, inside `make` and the function
        self.constants: list = []
        self.constant_index: dict = {}
        self.count = 0              # temporaries and locals made so far
        self.scopes: list[dict] = []  # the function's own names, innermost last: name -> python name
        self.assigned: set = set()  # python names surely holding a value here (no UNSET check)
        self.checked: set = set()   # python names some read checks, so they start UNSET

    # -- the text --

    def function_text(self) -> tuple[str, list]:
        node = self.node
        params = {name: self.fresh(name) for name in node.params}
        self.scopes.append(params)
        self.assigned.update(params.values())
        if node.line_form:
            self.emit(f"return {self.expr(node.body)}")
        else:
            self.block(node.body)
        body = []
        for line in self.lines:
            if type(line) is tuple:
                _, indent, name = line
                if name in self.checked:
                    body.append("    " * indent + f"{name} = UNSET")
            else:
                body.append(line)
        constants = ", ".join(f"k{i}" for i in range(len(self.constants)))
        helpers = ", ".join(["SMALL", "SHORT_TEXT", *_helpers()])
        head = [
            f"def make({constants}{', ' if constants else ''}SOURCE, FILENAME, *, {helpers}):",
            f"    def fn_{node.name}(ev, fn, span{''.join(', ' + p for p in params.values())}):",
            "        ev.depth += 1",
            "        if ev.depth > ev.limits.recursion: raise too_deep_calls(ev, span)",
            "        ev.steps += 1",
            "        if ev.steps > ev.step_limit: ev.step(span, 0)",
            "        S = fn.scope",
            "        try:",
        ]
        tail = [
            "        except MechError as error:",
            "            raise error.located(SOURCE, FILENAME)",
            "        except RecursionError:",
            "            raise python_stack(ev, span) from None",
            "        finally:",
            "            ev.depth -= 1",
            f"    return fn_{node.name}",
        ]
        return "\n".join(head + ["    " + line for line in body] + tail) + "\n", self.constants

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def fresh(self, name: str = "") -> str:
        self.count += 1
        return f"v{self.count}_{name}" if name else f"t{self.count}"

    def const(self, value) -> str:
        key = id(value)
        if key not in self.constant_index:
            self.constant_index[key] = len(self.constants)
            self.constants.append(value)
        return f"k{self.constant_index[key]}"

    @contextlib.contextmanager
    def indented(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    # -- names --

    def local(self, name: str) -> str | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def is_module(self, node) -> bool:
        """Whether `node` names a used module (`fights` in `fights.inserted`), which has no `fields`."""
        if type(node) is not ast.Name or self.local(node.id) is not None:
            return False
        found = self.static.locate(node.id, node.span)
        return found is not None and found[0].kind == "module"

    def outer(self, name: str, span: Span) -> tuple[str, bool]:
        """The Python expression of the runtime scope holding an enclosing scope's `name`, and
        whether that is a used module's scope (read with .get, as script._loader does)."""
        found = self.static.locate(name, span)
        if found is None:
            raise Unsupported(name)
        _, hops, module = found
        scope = "S" + ".parent" * (hops - 1)  # hops from the call's scope, whose parent is fn.scope
        if module is not None:
            return f"{scope}.uses[{module}].scope", True
        return scope, False

    # -- blocks and statements --

    def block(self, node: ast.Block) -> None:
        names = {}
        for statement in node.statements:
            kind = type(statement)
            if kind is ast.Let:
                names[statement.name] = self.fresh(statement.name)
            elif kind in (ast.FnDef, ast.TableDef, ast.KindDef, ast.CharacterDef, ast.EncounterDef, ast.Use):
                raise Unsupported(kind.__name__)
        for python_name in names.values():
            self.lines.append(("unset", self.depth, python_name))
        self.scopes.append(names)
        try:
            for statement in node.statements:
                self.statement(statement)
            if not node.statements:
                self.emit("pass")
        finally:
            self.scopes.pop()
            self.assigned.difference_update(names.values())

    def statement(self, node) -> None:
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(type(node).__name__)
        method(node)

    def s_Block(self, node: ast.Block) -> None:
        self.block(node)

    def s_Let(self, node: ast.Let) -> None:
        value = self.expr(node.value)
        python_name = self.local(node.name)
        self.emit(f"{python_name} = {value}")
        self.assigned.add(python_name)

    def s_ExprStatement(self, node: ast.ExprStatement) -> None:
        self.expr(node.expr)

    def s_Say(self, node: ast.Say) -> None:
        span = self.const(node.span)
        self.emit(f"if len(ev.log) >= ev.limits.output_lines: raise too_many_lines(ev, {span})")
        self.emit("if ev.quiet:")
        with self.indented():
            # a quiet run works out what would be shown: the same dice, calls and errors
            parts = [p for p in node.value.parts if type(p) is not str] if type(node.value) is ast.String \
                else [node.value]
            for part in parts:
                value = self.expr(part)
                if _can_be_pool(part):
                    self.emit(f"if type({value}) is Pool: ev.roll_pool({value})")
            self.emit('ev.log.append("")')
        self.emit("else:")
        with self.indented():
            value = self.expr(node.value)
            self.emit(f"ev.log.append({value} if type({value}) is str and len({value}) < 100 else "
                      f"show(ev, {value}, {span}))")

    def s_Return(self, node: ast.Return) -> None:
        self.emit(f"return {self.expr(node.value) if node.value is not None else 'None'}")

    def s_If(self, node: ast.If) -> None:
        self.branches(node.branches, node.otherwise)

    def branches(self, branches, otherwise) -> None:
        tests = [(lambda condition=condition: self.condition(condition), lambda block=block: self.block(block))
                 for condition, block in branches]
        self.chain(tests, None if otherwise is None else lambda: self.block(otherwise))

    def chain(self, tests, otherwise) -> None:
        """`if`/`elif`/`else` of (test, body) pairs, each a function writing its part. A test that
        needs statements of its own goes in an `else:` with an `if` of its own; the others make an
        `elif`, so a long chain does not nest deeper than Python's compiler allows."""
        nested = 0
        for i, (test, body) in enumerate(tests):
            if i == 0:
                self.emit(f"if {test()}:")
            else:
                saved, self.lines = self.lines, []
                self.depth += 1
                value = test()
                written, self.lines = self.lines, saved
                self.depth -= 1
                if written:
                    self.emit("else:")
                    self.depth += 1
                    nested += 1
                    self.lines.extend(written)
                    self.emit(f"if {value}:")
                else:
                    self.emit(f"elif {value}:")
            with self.indented():
                body()
        if otherwise is not None:
            self.emit("else:")
            with self.indented():
                otherwise()
        self.depth -= nested

    def condition(self, node) -> str:
        """A test's value, checked to be true or false."""
        if type(node) is ast.Compare:
            return f"({self.comparison(node)})"
        value = self.expr(node)
        if not isinstance(node, _BOOLEAN) and value not in ("True", "False"):
            self.emit(f"if type({value}) is not bool: truth({value}, {self.const(node.span)})")
        return value

    def s_While(self, node: ast.While) -> None:
        rounds, span = self.fresh(), self.const(node.span)
        self.emit(f"{rounds} = 0")
        self.emit("while True:")
        with self.indented():
            self.emit(f"if not {self.condition(node.condition)}: break")
            self.loop_round(rounds, span)
            self.block(node.body)

    def loop_round(self, rounds: str, span: str) -> None:
        """script._loop_round inline: the round counted against `loop_iterations`, and a step."""
        self.emit(f"{rounds} += 1")
        self.emit(f"if {rounds} > ev.limits.loop_iterations: loop_round(ev, {rounds} - 1, {span})")
        self.emit("ev.steps += 1")
        self.emit(f"if ev.steps > ev.step_limit: ev.step({span}, 0)")

    def s_Repeat(self, node: ast.Repeat) -> None:
        count = self.expr(node.count)
        number = self.fresh()
        self.emit(f"{number} = repeat_count(ev, {count}, {self.const(node.count.span)})")
        rounds, span = self.fresh(), self.const(node.span)
        self.emit(f"{rounds} = 0")
        self.emit(f"for _ in range({number}):")
        with self.indented():
            self.loop_round(rounds, span)
            self.block(node.body)

    def s_For(self, node: ast.For) -> None:
        items = self.expr(node.iterable)
        self.emit(f"if type({items}) is not list: raise not_a_list({items}, {self.const(node.iterable.span)})")
        variable = self.fresh(node.name)
        # charged its whole length at the start, as the closures do (script.for_too_long)
        self.emit(f"ev.steps += len({items})")
        self.emit(f"if ev.steps > ev.step_limit or len({items}) > ev.limits.loop_iterations: "
                  f"for_too_long(ev, {items}, {self.const(node.span)})")
        self.emit(f"for {variable} in list({items}):")
        self.scopes.append({node.name: variable})
        self.assigned.add(variable)
        try:
            with self.indented():
                self.block(node.body)
        finally:
            self.scopes.pop()
            self.assigned.discard(variable)

    def s_Assign(self, node: ast.Assign) -> None:
        target = node.target
        if type(target) is ast.Name:
            self.assign_name(node)
            return
        place = self.expr(target.target)
        if type(target) is ast.Field:
            field, field_span = repr(target.name), self.const(target.name_span)
            if node.op == "=":
                new = self.expr(node.value)
            else:
                new = self.update(node, self.field_of(place, target.name, target.name_span))
            self.emit(f"if type({place}) is Character and {field} in {place}.kind.schema.changes: "
                      f"{place}.fields[{field}] = {new}")
            self.emit(f"else: set_field({place}, {field}, {new}, {field_span})")
            return
        key, key_span = self.expr(target.key), self.const(target.key.span)
        if node.op == "=":
            new = self.expr(node.value)
        else:
            old = self.fresh()
            self.emit(f"{old} = get_index(ev, {place}, {key}, {key_span})")
            new = self.update(node, old)
        self.emit(f"set_index(ev, {place}, {key}, {new}, {key_span})")

    def assign_name(self, node: ast.Assign) -> None:
        target = node.target
        python_name = self.local(target.id)
        name_span = self.const(target.span)
        if python_name is not None:
            if python_name not in self.assigned:
                self.checked.add(python_name)
                self.emit(f"if {python_name} is UNSET: raise unset({target.id!r}, {name_span})")
            new = self.expr(node.value) if node.op == "=" else self.update(node, python_name)
            self.emit(f"{python_name} = {new}")
            return
        scope, _ = self.outer(target.id, target.span)
        holder = self.fresh()
        self.emit(f"{holder} = {scope}.vars")
        self.emit(f"if {holder}[{target.id!r}] is UNSET: raise unset({target.id!r}, {name_span})")
        new = self.expr(node.value) if node.op == "=" else self.update(node, f"{holder}[{target.id!r}]")
        self.emit(f"{holder}[{target.id!r}] = {new}")

    def update(self, node: ast.Assign, old: str) -> str:
        """`x += v`: the old value (read first), then v, then the sum."""
        before = self.fresh()
        self.emit(f"{before} = {old}")
        value = self.expr(node.value)
        return self.add(before, value, node.op[0], node)

    # -- expressions: each gives a Python atom (a literal, a local or a temporary) --

    def expr(self, node) -> str:
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(type(node).__name__)
        return method(node)

    def temp(self, text: str) -> str:
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return name

    def named(self, atom: str) -> str:
        """The atom, or a temporary holding it if it is a literal: Python warns of `3 is None`."""
        return atom if atom.isidentifier() and atom not in ("True", "False", "None") else self.temp(atom)

    def e_Number(self, node: ast.Number) -> str:
        # in parentheses: `(1).total` is Python, `1.total` is not
        return f"({node.value!r})" if type(node.value) is int else self.const(node.value)

    def e_PoolLiteral(self, node: ast.PoolLiteral) -> str:
        return self.const(Pool(node.unkept, node.kept, 0, node.span))

    def e_Group(self, node: ast.Group) -> str:
        return self.expr(node.inner)

    def e_Name(self, node: ast.Name) -> str:
        python_name = self.local(node.id)
        if python_name is not None:
            if python_name not in self.assigned:
                self.checked.add(python_name)
                self.emit(f"if {python_name} is UNSET: raise unset({node.id!r}, {self.const(node.span)})")
            return python_name
        if self.static.locate(node.id, node.span) is None:
            if node.id in CONSTANTS:
                return repr(CONSTANTS[node.id])
            raise Unsupported(node.id)
        scope, used = self.outer(node.id, node.span)
        value = self.temp(f"{scope}.vars.get({node.id!r}, UNSET)" if used else f"{scope}.vars[{node.id!r}]")
        self.emit(f"if {value} is UNSET: raise unset({node.id!r}, {self.const(node.span)})")
        return value

    def e_ListLiteral(self, node: ast.ListLiteral) -> str:
        items = [self.expr(item) for item in node.items]
        return self.temp(f"[{', '.join(items)}]")

    def e_Record(self, node: ast.Record) -> str:
        fields = [(name, self.expr(value)) for name, value in node.fields]
        return self.temp("Record({" + ", ".join(f"{name!r}: {value}" for name, value in fields) + "})")

    def e_Unary(self, node: ast.Unary) -> str:
        value = self.expr(node.operand)
        sign = "-" if node.op == "-" else ""
        return self.temp(f"{sign}{value} if type({value}) is int else unary(ev, {self.const(node)}, {value})")

    def e_BinOp(self, node: ast.BinOp) -> str:
        chain = pool_chain(node)
        if chain is not None:
            return self.pool_sum(chain)
        if node.op in ("+", "-"):
            left, right = self.expr(node.left), self.expr(node.right)
            return self.add(left, right, node.op, node)
        left, right = self.expr(node.left), self.expr(node.right)
        return self.temp(f"binary(ev, {node.op!r}, {left}, {right}, {self.const(node)})")

    def add(self, a: str, b: str, op: str, node) -> str:
        """`a + b` or `a - b` as `binary` works it out: whole numbers of a safe size (or a roll's
        total and one) and short strings at once, anything else through `binary`."""
        general = f"binary(ev, {op!r}, {a}, {b}, {self.const(node)})"
        if _is_int_literal(b):
            if abs(int(b.strip("()"))) >= self.small:
                return self.temp(general)
            # b is known: a whole number (or a roll's total) of a safe size, or the general case
            return self.temp(f"{a} {op} {b} if type({a}) is int and -SMALL < {a} < SMALL else {a}.total {op} {b} "
                             f"if type({a}) is DiceRoll and type({a}.total) is int and -SMALL < {a}.total < SMALL "
                             f"else {general}")
        strings = f"{a} + {b} if type({a}) is str and type({b}) is str and len({a}) + len({b}) <= SHORT_TEXT else " \
            if op == "+" else ""
        return self.temp(f"{a} {op} {b} if type({a}) is int and type({b}) is int and -SMALL < {a} < SMALL and "
                         f"-SMALL < {b} < SMALL else {a}.total {op} {b} if type({a}) is DiceRoll and type({b}) is int "
                         f"and type({a}.total) is int and -SMALL < {a}.total < SMALL and -SMALL < {b} < SMALL else "
                         f"{strings}{general}")

    def pool_sum(self, chain) -> str:
        """evaluator._compile_pool_sum written out: once the sum so far is a pool, the terms that may
        roll dice wait until the pool is rolled. That can happen only after a term that may be a pool
        and before a term that may roll, so only there is the sum tested."""
        terms = [(binop, term, may_roll(term)) for binop, term in chain]
        total = self.fresh()
        self.emit(f"{total} = {self.expr(terms[0][1])}")
        self.rest_of_sum(total, terms, 1, _can_be_pool(terms[0][1]))
        return total

    def rest_of_sum(self, total: str, terms, i: int, maybe_pool: bool) -> None:
        while i < len(terms):
            if maybe_pool and any(rolls for _, _, rolls in terms[i:]):
                self.emit(f"if type({total}) is Pool:")
                with self.indented():
                    self.waiting(total, terms[i:])
                self.emit("else:")
                with self.indented():
                    self.add_term(total, terms[i])
                    self.rest_of_sum(total, terms, i + 1, _can_be_pool(terms[i][1]))
                return
            self.add_term(total, terms[i])
            maybe_pool = maybe_pool or _can_be_pool(terms[i][1])
            i += 1

    def add_term(self, total: str, term) -> None:
        binop, node, _ = term
        value = self.expr(node)
        self.emit(f"{total} = {self.add(total, value, binop.op, binop)}")

    def waiting(self, total: str, terms) -> None:
        for binop, node, rolls in terms:
            if not rolls:
                value = self.expr(node)
                self.emit(f"{total} = binary(ev, {binop.op!r}, {total}, {value}, {self.const(binop)})")
        self.emit(f"{total} = ev.roll_pool({total})")
        for binop, node, rolls in terms:
            if rolls:
                value = self.expr(node)
                self.emit(f"if type({value}) is Pool: raise pool_after_pool({self.const(binop)})")
                self.emit(f"{total} = binary(ev, {binop.op!r}, {total}, {value}, {self.const(binop)})")

    def e_Compare(self, node: ast.Compare) -> str:
        return self.temp(self.comparison(node))

    def comparison(self, node: ast.Compare) -> str:
        """A comparison as a Python expression, to be evaluated once where it is used. A pool on the
        left is rolled before the right side is worked out (evaluator.compile_Compare)."""
        left = self.expr(node.left)
        may_be_pool = _can_be_pool(node.left)
        rolled = f"ev.roll_pool({left}) if type({left}) is Pool else {left}" if may_be_pool else left
        op, general = node.op, self.const(node)  # mechscript's comparison operators are Python's
        constant = _constant(node.right)
        if type(constant) is int or type(constant) is str and len(constant) < TEXT_STEP:
            kind = type(constant).__name__
            return f"{left} {op} {constant!r} if type({left}) is {kind} else " \
                   f"compare_values(ev, {general}, {rolled}, {constant!r})"
        identity = {"==": "is", "!=": "is not"}.get(node.op)
        if identity and type(node.right) is ast.Name and node.right.id in CONSTANTS:
            # values.equal: only none is none, only true is true, only false is false
            return f"({self.named(rolled)}) {identity} {CONSTANTS[node.right.id]!r}"
        if may_be_pool:
            left = self.temp(rolled)
        elif identity:
            left = self.named(left)  # `(3) is a` would make Python warn
        right = self.named(self.expr(node.right)) if identity else self.expr(node.right)
        same = f"{left} {identity} {right} if type({left}) is Character and type({right}) is not Pool else " \
            if identity else ""  # values.equal: a character is only equal to itself
        # a long string's work is counted, by compare_values (evaluator.compile_Compare)
        return f"{left} {op} {right} if type({left}) is int and type({right}) is int or " \
               f"type({left}) is str and type({right}) is str and len({left}) < {TEXT_STEP} else {same}" \
               f"compare_values(ev, {general}, {left}, {right})"

    def e_Logic(self, node: ast.Logic) -> str:
        result = self.fresh()
        left = self.named(self.expr(node.left))
        stop, go = ("False", "True") if node.op == "and" else ("True", "False")
        self.emit(f"if {left} is {stop}: {result} = {stop}")
        self.emit("else:")
        with self.indented():
            if not isinstance(node.left, _BOOLEAN):
                self.emit(f"if {left} is not {go}: truth({left}, {self.const(node.left.span)})")
            right = self.expr(node.right)
            if isinstance(node.right, _BOOLEAN):
                self.emit(f"{result} = {right}")
            else:
                self.emit(f"{result} = {right} if type({right}) is bool else truth({right}, "
                          f"{self.const(node.right.span)})")
        return result

    def e_Not(self, node: ast.Not) -> str:
        value = self.expr(node.operand)
        if isinstance(node.operand, _BOOLEAN):
            return self.temp(f"not {value}")
        span = self.const(node.operand.span)
        return self.temp(f"not {value} if type({value}) is bool else not truth({value}, {span})")

    def e_String(self, node: ast.String) -> str:
        if all(type(part) is str for part in node.parts):
            return repr("".join(node.parts))
        span = self.const(node.span)
        pieces = []
        for part in node.parts:
            if type(part) is str:
                pieces.append(repr(part))
                continue
            value = self.expr(part)  # worked out and shown in turn, as the closures do
            pieces.append(self.temp(
                f"{value} if type({value}) is str and len({value}) < 100 else str({value}) if type({value}) is int "
                f"and -SHOWN_WHOLE < {value} < SHOWN_WHOLE else {value}.name if type({value}) is Character and "
                f"len({value}.name) <= SHORT_TEXT else show(ev, {value}, {span})"))
        text = self.temp(f"''.join(({', '.join(pieces)},))")
        self.emit(f"if len({text}) > ev.limits.string_size: raise too_long(ev, {text}, {span})")
        return text

    def e_Field(self, node: ast.Field) -> str:
        value = self.expr(node.target)
        field, span = repr(node.name), self.const(node.name_span)
        if self.is_module(node.target):  # a module's rule or option: no `fields`, no type to test
            return self.temp(f"get_field({value}, {field}, {span}, ev)")
        result = self.fresh()
        if node.name not in _DISPATCHED_FIELDS:
            # A stat or state of a character, or a record's field: read straight from `fields`,
            # with no type test first (a try costs nothing until it catches). Everything else that
            # has fields (a missing one, a gear list given as a copy) and every value that has no
            # `fields` at all goes to get_field, as in the closures.
            if node.name == "total":
                self.emit(f"if type({value}) is DiceRoll: {result} = {value}.total")
                self.emit("else:")
                self.depth += 1
            self.emit(f"try: {result} = {value}.fields[{field}]")
            self.emit(f"except (AttributeError, KeyError): {result} = get_field({value}, {field}, {span}, ev)")
            self.emit("else:")
            self.emit(f"    if type({result}) is list and type({value}) is Character: "
                      f"{result} = get_field({value}, {field}, {span}, ev)")
            if node.name == "total":
                self.depth -= 1
            return result
        self.emit(f"if type({value}) is Character:")
        with self.indented():
            self.emit(f"{result} = {value}.fields.get({field}, UNSET)")
            if node.name in ("name", "side"):  # characters.OWN_FIELDS, when no stat has the name
                self.emit(f"if {result} is UNSET: {result} = {value}.{node.name}")
                self.emit(f"elif type({result}) is list: {result} = get_field({value}, {field}, {span}, ev)")
            else:
                self.emit(f"if {result} is UNSET or type({result}) is list: "
                          f"{result} = get_field({value}, {field}, {span}, ev)")
        self.emit(f"elif type({value}) is Record:")
        with self.indented():
            self.emit(f"{result} = {value}.fields.get({field}, UNSET)")
            self.emit(f"if {result} is UNSET: {result} = get_field({value}, {field}, {span}, ev)")
        self.emit(f"else: {result} = get_field({value}, {field}, {span}, ev)")
        return result

    def field_of(self, value: str, name: str, span: Span) -> str:
        """The old value of a field set with `+=`, read as script._get_field reads it."""
        return self.temp(f"get_field({value}, {name!r}, {self.const(span)}, ev)")

    def e_Index(self, node: ast.Index) -> str:
        value, key = self.expr(node.target), self.expr(node.key)
        return self.temp(f"{value}[{key}] if type({value}) is list and type({key}) is int and "
                         f"-len({value}) <= {key} < len({value}) else "
                         f"get_index(ev, {value}, {key}, {self.const(node.key.span)})")

    def e_Match(self, node: ast.Match) -> str:
        subject = self.named(self.expr(node.subject))
        result = self.fresh()
        self.arms(node, subject, result, node.arms)
        return result

    def arms(self, node: ast.Match, subject: str, result: str, arms) -> None:
        tests, otherwise = [], None
        for arm in arms:
            if type(arm.body) is ast.Block:
                raise Unsupported("a match arm that is a block")

            def body(arm=arm):
                self.emit(f"{result} = {self.expr(arm.body)}")
            if arm.patterns is None:  # `else`: the arms after it are never tried
                otherwise = body
                break
            tests.append((lambda arm=arm: self.arm_test(subject, arm.patterns), body))
        if otherwise is None:
            def otherwise():
                self.emit(f"raise no_arm({subject}, {self.const(node.span)})")
        if not tests:
            otherwise()
            return
        self.chain(tests, otherwise)

    def arm_test(self, subject: str, patterns) -> str:
        """Whether the subject equals one of an arm's patterns, tried in order (values.equal)."""
        tests = [self.constant_test(subject, pattern) for pattern in patterns]
        if all(tests):
            return " or ".join(f"({test})" for test in tests)
        hit = self.fresh()
        for i, pattern in enumerate(patterns):
            if i:
                self.emit(f"if not {hit}:")
                self.depth += 1
            self.emit(f"{hit} = {tests[i] or f'equal({subject}, {self.expr(pattern)}, ev)'}")
        self.depth -= len(patterns) - 1
        return hit

    def constant_test(self, subject: str, pattern) -> str | None:
        """The test of a literal pattern as an expression, or None for a pattern to work out."""
        if type(pattern) is ast.Name and pattern.id in CONSTANTS and self.local(pattern.id) is None:
            return f"{subject} is {CONSTANTS[pattern.id]!r}"  # as e_Compare
        constant = _constant(pattern) if type(pattern) in (ast.Number, ast.String) else _NOT_CONSTANT
        if type(constant) is int or type(constant) is str and len(constant) < TEXT_STEP:  # else equal counts it
            return f"{subject} == {constant!r} if type({subject}) is {type(constant).__name__} else " \
                   f"equal({subject}, {constant!r}, ev)"
        return None

    def e_Dice(self, node: ast.Dice) -> str:
        constant_count = node.count is None or (type(node.count) is ast.Number and type(node.count.value) is int)
        sides = node.sides
        if sides == "%":
            die = 100
        elif sides == "F":
            die = (-1, 0, 1)
        elif type(sides) is ast.Number and type(sides.value) is int:
            die = sides.value
        else:
            raise Unsupported("a die worked out at run time")
        if not constant_count:
            raise Unsupported("a number of dice worked out at run time")
        count = 1 if node.count is None else node.count.value
        return self.temp(f"roll_dice(ev, {count}, {self.const(die)}, {self.const(node.modifiers)}, "
                         f"{self.const(node.span)})")

    def e_Call(self, node: ast.Call) -> str:
        callee = node.callee
        if type(callee) is ast.Name and self.local(callee.id) is None and \
                self.static.locate(callee.id, callee.span) is None:
            if callee.id in NOT_ROLLED or callee.id not in BUILTINS:
                raise Unsupported(callee.id)
            return self.builtin_call(BUILTINS[callee.id], node)
        function = self.expr(callee)
        self.emit(f"if type({function}) is not Function: raise not_callable({function}, {self.const(callee.span)})")
        args = [self.expr(arg) for arg in node.args]
        span, listed = self.const(node.span), ", ".join(args)
        return self.temp(f"{function}.code(ev, {function}, {span}{', ' if args else ''}{listed}) "
                         f"if {function}.code is not None and len({function}.params) == {len(args)} else "
                         f"call_function(ev, {function}, [{listed}], {span})")

    def builtin_call(self, builtin, node: ast.Call) -> str:
        args = [self.expr(arg) for arg in node.args]
        options = [(key, self.expr(value)) for key, value in node.kwargs.items()]
        call = self.const(node)
        listed = ", ".join(args)
        if builtin.name == "len" and not options:
            value, = args
            return self.temp(f"len({value}) if type({value}) is list or type({value}) is str else "
                             f"{self.const(builtin.impl)}(ev, [{value}], {{}}, {call})")
        if builtin.name == "push" and not options:
            items, item = args
            self.emit(f"if type({items}) is list and len({items}) < ev.limits.list_size: {items}.append({item})")
            self.emit(f"else: {self.const(builtin.impl)}(ev, [{listed}], {{}}, {call})")
            return "None"
        if builtin.name == "contains" and not options:
            items, item = args
            result = self.fresh()
            # values.equal between a string and anything is Python's ==; the step of each item, as the builtin
            self.emit(f"if type({items}) is list and type({item}) is str:")
            with self.indented():
                self.emit(f"ev.steps += len({items})")
                self.emit(f"if ev.steps > ev.step_limit: ev.step({self.const(node.span)}, 0)")
                self.emit(f"{result} = {item} in {items}")
            self.emit(f"else: {result} = {self.const(builtin.impl)}(ev, [{listed}], {{}}, {call})")
            return result
        kwargs = "{" + ", ".join(f"{key!r}: {value}" for key, value in options) + "}"
        return self.temp(f"{self.const(builtin.impl)}(ev, [{listed}], {kwargs}, {call})")


# ---- what the Python text calls: the closures' own helpers, and their errors ----

@functools.cache
def _helpers() -> dict:
    """The names the Python text calls besides its constants (script.py imports this module)."""
    from . import script
    return {
        "UNSET": UNSET, "Pool": Pool, "DiceRoll": DiceRoll, "Character": Character, "Record": Record,
        "Function": Function,
        "MechError": MechError,
        "unset": script.unset, "truth": script._truth, "too_deep_calls": script.too_deep_calls,
        "python_stack": script.python_stack, "too_many_lines": script.too_many_lines, "too_long": script.too_long,
        "not_a_list": script.not_a_list, "not_callable": script.not_callable, "no_arm": script.no_arm,
        "repeat_count": script.repeat_count, "SHOWN_WHOLE": script.SHOWN_WHOLE,
        "loop_round": script._loop_round, "for_too_long": script.for_too_long, "show": script._show,
        "call_function": script.call_function,
        "get_field": script._get_field, "set_field": script._set_field, "get_index": script._get_index,
        "set_index": script._set_index, "binary": binary, "unary": unary, "compare_values": compare_values,
        "pool_after_pool": pool_after_pool, "equal": equal, "roll_dice": _roll_dice,
    }

