"""Which kept lists and records a run can change in place, from the checker's types: a run restores
only those as fresh copies (quiet.py); the others it puts back as they are, since no code can have
changed them.

A list or record is known by the site that made it (checker/types.py). Code changes one in place
only by `push(list, x)`, `list[i] = x`, `record[key] = x` and `record.field = x`; the sites such a
target may be are the changed sites. A kept value must be copied when a site it may hold, at any
depth (a list's items, a record's fields), is one of them. Anything the checker does not know
(ANY) means: copy.
"""

from __future__ import annotations

from ..checker import types as T
from ..interpreter import ast

_HOLDERS = (T.ListT, T.RecordT)


def changed_sites(programs, types) -> "set | None":
    """The sites of the lists and records some code may change in place; None when unknown."""
    sites: set = set()
    for program in programs:
        for node in ast.walk(program):
            target = None
            if type(node) is ast.Call and type(node.callee) is ast.Name and node.callee.id == "push" and node.args:
                target = node.args[0]
            elif type(node) is ast.Assign and type(node.target) in (ast.Index, ast.Field):
                target = node.target.target
            if target is None:
                continue
            found = types.of(target)
            if found.is_any:
                return None
            sites.update(atom.site for atom in found if type(atom) in _HOLDERS)
    return sites


def held_sites(found, types) -> "set | None":
    """The sites of the lists and records a value of Type `found` may hold, at any depth (a list's
    items, a record's fields); None when the checker does not know (ANY)."""
    sites: set = set()
    pending = [found]
    while pending:
        found = pending.pop()
        if found.is_any:
            return None
        for atom in found:
            if type(atom) not in _HOLDERS or atom.site in sites:
                continue
            sites.add(atom.site)
            one = T.of(atom)
            if type(atom) is T.ListT:
                pending.append(types.elements(one))
            else:
                pending.extend(types.field(one, name) for name in atom.names)
    return sites


def may_change(found, types, changed: "set | None") -> bool:
    """Whether a value of Type `found` may hold, at any depth, a list or record a run changes."""
    if changed is None:
        return True
    held = held_sites(found, types)
    return held is None or not held.isdisjoint(changed)


def tables_assigned(functions, nodes_of, types) -> bool:
    """Whether code of `functions` ((module, FnDef) pairs, `nodes_of(fn)` their nodes) may assign
    into a table or a row (`table[key] = x`, `row.name = x`), or into what the checker does not know."""
    for _, fn in functions:
        for node in nodes_of(fn):
            if type(node) is ast.Assign and type(node.target) in (ast.Index, ast.Field):
                found = types.of(node.target.target)
                if found.is_any or any(type(atom) in (T.TableT, T.RowT) for atom in found):
                    return True
    return False


def table_may_change(table: ast.TableDef, types, changed: "set | None") -> bool:
    """Whether a run may change in place a list or record the table holds: what each of its entries
    is written as tells (the set-up made them from those very expressions)."""
    return any(may_change(types.of(value), types, changed) for row in table.rows for _, value in row.entries)

