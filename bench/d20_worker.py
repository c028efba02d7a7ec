"""Times the `d20` package for bench_roll.py. Runs in d20's own virtual environment, never in
mechscript's: d20 pins `lark-parser` 0.9, which installs the same import name as mechscript's `lark`.

This file imports only the standard library and d20 (never mechscript). bench_roll.py starts it as
`PYTHON -I d20_worker.py` and talks to it one JSON object per line, on stdin and stdout:

  {"cmd": "hello"}                                  -> versions, sys.prefix
  {"cmd": "prepare", "expr": E}                     -> parses E once (d20.parse) and keeps the tree
  {"cmd": "time", "expr": E, "mode": M, "loops": N, "gc": bool, "clock": C}
                                                    -> {"seconds": S}: N evaluations of the tree
  {"cmd": "sample", "expr": E, "n": N}              -> mean/min/max of N totals (a sanity check)

Mode "total" is `roller.roll(tree).total` (d20 builds its result text lazily, so this skips it);
mode "text" is `str(roller.roll(tree))`, the Markdown text d20 shows by default.
The timing loop is the same shape as bench_roll.py's loop for mechscript.
"""

import gc
import json
import random
import sys
import time
from importlib import metadata

import d20


def version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


CLOCKS = {"perf_counter": time.perf_counter, "process_time": time.process_time}


def time_loop(roller, tree, mode, loops, keep_gc, clock):
    roll = roller.roll
    rng = range(loops)
    gc_was_enabled = gc.isenabled()
    if not keep_gc:
        gc.disable()
    try:
        if mode == "total":
            start = clock()
            for _ in rng:
                roll(tree).total
            return clock() - start
        if mode == "text":
            start = clock()
            for _ in rng:
                str(roll(tree))
            return clock() - start
        raise ValueError(f"unknown mode {mode!r}")
    finally:
        if gc_was_enabled:
            gc.enable()


def main():
    random.seed(1)  # d20 draws from the `random` module's global generator
    roller = d20.Roller()
    trees = {}
    for line in sys.stdin:
        request = json.loads(line)
        cmd = request["cmd"]
        try:
            if cmd == "hello":
                reply = {"python": sys.version.split()[0], "prefix": sys.prefix, "executable": sys.executable,
                         "d20": version("d20"), "lark-parser": version("lark-parser"), "lark": version("lark")}
            elif cmd == "prepare":
                trees[request["expr"]] = d20.parse(request["expr"])
                reply = {"ok": True}
            elif cmd == "time":
                seconds = time_loop(roller, trees[request["expr"]], request["mode"], request["loops"],
                                    request.get("gc", True), CLOCKS[request.get("clock", "perf_counter")])
                reply = {"seconds": seconds}
            elif cmd == "sample":
                tree = trees[request["expr"]]
                totals = [roller.roll(tree).total for _ in range(request["n"])]
                reply = {"mean": sum(totals) / len(totals), "min": min(totals), "max": max(totals)}
            else:
                reply = {"error": f"unknown command {cmd!r}"}
        except Exception as error:  # reported to the parent, which decides what to do
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
