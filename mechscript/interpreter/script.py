"""Scripts and modules: statements compiled to closures, names checked before anything runs.

Compiling is also the checker: unknown names (with a did-you-mean), wrong numbers of arguments to
known functions, duplicate definitions and `return` outside a function are errors before the first
die is rolled. A block's `fn`, `let` and `table` names are known in the whole block (functions
may call functions defined below them); a `let` still gives its value only once it has run.

Running: `use` statements load their modules first, then the block's functions are defined
(`fn pbem.to_hit` replaces the module's rule in the module's own scope, so the module's callers use
it too), then the statements run in order.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..dice.engine import DROPPED, REROLLED, DiceRoll
from ..dice.faces import FaceSource
from ..dice.rollkeep import KeepRoll, Pool
from ..numbers import normal
from . import ast
from .builtins import BUILTINS, NOT_ROLLED
from ..errors import MechError, Span, did_you_mean
from .evaluator import Compiler, Evaluation, binary
from .operators import CONSTANTS
from ..limits import CpuTime, Limits, limit_error, source_too_big, too_deep
from .lookup import ROLL_FIELDS, field_names, get_index, list_position, plain_key
from .names import KIND_WORDS, UNSET, Binding, ModuleInfo, StaticScope
from .odds import compile_call
from .parser import parse_program, quick_collector
from . import characters
from .values import Character, Encounter, Function, Module, Record, Scope, Table, TableRow, equal, format_value, \
    type_name

STDLIB = Path(__file__).resolve().parent.parent / "stdlib"

# ---- running ----

class Run(Evaluation):
    """One run of a script: the evaluation's dice, plus its scopes, counters, log and modules."""

    __slots__ = ("scope", "depth", "log", "quiet", "modules", "encounters", "encounter", "result")

    def __init__(self, source: FaceSource, limits: Limits, quiet: bool = False):
        super().__init__(source, limits)
        self.scope: Scope | None = None
        self.depth = 0
        self.log: list[str] = []
        self.quiet = quiet  # nobody reads the log (a batch): `say` works out its parts, not its text
        self.modules: dict[str, Module] = {}
        self.encounters: dict[str, Encounter] = {}  # by name, each once its declaration has run
        self.encounter: Encounter | None = None  # the one fought, once the top level has run
        self.result: dict | None = None          # the encounter's, once fought

    def call(self, function: Function, args: list, span: Span):
        """Calls a script function from Python (the encounter's rules)."""
        return call_function(self, function, args, span)


class Returned:
    """What a statement gives when a `return` ran in it: blocks and loops stop and hand it on to the
    function call. Every other statement gives None."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class ReturnSignal(Exception):
    """A `return` in a block that is an arm of a `match` expression unwinds to its function call
    this way, as an expression cannot hand a Returned on."""

    def __init__(self, value):
        self.value = value


def call_function(ev: Run, function: Function, args: list, span: Span):
    if len(args) != len(function.params):
        raise MechError(f"`{function.name}` takes {_count(len(function.params), 'argument')}, not {len(args)}",
                        span, hint=f"fn {function.name}({', '.join(function.params)})")
    ev.depth += 1
    if ev.depth > ev.limits.recursion:
        raise too_deep_calls(ev, span)
    ev.steps += 1
    if ev.steps > ev.step_limit:
        ev.step(span, 0)  # raises the limit's error
    variables = dict(zip(function.params, args))
    if function.frame is not None:
        variables.update(function.frame)
    saved = ev.scope
    ev.scope = Scope(function.scope, variables)
    try:
        return function.body(ev)
    except ReturnSignal as signal:
        return signal.value
    except RecursionError:  # Python's own stack, before `Limits.recursion` was reached
        raise python_stack(ev, span) from None
    finally:
        ev.scope = saved
        ev.depth -= 1


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---- errors and checks of running code ----

def unset(name: str, span: Span) -> MechError:
    return MechError(f"`{name}` has no value yet: its `let` has not run", span)


def too_deep_calls(ev: Run, span: Span) -> MechError:
    return limit_error("recursion", f"functions called each other more than {ev.limits.recursion} deep",
                       ev.limits.recursion, span)


def python_stack(ev: Run, span: Span) -> MechError:
    return MechError(f"functions called each other {ev.depth} deep, more than Python's stack allows", span,
                     hint=f"keep the `recursion` limit lower (it is {ev.limits.recursion})")


def too_many_lines(ev: Run, span: Span) -> MechError:
    return limit_error("output_lines", f"the script said more than {ev.limits.output_lines} lines",
                       ev.limits.output_lines, span)


def too_long(ev: Run, text: str, span: Span) -> MechError:
    return limit_error("string_size", f"a string of {len(text)} characters is too long", ev.limits.string_size, span)


def not_a_list(value, span: Span) -> MechError:
    return MechError(f"`for` goes through a list, not {type_name(value)}", span,
                     hint="for i in range(1, 6) { ... } counts 1 to 6")


def not_callable(value, span: Span) -> MechError:
    return MechError(f"only functions can be called, and this is {type_name(value)}", span)


def no_arm(value, span: Span) -> MechError:
    return MechError(f"no arm of this `match` fits {format_value(value)}", span, hint="add a last arm `else => ...`")


def for_too_long(ev: Run, items: list, span: Span) -> None:
    """Raises the error of a `for` charged past a limit. A `for` is charged its whole length when it
    starts, once, with no count a round (it may still leave early): `ev.steps += len(items)`, then
    `if ev.steps > ev.step_limit or len(items) > ev.limits.loop_iterations: for_too_long(...)`."""
    if len(items) > ev.limits.loop_iterations:
        raise limit_error("loop_iterations", f"a `for` over {len(items)} items is more rounds than one loop may run",
                          ev.limits.loop_iterations, span)
    ev.step(span, 0)


def repeat_count(ev: Run, value, span: Span) -> int:
    """`repeat`'s count: a whole number, 0 or more, within `loop_iterations`."""
    count = ev.number(value, span)
    if type(count) is not int:
        raise MechError(f"`repeat`'s count must be a whole number, not {format_value(count)}", span)
    if count < 0:
        raise MechError(f"`repeat` needs 0 or more rounds, not {format_value(count)}", span)
    if count > ev.limits.loop_iterations:
        raise limit_error("loop_iterations", f"`repeat {format_value(count)}` is more rounds than one loop may run",
                          ev.limits.loop_iterations, span)
    return count


# ---- modules ----

@dataclass(frozen=True)
class ModulePath:
    """Where `use` may read a module: the folder of the script being run (`home`) and its
    subfolders, the folders the user names (`--path DIR`, MECH_PATH: `folders`) and the standard
    library, all resolved. Nothing outside them is read, nor any file whose name does not end in
    .mech: a stranger's script cannot read the machine's files, nor have an error quote them."""

    home: Path
    folders: tuple[Path, ...] = ()

    @classmethod
    def of(cls, home: Path, folders=()) -> "ModulePath":
        return cls(Path(home).resolve(), tuple(Path(folder).resolve() for folder in folders))

    def roots(self) -> tuple[Path, ...]:
        return (self.home, *self.folders, STDLIB)

    def allows(self, path: Path) -> bool:
        """Whether the resolved `path` is inside one of the roots."""
        return any(path.is_relative_to(root) for root in self.roots())


OUTSIDE_HINT = ("modules are read from the script's folder and its subfolders, the folders named with "
                "--path DIR or MECH_PATH, and the standard library")


class ModuleLoader:
    """Finds, parses and compiles modules once per compilation, and notices circular `use`.
    `path` is where modules may be read (a session changes its `home` from entry to entry)."""

    def __init__(self, limits: Limits, path: ModulePath | None = None):
        self.limits = limits
        self.path = path or ModulePath.of(Path.cwd())
        self.compiled: dict[Path, ModuleInfo] = {}
        self.loading: set[Path] = set()

    def load(self, node: ast.Use, script_dir: Path) -> ModuleInfo:
        path = self.find(node, script_dir, self.path)
        if path in self.compiled:
            return self.compiled[path]
        if path in self.loading:
            raise MechError(f"`use {node.name}` goes round in a circle: {path.name} is already being loaded", node.span)
        text = read_source(path, self.limits, f"module `{node.name}` ({path})", node.span)  # its error is the `use`'s
        self.loading.add(path)
        try:
            program = parse_module(text, str(path), self.limits)
            compiler = ScriptCompiler(self.limits, self, text, str(path), path.parent, in_module=True)
            code, static = compiler.compile_program(program)
        except MechError as error:
            raise error.located(text, str(path))
        finally:
            self.loading.discard(path)
        info = ModuleInfo(node.name, path, code, static.names)
        self.compiled[path] = info
        return info

    @staticmethod
    def find(node: ast.Use, script_dir: Path, path: ModulePath | None = None) -> Path:
        """The resolved file of `use NAME` or `use "PATH"` in a file of the folder `script_dir`;
        a MechError if there is none, or if it is not one that `path` allows (without a
        `path`: modules of `script_dir` and the standard library only)."""
        path = path or ModulePath.of(script_dir)
        if node.path is not None:
            return _module_file(node, script_dir, path)
        for folder in (script_dir, *path.folders, STDLIB):
            found = (folder / f"{node.name}.mech").resolve()
            if found.is_file():
                if not path.allows(found) or found.suffix != ".mech":  # a link, to elsewhere or to another file
                    raise MechError(f"`use {node.name}`: {node.name}.mech in {folder} leads out of the folders "
                                    "modules are read from", node.span, hint=OUTSIDE_HINT)
                return found
        known = standard_modules()
        raise MechError(f"no module `{node.name}`", node.span,
                        hint=did_you_mean(node.name, module_names(script_dir, path.folders)) or
                        f"looked for {node.name}.mech beside the script, in the folders of --path and MECH_PATH "
                        "and in the standard library" + (f" ({', '.join(known)})" if known else ""))


def _module_file(node: ast.Use, script_dir: Path, path: ModulePath) -> Path:
    """The file of `use "PATH"`: relative to the folder of the file that says it, a .mech file, and
    never out of the folders `path` allows. Refused before anything is read, and without saying
    whether such a file exists."""
    written = node.path
    if Path(written).is_absolute() or Path(written).anchor:
        raise MechError(f'`use "{written}"`: a module\'s path is relative to the script\'s folder, never absolute',
                        node.span, hint="name its folder with --path DIR (or MECH_PATH) and write `use NAME`")
    found = (script_dir / written).resolve()
    if not path.allows(found):
        raise MechError(f'`use "{written}"` leads out of the folders modules are read from', node.span,
                        hint=OUTSIDE_HINT)
    if not written.endswith(".mech") or found.suffix != ".mech":  # a link to another file, too
        raise MechError(f'`use "{written}"`: only files ending in .mech are modules', node.span,
                        hint="a module is a mechscript file, NAME.mech")
    if not found.is_file():
        raise MechError(f"no module file `{written}` (looked in {script_dir})", node.span)
    return found


def read_source(path: Path, limits: Limits, what: str, span: Span | None = None) -> str:
    """The text of a script or module file (UTF-8; a byte-order mark is dropped). A MechError naming
    `what` if it cannot be read, or if it is over the `source_bytes` limit: found from its size
    before anything is read, and, for a file whose size says nothing (/proc) or that grows, by
    reading one byte more than the limit at most."""
    try:
        with open(path, "rb") as file:
            if os.fstat(file.fileno()).st_size > limits.source_bytes:
                raise source_too_big(what, limits, span)
            data = file.read(limits.source_bytes + 1)
    except OSError as error:
        raise MechError(f"cannot read {what}: {error.strerror or error}", span) from None
    return source_text(data, limits, what, span)


def source_text(data: bytes, limits: Limits, what: str, span: Span | None = None) -> str:
    """`data` read from a file or standard input, as text: UTF-8, a byte-order mark dropped, at most
    `source_bytes` bytes (`data` holds one byte more when there was more)."""
    if len(data) > limits.source_bytes:
        raise source_too_big(what, limits, span)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise MechError(f"cannot read {what}: it is not UTF-8 text (byte {error.start + 1})", span) from None


# Standard modules the rules modules share, not meant for scripts: `use` reads them, but neither
# completion nor a hint offers them.
INTERNAL_MODULES = frozenset({"fights"})


def standard_modules() -> list[str]:
    return sorted(path.stem for path in STDLIB.glob("*.mech") if path.stem not in INTERNAL_MODULES)


def module_names(folder: Path, folders=()) -> list[str]:
    """Every module `use NAME` finds from a script in `folder`: the .mech files beside it, in the
    user's `folders` and the standard modules."""
    return sorted({*standard_modules(), *(path.stem for where in (folder, *folders)
                                           for path in Path(where).glob("*.mech"))})


@functools.lru_cache(maxsize=32)
def parse_module(text: str, filename: str, limits: Limits) -> ast.Program:
    """A module's text parses the same every time: a process compiling many scripts that use the
    standard library (tests, the REPL, a batch) parses each module once. The AST is never changed
    after it is built."""
    return parse_program(text, filename, limits)


# ---- compiling ----

class ScriptCompiler(Compiler):
    """Compiles statements; the expression forms it shares with `mech roll` come from Compiler."""

    def __init__(self, limits: Limits, loader: ModuleLoader | None, source_text: str, filename: str, folder: Path,
                 record: bool = True, in_module: bool = False):
        super().__init__(limits, record)
        self.loader = loader
        self.source_text = source_text
        self.filename = filename
        self.folder = folder
        self.static = StaticScope(None)
        self.in_module = in_module
        self.encounters: list[tuple[str, Span]] = []  # the script's encounters: their names and where
        self.parameters: dict[str, dict] = {}  # each encounter's parameters and the values they are fought with

    # -- programs and blocks --

    def compile_program(self, program: ast.Program):
        """The closure running a whole script or module, and its top-level names."""
        uses = [s for s in program.statements if type(s) is ast.Use]
        for use in uses:
            info = self.loader.load(use, self.folder)
            self.static.declare(use.name, Binding("module", use.span, module=info))
            self.static.uses.append(info)
        body = self.compile_statements([s for s in program.statements if type(s) is not ast.Use])
        infos = list(self.static.uses)
        source_text, filename = self.source_text, self.filename
        declared = dict.fromkeys(self.static.names, UNSET)

        def run_program(ev: Run):
            scope = ev.scope
            scope.vars.update(declared)
            try:
                use_modules(ev, scope, infos)
                body(ev)
            except MechError as error:
                raise error.located(source_text, filename)
        return run_program, self.static

    def compile_statements(self, statements: list[ast.Node]):
        """Declares the block's names, defines its functions first, then runs the rest in order."""
        for statement in statements:
            kind = type(statement)
            if kind is ast.Use:
                raise MechError("`use` goes at the top level of a script", statement.span)
            if declared_name(statement) is None or kind is ast.KindDef:
                continue  # kinds are declared together below: one kind's gear may name a later one
            if kind is ast.FnDef:
                self._refuse_shadowing_a_rule(statement)
                self.static.declare(statement.name, Binding("fn", statement.name_span, statement.params))
            elif kind is ast.Let:
                self.static.declare(statement.name, Binding("let", statement.name_span))
            elif kind is ast.TableDef:
                self.static.declare(statement.name, Binding("table", statement.span))
            elif kind is ast.CharacterDef:
                self.static.declare(statement.name, Binding("character", statement.name_span))
        characters.declare_kinds(self.static, [s for s in statements if type(s) is ast.KindDef])
        for statement in statements:  # a character's kind known to the functions compiled before it (`make`)
            if type(statement) is ast.CharacterDef:
                characters.know_kind(self.static, statement)
        functions = [self.compile(s) for s in statements if type(s) is ast.FnDef]
        others = [self.compile(s) for s in statements if type(s) is not ast.FnDef]
        code = functions + others
        if len(code) == 1:
            return code[0]

        def statements_code(ev):
            for statement in code:
                returned = statement(ev)
                if returned is not None:
                    return returned
        return statements_code

    def _refuse_shadowing_a_rule(self, node: ast.FnDef) -> None:
        """A script's own `fn to_hit` beside `use pbem` would leave pbem's rule in force for pbem's
        own callers: almost always a house rule written the wrong way."""
        for module in self.static.uses:
            rule = module.exports.get(node.name)
            if rule is not None and rule.kind == "fn":
                raise MechError(f"`{node.name}` is a rule of module `{module.name}`", node.name_span,
                                hint=f"replace it for every caller with `fn {module.name}.{node.name}(...)`; "
                                     "for a function of your own, choose another name")

    def compile_Block(self, node: ast.Block):
        if self.loader is None:  # an expression alone (`mech roll`) has no statements to run
            raise MechError("a block of statements can only be used in a script", node.span,
                            hint="write it in a file and run it with `mech run FILE`")
        body, declared = self._block(node)
        if not declared:  # no scope of its own at run time (StaticScope.runtime)
            return body

        def scoped_block(ev):
            saved = ev.scope
            ev.scope = Scope(saved, declared.copy())
            try:
                return body(ev)
            finally:
                ev.scope = saved
        return scoped_block

    def _block(self, node: ast.Block, shares_parent: bool = False):
        """A block's code and the names it declares, each UNSET until its `let` runs."""
        outer = self.static
        self.static = StaticScope(outer, always=False, shares_parent=shares_parent)
        try:
            body = self.compile_statements(node.statements) if node.statements else (lambda ev: None)
            return body, dict.fromkeys(self.static.names, UNSET)
        finally:
            self.static = outer

    # -- statements --

    def compile_Let(self, node: ast.Let):
        value, name = self.compile(node.value), node.name

        def let(ev):
            ev.scope.vars[name] = value(ev)
        return let

    def compile_ExprStatement(self, node: ast.ExprStatement):
        expr = self.compile(node.expr)

        def expression_statement(ev):
            expr(ev)
        return expression_statement

    def compile_Say(self, node: ast.Say):
        value, span = self.compile(node.value), node.span
        # A quiet run still evaluates what the text shows, for the same dice, calls and errors.
        parts = [self.compile(part) for part in node.value.parts if type(part) is not str] \
            if type(node.value) is ast.String else [value]

        def say(ev):
            if len(ev.log) >= ev.limits.output_lines:
                raise too_many_lines(ev, span)
            if not ev.quiet:
                ev.log.append(_show(ev, value(ev), span))
                return
            for part in parts:
                shown = part(ev)
                if type(shown) is Pool:  # shown as it rolls, as _show does
                    ev.roll_pool(shown)
            ev.log.append("")
        return say

    def compile_Return(self, node: ast.Return):
        if not self.static.in_function:
            raise MechError("`return` outside a function", node.span,
                            hint="return gives a function's result; at the top level, use `say` to show a value")
        value = self.compile(node.value) if node.value is not None else (lambda ev: None)

        def return_(ev):
            return Returned(value(ev))
        return return_

    def compile_If(self, node: ast.If):
        branches = [(self.compile(condition), condition.span, self.compile(block)) for condition, block in node.branches]
        otherwise = self.compile(node.otherwise) if node.otherwise is not None else None

        def if_(ev):
            for condition, condition_span, block in branches:
                truth = condition(ev)
                if truth is True:
                    return block(ev)
                if truth is not False:
                    _truth(truth, condition_span)
            if otherwise is not None:
                return otherwise(ev)
        return if_

    def compile_While(self, node: ast.While):
        condition, condition_span, body, span = self.compile(node.condition), node.condition.span, self.compile(node.body), node.span

        def while_(ev):
            rounds = 0
            while _truth(condition(ev), condition_span):
                rounds = _loop_round(ev, rounds, span)
                returned = body(ev)
                if returned is not None:
                    return returned
        return while_

    def compile_Repeat(self, node: ast.Repeat):
        count_code = self.compile(node.count)
        body, span, count_span = self.compile(node.body), node.span, node.count.span

        def repeat(ev):
            count = repeat_count(ev, count_code(ev), count_span)
            rounds = 0
            for _ in range(count):
                rounds = _loop_round(ev, rounds, span)
                returned = body(ev)
                if returned is not None:
                    return returned
        return repeat

    def compile_For(self, node: ast.For):
        iterable, iterable_span = self.compile(node.iterable), node.iterable.span
        outer = self.static
        self.static = StaticScope(outer)
        self.static.declare(node.name, Binding("for", node.span))
        try:
            body = self.compile(node.body)
        finally:
            self.static = outer
        name, span = node.name, node.span

        def for_(ev):
            items = iterable(ev)
            if type(items) is not list:
                raise not_a_list(items, iterable_span)
            ev.steps += len(items)
            if ev.steps > ev.step_limit or len(items) > ev.limits.loop_iterations:
                for_too_long(ev, items, span)
            saved = ev.scope
            loop_scope = ev.scope = Scope(saved)
            variables = loop_scope.vars
            try:
                for item in list(items):
                    variables[name] = item
                    returned = body(ev)
                    if returned is not None:
                        return returned
            finally:
                ev.scope = saved
        return for_

    def compile_FnDef(self, node: ast.FnDef):
        if node.module is not None:
            return self._compile_override(node)
        function_code, frame = self._function_body(node)
        name, params = node.name, node.params

        def define(ev):
            ev.scope.vars[name] = Function(name, params, function_code, ev.scope, frame)
        return define

    def _function_body(self, node: ast.FnDef):
        """The code of a function's body as closures, and the names its block declares (Function.frame)."""
        outer = self.static
        self.static = StaticScope(outer, function=True)
        for param in node.params:
            self.static.declare(param, Binding("param", node.name_span))
        try:
            if node.line_form:
                body, frame = self.compile(node.body), {}
            else:
                body, frame = self._block(node.body, shares_parent=True)
        finally:
            self.static = outer
        source_text, filename = self.source_text, self.filename
        if node.line_form:
            def located_expression(ev):
                try:
                    return body(ev)
                except MechError as error:
                    raise error.located(source_text, filename)
            return located_expression, frame

        def located_block(ev):
            try:
                returned = body(ev)
            except MechError as error:
                raise error.located(source_text, filename)
            return None if returned is None else returned.value
        return located_block, frame

    def _compile_override(self, node: ast.FnDef):
        """`fn pbem.to_hit(att, def) = ...`: a house rule replacing a module's rule everywhere."""
        if self.static.parent is not None:
            raise MechError("a module's rule is replaced at the top level of a script", node.span)
        binding = self.static.names.get(node.module)
        if binding is None or binding.kind != "module":
            raise MechError(f"`{node.module}` is not a module this script uses", node.span,
                            hint=f"add `use {node.module}` at the top of the script")
        rule = binding.module.exports.get(node.name)
        if rule is None or rule.kind != "fn":
            functions = [n for n, b in binding.module.exports.items() if b.kind == "fn"]
            raise MechError(f"module `{node.module}` has no rule `{node.name}` to replace", node.name_span,
                            hint=did_you_mean(node.name, functions))
        if len(rule.params) != len(node.params):
            raise MechError(f"`{node.module}.{node.name}` takes {_count(len(rule.params), 'argument')}; "
                            f"its replacement must too, not {len(node.params)}", node.name_span,
                            hint=f"fn {node.module}.{node.name}({', '.join(rule.params)})")
        function_code, frame = self._function_body(node)
        module_name, name, params = node.module, node.name, node.params

        def override(ev):
            module = ev.scope.vars[module_name]
            module.scope.vars[name] = Function(f"{module_name}.{name}", params, function_code, ev.scope, frame)
        return override

    def compile_TableDef(self, node: ast.TableDef):
        rows = []
        for row in node.rows:
            entries = [(self.compile(key) if key is not None else None, self.compile(value)) for key, value in row.entries]
            rows.append((row.name, entries))
        name = node.name

        def table(ev):
            built = {}
            for row_name, entries in rows:
                pairs, default, has_default = [], None, False
                for key, value in entries:
                    if key is None:
                        default, has_default = value(ev), True
                    else:
                        pairs.append((plain_key(key(ev)), value(ev)))
                label = f"{name}.{row_name}" if row_name else name
                built[row_name] = TableRow(label, pairs, default, has_default)
            ev.scope.vars[name] = Table(name, built)
        return table

    def compile_KindDef(self, node: ast.KindDef):
        return characters.compile_kind(self, node)

    def compile_CharacterDef(self, node: ast.CharacterDef):
        return characters.compile_character(self, node)

    def compile_EncounterDef(self, node: ast.EncounterDef):
        return characters.compile_encounter(self, node)

    def compile_Assign(self, node: ast.Assign):
        """`x = v`, `rec.field = v`, `list[i] = v`; `x += v` reads and writes the same place,
        evaluating its parts (`list[d3]`) once."""
        target, op = node.target, node.op
        value = self.compile(node.value)
        if op == "=":
            update = None
        else:
            operator = op[0]

            def update(ev, old):
                return binary(ev, operator, old, value(ev), node)
        if type(target) is ast.Name:
            return self._assign_name(target, value, update, node.value.span)
        holder = self.compile(target.target)
        if type(target) is ast.Field:
            option = self._check_module_field(target, assigning=True) is not None and self._sets_options
            field, field_span, value_span = target.name, target.name_span, node.value.span

            def assign_field(ev):
                place = holder(ev)
                new = value(ev) if update is None else update(ev, _get_field(place, field, field_span, ev))
                if option:
                    characters.check_option(ev, place.scope, field, new, value_span)
                _set_field(place, field, new, field_span)
            return assign_field
        key, key_span = self.compile(target.key), target.key.span

        def assign_index(ev):
            place, at = holder(ev), key(ev)
            new = value(ev) if update is None else update(ev, get_index(ev, place, at, key_span))
            _set_index(ev, place, at, new, key_span)
        return assign_index

    @property
    def _sets_options(self) -> bool:
        """Whether an assignment here to a used module's option is checked against its `choices` as
        it is made: at the script's top level, which runs before any fight (in a function, a fight
        may set an option for a while; the encounter checks what the options are when it starts)."""
        return not self.in_module and not self.static.in_function

    def _assign_name(self, target: ast.Name, value, update, value_span: Span):
        found = self.static.locate(target.id, target.span)
        if found is None:
            raise MechError(f"unknown name `{target.id}`", target.span,
                            hint=f"declare it first: `let {target.id} = ...`")
        binding, hops, module = found
        if binding.kind not in ("let", "param", "for"):
            raise MechError(f"`{target.id}` is a {KIND_WORDS[binding.kind]} and cannot be assigned to", target.span)
        name, name_span, option = target.id, target.span, module is not None and self._sets_options

        def assign_name(ev):
            scope = _holder(ev, hops, module)  # a used module's option (`tie = ...`) lives in its scope
            if scope.vars[name] is UNSET:
                raise unset(name, name_span)
            new = value(ev) if update is None else update(ev, scope.vars[name])
            if option:
                characters.check_option(ev, scope, name, new, value_span)
            scope.vars[name] = new
        return assign_name

    # -- expressions that need names --

    def compile_Name(self, node: ast.Name):
        if self.static.resolve(node.id, node.span) is None:
            if node.id in CONSTANTS or node.id in BUILTINS:
                return super().compile_Name(node)
            raise MechError(f"unknown name `{node.id}`", node.span,
                            hint=did_you_mean(node.id, self.static.visible() | set(CONSTANTS) | set(BUILTINS)))
        _, hops, module = self.static.locate(node.id, node.span)
        return _loader(hops, module, node.id, node.span)

    def compile_Call(self, node: ast.Call):
        callee = node.callee
        if type(callee) is ast.Name:
            binding = self.static.resolve(callee.id, callee.span)
            if binding is None and callee.id in NOT_ROLLED:
                return compile_call(self, node)
            if binding is None and callee.id in BUILTINS:
                if callee.id == "make":
                    characters.check_make(self.static, node)
                return self.compile_builtin_call(BUILTINS[callee.id], node)
            if binding is None:
                raise MechError(f"unknown function `{callee.id}`", callee.span,
                                hint=did_you_mean(callee.id, self.static.visible() | set(BUILTINS)))
            self._check_arity(callee.id, binding, node)
        elif type(callee) is ast.Field:
            rule = self._check_module_field(callee)
            if rule is not None:
                self._check_arity(f"{callee.target.id}.{callee.name}", rule, node)
        if node.kwargs:
            key = next(iter(node.kwargs))
            raise MechError(f"functions written in mechscript take no named options (`{key}:`)", node.kwargs[key].span)
        function_code = self.compile(callee)
        args = [self.compile(arg) for arg in node.args]
        span, callee_span = node.span, callee.span

        def callee_of(ev) -> Function:
            function = function_code(ev)
            if type(function) is not Function:
                raise not_callable(function, callee_span)
            return function

        # The usual numbers of arguments spelled out: a list comprehension costs a call of its own.
        if len(args) == 1:
            first, = args
            return lambda ev: call_function(ev, callee_of(ev), [first(ev)], span)
        if len(args) == 2:
            first, second = args
            return lambda ev: call_function(ev, callee_of(ev), [first(ev), second(ev)], span)
        return lambda ev: call_function(ev, callee_of(ev), [arg(ev) for arg in args], span)

    def _check_arity(self, name: str, binding: Binding, node: ast.Call) -> None:
        if binding.kind == "fn" and len(binding.params) != len(node.args):
            raise MechError(f"`{name}` takes {_count(len(binding.params), 'argument')}, not {len(node.args)}",
                            node.span, hint=f"fn {name.rsplit('.', 1)[-1]}({', '.join(binding.params)})")
        if binding.kind in ("table", "module"):
            raise MechError(f"`{name}` is a {KIND_WORDS[binding.kind]}, not a function", node.callee.span)

    def _check_module_field(self, node: ast.Field, assigning: bool = False) -> Binding | None:
        """`pbem.to_hit`: checked now when `pbem` is a module."""
        if type(node.target) is not ast.Name:
            return None
        binding = self.static.resolve(node.target.id, node.target.span)
        if binding is None or binding.kind != "module":
            return None
        rule = binding.module.exports.get(node.name)
        if rule is None:
            raise MechError(f"module `{node.target.id}` has no `{node.name}`", node.name_span,
                            hint=did_you_mean(node.name, binding.module.exports))
        if assigning and rule.kind != "let":
            raise MechError(f"`{node.target.id}.{node.name}` is a {KIND_WORDS[rule.kind]} and cannot be assigned to",
                            node.name_span, hint=f"replace a rule with `fn {node.target.id}.{node.name}(...) = ...`"
                            if rule.kind == "fn" else None)
        return rule

    def compile_Field(self, node: ast.Field):
        self._check_module_field(node)
        target, name, span = self.compile(node.target), node.name, node.name_span
        local = self._local_name(node.target)

        def field(ev):
            value = target(ev) if local is None else ev.scope.vars[local]
            if value is UNSET:
                target(ev)  # its error
            kind = type(value)
            if kind is Character:  # the common cases: a stat or state that is not a list, ...
                found = value.fields.get(name, UNSET)
                if found is UNSET:
                    if name == "side":
                        return value.side
                elif type(found) is not list:
                    return found
            elif kind is Record:  # ... and a record's field
                found = value.fields.get(name, UNSET)
                if found is not UNSET:
                    return found
            return _get_field(value, name, span, ev)
        return field

    def _local_name(self, node: ast.Node) -> str | None:
        """The name, if `node` is a name of the innermost runtime scope (a parameter, say): a field
        of it reads the scope's dictionary itself rather than calling the name's loader."""
        if type(node) is not ast.Name:
            return None
        found = self.static.locate(node.id, node.span)
        return node.id if found is not None and found[1] == 0 and found[2] is None else None

    def compile_Index(self, node: ast.Index):
        target, key, span = self.compile(node.target), self.compile(node.key), node.key.span
        return lambda ev: get_index(ev, target(ev), key(ev), span)

    def compile_String(self, node: ast.String):
        parts = [part if type(part) is str else self.compile(part) for part in node.parts]
        if len(parts) == 1 and type(parts[0]) is str:
            text = parts[0]
            return lambda ev: text
        span = node.span

        def interpolate(ev):
            text = "".join(part if type(part) is str else _show(ev, part(ev), span) for part in parts)
            if len(text) > ev.limits.string_size:
                raise too_long(ev, text, span)
            return text
        return interpolate

    def compile_Record(self, node: ast.Record):
        fields = [(name, self.compile(value)) for name, value in node.fields]
        return lambda ev: Record({name: value(ev) for name, value in fields})

    def compile_Logic(self, node: ast.Logic):
        left, right = self.compile(node.left), self.compile(node.right)
        left_span, right_span = node.left.span, node.right.span
        stop, go = (False, True) if node.op == "and" else (True, False)  # what ends it at once, what goes on

        def logic(ev):
            a = left(ev)
            if a is stop:
                return stop
            if a is not go:
                _truth(a, left_span)
            b = right(ev)
            return b if type(b) is bool else _truth(b, right_span)
        return logic

    def compile_Not(self, node: ast.Not):
        operand, span = self.compile(node.operand), node.operand.span
        return lambda ev: not _truth(operand(ev), span)

    def compile_Match(self, node: ast.Match):
        subject = self.compile(node.subject)
        arms = []
        for arm in node.arms:
            patterns = [self.compile(p) for p in arm.patterns] if arm.patterns is not None else None
            arms.append((patterns, self.compile(arm.body), type(arm.body) is ast.Block))
        span = node.span

        def match(ev):
            value = subject(ev)
            for patterns, body, is_block in arms:
                if patterns is None or any(equal(value, pattern(ev), ev) for pattern in patterns):
                    result = body(ev)
                    if not is_block:
                        return result
                    if result is not None:  # a `return` ran in the arm's block
                        raise ReturnSignal(result.value)
                    return None
            raise no_arm(value, span)
        return match


def _holder(ev: Run, hops: int, module: int | None) -> Scope:
    """The runtime scope holding a name `hops` scopes up (StaticScope.locate), or the scope of the
    `module`-th module used there."""
    scope = ev.scope
    for _ in range(hops):
        scope = scope.parent
    return scope if module is None else scope.uses[module].scope


def _loader(hops: int, module: int | None, name: str, span: Span):
    """The code reading a name; the two commonest places, this scope and the one above, without a loop,
    and a name of the script's own scopes without a call."""
    if module is None and hops == 0:
        def load_here(ev):
            value = ev.scope.vars[name]
            if value is UNSET:
                raise unset(name, span)
            return value
        return load_here
    if module is None and hops == 1:
        def load_outer(ev):
            value = ev.scope.parent.vars[name]
            if value is UNSET:
                raise unset(name, span)
            return value
        return load_outer
    if module is None:
        def load(ev):
            scope = ev.scope
            for _ in range(hops):
                scope = scope.parent
            value = scope.vars[name]
            if value is UNSET:
                raise unset(name, span)
            return value
        return load

    def load_used(ev):
        value = _holder(ev, hops, module).vars.get(name, UNSET)
        if value is UNSET:
            raise unset(name, span)
        return value
    return load_used


# The statements besides `use` that declare a name in their block (a `fn` of its own, not a module's rule).
_DECLARING = (ast.Let, ast.TableDef, ast.CharacterDef, ast.KindDef, ast.FnDef)


def declared_name(statement) -> str | None:
    """The name a statement declares in its block, if it declares one."""
    if type(statement) not in _DECLARING or type(statement) is ast.FnDef and statement.module is not None:
        return None
    return statement.name


def use_modules(ev: Run, scope, infos: list[ModuleInfo]) -> None:
    """Runs the used modules' top levels (once per run) and puts them in `scope` under their names."""
    modules = tuple(_instantiate(ev, info) for info in infos)
    scope.uses = modules
    for module in modules:
        scope.vars[module.name] = module


def _instantiate(ev: Run, info: ModuleInfo) -> Module:
    """A module's top level runs once per run, in a scope of its own."""
    key = str(info.path)
    module = ev.modules.get(key)
    if module is None:
        scope = Scope(None)
        module = ev.modules[key] = Module(info.name, scope)
        saved = ev.scope
        ev.scope = scope
        try:
            info.code(ev)
        finally:
            ev.scope = saved
    return module


SHOWN_WHOLE = 10 ** 15  # whole numbers below this size are shown with str(), at once


def _show(ev: Run, value, span: Span) -> str:
    """What `say` and "{...}" show: a pool is rolled (as `mech roll` rolls a pool left standing);
    the text may not outgrow `string_size` (a list holding itself, or shared many times)."""
    kind = type(value)
    if kind is str:
        if len(value) >= 100:
            ev.step(span, len(value) // 100)
        return value
    if kind is int and -SHOWN_WHOLE < value < SHOWN_WHOLE:
        return str(value)
    if kind is Pool:
        value = ev.roll_pool(value)
    try:
        text = format_value(value, ev.limits)
    except MechError as error:
        error.span = error.span or span
        raise
    ev.step(span, len(text) // 100)
    return text


def _truth(value, span: Span) -> bool:
    if type(value) is not bool:
        raise MechError(f"expected true or false here, not {type_name(value)}", span,
                        hint="compare to get true or false: `hp > 0`, `roll == 10`")
    return value


def _loop_round(ev: Run, rounds: int, span: Span) -> int:
    rounds += 1
    if rounds > ev.limits.loop_iterations:
        raise limit_error("loop_iterations", f"this loop ran more than {ev.limits.loop_iterations} rounds",
                          ev.limits.loop_iterations, span)
    ev.step(span)
    return rounds


def _get_field(value, name: str, span: Span, ev=None):
    kind = type(value)
    if kind is Character or kind is Encounter:
        return characters.get_field(value, name, span, ev)
    if kind is Record:
        if name in value.fields:
            return value.fields[name]
        raise MechError(f"this record has no field `{name}`", span, hint=did_you_mean(name, field_names(value)))
    if kind is Module:
        if name in value.scope.vars:
            return value.scope.vars[name]
        raise MechError(f"module `{value.name}` has no `{name}`", span, hint=did_you_mean(name, field_names(value)))
    if kind is Table:
        if name in value.rows:
            return value.rows[name]
        raise MechError(f"table `{value.name}` has no row `{name}`", span, hint=did_you_mean(name, field_names(value)))
    if kind is DiceRoll or kind is KeepRoll:
        if name in ROLL_FIELDS:
            return _roll_field(value, name)
        raise MechError(f"a roll has no field `{name}`", span,
                        hint=did_you_mean(name, ROLL_FIELDS) or "a roll has: " + ", ".join(ROLL_FIELDS))
    if kind is Pool and name in ("rolled", "kept", "bonus", "notation"):
        return value.notation if name == "notation" else \
            normal({"rolled": value.unkept, "kept": value.kept, "bonus": value.flat}[name])
    raise MechError(f"{type_name(value)} has no fields (looking for `{name}`)", span)


def _roll_field(roll, name: str):
    """A roll's parts: `faces` every die that stands (in the order they fell; roll-and-keep: highest
    first), `kept` the dice that count, `dropped` the dice that do not."""
    if name == "total":
        return roll.total
    if type(roll) is KeepRoll:
        return {"faces": roll.kept + roll.dropped, "kept": list(roll.kept), "dropped": list(roll.dropped)}[name]
    flags = roll.flags or [0] * len(roll.values)
    standing = [(v, f) for v, f in zip(roll.values, flags) if not f & REROLLED]
    if name == "faces":
        return [v for v, _ in standing]
    if name == "kept":
        return [v for v, f in standing if not f & DROPPED]
    return [v for v, f in standing if f & DROPPED]


def _set_field(value, name: str, new, span: Span) -> None:
    if type(value) is Record:
        if name not in value.fields:
            raise MechError(f"this record has no field `{name}`", span, hint=did_you_mean(name, value.fields))
        value.fields[name] = new
        return
    if type(value) is Module:
        value.scope.vars[name] = new
        return
    if type(value) is Character or type(value) is Encounter:
        characters.set_field(value, name, new, span)
        return
    raise MechError(f"cannot set a field of {type_name(value)}", span)


def _set_index(ev: Run, value, key, new, span: Span) -> None:
    if type(value) is list:
        value[list_position(value, key, span)] = new
        return
    if type(value) in (Record, Character) and type(key) is str:
        _set_field(value, key, new, span)
        return
    raise MechError(f"cannot set an element of {type_name(value)}", span)


# ---- whole scripts, and expressions alone ----

def compile_expression(node: ast.Node, limits: Limits, record: bool = True):
    """An expression on its own (`mech roll`): the closure computing its value; no names but the
    builtins. A pool left standing is the caller's to roll.

    With `record` off (sampling: totals only, nothing shown), a plain `NdS` term gives its total
    as a number instead of a DiceRoll; every result is the same."""
    return ScriptCompiler(limits, None, "", "<expr>", Path.cwd(), record).compile(node)


class Script:
    """A compiled script, ready to run any number of times. `code(ev)` runs its top level and leaves
    in `ev.encounter` the encounter to fight: the one chosen (`choose`), or the only one."""

    def __init__(self, code, filename: str, source_text: str, limits: Limits, folder: Path, module_path=(),
                 encounters=(), parameters=None):
        self.filename, self.source_text, self.limits = filename, source_text, limits
        self.folder = folder  # where its `use` looks first
        self.module_path = tuple(module_path)  # the user's folders of modules (`--path`), where `use` looks next
        self.encounters = list(encounters)  # (name, span) of each encounter it declares
        self.parameters = dict(parameters or {})  # encounter name -> {parameter: the value it is fought with}
        self.program: ast.Program | None = None  # the program compiled, when it is not the text's (compile_script)
        # the text's program, as parsed to compile it: `mech check` and the quiet back end read it
        # again, and a huge text is not in the parse cache (a 1 MB script parsed twice, issue 22)
        self.parsed: ast.Program | None = None
        self.encounter: str | None = self.encounters[0][0] if len(self.encounters) == 1 else None

        def top_level(ev: Run) -> None:
            code(ev)
            # without the names (a Script made by hand), the only encounter declared is fought
            only = next(iter(ev.encounters.values())) if len(ev.encounters) == 1 else None
            ev.encounter = ev.encounters.get(self.encounter) if self.encounter is not None else only
        self.code = top_level

    def choose(self, name: str | None) -> "Script":
        """Fight the encounter named `name` (None: the only one, or none when there is none). A
        MechError placed at the script's encounters when there is no such one, or when there are
        several and none is named."""
        names = [title for title, _ in self.encounters]
        if name is None:
            if len(names) > 1:
                message, hint = several_encounters(names, "script", "--encounter")
                raise self._at_encounter(message, self.encounters[1][1], hint + " (Python: encounter=NAME)")
            return self
        if name not in names:
            message, hint, close = unknown_encounter(name, names, "--encounter")
            if not names:
                raise MechError(message, hint=hint).located(self.source_text, self.filename)
            raise self._at_encounter(message, dict(self.encounters)[close or names[0]], hint)
        self.encounter = name
        return self

    def chosen_parameters(self) -> dict:
        """The parameters of the encounter fought and their values (its defaults, or `--set`'s): empty
        for an encounter without parameters."""
        return self.parameters.get(self.encounter, {}) if self.encounter is not None else {}

    def _at_encounter(self, message: str, span: Span, hint: str) -> MechError:
        return MechError(message, span, hint=hint).located(self.source_text, self.filename)

    def run(self, source: FaceSource, quiet: bool = False) -> Run:
        """One run; a `quiet` one keeps no text of what the script says (its log holds empty lines)."""
        if self.encounter is None and self.encounters:
            self.choose(None)  # several encounters, none chosen: the error saying which there are
        ev = Run(source, self.limits, quiet)
        ev.scope = Scope(None)
        try:
            with CpuTime(self.limits, ev):
                self.code(ev)
                if ev.encounter is not None:
                    ev.result = characters.fight(ev, ev.encounter)
        except MechError as error:
            error.located(self.source_text, self.filename)
            error.log = ev.log  # what was said before the error
            raise
        except RecursionError:
            raise too_deep().located(self.source_text, self.filename) from None
        return ev


def several_encounters(names: list[str], holder: str, option: str) -> tuple[str, str]:
    """The message and hint when a script (or session) has several encounters and none is named."""
    return (f"this {holder} has {len(names)} encounters; say which one to fight",
            "choose one with " + ", ".join(f"{option} {quoted(n)}" for n in names))


def unknown_encounter(name: str, names: list[str], option: str) -> tuple[str, str, str | None]:
    """The message and hint when `name` is none of the encounters `names`, and the closest of them."""
    if not names:
        return (f"there is no encounter named \"{name}\": the script declares none",
                f"{option} chooses among the encounters a script declares", None)
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6) or [n for n in names if n.lower() == name.lower()]
    if close:
        return f"there is no encounter named \"{name}\"", f"did you mean {option} {quoted(close[0])}?", close[0]
    return (f"there is no encounter named \"{name}\"",
            "the encounters: " + ", ".join(quoted(n) for n in names), None)


def compile_script(source_text: str, filename: str, folder: Path, limits: Limits, module_path=(),
                   program: ast.Program | None = None) -> Script:
    """Parse and check a script (and the modules it uses). Raises MechError. `use` reads modules
    from `folder` (the script's) and its subfolders, the folders of `module_path` and the standard
    library. `program`: the script's text already parsed and changed (a sweep's value, a house
    rule: sim/variants.py), compiled instead of the text, which its spans still point into."""
    changed = program
    program = program or parse_program(source_text, filename, limits)
    loader = ModuleLoader(limits, ModulePath.of(folder, module_path))
    compiler = ScriptCompiler(limits, loader, source_text, filename, folder)
    try:
        with quick_collector():  # as parsing: a big script's objects are all alive while it is compiled
            code, _ = compiler.compile_program(program)
    except MechError as error:
        raise error.located(source_text, filename) from None
    except RecursionError:
        raise too_deep().located(source_text, filename) from None
    script = Script(code, filename, source_text, limits, folder, module_path, compiler.encounters,
                    compiler.parameters)
    script.program = changed  # what the back end writes instead of the text, when changed
    script.parsed = program if changed is None else None
    return script


def text_program(script: Script) -> ast.Program:
    """The program of the script's text: the one compiled, or the text parsed again when a changed
    program was compiled instead (a sweep's value)."""
    if script.parsed is not None:
        return script.parsed
    return parse_program(script.source_text, script.filename, script.limits)


def quoted(name: str) -> str:
    """An encounter's name as typed after `--encounter`: in double quotes unless it is one plain word."""
    if name and all(c.isalnum() or c in "_-." for c in name):
        return name
    return '"' + re.sub(r'(["\\$`])', r"\\\1", name) + '"'


# The operations on values that written Python (backend/) calls: the closures' own, by public names.
get_field, set_field, set_index, show = _get_field, _set_field, _set_index, _show
