"""The grammar is LALR(1) without conflicts: lark resolves a shift/reduce conflict silently (it
shifts, and says so only in its debug log), which would make some programs parse as nobody meant."""

import logging
from importlib import resources

from lark import Lark, logger

from mechscript.interpreter.parser import _Newlines


def test_the_grammar_has_no_lalr_conflicts(caplog):
    grammar = resources.files("mechscript.grammar").joinpath("mechscript.lark").read_text()
    logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            Lark(grammar, parser="lalr", lexer="contextual", start=["program", "expression"],
                 propagate_positions=True, maybe_placeholders=True, postlex=_Newlines(), debug=True)
    finally:
        logger.setLevel(logging.WARNING)
    conflicts = [r.getMessage() for r in caplog.records if "conflict" in r.getMessage().lower()]
    assert conflicts == []
