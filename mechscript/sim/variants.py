"""Variants of a script: the same script with a value given to a stat, a rules option, an
encounter's parameter or a `let` (`mech sim --vary`, `mech run/sim --set`), or with house rules used
after its own modules (`mech compare --rule`).

A variant is the script's own program with a few nodes replaced, compiled as the script is: the
value of `--vary Punch.skill=6` stands where Punch's declaration wrote his skill, so everything
worked out from it (hp from endurance) follows, and a value the stat does not allow is refused by
the same check as a declaration's. A rules option (`pbem.tie`) is set at the start of the script,
before its characters are made, and wins over the script's own `pbem.tie = ...` and an encounter's
`tie: ...`. A house rule file is `use`d after the script's own modules: its top level runs after
theirs, so its `pbem.tie = "attacker"` and `fn pbem.to_hit(...)` change them for the whole fight.

The nodes of a variant carry spans of their own: an error at one of them is said at the option the
user typed, not at a line of the script that does not hold the value.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..dice.faces import RandomFaces
from ..errors import MechError, Span, did_you_mean
from ..interpreter import ast
from ..interpreter.characters import one_of, shown
from ..interpreter.encounter_params import given, literal, plain_value, same_type, type_word, written
from ..interpreter.parser import parse_program
from ..interpreter.running import Run
from ..interpreter.script import ModuleLoader, ModulePath, Script, compile_script
from ..interpreter.values import Module, Record, Scope, equal
from ..limits import Limits


@dataclass(frozen=True)
class Setting:
    """One value given to one target: `Punch.skill` (a character's stat), `pbem.tie` (an option of
    a module the script uses) or `rounds` (a `let` of the script's top level)."""
    target: str
    value: object          # int, Fraction, str, bool or None
    option: str = ""       # the option as typed (`Punch.skill=3..9`), where its errors are said
    at: tuple = (0, 0)     # where in `option` this value is written
    flag: str = "--vary"   # the option's name, as its errors say it

    def shown(self) -> str:
        return f"{self.target}={written(self.value)}"


@dataclass(frozen=True)
class Vary:
    """`--vary TARGET=VALUES`: the target and a Setting for each of its values, in order."""
    target: str
    settings: tuple


_TARGET = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)?$")
_RANGE = re.compile(r"(-?\d+)\.\.(-?\d+)$")
MAX_VALUES = 1000   # values of one --vary: a typo like 1..100000 would fight for days


def parse_vary(text: str) -> Vary:
    """`Punch.skill=3..9`, `pbem.tie=defender,attacker`, `rounds=5,10,20`. A ValueError with the
    message for a usage error when it is not that."""
    target, equals, values = text.partition("=")
    target = target.strip()
    if not equals or not _TARGET.match(target):
        raise ValueError(f"--vary is TARGET=VALUES, e.g. Punch.skill=3..9, pbem.tie=defender,attacker or "
                         f"rounds=5,10; got {text!r}")
    start = len(text) - len(values)
    stripped = values.strip()
    spread = _RANGE.match(stripped)
    if spread:
        low, high = int(spread[1]), int(spread[2])
        if low > high:
            raise ValueError(f"--vary {text}: a range goes from low to high, e.g. {target}={high}..{low}")
        if high - low + 1 > MAX_VALUES:
            raise ValueError(f"--vary {text}: at most {MAX_VALUES} values")
        at = (start + values.index(stripped), start + len(values.rstrip()))
        settings = tuple(Setting(target, value, text, at) for value in range(low, high + 1))
    else:
        settings, offset = [], start
        for item in values.split(","):
            if not item.strip():
                raise ValueError(f"--vary {text}: a value is missing between the commas")
            left = offset + len(item) - len(item.lstrip())
            settings.append(Setting(target, value_of(item.strip()), text, (left, left + len(item.strip()))))
            offset += len(item) + 1
        settings = tuple(settings)
        if len(settings) > MAX_VALUES:
            raise ValueError(f"--vary {text}: at most {MAX_VALUES} values")
    return Vary(target, settings)


def value_of(item: str):
    """A value as typed on the command line: a number, true, false, none, or text (quotes optional)."""
    if re.fullmatch(r"-?\d+", item):
        return int(item)
    if re.fullmatch(r"-?\d+\.\d+", item):
        number = Fraction(item)
        return number.numerator if number.denominator == 1 else number
    if item in ("true", "false", "none"):
        return {"true": True, "false": False, "none": None}[item]
    if len(item) >= 2 and item[0] == item[-1] and item[0] in "\"'":
        return item[1:-1]
    return item


def json_value(value):
    return float(value) if type(value) is Fraction else value


@dataclass(frozen=True)
class Variant:
    """What a worker needs besides the script's text to make the variant: the settings and the
    house rule files (resolved paths)."""
    settings: tuple = ()
    rules: tuple = ()

    def __bool__(self) -> bool:
        return bool(self.settings or self.rules)


def compile_variant(text: str, filename: str, folder: Path, limits: Limits, module_path: tuple,
                    variant: Variant) -> Script:
    """The script of `text` with the variant's values and house rules. A MechError said at the option
    when a value is refused when the script is compiled (an unknown stat, module or option)."""
    folder = Path(folder)
    program = parse_program(text, filename, limits)
    placed: dict[int, Setting] = {}
    changed = changed_program(program, variant, placed)
    folders = (*module_path, *(str(Path(rule).parent) for rule in variant.rules))
    for rule in variant.rules:  # `use NAME` finds it, and not another file of that name first
        use = ast.Use(Span(1, 1, 0, 0), Path(rule).stem, None)
        found = ModuleLoader.find(use, Path(folder), ModulePath.of(folder, folders))
        if found != Path(rule).resolve():
            raise MechError(f"this house rule has the name of the module {found}, which the script would use "
                            "instead", hint=f"rename {Path(rule).name}").located("", rule)
    try:
        script = compile_script(text, filename, folder, limits, folders, program=changed)
    except MechError as error:
        raise said_at_option(error, placed) from None
    script.placed = placed
    script.module_path = tuple(module_path)  # the user's: a worker adds the house rules' folders again
    return script


def changed_program(program: ast.Program, variant: Variant, placed: dict) -> ast.Program:
    """A copy of `program` with the variant in it; `placed` is told the span of each node made for a
    setting (its id, to the setting and whether an error there is about the target, not the value)."""
    statements = list(program.statements)
    first: list = []
    for setting in variant.settings:
        owner, _, name = setting.target.rpartition(".")
        span = _span_of(setting, placed, statements)
        if not owner and _has_param(statements, name):
            statements = _param_changed(statements, setting, span)
        elif not owner:
            statements = _let_changed(statements, setting, span)
        elif any(type(s) is ast.CharacterDef and s.name == owner for s in statements):
            statements = _stat_changed(statements, owner, name, setting, span, placed)
        elif any(type(s) is ast.Use and s.name == owner for s in statements):
            statements = _option_changed(statements, owner, name, setting, span)
            target = ast.Field(span, ast.Name(span, owner), name, span)
            first.append(ast.Assign(span, target, "=", literal(setting.value, span)))
        else:
            known = [s.name for s in statements if type(s) in (ast.CharacterDef, ast.Use)]
            raise at_option(f"the script has no character or module `{owner}`", setting,
                            did_you_mean(owner, known) or "--vary names a character's stat (Punch.skill), "
                            "an option of a module the script uses (pbem.tie) or a `let` of the script", whole=True)
    uses = [s for s in statements if type(s) is ast.Use]
    for rule in variant.rules:
        path = Path(rule)
        if any(use.name == path.stem for use in uses):  # `use pbem` would read the house rule instead
            raise MechError(f"this house rule has the name of the module `{path.stem}`, which the script uses",
                            hint=f"rename it, e.g. {path.stem}_house.mech").located("", rule)
        use_span = uses[-1].span if uses else Span(1, 1, 0, 0)
        uses.append(ast.Use(use_span, path.stem, None))
    others = [s for s in statements if type(s) is not ast.Use]
    return ast.Program(program.span, uses + first + others)


def _span_of(setting: Setting, placed: dict, statements: list) -> Span:
    """A span of its own for the nodes of a setting: where the thing it replaces is written (a
    back end's error message may quote the script there), but a new object, told apart by its id."""
    owner, _, name = setting.target.rpartition(".")
    span = Span(1, 1, 0, 0)
    for statement in statements:
        if type(statement) is ast.Let and not owner and statement.name == name or \
                type(statement) is ast.CharacterDef and statement.name == owner or \
                type(statement) is ast.Use and statement.name == owner:
            span = Span(*dataclasses.astuple(statement.span))
            break
        params = statement.params if type(statement) is ast.EncounterDef and not owner else []
        default = next((d for p, _, d in params if p == name), None)
        if default is not None:  # where the default is written: each parameter's own place
            span = Span(*dataclasses.astuple(default.span))
            break
    placed[id(span)] = (setting, False)
    return span


def _has_param(statements: list, name: str) -> bool:
    return any(type(s) is ast.EncounterDef and any(p[0] == name for p in s.params) for s in statements)


def _param_changed(statements: list, setting: Setting, span: Span) -> list:
    """Each encounter with the parameter fights with the setting's value, of its default's type."""
    changed = []
    for statement in statements:
        if type(statement) is ast.EncounterDef and any(p[0] == setting.target for p in statement.params):
            default = next(plain_value(d) for p, _, d in statement.params if p == setting.target)
            if not same_type(setting.value, default):
                raise at_option(f"`{setting.target}` of encounter \"{statement.title}\" is {type_word(default)} "
                                f"(its default is {written(default)}), not {type_word(setting.value)}", setting,
                                f"e.g. {setting.flag} {setting.target}={written(default)}")
            statement = given(statement, setting.target, literal(setting.value, span), f"{setting.flag} {setting.shown()}")
        changed.append(statement)
    return changed


def _let_changed(statements: list, setting: Setting, span: Span) -> list:
    name = setting.target
    lets = [s.name for s in statements if type(s) is ast.Let]
    if name not in lets:
        params = [p[0] for s in statements if type(s) is ast.EncounterDef for p in s.params]
        if not params:
            raise at_option(f"the script has no top-level `let {name}`", setting,
                            did_you_mean(name, lets) or
                            f"{setting.flag} NAME=... gives a value to a `let` of the script's top level", whole=True)
        raise at_option(f"the script has no encounter parameter or top-level `let {name}`", setting,
                        did_you_mean(name, params + lets) or "the parameters: " + ", ".join(params), whole=True)
    return [dataclasses.replace(s, value=literal(setting.value, span)) if type(s) is ast.Let and s.name == name else s
            for s in statements]


def _stat_changed(statements: list, owner: str, name: str, setting: Setting, span: Span, placed: dict) -> list:
    """The character's entry gives the setting's value; an error at the entry itself (no such stat)
    is said at the target, one at its value at the value."""
    entry_span = Span(*dataclasses.astuple(span))
    placed[id(entry_span)] = (setting, True)
    changed = []
    for statement in statements:
        if type(statement) is ast.CharacterDef and statement.name == owner:
            entries = [dataclasses.replace(e, value=literal(setting.value, span), span=entry_span)
                       if e.name == name else e for e in statement.entries]
            if not any(e.name == name for e in statement.entries):  # the kind's default: given here instead
                entries.append(ast.Entry(name, entry_span, literal(setting.value, span), None))
            statement = dataclasses.replace(statement, entries=entries)
        changed.append(statement)
    return changed


def _option_changed(statements: list, module: str, name: str, setting: Setting, span: Span) -> list:
    """The script's own `pbem.tie = ...` and every encounter's `tie: ...` give the setting's value."""
    changed = []
    for statement in statements:
        target = statement.target if type(statement) is ast.Assign else None
        if type(target) is ast.Field and type(target.target) is ast.Name and target.target.id == module and \
                target.name == name and statement.op == "=":
            statement = dataclasses.replace(statement, value=literal(setting.value, span))
        elif type(statement) is ast.EncounterDef:
            statement = dataclasses.replace(statement, settings=[s for s in statement.settings if s[0] != name])
        changed.append(statement)
    return changed


def checked(script: Script, seed: int = 0) -> Script:
    """The variant's values checked before any fight: its top level run once (a stat's range is
    checked when the character is made) and each option it sets against the rules' `choices`. An
    error at a setting is said at the option; any other is left to the batch, which names its run."""
    placed = getattr(script, "placed", {})
    if not placed:
        return script
    ev = Run(RandomFaces(seed), script.limits, quiet=True)
    ev.scope = Scope(None)
    try:
        script.code(ev)
    except MechError as error:
        if id(error.span) in placed:
            raise said_at_option(error, placed) from None
        return script
    except RecursionError:
        return script
    for setting in {setting for setting, _ in placed.values()}:
        owner, _, name = setting.target.rpartition(".")
        module = ev.scope.vars.get(owner) if owner else None
        if type(module) is not Module:
            continue
        choices = module.scope.vars.get("choices")
        allowed = choices.fields.get(name) if isinstance(choices, Record) else None
        if type(allowed) is list and not any(equal(setting.value, choice, ev) for choice in allowed):
            listed, hint = one_of(setting.value, allowed)
            raise at_option(f"`{name}` is one of {listed}, not {shown(setting.value)}", setting, hint)
    return script


def said_at_option(error: MechError, placed: dict) -> MechError:
    if id(error.span) not in placed:
        return error
    setting, whole = placed[id(error.span)]
    return at_option(error.message, setting, error.hint, whole)


def at_option(message: str, setting: Setting, hint: str | None, whole: bool = False) -> MechError:
    """An error about a setting, said at the option that gave it: `--vary:1:13: ...`, the option, a caret."""
    start, end = (0, len(setting.target)) if whole or not setting.option else setting.at
    if not setting.option:  # made in Python, not typed: said in words
        return MechError(f"{setting.shown()}: {message}", hint=hint)
    return MechError(message, Span(1, start + 1, start, end), hint).located(setting.option, setting.flag)
