"""Kinds, characters and encounters.

A rules module declares its kinds of character (`kind Transformer { stat speed 1..10 ... }`), a
script declares characters of those kinds and an encounter between them, and the module's `fight`
rule plays the encounter out once the script's top level has run.

A character is checked twice. Its names when the script is compiled: an unknown stat (with a
did-you-mean), a missing one, a derived value given by hand, a gear item without a name. Its values
when it is made: a stat outside its range or not one of its choices. Everything else a kind says
(derived values, starting state) is worked out when the character is made, from the kind's formulas,
which see the stats above them and the names of the scope the kind was declared in.

The encounter's module must define `fn fight(encounter)` (it plays the fight, keeps
`encounter.round`, and gives the winning side's name or none) and `fn standing(character)` (whether
a character still counts for its side, which `until` conditions read through `one_side_left`). Its
options are its top-level `let`s; an encounter's settings set them for the fight, and a record
`choices` may list the values each allows.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction

from . import ast
from .encounter_params import params_in, plain_value
from ..errors import Failed, MechError, ParamSpan, Span, did_you_mean
from ..limits import limit_error
from .names import KIND_WORDS, Binding, StaticScope
from .values import Character, Encounter, Function, Kind, Module, Record, Scope, Table, equal, format_value, plain, \
    record_of, to_json, type_name

# Every character has these; a kind cannot use them for its own values.
OWN_FIELDS = ("name", "side", "kind")

# What an encounter's `until` can read besides the script's names.
UNTIL_NAMES = ("round", "one_side_left", "sides_left")

# The rules an encounter's module supplies: name -> what it is called with.
MODULE_RULES = {"fight": "encounter", "standing": "character"}


@dataclass
class KindInfo:
    """What the checker knows of a kind: its names, and the static scope it was declared in."""

    name: str
    span: Span
    stats: dict[str, bool] = field(default_factory=dict)   # name -> required (no default)
    derived: list[str] = field(default_factory=list)
    state: list[str] = field(default_factory=list)
    gear: dict[str, "KindInfo"] = field(default_factory=dict)
    scope: StaticScope | None = None
    reads: set[str] = field(default_factory=set)  # options of its rules its formulas read: set before characters


# ---- checking and compiling ----

def declare_kinds(static: StaticScope, nodes: list[ast.KindDef]) -> None:
    """A block's kinds are known in the whole block, so a kind's gear may be declared below it."""
    infos = []
    for node in nodes:
        info = KindInfo(node.name, node.name_span, scope=static)
        for item in node.items:
            if item.name in OWN_FIELDS:
                raise MechError(f"`{item.name}` is every character's own {item.name}; a kind cannot declare it",
                                item.span, hint=f"call it something else, e.g. `{item.name}_of`")
            if item.what == "stat":
                info.stats[item.name] = item.value is None
            elif item.what in ("derived", "state"):
                getattr(info, item.what).append(item.name)
        static.declare(node.name, Binding("kind", node.name_span, schema=info))
        infos.append((node, info))
    for node, info in infos:
        for item in node.items:
            if item.what == "gear":
                info.gear[item.name] = _resolve_kind(static, [item.gear_kind], item.gear_kind_span)


def _resolve_kind(static: StaticScope, path: list[str], span: Span) -> KindInfo:
    binding = static.resolve(path[0], span)
    if len(path) == 2:
        if binding is None or binding.kind != "module":
            raise MechError(f"`{path[0]}` is not a module this script uses", span,
                            hint=f"add `use {path[0]}` at the top of the script")
        binding = binding.module.exports.get(path[1])
        if binding is None or binding.kind != "kind":
            kinds = [n for n, b in static.resolve(path[0], span).module.exports.items() if b.kind == "kind"]
            raise MechError(f"module `{path[0]}` has no kind `{path[1]}`", span,
                            hint=did_you_mean(path[1], kinds) or _kinds_hint(kinds))
        return binding.schema
    if binding is None:
        kinds = _visible_kinds(static)
        raise MechError(f"unknown kind `{path[0]}`", span, hint=did_you_mean(path[0], kinds) or _kinds_hint(kinds))
    if binding.kind != "kind":
        raise MechError(f"`{path[0]}` is a {KIND_WORDS[binding.kind]}, not a kind", span)
    return binding.schema


def _visible_kinds(static: StaticScope) -> list[str]:
    kinds, scope = [], static
    while scope is not None:
        kinds += [n for n, b in scope.names.items() if b.kind == "kind"]
        for module in scope.uses:
            kinds += [n for n, b in module.exports.items() if b.kind == "kind"]
        scope = scope.parent
    return kinds


def _kinds_hint(kinds: list[str]) -> str:
    if kinds:
        return "kinds known here: " + ", ".join(sorted(set(kinds)))
    return "kinds come from rules modules: `use pbem` gives `Transformer`"


def compile_kind(compiler, node: ast.KindDef):
    """The statement making the kind: its formulas compiled in a scope of their own, where each
    sees the stats, derived values and state declared above it."""
    outer = compiler.static
    info = outer.names[node.name].schema
    inner = compiler.static = StaticScope(outer)
    items = []
    try:
        for item in node.items:
            # the field's name as the key of each character's fields, interned: the written code reads
            # `c.speed`, an attribute load that is quick only when its name is that very string object
            # (CPython's LOAD_ATTR_WITH_HINT compares the key by identity; a name parsed, or read back
            # from the parse cache, is a string of its own: 7-11% of a fight, read the slow way)
            item.name = sys.intern(item.name)
            info.reads |= {name for part in (item.value, item.low, item.high, item.choices) if part is not None
                           for name in _names_in(part) if _is_option(outer, name)}
            if item.what == "gear":
                items.append(("gear", item.name, item.gear_kind, item.span))
                continue
            code = compiler.compile(item.value) if item.value is not None else None
            value_span = item.value.span if item.value is not None else item.span
            if item.what == "stat":
                low = _bound(compiler, item.low) if item.low is not None else None
                high = _bound(compiler, item.high) if item.high is not None else None
                choices = compiler.compile(item.choices) if item.choices is not None else None
                items.append(("stat", item.name, (low, high, choices), code, value_span))
            else:
                items.append((item.what, item.name, None, code, value_span))
            inner.declare(item.name, Binding("let", item.span))
    except MechError as error:
        below = [later.name for later in node.items[node.items.index(item) + 1:]]
        if any(error.message == f"unknown name `{later}`" for later in below):  # not `did you mean true?`
            error.hint = f"a formula sees the items above it, and this one is declared below `{item.name}`"
        raise
    finally:
        compiler.static = outer
    schema = Schema(node.name, items, compiler.source_text, compiler.filename, node.ancestors)
    name = node.name

    def kind(ev):
        ev.scope.vars[name] = Kind(name, schema, ev.scope)
    return kind


def _names_in(node: ast.Node) -> set[str]:
    """Every name an expression reads."""
    return {part.id for part in ast.walk(node) if type(part) is ast.Name}


def _is_option(static: StaticScope, name: str) -> bool:
    binding = static.names.get(name)
    return binding is not None and binding.kind == "let"


def _bound(compiler, node: ast.Node):
    """A range's bound (`1..top`): a number, checked when the kind's range is used."""
    code, span = compiler.compile(node), node.span

    def bound(ev):
        value = code(ev)
        if type(value) is int:  # the common case first: no roll to take the total of, no other test
            return value
        value = plain(value)
        if type(value) is bool or not isinstance(value, (int, Fraction)):
            raise MechError(f"a stat's range goes between numbers, and this is {type_name(value)}", span)
        return value
    return bound


class Schema:
    """A kind's items as compiled, in the order written: ("stat", name, (low, high, choices),
    default, span), ("derived" | "state", name, None, formula, span), ("gear", slot, kind name, span).
    `lineage`: its name and the names of the kinds it extends, which `is_a` accepts."""

    __slots__ = ("name", "items", "state", "changes", "stats", "source_text", "filename", "lineage")

    def __init__(self, name: str, items: list, source_text: str, filename: str, ancestors=None):
        self.name, self.items = name, items
        self.lineage = frozenset([name, *(ancestors or ())])
        self.state = [item[1] for item in items if item[0] == "state"]  # in the order declared
        self.changes = frozenset(self.state)  # what a fight may set: looked up on every assignment
        self.stats = [item[1] for item in items if item[0] == "stat"]
        self.source_text, self.filename = source_text, filename


def compile_character(compiler, node: ast.CharacterDef):
    info = _resolve_kind(compiler.static, node.kind, node.kind_span)
    compiler.static.names[node.name].schema = info
    build = _compile_entries(compiler, info, node.entries, node.name_span)
    kind_node = ast.Name(node.kind_span, node.kind[0]) if len(node.kind) == 1 else \
        ast.Field(node.kind_span, ast.Name(node.kind_span, node.kind[0]), node.kind[1], node.kind_span)
    kind_code = compiler.compile(kind_node)
    name = node.name

    def character(ev):
        ev.scope.vars[name] = build(ev, kind_code(ev), name)
    return character


def _compile_entries(compiler, info: KindInfo, entries: list[ast.Entry], owner_span: Span):
    """A character's (or a gear item's) entries, checked against its kind; gives `build(ev, kind,
    name)` making the character."""
    given, gear, seen = [], [], {}
    for entry in entries:
        if entry.name in info.gear:
            item_name = _gear_item_name(entry)
            build_item = _compile_entries(compiler, info.gear[entry.name], entry.entries or [], entry.value.span)
            gear.append((entry.name, item_name, build_item))
            continue
        if entry.name in seen:
            raise MechError(f"`{entry.name}` is given twice (line {seen[entry.name].line})", entry.span)
        seen[entry.name] = entry.span
        if entry.name in info.stats or entry.name in info.state:
            if entry.entries is not None:
                raise MechError(f"`{entry.name}` is a value of {info.name}; only gear items have entries of their own",
                                entry.span)
            given.append((entry.name, compiler.compile(entry.value), entry.value.span))
        elif entry.name in info.derived:
            raise MechError(f"`{entry.name}` is worked out by kind {info.name} from its stats; it cannot be given",
                            entry.span, hint="give the stats it comes from")
        else:
            known = list(info.stats) + info.state + list(info.gear)
            raise MechError(f"{info.name} has no stat `{entry.name}`", entry.span,
                            hint=did_you_mean(entry.name, known) or f"the stats of {info.name}: {', '.join(info.stats)}")
    missing = [stat for stat, required in info.stats.items() if required and stat not in seen]
    if missing:
        raise MechError(f"missing {'stat' if len(missing) == 1 else 'stats'} of {info.name}: {', '.join(missing)}",
                        owner_span, hint="add " + "  ".join(f"{stat} ..." for stat in missing))

    declared_in = (compiler.source_text, compiler.filename)

    def build(ev, kind, name):
        if type(kind) is not Kind:
            raise MechError(f"a character is made from a kind, and this is {type_name(kind)}", owner_span)
        values = {stat: (code(ev), span) for stat, code, span in given}
        items: dict[str, list] = {}
        for slot, item_name, build_item in gear:
            items.setdefault(slot, []).append(build_item(ev, _gear_kind(kind, slot, owner_span), item_name))
        declared = (name, owner_span, *declared_in)
        try:
            made = make_character(ev, kind, name, values, items)
        except Failed as error:
            # the kind's formulas (a module's) refused this sheet with `fail`: said at its declaration, the
            # module's line below (a module's own mistake, a default outside its range, stays at the module)
            if error.source is not None and error.filename != declared_in[1]:
                error.for_character(*declared)
            raise
        made.declared = declared
        made.recipe = (_copied(values), items)
        return made
    return build


def _gear_item_name(entry: ast.Entry) -> str:
    value = entry.value
    if type(value) is ast.Name:
        return value.id
    if type(value) is ast.String and len(value.parts) == 1 and type(value.parts[0]) is str:
        return value.parts[0]
    raise MechError(f"a `{entry.name}` is named by a name or plain text", value.span,
                    hint=f'{entry.name} Blowpipe {{ ... }}  or  {entry.name} "concussion rifle"')


def _gear_kind(kind: Kind, slot: str, span: Span) -> Kind:
    kind_name = next(item[2] for item in kind.schema.items if item[0] == "gear" and item[1] == slot)
    scope = kind.home.find(kind_name)
    gear_kind = scope.vars[kind_name] if scope is not None else None
    if type(gear_kind) is not Kind:
        raise MechError(f"kind `{kind_name}` (of {kind.name}'s `{slot}`) is not made yet: its `kind` has not run", span)
    return gear_kind


# ---- making characters ----

def make_character(ev, kind: Kind, name: str, values: dict, gear: dict) -> Character:
    """Works out the character's fields in the order its kind declares them; `values` are the
    stats and state its declaration gives, with their spans."""
    schema = kind.schema
    fields: dict = {}
    saved = ev.scope
    ev.scope = Scope(kind.home, fields)
    try:
        for item in schema.items:
            what, item_name = item[0], item[1]
            if what == "gear":
                fields[item_name] = gear.get(item_name, [])
                continue
            spec, code, span = item[2], item[3], item[4]
            given = item_name in values
            if given:
                value, span = values[item_name]
            else:  # a stat's default, a derived value, a state's starting value: the kind's formulas
                value = _in_kind(ev, schema, code)
            if what == "stat":
                try:
                    value = _checked(ev, schema, item_name, spec, value, span)
                except MechError as error:
                    raise error if given else error.located(schema.source_text, schema.filename)
            fields[item_name] = value
    finally:
        ev.scope = saved
    return Character(name, kind, fields)


def know_kind(static: StaticScope, node: ast.CharacterDef) -> None:
    """The declared character's kind, when it is known, before the character is compiled (its
    errors are compile_character's)."""
    try:
        static.names[node.name].schema = _resolve_kind(static, node.kind, node.kind_span)
    except MechError:
        pass


def check_make(static: StaticScope, node: ast.Call) -> None:
    """`make(KIND, ...)` (or a character declared above, `make(Drone, ...)`): its options named
    against the kind when compiling, as a declaration's entries are; other models are seen when it runs."""
    model = node.args[0] if node.args else None
    binding = None
    if type(model) is ast.Name:
        binding = static.resolve(model.id, model.span)
    elif type(model) is ast.Field and type(model.target) is ast.Name:
        module = static.resolve(model.target.id, model.target.span)
        binding = module.module.exports.get(model.name) if module is not None and module.kind == "module" else None
    info = binding.schema if binding is not None and binding.kind in ("kind", "character") else None
    if info is None:
        return
    for stat, value in node.kwargs.items():
        if stat in info.derived:
            raise MechError(f"`{stat}` is worked out by kind {info.name} from its stats; it cannot be given",
                            value.span, hint="give the stats it comes from")
        if stat not in info.stats and stat not in info.state:
            raise MechError(f"{info.name} has no stat `{stat}`", value.span,
                            hint=did_you_mean(stat, list(info.stats) + info.state) or
                            f"the stats of {info.name}: {', '.join(info.stats)}")


def make_like(ev, model, name, given: dict, call: ast.Call) -> Character:
    """`make(model, name, stat: value, ...)`: a new character of a kind (`model` the kind) or like a
    character (`model` one: its declaration's stats, state and gear, each gear item made anew).
    `given` (stat or state -> value) wins over the model's; each is checked as a declaration's entry
    is, said at its option."""
    if type(model) is Kind:
        kind, values, gear = model, {}, {}
    elif type(model) is Character and model.recipe is not None:
        kind, (values, items) = model.kind, model.recipe
        values = _copied(values)
        gear = {slot: [_remade(ev, item) for item in made] for slot, made in items.items()}
    else:  # a character made by Python has no declaration to copy
        what = "one made by Python" if type(model) is Character else type_name(model)
        raise MechError(f"`make` makes a character of a kind or like a character, not like {what}",
                        call.args[0].span, hint='make(Transformer, "Drone 1", skill: 4) or make(Drone, "Drone 2")')
    if type(name) is not str or not name:
        raise MechError(f"a character's name is text, not {_shown(name) if type(name) is str else type_name(name)}",
                        call.args[1].span, hint='make(Drone, "Drone {n}")')
    schema = kind.schema
    for stat, value in given.items():
        span = call.kwargs[stat].span
        if stat not in schema.stats and stat not in schema.changes:
            derived = [item[1] for item in schema.items if item[0] == "derived"]
            if stat in derived:
                raise MechError(f"`{stat}` is worked out by kind {kind.name} from its stats; it cannot be given",
                                span, hint="give the stats it comes from")
            raise MechError(f"{kind.name} has no stat `{stat}`", span,
                            hint=did_you_mean(stat, schema.stats + schema.state) or
                            f"the stats of {kind.name}: {', '.join(schema.stats)}")
        values[stat] = (value, span)
    missing = [item[1] for item in schema.items if item[0] == "stat" and item[3] is None and item[1] not in values]
    if missing:
        raise MechError(f"missing {'stat' if len(missing) == 1 else 'stats'} of {kind.name}: {', '.join(missing)}",
                        call.span, hint="add " + ", ".join(f"{stat}: ..." for stat in missing))
    try:
        made = make_character(ev, kind, name, values, gear)
    except Failed as error:  # the kind's formulas refused this sheet: said at the call that made it
        raise MechError(f"{name}: {error.message}" if name not in error.message else error.message, call.span,
                        hint=error.hint) from None
    made.recipe = (_copied(values), gear)
    return made


def _remade(ev, item: Character) -> Character:
    """A gear item made anew from what it was made of: its own state, nothing shared."""
    values, items = item.recipe
    gear = {slot: [_remade(ev, inner) for inner in made] for slot, made in items.items()}
    made = make_character(ev, item.kind, item.name, _copied(values), gear)
    made.recipe, made.declared = item.recipe, item.declared
    return made


def _copied(values: dict) -> dict:
    """What a character is made of, (value, span) by name, with lists and records of its own: a
    recipe keeps the values as given, whatever the character made of them does to its own."""
    return {name: (_fresh(value), span) for name, (value, span) in values.items()}


def _fresh(value):
    """A given value for a new character: its lists and records its own."""
    if type(value) is list:
        return [_fresh(item) for item in value]
    if isinstance(value, Record):
        return record_of({name: _fresh(item) for name, item in value.fields.items()})
    return value


def _in_kind(ev, schema: Schema, code):
    """Runs a formula of the kind; its errors point into the kind's own file."""
    try:
        return code(ev)
    except MechError as error:
        raise error.located(schema.source_text, schema.filename)


def _checked(ev, schema: Schema, stat: str, spec, value, span: Span):
    low_code, high_code, choices_code = spec
    if type(value) is not int:
        value = plain(value)
    if choices_code is not None:
        choices = _in_kind(ev, schema, choices_code)
        if not any(equal(value, choice, ev) for choice in choices):
            shown, hint = _one_of(value, choices)
            raise MechError(f"`{stat}` of {schema.name} is one of {shown}, not {_shown(value)}", span, hint=hint)
    if low_code is not None:
        try:  # both bounds are the kind's formulas: their errors point into the kind's file (_in_kind)
            low, high = low_code(ev), high_code(ev)
        except MechError as error:
            raise error.located(schema.source_text, schema.filename)
        if type(value) is not int or not low <= value <= high:
            raise MechError(f"`{stat}` of {schema.name} is a whole number from {format_value(low)} to "
                            f"{format_value(high)}, not {_shown(value)}", span)
    return value


def stat_values(ev, character: Character, stat: str) -> list | None:
    """The whole numbers `stat` of `character` may take, as its kind's range or choices give them
    when the character is made (a range may read the rules' options), or None when it is no stat
    of the character's kind, or one with neither range nor whole choices. `mech sim --balance`
    searches them."""
    schema = character.kind.schema
    spec = next((item[2] for item in schema.items if item[0] == "stat" and item[1] == stat), None)
    if spec is None:
        return None
    low_code, high_code, choices_code = spec
    saved = ev.scope
    ev.scope = Scope(character.kind.home, dict(character.fields))
    try:
        if low_code is not None:
            low, high = _in_kind(ev, schema, low_code), _in_kind(ev, schema, high_code)
            return list(range(low, high + 1)) if type(low) is int and type(high) is int else None
        if choices_code is not None:
            whole = sorted({choice for choice in _in_kind(ev, schema, choices_code) if type(choice) is int})
            return whole or None
        return None
    finally:
        ev.scope = saved


def _shown(value) -> str:
    return f'"{value}"' if type(value) is str else format_value(value)


def _one_of(value, allowed: list) -> tuple[str, str | None]:
    """The allowed values as text, and a did-you-mean for a near string: `did you mean "gun"?`."""
    close = did_you_mean(value, [a for a in allowed if type(a) is str]) if type(value) is str else None
    return ", ".join(_shown(a) for a in allowed), close.replace("`", '"') if close else None


# ---- encounters ----

def compile_encounter(compiler, node: ast.EncounterDef):
    if compiler.in_module or compiler.static.parent is not None:
        raise MechError("an encounter is declared at the top level of the script that is run", node.span,
                        hint="a module can hold characters; the script fighting them declares the encounter")
    for title, title_span in compiler.encounters:
        if title == node.title:
            raise MechError(f"two encounters are named \"{title}\" (the first is on line {title_span.line})",
                            node.title_span or node.span, hint="give each encounter of a script its own name")
    compiler.encounters.append((node.title, node.title_span or node.span))
    if node.params:
        compiler.parameters[node.title] = {name: plain_value(default) for name, _, default in node.params}
    infos = _check_sides(compiler, node)
    if infos:
        _check_module_rules(infos[0], node)
        _check_settings(infos[0], node.settings, compiler.static.uses)
    sides = [(side.name, [(compiler.compile(m), m.span, _made_with(m)) for m in side.members])
             for side in node.sides]
    settings = [(name, span, compiler.compile(value)) for name, span, value in node.settings]
    outer = compiler.static
    compiler.static = StaticScope(outer)
    for until_name in UNTIL_NAMES:
        compiler.static.declare(until_name, Binding("let", None))
    try:
        until = compiler.compile(node.until) if node.until is not None else None
    finally:
        compiler.static = outer
    until_span = node.until.span if node.until is not None else node.span
    title, span, source = node.title, node.span, (compiler.source_text, compiler.filename)

    def encounter(ev):
        placed = {}
        values = []
        for side_name, members in sides:
            characters = []
            for code, member_span, made_with in members:
                try:
                    value = code(ev)
                except MechError as error:
                    # refused inside a function given the parameters (`drones(count, skill)`): which values
                    if made_with and error.hint is None and type(error.span) is not ParamSpan:
                        error.hint = made_with
                    raise
                # a list of characters joins them all: a side chosen by a parameter, or made by a function
                for character in (value if type(value) is list else [value]):
                    if type(character) is not Character:
                        raise MechError(f"a side is made of characters, and this is {type_name(character)}",
                                        member_span)
                    if id(character) in placed:
                        raise MechError(f"{character.name} is already on side {placed[id(character)]}", member_span)
                    placed[id(character)] = side_name
                    characters.append(character)
            values.append((side_name, characters))
        chosen = [(name, setting_span, code(ev)) for name, setting_span, code in settings]
        # declared: the one fought is chosen once the top level has run (Script.choose)
        ev.encounters[title] = Encounter(title, values, (until, until_span), ev.scope, chosen, span, source)
    return encounter


def _made_with(member: ast.Node) -> str | None:
    """What a side's member was given of the encounter's parameters, said with an error in it."""
    spans = params_in(member)
    if not spans:
        return None
    return "made with the encounter's " + ", ".join(f"{span.param} = {span.value} ({span.origin})" for span in spans)


def _check_sides(compiler, node: ast.EncounterDef) -> list[KindInfo]:
    """The kinds of the members the checker can see (characters declared by name)."""
    infos, placed = [], {}
    for side in node.sides:
        for member in side.members:
            if type(member) is not ast.Name:
                continue
            binding = compiler.static.resolve(member.id, member.span)
            if binding is not None and binding.kind in ("fn", "table", "module", "kind"):
                raise MechError(f"`{member.id}` is a {KIND_WORDS[binding.kind]}, not a character", member.span)
            if binding is not None and binding.kind == "character":
                if id(binding) in placed:  # as the encounter's statement would say it (the name is the character's)
                    raise MechError(f"{member.id} is already on side {placed[id(binding)]}", member.span)
                placed[id(binding)] = side.name
                if binding.schema is not None:
                    infos.append((binding.schema, member))
    for info, member in infos[1:]:
        if info.scope is not infos[0][0].scope:
            raise MechError(f"{member.id} is a {info.name} and {infos[0][1].id} a {infos[0][0].name} of other "
                            "rules: one encounter is fought by one module's rules", member.span)
    return [info for info, _ in infos]


def _check_module_rules(info: KindInfo, node: ast.EncounterDef) -> None:
    for rule, argument in MODULE_RULES.items():
        binding = info.scope.names.get(rule)
        if binding is None or binding.kind != "fn" or len(binding.params) != 1:
            raise MechError(f"the rules of kind {info.name} have no `fn {rule}({argument})`, so they cannot fight "
                            "an encounter", node.span,
                            hint="a rules module fighting encounters defines `fight` and `standing`")


def _check_settings(info: KindInfo, settings, uses: list) -> None:
    options = [name for name, binding in info.scope.names.items() if binding.kind == "let" and name != "choices"]
    for name, span, _ in settings:
        if name not in options:
            raise MechError(f"the rules of kind {info.name} have no option `{name}`", span,
                            hint=did_you_mean(name, options) or
                            ("options: " + ", ".join(options) if options else "these rules have no options"))
        reader = _reader_of(info, name, set())
        if reader is not None:
            modules = [m.name for m in uses if m.exports is info.scope.names]
            where = f"{modules[0]}.{name}" if modules else name
            raise MechError(f"`{name}` is read when a {reader} is made, before the fight: an encounter cannot set it",
                            span, hint=f"set it in the script before the characters: `{where} = ...`")


def _reader_of(info: KindInfo, option: str, seen: set) -> str | None:
    """The kind (this one or one of its gear) whose formulas read `option`, if any."""
    if option in info.reads:
        return info.name
    seen.add(info.name)
    for gear in info.gear.values():
        if gear.name not in seen and (reader := _reader_of(gear, option, seen)) is not None:
            return reader
    return None


def fight(ev, encounter: Encounter) -> dict:
    """Plays the encounter with its module's `fight` rule; the result of `mech run`."""
    home = encounter.characters[0].kind.home
    for character in encounter.characters:
        if character.kind.home is not home:
            raise MechError(f"{character.name} is a {character.kind.name} of other rules than "
                            f"{encounter.characters[0].name}: one encounter is fought by one module's rules",
                            encounter.span)
    rule = module_rule(home, "fight", encounter)
    for side_name, members in encounter.sides:
        for character in members:
            character.side = side_name
    for name, span, value in encounter.settings:
        if name not in home.vars or type(home.vars[name]) in (Function, Kind, Table, Module):
            raise MechError(f"these rules have no option `{name}`", span)
        home.vars[name] = value
    check_choices(ev, home, encounter)
    winner = ev.call(rule, [encounter], encounter.span)
    sides = [side_name for side_name, _ in encounter.sides]
    if winner is not None and winner not in sides:
        raise MechError(f"`fight` gave {_shown(winner)} as the winner, which is not a side of the encounter "
                        f"({', '.join(sides)}) or none", encounter.span)
    if type(encounter.round) is not int:
        raise MechError(f"`fight` left the encounter's round at {format_value(encounter.round)}, not a whole number",
                        encounter.span)
    return {"winner": winner, "rounds": encounter.round, "characters": end_states(encounter, home.vars.get("report"))}


def check_choices(ev, home: Scope, encounter: Encounter) -> None:
    """Rules may list the values each option allows in a record `choices` ({tie: ["defender",
    "attacker"]}); a value outside them is a typo that would silently change the rules."""
    choices = home.vars.get("choices")
    if not isinstance(choices, Record):
        return
    set_here = {name: span for name, span, _ in encounter.settings}
    for name, allowed in choices.fields.items():
        if name not in home.vars or type(allowed) is not list:
            continue
        value = home.vars[name]
        if _allowed(ev, value, allowed):
            continue
        shown, hint = _one_of(value, allowed)
        if name in set_here:
            raise MechError(f"`{name}` is one of {shown}, not {_shown(value)}", set_here[name], hint=hint)
        raise MechError(f"the option `{name}` of these rules is one of {shown}, not {_shown(value)}", encounter.span,
                        hint=hint or f"the script sets `{name}` to {_shown(value)} before this encounter")


def check_option(ev, home: Scope, name: str, value, span: Span) -> None:
    """The script's top level setting an option of a module (`pbem.tie = "attackr"`): a value
    outside the option's `choices` is refused at that line, as an encounter's setting is."""
    choices = home.vars.get("choices")
    allowed = choices.fields.get(name) if isinstance(choices, Record) else None
    if type(allowed) is list and not _allowed(ev, value, allowed):
        shown, hint = _one_of(value, allowed)
        raise MechError(f"`{name}` is one of {shown}, not {_shown(value)}", span, hint=hint)


def _allowed(ev, value, allowed: list) -> bool:
    # a string among strings (most options) is found at once; equal() decides everything else
    return type(value) is str and value in allowed or any(equal(value, a, ev) for a in allowed)


def module_rule(home: Scope, name: str, encounter: Encounter) -> Function:
    rule = home.vars.get(name)
    if type(rule) is not Function or len(rule.params) != 1:
        raise MechError(f"the rules of {encounter.characters[0].kind.name} have no `fn {name}({MODULE_RULES[name]})`",
                        encounter.span)
    return rule


def state_numbers(state: dict) -> dict:
    """The numbers of a character's end state (end_states' JSON values), as a batch keeps them."""
    return {key: value for key, value in state.items() if isinstance(value, (int, float)) and not isinstance(value, bool)}


def end_states(encounter: Encounter, report=None) -> dict:
    """Each character's side and state at the end (names made unique if two share one). Rules may
    name what the result reports in a list `report` (["hp", "status"]), leaving out bookkeeping;
    otherwise it is all the state."""
    if report is not None and (type(report) is not list or any(type(name) is not str for name in report)):
        raise MechError(f"`report` of these rules is a list of names, not {type_name(report)}", encounter.span)
    states = {}
    for character in encounter.characters:
        key, n = character.name, 1
        while key in states:
            n += 1
            key = f"{character.name} ({n})"
        names = report if report is not None else character.kind.schema.state
        missing = [name for name in names if name not in character.fields]
        if missing:
            raise MechError(f"`report` of these rules names `{missing[0]}`, which {character.name} "
                            f"(a {character.kind.name}) does not have", encounter.span)
        state = {"side": character.side}
        state.update((name, to_json(character.fields[name])) for name in names)
        states[key] = state
    return states


def ended(ev, encounter: Encounter, span: Span) -> bool:
    """The encounter's `until` before the next round: `round` is that round's number,
    `one_side_left` whether at most one side has anyone standing. Its errors point into the script."""
    standing = module_rule(encounter.characters[0].kind.home, "standing", encounter)
    sides_left = 0
    for _, members in encounter.sides:
        for character in members:
            answer = ev.call(standing, [character], span)
            if type(answer) is not bool:
                raise MechError(f"`standing` gave {type_name(answer)} for {character.name}, not true or false", span)
            if answer:
                sides_left += 1
                break
    until, until_span = encounter.until
    try:
        if encounter.round >= ev.limits.rounds:
            error = limit_error("rounds", f"the encounter went {encounter.round} rounds and its `until` never held",
                                ev.limits.rounds, until_span)
            error.hint = "end it after some rounds too: `until one_side_left or round > 20`; " + error.hint
            raise error
        if until is None:
            return sides_left <= 1
        saved = ev.scope
        ev.scope = Scope(encounter.scope, {"round": encounter.round + 1, "one_side_left": sides_left <= 1,
                                           "sides_left": sides_left})
        try:
            answer = until(ev)
        finally:
            ev.scope = saved
        if type(answer) is not bool:
            raise MechError(f"`until` gives true or false, not {type_name(answer)}", until_span,
                            hint="until one_side_left or round > 20")
        return answer
    except MechError as error:
        raise error.located(*encounter.source)


# ---- fields ----

ENCOUNTER_FIELDS = ("name", "sides", "characters", "round")


def get_field(value, name: str, span: Span, ev=None):
    """`punch.hp`, `punch.name`, `punch.side`, `punch.kind`; `encounter.round`, `encounter.sides`...
    A copy of a list counts a step an item against the run's limits (`ev`), as joining lists does."""
    if type(value) is Character:
        if name in value.fields:
            field = value.fields[name]
            # only state changes: a gear list (or a list stat) is given as a copy
            if type(field) is list and name not in value.kind.schema.changes:
                if ev is not None:
                    ev.step(span, len(field))
                return list(field)
            return field
        if name in OWN_FIELDS:
            return value.kind.name if name == "kind" else getattr(value, name)
        raise MechError(f"{value.name} (a {value.kind.name}) has no `{name}`", span,
                        hint=did_you_mean(name, list(value.fields) + list(OWN_FIELDS)))
    if name == "sides":
        return [record_of({"name": side, "members": list(members)}) for side, members in value.sides]
    if name == "characters":
        return list(value.characters)
    if name in ENCOUNTER_FIELDS:
        return getattr(value, name)
    raise MechError(f"an encounter has no `{name}`", span,
                    hint=did_you_mean(name, ENCOUNTER_FIELDS) or "an encounter has: " + ", ".join(ENCOUNTER_FIELDS))


def set_field(value, name: str, new, span: Span) -> None:
    """Only a character's state changes (`punch.hp -= 2`), and an encounter's round count."""
    if type(value) is Character:
        schema = value.kind.schema
        if name in schema.changes:
            value.fields[name] = new
            return
        if name in value.fields or name in OWN_FIELDS:
            slots = [item[1] for item in schema.items if item[0] == "gear"]
            what = "a stat" if name in schema.stats else "a gear list" if name in slots else \
                "an own field" if name in OWN_FIELDS else "a derived value"
            raise MechError(f"`{name}` is {what} of {value.name} and does not change", span,
                            hint="what changes in a fight is the kind's state: " + ", ".join(sorted(schema.state))
                            if schema.state else None)
        raise MechError(f"{value.name} (a {value.kind.name}) has no `{name}`", span,
                        hint=did_you_mean(name, schema.state))
    if name != "round":
        raise MechError(f"only an encounter's `round` can be set, not `{name}`", span)
    if type(new) is not int or new < 0:
        raise MechError(f"an encounter's round is a whole number, 0 or more, not {_shown(new)}", span)
    value.round = new


# A value and the values allowed, as the errors of a sheet and an option say them (a sweep's `--vary`
# says its values' errors the same way: sim/variants.py).
shown, one_of = _shown, _one_of
