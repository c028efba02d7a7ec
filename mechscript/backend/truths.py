"""A test of the written text (`if`, `elif`, `while`) whose answer a constant settles, worked out, and
a length compared with 0 as the list's truth: a peephole pass (peephole.merged), run after the
temporaries are merged.

The writer folds an option or a field no run changes to `True` or `False` (folding.py), and a merged
temporary can bring such a constant into a test: `if (A and B) and (False):`. Python's compiler
drops a constant's own jump, but still works out A and B, and tests them. In a test only the truth
of each part of an `and`, `or` or `not` counts, so: a `True` in an `and` (a `False` in an `or`) is
left out, and a `False` in an `and` (a `True` in an `or`) settles it when what comes before it
only reads and cannot fail (names, constants, comparisons, and/or/not of them: nothing that
calls, so nothing that could change a value, roll a die, spend a step or stop the run; a field
only of a local the types say is never none, `present`, as a field of none fails); what comes
after it is never worked out. Transformers' `and` of four reads of a character with a rule
switched off by an option: 300 bytecodes a fight. And a test of a list's or string's length
against 0 (`len(c.homing) > 0`) is a test of the list (`c.homing`): 5 bytecodes fewer, and no
call (1,100 bytecodes a transformers fight); in a line that is one assignment, `return` or
expression, such a comparison is the same true or false (`len(x) == 0` is `not x`, `len(x) > 0`
is `not not x`).

The line is read with Python's own parser (`ast`) and the test written again with `ast.unparse`:
the same expression, perhaps with other brackets; a line the parser does not take (a test that
goes on over lines, never written) stays as it is.
"""

from __future__ import annotations

import ast as python
import re

from .order import parsed

_TEST = re.compile(r"( *)(if|elif|while) ")
_EMPTINESS = re.compile(r"len\([\w.]+\)\)* (?:[=!]=|[<>]=?) [01]\b|\b0 (?:[=!]=|[<>]=?) \(*len\(")
_SIMPLE = (python.Assign, python.Return, python.Expr)


def folded_tests(lines: list[str], present: "set[str]" = frozenset()) -> list[str]:
    """`lines` with each test that a constant settles, in part or whole, written without it.
    `present`: names whose fields (`x.hp`), read as they are, cannot fail (writer.read_local)."""
    return [_folded(line, present) for line in lines]


def _folded(line: str, present) -> str:
    opening = _TEST.match(line)
    if opening is None:
        return _valued(line) if _EMPTINESS.search(line) else line
    if "True" not in line and "False" not in line and "len(" not in line:
        return line
    indent, keyword = opening.groups()
    statement = line[len(indent):]
    if keyword == "elif":   # parsed as an `if`: an `elif` alone is not a statement
        statement = statement[2:]
    found = parsed(statement)
    if found is None:
        return line
    test = found.test
    if test.lineno != 1 or test.end_lineno != 1:
        return line
    folded = _truth(test, present)
    if folded is test:
        return line
    encoded = statement.encode()   # the parser's columns count UTF-8 bytes, not characters
    text = encoded[:test.col_offset].decode() + python.unparse(folded) + encoded[test.end_col_offset:].decode()
    return indent + ("el" if keyword == "elif" else "") + text


def _valued(line: str) -> str:
    """A line that is one assignment, `return` or expression, with each length of a list or a
    string compared with 0 written as the same true or false (`len(x) == 0` as `not x`, `len(x) >
    0` as `not not x`: 2 bytecodes, not 5, and no call)."""
    indent = line[:len(line) - len(line.lstrip(" "))]
    statement = parsed(line[len(indent):])
    if type(statement) not in _SIMPLE:
        return line
    changed = [False]

    class Lengths(python.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            empty = _emptiness(node)
            if empty is None:
                return node
            changed[0] = True
            if type(empty) is python.UnaryOp:   # `not x`
                return empty
            return python.UnaryOp(python.Not(), python.UnaryOp(python.Not(), empty))

    statement = Lengths().visit(statement)
    return indent + python.unparse(statement) if changed[0] else line


def _truth(node, present):
    """`node` as its truth is tested: the same node when nothing folds, else a new one (or a
    Constant True or False)."""
    kind = type(node)
    if kind is python.Compare:
        return _emptiness(node) or node
    if kind is python.UnaryOp and type(node.op) is python.Not:
        operand = _truth(node.operand, present)
        if type(operand) is python.Constant:
            return python.Constant(not operand.value)
        return node if operand is node.operand else python.UnaryOp(python.Not(), operand)
    if kind is not python.BoolOp:
        return node
    settles = type(node.op) is python.Or   # `or` is settled by True, `and` by False
    kept, changed = [], False
    for value in node.values:
        value_folded = _truth(value, present)
        changed = changed or value_folded is not value
        if type(value_folded) is python.Constant and type(value_folded.value) is bool:
            changed = True
            if value_folded.value is not settles:
                continue   # `x and True`, `x or False`: the truth of x
            if all(_reads_only(before, present) for before in kept):
                return python.Constant(settles)
            kept.append(value_folded)   # worked out before, the constant settles it after them
            break
        kept.append(value_folded)
    if not changed:
        return node
    if not kept:
        return python.Constant(not settles)
    return kept[0] if len(kept) == 1 else python.BoolOp(node.op, kept)


def _reads_only(node, present) -> bool:
    """Whether working out `node` only reads, and cannot fail: names, constants, fields of a name
    in `present`, comparisons, `and`, `or` and `not` of them. The writer writes a comparison
    as such only where the types prove it works (numbers or strings compared), and a field as
    the attribute it is only where each kind or shape the value may be has it; but also of a
    value that may be none, whose read fails and bails (writer.kept_field): hence `present`."""
    kind = type(node)
    if kind in (python.Name, python.Constant):
        return True
    if kind is python.Attribute:
        return type(node.value) is python.Name and node.value.id in present
    if kind is python.Compare:
        return _reads_only(node.left, present) and all(_reads_only(side, present) for side in node.comparators)
    if kind is python.BoolOp:
        return all(_reads_only(value, present) for value in node.values)
    if kind is python.UnaryOp and type(node.op) is python.Not:
        return _reads_only(node.operand, present)
    return False


def _emptiness(node) -> "python.expr | None":
    """`len(x) > 0` (`!= 0`, `0 < len(x)`) tested as `x`, `len(x) == 0` (`<= 0`, `< 1`) as `not x`:
    the writer calls `len` itself only of a list or a string the types prove one (calls.py; else
    it tests the class first, or the builtin's helper works it out), whose truth is that it is not
    empty. Only of a value that reads (a name or its fields), which the test then reads once."""
    if len(node.ops) != 1:
        return None
    left, op, right = node.left, type(node.ops[0]), node.comparators[0]
    if _is_zero(left):   # `0 < len(x)`, `0 == len(x)`: the other way round
        left, right = right, left
        op = {python.Lt: python.Gt, python.Gt: python.Lt, python.LtE: python.GtE, python.GtE: python.LtE}.get(op, op)
    if not (type(left) is python.Call and type(left.func) is python.Name and left.func.id == "len" and
            len(left.args) == 1 and not left.keywords and _is_name_or_field(left.args[0])):
        return None
    value = left.args[0]
    if _is_zero(right) and op in (python.Gt, python.NotEq):
        return value
    if _is_zero(right) and op in (python.Eq, python.LtE) or \
            type(right) is python.Constant and right.value == 1 and type(right.value) is int and op is python.Lt:
        return python.UnaryOp(python.Not(), value)
    return None


def _is_zero(node) -> bool:
    return type(node) is python.Constant and type(node.value) is int and node.value == 0


def _is_name_or_field(node) -> bool:
    while type(node) is python.Attribute:
        node = node.value
    return type(node) is python.Name
