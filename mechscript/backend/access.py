"""Fields, indexes and calls written as Python (emit.py): a field the checker knows read straight,
others through `get_field`; a known `fn` called directly, a function value checked to be one of the
namespace's, a builtin's common case inline and the rest through its implementation."""

from __future__ import annotations

import re

from ..interpreter import ast
from ..interpreter.builtins import BUILTINS, NOT_ROLLED
from .expressions import Expressions
from .changes import may_change
from .narration import PURE_BUILTINS, dropped_arguments, local_names
from .writer import Unsupported, is_literal, roll_or_none


# the builtins that call no function of the script (`ended` calls `standing`, `make` a kind's code)
CALL_NO_SCRIPT = PURE_BUILTINS | {"pool", "fail", "push", "roll", "has", "is_a"}

# The most work, in nodes of the text (its callees' and loops' included: Access.leaf_work), that a
# call of a `fn` or a short `for` may do and count no step: about as much as a long statement
LEAF_WORK = 400
# the rounds of a `for` that does no more (Access.short_loop) counted as no step
SHORT_LOOP = 8
TEMPORARY = re.compile(r"t\d+")   # a temporary of the written code (Writer.temp): no code but its own line sets it


class Access(Expressions):
    def e_Field(self, node):
        module = self.module_of(node.target)
        if module is not None:
            if module.names.get(node.name) == "module":
                raise Unsupported("a module as a value")
            return self.into(module.global_name(node.name))
        value = self.expr(node.target)
        if self.rolls_as_numbers and node.name == "total" and self.surely(node.target, "roll"):
            if not self.pools:
                return value   # a die is its total here, and no other roll exists
            return self.into(f"{value} if type({value}) is int else {value}.total")   # a die, or a pool's roll
        if self.rolls_as_numbers and node.name == "total" and roll_or_none(self.types.of(node.target)):
            span = self.constant(node.name_span)   # none has no total: get_field gives the closures' error
            if not self.pools:
                return self.into(f"{value} if {value} is not None else get_field({value}, 'total', {span}, EV)")
            return self.into(f"{value} if type({value}) is int else {value}.total if {value} is not None "
                             f"else get_field({value}, 'total', {span}, EV)")
        if not value.startswith(("t", "v")):
            value = self.into(value)
        return self.field_of(value, node)

    def field_of(self, value: str, node: ast.Field) -> str:
        """`value.name`: a character's stat or state that is not a list, a record's field, inline;
        everything else (a gear list given as a copy, an encounter's fields) by `get_field`."""
        field, span = repr(node.name), self.constant(node.name_span)
        result = self.temp()
        if self.kept_field(node):
            self.line(f"{result} = {self.attr(value, node.name)}")
            return result
        if self.surely(node.target, "encounter") and node.name in ("round", "name"):
            self.line(f"{result} = {value}.{node.name}")
            return result
        if self.surely(node.target, "encounter") and node.name == "sides":   # as get_field makes them
            self.line(f"{result} = [Record({{'name': side, 'members': list(members)}}) "
                      f"for side, members in {value}.sides]")
            self.fresh.add(result)
            return result
        if self.surely(node.target, "encounter") and node.name == "characters":
            self.line(f"{result} = list({value}.characters)")   # a copy: nobody else holds it
            self.fresh.add(result)
            return result
        if self.kinds(self.types.of(node.target)) is not None and node.name in ("name", "side", "kind"):
            self.line(f"{result} = {value}.{'kind.name' if node.name == 'kind' else node.name}")
            return result
        if node.name in ("name", "side", "kind", "round", "characters"):   # not kept in `fields`
            branch = "if"
            if node.name in ("name", "side", "kind"):
                own = "kind.name" if node.name == "kind" else node.name
                self.line(f"if type({value}) is Character: {result} = {value}.{own}")
                branch = "elif"
            if node.name in ("name", "round", "characters"):
                copy = f"list({value}.characters)" if node.name == "characters" else f"{value}.{node.name}"
                self.line(f"{branch} type({value}) is Encounter: {result} = {copy}")
            self.line(f"else: {result} = get_field({value}, {field}, {span}, EV)")
            return result
        if self.kept_if_character(node):
            self.line(f"if type({value}) is Character: {result} = {self.attr(value, node.name)}")
            self.line(f"else: {result} = get_field({value}, {field}, {span}, EV)")
            return result
        kept_dice = self.roll_and_keep_dice(value, node)
        if kept_dice is not None:   # a copy, as roll_field gives it: nobody else holds it
            self.line(f"{result} = list({kept_dice[0]}) if {kept_dice[1]}")
            self.fresh.add(result)
            return result
        if self.holds_no_fields(node.target):   # a roll's faces, a module's name: no `fields` to try
            self.line(f"{result} = get_field({value}, {field}, {span}, EV)")
            return result
        # only characters and records keep `fields`; a character's list that is not state (gear) is
        # given as a copy, by get_field
        self.line(f"try: {result} = {value}.fields[{field}]")
        self.line(f"except (AttributeError, KeyError): {result} = get_field({value}, {field}, {span}, EV)")
        self.line("else:")
        with self.indented():
            self.line(f"if type({result}) is list and type({value}) is Character: "
                      f"{result} = get_field({value}, {field}, {span}, EV)")
        return result

    def read_list(self, node) -> str:
        """A value read to be measured or indexed, not kept: a character's gear list, a roll's kept
        or dropped dice, as they are (the copy every other read is given would be thrown away)."""
        gear = self.gear(node)
        if gear is not None:
            return gear
        if self.dice_of_roll(node):
            value = self.expr(node.target)
            value = value if value.startswith(("t", "v")) else self.into(value)
            return self.into(" if ".join(self.roll_and_keep_dice(value, node)))
        return self.expr(node)

    def dice_of_roll(self, node) -> bool:
        """Whether `node` is `roll.kept` or `roll.dropped` of a value the types say is a roll."""
        return type(node) is ast.Field and node.name in ("kept", "dropped") and self.pools and \
            self.module_of(node.target) is None and self.surely(node.target, "roll")

    def roll_and_keep_dice(self, value: str, node: ast.Field) -> "tuple[str, str] | None":
        """(the list, "the test else the general read") of `roll.kept` or `roll.dropped` (dice_of_roll)
        of `value`: a roll-and-keep's list of dice (transformers' `len(r.kept)`), any other roll's by
        get_field. None for any other field."""
        if not self.dice_of_roll(node):
            return None
        general = f"get_field({value}, {node.name!r}, {self.constant(node.name_span)}, EV)"
        return f"{value}.{node.name}", f"type({value}) is KeepRoll else {general}"

    def e_Index(self, node):
        value = self.read_list(node.target)
        key = self.expr(node.key)
        span = self.constant(node.key.span)
        holders = self.table_or_row(node.target)
        is_str = "" if self.surely(node.key, "str") else f"type({key}) is str and "
        if holders is not None and self.types.of(node.key).maybe("str"):
            # a table's row by its name, a row's entry by its key (TableRow.keyed), as lookup.get_index
            # finds them; anything else (a threshold, a default, a missing key) by get_index
            rows, entries = (f"{value}.rows", f"{value}.keyed")
            unnamed = f"{value}.rows[None].keyed"   # a table of one unnamed row is looked up in it
            # surely a table, or surely a row: no test of which (robomacs' `kind_traits[c.kind]`)
            is_table, is_row = ("", "") if len(holders) == 1 else \
                (f"type({value}) is Table and ", f"type({value}) is TableRow and ")
            found = {"table": f"{rows}[{key}] if {is_str}{is_table}{key} in {rows} else "
                              f"{unnamed}[{key}] if {is_str}{is_table}None in {rows} and {key} in {unnamed}",
                     "row": f"{entries}[{key}] if {is_str}{is_row}{key} in {entries}"}
            tests = " else ".join(found[holder] for holder in sorted(holders))
            return self.into(f"{tests} else get_index(EV, {value}, {key}, {span})")
        named = self.named_fields(node.target)
        if named and self.types.of(node.key).maybe("str"):
            # `c[name]`: a character's stat or state that is no list (gear is given as a copy), a
            # record's field, as lookup.get_index finds them; anything else by get_index
            fields = f"{value}.__dict__"
            # surely a character or none (whose missing `__dict__` bails): no test of its type
            is_character = "" if self.kinds(self.types.of(node.target)) is not None else \
                f"type({value}) is Character and "
            tests = {"character": f"({is_character}{is_str}{key} in {fields} and "
                                  f"type({fields}[{key}]) is not list)",
                     "record": f"(type({value}) is Record and {is_str}{key} in {fields})"}
            found = " or ".join(tests[kind] for kind in sorted(named))
            return self.into(f"{fields}[{key}] if {found} else get_index(EV, {value}, {key}, {span})")
        is_list = "" if self.surely(node.target, "list") else f"type({value}) is list and "
        if not is_list and (key.isdigit() or self.surely(node.key, "int")):
            # Python's own index: the same item, from either end; outside the list it raises
            # IndexError, and the run bails for the closures' error
            return self.into(f"{value}[{key}]")
        if key.isdigit():   # a whole number written as such, 0 or more
            return self.into(f"{value}[{key}] if {is_list}{key} < len({value}) "
                             f"else get_index(EV, {value}, {key}, {span})")
        is_int = "" if self.surely(node.key, "int") else f"type({key}) is int and "
        return self.into(f"{value}[{key}] if {is_list}{is_int}"
                         f"-len({value}) <= {key} < len({value}) else get_index(EV, {value}, {key}, {span})")


    def e_Call(self, node):
        callee = node.callee
        if type(callee) is ast.Name and self.resolve(callee.id) is None:
            if callee.id in NOT_ROLLED:
                raise Unsupported("exact odds")
            return self.builtin(callee.id, node)
        if node.kwargs:
            raise Unsupported("named options of a script function")
        if type(callee) is ast.Name and self.resolve(callee.id)[0] == "global" \
                and self.resolve(callee.id)[2] == "fn":
            function = self.resolve(callee.id)[1]
            args = self.arguments(node)
            return self.inlined(node, args) or self.into(f"{function}({', '.join(args)})")
        if type(callee) is ast.Field and self.module_of(callee.target) is not None:
            module = self.module_of(callee.target)
            if module.names.get(callee.name) == "fn":
                args = self.arguments(node)
                return self.inlined(node, args) or self.into(f"{module.global_name(callee.name)}({', '.join(args)})")
        # a function value (a parameter, a field): the one function it surely is, called directly;
        # else a Python function of this namespace, or the closures' business
        target = self.types.callee(node)
        if target is not None and id(target) in self.functions:
            self.expr(callee)   # read as the closures read it (a name with no value yet bails)
            args = self.values(node.args)
            return self.inlined(node, args) or self.into(f"{self.functions[id(target)]}({', '.join(args)})")
        function = self.expr(callee)
        args = [self.expr(arg) for arg in node.args]
        return self.into(f"{function}({', '.join(args)}) if type({function}) is FunctionType and "
                         f"{function}.__code__.co_argcount == {len(args)} or type({function}) is REMEMBERING and "
                         f"{function}.__wrapped__.__code__.co_argcount == {len(args)} else bail()")

    def arguments(self, node: ast.Call) -> list[str]:
        """The arguments of a call of a known `fn`, as values; none for each one only the function's
        narration reads, which a quiet run leaves out (narration.dropped_arguments)."""
        dropped = dropped_arguments(self.purity, self.module, node, self.own_names)
        if not dropped:
            return self.values(node.args)
        kept = self.values([arg for arg in node.args if id(arg) not in dropped])[::-1]
        return ["None" if id(arg) in dropped else kept.pop() for arg in node.args]

    def whole_division(self, name: str, node: ast.Call) -> "str | None":
        """`floor(a / b)` and `ceil(a / b)` of whole numbers, as Python's `//` (which floors): no
        fraction made. None for any other call."""
        if name not in ("floor", "ceil") or len(node.args) != 1 or node.kwargs:
            return None
        division = node.args[0]
        while type(division) is ast.Group:
            division = division.inner
        if type(division) is not ast.BinOp or division.op != "/" or \
                not (self.surely(division.left, "int") and self.surely(division.right, "int")):
            return None
        a, b = self.values([division.left, division.right])
        if not a.isidentifier() and not a.lstrip("-").isdigit():
            a = self.into(a)
        if not b.isidentifier() and not b.lstrip("-").isdigit():
            b = self.into(b)
        whole = f"{a} // {b}" if name == "floor" else f"-(-{a} // {b})"
        if is_literal(b) and int(b.strip("()")) != 0:
            return self.into(whole)
        return self.into(f"{whole} if {b} != 0 else binary(EV, '/', {a}, {b}, {self.constant(division)})")

    def gear(self, node) -> "str | None":
        """A character's gear list (or list stat), or an encounter's characters, read to be gone
        through by a `for`: the list itself, which nothing ever changes (every other read is given
        a copy), so the loop needs no copy."""
        if type(node) is not ast.Field or self.module_of(node.target) is not None:
            return None
        if node.name == "characters" and self.surely(node.target, "encounter"):
            value = self.pure(node.target)
            return None if value is None else self.into(f"{value}.characters")
        if node.name == "sides" and self.surely(node.target, "encounter") and \
                not may_change(self.types.of(node), self.types, self.changed):
            # the fought encounter's, made once (quiet.written_helpers): its sides never change, and
            # no code changes their records or lists in place
            value = self.pure(node.target)
            return None if value is None else self.into(
                f"SIDES if {value} is ENCOUNTER else [Record({{'name': side, 'members': list(members)}}) "
                f"for side, members in {value}.sides]")
        target = self.types.of(node.target)
        kind = self.one_kind(target)
        if kind is None or node.name in self.state_of(kind) or node.name in ("name", "side", "kind") or \
                node.name not in self.types.kind_fields(kind):
            return None
        value = self.pure(node.target)
        if value is None:
            return None
        return self.into(self.attr(value, node.name))

    def ends_by_itself(self, node: ast.FnDef) -> bool:
        """Whether a call of `node` does at most LEAF_WORK work (`leaf_work`): it needs no step of
        its own, like a statement. A script calling it ever more often does so from a loop or a
        function that counts, each of whose steps so pays for at most LEAF_WORK work more."""
        return self.leaf_work(node, self.owners.get(id(node))) is not None

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
            saved = self.module, self.scopes, self.function_base
            self.module, self.scopes, self.function_base = module, [{name: name for name in node.params}], 0
            try:
                work = self.leaf_work(node)
            finally:
                self.module, self.scopes, self.function_base = saved
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

    def work(self, nodes, own: set) -> "int | None":
        """The nodes, and the work of the leaves they call (`leaf_work`); None when they hold a
        `while`, a `repeat`, a `fn`, or a call of anything but a builtin that calls no `fn` of the
        script and a top-level `fn` that is a leaf (their `for`s are `leaf_work`'s)."""
        work = len(nodes)
        for n in nodes:
            kind = type(n)
            if kind is ast.While or kind is ast.Repeat or kind is ast.FnDef:
                return None
            if kind is ast.Call and self.calls_a_fn(n, own):
                fn = self.types.callee(n)
                module = self.owners.get(id(fn)) if fn is not None else None
                called = self.leaf_work(fn, module) if module is not None else None
                if called is None:
                    return None
                work += called
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

    def inlined(self, node: ast.Call, args: list) -> "str | None":
        """A call of a one-line `fn` that ends by itself (`leaf_work`), written as its body with the
        arguments for its parameters: no Python call, and no step counted, as a call of it counts
        none (neojove's `distance(a, b) = abs(a.place - b.place)`). A body that only reads (`pure`)
        is one expression; any other is written here as the function writes it, after the
        arguments, where the call would run it. None when the call is not one."""
        fn = self.types.callee(node)
        module = self.owners.get(id(fn)) if fn is not None else None
        if module is None or not fn.line_form or len(fn.params) != len(args) or id(fn) in self.remembered:
            return None
        # an argument that is more than a name is read once, into a temporary, when the body is written
        # in place (and not at all here when it is not: the call reads it)
        held = {arg: self.temp() for arg in args if not (arg.isidentifier() or arg.lstrip("-").isdigit())}
        saved = self.module, self.scopes, self.function_base, self.own_names
        self.module, self.scopes, self.function_base = module, [dict(zip(fn.params, (held.get(a, a) for a in args)))], 0
        nodes = self.purity.nodes(fn)
        self.own_names = local_names(fn, nodes)   # the names the body sees as its own
        try:
            body = self.pure(fn.body)
            if body is None and self.leaf_work(fn, module) is not None:
                if any(type(n) is ast.Call and self.calls_a_fn(n, self.own_names) for n in nodes):
                    # it calls a `fn`, which may assign a global or an enclosing function's local:
                    # each argument is taken as it is now, as the call takes it
                    held.update({arg: self.temp() for arg in args if arg not in held and not TEMPORARY.fullmatch(arg)
                                 and not is_literal(arg)})
                    self.scopes = [dict(zip(fn.params, (held.get(a, a) for a in args)))]
                for arg, temp in held.items():
                    self.line(f"{temp} = {arg}")
                return self.expr(fn.body)
        finally:
            self.module, self.scopes, self.function_base, self.own_names = saved
        if body is None:
            return None
        for arg, temp in held.items():
            self.line(f"{temp} = {arg}")
        return self.into(body)

    def builtin(self, name: str, node: ast.Call):
        halves = self.whole_division(name, node)
        if halves is not None:
            return halves
        if name == "len" and len(node.args) == 1 and not node.kwargs:
            args = [self.read_list(node.args[0])]
        else:
            args = [self.expr(arg) for arg in node.args]
        named = {key: self.expr(value) for key, value in node.kwargs.items()}
        options = "{" + ", ".join(f"{key!r}: {text}" for key, text in named.items()) + "}"
        k = self.constant(node)
        general = f"B_{name}(EV, [{', '.join(args)}], {options}, {k})"
        if name == "ended":
            return self.into(f"ENDED({args[0]})")
        if name == "roll" and len(args) == 1 and set(named) <= {"explode"}:
            # a pool rolled as `roll` rolls it: tested to be a pool, and `explode` true or false,
            # unless the types say so; anything else is the builtin's to refuse
            explode = named.get("explode", "True")
            tests = [] if self.surely(node.args[0], "pool") else [f"type({args[0]}) is Pool"]
            if "explode" in named and not self.surely(node.kwargs["explode"], "bool"):
                tests.append(f"({explode} is True or {explode} is False)")
            made = f"EV.roll_pool({args[0]}, {explode})"
            return self.into(f"{made} if {' and '.join(tests)} else {general}" if tests else made)
        if name == "len":
            a, = args
            if self.surely(node.args[0], "list") or self.surely(node.args[0], "str"):
                return self.into(f"len({a})")
            return self.into(f"len({a}) if type({a}) is list or type({a}) is str else {general}")
        if name == "push":
            a, b = args
            if id(node) in self.bounded_pushes:
                self.line(f"{a}.append({b})")
                return "None"
            is_list = "" if self.surely(node.args[0], "list") else f"type({a}) is list and "
            self.line(f"if {is_list}len({a}) < LIST_SIZE: {a}.append({b})")
            self.line(f"else: {general}")
            return "None"
        if name == "contains" and not node.kwargs:
            a, b = args
            is_list = "" if self.surely(node.args[0], "list") else f"type({a}) is list and "
            # a string, or a character (equal to itself alone), is in a list as Python's `in` finds it
            is_plain = "" if self.surely(node.args[1], "str") or self.surely(node.args[1], "character") \
                else f"type({b}) is str and "
            return self.into(f"{b} in {a} if {is_list}{is_plain}len({a}) < SHORT_LIST else {general}")
        # the common cases of the numeric builtins and `lower`, as their implementations work them out
        if len(args) == 1 and not node.kwargs and name in _ONE_ARGUMENT:
            a, = args
            found = self.types.of(node.args[0])   # a roll is no int here, though it may be written as one
            for kind in ("int", "number", "str"):   # the types prove the common case: no test
                if (name, kind) in _PROVED and found.surely(kind):
                    return self.into(_PROVED[name, kind].format(a=a))
            return self.into(_ONE_ARGUMENT[name].format(a=a, general=general))
        if name == "pool" and len(args) == 2 and not node.kwargs:
            # a pool as `pool` makes it: of numbers (an int, or a Fraction that Pool takes in halves),
            # which need no converting; a roll's total, or anything else, by the builtin
            a, b = args
            ints = " and ".join(f"type({x}) is int" for x, arg in zip(args, node.args)
                                if not is_literal(x) and not self.surely(arg, "int"))
            made = f"Pool({a}, {b}, 0, {self.constant(node.span)})"
            if all(is_literal(x) or self.surely(arg, "number") for x, arg in zip(args, node.args)):
                return self.into(made)
            return self.into(f"{made} if {ints} else {general}" if ints else made)
        if name in ("max", "min") and len(args) >= 2 and not node.kwargs:
            ints = " and ".join(f"type({a}) is int" for a, arg in zip(args, node.args)
                                if not is_literal(a) and not self.surely(arg, "int"))
            return self.into(f"{name}({', '.join(args)}) if {ints} else {general}" if ints
                             else f"{name}({', '.join(args)})")
        return self.into(general)


_ONE_ARGUMENT = {
    "floor": "{a} if type({a}) is int else floor({a}) if type({a}) is Fraction else {general}",
    "ceil": "{a} if type({a}) is int else ceil({a}) if type({a}) is Fraction else {general}",
    "round": "{a} if type({a}) is int else {general}",
    "abs": "abs({a}) if type({a}) is int else {general}",
    "lower": "{a}.lower() if type({a}) is str else {general}",
}


# the same where the checker's types prove the argument's kind
_PROVED = {
    ("floor", "int"): "{a}", ("ceil", "int"): "{a}", ("round", "int"): "{a}", ("abs", "int"): "abs({a})",
    ("floor", "number"): "{a} if type({a}) is int else floor({a})",
    ("ceil", "number"): "{a} if type({a}) is int else ceil({a})",
    ("abs", "number"): "abs({a})", ("lower", "str"): "{a}.lower()",
}


def builtin_impls() -> dict:
    return {f"B_{name}": builtin.impl for name, builtin in BUILTINS.items()}
