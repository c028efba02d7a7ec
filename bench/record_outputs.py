"""The outputs of every example, recorded, so that a change to the interpreter can show it changed
nothing a user sees: `mech run FILE --seed S` for three seeds, and `mech sim FILE -n 300 --seed S
--json` for two, for each example in examples/ (sim only where the example has an encounter).

    python bench/record_outputs.py --write    # record them in tests/recorded_outputs.json
    python bench/record_outputs.py            # compare with the record: exit 1 and the first
                                              # difference of each output that changed

tests/test_recorded_outputs.py runs the comparison in the suite. A change that is meant to change
results (a rules fix in a module) writes the record again in the same commit and says why.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "tests" / "recorded_outputs.json"
RUN_SEEDS = (1, 2, 3)
SIM_SEEDS = (1, 2)
SIM_RUNS = 300


def mech(*argv: str) -> str:
    """`mech ARGV` in this process: its exit status, standard output and standard error, as one text."""
    from mechscript import cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as stop:  # argparse
            code = stop.code
    return f"exit {code}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}"


def has_encounter(path: Path) -> bool:
    return any(line.lstrip().startswith("encounter ") for line in path.read_text().splitlines())


def encounters(path: Path) -> list[str]:
    return re.findall(r'^encounter "([^"]+)"', path.read_text(), flags=re.M)


def commands() -> list[tuple[str, ...]]:
    """Every command recorded, with paths relative to the project root: for a script of several
    encounters (an adventure), each of its encounters."""
    listed = []
    for path in sorted((ROOT / "examples").glob("*.mech")):
        name = f"examples/{path.name}"
        titles = encounters(path)
        for chosen in [("--encounter", title) for title in titles] if len(titles) > 1 else [()]:
            listed += [("run", name, *chosen, "--seed", str(seed)) for seed in RUN_SEEDS]
            if has_encounter(path):
                # --jobs 2: the JSON is the same for any number of jobs (the contract), and this halves the time
                listed += [("sim", name, *chosen, "-n", str(SIM_RUNS), "--seed", str(seed), "--json", "--jobs", "2")
                           for seed in SIM_SEEDS]
    return listed


def outputs() -> dict[str, str]:
    import os
    here = os.getcwd()
    os.chdir(ROOT)   # the paths in messages are the ones a user at the project root sees
    try:
        return {" ".join(argv): mech(*argv) for argv in commands()}
    finally:
        os.chdir(here)


def differences(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    """A short account of each output that is not byte-identical to the record."""
    found = []
    for command in sorted(recorded.keys() | now.keys()):
        if recorded.get(command) == now.get(command):
            continue
        if command not in now or command not in recorded:
            found.append(f"mech {command}: {'no longer run' if command not in now else 'not recorded'}")
            continue
        diff = list(difflib.unified_diff(recorded[command].splitlines(), now[command].splitlines(),
                                         "recorded", "now", lineterm="", n=1))
        found.append(f"mech {command}:\n" + "\n".join(diff[:12]))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write the record ({RECORD.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    now = outputs()
    if args.write:
        RECORD.write_text(json.dumps(now, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"recorded {len(now)} outputs in {RECORD.relative_to(ROOT)}")
        return 0
    found = differences(json.loads(RECORD.read_text(encoding="utf-8")), now)
    for text in found:
        print(text)
    print(f"{len(now) - len(found)} of {len(now)} outputs byte-identical to the record")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
