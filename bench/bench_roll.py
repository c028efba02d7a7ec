"""Rolls per second: mechscript side by side with the `d20` package, in one run, on one machine.

    python bench/bench_roll.py [--seconds S] [--repeats N] [--clock C] [--d20-python PATH] [--no-d20] [--json]

Each expression is parsed once and evaluated many times:
  - mechscript `CompiledRoll.total(source)`: the value only;
  - mechscript `CompiledRoll.roll(source)`: the value and the display text;
  - d20 `Roller().roll(tree).total` (d20 builds its text lazily, so this is its value only), and
    `str(Roller().roll(tree))` (its Markdown text), where d20 has the notation.
d20 has no roll-and-keep (`7k3`) or success counting (`10d10c>=7`): those rows say n/a; they are
not emulated in d20.

d20 runs in its own virtual environment (it pins `lark-parser` 0.9, which installs the same import
name as mechscript's `lark`), in a subprocess running bench/d20_worker.py. Without --d20-python the
venv is bench/.d20-venv, created on first use with `python -m venv` and `pip install d20`.

Timing: every measurement is calibrated to about S/N seconds per repeat, then the N repeats of all
the measurements of an expression are interleaved (mechscript, d20, mechscript, d20, ...) so a
drift of the machine's speed hits both sides alike. The clock is `time.perf_counter`
(`--clock process_time` counts only the CPU time of the process timing, steadier when other
processes share the machine). The table shows the best repeat (`--stat median` for the median);
--json gives every repeat.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

BENCH = Path(__file__).resolve().parent
WORKER = BENCH / "d20_worker.py"
DEFAULT_VENV = BENCH / ".d20-venv"
TARGET_RATIO = 10.0

# (mechscript expression, the same roll in d20's notation or None, why not / what for)
EXPRESSIONS = [
    ("3d6", "3d6", None),
    ("4d6kh3", "4d6kh3", None),
    ("7k3", None, "d20 has no roll-and-keep"),
    ("10d10c>=7", None, "d20 has no success counting"),
    ("10d10", "10d10", "reference: more dice, no modifiers"),
]


# ---------------------------------------------------------------- timing

@dataclass
class Measurement:
    """One thing timed: `run(loops)` evaluates `loops` times and returns the seconds it took."""

    side: str      # "mechscript" or "d20"
    mode: str      # "total", "roll" (mechscript) or "total", "text" (d20)
    run: object
    loops: int = 0
    times: list = field(default_factory=list)

    def calibrate(self, seconds_per_repeat: float) -> None:
        loops, elapsed = 1, 0.0
        while True:
            elapsed = self.run(loops)
            if elapsed >= 0.02 or loops >= 10**8:
                break
            loops *= 10 if elapsed < 0.002 else 2
        self.loops = max(1, math.ceil(loops * seconds_per_repeat / max(elapsed, 1e-9)))

    def repeat(self) -> None:
        self.times.append(self.run(self.loops))

    @property
    def rates(self) -> list[float]:
        return [self.loops / t for t in self.times]

    def summary(self) -> dict:
        rates = self.rates
        return {"best": max(rates), "median": statistics.median(rates), "loops": self.loops,
                "repeats": len(rates), "rates": rates}


CLOCKS = {"perf_counter": time.perf_counter, "process_time": time.process_time}


def mechscript_runner(compiled, source, method: str, keep_gc: bool, clock_name: str):
    evaluate = getattr(compiled, method)
    clock = CLOCKS[clock_name]

    def run(loops: int) -> float:
        rng = range(loops)
        gc_was_enabled = gc.isenabled()
        if not keep_gc:
            gc.disable()
        try:
            start = clock()
            for _ in rng:
                evaluate(source)
            return clock() - start
        finally:
            if gc_was_enabled:
                gc.enable()
    return run


# ---------------------------------------------------------------- d20 in its own venv

def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def imports_d20(python: Path) -> bool:
    return subprocess.run([str(python), "-I", "-c", "import d20"], capture_output=True).returncode == 0


def ensure_d20_python(given: str | None) -> Path:
    """The Python of d20's own venv: --d20-python, else bench/.d20-venv (created when missing)."""
    if given:
        python = Path(given)
        if not imports_d20(python):
            sys.exit(f"bench_roll: {python} cannot import d20")
        return python
    python = venv_python(DEFAULT_VENV)
    if python.exists() and imports_d20(python):
        return python
    log(f"creating d20's venv in {DEFAULT_VENV} (python -m venv; pip install d20) ...")
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(DEFAULT_VENV)], check=True, stdout=sys.stderr)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "d20"],
                       check=True, stdout=sys.stderr)
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(f"bench_roll: could not set up d20's venv ({error}); give one with --d20-python PATH, "
                 f"or run without d20: --no-d20")
    if not imports_d20(python):
        sys.exit(f"bench_roll: {python} still cannot import d20")
    return python


class D20Worker:
    """bench/d20_worker.py running in d20's venv; one JSON request and reply per line."""

    def __init__(self, python: Path):
        self.process = subprocess.Popen([str(python), "-I", str(WORKER)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, cwd=str(BENCH))

    def ask(self, **request) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"bench_roll: the d20 worker stopped (exit code {self.process.wait()})")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"d20 worker: {reply['error']}")
        return reply

    def runner(self, expr: str, mode: str, keep_gc: bool, clock: str):
        return lambda loops: self.ask(cmd="time", expr=expr, mode=mode, loops=loops, gc=keep_gc,
                                      clock=clock)["seconds"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


# ---------------------------------------------------------------- the run

def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def git_state(package: Path) -> dict | None:
    """The commit of the mechscript measured, and whether its files differ from that commit."""
    try:
        run = lambda *cmd: subprocess.run(["git", *cmd], cwd=package, capture_output=True, text=True,
                                          check=True).stdout.strip()
        return {"commit": run("rev-parse", "--short", "HEAD"),
                "mechscript_modified": bool(run("status", "--porcelain", "--", "."))}
    except (OSError, subprocess.CalledProcessError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="time spent on each measurement, over all its repeats (default 1.0)")
    parser.add_argument("--repeats", type=int, default=10, help="repeats per measurement (default 10)")
    parser.add_argument("--stat", choices=("best", "median"), default="best",
                        help="which repeat the table shows (default best)")
    parser.add_argument("--d20-python", metavar="PATH",
                        help="Python of a venv with d20 installed (default: bench/.d20-venv, created if missing)")
    parser.add_argument("--no-d20", action="store_true", help="measure mechscript only")
    parser.add_argument("--no-gc", action="store_true",
                        help="disable the garbage collector inside timed loops, as timeit does (default: on)")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="perf_counter",
                        help="time.perf_counter (wall time, the default) or time.process_time (CPU time of "
                             "the process: steadier on a busy machine, where other processes take turns)")
    parser.add_argument("--seed", type=int, default=1, help="seed of mechscript's face source (default 1)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")

    import mechscript
    from mechscript.dice.faces import RandomFaces

    keep_gc = not args.no_gc
    worker = d20_info = None
    if not args.no_d20:
        d20_python = ensure_d20_python(args.d20_python)
        worker = D20Worker(d20_python)
        d20_info = worker.ask(cmd="hello")
        if Path(d20_info["prefix"]).resolve() == Path(sys.prefix).resolve():
            sys.exit("bench_roll: d20 must run in its own venv, not in mechscript's Python "
                     f"({sys.prefix}); see --d20-python")

    source = RandomFaces(args.seed)
    per_repeat = args.seconds / args.repeats
    results = []
    try:
        for expr, d20_expr, note in EXPRESSIONS:
            compiled = mechscript.compile_roll(expr)
            measurements = [Measurement("mechscript", "total",
                                        mechscript_runner(compiled, source, "total", keep_gc, args.clock)),
                            Measurement("mechscript", "roll",
                                        mechscript_runner(compiled, source, "roll", keep_gc, args.clock))]
            if worker and d20_expr:
                worker.ask(cmd="prepare", expr=d20_expr)
                measurements += [Measurement("d20", "total", worker.runner(d20_expr, "total", keep_gc, args.clock)),
                                 Measurement("d20", "text", worker.runner(d20_expr, "text", keep_gc, args.clock))]
            log(f"{expr}: calibrating {len(measurements)} measurements ...")
            for m in measurements:
                m.calibrate(per_repeat)
            for _ in range(args.repeats):  # interleaved: each repeat times every measurement once
                for m in measurements:
                    m.repeat()
            row = {"expr": expr, "d20_expr": d20_expr if worker else None, "note": note}
            for m in measurements:
                row.setdefault(m.side, {})[m.mode] = m.summary()
            if "d20" in row:
                # Sanity check: the two sides roll the same distribution (same mean, within noise).
                n = 20_000
                mine = sum(compiled.total(source) for _ in range(n)) / n
                theirs = worker.ask(cmd="sample", expr=d20_expr, n=n)["mean"]
                row["mean_check"] = {"n": n, "mechscript": mine, "d20": theirs,
                                     "agree": abs(mine - theirs) <= 0.05 * max(abs(mine), abs(theirs), 1)}
                for mode, their_mode in (("total", "total"), ("roll", "text")):
                    row[f"ratio_{mode}"] = {stat: row["mechscript"][mode][stat] / row["d20"][their_mode][stat]
                                            for stat in ("best", "median")}
            results.append(row)
    finally:
        if worker:
            worker.close()

    env = {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
           "machine": platform.machine(), "platform": platform.platform(), "cpus": os.cpu_count(),
           "mechscript": mechscript.__version__, "git": git_state(Path(mechscript.__file__).parent), "lark": version("lark"), "d20": d20_info}
    settings = {"seconds": args.seconds, "repeats": args.repeats, "stat": args.stat, "gc": keep_gc,
                "clock": args.clock,
                "seed": args.seed, "target_ratio": TARGET_RATIO}
    if args.json:
        print(json.dumps({"env": env, "settings": settings, "results": results}, indent=2))
    else:
        print_table(results, env, settings)
    for row in results:
        check = row.get("mean_check")
        if check and not check["agree"]:
            log(f"warning: {row['expr']}: mean total differs: mechscript {check['mechscript']:.3f}, "
                f"d20 {check['d20']:.3f}; the two sides may not roll the same thing")
    return 0


def print_table(results: list, env: dict, settings: dict) -> None:
    stat = settings["stat"]
    d20 = env["d20"]
    git = env["git"]
    at = f" at {git['commit']}{' + uncommitted changes' if git['mechscript_modified'] else ''}" if git else ""
    print(f"Python {env['python']} ({env['implementation']}, {env['machine']}, {env['cpus']} CPUs); "
          f"mechscript {env['mechscript']}{at} with lark {env['lark']}; "
          + (f"d20 {d20['d20']} with lark-parser {d20['lark-parser']} (Python {d20['python']}, own venv)"
             if d20 else "d20 not measured"))
    print(f"rolls per second, {stat} of {settings['repeats']} repeats, ~{settings['seconds']:g} s per "
          f"measurement, {settings['clock']}, gc {'on' if settings['gc'] else 'off'}; "
          "parsed once, evaluated many times")
    print()
    headers = ["expression", "mech total()/s", "mech roll()/s", "d20 total/s", "d20 text/s",
               "total() vs d20", "roll() vs d20 text", f"{TARGET_RATIO:g}x target"]
    rows = []
    for row in results:
        mech = row["mechscript"]
        theirs = row.get("d20")
        if theirs:
            ratio = row["ratio_total"][stat]
            target = "met" if ratio >= TARGET_RATIO else f"{TARGET_RATIO / ratio:.2f}x to go"
            cells = [f"{theirs['total'][stat]:,.0f}", f"{theirs['text'][stat]:,.0f}",
                     f"{ratio:.1f}x", f"{row['ratio_roll'][stat]:.1f}x", target]
        else:
            cells = ["n/a", "n/a", "n/a", "n/a", "n/a"]
        rows.append([row["expr"], f"{mech['total'][stat]:,.0f}", f"{mech['roll'][stat]:,.0f}", *cells])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    print(line(headers))
    print(line(["-" * w for w in widths]))
    for r in rows:
        print(line(r))
    notes = [f"{row['expr']}: {row['note']}" for row in results if row["note"]]
    if notes:
        print()
        print("n/a and notes: " + "; ".join(notes))
    print(f"ratio = mechscript rate / d20 rate; target: mechscript total() at least {TARGET_RATIO:g}x d20's rate")


if __name__ == "__main__":
    sys.exit(main())
