"""A persistent session: what the REPL types in, entry after entry.

Each entry is parsed as a little program and compiled against the session's one top static scope,
then run in the session's one top runtime scope (the same pairing a script's top level has), so
`let`, `fn`, `use`, `table`, `kind` and `character` stay for the entries after it. Declaring a name
again in a later entry replaces it, as a user expects at a prompt; within one entry a name is still
declared once. An entry that fails to compile leaves the session as it was.

The limits count per entry: a runaway loop at the prompt stops with the limit's error and the
session goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..dice.faces import RandomFaces
from ..dice.rollkeep import Pool
from . import ast, characters, encounter_params
from .encounter_params import literal, plain_value, written
from ..errors import MechError
from ..limits import CpuTime, Limits, too_deep
from .names import UNSET, Binding, StaticScope
from .parser import parse_program
from .running import Run
from .script import ModuleLoader, ModulePath, ScriptCompiler, declared_name, use_modules
from .values import Character, Encounter, Record, Scope, record_of

ENTRY_FILE = "<repl>"
LAST = "_"  # the name of the last value shown
_LAST_BINDING = Binding("let", None)


@dataclass
class Shown:
    """The value of an expression typed at the prompt, with the rolls it made itself (rolls made
    inside functions it called point into other entries' text, so they are left out)."""

    source: str        # the entry's text, blanked outside the expression: offsets stay those of the entry
    value: object
    rolls: list


@dataclass
class Entry:
    """What an entry gave, in order: lines it said (str) and values shown (Shown); and its error."""

    output: list = field(default_factory=list)
    error: MechError | None = None


class _SessionCompiler(ScriptCompiler):
    """A ScriptCompiler whose top-level expression statements keep their values to be shown."""

    echo = False  # whether this entry's top-level expressions are shown (typed at the prompt: yes)

    def compile_ExprStatement(self, node: ast.ExprStatement):
        if not self.echo or self.static.parent is not None:
            return super().compile_ExprStatement(node)
        expr, span, source = self.compile(node.expr), node.span, self.source_text
        blanked = "".join(c if c == "\n" else " " for c in source[:span.start]) + source[span.start:span.end]
        own = {id(part.span) for part in ast.walk(node)}  # a roll made by the expression carries one

        def show(ev: SessionRun):
            first = len(ev.rolls)
            value = expr(ev)
            if type(value) is Pool:  # a pool left standing is rolled, as `mech roll` does
                value = ev.roll_pool(value)
            rolls = [roll for roll in ev.rolls[first:] if id(roll.span) in own]
            ev.shown.append((len(ev.log), Shown(blanked, value, rolls)))
        return show


class SessionRun(Run):
    """The session's run: one face source, one top scope, the modules used, for every entry."""

    __slots__ = ("shown",)

    def __init__(self, source, limits: Limits):
        super().__init__(source, limits)
        self.shown: list = []  # (lines said before it, Shown) of the entry being run


class Session:
    def __init__(self, seed: int, limits: Limits = Limits(), folder: Path | None = None, module_path=()):
        self.limits = limits
        self.folder = folder or Path.cwd()
        self.module_path = ModulePath.of(self.folder, module_path)  # where `use` reads, from the session's folder
        self.seed = seed
        loader = ModuleLoader(limits, path=self.module_path)
        self.compiler = _SessionCompiler(limits, loader, "", ENTRY_FILE, self.folder)
        self.static: StaticScope = self.compiler.static  # the one top static scope...
        self.run = SessionRun(RandomFaces(seed), limits)
        self.scope = self.run.scope = Scope(None)        # ...and its one runtime scope
        # each encounter's declaration as compiled, with its entry's text and name: `:run --set` runs it again
        self.declarations: dict[str, tuple[ast.EncounterDef, str, str]] = {}

    # -- what the session holds --

    @property
    def modules(self) -> list[str]:
        return [info.name for info in self.static.uses]

    def names(self) -> set[str]:
        """Every name an entry can use now (besides the built-ins)."""
        return self.static.visible()

    def value(self, name: str):
        """The value of a name in scope, or None when it has none (yet)."""
        scope = self.scope.find(name)
        value = scope.vars[name] if scope is not None else None
        return None if value is UNSET else value

    def reseed(self, seed: int) -> None:
        """`:seed N`: the dice from here on are those of seed N (the first roll is `mech roll --seed N`'s)."""
        self.seed = seed
        self.run.source = RandomFaces(seed)

    # -- entries --

    def enter(self, text: str, filename: str = ENTRY_FILE, folder: Path | None = None, echo: bool = True) -> Entry:
        """Compile and run one entry; an error is returned in the Entry, never raised."""
        entry = Entry()
        try:
            code = self._compile(text, filename, folder or self.folder, echo)
        except (MechError, RecursionError) as error:
            entry.error = _located(error, text, filename)
            return entry
        ev = self._fresh_limits()
        try:
            with CpuTime(self.limits, ev):
                code(ev)
        except (MechError, RecursionError) as error:
            entry.error = _located(error, text, filename)
        finally:
            ev.scope, ev.depth = self.scope, 0  # even after Ctrl-C in the middle of a function
            entry.output = _in_order(ev.log, ev.shown)
            self._keep_last(ev.shown)
        return entry

    def _keep_last(self, shown: list) -> None:
        """`_` is the last value shown (none is not shown, so it does not change `_`), as in Python's
        REPL; a name `_` the user defines hides it until the session is reset."""
        values = [item.value for _, item in shown if item.value is not None]
        binding = self.static.names.get(LAST)
        if not values or binding is not None and binding is not _LAST_BINDING:
            return
        if binding is None:
            self.static.names[LAST] = _LAST_BINDING
        self.scope.vars[LAST] = values[-1]

    def _fresh_limits(self) -> SessionRun:
        """Limits count per entry: steps, dice, output lines (and CPU time: CpuTime around each)."""
        ev = self.run
        ev.steps = ev.dice = 0
        ev.rolls, ev.log, ev.shown = [], [], []
        return ev

    def _compile(self, text: str, filename: str, folder: Path, echo: bool):
        program = parse_program(text, filename, self.limits)
        compiler, static = self.compiler, self.static
        saved = dict(static.names), list(static.uses)
        compiler.source_text, compiler.filename, compiler.folder, compiler.echo = text, filename, folder, echo
        # a script `:load`ed from elsewhere reads the modules of its own folder, as `mech run` would
        compiler.loader.path = ModulePath.of(folder, self.module_path.folders)
        compiler.encounters = []  # an encounter declared again under its name replaces the session's
        uses = [s for s in program.statements if type(s) is ast.Use]
        others = [s for s in program.statements if type(s) is not ast.Use]
        try:
            for use in uses:
                self._use(use, folder)
            for statement in others:  # declared again: the new declaration replaces the old
                name = declared_name(statement)
                if name is not None and name in static.names and static.names[name].kind != "module":
                    del static.names[name]
            body = compiler.compile_statements(others) if others else (lambda ev: None)
        except BaseException:
            static.names.clear()
            static.names.update(saved[0])
            static.uses[:] = saved[1]
            raise
        for statement in others:
            if type(statement) is ast.EncounterDef:
                self.declarations[statement.title] = (statement, text, filename)
        declared = [name for name in static.names if name not in saved[0] or static.names[name] is not saved[0][name]]
        infos, scope = list(static.uses), self.scope

        def run_entry(ev: SessionRun):
            for name in declared:
                scope.vars.setdefault(name, UNSET)
            use_modules(ev, scope, infos)
            body(ev)
        return run_entry

    def _use(self, node: ast.Use, folder: Path) -> None:
        info = self.compiler.loader.load(node, folder)
        old = self.static.names.get(node.name)
        if old is not None and old.kind == "module" and old.module.path == info.path:
            return  # already in use
        if old is not None:
            del self.static.names[node.name]
        self.static.declare(node.name, Binding("module", node.span, module=info))
        # a module replaced keeps its place: code compiled before reads used modules by their place
        places = [i for i, used in enumerate(self.static.uses) if used.name == node.name]
        if places:
            self.static.uses[places[0]] = info
        else:
            self.static.uses.append(info)

    # -- the session's encounter --

    @property
    def encounters(self) -> dict[str, Encounter]:
        """The session's encounters by name, in the order they were first declared."""
        return self.run.encounters

    def _declared_with(self, ev: SessionRun, name: str, given: dict) -> Encounter:
        """The encounter `name` as its declaration makes it with the parameters `given`."""
        node, text, filename = self.declarations[name]
        for param, value in given.items():
            node = encounter_params.given(node, param, literal(value), f":run --set {param}={written(value)}")
        compiler = self.compiler
        saved = compiler.source_text, compiler.filename, compiler.encounters, compiler.echo
        compiler.source_text, compiler.filename, compiler.encounters, compiler.echo = text, filename, [], False
        try:
            code = compiler.compile(node)
        finally:
            compiler.source_text, compiler.filename, compiler.encounters, compiler.echo = saved
        kept = self.run.encounters[name]
        try:
            code(ev)
            return self.run.encounters[name]
        finally:
            self.run.encounters[name] = kept  # the session's own stays as declared

    def parameters(self, name: str) -> dict:
        """The parameters of the session's encounter `name` and their defaults."""
        node = self.declarations[name][0] if name in self.declarations else None
        return {param: plain_value(default) for param, _, default in node.params} if node is not None else {}

    def fight(self, name: str, given: dict | None = None) -> tuple[list[str], dict | None, MechError | None]:
        """`:run`: fights the session's encounter `name` on copies of its characters, so the
        characters stay as declared and the fight can be fought again. (log, result, error).
        `given` (`:run --set count=4`): values of its parameters (checked by the caller), for which
        its declaration runs again, reading the session's names as they are now."""
        declared = self.run.encounters[name]
        ev = self._fresh_limits()
        result, error = None, None
        try:
            with CpuTime(self.limits, ev):
                if given:
                    declared = self._declared_with(ev, name, given)
                ev.result = result = characters.fight(ev, _copy_encounter(declared))
        except (MechError, RecursionError) as error_:
            error = _located(error_, *declared.source)
        finally:
            ev.scope, ev.depth = self.scope, 0
        return ev.log, result, error


def _located(error: MechError | RecursionError, text: str, filename: str) -> MechError:
    """The error of an entry, placed in its text (Python's stack running out: the limit's error)."""
    return (error if isinstance(error, MechError) else too_deep()).located(text, filename)


def _in_order(log: list[str], shown: list) -> list:
    """Said lines and shown values merged in the order they happened."""
    out, said = [], 0
    for before, item in shown:
        out.extend(log[said:before])
        said = before
        out.append(item)
    out.extend(log[said:])
    return out


def _copy_encounter(encounter: Encounter) -> Encounter:
    copies: dict[int, Character] = {}
    sides = [(name, [_copy(member, copies) for member in members]) for name, members in encounter.sides]
    return Encounter(encounter.name, sides, encounter.until, encounter.scope, encounter.settings, encounter.span,
                     encounter.source)


def _copy(value, copies: dict):
    """A character with its own state (and gear), so a fight does not change the declared one."""
    kind = type(value)
    if kind is Character:
        if id(value) not in copies:
            copy = copies[id(value)] = Character(value.name, value.kind, {})
            copy.declared, copy.recipe = value.declared, value.recipe
            copy.fields.update({name: _copy(item, copies) for name, item in value.fields.items()})
        return copies[id(value)]
    if kind is list:
        return [_copy(item, copies) for item in value]
    if isinstance(value, Record):
        return record_of({name: _copy(item, copies) for name, item in value.fields.items()})
    return value
