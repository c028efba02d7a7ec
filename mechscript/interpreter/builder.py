"""Builds the AST from lark's parse tree in one pass; nothing after this touches lark."""

from __future__ import annotations

import re
from fractions import Fraction

from lark import Token, Transformer, v_args

from . import ast
from .errors import MechError, Span

# A modifier token is one word of the notation (`kh3`, `!>=5`, `ro<2`); these split it into its
# parts. The grammar has already decided where each token starts and ends.
_MODIFIER = re.compile(r"(kh|kl|dh|dl|k|!!|!p|!|ro|r|mi|ma|c|f)(>=|<=|>|<|=)?(-?\d+)?$")


def token_span(token: Token) -> Span:
    return Span(token.line, token.column, token.start_pos, token.end_pos)


def meta_span(meta) -> Span:
    return Span(meta.line, meta.column, meta.start_pos, meta.end_pos)


def parse_number(text: str) -> int | Fraction:
    value = Fraction(text)
    return int(value) if value.denominator == 1 else value


@v_args(meta=True)
class AstBuilder(Transformer):
    def expression(self, meta, children):
        return children[0]

    def number(self, meta, children):
        (token,) = children
        return ast.Number(token_span(token), parse_number(token))

    def pool(self, meta, children):
        (token,) = children
        unkept, kept = token.split("k")
        return ast.PoolLiteral(token_span(token), Fraction(unkept), Fraction(kept))

    def name(self, meta, children):
        (token,) = children
        return ast.Name(token_span(token), str(token))

    def group(self, meta, children):
        return ast.Group(meta_span(meta), children[0])

    def list(self, meta, children):
        items = [child for child in children if child is not None]
        return ast.ListLiteral(meta_span(meta), items)

    def unary(self, meta, children):
        op, operand = children
        return ast.Unary(meta_span(meta), str(op), operand)

    def binop(self, meta, children):
        left, op, right = children
        return ast.BinOp(meta_span(meta), str(op), left, right)

    def compare(self, meta, children):
        left, op, right = children
        return ast.Compare(meta_span(meta), str(op), left, right)

    def call(self, meta, children):
        name, arguments = children
        args, kwargs = arguments if arguments is not None else ([], {})
        return ast.Call(meta_span(meta), str(name), token_span(name), args, kwargs)

    def arguments(self, meta, children):
        args, kwargs = [], {}
        for child in children:
            if isinstance(child, tuple):
                key, value, span = child
                if key in kwargs:
                    raise MechError(f"option `{key}` is given twice", span)
                kwargs[key] = value
            elif kwargs:
                raise MechError("a plain argument cannot follow a named one", child.span,
                                hint="put the named options (`explode: false`) last")
            else:
                args.append(child)
        return args, kwargs

    def keyword(self, meta, children):
        key, value = children
        return (str(key), value, token_span(key))

    def dice_count(self, meta, children):
        return children[0]

    def die_sides(self, meta, children):
        (child,) = children
        if isinstance(child, Token):
            if child.type == "PERCENT":
                return "%"
            return ast.Number(token_span(child), parse_number(child))
        return child

    def dice(self, meta, children):
        count, _d, sides, *modifiers = children
        if isinstance(count, Token):
            count = ast.Number(token_span(count), parse_number(count))
        return ast.Dice(meta_span(meta), count, sides, tuple(self._modifier(m) for m in modifiers))

    def fudge_dice(self, meta, children):
        count, _df, *modifiers = children
        if isinstance(count, Token):
            count = ast.Number(token_span(count), parse_number(count))
        return ast.Dice(meta_span(meta), count, "F", tuple(self._modifier(m) for m in modifiers))

    @staticmethod
    def _modifier(token: Token) -> ast.Modifier:
        kind, op, number = _MODIFIER.match(token).groups()
        span = token_span(token)
        if kind in ("kh", "kl", "dh", "dl", "k"):
            return ast.Modifier("kh" if kind == "k" else kind, int(number), None, span)
        if kind in ("mi", "ma"):
            return ast.Modifier(kind, int(number), None, span)
        condition = ast.Condition(op or "=", int(number)) if number is not None else None
        return ast.Modifier(kind, None, condition, span)


def build(tree) -> ast.Node:
    return AstBuilder().transform(tree)
