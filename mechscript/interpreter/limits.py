"""Limits that keep a stranger's roll or script from hanging or exhausting the machine.

All limits live in one object; each is checked in one place and, when exceeded, raises a
MechError that names the limit and how to raise it (`--limit NAME=N` on the command line,
`Limits(NAME=N)` in Python).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields, replace

from .errors import MechError, Span


@dataclass(frozen=True, slots=True)
class Limits:
    dice_per_roll: int = 1_000          # dice rolled by one term, before explosions and rerolls
    explosion_depth: int = 100          # rounds of explosions or rerolls for one term
    total_dice: int = 1_000_000         # dice rolled by one roll or run of a script, extra dice included
    die_sides: int = 1_000_000          # sides of one die
    nesting: int = 200                  # depth of nested parentheses and operators
    modifiers: int = 20                 # modifiers on one dice term (`4d6r1kh3` has 2)
    rolls: int = 100_000                # times one `mech roll -n N` may roll
    steps: int = 1_000_000              # statements, calls and loop rounds of one run of a script
    loop_iterations: int = 100_000      # rounds of one loop (`while`, `for`, `repeat`)
    recursion: int = 200                # depth of nested function calls
    list_size: int = 100_000            # items in one list
    string_size: int = 100_000          # characters in one string
    output_lines: int = 10_000          # lines `say` may print in one run
    rounds: int = 1_000                 # rounds of one encounter
    number_bits: int = 10_000           # size of one whole number (about 3,000 digits)
    exact_work: int = 5_000_000         # steps of one exact distribution (`mech prob`, `prob()`)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def with_overrides(self, overrides: dict[str, int]) -> "Limits":
        return replace(self, **overrides)


def limit_error(name: str, what: str, limit: int, span: Span | None) -> MechError:
    return MechError(
        f"{what}; the limit `{name}` is {limit}",
        span,
        hint=f"raise it with --limit {name}=N (Python: Limits({name}=N))",
    )


# Nested expressions are parsed, compiled and run by recursion, a few Python frames per level; this
# leaves room for a raised `nesting` limit, and RecursionError beyond it becomes `too_deep()`.
PYTHON_RECURSION = 20_000


def make_room_for_nesting() -> None:
    if sys.getrecursionlimit() < PYTHON_RECURSION:
        sys.setrecursionlimit(PYTHON_RECURSION)


def too_deep() -> MechError:
    return MechError("nested too deeply: Python's own stack ran out",
                     hint="lower the `recursion` limit (calls) or the `nesting` limit (expressions)")
