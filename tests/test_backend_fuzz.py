"""The written code against the closures, on house rules hypothesis makes up: each run the written
code finishes gives the closures' outcome (a run it bails on, the closures play: always allowed),
it raises any other error only where the closures stop with theirs, and the closures raise
nothing but a MechError (nor does Python warn of the written code). Every
value the rule works out is read by its answer: an error in what narration alone reads does not
stop a quiet run (README, on batches), and the grammar makes none.

The rules are pbem's `damage_power(att, weapon)` written from a small grammar of the language:
whole numbers, halves, true and false, texts and none read from the attacker, its weapon and locals
(one of them none until a test makes it the attacker), a record and a list of its own, a record a
rule written in place gives (kept as its fields), a die,
tables (a row by a text, an entry by a number), a stat by its name (`att[k]`), tests of a kind,
arithmetic, comparisons, `and`/`or`/`not`, `match`, `contains`, `len`, `max`, `min`, `abs`,
`floor`, `ceil`, a rule remembered by the state it reads and one written in place of its calls;
assignments, pushes, `if`/`else`, `for` over a list written out or an option, `repeat`, `while`,
`say`. And transformers' `damage_pool(c, weapon, boosts)`, of roll-and-keep pools: made of whole
numbers and halves, added to pools and numbers (`add`, `sub`, `+`, `-`), rolled.

A longer campaign: `HYPOTHESIS_EXAMPLES=1000 python -m pytest -n 0 tests/test_backend_fuzz.py`.
When this was written: 1,400 pbem rules (the last 400 with tables, indexes and kind tests) and 200
transformers rules, three runs each, none told apart, once the one fault the transformers rules
found was mended (a pool in brackets first in a
sum, test_backend_quiet); a fault put in on purpose, `abs` of a whole number written as the
number, is found within the 30 examples of the suite."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mechscript.backend.quiet import QuietFight
from mechscript.backend.runtime import Bail
from mechscript.backend.writer import Unsupported
from mechscript.errors import MechError
from mechscript.sim.batch import run_seed
from mechscript.sim.prepared import fight_once
from test_backend_quiet import CHARACTERS, compiled, encounter

NUMBERS = ["att.speed", "att.skill", "att.rank", "att.firepower", "att.strength", "att.endurance", "att.courage",
           "att.hp", "att.rank_points", "att.defenses", "att.place", "a", "b", "len(att.done)", "len(att.name)",
           "h", "floor(h)", "ceil(h)", "r.n", "len(l)", "l[0]", "armour(x)", "armour(att)", "twice(att)", "twice(x)",
           "d6", 'match t { "Punch" => 1; "gun" => 2; else => 3 }', "x.hp", "bonus[t]", "chart.high[a]",
           'chart.low[len(t)]', "att[k]", 'att["skill"]']
TRUTHS = ["att.hit", "att.acted", "att.helping", "flag", 'att.status == "active"', 'weapon.uses == "gun"',
          "x == none", "x != none", "att.intelligence == none", 'contains(["active", "dead"], att.status)',
          "contains(names, att.name)", "contains(att.done, t)", "has(x, \"hp\")", "x.hit", "contains(l, a)", 'r.s == "x"',
          'att.kind == "Transformer"', 'x.kind == "Robo"']
TEXTS = ["att.name", "att.status", "att.plan", "t", '"Punch"', '"gun"']


def arithmetic(leaves, depth: int, *more):
    """Numbers of `leaves` to `depth`: sums, differences, products, quotients by 1 to 3, and what
    each of `more` makes of such a number."""
    if depth <= 0:
        return leaves
    inner = arithmetic(leaves, depth - 1, *more)
    found = leaves | st.builds(lambda a, op, b: f"({a} {op} {b})", inner, st.sampled_from(["+", "-", "*"]), inner) \
        | st.builds(lambda a, k: f"({a} / {k})", inner, st.integers(1, 3))
    for made in more:
        found |= made(inner)
    return found


def numbers(depth: int):
    return arithmetic(
        st.sampled_from(NUMBERS) | st.integers(-3, 12).map(str), depth,
        lambda inner: st.builds(lambda a, op, k: f"({a} {op} {k})", inner, st.sampled_from(["//", "%"]), st.integers(1, 4)),
        lambda inner: st.builds(lambda f, a, b: f"{f}({a}, {b})", st.sampled_from(["max", "min"]), inner, inner),
        lambda inner: st.builds(lambda a: f"abs({a})", inner),
        lambda inner: st.builds(lambda a, k: f"floor({a} / {k})", inner, st.integers(1, 3)))


def truths(depth: int):
    compared = st.builds(lambda a, op, b: f"{a} {op} {b}", numbers(1), st.sampled_from(["<", "<=", "==", "!=", ">"]),
                         numbers(1)) | st.builds(lambda a, b: f"{a} == {b}", st.sampled_from(TEXTS), st.sampled_from(TEXTS)) \
        | st.builds(lambda a, op, b: f"{a} {op} {b}", numbers(1), st.sampled_from(["==", "!="]),
                    st.sampled_from(["true", "false", "none"]))   # `is` in Python: a number folded there warned
    leaves = st.sampled_from(TRUTHS) | compared
    if depth <= 0:
        return leaves
    inner = truths(depth - 1)
    return leaves | st.builds(lambda a, op, b: f"({a} {op} {b})", inner, st.sampled_from(["and", "or"]), inner) \
        | st.builds(lambda a: f"not ({a})", inner)


def statements(depth: int):
    simple = st.builds(lambda name, op, e: f"{name} {op} {e}", st.sampled_from(["a", "b"]),
                       st.sampled_from(["=", "+=", "-="]), numbers(2)) \
        | st.builds(lambda e: f"h = {e} / 2", numbers(1)) | st.builds(lambda e: f"r.n = {e}", numbers(1)) \
        | st.builds(lambda e: f"push(l, {e})", numbers(1)) \
        | st.sampled_from(["x = att", "x = none", "t = att.name", "t = weapon.uses", "flag = not flag",
                           'say "{a} {t}"', "push(att.done, t)", 'r.s = t', "h += 1/2", "att.hit = not att.hit",
                           'k = "rank"', 'k = "hp"'])
    if depth <= 0:
        return simple
    block = st.lists(statements(depth - 1), min_size=1, max_size=3).map(lambda lines: "\n".join(lines))
    return simple \
        | st.builds(lambda c, s: f"if {c} {{\n{s}\n}}", truths(2), block) \
        | st.builds(lambda c, s, o: f"if {c} {{\n{s}\n}} else {{\n{o}\n}}", truths(1), block, block) \
        | st.builds(lambda items, s: f"for i in {items} {{\na += i\n{s}\n}}",
                    st.sampled_from(["[1, 2, 3]", "[]", "[4]", "numbers"]), block) \
        | st.builds(lambda n, s: f"repeat {n} {{\n{s}\n}}", st.integers(0, 3), block) \
        | st.builds(lambda s: f"while b < 3 {{\nb += 1\n{s}\n}}", block)


HELPERS = ('let names = ["Punch", "Ransack"]\nlet numbers = [2, 1]\nlet flag = false\n'
           # remembered by the state it reads (memo.py), called with none too
           "fn armour(c) {\n if c == none { return 0 }\n let n = 0\n for i in [1, 2] { n += c.hp }\n return n\n}\n"
           "fn twice(c) = c.hp * 2\n"   # written in place of its calls (calls.py)
           # written in place of its call, the record it gives kept as its fields (scalars.py)
           "fn split(n) {\n if n > 2 { return {lo: 1, hi: n} }\n return {lo: n, hi: d2} \n}\n"
           'table bonus {\n "Punch" => 2, "gun" => 1, else => 0\n}\n'
           "table chart {\n low: 6 => 1, else => 0\n high: 8 => 2, 4 => 1, else => 0\n}\n")


@st.composite
def rules(draw):
    body = "\n ".join(draw(st.lists(statements(2), min_size=1, max_size=6)))
    give = draw(numbers(2))
    return (HELPERS + "fn pbem.damage_power(att, weapon) {\n let a = att.firepower\n let b = 0\n let t = att.name\n"
            " let h = a / 2\n let r = {n: 1, s: t}\n let l = [1, 2]\n let k = \"firepower\"\n let w = split(a)\n"
            f" let x = none\n if att.hp > 3 {{ x = att }}\n {body}\n"
            f" return max({give} + a - b + len(t) + floor(h) + r.n + len(l) + len(r.s) + len(k) + w.lo - w.hi, 0) % 20\n}}")


def outcome(script, seed):
    """The closures' outcome of the run, or the MechError that stops it."""
    try:
        return fight_once(script, seed)
    except MechError as error:
        return error


@settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", 30)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rules())
def test_a_run_the_written_code_finishes_is_the_closures(text):
    try:
        script = compiled(f"use pbem\n{text}\n{CHARACTERS}{encounter()}")
    except MechError:
        return   # the checker refuses it (a type the grammar got wrong): nothing is fought
    fought(script, text)


def fought(script, text: str) -> None:
    """Three runs of `script`: each the written code finishes gives the closures' outcome; each it
    stops with anything but Bail (a field of none read as an attribute), the closures stop too."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        try:
            quiet = QuietFight(script)
        except Unsupported:
            return   # the closures fight it
    for index in range(3):
        seed = run_seed(1, index)
        closures = outcome(script, seed)   # an error of theirs but a MechError fails the test here
        try:
            written = quiet.fight(seed, raising=True)
        except Bail:
            continue   # the closures play the run: always allowed
        except Exception as error:
            assert isinstance(closures, MechError), (index, repr(error), text)
            continue
        assert written == closures, (index, text)


# transformers' roll-and-keep pools, through the damage pool of its duel
POOL_NUMBERS = ["a", "h", "floor(h)", "c.firepower", "c.mega", "boosts", "len(c.concentration)", "roll(q).total",
                "a // 2"]
POOLS = ["p", "q", "1k1", "2k0", "0k1", "pool(a, 1)", "pool(h, h)", "pool(1/2, 1)", "unarmed_pool(c)"]


def pool_numbers(depth: int):
    return arithmetic(st.sampled_from(POOL_NUMBERS) | st.integers(-2, 4).map(str), depth)


def pools(depth: int):
    leaves = st.sampled_from(POOLS) | st.builds(lambda a, b: f"pool({a}, {b})", pool_numbers(1), pool_numbers(1))
    if depth <= 0:
        return leaves
    inner = pools(depth - 1)
    return leaves | st.builds(lambda a, op, b: f"({a} {op} {b})", inner, st.sampled_from(["+", "-"]), inner) \
        | st.builds(lambda a, op, n: f"({a} {op} {n})", inner, st.sampled_from(["+", "-"]), pool_numbers(1)) \
        | st.builds(lambda f, a, b: f"{f}({a}, {b})", st.sampled_from(["add", "sub"]), inner, inner)


def pool_statements(depth: int):
    simple = st.builds(lambda name, e: f"{name} = {e}", st.sampled_from(["p", "q"]), pools(2)) \
        | st.builds(lambda op, e: f"a {op} {e}", st.sampled_from(["=", "+=", "-="]), pool_numbers(2)) \
        | st.builds(lambda e: f"h = {e} / 2", pool_numbers(1))
    if depth <= 0:
        return simple
    block = st.lists(pool_statements(depth - 1), min_size=1, max_size=3).map(lambda lines: "\n".join(lines))
    test = st.builds(lambda a, op, b: f"{a} {op} {b}", pool_numbers(1), st.sampled_from(["<", ">=", "=="]),
                     pool_numbers(1)) | st.sampled_from(["weapon == none", "c.mega > 0", "roll(p).total > 12"])
    return simple | st.builds(lambda t, s, o: f"if {t} {{\n{s}\n}} else {{\n{o}\n}}", test, block, block) \
        | st.builds(lambda n, s: f"repeat {n} {{\n{s}\n}}", st.integers(0, 2), block)


@st.composite
def pool_rules(draw):
    body = "\n ".join(draw(st.lists(pool_statements(1), min_size=1, max_size=5)))
    return ("fn unarmed_pool(c) = pool(transformers.dice(transformers.tech_spec(c, \"strength\")) + c.mega,"
            " transformers.unarmed_kept_of(c))\n"
            "fn transformers.damage_pool(c, weapon, boosts) {\n let a = boosts\n let h = c.firepower / 2\n"
            " let p = pool(h + c.mega, 1)\n let q = 1k1\n"
            f" {body}\n let z = a - a + floor(h) - floor(h)\n return p + q + z\n}}")


TRANSFORMERS = Path(__file__).resolve().parent.parent / "examples" / "transformers_duel.mech"


@settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", 15)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(pool_rules())
def test_a_run_with_pools_the_written_code_finishes_is_the_closures(rule):
    try:
        script = compiled(f"{TRANSFORMERS.read_text()}\n{rule}\n", TRANSFORMERS.parent)
    except MechError:
        return
    fought(script, rule)
