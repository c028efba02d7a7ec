"""The four systems' example fights and their hand-written references (bench/hand_*.py), for the
scripts that measure mechscript against them (count_sim.py, bench_sim.py)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import hand_neojove  # noqa: E402  (bench/ is not a package: its folder is on sys.path above)
import hand_pbem  # noqa: E402
import hand_robomacs  # noqa: E402
import hand_transformers  # noqa: E402


class System:
    """An example fight: its script, fresh characters of its hand-written fight, that fight, and
    many of them (`simulate(n, seed)`: {"runs", "winners", "rounds_mean", ...})."""

    def __init__(self, example: str, characters, fight, simulate):
        self.example = ROOT / example
        self.characters, self.fight, self.simulate = characters, fight, simulate


SYSTEMS = {
    "pbem": System("examples/pbem_ambush.mech", hand_pbem.ambush, hand_pbem.fight, hand_pbem.simulate),
    "transformers": System("examples/transformers_duel.mech", hand_transformers.characters, hand_transformers.fight,
                           hand_transformers.simulate),
    "neojove_duel": System("examples/neojove_duel.mech", lambda: hand_neojove.characters("neojove_duel"),
                           hand_neojove.fight, lambda n, seed: hand_neojove.simulate(n, seed, example="neojove_duel")),
    "neojove_frigate": System("examples/neojove_frigate.mech", lambda: hand_neojove.characters("neojove_frigate"),
                              hand_neojove.fight,
                              lambda n, seed: hand_neojove.simulate(n, seed, example="neojove_frigate")),
    "robomacs": System("examples/robomacs_spartacus.mech", hand_robomacs.characters, hand_robomacs.fight,
                       hand_robomacs.simulate),
}
