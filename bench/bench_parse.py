"""Parsing and checking big texts: is the work linear in the size? (issue 22, item 2)

Each case is `mech check` of a generated script in a fresh process (the parse cache in a fresh
folder, so the text is parsed, not read back), timed in CPU seconds (user + system, steadier than
the clock when other processes share the machine), with its peak resident size. The scripts of
`fn`s grow by doubling: linear work shows as a steady time per `fn`.

    python bench/bench_parse.py              # about a minute or two
    python bench/bench_parse.py --largest 40000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs `mech check` and prints its CPU time and peak size, measured from this small parent (a
# process's peak starts at its parent's size when it forked).
MEASURE = """
import os, subprocess, sys
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = process.stderr.read()
_, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss, err.decode()[:60].replace(chr(10), ' '))
"""


def measure(text: str, folder: Path) -> tuple[int, float, int, str]:
    script = folder / "big.mech"
    script.write_text(text, encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": tempfile.mkdtemp(dir=folder),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "mechscript", "check", str(script)],
                         capture_output=True, text=True, env=env, check=True).stdout
    code, seconds, peak, err = out.rstrip("\n").split(" ", 3)
    return int(code), float(seconds), int(peak), err


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--largest", type=int, default=100_000, help="the most `fn`s (default 100000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        print(f"{'case':<34} {'bytes':>9} {'exit':>4} {'CPU s':>7} {'us/unit':>8} {'peak MB':>8}")
        empty = measure("", folder)[1]  # the start of a process: left out of the time per unit
        line = "say " + "+".join(["1"] * 500_000) + "\n"
        code, seconds, peak, err = measure(line, folder)
        print(f"{'1 MB line 1+1+... (too deep)':<34} {len(line):>9} {code:>4} {seconds:>7.2f} {'':>8} "
              f"{peak / 1024:>8.1f}")
        line = "say len([" + ",".join(["1"] * 500_000) + "])\n"  # one flat list: parsed whole
        code, seconds, peak, err = measure(line, folder)
        print(f"{'1 MB line [1,1,...] (parsed whole)':<34} {len(line):>9} {code:>4} {seconds:>7.2f} "
              f"{(seconds - empty) / 500_000 * 1e6:>8.1f} {peak / 1024:>8.1f}")
        sizes = [n for n in (10_000, 20_000, 40_000, 60_000, 80_000) if n < args.largest] + [args.largest]  # 60,000: 1 MB
        for n in sizes:
            text = "".join(f"fn f{i}(x) = x\n" for i in range(n))
            code, seconds, peak, err = measure(text, folder)
            per = (seconds - empty) / n * 1e6
            print(f"{f'{n} fns':<34} {len(text):>9} {code:>4} {seconds:>7.2f} {per:>8.1f} {peak / 1024:>8.1f}")

if __name__ == "__main__":
    main()
