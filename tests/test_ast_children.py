"""ast.children and ast.walk: the nodes right below a node, gathered once a node within
children_remembered() (the back end's set-up walks the same trees tens of times)."""

from __future__ import annotations

import threading

from mechscript.interpreter import ast
from mechscript.interpreter.parser import parse_program
from mechscript.limits import Limits

SCRIPT = """
fn hit(a, b) {
  let total = a + b * 2
  if total > 3 { say "hit {total}" }
  return [total, {x: a}]
}
"""


def _program():
    return parse_program(SCRIPT, "t.mech", Limits())


def test_children_are_gathered_anew_outside_and_once_within():
    program = _program()
    fn = program.statements[0]
    assert ast.children(fn) == ast.children(fn)
    assert ast.children(fn) is not ast.children(fn)
    with ast.children_remembered():
        first = ast.children(fn)
        assert ast.children(fn) is first
        assert first == [fn.body]
        walked = list(ast.walk(program))
    assert ast.children(fn) is not first   # forgotten at the end
    assert {id(n) for n in walked} == {id(n) for n in ast.walk(program)}


def test_a_node_equal_to_another_gets_its_own_children():
    """The table is by node, not by equality: two equal trees are told apart."""
    one, two = _program(), _program()
    with ast.children_remembered():
        a, b = ast.children(one.statements[0].body), ast.children(two.statements[0].body)
        assert a == b and a is not b
        assert all(x is not y for x, y in zip(a, b))


def test_the_table_is_of_one_thread():
    program = _program()
    seen = []
    with ast.children_remembered():
        first = ast.children(program)
        thread = threading.Thread(target=lambda: seen.append(ast.children(program)))
        thread.start()
        thread.join()
    assert seen[0] == first and seen[0] is not first


def test_nested_use_keeps_the_outer_table():
    program = _program()
    with ast.children_remembered():
        first = ast.children(program)
        with ast.children_remembered():
            assert ast.children(program) is first
        assert ast.children(program) is first


def test_a_walk_is_gathered_once_within():
    """Within children_remembered(), walk gives each tree's nodes as one list, kept: the set-up
    walks each fn's body a dozen times. Outside, a generator, gathered anew."""
    program = _program()
    fn = program.statements[0]
    outside = ast.walk(fn)
    assert not isinstance(outside, list)
    with ast.children_remembered():
        first = ast.walk(fn)
        assert ast.walk(fn) is first
        assert [id(n) for n in first] == [id(n) for n in ast.walk(fn)]
        assert {id(n) for n in first} == {id(n) for n in outside}
        assert ast.walk(program) is not first
    assert ast.walk(fn) is not first


def test_the_walks_kept_hold_a_bounded_number_of_nodes():
    """Each loop of a deep nest is walked (work.py): keeping every such walk would hold the nodes
    times the depth. Those kept hold at most WALK_ROOM times the nodes; the rest are walked anew,
    the same nodes."""
    depth = 60
    body = "let x = [" + ", ".join(["1"] * 400) + "]"
    text = "fn f() {\n" + "while true {\n" * depth + body + "\n" + "}\n" * depth + "}\n"
    program = parse_program(text, "t.mech", Limits())
    with ast.children_remembered():
        every = list(ast.walk(program))
        for node in every:
            ast.walk(node)
        kept = [node for node in every if ast.walk(node) is ast.walk(node)]
        held = sum(len(ast.walk(node)) for node in kept)
        assert held <= ast.WALK_ROOM * len(every)
        kept_ids = {id(node) for node in kept}
        fresh = [node for node in every if id(node) not in kept_ids]
        assert fresh
        within = [[id(n) for n in ast.walk(node)] for node in fresh]
    assert within == [[id(n) for n in ast.walk(node)] for node in fresh]   # outside: a generator's walk


def test_a_nested_use_keeps_the_count_of_the_walks_kept():
    """The bound on the walks kept counts those a nested use keeps too (they stay in the table)."""
    program = _program()
    with ast.children_remembered():
        ast.walk(program)
        with ast.children_remembered():
            for statement in program.statements:
                ast.walk(statement)
        kept = [ast.walk(program), *(ast.walk(statement) for statement in program.statements)]
        assert all(walk is ast.walk(node) for walk, node in zip(kept, [program, *program.statements]))
        assert ast._remembered.walked == sum(map(len, kept))
