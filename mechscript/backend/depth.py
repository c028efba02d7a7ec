"""How deep a run's calls can nest, worked out from the text. The written code (quiet.py) counts
the depth of calls only in the `fn`s that may reach themselves (pbem's `settle`): each call of one
adds one to the run's depth, which starts at the most calls of other `fn`s any chain of calls can
hold (a number known from the text), and a run bails when it passes the `recursion` limit (or
the default one, when it is raised: the closures, several Python frames a call, may run out of
Python's stack first). The closures then play it, and give the error where they reach it. A `fn` that may reach a
recursive one is not remembered (memo.py): a known answer would skip the depth its calls reach.

A call of a `fn` the text names reaches that `fn` (`callee`, house rules included); a call of a
function value (a name a `fn` gives a parameter, a `let`, a loop or a nested `fn` included), the
`fn`s the checker says it may hold (`foes_of(c, enc, standing)`: `standing`), or any `fn` when the
checker cannot tell. Of the builtins, `make` and `ended` run the rules called from outside every
`fn` (a kind's formulas, an encounter's `until`, the top level) and the rules' `standing`; the
others run none.

The run's depth starts at the most calls of `fn`s that are not recursive, not at 0: the closures'
calls a run makes through a builtin (`make` working out a kind's formulas) count on from there.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..interpreter import ast
from ..interpreter.builtins import BUILTINS
from .narration import local_names

RUNS_RULES = frozenset({"make", "ended"})   # builtins that run rules: a kind's formulas, the `until`
_ANY, _RULES = -1, -2   # a call that may reach any `fn`; one of `make` or `ended`


@dataclass
class CallDepth:
    recursive: set   # the fns (by id of FnDef) that may reach themselves
    reaching: set    # the fns that may reach a recursive one (those among them)
    others: int      # the most calls of fns that are not recursive that a chain of calls can hold


def call_depth(texts, callee, types) -> CallDepth:
    """How the calls of a run's `fn`s may nest. `texts`: the ModuleTexts of the script and its
    modules; `callee(text, call)`: the (ModuleText, FnDef) a call surely reaches, or None;
    `types`: the checker's (Types.called: the `fn`s a call of a function value may reach)."""
    calls: dict[int, set] = {}   # id(FnDef) -> the ids of the fns its own body may call
    # fns called from outside every `fn` (which `make` and `ended` may call), and the rules'
    # `standing`, which `ended` calls
    outside: set = {id(fn) for text in texts for fn in text.program.statements
                    if type(fn) is ast.FnDef and fn.name == "standing"}
    for text in texts:
        stack = [(text.program, None, frozenset())]
        while stack:
            node, owner, local = stack.pop()
            kind = type(node)
            if kind is ast.FnDef:
                calls[id(node)] = set()
                owner = id(node)
                nodes = list(ast.walk(node.body))
                local = local | local_names(node, nodes) | {n.name for n in nodes if type(n) is ast.FnDef}
            elif kind is ast.Call:
                reached = _reached(text, node, callee, types, local)
                (calls[owner] if owner is not None else outside).update(reached)
            stack.extend((child, owner, local) for child in ast.children(node))
    every = set(calls)
    for found in [outside, *calls.values()]:
        if _ANY in found:
            found |= every
        if _RULES in found:
            found |= outside
    graph = {fn: found - {_ANY, _RULES} for fn, found in calls.items()}
    components = _components(graph)
    recursive = {fn for part in components if len(part) > 1 or part[0] in graph[part[0]] for fn in part}
    # each component after those it calls (_components' order): the chains below each are known
    reaching: set = set()
    below: dict[int, int] = {}   # fn -> the most calls of fns not recursive in a chain from it, itself included
    for part in components:
        after = {g for fn in part for g in graph[fn]} - set(part)
        most = max((below[g] for g in after), default=0) + (0 if part[0] in recursive else 1)
        reaches = part[0] in recursive or bool(after & reaching)
        for fn in part:
            below[fn] = most
            if reaches:
                reaching.add(fn)
    return CallDepth(recursive, reaching, max(below.values(), default=0))


def _reached(text, call: ast.Call, callee, types, local) -> set:
    """The ids of the fns a call may reach, _ANY for any, _RULES for those `make` and `ended` run.
    `local`: the names the enclosing `fn`s give a parameter, a `let`, a loop or a nested `fn`."""
    named = call.callee.id if type(call.callee) is ast.Name else None
    target = callee(text, call) if named not in local else None
    if target is not None:   # a `fn` named (a house rule in place of the module's)
        return {id(target[1])}
    values = types.called(call)
    if values is not None:   # a function value, which the checker follows
        return {_ANY} if None in values else {id(fn) for fn in values}
    if named in BUILTINS and named not in local and text.lookup(named) is None:
        return {_RULES} if named in RUNS_RULES else set()
    return {_ANY}


def _components(graph: dict) -> list:
    """The strongly connected components of `graph` (node -> successors), each a list, every one
    after the components it reaches (Tarjan's algorithm, without recursion)."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    found: list = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    found.append(part)
    return found
