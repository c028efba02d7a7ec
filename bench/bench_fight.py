"""Microseconds a fight, set-up left out: the written code of a system's example (backend/quiet.py,
as `mech sim` fights each run) against the same fight written by hand (bench/hand_*.py), in one
process, and where the written run's time goes: inside the rules' fight function, or outside it
(the run's seeding, budgets and timer, restoring the sheets, reading the report).

    python bench/bench_fight.py [--system NAME ...] [-n N] [--repeats R]

Each measure is the best of R passes (default 3) over the same N seeds (run_seed(1, i), as a batch
of seed 1); the hand-written fight plays 5*N fights with one random.Random(1). The time outside the
fight function is taken in passes of its own, with a timer around that function, so that the timer's
cost stays out of the first figure; the time in the fight is the rest. Run it in a worktree of an older commit and in this one, alternately, for a side
by side comparison (`git worktree add /tmp/old REV`, then `cd /tmp/old && PYTHONPATH=. python
bench/bench_fight.py`): figures on a busy machine move 5-10% between runs; count_sim.py's bytecodes
are the steady measure.
"""

from __future__ import annotations

import argparse
import time

from systems import SYSTEMS

from mechscript.backend.quiet import QuietFight
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits
from mechscript.sim.batch import run_seed

RUNS = {"pbem": 4000, "neojove_duel": 1500, "neojove_frigate": 1500}   # the others: 1,000


def best(passes: int, work) -> float:
    """The least wall time of `passes` calls of `work`."""
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(name: str, runs: int, passes: int) -> dict:
    system = SYSTEMS[name]
    script = compile_script(system.example.read_text(), str(system.example), system.example.parent, Limits())
    quiet = QuietFight(script)
    seeds = [run_seed(1, index) for index in range(runs)]

    def fights():
        with quiet.timer.handling():   # as a batch's chunk fights its runs (sim/batch.py)
            for seed in seeds:
                quiet.fight(seed)

    whole = best(passes, fights) / runs
    inner = quiet.namespace[quiet.fight_name]
    inside = [0.0]

    def timed(encounter):
        start = time.perf_counter()
        try:
            return inner(encounter)
        finally:
            inside[0] += time.perf_counter() - start

    quiet.namespace[quiet.fight_name] = timed
    split = []
    for _ in range(passes):
        inside[0] = 0.0
        split.append((best(1, fights), inside[0]))
    quiet.namespace[quiet.fight_name] = inner
    total, within = min(split)
    outside = (total - within) / runs
    hand = best(passes, lambda: system.simulate(5 * runs, seed=1)) / (5 * runs)
    return {"written": whole, "hand": hand, "inside": whole - outside, "outside": outside}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--system", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS))
    parser.add_argument("-n", type=int, default=None, help="fights a pass (default: 4,000 for pbem, 1,500 for neojove, "
                                                           "1,000 for the others)")
    parser.add_argument("--repeats", type=int, default=3, help="passes of each measure; the best counts")
    args = parser.parse_args()
    print(f"{'system':16} {'written us':>11} {'hand us':>9} {'x':>6}   {'in the fight':>12} {'outside':>8}")
    for name in args.system:
        found = measure(name, args.n or RUNS.get(name, 1000), args.repeats)
        print(f"{name:16} {found['written'] * 1e6:11.1f} {found['hand'] * 1e6:9.1f} "
              f"{found['written'] / found['hand']:5.2f}x   {found['inside'] * 1e6:12.1f} {found['outside'] * 1e6:8.1f}")


if __name__ == "__main__":
    main()
