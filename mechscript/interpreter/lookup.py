"""Reading a value by a key: a list's item, a table's row or entry, a record's field or a
character's, chosen at run time (`x[key]`), and the names `x.name` can read. Script statements,
exact odds and the built-ins (`has`) share it."""

from __future__ import annotations

from fractions import Fraction

from ..dice.engine import DiceRoll
from ..dice.rollkeep import KeepRoll
from ..errors import MechError, Span, did_you_mean
from . import characters
from .values import KEYED, Character, Encounter, Module, Record, Table, TableRow, equal, format_value, type_name


def plain_key(key):
    return key.total if type(key) in (DiceRoll, KeepRoll) else key


ROLL_FIELDS = ("total", "faces", "kept", "dropped")


def field_names(value) -> list[str]:
    """The names `value.NAME` reads (the REPL completes them; a mistyped one's hint is among them)."""
    kind = type(value)
    if kind is Character:
        return [*value.fields, *characters.OWN_FIELDS]
    if kind is Encounter:
        return list(characters.ENCOUNTER_FIELDS)
    if isinstance(value, Record):
        return list(value.fields)
    if kind is Module:
        return list(value.scope.vars)
    if kind is Table:
        return [row for row in value.rows if row]  # the unnamed row is read with [...], not a field
    if kind is DiceRoll or kind is KeepRoll:
        return list(ROLL_FIELDS)
    return []


def get_index(ev: Run, value, key, span: Span):
    kind = type(value)
    if kind is list:
        return value[list_position(value, key, span)]
    if kind is TableRow:
        return look_up(value, key, span)
    if kind is Table:
        if type(key) is str and key in value.rows:
            return value.rows[key]
        if None in value.rows:
            return look_up(value.rows[None], key, span)
        raise MechError(f"table `{value.name}` has no row {format_value(key)}", span,
                        hint=did_you_mean(str(key), [r for r in value.rows if r]))
    if isinstance(value, Record):
        if type(key) is str and key in value.fields:
            return value.fields[key]
        raise MechError(f"this record has no field {format_value(key)}", span)
    if kind is Character and type(key) is str:  # `c[stat]`: a field chosen at run time
        return characters.get_field(value, key, span, ev)
    raise MechError(f"{type_name(value)} cannot be indexed", span)


def look_up(row: TableRow, key, span: Span):
    key = plain_key(key)
    if type(key) in KEYED:
        if key in row.keyed:
            return row.keyed[key]
    else:
        for entry_key, value in row.entries:
            if equal(entry_key, key):
                return value
    if row.thresholds and type(key) in (int, Fraction):
        for entry_key, value in row.entries:
            if type(entry_key) in (int, Fraction) and key >= entry_key:
                return value
    if row.has_default:
        return row.default
    raise MechError(f"`{row.name}` has no entry for {format_value(key)}", span, hint="add a last entry `else => ...`")


def list_position(items: list, key, span: Span) -> int:
    key = plain_key(key)
    if type(key) is not int:
        raise MechError(f"a list is indexed by a whole number, not {type_name(key)}", span)
    if not -len(items) <= key < len(items):
        raise MechError(f"index {key} is outside the list ({len(items)} items, counted from 0)", span)
    return key
