"""What the Python written by emit.py calls at run time besides the interpreter's own helpers.

The written code handles the common cases inline and stops (`Bail`) at anything unusual: a value
that is not true or false where one is needed, a limit reached, a name read before its `let` ran.
It never words an error itself. The run that bailed is played again by the closures, from its seed,
and that run gives the error the user reads: the same message, at the same place, as ever.
"""

from __future__ import annotations

from ..interpreter.values import Record, Table, TableRow


class Bail(Exception):
    """The written code met something it leaves to the closures: replay this run there."""


def bail(*_):
    raise Bail()


def fresh(value):
    """A copy of `value` for a new run: lists and records copied all the way down (what a run made
    anew each time), anything else (characters, functions, numbers, strings) as it is."""
    kind = type(value)
    if kind is list:
        return [fresh(item) for item in value]
    if kind is Record:
        return Record({name: fresh(item) for name, item in value.fields.items()})
    if kind is Table and any(mutable(v) for row in value.rows.values() for v in _row_values(row)):
        rows = {name: TableRow(row.name, [(key, fresh(v)) for key, v in row.entries], fresh(row.default),
                               row.has_default) for name, row in value.rows.items()}
        return Table(value.name, rows)
    return value


def _row_values(row):
    yield row.default
    for _, value in row.entries:
        yield value


def mutable(value) -> bool:
    """Whether `fresh` copies anything of `value`."""
    return type(value) is list or type(value) is Record
