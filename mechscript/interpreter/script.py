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

from ..dice.faces import FaceSource
from . import ast
from ..errors import MechError, Span, did_you_mean
from ..limits import CpuTime, Limits, source_too_big, too_deep
from .names import UNSET, Binding, ModuleInfo, StaticScope
from .parser import parse_program, quick_collector
from . import characters
from .running import Run
from .compile_statements import StatementCompiler
from .compile_names import NameCompiler
from .values import Module, Scope

STDLIB = Path(__file__).resolve().parent.parent / "stdlib"

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
        info = ModuleInfo(node.name, path, code, static.names, program)
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

class ScriptCompiler(StatementCompiler, NameCompiler):
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
        # the trees of the modules it uses, by file (str of the path): the very ones it runs, which
        # the quiet back end writes (a file edited since, or read another way, is not what runs)
        self.modules: dict[str, ast.Program] = {}
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
    script.modules = {str(info.path): info.program for info in loader.compiled.values()}
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
