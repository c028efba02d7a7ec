"""Whole-program type inference for a script and the modules it uses (transitively).

Entry points:

    types = infer(program, modules, path)   # program: the script's ast.Program; modules: {Path: Program}
                                            # of every module it uses, as ModuleLoader finds them;
                                            # path: the script's file (its folder is where `use` looks)
    types = infer_file(path)                # parses the script and loads its modules itself

What the back end asks the result (a `Types`):

    types.of(node)          the Type of an expression node (ANY for a node the inference never saw)
    types.params(fn_def)    the Types of a `fn`'s parameters (join of the arguments at every call)
    types.returns(fn_def)   the Type of what it returns
    types.rolls(fn_def)     whether it, or anything it calls, may roll a die (or roll a pool)
    types.callee(call)      the one FnDef a call surely reaches (house rules counted), or None
    types.elements(t)       what lists of type t hold
    types.variable(let)     the Type of the variable a `let` declares
    types.field(t, name)    the Type of `x.name` for x of type t
    types.fields(t)         {name: Type} when t is surely records of one shape, else None
    types.kind_fields(kind) {name: Type} of a kind's stats, derived values, state and gear

How: abstract interpretation over the AST, flow-insensitive, repeated to a fixpoint. Every place a
value can be stored has a slot (a variable, a parameter, a function's result, a kind's field, the
elements of the lists made at one site, the fields of the records made at one site); each pass walks
all the code (every module's top level, every function body, kind formulas, the encounter), joins
what each expression may give into the slots it flows to, and the passes stop when no slot grows.
The lattice is finite (atoms name AST sites), so it ends.

Soundness, in the interpreter's terms: anything that may happen at run time adds to a slot; what is
not modelled gives ANY. In particular: a call through a value the inference cannot see (ANY) may
reach any function read as a value, so those get ANY parameters; an assignment through an unknown
holder goes into every field and list; a house rule `fn m.x` replaces m's `x` for all code run after
the modules are loaded, while code that runs as a module loads may still see the original.
"""

from __future__ import annotations

from pathlib import Path

from ..interpreter import ast
from ..interpreter.parser import parse_program
from ..interpreter.script import ModuleLoader, ModulePath, parse_module, read_source
from ..limits import Limits
from . import types as T
from .infer_declarations import Declarations
from .infer_expressions import ExpressionTypes
from .infer_heap import FieldTypes
from .infer_slots import Slots
from .scopes import KINDS, FileInfo, FnInfo, KindInfo, Scope, Unit, Var
from .types import ANY, BOTTOM, T_NONE, Type


# ---- the result ----

class Types:
    """What the inference found, asked after it has run (the answers no longer change)."""

    def __init__(self, inference: "Inference"):
        self._i = inference
        self._kind_fields: dict = {}   # kind -> kind_fields(kind), worked out once: the back end asks often

    def of(self, node) -> Type:
        return self._i.node_types.get(id(node), ANY)

    def params(self, fn_def) -> list[Type]:
        return [self._i.get(v.slot) for v in self._i.fn_info(fn_def).params]

    def returns(self, fn_def) -> Type:
        return self._i.get(("ret", id(fn_def)))

    def rolls(self, fn_def) -> bool:
        return self._i.fn_info(fn_def) in self._i.rolled

    def callee(self, call) -> ast.FnDef | None:
        found = self._i.callees.get(id(call))
        if not found or None in found or len(found) != 1:
            return None
        return next(iter(found)).node

    def called(self, call) -> "list | None":
        """The `fn`s (FnDef nodes) a call of a function value may reach, None among them when it
        may reach any; None for a call of a builtin (or of nothing the inference looked at)."""
        found = self._i.callees.get(id(call))
        return None if found is None else [None if info is None else info.node for info in found]

    def elements(self, t: Type) -> Type:
        return self._i.elements(t)

    def variable(self, let) -> Type:
        """The Type of the variable a `let` declares: the join of every value it is given."""
        found = self._i.vars.get((id(let), let.name))
        return ANY if found is None else self._i.get(found.slot)

    def field(self, t: Type, name: str) -> Type:
        return self._i.read_field(t, name)

    def fields(self, t: Type) -> dict | None:
        shape = t.shape()
        return None if shape is None else {name: self._i.read_field(t, name) for name in shape}

    def kind_fields(self, kind: tuple) -> dict:
        """{name: Type} of each stat, derived value, state and gear item of a kind. Not to be changed."""
        found = self._kind_fields.get(kind)
        if found is None:
            info = self._i.kinds[kind]
            found = self._kind_fields[kind] = {name: self._i.read_char_field(kind, name) for name in info.items}
        return found

    def functions(self) -> list:
        return [info.node for info in self._i.fns.values()]

    def kind_items(self, kind: tuple) -> dict | None:
        """{name: ast item} of a kind's stats, derived values, state and gear; None for a kind unknown here."""
        info = self._i.kinds.get(kind)
        return None if info is None else info.items

    def names_character(self, node) -> bool:
        """Whether `node` is a name of the script's top level (or of a module it uses) for a character."""
        var = self._i.main.scope.lookup(node.id) if type(node) is ast.Name else None
        return var is not None and var.kind == "character"

    def rule(self, module: str, name: str):
        """The `fn` named `name` of the module the script uses as `module`, or None."""
        var = self._i.main.scope.names.get(module)
        found = var.file.scope.names.get(name) if var is not None and var.kind == "module" else None
        return found.fn.node if found is not None and found.kind == "fn" else None


def infer(program: ast.Program, modules: dict, path=None, module_path=()) -> Types:
    """Types of a script (`program`, from the file `path`) and of the modules it uses: `modules` maps
    each module's resolved Path to its parsed Program. `module_path`: the user's folders of modules
    (`--path`), where `use` looks after the script's folder."""
    inference = Inference(program, {Path(p).resolve(): m for p, m in modules.items()},
                          Path(path).resolve() if path is not None else Path.cwd() / "<script>", module_path)
    inference.run()
    return Types(inference)


def load_modules(program: ast.Program, path, limits: Limits = Limits(), module_path=()) -> dict:
    """The modules `program` uses, transitively, parsed as the interpreter's ModuleLoader parses them
    (the same cached ASTs, so `id(node)` matches the nodes a run executes)."""
    found: dict = {}
    home = Path(path).resolve().parent

    def visit(prog, folder):
        for statement in prog.statements:
            if type(statement) is ast.Use:
                where = ModuleLoader.find(statement, folder, ModulePath.of(home, module_path))
                if where not in found:   # read as the loader reads it (a CR inside a string stays one)
                    text = read_source(where, limits, f"module `{statement.name}` ({where})", statement.span)
                    found[where] = parse_module(text, str(where), limits)
                    visit(found[where], where.parent)
    visit(program, Path(path).resolve().parent)
    return found


def infer_file(path, limits: Limits = Limits()) -> Types:
    path = Path(path).resolve()
    program = parse_program(read_source(path, limits, f"script ({path})"), str(path), limits)
    return infer(program, load_modules(program, path, limits), path)


# ---- the inference ----

class Inference(Slots, Declarations, ExpressionTypes, FieldTypes):
    """The fixpoint over every file's code: its set-up and the walk of statements here; the store
    of types and the rules for declarations, expressions and the heap in the mixins (infer_*.py)."""

    def __init__(self, program, modules: dict, path: Path, module_path=()):
        self.where = ModulePath.of(path.parent, module_path)  # where `use` finds modules
        Slots.__init__(self)
        self.rules: dict[type, object] = {}   # a kind of node -> its rule (ExpressionTypes.expr)
        self.typed: dict = {}   # id of a fn -> (the version its last typing began at, the slots it read)
        self.vars: dict = {}          # (id(node), name) -> Var: the same binding on every pass
        self.fns: dict[int, FnInfo] = {}
        self.kinds: dict[tuple, KindInfo] = {}
        self.callees: dict[int, set] = {}
        self.loading: set = set()     # FnInfos that may run while modules load
        self.address_taken: set = set()
        self.unknown_call = False
        self.clobbered: set = set()   # (path, name) of module functions replaced by assignment
        self.overrides: dict = {}     # (path, name) -> [(FnInfo, in the main script)]
        self.encounter = None
        self.files: dict[str, FileInfo] = {}
        self.main = self._file(str(path), program, True, modules)
        self.module_characters = any(type(n) is ast.CharacterDef for f in self.files.values() if not f.is_main
                                     for n in ast.walk(f.program))
        for file in self.files.values():
            self._collect_overrides(file)

    # -- set-up: files, their scopes, house rules --

    def _file(self, path: str, program, is_main: bool, modules: dict) -> FileInfo:
        if path in self.files:
            return self.files[path]
        file = self.files[path] = FileInfo(path, program, is_main)
        for use in (s for s in program.statements if type(s) is ast.Use):
            try:
                where = ModuleLoader.find(use, Path(path).parent, self.where)
            except Exception:  # a missing module is the checker's error, not ours
                continue
            if where not in modules:
                continue
            used = self._file(str(where), modules[where], False, modules)
            var = Var("module", use.name, use, file=used)
            var.top = True
            file.scope.names[use.name] = var
            file.scope.uses.append(used)
        self.declare(program.statements, file.scope, file, top=True)
        return file

    def _collect_overrides(self, file: FileInfo) -> None:
        for statement in file.program.statements:
            if type(statement) is ast.FnDef and statement.module is not None:
                module = file.scope.names.get(statement.module)
                if module is None or module.kind != "module":
                    continue
                info = self.fn_info(statement, file)
                self.overrides.setdefault((module.file.path, statement.name), []).append((info, file.is_main))

    def fn_info(self, node, file=None) -> FnInfo:
        info = self.fns.get(id(node))
        if info is None:
            info = self.fns[id(node)] = FnInfo(node, file)
        return info

    def var(self, node, name, kind, **extra) -> Var:
        key = (id(node), name)
        found = self.vars.get(key)
        if found is None:
            found = self.vars[key] = Var(kind, name, node, **extra)
        return found

    def declare(self, statements, scope: Scope, file: FileInfo, top: bool = False) -> None:
        """The names a block declares, known in the whole block (as compile_statements does)."""
        for s in statements:
            kind = type(s)
            if kind is ast.Let:
                var = self.var(s, s.name, "let")
            elif kind is ast.FnDef and s.module is None:
                var = self.var(s, s.name, "fn", file=file, fn=self.fn_info(s, file))
            elif kind is ast.TableDef:
                var = self.var(s, s.name, "table")
            elif kind is ast.CharacterDef:
                var = self.var(s, s.name, "character", scope=scope)
            elif kind is ast.KindDef:
                key = (file.path, s.name)
                if key not in self.kinds:
                    self.kinds[key] = KindInfo(key, s, scope)
                    self.grew(KINDS)
                var = self.var(s, s.name, "kind")
            else:
                continue
            var.top = top
            var.file = file
            scope.names[s.name] = var

    # -- the fixpoint --

    def run(self) -> None:
        for _ in range(500):
            self.changed = False
            self.one_pass()
            if not self.changed:
                return
        raise RuntimeError("type inference did not settle")  # cannot happen: the lattice is finite

    def one_pass(self) -> None:
        if self.unknown_call:  # a call the inference cannot follow may reach any function used as a value
            for info in self.address_taken:
                for param in info.params:
                    self.put(param.slot, ANY)
        for file in self.files.values():
            unit = Unit(None, None, loading=not file.is_main, file=file)
            self.statements(file.program.statements, file.scope, unit, file)

    # -- statements --

    def block(self, node: ast.Block, scope: Scope, unit: Unit, file: FileInfo, shared: Scope | None = None):
        inner = shared if shared is not None else Scope(scope)
        self.statements(node.statements, inner, unit, file)

    def statements(self, statements, scope: Scope, unit: Unit, file: FileInfo) -> None:
        self.declare(statements, scope, file, top=scope is file.scope)
        for s in statements:
            self.statement(s, scope, unit, file)

    def statement(self, s, scope: Scope, unit: Unit, file: FileInfo) -> None:
        kind = type(s)
        if kind is ast.Let:
            self.put(scope.names[s.name].slot, self.expr(s.value, scope, unit))
        elif kind is ast.Assign:
            self.assign(s, scope, unit)
        elif kind is ast.ExprStatement:
            self.expr(s.expr, scope, unit)
        elif kind is ast.Say:
            if self.expr(s.value, scope, unit).maybe("pool"):
                self.mark_rolls(unit)  # `say` rolls a pool to show it
        elif kind is ast.Return:
            t = self.expr(s.value, scope, unit) if s.value is not None else T_NONE
            if unit.fn is not None:
                self.put(("ret", id(unit.fn.node)), t)
        elif kind is ast.If:
            for condition, body in s.branches:
                self.expr(condition, scope, unit)
                self.block(body, scope, unit, file)
            if s.otherwise is not None:
                self.block(s.otherwise, scope, unit, file)
        elif kind is ast.For:
            items = self.expr(s.iterable, scope, unit)
            loop = Scope(scope)
            var = loop.names[s.name] = self.var(s, s.name, "for")
            self.put(var.slot, self.elements(items))
            self.block(s.body, loop, unit, file)
        elif kind is ast.While:
            self.expr(s.condition, scope, unit)
            self.block(s.body, scope, unit, file)
        elif kind is ast.Repeat:
            if self.expr(s.count, scope, unit).maybe("pool"):
                self.mark_rolls(unit)
            self.block(s.body, scope, unit, file)
        elif kind is ast.FnDef:
            self.function(s, scope, file)
        elif kind is ast.TableDef:
            self.table(s, scope, unit)
        elif kind is ast.KindDef:
            self.kind_formulas(self.kinds[(file.path, s.name)], unit, file)
        elif kind is ast.CharacterDef:
            self.character(s, scope, unit)
        elif kind is ast.EncounterDef:
            self.encounter_def(s, scope, unit, file)
        # Use: set up with the file

    def function(self, node: ast.FnDef, scope: Scope, file: FileInfo) -> None:
        """A `fn`'s body, in a scope of its parameters beside the body's own names. Typed again only
        when a slot its last typing read has grown since, or anything else did (`grew`): typing it
        again would give the same types (the last passes of a fixpoint change a few slots)."""
        last = self.typed.get(id(node))   # (the version its last typing began at, the slots it read)
        if last is not None and self.everything_version <= last[0] and \
                all(self.slot_versions.get(key, 0) <= last[0] for key in last[1]):
            if self.reading is not None:
                self.reading |= last[1]
            return
        outer, self.reading = self.reading, set()
        start = self.version
        try:
            self._function(node, scope, file)
        finally:
            read, self.reading = self.reading, outer
        self.typed[id(node)] = (start, read)
        if outer is not None:   # an enclosing fn reads what its nested fns read
            outer |= read

    def _function(self, node: ast.FnDef, scope: Scope, file: FileInfo) -> None:
        info = self.fn_info(node, file)
        inner = Scope(scope)
        for param in info.params:
            inner.names[param.name] = param
        self.reads(("loading", info))
        unit = Unit(info, info, loading=info in self.loading, file=file)
        if node.line_form:
            self.put(("ret", id(node)), self.expr(node.body, inner, unit))
            return
        self.block(node.body, scope, unit, file, shared=inner)
        if not surely_ends(node.body.statements, inner):
            self.put(("ret", id(node)), T_NONE)

    def table(self, node: ast.TableDef, scope: Scope, unit: Unit) -> None:
        site = self.site(("table", id(node)), f"table {node.name}")
        for row in node.rows:
            for key, value in row.entries:
                if key is not None:
                    self.expr(key, scope, unit)
                self.put(("tvals", site), self.expr(value, scope, unit))
        if any(row.name is not None for row in node.rows):   # `t[key]` may give a named row
            self.put(("trows", site), T.of(T.RowT(site)))
        self.put(scope.names[node.name].slot, T.of(T.TableT(site)))

    def assign(self, s: ast.Assign, scope: Scope, unit: Unit) -> None:
        value = self.expr(s.value, scope, unit)
        target = s.target

        def updated(old: Type) -> Type:
            return value if s.op == "=" else self.binary(s.op[0], old, value, s, unit)

        if type(target) is ast.Name:
            var = scope.lookup(target.id)
            if var is not None and var.kind in ("let", "param", "for"):
                old = self.get(var.slot)
                if s.op != "=":   # `i -= 1` reads i: its type, as a read of it is noted
                    self.note(target, old)
                self.put(var.slot, updated(old))
            return
        holder = self.expr(target.target, scope, unit)
        if type(target) is ast.Field:
            old = self.note(target, self.read_field(holder, target.name)) if s.op != "=" else BOTTOM
            self.write_field(holder, target.name, updated(old))
            return
        key = self.expr(target.key, scope, unit)
        old = self.note(target, self.index(holder, key, target.key)) if s.op != "=" else BOTTOM
        self.write_index(holder, target.key, updated(old), updated if s.op != "=" else None)


# ---- helpers ----

def surely_ends(statements, scope) -> bool:
    """Whether a block always ends in a `return` (or `fail`), so it never falls off its end."""
    if not statements:
        return False
    last = statements[-1]
    if type(last) is ast.Return:
        return True
    if type(last) is ast.If:
        return last.otherwise is not None and all(surely_ends(b.statements, scope) for _, b in last.branches) \
            and surely_ends(last.otherwise.statements, scope)
    if type(last) is ast.ExprStatement and type(last.expr) is ast.Call and type(last.expr.callee) is ast.Name:
        return last.expr.callee.id == "fail" and scope.lookup("fail") is None
    return False
