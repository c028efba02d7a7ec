"""The long hardening campaign (issue 22, item 8): grammar-generated expressions and programs
through `mech roll`, `mech prob` (exact and sampled), `mech check` and `mech run` at the default
limits, then the hostile cases of the issue's table, each as a real `mech` process. It prints the
figures the issue asks for: inputs, internal errors (goal 0), inputs over 2 s of CPU (goal 0),
peak memory (goal under 200 MB a process).

    python bench/fuzz_campaign.py                   # 10^5 generated inputs: hours
    python bench/fuzz_campaign.py -n 2000           # a quick look
    python bench/fuzz_campaign.py --no-generated    # the hostile cases alone, a few minutes
    python bench/fuzz_campaign.py --no-hostile --minutes 30    # as many as 30 minutes allow

The generated inputs run in chunks (--chunk, default 200: half expressions, half programs, each
chunk drawn with its own seed), each chunk in a process forked from this one that runs them
through the CLI's main: no interpreter starts per input, and neither the memory hypothesis keeps
of what it drew nor anything else grows from chunk to chunk. A chunk's peak memory is its process's
(wait4); a hostile case's is its own process's (and its workers'). Within a chunk each command's
own peak is measured too (fuzzing.mech: the process's peak reset before it), so that the inputs
that take the memory are named: each over 200 MB, as each input over 2 s of CPU and each internal
error, is printed as it is found and named again in the summary, with the five heaviest.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

HEAVY_MB = 200  # a command whose own peak passes this is named

ONE_ROUND = """\
kind Mech {
    stat skill 0..20
    state hp = 1
}
fn standing(m) = m.hp > 0
fn fight(enc) {
    enc.round = 1
    let att = enc.sides[0].members[0]
    let def = enc.sides[1].members[0]
    if d10 + att.skill > d10 + def.skill {
        def.hp = 0
        return enc.sides[0].name
    }
    att.hp = 0
    return enc.sides[1].name
}
"""
ENCOUNTER = """\
use duel
character Lance is Mech { skill 6 }
character Shield is Mech { skill 4 }
encounter "One shot" {
    side attacker: Lance
    side defender: Shield
}
"""

# Runs a command and prints its status, CPU seconds and peak resident KB (its own and its
# workers'); stops it with SIGINT after `stop` seconds when given (a batch meant never to end).
MEASURE = """
import os, signal, subprocess, sys, threading
stop = float(sys.argv[1])
stdin = open(sys.argv[2], "rb") if sys.argv[2] != "-" else subprocess.DEVNULL
# SIGINT as a terminal gives it, even when this campaign was started with it ignored (in the background)
process = subprocess.Popen(sys.argv[3:], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
if stop > 0:
    threading.Timer(stop, lambda: process.send_signal(signal.SIGINT)).start()
err = process.stderr.read()
_, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
sys.stdout.write(err.decode(errors="replace"))
"""


def measured(argv: list, stop: float = 0, stdin: Path | None = None, cwd: Path | None = None):
    """(exit status, CPU seconds, peak MB, first line of its errors) of `mech ARGV`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    ran = subprocess.run([sys.executable, "-c", MEASURE, str(stop), str(stdin or "-"), sys.executable, "-m",
                          "mechscript", *map(str, argv)], capture_output=True, text=True, env=env, cwd=cwd)
    head, _, err = ran.stdout.partition("\n")
    code, cpu, peak = head.split()
    return int(code), float(cpu), int(peak) / 1024, err.split("\n")[0][:90]


def hostile(folder: Path) -> list:
    """The issue's table, case by case: (what, exit status, CPU s, peak MB, what it said)."""
    (folder / "duel.mech").write_text(ONE_ROUND)
    fight = folder / "one_shot.mech"
    fight.write_text(ENCOUNTER)
    cases = []

    def case(what, argv, **options):
        cases.append((what, *measured(argv, **options)))
        print(f"  {what:<44} exit {cases[-1][1]:>3}  {cases[-1][2]:6.2f} s  {cases[-1][3]:7.1f} MB  {cases[-1][4]}",
              flush=True)

    def script(name, text):
        path = folder / name
        path.write_text(text, encoding="utf-8")
        return path

    for target in ("/etc/passwd", "../../../../../etc/hostname", "/proc/self/cmdline"):
        case(f"use {target!r}", ["check", script("escape.mech", f'use "{target}"\n')])
    big = folder / "huge.mech"
    with open(big, "wb") as f:  # a sparse 1 GB module beside the script
        f.truncate(2 ** 30)
    case("use of a 1 GB module", ["check", script("uses_huge.mech", "use huge\n")])
    ten = script("ten_mb.mech", "let x = 1\n" * 1_000_000)
    case("mech check of a 10 MB script", ["check", ten])
    case("mech run of a 10 MB script", ["run", ten])
    case("1 MB line 1+1+...", ["check", script("line.mech", "say " + "+".join(["1"] * 499_000) + "\n")])
    case("10^5 fns", ["check", script("fns.mech", "".join(f"fn f{i}(x) = x\n" for i in range(100_000)))])
    case("prob '1000d6!' --samples 100000", ["prob", "1000d6!", "--samples", "100000", "--seed", "1"])
    case("== of two 10^5 lists in a loop", ["run", script("lists.mech", "let a = range(100000)\nlet b = range(100000)\n"
                                                                            "let n = 0\nrepeat 1000 { if a == b { n += 1 } }\nsay n\n")])
    case("prob 'not 10k10 / 99k3 / + 15k0'", ["prob", "not 10k10 / 99k3 / + 15k0"])
    case("sim -n 10^9 of a one-round fight, 20 s", ["sim", fight, "-n", "1000000000", "--json"], stop=20)
    case("sim --jobs 64 -n 64", ["sim", fight, "--jobs", "64", "-n", "64", "--json"])
    case("prob 10^309 --json", ["prob", str(10 ** 309), "--json"])  # its 310 digits: mechscript has no `^`
    case("prob '381d%dh5'", ["prob", "381d%dh5"])
    case("prob 1000d6!p", ["prob", "1000d6!p"])
    case("roll 1000d1000000 -n 100000", ["roll", "1000d1000000", "-n", "100000"])
    case("REPL: ( then 4,000 lines of `1,`", [], stdin=script("repl.txt", "len([\n" + "1,\n" * 4000 + "1])\n"))
    case("a NUL byte in a script", ["check", script("nul.mech", "say 1\x00\n")])
    case("roll '1d20r<20' -n 20000", ["roll", "1d20r<20", "-n", "20000", "--seed", "1"])
    print(f"  {'SIGKILL of sim: workers alive after 2 s':<44} {killed_sim_orphans(fight)}", flush=True)
    return cases


def killed_sim_orphans(fight: Path) -> int:
    """Workers of `mech sim --jobs 2` still alive 2 s after its main process got SIGKILL."""
    if not Path("/proc/self/stat").exists():
        return -1
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "mechscript", "sim", str(fight), "-n", "100000000", "--jobs", "2"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)

    def children():
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == process.pid:
                found.append(int(stat.parent.name))
        return found
    give_up = time.monotonic() + 30
    while len(children()) < 2 and time.monotonic() < give_up:
        time.sleep(0.1)
    workers = children()
    time.sleep(0.5)
    process.kill()
    process.wait()
    time.sleep(2)
    alive = 0
    for pid in workers:
        try:
            alive += Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            pass
    for pid in workers:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return alive


def generated(n: int, folder: Path, seed: int, chunk: int, minutes: float, jobs: int) -> dict:
    """n inputs drawn from the grammar, half expressions, half programs, at the default limits, in
    forked chunks (at most `jobs` at once); no chunk starts after `minutes`."""
    import fuzzing
    # loaded once here, so that every fork has it: the grammar's parser tables, the lexer's patterns
    fuzzing.run_expression("4d6kh3 + 1", fuzzing.Tally(), [])
    fuzzing.run_program("fn f(x) = x + d6\nsay f(1)\n", folder, fuzzing.Tally(), [])
    started = time.monotonic()
    found = {"inputs": 0, "commands": 0, "cpu": 0.0, "internal": [], "slow": [], "heavy": [], "heaviest": [],
             "peak_mb": 0.0, "lost": 0}
    running = {}  # pid -> (chunk index, its result file)
    index = 0

    def reap():
        pid, status, usage = os.wait4(-1, 0)
        number, result = running.pop(pid)
        try:
            part = json.loads(result.read_text())
        except (OSError, ValueError):
            part = None
        if part is None or os.waitstatus_to_exitcode(status) != 0:
            found["lost"] += 1
            print(f"  chunk {number}: its process ended with status {os.waitstatus_to_exitcode(status)}"
                  f"{': ' + part['error'] if part and 'error' in part else ''}", flush=True)
            return
        for key in ("inputs", "commands", "cpu"):
            found[key] += part[key]
        for key in ("internal", "slow", "heavy"):
            found[key] += part[key]
        found["heaviest"] = sorted(found["heaviest"] + part["heaviest"], key=lambda e: -e["peak_mb"])[:5]
        # a command's peak is measured from a reset of the process's (fuzzing.mech), which wait4 then
        # no longer sees: the chunk's peak is the higher of the two
        found["peak_mb"] = max(found["peak_mb"], usage.ru_maxrss / 1024, *(e["peak_mb"] for e in part["heaviest"]))
        print(f"  {found['inputs']} inputs, {found['commands']} commands, {len(found['internal'])} internal errors, "
              f"{len(found['slow'])} over 2 s, {len(found['heavy'])} over {HEAVY_MB} MB, peak "
              f"{found['peak_mb']:.0f} MB a process, {time.monotonic() - started:.0f} s", flush=True)

    while index * chunk < n and time.monotonic() - started < minutes * 60:
        if len(running) >= jobs:
            reap()
            continue
        size = min(chunk, n - index * chunk)
        result = folder / f"chunk{index}.json"
        pid = os.fork()
        if pid == 0:  # the chunk's process: never returns
            _chunk(size, folder / f"chunk{index}", seed * 1_000_003 + index, result)
        running[pid] = (index, result)
        index += 1
    while running:
        reap()
    print(f"generated: {found['inputs']} inputs ({found['commands']} commands, {found['cpu']:.0f} s of CPU) in "
          f"{time.monotonic() - started:.0f} s; {len(found['internal'])} internal errors; {len(found['slow'])} "
          f"commands over 2 s of CPU; {len(found['heavy'])} commands over {HEAVY_MB} MB; peak "
          f"{found['peak_mb']:.0f} MB a process; {found['lost']} chunks lost")
    for entry in found["internal"]:
        print(f"  internal error: {_named(entry)}")
    for entry in sorted(found["slow"], key=lambda e: -e["cpu"]):
        print(f"  {entry['cpu']:.1f} s: {_named(entry)}")
    for entry in sorted(found["heavy"], key=lambda e: -e["peak_mb"]):
        print(f"  {entry['peak_mb']:.0f} MB: {_named(entry)}")
    print("the heaviest commands:")
    for entry in found["heaviest"]:
        print(f"  {entry['peak_mb']:.0f} MB, {entry['cpu']:.1f} s: {_named(entry)}")
    return found


def _named(entry: dict) -> str:
    """The command and its input, as one line: a program's text is given, not its temporary file's name."""
    argv = [a for a in entry["argv"] if not a.endswith("fuzz.mech")]
    return f"mech {' '.join(argv)} <- {entry['input'][:300]!r}"


def _chunk(size: int, folder: Path, seed: int, result: Path) -> None:
    """Runs `size` generated inputs (half expressions, half programs) drawn with `seed`, printing each
    slow one and each internal error as it is found; writes what it found to `result` as JSON."""
    code = 0
    try:
        from hypothesis import HealthCheck, given, settings, seed as seeded
        import fuzzing

        folder.mkdir()
        tally = fuzzing.Tally(heavy_after=HEAVY_MB)
        found = {"internal": [], "slow": [], "heavy": [], "heaviest": []}
        said = {"internal": lambda o: "INTERNAL ERROR", "slow": lambda o: f"{o.cpu:.1f} s",
                "heavy": lambda o: f"{o.peak_mb:.0f} MB"}

        def entry_of(outcome, text: str) -> dict:
            return {"argv": outcome.argv, "cpu": outcome.cpu, "peak_mb": outcome.peak_mb, "input": text,
                    "err": outcome.err[-300:]}

        def noted(text: str, before: tuple) -> None:
            for kind, start in zip(("internal", "slow", "heavy"), before):
                for outcome in getattr(tally, kind)[start:]:
                    found[kind].append(entry_of(outcome, text))
                    print(f"  {said[kind](outcome)}: {_named(found[kind][-1])}", flush=True)
            if tally.heaviest is not before[3]:  # this input's command is the chunk's heaviest
                found["heaviest"] = [entry_of(tally.heaviest, text)]

        def every(strategy, count, run):
            @settings(max_examples=count, deadline=None, database=None, suppress_health_check=list(HealthCheck))
            @seeded(seed)
            @given(strategy)
            def one(text):
                before = (len(tally.internal), len(tally.slow), len(tally.heavy), tally.heaviest)
                run(text)
                noted(text, before)
            if count:
                one()

        every(fuzzing.EXPRESSIONS, size // 2, lambda e: fuzzing.run_expression(e, tally, []))
        every(fuzzing.PROGRAMS, size - size // 2, lambda p: fuzzing.run_program(p, folder, tally, []))
        result.write_text(json.dumps({"inputs": tally.inputs, "commands": tally.commands, "cpu": tally.cpu, **found}))
    except BaseException:  # noqa: BLE001 (said to the parent, which counts the chunk as lost)
        import traceback
        result.write_text(json.dumps({"error": traceback.format_exc()[-500:]}))
        code = 1
    finally:
        sys.stdout.flush()
        os._exit(code)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="generated inputs (default 100000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=200, help="generated inputs a forked process (default 200)")
    parser.add_argument("--minutes", type=float, default=float("inf"), help="start no chunk after this many minutes")
    parser.add_argument("--jobs", type=int, default=1, help="chunks run at once (default 1)")
    parser.add_argument("--no-generated", action="store_true")
    parser.add_argument("--no-hostile", action="store_true")
    args = parser.parse_args()
    from mechscript.limits import make_room_for_nesting
    make_room_for_nesting()  # as `mech` does, before hypothesis notes the recursion limit
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        os.environ["XDG_CACHE_HOME"] = str(folder / "cache")  # the parse cache of these inputs, thrown away after
        if not args.no_hostile:
            print("hostile cases (each a `mech` process):")
            cases = hostile(folder)
            print(f"  {len(cases)} cases: {sum(c[1] == 3 for c in cases)} internal errors, "
                  f"{sum(c[2] > 2 for c in cases)} over 2 s of CPU, peak {max(c[3] for c in cases):.0f} MB")
        if not args.no_generated:
            print(f"generated inputs (up to {args.n}), at the default limits:", flush=True)
            generated(args.n, folder, args.seed, args.chunk, args.minutes, args.jobs)


if __name__ == "__main__":
    main()
