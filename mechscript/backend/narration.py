"""What a quiet run may leave out: the values only narration reads, where leaving them out changes
nothing but the text nobody reads.

An expression is *droppable* when working it out does nothing but give a value (or an error): no
die, no call of a function value, no builtin that rolls or changes a list, no call of a `fn` that is
not itself droppable, and, in a program that has roll-and-keep pools, no part of a text that may be
a pool (showing a pool rolls it). A `say` whose parts are droppable is left out, but for its line
counted against `output_lines`; a function's local `let` that only such `say`s and other
narration-only values read, with droppable values, is left out with them; so is a parameter only
they read, and each call of that `fn` leaves out a droppable argument for it (dropped_arguments).
An `if` left with nothing else to do, whose conditions are droppable, is left out whole
(emptied_ifs: robomacs' `if shift.text != "" { text = ... }`).

What changes: a quiet run no longer meets the errors those texts (and such conditions) would raise
(a batch reports the errors of the fight, `mech run` still shows every line), and it counts fewer
steps.
"""

from __future__ import annotations

from ..interpreter import ast

# builtins that only give a value
PURE_BUILTINS = frozenset({"len", "contains", "max", "min", "floor", "ceil", "round", "abs", "lower", "decimal",
                           "sum", "sorted", "range", "breakdown"})


def local_names(fn: ast.FnDef, nodes: list) -> set:
    """The names `fn` (whose body's `nodes` are given) declares: its parameters, lets and loop names."""
    return set(fn.params) | {n.name for n in nodes if type(n) in (ast.Let, ast.For)}


def narrow(ids: set, functions: list, holds, callees) -> None:
    """Drops from `ids` each function of `functions` ((module, FnDef) pairs) that `holds(module, fn)`
    refuses, until none is dropped (a fixpoint): of `ids`, `holds` may ask only whether the
    functions it calls, `callees(module, fn)` (their ids), are in it. So a function is asked again
    only when one it calls has been dropped, not in a round of them all. (memo's `_body` also reads
    what its callees read, which grows: memo narrows again while it does.)"""
    callers: dict[int, list] = {}
    for module, fn in functions:
        for callee in callees(module, fn):
            callers.setdefault(callee, []).append((module, fn))
    waiting = list(reversed(functions))   # asked in their order, as a round would
    while waiting:
        module, fn = waiting.pop()
        if id(fn) in ids and not holds(module, fn):
            ids.discard(id(fn))
            waiting.extend(caller for caller in callers.get(id(fn), ()) if id(caller[1]) in ids)


def has_pools(programs) -> bool:
    """Whether any pool can exist in a run: a pool literal, or the `pool` builtin, anywhere."""
    for program in programs:
        for node in ast.walk(program):
            if type(node) is ast.PoolLiteral:
                return True
            if type(node) is ast.Call and type(node.callee) is ast.Name and node.callee.id in ("pool", "roll"):
                return True
    return False


class Purity:
    """Which `fn`s are droppable, to a fixpoint (a function calling itself is droppable if the rest is).

    `callee(module, call)` gives the (module, FnDef) a call surely reaches, or None."""

    def __init__(self, functions: list, callee, pools: bool, types=None):
        self.callee = callee
        self.pools = pools
        self.types = types   # the checker's: a string part that surely is no pool rolls nothing
        self.pure = {id(fn) for _, fn in functions}
        self._nodes: dict[int, list] = {}   # each body's nodes, walked once (the fixpoint asks again)
        self._narration: dict[int, tuple] = {}
        self._private: dict[int, frozenset] = {}
        self._callees: dict[int, set] = {}
        self.skipped: set[int] = set()   # values a quiet run leaves out as it does narration (unread.py)
        # a `fn` inside a `fn`, at any depth -> the names its top-level function declares anywhere:
        # they may hide the module's names there too
        self._outer: dict[int, frozenset] = {}
        self._locals: dict[int, frozenset] = {}   # local_names_of, worked out once
        for _, fn in functions:
            inner = [n for n in self.nodes(fn) if type(n) is ast.FnDef]
            if inner:
                names = self.local_names_of(fn)
                self._outer.update((id(n), names) for n in inner)
        self._locals.clear()   # asked before every `fn` inside another was in _outer
        narrow(self.pure, functions, self.body_droppable, self.callees)

    def local_names_of(self, fn: ast.FnDef) -> frozenset:
        """The names `fn` may see as no module's: its own (local_names), those of the `fn`s defined
        in it and their parameters, and for a `fn` inside another, every name its top-level function
        declares."""
        found = self._locals.get(id(fn))
        if found is None:
            nodes = self.nodes(fn)
            found = self._locals[id(fn)] = frozenset(
                local_names(fn, nodes) | {name for n in nodes if type(n) is ast.FnDef for name in [n.name, *n.params]}
                | self._outer.get(id(fn), frozenset()))
        return found

    def private_lists(self, fn: ast.FnDef) -> frozenset:
        """private_lists(fn), worked out once (a `fn` written in place is asked at each call)."""
        found = self._private.get(id(fn))
        if found is None:
            found = self._private[id(fn)] = private_lists(fn, self.nodes(fn))
        return found

    def skip(self, values: set) -> None:
        """Counts `values` (ids) as read by nobody, as a left-out `say` is: a local only they and
        narration read is left out too (narration_only, worked out again for each function whose
        body holds one of them: no other function's answer reads them)."""
        values = values - self.skipped
        self.skipped |= values
        for key in [key for key in self._narration if not values.isdisjoint(map(id, self._nodes[key]))]:
            del self._narration[key]

    def nodes(self, fn: ast.FnDef) -> list:
        """Every node of `fn`'s body."""
        nodes = self._nodes.get(id(fn))
        if nodes is None:
            nodes = self._nodes[id(fn)] = list(ast.walk(fn.body))
        return nodes

    def callees(self, module, fn: ast.FnDef) -> set[int]:
        """The ids of the `fn`s the calls of `fn`'s body surely reach (`callee`), worked out once."""
        found = self._callees.get(id(fn))
        if found is None:
            found = self._callees[id(fn)] = {id(target[1]) for node in self.nodes(fn) if type(node) is ast.Call
                                             for target in [self.callee(module, node)] if target is not None}
        return found

    def body_droppable(self, module, fn: ast.FnDef) -> bool:
        nodes = self.nodes(fn)
        local = local_names(fn, nodes)
        own = own_lists(fn, nodes)
        for node in nodes:
            kind = type(node)
            if kind in (ast.Say, ast.FnDef, ast.TableDef, ast.KindDef, ast.CharacterDef, ast.EncounterDef):
                return False
            if kind is ast.Assign and not (type(node.target) is ast.Name and node.target.id in local):
                return False
        return all(self.droppable(module, n, local) or pushed_onto(n) in own
                   for n in nodes if _is_expression(n))

    def droppable(self, module, node, local=frozenset()) -> bool:
        """Whether the expression `node` (its own operation; callers check its parts too) only gives
        a value."""
        kind = type(node)
        if kind is ast.Dice or self.rolls_a_pool(node):
            return False
        if kind is ast.Call:
            callee = node.callee
            if type(callee) is ast.Name and callee.id in local:
                return False
            target = self.callee(module, node)
            if target is not None:
                return id(target[1]) in self.pure
            return type(callee) is ast.Name and callee.id in PURE_BUILTINS and self._not_shadowed(module, callee.id)
        return True

    def rolls_a_pool(self, node) -> bool:
        """Whether working out the expression `node` (its own operation) may roll a pool: showing it
        in a text, working it out as a number (arithmetic, a comparison), or a builtin of numbers or
        texts taking it, or a list of them (as checker/infer_expressions marks)."""
        if not self.pools:
            return False
        kind = type(node)
        if kind is ast.String:
            return any(type(part) is not str and self._may_be_pool(part) for part in node.parts)
        if kind in _ROLLING:
            return any(self._may_be_pool(part) for part in _ROLLING[kind](node))
        if kind is ast.Call and type(node.callee) is ast.Name and node.callee.id in PURE_BUILTINS:
            return any(self._may_be_pool(arg) or self._may_be_pool_list(arg) for arg in node.args)
        return False

    def _may_be_pool(self, node) -> bool:
        return self.types is None or self.types.of(node).maybe("pool")

    def _may_be_pool_list(self, node) -> bool:
        """Whether `node` may be a list holding a pool (`max(pools)` rolls them)."""
        if self.types is None:
            return True
        found = self.types.of(node)
        return found.maybe("list") and self.types.elements(found).maybe("pool")

    def _not_shadowed(self, module, name: str) -> bool:
        return module.lookup(name) is None

    def narration(self, module, fn: ast.FnDef) -> tuple[set, set]:
        """narration_only(module, fn, self), worked out once."""
        found = self._narration.get(id(fn))
        if found is None:
            # while it is worked out (a call of itself, or through others): nothing of it is left out
            self._narration[id(fn)] = (set(), set())
            found = self._narration[id(fn)] = narration_only(module, fn, self)
        return found

    def tree_droppable(self, module, node, local=frozenset()) -> bool:
        return all(self.droppable(module, n, local) for n in ast.walk(node) if _is_expression(n))


# the operations that work out a pool operand as a number, rolling it: the parts that may be one
_ROLLING = {ast.BinOp: lambda n: (n.left, n.right), ast.Compare: lambda n: (n.left, n.right),
            ast.Power: lambda n: (n.base, n.exponent)}


def _is_expression(node) -> bool:
    return isinstance(node, ast.Node) and type(node) not in _STATEMENTS


_STATEMENTS = (ast.Block, ast.Program, ast.Let, ast.Assign, ast.FnDef, ast.If, ast.For, ast.While, ast.Repeat,
               ast.Return, ast.Say, ast.TableDef, ast.Use, ast.ExprStatement, ast.KindDef, ast.CharacterDef,
               ast.EncounterDef)


def narration_only(module, fn: ast.FnDef, purity: Purity) -> tuple[set, set]:
    """The `say`s and emptied `if`s (by id) a quiet run leaves out, and the local names only they
    (and each other) read."""
    nodes = purity.nodes(fn)
    local = purity.local_names_of(fn)
    lets = [n for n in nodes if type(n) is ast.Let]
    counts: dict[str, int] = {}
    for let in lets:
        counts[let.name] = counts.get(let.name, 0) + 1
    fors = {n.name for n in nodes if type(n) is ast.For}
    writes: dict[str, list] = {}   # name -> the values written to it (a push's item too)
    for node in nodes:
        if type(node) is ast.Let:
            writes.setdefault(node.name, [])
            writes[node.name].append(node.value)
        elif type(node) is ast.Assign and type(node.target) is ast.Name:
            writes.setdefault(node.target.id, []).append(node.value)
        elif (pushed := pushed_to(node)) is not None:
            writes.setdefault(pushed, []).append(node.expr.args[1])
    # a push onto a list the function did not make (a parameter's, one a `let` took from elsewhere)
    # changes that list for everyone who holds it: it stays
    shared = {pushed for n in nodes if (pushed := pushed_to(n)) is not None} - own_lists(fn, nodes)
    candidates = {name for name, n in counts.items()
                  if n == 1 and name not in fn.params and name not in fors and name not in shared
                  and all(purity.tree_droppable(module, w, local) for w in writes[name])}
    rewritten = {name for name in candidates if len(writes[name]) > 1}   # assigned or pushed onto besides
    if rewritten:
        candidates -= written_elsewhere(fn.body, rewritten)
    # a parameter only such `say`s read (`fn say_line(text) { say text }`): its callers may leave out
    # the argument (dropped_arguments)
    read = {n.id for n in nodes if type(n) is ast.Name}
    candidates |= {name for name in fn.params if name in read and name not in counts and name not in fors
                   and name not in shared and all(purity.tree_droppable(module, w, local) for w in writes.get(name, ()))}
    says = {id(n) for n in nodes if type(n) is ast.Say and purity.tree_droppable(module, n.value, local)}
    conditions: dict[int, bool] = {}   # id of a condition -> whether it only gives a value, asked once

    def droppable(node) -> bool:
        found = conditions.get(id(node))
        if found is None:
            found = conditions[id(node)] = purity.tree_droppable(module, node, local)
        return found

    # the arguments this function's calls leave out (a text only the callee's narration reads):
    # reading a local there is no read
    passed = {dropped for n in nodes if type(n) is ast.Call
              for dropped in dropped_arguments(purity, module, n, local)}
    while True:
        emptied = emptied_ifs(fn.body, candidates, droppable)
        if not candidates:   # no local to look for (most fns): no walk of the body for its reads
            return says | emptied, candidates
        live = _live_reads(fn.body, candidates, says | emptied | purity.skipped | passed)
        dropped = candidates - live
        if dropped == candidates:
            return says | emptied, candidates
        candidates = dropped


def written_elsewhere(body: ast.Block, names: set) -> set:
    """The names of `names` (each with one `let` in `body`) assigned or pushed onto outside the
    block of their `let`: there the name is another variable (a global, an enclosing function's)."""
    homes: dict = {}   # a name -> the id of the block of its `let`
    writes: list = []   # (a name, the ids of the blocks around a write of it)
    stack = [(body, (id(body),))]
    while stack:
        node, blocks = stack.pop()
        kind = type(node)
        if kind is ast.Let and node.name in names:
            homes[node.name] = blocks[-1]
        elif kind is ast.Assign and type(node.target) is ast.Name and node.target.id in names:
            writes.append((node.target.id, blocks))
        elif (pushed := pushed_to(node)) in names:
            writes.append((pushed, blocks))
        inner = blocks + (id(node),) if kind is ast.Block and node is not body else blocks
        stack.extend((child, inner) for child in ast.children(node))
    return {name for name, blocks in writes if homes.get(name) not in blocks}


def emptied_ifs(body: ast.Block, names: set, droppable) -> set:
    """The `if`s (by id) of `body` with nothing left to do once the lets and assignments of `names`
    (narration's) are left out: every branch holds only those, pushes onto those names and such
    `if`s, and every condition only gives a value (`droppable(node)`). A `say` keeps its `if`:
    its line counts against `output_lines` when the condition holds."""
    ifs = []   # every `if` of the body, each one before those inside it
    stack = [body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Block:
            stack.extend(node.statements)
        elif kind is ast.If:
            ifs.append(node)
            stack.extend(_branch_blocks(node))
        elif kind in (ast.For, ast.While, ast.Repeat):
            stack.append(node.body)
    emptied: set = set()
    for node in reversed(ifs):   # the inner ones first
        if all(droppable(condition) for condition, _ in node.branches) and \
                all(_left_out(s, names, emptied) for block in _branch_blocks(node) for s in block.statements):
            emptied.add(id(node))
    return emptied


def _branch_blocks(node: ast.If) -> list:
    return [block for _, block in node.branches] + ([node.otherwise] if node.otherwise is not None else [])


def _left_out(node, names: set, emptied: set) -> bool:
    kind = type(node)
    return kind is ast.Let and node.name in names or \
        kind is ast.Assign and type(node.target) is ast.Name and node.target.id in names or \
        pushed_to(node) in names or id(node) in emptied


def dropped_arguments(purity: Purity, module, call: ast.Call, local) -> set:
    """The arguments (by id) of `call`, made in a function whose local names are `local`, that a
    quiet run leaves out (writes as none): each is for a parameter only narration reads in the one
    function the call surely reaches, and only gives a value."""
    if type(call.callee) is ast.Name and call.callee.id in local:   # a function value, whatever it is
        return set()
    target = purity.callee(module, call)
    if target is None or call.kwargs or len(call.args) != len(target[1].params):
        return set()
    _, names = purity.narration(*target)
    return {id(arg) for param, arg in zip(target[1].params, call.args)
            if param in names and purity.tree_droppable(module, arg, local)}


def own_lists(fn: ast.FnDef, nodes: list) -> set:
    """The local names of `fn` (whose body's `nodes` are given) that only ever hold a list it made
    itself (`let why = []`, never assigned, no parameter or loop variable): pushing onto one changes
    nothing outside the call."""
    lets: dict[str, bool] = {}
    for node in nodes:
        if type(node) is ast.Let:
            lets[node.name] = lets.get(node.name, True) and type(node.value) is ast.ListLiteral
    assigned = {n.target.id for n in nodes if type(n) is ast.Assign and type(n.target) is ast.Name}
    loops = {n.name for n in nodes if type(n) is ast.For}
    return {name for name, made in lets.items() if made} - assigned - loops - set(fn.params)


def private_lists(fn: ast.FnDef, nodes: list) -> frozenset:
    """The lists `fn` made itself (own_lists) that no other name can hold while it runs: each use of
    the name pushes onto it or is what a `return` gives. No expression but the name gives such a
    list, so a `for` through anything else goes through another list, whatever its body pushes onto
    one of these (robomacs' `status_mods` fills `mods` going through `effects_now(...)`)."""
    own = own_lists(fn, nodes)
    if not own or any(type(n) is ast.FnDef for n in nodes):   # a nested fn may read it
        return frozenset()
    kept = set()   # the ids of the names a push adds to or a `return` gives
    for node in nodes:
        if pushed_onto(node) in own:
            kept.add(id(node.args[0]))
        elif type(node) is ast.Return and type(node.value) is ast.Name:
            kept.add(id(node.value))
    return frozenset(own - {n.id for n in nodes if type(n) is ast.Name and n.id in own and id(n) not in kept})


def bounded_pushes(fn: ast.FnDef, nodes: list, surely_list) -> dict:
    """The `push` calls of `fn` that need no `list_size` test of their own, each (by id) with the
    `for` loop whose entry tests instead that the list it goes through is no longer than
    `list_size`: the one push onto a list `fn` made itself (`let found = []`, own_lists), in one
    `for` more than the `let` is in, over something `surely_list(node)` says is a list. Each `let`
    is followed by one run of that loop at most, which adds one item a round to the empty list.
    Every other use of the name comes after the loop, so no other name can hold the list while
    the loop fills it."""
    own = own_lists(fn, nodes)
    if not own or any(type(n) is ast.FnDef for n in nodes):   # a nested fn may push onto it
        return {}
    lets: dict[str, list] = {}
    pushes: dict[str, list] = {}
    uses: dict[str, list] = {}
    stack = [(fn.body, ())]
    while stack:
        node, loops = stack.pop()
        kind = type(node)
        if kind is ast.Let and node.name in own:
            lets.setdefault(node.name, []).append(loops)
        elif (name := pushed_onto(node)) in own:
            pushes.setdefault(name, []).append((node, loops))
            stack.extend((child, loops) for child in node.args[1:])   # the pushed item; not the list's name
            continue
        elif kind is ast.Name and node.id in own:
            uses.setdefault(node.id, []).append(node)
        inner = loops + (node,) if kind in (ast.While, ast.Repeat) else loops
        for child in ast.children(node):
            in_body = kind is ast.For and child is node.body
            stack.append((child, loops + (node,) if in_body else inner))
    bounded = {}
    for name, sites in pushes.items():
        if len(sites) != 1 or len(lets.get(name, ())) != 1:
            continue
        (call, loops), made = sites[0], lets[name][0]
        if len(loops) != len(made) + 1 or loops[:len(made)] != made:
            continue
        loop = loops[-1]
        if type(loop) is ast.For and surely_list(loop.iterable) and \
                all(use.span.start >= loop.span.end for use in uses.get(name, ())):
            bounded[id(call)] = loop
    return bounded


def pushed_onto(node) -> "str | None":
    """The name a call `push(name, item)` adds to, if it is one."""
    if type(node) is ast.Call and type(node.callee) is ast.Name and node.callee.id == "push" \
            and len(node.args) == 2 and type(node.args[0]) is ast.Name:
        return node.args[0].id
    return None


def pushed_to(node) -> "str | None":
    """The local name a statement `push(name, item)` adds to, if it is one."""
    if type(node) is ast.ExprStatement and type(node.expr) is ast.Call and type(node.expr.callee) is ast.Name \
            and node.expr.callee.id == "push" and len(node.expr.args) == 2 and type(node.expr.args[0]) is ast.Name:
        return node.expr.args[0].id
    return None


def _live_reads(body, candidates: set, left: set) -> set:
    """The candidate names read somewhere other than what a quiet run leaves out (`left`: ids of
    `say`s and values) or a candidate's own value."""
    live: set = set()
    stack = [body]
    while stack:
        node = stack.pop()
        if id(node) in left:
            continue
        if type(node) is ast.Let and node.name in candidates:
            continue
        if type(node) is ast.Assign and type(node.target) is ast.Name and node.target.id in candidates:
            continue
        if pushed_to(node) in candidates:
            continue
        if type(node) is ast.Name and node.id in candidates:
            live.add(node.id)
        stack.extend(ast.children(node))
    return live
