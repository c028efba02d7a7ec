"""The modifiers of a dice term as written (`kh3`, `!>=5`, `r<2`): plain data, made by the parser
(the AST holds them) and read by the engine that rolls them (engine.py) and by the exact
distributions (distribution.py)."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

from ..errors import Span

_COMPARE = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "=": operator.eq}


@dataclass(frozen=True, slots=True)
class Condition:
    """A face condition such as `>=8`, `<2` or `=1` (a bare number means `=`)."""

    op: str
    value: int

    def test(self, face) -> bool:
        return _COMPARE[self.op](face, self.value)

    def __str__(self) -> str:
        return str(self.value) if self.op == "=" else f"{self.op}{self.value}"


@dataclass(frozen=True, slots=True)
class Modifier:
    """One dice modifier, e.g. `kh3` (kind "kh", count 3) or `!>=5` (kind "!", condition >=5)."""

    # kh kl dh dl (a count), k d (keep or drop by value), ! !! !p xo (explode, explode once),
    # r ro ra (reroll, once, once and add), mi ma, c f cf (count successes, failures, failures alone)
    kind: str
    count: int | None
    condition: Condition | None
    span: Span | None = None
    written: str | None = field(default=None, compare=False)  # as the user wrote it (`x>=5` is kind `!`)

    def __str__(self) -> str:
        """As written: `kh3`, `!>=5`, `!`, `x>=5`."""
        if self.written is not None:
            return self.written
        return f"{self.kind}{self.count if self.count is not None else self.condition or ''}"
