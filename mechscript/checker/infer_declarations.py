"""The inference's rules for kinds, characters and the encounter, and for reading names (a mixin of
infer.Inference: the slots and the walk of statements are its own)."""

from __future__ import annotations

from ..interpreter import ast
from . import types as T
from .scopes import RECORD_SITES, FileInfo, KindInfo, Scope, Unit, Var
from .types import ANY, BOTTOM, T_BOOL, T_INT, T_STR, Ref, Type



class Declarations:
    # -- kinds, characters, the encounter --

    def kind_formulas(self, info: KindInfo, unit: Unit, file: FileInfo) -> None:
        """A kind's formulas, each seeing the items above it and the names of its file."""
        scope = Scope(info.scope)
        unit = Unit(None, ("kind", info.key), loading=self.module_characters, file=file)
        k = info.key
        for item in info.node.items:
            slot = ("kfield", k, item.name)
            given = self.get(("kgiven", k, item.name))
            if item.what == "gear":
                gear = self.resolve_kind(info.scope, [item.gear_kind])
                elements = T.of(T.CharT(gear)) if gear is not None else BOTTOM
                self.put(slot, self.list_of(("gear", k, item.name), f"{k[1]}.{item.name}", elements))
                continue
            for part in (item.low, item.high, item.choices):
                if part is not None:
                    self.expr(part, scope, unit)
            default = self.expr(item.value, scope, unit) if item.value is not None else BOTTOM
            if item.what == "stat" and item.low is not None:
                self.put(slot, T_INT)  # a range's stat is checked to be a whole number
            elif item.what == "stat":
                self.put(slot, T.plain(default | given))  # `_checked` takes a roll's total
            elif item.what == "derived":
                self.put(slot, default)
            else:
                self.put(slot, default | given)
            scope.names[item.name] = self.var(item, item.name, "kfield", slot=slot)

    def resolve_kind(self, scope: Scope, path: list) -> tuple | None:
        var = scope.lookup(path[0])
        if var is not None and len(path) == 2 and var.kind == "module":
            var = var.file.scope.names.get(path[1])
        if var is None or var.kind != "kind":
            return None
        return (var.file.path, var.name)

    def character(self, node: ast.CharacterDef, scope: Scope, unit: Unit) -> None:
        key = self.resolve_kind(scope, node.kind)
        if key is None:
            return
        self.entries(key, node.entries, scope, unit)
        self.put(scope.names[node.name].slot, T.of(T.CharT(key)))

    def entries(self, key, entries, scope: Scope, unit: Unit) -> None:
        info = self.kinds[key]
        for entry in entries:
            item = info.items.get(entry.name)
            if item is not None and item.what == "gear":  # the item's name is text, not evaluated
                gear = self.resolve_kind(info.scope, [item.gear_kind])
                if gear is not None:
                    self.entries(gear, entry.entries or [], scope, unit)
                continue
            self.put(("kgiven", key, entry.name), self.expr(entry.value, scope, unit))

    def encounter_def(self, node: ast.EncounterDef, scope: Scope, unit: Unit, file: FileInfo) -> None:
        members = BOTTOM
        for side in node.sides:
            for member in side.members:
                t = self.expr(member, scope, unit)
                members = members | t
                if not t.top and t.sites(T.ListT):  # a list of characters joins them all
                    members = members | self.elements(t)
        members = ANY if members.top else Type(a for a in members if type(a) is T.CharT)
        self.encounter = members
        chars = self.list_of(("enc", "members"), "side.members", members)
        side_site = self.site(("enc", "side"), "encounter side")
        if side_site not in self.record_sites:
            self.record_sites[side_site] = ("name", "members")
            self.grew(RECORD_SITES)
        self.put(("field", side_site, "name"), T_STR)
        self.put(("field", side_site, "members"), chars)
        self.list_of(("enc", "sides"), "encounter.sides", T.of(T.RecordT(side_site, ("name", "members"))))
        self.list_of(("enc", "characters"), "encounter.characters", members)
        homes = self.homes(members)
        for name, _, value in node.settings:  # a setting writes the rules' option for the fight
            t = self.expr(value, scope, unit)
            for home in homes:
                var = home.names.get(name)
                if var is not None and var.kind == "let":
                    self.put(var.slot, t)
        until_unit = Unit(None, "until", loading=False, file=file)
        if node.until is not None:
            until_scope = Scope(scope)
            for name, t in (("round", T_INT), ("one_side_left", T_BOOL), ("sides_left", T_INT)):
                var = until_scope.names[name] = self.var(node, name, "let")
                self.put(var.slot, t)
            self.expr(node.until, until_scope, until_unit)
        # The interpreter calls the rules' `fight(encounter)`, and `standing(character)` from `ended`.
        # `ended` (a builtin) rolls when `standing` or `until` does.
        ended_unit = Unit(None, "ended", loading=False, file=file)
        for home in homes:
            for rule, arg, key in (("fight", T.T_ENCOUNTER, "fight"), ("standing", members, "ended")):
                var = home.names.get(rule)
                if var is not None:
                    self.invoke(self.read_var(var, ended_unit, value=False), [arg], None,
                                Unit(None, key, loading=False, file=file))
        if self.may_roll("until"):
            self.mark_rolls(ended_unit)

    def homes(self, members: Type) -> list[Scope]:
        """The scopes the encounter's kinds were declared in: their `fight`, `standing`, options."""
        if members.top:
            return [f.scope for f in self.files.values()]
        return [self.kinds[a.kind].scope for a in members if a.kind in self.kinds]

    # -- reading names --

    def read_var(self, var: Var, unit: Unit, value: bool = True) -> Type:
        kind = var.kind
        if kind == "fn":
            defs = self.defs_of(var, unit)
            if defs is None:
                return ANY
            if value:
                for info in defs:
                    if info not in self.address_taken:
                        self.address_taken.add(info)
                        self.grew()
            return Type(T.FnT(Ref(info.node)) for info in defs)
        if kind == "module":
            return T.of(T.ModuleT(var.file.path))
        if kind == "kind":
            return T.of(T.KindT((var.file.path, var.name)))
        return self.get(var.slot)

    def defs_of(self, var: Var, unit: Unit) -> list | None:
        """The `fn`s a module-level function name may hold when this code reads it (house rules)."""
        if not var.top:
            return [var.fn]
        key = (var.file.path, var.name)
        if key in self.clobbered:
            return None
        replaced = self.overrides.get(key)
        if not replaced:
            return [var.fn]
        in_main = [info for info, main in replaced if main]
        if in_main and not unit.loading:  # the script's house rule is in before its first statement
            return in_main
        return [var.fn] + [info for info, _ in replaced]
