"""One run of a batch: fought whole (`fight_once`, as `mech run --seed` fights it), or restored from
a set-up done once per process (`Prepared`).

A script's top level (its modules' top levels, house rules, characters, the encounter) usually rolls
no dice and so gives the same every run. `Prepared.of` runs it once, then snapshots what a fight
may change: the variables of the script's and every module's scope (a rules module's options are
its top-level `let`s, which a fight may set), each character's state and every field holding a
list or a record, the lists and records in tables, the encounter's settings, and the counters the
top level left (steps, the lines said). Each run then takes a fresh evaluation with the run's dice,
restores the snapshot (lists and records as fresh copies; characters, functions, modules, kinds and
tables as they are) and fights, as `characters.fight` fights after the top level.

That is exact only where the snapshot is all a run depends on, so `Prepared.of` gives None, and the
batch fights every run whole, when the top level draws a die (or fails), when a list or record of
the snapshot is reachable from two places (two copies would no longer be one value), or when a run
could reach what the snapshot does not hold: a function or kind made in a block or a call (its
scope), a value of any other type (a roll). A run that fails is fought again whole by the batch,
for its error exactly as `mech run` words it.
"""

from __future__ import annotations

from fractions import Fraction

from ..dice.faces import RandomFaces
from ..dice.rollkeep import Pool
from ..interpreter import characters
from ..interpreter.characters import module_rule, state_numbers
from ..errors import MechError
from ..limits import CpuTime
from ..interpreter.names import UNSET
from ..interpreter.odds import Distribution
from ..interpreter.running import Run
from ..interpreter.script import Script
from ..interpreter.values import Character, Encounter, Function, Kind, Module, Record, Scope, Table, TableRow, \
    record_of


class NothingToSimulate(MechError):
    """The script declares no encounter: the batch's error, not one run's (no seed replays it)."""

    def __init__(self):
        super().__init__("this script declares no encounter, so there is nothing to simulate",
                         hint='declare one: encounter "name" { side a: ...  side b: ... }')


def fight_once(script: Script, seed: int):
    """One run fought whole: (winner, rounds, {name: (standing, {numeric state})}), the encounter's
    name, its sides."""
    return outcome(run_once(script, seed))


def run_once(script: Script, seed: int) -> Run:
    """One run fought whole, as `mech run --seed` fights it. Its error says in `rolled` whether a
    die was drawn before it."""
    faces = RandomFaces(seed)
    try:
        ev = script.run(faces, quiet=True)
    except MechError as error:
        error.rolled = faces.drawn()  # whether the seed matters to it: the batch names the seed only if so
        raise
    if ev.result is None:
        raise NothingToSimulate()
    return ev


# What `survives` counts when the rules do not say (a module's `let survival = "..."` says it)
SURVIVAL = "standing at the end, by the rules' `standing`"


def survival(encounter: Encounter) -> str:
    """What a character's `survives` counts in a batch of this encounter: its module's `survival`
    (each standard module says what its `standing` reads at the end), or SURVIVAL."""
    said = encounter.characters[0].kind.home.vars.get("survival")
    return said if type(said) is str else SURVIVAL


def outcome(ev: Run):
    """What a batch keeps of a run fought: see fight_once."""
    encounter = ev.encounter
    standing = module_rule(encounter.characters[0].kind.home, "standing", encounter)
    fought = {}
    for character, (name, state) in zip(encounter.characters, ev.result["characters"].items()):
        fought[name] = (ev.call(standing, [character], encounter.span) is True, state_numbers(state))
    return (ev.result["winner"], ev.result["rounds"], fought), encounter.name, [name for name, _ in encounter.sides]


class _Rolled(Exception):
    """The top level drew a die: what it made differs from run to run, so it cannot be set up once."""


class _RefusesDice:
    """The face source of the set-up: any draw at all (even of no dice, which still moves a
    RandomFaces) stops it."""

    def roll(self, n, die):
        raise _Rolled()


class _Unsafe(Exception):
    """Something a run may depend on that a snapshot cannot restore exactly."""


# Values that never change, kept as they are.
_CONSTANT = frozenset({int, Fraction, bool, str, type(None), Pool, Distribution, type(UNSET)})


def _maker(value):
    """None for a value a run gets as it is (numbers, characters, functions, ...); for a list or
    record, a function making a fresh copy of it as the top level left it, the lists and records in
    it copied all the way down. The copies are made from a private copy taken now, which no run sees."""
    kind = type(value)
    if kind is not list and not isinstance(value, Record):
        return None
    template = list(value) if kind is list else dict(value.fields)
    inner = [(key, make) for key, item in (enumerate(template) if kind is list else template.items())
             if (make := _maker(item)) is not None]
    if kind is list and not inner:
        return template.copy  # the common case: one call in C

    def make():
        made = template.copy()
        for key, make_item in inner:
            made[key] = make_item()
        return made if kind is list else record_of(made)
    return make


class _ScopeSnapshot:
    """A scope's variables as the top level left them, in their order."""

    __slots__ = ("vars", "values", "made")

    def __init__(self, scope: Scope):
        self.vars, self.values = scope.vars, dict(scope.vars)
        self.made = [(name, make) for name, value in scope.vars.items() if (make := _maker(value)) is not None]

    def restore(self) -> None:
        variables = self.vars
        variables.clear()  # a fight may add a name to a module (`m.x = ...` through a variable)
        variables.update(self.values)
        for name, make in self.made:  # in place: the order of the names stays
            variables[name] = make()


class _CharacterSnapshot:
    """A character's state, and every field holding a list or record, as it was made."""

    __slots__ = ("character", "fields", "side", "values", "made")

    def __init__(self, character: Character):
        changes = character.kind.schema.changes
        self.character, self.fields, self.side = character, character.fields, character.side
        made = {name: make for name, value in character.fields.items() if (make := _maker(value)) is not None}
        # the other fields never change: a fight sets only state (characters.set_field)
        self.values = {name: value for name, value in character.fields.items() if name in changes and name not in made}
        self.made = list(made.items())

    def restore(self) -> None:
        fields = self.fields
        fields.update(self.values)
        for name, make in self.made:
            fields[name] = make()
        self.character.side = self.side


class _RowSnapshot:
    """A table row holding lists or records: a look-up gives the row's own value, which a fight may change."""

    __slots__ = ("row", "entries", "default", "make_default")

    def __init__(self, row: TableRow):
        self.row = row
        self.entries = [(key, _maker(key), value, _maker(value)) for key, value in row.entries]
        self.default, self.make_default = row.default, _maker(row.default)

    def needed(self) -> bool:
        return self.make_default is not None or any(make_key or make_value
                                                    for _, make_key, _, make_value in self.entries)

    def restore(self) -> None:
        row = self.row
        row.set_entries([(make_key() if make_key else key, make_value() if make_value else value)
                         for key, make_key, value, make_value in self.entries])
        row.default = self.make_default() if self.make_default else self.default


class Prepared:
    """A script whose top level has run once in this process; `fight(seed)` restores it and fights."""

    def __init__(self, script: Script, ev: Run):
        self.limits = script.limits
        self.scope, self.modules, self.encounter = ev.scope, ev.modules, ev.encounter
        # a run's counters go on from where the top level left them, so its limits fire where they did
        self.steps, self.log = ev.steps, list(ev.log)
        reach = _Reach({id(ev.scope), *(id(module.scope) for module in ev.modules.values())}, ev.encounter)
        scopes = [ev.scope, *(module.scope for module in ev.modules.values())]
        for scope in scopes:
            for value in scope.vars.values():
                reach.walk(value)
        reach.walk(ev.encounter)
        self.scopes = [_ScopeSnapshot(scope) for scope in scopes]
        self.characters = [_CharacterSnapshot(character) for character in reach.characters.values()]
        self.rows = [row for row in map(_RowSnapshot, reach.rows.values()) if row.needed()]
        self.settings = [(name, span, value, _maker(value)) for name, span, value in ev.encounter.settings]
        self.settings_made = any(make for *_, make in self.settings)

    @classmethod
    def of(cls, script: Script) -> "Prepared | None":
        """The script set up once, or None if its runs must each be fought whole (see the module's
        docstring): the top level rolled, failed, declared no encounter, or left what cannot be restored."""
        ev = Run(_RefusesDice(), script.limits, quiet=True)
        ev.scope = Scope(None)
        try:
            script.code(ev)
        except (_Rolled, MechError, RecursionError):
            return None  # a failing top level fails each run whole, with that run's error and seed
        if ev.encounter is None or ev.dice or ev.rolls or ev.depth:
            return None
        try:
            return cls(script, ev)
        except _Unsafe:
            return None

    def fight(self, seed: int):
        """What fight_once(script, seed) gives, or None if the run failed: the caller fights that run
        whole, for its error worded exactly as `mech run` words it."""
        ev = self._restored(RandomFaces(seed))
        try:
            with CpuTime(self.limits, ev):   # the `seconds` of a run, as Script.run times it
                ev.result = characters.fight(ev, self.encounter)
                return outcome(ev)
        except (MechError, RecursionError):
            return None

    def _restored(self, source) -> Run:
        """A fresh evaluation with the run's dice, at the point the top level left it."""
        ev = Run(source, self.limits, quiet=True)
        ev.scope, ev.modules, ev.encounter = self.scope, self.modules, self.encounter
        ev.steps = self.steps
        ev.log = list(self.log)  # a quiet run's log holds an empty line for each `say`: `output_lines` counts them
        for snapshot in self.scopes:
            snapshot.restore()
        for snapshot in self.characters:
            snapshot.restore()
        for snapshot in self.rows:
            snapshot.restore()
        encounter = self.encounter
        encounter.round = 0
        if self.settings_made:
            encounter.settings = [(name, span, make() if make else value) for name, span, value, make in self.settings]
        return ev


class _Reach:
    """Walks every value a run can reach from the snapshot's roots, collecting the characters, and
    raises _Unsafe at anything a restore could not give back exactly."""

    def __init__(self, scopes: set, encounter: Encounter):
        self.scopes, self.encounter = scopes, encounter
        self.seen: set = set()           # ids of the lists and records met
        self.characters: dict = {}       # id -> character, in the order met
        self.rows: dict = {}             # id -> table row, in the order met
        self.encounter_met = False

    def walk(self, value) -> None:
        kind = type(value)
        if kind in _CONSTANT:
            return
        if kind is list or isinstance(value, Record):
            if id(value) in self.seen:  # restored as two copies, it would no longer be one value
                raise _Unsafe("a list or record is reachable from two places")
            self.seen.add(id(value))
            for item in value if kind is list else value.fields.values():
                self.walk(item)
        elif kind is Character:
            if id(value) not in self.characters:
                self.characters[id(value)] = value
                self.walk(value.kind)
                for item in value.fields.values():
                    self.walk(item)
        elif kind is Function:
            self._known(value.scope)
        elif kind is Kind:
            self._known(value.home)
        elif kind is Module:
            self._known(value.scope)
        elif kind is Table:
            for row in value.rows.values():
                self.walk(row)
        elif kind is TableRow:
            if id(value) not in self.rows:
                self.rows[id(value)] = value
                for key, item in value.entries:
                    self.walk(key)
                    self.walk(item)
                self.walk(value.default)
        elif kind is Encounter and value is self.encounter and not self.encounter_met:
            self.encounter_met = True
            for character in value.characters:
                self.walk(character)
            for _, _, setting in value.settings:
                self.walk(setting)
        else:
            raise _Unsafe(f"a {kind.__name__} value")

    def _known(self, scope: Scope) -> None:
        if id(scope) not in self.scopes:  # a function or kind made in a block or a call: its scope may change
            raise _Unsafe("a scope the snapshot does not hold")
