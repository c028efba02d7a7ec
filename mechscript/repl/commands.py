"""What the REPL does with what is typed, whatever reads it (a terminal or a pipe): an entry of
mechscript runs in the session; a line starting with `:` is a command. The answer is a Reply of
lines to print, never an exception: the session always goes on.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..api import RunResult, new_seed, prob, read_script
from ..interpreter.builtins import BUILTINS
from ..errors import MechError, did_you_mean
from ..limits import Limits
from ..interpreter.names import KIND_WORDS
from ..interpreter.peers import peer_notes
from ..interpreter.encounter_params import same_type, type_word, written
from ..interpreter.script import quoted, several_encounters, unknown_encounter
from ..interpreter.session import Session, Shown
from ..interpreter.values import Kind
from ..sim.variants import value_of
from . import display, topics
from .display import Fragments
from .lexer import keywords

HELP = """\
Type dice or mechscript. An expression shows its value, a roll its dice (dropped dice in parentheses):
  3d6+2    4d6kh3    7k3 + 2k0 > 20    let bonus = 2    fn hit(x) = d20 + x >= 15
Definitions stay for the whole session; defining a name again replaces it. A line with an open
bracket goes on to the next: a block ends with its `}`.
Commands:
  :help [NAME]   this help, or what a built-in function, rule, kind or name is;
                 :help notation (the dice), :help kh, :help explode, :help functions (the built-ins)
  :load FILE     run a script in the session: its definitions stay
  :seed [N]      show the seed, or roll from seed N (its first roll is `mech roll --seed N`'s)
  :prob EXPR     the exact odds of EXPR, with a chart (of dice alone: prob(EXPR) sees the session's names)
  :run           fight the session's encounter (on copies of its characters: run it again and again);
                 :run --encounter NAME --set PARAM=VALUE chooses one and gives its parameters values
  :reset         a new session: no names, a fresh seed
  :quit          leave (or Ctrl-D, quit, exit); Ctrl-C cancels the line being typed
Tab completes names, Up and Down go through the history."""

COMMANDS = {
    ":help": ":help [NAME]   this help, or what a built-in function, rule or name is",
    ":load": ":load FILE     run a script in the session: its definitions stay",
    ":seed": ":seed [N]      show the seed, or roll from seed N",
    ":prob": ":prob EXPR     the exact odds of EXPR",
    ":run": ":run [--encounter NAME] [--set PARAM=VALUE]  fight the session's encounter (NAME: which one, when it "
            "has several; --set: a value for one of its parameters, may be given more than once)",
    ":reset": ":reset         a new session: no names, a fresh seed",
    ":quit": ":quit          leave (or Ctrl-D)",
}


# What a Python user types to leave or get help: `quit`, `exit()`, `help`, `help(floor)`, `help("kh")`
_PYTHON_WORDS = re.compile(r"(quit|exit|help)(?:\(\s*\)|\((.+)\))?")


@dataclass
class Reply:
    lines: list[tuple[bool, Fragments]] = field(default_factory=list)  # (for standard error, fragments)
    quit: bool = False
    failed: bool = False  # an error was said (a note goes to standard error too, but is no error)

    def say(self, text: str, style: str = "") -> Reply:
        self.lines.extend((False, [(style, line)]) for line in text.split("\n"))
        return self

    def note(self, text: str) -> Reply:
        """A one-line note, on standard error when reading from a pipe, as `mech roll` says it."""
        self.lines.append((True, [("class:note", f"note: {text}")]))
        return self

    def fail(self, text: str, hint: str | None = None) -> Reply:
        self.failed = True
        self.lines.append((True, [("class:error", text)]))
        if hint:
            self.lines.append((True, [("", f"  hint: {hint}")]))
        return self

    def error(self, problem: MechError) -> Reply:
        self.failed = True
        self.lines.extend((True, line) for line in display.error(problem))
        return self


class Commands:
    """The session, and what to do with each entry."""

    def __init__(self, seed: int | None = None, limits: Limits = Limits(), folder: Path | None = None,
                 module_path=()):
        self.limits, self.folder, self.module_path = limits, folder, tuple(module_path)
        self.session = Session(new_seed() if seed is None else seed, limits, folder, self.module_path)

    def handle(self, text: str) -> Reply:
        stripped = text.strip()
        if not stripped:
            return Reply()
        if (python := _PYTHON_WORDS.fullmatch(stripped)) and python[1] not in self.session.names():
            # `quit`, `exit`, `help` and `help(kh)` as Python's REPL takes them, unless the session defined the name
            if python[1] != "help":
                return Reply(quit=True)
            return self._help((python[2] or "").strip().strip("\"'"))
        if stripped.startswith(":"):
            name, _, argument = stripped.partition(" ")
            command = getattr(self, "_" + name[1:], None) if name in COMMANDS else None
            if command is None:
                return Reply().fail(f"unknown command `{name}`",
                                    hint=did_you_mean(name, COMMANDS) or "commands: " + " ".join(COMMANDS))
            return command(argument.strip())
        try:
            return self._entry(self.session.enter(text), _notes(text, self.limits, program=True))
        except (KeyboardInterrupt, RecursionError, MemoryError):
            raise
        except Exception:  # a bug in mechscript: say so, and keep the session
            return Reply().fail("internal error (this is a bug in mechscript; please report it with what you typed)")

    def _entry(self, entry, notes: Reply | None = None) -> Reply:
        reply = notes or Reply()
        for item in entry.output:
            if type(item) is not Shown:
                reply.say(item)
                continue
            try:
                fragments = display.shown(item, self.limits)
            except MechError as error:  # a value too big to show
                reply.fail(error.message, error.hint)
                continue
            if fragments is not None:
                reply.lines.append((False, fragments))
        if entry.error is not None:
            reply.error(entry.error)
        return reply

    # -- commands --

    def _help(self, name: str) -> Reply:
        if not name:
            return Reply().say(HELP)
        command = name if name.startswith(":") else ":" + name
        if command in COMMANDS:
            return Reply().say(COMMANDS[command])
        if name in BUILTINS:
            return Reply().say(BUILTINS[name].doc)
        if name in ("functions", "builtins", "built-ins"):
            return Reply().say(topics.functions())
        if name in keywords():
            return Reply().say(f"`{name}` is a word of the language: docs/language.md describes it")
        module, binding = self._find(name)
        if binding is None and (text := topics.notation(name)) is not None:
            return Reply().say(text)
        return self._help_name(name)

    def _help_name(self, name: str) -> Reply:
        """A name of the session or of a module it uses (`attack`, `pbem.attack`): what it is, and
        for a module's, the comment above its definition and its first line."""
        module, binding = self._find(name)
        if binding is None:
            known = self.session.names() | set(BUILTINS)
            return Reply().fail(f"no built-in, rule or name `{name}`", hint=did_you_mean(name, known))
        member, what = name.rpartition(".")[2], KIND_WORDS[binding.kind]
        signature = f"fn {member}({', '.join(binding.params)})" if binding.kind == "fn" else f"{what} {member}"
        if module is None:
            value = self.session.value(name)
            if binding.kind == "kind" and type(value) is Kind:
                fields = topics.kind_fields(value.schema.source_text, value.schema.filename, binding.span.line, member)
                if fields is not None:
                    return Reply().say(f"{signature}: a {what} of this session, with these fields:\n" + "\n".join(fields))
            text = display.describe(value, self.limits) if value is not None and binding.kind != "fn" else None
            return Reply().say(f"{signature}: a {what} of this session" + (f"\n{text}" if text else ""))
        reply = Reply().say(f"{signature}: a {what} of module `{module.name}` ({module.path.name}"
                            f":{binding.span.line})" if binding.span else f"{signature}: of module `{module.name}`")
        if binding.span is not None:
            reply.say("\n".join(_definition(module.path, binding.span.line)), "class:note")
            source = topics.read(module.path) if binding.kind == "kind" else None
            fields = topics.kind_fields(source, str(module.path), binding.span.line, member) if source else None
            if fields:
                reply.say("its fields (a character gives its stats; the rest is worked out):\n" + "\n".join(fields))
        return reply

    def _find(self, name: str):
        """(the module, the binding) of `pbem.attack`, or of `attack`: the session's own (module
        None), else that of the first module used that has it. (None, None) if nothing has it."""
        static = self.session.static
        module_name, _, member = name.rpartition(".")
        if module_name:
            used = static.names.get(module_name)
            if used is None or used.kind != "module":
                return None, None
            return used.module, used.module.exports.get(member)
        if name in static.names:
            return None, static.names[name]
        return next(((info, info.exports[name]) for info in static.uses if name in info.exports), (None, None))

    def _load(self, argument: str) -> Reply:
        if not argument:
            return Reply().fail("`:load` needs a file: :load fight.mech")
        # the user's own terminal: any path, absolute too, but only of a .mech file (read_script)
        path = Path(argument).expanduser()
        if not path.is_file():
            return Reply().fail(f"no such file: {argument}")
        try:
            text = read_script(path, self.limits)
        except MechError as error:
            return Reply().error(error)
        entry = self.session.enter(text, str(path), path.resolve().parent, echo=False)
        reply = self._entry(entry)
        if entry.error is None:
            reply.say(f"loaded {argument}", "class:note")
        return reply

    def _seed(self, argument: str) -> Reply:
        if not argument:
            return Reply().say(f"seed {self.session.seed}")
        try:
            seed = int(argument)
        except ValueError:
            return Reply().fail(f"a seed is a whole number, not `{argument}`", hint=":seed 7")
        if seed < 0:  # as `mech --seed`: Python's generator would take -1 as 1
            return Reply().fail(f"a seed is a whole number of 0 or more, not `{argument}`", hint=":seed 7")
        self.session.reseed(seed)
        return Reply().say(f"seed {seed}", "class:note")

    def _prob(self, argument: str) -> Reply:
        if not argument:
            return Reply().fail("`:prob` needs an expression: :prob 7k3 >= 25")
        reply = _notes(argument, self.limits)
        try:
            result = prob(argument, limits=self.limits)
        except MechError as error:
            if self.session.names() & set(re.findall(r"[A-Za-z_]\w*", argument)):
                error.hint = f"`:prob` reads dice alone, as `mech prob`; with the session's names, type prob({argument})"
            return reply.error(error)
        return reply.say("\n".join(result.text()))

    def _run(self, argument: str) -> Reply:
        names = list(self.session.encounters)
        if not names:
            return Reply().fail("this session has no encounter",
                                hint='declare one (encounter "Ambush" { side a: Punch ... }) or :load a script with one')
        try:
            words = shlex.split(argument)
        except ValueError:
            words = None
        options = _run_options(words)
        if options is None:
            return Reply().fail("`:run` takes --encounter NAME and --set PARAM=VALUE, or nothing",
                                hint=f":run --encounter {quoted(names[0])}")
        name, sets = options
        if name is None and len(names) > 1:
            return Reply().fail(*several_encounters(names, "session", ":run --encounter"))
        if name is not None and name not in names:
            message, hint, _ = unknown_encounter(name, names, ":run --encounter")
            return Reply().fail(message, hint)
        name = name or names[0]
        given = {}
        for text in sets:
            refused = self._refused_set(name, text, given)
            if refused is not None:
                return Reply().fail(*refused)
        log, result, error = self.session.fight(name, given)
        reply = Reply()
        for line in log:
            reply.say(line)
        if error is not None:
            return reply.error(error)
        for line in RunResult(log, result).summary():
            reply.say(line, "class:heading" if line.startswith("Result") else "")
        return reply

    def _refused_set(self, name: str, text: str, given: dict) -> tuple[str, str | None] | None:
        """`--set PARAM=VALUE` of `:run` put in `given`, or why not (message, hint): the session's
        encounters are declared at the prompt, so `:run --set` gives their parameters alone."""
        parameters = self.session.parameters(name)
        param, equals, typed = text.partition("=")
        if not equals or not param.isidentifier():
            return f"--set is PARAM=VALUE, not {text!r}", ":run --set count=4"
        if param not in parameters:
            if not parameters:
                return (f'encounter "{name}" has no parameters',
                        "in the session, give a stat or an option its value at the prompt (Punch.skill = 6)")
            return (f'encounter "{name}" has no parameter `{param}`',
                    did_you_mean(param, parameters) or "its parameters: " + ", ".join(parameters))
        if param in given:
            return f"--set {param} is given twice", None
        value, default = value_of(typed.strip()), parameters[param]
        if not same_type(value, default):
            return (f'`{param}` of encounter "{name}" is {type_word(default)} (its default is {written(default)}), '
                    f"not {type_word(value)}", f":run --set {param}={written(default)}")
        given[param] = value
        return None

    def _reset(self, argument: str) -> Reply:
        self.session = Session(new_seed(), self.limits, self.folder, self.module_path)
        return Reply().say(f"a new session, seed {self.session.seed}", "class:note")

    def _quit(self, argument: str) -> Reply:
        return Reply(quit=True)


def _run_options(words: list[str] | None) -> tuple[str | None, list[str]] | None:
    """`:run`'s words: (the encounter named or None, the texts of its --set), None when they are not that."""
    if words is None:
        return None
    name, sets = None, []
    for option, value in zip(words[::2], words[1::2]):
        if option == "--encounter" and name is None:
            name = value
        elif option == "--set":
            sets.append(value)
        else:
            return None
    return (name, sets) if len(words) % 2 == 0 else None


def _notes(text: str, limits: Limits, program: bool = False) -> Reply:
    """A reply starting with the notes for another roller's spelling in `text` (interpreter/peers.py)."""
    reply = Reply()
    for note in peer_notes(text, limits, program):
        reply.note(note)
    return reply


def _definition(path: Path, line: int) -> list[str]:
    """The comment lines right above line `line` of a module, and that line."""
    try:
        lines = path.read_text(encoding="utf-8-sig").split("\n")
    except OSError:
        return []
    start = line - 1
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    return [text.rstrip() for text in lines[start:line]]
