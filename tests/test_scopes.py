"""Where names live at run time, and how `return` leaves: the cases that the interpreter's fast
paths (names resolved to a number of scope hops before running, a call's parameters and its body's
names in one scope, `return` handed back through blocks, quiet batch runs) must get right.

Each script reads a name from a scope at a different distance, or shadows one, so a miscounted hop
reads the wrong value or none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import mechscript
from mechscript import MechError
from mechscript.dice.faces import RandomFaces
from mechscript.limits import Limits
from mechscript.interpreter.script import compile_script


def said(source: str, seed: int = 0) -> list[str]:
    return mechscript.run(source, seed=seed).log


def test_names_at_every_distance():
    assert said("""
let top = "top"
fn outer(p) {
    let mid = "mid"
    if true {
        let inner = "inner"
        for i in [1] {
            if true { say "{top} {p} {mid} {inner} {i}" }
        }
    }
}
outer("param")
""") == ["top param mid inner 1"]


def test_a_block_without_names_adds_no_hop_and_a_block_with_names_does():
    assert said("""
let x = 1
if true {
    if true { say x }
    let y = 2
    if true { say x + y }
}
""") == ["1", "3"]


def test_a_let_in_a_function_body_hides_the_parameter_until_it_runs():
    error = pytest.raises(MechError, mechscript.run, "fn f(x) {\n    say x\n    let x = 2\n}\nf(1)\n", seed=0).value
    assert "`x` has no value yet" in error.message and error.span.line == 2


def test_a_let_in_a_function_body_hides_the_parameter_in_its_own_value_too():
    # as everywhere: a block's `let x` is the block's x from the block's first line on
    error = pytest.raises(MechError, mechscript.run, "fn f(x) {\n    let x = x * 10\n}\nf(4)\n", seed=0).value
    assert "`x` has no value yet" in error.message and (error.span.line, error.span.col) == (2, 13)


def test_a_let_in_a_function_body_holds_its_value_once_it_has_run():
    assert said("fn f(n) {\n    let y = n * 10\n    let z = y + 1\n    return [n, y, z]\n}\nsay f(4)\n") == ["[4, 40, 41]"]


def test_each_call_has_its_own_names():
    # recursion: each call's `n` and `rest` are its own, not the caller's
    assert said("""
fn count(n) {
    let rest = 0
    if n > 0 { rest = count(n - 1) }
    return n + rest
}
say count(4)
""") == ["10"]


def test_a_function_sees_the_scope_it_was_defined_in():
    assert said("""
fn maker(bonus) {
    fn add(x) = x + bonus
    return add
}
let plus3 = maker(3)
let plus5 = maker(5)
say plus3(1)
say plus5(1)
""") == ["4", "6"]


def test_assignment_writes_the_scope_that_holds_the_name():
    assert said("""
let total = 0
fn add(n) {
    total += n
}
for i in [1, 2, 3] {
    let total_here = i
    add(total_here)
}
say total
""") == ["6"]


def test_module_names_are_read_from_the_module_the_script_uses(tmp_path):
    (tmp_path / "rules.mech").write_text("let bonus = 2\nfn boost(x) = x + bonus\nfn twice(x) = boost(x) * 2\n")
    script = tmp_path / "fight.mech"
    script.write_text("use rules\nsay boost(1)\nrules.bonus = 10\nsay boost(1)\nsay twice(1)\n")
    assert mechscript.run(str(script), seed=0).log == ["3", "11", "22"]
    # a module's option set without its module's name is still the module's
    script.write_text("use rules\nbonus = 5\nsay boost(1)\nsay bonus\nfn more() { bonus += 1 }\nmore()\nsay twice(1)\n")
    assert mechscript.run(str(script), seed=0).log == ["6", "5", "14"]
    # a house rule replaces the module's rule for the module's own callers too
    script.write_text("use rules\nfn rules.boost(x) = x * 100\nsay boost(1)\nsay twice(1)\n")
    assert mechscript.run(str(script), seed=0).log == ["100", "200"]


@pytest.mark.parametrize("loop", ["while true", "repeat 3", "for i in [1, 2, 3]"])
def test_return_leaves_loops_and_blocks(loop):
    assert said(f"""
fn first() {{
    {loop} {{
        if true {{
            return "left"
        }}
        say "not reached"
    }}
    return "not reached either"
}}
say first()
""") == ["left"]


def test_return_from_a_match_arm_block_leaves_the_function():
    assert said("""
fn pick(x) {
    let word = match x {
        1 => { return "one, early" }
        else => "other"
    }
    return word
}
say pick(1)
say pick(2)
""") == ["one, early", "other"]


def test_a_function_without_return_gives_none():
    assert said("fn quiet() {\n    let x = 1\n}\nsay quiet()\n") == ["none"]


NARRATED = """
fn hit(c) {
    c.hp -= d6
    return "{c.name} is hit and has {c.hp} left"
}
kind Robot {
    stat speed 1..10
    state hp = 12
}
character A is Robot { speed 3 }
character B is Robot { speed 4 }
let rounds = 0
repeat 4 {
    say hit(A)
    say "and B takes {d6 + 0} then {3k2}: {hit(B)}"
    rounds += 1
}
say "{A.hp} {B.hp}"
"""


def test_a_quiet_run_rolls_the_same_dice_and_ends_in_the_same_state():
    # A batch's runs are quiet: `say` works out what it would show (dice, pools, calls) without
    # writing the text. Every die must still fall, in the same order.
    script = compile_script(NARRATED, "<narrated>", Path.cwd(), Limits())
    for seed in range(5):
        loud = script.run(RandomFaces(seed))
        quiet = script.run(RandomFaces(seed), quiet=True)
        assert loud.log[-1] == "{} {}".format(*(quiet.scope.vars[n].fields["hp"] for n in ("A", "B")))
        assert quiet.log == [""] * len(loud.log)
        assert [roll.total for roll in quiet.rolls] == [roll.total for roll in loud.rolls]
