"""Fights per second: `mech sim` of a system's example (default examples/pbem_ambush.mech) side by
side with the same fight written by hand in plain Python (bench/hand_*.py, listed in systems.py), in
one run, on one machine.

    python bench/bench_sim.py [--system NAME] [-n N] [--hand-n M] [--seed S] [--repeats R]
                              [--profile [RUNS]] [--json]

Timed, with `time.perf_counter` (wall time) around each call:
  - `mechscript.simulate(EXAMPLE, N, seed=S, jobs=1)`, and the same with jobs=2 (that one includes
    starting its worker process, forked once the script is set up: the main process fights too);
  - the hand-written `simulate(M, seed=S)`: M fights (default 20*N, as it is much faster) of the same
    rules, default options and tactics as the module, dice from one `random.Random(S)`;
  - the same M fights split between two worker processes (a process pool started in the timing, as
    for mechscript's 2 jobs): what two processes of plain Python gain on this machine, the yardstick
    of mechscript's 2-job speedup (two CPUs that are hyperthreads of one core, or busy, give less than 2);
  - two one-job `simulate` calls of N/2 runs each, at once, in two worker processes: what two jobs
    of mechscript could gain here if the batch's pool cost nothing (its chunks sent and added up);
    mechscript's fights slow each other down more than the hand-written ones do.
The script is run once before timing, so lark's one-time grammar set-up, the modules' parsing and
Python's compiling of the written code, each kept once a process, are not counted; each simulate
call still sets the script up again (its types, its written code: 0.06 s for pbem, 0.5 s for
transformers), which the two jobs share.

Each row also shows the CPU seconds it took (this process and the worker processes it waited for,
`os.times`): 2 jobs against 1 in CPU is what the two processes slow each other and the pool
costs, a steadier figure than the wall time on a busy machine.

Printed: the win rates of both with 95% Wilson intervals (they roll different dice, so they agree
only statistically; z is the two-proportion z score of the difference), the rates in duels per
second, the ratio hand-written / mechscript (one job), and the two-job speedups. `--repeats R` times
each measurement R times, interleaved (hand, 1 job, 2 jobs, hand, ...), and shows the best.
`--profile` adds a cProfile of a one-job simulate (300 runs unless given): the top functions by
their own time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import math
import os
import platform
import pstats
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from systems import SYSTEMS  # noqa: E402  (bench/ is not a package: its folder is on sys.path above)

# the compiler issue's targets, one job: pbem at most 2.5 times the hand-written fight's time, the others 3
TARGETS = {"pbem": 2.5}
TARGET = 3.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def timed(call):
    """(wall seconds, CPU seconds of this process and the children it waited for, the call's result)."""
    before, start = os.times(), time.perf_counter()
    result = call()
    elapsed, after = time.perf_counter() - start, os.times()
    cpu = sum(getattr(after, part) - getattr(before, part) for part in ("user", "system", "children_user",
                                                                         "children_system"))
    return elapsed, cpu, result


def cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def git_commit() -> str | None:
    try:
        run = lambda *cmd: subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True,
                                          check=True).stdout.strip()
        return run("rev-parse", "--short", "HEAD") + (" + uncommitted changes" if run("status", "--porcelain",
                                                                                     "--", "mechscript") else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def load_average() -> float | None:
    """The 1-minute load average (Unix): how many processes wanted a CPU, on average."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def z_score(a: int, n: int, b: int, m: int) -> float:
    """The two-proportion z score of a/n - b/m (pooled); 0 when both are 0 or 1."""
    pooled = (a + b) / (n + m)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / m))
    return 0.0 if spread == 0 else (a / n - b / m) / spread


def _hand_half(args: tuple[str, int, int]) -> dict:
    system, n, seed = args
    return SYSTEMS[system].simulate(n, seed)


def hand_in_two_processes(system: str, n: int, seed: int) -> list[dict]:
    """n hand-written fights, half in each of two worker processes (other seeds: only the time counts)."""
    with ProcessPoolExecutor(2) as pool:
        return list(pool.map(_hand_half, [(system, n // 2, seed), (system, n - n // 2, seed + 1)]))


def _mech_half(args: tuple[str, int, int]) -> dict:
    example, n, seed = args
    import mechscript
    return mechscript.simulate(example, n, seed=seed, jobs=1)


def mech_in_two_processes(example: Path, n: int, seed: int) -> list[dict]:
    """n of mechscript's runs as two one-job batches at once, in two worker processes (other seeds:
    only the time counts), each setting the script up as a one-job simulate does: what two jobs
    could gain on this machine with no cost of their own (no chunks sent, nothing added up by a
    parent). Two one-job processes at once each run slower than one alone when the two CPUs share
    a core or its caches; the 2-job batch cannot do better than this."""
    with ProcessPoolExecutor(2) as pool:
        return list(pool.map(_mech_half, [(str(example), n // 2, seed), (str(example), n - n // 2, seed + 1)]))


def profile(example: Path, runs: int, seed: int, top: int = 10) -> str:
    import mechscript
    profiler = cProfile.Profile()
    profiler.enable()
    mechscript.simulate(str(example), runs, seed=seed, jobs=1)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=2000, help="mechscript's runs, for each job count (default 2000)")
    parser.add_argument("--hand-n", type=int, help="the hand-written implementation's runs (default 20*N)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of both (default 1)")
    parser.add_argument("--repeats", type=int, default=1, help="time each measurement R times, show the best")
    parser.add_argument("--profile", type=int, nargs="?", const=300, metavar="RUNS",
                        help="also profile a one-job simulate of RUNS runs (default 300): the top 10 by tottime")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--system", choices=list(SYSTEMS), default="pbem",
                        help="which example fight and hand-written reference (default pbem)")
    args = parser.parse_args(argv)
    system = SYSTEMS[args.system]
    example = system.example
    hand_n = args.hand_n or 20 * args.n
    if args.n < 1 or hand_n < 1 or args.repeats < 1:
        parser.error("-n, --hand-n and --repeats must be at least 1")

    import mechscript
    from mechscript.sim.stats import wilson

    mechscript.simulate(str(example), 1, seed=args.seed, jobs=1)   # warm up: lark's grammar, imports
    load_before = load_average()
    measurements = {
        "hand": (hand_n, lambda: system.simulate(hand_n, args.seed)),
        "hand2": (hand_n, lambda: hand_in_two_processes(args.system, hand_n, args.seed)),
        "mech1": (args.n, lambda: mechscript.simulate(str(example), args.n, seed=args.seed, jobs=1)),
        "mech2": (args.n, lambda: mechscript.simulate(str(example), args.n, seed=args.seed, jobs=2)),
        "mech1x2": (args.n, lambda: mech_in_two_processes(example, args.n, args.seed)),
    }
    seconds = {key: [] for key in measurements}
    cpu_seconds = {key: [] for key in measurements}
    results = {}
    for repeat in range(args.repeats):
        for key, (n, call) in measurements.items():
            log(f"repeat {repeat + 1}/{args.repeats}: {key}, {n} runs ...")
            elapsed, cpu, results[key] = timed(call)
            seconds[key].append(elapsed)
            cpu_seconds[key].append(cpu)
    rates = {key: measurements[key][0] / min(times) for key, times in seconds.items()}
    load_after = load_average()

    hand, mech1, mech2 = results["hand"], results["mech1"], results["mech2"]
    sides = [side for side in mech1["winners"]]
    agreement = []
    for side in sides:
        a, b = mech1["winners"][side]["count"], hand["winners"][side]
        agreement.append({"side": side, "mechscript": {"count": a, "rate": a / args.n, "ci95": wilson(a, args.n)},
                          "hand": {"count": b, "rate": b / hand_n, "ci95": wilson(b, hand_n)},
                          "z": z_score(a, args.n, b, hand_n)})
    report = {
        "env": {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
                "machine": platform.machine(), "cpus": cpus(), "mechscript": mechscript.__version__,
                "commit": git_commit(), "load_average": [load_before, load_after]},
        "settings": {"system": args.system, "example": str(example.relative_to(ROOT)), "n": args.n,
                     "hand_n": hand_n, "seed": args.seed, "repeats": args.repeats},
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "duels_per_second": rates,
        "ratio_hand_to_mech1": rates["hand"] / rates["mech1"],
        "speedup_2_jobs": rates["mech2"] / rates["mech1"],
        "speedup_hand_2_processes": rates["hand2"] / rates["hand"],
        "speedup_two_1_job_processes": rates["mech1x2"] / rates["mech1"],
        "jobs_identical": mech1 == mech2,
        "rounds_mean": {"mechscript": mech1["rounds"]["mean"], "hand": hand["rounds_mean"]},
        "win_rates": agreement,
    }
    if args.profile:
        log(f"profiling a one-job simulate of {args.profile} runs ...")
        report["profile"] = profile(example, args.profile, args.seed)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


def print_report(r: dict) -> None:
    env, s = r["env"], r["settings"]
    print(f"Python {env['python']} ({env['implementation']}, {env['machine']}, {env['cpus']} CPUs); "
          f"mechscript {env['mechscript']}{' at ' + env['commit'] if env['commit'] else ''}")
    print(f"{s['example']}, seed {s['seed']}; mechscript {s['n']} runs, hand-written "
          f"{s['hand_n']} runs; wall time, best of {s['repeats']}")
    before, after = env["load_average"]
    if before is not None:
        # our own processes count in `after` (1 to 2), hardly in `before` (only the short warm-up)
        busy = "; other processes were running: the rates are low, the 2-job speedup most of all" \
            if before > 1 else ""
        print(f"load average (1 min) {before:.2f} before timing, {after:.2f} after{busy}")
    print()
    rows = [("mechscript, 1 job", "mech1", s["n"]), ("mechscript, 2 jobs", "mech2", s["n"]),
            ("two 1-job at once", "mech1x2", s["n"]),
            ("hand-written", "hand", s["hand_n"]), ("hand, 2 processes", "hand2", s["hand_n"])]
    print(f"{'':<20}{'runs':>8}{'seconds':>10}{'duels/s':>11}{'CPU s':>8}")
    for label, key, n in rows:
        print(f"{label:<20}{n:>8}{min(r['seconds'][key]):>10.2f}{r['duels_per_second'][key]:>11,.0f}"
              f"{min(r['cpu_seconds'][key]):>8.2f}")
    ratio = r["ratio_hand_to_mech1"]
    print()
    target = TARGETS.get(s["system"], TARGET)
    print(f"hand-written / mechscript (1 job): {ratio:.1f}x  (target: at most {target:g}x; "
          f"{'met' if ratio <= target else 'not met'})")
    print(f"2 jobs / 1 job: {r['speedup_2_jobs']:.2f}x on {env['cpus']} CPUs (plain Python in 2 processes: "
          f"{r['speedup_hand_2_processes']:.2f}x); the same numbers with 1 and 2 jobs: "
          f"{'yes' if r['jobs_identical'] else 'NO'}")
    print(f"two 1-job batches at once / 1 job: {r['speedup_two_1_job_processes']:.2f}x: what 2 jobs could reach "
          f"here if they cost nothing of their own")
    cpu = {key: min(times) for key, times in r["cpu_seconds"].items()}
    print(f"CPU seconds of 2 jobs / 1 job: {cpu['mech2'] / cpu['mech1']:.2f} (two 1-job batches at once: "
          f"{cpu['mech1x2'] / cpu['mech1']:.2f}; plain Python: {cpu['hand2'] / cpu['hand']:.2f}): steadier than the "
          f"wall time on a busy machine, what the processes slow each other and the pool costs")
    print()
    print("win rates with 95% Wilson intervals (different dice: they should agree within the intervals, |z| < ~2)")
    print(f"{'':<13}{'mechscript (1 job)':<26}{'hand-written':<26}{'z':>6}")
    cell = lambda x: f"{x['rate']:.3f} [{x['ci95'][0]:.3f}, {x['ci95'][1]:.3f}]"
    for row in r["win_rates"]:
        print(f"{row['side']:<13}{cell(row['mechscript']):<26}{cell(row['hand']):<26}{row['z']:>6.2f}")
    rounds = r["rounds_mean"]
    print(f"{'mean rounds':<13}{rounds['mechscript']:<26.3f}{rounds['hand']:<26.3f}")
    if "profile" in r:
        print()
        print("cProfile of a one-job simulate, top 10 by tottime:")
        print(r["profile"].strip())


if __name__ == "__main__":
    sys.exit(main())
