"""A sweep's wall time (issue 20): `mech sim examples/pbem_ambush.mech --vary Punch.skill=3..9 -n N`,
seven values of N fights each (default 10,000), fought by two local worker processes, then by a Dask
`LocalCluster` of two worker processes of one thread each, started here.

    python bench/bench_sweep.py [-n N] [--seed S] [--json]

Timed, with `time.perf_counter` (wall time) around each call: `mechscript.sweep(..., jobs=2)`, and
the same with `executor=` the cluster's executor and `jobs=2` (its worker threads), which includes
each worker compiling and setting up each value's script; the cluster's own start is timed apart.
The two must give the same JSON (runs are seeded by their index): it is checked, and printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AMBUSH = ROOT / "examples" / "pbem_ambush.mech"
VARY = "Punch.skill=3..9"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10_000, help="fights at each of the seven values")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the times as JSON")
    args = parser.parse_args(argv)
    import mechscript
    from distributed import Client, LocalCluster

    mechscript.check(str(AMBUSH))   # the grammar's one-time set-up, not counted
    started = time.perf_counter()
    local = mechscript.sweep(str(AMBUSH), [VARY], args.n, seed=args.seed, jobs=2)
    local_time = time.perf_counter() - started

    started = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    cluster_time = time.perf_counter() - started
    try:
        started = time.perf_counter()
        remote = mechscript.sweep(str(AMBUSH), [VARY], args.n, seed=args.seed, jobs=2, executor=client.get_executor())
        dask_time = time.perf_counter() - started
    finally:
        client.close()
        cluster.close()
    same = json.dumps(local) == json.dumps(remote)
    fights = 7 * args.n
    figures = {"fights": fights, "local_2_jobs_s": round(local_time, 2), "dask_2_workers_s": round(dask_time, 2),
               "dask_cluster_start_s": round(cluster_time, 2), "same_json": same,
               "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{VARY}, {args.n} fights a value ({fights} in all), seed {args.seed}")
        print(f"  local, 2 jobs            {local_time:7.2f} s   {fights / local_time:8,.0f} fights/s")
        print(f"  Dask LocalCluster, 2x1   {dask_time:7.2f} s   {fights / dask_time:8,.0f} fights/s"
              f"   (starting the cluster: {cluster_time:.2f} s more)")
        print(f"  the same JSON: {'yes' if same else 'NO'}; load average {figures['load_average']}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
