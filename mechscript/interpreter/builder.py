"""Builds the AST as lark's parser reduces each rule (parser.py calls a method of AstBuilder per rule,
with the rule's span and its children); nothing after this touches lark."""

from __future__ import annotations

import sys

from . import ast
from .builder_declarations import DeclarationRules
from .builder_expressions import ExpressionRules
from .inherit import inherit
from ..errors import MechError, Span
from .tokens import first_repeat, plain_minus, token_span


class AstBuilder(DeclarationRules, ExpressionRules):
    """One method per rule of the grammar (or its alias): `method(span, children)`, where `span`
    runs from the rule's first token to its last (None for an empty program) and `children` are
    what lark keeps of it (no punctuation; None for a missing `[...]`), each already built.
    `parse_inner(text, span)` parses the expression of a string's `{...}`, whose text starts at
    `span` (one line: strings do not span lines), so its nodes carry their true positions."""

    def __init__(self, parse_inner=None):
        self.parse_inner = parse_inner

    def expression(self, span, children):
        return children[0]

    def program(self, span, children):
        statements = [child for child in children if child is not None]
        inherit(statements)
        return ast.Program(span or Span(1, 1, 0, 0), statements)

    def block(self, span, children):
        statements = [child for child in children if child is not None]
        inherit(statements)
        return ast.Block(span, statements)

    # ---- statements ----

    def let(self, span, children):
        name, value = children
        return ast.Let(span, str(name), token_span(name), value)

    def assign(self, span, children):
        target, value = children
        return ast.Assign(span, self._target(target), "=", value)

    def augmented(self, span, children):
        target, op, value = children
        return ast.Assign(span, self._target(target), plain_minus(str(op)), value)

    @staticmethod
    def _target(node):
        if type(node) not in (ast.Name, ast.Field, ast.Index):
            raise MechError("only a name, a field or an element can be assigned to", node.span,
                            hint="assign like `hp = 10`, `def.defended += 1` or `list[0] = 3`; compare with `==`")
        return node

    def fn_name(self, span, children):
        return [token for token in children]

    def params(self, span, children):
        names = [sys.intern(str(token)) for token in children]
        repeat = first_repeat(names)
        if repeat is not None:
            raise MechError(f"parameter `{names[repeat]}` is listed twice", token_span(children[repeat]))
        return names

    def fn_line(self, span, children):
        return self._fn(span, children, True)

    def fn_block(self, span, children):
        return self._fn(span, children, False)

    def _fn(self, span, children, line_form):
        name_tokens, params, body = children
        module = str(name_tokens[0]) if len(name_tokens) == 2 else None
        name = name_tokens[-1]
        return ast.FnDef(span, module, str(name), token_span(name), params or [], body, line_form)

    def if_(self, span, children):
        condition, block, *rest = children
        otherwise = rest.pop() if rest and (rest[-1] is None or type(rest[-1]) is ast.Block) else None
        branches = [(condition, block)] + rest
        return ast.If(span, branches, otherwise)

    def elif_part(self, span, children):
        return (children[0], children[1])

    def else_part(self, span, children):
        return children[0]

    def for_(self, span, children):
        name, iterable, body = children
        return ast.For(span, str(name), iterable, body)

    def while_(self, span, children):
        return ast.While(span, children[0], children[1])

    def repeat(self, span, children):
        return ast.Repeat(span, children[0], children[1])

    def return_(self, span, children):
        return ast.Return(span, children[0])

    def say(self, span, children):
        return ast.Say(span, children[0])

    def table(self, span, children):
        name, *rows = children
        rows = [row for row in rows if row is not None]
        if any(row.name is None for row in rows) and len(rows) > 1:
            raise MechError(f"table `{name}` mixes named rows with an unnamed one", span,
                            hint="name every row (`routine: 14 => ...`), or give the table one unnamed row")
        seen = set()
        for row in rows:
            if row.name in seen:
                raise MechError(f"row `{row.name}` appears twice in table `{name}`", row.span)
            seen.add(row.name)
        return ast.TableDef(span, str(name), rows)

    def named_row(self, span, children):
        name, entries = children
        return ast.TableRow(str(name), entries, span)

    def bare_row(self, span, children):
        return ast.TableRow(None, children[0], span)

    def table_entries(self, span, children):
        defaults = [entry for entry in children if entry[0] is None]
        if len(defaults) > 1 or (defaults and children[-1][0] is not None):
            raise MechError("`else` must be the last entry of a row, and only one", span)
        return children

    def table_entry(self, span, children):
        return (children[0], children[1])

    def else_entry(self, span, children):
        return (None, children[0])

    def use(self, span, children):
        (token,) = children
        if token.type == "STRING":
            path = str(token)[1:-1]
            stem = path.replace("\\", "/").rsplit("/", 1)[-1]
            name = stem[:-5] if stem.endswith(".mech") else stem
            if not name.isidentifier():
                raise MechError(f"a module file's name must be a name (letters, digits, _): `{stem}`", token_span(token))
            return ast.Use(span, name, path)
        return ast.Use(span, str(token), None)
