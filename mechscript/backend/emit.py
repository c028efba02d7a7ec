"""A whole script and the modules it uses, written as the text of one Python module, for quiet runs.

This is the first piece of the one back end (shared/design/compiler.md): every `fn` of the script
and of its modules becomes a Python function of one namespace, named `<module>_<name>`, and calls
between them are plain Python calls. A module's top-level `let`s (its options) are globals of the
namespace; a house rule `fn pbem.x(...)` is a function of the script bound to pbem's global `x`.
Function-local names are Python locals; a `fn` inside a `fn` is a Python closure over them.

Quiet: a `say` whose parts only give a value, and the local values only such `say`s read, are not
written at all (narration.py), nor are the fields of record literals only they read (unread.py);
any other `say` works out its parts (for the same dice and calls).
Each `say` still counts its line against `output_lines`.

What is written: the common case of each operation inline, without a test where the checker's
types (checker/) prove it (a known character's stat read from its fields, two whole numbers
compared), with one where they do not, and everything else through the interpreter's own helpers
(`binary`, `compare_values`, `get_field`, the builtins), which give the same values. What is never
written: errors. Where the closures would raise one, the code raises `Bail` (runtime.py) and the
run is played again by the closures, which word it. Loops and calls count against the `steps`
limit as the closures do (a loop round, a call; a `for` is charged its length at entry), spending
the run's budget of steps (runtime.Budget); a count past a limit bails too.

A program this writer does not handle (a `match` arm that is a block, exact odds in a rule, a
`table` or `kind` inside a `fn`) raises `Unsupported` while
it is written: such a script's batches run on the closures, as before.

The parts, each a class the next one extends: writer.py (the text, names, what the types tell),
arithmetic.py and comparisons.py, expressions.py, work.py (what a call or a `for` costs), calls.py
(calls and builtins), access.py (fields, indexes), loops.py, assign.py, not_none.py (the locals a
function's statements prove are not none), and this module (functions and statements).
"""

from __future__ import annotations

from ..interpreter import ast
from ..interpreter.script import declared_name
from .narration import bounded_pushes
from .inlining import Inlining
from .scalars import record_made
from .writer import BOOLEAN, ModuleText, Unsupported, class_of, short_text


class Emitter(Inlining):
    """Writes every function of a script and its modules, and the encounter's `until`."""


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
        saved = self.assigned_globals, self.nonlocals, self.function_base, self.dropped_statements, self.dropped_names, \
            self.bounds, self.reassigned, self.own_names, self.function_nodes, self.not_none, self.kind_tested, \
            self.fixed_locals, self.private_lists
        self.assigned_globals, self.nonlocals = set(), set()
        self.not_none = set()   # an enclosing function's tests do not hold when this one is called
        self.kind_tested = {}
        self.bounds = dict(self.bounds)   # an enclosing function's bounds hold: it reassigns none of them
        self.reassigned = self.reassigned | {n.target.id for n in ast.walk(node.body)
                                             if type(n) is ast.Assign and type(n.target) is ast.Name}
        self.function_base = len(self.scopes)
        self.dropped_statements, self.dropped_names = self.purity.narration(self.module, node)
        self.own_names = self.purity.local_names_of(node)
        self.function_nodes = self.purity.nodes(node)
        self.private_lists = self.purity.private_lists(node)
        self.fixed_locals = None if any(type(n) is ast.FnDef for n in self.function_nodes) else set()
        bounded = bounded_pushes(node, self.purity.nodes(node), lambda n: self.surely(n, "list"))
        self.bounded_pushes.update(bounded)
        self.bounded_loops.update(id(loop) for loop in bounded.values())
        self.scopes.append({})
        try:
            params = [self.local(param) for param in node.params]
            self.line(f"def {python_name}({', '.join(params)}):")
            self.depth += 1
            header = len(self.lines)
            self.line("")   # the function's `global` and `nonlocal` names, once known
            if not self.ends_by_itself(node) and not self.forwards(node):
                self.line("next(STEP)")   # a call counts a step (the closures' count): runtime.Budget
            counted = id(node) in self.recursive
            if counted:   # it may reach itself: it counts the depth of calls (depth.py)
                self.line("EV.depth += 1")
                self.line("if EV.depth > DEEPEST: bail()")
                self.line("try:")
                self.depth += 1
            if node.line_form:
                self.line(f"return {self.expr(node.body)}")
            else:
                self.block(node.body, shares_parent=True)
            if counted:
                self.depth -= 1
                self.line("finally:")
                self.line("    EV.depth -= 1")
            declared = []
            self.every_assigned |= self.assigned_globals
            spends = self.budgets_spent(header)
            if self.assigned_globals or spends:
                declared.append("global " + ", ".join(sorted(self.assigned_globals) + spends))
            if self.nonlocals:
                declared.append("nonlocal " + ", ".join(sorted(self.nonlocals)))
            if declared:
                self.lines[header] = "    " * self.depth + "; ".join(declared)
            else:
                del self.lines[header]
            if len(self.lines) == header:   # a body a quiet run leaves out whole (`let unused = c.hp`)
                self.line("pass")
            self.depth -= 1
        finally:
            del self.scopes[self.function_base:]
            self.assigned_globals, self.nonlocals, self.function_base, self.dropped_statements, self.dropped_names, \
                self.bounds, self.reassigned, self.own_names, self.function_nodes, self.not_none, \
                self.kind_tested, self.fixed_locals, self.private_lists = saved

    def ended(self, module: ModuleText, node: ast.Node | None, standing: str) -> None:
        """`ENDED(encounter)`, the builtin `ended` of the one encounter fought (ENCOUNTER, whose
        sides' MEMBERS never change): the rules' `standing` (the global `standing`) of each side's
        members until one stands, then the encounter's `until` (`node`; None: one side left)."""
        self.module = module
        self.scopes = [{}]
        self.assigned_globals = set()
        self.function_base = 0
        self.dropped_statements, self.dropped_names = set(), set()
        self.own_names = set()
        played, one_side_left, sides_left = (self.local(name) for name in ("round", "one_side_left", "sides_left"))
        self.line("def ENDED(encounter):")
        header = len(self.lines)
        with self.indented():
            self.line("if encounter is not ENCOUNTER: bail()")
            self.line(f"{sides_left} = 0")
            self.line("for members in MEMBERS:")
            with self.indented():
                self.line("for c in members:")
                with self.indented():
                    self.line(f"answer = {standing}(c)")
                    self.line("if answer is True:")
                    with self.indented():
                        self.line(f"{sides_left} += 1")
                        self.line("break")
                    self.line("if answer is not False: bail()")
            self.line(f"{played} = encounter.round")
            self.line(f"if {played} >= ROUNDS: bail()")
            self.line(f"{played} += 1")
            self.line(f"{one_side_left} = {sides_left} <= 1")
            self.line(f"answer = {self.expr(node) if node is not None else one_side_left}")
            self.line("if answer is not True and answer is not False: bail()")
            self.line("return answer")
        spends = self.budgets_spent(header)   # by the `until`
        if spends:
            self.lines.insert(header, f"    global {', '.join(spends)}")

    def budgets_spent(self, start: int) -> list[str]:
        """The budgets the lines from `start` on spend at once (writer.spending, writer.spent): the
        function that holds them declares them global."""
        text = "\n".join(self.lines[start:])
        return [budget for budget in ("DICE_BULK", "STEP_BULK") if budget in text]

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
                self.line(f"{python}.mech_fn = {fn.name!r}")   # shown as `<fn name>` (values.format_value)
            tested = set(self.not_none)
            for statement in node.statements:
                if type(statement) is not ast.FnDef:
                    self.statement(statement)
                    self.not_none |= self.returns_if_none(statement)
                    if type(statement) is not ast.If:   # an `if` adds them itself, before its blocks
                        self.not_none |= self.reads_a_field_of(statement)
        finally:
            self.not_none = tested
            if not shares_parent:
                self.scopes.pop()

    def statement(self, node) -> None:
        if self.dropped(node):
            return
        kind = type(node)
        if kind is ast.Let and id(node) in self.record_lets:
            self.let_fields(node)
        elif kind is ast.Let:
            self.let(node, self.value(node.value))
        elif kind is ast.ExprStatement:
            value = self.expr(node.expr)
            if not value.startswith("t"):
                return
        elif kind is ast.Say:
            self.say(node)
        elif kind is ast.Return and self.returned_fields is not None:
            self.record_fields(record_made(node), self.returned_fields)   # a literal: Inlining.inlined_block
        elif kind is ast.Return:
            value = self.value(node.value) if node.value is not None else "None"
            # in a body written in place of its call (inlining.py), the last thing done on its path
            self.line(f"{self.returning} = {value}" if self.returning is not None else f"return {value}")
        elif kind is ast.If:
            self.if_(node.branches, node.otherwise, self.reads_a_field_of(node))
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

    def let(self, node: ast.Let, value: str) -> None:
        """`let x = value`, `value` worked out: its local, and what the text tells of it."""
        local = self.local(node.name)
        self.line(f"{local} = {value}")
        bound = self.bound(node.value) if node.name not in self.reassigned else None
        if bound is not None:
            self.bounds[local] = bound
        if node.name not in self.reassigned and short_text(node.value):
            self.short_texts.add(local)

    def let_fields(self, node: ast.Let) -> None:
        """`let x = ...` of a record kept as its fields (scalars.py): a local for each field read of
        it, set where the record would be made. When the value is a call that is not written in
        place with its `return`s setting them (Inlining.inlined_block), the `let` of what it gives."""
        value, read = record_made(node), self.record_lets[id(node)]
        fields = self.field_locals(node, read)
        if type(value) is ast.Record:
            # a field a quiet run leaves out (unread.py) is none wherever it is read
            fields.update((name, "None") for name in self.unread.get(id(value), ()) if name in fields)
            self.record_fields(value, fields)
        else:
            self.wanted_fields = (value, fields)
            try:
                made = self.value(node.value)
            finally:
                taken, self.wanted_fields = self.wanted_fields is None, None
            if not taken:
                self.let(node, made)
                return
        self.scalars[self.local(node.name)] = fields

    def record_fields(self, record: ast.Record, fields: dict) -> None:
        """The record literal's fields worked out in their order, as e_Record works them out, into
        the locals of `fields` (those a quiet run leaves out, unread.py, none); the others are not kept."""
        unread = self.unread.get(id(record), ())
        values = iter(self.values([value for name, value in record.fields if name not in unread]))
        for name, _ in record.fields:
            text = "None" if name in unread else next(values)
            if fields.get(name, "None") != "None":
                self.line(f"{fields[name]} = {text}")

    def say(self, node: ast.Say) -> None:
        # A quiet run works out what the text shows (the same dice, calls and errors), rolls a pool
        # as showing it would, and spends a line of `output_lines` (the run's budget SAY).
        value = node.value
        parts = [p for p in value.parts if type(p) is not str] if type(value) is ast.String else [value]
        if id(node) in self.dropped_statements:
            parts = []
        for part in parts:
            if self.pure(part) is not None and not self.can_be_pool(part):
                continue   # a read that cannot fail: nothing to work out when nobody shows it
            shown = self.expr(part)
            if self.can_be_pool(part):
                self.line(f"if {class_of(shown)} is Pool: roll_and_keep(EV.source, {shown}, EV)")
        self.line("next(SAY)")

    def condition(self, node) -> str:
        """The condition's value, tested to be true or false."""
        known = self.truth(node)
        if known is not None:   # Python leaves out an `if False:` block, and the test of `if True:`
            return known
        if self.surely(node, "bool") or isinstance(node, BOOLEAN):
            pure = self.pure(node)
            if pure is not None:
                return pure
        value = self.tested(node)
        if not isinstance(node, BOOLEAN) and not self.surely(node, "bool"):
            self.line(f"if {value} is not True and {value} is not False: bail()")
        return value

    def if_(self, branches, otherwise, proven: set = frozenset()) -> None:
        """`if`, `elif`s and `else`; `proven`: the locals the first condition shows are no none
        (NotNone.reads_a_field_of), in every block (not in the condition: it reads them)."""
        condition, block = branches[0]
        value = self.condition(condition)
        self.not_none |= proven
        self.line(f"if {value}:")
        with self.indented(), self.kinds_tested(condition):
            self.block(block)
        if len(branches) > 1 or otherwise is not None:
            self.line("else:")
            with self.indented():
                if len(branches) > 1:
                    self.if_(branches[1:], otherwise)
                else:
                    self.block(otherwise)

    # -- expressions: each gives a Python expression that is a literal, a local or a temporary, the
    # work before it written as lines (so the order of evaluation is the closures') --
