"""What each quiet run restores (a part of quiet.QuietFight, worked out once in its set-up): the
variables a run may change, by global name; each character's state, with the lists and records a
run may change in place copied anew; the encounter's settings; and what each run reports of each
character."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ..errors import MechError
from ..interpreter import ast, characters
from ..interpreter.values import (JSON_WHOLE_BITS, Character, Encounter, Function, Kind, Module, Record, Scope,
                                  Table, to_json)
from .changes import may_change, table_may_change
from .runtime import copier, copying, fresh, mutable
from .writer import LITERAL_BITS, ModuleText, Unsupported, Writer


def numbers_of(items) -> dict:
    """The numbers of a character's reported state, as a batch keeps them (JSON's numbers): a
    Fraction well within a float's range (values.fits_float) as the float Fraction makes of it, a
    whole number of JSON_WHOLE_BITS or more (JSON's text) left out."""
    numbers = {}
    for key, value in items:
        kind = value.__class__
        if kind is int and value.bit_length() < JSON_WHOLE_BITS:
            numbers[key] = value
        elif kind is Fraction and value._denominator != 1 and \
                -1000 < value._numerator.bit_length() - value._denominator.bit_length() < 1000:
            numbers[key] = value._numerator / value._denominator
        elif kind is not str and kind is not bool and value is not None:
            value = to_json(value)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                numbers[key] = value
    return numbers


def refuse_sharing(kept, states, settings) -> None:
    """A list or record reachable from two kept places would be two after copying."""
    seen: set[int] = set()

    def visit(value):
        kind = type(value)
        if kind is list or isinstance(value, Record):
            if id(value) in seen:
                raise Unsupported("kept values share a list or record")
            seen.add(id(value))
            for item in (value if kind is list else value.fields.values()):
                visit(item)
        elif kind is Table:
            for row in value.rows.values():
                for item in [entry for _, entry in row.entries] + [row.default]:
                    visit(item)
    for _, value, _ in kept:
        visit(value)
    for _, state in states:
        for _, value in state:
            visit(value)
    for _, value, _ in settings:
        visit(value)


def reachable_characters(members, values) -> list[Character]:
    """Every character a run can reach: the encounter's `members`, their gear, any held by one of
    `values` (a variable's), in a list, a record, a table or an encounter."""
    return reachable(members, values)[0]


def reachable(members, values) -> tuple[list[Character], list[Encounter]]:
    """Every character (`reachable_characters`) and every encounter a run can reach from the
    encounter's `members` and the `values` of its variables."""
    found: dict[int, Character] = {}
    encounters: dict[int, Encounter] = {}
    pending = list(members) + list(values)
    while pending:
        value = pending.pop()
        if type(value) is list:
            pending.extend(value)
        elif isinstance(value, Record):
            pending.extend(value.fields.values())
        elif type(value) is Table:
            pending.extend(entry for row in value.rows.values() for _, entry in row.entries)
            pending.extend(row.default for row in value.rows.values())
        elif type(value) is Character and id(value) not in found:
            found[id(value)] = value
            pending.extend(value.fields.values())
        elif type(value) is Encounter and id(value) not in encounters:
            encounters[id(value)] = value
            pending.extend(value.characters)
    return list(found.values()), list(encounters.values())


class Keeping:
    """QuietFight's set-up of what its runs restore; it reads the fight's texts, encounter, types
    and namespace."""

    def _keep(self, ev, home: Scope) -> None:
        """What each run restores: variables by global name, each character's state, the settings."""
        self.kept: list[tuple[str, object, bool]] = []
        for text in self.texts.values():
            for name, value in text.scope.vars.items():
                kind = text.names.get(name)
                if kind in ("fn", "module") or kind is None:
                    continue
                if type(value) is Function:
                    raise Unsupported("a function kept in a variable")
                copy = self._table_may_change(text, name) if type(value) is Table else \
                    mutable(value) and self._may_change(text, name)
                self.kept.append((text.global_name(name), value, copy))
        for side_name, members in self.encounter.sides:   # as `characters.fight` does, once
            for character in members:
                character.side = side_name
        # what a run restores of each character it can reach: its state, and any list or record a run
        # could change in place
        self.states = []
        for character in reachable_characters(self.encounter.characters, [value for _, value, _ in self.kept]):
            changes = character.kind.schema.changes
            kept = [(name, value) for name, value in character.fields.items()
                    if name in changes or isinstance(value, Record)
                    or type(value) is list and any(mutable(item) for item in value)]
            self.states.append((character, kept))
        # per run: the values no code changes in place written back at once, the others copied
        self.restores, copies = [], []
        for character, kept in self.states:
            copied = [(name, value) for name, value in kept if mutable(value) and self._field_may_change(character, name)]
            names = {name for name, _ in copied}
            restored = {name: v for name, v in kept if name not in names}
            if restored:   # robomacs' gear: 28 of its 34 sheets have nothing a run changes
                self.restores.append((character.fields, restored))
            copies.extend((character.fields, name, copier(value), value) for name, value in copied)
        self.copy_all = copying(copies)
        settings = []
        for name, _, value in self.encounter.settings:
            if name not in home.vars or type(home.vars[name]) in (Function, Kind, Table, Module):
                raise Unsupported("a setting that is no option")
            settings.append((self.home.global_name(name), value, mutable(value) and self._may_change(self.home, name)))
        self.settings = settings
        refuse_sharing(self.kept, self.states, self.settings)
        # what no run assigns nor changes in place is written once; each run restores the rest
        for name, value, _ in self.kept + self.settings:
            self.namespace[name] = value
        self.kept = [item for item in self.kept if item[2] or item[0] in self.assigned]
        self.settings = [item for item in self.settings if item[2] or item[0] in self.assigned]
        self.globals_reset = self.kept + self.settings   # in this order: a setting wins
        # the closures check the options' choices each run; the values are the same every run
        for name, _, value in self.encounter.settings:
            home.vars[name] = value
        try:
            characters.check_choices(ev, home, self.encounter)
        except Exception as error:
            raise Unsupported("an option outside its choices") from error
        self.report = self.home.global_name("report") if "report" in home.vars else None
        self._plan_report(home)
        self.standing_name = self.home.global_name("standing")
        self.fight_name = self.home.global_name("fight")
        if self.home.names.get("fight") != "fn" or self.home.names.get("standing") != "fn":
            raise Unsupported("the rules' fight")

    def _may_change(self, text: ModuleText, name: str) -> bool:
        """Whether a run may change in place what the top-level variable `name` holds (changes.py)."""
        lets = [s for s in text.program.statements if type(s) is ast.Let and s.name == name]
        return len(lets) != 1 or may_change(self.types.variable(lets[0]), self.types, self.changed)

    def _table_may_change(self, text: ModuleText, name: str) -> bool:
        """Whether a run may change in place a list or record the table `name` holds (changes.py)."""
        tables = [s for s in text.program.statements if type(s) is ast.TableDef and s.name == name]
        return len(tables) != 1 or table_may_change(tables[0], self.types, self.changed)

    def _field_may_change(self, character: Character, name: str) -> bool:
        """Whether a run may change in place what a field of a character of its kind holds."""
        fields = self._field_types(character)
        return name not in fields or may_change(fields[name], self.types, self.changed)

    def _field_types(self, character: Character) -> dict:
        """{name: Type} of the fields of a character's kind (the checker's), or {} where unknown."""
        text = self.texts.get(id(character.kind.home))
        if text is None:
            return {}
        path = str(Path(text.path if text.path is not None else self.script.filename).resolve())
        return self.types.kind_fields((path, character.kind.name)) if (path, character.kind.name) in self.kinds \
            else {}

    def _plan_report(self, home: Scope) -> None:
        """What each run reports of each character (end_states), worked out once for the report the
        set-up left: a run whose fight leaves another report goes the closures' way."""
        report = home.vars.get("report")
        self.reported = fresh(report)
        try:
            states = characters.end_states(self.encounter, report)
        except MechError as error:   # every run's error: the closures' to give
            raise Unsupported("the rules' report") from error
        # the report as one written function of `standing`, each character's fields read as attributes
        parts = []
        # whole numbers are JSON's numbers as they are when no run can make one of JSON_WHOLE_BITS
        small = max(self.script.limits.number_bits, LITERAL_BITS) < JSON_WHOLE_BITS
        for i, (character, (name, state)) in enumerate(zip(self.encounter.characters, states.items())):
            names = tuple(key for key in state if key != "side")
            # a field the types say is a whole number is reported as it is, one that is never a
            # number nor a roll (a text, true or false, none, a list) is not (numbers_of): with no
            # other, no test of each value
            fields = self._field_types(character)
            whole = [key for key in names if key in fields and fields[key].surely("int") and small]
            never = [key for key in names if key in fields and not fields[key].is_empty
                     and not fields[key].maybe("number") and not fields[key].maybe("roll")]
            if len(whole) + len(never) == len(names):
                numbers = "{" + ", ".join(f"{key!r}: {Writer.attr(f'C{i}', key)}" for key in whole) + "}"
            else:
                numbers = "NUMBERS((" + "".join(f"({key!r}, {Writer.attr(f'C{i}', key)}), " for key in names) + "))"
            parts.append(f"{name!r}: (standing(C{i}) is True, {numbers})")
        self.report_source = "def written_report(standing):\n    return {" + ", ".join(parts) + "}\n"
        namespace = {f"C{i}": character for i, character in enumerate(self.encounter.characters)}
        namespace["NUMBERS"] = numbers_of
        exec(compile(self.report_source, "<mechscript report>", "exec"), namespace)
        self.written_report = namespace["written_report"]
