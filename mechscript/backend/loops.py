"""Loops written as Python (a part of emit.Emitter, whose `block` and `condition` they use): a `for`
charged its length on entry, a `while` counted by Python's own `for` over the rounds allowed, a
`repeat` charged its count."""

from __future__ import annotations

from ..interpreter import ast
from .access import Access
from .narration import pushed_onto
from .work import SHORT_LOOP
from .writer import class_of, short_text, spending


class Loops(Access):
    def for_(self, node: ast.For) -> None:
        items = self.gear(node.iterable)
        if items is not None:
            self.fresh.add(items)
        else:
            items = self.expr(node.iterable)
        if not self.surely(node.iterable, "list"):
            self.line(f"if {class_of(items)} is not list: bail()")
        self.charge(node, items)
        self.scopes.append({})
        try:
            variable = self.local(node.name)
            if node.name not in self.reassigned and type(node.iterable) is ast.ListLiteral and \
                    all(short_text(item) for item in node.iterable.items):
                self.short_texts.add(variable)   # robomacs' `for phase in ["advantage", "npc", ...]`
            # the closures go through a copy, which a list only this loop holds needs not, nor one
            # that no code changes in place (changes.py), nor one the loop's body cannot change
            copy = items not in self.fresh and self.list_may_change(node.iterable) and self.may_change_lists(node.body)
            self.line(f"for {variable} in {f'list({items})' if copy else items}:")
            with self.indented():
                self.block(node.body)
        finally:
            self.scopes.pop()

    def charge(self, node: ast.For, items: str) -> None:
        """A `for`'s length spent at its entry, and tested against the limits. A short loop that does
        little (Work.short_loop) counts nothing, as a call of a `fn` that ends by itself
        (docs/language.md, "What counts a step"). A list whose length the set-up tells (list_length:
        an encounter's characters) is charged that number, its tests worked out as it is written."""
        length = self.list_length(node.iterable)
        if length is not None:
            if self.short_loop(node) and length <= min(SHORT_LOOP, self.limits.loop_iterations, self.limits.list_size):
                return
            if length > self.limits.loop_iterations or id(node) in self.bounded_loops and length > self.limits.list_size:
                self.line("bail()")
            elif length:
                self.line(spending(str(length)))
            return
        short = self.short_loop(node)
        if short:
            # an empty list, the usual one (robomacs' effects, transformers' held actions), is told
            # by its truth alone: no call of len
            empty = f"{items} and " if items.isidentifier() else ""
            self.line(f"if {empty}len({items}) > {min(SHORT_LOOP, self.limits.loop_iterations, self.limits.list_size)}:")
            self.depth += 1
        if self.limits.list_size > self.limits.loop_iterations:   # else no list is that long
            self.line(f"if len({items}) > LOOP_ITERATIONS: bail()")
        if id(node) in self.bounded_loops:   # for the pushes it holds (narration.bounded_pushes)
            self.line(f"if len({items}) > LIST_SIZE: bail()")
        # its length, at entry; of an empty list, nothing (outside a short loop's own test of it)
        self.line(spending(f"len({items})", unless_empty=items if items.isidentifier() and not short else ""))
        if short:
            self.depth -= 1

    def while_(self, node: ast.While) -> None:
        # the rounds counted by Python's `for`; once they are all spent, the condition is tested
        # once more, as the closures test it before the round past the limit
        self.line("for _ in LOOP_ROUNDS:")
        with self.indented():
            value = self.condition(node.condition)
            self.line(f"if not {value}: break")
            self.line("next(STEP)")
            self.block(node.body)
        self.line("else:")
        with self.indented():
            value = self.condition(node.condition)
            self.line(f"if {value}: bail()")

    def repeat(self, node: ast.Repeat) -> None:
        count = self.expr(node.count)
        if not (count.isidentifier() or count.isdigit()):
            count = self.into(count)   # read three times below
        rounds = self.temp()
        # a whole number within the limit as it is; anything else as the closures take it (a roll's
        # total) or fail on it
        whole = "" if self.surely(node.count, "int") else f"{class_of(count)} is int and "
        self.line(f"{rounds} = {count} if {whole}0 <= {count} <= LOOP_ITERATIONS "
                  f"else repeat_count(EV, {count}, {self.constant(node.count.span)})")
        self.line(spending(rounds))
        self.line(f"for _ in range({rounds}):")
        with self.indented():
            self.block(node.body)

    def may_change_lists(self, body) -> bool:
        """Whether running `body` may change a list in place: it pushes, sets an item, or calls a
        `fn` that is not pure (or a builtin that may call one). Not a push onto a list the rule made
        itself that no other name holds while its loop fills it (narration.bounded_pushes: robomacs'
        `effects_now` pushes onto `found` as it goes through `c.effects`), or while it runs at all
        (narration.private_lists)."""
        for n in ast.walk(body):
            kind = type(n)
            if kind is ast.FnDef or kind is ast.Assign and type(n.target) is ast.Index:
                return True
            if kind is ast.Call:
                if self.calls_a_fn(n, self.own_names):
                    if not self.purity.droppable(self.module, n, self.own_names):   # a pure fn changes none
                        return True
                elif type(n.callee) is ast.Name and n.callee.id == "push" and id(n) not in self.bounded_pushes \
                        and pushed_onto(n) not in self.private_lists:
                    return True
        return False
