"""What `mech check` finds from the checker's types, in code that may never run before a die:

- a house rule (`fn pbem.pick_target(c, enc, plans) = "Megatron"`) whose result is of no kind the
  rule it replaces gives: the module's callers use it as the original's (a string where they need
  a character), and would fail far from the house rule, inside the module;
- a field that a value of a known kind surely lacks, read or set in the script: `Punch.sped`, a
  record's `r.hpp`, `enc.rounds`, with the message `mech run` gives when it gets there.

The inference (infer.py) is sound: a type holds every value the expression may have, so a field
missing from every kind of value the type allows is missing whenever the line runs. A name tested
with `has(x, "name")` in the file is left alone: the script asks before it reads.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import MechError, did_you_mean
from ..interpreter import ast
from ..interpreter.characters import ENCOUNTER_FIELDS, OWN_FIELDS
from ..interpreter.script import Script, text_program
from . import types as T
from .infer import Types, infer, load_modules

class TypeProblem(MechError):
    """An error found from the checker's types, wherever it is: a run meets it only if it gets to
    that line (a field missing from a value), or fails elsewhere because of it (a house rule)."""


# The runtime kinds a caller tells apart: a roll, a pool and a fraction all serve as numbers.
_CLASS = {"int": "number", "fraction": "number", "roll": "number", "pool": "number"}
_WORDS = {"number": "a number", "str": "a string", "bool": "true/false", "none": "none", "list": "a list",
          "record": "a record", "function": "a function", "encounter": "an encounter", "module": "a module",
          "table": "a table", "row": "a table row", "kind": "a kind"}


def program_types(script: Script, program: ast.Program) -> Types:
    """The checker's types of a compiled script, whose text is `program` (or a version of it), and its modules."""
    path = script.folder / Path(script.filename).name
    # the module trees the script runs (a file edited since is not what runs), or, for a Script
    # made otherwise, the modules loaded as its loader would
    modules = {Path(where): tree for where, tree in script.modules.items()} or \
        load_modules(program, path, script.limits, script.module_path)
    return infer(program, modules, path, script.module_path)


def script_program(script: Script) -> ast.Program:
    return text_program(script)


def house_rule_problems(script: Script, program: ast.Program, types: Types) -> None:
    """Raises a TypeProblem for the first house rule of the script whose result is of no kind that
    the rule it replaces gives."""
    rules = [s for s in program.statements if type(s) is ast.FnDef and s.module is not None]
    if not rules:
        return
    # what the replaced rules give, in the script without its house rules
    plain = program_types(script, ast.Program(program.span, [s for s in program.statements
                                                             if not any(s is rule for rule in rules)]))
    for rule in rules:
        original = plain.rule(rule.module, rule.name)
        if original is None:
            continue
        wanted, given = _classes(plain.returns(original)), _classes(types.returns(rule))
        if not wanted or not given or wanted <= {"none"} or wanted & given:
            continue  # unknown, never given, a rule whose result nobody reads, or one kind in common
        needed = _shown(plain.returns(original))
        raise TypeProblem(f"the house rule `{rule.module}.{rule.name}` gives {_shown(types.returns(rule))}, where "
                          f"`{rule.module}`'s own `{rule.name}` gives {needed}", rule.name_span,
                          hint=f"the rules of `{rule.module}` use what `{rule.name}` gives: give them {needed} too"
                          ).located(script.source_text, script.filename)


def _classes(t: T.Type) -> set | None:
    """The kinds of value a type allows, as callers tell them apart; None when nothing is known."""
    if t.is_any:
        return None
    kinds = {T.runtime_kind(atom) for atom in t}
    return {_CLASS.get(kind, kind) for kind in kinds}


def _shown(t: T.Type) -> str:
    """A type in words: "a Transformer or none", "a number or a string"."""
    words = {f"a {atom.kind[1]}" if type(atom) is T.CharT else _WORDS[_CLASS.get(kind, kind)]
             for atom in t for kind in [T.runtime_kind(atom)]}
    return " or ".join(sorted(words, key=lambda word: (word == "none", word)))


def field_problems(script: Script, program: ast.Program, types: Types) -> None:
    """Raises a TypeProblem for the first field of the script that the value it is read from (or
    set on) surely lacks, worded as `mech run` words it."""
    asked = {_text(call.args[1]) for call in ast.walk(program) if type(call) is ast.Call and
             type(call.callee) is ast.Name and call.callee.id == "has" and len(call.args) == 2}
    written = {id(s.target) for s in ast.walk(program) if type(s) is ast.Assign}
    fields = sorted((node for node in ast.walk(program) if type(node) is ast.Field and node.name not in asked),
                    key=lambda node: node.name_span.start)  # the first in the text
    for node in fields:
        error = _missing(types, node, id(node) in written)
        if error is not None:
            raise error.located(script.source_text, script.filename)


def _missing(types: Types, node: ast.Field, setting: bool) -> TypeProblem | None:
    t, name = types.of(node.target), node.name
    if t.is_any or t.is_empty:
        return None
    if t.surely("character"):
        items = {kind: types.kind_items(kind) for kind in t.kinds()}
        if None in items.values() or name in OWN_FIELDS:
            return None
        if any(name in found for found in items.values()):
            return None
        if len(items) != 1:
            return None  # the message names the character's kind: one of several
        (_, kind), found = next(iter(items.items()))
        who = f"{node.target.id} (a {kind})" if types.names_character(node.target) else f"a {kind}"
        names = [n for n, item in found.items() if item.what == "state"] if setting else [*found, *OWN_FIELDS]
        return TypeProblem(f"{who} has no `{name}`", node.name_span, hint=did_you_mean(name, names))
    if t.surely("record"):
        shapes = {atom.names for atom in t}
        if any(name in names for names in shapes) or len(shapes) != 1:
            return None
        return TypeProblem(f"this record has no field `{name}`", node.name_span,
                           hint=did_you_mean(name, next(iter(shapes))))
    if t.surely("encounter") and not setting and name not in ENCOUNTER_FIELDS:
        return TypeProblem(f"an encounter has no `{name}`", node.name_span,
                           hint=did_you_mean(name, ENCOUNTER_FIELDS) or "an encounter has: " + ", ".join(ENCOUNTER_FIELDS))
    return None


def _text(node) -> str | None:
    if type(node) is ast.String and all(type(part) is str for part in node.parts):
        return "".join(node.parts)
    return None
