"""mechscript for Pygments: the REPL's colours (and any documentation tool's), with tokens from the
grammar's own lexer, so highlighting reads text exactly as the parser does (`d6` is a die, `dodge`
a name, `4d6kh3` one dice term). Also: whether an entry still has a bracket open.
"""

from __future__ import annotations

import functools
import re

from lark.exceptions import UnexpectedCharacters
from lark.lexer import LexerThread, PatternStr
from pygments.lexer import Lexer
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from ..interpreter.builtins import BUILTINS
from ..interpreter.operators import CONSTANTS
from ..interpreter.parser import lark_parser

DICE = Number.Dice  # dice terms and their modifiers: `4d6kh3`, `7k3`, `dF`

_TOKENS = {
    "NUMBER": Number, "POOL": DICE, "DIE_D": DICE, "DIE_F": DICE,
    "KEEP": DICE, "EXPLODE": DICE, "REROLL": DICE, "CLAMP": DICE, "COUNT": DICE, "FAIL": DICE,
    "STRING": String, "COMMENT": Comment.Single,
    "COMP_OP": Operator, "AUG_OP": Operator, "ADD_OP": Operator, "MUL_OP": Operator, "POW_OP": Operator,
    "PERCENT": Operator,
    "EQUAL": Operator,
}
_OPENING, _CLOSING = {"LPAR", "LSQB", "LBRACE"}, {"RPAR", "RSQB", "RBRACE"}
_COMMENTS = re.compile(r"#[^\n]*")


@functools.cache
def keywords() -> frozenset[str]:
    """The grammar's words: its terminals that are a plain word (`let`, `fn`, `character`...)."""
    return frozenset(t.pattern.value for t in lark_parser().terminals
                     if isinstance(t.pattern, PatternStr) and t.pattern.value.isalpha())


@functools.cache
def _lexer_keeping_all():
    """lark's lexer of the grammar, whitespace and comments kept. lark's `lex(text, dont_ignore=True)`
    builds it anew at each call (a few milliseconds): checking each line of a long entry for an open
    bracket took seconds (4,000 lines: 6 s). Built once here, and run as `lex` runs it."""
    parser = lark_parser()
    return parser._build_lexer(dont_ignore=True), parser.options.postlex


def _lex(text: str):
    lexer, postlex = _lexer_keeping_all()
    return postlex.process(LexerThread.from_text(lexer, text).lex(None))


def grammar_tokens(text: str):
    """(start, terminal name, text) for all of `text`, whitespace and comments included. A character
    the grammar cannot read is an `ERROR` token (an unclosed string: the rest of its line), and
    lexing goes on after it, so half-typed text is still coloured."""
    pos = 0
    while pos < len(text):
        try:
            for token in _lex(text[pos:]):
                yield pos + token.start_pos, token.type, str(token)
            return
        except UnexpectedCharacters as error:
            at = pos + error.pos_in_stream
            end = text.find("\n", at) if text[at] == '"' else at + 1
            end = len(text) if end < 0 else end
            yield at, "ERROR", text[at:end]
            pos = end


class MechscriptLexer(Lexer):
    name = "mechscript"
    aliases = ["mechscript", "mech"]
    filenames = ["*.mech"]

    def get_tokens_unprocessed(self, text):
        pos, previous = 0, None  # previous: (kind, end) of the token before
        tokens = list(grammar_tokens(text))
        for i, (start, kind, value) in enumerate(tokens):
            if start > pos:  # text the post-lexer dropped (a newline inside brackets)
                yield pos, Whitespace, text[pos:start]
            pos = start + len(value)
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if kind.startswith("__IGNORE") or kind == "_NL":
                yield from _spaces_and_comments(start, value)
            elif kind == "ERROR":
                yield start, String if value.startswith('"') else Error, value
            elif kind == "NAME":
                yield start, (Keyword.Constant if value in CONSTANTS else Name.Builtin if value in BUILTINS
                              else Name), value
            elif kind == "NUMBER" and (previous == ("DIE_D", start) or _touches_next(following, pos)):
                yield start, DICE, value  # the count and sides of `4d6`
            elif kind == "PERCENT" and previous == ("DIE_D", start):
                yield start, DICE, value  # `d%`
            elif kind in _TOKENS:
                yield start, _TOKENS[kind], value
            elif value.isalpha():
                yield start, Keyword, value
            else:
                yield start, Operator if value in ("=>", "..") else Punctuation, value
            previous = (kind, pos)
        if pos < len(text):
            yield pos, Text, text[pos:]


def _touches_next(following, end: int) -> bool:
    return following is not None and following[1] in ("DIE_D", "DIE_F") and following[0] == end


def _spaces_and_comments(start: int, value: str):
    pos = 0
    for match in _COMMENTS.finditer(value):
        if match.start() > pos:
            yield start + pos, Whitespace, value[pos:match.start()]
        yield start + match.start(), Comment.Single, match.group()
        pos = match.end()
    if pos < len(value):
        yield start + pos, Whitespace, value[pos:]


def needs_more(text: str) -> bool:
    """Whether an entry goes on to the next line: a bracket is still open, or the line ends in `\\`
    (a `:command` is one line, whatever it holds)."""
    if text.lstrip().startswith(":"):
        return False
    return open_brackets(text) > 0 or text.rstrip().endswith("\\")


def open_brackets(text: str) -> int:
    """How many brackets are open at the end of `text` (the next line is indented by as many).

    An entry is checked again at each new line, the whole of it each time: so the lines before the
    last are remembered with the brackets they open (_lines_before), and only what follows them is
    lexed when the entry has grown, as it does line by line. No token but a line break spans lines
    (a string and a comment end with their line), so lexing from a line's start gives the same
    brackets as lexing from the entry's."""
    global _lines_before
    cut = text.rfind("\n") + 1
    before, depth = _lines_before
    if len(before) > cut or not text.startswith(before):
        before, depth = "", 0   # another entry, or this one edited: from its start
    depth += _brackets(text[len(before):cut])
    _lines_before = (text[:cut], depth)
    return max(depth + _brackets(text[cut:]), 0)


_lines_before: tuple[str, int] = ("", 0)   # the complete lines of the last text open_brackets saw, and their count


def _brackets(text: str) -> int:
    """The brackets `text` opens, less those it closes."""
    depth = 0
    for _, kind, _ in grammar_tokens(text):
        depth += (kind in _OPENING) - (kind in _CLOSING)
    return depth
