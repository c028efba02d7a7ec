"""The AST builder's rules for kinds, characters and encounters (a part of builder.AstBuilder)."""

from __future__ import annotations

from lark import Token

from . import ast, encounter_params
from ..errors import MechError, did_you_mean
from .tokens import MINUS_SIGNS, first_repeat, parse_number, token_span


class DeclarationRules:
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
        repeat = first_repeat(item.name for item in items if type(item) is ast.Side)
        for item in items:
            if type(item) is ast.Side:
                if len(sides) == repeat:
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
        repeat = first_repeat(name for name, _, _ in children)
        params = []
        for name, span_of_name, default in children:
            if len(params) == repeat:
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
