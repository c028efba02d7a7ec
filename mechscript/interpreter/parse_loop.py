"""lark's LALR parse of a text that parses, in one loop: the same tables, lexers and rule callbacks as
lark's own, without its per-token layers (a generator per stage, a method call per token and per
reduction, a slice of the stack for each rule of one symbol). Half the time of parsing a big script
went there (issue 22: a 1 MB script parses in seconds).

The loop gives up at the first thing that is not plain sailing (a character no terminal matches, a
token the parser does not expect): parser.py then parses the text again the ordinary way, whose
error, with its expected terminals and position, is the one the user reads. An error costs a
second parse; a text that parses costs one, at about twice lark's speed.
"""

from __future__ import annotations

import functools
import operator

from lark import Lark, Token
from lark.exceptions import UnexpectedInput
from lark.parsers.lalr_analysis import Shift
from lark.parsers.lalr_parser_state import ParserState, ParseConf


class NotPlain(Exception):
    """The text does not parse: lark's own parse says why."""


@functools.cache
def _tables(parser: Lark):
    """What the loop reads, gathered once: each state's lexer, and its actions by terminal name (or a
    rule's name, for the goto after a reduction): a state to shift to (an int), or the rule to
    reduce by as (its size, its name, its callback), the callback None for a rule of one symbol
    passing its value on (parser.py's `?rule`). Names are plain strings: lark's are Tokens, whose
    comparison with a string is a Python method.

    These are lark's insides (as of lark 1.3): with another lark whose insides differ, None, and
    every text is parsed by lark's own parse."""
    try:
        return _gathered(parser)
    except (AttributeError, TypeError, ValueError, KeyError, AssertionError):
        return None


def _gathered(parser: Lark):
    frontend = parser.parser
    contextual = frontend.lexer.lexer  # inside the PostLexConnector of _Newlines
    lalr = frontend.parser.parser
    table = lalr.parse_table
    lexers = {}
    for state, lexer in contextual.lexers.items():
        pattern, = lexer.scanner._mres  # one regular expression per state (checked by its unpacking)
        # a terminal found by its group's name (a keyword by the NAME callback)
        assert pattern.groupindex and set(pattern.groupindex) <= {t.name for t in lexer.terminals}
        # a callback of an ignored terminal (lark runs it, then drops the token) is run by none here
        assert not set(lexer.callback) & set(lexer.ignore_types)
        lexers[state] = (pattern.match, lexer.callback, lexer.ignore_types, lexer.newline_types)
    reductions = {}
    for rule, callback in lalr.callbacks.items():
        size = len(rule.expansion)
        passed_on = type(callback) is operator.itemgetter and size == 1
        reductions[rule] = (size, str(rule.origin.name), None if passed_on else callback)
    actions = {state: {str(name): target if action is Shift else reductions[target]
                       for name, (action, target) in row.items()}
               for state, row in table.states.items()}
    # the top state after a run of reductions by rules of one symbol passing its value on (a number
    # read as a factor, a term, a sum, ... an expression: a dozen rules of the grammar's precedence),
    # by the state below it, the state it starts from and the terminal read; each run worked out once
    passed_on = {}
    return actions, lexers, table, lalr.callbacks, passed_on


def _passed_on(actions: dict, below: int, origin: str, kind: str) -> int:
    top = actions[below][origin]
    while True:
        action = actions[top].get(kind)
        if type(action) is not tuple or action[2] is not None:
            return top  # a shift, a reduction with a callback, or an error: the loop takes it
        top = actions[below][action[1]]


def parse(parser: Lark, text: str, start: str):
    """The value of the parse of `text` from rule `start`, as lark's `parser.parse(text, start=start)`
    gives it; NotPlain when the text does not parse (no callback past the error has run)."""
    tables = _tables(parser)
    if tables is None:
        raise NotPlain
    actions, lexers, table, callbacks, passed_on = tables
    state_stack = [table.start_states[start]]
    value_stack = []
    push_state, push_value = state_stack.append, value_stack.append
    new_token = str.__new__
    pos, end, line, line_start = 0, len(text), 1, 0
    depth, last = 0, None
    while pos < end:
        match, lexer_callbacks, ignored, newline_types = lexers[state_stack[-1]]
        found = match(text, pos)
        if found is None:
            raise NotPlain
        value, kind = found.group(0), found.lastgroup
        start_pos, start_line, column = pos, line, pos - line_start + 1
        if kind in newline_types:
            newlines = value.count("\n")
            if newlines:
                line += newlines
                line_start = pos + value.rindex("\n") + 1
        pos += len(value)
        if kind in ignored:
            continue
        token = new_token(Token, value)
        token.type, token.value, token.start_pos, token.line, token.column = kind, value, start_pos, start_line, column
        token.end_line, token.end_column, token.end_pos = line, pos - line_start + 1, pos
        if kind in lexer_callbacks:
            token = lexer_callbacks[kind](token)  # a keyword's terminal for a NAME
            kind = token.type
        # parser.py's _Newlines: a new line inside ( ) or [ ] is dropped
        if kind == "LPAR" or kind == "LSQB":
            depth += 1
        elif kind == "RPAR" or kind == "RSQB":
            depth = max(0, depth - 1)
        elif kind == "_NL" and depth:
            continue
        last = token
        while True:
            try:
                action = actions[state_stack[-1]][kind]
            except KeyError:
                raise NotPlain from None
            if type(action) is int:  # shift
                push_state(action)
                push_value(token)
                break
            size, origin, callback = action
            if callback is None:  # one symbol, its value passed on: only the top state changes
                below = state_stack[-2]
                top = passed_on.get((below, state_stack[-1], kind))
                if top is None:
                    top = passed_on[below, state_stack[-1], kind] = _passed_on(actions, below, origin, kind)
                state_stack[-1] = top
                continue
            if size:
                values = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                values = []
            push_value(callback(values))
            push_state(actions[state_stack[-1]][origin])
    # the end: lark's own step, which reduces what is left (few rules) or says what was expected
    ending = ParserState(ParseConf(table, callbacks, start), None, state_stack, value_stack)
    end_token = Token.new_borrow_pos("$END", "", last) if last else Token("$END", "", 0, 1, 1)
    try:
        return ending.feed_token(end_token, True)
    except UnexpectedInput:
        raise NotPlain from None
