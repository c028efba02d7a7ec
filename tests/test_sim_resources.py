"""`mech sim` bounded in memory and processes (issue 22, item 4): memory that does not grow with -n
(measured as the peak resident size of the real command), --jobs capped at the cores, worker
processes that end when the main process is killed, and the `memory` limit's named error."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mechscript
from mechscript.limits import Limits
from mechscript.sim import batch as batch_module
from mechscript.sim.batch import Batch, default_jobs, simulate
from support import MECH
from test_sim import DUEL_RULES, MECH_KIND, encounter

LINUX_PROC = Path("/proc/self/stat").exists()


# Runs a command and prints its peak resident size. A process's peak starts at its parent's size
# when it forked (Linux carries it over exec), so the test's own size would hide the command's:
# this small interpreter, started first, is the parent, and os.wait4 gives the rusage of that one
# child and of what it waited for (its workers), not of all the test's children.
MEASURE = """
import os, subprocess, sys
process = subprocess.Popen(sys.argv[1:], stdout=open(os.environ["OUT"], "wb"), stderr=open(os.environ["ERR"], "wb"))
_, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def peak_rss_kb(argv: list[str], tmp_path: Path) -> tuple[int, str, str, int]:
    """Run `argv`: its exit status, output, errors, and its peak resident size in KB."""
    out, err = tmp_path / "out", tmp_path / "err"
    measured = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "OUT": str(out), "ERR": str(err)})
    code, peak = map(int, measured.stdout.split())
    return code, out.read_text(), err.read_text(), peak


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KB on Linux")
def test_memory_does_not_grow_with_the_number_of_runs(tmp_path):
    # A one-round fight, tens of microseconds a run: before streaming, every outcome (and, with
    # workers, a future per chunk) was held to the end, about 700 bytes a run, 42 MB more for
    # 60,000 runs than for 10,000. Streamed, the two peaks are the same within a few MB.
    script = encounter(tmp_path, "duel", DUEL_RULES)
    peaks = {}
    for n in (10, 10_000, 60_000):  # the first writes the parse cache, which takes memory of its own
        code, out, _, peaks[n] = peak_rss_kb([MECH, "sim", str(script), "-n", str(n), "--seed", "1", "--jobs",
                                              "2", "--json"], tmp_path)
        assert code == 0 and json.loads(out)["runs"] == n
    assert peaks[60_000] - peaks[10_000] < 12_000, peaks


def test_a_batch_has_no_more_processes_than_cores_nor_chunks(monkeypatch):
    # `jobs` processes fight: this one and a pool of jobs - 1 workers (none for one job)
    started = []

    class Recording(batch_module.ProcessPoolExecutor):
        def __init__(self, workers, **kwargs):
            started.append(workers)
            super().__init__(workers, **kwargs)

    monkeypatch.setattr(batch_module, "ProcessPoolExecutor", Recording)
    path = Path(__file__).resolve().parent.parent / "examples" / "pbem_ambush.mech"
    batch = Batch(path.read_text(), str(path), str(path.parent), Limits())
    many = simulate(batch, 64, 4, jobs=64)
    few = simulate(batch, 2, 4, jobs=64)   # 2 runs: 2 chunks of one run
    assert started == [jobs - 1 for jobs in (min(64, default_jobs()), min(2, default_jobs())) if jobs > 1]
    assert many.to_json() == simulate(batch, 64, 4, jobs=1).to_json()
    assert few.tally.runs == 2
    # with a `memory` limit, workers alone fight: this process's address space, its pool's threads
    # in it, is larger than a worker's, and the limit would leave its runs less room (found by review)
    started.clear()
    bounded = Batch(path.read_text(), str(path), str(path.parent), Limits(memory=4000))
    assert simulate(bounded, 64, 4, jobs=2).to_json() == many.to_json()
    assert started == ([2] if default_jobs() >= 2 else [])


def test_jobs_above_the_cores_are_capped_with_a_note(tmp_path):
    # `--jobs 64 -n 64` started 64 processes (1.5 GB)
    script = encounter(tmp_path, "duel", DUEL_RULES)
    cores = default_jobs()
    asked = max(64, cores + 1)
    ran = subprocess.run([MECH, "sim", str(script), "-n", "64", "--seed", "2", "--jobs", str(asked), "--json"],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0
    assert ran.stderr == f"note: --jobs {asked} is more than the {cores} cores here; using {cores}\n"
    assert json.loads(ran.stdout) == mechscript.simulate(str(script), 64, seed=2, jobs=1)


def _children(pid: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped by whoever adopted it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


SLOW_RULES = MECH_KIND + """\
fn fight(enc) {
    enc.round = 1
    repeat 90000 { }
    return enc.sides[0].name
}
"""


@pytest.mark.skipif(not LINUX_PROC, reason="finds the worker processes in /proc")
@pytest.mark.skipif(default_jobs() < 2, reason="one core: --jobs 2 is capped to 1, no workers")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_when_the_main_process_is_killed(tmp_path, how):
    # They went on with the batch, orphans, 10 s and more after a SIGKILL of `mech sim`.
    script = encounter(tmp_path, "slow", SLOW_RULES)
    process = subprocess.Popen([MECH, "sim", str(script), "-n", "1000000", "--jobs", "2"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        give_up = time.monotonic() + 60
        workers = []   # 2 jobs: the main process and a worker
        while not workers and time.monotonic() < give_up:
            time.sleep(0.05)
            workers = _children(process.pid)
        assert len(workers) == 1
        time.sleep(0.3)  # fighting now, past their set-up
        process.send_signal(how)
        process.wait(timeout=30)
        give_up = time.monotonic() + 5
        while any(map(_alive, workers)) and time.monotonic() < give_up:
            time.sleep(0.05)
        assert not any(map(_alive, workers))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for worker in _children(process.pid):
            os.kill(worker, signal.SIGKILL)


@pytest.mark.skipif(not LINUX_PROC, reason="finds the worker processes in /proc")
@pytest.mark.skipif(default_jobs() < 2, reason="one core: --jobs 2 is capped to 1, no workers")
def test_a_worker_killed_stops_the_batch_with_an_error_in_the_scripts_name(tmp_path):
    # The error was raised past the handler that puts the script's name on it: "<expr>: a worker ..."
    script = encounter(tmp_path, "slow", SLOW_RULES)
    process = subprocess.Popen([MECH, "sim", str(script), "-n", "1000000", "--jobs", "2"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        give_up = time.monotonic() + 60
        workers = []
        while not workers and time.monotonic() < give_up:
            time.sleep(0.05)
            workers = _children(process.pid)
        time.sleep(0.3)  # fighting now, past their set-up
        os.kill(workers[0], signal.SIGKILL)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 1
    assert err.startswith(f"{script}: a worker process of the batch died (killed by a signal, or out of memory)\n"), err


@pytest.mark.skipif(not LINUX_PROC, reason="watches the parent as Linux shows it")
def test_a_worker_whose_parent_is_gone_ends_without_prctl(tmp_path):
    # The portable line of defence: a worker sees its parent change (adopted) and leaves, even where
    # the kernel does not kill it. Here a child process stands in for the main one and dies at once.
    code = f"""
import os, sys, time
sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
from mechscript.sim import batch
batch.ORPHAN_POLL = 0.05
parent = os.getpid()
if os.fork() == 0:
    sys.platform = "other"          # no prctl: only the watching thread
    batch._end_with_parent(parent)
    print(os.getpid(), flush=True)
    time.sleep(30)
    os._exit(0)
time.sleep(0.5)
os._exit(0)
"""
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    worker = int(process.stdout.readline())
    process.wait(timeout=10)
    give_up = time.monotonic() + 5
    while _alive(worker) and time.monotonic() < give_up:
        time.sleep(0.05)
    alive = _alive(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive


HOG_RULES = MECH_KIND + """\
fn fight(enc) {
    enc.round = 1
    let kept = []
    let r = 0
    repeat 400 {
        r += 1
        kept = kept + [range(r, r + 99999)]
    }
    if len(kept) < 400 { return enc.sides[1].name }
    return enc.sides[0].name
}
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as Linux counts it")
@pytest.mark.parametrize("jobs, runs", [("1", "3"), ("2", "3"), ("2", "12")])
def test_the_memory_limit_stops_a_run_with_its_name(tmp_path, jobs, runs):
    # 400 lists of 100,000 numbers: well over a GB, which only `steps` stopped before, and late.
    # 3 runs with 2 jobs: 3 chunks of a run; 12: more chunks than the workers hold at once, which
    # the main process would fight itself, past the limit, were there no limit (_fight_spread).
    script = encounter(tmp_path, "hog", HOG_RULES)
    code, out, err, peak = peak_rss_kb([MECH, "sim", str(script), "-n", runs, "--seed", "1", "--jobs", jobs,
                                        "--limit", "steps=100000000", "--limit", "memory=300"], tmp_path)
    assert (code, out) == (1, "") and "Traceback" not in err
    assert peak < 320_000
    assert err.startswith(f"{script}: run 1 of the batch failed; replay it with `mech run {script} --seed ")
    assert f"\n{script}: a run needed more than 300 MB of memory; the limit `memory` is 300\n" in err
    assert err.endswith("  hint: raise it with --limit memory=MB (Python: Limits(memory=MB))\n")


RARE_HOG_RULES = HOG_RULES.replace("    let kept = []\n", "    let kept = []\n    if d20 + 0 < 20 { return enc.sides[0].name }\n")


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as Linux counts it")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_out_of_memory_is_named_by_its_own_number(tmp_path, jobs):
    # A chunk whose run ran out of memory drops its outcomes (room to say so), and the batch named
    # the chunk's first run, with the failed run's seed: "run 1", "run 26" for one failure.
    script = encounter(tmp_path, "rare", RARE_HOG_RULES)
    assert "if d20 + 0 < 20" in (tmp_path / "rare.mech").read_text()
    ran = subprocess.run([MECH, "sim", str(script), "-n", "400", "--seed", "2", "--jobs", jobs,
                          "--limit", "steps=100000000", "--limit", "memory=300"], capture_output=True, text=True)
    assert ran.returncode == 1 and "Traceback" not in ran.stderr
    found = re.search(r"run (\d+) of the batch failed; replay it with `mech run \S+ --seed (\d+)`", ran.stderr)
    number, seed = int(found[1]), int(found[2])
    assert number > 1 and batch_module.run_seed(2, number - 1) == seed


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as Linux counts it")
def test_the_set_up_is_not_bounded_by_the_memory_limit_of_the_runs(tmp_path):
    # With one job the set-up (the written code's, on the first chunk) ran under the limit: with
    # 20 MB, a MemoryError outside any run, "mech: internal error". As with two jobs, it is done first.
    path = Path(__file__).resolve().parent.parent / "examples" / "pbem_ambush.mech"
    ran = subprocess.run([MECH, "sim", str(path), "-n", "400", "--seed", "1", "--jobs", "1", "--limit", "memory=20",
                          "--json"], capture_output=True, text=True)
    assert (ran.returncode, ran.stderr) == (0, "") and json.loads(ran.stdout)["runs"] == 400
