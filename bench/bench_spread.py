"""Where a batch in two jobs loses time against half of one job: when each process fights, and
how long each waits, read from the batch's own chunks (not from the wall time alone, which moves
8% between runs on a busy machine while these stay steady).

    python bench/bench_spread.py [--system NAME] [-n N] [--repeats R]

Each of R batches (`simulate(example, N, seed=1, jobs=2)`, after one batch to warm the process)
prints, in milliseconds from the call:
  - the set-up (the script compiled and its written code set up, before the pool starts),
  - when this process and the worker fight their first chunk (the worker's lateness is the pool's
    start: forking it, its initializer, the first chunk handed over),
  - when each fights its last, and how long the one that ended first waited for the other,
  - the chunks each fought, and the share of the two processes' time from the first chunk to the
    last that went to fighting runs (1.0: no time lost to handing chunks out, adding them up, or
    waiting), and the microseconds a run took to fight, over both processes.
Each chunk's process and times are noted by wrapping `_fight_chunk` of `mechscript.sim.batch`,
which the forked worker inherits.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from systems import SYSTEMS

import mechscript
from mechscript.sim import batch as sim_batch

_fight_chunk = sim_batch._fight_chunk


def noted_chunk(*args, **kwargs):
    """The chunk, with (process id, first second, last second) of its fight."""
    began = time.perf_counter()
    chunk = _fight_chunk(*args, **kwargs)
    chunk.noted = (os.getpid(), began, time.perf_counter())
    return chunk


def one_batch(example: str, n: int) -> dict:
    chunks = []
    add = sim_batch._Stream.add

    def noted_add(stream, chunk):
        chunks.append(chunk.noted)
        add(stream, chunk)

    sim_batch._Stream.add = noted_add
    try:
        start = time.perf_counter()
        mechscript.simulate(example, n, seed=1, jobs=2)
        total = time.perf_counter() - start
    finally:
        sim_batch._Stream.add = add
    here = [(s - start, e - start) for pid, s, e in chunks if pid == os.getpid()]
    there = [(s - start, e - start) for pid, s, e in chunks if pid != os.getpid()]
    if not there:
        raise SystemExit("the worker fought no chunk: one core, or too few runs for two jobs")
    first = min(s for s, _ in here + there)
    last = max(e for _, e in here + there)
    fighting = sum(e - s for s, e in here + there)
    return {"total": total, "here first": min(s for s, _ in here), "worker first": min(s for s, _ in there),
            "here last": max(e for _, e in here), "worker last": max(e for _, e in there),
            "chunks": (len(here), len(there)), "share": fighting / (2 * (last - first)), "per run": fighting / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--system", choices=list(SYSTEMS), default="pbem")
    parser.add_argument("-n", type=int, default=20000, help="runs a batch (default 20,000)")
    parser.add_argument("--repeats", type=int, default=5, help="batches (default 5)")
    args = parser.parse_args()
    sim_batch._fight_chunk = noted_chunk
    example = str(SYSTEMS[args.system].example)
    mechscript.simulate(example, 200, seed=1)
    print(f"{args.system}, {args.n:,} runs in 2 jobs; ms from the call")
    print(f"{'total':>7} {'set-up':>7} {'worker late':>11} {'here last':>9} {'worker last':>11} {'waited':>7}"
          f" {'chunks':>9} {'fighting':>8} {'us a run':>8}")
    shares, lates, waits = [], [], []
    for _ in range(args.repeats):
        b = one_batch(example, args.n)
        late, waited = b["worker first"] - b["here first"], abs(b["worker last"] - b["here last"])
        shares.append(b["share"]), lates.append(late), waits.append(waited)
        print(f"{b['total'] * 1e3:7.0f} {b['here first'] * 1e3:7.0f} {late * 1e3:11.1f} {b['here last'] * 1e3:9.0f}"
              f" {b['worker last'] * 1e3:11.0f} {waited * 1e3:7.1f} {'%d+%d' % b['chunks']:>9} {b['share']:8.3f}"
              f" {b['per run'] * 1e6:8.1f}")
    print(f"median: worker late {statistics.median(lates) * 1e3:.1f} ms, waited {statistics.median(waits) * 1e3:.1f} ms,"
          f" fighting {statistics.median(shares):.3f} of the two processes' time")


if __name__ == "__main__":
    main()
