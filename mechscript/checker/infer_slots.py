"""The store of the inference (infer.py): slots of types that only grow, the sites of the values
made, what grew since a function was last typed and what it read then.

Each change counts one version: `slot_versions` holds a slot's last (or that of what `grew` names),
`everything_version` the last change every function may read. A pass types a function again only
when something its last typing read has grown since (Inference.function)."""

from __future__ import annotations

from . import types as T
from .scopes import LIST_SITES, Unit
from .types import BOTTOM, Site, Type


class Slots:
    def __init__(self):
        self.slots: dict = {}
        self.node_types: dict[int, Type] = {}
        self.sites: dict = {}         # key -> Site
        self.list_sites: set = set()
        self.record_sites: dict = {}  # Site -> names
        self.rolled: set = set()      # unit keys that may roll dice
        self.changed = False
        self.version = self.everything_version = 0
        self.slot_versions: dict = {}
        self.reading: set | None = None   # the slots the fn being typed reads (None at a top level)

    def get(self, key) -> Type:
        self.reads(key)
        return self.slots.get(key, BOTTOM)

    def put(self, key, t: Type) -> None:
        old = self.slots.get(key, BOTTOM)
        new = old | t
        if new is not old and new != old:
            self.slots[key] = new
            self.grew(key)

    def reads(self, key) -> None:
        """The `fn` being typed reads `key`: a slot, or what `grew(key)` names."""
        if self.reading is not None:
            self.reading.add(key)

    def grew(self, key=None) -> None:
        """What the inference knows grew: the slot `key`, or what it names ("rolls", a unit: that it
        may roll; "loading", a fn: that it may run while the modules load; the list or record sites;
        the kinds); None: something every function may read (a fn's address taken, a rule replaced)."""
        self.changed = True
        self.version += 1
        if key is None:
            self.everything_version = self.version
        else:
            self.slot_versions[key] = self.version

    def note(self, node, t: Type) -> Type:
        old = self.node_types.get(id(node), BOTTOM)
        self.node_types[id(node)] = old | t
        return t

    def site(self, key, label: str) -> Site:
        found = self.sites.get(key)
        if found is None:   # only this code asks for it: what it is used for grows with it (a slot, a list of sites)
            found = self.sites[key] = Site(label)
            self.changed = True
        return found

    def list_of(self, key, label: str, elements: Type) -> Type:
        site = self.site(key, label)
        if site not in self.list_sites:
            self.list_sites.add(site)
            self.grew(LIST_SITES)
        self.put(("elems", site), elements)
        return T.of(T.ListT(site))

    def mark_rolls(self, unit: Unit) -> None:
        if unit.key is not None and unit.key not in self.rolled:
            self.rolled.add(unit.key)
            self.grew(("rolls", unit.key))

    def may_roll(self, key) -> bool:
        """Whether the unit `key` (a fn's info, "until", "ended") may roll dice, so far."""
        self.reads(("rolls", key))
        return key in self.rolled
