"""The locals a function's statements prove are not none (a part of emit.Emitter, its `not_none`):
past `if x == none { ... return }`, and past a statement that surely reads a field of `x` (a field
of none is an error: a run that goes on past the read has an `x` that is no none). A read there
needs no test of none: transformers' `passive_defense(c)` reads `c.prone` first, and then calls
`defense_concentration(c)`, remembered by `c`'s state (memo.py), with `c.form`, not `c.form if c
is not None else None`."""

from __future__ import annotations

from ..interpreter import ast
from .assign import Assignments
from .narration import dropped_arguments, pushed_to
from .writer import literal_value


class NotNone(Assignments):

    def returns_if_none(self, node) -> set:
        """{x's Python name} when `node` is `if x == none { ... return ... }` for a local `x` that
        stays no none (`stays_not_none`)."""
        if type(node) is not ast.If or len(node.branches) != 1 or node.otherwise is not None:
            return set()
        test, body = node.branches[0]
        if type(test) is not ast.Compare or test.op != "==" or type(test.left) is not ast.Name or \
                literal_value(test.right) is not None or not body.statements or \
                type(body.statements[-1]) is not ast.Return:
            return set()
        return self.stays_not_none(test.left.id, node)

    def reads_a_field_of(self, node) -> set:
        """The Python names of the locals that stay no none (`stays_not_none`) of which the statement
        `node`, as it is written, surely reads a field (`x.f`, in what it surely works out:
        `fields_surely_read`): if `x` were none, the run would not go on past it (the written code
        raises there, and the closures replay the run for their error). Only past the read: before
        it, a writer told that `x` is no none could leave the read out (a field of a character
        that no run changes is a literal, `Folding`; an inlined call's argument it does not read is
        not read, `Calls.hold`)."""
        kind = type(node)
        if self.dropped(node):
            return set()
        if kind is ast.Let or kind is ast.Assign:
            if id(node.value) in self.purity.skipped:
                return set()
            roots = [node.value] + ([node.target] if kind is ast.Assign and type(node.target) is not ast.Name else [])
        elif kind is ast.If:
            roots = [node.branches[0][0]]
        elif kind is ast.ExprStatement:
            roots = [node.expr]
        elif kind is ast.For:
            roots = [node.iterable]
        else:   # a `say` may leave its parts out (emit.say); a `while` or `repeat` may not run
            return set()

        def left_out(call):   # a text only the callee's narration reads: not worked out
            return dropped_arguments(self.purity, self.module, call, self.own_names)

        names = set()
        for root in roots:
            for name in fields_surely_read(root, self.purity.skipped, left_out):
                names |= self.stays_not_none(name, node)
        return names

    def dropped(self, node) -> bool:
        """Whether the statement `node` is left out of the written code: a value only narration
        reads (narration.py), an `if` that does nothing else (narration.emptied_ifs)."""
        kind = type(node)
        return kind is ast.Let and node.name in self.dropped_names or \
            kind is ast.Assign and type(node.target) is ast.Name and node.target.id in self.dropped_names or \
            pushed_to(node) in self.dropped_names or kind is ast.If and id(node) in self.dropped_statements

    def stays_not_none(self, name: str, node) -> set:
        """{name's Python name} when `name` is a local of the function being written that no
        assignment may make none again after `node` (`x += 1`, `x = <never none>`): none in `node`
        or after it, and inside a loop none of the function; else an empty set."""
        place = self.resolve(name)
        if place is None or place[0] != "local" or place[2] < self.function_base:
            return set()
        found = self.assignments.get(id(self.function_nodes))
        if found is None:   # asked a thousand times in robomacs' set-up: gathered once a function
            found = self.assignments[id(self.function_nodes)] = _assignments(self.function_nodes)
        lets, loops, plain, nested = found
        start = node.span.start
        looped = any(first <= start < end for first, end in loops)
        if lets.get(name, 0) > 1 or name in nested or \
                any(self.types.of(value).maybe("none") for value, at in plain.get(name, ()) if looped or at >= start):
            return set()
        return {place[1]}


def _assignments(nodes: list) -> tuple:
    """What stays_not_none asks of a function whose body's nodes are `nodes`: each name's count of
    `let`s; the spans of the loops; each name's plain assignments `x = value` (the value, where it
    starts); the names a nested function assigns, whenever it is called."""
    lets: dict = {}
    loops = []
    plain: dict = {}
    nested = set()
    for n in nodes:
        kind = type(n)
        if kind is ast.Let:
            lets[n.name] = lets.get(n.name, 0) + 1
        elif kind is ast.For or kind is ast.While or kind is ast.Repeat:
            loops.append((n.span.start, n.span.end))
        elif kind is ast.Assign and type(n.target) is ast.Name and n.op == "=":
            plain.setdefault(n.target.id, []).append((n.value, n.span.start))
        elif kind is ast.FnDef:
            nested |= {inner.target.id for inner in ast.walk(n.body)
                       if type(inner) is ast.Assign and type(inner.target) is ast.Name}
    return lets, loops, plain, nested


def fields_surely_read(node, skipped: set, left_out) -> list:
    """The names `x` of the fields `x.f` that working out `node` surely reads: in its operands,
    an `and`'s or `or`'s left side, a call's arguments; not in what a quiet run leaves out (values
    no one reads, `skipped`, unread.py; a call's arguments only narration reads, `left_out(call)`
    their ids), a `match`'s arms, nor the right side of `and` and `or`."""
    names, todo = [], [node]
    while todo:
        node = todo.pop()
        kind = type(node)
        if id(node) in skipped:
            continue
        if kind is ast.Field:
            if type(node.target) is ast.Name:
                names.append(node.target.id)
            todo.append(node.target)
        elif kind is ast.Group:
            todo.append(node.inner)
        elif kind is ast.BinOp or kind is ast.Compare:
            todo += [node.left, node.right]
        elif kind is ast.Logic:
            todo.append(node.left)
        elif kind is ast.Not or kind is ast.Unary:
            todo.append(node.operand)
        elif kind is ast.Index:
            todo += [node.target, node.key]
        elif kind is ast.Call:
            dropped = left_out(node)
            todo += [arg for arg in node.args if id(arg) not in dropped]
    return names
