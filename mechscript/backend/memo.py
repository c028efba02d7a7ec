"""The `fn`s whose answers a quiet run may remember: what the rules work out again and again from a
character's sheet (transformers' `level(c, "dodge")`, `tech_spec(c, "speed")`) is worked out once.

A function is remembered when its answer can depend on nothing but its arguments, in every run of
the process: it rolls no dice (nor a pool it is given, by comparing or showing it) and says nothing,
assigns only its own locals and pushes only onto lists it made; it reads of a character only what no
fight changes (stats, derived values, gear: never the encounter), or the state of a character it is
given (a parameter no `let` takes over), itself or through the functions it calls; it reads no list,
record or table that some code changes in place (changes.py), and no option that a function assigns;
and it calls only such functions (whose own arguments need not be keys: robomacs' `position(degrees,
name)` takes a list) and the builtins that give a value from their arguments alone. The options a
run restores are the same every run and characters keep their sheets, so the answer stays right from
one run to the next as well. The state it reads is read at the call, before it runs, and joins the
key (`keyed`; a list of keys as a tuple of its items): transformers' `tech_spec(c, "speed")` reads
`c`'s Mode, and has an answer for each Mode; robomacs' `system(c, sort)` one for each list of
systems `c` has lost. Nothing it runs assigns, so the state stays what it was at the call.

Its arguments, and the state it reads, must be keys of a dict that tell apart what the function
tells apart: numbers, strings, none, pools and characters (by identity); a parameter that may be
both a number and true/false is not (Python has True == 1). Its answer must be a value no caller can
change: not a list or record that some code changes in place.

A remembered call counts no step when its answer is known, like the one-line reads a quiet run
writes in place of the call (docs/language.md, "What counts a step"). What a run fails on (`fail`,
a limit) is never remembered: the run bails, and the closures play it.
"""

from __future__ import annotations

from functools import lru_cache, update_wrapper

from ..checker import types as T
from ..interpreter import ast
from .changes import may_change, tables_assigned
from .narration import PURE_BUILTINS, local_names, narrow, own_lists, pushed_onto
from .writer import Writer

# the builtins whose value comes from their arguments alone (`fail` never gives one)
BUILTINS = PURE_BUILTINS | {"pool", "fail"}

# how many answers a function keeps at most: a script making ever new arguments (a number that
# grows) keeps working, it only keeps the latest
SIZE = 4096

_KEYS = frozenset({T.INT, T.FRACTION, T.STR, T.NONE, T.BOOL})
_ANSWERS = _KEYS
_NEVER = (ast.Say, ast.Dice, ast.FnDef, ast.TableDef, ast.KindDef, ast.CharacterDef, ast.EncounterDef)


class Remembered:
    """The functions (by id of FnDef) whose answers a run may remember.

    `functions` are (ModuleText, FnDef) of every top-level `fn` and house rule; `callee(module,
    call)` the one a call surely reaches, or None; `states` each kind's state names; `changed` the
    sites code changes in place (None: unknown); `assigned` the global names some function assigns;
    `purity` narration.Purity, which knows each function's nodes and what rolls a pool."""

    def __init__(self, functions, callee, types, states: dict, changed, assigned: set, purity):
        self.callee, self.types, self.states, self.changed = callee, types, states, changed
        self.assigned, self.nodes, self.rolls_a_pool = assigned, purity.nodes, purity.rolls_a_pool
        self.tables_change = tables_assigned(functions, self.nodes, types)
        # whose answers depend on their arguments alone: they may be called by a remembered function,
        # even with arguments that are no keys (robomacs' `position(degrees, name)`)
        self.ids = {id(fn) for module, fn in functions}
        # id(FnDef) -> the state fields of its character parameters it reads, itself or through the
        # functions it calls, as (parameter's index, field name, whether it holds a list): their
        # values join its answer's key
        self.keyed: dict[int, frozenset] = {id(fn): frozenset() for module, fn in functions}
        self.grew = True
        while self.grew:   # a function reads more state once a function it calls is seen to
            self.grew = False
            narrow(self.ids, functions, self._body, purity.callees)
        # remembered: such a function whose arguments can be keys, that does some work (a loop, a
        # choice, a call); a field read or a sum costs less than the look-up
        self.ids = {id(fn) for module, fn in functions if id(fn) in self.ids and self._signature(fn) and self._busy(fn)
                    and (not self.keyed[id(fn)] or self._worth_a_key(module, fn))}

    def _signature(self, fn: ast.FnDef) -> bool:
        for found in self.types.params(fn):
            if found.is_any or found.is_empty:
                return False
            if T.BOOL in found and (T.INT in found or T.FRACTION in found):
                return False
            if not all(atom in _KEYS or type(atom) in (T.CharT, T.PoolT) for atom in found):
                return False
        answer = self.types.returns(fn)
        if answer.is_any:
            return False
        return all(atom in _ANSWERS or type(atom) in (T.CharT, T.PoolT, T.ListT, T.RecordT) for atom in answer) \
            and not may_change(answer, self.types, self.changed)

    def _body(self, module, fn: ast.FnDef) -> bool:
        nodes = self.nodes(fn)
        local = local_names(fn, nodes)
        own = own_lists(fn, nodes)
        # the parameters that stay what the call gave: no `let`, loop or assignment takes the name
        declared = [n.name for n in nodes if type(n) in (ast.Let, ast.For)] + \
            [n.target.id for n in nodes if type(n) is ast.Assign and type(n.target) is ast.Name]
        kept = {name: index for index, name in enumerate(fn.params) if name not in declared}
        reads = set()
        for node in nodes:
            kind = type(node)
            if kind in _NEVER or self.rolls_a_pool(node):   # a pool compared, shown, ... rolls dice
                return False
            if kind is ast.Assign and not (type(node.target) is ast.Name and node.target.id in local):
                return False
            if kind is ast.Call and not self._call(module, node, local, own, kept, reads):
                return False
            if kind in (ast.Field, ast.Index) and not self._read(node):
                state = self._state(node, kept)
                if state is None:
                    return False
                reads.add(state)
            if kind is ast.Name and node.id not in local and not self._global(module, node):
                return False
        if reads != self.keyed[id(fn)]:
            self.keyed[id(fn)] = frozenset(reads)
            self.grew = True
        return True

    def _state(self, node, kept: dict) -> "tuple | None":
        """(the parameter's index, the field, whether it is a list) when `node` reads a state field
        of a character parameter that stays what the call gave (`kept`), every kind it may be has that
        field, and its value is a key (a number, a string, none, true/false or a character) or a list
        of keys (robomacs' `c.lost`: its items, as a tuple, are the key); else None."""
        if type(node) is not ast.Field or type(node.target) is not ast.Name or node.target.id not in kept:
            return None
        found, value = self.types.of(node.target), self.types.of(node)
        if found.is_any or value.is_any or value.is_empty:
            return None
        kinds = [atom.kind for atom in found if type(atom) is T.CharT]
        if not kinds or any(atom != T.NONE and type(atom) is not T.CharT for atom in found) or \
                any(node.name not in self.types.kind_fields(kind) for kind in kinds):
            return None
        listed = all(type(atom) is T.ListT for atom in value)
        if listed:
            value = self.types.elements(value)
            if value.is_any:
                return None
        if not all(atom in _KEYS or type(atom) is T.CharT for atom in value) or \
                (T.BOOL in value and (T.INT in value or T.FRACTION in value)):
            return None
        return kept[node.target.id], node.name, listed

    def _call(self, module, node: ast.Call, local: set, own: set, kept: dict, reads: set) -> bool:
        callee = node.callee
        if type(callee) is ast.Name and callee.id in local:
            return False
        target = self.callee(module, node)
        if target is not None:
            if id(target[1]) not in self.ids:
                return False
            # the state it reads of its parameters, read of ours: each such argument is one of them
            for index, field, listed in self.keyed[id(target[1])]:
                arg = node.args[index] if index < len(node.args) and not node.kwargs else None
                if type(arg) is not ast.Name or arg.id not in kept:
                    return False
                reads.add((kept[arg.id], field, listed))
            return True
        if type(callee) is not ast.Name or module.lookup(callee.id) is not None:
            return type(callee) is ast.Field and self._module_field(module, callee) is False
        if callee.id == "push":
            return pushed_onto(node) in own
        return callee.id in BUILTINS

    def _module_field(self, module, node) -> "bool | None":
        """None when `node` is no `module.name`; else whether it names something that is no `fn`."""
        if type(node) is not ast.Field or type(node.target) is not ast.Name:
            return None
        found = module.lookup(node.target.id)
        if found is None or found[1] != "module":
            return None
        return found[0].uses[node.target.id].names.get(node.name) != "fn"

    def _read(self, node) -> bool:
        """Whether `x.name` or `x[key]` gives the same in every run: no state, nothing changed in place.
        Of an `x` that is never a value (the types' empty type: code no run reaches, as robomacs'
        `c.pilot.skill` where no character has a pilot), it never reads anything."""
        found = self.types.of(node.target)
        if found.is_any:
            return False
        if found.is_empty:
            return True
        for atom in found:
            if atom == T.ENCOUNTER or type(atom) in (T.FnT, T.KindT):
                return False
            if type(atom) in (T.TableT, T.RowT) and self.tables_change:
                return False
            if type(atom) is T.CharT and (type(node) is not ast.Field or node.name in self.states.get(atom.kind, ())):
                return False
            if type(atom) is T.ModuleT:
                return False
        return not may_change(found, self.types, self.changed)

    def _global(self, module, node: ast.Name) -> bool:
        """A name that is no local: a `fn`, a module, a table, or an option no function assigns and
        no code changes in place; a builtin's name."""
        found = module.lookup(node.id)
        if found is None:
            return True
        text, what = found
        if what in ("fn", "module"):
            return True
        if text.global_name(node.id) in self.assigned:
            return False
        return not may_change(self.types.of(node), self.types, self.changed)

    def _worth_a_key(self, module, fn: ast.FnDef) -> bool:
        """Whether `fn` does more than a look-up whose key reads state, in Python, costs: a loop, or a
        call of a `fn` (neojove's `distance(a, b) = abs(a.place - b.place)` is written in place of
        its calls instead, pbem's `rank_spend` is a few tests)."""
        return any(type(node) in (ast.For, ast.While, ast.Repeat) or
                   type(node) is ast.Call and self.callee(module, node) is not None for node in self.nodes(fn))

    def _busy(self, fn: ast.FnDef) -> bool:
        return any(type(node) in (ast.For, ast.While, ast.Repeat, ast.Match, ast.If, ast.Call) for node in self.nodes(fn))


def remembering(function, keyed=(), never_none=frozenset(), characters=frozenset()):
    """`function` remembering its answers: functools' lru_cache, whose look-up of a known answer is
    all in C (no Python runs), keyed as a dict is by the arguments (one alone by itself). `keyed`:
    the state fields of its character parameters it reads (Remembered.keyed), whose values, read at
    the call (a list's items as a tuple; none for a parameter that is none), join the key.
    `never_none`: the indexes of the parameters the types say are never none (no test of them);
    `characters`: of those the types say are a character or none (state_reads)."""
    if not keyed:
        return lru_cache(maxsize=SIZE)(function)
    names = [f"a{i}" for i in range(function.__code__.co_argcount)]
    params = ", ".join(names)
    states = "".join(", " + read for read in state_reads(names, keyed, never_none, characters))
    namespace = {"function": function, "lru_cache": lru_cache, "SIZE": SIZE}
    exec(f"@lru_cache(maxsize=SIZE)\ndef answer({params}, *state):\n    return function({params})\n"
         f"def remembering({params}):\n    return answer({params}{states})\n", namespace)
    return update_wrapper(namespace["remembering"], function)


def state_reads(args: list, keyed, never_none, characters=frozenset()) -> list[str]:
    """The state a remembered function reads (`keyed`, Remembered's), read at its call from its
    arguments (`args`, Python text of names: each is read again) as `remembering` and the written
    code's direct calls of its `answer` (calls.py) read it, to join the key: none for an argument
    that is none. One the types say is a character or none (`characters`) is tested by Python's
    `and` (a Character is true: it has no `__bool__` or `__len__`), three bytecodes fewer."""
    reads = []
    for i, field, listed in sorted(keyed):
        read = f"{'tuple(' if listed else ''}{Writer.attr(args[i], field)}{')' if listed else ''}"
        reads.append(read if i in never_none else f"{args[i]} and {read}" if i in characters else
                     f"{read} if {args[i]} is not None else None")
    return reads


def answer_of(remembering_function):
    """The lru_cache'd `answer` of a function `remembering` made with a key of state: called with
    the arguments and the state_reads, it is what the function gives (calls.py calls it directly)."""
    return remembering_function.__globals__["answer"]


# the type of a remembering function (a function value the written code may call: calls.py)
REMEMBERING = type(remembering(lambda: None))

# the key of no answer: a table of answers (`known`) counts under it how many it holds
_HELD = object()


def known(answers: dict, function, key: tuple):
    """`function(*key)`, kept in `answers` for the written code's calls (calls.py), which look it up
    there first: a dict of dicts, by each part of the key in turn (`KNOWN_f[c]["dodge"]`). A known
    answer is then two dict reads in a `try`, which cost nothing until one fails (24 ns against the
    55 of a call of the lru_cache'd function, a C call Python cannot specialize). `function` is the
    remembering one, or the `answer` of one keyed by state (the key then holds the state read at
    the call). At most SIZE answers, as lru_cache keeps: past that, they are all dropped."""
    value = function(*key)
    held = answers.get(_HELD, 0) + 1
    if held > SIZE:
        answers.clear()
        held = 1
    answers[_HELD] = held
    table = answers
    for part in key[:-1]:
        inner = table.get(part)
        if inner is None:
            inner = table[part] = {}
        table = inner
    table[key[-1]] = value
    return value
