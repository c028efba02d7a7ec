"""The written code's tests that a constant settles (backend/truths.py): worked out where nothing
before the constant does more than read, kept where something may call."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mechscript.backend.quiet import QuietFight
from mechscript.backend.truths import folded_tests
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
from mechscript.errors import MechError
from mechscript.sim.batch import run_seed
from mechscript.sim.prepared import fight_once
from test_backend_quiet import _rule_written, assert_same_fights, ruled

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("line, folded", [
    # a False in an `and` after reads alone settles it (fields only of names never none: a, b, c);
    # after a call it is kept, and what follows goes
    ("    if ((a.hp > 0) and (b.side != c.side)) and (False):", "    if False:"),
    ("    if (a.hp > 0 and f(a)) and False and g(a):", "    if (a.hp > 0 and f(a)) and False:"),
    ("    if a[0] and False:", "    if a[0] and False:"),   # an index may fail: kept
    ("    if a.hp + 1 > 2 and False:", "    if a.hp + 1 > 2 and False:"),   # arithmetic: kept
    # a field of a value that may be none fails (the run bails): kept, as a field of a field
    ("    if (t.hp > 0) and False:", "    if t.hp > 0 and False:"),
    ("    if a.traits.cool and False:", "    if a.traits.cool and False:"),
    # the parser counts a line's columns in bytes: a test after a letter of two is cut where it ends
    ("    if f(x) == 'éé' and False: t1 = 2", "    if f(x) == 'éé' and False: t1 = 2"),
    ("    if len(v.gear) > 0 and v.name == 'é':", "    if v.gear and v.name == 'é':"),
    # `or` is settled by True; `x and True` and `x or False` are the truth of x
    ("    elif a.hp > 0 or (b and True):", "    elif a.hp > 0 or b:"),
    ("    elif (a.hp > 0 and not b) or True:", "    elif True:"),
    ("    if (a.hp > 0 or False) and (True and b.ok):", "    if a.hp > 0 and b.ok:"),
    ("    while not (x and False):", "    while True:"),
    ("    if not True: break", "    if False: break"),
    ("    if not ((v and (a.energon >= 1)) and False): t5 = False", "    if True: t5 = False"),
    ("    if not ((v and (w.energon >= 1)) and False): t5 = False",
     "    if not ((v and w.energon >= 1) and False): t5 = False"),
    ("    if (True and False) or h(x): t2 = 1", "    if h(x): t2 = 1"),
    ("    if (a.ok or True) and h(x): t2 = 1", "    if h(x): t2 = 1"),
    # the length of a list or string (a name or a field) against 0: the list's own truth
    ("    if (len(v3_c.homing)) > 0:", "    if v3_c.homing:"),
    ("    if not ((len(v3_c.leadership)) > 0): t7 = False", "    if not v3_c.leadership: t7 = False"),
    ("    while 0 != len(v4_left) and (len(v3_c.x.y) == 0 or len(v5) <= 0):",
     "    while v4_left and (not v3_c.x.y or not v5):"),
    ("    elif 0 < len(a) and len(b) < 1:", "    elif a and (not b):"),
    # ... not of a call, an item, against another number, or with a chain of comparisons
    ("    if len(f(a)) > 0 and len(a[0]) > 0 and len(a) > 1 and len(a) >= 0 and 0 < len(a) < 3:",
     "    if len(f(a)) > 0 and len(a[0]) > 0 and len(a) > 1 and len(a) >= 0 and 0 < len(a) < 3:"),
    ("    if len(a) > 0: t2 = len(b) > 0", "    if a: t2 = len(b) > 0"),
    # nothing to fold, or not a test: the line as it is
    ("    if a.hp > 0 and b.ok:", "    if a.hp > 0 and b.ok:"),
    ("    t3 = a and False", "    t3 = a and False"),
    ("    if answer is not True and answer is not False: bail()",
     "    if answer is not True and answer is not False: bail()"),
    ("    if x == 'True and False':", "    if x == 'True and False':"),
])
def test_a_test_a_constant_settles_is_worked_out(line, folded):
    assert folded_tests([line], {"a", "b", "c", "v"}) == [folded]


@pytest.mark.parametrize("line, valued", [
    # elsewhere a length compared with 0 is the same true or false, not the list
    ("    t5 = (len(v3_c.transformation)) == 0", "    t5 = not v3_c.transformation"),
    ("    v7_ok = (((len(t2.kept)) > 0) and (m1_succeeds(t3, v4_tn)))",
     "    v7_ok = not not t2.kept and m1_succeeds(t3, v4_tn)"),
    ("    return f(0 != len(v1_xs), len(v2) < 1)", "    return f(not not v1_xs, not v2)"),
    # not of a call, nor a line that is no one statement, nor a length against another number
    ("    t5 = len(f(x)) > 0", "    t5 = len(f(x)) > 0"),
    ("    t5 = len(x) > 2", "    t5 = len(x) > 2"),
    ("    for v in t: t6 = len(x) > 0", "    for v in t: t6 = len(x) > 0"),
    ("    t8 = 'len(x) > 0'", "    t8 = 'len(x) > 0'"),
])
def test_a_length_compared_with_0_is_the_list_s_truth(line, valued):
    assert folded_tests([line]) == [valued]


def test_a_field_of_a_value_that_may_be_none_is_read_before_a_constant_that_settles_the_test():
    # `t.hp > 0 and flag` with flag false: t may be none, whose field the closures refuse; the
    # written code reads it (and bails) rather than skip it (found by review)
    rule = ("let flag = false\nfn maybe(c) {\n if c.hp > 1000 { return c }\n return none\n}\n"
            "fn pbem.wants_to_retreat(c) {\n let t = maybe(c)\n if t.hp > 0 and flag { return true }\n return false\n}")
    script = ruled(rule)
    assert re.search(r"v\d+_t\.hp > 0\)* and", _rule_written(rule, "wants_to_retreat"))
    seed = run_seed(1, 0)
    with pytest.raises(MechError, match="none has no fields"):
        fight_once(script, seed)
    assert QuietFight(script).fight(seed) is None


def test_the_examples_tests_settled_by_a_constant_or_of_a_length_are_worked_out():
    # transformers' interruptions (its option off) tested four reads of each character and then
    # False: now the test is False, and Python's compiler leaves its body out
    path = ROOT / "examples" / "transformers_duel.mech"
    script = compile_script(path.read_text(), str(path), path.parent, Limits())
    source = QuietFight(script).source
    assert re.search(r"^ *if \(?False\)?:$", source, re.MULTILINE)
    assert not re.search(r"\.interrupted\)*\s*and .*\bFalse\)*:$", source, re.MULTILINE)
    # and its tests of a list's length against 0 are tests of the list
    assert "if v" in source
    assert not re.search(r"^ *(if|elif) \(*len\(v\d+_\w+(\.\w+)*\)\)* [>=]=? 0", source, re.MULTILINE)
    assert_same_fights(script, 30)
