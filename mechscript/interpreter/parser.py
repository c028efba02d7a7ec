"""Source text -> AST. Loads the grammar once and turns lark's errors into MechErrors."""

from __future__ import annotations

import dataclasses
import functools
import gc
import threading
from contextlib import contextmanager
from importlib import resources

from lark import Lark, Token, Tree
from lark.lark import PostLex
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

from . import ast
from .builder import build
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


# The `nesting` limit of the parse under way in this thread (None: not checked), for _DepthTree.
_parsing = threading.local()


class _TooDeep(Exception):
    def __init__(self, tree: Tree):
        self.tree = tree


class _DepthTree(Tree):
    """A parse tree that knows its depth as it is built, and stops the parse as soon as one passes
    the `nesting` limit: a 1 MB line `1+1+...` is refused after its first few hundred terms, not
    parsed whole (tens of seconds) and then measured. The first tree too deep is kept, and the
    error raised when the next one is built (or the parse ends): by then lark has placed it.

    lark builds a repetition (`stmt*`) by appending to one list, a new tree for each item; so the
    depth of a long list's items is remembered (_parsing.counted: how many, and their deepest),
    and only the items added since are looked at: linear, where looking at all would be quadratic."""

    __slots__ = ("depth",)

    def __init__(self, data, children, meta=None):
        super().__init__(data, children, meta)
        limit = getattr(_parsing, "nesting", None)
        if limit is None:  # not a parse of _tree's (none is): nothing to count
            self.depth = 1
            return
        if _parsing.too_deep is not None:
            raise _TooDeep(_parsing.too_deep)
        depth, start, length = 0, 0, len(children)
        if length > 4:
            counted = _parsing.counted.get(id(children))
            if counted is not None and counted[0] is children:
                _, start, depth = counted
        for i in range(start, length):
            child = children[i]
            if type(child) is _DepthTree and child.depth > depth:
                depth = child.depth
        if length > 4:
            _parsing.counted[id(children)] = (children, length, depth)
        self.depth = depth = depth + 1
        if depth > limit:
            _parsing.too_deep = self


@functools.cache
def lark_parser() -> Lark:
    """The grammar's lark parser (the REPL's highlighter lexes with it too)."""
    grammar = resources.files("mechscript.grammar").joinpath("mechscript.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="contextual", start=["program", "expression"],
                propagate_positions=True, maybe_placeholders=True, postlex=_Newlines(), cache=_parser_cache(),
                tree_class=_DepthTree)


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
        span = Span(token.line, token.column, token.start_pos, token.start_pos + 1)
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


def _too_deep(tree: Tree, limit: int) -> MechError:
    meta = tree.meta
    span = Span(meta.line, meta.column, meta.start_pos, meta.end_pos) if not meta.empty else None
    return limit_error("nesting", f"the expression is nested more than {limit} deep", limit, span)


@contextmanager
def quick_collector():
    """No garbage collection while a text is parsed and compiled: the millions of objects of a big
    script are all alive, and each collection walks them again (half the time of parsing 10^5
    `fn`s). Parse trees and ASTs hold no cycles to free; the collector is on again after."""
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


def _tree(text: str, start: str, limits: Limits):
    # a string's `{...}` is parsed inside the build of its program, after the program's parse
    outer = getattr(_parsing, "nesting", None)
    _parsing.nesting, _parsing.too_deep, _parsing.counted = limits.nesting, None, {}
    try:
        tree = lark_parser().parse(text, start=start)
        if _parsing.too_deep is not None:  # the last tree built, the whole
            raise _TooDeep(_parsing.too_deep)
        return tree
    except UnexpectedInput as error:
        raise _syntax_error(text, error) from None
    except _TooDeep as error:
        raise _too_deep(error.tree, limits.nesting) from None
    finally:
        _parsing.nesting, _parsing.too_deep, _parsing.counted = outer, None, {}


def _build(source: str, limits: Limits, start: str):
    tree = _tree(source, start, limits)
    try:
        return build(tree, functools.partial(_parse_inner, limits=limits))
    except VisitError as error:
        raise error.orig_exc from None


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
