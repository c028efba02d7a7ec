"""Records kept as their fields (mechscript/backend/scalars.py): a `let` of a record only its fields
are read of, written as a local a field, with no object made; and the fights the closures' fights."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mechscript.backend.quiet import QuietFight
from mechscript.backend.scalars import record_lets
from mechscript.interpreter import ast
from mechscript.interpreter.parser import parse_program
from test_backend_quiet import _function_written, assert_both_stop, assert_same_fights, ruled

ROOT = Path(__file__).resolve().parent.parent
# a record of a shape made: `t7 = k3()` (expressions.e_Record), or from a dict
MADE = re.compile(r"= k\d+\(\)$|= Record\(\)$", re.MULTILINE)


def lets_kept(text: str) -> dict[str, set]:
    """{name of each `let` record_lets keeps as its fields: the fields read of it} of the one `fn` of `text`."""
    fn, = [s for s in parse_program(text, "t.mech").statements if type(s) is ast.FnDef]
    lets = {id(n): n.name for n in ast.walk(fn) if type(n) is ast.Let}
    return {lets[key]: read for key, read in record_lets([(None, fn)], lambda f: list(ast.walk(f))).items()}


def written(rules: str) -> str:
    script = ruled(rules)
    text = _function_written(QuietFight(script), "s__pbem_damage_power")
    assert_same_fights(script, 60)
    return text


def test_a_record_only_its_fields_are_read_of_is_its_fields():
    # the rule rolls a die, so its answers are not remembered (memo.py), and it is written
    text = written("fn pbem.damage_power(att, weapon) {\n let r = {a: att.firepower, b: d6, c: 1}\n"
                   " return r.a + r.b\n}")
    assert MADE.search(text) is None
    assert re.search(r"v\d+_r_a = ", text) and re.search(r"v\d+_r_b = ", text)
    assert "_r_c" not in text   # a field nobody reads is not kept


def test_a_record_given_by_a_rule_written_in_place_is_its_fields():
    # `split` is written in place of its call (inlining.py); each of its returns sets the fields
    text = written("fn split(c) {\n if c.hp < 3 { return {hit: 0, why: \"down\"} }\n"
                   " return {hit: c.firepower + d6, why: \"up\"}\n}\n"
                   "fn pbem.damage_power(att, weapon) {\n let s = split(att)\n return s.hit + 1\n}")
    assert "s_split(" not in text and MADE.search(text) is None
    assert len(re.findall(r"v\d+_s_hit = ", text)) == 2


@pytest.mark.parametrize("rules", [
    # read whole: given to a function
    "fn keep(x) = x.a\nfn pbem.damage_power(att, weapon) {\n let r = {a: d6}\n return keep(r)\n}",
    # a field set
    "fn pbem.damage_power(att, weapon) {\n let r = {a: d6}\n r.a += 1\n return r.a\n}",
    # the name assigned again
    "fn pbem.damage_power(att, weapon) {\n let r = {a: d6}\n if r.a > 3 { r = {a: 1} }\n return r.a\n}",
    # a field the literal has not: the closures' error
    "fn pbem.damage_power(att, weapon) {\n let r = {a: d6}\n if att.hp < -50 { return r.b }\n return r.a\n}",
    # a rule whose return may give something other than a literal with the field
    "fn pick(c) {\n if c.hp < 3 { return {a: 1} }\n return {b: d6}\n}\n"
    "fn pbem.damage_power(att, weapon) {\n let r = pick(att)\n if att.hp < 3 { return r.a }\n return 1\n}",
], ids=["whole", "field-set", "reassigned", "missing-field", "other-return"])
def test_a_record_that_is_more_than_its_fields_read_is_made(rules):
    assert MADE.search(written(rules)) is not None


def test_which_lets_are_kept_as_fields():
    assert lets_kept("fn f(c) {\n let r = {a: 1, b: 2}\n let s = g(c)\n return r.a + s.x + s.y\n}") == \
        {"r": {"a"}, "s": {"x", "y"}}
    # twice bound, a parameter's name, a loop's name, a whole read, not a record or a call
    assert lets_kept("fn f(c) {\n let r = {a: 1}\n if c { let r = {a: 2} }\n return r.a\n}") == {}
    assert lets_kept("fn f(r) {\n let r = {a: 1}\n return r.a\n}") == {}
    assert lets_kept("fn f(c) {\n for r in c { }\n let r = {a: 1}\n return r.a\n}") == {}
    assert lets_kept("fn f(c) {\n let r = {a: 1}\n return [r.a, r]\n}") == {}
    assert lets_kept("fn f(c) {\n let r = c.plan\n return r.a\n}") == {}
    # a `fn` inside: none
    assert lets_kept("fn f(c) {\n fn g(x) = x\n let r = {a: 1}\n return r.a\n}") == {}


def test_an_error_in_a_field_of_a_record_kept_as_fields_stops_the_run_as_the_closures_do():
    # (the value of a field nobody reads is left out, and its error with it: narration.py)
    rules = "fn pbem.damage_power(att, weapon) {\n let r = {a: d6, b: att.firepower / (att.hp - att.hp)}\n" \
            " return r.a + r.b\n}"
    assert MADE.search(_function_written(QuietFight(ruled(rules)), "s__pbem_damage_power")) is None
    assert_both_stop(ruled(rules), "zero")


def test_the_written_text_is_the_same_in_every_process():
    # the fields' locals are named in the order of the fields' names, not of a set's (which
    # changes with PYTHONHASHSEED from process to process)
    rules = ("fn pbem.damage_power(att, weapon) {\n let r = {a: d6, b: d6, c: d6, d: d6, e: d6}\n"
             " return r.e + r.d + r.c + r.b + r.a\n}")
    program = ("import sys; sys.path.insert(0, 'tests')\n"
               "from test_backend_quiet import _function_written, ruled\n"
               "from mechscript.backend.quiet import QuietFight\n"
               f"print(_function_written(QuietFight(ruled({rules!r})), 's__pbem_damage_power'))\n")
    texts = {subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                            cwd=ROOT, env=dict(os.environ, PYTHONHASHSEED=seed)).stdout
             for seed in ("1", "2", "3")}
    assert len(texts) == 1 and "_r_a = " in texts.pop()
