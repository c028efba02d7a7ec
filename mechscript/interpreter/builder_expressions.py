"""The AST builder's rules for expressions (a part of builder.AstBuilder): strings and their `{...}`,
numbers, names, operators, calls, dice and their modifiers."""

from __future__ import annotations

import re
import sys
from fractions import Fraction

from lark import Token

from . import ast
from ..numbers import normal
from ..errors import MechError, Span
from .tokens import parse_number, plain_minus, token_span

# A modifier token is one word of the notation (`kh3`, `!>=5`, `ro<2`); these split it into its
# parts. The grammar has already decided where each token starts and ends.
_MODIFIER = re.compile(r"(kh|kl|dh|dl|k|d|!!|!p|!|xo|x|rr|ra|ro|r|mi|ma|cs|cf|c|f)(>=|<=|>|<|=)?([-−–]?\d+)?$")

# Other rollers' spellings that mean what a mechscript modifier means (README, "Dice notation").
_SYNONYMS = {"k": "kh", "x": "!", "rr": "r", "cs": "c"}

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "{": "{", "}": "}"}


class ExpressionRules:
    # ---- expressions of the statement language ----

    def string(self, span, children):
        (token,) = children
        return ast.String(token_span(token), self._interpolate(token))

    def _interpolate(self, token: Token) -> list:
        raw = str(token)[1:-1]
        parts, text, i = [], [], 0
        while i < len(raw):
            char = raw[i]
            if char == "\\":
                escaped = raw[i + 1:i + 2]
                if escaped not in _ESCAPES:
                    raise MechError(f"unknown escape `\\{escaped}` in a string", self._at(token, i, 2),
                                    hint='escapes: \\n \\t \\" \\\\ \\{ \\}')
                text.append(_ESCAPES[escaped])
                i += 2
            elif char == "{":
                end = _closing_brace(raw, i + 1)
                if end < 0:
                    raise MechError("`{` in a string opens an expression that is never closed", self._at(token, i, 1),
                                    hint="close it with `}`, or write `\\{` for a brace")
                if not raw[i + 1:end].strip():
                    raise MechError("empty `{}` in a string", self._at(token, i, end - i + 1),
                                    hint="put an expression inside, e.g. \"{att} hits\", or write `\\{` for a brace")
                if text:
                    parts.append("".join(text))
                    text = []
                inner = self.parse_inner(raw[i + 1:end], self._at(token, i + 1, end - i - 1))
                if type(inner) is ast.String and all(type(part) is str for part in inner.parts):
                    # `"x {" + c + "}"` reads as one string holding the text ` + c + `: never what was meant
                    raise MechError("this `{...}` in a string holds nothing but a string", self._at(token, i, end - i + 1),
                                    hint="a brace in a string is written `\\{` or `\\}`: \"x \\{\" + c + \"\\}\"")
                parts.append(inner)
                i = end + 1
            elif char == "}":
                raise MechError("`}` in a string without its `{`", self._at(token, i, 1), hint="write `\\}` for a brace")
            else:
                text.append(char)
                i += 1
        if text or not parts:
            parts.append("".join(text))
        return parts

    @staticmethod
    def _at(token: Token, offset: int, width: int) -> Span:
        return Span(token.line, token.column + 1 + offset, token.start_pos + 1 + offset, token.start_pos + 1 + offset + width)

    def field(self, span, children):
        target, name = children
        return ast.Field(span, target, str(name), token_span(name))

    def index(self, span, children):
        target, key = children
        return ast.Index(span, target, key)

    def and_(self, span, children):
        return ast.Logic(span, "and", children[0], children[1])

    def or_(self, span, children):
        return ast.Logic(span, "or", children[0], children[1])

    def not_(self, span, children):
        return ast.Not(span, children[0])

    def record(self, span, children):
        names = set()
        for name, value, name_span in children:
            if name in names:
                raise MechError(f"field `{name}` is given twice", name_span)
            names.add(name)
        return ast.Record(span, [(name, value) for name, value, _ in children])

    def record_field(self, span, children):
        name, value = children
        return (str(name), value, token_span(name))

    def match(self, span, children):
        subject, *arms = children
        arms = [arm for arm in arms if arm is not None]
        return ast.Match(span, subject, arms)

    def match_arm(self, span, children):
        *patterns, body = children
        return ast.MatchArm(patterns, body, span)

    def else_arm(self, span, children):
        return ast.MatchArm(None, children[0], span)

    def number(self, span, children):
        (token,) = children
        return ast.Number(token_span(token), parse_number(token))

    def pool(self, span, children):
        (token,) = children
        unkept, kept = token.split("k")
        parse_number(Token("POOL", unkept, token.start_pos, token.line, token.column, end_pos=token.end_pos))
        parse_number(Token("POOL", kept, token.start_pos, token.line, token.column, end_pos=token.end_pos))
        return ast.PoolLiteral(token_span(token), normal(Fraction(unkept)), normal(Fraction(kept)))

    def name(self, span, children):
        (token,) = children
        # interned: a name read often is one string, not one a use (a tenth of a big script's AST)
        return ast.Name(token_span(token), sys.intern(str(token)))

    def group(self, span, children):
        return ast.Group(span, children[0])

    def list(self, span, children):
        items = [child for child in children if child is not None]
        return ast.ListLiteral(span, items)

    def unary(self, span, children):
        op, operand = children
        return ast.Unary(span, plain_minus(str(op)), operand)

    def binop(self, span, children):
        left, op, right = children
        return ast.BinOp(span, plain_minus(str(op)), left, right)

    def power(self, span, children):
        base, _, exponent = children
        return ast.Power(span, base, exponent)

    def compare(self, span, children):
        left, op, right = children
        return ast.Compare(span, str(op), left, right)

    def call(self, span, children):
        callee, arguments = children
        args, kwargs = arguments if arguments is not None else ([], {})
        return ast.Call(span, callee, args, kwargs)

    def arguments(self, span, children):
        args, kwargs = [], {}
        for child in children:
            if isinstance(child, tuple):
                key, value, key_span = child
                if key in kwargs:
                    raise MechError(f"option `{key}` is given twice", key_span)
                kwargs[key] = value
            elif kwargs:
                raise MechError("a plain argument cannot follow a named one", child.span,
                                hint="put the named options (`explode: false`) last")
            else:
                args.append(child)
        return args, kwargs

    def keyword(self, span, children):
        key, value = children
        return (str(key), value, token_span(key))

    def dice_count(self, span, children):
        return children[0]

    def die_sides(self, span, children):
        (child,) = children
        if isinstance(child, Token):
            if child.type == "PERCENT":
                return "%"
            if str(child) == "00":  # `d00` is d100, as in Roll20 and most printed tables
                return ast.Number(token_span(child), 100)
            return ast.Number(token_span(child), parse_number(child))
        return child

    def dice(self, span, children):
        count, die, sides, *modifiers = children
        _touching(count, die)
        if isinstance(count, Token):
            count = ast.Number(token_span(count), parse_number(count))
        return ast.Dice(span, count, sides, _counted_once(tuple(self._modifier(m) for m in modifiers)))

    def fudge_dice(self, span, children):
        count, die, *modifiers = children
        _touching(count, die)
        if isinstance(count, Token):
            count = ast.Number(token_span(count), parse_number(count))
        return ast.Dice(span, count, "F", _counted_once(tuple(self._modifier(m) for m in modifiers)))

    @staticmethod
    def _modifier(token: Token) -> ast.Modifier:
        text = str(token)
        kind, op, number = _MODIFIER.match(text).groups()
        span = token_span(token)
        if number is not None:
            number = plain_minus(number)
            parse_number(Token(token.type, number, token.start_pos, token.line, token.column, end_pos=token.end_pos))
        written = plain_minus(text)
        if kind in ("k", "d") and op is not None:  # keep or drop the dice meeting a condition (d20's `k>3`)
            return ast.Modifier(kind, None, ast.Condition(op, int(number)), span, written)
        kind = _SYNONYMS.get(kind, kind)
        if kind in ("kh", "kl", "dh", "dl"):  # without a count, one die (Roll20, Foundry: `2d20kl`)
            return ast.Modifier(kind, 1 if number is None else int(number), None, span, written)
        if kind in ("mi", "ma"):
            return ast.Modifier(kind, int(number), None, span, written)
        condition = ast.Condition(op or "=", int(number)) if number is not None else None
        return ast.Modifier(kind, None, condition, span, written)


def _closing_brace(raw: str, start: int) -> int:
    """Where the `}` of a string's `{...}` is, the expression's own strings (and escapes) skipped;
    -1 when it is never closed."""
    i = start
    while i < len(raw):
        char = raw[i]
        if char == "\\":
            i += 1
        elif char == '"':
            i += 1
            while i < len(raw) and raw[i] != '"':
                i += 2 if raw[i] == "\\" else 1
        elif char == "}":
            return i
        i += 1
    return -1


def _counted_once(modifiers: tuple) -> tuple:
    """`cf` (Foundry) counts failures on their own; with `c` or `f` on the same dice it would count
    two ways at once, so it stands alone."""
    kinds = {m.kind for m in modifiers}
    if "cf" in kinds and kinds & {"c", "f"}:
        alone = next(m for m in modifiers if m.kind == "cf")
        raise MechError(f"`{alone}` counts failures on their own, not with successes", alone.span,
                        hint="to take failures from successes, count them with `f` after `c`: `6d10c>=8f1`")
    return modifiers


def _touching(count, die: Token) -> None:
    """`3d6`, not `3 d6`: the count is written against its die."""
    end = count.end_pos if isinstance(count, Token) else count.span.end if count is not None else None
    if end is not None and end != die.start_pos:
        raise MechError("a die's count is written right before its `d`", token_span(die),
                        hint="write `3d6`, not `3 d6`; between two values, put an operator")
