"""Runtime values of scripts besides numbers, bools, strings, lists and rolls, and the few
operations every part of the interpreter shares: naming a value's type, equality, showing a value.

`none` is Python's None; lists are Python lists; strings are Python strings.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from operator import attrgetter

from ..dice.engine import DiceRoll
from ..dice.rollkeep import KeepRoll, Pool
from ..limits import limit_error


class Scope:
    """Variables of one block, function call or script; `uses` are the modules a script uses,
    searched after its own variables."""

    __slots__ = ("vars", "parent", "uses")

    def __init__(self, parent: "Scope | None" = None, variables: dict | None = None):
        self.vars = variables if variables is not None else {}
        self.parent = parent
        self.uses: tuple = ()

    def find(self, name: str) -> "Scope | None":
        """The scope that holds `name` (its own, an enclosing one, or a used module's)."""
        scope = self
        while scope is not None:
            if name in scope.vars:
                return scope
            for module in scope.uses:
                if name in module.scope.vars:
                    return module.scope
            scope = scope.parent
        return None


class Function:
    """A user function: its parameters, compiled body, and the scope it was defined in. A call's
    scope holds the parameters and, beside them, the names its body block declares (`frame`:
    each name UNSET until its `let` runs)."""

    __slots__ = ("name", "params", "body", "scope", "frame")

    def __init__(self, name: str, params: list[str], body, scope: Scope, frame: dict | None = None):
        self.name, self.params, self.body, self.scope = name, params, body, scope
        self.frame = frame or None


class Record:
    """A record `{name: "Punch", hp: 10}`: fixed fields, mutable values. The fields are the
    object's own attributes (its `__dict__`), so that written code reads `r.hp` (backend/).
    Made by `record_of(fields)`, or, in the written code, as an object of its shape's class
    (`record_shape`), a subclass. It has no `__init__`, so making one is Python's own making of
    an object, with no frame."""

    __slots__ = ("__dict__",)
    fields = property(attrgetter("__dict__"))   # name -> value, the very dict of the attributes

    def __reduce__(self):
        # a shape is made at run time, so it has no name pickle could find: a copy or a pickle is a
        # plain record, its fields given after it is made (a record may hold itself)
        return Record, (), dict(self.__dict__)


def record_of(fields: dict) -> Record:
    """A record whose fields are the dict `fields` itself."""
    made = Record()
    made.__dict__ = fields
    return made


# the shapes made so far, by their field names in order
_SHAPES: dict[tuple[str, ...], type] = {}


def record_shape(names: tuple[str, ...]) -> type:
    """The class of the records of these fields, in this order: a subclass of Record that adds
    nothing, made once a process. The written code makes a record of a known shape as
    `Shape()` and sets its fields one by one (backend/expressions.e_Record): Python keeps the
    field names once for each class and the values beside the object. That is about 70 ns a
    record of 2 fields and 170 of 27, against 150 and 950 for `Record()` given a dict, with the
    shapes of a run in play. A test for a record is therefore `isinstance(value, Record)`, never
    `type(value) is Record`."""
    shape = _SHAPES.get(names)
    if shape is None:
        shape = _SHAPES[names] = type("Record", (Record,), {"__slots__": ()})
    return shape


class Module:
    """A used module: its name and the scope its top level ran in. Replacing a rule
    (`fn pbem.to_hit`) replaces the entry in this scope, so the module's own callers see it."""

    __slots__ = ("name", "scope")

    def __init__(self, name: str, scope: Scope):
        self.name, self.scope = name, scope


class TableRow:
    """One row of a table: (key, value) entries in the order written, and an `else` value.
    A look-up takes the entry whose key equals the value. A row whose number keys are written from
    highest to lowest is a row of thresholds: failing an equal key, the first key the value reaches
    (value >= key) gives the entry: `14 => "overkill", 8 => "success", 7 => "mixed", else => ...`.
    Other rows (`1 => "a rival", 2 => "a debt"`) need an equal key."""

    __slots__ = ("name", "entries", "default", "has_default", "thresholds", "keyed")

    def __init__(self, name: str, entries: list, default, has_default: bool):
        self.name, self.default, self.has_default = name, default, has_default
        self.set_entries(entries)

    def set_entries(self, entries: list) -> None:
        self.entries = entries
        numbers = [key for key, _ in entries if type(key) is int or type(key) is Fraction]
        self.thresholds = bool(numbers) and all(a > b for a, b in zip(numbers, numbers[1:]))
        # key -> the first entry `equal` finds for it, for a key that is a number, a string or none:
        # among such keys Python's == and hash are `equal` (true and false are left out: Python has
        # True == 1), and no entry of another kind equals one
        self.keyed = {}
        for key, value in entries:
            if type(key) in KEYED:
                self.keyed.setdefault(key, value)


KEYED = (int, Fraction, str, type(None))   # the kinds of key TableRow.keyed holds


class Table:
    __slots__ = ("name", "rows")

    def __init__(self, name: str, rows: dict):
        self.name, self.rows = name, rows


class Kind:
    """A kind of character declared by `kind` (its schema, compiled), and the scope it was declared
    in: its formulas see that scope, and an encounter of its characters is fought by the `fight`
    rule found there."""

    __slots__ = ("name", "schema", "home")

    def __init__(self, name: str, schema, home: Scope):
        self.name, self.schema, self.home = name, schema, home


class Character:
    """A character, or a gear item, of a kind: its stats, derived values, state and gear by name.
    Only state changes; `side` is set by the encounter it fights in."""

    __slots__ = ("name", "kind", "side", "declared", "recipe", "__dict__")
    # its stats, derived values, state and gear by name: the object's own attributes, as a record's
    fields = property(attrgetter("__dict__"))

    def __init__(self, name: str, kind: Kind, fields: dict):
        self.name, self.kind, self.side = name, kind, None
        self.declared = None  # (name, span, source, filename) of its declaration: where errors about its sheet point
        self.recipe = None  # what it was made of, for `make(it, ...)`: characters.make_like
        self.__dict__ = fields


class Encounter:
    """An encounter: its sides (in the order written), everyone in it, the rounds played, and its
    `until` condition with the scope that condition reads."""

    __slots__ = ("name", "sides", "characters", "round", "until", "scope", "settings", "span", "source")

    def __init__(self, name: str, sides: list, until, scope: Scope, settings: list, span, source: tuple):
        self.name, self.sides, self.until, self.scope, self.settings, self.span = name, sides, until, scope, settings, span
        self.source = source  # (text, filename) of the script declaring it: where its spans point
        self.characters = [member for _, members in sides for member in members]
        self.round = 0


def type_name(value) -> str:
    kind = type(value)
    if kind is bool:
        return "true/false"
    if kind is int or kind is Fraction:
        return "a number"
    if kind is DiceRoll or kind is KeepRoll:
        return "a roll"
    if kind is Character:
        return f"{value.name} (a {value.kind.name})"
    if isinstance(value, Record):   # of any shape
        return "a record"
    return _TYPE_NAMES.get(kind) or getattr(kind, "TYPE_NAME", "a value")  # a distribution names itself (odds.py)


_TYPE_NAMES = {
    str: "a string", list: "a list", type(None): "none", Pool: "a pool", Function: "a function",
    Module: "a module", Table: "a table", TableRow: "a table row", Kind: "a kind",
    Encounter: "an encounter",
}


def format_value(value, limits=None) -> str:
    """A value as `say` and string interpolation show it: rolls as their totals, fractions as 7/2.
    With `limits`, a text longer than `string_size` or lists nested deeper than `nesting` (a list
    holding itself) are errors."""
    if limits is not None:
        parts: list[str] = []
        _write(value, parts, [limits.string_size], limits, 0)
        return "".join(parts)
    kind = type(value)
    if kind is str:
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "none"
    if kind is int:
        return _digits(value)
    if kind is Fraction:
        return f"{_digits(value.numerator)}/{_digits(value.denominator)}"
    if kind is DiceRoll or kind is KeepRoll:
        return format_value(value.total)
    if kind is list:
        return "[" + ", ".join(_quoted(v) for v in value) + "]"
    if isinstance(value, Record):
        return "{" + ", ".join(f"{k}: {_quoted(v)}" for k, v in value.fields.items()) + "}"
    if kind is Pool:
        return value.notation
    if kind is Function:
        return f"<fn {value.name}>"
    if kind is Module:
        return f"<module {value.name}>"
    if kind is Table:
        return f"<table {value.name}>"
    if kind is TableRow:
        return f"<table row {value.name}>"
    if kind is Character or kind is Encounter:
        return value.name
    if kind is Kind:
        return f"<kind {value.name}>"
    shown = getattr(value, "mech_fn", None)   # a `fn` written as Python by the back end (backend/quiet.py)
    if type(shown) is str:
        return f"<fn {shown}>"
    return str(value)


def _digits(n: int) -> str:
    # Python refuses to print whole numbers of more than 4300 digits; only a raised `number_bits`
    # limit lets one be made.
    return str(n) if n.bit_length() < 14_000 else f"<a number of {len(hex(n)) * 6 // 5} digits>"


def to_json(value):
    """A value as JSON: rolls as their totals, numbers as number_json writes them, pools as their notation."""
    kind = type(value)
    if kind is DiceRoll or kind is KeepRoll:
        return to_json(value.total)
    if kind is Fraction or kind is int:
        return number_json(value)
    if kind is list:
        return [to_json(v) for v in value]
    if isinstance(value, Record):
        return {k: to_json(v) for k, v in value.fields.items()}
    if kind in (int, bool, str, type(None)):
        return value
    return format_value(value)


JSON_WHOLE_BITS = 14_000   # a whole number of more bits is written as a string: Python prints no more digits


def number_json(x: int | Fraction) -> int | float | str:
    """A number as JSON, never failing (README, "Numbers in JSON"): a whole number as an integer, all
    its digits; a fraction as a float when it lies in a float's normal range (a float near enough to
    it, with its 17 digits); outside it (a float would overflow, or lose its digits and become 0),
    exactly, as the string "NUM/DEN"."""
    if type(x) is Fraction and x.denominator == 1:  # a mean, a sum of fractions: whole after all
        x = x.numerator
    if type(x) is int:
        return x if x.bit_length() < JSON_WHOLE_BITS else format_value(x)
    return float(x) if fits_float(x) else format_value(x)


def float_json(x: int | Fraction) -> int | float | str:
    """A statistic (a chance, a mean) as JSON: a float where a float holds it, whole or not (as it
    always was), else exactly as number_json writes it."""
    return float(x) if fits_float(x) else number_json(x)


def fits_float(x: int | Fraction) -> bool:
    """Whether x lies in a float's normal range (or is 0): a float neither overflows nor loses digits."""
    if x == 0:
        return True
    # Told by the sizes of its parts when it is far within the range (2**-1022 to 2**1024): the
    # exact comparisons make a Fraction of each float, 20 microseconds, a second for the chances
    # of the 234,000 outcomes of `7k10 * 7k10` written as JSON.
    size = abs(x).bit_length() if type(x) is int else abs(x.numerator).bit_length() - x.denominator.bit_length()
    if -1000 < size < 1000:
        return True
    return sys.float_info.min <= abs(x) <= sys.float_info.max  # exact comparisons


def _write(value, parts: list, room: list, limits, depth: int) -> None:
    """format_value piece by piece, stopping once the text outgrows the room left."""
    kind = type(value)
    if depth > limits.nesting:
        raise limit_error("nesting", f"this value has lists or records nested more than {limits.nesting} deep",
                          limits.nesting, None)
    record = isinstance(value, Record)
    if kind is list or record:
        items = value if kind is list else value.fields.items()
        parts.append("[" if kind is list else "{")
        room[0] -= 1
        for i, item in enumerate(items):
            if i:
                parts.append(", ")
                room[0] -= 2
            if record:
                parts.append(f"{item[0]}: ")
                room[0] -= len(item[0]) + 2
                item = item[1]
            if type(item) is str:
                parts.append(f'"{item}"')
                room[0] -= len(item) + 2
            else:
                _write(item, parts, room, limits, depth + 1)
            if room[0] < 0:
                break
        parts.append("]" if kind is list else "}")
        room[0] -= 1
    else:
        text = format_value(value)
        parts.append(text)
        room[0] -= len(text)
    if room[0] < 0:
        raise limit_error("string_size", "this value is too long to show", limits.string_size, None)


def _quoted(value) -> str:
    return '"' + value + '"' if type(value) is str else format_value(value)


# Characters of string work (comparing, joining, showing) that count one step against `steps`: a
# shorter string costs no step for its length.
TEXT_STEP = 100


def plain(value):
    """Rolls compare and print as their totals."""
    kind = type(value)
    return value.total if kind is DiceRoll or kind is KeepRoll else value


def equal(a, b, ev=None, depth: int = 0) -> bool:
    """`==`: numbers by value (a roll by its total), everything else by kind and content.
    Comparing lists and records counts a step an item against the run's limits (`ev`), all the
    items of a list at once before the first (as `contains` does), and again for the items of each
    list inside: so a comparison of long lists in a loop is counted as the work it is (two lists of
    10^5 numbers were a step a comparison), and values that share parts, or hold themselves, cannot
    make it endless. Strings of one length count a step a TEXT_STEP characters (as joining them
    does): Python compares them a block of memory at a time, far below a step a character, but two
    of 10^5 characters compared in a loop were work never counted."""
    a, b = plain(a), plain(b)
    kind = type(a)
    if kind is str and type(b) is str:
        if ev is not None and len(a) >= TEXT_STEP and len(a) == len(b):  # of other lengths: told apart at once
            ev.step(None, len(a) // TEXT_STEP)
        return a == b
    if kind is bool or type(b) is bool:
        return kind is type(b) and a == b
    if kind in (int, Fraction) and type(b) in (int, Fraction):   # the usual case, before the tests of records
        return a == b
    if kind is list and type(b) is list or isinstance(a, Record) and isinstance(b, Record):
        if a is b:
            return True
        size = len(a) if kind is list else len(a.fields)
        same_size = size == (len(b) if kind is list else len(b.fields))
        if ev is not None:
            ev.step(None, size if same_size and size else 1)  # of different sizes: told apart at once
            if depth > ev.limits.nesting:
                raise limit_error("nesting", f"these values have lists or records nested more than "
                                  f"{ev.limits.nesting} deep", ev.limits.nesting, None)
        if kind is list:
            return same_size and all(equal(x, y, ev, depth + 1) for x, y in zip(a, b))
        return same_size and a.fields.keys() == b.fields.keys() and all(equal(v, b.fields[k], ev, depth + 1)
                                                          for k, v in a.fields.items())
    return kind is type(b) and a == b if kind in (str, type(None), Pool) else a is b
