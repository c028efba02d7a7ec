"""The built-in functions, each with its arity, options and a one-line doc with an example.
Those that go through a list count a step an item against `Limits.steps`.

An implementation takes the running evaluation, the argument values, the option values and the
call node (for the positions of errors).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..dice.engine import DiceRoll
from ..dice.rollkeep import KeepRoll, Pool, pool_of
from ..numbers import normal
from ..errors import Failed, MechError, did_you_mean
from ..limits import limit_error
from .characters import ended, make_like
from .lookup import field_names
from .show import roll_text
from .values import Character, Encounter, Kind, equal, format_value, plain, type_name


class Builtin:
    __slots__ = ("name", "min_args", "max_args", "options", "doc", "impl")

    def __init__(self, name, min_args, max_args, options, doc, impl):
        self.name, self.min_args, self.max_args = name, min_args, max_args
        self.options, self.doc, self.impl = options, doc, impl

    def arity_text(self) -> str:
        if self.min_args == self.max_args:
            return f"{self.min_args} argument{'' if self.min_args == 1 else 's'}"
        if self.max_args is None:
            return f"at least {self.min_args} argument{'' if self.min_args == 1 else 's'}"
        return f"{self.min_args} to {self.max_args} arguments"


BUILTINS: dict[str, Builtin] = {}

# The options of a builtin taking any name as an option (`make`'s are the stats of the kind it makes)
ANY_OPTION = None

# Functions whose argument is a distribution, not a roll: compiled by odds.py from the argument's AST.
NOT_ROLLED = ("prob", "dist", "mean")


def builtin(name: str, min_args: int, max_args: int | None, doc: str, options: tuple | None = ()):
    def register(impl):
        BUILTINS[name] = Builtin(name, min_args, max_args, options, doc, impl)
        return impl
    return register


def round_half_away(x):
    """`round` as a game master expects it: 5/2 -> 3, -5/2 -> -3 (not Python's banker's rounding)."""
    return int(math.floor(abs(x) + Fraction(1, 2))) * (1 if x >= 0 else -1)


def _numbers(ev, args, call):
    return [ev.number(value, node.span) for value, node in zip(args, call.args)]


def _list(value, node, what: str) -> list:
    if type(value) is not list:
        raise MechError(f"{what} takes a list, not {type_name(value)}", node.span)
    return value


@builtin("floor", 1, 1, "floor(x): round down: floor(7/2) is 3")
def _floor(ev, args, options, call):
    return math.floor(_numbers(ev, args, call)[0])


@builtin("ceil", 1, 1, "ceil(x): round up: ceil(7/2) is 4")
def _ceil(ev, args, options, call):
    return math.ceil(_numbers(ev, args, call)[0])


@builtin("round", 1, 1, "round(x): the nearest whole number, halves away from zero: round(5/2) is 3")
def _round(ev, args, options, call):
    return round_half_away(_numbers(ev, args, call)[0])


@builtin("abs", 1, 1, "abs(x): distance from zero: abs(-3) is 3")
def _abs(ev, args, options, call):
    return abs(_numbers(ev, args, call)[0])


def _extreme(pick):
    def impl(ev, args, options, call):
        if len(args) == 1 and type(args[0]) is list:
            ev.step(call.span, len(args[0]))
            if not args[0]:
                raise MechError("an empty list has no smallest or largest value", call.args[0].span)
            return pick(ev.number(v, call.args[0].span) for v in args[0])
        return pick(_numbers(ev, args, call))
    return impl


builtin("min", 1, None, "min(a, b, ...) or min(list): the smallest: min(2d6, 8)")(_extreme(min))
builtin("max", 1, None, "max(a, b, ...) or max(list): the largest: max(d20, d20)")(_extreme(max))


@builtin("roll", 1, 1, "roll(pool, explode: false): roll a pool with options: roll(7k3, explode: false) "
         "for a Fatigued character", options=("explode",))
def _roll(ev, args, options, call):
    pool = args[0]
    if type(pool) is not Pool:
        raise MechError(f"`roll` takes a roll-and-keep pool such as 7k3, not {type_name(pool)}",
                        call.args[0].span, hint=BUILTINS["roll"].doc)
    explode = options.get("explode", True)
    if type(explode) is not bool:
        raise MechError("`explode` is true or false", call.kwargs["explode"].span)
    return ev.roll_pool(pool, explode)


@builtin("pool", 2, 2, "pool(rolled, kept): a roll-and-keep pool from numbers: pool(strength / 2, 2) + 1k0")
def _pool(ev, args, options, call):
    unkept, kept = _numbers(ev, args, call)   # numbers are normal already: an int when whole
    return pool_of(unkept, kept, 0, call.span)


@builtin("decimal", 2, 2, 'decimal(x, places): x as text with that many decimals, halves away from zero: '
         'decimal(337/5, 1) is "67.4"')
def _decimal(ev, args, options, call):
    x, places = _numbers(ev, args, call)
    if type(places) is not int or not 0 <= places <= 30:
        raise MechError("`decimal` shows 0 to 30 decimal places", call.args[1].span)
    scaled = round_half_away(Fraction(x) * 10 ** places)
    sign, digits = ("-" if scaled < 0 else ""), str(abs(scaled)).rjust(places + 1, "0")
    return sign + (digits[:-places] + "." + digits[-places:] if places else digits)


@builtin("len", 1, 1, "len(x): the number of items of a list, or characters of a string: len([1, 2]) is 2")
def _len(ev, args, options, call):
    if type(args[0]) not in (list, str):
        raise MechError(f"`len` takes a list or a string, not {type_name(args[0])}", call.args[0].span)
    return len(args[0])


@builtin("push", 2, 2, "push(list, x): add x at the end of the list: push(targets, Punch)")
def _push(ev, args, options, call):
    items = _list(args[0], call.args[0], "`push`")
    if len(items) >= ev.limits.list_size:
        raise limit_error("list_size", f"the list would grow past {ev.limits.list_size} items",
                          ev.limits.list_size, call.span)
    items.append(args[1])
    return None


@builtin("range", 1, 2, "range(n) is [1, ..., n]; range(a, b) is [a, ..., b]: for round in range(1, 20) { ... }")
def _range(ev, args, options, call):
    numbers = _numbers(ev, args, call)
    if any(type(n) is not int for n in numbers):
        raise MechError("`range` takes whole numbers", call.span)
    start, end = (1, numbers[0]) if len(numbers) == 1 else numbers
    if end - start + 1 > ev.limits.list_size:
        raise limit_error("list_size", f"range({start}, {end}) would have more than {ev.limits.list_size} items",
                          ev.limits.list_size, call.span)
    ev.step(call.span, max(0, end - start + 1))
    return list(range(start, end + 1))


@builtin("sum", 1, 1, "sum(list): the numbers of a list added up: sum([3, 4]) is 7")
def _sum(ev, args, options, call):
    items = _list(args[0], call.args[0], "`sum`")
    ev.step(call.span, len(items))
    return normal(sum(ev.number(v, call.args[0].span) for v in items))


@builtin("sorted", 1, 1, "sorted(list): a copy, smallest first: sorted([3, 1, 2]) is [1, 2, 3]")
def _sorted(ev, args, options, call):
    items = [plain(v) for v in _list(args[0], call.args[0], "`sorted`")]
    ev.step(call.span, len(items))
    kinds = {str if type(v) is str else int for v in items if type(v) in (str, int, Fraction)}
    if len(kinds) > 1 or any(type(v) not in (str, int, Fraction) for v in items):
        raise MechError("`sorted` takes a list of numbers or a list of strings", call.args[0].span)
    return sorted(items)


@builtin("lower", 1, 1, 'lower(text): the text in small letters: lower("Shooting") is "shooting"')
def _lower(ev, args, options, call):
    if type(args[0]) is not str:
        raise MechError(f"`lower` takes a string, not {type_name(args[0])}", call.args[0].span)
    return args[0].lower()


@builtin("contains", 2, 2, 'contains(list, x): whether x is in the list: contains(["dodge"], "dodge") is true')
def _contains(ev, args, options, call):
    items = _list(args[0], call.args[0], "`contains`")
    ev.step(call.span, len(items))
    try:
        return any(equal(item, args[1], ev) for item in items)
    except MechError as error:  # a limit reached comparing big lists: it happened at this call, as for `==`
        if error.span is None:
            error.span = call.span
        raise


@builtin("has", 2, 2, 'has(x, "name"): whether x has that field, so that x.name can be read: '
         'has(c, "shield") is true for a character whose kind has a shield')
def _has(ev, args, options, call):
    value, name = args
    if type(name) is not str:
        raise MechError(f"`has` takes the field's name as a string, not {type_name(name)}", call.args[1].span,
                        hint='has(c, "shield")')
    if type(value) is Pool:
        return name in ("rolled", "kept", "bonus", "notation")
    # a value without fields (a number, a list, none) has none of them
    return name in field_names(value)


@builtin("is_a", 2, 2, 'is_a(c, "Unit"): whether c is a character of that kind or of a kind extending it: '
         'is_a(c, "Unit") is true for an Npc when `kind Npc extends Unit` (c.kind is "Npc")')
def _is_a(ev, args, options, call):
    character, name = args
    if type(character) is not Character:
        raise MechError(f"`is_a` takes a character, not {type_name(character)}", call.args[0].span)
    if type(name) is not str:
        raise MechError(f"`is_a` takes the kind's name as a string, not {type_name(name)}", call.args[1].span,
                        hint='is_a(c, "Unit")')
    if name in character.kind.schema.lineage:
        return True
    # a misspelt kind would be a test that is never true: the name must be a kind the character's rules know
    scope = character.kind.home.find(name)
    if scope is None or type(scope.vars[name]) is not Kind:
        known = [n for n, v in character.kind.home.vars.items() if type(v) is Kind]
        raise MechError(f"`is_a` asks for kind `{name}`, which {character.name}'s rules do not declare",
                        call.args[1].span, hint=did_you_mean(name, known) or "kinds: " + ", ".join(sorted(known)))
    return False


@builtin("ended", 1, 1, "ended(encounter): whether the encounter's `until` holds before its next round "
         "(rules modules call it in `fight`): while not ended(encounter) { ... }")
def _ended(ev, args, options, call):
    if type(args[0]) is not Encounter:
        raise MechError(f"`ended` takes an encounter, not {type_name(args[0])}", call.args[0].span)
    return ended(ev, args[0], call.span)


@builtin("make", 2, 2, 'make(kind, name, stat: value, ...): a new character of the kind, its stats given as '
         'options; make(character, name, ...): one like that character, the stats given changed: '
         'make(Drone, "Drone {n}", skill: skill)', ANY_OPTION)
def _make(ev, args, options, call):
    return make_like(ev, args[0], args[1], options, call)


@builtin("fail", 1, 2, 'fail(message): stop the script with this message as its error: fail("no such side"); '
         'fail(message, character): an error about that character\'s sheet, shown at its declaration: '
         'fail("a Brute Squad has no Personalities", c)')
def _fail(ev, args, options, call):
    error = Failed(format_value(args[0], ev.limits), call.span)
    if len(args) == 2:
        if type(args[1]) is not Character:
            raise MechError(f"`fail`'s second argument is the character the error is about, not {type_name(args[1])}",
                            call.args[1].span)
        if args[1].declared is not None:  # a character made by Python has no declaration to point at
            error.for_character(*args[1].declared)
    raise error


@builtin("breakdown", 1, 1, 'breakdown(roll): a roll as text with its dice, as `mech roll` shows it: '
         'breakdown(roll(7k3)) is "7k3: 14 9 8 (6 5 3 2) = 31"')
def _breakdown(ev, args, options, call):
    if type(args[0]) not in (DiceRoll, KeepRoll):
        raise MechError(f"`breakdown` shows a roll, not {type_name(args[0])}", call.args[0].span,
                        hint="breakdown(roll(7k3)), or breakdown(3d6) where 3d6 is rolled")
    return roll_text(args[0])
