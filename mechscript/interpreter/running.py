"""How the closures run: a run's evaluation (`Run`), calls and returns, reading and setting names,
fields and elements, truth and text, and the errors of running code (script.py compiles to these)."""

from __future__ import annotations

from ..dice.engine import DROPPED, REROLLED, DiceRoll
from ..dice.faces import FaceSource
from ..dice.rollkeep import KeepRoll, Pool
from ..numbers import normal
from ..errors import MechError, Span, did_you_mean
from .evaluator import Evaluation
from ..limits import Limits, limit_error
from .lookup import ROLL_FIELDS, field_names, list_position
from .names import UNSET
from . import characters
from .values import Character, Encounter, Function, Module, Record, Scope, Table, format_value, type_name


# ---- running ----

class Run(Evaluation):
    """One run of a script: the evaluation's dice, plus its scopes, counters, log and modules."""

    __slots__ = ("scope", "depth", "log", "quiet", "modules", "encounters", "encounter", "result")

    def __init__(self, source: FaceSource, limits: Limits, quiet: bool = False):
        super().__init__(source, limits)
        self.scope: Scope | None = None
        self.depth = 0
        self.log: list[str] = []
        self.quiet = quiet  # nobody reads the log (a batch): `say` works out its parts, not its text
        self.modules: dict[str, Module] = {}
        self.encounters: dict[str, Encounter] = {}  # by name, each once its declaration has run
        self.encounter: Encounter | None = None  # the one fought, once the top level has run
        self.result: dict | None = None          # the encounter's, once fought

    def call(self, function: Function, args: list, span: Span):
        """Calls a script function from Python (the encounter's rules)."""
        return call_function(self, function, args, span)


class Returned:
    """What a statement gives when a `return` ran in it: blocks and loops stop and hand it on to the
    function call. Every other statement gives None."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class ReturnSignal(Exception):
    """A `return` in a block that is an arm of a `match` expression unwinds to its function call
    this way, as an expression cannot hand a Returned on."""

    def __init__(self, value):
        self.value = value


def call_function(ev: Run, function: Function, args: list, span: Span):
    if len(args) != len(function.params):
        raise MechError(f"`{function.name}` takes {counted(len(function.params), 'argument')}, not {len(args)}",
                        span, hint=f"fn {function.name}({', '.join(function.params)})")
    ev.depth += 1
    if ev.depth > ev.limits.recursion:
        raise too_deep_calls(ev, span)
    ev.steps += 1
    if ev.steps > ev.step_limit:
        ev.step(span, 0)  # raises the limit's error
    variables = dict(zip(function.params, args))
    if function.frame is not None:
        variables.update(function.frame)
    saved = ev.scope
    ev.scope = Scope(function.scope, variables)
    try:
        return function.body(ev)
    except ReturnSignal as signal:
        return signal.value
    except RecursionError:  # Python's own stack, before `Limits.recursion` was reached
        raise python_stack(ev, span) from None
    finally:
        ev.scope = saved
        ev.depth -= 1


def counted(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---- errors and checks of running code ----

def unset(name: str, span: Span) -> MechError:
    return MechError(f"`{name}` has no value yet: its `let` has not run", span)


def too_deep_calls(ev: Run, span: Span) -> MechError:
    return limit_error("recursion", f"functions called each other more than {ev.limits.recursion} deep",
                       ev.limits.recursion, span)


def python_stack(ev: Run, span: Span) -> MechError:
    return MechError(f"functions called each other {ev.depth} deep, more than Python's stack allows", span,
                     hint=f"keep the `recursion` limit lower (it is {ev.limits.recursion})")


def too_many_lines(ev: Run, span: Span) -> MechError:
    return limit_error("output_lines", f"the script said more than {ev.limits.output_lines} lines",
                       ev.limits.output_lines, span)


def too_long(ev: Run, text: str, span: Span) -> MechError:
    return limit_error("string_size", f"a string of {len(text)} characters is too long", ev.limits.string_size, span)


def not_a_list(value, span: Span) -> MechError:
    return MechError(f"`for` goes through a list, not {type_name(value)}", span,
                     hint="for i in range(1, 6) { ... } counts 1 to 6")


def not_callable(value, span: Span) -> MechError:
    return MechError(f"only functions can be called, and this is {type_name(value)}", span)


def no_arm(value, span: Span) -> MechError:
    return MechError(f"no arm of this `match` fits {format_value(value)}", span, hint="add a last arm `else => ...`")


def for_too_long(ev: Run, items: list, span: Span) -> None:
    """Raises the error of a `for` charged past a limit. A `for` is charged its whole length when it
    starts, once, with no count a round (it may still leave early): `ev.steps += len(items)`, then
    `if ev.steps > ev.step_limit or len(items) > ev.limits.loop_iterations: for_too_long(...)`."""
    if len(items) > ev.limits.loop_iterations:
        raise limit_error("loop_iterations", f"a `for` over {len(items)} items is more rounds than one loop may run",
                          ev.limits.loop_iterations, span)
    ev.step(span, 0)


def repeat_count(ev: Run, value, span: Span) -> int:
    """`repeat`'s count: a whole number, 0 or more, within `loop_iterations`."""
    count = ev.number(value, span)
    if type(count) is not int:
        raise MechError(f"`repeat`'s count must be a whole number, not {format_value(count)}", span)
    if count < 0:
        raise MechError(f"`repeat` needs 0 or more rounds, not {format_value(count)}", span)
    if count > ev.limits.loop_iterations:
        raise limit_error("loop_iterations", f"`repeat {format_value(count)}` is more rounds than one loop may run",
                          ev.limits.loop_iterations, span)
    return count



def scope_holding(ev: Run, hops: int, module: int | None) -> Scope:
    """The runtime scope holding a name `hops` scopes up (StaticScope.locate), or the scope of the
    `module`-th module used there."""
    scope = ev.scope
    for _ in range(hops):
        scope = scope.parent
    return scope if module is None else scope.uses[module].scope


def name_loader(hops: int, module: int | None, name: str, span: Span):
    """The code reading a name; the two commonest places, this scope and the one above, without a loop,
    and a name of the script's own scopes without a call."""
    if module is None and hops == 0:
        def load_here(ev):
            value = ev.scope.vars[name]
            if value is UNSET:
                raise unset(name, span)
            return value
        return load_here
    if module is None and hops == 1:
        def load_outer(ev):
            value = ev.scope.parent.vars[name]
            if value is UNSET:
                raise unset(name, span)
            return value
        return load_outer
    if module is None:
        def load(ev):
            scope = ev.scope
            for _ in range(hops):
                scope = scope.parent
            value = scope.vars[name]
            if value is UNSET:
                raise unset(name, span)
            return value
        return load

    def load_used(ev):
        value = scope_holding(ev, hops, module).vars.get(name, UNSET)
        if value is UNSET:
            raise unset(name, span)
        return value
    return load_used


SHOWN_WHOLE = 10 ** 15  # whole numbers below this size are shown with str(), at once


def show(ev: Run, value, span: Span) -> str:
    """What `say` and "{...}" show: a pool is rolled (as `mech roll` rolls a pool left standing);
    the text may not outgrow `string_size` (a list holding itself, or shared many times)."""
    kind = type(value)
    if kind is str:
        if len(value) >= 100:
            ev.step(span, len(value) // 100)
        return value
    if kind is int and -SHOWN_WHOLE < value < SHOWN_WHOLE:
        return str(value)
    if kind is Pool:
        value = ev.roll_pool(value)
    try:
        text = format_value(value, ev.limits)
    except MechError as error:
        error.span = error.span or span
        raise
    ev.step(span, len(text) // 100)
    return text


def as_truth(value, span: Span) -> bool:
    if type(value) is not bool:
        raise MechError(f"expected true or false here, not {type_name(value)}", span,
                        hint="compare to get true or false: `hp > 0`, `roll == 10`")
    return value


def loop_round(ev: Run, rounds: int, span: Span) -> int:
    rounds += 1
    if rounds > ev.limits.loop_iterations:
        raise limit_error("loop_iterations", f"this loop ran more than {ev.limits.loop_iterations} rounds",
                          ev.limits.loop_iterations, span)
    ev.step(span)
    return rounds


def get_field(value, name: str, span: Span, ev=None):
    kind = type(value)
    if kind is Character or kind is Encounter:
        return characters.get_field(value, name, span, ev)
    if isinstance(value, Record):
        if name in value.fields:
            return value.fields[name]
        raise MechError(f"this record has no field `{name}`", span, hint=did_you_mean(name, field_names(value)))
    if kind is Module:
        if name in value.scope.vars:
            return value.scope.vars[name]
        raise MechError(f"module `{value.name}` has no `{name}`", span, hint=did_you_mean(name, field_names(value)))
    if kind is Table:
        if name in value.rows:
            return value.rows[name]
        raise MechError(f"table `{value.name}` has no row `{name}`", span, hint=did_you_mean(name, field_names(value)))
    if kind is DiceRoll or kind is KeepRoll:
        if name in ROLL_FIELDS:
            return roll_field(value, name)
        raise MechError(f"a roll has no field `{name}`", span,
                        hint=did_you_mean(name, ROLL_FIELDS) or "a roll has: " + ", ".join(ROLL_FIELDS))
    if kind is Pool and name in ("rolled", "kept", "bonus", "notation"):
        return value.notation if name == "notation" else \
            normal({"rolled": value.unkept, "kept": value.kept, "bonus": value.flat}[name])
    raise MechError(f"{type_name(value)} has no fields (looking for `{name}`)", span)


def roll_field(roll, name: str):
    """A roll's parts: `faces` every die that stands (in the order they fell; roll-and-keep: highest
    first), `kept` the dice that count, `dropped` the dice that do not."""
    if name == "total":
        return roll.total
    if type(roll) is KeepRoll:
        return {"faces": roll.kept + roll.dropped, "kept": list(roll.kept), "dropped": list(roll.dropped)}[name]
    flags = roll.flags or [0] * len(roll.values)
    standing = [(v, f) for v, f in zip(roll.values, flags) if not f & REROLLED]
    if name == "faces":
        return [v for v, _ in standing]
    if name == "kept":
        return [v for v, f in standing if not f & DROPPED]
    return [v for v, f in standing if f & DROPPED]


def set_field(value, name: str, new, span: Span) -> None:
    if isinstance(value, Record):
        if name not in value.fields:
            raise MechError(f"this record has no field `{name}`", span, hint=did_you_mean(name, value.fields))
        value.fields[name] = new
        return
    if type(value) is Module:
        value.scope.vars[name] = new
        return
    if type(value) is Character or type(value) is Encounter:
        characters.set_field(value, name, new, span)
        return
    raise MechError(f"cannot set a field of {type_name(value)}", span)


def set_index(ev: Run, value, key, new, span: Span) -> None:
    if type(value) is list:
        value[list_position(value, key, span)] = new
        return
    if (isinstance(value, Record) or type(value) is Character) and type(key) is str:
        set_field(value, key, new, span)
        return
    raise MechError(f"cannot set an element of {type_name(value)}", span)
