"""Milliseconds of a batch's set-up (backend/quiet.py's QuietFight: the checker's types, what a quiet
run leaves out, the written Python), for each system's example, and where that time goes.

    python bench/bench_setup.py [--system NAME ...] [--repeats R] [--phases]

The set-up is serial: a batch of two jobs forks its worker once it is done, so it bounds what two
jobs gain on a short batch (bench_spread.py). Each figure is the best of R set-ups (default 5) of a
script compiled once (the parse is not counted; `mech sim` reads it from its cache). `--phases`
adds, from R more set-ups, the mean milliseconds of each of its passes (a timer around each, which
costs a little). Run it in a worktree of an older commit and in this one, alternately, for a side
by side comparison (`git worktree add /tmp/old REV`, then `cd /tmp/old && PYTHONPATH=. python
bench/bench_setup.py`): set-ups move 5-10% between runs on a busy machine.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from systems import SYSTEMS

from mechscript.backend import emit, quiet
from mechscript.interpreter.script import compile_script
from mechscript.limits import Limits

# the passes of QuietFight._namespace, by the name quiet.py calls them by
PASSES = ("infer", "Purity", "left_out", "uncalled", "unread_fields", "Remembered", "call_depth", "merged",
          "compiled", "has_pools", "named_calls")


def timed_passes(spent: Counter) -> None:
    """Puts a timer around each of PASSES and the writing of the functions, adding to `spent`."""
    def timer(name, work):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return work(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start
        return timed

    for name in PASSES:
        setattr(quiet, name, timer(name, getattr(quiet, name)))
    emit.Emitter.function = timer("writing the functions", emit.Emitter.function)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--system", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS))
    parser.add_argument("--repeats", type=int, default=5, help="set-ups timed of each (default 5)")
    parser.add_argument("--phases", action="store_true", help="where the set-up's time goes")
    args = parser.parse_args()
    scripts = {}
    for name in args.system:
        example = SYSTEMS[name].example
        scripts[name] = compile_script(example.read_text(), str(example), example.parent, Limits())
        quiet.QuietFight(scripts[name])   # Python's compiling of the written code, kept once a process
    print(f"{'system':<16}{'set-up ms':>10}")
    for name, script in scripts.items():
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            quiet.QuietFight(script)
            times.append(time.perf_counter() - start)
        print(f"{name:<16}{min(times) * 1000:>10.1f}", flush=True)
    if args.phases:
        spent: Counter = Counter()
        timed_passes(spent)
        for name, script in scripts.items():
            spent.clear()
            start = time.perf_counter()
            for _ in range(args.repeats):
                quiet.QuietFight(script)
            whole = (time.perf_counter() - start) / args.repeats
            print(f"\n{name}: {whole * 1000:.1f} ms a set-up, timers included")
            for phase, seconds in spent.most_common():
                share = seconds / args.repeats
                print(f"    {phase:<24}{share * 1000:>8.1f} ms {share / whole:6.1%}")
            print(f"    {'the rest':<24}{(whole - sum(spent.values()) / args.repeats) * 1000:>8.1f} ms")


if __name__ == "__main__":
    main()
