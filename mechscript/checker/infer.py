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
from ..interpreter.builtins import BUILTINS, NOT_ROLLED
from ..interpreter.parser import parse_program
from ..interpreter.script import ModuleLoader, ModulePath, parse_module
from ..limits import Limits
from . import types as T
from .types import ANY, BOTTOM, T_BOOL, T_INT, T_NONE, T_NUMBER, T_STR, Ref, Site, Type

OWN_FIELDS = {"name": T_STR, "kind": T_STR}
T_SIDE = T.of(T.STR, T.NONE)  # `side` is none until the encounter is fought, and for gear items


# ---- bindings and scopes ----

class Var:
    """A name's binding. `slot` is where a variable's type is kept."""

    __slots__ = ("kind", "name", "node", "file", "scope", "fn", "slot", "top")

    def __init__(self, kind, name, node=None, file=None, scope=None, fn=None, slot=None):
        self.kind, self.name, self.node, self.file, self.scope, self.fn = kind, name, node, file, scope, fn
        self.slot = slot if slot is not None else self
        self.top = False  # declared at the top level of its file


class Scope:
    __slots__ = ("names", "parent", "uses")

    def __init__(self, parent=None):
        self.names: dict[str, Var] = {}
        self.parent = parent
        self.uses: list = []

    def lookup(self, name: str) -> Var | None:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            for module in scope.uses:
                if name in module.scope.names:
                    return module.scope.names[name]
            scope = scope.parent
        return None


class FileInfo:
    def __init__(self, path: str, program: ast.Program, is_main: bool):
        self.path, self.program, self.is_main = path, program, is_main
        self.scope = Scope()


class FnInfo:
    """A `fn` definition: its parameters' variables and the file it is in."""

    def __init__(self, node: ast.FnDef, file: FileInfo):
        self.node, self.file = node, file
        self.params = [Var("param", p) for p in node.params]


class KindInfo:
    def __init__(self, key, node: ast.KindDef, scope: Scope):
        self.key, self.node, self.scope = key, node, scope
        self.items = {item.name: item for item in node.items}


class Unit:
    """The code being walked: a function's body (fn), or a top level, a kind's formulas, `until`.
    `loading`: it may run while the modules are loaded, before the script's house rules are in."""

    __slots__ = ("fn", "key", "loading", "file")

    def __init__(self, fn, key, loading, file=None):
        self.fn, self.key, self.loading, self.file = fn, key, loading, file


# ---- the result ----

class Types:
    def __init__(self, inference: "Inference"):
        self._i = inference

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
        info = self._i.kinds[kind]
        return {name: self._i.read_char_field(kind, name) for name in info.items}

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
                if where not in found:
                    found[where] = parse_module(where.read_text(encoding="utf-8-sig"), str(where), limits)
                    visit(found[where], where.parent)
    visit(program, Path(path).resolve().parent)
    return found


def infer_file(path, limits: Limits = Limits()) -> Types:
    path = Path(path).resolve()
    program = parse_program(path.read_text(encoding="utf-8-sig"), str(path), limits)
    return infer(program, load_modules(program, path, limits), path)


# ---- the inference ----

_CONSTANTS = {"true": T_BOOL, "false": T_BOOL, "none": T_NONE}


class Inference:
    def __init__(self, program, modules: dict, path: Path, module_path=()):
        self.where = ModulePath.of(path.parent, module_path)  # where `use` finds modules
        self.slots: dict = {}
        self.node_types: dict[int, Type] = {}
        self.changed = False
        self.vars: dict = {}          # (id(node), name) -> Var: the same binding on every pass
        self.sites: dict = {}         # key -> Site
        self.list_sites: set = set()
        self.record_sites: dict = {}  # Site -> names
        self.fns: dict[int, FnInfo] = {}
        self.kinds: dict[tuple, KindInfo] = {}
        self.callees: dict[int, set] = {}
        self.rolled: set = set()      # unit keys that may roll dice
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
                var = self.var(s, s.name, "kind")
            else:
                continue
            var.top = top
            var.file = file
            scope.names[s.name] = var

    # -- slots --

    def get(self, key) -> Type:
        return self.slots.get(key, BOTTOM)

    def put(self, key, t: Type) -> None:
        old = self.slots.get(key, BOTTOM)
        new = old | t
        if new is not old and new != old:
            self.slots[key] = new
            self.changed = True

    def note(self, node, t: Type) -> Type:
        old = self.node_types.get(id(node), BOTTOM)
        self.node_types[id(node)] = old | t
        return t

    def site(self, key, label: str) -> Site:
        found = self.sites.get(key)
        if found is None:
            found = self.sites[key] = Site(label)
            self.changed = True
        return found

    def list_of(self, key, label: str, elements: Type) -> Type:
        site = self.site(key, label)
        self.list_sites.add(site)
        self.put(("elems", site), elements)
        return T.of(T.ListT(site))

    def mark_rolls(self, unit: Unit) -> None:
        if unit.key is not None and unit.key not in self.rolled:
            self.rolled.add(unit.key)
            self.changed = True

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
        """A `fn`'s body, in a scope of its parameters beside the body's own names."""
        info = self.fn_info(node, file)
        inner = Scope(scope)
        for param in info.params:
            inner.names[param.name] = param
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
        self.write_index(holder, target.key, updated(old))

    # -- kinds, characters, the encounter --

    def kind_formulas(self, info: KindInfo, unit: Unit, file: FileInfo) -> None:
        """A kind's formulas, each seeing the items above it and the names of its file."""
        scope = Scope(info.scope)
        unit = Unit(None, ("kind", info.key), loading=self.module_characters, file=file)
        k = info.key
        for item in info.node.items:
            slot = ("kfield", k, item.name)
            given = self.get(("kgiven", k, item.name))
            if item.what == "gear":
                gear = self.resolve_kind(info.scope, [item.gear_kind])
                elements = T.of(T.CharT(gear)) if gear is not None else BOTTOM
                self.put(slot, self.list_of(("gear", k, item.name), f"{k[1]}.{item.name}", elements))
                continue
            for part in (item.low, item.high, item.choices):
                if part is not None:
                    self.expr(part, scope, unit)
            default = self.expr(item.value, scope, unit) if item.value is not None else BOTTOM
            if item.what == "stat" and item.low is not None:
                self.put(slot, T_INT)  # a range's stat is checked to be a whole number
            elif item.what == "stat":
                self.put(slot, T.plain(default | given))  # `_checked` takes a roll's total
            elif item.what == "derived":
                self.put(slot, default)
            else:
                self.put(slot, default | given)
            scope.names[item.name] = self.var(item, item.name, "kfield", slot=slot)

    def resolve_kind(self, scope: Scope, path: list) -> tuple | None:
        var = scope.lookup(path[0])
        if var is not None and len(path) == 2 and var.kind == "module":
            var = var.file.scope.names.get(path[1])
        if var is None or var.kind != "kind":
            return None
        return (var.file.path, var.name)

    def character(self, node: ast.CharacterDef, scope: Scope, unit: Unit) -> None:
        key = self.resolve_kind(scope, node.kind)
        if key is None:
            return
        self.entries(key, node.entries, scope, unit)
        self.put(scope.names[node.name].slot, T.of(T.CharT(key)))

    def entries(self, key, entries, scope: Scope, unit: Unit) -> None:
        info = self.kinds[key]
        for entry in entries:
            item = info.items.get(entry.name)
            if item is not None and item.what == "gear":  # the item's name is text, not evaluated
                gear = self.resolve_kind(info.scope, [item.gear_kind])
                if gear is not None:
                    self.entries(gear, entry.entries or [], scope, unit)
                continue
            self.put(("kgiven", key, entry.name), self.expr(entry.value, scope, unit))

    def encounter_def(self, node: ast.EncounterDef, scope: Scope, unit: Unit, file: FileInfo) -> None:
        members = BOTTOM
        for side in node.sides:
            for member in side.members:
                t = self.expr(member, scope, unit)
                members = members | t
                if not t.top and t.sites(T.ListT):  # a list of characters joins them all
                    members = members | self.elements(t)
        members = ANY if members.top else Type(a for a in members if type(a) is T.CharT)
        self.encounter = members
        chars = self.list_of(("enc", "members"), "side.members", members)
        side_site = self.site(("enc", "side"), "encounter side")
        self.record_sites[side_site] = ("name", "members")
        self.put(("field", side_site, "name"), T_STR)
        self.put(("field", side_site, "members"), chars)
        self.list_of(("enc", "sides"), "encounter.sides", T.of(T.RecordT(side_site, ("name", "members"))))
        self.list_of(("enc", "characters"), "encounter.characters", members)
        homes = self.homes(members)
        for name, _, value in node.settings:  # a setting writes the rules' option for the fight
            t = self.expr(value, scope, unit)
            for home in homes:
                var = home.names.get(name)
                if var is not None and var.kind == "let":
                    self.put(var.slot, t)
        until_unit = Unit(None, "until", loading=False, file=file)
        if node.until is not None:
            until_scope = Scope(scope)
            for name, t in (("round", T_INT), ("one_side_left", T_BOOL), ("sides_left", T_INT)):
                var = until_scope.names[name] = self.var(node, name, "let")
                self.put(var.slot, t)
            self.expr(node.until, until_scope, until_unit)
        # The interpreter calls the rules' `fight(encounter)`, and `standing(character)` from `ended`.
        # `ended` (a builtin) rolls when `standing` or `until` does.
        ended_unit = Unit(None, "ended", loading=False, file=file)
        for home in homes:
            for rule, arg, key in (("fight", T.T_ENCOUNTER, "fight"), ("standing", members, "ended")):
                var = home.names.get(rule)
                if var is not None:
                    self.invoke(self.read_var(var, ended_unit, value=False), [arg], None,
                                Unit(None, key, loading=False, file=file))
        if "until" in self.rolled:
            self.mark_rolls(ended_unit)

    def homes(self, members: Type) -> list[Scope]:
        """The scopes the encounter's kinds were declared in: their `fight`, `standing`, options."""
        if members.top:
            return [f.scope for f in self.files.values()]
        return [self.kinds[a.kind].scope for a in members if a.kind in self.kinds]

    # -- reading names --

    def read_var(self, var: Var, unit: Unit, value: bool = True) -> Type:
        kind = var.kind
        if kind == "fn":
            defs = self.defs_of(var, unit)
            if defs is None:
                return ANY
            if value:
                for info in defs:
                    if info not in self.address_taken:
                        self.address_taken.add(info)
                        self.changed = True
            return Type(T.FnT(Ref(info.node)) for info in defs)
        if kind == "module":
            return T.of(T.ModuleT(var.file.path))
        if kind == "kind":
            return T.of(T.KindT((var.file.path, var.name)))
        return self.get(var.slot)

    def defs_of(self, var: Var, unit: Unit) -> list | None:
        """The `fn`s a module-level function name may hold when this code reads it (house rules)."""
        if not var.top:
            return [var.fn]
        key = (var.file.path, var.name)
        if key in self.clobbered:
            return None
        replaced = self.overrides.get(key)
        if not replaced:
            return [var.fn]
        in_main = [info for info, main in replaced if main]
        if in_main and not unit.loading:  # the script's house rule is in before its first statement
            return in_main
        return [var.fn] + [info for info, _ in replaced]

    # -- expressions --

    def expr(self, node, scope: Scope, unit: Unit) -> Type:
        return self.note(node, getattr(self, "e_" + type(node).__name__)(node, scope, unit))

    def e_Number(self, node, scope, unit):
        return T_INT if type(node.value) is int else T.T_FRACTION

    def e_PoolLiteral(self, node, scope, unit):
        return T.of(T.PoolT(True))

    def e_Name(self, node, scope, unit):
        var = scope.lookup(node.id)
        if var is None:
            return _CONSTANTS.get(node.id, BOTTOM)  # a builtin's name alone is a checker error
        return self.read_var(var, unit)

    def e_Group(self, node, scope, unit):
        return self.expr(node.inner, scope, unit)

    def e_ListLiteral(self, node, scope, unit):
        items = T.join_all(self.expr(item, scope, unit) for item in node.items)
        return self.list_of(("list", id(node)), f"list@{node.span.line}", items)

    def e_Record(self, node, scope, unit):
        site = self.site(("record", id(node)), f"record@{node.span.line}")
        names = tuple(name for name, _ in node.fields)
        self.record_sites[site] = names
        for name, value in node.fields:
            self.put(("field", site, name), self.expr(value, scope, unit))
        return T.of(T.RecordT(site, names))

    def e_String(self, node, scope, unit):
        for part in node.parts:
            if type(part) is not str and self.expr(part, scope, unit).maybe("pool"):
                self.mark_rolls(unit)
        return T_STR

    def e_Dice(self, node, scope, unit):
        self.mark_rolls(unit)
        whole = True
        if node.count is not None:
            self.expr(node.count, scope, unit)
        if isinstance(node.sides, ast.ListLiteral):  # faces from a list: numbers, maybe fractions
            for item in node.sides.items:
                whole = T.whole(self.expr(item, scope, unit)) and whole
        elif isinstance(node.sides, ast.Node):
            self.expr(node.sides, scope, unit)
        return T.of(T.RollT(whole))

    def e_Unary(self, node, scope, unit):
        t = self.expr(node.operand, scope, unit)
        if t.top:
            return ANY
        pools = {a for a in t if type(a) is T.PoolT}  # `-7k3` is a pool
        return Type(pools) | T.numeric(Type(a for a in t if type(a) is not T.PoolT))

    def e_BinOp(self, node, scope, unit):
        left, right = self.expr(node.left, scope, unit), self.expr(node.right, scope, unit)
        return self.binary(node.op, left, right, node, unit)

    def binary(self, op: str, a: Type, b: Type, node, unit: Unit) -> Type:
        """`evaluator.binary` on types: pools, strings, lists, numbers (rolls by their totals)."""
        if a.maybe("pool") or b.maybe("pool"):
            self.mark_rolls(unit)  # rolled as a number, or a pool sum rolled before its dice terms
        if a.top or b.top:
            return ANY
        out = BOTTOM
        pools_a = [x for x in a if type(x) is T.PoolT]
        pools_b = [x for x in b if type(x) is T.PoolT]
        if op in ("+", "-"):
            plain_a, plain_b = _without_pools(a), _without_pools(b)
            if pools_a and (pools_b or T.numeric(plain_b).atoms) or pools_b and T.numeric(plain_a).atoms:
                whole = all(p.whole for p in pools_a + pools_b) and T.whole(plain_a) and T.whole(plain_b)
                out = out | T.of(T.PoolT(whole))
                if _chain_may_roll(node):
                    out = out | T_NUMBER  # `7k3 + d6`: the pool is rolled, then the die added
            if op == "+" and T.STR in a.atoms and T.STR in b.atoms:
                out = out | T_STR
            if op == "+" and a.maybe("list") and b.maybe("list"):
                out = out | self.list_of(("concat", id(node)), f"list@{node.span.line}",
                                         self.elements(a) | self.elements(b))
            na, nb = T.numeric(plain_a), T.numeric(plain_b)
        else:
            na, nb = T.numeric(a), T.numeric(b)
        if na.atoms and nb.atoms:
            if op == "//":
                out = out | T_INT
            elif op == "/":
                out = out | T_NUMBER
            elif na <= T_INT and nb <= T_INT:
                out = out | T_INT
            else:
                out = out | T_NUMBER
        return out

    def e_Power(self, node, scope, unit):
        """`evaluator.power`: a number; whole when both sides are and the exponent is a literal 0 or
        more (`2 ** -1` is 1/2)."""
        base, exponent = self.expr(node.base, scope, unit), self.expr(node.exponent, scope, unit)
        if base.maybe("pool") or exponent.maybe("pool"):
            self.mark_rolls(unit)  # rolled as a number
        if base.top or exponent.top:
            return ANY
        if not (T.numeric(base).atoms and T.numeric(exponent).atoms):
            return BOTTOM  # an error
        whole = T.numeric(base) <= T_INT and type(node.exponent) is ast.Number and type(node.exponent.value) is int
        return T_INT if whole else T_NUMBER

    def e_Compare(self, node, scope, unit):
        left, right = self.expr(node.left, scope, unit), self.expr(node.right, scope, unit)
        if left.maybe("pool") or right.maybe("pool"):
            self.mark_rolls(unit)
        return T_BOOL

    def e_Logic(self, node, scope, unit):
        self.expr(node.left, scope, unit)
        self.expr(node.right, scope, unit)
        return T_BOOL

    def e_Not(self, node, scope, unit):
        self.expr(node.operand, scope, unit)
        return T_BOOL

    def e_Match(self, node, scope, unit):
        self.expr(node.subject, scope, unit)
        out = BOTTOM
        for arm in node.arms:
            for pattern in arm.patterns or ():
                self.expr(pattern, scope, unit)
            if type(arm.body) is ast.Block:
                self.block(arm.body, scope, unit, unit.file)
                out = out | T_NONE
            else:
                out = out | self.expr(arm.body, scope, unit)
        return out

    def e_Field(self, node, scope, unit):
        return self.read_field(self.expr(node.target, scope, unit), node.name, unit)

    def e_Index(self, node, scope, unit):
        holder, key = self.expr(node.target, scope, unit), self.expr(node.key, scope, unit)
        return self.index(holder, key, node.key)

    def e_Call(self, node, scope, unit):
        callee = node.callee
        if type(callee) is ast.Name:
            var = scope.lookup(callee.id)
            if var is None:
                if callee.id in NOT_ROLLED:
                    return self.odds(node, scope, unit)
                if callee.id in BUILTINS:
                    args = [self.expr(arg, scope, unit) for arg in node.args]
                    for value in node.kwargs.values():
                        self.expr(value, scope, unit)
                    return self.builtin(callee.id, args, node, unit)
                return BOTTOM
            function = self.note(callee, self.read_var(var, unit, value=False))
        elif type(callee) is ast.Field and type(callee.target) is ast.Name and \
                (module := scope.lookup(callee.target.id)) is not None and module.kind == "module":
            self.note(callee.target, T.of(T.ModuleT(module.file.path)))
            var = module.file.scope.names.get(callee.name)
            function = self.note(callee, self.read_var(var, unit, value=False) if var is not None else BOTTOM)
        else:
            function = self.expr(callee, scope, unit)
        args = [self.expr(arg, scope, unit) for arg in node.args]
        return self.invoke(function, args, node, unit)

    def invoke(self, function: Type, args: list, node, unit: Unit) -> Type:
        """A call of a function value: each `fn` it may be gets the arguments and gives its result."""
        called = self.callees.setdefault(id(node), set()) if node is not None else set()
        if function.top:
            called.add(None)
            if not self.unknown_call:
                self.unknown_call = True
                self.changed = True
            self.mark_rolls(unit)
            return ANY
        out = BOTTOM
        for atom in function:
            if type(atom) is not T.FnT:
                continue  # not callable: an error
            info = self.fn_info(atom.ref.node)
            if len(info.params) != len(args):
                continue  # the wrong number of arguments: an error
            called.add(info)
            for param, arg in zip(info.params, args):
                self.put(param.slot, arg)
            out = out | self.get(("ret", id(info.node)))
            if info in self.rolled:
                self.mark_rolls(unit)
            if unit.loading and info not in self.loading:
                self.loading.add(info)
                self.changed = True
        return out

    def odds(self, node, scope, unit) -> Type:
        """`prob`, `dist`, `mean`: exact ones read their argument as a distribution (its nodes are
        not run as values, so they get no type: ANY); `samples:` rolls it with the run's dice."""
        if "samples" in node.kwargs:
            for arg in [*node.args, *node.kwargs.values()]:
                self.expr(arg, scope, unit)
            self.mark_rolls(unit)
        return ANY if node.callee.id == "dist" else T_NUMBER

    def builtin(self, name: str, args: list, node, unit: Unit) -> Type:
        numbers = ("floor", "ceil", "round", "abs", "min", "max", "pool", "decimal", "range", "sum", "roll")
        if name in numbers and (any(a.maybe("pool") for a in args) or
                                name in ("min", "max", "sum") and any(self.elements(a).maybe("pool") for a in args)):
            self.mark_rolls(unit)  # a pool given where a number is needed is rolled
        first = args[0] if args else BOTTOM
        if name in ("floor", "ceil", "round"):
            return T_INT
        if name == "abs":
            return T.numeric(first)
        if name in ("min", "max"):
            if len(args) == 1:
                listed = T.numeric(self.elements(first)) if first.maybe("list") else BOTTOM
                return listed | T.numeric(first)
            return T.join_all(T.numeric(a) for a in args)
        if name == "roll":
            if first.top:
                return T.of(T.RollT(False))
            return Type(T.RollT(a.whole) for a in first if type(a) is T.PoolT)
        if name == "pool":
            return T.of(T.PoolT(True))
        if name in ("decimal", "lower", "breakdown"):
            return T_STR
        if name == "len":
            return T_INT
        if name == "push":
            self.push(first, args[1] if len(args) > 1 else BOTTOM)
            return T_NONE
        if name == "range":
            return self.list_of(("range", id(node)), f"range@{node.span.line}", T_INT)
        if name == "sum":
            total = T.numeric(self.elements(first))
            return T_INT if total <= T_INT and not first.top else T_NUMBER
        if name == "sorted":
            items = T.plain(self.elements(first))
            items = T.of(T.INT, T.FRACTION, T.STR) if items.top else \
                Type(a for a in items if a in (T.INT, T.FRACTION, T.STR))
            return self.list_of(("sorted", id(node)), f"sorted@{node.span.line}", items)
        if name in ("contains", "ended", "has", "is_a"):
            if name == "ended" and "ended" in self.rolled:
                self.mark_rolls(unit)
            return T_BOOL
        if name == "fail":
            return BOTTOM
        if name == "make":  # a character of the kind given, or of the character's kind
            if first.top:
                return ANY
            return Type(T.CharT(atom.kind) for atom in first if type(atom) in (T.KindT, T.CharT))
        return ANY

    # -- the heap: lists, records, characters, modules --

    def elements(self, t: Type) -> Type:
        if t.top:
            return ANY
        return T.join_all(self.get(("elems", site)) for site in t.sites(T.ListT))

    def push(self, items: Type, value: Type) -> None:
        sites = self.list_sites if items.top else items.sites(T.ListT)
        for site in list(sites):
            self.put(("elems", site), value)

    def read_field(self, t: Type, name: str, unit: Unit | None = None) -> Type:
        """`x.name` (evaluator `_get_field`) for x of type t."""
        if t.top:
            return ANY
        out = BOTTOM
        for a in t:
            kind = type(a)
            if kind is T.CharT:
                out = out | self.read_char_field(a.kind, name)
            elif kind is T.RecordT:
                if name in a.names:
                    out = out | self.get(("field", a.site, name))
            elif a == T.ENCOUNTER:
                out = out | self.encounter_field(name)
            elif kind is T.ModuleT:
                var = self.files[a.path].scope.names.get(name) if a.path in self.files else None
                if var is not None:
                    out = out | self.read_var(var, unit or Unit(None, None, True))
            elif kind is T.TableT:
                out = out | T.of(T.RowT(a.site))
            elif kind is T.RollT:
                if name == "total":
                    out = out | (T_INT if a.whole else T_NUMBER)
                elif name in ("faces", "kept", "dropped"):
                    out = out | self.list_of(("faces", a.whole), "roll faces", T_INT if a.whole else T_NUMBER)
            elif kind is T.PoolT:
                if name == "notation":
                    out = out | T_STR
                elif name in ("rolled", "kept"):
                    out = out | T_NUMBER
                elif name == "bonus":
                    out = out | (T_INT if a.whole else T_NUMBER)
        return out

    def read_char_field(self, kind: tuple, name: str) -> Type:
        info = self.kinds.get(kind)
        if info is not None and name in info.items:
            return self.get(("kfield", kind, name))
        if name == "side":
            return T_SIDE
        return OWN_FIELDS.get(name, BOTTOM)

    def encounter_field(self, name: str) -> Type:
        if name == "name":
            return T_STR
        if name == "round":
            return T_INT  # set_field checks it is a whole number
        if name in ("sides", "characters"):
            return T.of(T.ListT(self.site(("enc", name), f"encounter.{name}")))
        return BOTTOM

    def write_field(self, t: Type, name: str, value: Type) -> None:
        if t.top:  # an unknown holder: any record's field, character's state or module's variable
            for site, names in list(self.record_sites.items()):
                if name in names:
                    self.put(("field", site, name), value)
            for key, info in self.kinds.items():
                if name in info.items:
                    self.put(("kfield", key, name), value)
            for path in self.files:
                self.write_module(path, name, value)
            return
        for a in t:
            if type(a) is T.CharT:
                info = self.kinds.get(a.kind)
                if info is not None and name in info.items and info.items[name].what == "state":
                    self.put(("kfield", a.kind, name), value)
            elif type(a) is T.RecordT and name in a.names:
                self.put(("field", a.site, name), value)
            elif type(a) is T.ModuleT:
                self.write_module(a.path, name, value)

    def write_module(self, path: str, name: str, value: Type) -> None:
        var = self.files[path].scope.names.get(name) if path in self.files else None
        if var is None:
            return
        if var.kind == "fn":  # `m.rule = x` through a value replaces the rule: nothing known of it
            if (path, name) not in self.clobbered:
                self.clobbered.add((path, name))
                self.changed = True
        elif var.kind in ("let",):
            self.put(var.slot, value)

    def index(self, holder: Type, key: Type, key_node) -> Type:
        """`x[key]` (`lookup.get_index`)."""
        if holder.top:
            return ANY
        name = _literal(key_node)
        out = BOTTOM
        for a in holder:
            kind = type(a)
            if kind is T.ListT:
                out = out | self.get(("elems", a.site))
            elif kind is T.RowT:
                out = out | self.get(("tvals", a.site))
            elif kind is T.TableT:
                out = out | T.of(T.RowT(a.site)) | self.get(("tvals", a.site))
            elif kind is T.RecordT:
                names = [name] if name is not None else a.names
                out = out | T.join_all(self.get(("field", a.site, n)) for n in names if n in a.names)
            elif kind is T.CharT:
                info = self.kinds.get(a.kind)
                names = [name] if name is not None else [*(info.items if info else ()), "name", "kind", "side"]
                out = out | T.join_all(self.read_char_field(a.kind, n) for n in names)
        return out

    def write_index(self, holder: Type, key_node, value: Type) -> None:
        name = _literal(key_node)
        if holder.top:
            self.push(ANY, value)
            if name is not None:
                self.write_field(ANY, name, value)
            else:
                for site, names in list(self.record_sites.items()):
                    for n in names:
                        self.put(("field", site, n), value)
                for key, info in self.kinds.items():
                    for n in info.items:
                        self.put(("kfield", key, n), value)
            return
        for a in holder:
            if type(a) is T.ListT:
                self.put(("elems", a.site), value)
            elif type(a) is T.RecordT:
                for n in ([name] if name is not None else a.names):
                    if n in a.names:
                        self.put(("field", a.site, n), value)
            elif type(a) is T.CharT:
                info = self.kinds.get(a.kind)
                for n, item in (info.items.items() if info else ()):
                    if item.what == "state" and (name is None or n == name):
                        self.put(("kfield", a.kind, n), value)


# ---- helpers ----

def _without_pools(t: Type) -> Type:
    return Type(a for a in t if type(a) is not T.PoolT)


def _chain_may_roll(node) -> bool:
    """Whether a sum holds a term that rolls (evaluator `may_roll`): then a pool in it is rolled."""
    return type(node) is not ast.BinOp or any(type(part) in (ast.Dice, ast.Call, ast.Compare)
                                              for part in ast.walk(node))


def _literal(node) -> str | None:
    """The text of a plain string literal key (`c["hp"]`), else None."""
    if type(node) is ast.String and all(type(p) is str for p in node.parts):
        return "".join(node.parts)
    return None


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
