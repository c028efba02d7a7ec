"""Exact odds: how long `mech prob` takes to compute a distribution, side by side with icepool.

Each measurement is one computation in a fresh Python process (as a `mech prob` command is), the
import and the loading of the grammar not counted: both engines keep caches, so a second computation in the same process would
time a look-up. The processes of the two engines are interleaved, and the best of --repeats is shown
(also the median with --stat median). After timing, the two distributions are compared outcome by
outcome, to catch the two sides computing different things.

    python bench/bench_prob.py                 # the table; about a minute
    python bench/bench_prob.py --repeats 1     # quicker, noisier
    python bench/bench_prob.py --json          # every time, the versions, the commit

icepool is in the `dev` extra (`pip install -e '.[dev]'`); without it, mechscript alone is timed.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# mechscript's expression, and the same in icepool. Roll-and-keep dice explode as deep as mechscript
# follows them for a bound of 1e-12 (12 tens in a row); icepool puts what is deeper on its deepest
# outcome, mechscript leaves it out, so those two differ by less than 1e-12.
CASES = [
    ("7k3", "d10.explode(depth=12).pool(7).highest(3).sum()"),
    ("10k10", "d10.explode(depth=12).pool(10).sum()"),
    ("4d6kh3", "d6.pool(4).highest(3).sum()"),
    ("10d10c>=7", "(d10 >= 7).pool(10).sum()"),
]

WORKER = """
import json, sys, time
from fractions import Fraction
engine, expr = sys.argv[1], sys.argv[2]
if engine == "mech":
    import mechscript
    mechscript.prob("1")  # loads the grammar: parsing is not what is timed
    start = time.perf_counter()
    result = mechscript.prob(expr)
    seconds = time.perf_counter() - start
    dist = {str(x): [p.numerator, p.denominator] for x, p in result.distribution}
else:
    import icepool
    from icepool import d6, d10
    start = time.perf_counter()
    die = eval(expr)  # the bench's own fixed expressions, never user text
    seconds = time.perf_counter() - start
    total = die.denominator()
    dist = {str(int(x)): [q, total] for x, q in die.items()}
print(json.dumps({"seconds": seconds, "dist": dist}))
"""


def run(engine: str, expr: str) -> dict:
    out = subprocess.run([sys.executable, "-c", WORKER, engine, expr], capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"{engine} {expr}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def has_icepool() -> str | None:
    out = subprocess.run([sys.executable, "-c", "import icepool; print(icepool.__version__)"],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def largest_difference(ours: dict, theirs: dict) -> float:
    from fractions import Fraction
    a = {x: Fraction(*p) for x, p in ours.items()}
    b = {x: Fraction(*p) for x, p in theirs.items()}
    return float(max(abs(a.get(x, 0) - b.get(x, 0)) for x in set(a) | set(b)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per measurement (default 3)")
    parser.add_argument("--stat", choices=("best", "median"), default="best")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    icepool_version = has_icepool()
    engines = ["mech"] + (["icepool"] if icepool_version else [])
    rows = []
    for expr, icepool_expr in CASES:
        times = {engine: [] for engine in engines}
        last = {}
        for _ in range(args.repeats):
            for engine in engines:  # interleaved, so a change in the machine's speed hits both
                last[engine] = run(engine, expr if engine == "mech" else icepool_expr)
                times[engine].append(last[engine]["seconds"])
        pick = min if args.stat == "best" else statistics.median
        row = {"expr": expr, "icepool": icepool_expr, "times": times,
               "mech": pick(times["mech"]), "icepool_s": pick(times["icepool"]) if icepool_version else None,
               "difference": largest_difference(last["mech"]["dist"], last["icepool"]["dist"])
               if icepool_version else None}
        rows.append(row)
    if args.json:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=ROOT).stdout.strip()
        print(json.dumps({"python": platform.python_version(), "icepool": icepool_version, "commit": commit,
                          "repeats": args.repeats, "stat": args.stat, "rows": rows}, indent=1))
        return
    print(f"{'expression':<10}  {'mech prob':>10}  {'icepool':>10}  {'ratio':>7}  {'largest difference':>18}")
    print(f"{'-' * 10}  {'-' * 10}  {'-' * 10}  {'-' * 7}  {'-' * 18}")
    for row in rows:
        ice = f"{row['icepool_s']:.4f} s" if row["icepool_s"] is not None else "n/a"
        ratio = f"{row['icepool_s'] / row['mech']:.1f}x" if row["icepool_s"] is not None else "n/a"
        difference = f"{row['difference']:.1e}" if row["difference"] is not None else "n/a"
        print(f"{row['expr']:<10}  {row['mech']:>8.4f} s  {ice:>10}  {ratio:>7}  {difference:>18}")
    print(f"\n{args.stat} of {args.repeats} fresh processes each; ratio: icepool's time over mechscript's; "
          f"icepool {icepool_version or 'not installed'}, Python {platform.python_version()}")


if __name__ == "__main__":
    main()
