"""`mech check` runs what `mech run` does before its first die: the deterministic set-up.

A run is the same for every seed until it draws its first die: the modules' top levels, the house
rules, the characters made and checked against their kinds (ranges, choices, a module's `fail`
about a sheet), the encounter's sides and options, and the fight's own first steps (a rules
module checking the sheets). So an error there is an error of every run, and `mech check` can
report it exactly as `mech run` words it, by running that far with a face source that refuses
every die. Where a die is needed the rehearsal stops: what follows depends on the dice and stays
a run-time error. Each encounter of the script is rehearsed in a run of its own, as `mech run
--encounter NAME` would fight it; what the script says is not shown.
"""

from __future__ import annotations

from ..interpreter.script import Script


class _DiceNeeded(Exception):
    """The rehearsal reached its first die: the rest depends on the dice."""


class RefusesDice:
    """The face source of a rehearsal: any draw at all stops it."""

    def roll(self, n, die):
        raise _DiceNeeded()


def rehearse(script: Script) -> None:
    """Runs `script` up to its first die, once for each of its encounters (once if it has none).
    Raises the MechError `mech run` would give before any die; nothing if none comes first."""
    chosen = script.encounter
    names = [name for name, _ in script.encounters] or [None]
    try:
        for name in names:
            script.encounter = name
            try:
                script.run(RefusesDice())
            except _DiceNeeded:
                continue
    finally:
        script.encounter = chosen
