"""The language around the dice (shared/design/mechscript.md, "The language around the dice"):
every statement form and value kind, scoping, recursion, modules and house rules, rolls as values.

Every expected `log` is worked out by hand from the script and the given faces. Faces are used in
the order dice fall: all dice of a roll left to right, then explosions and rerolls in rounds; terms
left to right. Fixture modules and scripts live in tests/scripts/.

Known bugs are kept as strict xfails (reason "BUG: ..."), each with its smallest reproduction.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechscript
from mechscript import Limits, MechError

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def run(source, faces=None, seed=0, limits=Limits()):
    """The lines a script said. A seed by default, so a script that rolls without faces is repeatable."""
    if faces is not None:
        return mechscript.run(source, faces=faces, limits=limits).log
    return mechscript.run(source, seed=seed, limits=limits).log


def run_error(source, faces=None, limits=Limits()) -> MechError:
    """The error a script stops with while running. The checker passes it; `mech check`, which runs
    the script up to its first die, passes it too or stops with the same error."""
    with pytest.raises(MechError) as info:
        mechscript.run(source, faces=faces, seed=None if faces is not None else 0, limits=limits)
    try:
        mechscript.check(source, limits=limits)
    except MechError as checked:
        # how deep Python's stack lets functions call each other depends on how deep the caller
        # already is: `check` and `run` reach the script through different frames
        def deep(message):
            return re.sub(r"each other \d+ deep, more than Python's stack", "each other N deep, more than Python's stack",
                          message)
        assert (deep(checked.message), checked.span) == (deep(info.value.message), info.value.span)
    return info.value


def check_error(source) -> MechError:
    """The error the checker finds before anything runs; `run` must stop with the same error."""
    with pytest.raises(MechError) as info:
        mechscript.check(source)
    # Before running: nothing is said and no die is rolled (faces=[] would fail on the first die).
    with pytest.raises(MechError) as ran:
        mechscript.run(source, faces=[])
    assert ran.value.message == info.value.message
    assert not getattr(ran.value, "log", None)
    return info.value


# ======================================================================================
# Statements
# ======================================================================================

class TestLetAndAssignment:
    def test_let_binds_and_say_shows(self):
        assert run("let x = 3\nsay x") == ["3"]

    def test_assign_changes_a_variable(self):
        assert run("let x = 1\nsay x\nx = x + 5\nsay x") == ["1", "6"]

    def test_plus_equals_and_minus_equals(self):
        assert run("let hp = 10\nhp += 5\nsay hp\nhp -= 12\nsay hp") == ["15", "3"]

    def test_augmented_assignment_on_strings_and_lists(self):
        assert run('let s = "Pu"\ns += "nch"\nsay s\nlet l = [1]\nl += [2, 3]\nsay l') == ["Punch", "[1, 2, 3]"]

    def test_field_augmented_assignment(self):
        src = "let def = {defended: 0, hp: 10}\ndef.defended += 1\ndef.defended += 1\ndef.hp -= 4\nsay def"
        assert run(src) == ["{defended: 2, hp: 6}"]

    def test_field_assignment(self):
        assert run('let p = {name: "Punch", hp: 10}\np.hp = 3\nsay p.hp') == ["3"]

    def test_list_element_assignment_and_negative_index(self):
        assert run("let l = [1, 2, 3]\nl[0] = 3\nl[-1] = 9\nl[1] += 10\nsay l") == ["[3, 12, 9]"]

    def test_semicolons_separate_statements(self):
        assert run("let a = 1; let b = 2;; say a + b; say a") == ["3", "1"]

    def test_comments_and_blank_lines(self):
        src = "\n# a comment line\n\nlet a = 1   # after a statement\n\nsay \"#1 fan\"  # not in the string\n"
        assert run(src) == ["#1 fan"]

    def test_comment_lines_inside_a_record_a_table_and_a_list(self):
        src = ('let r = {a: 1,\n    # why b\n\n    b: 2}\n'
               'table t {\n    1 => "one",\n    # the next\n    2 => "two"\n}\n'
               'let l = [1,\n  # two\n  2]\nsay r\nsay t[2]\nsay l\n')
        assert run(src) == ["{a: 1, b: 2}", "two", "[1, 2]"]

    def test_assigning_an_undeclared_name_is_a_check_error(self):
        error = check_error("x = 1")
        assert "unknown name `x`" in error.message

    def test_assigning_a_function_is_a_check_error(self):
        assert "function and cannot be assigned" in check_error("fn f() = 1\nf = 2").message

    def test_only_names_fields_and_elements_are_assigned(self):
        with pytest.raises(MechError, match="only a name, a field or an element"):
            mechscript.check("1 = 2")


class TestFunctions:
    def test_one_line_function(self):
        assert run("fn dice(spec) = spec / 2\nsay dice(7)\nsay dice(8)") == ["7/2", "4"]

    def test_block_function_with_return(self):
        src = "fn bigger(a, b) {\n    if a > b { return a }\n    return b\n}\nsay bigger(3, 8)\nsay bigger(9, 2)"
        assert run(src) == ["8", "9"]

    def test_block_function_without_return_gives_none(self):
        assert run("fn nothing() { let x = 1 }\nsay nothing()") == ["none"]

    def test_bare_return_gives_none(self):
        assert run('fn f(x) {\n    if x > 0 { return }\n    say "not reached for 1"\n}\nsay f(1)') == ["none"]

    def test_return_leaves_nested_loops(self):
        src = 'fn f() {\n    repeat 3 {\n        for x in [1, 2, 3] {\n            while true { return x * 10 }\n        }\n    }\n}\nsay f()'
        assert run(src) == ["10"]

    def test_functions_are_values(self):
        src = "fn double(x) = x * 2\nfn apply(f, x) = f(x)\nlet g = double\nsay apply(g, 21)\nsay g"
        assert run(src) == ["42", "<fn double>"]

    def test_calling_a_non_function(self):
        assert "only functions can be called" in run_error("let x = 5\nx(1)").message

    def test_arguments_are_evaluated_left_to_right(self):
        assert run("fn pair(a, b) = [a, b]\nsay pair(d6, d8)", faces=[2, 7]) == ["[2, 7]"]

    def test_the_design_attack_example(self):
        # From the design brief: a block function changing its argument record (the caller sees it).
        src = """
fn damage(att, def) { say "{att.name} hits {def.name}" }
fn attack(att, def) {
    let hit_roll = d10 + att.skill
    let dodge = d10 + def.speed - def.defended
    def.defended += 1
    if hit_roll > dodge { damage(att, def) } else { say "{att.name} misses {def.name}" }
}
let punch = {name: "Punch", skill: 7}
let ransack = {name: "Ransack", speed: 4, defended: 0}
attack(punch, ransack)
attack(punch, ransack)
say ransack.defended
"""
        # 1st: 2+7=9 vs 8+4-0=12: miss. 2nd: 5+7=12 vs 8+4-1=11: hit.
        assert run(src, faces=[2, 8, 5, 8]) == ["Punch misses Ransack", "Punch hits Ransack", "2"]


class TestIf:
    def test_if_elif_else(self):
        src = 'for x in [1, 5, 9] {\n    if x < 3 { say "small" } elif x < 7 { say "medium" } else { say "large" }\n}'
        assert run(src) == ["small", "medium", "large"]

    def test_else_and_elif_on_the_next_line(self):
        src = 'for x in [1, 5, 9] {\n    if x < 3 {\n        say "small"\n    }\n    elif x < 7 {\n        say "medium"\n    }\n    else {\n        say "large"\n    }\n}'
        assert run(src) == ["small", "medium", "large"]

    def test_else_after_a_blank_line(self):
        assert run('if false { say 1 }\n\nelse { say 2 }') == ["2"]

    def test_no_branch_taken(self):
        assert run("if false { say 1 } elif false { say 2 }\nsay 3") == ["3"]

    def test_conditions_must_be_true_or_false(self):
        error = run_error('if 1 { say "x" }')
        assert "expected true or false" in error.message
        assert (error.span.line, error.span.col) == (1, 4)

    def test_a_roll_is_not_a_condition(self):
        assert "expected true or false" in run_error("if d6 { }", faces=[3]).message

    def test_else_after_a_comment_line(self):
        assert run('if false { say 1 }\n# otherwise\nelse { say 2 }') == ["2"]


class TestLoops:
    def test_for_over_a_list(self):
        assert run('for name in ["Punch", "Ransack"] { say "hello {name}" }') == ["hello Punch", "hello Ransack"]

    def test_for_over_range(self):
        assert run("let total = 0\nfor i in range(4) { total += i }\nsay total\nsay range(2, 4)") == ["10", "[2, 3, 4]"]

    def test_for_goes_through_a_copy_of_the_list(self):
        assert run("let l = [1, 2]\nfor x in l { push(l, x * 10) }\nsay l") == ["[1, 2, 10, 20]"]

    def test_for_needs_a_list(self):
        assert "`for` goes through a list" in run_error("for i in 3 { }").message

    def test_while(self):
        assert run("let i = 0\nwhile i < 3 { i += 1; say i }\nsay \"done\"") == ["1", "2", "3", "done"]

    def test_while_condition_must_be_true_or_false(self):
        assert "expected true or false" in run_error("while 1 { }").message

    def test_repeat(self):
        assert run('repeat 3 { say "hi" }') == ["hi", "hi", "hi"]

    def test_repeat_zero(self):
        assert run('repeat 0 { say "hi" }\nsay "done"') == ["done"]

    def test_repeat_a_roll_uses_its_total(self):
        assert run('repeat d4 { say "x" }', faces=[2]) == ["x", "x"]

    def test_repeat_needs_a_whole_number(self):
        assert "must be a whole number, not 5/2" in run_error("repeat 5/2 { }").message

    def test_loop_iterations_limit(self):
        error = run_error("let i = 0\nwhile true { i += 1 }", limits=Limits(loop_iterations=50))
        assert "loop_iterations" in error.message
        assert error.span.line == 2

    def test_repeat_count_over_the_limit_fails_before_looping(self):
        error = run_error('repeat 11 { say "x" }', limits=Limits(loop_iterations=10))
        assert "loop_iterations" in error.message
        assert error.log == []


class TestMatch:
    def test_match_from_the_brief(self):
        src = 'for n in [1, 2, 3] { say match n { 1, 2 => "low"  else => "high" } }'
        assert run(src) == ["low", "low", "high"]

    def test_match_arms_on_their_own_lines(self):
        src = 'fn label(n) = match n {\n    1, 2 => "low"\n    3 => "mid"\n    else => "high"\n}\nsay label(3)\nsay label(2)\nsay label(7)'
        assert run(src) == ["mid", "low", "high"]

    def test_match_on_strings(self):
        assert run('say match "fire" {\n    "ice" => 1\n    "fire" => 2\n}') == ["2"]

    def test_match_arms_may_be_blocks(self):
        src = 'for x in [1, 2] {\n    match x {\n        1 => { say "one" }\n        else => { let y = x * 5; say "other {y}" }\n    }\n}'
        assert run(src) == ["one", "other 10"]

    def test_match_block_arm_gives_none(self):
        assert run("let v = match 1 { 1 => { let z = 2 } }\nsay v") == ["none"]

    def test_match_on_a_roll_uses_its_total(self):
        assert run('say match d6 { 6 => "crit"  else => "plain" }', faces=[6]) == ["crit"]

    def test_match_first_fitting_arm_wins(self):
        assert run('say match 2 { 2 => "first"\n 2 => "second" }') == ["first"]

    def test_no_arm_fits(self):
        error = run_error('say match 9 { 1 => "a" }')
        assert "no arm of this `match` fits 9" in error.message
        assert error.hint and "else" in error.hint

    def test_return_from_a_match_block_arm(self):
        src = 'fn f(x) { match x { 1 => { return "one" } else => { return "other" } } }\nsay f(1)\nsay f(2)'
        assert run(src) == ["one", "other"]


class TestSay:
    def test_interpolation(self):
        assert run('let x = 3\nsay "x is {x}, twice {x * 2}!"') == ["x is 3, twice 6!"]

    def test_escaped_braces(self):
        assert run(r'say "\{not interpolated\} {1 + 1}"') == ["{not interpolated} 2"]

    def test_escapes(self):
        assert run(r'say "a\tb \"q\" \\"') == ['a\tb "q" \\']

    def test_say_shows_every_kind_of_value(self):
        src = 'say 7/2\nsay true\nsay none\nsay [1, "a", [false, none]]\nsay {name: "Punch", hp: 10}\nsay "plain"'
        assert run(src) == ["7/2", "true", "none", '[1, "a", [false, none]]', '{name: "Punch", hp: 10}', "plain"]

    def test_interpolating_fields_and_indexes(self):
        assert run('let p = {name: "Punch", w: ["gun", "axe"]}\nsay "{p.name} draws the {p.w[-1]}"') == [
            "Punch draws the axe"]

    def test_unclosed_interpolation_is_a_syntax_error(self):
        with pytest.raises(MechError, match="never closed"):
            mechscript.check('say "{x"')

    def test_error_inside_interpolation_points_into_the_string(self):
        error = check_error('let x = 1\nsay "value {nosuch}"')
        assert "unknown name `nosuch`" in error.message
        assert (error.span.line, error.span.col) == (2, 13)

    def test_output_lines_limit(self):
        error = run_error('repeat 5 { say "x" }', limits=Limits(output_lines=3))
        assert "output_lines" in error.message
        assert error.log == ["x", "x", "x"]


class TestTables:
    CHART = """
table task_chart {
    routine:   14 => "overkill", 8 => "success", 7 => "mixed", 2 => "failure", else => "mishap"
    difficult: 15 => "overkill", 10 => "success", 9 => "mixed", 3 => "failure", else => "mishap"
}
"""

    @pytest.mark.parametrize("value, band", [
        (20, "overkill"), (14, "overkill"), (13, "success"), (8, "success"), (7, "mixed"),
        (3, "failure"), (2, "failure"), (1, "mishap"), (-5, "mishap"),
    ])
    def test_threshold_look_up(self, value, band):
        assert run(self.CHART + f"say task_chart.routine[{value}]") == [band]

    def test_look_up_with_a_roll_from_the_brief(self):
        # 2d8 + 1 with faces 4, 5: 10, which reaches `difficult`'s 10 => "success"
        assert run(self.CHART + "let band = task_chart.difficult[2d8 + 1]\nsay band", faces=[4, 5]) == ["success"]

    def test_a_table_row_keyed_by_a_bound_roll(self):
        assert run(self.CHART + "let r = 2d8\nsay task_chart.routine[r]\nsay r", faces=[1, 6]) == ["mixed", "7"]

    def test_one_unnamed_row_is_indexed_directly(self):
        src = 'table hit { 6 => "crit", 4 => "hit", else => "miss" }\nsay hit[6]\nsay hit[5]\nsay hit[1]'
        assert run(src) == ["crit", "hit", "miss"]

    def test_string_keys(self):
        src = 'table weakness { "fire" => 2, "ice" => 3, else => 1 }\nsay weakness["ice"]\nsay weakness["mud"]'
        assert run(src) == ["3", "1"]

    def test_an_equal_key_wins_over_an_earlier_threshold(self):
        # values.py: the entry whose key equals the value; failing that, the first threshold reached.
        src = 'table t { 20 => "crit", 10 => "hit", 1 => "graze", else => "miss" }\nsay t[10]\nsay t[5]\nsay t[0]'
        assert run(src) == ["hit", "graze", "miss"]

    def test_a_row_whose_keys_go_up_needs_an_equal_key(self):
        src = 'table t { 1 => "fumble", 20 => "crit", else => "miss" }\nsay t[20]\nsay t[5]\nsay t[1]'
        assert run(src) == ["crit", "miss", "fumble"]

    def test_no_entry_and_no_else(self):
        error = run_error('table t { "fire" => 2 }\nsay t["mud"]')
        assert "no entry for mud" in error.message

    def test_unknown_row(self):
        assert "has no row `easy`" in run_error(self.CHART + "say task_chart.easy[3]").message

    def test_table_keys_and_values_are_expressions_evaluated_when_defined(self):
        src = 'let base = 10\ntable t { base + 5 => "high", base => "mid", else => "low" }\nbase = 100\nsay t[12]'
        assert run(src) == ["mid"]

    def test_table_rows_may_continue_after_a_comma(self):
        assert run('table t { 6 => "a",\n    else => "b" }\nsay t[2]') == ["b"]

    def test_table_errors_before_running(self):
        assert "appears twice" in check_error('table t { a: 1 => 2\n a: 2 => 3 }').message
        assert "mixes named rows" in check_error('table t { a: 1 => 2\n 2 => 3 }').message
        assert "`else` must be the last" in check_error('table t { else => 1, 2 => 3 }').message


# ======================================================================================
# Values
# ======================================================================================

class TestNumbers:
    def test_exact_fractions(self):
        src = "say 2.5 * 5\nsay 7/2\nsay 2.5 * 4\nsay 1/3 + 1/6\nsay -7/2\nsay 10 / 4 * 2\nsay 0.5 + 0.5"
        assert run(src) == ["25/2", "7/2", "10", "1/2", "-7/2", "5", "1"]

    def test_floor_division_and_remainder(self):
        assert run("say 7 // 2\nsay -7 // 2\nsay 7 % 3\nsay 15/2 // 2") == ["3", "-4", "1", "3"]

    def test_floor_of_a_fraction_from_the_brief(self):
        assert run("let target = {intelligence: 5}\nsay floor(2.5 * target.intelligence)") == ["12"]

    def test_division_by_zero(self):
        for op in ("/", "//", "%"):
            assert "division by zero" in run_error(f"say 5 {op} 0").message

    def test_precedence(self):
        assert run("say 1 + 2 * 3\nsay (1 + 2) * 3\nsay -2 * -3\nsay 2 - 3 - 4") == ["7", "9", "6", "-5"]

    def test_comparisons(self):
        src = "say 3 > 2\nsay 3 >= 3\nsay 2 < 1\nsay 2 <= 2\nsay 1 == 1.0\nsay 3/6 == 1/2\nsay 1 != 2"
        assert run(src) == ["true", "true", "false", "true", "true", "true", "true"]

    def test_comparing_a_number_and_a_string(self):
        assert "expected a number here, not a string" in run_error('say 1 < "b"').message

    def test_adding_a_string_and_a_number(self):
        assert run_error('say "x" + 1').message == "cannot add a string and a number"


class TestBooleansAndNone:
    def test_and_or_not(self):
        src = "say true and false\nsay true or false\nsay not false\nsay not (1 > 2) and 2 > 1"
        assert run(src) == ["false", "true", "true", "true"]

    def test_and_or_short_circuit(self):
        # the right side is not even looked at once the left decides
        assert run("say false and 1\nsay true or 1") == ["false", "true"]

    def test_no_truthiness(self):
        assert "expected true or false" in run_error("say true and 1").message
        assert "expected true or false" in run_error("say not 1").message
        assert "expected true or false" in run_error('say "" or false').message

    def test_equality_by_kind(self):
        src = 'say true == 1\nsay none == none\nsay none == 0\nsay "a" == "a"\nsay "1" == 1'
        assert run(src) == ["false", "true", "false", "true", "false"]


class TestStringsListsRecords:
    def test_strings(self):
        assert run('say "a" + "b"\nsay len("abc")\nsay "a" < "b"') == ["ab", "3", "true"]

    def test_list_indexing(self):
        assert run("let l = [10, 20, 30]\nsay l[0]\nsay l[-1]\nsay l[-3]\nsay len(l)") == ["10", "30", "10", "3"]

    @pytest.mark.parametrize("index", ["3", "-4"])
    def test_list_index_out_of_range(self, index):
        assert "outside the list (3 items, counted from 0)" in run_error(f"let l = [1, 2, 3]\nsay l[{index}]").message

    def test_list_index_must_be_whole(self):
        assert "indexed by a whole number" in run_error("say [1, 2][1/2]").message

    def test_list_index_by_a_roll(self):
        assert run("say [10, 20, 30][d3 - 1]", faces=[2]) == ["20"]

    def test_list_equality_and_concatenation(self):
        assert run("say [1, 2] == [1, 2]\nsay [1] + [2]\nsay [1, [2]] == [1, [3]]") == ["true", "[1, 2]", "false"]

    def test_record_fields(self):
        assert run('let p = {name: "Punch", hp: 10}\nsay p.name\nsay p.hp + 1\nsay p["hp"]') == ["Punch", "11", "10"]

    def test_records_have_fixed_fields(self):
        error = run_error('let p = {name: "Punch", hp: 10}\np.armor = 2')
        assert "no field `armor`" in error.message
        assert (error.span.line, error.span.col) == (2, 3)
        assert "no field `armour`" in run_error('let p = {hp: 10}\nsay p.armour').message

    def test_record_over_several_lines(self):
        assert run('let p = {name: "Punch",\n    hp: 10,\n}\nsay p') == ['{name: "Punch", hp: 10}']

    def test_record_equality(self):
        assert run("say {a: 1, b: [2]} == {a: 1, b: [2]}\nsay {a: 1} == {a: 2}\nsay {a: 1} == {b: 1}") == [
            "true", "false", "false"]

    def test_records_are_shared_not_copied(self):
        src = "fn hurt(t) { t.hp -= 3 }\nlet p = {hp: 10}\nlet q = p\nhurt(q)\nsay p.hp"
        assert run(src) == ["7"]

    def test_duplicate_record_field(self):
        assert "given twice" in check_error("let r = {a: 1, a: 2}").message

    def test_a_number_has_no_fields(self):
        assert "has no fields" in run_error("let x = 1\nsay x.hp").message


class TestBuiltins:
    def test_rounding(self):
        src = "say floor(7/2)\nsay floor(-7/2)\nsay ceil(7/2)\nsay round(5/2)\nsay round(-5/2)\nsay round(7/3)\nsay abs(-3)"
        assert run(src) == ["3", "-4", "4", "3", "-3", "2", "3"]

    def test_min_max(self):
        assert run("say min(4, 2, 9)\nsay max([4, 2, 9])\nsay min(2d6, 8)\nsay max(1/2, 1/3)", faces=[3, 4]) == [
            "2", "9", "7", "1/2"]

    def test_min_of_an_empty_list(self):
        assert "empty list" in run_error("say min([])").message

    def test_lists(self):
        src = 'let l = []\nsay push(l, 3)\npush(l, 1)\nsay l\nsay len(l)\nsay sum([3, 4])\nsay sorted([3, 1, 2])\nsay sorted(["b", "a"])'
        assert run(src) == ["none", "[3, 1]", "2", "7", "[1, 2, 3]", '["a", "b"]']

    def test_contains(self):
        assert run('say contains(["dodge"], "dodge")\nsay contains([1, 2], 3)') == ["true", "false"]

    def test_range(self):
        assert run("say range(3)\nsay range(2, 4)\nsay range(0)") == ["[1, 2, 3]", "[2, 3, 4]", "[]"]

    def test_builtin_arity_is_checked(self):
        error = check_error("say floor(1, 2)")
        assert "`floor` takes 1 argument, not 2" in error.message

    def test_builtin_needs_the_right_kind(self):
        assert "`len` takes a list or a string" in run_error("say len(3)").message
        assert "`roll` takes a roll-and-keep pool" in run_error("say roll(3)").message

    def test_unknown_option(self):
        assert "no option `boom`" in check_error("say roll(7k3, boom: true)").message


# ======================================================================================
# Names, scoping, checking before running
# ======================================================================================

class TestChecker:
    def test_unknown_name_with_a_suggestion(self):
        error = check_error('let health = 3\nsay "before"\nsay healht')
        assert error.message == "unknown name `healht`"
        assert (error.span.line, error.span.col) == (3, 5)
        assert error.hint == "did you mean `health`?"

    def test_unknown_function(self):
        assert "unknown function `atack`" in check_error("fn attack() = 1\nsay atack()").message

    def test_names_in_functions_never_called_are_checked(self):
        assert "unknown name `nosuch`" in check_error("fn never() = nosuch").message

    def test_arity_of_user_functions(self):
        error = check_error("fn f(a, b) = a\nsay 1\nsay f(1)")
        assert error.message == "`f` takes 2 arguments, not 1"
        assert (error.span.line, error.span.col) == (3, 5)

    def test_arity_of_functions_defined_later(self):
        assert "takes 1 argument, not 2" in check_error("say later(1, 2)\nfn later(n) = n").message

    @pytest.mark.parametrize("source", ["fn f() = 1\nfn f() = 2", "let x = 1\nlet x = 2", "let f = 1\nfn f() = 2",
                                        "table t { 1 => 1 }\nlet t = 2"])
    def test_duplicates(self, source):
        assert "already defined in this block" in check_error(source).message

    def test_duplicate_parameter(self):
        assert "listed twice" in check_error("fn f(a, a) = a").message

    @pytest.mark.parametrize("source", ["return 1", "if true { return }", "for x in [1] { return x }"])
    def test_return_outside_a_function(self, source):
        assert "`return` outside a function" in check_error(source).message

    def test_check_passes_a_good_script_without_running_it(self):
        assert mechscript.check('say d6\nsay "x"') is None

    def test_render(self):
        with pytest.raises(MechError) as info:
            mechscript.run("let speed = 1\nsay sped + 1")
        assert info.value.render() == (
            "<script>:2:5: unknown name `sped`\n  say sped + 1\n      ^~~~\n  hint: did you mean `speed`?")

    def test_a_missing_script_file(self):
        with pytest.raises(MechError, match="cannot read"):
            mechscript.run(str(SCRIPTS / "no_such_script.mech"))


class TestScoping:
    def test_closure_sees_later_changes_to_its_scope(self):
        assert run("let base = 1\nfn get() = base\nbase = 5\nsay get()") == ["5"]

    def test_closure_changes_its_scope(self):
        assert run("let count = 0\nfn bump() { count += 1 }\nbump()\nbump()\nsay count") == ["2"]

    def test_closure_keeps_its_defining_scope_alive(self):
        src = "fn make_adder(n) {\n    fn add(x) = x + n\n    return add\n}\nlet add3 = make_adder(3)\nlet add10 = make_adder(10)\nsay add3(4)\nsay add10(4)"
        assert run(src) == ["7", "14"]

    def test_counters_from_separate_calls_are_separate(self):
        src = """
fn make_counter() {
    let n = 0
    fn next() { n += 1; return n }
    return next
}
let c = make_counter()
c()
c()
let e = make_counter()
say c()
say e()
say c()
"""
        assert run(src) == ["3", "1", "4"]

    def test_a_function_cannot_see_a_callers_local(self):
        error = check_error("fn f() = secret\nfn g() { let secret = 1; return f() }\nsay g()")
        assert error.message == "unknown name `secret`"
        assert (error.span.line, error.span.col) == (1, 10)

    def test_a_function_cannot_clobber_a_callers_local(self):
        error = check_error("fn f() { secret = 2 }\nfn g() { let secret = 1; f(); return secret }\nsay g()")
        assert error.message == "unknown name `secret`"

    def test_a_global_of_the_same_name_is_not_the_callers_local(self):
        # f's `v` is the top-level one, whose `let` has not run yet when g calls f: g's own v is invisible.
        error = run_error("fn f() = v\nfn g() { let v = 99; return f() }\nsay g()\nlet v = 1")
        assert "`v` has no value yet" in error.message

    def test_shadowing_in_an_inner_block(self):
        assert run("let x = 1\nif true {\n    let x = 2\n    x += 1\n    say x\n}\nsay x") == ["3", "1"]

    def test_assignment_in_an_inner_block_changes_the_outer_variable(self):
        assert run("let x = 1\nif true { x = 2 }\nsay x") == ["2"]

    def test_nested_shadowing(self):
        src = "let x = 1\nif true {\n    let x = 2\n    if true { x = 3; say x }\n    say x\n}\nsay x"
        assert run(src) == ["3", "3", "1"]

    def test_parameter_shadows_a_global(self):
        assert run("let x = 1\nfn f(x) = x * 10\nsay f(5)\nsay x") == ["50", "1"]

    def test_parameters_are_local(self):
        assert run("let x = 1\nfn f(x) { x = 7; return x }\nsay f(5)\nsay x") == ["7", "1"]

    def test_loop_variable_does_not_leak(self):
        assert check_error("for i in [1, 2] { }\nsay i").message == "unknown name `i`"

    def test_loop_variable_shadows_an_outer_variable(self):
        assert run("let i = 100\nfor i in [1, 2] { say i }\nsay i") == ["1", "2", "100"]

    def test_block_locals_do_not_leak(self):
        assert check_error("if true { let z = 1 }\nsay z").message == "unknown name `z`"
        assert check_error("while false { let t = 1 }\nsay t").message == "unknown name `t`"
        assert check_error("fn f() { let inner = 1 }\nsay inner").message == "unknown name `inner`"

    def test_each_loop_round_has_fresh_locals(self):
        src = "let fs = []\nfor i in [1, 2, 3] {\n    let j = i * 10\n    fn show() = j\n    push(fs, show)\n}\nsay fs[0]()\nsay fs[2]()"
        assert run(src) == ["10", "30"]

    def test_functions_may_call_functions_defined_later(self):
        src = "say later(2)\nfn later(n) = helper(n) * 3\nfn helper(n) = n + 1"
        assert run(src) == ["9"]

    def test_later_functions_in_an_inner_block(self):
        src = "fn outer() {\n    let r = inner(4)\n    fn inner(n) = n * n\n    return r\n}\nsay outer()"
        assert run(src) == ["16"]

    def test_a_let_has_its_value_once_it_has_run(self):
        error = run_error('say "first"\nsay x\nlet x = 1')
        assert "`x` has no value yet" in error.message
        assert error.log == ["first"]
        assert (error.span.line, error.span.col) == (2, 5)

    def test_a_function_reading_a_later_let(self):
        assert run("fn f() = y\nlet y = 2\nsay f()") == ["2"]
        assert "`y` has no value yet" in run_error("fn f() = y\nsay f()\nlet y = 2").message

    def test_reading_an_inner_name_before_its_let(self):
        error = run_error("let x = 1\nif true {\n    say x\n    let x = 2\n}")
        assert "`x` has no value yet" in error.message

    def test_assigning_a_local_before_its_let_does_not_clobber_the_global(self):
        src = "let x = 1\nfn f() {\n    x = 7\n    let x = 3\n    return x\n}\nsay f()\nsay x"
        with pytest.raises(MechError, match="no value yet"):
            mechscript.run(src, seed=0)


class TestRecursion:
    def test_factorial(self):
        src = "fn fact(n) {\n    if n <= 1 { return 1 }\n    return n * fact(n - 1)\n}\nsay fact(5)\nsay fact(20)"
        assert run(src) == ["120", "2432902008176640000"]

    def test_fibonacci(self):
        src = "fn fib(n) = match n { 0, 1 => n  else => fib(n - 1) + fib(n - 2) }\nsay fib(10)\nsay fib(15)"
        assert run(src) == ["55", "610"]

    def test_mutual_recursion(self):
        src = "fn even(n) = match n { 0 => true  else => odd(n - 1) }\nfn odd(n) = match n { 0 => false  else => even(n - 1) }\nsay even(10)\nsay odd(10)"
        assert run(src) == ["true", "false"]

    DOWN = "fn down(n) {\n    if n == 0 { return 0 }\n    return 1 + down(n - 1)\n}\nsay \"start\"\nsay down(N)"

    def test_recursion_within_the_limit(self):
        # down(9) is 10 calls deep
        assert run(self.DOWN.replace("N", "9"), limits=Limits(recursion=10)) == ["start", "9"]
        assert run(self.DOWN.replace("N", "150")) == ["start", "150"]  # default limit 200

    def test_recursion_limit(self):
        error = run_error(self.DOWN.replace("N", "10"), limits=Limits(recursion=10))
        assert "recursion" in error.message
        assert "10" in error.message
        assert error.span.line == 3
        assert error.log == ["start"]

    def test_endless_recursion_stops_at_the_default_limit(self):
        error = run_error("fn down(n) = down(n + 1)\nsay down(0)")
        assert "the limit `recursion` is 200" in error.message
        assert "recursion" in error.hint

    def test_raised_recursion_limit_still_names_recursion(self):
        # a limit above what Python's stack holds (20,000 frames; a call is at least one)
        error = run_error(self.DOWN.replace("N", "25000"), limits=Limits(recursion=30000))
        assert "Python's stack" in error.message
        assert "`recursion`" in error.hint and error.span is not None


# ======================================================================================
# Modules and house rules (tests/scripts/combat.mech)
# ======================================================================================

HOUSE_RULE_LOG = ["Punch hits Ransack (plain)", "Punch hits Ransack (plain)", "4", "true", "2"]
NO_HOUSE_RULE_LOG = ["Punch misses Ransack (plain)", "Punch misses Ransack (plain)", "12", "false", "2"]

FIGHTERS = 'let punch = {name: "Punch", skill: 3, damage: 4}\nlet ransack = {name: "Ransack", speed: 5, hp: 12}\n'


class TestModules:
    def test_the_module_by_its_own_rule(self):
        assert run(SCRIPTS / "no_house_rule.mech") == NO_HOUSE_RULE_LOG

    def test_house_rule_replaces_the_rule_inside_the_module(self):
        # combat.attack calls to_hit; the script's `fn combat.to_hit` is what it calls
        assert run(SCRIPTS / "house_rule.mech") == HOUSE_RULE_LOG

    def test_house_rule_does_not_leak_between_runs(self):
        assert run(str(SCRIPTS / "house_rule.mech")) == HOUSE_RULE_LOG
        assert run(str(SCRIPTS / "no_house_rule.mech")) == NO_HOUSE_RULE_LOG
        assert run(str(SCRIPTS / "house_rule.mech")) == HOUSE_RULE_LOG
        assert run(str(SCRIPTS / "no_house_rule.mech")) == NO_HOUSE_RULE_LOG

    def test_house_rule_does_not_leak_between_source_scripts(self, monkeypatch):
        monkeypatch.chdir(SCRIPTS)
        with_rule = "use combat\nfn combat.to_hit(att, def) = true\n" + FIGHTERS + "say attack(punch, ransack)"
        without = "use combat\n" + FIGHTERS + "say attack(punch, ransack)"
        assert run(with_rule) == ["Punch hits Ransack (plain)"]
        assert run(without) == ["Punch misses Ransack (plain)"]
        assert run(with_rule) == ["Punch hits Ransack (plain)"]

    def test_a_bare_function_named_like_a_rule_is_refused(self, monkeypatch):
        # it would not replace the rule for the module's own callers: point to `fn combat.to_hit`
        monkeypatch.chdir(SCRIPTS)
        error = check_error("use combat\nfn to_hit(att, def) = true\n")
        assert error.message == "`to_hit` is a rule of module `combat`"
        assert "fn combat.to_hit(...)" in error.hint

    def test_house_rule_sees_the_scripts_scope(self, monkeypatch):
        monkeypatch.chdir(SCRIPTS)
        src = ("use combat\nlet bonus = 0\nfn combat.to_hit(att, def) = att.skill + bonus > def.speed\n" + FIGHTERS +
               "say attack(punch, ransack)\nbonus = 3\nsay attack(punch, ransack)")
        assert run(src) == ["Punch misses Ransack (plain)", "Punch hits Ransack (plain)"]

    def test_house_rule_reaches_a_module_used_by_another_module(self, monkeypatch):
        monkeypatch.chdir(SCRIPTS)
        src = "use arena\nuse combat\nfn combat.to_hit(att, def) = true\n" + FIGHTERS + \
              "say duel(punch, ransack)\nsay judge(punch, ransack)"
        assert run(src) == ["Punch hits Ransack (plain)", "true"]
        assert run("use arena\n" + FIGHTERS + "say duel(punch, ransack)\nsay arena.judge(punch, ransack)") == [
            "Punch misses Ransack (plain)", "false"]

    def test_module_option(self, monkeypatch):
        monkeypatch.chdir(SCRIPTS)
        src = 'use combat\ncombat.style = "brutal"\n' + FIGHTERS + "say combat.attack(punch, ransack)\nsay combat.style"
        assert run(src) == ["Punch misses Ransack (brutal)", "brutal"]
        assert run("use combat\n" + FIGHTERS + "say attack(punch, ransack)") == ["Punch misses Ransack (plain)"]

    def test_module_state_starts_afresh_each_run(self, monkeypatch):
        monkeypatch.chdir(SCRIPTS)
        src = "use combat\n" + FIGHTERS + "attack(punch, ransack)\nsay combat.attacks\nsay attacks"
        assert run(src) == ["1", "1"]
        assert run(src) == ["1", "1"]

    def test_a_scripts_own_name_hides_the_modules(self, monkeypatch):
        monkeypatch.chdir(SCRIPTS)
        src = "use combat\nlet attacks = 100\n" + FIGHTERS + "attack(punch, ransack)\nsay attacks\nsay combat.attacks"
        assert run(src) == ["100", "1"]

    def test_use_by_file_name(self, monkeypatch):
        monkeypatch.chdir(SCRIPTS)
        assert run('use "combat.mech"\nsay combat.style\nsay combat') == ["plain", "<module combat>"]

    def test_module_errors_before_running(self, monkeypatch):
        monkeypatch.chdir(SCRIPTS)
        assert check_error("use combatt").hint == "did you mean `combat`?"
        assert "has no `nosuch`" in check_error("use combat\ncombat.nosuch = 1").message
        assert "is a function and cannot be assigned" in check_error("use combat\ncombat.attack = 1").message
        assert "has no rule `nosuch` to replace" in check_error("use combat\nfn combat.nosuch(a) = 1").message
        assert "its replacement must too" in check_error("use combat\nfn combat.to_hit(a) = 1").message
        assert "at the top level" in check_error("use combat\nif true { fn combat.to_hit(a, b) = true }").message
        assert "not a module this script uses" in check_error("fn combat.to_hit(a, b) = true").message
        assert "takes 2 arguments, not 1" in check_error("use combat\nsay combat.attack(1)").message
        assert "already defined" in check_error("use combat\nuse combat").message

    def test_an_error_in_a_module_points_into_the_module(self, tmp_path):
        (tmp_path / "broken.mech").write_text("let zero = 0\nfn boom(x) = x / zero\n")
        script = tmp_path / "main.mech"
        script.write_text('use broken\nsay "hi"\nsay boom(3)\n')
        with pytest.raises(MechError) as info:
            mechscript.run(script, seed=0)
        error = info.value
        assert error.message == "division by zero"
        assert error.filename.endswith("broken.mech")
        assert (error.span.line, error.span.col) == (2, 18)
        assert error.log == ["hi"]

    def test_a_check_error_in_a_module_is_found(self, tmp_path):
        (tmp_path / "typo.mech").write_text("let a = 1\nfn f() = nosuch\n")
        script = tmp_path / "main.mech"
        script.write_text('use typo\nsay "hello there"\n')
        with pytest.raises(MechError) as info:
            mechscript.check(script)
        assert info.value.message == "unknown name `nosuch`"
        assert (info.value.span.line, info.value.span.col) == (2, 10)

    def test_a_check_error_in_a_module_points_into_the_module(self, tmp_path):
        (tmp_path / "typo.mech").write_text("let a = 1\nfn f() = nosuch\n")
        script = tmp_path / "main.mech"
        script.write_text('use typo\nsay "hello there"\n')
        with pytest.raises(MechError) as info:
            mechscript.check(script)
        assert info.value.filename.endswith("typo.mech")
        assert "fn f() = nosuch" in info.value.render()


# ======================================================================================
# Rolls as values, pools
# ======================================================================================

class TestRollsAsValues:
    def test_roll_fields(self):
        src = "let r = 4d6kh3\nsay r\nsay r.faces\nsay r.kept\nsay r.dropped\nsay r.total\nsay r + 1"
        assert run(src, faces=[3, 1, 6, 5]) == ["14", "[3, 1, 6, 5]", "[3, 6, 5]", "[1]", "14", "15"]

    def test_keep_lowest(self):
        assert run("let r = 2d20kl1\nsay r.kept\nsay r.dropped\nsay r", faces=[17, 4]) == ["[4]", "[17]", "4"]

    def test_let_binds_one_roll(self):
        # one face given: a second roll would run out of faces
        assert run("let r = d6\nsay r + r\nsay r * 2\nsay [r, r]\nsay r == 4", faces=[4]) == ["8", "8", "[4, 4]", "true"]

    def test_a_parameter_binds_one_roll(self):
        assert run("fn twice(x) = x + x\nsay twice(d6)", faces=[5]) == ["10"]

    def test_each_written_die_rolls(self):
        assert run("say d6 + d6", faces=[2, 5]) == ["7"]
        assert run("fn f() = d6\nsay f() + f()", faces=[2, 5]) == ["7"]

    def test_terms_fall_left_to_right(self):
        assert run("say [d4, d6, d8]\nsay 2d6 - d4", faces=[1, 2, 3, 6, 6, 4]) == ["[1, 2, 3]", "8"]

    def test_a_roll_in_a_loop_rolls_each_round(self):
        assert run("repeat 3 {\n    let r = d6\n    say r\n}", faces=[6, 1, 3]) == ["6", "1", "3"]

    def test_roll_in_interpolation(self):
        assert run('let r = 3d6\nsay "rolled {r} from {r.faces}"', faces=[1, 2, 3]) == ["rolled 6 from [1, 2, 3]"]

    def test_roll_compares_by_total(self):
        assert run("let r = 2d6\nsay r > 6\nsay r == 7\nsay r < 7", faces=[3, 4]) == ["true", "true", "false"]

    def test_exploding_dice_fields(self):
        # the extra die stands right after the die that exploded
        src = "let r = 3d6!\nsay r.faces\nsay r.dropped\nsay r"
        assert run(src, faces=[6, 2, 3, 4]) == ["[6, 4, 2, 3]", "[]", "15"]

    def test_rerolled_die_is_replaced(self):
        assert run("let r = 4d6r1\nsay r.faces\nsay r", faces=[1, 4, 3, 2, 5]) == ["[5, 4, 3, 2]", "14"]

    def test_unknown_roll_field(self):
        error = run_error("let r = d6\nsay r.face", faces=[1])
        assert "a roll has no field `face`" in error.message
        assert error.hint == "did you mean `faces`?"

    def test_running_out_of_faces(self):
        error = run_error('say "a"\nsay 2d6', faces=[1])
        assert "ran out of faces" in error.message
        assert error.log == ["a"]
        assert (error.span.line, error.span.col) == (2, 5)

    def test_impossible_face(self):
        assert "cannot come up" in run_error("say d6", faces=[7]).message


class TestPools:
    def test_roll_a_pool(self):
        src = "let p = roll(7k3)\nsay p\nsay p.faces\nsay p.kept\nsay p.dropped\nsay p.total"
        assert run(src, faces=[1, 2, 3, 4, 5, 6, 9]) == ["20", "[9, 6, 5, 4, 3, 2, 1]", "[9, 6, 5]", "[4, 3, 2, 1]", "20"]

    def test_tens_explode(self):
        # the 10 rolls again: 10 + 4 = 14
        assert run("let p = roll(7k3)\nsay p\nsay p.kept", faces=[10, 2, 3, 4, 5, 6, 7, 4]) == ["27", "[14, 7, 6]"]

    def test_roll_without_explosions(self):
        src = "let p = roll(7k3, explode: false)\nsay p\nsay p.kept"
        assert run(src, faces=[10, 2, 3, 4, 5, 6, 7]) == ["23", "[10, 7, 6]"]

    def test_explode_option_must_be_true_or_false(self):
        assert "`explode` is true or false" in run_error("say roll(7k3, explode: 1)").message

    def test_pool_arithmetic_then_comparison_from_the_brief(self):
        # 7k3 + 2k0 is 9k3: nine dice, keep 9 + 8 + 7 = 24 > floor(2.5 * 6) = 15
        src = "let target = {intelligence: 6}\nlet tn = floor(2.5 * target.intelligence)\nlet hit = 7k3 + 2k0 > tn\nsay hit"
        assert run(src, faces=[1, 2, 3, 4, 5, 6, 7, 8, 9]) == ["true"]
        # keep 3 + 2 + 2 = 7: a miss
        assert run(src, faces=[1, 1, 1, 1, 1, 2, 2, 3, 1]) == ["false"]

    def test_a_pool_stays_unrolled_through_plus_and_minus(self):
        src = "let p = 7k3 + 2k0 - 0k1 + 5\nsay p.notation\nsay roll(p)\nsay roll(p).kept"
        # 9k2+5: nine dice, keep two: 9 + 8 + 5 = 22; rolled again: keep 4 and 3
        faces = [1, 2, 3, 4, 5, 6, 7, 8, 9] + [1, 1, 1, 1, 1, 1, 1, 3, 4]
        assert run(src, faces=faces) == ["9k2+5", "22", "[4, 3]"]

    def test_a_bound_pool_rolls_each_time_it_is_compared(self):
        # `let` binds the unrolled pool: each comparison is a new roll (1k1 is one die)
        assert run("let p = 1k1\nsay p > 5\nsay p > 5", faces=[3, 8]) == ["false", "true"]

    def test_a_pool_rolls_when_a_number_is_needed(self):
        assert run("say 3k2 * 1", faces=[4, 9, 2]) == ["13"]

    def test_a_die_added_to_a_pool_falls_after_it(self):
        # faces go left to right: the pool's two d10s (3, 7), then the d6 (4): keep 7, plus 4
        assert run("say 2k1 + d6", faces=[3, 7, 4]) == ["11"]

    def test_a_pool_sized_by_a_die_after_another_pool_is_an_error(self):
        assert "after another pool" in run_error("say 2k1 + pool(d6, 1)", faces=[3, 7, 4]).message

    def test_pool_from_numbers(self):
        src = "let strength = 7\nlet p = pool(strength / 2, 2) + 1k0\nsay p.notation\nsay roll(p).kept"
        # 3.5k2 + 1k0 = 4.5k2: four dice rolled (the unkept half die is lost), keep two
        assert run(src, faces=[3, 8, 5, 1]) == ["4.5k2", "[8, 5]"]

    def test_pool_with_no_kept_dice_fails_automatically(self):
        assert run("say 3k1 - 0k1 > 0") == ["false"]

    def test_pool_fields_are_whole_numbers(self):
        assert run("let p = 7k3 + 2k0\nsay p.rolled\nsay p.kept\nsay p.bonus") == ["9", "3", "0"]


class TestDeterminism:
    SRC = "let l = []\nrepeat 30 { push(l, d1000) }\nsay l\nsay roll(7k3)\nsay 4d6kh3"

    def test_same_seed_same_log(self):
        first = mechscript.run(self.SRC, seed=1234)
        second = mechscript.run(self.SRC, seed=1234)
        assert first.log == second.log
        assert first.seed == 1234

    def test_different_seeds_differ(self):
        assert run(self.SRC, seed=1) != run(self.SRC, seed=2)

    def test_no_seed_reports_the_seed_it_used(self):
        result = mechscript.run(self.SRC)
        assert type(result.seed) is int
        assert mechscript.run(self.SRC, seed=result.seed).log == result.log

    def test_given_faces_report_no_seed(self):
        assert mechscript.run("say d6", faces=[2]).seed is None

    def test_same_seed_in_another_process(self, tmp_path):
        # another interpreter with another hash seed: nothing may depend on dict or set order
        code = f"import mechscript; print(mechscript.run({self.SRC!r}, seed=99).log)"
        env = dict(os.environ, PYTHONHASHSEED="12345")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                             cwd=tmp_path)
        assert out.stdout.strip() == str(run(self.SRC, seed=99))


# ======================================================================================
# Known bugs with evaluation order and exact numbers
# ======================================================================================

class TestKnownBugs:
    def test_augmented_index_rolls_its_index_once(self):
        assert run("let l = [0, 0, 0]\nl[d3 - 1] += 1\nsay l", faces=[1, 3]) == ["[1, 0, 0]"]

    def test_augmented_field_calls_once(self):
        src = 'let r = {hp: 10}\nfn target() {\n    say "picked"\n    return r\n}\ntarget().hp -= 3\nsay r.hp'
        assert run(src) == ["picked", "7"]

    def test_sum_of_halves_is_a_whole_number(self):
        assert run("say sum([1/2, 1/2])\nsay [10, 20][sum([1/2, 1/2])]") == ["1", "20"]

    def test_pool_bonus_of_halves(self):
        assert run("say (7k3 + 1/2 + 1/2).notation\nsay roll(2k1 + 1/2 + 1/2)", faces=[3, 7]) == ["7k3+1", "8"]

    def test_say_rolls_a_pool(self):
        assert run('say 3k2 + 1\nsay "rolled {2k1}"', faces=[4, 9, 2, 5, 6]) == ["14", "rolled 6"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(1, 6)), min_size=1, max_size=4))
def test_fraction_arithmetic_matches_python(terms):
    """`+` and `*` of fractions are exact and print as Python's reduced Fraction (a whole one as an int)."""
    expr = " + ".join(f"({n})/{d}" for n, d in terms)
    product = " * ".join(f"({n})/{d}" for n, d in terms)
    total = sum(Fraction(n, d) for n, d in terms)
    prod = Fraction(1)
    for n, d in terms:
        prod *= Fraction(n, d)
    show = lambda f: str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
    assert run(f"say {expr}\nsay {product}") == [show(total), show(prod)]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=8))
def test_list_builtins_match_python(items):
    text = "[" + ", ".join(str(i) for i in items) + "]"
    src = f"let l = {text}\nsay sum(l)\nsay len(l)\nsay min(l)\nsay max(l)\nsay sorted(l)\nsay l[-1]"
    assert run(src) == [str(sum(items)), str(len(items)), str(min(items)), str(max(items)),
                        "[" + ", ".join(str(i) for i in sorted(items)) + "]", str(items[-1])]
