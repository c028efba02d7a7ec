"""Builds the AST as lark's parser reduces each rule (parser.py calls a method of AstBuilder per rule,
with the rule's span and its children); nothing after this touches lark."""

from __future__ import annotations

import re
import sys
from fractions import Fraction

from lark import Token

from . import ast, encounter_params
from .inherit import inherit
from ..numbers import normal
from ..errors import MechError, Span, did_you_mean

# A modifier token is one word of the notation (`kh3`, `!>=5`, `ro<2`); these split it into its
# parts. The grammar has already decided where each token starts and ends.
_MODIFIER = re.compile(r"(kh|kl|dh|dl|k|d|!!|!p|!|xo|x|rr|ra|ro|r|mi|ma|cs|cf|c|f)(>=|<=|>|<|=)?([-−–]?\d+)?$")

# Other rollers' spellings that mean what a mechscript modifier means (README, "Dice notation").
_SYNONYMS = {"k": "kh", "x": "!", "rr": "r", "cs": "c"}

# A minus may be written `-`, U+2212 (−) or an en dash (–), as text pasted from a document has it.
MINUS_SIGNS = "-−–"


def plain_minus(text: str) -> str:
    """`text` with each minus sign written `-`."""
    return text.replace("−", "-").replace("–", "-")


def token_span(token: Token) -> Span:
    return Span(token.line, token.column, token.start_pos, token.end_pos)


MAX_DIGITS = 1000  # a longer number in the source is a mistake (or an attack), never a rule


def parse_number(text: str) -> int | Fraction:
    if len(text) > MAX_DIGITS:
        raise MechError(f"a number of {len(text)} digits is too long to write; the most is {MAX_DIGITS}",
                        token_span(text) if isinstance(text, Token) else None)
    if text.isascii() and text.isdigit():  # most numbers: int() is a tenth of Fraction()'s time
        return int(text)
    value = Fraction(text)
    return int(value) if value.denominator == 1 else value


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "{": "{", "}": "}"}


class AstBuilder:
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
        seen = set()  # a set: a line of 10^5 parameters is a stranger's script, not a quadratic search
        for name, token in zip(names, children):
            if name in seen:
                raise MechError(f"parameter `{token}` is listed twice", token_span(token))
            seen.add(name)
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

    # ---- kinds, characters, encounters ----

    def kind(self, span, children):
        _, name, extends, *items = children
        items = [item for item in items if item is not None]
        seen = {}
        for item in items:
            if item.name in seen:
                raise MechError(f"`{item.name}` is declared twice in kind `{name}` (line {seen[item.name].line})",
                                item.span)
            seen[item.name] = item.span
        node = ast.KindDef(span, str(name), token_span(name), items)
        if extends is not None:
            node.extends, node.extends_span = extends
        return node

    def kind_extends(self, span, children):
        word, (path, path_span) = children
        if str(word) != "extends":
            raise MechError(f"a kind's name is followed by `{{` or `extends KIND`, not `{word}`", token_span(word),
                            hint=did_you_mean(str(word), ["extends"]) or "kind Npc extends Unit { ... }")
        return path, path_span

    def value_item(self, span, children):
        word, name, values, value = children
        what = _kind_word(word, ("stat", "derived", "state"))
        if what != "stat" and (values is not None or value is None):
            raise MechError(f"`{what} {name}` is worked out by a formula: `{what} {name} = ...`", span,
                            hint="only a stat has a range or choices: `stat speed 1..10`")
        item = ast.KindItem(what, str(name), token_span(name), value=value)
        if values is not None and values[0] == "range":
            item.low, item.high = values[1], values[2]
        elif values is not None:
            item.choices = values[1]
        return item

    def stat_range(self, span, children):
        return ("range", children[0], children[1])

    def stat_choices(self, span, children):
        return ("choices", children[0])

    def bound(self, span, children):
        if len(children) == 1 and children[0].type == "NAME":
            return ast.Name(token_span(children[0]), str(children[0]))
        *sign, number = children
        value = parse_number(number)
        return ast.Number(span, -value if sign and str(sign[0]) in MINUS_SIGNS else value)

    def gear_item(self, span, children):
        word, name, kind = children
        _kind_word(word, ("gear",))
        return ast.KindItem("gear", str(name), token_span(name), gear_kind=str(kind), gear_kind_span=token_span(kind))

    def kind_name(self, span, children):
        return [str(token) for token in children], span

    def entries(self, span, children):
        entries = [child for child in children if child is not None]
        return entries

    def entry(self, span, children):
        name, value, entries = children
        return ast.Entry(str(name), token_span(name), value, entries)

    def character(self, span, children):
        _, name, (kind, kind_span), entries = children
        return ast.CharacterDef(span, str(name), token_span(name), kind, kind_span, entries)

    def encounter(self, span, children):
        _, title, params, *items = children
        sides, untils, settings = [], [], []
        for item in items:
            if type(item) is ast.Side:
                if any(side.name == item.name for side in sides):
                    raise MechError(f"side `{item.name}` is declared twice", item.span)
                sides.append(item)
            elif type(item) is tuple and item[0] == "until":
                untils.append(item[1])
            elif type(item) is tuple:
                if any(setting[0] == item[1] for setting in settings):
                    raise MechError(f"setting `{item[1]}` is given twice", item[2])
                settings.append(item[1:])
        if len(untils) > 1:
            raise MechError("an encounter has one `until`", untils[1].span,
                            hint="join the conditions: `until one_side_left or round > 20`")
        if len(sides) < 2:
            raise MechError("an encounter needs two sides or more", span,
                            hint="one `side NAME: ...` line per side: side decepticons: Triggerhappy, Ransack")
        text = self._interpolate(title)
        if len(text) != 1 or type(text[0]) is not str:
            raise MechError("an encounter's name is plain text, without `{...}`", token_span(title))
        encounter = ast.EncounterDef(span, text[0], sides, untils[0] if untils else None, settings, token_span(title),
                                     params or [])
        return encounter_params.bound(encounter)

    def encounter_params(self, span, children):
        params = []
        for name, span_of_name, default in children:
            if any(name == other for other, _, _ in params):
                raise MechError(f"parameter `{name}` is listed twice", span_of_name)
            if name in ("round", "one_side_left", "sides_left"):  # characters.UNTIL_NAMES: `until` reads them
                raise MechError(f"`{name}` is what `until` reads of the fight: a parameter cannot be named so",
                                span_of_name, hint="name it otherwise, e.g. `rounds`")
            encounter_params.plain_value(default)
            params.append((name, span_of_name, default))
        return params

    def encounter_param(self, span, children):
        name, default = children
        return (str(name), token_span(name), default)

    def side(self, span, children):
        word, name, *members = children
        _encounter_word(word, "side", "side autobots: Punch, Jazz")
        return ast.Side(str(name), token_span(name), members)

    def until(self, span, children):
        word, condition = children
        _encounter_word(word, "until", "until one_side_left or round > 20")
        return ("until", condition)

    def setting(self, span, children):
        name, value = children
        if str(name) in ("side", "until"):
            raise MechError(f"`{name}` is written without a `:` after it", token_span(name),
                            hint="side autobots: Punch, Jazz" if str(name) == "side" else "until one_side_left or round > 20")
        return ("setting", str(name), token_span(name), value)

    def expr_statement(self, span, children):
        return ast.ExprStatement(span, children[0])

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


def _kind_word(word: Token, allowed: tuple) -> str:
    """The first word of a line of a kind: a name, checked here (see the grammar's kind_item)."""
    if str(word) not in allowed:
        raise MechError(f"a line of a kind starts with {' or '.join(f'`{w}`' for w in allowed)}, not `{word}`",
                        token_span(word), hint=did_you_mean(str(word), allowed) or
                        "stat speed 1..10 | derived hp_max = endurance | state hp = hp_max | gear weapon: Weapon")
    return str(word)


def _encounter_word(word: Token, expected: str, example: str) -> None:
    if str(word) != expected:
        raise MechError(f"an encounter has sides (`side NAME: ...`), settings (`NAME: value`) and `until`; "
                        f"`{word}` is none of them", token_span(word), hint=example)


def _touching(count, die: Token) -> None:
    """`3d6`, not `3 d6`: the count is written against its die."""
    end = count.end_pos if isinstance(count, Token) else count.span.end if count is not None else None
    if end is not None and end != die.start_pos:
        raise MechError("a die's count is written right before its `d`", token_span(die),
                        hint="write `3d6`, not `3 d6`; between two values, put an operator")
