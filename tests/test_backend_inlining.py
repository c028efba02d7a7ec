"""Calls of small `fn`s of blocks written in place of the call (mechscript/backend/inlining.py): the
body's `return`s moved last on their paths (returns_last), and the fights the closures' fights."""

from __future__ import annotations

import pytest

from mechscript.backend.inlining import always_returns, returns_last
from mechscript.backend.quiet import QuietFight
from mechscript.interpreter import ast
from mechscript.interpreter.parser import parse_program
from test_backend_quiet import _function_written, _smallest_limits, assert_both_stop, assert_same_fights, \
    compiled, CHARACTERS, encounter, ruled


def body_of(text: str) -> list:
    fn, = [s for s in parse_program(text, "t.mech").statements if type(s) is ast.FnDef]
    return fn.body.statements


def shape(statements) -> list:
    """The statements as nested lists of their kinds: an `if` as ("if", [each block's shape])."""
    out = []
    for s in statements:
        if type(s) is ast.If:
            blocks = [block for _, block in s.branches] + ([s.otherwise] if s.otherwise is not None else [])
            out.append(("if", [shape(block.statements) for block in blocks]))
        else:
            out.append(type(s).__name__)
    return out


@pytest.mark.parametrize("text, written", [
    # a guard: what follows it goes into an `else`
    ("fn f(c) {\n if c.hp < 3 { return 0 }\n let b = c.hp\n return b\n}",
     [("if", [["Return"], ["Let", "Return"]])]),
    # an `if` with an `else` that both return: nothing after it runs, and it is left out
    ("fn f(c) {\n if c.hp < 3 { return 0 } else { return 1 }\n say \"never\"\n}",
     [("if", [["Return"], ["Return"]])]),
    # the one branch that goes on gets the rest; an `else` that returns keeps its own
    ("fn f(c) {\n if c.hp < 3 { c.hp = 3 } else { return 1 }\n return c.hp\n}",
     [("if", [["Assign", "Return"], ["Return"]])]),
    # no `return` but the last: as it was
    ("fn f(c) {\n let x = 1\n if x > 0 { x = 2 }\n return x\n}", ["Let", ("if", [["Assign"]]), "Return"]),
    # guards inside guards
    ("fn f(c) {\n if c.hp < 3 {\n  if c.hp < 1 { return 0 }\n  return 1\n }\n return 2\n}",
     [("if", [[("if", [["Return"], ["Return"]])], ["Return"]])]),
])
def test_returns_are_moved_last_on_their_paths(text, written):
    found = returns_last(body_of(text))
    assert shape(found) == written
    assert always_returns(found) is (shape(found)[-1] == "Return" or text.count("return") > 1)


@pytest.mark.parametrize("text", [
    "fn f(c) {\n for x in [1, 2] { if x > c.hp { return x } }\n return 0\n}",   # a return in a loop
    # the rest would be needed on two paths: after `x = 1` and after nothing (no `else`)
    "fn f(c) {\n let x = 0\n if c.hp < 3 { x = 1 } elif c.hp < 5 { return 2 }\n return x\n}",
    # a name the rest declares, declared in the branch it would join too
    "fn f(c) {\n if c.hp < 3 { let y = 1 } else { return 0 }\n let y = 2\n return y\n}",
], ids=["return-in-a-loop", "rest-twice", "name-twice"])
def test_a_body_whose_returns_cannot_be_moved_last_is_none(text):
    assert returns_last(body_of(text)) is None


BONUS = ("fn bonus(c) {\n if c.hp < 3 { return 0 }\n let b = c.firepower\n if b > 2 { b -= 1 }\n return b\n}\n"
         "fn pbem.damage_power(att, weapon) = bonus(att) + 1")


def test_a_rule_of_a_block_is_written_in_place_of_its_call():
    # `bonus` is a block with a guard: damage_power holds its body, not a call, and fights as the call
    script = ruled(BONUS)
    written = _function_written(QuietFight(script), "s__pbem_damage_power")
    assert "s_bonus(" not in written and "else:" in written
    assert_same_fights(script, 150)


@pytest.mark.parametrize("rules", [
    # a return inside a loop: the rule is called (it rolls a die: its answers are not remembered)
    "fn first(c) {\n for x in [1, 2, 3] { if x > c.hp { return x + d2 } }\n return 0\n}\n"
    "fn pbem.damage_power(att, weapon) = first(att) + att.firepower",
    # too large to be written in place (INLINE_NODES)
    "fn big(c) {\n let x = 0\n" + "".join(f" if c.hp > {i} {{ x += {i} }}\n" for i in range(20)) +
    " return x % 3\n}\nfn pbem.damage_power(att, weapon) = big(att) + att.firepower",
], ids=["return-in-a-loop", "large"])
def test_a_rule_that_is_not_written_in_place_is_called(rules):
    script = ruled(rules)
    name = "s_first(" if "first" in rules else "s_big("
    assert name in _function_written(QuietFight(script), "s__pbem_damage_power")
    assert_same_fights(script, 40)


def test_a_parameter_the_body_assigns_is_a_local_of_its_own():
    # `cut` lowers its parameter: the caller's `x`, given to it, keeps its value (it rolls a die,
    # so that its answers are not remembered: memo.py)
    rules = ("fn cut(n) {\n if n > d6 { n = 3 }\n return n\n}\n"
             "fn pbem.damage_power(att, weapon) {\n let x = att.firepower + 2\n let y = cut(x)\n return x - y + 1\n}")
    script = ruled(rules)
    assert "s_cut(" not in _function_written(QuietFight(script), "s__pbem_damage_power")
    assert_same_fights(script, 60)


def test_a_rule_written_in_place_counts_the_steps_of_its_call():
    # `spin` runs a `while` (it counts its own steps), `twice` calls it and is written in place of
    # its calls in a loop (it may roll a die: its answers are not remembered): the smallest `steps`
    # that fights the run whole is the closures'
    rules = ("fn spin(c) {\n let i = 0\n while i < 2 { i += 1 }\n return i\n}\n"
             "fn twice(c) {\n if c.hp < -100 { return d6 }\n return spin(c) + spin(c)\n}\n"
             "fn pbem.damage_power(att, weapon) {\n let s = 0\n for k in range(30) { s += twice(att) }\n"
             " return att.firepower + s - 120\n}")
    text = f"use pbem\n{rules}\n{CHARACTERS}{encounter()}"
    assert "s_twice(" not in _function_written(QuietFight(ruled(rules)), "s__pbem_damage_power")
    closures, written = _smallest_limits(text, "steps", 7)
    assert closures - 500 < written <= closures


def test_an_error_in_a_body_written_in_place_stops_the_run_as_the_call_does():
    rules = ('fn bad(c) {\n if c.hp > 100 { return 0 }\n return c.hp / (c.speed - c.speed)\n}\n'
             "fn pbem.damage_power(att, weapon) = bad(att) + 1")
    assert "s_bad(" not in _function_written(QuietFight(ruled(rules)), "s__pbem_damage_power")
    assert_both_stop(ruled(rules), "zero")


def test_the_examples_write_their_small_rules_in_place():
    # pbem's `beats(roll)`, a guard and a return, is written where rank_window calls it
    quiet = QuietFight(compiled((compiled.__globals__["ROOT"] / "examples" / "pbem_ambush.mech").read_text()))
    assert "m1_beats(" not in _function_written(quiet, "m1_rank_window")


def test_a_list_only_the_caller_held_is_no_longer_its_own_once_a_body_written_in_place_keeps_it():
    # `enc.characters` is a copy nobody else holds (Writer.fresh), which a loop may go through with
    # no copy of its own; `walk`, written in place, keeps it in `saved`, and `grow` pushes onto it in
    # the loop: the closures' loop goes through a copy, three rounds, and so must the written code's
    # (else `fail`)
    rules = ("let saved = []\n"
             "fn grow() {\n let last = saved[len(saved) - 1]\n if len(last) < 8 { push(last, last[0]) }\n return 1\n}\n"
             "fn walk(l) {\n push(saved, l)\n let n = 0\n for x in l { n += grow() }\n return n\n}\n"
             "fn pbem.enemies(c, enc) {\n let n = walk(enc.characters)\n if n > 3 { fail(\"grew\") }\n"
             " let foes = []\n for x in enc.characters { if x.side != c.side and pbem.standing(x) { push(foes, x) } }\n"
             " for f in foes { return foes }\n"   # a return in a loop: called, not written in place
             " return foes\n}")
    script = ruled(rules)
    assert "s_walk(" not in _function_written(QuietFight(script), "s__pbem_enemies")
    assert_same_fights(script, 20)


@pytest.mark.parametrize("rules", [
    # the rest would join a branch that declares `a`, and read the branch's `a`, not the module's
    "let a = 10\nfn f(c) {\n if c.hp > 0 { let a = 1 } else { return 0 }\n return a + d6\n}\n"
    "fn pbem.damage_power(att, weapon) = f(att) + att.firepower - 10",
    "fn f(c, a) {\n if c.hp > 0 { let a = 1 } else { return 0 }\n return a + d6\n}\n"
    "fn pbem.damage_power(att, weapon) = f(att, att.firepower)",
], ids=["module-name", "parameter"])
def test_the_rest_of_a_body_reads_its_names_as_the_call_does(rules):
    # (found by review: written in place, the rest read the branch's `let a = 1`)
    assert_same_fights(ruled(rules), 40)


@pytest.mark.parametrize("rules", [
    # `y` of the nested block has no value yet where its guard reads it
    "let y = 5\nfn f(c) {\n if c.hp > 0 {\n  if y > 0 { return 1 + d6 }\n  let y = 2\n  return y\n }\n return 0\n}\n"
    "fn pbem.damage_power(att, weapon) = f(att) + att.firepower",
    # the same, the `let` past a `return` nothing runs
    "let y = 5\nfn f(c) {\n if c.hp > 0 {\n  if c.hp > 2 { return y + d6 } else { return 1 }\n  let y = 2\n }\n"
    " return 0\n}\nfn pbem.damage_power(att, weapon) = f(att) + att.firepower",
    # a parameter declared again after a guard that reads it
    "fn f(c, x) {\n if x > 100 { return 0 }\n let x = 2\n return x + d6\n}\n"
    "fn pbem.damage_power(att, weapon) = f(att, att.firepower)",
], ids=["nested", "past-a-return", "parameter"])
def test_a_name_read_before_its_let_stops_a_body_written_in_place_as_it_stops_the_call(rules):
    # (found by review: written in place, the read found the module's name, or the parameter)
    assert_both_stop(ruled(rules), "value")
