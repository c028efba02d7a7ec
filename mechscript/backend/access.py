"""Fields and indexes written as Python (a part of emit.Emitter): a field the checker knows read
straight, others through `get_field`; an index of a list or a table row inline where it is plain;
a character's gear list gone through as it is."""

from __future__ import annotations

from ..interpreter import ast
from ..interpreter.values import TEXT_STEP
from .calls import Calls
from .changes import may_change
from .writer import Unsupported, class_of, is_constant, roll_or_none, short_text


class Access(Calls):
    def e_Field(self, node):
        module = self.module_of(node.target)
        if module is not None:
            if module.names.get(node.name) == "module":
                raise Unsupported("a module as a value")
            return self.into(module.global_name(node.name))
        value = self.expr(node.target)
        if self.rolls_as_numbers and node.name == "total" and self.surely(node.target, "roll"):
            if not self.pools:
                return value   # a die is its total here, and no other roll exists
            return self.into(f"{value} if {class_of(value)} is int else {value}.total")   # a die, or a pool's roll
        if self.rolls_as_numbers and node.name == "total" and roll_or_none(self.types.of(node.target)):
            span = self.constant(node.name_span)   # none has no total: get_field gives the closures' error
            if not self.pools:
                return self.into(f"{value} if {value} is not None else get_field({value}, 'total', {span}, EV)")
            return self.into(f"{value} if {class_of(value)} is int else {value}.total if {value} is not None "
                             f"else get_field({value}, 'total', {span}, EV)")
        if node.name == "total" and not self.rolls_as_numbers:
            # every roll keeps its total (roll_field): transformers' `roll_for(c, p).total`
            if self.surely(node.target, "roll"):
                return self.into(f"{value}.total")
            if roll_or_none(self.types.of(node.target)):
                span = self.constant(node.name_span)
                return self.into(f"{value}.total if {value} is not None else get_field({value}, 'total', {span}, EV)")
        if not value.startswith(("t", "v")):
            value = self.into(value)
        return self.field_of(value, node)

    def field_of(self, value: str, node: ast.Field) -> str:
        """`value.name`: a character's stat or state that is not a list, a record's field, inline;
        everything else (a gear list given as a copy, an encounter's fields) by `get_field`."""
        scalar = self.scalar_field(value, node.name)
        if scalar is not None:
            return scalar
        field, span = repr(node.name), self.constant(node.name_span)
        result = self.temp()
        if self.kept_field(node):
            record = self.kinds(self.types.of(node.target)) is None   # else characters (`attr`)
            self.line(f"{result} = {self.attr(value, node.name, record)}")
            return result
        if self.surely(node.target, "encounter") and node.name in ("round", "name"):
            self.line(f"{result} = {value}.{node.name}")
            return result
        if self.surely(node.target, "encounter") and node.name == "sides":   # as get_field makes them
            self.line(f"{result} = [record_of({{'name': side, 'members': list(members)}}) "
                      f"for side, members in {value}.sides]")
            self.fresh.add(result)
            return result
        if self.surely(node.target, "encounter") and node.name == "characters":
            self.line(f"{result} = list({value}.characters)")   # a copy: nobody else holds it
            self.fresh.add(result)
            return result
        if self.kinds(self.types.of(node.target)) is not None and node.name in ("name", "side", "kind"):
            self.line(f"{result} = {value}.{'kind.name' if node.name == 'kind' else node.name}")
            return result
        if node.name in ("name", "side", "kind", "round", "characters"):   # not kept in `fields`
            branch = "if"
            if node.name in ("name", "side", "kind"):
                own = "kind.name" if node.name == "kind" else node.name
                self.line(f"if {class_of(value)} is Character: {result} = {value}.{own}")
                branch = "elif"
            if node.name in ("name", "round", "characters"):
                copy = f"list({value}.characters)" if node.name == "characters" else f"{value}.{node.name}"
                self.line(f"{branch} {class_of(value)} is Encounter: {result} = {copy}")
            self.line(f"else: {result} = get_field({value}, {field}, {span}, EV)")
            return result
        if self.kept_if_character(node):
            self.line(f"if {class_of(value)} is Character: {result} = {self.attr(value, node.name)}")
            self.line(f"else: {result} = get_field({value}, {field}, {span}, EV)")
            return result
        kept_dice = self.roll_and_keep_dice(value, node)
        if kept_dice is not None:   # a copy, as roll_field gives it: nobody else holds it
            self.line(f"{result} = list({kept_dice[0]})" + (f" if {kept_dice[1]}" if kept_dice[1] else ""))
            self.fresh.add(result)
            return result
        if self.holds_no_fields(node.target):   # a roll's faces, a module's name: no `fields` to try
            self.line(f"{result} = get_field({value}, {field}, {span}, EV)")
            return result
        # only characters and records keep `fields`; a character's list that is not state (gear) is
        # given as a copy, by get_field
        self.line(f"try: {result} = {value}.fields[{field}]")
        self.line(f"except (AttributeError, KeyError): {result} = get_field({value}, {field}, {span}, EV)")
        self.line("else:")
        with self.indented():
            self.line(f"if {class_of(result)} is list and {class_of(value)} is Character: "
                      f"{result} = get_field({value}, {field}, {span}, EV)")
        return result

    def read_list(self, node) -> str:
        """A value read to be measured or indexed, not kept: a character's gear list, a roll's kept
        or dropped dice, as they are (the copy every other read is given would be thrown away)."""
        gear = self.gear(node)
        if gear is not None:
            return gear
        if self.dice_of_roll(node):
            value = self.expr(node.target)
            value = value if value.startswith(("t", "v")) else self.into(value)
            return self.into(" if ".join(part for part in self.roll_and_keep_dice(value, node) if part))
        return self.expr(node)

    def dice_of_roll(self, node) -> bool:
        """Whether `node` is `roll.kept` or `roll.dropped` of a value the types say is a roll."""
        return type(node) is ast.Field and node.name in ("kept", "dropped") and self.pools and \
            self.module_of(node.target) is None and self.surely(node.target, "roll")

    def roll_and_keep_dice(self, value: str, node: ast.Field) -> "tuple[str, str] | None":
        """(the list, "the test else the general read") of `roll.kept` or `roll.dropped` (dice_of_roll)
        of `value`: a roll-and-keep's list of dice (transformers' `len(r.kept)`), any other roll's by
        get_field; (the list, None) where the types say every roll it may be is a roll-and-keep's.
        None for any other field."""
        if not self.dice_of_roll(node):
            return None
        if all(atom.keep for atom in self.types.of(node.target)):
            return f"{value}.{node.name}", None
        general = f"get_field({value}, {node.name!r}, {self.constant(node.name_span)}, EV)"
        return f"{value}.{node.name}", f"{class_of(value)} is KeepRoll else {general}"

    def character_indexed(self, node: ast.Index) -> bool:
        """Whether `node`, `x[key]`, is surely a character's (or none's) field by a key that may be a
        text: robomacs' `c[level]`."""
        return self.named_fields(node.target) == {"character"} and self.kinds(self.types.of(node.target)) is not None \
            and self.types.of(node.key).maybe("str")

    def character_field(self, value: str, key: str, key_node, span: str) -> str:
        """The field `key` of `value`, surely a character or none (whose missing `__dict__` bails):
        its fields read once (CPython 3.11 reads `__dict__` the slow way, some 25 ns), a list (gear,
        given as a copy) or a missing name (NO_FIELD, a list) by get_index."""
        read = f"{value}.__dict__.get({key}, NO_FIELD)"
        found = self.into(read if self.surely(key_node, "str") else f"{read} if {class_of(key)} is str else NO_FIELD")
        self.line(f"if {class_of(found)} is list: {found} = get_index(EV, {value}, {key}, {span})")
        return found

    def e_Index(self, node):
        holders = self.table_or_row(node.target)
        fixed = self.fixed_table(node.target) if holders == {"table"} else None
        # a table no run changes is the name's global, read where it is needed alone
        value = self.resolve(node.target.id)[1] if fixed is not None else self.read_list(node.target)
        if is_constant(value):   # `(x == 1)[0]` worked out (folding.py): an error, the closures' to word
            return self.into("bail()")
        key = self.expr(node.key)
        span = self.constant(node.key.span)
        is_str = "" if self.surely(node.key, "str") else f"{class_of(key)} is str and "
        if fixed is not None and self.types.of(node.key).maybe("str"):
            # a text in a table no run changes: its row or entry from one dict; else its `else`
            flat, row = self.constant(flat_lookup(fixed)), fixed.rows.get(None)
            otherwise = f"get_index(EV, {value}, {key}, {span})"   # a missing text's error, or no text
            if row is not None and row.has_default:
                default = self.constant(row.default)
                otherwise = f"{default} if {class_of(key)} is str else {otherwise}" if is_str else default
            return self.into(f"{flat}[{key}] if {is_str}{key} in {flat} else {otherwise}")
        if holders is not None and self.types.of(node.key).maybe("str"):
            # a table's row by its name, a row's entry by its key (TableRow.keyed), else its `else`
            # (a string is no threshold), as lookup.get_index finds them; anything else (a threshold,
            # a missing key) by get_index
            rows, entries = (f"{value}.rows", f"{value}.keyed")
            unnamed = f"{value}.rows[None]"   # a table of one unnamed row is looked up in it
            # surely a table, or surely a row: no test of which (robomacs' `kind_traits[c.kind]`)
            is_table, is_row = ("", "") if len(holders) == 1 else \
                (f"{class_of(value)} is Table and ", f"{class_of(value)} is TableRow and ")
            found = {"table": f"{rows}[{key}] if {is_str}{is_table}{key} in {rows} else "
                              f"{unnamed}.keyed[{key}] if {is_str}{is_table}None in {rows} and {key} in {unnamed}.keyed "
                              f"else {unnamed}.default if {is_str}{is_table}None in {rows} and {unnamed}.has_default",
                     "row": f"{entries}[{key}] if {is_str}{is_row}{key} in {entries} else "
                            f"{value}.default if {is_str}{is_row}{value}.has_default"}
            tests = " else ".join(found[holder] for holder in sorted(holders))
            return self.into(f"{tests} else get_index(EV, {value}, {key}, {span})")
        named = self.named_fields(node.target)
        if named and self.types.of(node.key).maybe("str"):
            # `c[name]`: a character's stat or state that is no list (gear is given as a copy), a
            # record's field, as lookup.get_index finds them; anything else by get_index
            fields = f"{value}.__dict__"
            if self.character_indexed(node):
                return self.character_field(value, key, node.key, span)
            is_character = "" if self.kinds(self.types.of(node.target)) is not None else \
                f"{class_of(value)} is Character and "
            tests = {"character": f"({is_character}{is_str}{key} in {fields} and "
                                  f"{fields}[{key}].__class__ is not list)",
                     "record": f"(isinstance({value}, Record) and {is_str}{key} in {fields})"}
            found = " or ".join(tests[kind] for kind in sorted(named))
            return self.into(f"{fields}[{key}] if {found} else get_index(EV, {value}, {key}, {span})")
        is_list = "" if self.surely(node.target, "list") else f"{class_of(value)} is list and "
        if not is_list and (key.isdigit() or self.surely(node.key, "int")):
            # Python's own index: the same item, from either end; outside the list it raises
            # IndexError, and the run bails for the closures' error
            return self.into(f"{value}[{key}]")
        if key.isdigit():   # a whole number written as such, 0 or more
            return self.into(f"{value}[{key}] if {is_list}{key} < len({value}) "
                             f"else get_index(EV, {value}, {key}, {span})")
        is_int = "" if self.surely(node.key, "int") else f"{class_of(key)} is int and "
        return self.into(f"{value}[{key}] if {is_list}{is_int}"
                         f"-len({value}) <= {key} < len({value}) else get_index(EV, {value}, {key}, {span})")

    def fixed_table(self, node):
        """The Table a name surely holds in every run (quiet.fixed_tables), or None."""
        place = self.resolve(node.id) if type(node) is ast.Name else None
        return self.fixed_tables.get(place[1]) if place is not None and place[0] == "global" else None

    def no_long_text_in(self, node) -> bool:
        """Whether `node` is a list of literals none of which is a string of TEXT_STEP characters or
        more (transformers' `contains(["durability", "fatigue", "active_defense"], roll)`), a list
        option holding none (quiet.short_text_lists), or a look-up in a table no run changes
        (fixed_table) none of whose entries is a list holding such a string (robomacs'
        `contains(kind_traits[c.kind], name)`): a string compared with its items costs no step,
        however long."""
        while type(node) is ast.Group:
            node = node.inner
        if type(node) is ast.ListLiteral:
            return all(type(item) is ast.Number or short_text(item) for item in node.items)
        if type(node) is ast.Name:   # a list option that is the set-up's in every run (pbem's `rank_rolls`)
            place = self.resolve(node.id)
            return place is not None and place[0] == "global" and place[1] in self.short_text_lists and \
                not self.list_may_change(node)
        table = self.fixed_table(node.target) if type(node) is ast.Index else None
        if table is None:
            return False
        values = [value for row in table.rows.values() for value in
                  [row.default, *(entry for _, entry in row.entries)]]
        return all(type(item) is not str or len(item) < TEXT_STEP
                   for value in values if type(value) is list for item in value)

    def list_length(self, node) -> "int | None":
        """The length of the list `node` gives in every run, where the set-up tells it: a list
        written out, a list option that is the set-up's in every run (`no_long_text_in`), an
        encounter's characters where every encounter has as many (`gear`: no code changes them);
        else None."""
        while type(node) is ast.Group:
            node = node.inner
        if type(node) is ast.ListLiteral:
            return len(node.items)
        if type(node) is ast.Name and self.no_long_text_in(node):
            return self.short_text_lists[self.resolve(node.id)[1]]
        if type(node) is ast.Field and node.name == "characters" and self.module_of(node.target) is None and \
                self.surely(node.target, "encounter"):
            return self.encounter_size
        return None

    def gear(self, node) -> "str | None":
        """A character's gear list (or list stat), or an encounter's characters, read to be gone
        through by a `for`: the list itself, which nothing ever changes (every other read is given
        a copy), so the loop needs no copy."""
        if type(node) is not ast.Field or self.module_of(node.target) is not None:
            return None
        if node.name == "characters" and self.surely(node.target, "encounter"):
            value = self.pure(node.target)
            return None if value is None else self.into(f"{value}.characters")
        if node.name == "sides" and self.surely(node.target, "encounter") and \
                not may_change(self.types.of(node), self.types, self.changed):
            # the fought encounter's, made once (quiet.written_helpers): its sides never change, and
            # no code changes their records or lists in place
            value = self.pure(node.target)
            return None if value is None else self.into(
                f"SIDES if {value} is ENCOUNTER else [record_of({{'name': side, 'members': list(members)}}) "
                f"for side, members in {value}.sides]")
        target = self.types.of(node.target)
        kind = self.one_kind(target)
        if kind is None or node.name in self.state_of(kind) or node.name in ("name", "side", "kind") or \
                node.name not in self.types.kind_fields(kind):
            return None
        value = self.pure(node.target)
        if value is None:
            return None
        return self.into(self.attr(value, node.name))


def flat_lookup(table) -> dict:
    """{text: what `table[text]` gives} for each text it finds without its `else`, as
    lookup.get_index finds it: a row by its name, else the unnamed row's entry of that key."""
    row = table.rows.get(None)
    flat = {key: value for key, value in row.keyed.items() if type(key) is str} if row is not None else {}
    flat.update((name, named) for name, named in table.rows.items() if name is not None)
    return flat
