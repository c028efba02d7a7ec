"""Source text -> AST. Loads the grammar once and turns lark's errors into MechErrors."""

from __future__ import annotations

import dataclasses
import functools
import gc
import operator
import threading
from contextlib import contextmanager
from importlib import resources

from lark import Lark
from lark.lark import PostLex
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from . import ast, parse_loop
from .builder import AstBuilder
from ..errors import MechError, Span
from ..limits import Limits, check_source_size, limit_error, make_room_for_nesting, too_deep
from .parsed_cache import cache_folder, parsed

# How an expected terminal is named in an error message.
_TERMINAL_WORDS = {
    "NUMBER": "a number",
    "POOL": "a roll-and-keep pool such as `7k3`",
    "DIE_D": "a die such as `d6`",
    "DIE_F": "`dF`",
    "NAME": "a name",
    "KIND": "a name", "CHARACTER": "a name", "ENCOUNTER": "a name",  # declaration words, names elsewhere
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "PERCENT": "`%`",
    "ADD_OP": "`+` or `-`",
    "MUL_OP": "an operator",
    "POW_OP": "`**`",
    "COMP_OP": "a comparison",
    "KEEP": "a dice modifier", "EXPLODE": "a dice modifier", "REROLL": "a dice modifier",
    "CLAMP": "a dice modifier", "COUNT": "a dice modifier", "FAIL": "a dice modifier",
    "$END": "the end of the input",
    "_NL": "a new line",
    "STRING": "a string",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "EQUAL": "`=`",
    "AUG_OP": "`+=` or `-=`",
    "SEMICOLON": "`;`",
    "DOT": "`.`",
}
_SIDES = {"NUMBER", "PERCENT", "LSQB", "LPAR"}
_MODIFIER_WORDS = ("kh", "kl", "dh", "dl", "k", "r", "ro", "mi", "ma", "c", "f")


class _Newlines(PostLex):
    """Drops newlines inside ( ) and [ ]: a call or a list may span lines."""

    always_accept = ("_NL",)

    def process(self, stream):
        depth = 0
        for token in stream:
            kind = token.type
            if kind == "LPAR" or kind == "LSQB":
                depth += 1
            elif kind == "RPAR" or kind == "RSQB":
                depth = max(0, depth - 1)
            elif kind == "_NL" and depth:
                continue
            yield token


class _Built:
    """What a rule's callback leaves on lark's stack: the value the builder made, how deep it nests
    (a rule one deeper than its deepest child), and where its text starts and ends, named as on a
    token so that the first and last child of a rule give its span whichever they are."""

    __slots__ = ("value", "depth", "line", "column", "start_pos", "end_pos")

    def __init__(self, value, depth: int, line: int, column: int, start_pos: int, end_pos: int):
        self.value, self.depth = value, depth
        self.line, self.column, self.start_pos, self.end_pos = line, column, start_pos, end_pos


class _TooDeep(Exception):
    def __init__(self, built: _Built):
        self.built = built


class _Parse:
    """The parse under way in this thread (a string's `{...}` parses inside its program's parse).
    The builder's first error waits for the end of the parse: a syntax error later in the text,
    or the nesting error, is given first, as when the AST was built after the whole parse."""

    def __init__(self, builder: AstBuilder, nesting: int):
        self.builder, self.nesting = builder, nesting
        self.too_deep: _Built | None = None
        self.error: MechError | None = None


_current = threading.local()


def _rule_callback(rule):
    """The callback lark calls when it reduces `rule`, with the values of the rule's symbols: the
    builder's method of the rule, given the rule's span and what lark's own tree would keep of it:
    no punctuation (filtered tokens), a None for each missing `[...]`, and the items of an inlined
    rule (`_sep`, a repetition) in its place. A rule written `?rule` with one symbol passes that
    symbol's value on.

    The depth of each rule is counted as it is reduced, and the parse stops at the next rule after
    one passes the `nesting` limit: a 1 MB line `1+1+...` is refused after its first few hundred
    terms, not parsed whole (tens of seconds) and then measured."""
    expansion = rule.expansion
    if rule.options.expand1 and not rule.alias:
        if len(expansion) != 1 or rule.options.empty_indices:
            raise AssertionError(f"a ?rule of more than one symbol: {rule}")
        return operator.itemgetter(0)
    name = rule.alias or rule.origin.name
    inlined_rule = name.startswith("_")
    method = None if inlined_rule else getattr(AstBuilder, name)
    # how many Nones stand before each symbol (and after the last) for the missing `[...]`s,
    # as lark's ChildFilter counts them
    empties = rule.options.empty_indices
    nones_at = [len(ones) for ones in "".join(str(int(e)) for e in empties).split("0")] if empties \
        else [0] * (len(expansion) + 1)
    plan, nones = [], 0
    for i, symbol in enumerate(expansion):
        nones += nones_at[i]
        if not (symbol.is_term and symbol.filter_out):
            plan.append((i, not symbol.is_term and symbol.name.startswith("_"), nones))
            nones = 0
    trailing = nones + nones_at[len(expansion)]

    def callback(values):
        parse = _current.parse
        if parse.too_deep is not None:
            raise _TooDeep(parse.too_deep)
        children, deepest = [], 0
        for i, inlined, nones in plan:
            if nones:
                children += [None] * nones
            value = values[i]
            if inlined:  # its items take its place (the first: its list is taken over, as lark does)
                if children:
                    children += value.value
                else:
                    children = value.value
                depth = value.depth - 1
            elif type(value) is _Built:
                children.append(value.value)
                depth = value.depth
            else:  # a token
                children.append(value)
                continue
            if depth > deepest:
                deepest = depth
        if trailing:
            children += [None] * trailing
        if values:
            first, last = values[0], values[-1]
            line, column, start, end = first.line, first.column, first.start_pos, last.end_pos
        else:  # an empty program
            line = column = start = end = None
        if inlined_rule:
            result = children
        elif parse.error is None:
            try:
                result = method(parse.builder, Span(line, column, start, end) if values else None, children)
            except MechError as error:  # given when the parse ends well (_Parse)
                parse.error, result = error, None
        else:
            result = None
        built = _Built(result, deepest + 1, line, column, start, end)
        if deepest >= parse.nesting:
            parse.too_deep = built  # raised at the next rule, or when the parse ends
        return built
    return callback


@functools.cache
def lark_parser() -> Lark:
    """The grammar's lark parser, building the AST as it parses (the REPL's highlighter lexes with
    it too). Its rules' callbacks are replaced by _rule_callback's: lark's own `transformer=`
    option would give no positions (no `meta`) to a rule's method."""
    grammar = resources.files("mechscript.grammar").joinpath("mechscript.lark").read_text()
    parser = Lark(grammar, parser="lalr", lexer="contextual", start=["program", "expression"],
                  maybe_placeholders=True, postlex=_Newlines(), cache=_parser_cache())
    callbacks = parser.parser.parser.parser.callbacks  # the dict lark's LALR parser calls, by rule
    for rule in parser.rules:
        callbacks[rule] = _rule_callback(rule)
    return parser


def _parser_cache() -> str | bool:
    """Where lark keeps the parser tables it builds from the grammar: building them takes a third of
    a second at every start of `mech`, loading them a sixtieth. lark checks the file against the
    grammar, its options and its own version, and builds and writes it again when they differ or
    the file cannot be read. The file is a pickle, so it lives in the user's own cache folder, not
    in the temporary folder all users share (lark's default). False (no cache) when that folder
    cannot be made."""
    folder = cache_folder()
    return False if folder is None else str(folder / "grammar.lark-cache")


def _span_at(source: str, pos: int, length: int = 1) -> Span:
    pos = max(0, min(pos, len(source)))
    line = source.count("\n", 0, pos) + 1
    col = pos - (source.rfind("\n", 0, pos) + 1) + 1
    return Span(line, col, pos, pos + length)


def _describe_expected(expected) -> str:
    words = sorted({_TERMINAL_WORDS.get(name, f"`{name.lower()}`" if name.isalpha() else f"`{name}`") for name in expected
                    if not name.startswith("__") and (name != "_NL" or len(expected) == 1)})
    if not words:
        return "something else"
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]


def _syntax_error(source: str, error: UnexpectedInput) -> MechError:
    if isinstance(error, UnexpectedCharacters):
        span = _span_at(source, error.pos_in_stream)
        char = source[error.pos_in_stream]
        hint = None
        if char == '"':
            return MechError("this string is not closed", span, hint='a string ends with `"` on the same line')
        if char in "!" and error.pos_in_stream > 0 and source[error.pos_in_stream - 1].isspace():
            hint = "a modifier follows its dice without a space: `3d6!`"
        return MechError(f"unexpected character `{char}`", span, hint)

    token = error.token if isinstance(error, UnexpectedToken) else None
    expected = set(getattr(error, "expected", ()) or ())
    at_end = token is None or token.type == "$END"
    if at_end:
        span = _span_at(source, len(source.rstrip()))
    else:
        span = Span(token.line, token.column, token.start_pos, token.end_pos)

    if expected - {"_NL"} <= _SIDES | {"DIE_F"} and "PERCENT" in expected:
        return MechError("a die needs a number of sides", span,
                         hint="write the sides right after `d`: `3d6`, `d%`, `dF` or `d[1,2,3]` "
                              "(`d` alone is a die, never a name)")
    if at_end:
        if "RBRACE" in expected:
            return MechError("a `{` is never closed", span, hint="close each block with `}`")
        return MechError("the input ends too early", span, hint=f"expected {_describe_expected(expected)}")
    if token.type == "_NL":
        start = token.start_pos
        while start > 0 and source[start - 1] == "\r":   # a CRLF line's \r, which the line shown leaves out
            start -= 1
        span = _span_at(source, start)
        if "LBRACE" in expected and "NUMBER" not in expected:
            return MechError("the line ends before its block", span,
                             hint="a block's `{` goes on the same line: `if x > 3 {`")
        return MechError("the line ends too early", span, hint=f"expected {_describe_expected(expected)}")
    text = str(token)
    if token.type == "NAME" and text.startswith(_MODIFIER_WORDS) and source[token.start_pos - 1:token.start_pos].isspace():
        return MechError(f"unexpected `{text}`", span,
                         hint=f"dice modifiers are written without a space: `…d6{text}`")
    if token.type == "NAME" and text[:1] == "D" and text[1:2].isdigit():
        return MechError(f"unexpected `{text}`", span, hint=f"dice take a small `d`: `{text.lower()}`")
    if token.type == "COMP_OP" and "ADD_OP" in expected:
        return MechError(f"unexpected `{text}`", span,
                         hint="comparisons do not chain: write `1 < x and x < 3`")
    if "ADD_OP" in expected and token.type in ("NUMBER", "NAME", "POOL", "DIE_D", "DIE_F", "LPAR"):
        return MechError(f"unexpected `{text}`", span, hint="two values need an operator between them, such as `+`")
    return MechError(f"unexpected `{text}`", span, hint=f"expected {_describe_expected(expected)}")


def _too_deep(built: _Built, limit: int) -> MechError:
    span = Span(built.line, built.column, built.start_pos, built.end_pos) if built.line is not None else None
    return limit_error("nesting", f"the expression is nested more than {limit} deep", limit, span)


@contextmanager
def quick_collector():
    """No garbage collection while a text is parsed and compiled: the millions of objects of a big
    script are all alive, and each collection walks them again (half the time of parsing 10^5
    `fn`s). ASTs hold no cycles to free; the collector is on again after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse_expression(source: str, filename: str = "<expr>", limits: Limits = Limits()) -> ast.Node:
    """Parse one expression. Raises MechError (located in `source`) for any bad input."""
    _check_size(source, filename, limits)
    return _parse(source, filename, limits, "expression")


def parse_program(source: str, filename: str, limits: Limits = Limits()) -> ast.Program:
    """Parse a script or module. Raises MechError (located in `source`) for any bad input. A long text
    parsed before is read back from the user's cache folder (parsed_cache.py)."""
    _check_size(source, filename, limits)
    make_room_for_nesting()  # running the program needs the room too, when its AST comes from the cache
    with quick_collector():  # reading or writing the cache's copy too
        return parsed(source, "program", limits, lambda: _parse(source, filename, limits, "program"), ast.Program)


def _check_size(source: str, filename: str, limits: Limits) -> None:
    try:
        check_source_size(source, limits)
    except MechError as error:
        raise error.located(source, filename) from None


def _parse(source: str, filename: str, limits: Limits, start: str):
    make_room_for_nesting()
    try:
        with quick_collector():
            return _build(source, limits, start)
    except MechError as error:
        raise error.located(source, filename) from None
    except RecursionError:
        raise too_deep().located(source, filename) from None


def _build(text: str, limits: Limits, start: str):
    outer = getattr(_current, "parse", None)
    _current.parse = parse = _Parse(AstBuilder(functools.partial(_parse_inner, limits=limits)), limits.nesting)
    try:
        try:
            built = parse_loop.parse(lark_parser(), text, start)
        except parse_loop.NotPlain:  # a syntax error: lark's own parse finds it and says what it expected
            _current.parse = parse = _Parse(parse.builder, limits.nesting)  # without the first try's marks
            built = lark_parser().parse(text, start=start)
    except UnexpectedInput as error:
        raise _syntax_error(text, error) from None
    except _TooDeep as error:
        raise _too_deep(error.built, limits.nesting) from None
    finally:
        _current.parse = outer
    if parse.too_deep is not None:  # the last rule reduced, the whole
        raise _too_deep(parse.too_deep, limits.nesting)
    if parse.error is not None:
        raise parse.error
    return built.value


def _parse_inner(text: str, at: Span, limits: Limits) -> ast.Node:
    """The expression of a string's `{...}`, parsed alone, then moved to where it stands."""
    try:
        node = _build(text, limits, "expression")
    except MechError as error:
        error.span = _moved(error.span, at) if error.span else at
        raise
    return _move(node, at)


def _moved(span: Span, at: Span) -> Span:
    # The text was parsed as line 1 from offset 0; it really starts at `at` (on one line).
    return Span(at.line, at.col + span.col - 1, at.start + span.start, at.start + span.end)


def _move(value, at: Span):
    """Every Span inside an inner expression's AST, moved to the string's position."""
    kind = type(value)
    if kind is Span:
        return _moved(value, at)
    if kind is list or kind is tuple:
        return kind(_move(item, at) for item in value)
    if kind is dict:
        return {key: _move(item, at) for key, item in value.items()}
    if dataclasses.is_dataclass(value):
        changes = {f.name: _move(getattr(value, f.name), at) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    return value
