"""Calls written as Python (a part of emit.Emitter): a known `fn` called directly, or written in
place of its call when it is one line that ends by itself; a function value checked to be one of
the namespace's; a builtin's common case inline and the rest through its implementation."""

from __future__ import annotations

import re

from ..checker.types import NONE
from ..interpreter import ast
from ..interpreter.builtins import BUILTINS, NOT_ROLLED
from ..interpreter.values import TEXT_STEP
from .memo import state_reads
from .narration import dropped_arguments
from .work import Work
from .writer import SHORT_LIST, TEMPORARY, Unsupported, character_or_none, class_of, is_constant, is_literal, \
    is_number_or_text, short_text, spending, spent



class Calls(Work):
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
            return self.in_place(node, args) or self.called(function, args, node)
        if type(callee) is ast.Field and self.module_of(callee.target) is not None:
            module = self.module_of(callee.target)
            if module.names.get(callee.name) == "fn":
                args = self.arguments(node)
                return self.in_place(node, args) or self.called(module.global_name(callee.name), args, node)
        # a function value (a parameter, a field): the one function it surely is, called directly;
        # else a Python function of this namespace, or the closures' business
        target = self.types.callee(node)
        if target is not None and id(target) in self.functions:
            self.expr(callee)   # read as the closures read it (a name with no value yet bails)
            args = self.values(node.args)
            return self.in_place(node, args) or self.into(f"{self.functions[id(target)]}({', '.join(args)})")
        function = self.expr(callee)
        if is_constant(function) or is_number_or_text(function):   # `(x == 1)(2)`: an error, the closures'
            return self.into("bail()")
        args = [self.expr(arg) for arg in node.args]
        return self.into(f"{function}({', '.join(args)}) if {class_of(function)} is FunctionType and "
                         f"{function}.__code__.co_argcount == {len(args)} or {class_of(function)} is REMEMBERING and "
                         f"{function}.__wrapped__.__code__.co_argcount == {len(args)} else bail()")

    def in_place(self, node: ast.Call, args: list) -> "str | None":
        """The call of a known `fn` written in place: a one-line body (`inlined`), or a block
        (inlining.py); None when it is called."""
        return self.inlined(node, args) or self.inlined_block(node, args)

    def unchanged_by_calls(self, text: str) -> bool:
        """Whether `text` is a temporary or a local that no call can change (`fixed_locals`): a
        value read from it after a call is the one read before."""
        return TEMPORARY.fullmatch(text) is not None or self.fixed_locals is not None and text in self.fixed_locals

    def called(self, function: str, args: list, node: ast.Call) -> str:
        """A call of the `fn` bound to the global `function`; of one whose answers are remembered
        (memo.py), a look-up of its known answer (`looked_up`, below), else a call; of one keyed by
        state, a call of its `answer` with the state it reads (memo.state_reads), as its
        remembering wrapper would make it: one Python call fewer. The state of an argument that the
        types say is not none, at this call or at every call, is read with no test of none."""
        if function not in self.keyed_calls:
            if function in self.remembered_names and args:
                args = [arg if arg.isidentifier() or is_literal(arg) else self.into(arg) for arg in args]
                return looked_up(self, function, function, args)
            return self.into(f"{function}({', '.join(args)})")
        keyed, never_none, characters = self.keyed_calls[function]
        if any(args[i] == "None" for i, _, _ in keyed):   # an argument left out: the wrapper's business
            return self.into(f"{function}({', '.join(args)})")
        args = [arg if arg.isidentifier() or is_literal(arg) else self.into(arg) for arg in args]
        never_none = never_none | {i for i, arg in enumerate(node.args)
                                   if not self.types.of(arg).is_empty and not self.types.of(arg).maybe("none")}
        characters = characters | {i for i, arg in enumerate(node.args) if character_or_none(self.types.of(arg))}
        return looked_up(self, function, f"A_{function}", args + state_reads(args, keyed, never_none, characters))

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
        if not self.values_within_bits:
            return None   # a / b, which the closures make first, may be past number_bits: the general way
        a, b = self.values([division.left, division.right])
        if not a.isidentifier() and not a.lstrip("-").isdigit():
            a = self.into(a)
        if not b.isidentifier() and not b.lstrip("-").isdigit():
            b = self.into(b)
        whole = f"{a} // {b}" if name == "floor" else f"-(-{a} // {b})"
        if is_literal(b) and int(b.strip("()")) != 0:
            return self.into(whole)
        return self.into(f"{whole} if {b} != 0 else binary(EV, '/', {a}, {b}, {self.constant(division)})")

    def inlined(self, node: ast.Call, args: list) -> "str | None":
        """A call of a one-line `fn` that ends by itself (`leaf_work`), written as its body with the
        arguments for its parameters: no Python call, and no step counted, as a call of it counts
        none (neojove's `distance(a, b) = abs(a.place - b.place)`). A body that only reads (`pure`)
        is one expression; any other is written here as the function writes it, after the
        arguments, where the call would run it. None when the call is not one."""
        fn = self.types.callee(node)
        module = self.owners.get(id(fn)) if fn is not None else None
        shape = one_return(fn) if module is not None else None
        # one that may reach itself counts the depth of its calls (depth.py), even from a test never taken
        if shape is None or len(fn.params) != len(args) or id(fn) in self.remembered or id(fn) in self.recursive:
            return None
        tests, returned = shape
        # an argument that is more than a name is read once, into a temporary, when the body is written
        # in place (and not at all here when it is not: the call reads it)
        held = {arg: self.temp() for arg in args if not (arg.isidentifier() or arg.lstrip("-").isdigit())}
        # each parameter is what its argument is, which may be less than what every call gives it
        # (a dropped argument, None, is not what its node would give)
        given = {param: self.types.of(arg) for param, arg, text in zip(fn.params, node.args, args) if text != "None"}
        saved = self.module, self.scopes, self.function_base, self.own_names, self.argument_types
        self.module, self.scopes, self.function_base = module, [dict(zip(fn.params, (held.get(a, a) for a in args)))], 0
        self.argument_types = {self.scopes[0][param]: found for param, found in given.items()}
        nodes = self.purity.nodes(fn)
        self.own_names = self.purity.local_names_of(fn)   # the names the body sees as its own
        written = None
        try:
            if not all(self.never(test) for test in tests):
                return None
            body = self.pure(returned)
            if body is None and self.leaf_work(fn, module) is not None:
                if any(type(n) is ast.Call and self.calls_a_fn(n, self.own_names) for n in nodes):
                    # it calls a `fn`, which may assign a global or an enclosing function's local:
                    # each argument is taken as it is now, as the call takes it
                    held.update({arg: self.temp() for arg in args
                                 if arg not in held and not self.unchanged_by_calls(arg) and not is_literal(arg)})
                    self.scopes = [dict(zip(fn.params, (held.get(a, a) for a in args)))]
                    self.argument_types = {self.scopes[0][param]: found for param, found in given.items()}
                lines, self.lines = self.lines, []
                try:
                    written = self.expr(returned)
                finally:
                    aside, self.lines = self.lines, lines
        finally:
            self.module, self.scopes, self.function_base, self.own_names, self.argument_types = saved
        if written is not None:   # the body's lines, after the arguments it reads
            self.hold(node, args, held, "\n".join(aside + [written]))
            self.lines.extend(aside)
            return written
        if body is None:
            return None
        self.hold(node, args, held, body)
        return self.into(body)

    def hold(self, node: ast.Call, args: list, held: dict, body: str) -> None:
        """The arguments of an inlined call read into their temporaries (`held`), but those that the
        body, as written, does not read (a test of it folded: folding.py) where reading cannot fail."""
        nodes_of = {}
        for given, text in zip(node.args, args):
            nodes_of.setdefault(text, given)
        for arg, temp in held.items():
            if re.search(rf"\b{temp}\b", body) is not None or not self.reads_safely(nodes_of[arg]):
                self.line(f"{temp} = {arg}")

    def reads_safely(self, node) -> bool:
        """Whether working out `node` surely gives a value, with no effect and no error: a name's
        value, or a field of a name that is surely a character or record that has it, or an
        encounter (its round or name)."""
        if type(node) is ast.Name:
            return self.pure(node) is not None
        if type(node) is not ast.Field or type(node.target) is not ast.Name or self.pure(node.target) is None:
            return False
        found = self.types.of(node.target)
        if found.is_any or found.is_empty or NONE in found.atoms:
            return False
        return self.kept_field(node) or self.surely(node.target, "encounter") and node.name in ("round", "name")

    def never(self, test) -> bool:
        """Whether the condition `test` is surely false, its first part a kind test the types answer
        with no read (Comparisons.kind_known): robomacs' `c.kind == "Robo" and ...` where no
        character is a Robo."""
        while type(test) is ast.Group or type(test) is ast.Logic and test.op == "and":
            test = test.inner if type(test) is ast.Group else test.left
        return self.kind_known(test, lines=False) == "False"

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
        general = builtin_call(name, args, options, k)
        if name == "ended":
            return self.into(f"ENDED({args[0]})")
        if name == "roll" and len(args) == 1 and set(named) <= {"explode"}:
            # a pool rolled as `roll` rolls it: tested to be a pool, and `explode` true or false,
            # unless the types say so; anything else is the builtin's to refuse
            explode = named.get("explode", "True")
            tests = [] if self.surely(node.args[0], "pool") else [f"{class_of(args[0])} is Pool"]
            if "explode" in named and not self.surely(node.kwargs["explode"], "bool"):
                # a number or text written there is not true or false: the builtin's error
                tests.append("False" if is_number_or_text(explode) else f"({explode} is True or {explode} is False)")
            if tests:
                made = f"roll_and_keep(EV.source, {args[0]}, EV, {explode})"   # and keeps no record of it
                return self.into(f"{made} if {' and '.join(tests)} else {general}")
            # its dice spent at once after it, from the roll's count: no call of EV.spend for each round
            made = self.into(f"roll_and_keep(EV.source, {args[0]}, None, {explode}, EXPLOSION_DEPTH)")
            self.line(spending(f"{made}.dice", "DICE_BULK"))
            return made
        if name == "range" and 1 <= len(args) <= 2 and not node.kwargs:
            # of whole numbers, made as the builtin makes it: its size tested, a step an item
            start, end = ("1", args[0]) if len(args) == 1 else args
            start, end = (x if x.isidentifier() or is_literal(x) else self.into(x) for x in (start, end))
            ints = "".join(f"{class_of(x)} is int and " for x in (start, end) if not is_literal(x))
            count = end if start == "1" else f"{end} - {start} + 1"
            return self.into(f"list(range({start}, {end} + 1)) if {ints}{count} <= LIST_SIZE and "
                             f"{spent(f'max(0, {count})')} else {general}")
        if name == "len":
            a, = args
            if self.surely(node.args[0], "list") or self.surely(node.args[0], "str"):
                return self.into(f"len({a})")
            return self.into(f"len({a}) if {class_of(a)} is list or {class_of(a)} is str else {general}")
        if name == "push":
            a, b = args
            if id(node) in self.bounded_pushes:
                self.line(f"{a}.append({b})")
                return "None"
            is_list = "" if self.surely(node.args[0], "list") else f"{class_of(a)} is list and "
            empty = f"not {a} or " if not is_list and a.isidentifier() else ""
            self.line(f"if {empty}{is_list}len({a}) < LIST_SIZE: {a}.append({b})")
            self.line(f"else: {general}")
            return "None"
        if name == "contains" and not node.kwargs:
            a, b = args
            is_list = "" if self.surely(node.args[0], "list") else f"{class_of(a)} is list and "
            # Python's `in` for a string shorter than TEXT_STEP (comparing one that long with a string
            # of its length costs steps: B_contains counts them), none, a character, an encounter
            item = node.args[1]
            if short_text(item) or self.found_by_python_in(item) and \
                    (not self.types.of(item).maybe("str") or self.no_long_text_in(node.args[0])):
                is_plain = ""
            elif self.surely(item, "str"):
                is_plain = f"len({b}) < {TEXT_STEP} and "
            elif self.found_by_python_in(item):
                is_plain = f"({class_of(b)} is not str or len({b}) < {TEXT_STEP}) and "
            else:
                is_plain = f"{class_of(b)} is str and len({b}) < {TEXT_STEP} and "
            # and a step an item, as `contains` counts them, charged first; one expression, which an
            # `and` chain keeps whole (Comparisons.e_Logic). A list whose length the text tells
            # (list_length: pbem's `rank_rolls`) is charged that, with no test of its length.
            length = self.list_length(node.args[0])
            if length is not None and length < SHORT_LIST:
                tests = f"{is_list}{is_plain}{spent(str(length)) if length else ''}".removesuffix(" and ")
                return self.into(f"{b} in {a} if {tests} else {general}" if tests else f"{b} in {a}")
            # an empty list, surely one (robomacs' lost systems, mostly none), holds nothing: told by
            # its truth, no step spent, as `contains` spends none for it
            empty = f"not {a} or " if not is_list and a.isidentifier() else ""
            return self.into(f"{b} in {a} if {empty}{is_list}{is_plain}(LENGTH := len({a})) < SHORT_LIST and "
                             f"{spent('LENGTH')} else {general}")   # its length asked once
        # the common cases of the numeric builtins and `lower`, as their implementations work them out
        if len(args) == 1 and not node.kwargs and name in _ONE_ARGUMENT:
            a, = args
            found = self.types.of(node.args[0])   # a roll is no int here, though it may be written as one
            if name in ("floor", "ceil", "round") and is_literal(a):
                return a   # a whole number written as such (`(4 / 2) / 1`, folded): itself
            for kind in ("int", "number", "str"):   # the types prove the common case: no test
                if (name, kind) in _PROVED and found.surely(kind):
                    return self.into(_PROVED[name, kind].format(a=a, c=class_of(a)))
            if name == "lower" and not found.is_any and not any(found.maybe(kind) for kind in _ATTRIBUTED):
                # a string, or a value of no type with an attribute `lower` (none, a number, a list):
                # Python fails on the latter where the closures do (the run bails, for their error)
                return self.into(_PROVED[name, "str"].format(a=a, c=class_of(a)))
            return self.into(_ONE_ARGUMENT[name].format(a=a, c=class_of(a), general=general))
        if name == "pool" and len(args) == 2 and not node.kwargs:
            # a pool as `pool` makes it: of numbers (an int, or a Fraction that Pool takes in halves),
            # which need no converting; a roll's total, or anything else, by the builtin
            a, b = args
            ints = " and ".join(f"{class_of(x)} is int" for x, arg in zip(args, node.args)
                                if not is_literal(x) and not self.surely(arg, "int"))
            if not ints:   # of whole numbers: made here as pool_of makes it, with no Python call
                a, b = (x if x.isidentifier() or is_literal(x) else self.into(x) for x in args)
                result = self.temp()
                self.line(f"{result} = Pool()")
                self.line(f"{result}.unkept2 = {a} * 2")
                self.line(f"{result}.kept2 = {b} * 2")
                self.line(f"{result}.flat = 0")
                self.line(f"{result}.span = {self.constant(node.span)}")
                return result
            made = f"pool_of({a}, {b}, 0, {self.constant(node.span)})"
            if all(is_literal(x) or self.surely(arg, "number") for x, arg in zip(args, node.args)):
                return self.into(made)
            return self.into(f"{made} if {ints} else {general}" if ints else made)
        if name in ("max", "min") and len(args) >= 2 and not node.kwargs:
            return picked(self, name, node, args, k)
        return self.into(general)


def builtin_call(name: str, args: list, options: str, k: str) -> str:
    """The call of the builtin `name` as the closures make it (`B_<name>`), with the Python text of
    its arguments and of its named options' dict, `k` the call's constant."""
    return f"B_{name}(EV, [{', '.join(args)}], {options}, {k})"


def picked(writer, name: str, node: ast.Call, args: list, k: str) -> str:
    """`max` or `min` (`name`) of `args`, the Python text of the arguments of `node`: of numbers,
    as Python picks them (the builtin picks with it from the same values); else by the builtin
    (`k`: the call's constant). Of two, the test Python's makes, `b if b > a else a` (the first of
    equals), of names or literals: a call of `max` costs some 100 ns more (its arguments made a
    tuple and walked), and transformers and neojove pick 50 to 80 a fight."""
    if len(args) == 2:
        args = [x if x.isidentifier() or is_literal(x) else writer.into(x) for x in args]
        a, b = args
        python = f"{b} if {b} {'>' if name == 'max' else '<'} {a} else {a}"
    else:
        python = f"{name}({', '.join(args)})"
    ints = " and ".join(f"{class_of(a)} is int" for a, arg in zip(args, node.args)
                        if not is_literal(a) and not (writer.surely(arg, "int") or writer.surely(arg, "number")))
    general = builtin_call(name, args, "{}", k)
    return writer.into(f"({python}) if {ints} else {general}" if ints else python)


def looked_up(writer, function: str, called: str, key: list) -> str:
    """The answer of the remembered `fn` bound to `function`, written by `writer` as a look-up in its
    table of known answers, KNOWN_<function> (memo.known), by `key`, the Python text of names,
    literals and the reads of the state it is keyed by; else `called` (the remembering function, or
    its `answer` given the state) works it out. The state is read again there (the reads only
    read), which costs less than a local for each read in every call. Its temporary."""
    result = writer.temp()
    writer.line(f"try: {result} = KNOWN_{function}{''.join(f'[{part}]' for part in key)}")
    writer.line(f"except KeyError: {result} = known(KNOWN_{function}, {called}, ({', '.join(key)},))")
    return result


def one_return(fn: ast.FnDef) -> "tuple[list, ast.Node] | None":
    """([], the body) of a one-line `fn`; (the tests, what it returns) of one whose body is `if`s
    of no `else` then a `return` of a value, which it is when every test is false (robomacs'
    `standing`: a Robo's pilot is tested first); None for any other."""
    if fn.line_form:
        return [], fn.body
    statements = fn.body.statements
    if not statements or type(statements[-1]) is not ast.Return or statements[-1].value is None:
        return None
    ifs = statements[:-1]
    if not all(type(s) is ast.If and len(s.branches) == 1 and s.otherwise is None for s in ifs):
        return None
    return [s.branches[0][0] for s in ifs], statements[-1].value


_ONE_ARGUMENT = {
    "floor": "{a} if {c} is int else floor({a}) if {c} is Fraction else {general}",
    "ceil": "{a} if {c} is int else ceil({a}) if {c} is Fraction else {general}",
    "round": "{a} if {c} is int else {general}",
    "abs": "abs({a}) if {c} is int else {general}",
    "lower": "{a}.lower() if {c} is str else {general}",
}


# the kinds of values that may have an attribute of any name (a record's or a character's fields are
# attributes), or that the written code must not ask for one (a function's, a table's)
_ATTRIBUTED = ("record", "character", "encounter", "function", "table", "row", "module", "kind")


# the same where the checker's types prove the argument's kind
_PROVED = {
    ("floor", "int"): "{a}", ("ceil", "int"): "{a}", ("round", "int"): "{a}", ("abs", "int"): "abs({a})",
    # of a Fraction, its own parts (Fraction's `floor` reads them through two properties)
    ("floor", "number"): "{a} if {c} is int else {a}._numerator // {a}._denominator",
    ("ceil", "number"): "{a} if {c} is int else -(-{a}._numerator // {a}._denominator)",
    ("abs", "number"): "abs({a})", ("lower", "str"): "{a}.lower()",
}


def builtin_impls() -> dict:
    return {f"B_{name}": builtin.impl for name, builtin in BUILTINS.items()}
