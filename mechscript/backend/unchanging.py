"""The fields of characters that every run reads as one value (a part of the quiet set-up): a
field that all characters of a kind a run can reach hold with the same small value, and that no
code a run may run assigns, is that value in every run. The written code works out a comparison
or a truth test of it as it is written (folding.py): a rule this encounter never uses (no
character is a leader, none is Mega-Sized) is tested once, not at every use."""

from __future__ import annotations

from ..interpreter import ast
from ..interpreter.values import Character
from .writer import small_literal

_MISSING = object()


def written_fields(code, types, state: frozenset) -> "set[str] | None":
    """The names of the fields some of the `code` a run may run (its `fn`s, the encounter's `until`)
    assigns (`x.f = ...`, `x["f"] += ...`) of what may be a character, or None when any may be: a
    character made (`make`) by a run. An index of a value that may be a character by a key not
    written out (robomacs' `c[level] -= 1`) may assign any name of `state`, the state of the kinds
    of the characters a run can reach: no other field of a character changes (characters.set_field)."""
    written = set()
    for tree in code:
        for node in ast.walk(tree):
            if type(node) is ast.Name and node.id == "make":
                return None
            if type(node) is not ast.Assign:
                continue
            target = node.target
            if type(target) is ast.Field:
                # a record's field (transformers' sheet `t.mega`) leaves a character's of that name unchanging
                if not _no_character(types.of(target.target)):
                    written.add(target.name)
            elif type(target) is ast.Index:
                key = target.key
                while type(key) is ast.Group:
                    key = key.inner
                if type(key) is ast.String and all(type(part) is str for part in key.parts):
                    written.add("".join(key.parts))
                elif not _no_character(types.of(target.target)):
                    written |= state
    return written


def _no_character(found) -> bool:
    return not found.is_any and not found.is_empty and not found.maybe("character")


def unchanging_fields(reachable: list[Character], kind_key, written: "set[str] | None") -> dict:
    """{(kind key, field name): value} of the fields every run reads as one value: those every
    character of the kind among `reachable` holds with one small value, of no name in `written`."""
    if written is None:
        return {}
    by_kind: dict = {}
    for character in reachable:
        by_kind.setdefault(kind_key(character), []).append(character)
    if None in by_kind:   # a kind no top level names (declared in a block): the checker may name it as another
        return {}
    unchanging = {}
    for key, members in by_kind.items():
        first = members[0].fields
        for name, value in first.items():
            if name in written or not small_literal(value):
                continue
            if all(type(other.fields.get(name, _MISSING)) is type(value) and other.fields[name] == value
                   for other in members):
                unchanging[(key, name)] = value
    return unchanging
