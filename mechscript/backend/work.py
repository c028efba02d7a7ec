"""How much work a call of a `fn` or a `for` does, read from the text (a part of emit.Emitter): a
call of a `fn` that ends by itself, or a short `for` that does little, counts no step (loops.py,
docs/language.md "What counts a step"), and a one-line `fn` of that kind is written in place of its
calls (calls.py)."""

from __future__ import annotations

import contextlib

from ..interpreter import ast
from .expressions import Expressions
from .narration import PURE_BUILTINS, local_names


# the builtins that call no function of the script (`ended` calls `standing`, `make` a kind's code)
CALL_NO_SCRIPT = PURE_BUILTINS | {"pool", "fail", "push", "roll", "has", "is_a"}

# The most work, in nodes of the text (its callees' and loops' included: Work.leaf_work), that a
# call of a `fn` or a short `for` may do and count no step: about as much as a long statement
LEAF_WORK = 400
# the rounds of a `for` that does no more (Work.short_loop) counted as no step
SHORT_LOOP = 8


class Work(Expressions):
    def ends_by_itself(self, node: ast.FnDef) -> bool:
        """Whether a call of `node` does at most LEAF_WORK work (`leaf_work`): it needs no step of
        its own, like a statement. A script calling it ever more often does so from a loop or a
        function that counts, each of whose steps so pays for at most LEAF_WORK work more."""
        return self.leaf_work(node, self.owners.get(id(node))) is not None

    def forwards(self, node: ast.FnDef) -> bool:
        """Whether a call of the top-level `node`, no leaf, needs no step of its own all the same: it
        runs no loop, does at most LEAF_WORK work of its own and its leaves', and each other `fn` it
        calls counts a step of its own (robomacs' `plan_for(c, enc) = sample_plan(c, enc)`). No
        leaf, short loop nor such `fn` calls it: each of its calls comes from code that counts
        (a `fn`'s step, a loop's rounds), which so pays for at most LEAF_WORK work more, as for a
        leaf; the steps of the `fn`s it calls pay for theirs."""
        callees = self.forwarded(node)
        return callees is not None and all(self.forwarded(fn) is None for fn in callees)

    def forwarded(self, node: ast.FnDef) -> "list | None":
        """The `fn`s, no leaves, that the top-level `node` calls, when it may forward to them
        (`forwards`): it is no leaf, may not reach itself (depth.py), holds no loop nor `fn`, calls
        only `fn`s the types know, and does at most LEAF_WORK work but theirs. None when not."""
        if id(node) in self.forwardings:
            return self.forwardings[id(node)]
        module = self.owners.get(id(node))
        self.forwardings[id(node)] = None   # and while it is worked out
        if module is None or id(node) in self.recursive or self.leaf_work(node, module) is not None:
            return None
        nodes = self.purity.nodes(node)
        if any(type(n) is ast.For for n in nodes):
            return None
        callees: list = []
        with self.seen_from(module, node):
            work = self.work(nodes, local_names(node, nodes), callees)
        self.forwardings[id(node)] = callees if work is not None and work <= LEAF_WORK else None
        return self.forwardings[id(node)]

    @contextlib.contextmanager
    def seen_from(self, module, node: ast.FnDef):
        """Within: names as the top-level `fn` `node` of `module` sees them."""
        saved = self.module, self.scopes, self.function_base
        self.module, self.scopes, self.function_base = module, [{name: name for name in node.params}], 0
        try:
            yield
        finally:
            self.module, self.scopes, self.function_base = saved

    def leaf_work(self, node: ast.FnDef, module=None) -> "int | None":
        """The most work a call of `node` does, in nodes of its text and its callees' (a `for` of a
        body that runs no loop, its body SHORT_LOOP times: past that many rounds the `for` counts
        them, loops.py), when that is at most LEAF_WORK; None when it is more, or has no bound (a
        `while`, a `repeat`, a longer `for`, a call of a `fn` that is no such leaf, itself
        included). `module`: the top-level `fn`'s, whose names it sees (else the names as they are
        seen where the writer is)."""
        if module is not None:
            if id(node) in self.leaf_works:
                return self.leaf_works[id(node)]
            self.leaf_works[id(node)] = None   # while it is worked out: a call of itself has no bound
            with self.seen_from(module, node):
                work = self.leaf_work(node)
            self.leaf_works[id(node)] = work
            return work
        nodes = self.purity.nodes(node)
        own = local_names(node, nodes)
        work = self.work(nodes, own)
        for loop in (n for n in nodes if type(n) is ast.For):
            body = self.loop_work(loop, own)
            if work is None or body is None:
                return None
            work += (SHORT_LOOP - 1) * body   # its body is counted once in `work` already
        return work if work is not None and work <= LEAF_WORK else None

    def loop_work(self, loop: ast.For, own: set) -> "int | None":
        """The work of one round of `loop` (`work`), or None when its body holds a loop."""
        nodes = list(ast.walk(loop.body))
        return None if any(type(n) is ast.For for n in nodes) else self.work(nodes, own)

    def work(self, nodes, own: set, callees: "list | None" = None) -> "int | None":
        """The nodes, and the work of the leaves they call (`leaf_work`); None when they hold a
        `while`, a `repeat`, a `fn`, or a call of anything but a builtin that calls no `fn` of the
        script and a top-level `fn` that is a leaf (their `for`s are `leaf_work`'s). Given
        `callees`, a call of a top-level `fn` that is no leaf goes into it instead (`forwarded`)."""
        work = len(nodes)
        for n in nodes:
            kind = type(n)
            if kind is ast.While or kind is ast.Repeat or kind is ast.FnDef:
                return None
            if kind is ast.Call and self.calls_a_fn(n, own):
                fn = self.types.callee(n)
                module = self.owners.get(id(fn)) if fn is not None else None
                called = self.leaf_work(fn, module) if module is not None else None
                if called is not None:
                    work += called
                elif callees is not None and module is not None:
                    callees.append(fn)
                else:
                    return None
        return work

    def calls_a_fn(self, call: ast.Call, own: set) -> bool:
        """Whether `call` (in a function whose locals are `own`) may call a `fn` of the script: it is
        no builtin that calls none. A name of the script (the function's own, an enclosing
        function's, a module's) may hold a function, a nested `fn len` that calls itself."""
        callee = call.callee
        return not (type(callee) is ast.Name and callee.id not in own and self.resolve(callee.id) is None
                    and callee.id in CALL_NO_SCRIPT)

    def short_loop(self, node: ast.For) -> bool:
        """Whether the `for` `node`, of at most SHORT_LOOP rounds, does at most LEAF_WORK work:
        it runs no loop, calls only leaves, and does that little (loops.py counts it no step)."""
        body = self.loop_work(node, self.own_names)
        return body is not None and SHORT_LOOP * body <= LEAF_WORK
