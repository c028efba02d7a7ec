"""Calls of small `fn`s written in place of the call, whole blocks and not only one-line `fn`s (a part
of emit.Emitter, after calls.py's `inlined`): pbem's `beats(roll)`, transformers' `roll_for(c, p)`
and `base_defense_of(c)`. A Python call, its frame and its return cost some 25 ns, and the rules
make hundreds a fight; written in place, the body also reads its arguments where they are.

Written in place: each argument bound to its parameter (the argument's own temporary or local where
nothing can change it, else a local of the parameter's); `next(STEP)` if a call of it counts a step
(Work.ends_by_itself); then its body, as Emitter.define writes it, each `return` assigning the
call's value (or, for a `let` keeping the record the call gives as its fields, scalars.py, each
`return`'s literal setting those fields). Python has no jump out of the middle of a block, so the body is first written
(`returns_last`) so that each `return` is the last thing done on its path: `if x { return a } rest`
becomes `if x { return a } else { rest }`. A body where that cannot be done (a `return` inside a
loop; the rest needed on two paths) is called.

Not written in place: a function that may reach itself (it counts its depth, depth.py), one whose
answers a run remembers (memo.py), one holding a `fn`, `table` or `kind`, one larger than
INLINE_NODES nodes; nor is a call inside such a body (its `returning` is set). A body this writer
cannot write (Unsupported) is called as before."""

from __future__ import annotations

import re

from ..interpreter import ast
from ..interpreter.script import declared_name
from .not_none import NotNone
from .scalars import record_made
from .writer import TEMPORARY, Unsupported, short_text

# the most nodes of its text a `fn` written in place of its calls may have. Measured on the
# examples (notes of issue 17): larger bodies, or bodies written in place inside others, grow the
# callers' frames (a Python call sets and clears each of its locals) more than they save in calls,
# and writing the longer text is part of a batch's set-up.
INLINE_NODES = 50


class Inlining(NotNone):

    def inlined_block(self, node: ast.Call, args: list) -> "str | None":
        """The call `node` of a `fn` the types know, with `args` its arguments' Python text, written
        in place: its value's temporary. None when it is not (see the module's text)."""
        fn = self.types.callee(node)
        module = self.owners.get(id(fn)) if fn is not None else None
        if module is None or self.returning is not None or len(fn.params) != len(args) or \
                id(fn) in self.remembered or id(fn) in self.recursive:
            return None
        nodes = self.purity.nodes(fn)
        if len(nodes) > INLINE_NODES or any(type(n) in _HELD for n in nodes):
            return None
        body = [ast.Return(fn.span, fn.body)] if fn.line_form else returns_last(fn.body.statements)
        if body is None:
            return None
        # the fields a `let` keeps of the call's value (scalars.py), each `return` giving a literal with them
        literals = returned_literals(body) if self.wanted_fields is not None and self.wanted_fields[0] is node else None
        fields = self.wanted_fields[1] if literals and all(set(self.wanted_fields[1]) <= {name for name, _ in literal.fields}
                                                           for literal in literals) else None
        for name in fields or ():
            if all(name in self.unread.get(id(literal), ()) for literal in literals):
                fields[name] = "None"   # what no return works out in a quiet run (unread.py)
        # a parameter the body never assigns is its argument itself when that is none (an argument
        # only the body's narration reads: Calls.arguments), a temporary, a local that only the
        # caller's own lines change (Calls.unchanged_by_calls) or a `fn` of the namespace
        # (transformers' `pool_of`); else a local of its own. Not a temporary holding a list no one
        # else holds (Writer.fresh, which a loop goes through with no copy): the body may keep it.
        reassigned = {n.target.id for n in nodes if type(n) is ast.Assign and type(n.target) is ast.Name}
        functions = set(self.functions.values())
        direct = {param: text for param, text in zip(fn.params, args)
                  if param not in reassigned and text.isidentifier() and text not in self.fresh and
                  (text == "None" or self.unchanged_by_calls(text) or text in functions)}
        result = self.temp()
        start = len(self.lines)
        saved = self.module, self.scopes, self.function_base, self.dropped_statements, self.dropped_names, \
            self.reassigned, self.own_names, self.function_nodes, self.not_none, self.kind_tested, \
            self.fixed_locals, self.argument_types, self.returning, self.nonlocals, self.private_lists, \
            self.returned_fields, self.wanted_fields
        self.module, self.scopes, self.function_base = module, [{}], 0
        self.returned_fields, self.wanted_fields = fields, None
        self.dropped_statements, self.dropped_names = self.purity.narration(module, fn)
        self.reassigned = reassigned
        self.own_names, self.function_nodes = self.purity.local_names_of(fn), nodes
        self.private_lists = self.purity.private_lists(fn)
        # what the caller has proven not none stays so in the body: a local of the caller's is
        # only what a parameter the body never assigns is bound to (`direct`), and no line of the
        # body can assign it (transformers' `base_defense_of(c)` in `passive_defense(c)`, past `c.prone`)
        self.not_none = set(self.not_none)
        self.kind_tested, self.fixed_locals, self.nonlocals = {}, set(), set()
        self.returning = result
        try:
            params = []
            for param, text, arg in zip(fn.params, args, node.args):
                if param in direct:
                    self.scopes[-1][param] = text
                    params.append(text)
                else:
                    params.append(self.local(param))
                    self.line(f"{params[-1]} = {text}")
                    if param not in reassigned and short_text(arg):   # robomacs' effects_now(c, "lose", r)
                        self.short_texts.add(params[-1])
            # each parameter the body never assigns is what its argument is, which may be less than
            # what every call gives it (a dropped argument, None, is not what its node would give)
            self.argument_types = {python: self.types.of(arg) for python, param, arg, text
                                   in zip(params, fn.params, node.args, args)
                                   if text != "None" and param not in self.reassigned}
            if not self.ends_by_itself(fn) and not self.forwards(fn):
                self.line("next(STEP)")   # as the call would count it
            if not always_returns(body):
                self.line(f"{result} = None")   # a path with no `return` gives none (not so where `fields`)
            # the names the body declares hide the module's, and a parameter, from its start
            # (Emitter.block), also those returns_last moves into an `else` or leaves out
            for statement in fn.body.statements if not fn.line_form else ():
                name = declared_name(statement)
                if name is not None:
                    self.scopes[-1][name] = None
            self.block(ast.Block(fn.span, body), shares_parent=True)
            if self.nonlocals:
                raise Unsupported("a `fn` inside")   # not expected: no `fn` is in the body
        except Unsupported:
            del self.lines[start:]
            return None
        finally:
            self.module, self.scopes, self.function_base, self.dropped_statements, self.dropped_names, \
                self.reassigned, self.own_names, self.function_nodes, self.not_none, self.kind_tested, \
                self.fixed_locals, self.argument_types, self.returning, self.nonlocals, self.private_lists, \
                self.returned_fields, self.wanted_fields = saved
        self.unread_arguments(node, args, direct, start)
        if fields is not None:
            self.wanted_fields = None   # taken: the `return`s have set the fields
            return "None"
        return result

    def unread_arguments(self, node: ast.Call, args: list, direct: dict, start: int) -> None:
        """The lines before `start` that read an argument into a temporary the body, written from
        `start` on, never reads (a `fn` given and called by name: transformers' `pool_of`), left
        out where reading cannot fail (Calls.reads_safely), as Calls.hold leaves them out."""
        body = "\n".join(self.lines[start:])
        for given, text in zip(node.args, args):
            if text in direct.values() and TEMPORARY.fullmatch(text) and re.search(rf"\b{text}\b", body) is None \
                    and self.reads_safely(given):
                assigned = "    " * self.depth + f"{text} = "   # its one line, at the call's depth
                for index in range(start - 1, -1, -1):
                    if self.lines[index].startswith(assigned):
                        del self.lines[index]
                        start -= 1
                        break


def returned_literals(body: list) -> "list | None":
    """The record literals of the `return`s of `body` (returns_last's), when every path through
    it ends in one; else None."""
    if not always_returns(body):
        return None
    literals = []
    for node in ast.walk(ast.Block(body[0].span, body)):
        if type(node) is ast.Return:
            value = record_made(node)
            if type(value) is not ast.Record:
                return None
            literals.append(value)
    return literals


# what a body written in place may not hold: a `fn`'s closure cells, and definitions the closures make
_HELD = (ast.FnDef, ast.TableDef, ast.KindDef, ast.CharacterDef, ast.EncounterDef)


def returns_last(statements: list, top: bool = True) -> "list | None":
    """`statements` written so that each `return` is the last thing done on its path: the rest of a
    block after an `if` that returns in some of its branches goes into the others (`if x { return a }
    rest` is `if x { return a } else { rest }`), and what follows a `return` is left out (nothing
    runs it). None when a `return` is inside a loop, or when the rest would be needed in two
    branches. A `let` hides the name it declares from the start of its block: None too when moving
    the rest would change what a name is somewhere. Not at the function's top level (`top`), whose
    names inlined_block declares first, anywhere else: the rest or what is left out declares a
    name, or the branch the rest joins does (the rest would read the branch's)."""
    for i, statement in enumerate(statements):
        kind = type(statement)
        if kind is ast.Return:
            return statements[:i + 1] if top or not _declares(statements[i + 1:]) else None
        if not any(type(n) is ast.Return for n in ast.walk(statement)):
            continue
        if kind is not ast.If:
            return None   # a `return` inside a loop
        rest = statements[i + 1:]
        if rest and not top and _declares(rest):
            return None
        blocks = [block for _, block in statement.branches] + \
            [statement.otherwise if statement.otherwise is not None else ast.Block(statement.span, [])]
        going_on = [block for block in blocks if not always_returns(block.statements)]
        if rest and (len(going_on) > 1 or any(_declares(block.statements) for block in going_on)):
            return None
        written = []
        for block in blocks:
            joined = block.statements + rest if rest and any(block is other for other in going_on) else block.statements
            tail = returns_last(joined, top=False)
            if tail is None:
                return None
            written.append(ast.Block(block.span, tail))
        branches = [(test, block) for (test, _), block in zip(statement.branches, written)]
        return statements[:i] + [ast.If(statement.span, branches, written[-1])]
    return statements


def _declares(statements: list) -> bool:
    return any(declared_name(statement) is not None for statement in statements)


def always_returns(statements: list) -> bool:
    """Whether running `statements` surely ends in a `return` (of each branch of an `if` with an `else`)."""
    for statement in statements:
        if type(statement) is ast.Return:
            return True
        if type(statement) is ast.If and statement.otherwise is not None and \
                all(always_returns(block.statements) for _, block in statement.branches) and \
                always_returns(statement.otherwise.statements):
            return True
    return False
