"""Small rewrites of the written text that Python's compiler does not make: fewer bytecodes, the
same work in the same order.

The writer gives every value a temporary (`t12 = ...`) and then uses it; where that use is the next
line and is a plain copy (`v3_x = t12`, `return t12`), the test of an `if` (`if t12:`,
`if not t12:`) or the left side of a comparison with a name or a constant (`t13 = t12 > 0`), the
temporary is one store and one load too many. Temporaries are named once in the whole text (`t` and
a number), so a name that occurs twice occurs only at its definition and that use: the use takes the
value directly. So too where the use is anywhere in the next line and the value only reads (a
literal, a constant, or a field of a local that the next line calls nothing to change: `_read_into`).
(A temporary's name inside a string constant counts as a use, which at worst keeps it.) And any
value where the next line reads it first, or after nothing that could tell (order.py); the line
made may in turn be a temporary's, which goes into the line after it. An `and` or
`or` of two values the writer knows to be true or false, written as an `if` that sets a temporary in
each branch, becomes Python's own `and` or `or`: the same values, worked out in the same order.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from .order import moved_in
from .truths import folded_tests

_TEMP = re.compile(r"\bt\d+\b")
_DEFINED = re.compile(r"( *)(t\d+) = (.+)")
_COPY = re.compile(r"( *)(?:([\w.]+) = |return )(t\d+)")
_TEST = re.compile(r"( *)if (not )?(t\d+):(.*)")
_COMPARED = re.compile(r"( *)(t\d+) = (t\d+) ((?:[<>=!]=|[<>]) (?:[\w.]+|'[^'\\]*'))")
# a value that reading cannot change: a literal or a constant of the written code (never set again),
# or a local's or temporary's field (a chain of them), which only a call can change between two lines
_FIXED = re.compile(r"k\d+|'[^'\\]*'|\d+|True|False|None")
_READ = re.compile(r"[tv]\d+\w*(?:\.[A-Za-z_]\w*)*")
_CALLED = re.compile(r"([\w.]*[\w\])])\(")   # what is called: a name, or `...]` or `...)` (never pure)
_PURE_CALLS = {"len", "type", "bail"}   # calls that change nothing (bail raises: the run is replayed)
_STRING = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""   # a string literal of the written text
# a temporary's name or a string literal (which may spell one): one pattern for every name, as a
# pattern made for each would be compiled anew once Python's cache of 512 is full
_STRING_OR_TEMP = re.compile(rf"{_STRING}|\bt\d+\b")
_STRING_OR_BRACKET = re.compile(rf"{_STRING}|[()\[\]{{}}]")
_FIRST = re.compile(r"( *)if (not )?(.+): (t\d+) = (False|True)")   # `and` stops at False, `or` at True
_SECOND = re.compile(r"( *)(t\d+) = (.+)")
_NEW_POOL = re.compile(r"( *)(t\d+) = Pool\(\)")
_CALL = re.compile(r"\w\(|[^\w .+\-*()]")   # a call, or anything but names, numbers and arithmetic
_POOL_FIELDS = ("unkept2", "kept2", "flat")
# the most brackets deep a merged line may go: each temporary written into its use adds one, and
# Python's parser refuses 200 (a sum of hundreds of calls would otherwise be one expression)
_DEEPEST = 40
# a pool's field worked out of temporaries, numbers and pools' fields alone: a temporary is set once
# (or once in each branch of an `if`), a pool's fields never change
_STABLE = re.compile(r"(?:t\d+(?:\.(?:unkept2|kept2|flat))?|\d+|[ +\-*()])+")


_ENTRY = re.compile(r"( *)next\(STEP\)")
_QUIET = re.compile(r"( *)(?:[tv]\w* = (?:\[\]|[\w.]+)|if len\(\w+\) > LIST_SIZE: bail\(\))")   # reads and stores
_CHARGE = re.compile(r"( *)if (?:\w+ and )?\(STEP_BULK := STEP_BULK - (?:len\((\w+)\)|(\d+))\) < 0: bail\(\)")


def merged(lines: list[str], present: "set[str]" = frozenset()) -> list[str]:
    """`lines` with their `and`s and `or`s joined, then their temporaries merged into their uses,
    their tests that a constant settles worked out (truths.py: `present`, the names whose
    fields cannot fail to be read), a constant no line reads left out, then a call's step spent
    with its first loop's."""
    return _charges_joined(_unread_dropped(folded_tests(_temporaries_merged(_logic_joined(_pools_fused(lines))),
                                                        present)))


_CONSTANT_SET = re.compile(r"( *)(t\d+) = (?:k\d+|'[^'\\]*'|\(?-?\d+\)?|True|False|None)")


def _unread_dropped(lines: list[str]) -> list[str]:
    """`lines` without a temporary set to a constant that no line reads (`t5 = 'base_defense'`, an
    argument of a call written in place whose body does not read it), or with `pass` for it where
    it is all its block holds."""
    uses = Counter(_TEMP.findall("\n".join(lines)))
    out = []
    for index, line in enumerate(lines):
        found = _CONSTANT_SET.fullmatch(line)
        if found is None or uses[found[2]] != 1:
            out.append(line)
            continue
        depth = found[1]
        after = lines[index + 1] if index + 1 < len(lines) else ""
        if out and out[-1].endswith(":") and not _at_depth(after, depth):
            out.append(depth + "pass")   # the block's only line
    return out


def _pools_fused(lines: list[str]) -> list[str]:
    """A pool made (`tA = Pool()` and its four fields) only to be added to or taken from
    the pool made right after it (arithmetic.pool_made): its fields' values written in place of
    its fields' reads there, when they are plain arithmetic of names (no call: worked out a few
    lines later, they give the same). A field of 0 added or taken is left out. The pool it went
    into may then go into the next in turn. Transformers adds `(spent + led)k(spent + led)` and
    the like to a pool dozens of times a fight."""
    lines = list(lines)
    out: list[str] = []
    index = 0
    while index < len(lines):
        made = _NEW_POOL.fullmatch(lines[index])
        fields = _made_pool(lines, index, made) if made else None
        if fields is None:
            out.append(lines[index])
            index += 1
            continue
        depth, name = made[1], made[2]
        after = _pool_using(lines, index + 5, depth, name, all(_STABLE.fullmatch(value) for value in fields))
        block = _NEW_POOL.fullmatch(lines[after]) if after is not None else None
        end = after + 1 if block and block[1] == depth else len(lines)
        while end < len(lines) and not lines[end].startswith(f"{depth}{block[2]}.span = "):
            end += 1
        if end == len(lines) or _used_from(lines, end + 1, name):
            out.append(lines[index])
            index += 1
            continue
        out.extend(lines[index + 5:after])
        for at in range(after, end + 1):
            for field, value in zip(_POOL_FIELDS, fields):
                if value in ("0", "0 * 2"):
                    lines[at] = re.sub(rf" [+-] {name}\.{field}\b", "", lines[at])
                lines[at] = re.sub(rf"\b{name}\.{field}\b", f"({value})", lines[at])
        index = after   # the pool it went into, which may go into the next
    return out


def _used_from(lines: list[str], start: int, name: str) -> bool:
    """Whether the temporary `name` is used from line `start` to the end of its function (a nested
    function has temporaries of its own)."""
    used = re.compile(rf"\b{name}\b")
    for line in itertools.islice(lines, start, None):
        if line.startswith("def "):
            return False
        if name in line and used.search(line):
            return True
    return False


def _pool_using(lines: list[str], start: int, depth: str, name: str, stable: bool) -> "int | None":
    """The line from `start` on, at `depth`, that makes the pool using the pool `name`: the next
    line, or a later one if the pool's fields are `stable` (what other lines do cannot change them)
    and the lines between are of that block (deeper, or at its depth)."""
    used = re.compile(rf"\b{name}\b")
    for index in range(start, len(lines)):
        line = lines[index]
        if name in line and used.search(line):
            return index - 1 if index > start and _NEW_POOL.fullmatch(lines[index - 1]) else None
        if not (stable or index == start and _NEW_POOL.fullmatch(line)) or not line.startswith(depth):
            return None
    return None


def _made_pool(lines: list[str], index: int, made) -> "tuple | None":
    """The values of the fields unkept2, kept2 and flat of the pool made at `index` (its next four
    lines), if each is plain arithmetic of names; else None."""
    depth, name = made[1], made[2]
    values = []
    for offset, field in enumerate(_POOL_FIELDS + ("span",), 1):
        line = lines[index + offset] if index + offset < len(lines) else ""
        prefix = f"{depth}{name}.{field} = "
        if not line.startswith(prefix):
            return None
        values.append(line[len(prefix):])
    return tuple(values[:3]) if not any(_CALL.search(value) for value in values[:3]) else None


def _charges_joined(lines: list[str]) -> list[str]:
    """A function that spends its call's step (`next(STEP)`) and, after nothing but reads and stores
    of names, a `for`'s length (`if (STEP_BULK := STEP_BULK - len(t)) < 0: bail()`, or a number
    `n`), spends both at the `for`: `... - len(t) - 1) ...` (`n + 1`). The same count, one call
    fewer; a run past the limit bails either way, and the closures stop it where they do."""
    out = list(lines)
    for index, line in enumerate(lines):
        entry = _ENTRY.fullmatch(line)
        if not entry or not _opens_function(lines, index):
            continue
        depth, after = entry[1], index + 1
        while after < len(lines) and _QUIET.fullmatch(lines[after]) and _QUIET.fullmatch(lines[after])[1] == depth:
            after += 1
        charge = _CHARGE.fullmatch(lines[after]) if after < len(lines) else None
        if charge and charge[1] == depth:
            out[index] = None
            both = f"len({charge[2]}) - 1" if charge[2] else int(charge[3]) + 1   # a length the set-up tells (loops.py)
            out[after] = f"{depth}if (STEP_BULK := STEP_BULK - {both}) < 0: bail()"
    return [line for line in out if line is not None]


def _opens_function(lines: list[str], index: int) -> bool:
    """Whether line `index` comes first in a function: after its `def` and its `global` line, if any."""
    before = lines[index - 1].lstrip() if index else ""
    if before.startswith(("global ", "nonlocal ")) and index > 1:
        before = lines[index - 2].lstrip()
    return before.startswith("def ")


def _logic_joined(lines: list[str]) -> list[str]:
    """`if not A: tK = False` / `else:` / `    tK = B` as `tK = (A) and (B)`; `if A: tK = True` /
    `else:` / `    tK = B` as `tK = (A) or (B)` (A and B true or false: the writer tests any other
    value in a line of its own, which this does not match)."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        first = _FIRST.fullmatch(lines[index])
        if first and index + 2 < len(lines) and lines[index + 1] == first[1] + "else:":
            second = _SECOND.fullmatch(lines[index + 2])
            logic = "and" if first[2] and first[5] == "False" else "or" if not first[2] and first[5] == "True" else None
            if logic and second and second[1] == first[1] + "    " and second[2] == first[4] and \
                    (index + 3 == len(lines) or len(lines[index + 3]) - len(lines[index + 3].lstrip(" ")) <= len(first[1])):
                out.append(f"{first[1]}{first[4]} = ({first[3]}) {logic} ({second[3]})")
                index += 3
                continue
        out.append(lines[index])
        index += 1
    return out


def _read_into(after: str, depth: str, name: str, value: str) -> bool:
    """Whether the temporary `name`, set to `value` on the line before `after`, may be replaced by
    `value` in `after`: `after` is at the same depth and run once, right after it, and `value` is
    a literal or a constant (`_FIXED`), or a read of a local's or a temporary's field (`_READ`) and
    `after` calls nothing that could change it (`_PURE_CALLS` alone): reading it there gives what
    reading it a line before gave."""
    fixed = _FIXED.fullmatch(value) is not None
    if not (fixed or _READ.fullmatch(value)) or not _at_depth(after, depth):
        return False
    statement = after[len(depth):]
    uses = _uses(statement, name)
    if statement.startswith(("elif ", "else", "while ", "except", "finally")) or " for " in statement or \
            "lambda" in statement or len(uses) != 1:
        return False
    if statement.startswith(("if ", "for ")) and uses[0] > _header_end(statement):
        return False   # in the body of a one-line `if`: read only when its test holds
    if fixed and value[0] != "k" and statement[uses[0] + len(name):].lstrip()[:1] in ("[", "(", "."):
        return False   # `True[0]`, `2(1)`, `2.bit_length()`: Python warns of a literal indexed or called
    return fixed or all(called in _PURE_CALLS or called.endswith(".bit_length")
                        for called in _CALLED.findall(after))



def _at_depth(line: str, depth: str) -> bool:
    """Whether `line` is a statement at `depth` (its indentation), not deeper nor shallower."""
    return line.startswith(depth) and line[len(depth):len(depth) + 1] not in ("", " ")


def _uses(statement: str, name: str) -> list[int]:
    """Where the temporary `name` is in `statement`, outside its string literals (a script's text
    may spell a temporary's name: found by review)."""
    return [found.start() for found in _STRING_OR_TEMP.finditer(statement) if found.group() == name]


def _header_end(statement: str) -> int:
    """Where the `:` that ends the header of an `if` or `for` statement is (not one in brackets or
    in a string), or its length when there is none."""
    depth = 0
    for found in re.finditer(rf"{_STRING}|[()\[\]{{}}:]", statement):
        char = found.group()   # a bracket, a colon or a whole string literal
        if char in ("(", "[", "{"):
            depth += 1
        elif char in (")", "]", "}"):
            depth -= 1
        elif char == ":" and depth == 0:
            return found.start()
    return len(statement)


def _temporaries_merged(lines: list[str]) -> list[str]:
    """Each `tN = X` followed by `<target> = tN`, `return tN`, `if tN:...`, `if not tN:...` or
    `tM = tN <compared> <name or constant>` (at the same depth, tN used nowhere else) written as the
    one line `<target> = X`, `return X`, `if X:...`, `if not (X):...` or `tM = (X) <compared> ...`;
    an X that only reads, in any next line that uses tN once where `_read_into` allows it; and any
    X, as `(X)`, where `_worked_out_in` does. The line made is looked at again as the next's."""
    lines = list(lines)
    uses = Counter(_TEMP.findall("\n".join(lines)))
    changing = {name for line in lines for name in _declared(line)}
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        defined = _DEFINED.fullmatch(line)
        if defined and index + 1 < len(lines) and uses[defined[2]] == 2 and not defined[3].startswith("lambda"):
            depth, name, value = defined[1], defined[2], defined[3]
            after = lines[index + 1]
            copy, test, compared = _COPY.fullmatch(after), _TEST.fullmatch(after), _COMPARED.fullmatch(after)
            if copy and copy[1] == depth and copy[3] == name:
                out.append(f"{depth}{copy[2]} = {value}" if copy[2] else f"{depth}return {value}")
            elif test and test[1] == depth and test[3] == name:
                out.append(f"{depth}if {f'not ({value})' if test[2] else value}:{test[4]}")
            elif compared and compared[1] == depth and compared[3] == name:
                out.append(f"{depth}{compared[2]} = ({value}) {compared[4]}")
            elif _read_into(after, depth, name, value):
                at = len(depth) + _uses(after[len(depth):], name)[0]
                out.append(after[:at] + value + after[at + len(name):])
            elif _worked_out_in(after, depth, name, value, changing):
                at = len(depth) + _uses(after[len(depth):], name)[0]
                out.append(after[:at] + f"({value})" + after[at + len(name):])
            else:
                out.append(line)
                index += 1
                continue
            lines[index + 1] = out.pop()   # the line made may itself be a temporary's, used next
            index += 1
            continue
        out.append(line)
        index += 1
    return out


def _declared(line: str) -> list[str]:
    """The names a `global` or `nonlocal` line (or a line of both, `global a; nonlocal b`) declares."""
    statement = line.lstrip()
    if not statement.startswith(("global ", "nonlocal ")):
        return []
    return [name.strip() for part in statement.split(";") for name in part.split(None, 1)[1].split(",")]


def _worked_out_in(after: str, depth: str, name: str, value: str, changing: "set[str]") -> bool:
    """Whether `after`, at `depth`, may work out `value` where it reads the temporary `name`
    (order.moved_in), which it reads once."""
    if not _at_depth(after, depth):
        return False
    statement = after[len(depth):]
    if _nesting(statement) + _nesting(value) >= _DEEPEST:
        return False
    uses = _uses(statement, name)
    if len(uses) != 1:
        return False
    applied = statement[uses[0] + len(name):].lstrip()[:1] in ("(", "[")
    return moved_in(statement, name, value, changing, applied)


def _nesting(text: str) -> int:
    """How deep the brackets of `text` go (its string literals' left out)."""
    deepest = depth = 0
    for found in _STRING_OR_BRACKET.finditer(text):
        char = found.group()
        if char in ("(", "[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif char in (")", "]", "}"):
            depth -= 1
    return deepest
