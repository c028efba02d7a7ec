"""The checker's types: a small immutable lattice of sets of atoms, with ANY on top.

A Type is the set of runtime kinds a value may have; `join` is set union, ANY absorbs everything,
the empty type (BOTTOM) is an expression that never gives a value (never run, or it always raises).
The atoms, and the runtime values they stand for (by Python type, as the interpreter makes them):

    "int"        an int (a whole number; never a bool)
    "fraction"   a Fraction (numbers are normalised, so it is not whole in practice)
    "bool", "str", "none"
    "encounter"  the script's encounter (values.Encounter)
    RollT(whole, keep)  a rolled DiceRoll or KeepRoll; `whole`: its total is surely an int (it is
                 unless the faces are fractions, `d[1/2, 1]`, or a fraction was added to a pool);
                 `keep`: it is surely a KeepRoll (a roll-and-keep pool rolled by `roll`)
    PoolT(whole) an unrolled roll-and-keep Pool; `whole`: its flat bonus is an int
    ListT(site)  a list made at `site` (an allocation site: a list literal, `range(...)`, a gear slot...)
    RecordT(site, names)  a record made at `site`, with these fields in this order
    CharT(kind)  a Character of the kind `kind` = (path of the file declaring it, kind name)
    FnT(ref)     a user Function made from the `fn` definition `ref.node`
    ModuleT(path), TableT(site), RowT(site), KindT(kind)

Lists and records are mutable, so what they hold is not in the atom: their element and field types
live in the inference's heap, keyed by site (infer.Types.elements / fields); sites are compared by
identity.
"""

from __future__ import annotations

from dataclasses import dataclass

INT, FRACTION, BOOL, STR, NONE, ENCOUNTER = "int", "fraction", "bool", "str", "none", "encounter"


class Ref:
    """An AST node (or any object) compared by identity: AST dataclasses are not hashable."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def __eq__(self, other):
        return type(other) is Ref and other.node is self.node

    def __hash__(self):
        return id(self.node)

    def __repr__(self):
        name = getattr(self.node, "name", None)
        return f"<{name or type(self.node).__name__}>"


class Site:
    """Where lists, records or tables are made; identity is the site."""

    __slots__ = ("label",)

    def __init__(self, label: str):
        self.label = label

    def __repr__(self):
        return self.label


@dataclass(frozen=True, slots=True)
class RollT:
    whole: bool = True
    keep: bool = False


@dataclass(frozen=True, slots=True)
class PoolT:
    whole: bool = True


@dataclass(frozen=True, slots=True)
class ListT:
    site: Site


@dataclass(frozen=True, slots=True)
class RecordT:
    site: Site
    names: tuple


@dataclass(frozen=True, slots=True)
class CharT:
    kind: tuple  # (path, kind name)


@dataclass(frozen=True, slots=True)
class FnT:
    ref: Ref  # the FnDef


@dataclass(frozen=True, slots=True)
class ModuleT:
    path: str


@dataclass(frozen=True, slots=True)
class TableT:
    site: Site


@dataclass(frozen=True, slots=True)
class RowT:
    site: Site


@dataclass(frozen=True, slots=True)
class KindT:
    kind: tuple


_KIND_OF_CLASS = {RollT: "roll", PoolT: "pool", ListT: "list", RecordT: "record", CharT: "character",
                  FnT: "function", ModuleT: "module", TableT: "table", RowT: "row", KindT: "kind"}


def runtime_kind(atom) -> str:
    """The name of an atom's runtime kind: "int", "roll", "list", "character"..."""
    return atom if type(atom) is str else _KIND_OF_CLASS[type(atom)]


_NUMBERS = frozenset({INT, FRACTION})   # the runtime kinds `surely("number")` and `maybe("number")` take


class Type:
    """An immutable set of atoms, or ANY (`top`)."""

    __slots__ = ("atoms", "top", "runtime_kinds")

    def __init__(self, atoms=(), top: bool = False):
        self.atoms = frozenset() if top else frozenset(atoms)
        self.top = top
        self.runtime_kinds = None   # of the atoms, once asked (`_runtime_kinds`)

    def _runtime_kinds(self) -> frozenset:
        """The runtime kinds of the atoms ("int", "list"...), worked out once: the checker and the
        back end ask `maybe` and `surely` of the same types tens of thousands of times a set-up."""
        kinds = self.runtime_kinds
        if kinds is None:
            kinds = self.runtime_kinds = frozenset(runtime_kind(atom) for atom in self.atoms)
        return kinds

    # -- the lattice --

    def join(self, other: "Type") -> "Type":
        if self.top or other.top:
            return ANY
        if other.atoms <= self.atoms:
            return self
        if self.atoms <= other.atoms:
            return other
        return Type(self.atoms | other.atoms)

    __or__ = join

    def __le__(self, other: "Type") -> bool:
        return other.top or (not self.top and self.atoms <= other.atoms)

    def __eq__(self, other):
        return type(other) is Type and self.top == other.top and self.atoms == other.atoms

    def __hash__(self):
        return hash((self.top, self.atoms))

    def __iter__(self):
        return iter(self.atoms)

    # -- predicates the back end uses --

    @property
    def is_any(self) -> bool:
        return self.top

    @property
    def is_empty(self) -> bool:
        """No value ever: code that never runs, or always raises."""
        return not self.top and not self.atoms

    def surely(self, kind: str) -> bool:
        """Every value is of this runtime kind ("int", "str", "bool", "none", "list", "record",
        "character", "encounter", "function", "roll", "pool", "table", "row", "module", "kind", or
        "number" for int or fraction). False for ANY, and for the empty type (nothing is known)."""
        if self.top or not self.atoms:
            return False
        kinds = self._runtime_kinds()
        return kinds <= _NUMBERS if kind == "number" else len(kinds) == 1 and kind in kinds

    def maybe(self, kind: str) -> bool:
        if self.top:
            return True
        kinds = self._runtime_kinds()
        return kind in kinds or kind == "number" and not kinds.isdisjoint(_NUMBERS)

    def kinds(self) -> set[tuple] | None:
        """The character kinds (path, name) of its character atoms; None for ANY."""
        return None if self.top else {a.kind for a in self.atoms if type(a) is CharT}

    def kind(self) -> tuple | None:
        """The one kind of character every value is, or None."""
        if not self.surely("character"):
            return None
        kinds = self.kinds()
        return next(iter(kinds)) if len(kinds) == 1 else None

    def functions(self) -> list | None:
        """The `fn` definitions a function value may be made from, or None when unknown (ANY)."""
        return None if self.top else [a.ref.node for a in self.atoms if type(a) is FnT]

    def shape(self) -> tuple | None:
        """The field names, in order, when every value is a record of one shape."""
        if not self.surely("record"):
            return None
        shapes = {a.names for a in self.atoms}
        return next(iter(shapes)) if len(shapes) == 1 else None

    def record_shape(self) -> tuple | None:
        """The field names, in order, when every value is a record of one shape or none (a field
        read of none fails at run time)."""
        if self.top:
            return None
        shapes = {a.names for a in self.atoms if type(a) is RecordT}
        others = [a for a in self.atoms if a != "none" and type(a) is not RecordT]
        return next(iter(shapes)) if len(shapes) == 1 and not others else None

    def sites(self, cls) -> list:
        return [a.site for a in self.atoms if type(a) is cls]

    def __repr__(self):
        if self.top:
            return "ANY"
        if not self.atoms:
            return "BOTTOM"
        return "|".join(sorted(_show(a) for a in self.atoms))


def _show(atom) -> str:
    if type(atom) is str:
        return atom
    if type(atom) is CharT:
        return f"character({atom.kind[1]})"
    if type(atom) is FnT:
        return f"fn({atom.ref.node.name})"
    if type(atom) is RecordT:
        return "record{" + ", ".join(atom.names) + "}"
    if type(atom) in (RollT, PoolT):
        return runtime_kind(atom) + ("" if atom.whole else "~")
    return runtime_kind(atom)


ANY = Type(top=True)
BOTTOM = Type()


def of(*atoms) -> Type:
    return Type(atoms)


T_INT, T_FRACTION, T_NUMBER = of(INT), of(FRACTION), of(INT, FRACTION)
T_BOOL, T_STR, T_NONE, T_ENCOUNTER = of(BOOL), of(STR), of(NONE), of(ENCOUNTER)


def join_all(types) -> Type:
    result = BOTTOM
    for t in types:
        result = result | t
    return result


def numeric(t: Type) -> Type:
    """What `ev.number` gives for a value of type t (a roll's total, a pool rolled); other kinds
    raise, so they give nothing."""
    if t.top:
        return T_NUMBER
    result = set()
    for a in t.atoms:
        if a == INT or a == FRACTION:
            result.add(a)
        elif type(a) in (RollT, PoolT):
            result.update((INT,) if a.whole else (INT, FRACTION))
    return Type(result)


def plain(t: Type) -> Type:
    """`values.plain`: rolls become their totals, everything else stays."""
    if t.top:
        return ANY
    if not any(type(a) is RollT for a in t.atoms):
        return t
    result = {a for a in t.atoms if type(a) is not RollT}
    for a in t.atoms:
        if type(a) is RollT:
            result.update((INT,) if a.whole else (INT, FRACTION))
    return Type(result)


def whole(t: Type) -> bool:
    """Whether every number t gives (as `ev.number`) is an int."""
    return numeric(t) <= T_INT
