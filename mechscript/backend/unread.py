"""The fields of record literals that only narration reads: a quiet run writes none for them.

The rules keep texts for their `say`s in records (transformers' `{roll: r, total: t, shown:
breakdown(r) + ...}`): a quiet run leaves those `say`s out (narration.py), so building the text
is work nobody sees. A field `f` of a record literal is left out (written as none) when

- its value only gives a value (narration.py's `droppable`: no dice, no call that does more);
- no code reads a field named `f` but code a quiet run leaves out: a left-out `say`, a local only
  such `say`s read, the value of another field left out (hence a fixpoint), the body of a `fn`
  only such code calls (uncalled), or a local only such values read (quiet.py asks again);
- nothing looks at such a record whole where a quiet run could tell: `==` and `!=`, `contains`,
  `sorted`, a `match`, an index (`r[key]`), a string made from it, outside the code left out.

Reading the field anyway (code this analysis did not foresee) gives none, and an operation on it
fails: the run bails and the closures play it, as for any other failure (runtime.py).
"""

from __future__ import annotations

from ..checker import types as T
from ..interpreter import ast
from .changes import held_sites
from .narration import Purity, dropped_arguments, pushed_to

_WHOLE = ("contains", "sorted")   # builtins that compare what they are given


def left_out(functions: list, purity: Purity) -> set[int]:
    """The ids of the statements and arguments a quiet run leaves out: the `say`s of narration, the
    locals only they read, the arguments for parameters only they read (narration.py).
    `functions`: (ModuleText, FnDef) of every top-level `fn` and house rule."""
    dead: set[int] = set()
    for module, fn in functions:
        nodes = purity.nodes(fn)
        says, names = purity.narration(module, fn)
        dead |= says
        if names:   # most fns have no such local: no look at each node
            dead |= {id(n) for n in nodes if type(n) is ast.Let and n.name in names or
                     type(n) is ast.Assign and type(n.target) is ast.Name and n.target.id in names or
                     pushed_to(n) in names}
        own = purity.local_names_of(fn)
        dead |= {arg for n in nodes if type(n) is ast.Call for arg in dropped_arguments(purity, module, n, own)}
    return dead


# the rules a quiet run calls by name (quiet.py): never uncalled, whoever else calls them
RUNTIME_CALLS = frozenset({"fight", "standing"})


def named_calls(functions: list, programs: list) -> dict[str, list]:
    """What `uncalled` asks of the text, the same in every round: the name of each top-level `fn`
    -> for each place it is written, the ids of the nodes from its top-level statement down to the
    call it is the callee of (the statement first), or None where it is named otherwise."""
    names = {fn.name for _, fn in functions}
    above: dict[int, int] = {}   # id of a node -> id of the node right above it, within a statement
    callees: dict[int, ast.Call] = {}
    written: list = []   # the nodes that write a name of `names`
    for program in programs:
        for statement in program.statements:
            stack = [statement]
            while stack:
                node = stack.pop()
                kind = type(node)
                if kind is ast.Call:
                    callees[id(node.callee)] = node
                name = node.id if kind is ast.Name else node.name if kind is ast.Field else None
                if name in names:
                    written.append((name, node))
                for child in ast.children(node):
                    above[id(child)] = id(node)
                    stack.append(child)
    named: dict[str, list] = {}
    for name, node in written:
        call = callees.get(id(node))
        path = None
        if call is not None:
            path = [id(call)]
            while path[-1] in above:
                path.append(above[path[-1]])
            path.reverse()
        named.setdefault(name, []).append(path)
    return named


def uncalled(functions: list, named: dict, dead: set) -> set[int]:
    """The `fn`s (ids) a quiet run never calls: each one named only as the callee of calls in code
    it leaves out (`dead`, and the bodies of such `fn`s in turn; robomacs' `line`, which only texts
    for `say`s call). A name is matched as a word, whatever it names: one named anywhere else (a
    value, a house rule, a call a quiet run makes), or nowhere, stays; so do RUNTIME_CALLS.
    `named`: named_calls'."""
    gone: set[int] = set()
    while True:   # a call is left out when a node on its path is, or its statement is a `fn` gone
        more = {id(fn) for _, fn in functions if id(fn) not in gone and fn.name not in RUNTIME_CALLS and
                named.get(fn.name) and all(path is not None and (path[0] in gone or not dead.isdisjoint(path))
                                           for path in named[fn.name])}
        if not more:
            return gone
        gone |= more


def unreached(functions: list, named: dict) -> set[int]:
    """The top-level `fn`s (ids) no run can reach, which the set-up does not write: a run starts at
    RUNTIME_CALLS and at what the top level of a text names (an option's value, a kind's derived
    value, a character, an encounter's `until`), and reaches what the `fn`s it reaches call; a
    house rule stands for the rule it replaces. A name is matched as a word, whatever it names,
    and one named as a value anywhere is reached (`named`: named_calls'). transformers' duel
    leaves 33 of the 322 `fn`s of its texts unwritten, robomacs' 20 of 246. A run that called one
    anyway would stop at its missing name and be played by the closures, as for any failure
    (runtime.py)."""
    statements = {id(fn) for _, fn in functions}
    calls: dict[int, set] = {}   # id of a fn's statement -> the names of the fns it calls
    reached = set(RUNTIME_CALLS) | {fn.name for _, fn in functions if fn.module is not None}
    for name, paths in named.items():
        for path in paths:
            if path is None or path[0] not in statements:   # a value, or the top level's
                reached.add(name)
            else:
                calls.setdefault(path[0], set()).add(name)
    done: set[int] = set()
    while True:
        more = [fn for _, fn in functions if id(fn) not in done and fn.name in reached]
        if not more:
            return statements - done
        for fn in more:
            done.add(id(fn))
            reached |= calls.get(id(fn), set())


def unread_values(programs: list, unread: dict) -> set[int]:
    """The ids of the values of the fields `unread` (unread_fields's) names, in each literal."""
    return {id(value) for program in programs for node in ast.walk(program)
            if type(node) is ast.Record and id(node) in unread
            for name, value in node.fields if name in unread[id(node)]}


def quiet_nodes(programs: list, dead: set, unread: dict):
    """Every node a quiet run may work out: all but those `dead` (left_out) and the values of the
    `unread` fields of record literals, and what they hold."""
    stack = list(programs)
    while stack:
        node = stack.pop()
        if id(node) in dead:
            continue
        yield node
        if type(node) is ast.Record and id(node) in unread:
            stack.extend(value for name, value in node.fields if name not in unread[id(node)])
        else:
            stack.extend(ast.children(node))


def unread_fields(functions: list, programs: list, purity: Purity, types, dead: set) -> dict[int, set[str]]:
    """id of a record literal -> the names of its fields a quiet run need not work out.
    `functions`: (ModuleText, FnDef) of every top-level `fn` and house rule; `dead`: left_out's."""
    candidates: dict[int, set] = {}  # id of a record literal -> field names that only give a value
    literals: dict[int, ast.Record] = {}
    for module, fn in functions:
        nodes = purity.nodes(fn)
        local = purity.local_names_of(fn)   # of a top-level `fn`: its own names and its inner `fn`s'
        for node in nodes:
            if type(node) is ast.Record:
                droppable = {name for name, value in node.fields if purity.tree_droppable(module, value, local)}
                if droppable:
                    candidates[id(node)], literals[id(node)] = droppable, node
    nodes = _walked(programs, dead, candidates)
    while True:
        live = _live(nodes, candidates, literals, types)
        kept = {key: names - live.get(key, set()) for key, names in candidates.items()}
        kept = {key: names for key, names in kept.items() if names}
        if kept == candidates:
            return candidates
        candidates = kept


def _walked(programs, dead: set, candidates: dict) -> list:
    """(node, the ids of the values of `candidates`' fields it lies in) of every node a quiet run
    may work out but those `dead`, of the kinds `_live` looks at (an eighth of them: 1,780 of
    robomacs' 14,690, for its 12 rounds): the walk of quiet_nodes, made once for the rounds of unread_fields, each
    of which leaves out what lies in a value of a field still unread. The value of a candidate field
    is walked on its own (`regions`), so that the nodes between carry no ids of their own."""
    found = []
    regions = [(list(programs), ())]   # (nodes to walk, the ids of the values they lie in)
    while regions:
        stack, within = regions.pop()
        while stack:
            node = stack.pop()
            if id(node) in dead:
                continue
            kind = type(node)
            if kind in _LOOKED_KINDS and _looked_at(node):
                found.append((node, within))
            if kind is ast.Record and id(node) in candidates:
                names = candidates[id(node)]
                for name, value in node.fields:
                    if name in names:
                        regions.append(([value], within + (id(value),)))
                    else:
                        stack.append(value)
            else:
                stack.extend(ast.children(node))
    return found


_LOOKED_KINDS = frozenset({ast.Field, ast.Index, ast.Match, ast.Assign, ast.Compare, ast.Call, ast.String})


def _looked_at(node) -> bool:
    """Whether `_live` may note a read or a look at the whole of something in `node`: a field read,
    a `r.f += x`, an `==` or `!=`, a call of a builtin of _WHOLE, an index, a `match`, or a string
    with parts worked out."""
    kind = type(node)
    return kind is ast.Field or kind is ast.Index or kind is ast.Match or \
        kind is ast.Assign and node.op != "=" and type(node.target) is ast.Field or \
        kind is ast.Compare and node.op in ("==", "!=") or \
        kind is ast.Call and type(node.callee) is ast.Name and node.callee.id in _WHOLE or \
        kind is ast.String and any(type(part) is not str for part in node.parts)


def _live(walked: list, candidates: dict, literals: dict, types) -> dict[int, set]:
    """For each candidate literal, the candidate names some code a quiet run runs may read.
    `walked`: _walked's, for these candidates or more: only the nodes `_looked_at` keeps, so a
    node this notes must be one `_looked_at` keeps too."""
    names = {name for fields in candidates.values() for name in fields}
    sites = {}   # a literal's site (the checker's) -> its id
    for key in candidates:
        for atom in types.of(literals[key]):
            if type(atom) is T.RecordT:
                sites[atom.site] = key
    read: dict[int, set] = {}   # literal -> the candidate names code may read of it
    whole: set = set()   # literals looked at whole
    unread = {id(value) for key, fields in candidates.items() for name, value in literals[key].fields if name in fields}
    for node, within in walked:
        if within and not unread.isdisjoint(within):
            continue
        kind = type(node)
        if kind is ast.Field and node.name in names:
            _read(node, types, sites, read)
        elif kind is ast.Assign and node.op != "=" and type(node.target) is ast.Field:
            _read(node.target, types, sites, read)   # `r.f += x` reads f
        looked = ()
        if kind is ast.Compare and node.op in ("==", "!=") and _may_hold(types.of(node.left)) and \
                _may_hold(types.of(node.right)):
            looked = (node.left, node.right)   # `==` reads fields only of two records (or two lists)
        elif kind is ast.Call and type(node.callee) is ast.Name and node.callee.id in _WHOLE:
            looked = node.args
        elif kind is ast.Index:
            looked = (node.target,)
        elif kind is ast.Match:
            looked = (node.subject,)   # its patterns are compared with it
        elif kind is ast.String:
            looked = [part for part in node.parts if type(part) is not str]
        for value in looked:
            whole |= _held(types.of(value), types, sites)
    live = {key: fields & read.get(key, set()) for key, fields in candidates.items()}
    for key in whole:
        live[key] = candidates[key]
    return live


def _read(field: ast.Field, types, sites: dict, read: dict) -> None:
    """Notes that `field` reads its name of the literals its target may be: by the checker's type of
    the target (a state field of a character named as a record's field is not that record's), of
    every literal when the type is unknown."""
    found = types.of(field.target)
    if found.is_any or found.is_empty:
        keys = set(sites.values())
    else:
        keys = {sites[atom.site] for atom in found if type(atom) is T.RecordT and atom.site in sites}
    for key in keys:
        read.setdefault(key, set()).add(field.name)


def _may_hold(found) -> bool:
    """Whether a value of Type `found` may be a list or a record."""
    return found.maybe("list") or found.maybe("record")


def _held(found, types, sites: dict) -> set:
    """The candidate literals (ids) a value of Type `found` may hold, at any depth; all when unknown."""
    held = held_sites(found, types)
    return set(sites.values()) if held is None else {sites[site] for site in held if site in sites}
