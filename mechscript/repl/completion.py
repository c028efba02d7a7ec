"""Tab completion at the prompt: the language's words, the built-ins and the session's names; the
modules after `use` (not the internal ones); a character's stats and state (a record's fields, a
module's rules, a table's rows) after `name.`; commands after `:`, and files after `:load`. Each
completion says what it is: a stat, a derived value, state, gear, a rule, an option, a kind..."""

from __future__ import annotations

import re
from collections.abc import Callable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from ..interpreter.builtins import BUILTINS
from ..errors import MechError
from ..interpreter.operators import CONSTANTS
from ..interpreter.names import KIND_WORDS
from ..interpreter.lookup import field_names
from ..interpreter.script import module_names
from ..interpreter.session import Session
from ..interpreter.values import Character, Function, Kind, Module, Table
from .commands import COMMANDS
from .lexer import keywords

# A name being typed, not part of a number or a dice term (`4d6k` is no name)
_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*$")
_FIELD = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.(\w*)$")
_USE = re.compile(r"(?:^|[\s;])use\s+(\w*)$")


class MechCompleter(Completer):
    def __init__(self, session: Callable[[], Session]):
        self.session = session  # the current one: `:reset` makes a new session
        self.files = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent):
        text = document.text_before_cursor
        if text.lstrip().startswith(":"):
            yield from self._command(text.lstrip(), complete_event)
            return
        if match := _USE.search(text):
            yield from _starting(match.group(1), self._modules(), "module")
        elif match := _FIELD.search(text):
            fields = self._fields(match.group(1))
            yield from _starting(match.group(2), fields, fields)
        elif match := _WORD.search(text):
            yield from _starting(match.group(), *self._names())

    def _command(self, text: str, complete_event: CompleteEvent):
        name, space, argument = text.partition(" ")
        if not space:
            yield from _starting(name, COMMANDS, "command")
        elif name == ":load":
            yield from self.files.get_completions(Document(argument), complete_event)
        elif name == ":help" and _WORD.search(argument):
            yield from _starting(_WORD.search(argument).group(), *self._names())

    def _names(self) -> tuple[list[str], dict[str, str]]:
        session = self.session()
        kinds = {name: "builtin" for name in BUILTINS}
        kinds.update({name: "keyword" for name in (*keywords(), *CONSTANTS)})
        for name in session.names():
            try:
                binding = session.static.resolve(name, None)
            except MechError:  # defined by two modules used: it needs its module's name
                continue
            # a name of names() always resolves; a module's own functions and variables are its rules and options
            own = name in session.static.names
            kinds[name] = KIND_WORDS[binding.kind] if own else MODULE_WORDS.get(binding.kind, KIND_WORDS[binding.kind])
        return sorted(kinds), kinds

    def _modules(self) -> list[str]:
        session = self.session()
        return module_names(session.folder, session.module_path.folders)

    def _fields(self, name: str) -> dict[str, str]:
        """The names `name.` reads, each with what it is: a character's stat, derived value, state or
        gear; a module's rule, option, kind or table; a record's field; a table's row."""
        session = self.session()
        value = session.value(name)
        if value is not None:
            return {field: _field_word(value, field) for field in field_names(value) if not field.startswith("_")}
        binding = session.static.names.get(name)  # a module used but not run yet
        if binding is None or binding.kind != "module":
            return {}
        return {member: MODULE_WORDS.get(b.kind, KIND_WORDS[b.kind]) for member, b in binding.module.exports.items()}


# What a module's names are to a script: its functions are rules (a script may replace them), its
# variables options (an encounter may set them).
MODULE_WORDS = {"fn": "rule", "let": "option"}
_VALUE_WORDS = {Function: "rule", Kind: "kind", Table: "table", Character: "character", Module: "module"}


def _field_word(value, field: str) -> str:
    kind = type(value)
    if kind is Character:
        words = {item[1]: item[0] for item in value.kind.schema.items}  # stat, derived, state, gear
        return words.get(field, "own")  # name, side, kind
    if kind is Module:
        return _VALUE_WORDS.get(type(value.scope.vars.get(field)), "option")
    if kind is Table:
        return "row"
    return "field"  # a record's, an encounter's, a roll's


def _starting(prefix: str, candidates, meta: str | dict = ""):
    for candidate in candidates:
        if candidate.startswith(prefix) and candidate != prefix:
            yield Completion(candidate, start_position=-len(prefix),
                             display_meta=meta.get(candidate, "") if isinstance(meta, dict) else meta)
