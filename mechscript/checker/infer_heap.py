"""The inference's heap: the fields of records, characters and modules, the items of lists and
tables, read and written (a mixin of infer.Inference)."""

from __future__ import annotations

from ..interpreter import ast
from . import types as T
from .scopes import KINDS, LIST_SITES, RECORD_SITES, Unit
from .types import ANY, BOTTOM, T_INT, T_NUMBER, T_STR, Type


OWN_FIELDS = {"name": T_STR, "kind": T_STR}
T_SIDE = T.of(T.STR, T.NONE)  # `side` is none until the encounter is fought, and for gear items


class FieldTypes:
    # -- the heap: lists, records, characters, modules --

    def elements(self, t: Type) -> Type:
        if t.top:
            return ANY
        return T.join_all(self.get(("elems", site)) for site in t.sites(T.ListT))

    def push(self, items: Type, value: Type) -> None:
        if items.top:
            self.reads(LIST_SITES)
        sites = self.list_sites if items.top else items.sites(T.ListT)
        for site in list(sites):
            self.put(("elems", site), value)

    def read_field(self, t: Type, name: str, unit: Unit | None = None) -> Type:
        """`x.name` (evaluator `_get_field`) for x of type t."""
        if t.top:
            return ANY
        out = BOTTOM
        for a in t:
            kind = type(a)
            if kind is T.CharT:
                out = out | self.read_char_field(a.kind, name)
            elif kind is T.RecordT:
                if name in a.names:
                    out = out | self.get(("field", a.site, name))
            elif a == T.ENCOUNTER:
                out = out | self.encounter_field(name)
            elif kind is T.ModuleT:
                var = self.files[a.path].scope.names.get(name) if a.path in self.files else None
                if var is not None:
                    out = out | self.read_var(var, unit or Unit(None, None, True))
            elif kind is T.TableT:
                out = out | T.of(T.RowT(a.site))
            elif kind is T.RollT:
                if name == "total":
                    out = out | (T_INT if a.whole else T_NUMBER)
                elif name in ("faces", "kept", "dropped"):
                    out = out | self.list_of(("faces", a.whole), "roll faces", T_INT if a.whole else T_NUMBER)
            elif kind is T.PoolT:
                if name == "notation":
                    out = out | T_STR
                elif name in ("rolled", "kept"):
                    out = out | T_NUMBER
                elif name == "bonus":
                    out = out | (T_INT if a.whole else T_NUMBER)
        return out

    def read_char_field(self, kind: tuple, name: str) -> Type:
        info = self.kinds.get(kind)
        if info is not None and name in info.items:
            return self.get(("kfield", kind, name))
        if name == "side":
            return T_SIDE
        return OWN_FIELDS.get(name, BOTTOM)

    def encounter_field(self, name: str) -> Type:
        if name == "name":
            return T_STR
        if name == "round":
            return T_INT  # set_field checks it is a whole number
        if name in ("sides", "characters"):
            return T.of(T.ListT(self.site(("enc", name), f"encounter.{name}")))
        return BOTTOM

    def write_field(self, t: Type, name: str, value: Type) -> None:
        if t.top:  # an unknown holder: any record's field, character's state or module's variable
            self.reads(RECORD_SITES)
            self.reads(KINDS)
            for site, names in list(self.record_sites.items()):
                if name in names:
                    self.put(("field", site, name), value)
            for key, info in self.kinds.items():
                if name in info.items:
                    self.put(("kfield", key, name), value)
            for path in self.files:
                self.write_module(path, name, value)
            return
        for a in t:
            if type(a) is T.CharT:
                info = self.kinds.get(a.kind)
                if info is not None and name in info.items and info.items[name].what == "state":
                    self.put(("kfield", a.kind, name), value)
            elif type(a) is T.RecordT and name in a.names:
                self.put(("field", a.site, name), value)
            elif type(a) is T.ModuleT:
                self.write_module(a.path, name, value)

    def write_module(self, path: str, name: str, value: Type) -> None:
        var = self.files[path].scope.names.get(name) if path in self.files else None
        if var is None:
            return
        if var.kind == "fn":  # `m.rule = x` through a value replaces the rule: nothing known of it
            if (path, name) not in self.clobbered:
                self.clobbered.add((path, name))
                self.grew()
        elif var.kind in ("let",):
            self.put(var.slot, value)

    def index(self, holder: Type, key: Type, key_node) -> Type:
        """`x[key]` (`lookup.get_index`)."""
        if holder.top:
            return ANY
        name = literal_key(key_node)
        out = BOTTOM
        for a in holder:
            kind = type(a)
            if kind is T.ListT:
                out = out | self.get(("elems", a.site))
            elif kind is T.RowT:
                out = out | self.get(("tvals", a.site))
            elif kind is T.TableT:
                out = out | self.get(("trows", a.site)) | self.get(("tvals", a.site))   # a named row, or a value
            elif kind is T.RecordT:
                names = [name] if name is not None else a.names
                out = out | T.join_all(self.get(("field", a.site, n)) for n in names if n in a.names)
            elif kind is T.CharT:
                info = self.kinds.get(a.kind)
                names = [name] if name is not None else [*(info.items if info else ()), "name", "kind", "side"]
                out = out | T.join_all(self.read_char_field(a.kind, n) for n in names)
        return out

    def write_index(self, holder: Type, key_node, value: Type, update=None) -> None:
        """`holder[key] = value`. `update(old)`: the value `holder[key] op= x` writes over a field of
        Type `old`, for a key worked out at run time: a field the operation cannot apply to (`c[level]
        -= 1` over a state that holds a character) is never written, the run failing first."""
        name = literal_key(key_node)
        if update is None or name is not None:
            update = lambda old: value  # noqa: E731
        if holder.top:
            self.push(ANY, value)
            if name is not None:
                self.write_field(ANY, name, value)
            else:
                self.reads(RECORD_SITES)
                self.reads(KINDS)
                for site, names in list(self.record_sites.items()):
                    for n in names:
                        self.put(("field", site, n), value)
                for key, info in self.kinds.items():
                    for n in info.items:
                        self.put(("kfield", key, n), value)
            return
        for a in holder:
            if type(a) is T.ListT:
                self.put(("elems", a.site), value)
            elif type(a) is T.RecordT:
                for n in ([name] if name is not None else a.names):
                    if n in a.names:
                        self.put(("field", a.site, n), update(self.get(("field", a.site, n))))
            elif type(a) is T.CharT:
                info = self.kinds.get(a.kind)
                for n, item in (info.items.items() if info else ()):
                    if item.what == "state" and (name is None or n == name):
                        self.put(("kfield", a.kind, n), update(self.get(("kfield", a.kind, n))))


def literal_key(node) -> str | None:
    """The text of a plain string literal key (`c["hp"]`), else None."""
    if type(node) is ast.String and all(type(p) is str for p in node.parts):
        return "".join(node.parts)
    return None
