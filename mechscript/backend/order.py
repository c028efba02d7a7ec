"""What a line of the written code works out before it reads a temporary (peephole.py): Python's
order of evaluation over the few forms the writer writes, read with Python's own parser.

`moved_in` tells whether the value a temporary was set to on the line before may be worked out
in its place: the line reads the temporary once, surely (not right of an `and` or `or`, not in a
branch of a conditional expression, a comprehension or the body of a one-line `if`), and nothing
the line works out before it can see the difference. That is: what comes before is constants and
names no code changes while the value is worked out (a local no nested function declares
`nonlocal`, a global no function declares `global`) when the value may change something (it calls
or assigns); or, when the value only reads, anything that calls nothing (two reads give what they
gave in the other order). An error either way stops the run,
which the closures then fight; so which of two failing reads fails first does not matter.

Besides the written code's own `global` and `nonlocal` names, only the runtime changes a global
during a run: the budgets STEP_BULK and DICE_BULK (runtime.Budget), which every function whose
text names them declares `global` (emit.budgets_spent), and STEP, which the written code reads
only inside `next(STEP)`, a call.

A value Python's compiler works out to a constant (`0 - 3`, `(1, 2)`, `not 1`), and a display (a
list, tuple, set or dict written out, a comprehension) the line calls or indexes, stay in their
temporaries: written in its place, Python may warn of it (`(0 - 3) is True`: "is" with a literal;
`[x](1)`: a list called; `[x]['a']`), which the temporary does not. A literal alone is
peephole._read_into's."""

from __future__ import annotations

import ast as python
import re

_EFFECTS = (python.Call, python.NamedExpr, python.Lambda, python.ListComp, python.SetComp, python.DictComp,
            python.GeneratorExp, python.FormattedValue, python.Await, python.Yield, python.YieldFrom)
# a constant of the written code: `{**kN, ...}` copies a record's template, which nothing changes
# (expressions.e_Record)
_TEMPLATE = re.compile(r"k\d+")
_FOLDED = (python.Constant, python.UnaryOp, python.BinOp, python.Tuple, python.Subscript, python.expr_context,
           python.operator, python.unaryop)
_DISPLAYS = (python.List, python.Tuple, python.Set, python.Dict, python.ListComp, python.SetComp, python.DictComp,
             python.GeneratorExp, python.JoinedStr, python.Lambda)
_READS = (python.Attribute, python.Subscript, python.BinOp, python.UnaryOp, python.Compare, python.BoolOp,
          python.IfExp, python.Tuple, python.List, python.Dict, python.Set, python.Starred, python.JoinedStr,
          python.Slice)


class _Unknown(Exception):
    """A form this reading does not know: the temporary stays."""


class _Found(Exception):
    """The temporary's read, reached."""


def moved_in(statement: str, name: str, value: str, changing: "set[str]", applied: bool) -> bool:
    """Whether `statement` (one line, its indentation taken off) may work out `value` where it
    reads the temporary `name` (which it reads once); `changing`: the names some function of the
    written code declares `global` or `nonlocal`; `applied`: the line calls or indexes it."""
    tree = parsed(statement)
    worked = parsed(value)
    if tree is None or type(worked) is not python.Expr:
        return False
    nodes = list(python.walk(worked.value))
    if _may_warn(worked.value, nodes, applied):
        return False
    effects = any(isinstance(node, _EFFECTS) for node in nodes)
    changing = changing | {node.target.id for node in nodes if type(node) is python.NamedExpr}
    before: list = []
    try:
        _statement(tree, name, before)
    except _Found:
        return all(_fixed(node, changing) or not effects and _reads(node) for node in before)
    except _Unknown:
        return False
    return False   # not read surely: only in a part that may not run


def _may_warn(value, nodes: list, applied: bool) -> bool:
    """Whether Python may warn of `value` (its `nodes`) written where a temporary was: a constant
    once folded (constants and the operators Python's compiler works out), or a display that is
    called or indexed (`applied`)."""
    return applied and isinstance(value, _DISPLAYS) or all(isinstance(node, _FOLDED) for node in nodes)


def parsed(text: str):
    """The one statement `text` (a line of the written code) is, a block's header given an empty
    body; or None."""
    body = " pass" if text.endswith(":") else ""
    try:
        module = python.parse(text + body)
    except SyntaxError:
        return None
    return module.body[0] if len(module.body) == 1 else None


def _fixed(node, changing: "set[str]") -> bool:
    return type(node) is python.Constant or type(node) is python.Name and node.id not in changing


def _reads(node) -> bool:
    return type(node) is python.Name or isinstance(node, _READS)


def _statement(node, name: str, before: list) -> None:
    """Walks what `node` works out unconditionally, in order, into `before`, up to the read of
    `name` (_Found)."""
    kind = type(node)
    if kind is python.Assign:
        _expr(node.value, name, before)
        for target in node.targets:
            _target(target, name, before)
    elif kind is python.AugAssign:
        _expr(node.target, name, before)   # read before the value, then written
        _expr(node.value, name, before)
    elif kind in (python.Expr, python.Return) and node.value is not None:
        _expr(node.value, name, before)
    elif kind is python.If:
        _expr(node.test, name, before)   # its body runs only when the test holds
    elif kind is python.For:
        _expr(node.iter, name, before)   # worked out once, before the first round
    else:
        raise _Unknown


def _target(node, name: str, before: list) -> None:
    if type(node) is python.Name:
        return
    if type(node) not in (python.Attribute, python.Subscript):
        raise _Unknown
    _expr(node, name, before)   # its object and key, worked out as a read's
    before.append(python.Call())   # a store into a field or an item: anything may see it


def _expr(node, name: str, before: list) -> None:
    kind = type(node)
    if kind is python.Name:
        if node.id == name:
            raise _Found
    elif kind is python.Constant:
        pass
    elif kind is python.Attribute:
        _expr(node.value, name, before)
    elif kind is python.Subscript:
        _expr(node.value, name, before)
        _expr(node.slice, name, before)
    elif kind is python.BinOp:
        _expr(node.left, name, before)
        _expr(node.right, name, before)
    elif kind is python.UnaryOp:
        _expr(node.operand, name, before)
    elif kind is python.BoolOp:
        _expr(node.values[0], name, before)   # the rest only when the first does not decide
        _unsure(node.values[1:], name, before)
    elif kind is python.Compare:
        _expr(node.left, name, before)
        _expr(node.comparators[0], name, before)   # a chain's next ones only when the first holds
        _unsure(node.comparators[1:], name, before)
    elif kind is python.IfExp:
        _expr(node.test, name, before)
        _unsure([node.body, node.orelse], name, before)
    elif kind is python.Call:
        _expr(node.func, name, before)
        for part in node.args:
            _expr(part, name, before)
        for keyword in node.keywords:
            _expr(keyword.value, name, before)
            if keyword.arg is None:
                before.append(python.Starred())   # `**d` reads what `d` holds, there
    elif kind in (python.Tuple, python.List, python.Set):
        for part in node.elts:
            _expr(part, name, before)
    elif kind is python.Dict:
        for key, part in zip(node.keys, node.values):
            if key is not None:
                _expr(key, name, before)
            _expr(part, name, before)
            if key is None and not (type(part) is python.Name and _TEMPLATE.fullmatch(part.id)):
                before.append(python.Starred())   # `**d` reads what `d` holds, there
    elif kind is python.Starred:
        _expr(node.value, name, before)
    elif kind is python.NamedExpr:
        _expr(node.value, name, before)
    else:
        raise _Unknown   # comprehensions, lambdas, f-strings, slices: not read here
    before.append(node)


def _unsure(parts, name: str, before: list) -> None:
    """Parts that may not run: the temporary read there stays where it is; read after them, it
    comes after all they may work out."""
    for part in parts:
        inside = [node for node in python.walk(part) if isinstance(node, python.expr)]
        if any(type(node) is python.Name and node.id == name for node in inside):
            raise _Unknown
        before.extend(inside)
