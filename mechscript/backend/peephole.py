"""Small rewrites of the written text that Python's compiler does not make: fewer bytecodes, the
same work in the same order.

The writer gives every value a temporary (`t12 = ...`) and then uses it; where that use is the next
line and is a plain copy (`v3_x = t12`, `return t12`), the temporary is one store and one load too
many. Temporaries are named once in the whole text (`t` and a number), so a name that occurs twice
occurs only at its definition and that copy: the copy takes the value directly. (A temporary's name
inside a string constant counts as a use, which at worst keeps a copy.)
"""

from __future__ import annotations

import re
from collections import Counter

_TEMP = re.compile(r"\bt\d+\b")
_DEFINED = re.compile(r"( *)(t\d+) = (.+)")
_COPY = re.compile(r"( *)(?:([\w.]+) = |return )(t\d+)")


def copies_merged(lines: list[str]) -> list[str]:
    """`lines` with each `tN = X` followed by `<target> = tN` or `return tN` (at the same depth, tN
    used nowhere else) written as the one line `<target> = X` or `return X`."""
    uses = Counter(_TEMP.findall("\n".join(lines)))
    merged: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        defined = _DEFINED.fullmatch(line)
        if defined and index + 1 < len(lines) and uses[defined[2]] == 2:
            copy = _COPY.fullmatch(lines[index + 1])
            if copy and copy[1] == defined[1] and copy[3] == defined[2]:
                target = f"{copy[2]} = " if copy[2] else "return "
                merged.append(f"{defined[1]}{target}{defined[3]}")
                index += 2
                continue
        merged.append(line)
        index += 1
    return merged
