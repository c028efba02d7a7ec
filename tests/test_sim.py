"""`mech sim` and `mechscript.simulate` as a user runs them (issue 6; the contract's sim JSON in
shared/design/mechscript.md): the same seed gives the same JSON for any --jobs, the numbers add up,
Ctrl-C gives the runs finished so far (a prefix of the batch) marked partial, a fight whose odds are
worked out by hand lands within its interval, --out, the text report, and the user's mistakes.

`mech_forked` runs `mech` in a forked child; it leaves by `os._exit`, which skips the process pool's
clean-up, so every forked `mech sim` here says `--jobs 1`. Worker processes are exercised through the
real console script (a subprocess) and through `mechscript.simulate` in this process.
"""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from pathlib import Path

import pytest

import mechscript
from mechscript.sim.batch import default_jobs
from support import MECH, ctrl_c_as_usual, mech_forked

AMBUSH = Path(__file__).resolve().parent.parent / "examples" / "pbem_ambush.mech"
AMBUSH_SIDES = ["autobots", "decepticons"]
AMBUSH_CHARACTERS = ["Punch", "Triggerhappy", "Ransack"]

# A kind and its `standing`, for the small rules modules below
MECH_KIND = """\
kind Mech {
    stat skill 0..20
    state hp = 1
}
fn standing(m) = m.hp > 0
"""

# One opposed roll, d10 + 6 against d10 + 4, the attacker winning only if strictly higher (a tie goes
# to the defender). The attacker wins when A + 6 > D + 4, i.e. A - D >= -1. Of the 100 equally likely
# pairs (A, D), A - D = -k for k >= 1 has 10 - k of them, so A - D <= -2 has 8 + 7 + ... + 1 = 36:
# the attacker wins with probability exactly 64/100 = 0.64, the defender 0.36, never a draw.
DUEL_RULES = MECH_KIND + """\
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

# Rules that break in a run whose d10 rolls 10: about one run in ten.
BOOM_RULES = MECH_KIND + """\
fn fight(enc) {
    enc.round = 1
    let roll = d10
    if roll == 10 { fail("boom") }
    repeat 90000 { }    # milliseconds a run: a million runs would take an hour or more
    return enc.sides[0].name
}
"""

ENCOUNTER = """\
use {rules}
character Lance is Mech {{ skill 6 }}
character Shield is Mech {{ skill 4 }}
encounter "One shot" {{
    side attacker: Lance
    side defender: Shield
}}
"""


def encounter(folder: Path, rules: str, text: str) -> Path:
    """A rules module `rules.mech` in `folder` and a script fighting Lance against Shield by it."""
    (folder / f"{rules}.mech").write_text(text, encoding="utf-8")
    script = folder / "one_shot.mech"
    script.write_text(ENCOUNTER.format(rules=rules), encoding="utf-8")
    return script


def mech(*args, cwd=None, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([MECH, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def assert_adds_up(data: dict, runs: int, sides: list[str], characters: list[str]) -> None:
    """The contract's keys are there, and the numbers of `runs` fights are consistent."""
    assert data["runs"] == runs and type(data["seed"]) is int
    assert list(data["winners"]) == [*sides, "draw"]
    for won in data["winners"].values():
        low, high = won["ci95"]
        assert type(won["count"]) is int and won["rate"] == won["count"] / runs
        assert 0 <= low <= won["rate"] <= high <= 1
    assert sum(won["count"] for won in data["winners"].values()) == runs
    histogram = data["rounds"]["histogram"]
    assert sum(histogram.values()) == runs
    assert data["rounds"]["mean"] == pytest.approx(sum(int(r) * count for r, count in histogram.items()) / runs)
    assert list(data["characters"]) == characters
    for character in data["characters"].values():
        assert 0 <= character["survival_rate"] <= 1


# ---- the same seed, the same numbers ----

def test_the_same_seed_gives_the_same_json_for_any_jobs(tmp_path):
    one = mech_forked(["sim", str(AMBUSH), "-n", "60", "--seed", "11", "--jobs", "1", "--json"], tmp_path)
    two = mech("sim", AMBUSH, "-n", "60", "--seed", "11", "--jobs", "2", "--json")
    assert (one.code, one.err) == (0, "") and (two.returncode, two.stderr) == (0, "")
    assert two.stdout == one.out  # byte for byte
    data = json.loads(one.out)
    assert data["seed"] == 11 and data["encounter"] == "Punch is attacked" and "partial" not in data
    assert_adds_up(data, 60, AMBUSH_SIDES, AMBUSH_CHARACTERS)
    # the API mirrors the command, whatever its jobs
    api_one = mechscript.simulate(str(AMBUSH), 60, seed=11, jobs=1)
    api_three = mechscript.simulate(str(AMBUSH), 60, seed=11, jobs=3)
    assert json.dumps(api_one) + "\n" == json.dumps(api_three) + "\n" == one.out


def test_another_executor_gives_the_same_numbers():
    # Issue 6: any concurrent.futures executor can do the work, not only the process pool it starts.
    with ThreadPoolExecutor(2) as executor:
        threads = mechscript.simulate(str(AMBUSH), 40, seed=3, executor=executor)
    assert threads == mechscript.simulate(str(AMBUSH), 40, seed=3, jobs=1)


# ---- Ctrl-C ----

def _children(pid: int) -> list[float]:
    """The CPU seconds each child process of `pid` has used so far."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # fields 4, 14 and 15 of proc(5): parent, user and system time
            children.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
    return children


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker processes in /proc")
def test_ctrl_c_reports_the_runs_finished_so_far_marked_partial():
    # many times what is fought before Ctrl-C, in chunks of 200 runs (small: a quick stop); 40,000
    # took under the 2.5 CPU seconds waited for below once a run took 60 µs
    n = 400_000
    process = subprocess.Popen([MECH, "sim", str(AMBUSH), "-n", str(n), "--seed", "5", "--jobs", "2", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_usual)
    try:
        # Until the workers have fought a few chunks: measured in their CPU time, not the clock's, so
        # a busy machine only makes the test slower (a chunk takes well under a CPU second).
        give_up = time.monotonic() + 120
        while sum(_children(process.pid)) < 2.5 and process.poll() is None and time.monotonic() < give_up:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert err == ""
    data = json.loads(out)
    assert data["partial"] is True and data["requested"] == n
    runs = data["runs"]
    assert 0 < runs < n
    assert_adds_up(data, runs, AMBUSH_SIDES, AMBUSH_CHARACTERS)
    # Runs are seeded from the seed and their index, and the partial result is the first `runs` of
    # them: the same as a batch of exactly that many.
    whole = mechscript.simulate(str(AMBUSH), runs, seed=5, jobs=2)
    assert {key: value for key, value in data.items() if key not in ("partial", "requested")} == whole


def test_ctrl_c_while_a_chunk_is_added_up_adds_it_whole():
    # Ctrl-C arriving in the parent between a run's winner and its characters' state being added
    # made a partial result disagree with a batch of as many runs. Here the signal is sent while
    # the chunk's states are added up, its winners counted: the chunk is added whole, then the
    # Ctrl-C is raised.
    from mechscript.limits import Limits
    from mechscript.sim.batch import Batch, Chunk, _Stream
    from mechscript.sim.stats import Runs

    class SendsCtrlC(int):   # a state whose sum is worked out as the chunk's columns are added up
        def __radd__(self, other):
            os.kill(os.getpid(), signal.SIGINT)
            return other + int(self)

    runs = Runs()
    for outcome in [("Red", 3, {"Punch": (True, {"hp": 4})}), ("Blue", 5, {"Punch": (False, {"hp": SendsCtrlC(0)})}),
                    ("Red", 2, {"Punch": (True, {"hp": 6})})]:
        runs.append(outcome)
    chunk = Chunk(0, encounter="Duel", sides=["Red", "Blue"], outcomes=runs)
    stream = _Stream(Batch(AMBUSH.read_text(), str(AMBUSH), str(AMBUSH.parent), Limits()), 3, None)
    usual = signal.signal(signal.SIGINT, signal.default_int_handler)  # a run in a shell's background ignores it
    try:
        with pytest.raises(KeyboardInterrupt):
            stream.add(chunk)
    finally:
        signal.signal(signal.SIGINT, usual)
    tally = stream.tally
    assert tally.runs == 3 and tally.standing["Punch"] == 2 and tally.sums["Punch"]["hp"] == 10


def test_ctrl_c_drops_the_chunks_not_started():
    # Ctrl-C as the second chunk is added up: the chunks waiting in the executor are cancelled, not
    # fought before the process can leave (the pool's own cancel_futures is lost once the pool is
    # garbage, so a whole batch was fought after Ctrl-C). The batch is streamed, a few chunks a job
    # handed out ahead (batch.IN_FLIGHT), so most of its 16 chunks are never even handed out.
    # The executor fights a chunk only when its result is asked for, so which chunks were fought
    # does not depend on how busy the machine is: the two added up, and none other.
    from mechscript.limits import Limits
    from mechscript.sim.batch import IN_FLIGHT, Batch, simulate

    def interrupt(done, n):
        if done > 25:  # chunks of 25 runs
            raise KeyboardInterrupt

    class WhenAsked(Future):
        def __init__(self, call):
            super().__init__()
            self.call = call

        def result(self, timeout=None):
            if not self.done() and self.set_running_or_notify_cancel():
                self.set_result(self.call())
            return super().result(timeout)

    class Lazy(Executor):
        def __init__(self):
            self.futures = []

        def submit(self, fn, *args, **kwargs):
            self.futures.append(WhenAsked(lambda: fn(*args, **kwargs)))
            return self.futures[-1]

    batch = Batch(AMBUSH.read_text(), str(AMBUSH), str(AMBUSH.parent), Limits())
    executor = Lazy()
    result = simulate(batch, 400, 9, jobs=2, executor=executor, progress=interrupt)
    assert result.partial and result.requested == 400
    assert result.tally.runs == 25
    chunks = executor.futures
    assert len(chunks) <= 2 + IN_FLIGHT * 2
    assert [future.cancelled() for future in chunks] == [False, False] + [True] * (len(chunks) - 2)


# ---- statistics ----

def test_a_fight_whose_odds_are_known_lands_within_its_interval(tmp_path):
    script = encounter(tmp_path, "duel", DUEL_RULES)
    ran = mech_forked(["sim", str(script), "-n", "2000", "--seed", "1", "--jobs", "1", "--json"], tmp_path)
    assert (ran.code, ran.err) == (0, "")
    data = json.loads(ran.out)
    assert_adds_up(data, 2000, ["attacker", "defender"], ["Lance", "Shield"])
    assert data["rounds"] == {"mean": 1.0, "histogram": {"1": 2000}}
    attacker, defender, draw = (data["winners"][side] for side in ("attacker", "defender", "draw"))
    low, high = attacker["ci95"]
    assert low <= 0.64 <= high  # the exact probability, worked out above DUEL_RULES
    assert high - low < 0.05
    assert defender["ci95"][0] <= 0.36 <= defender["ci95"][1]
    assert draw["count"] == 0
    # the attacker stands exactly when it wins
    assert data["characters"]["Lance"]["survival_rate"] == attacker["rate"]


# ---- --out, the text report, the progress bar ----

def test_out_writes_the_same_json_and_the_text_report_reads_well(tmp_path):
    script = encounter(tmp_path, "duel", DUEL_RULES)
    as_json = mech_forked(["sim", str(script), "-n", "400", "--seed", "3", "--jobs", "1", "--json",
                           "--out", "result.json"], tmp_path)
    assert (as_json.code, as_json.err) == (0, "")  # no progress bar when standard error is no terminal
    assert json.loads((tmp_path / "result.json").read_text()) == json.loads(as_json.out)

    as_text = mech_forked(["sim", str(script), "-n", "400", "--seed", "3", "--jobs", "1",
                           "--out", str(tmp_path / "again.json")], tmp_path)
    assert (as_text.code, as_text.err) == (0, "")
    assert json.loads((tmp_path / "again.json").read_text()) == json.loads(as_json.out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.json", "duel.mech", "one_shot.mech", "result.json"]

    report = as_text.out
    assert report.startswith("One shot: 400 runs, seed 3\n")
    data = json.loads(as_json.out)
    for side in ("attacker", "defender", "draw"):
        rate = f"{data['winners'][side]['rate']:.1%}"
        assert re.search(rf"^  {side}\s+{re.escape(rate)}  \[", report, re.M), report
    assert "rounds (mean 1.00)" in report
    assert re.search(r"^\s+1\s+400\s", report, re.M)
    assert re.search(r"^  Lance\s+survives", report, re.M)


def test_a_progress_bar_is_shown_on_a_terminal_only(tmp_path):
    script = encounter(tmp_path, "duel", DUEL_RULES)
    main, terminal = pty.openpty()
    try:
        ran = subprocess.run([MECH, "sim", str(script), "-n", "300", "--seed", "2", "--jobs", "1"],
                             stdout=subprocess.PIPE, stderr=terminal, text=True, timeout=120)
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal is closed: all read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
    assert ran.returncode == 0
    assert "300/300" in shown.decode() and "runs/s" in shown.decode()
    assert "runs/s" not in ran.stdout and ran.stdout.startswith("One shot: 300 runs, seed 2")


# ---- the user's mistakes ----

def _one_message(err: str) -> None:
    assert "Traceback" not in err and err.endswith("\n") and len(err.splitlines()) <= 6, err


def test_a_script_without_an_encounter_has_nothing_to_simulate(tmp_path):
    script = tmp_path / "talk.mech"
    script.write_text('say "hello {d6}"\n')
    expected = (f"{script}: this script declares no encounter, so there is nothing to simulate\n"
                '  hint: declare one: encounter "name" { side a: ...  side b: ... }\n')
    forked = mech_forked(["sim", str(script), "-n", "10", "--jobs", "1"], tmp_path)
    pooled = mech("sim", script, "-n", "10", "--jobs", "2", "--json")
    assert (forked.code, forked.out, forked.err) == (1, "", expected)  # not "run 1 failed": no seed replays it
    assert (pooled.returncode, pooled.stdout, pooled.stderr) == (1, "", expected)
    with pytest.raises(mechscript.MechError, match="nothing to simulate"):
        mechscript.simulate(str(script), 5, seed=1)


def test_a_failing_run_is_named_with_the_seed_that_replays_it(tmp_path):
    script = encounter(tmp_path, "boom", BOOM_RULES)
    forked = mech_forked(["sim", str(script), "-n", "200", "--seed", "7", "--jobs", "1", "--json"], tmp_path)
    assert (forked.code, forked.out) == (1, "")
    _one_message(forked.err)
    found = re.match(r"(.*): run (\d+) of the batch failed; replay it with `mech run (.*) --seed (\d+)`:\n",
                     forked.err)
    assert found and found[1] == str(script) and found[3] == str(script), forked.err
    run, seed = int(found[2]), found[4]
    assert "boom.mech:9:21: boom\n" in forked.err and "fail(\"boom\")" in forked.err

    # the runs before it are fine, so it is the first failure; the seed replays it
    assert run > 1
    before = mech_forked(["sim", str(script), "-n", str(run - 1), "--seed", "7", "--jobs", "1", "--json"], tmp_path)
    assert before.code == 0 and json.loads(before.out)["runs"] == run - 1
    replayed = mech_forked(["run", str(script), "--seed", seed], tmp_path)
    assert replayed.code == 1 and "boom.mech:9:21: boom" in replayed.err

    # Worker processes report the same run, and the batch stops there: the million runs after it
    # are not fought first (they would take an hour, far past the timeout, however busy the machine).
    pooled = mech("sim", script, "-n", "1000000", "--seed", "7", "--jobs", "2", timeout=300)
    assert (pooled.returncode, pooled.stdout, pooled.stderr) == (1, "", forked.err)


def test_a_missing_file_or_no_runs_is_a_usage_error(tmp_path):
    script = encounter(tmp_path, "duel", DUEL_RULES)
    for argv, says in ((["sim", str(tmp_path / "nowhere.mech"), "-n", "10"], "no such file"),
                       (["sim", str(script), "-n", "0"], "expected at least 1, got 0"),
                       (["sim", str(script), "-n", "-3"], "expected at least 1, got -3")):
        ran = mech_forked(argv, tmp_path)
        assert (ran.code, ran.out) == (2, ""), argv
        assert says in ran.err and "Traceback" not in ran.err, ran.err


def test_a_spread_batch_is_cut_into_chunks_that_cover_its_runs_in_order_smaller_at_the_end():
    from mechscript.sim.batch import IN_FLIGHT, chunk_size, pieces
    for jobs in (2, 3, 8):
        for n in (1, 2, 15, 199, 200, 1000, 4001, 20000):
            size = chunk_size(n, jobs)
            cut = list(pieces(n, size, jobs))
            assert [start for start, _ in cut] == [0] + [stop for _, stop in cut[:-1]] and cut[-1][1] == n
            sizes = [stop - start for start, stop in cut]
            assert all(0 < a <= size for a in sizes) and sizes == sorted(sizes, reverse=True)
            # the chunks a worker holds when the others have run out are quarter chunks: the processes end together
            assert all(a <= max(1, size // 4) for a in sizes[-2 * IN_FLIGHT * jobs:])
    # full chunks while a sixteenth of the runs left is more, then that sixteenth, down to a quarter chunk
    sizes = [stop - start for start, stop in pieces(20000, 200, 2)]
    assert sizes[:85] == [200] * 85 and sizes[85:90] == [187, 175, 164, 154, 145]
    assert sizes[-17:] == [51] + [50] * 15 + [29]


def test_chunks_grow_to_the_size_the_batch_asks_for_from_the_chunk_it_asks_before_and_never_shrink():
    from mechscript.sim.batch import pieces
    asked = iter([200, 200, 1000, 50] + [1000] * 100)
    cut = list(pieces(20000, 200, 2, lambda: next(asked)))
    assert [start for start, _ in cut] == [0] + [stop for _, stop in cut[:-1]] and cut[-1][1] == 20000
    assert cut[:5] == [(0, 200), (200, 400), (400, 1400), (1400, 2400), (2400, 3400)]   # 50 is not taken
    # the end is cut for the grown size: a sixteenth of the runs left once that is under 1000, down to 250
    sizes = [stop - start for start, stop in cut]
    assert sizes[2:7] == [1000, 1000, 1000, 1000, 975] and sizes[-17:] == [251] + [250] * 15 + [28]


def test_the_last_chunks_are_as_small_as_the_batch_asks_and_no_smaller_than_one_run():
    from mechscript.sim.batch import pieces
    sizes = [stop - start for start, stop in pieces(20000, 1000, 2, least=lambda: 40)]
    assert sizes[0] == 1000 and sizes[-17:] == [40] * 16 + [3]
    sizes = [stop - start for start, stop in pieces(100, 40, 2, least=lambda: 0)]
    assert sum(sizes) == 100 and min(sizes) == 1


def _switch_noted(monkeypatch) -> list:
    """(process id, switch interval) of each chunk a batch fights, in this process or a worker: the
    chunk function is swapped for one that notes them on the chunk, and is pickled by the name of
    the one it replaces, which a worker forked from here finds swapped too."""
    from mechscript.sim import batch as sim_batch
    fight, noted = sim_batch._fight_chunk, []

    def noting(*args):
        chunk = fight(*args)
        chunk.noted = (os.getpid(), sys.getswitchinterval())
        return chunk

    noting.__module__, noting.__qualname__ = fight.__module__, fight.__qualname__
    monkeypatch.setattr(sim_batch, "_fight_chunk", noting)
    add = sim_batch._Stream.add
    monkeypatch.setattr(sim_batch._Stream, "add", lambda stream, chunk: (noted.append(chunk.noted), add(stream, chunk)))
    return noted


@pytest.mark.skipif(default_jobs() < 2, reason="one core: --jobs 2 is lowered to 1, which fights no chunk of its own")
def test_a_batch_in_two_jobs_hands_chunks_over_at_a_short_switch_interval_and_then_restores_it(monkeypatch):
    # At Python's 5 ms the pool's threads waited for this process's fights to hand each chunk
    # over: the worker's first chunk came 27 ms after this process's first (bench_spread.py).
    from mechscript.sim import batch as sim_batch
    noted = _switch_noted(monkeypatch)
    before = sys.getswitchinterval()
    two = mechscript.simulate(str(AMBUSH), 2000, seed=3, jobs=2)
    assert sys.getswitchinterval() == before
    here = {switch for pid, switch in noted if pid == os.getpid()}
    there = {switch for pid, switch in noted if pid != os.getpid()}
    # the worker, forked while this process hands chunks over, fights at the interval it was before
    assert here == {sim_batch.SWITCH_SECONDS} and there == {before}
    noted.clear()
    assert mechscript.simulate(str(AMBUSH), 2000, seed=3) == two and {switch for _, switch in noted} == {before}


def test_the_switch_interval_is_shortened_once_for_batches_at_once_and_a_shorter_one_left_alone():
    # Two batches at once, in two threads of one process: the first to end must not restore the
    # interval under the second, nor the second restore the short one it found (found by review:
    # each restored what it found). Entered and left here in that order, as two threads would.
    from mechscript.sim.batch import SWITCH_SECONDS, _quick_hand_over
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.004)
        first, second = _quick_hand_over(), _quick_hand_over()
        first.__enter__()
        second.__enter__()
        assert sys.getswitchinterval() == SWITCH_SECONDS
        first.__exit__(None, None, None)
        assert sys.getswitchinterval() == SWITCH_SECONDS   # the second batch goes on
        second.__exit__(None, None, None)
        assert sys.getswitchinterval() == 0.004
        sys.setswitchinterval(0.0001)
        shorter = sys.getswitchinterval()   # kept in whole microseconds: 9.9e-05 reads back
        with _quick_hand_over():
            assert sys.getswitchinterval() == shorter
        assert sys.getswitchinterval() == shorter
    finally:
        sys.setswitchinterval(before)


@pytest.mark.skipif(default_jobs() < 2, reason="one core: --jobs 2 is lowered to 1, which fights no chunk of its own")
def test_a_batch_of_quick_runs_in_two_jobs_is_fought_in_chunks_larger_than_the_first(monkeypatch):
    # The chunks this process fights are timed, and later ones grown to CHUNK_SECONDS: the pool
    # costs each process some half a millisecond a chunk, which was 5-7% of 200 runs of pbem.
    from mechscript.sim import batch as sim_batch
    sizes = []
    add = sim_batch._Stream.add

    def noted(stream, chunk):   # every chunk, this process's and the worker's, is added here
        sizes.append(len(chunk.outcomes))
        add(stream, chunk)

    monkeypatch.setattr(sim_batch._Stream, "add", noted)
    monkeypatch.setattr(sim_batch, "CHUNK_SECONDS", 10.0)   # so long that on any machine they grow to the most
    one = mechscript.simulate(str(AMBUSH), 8000, seed=3, jobs=1)
    sizes.clear()
    two = mechscript.simulate(str(AMBUSH), 8000, seed=3, jobs=2)
    assert two == one and sum(sizes) == 8000
    # grown, though not to the most (an eighth of a job's share, 500): by then a sixteenth of the runs left is less
    assert sizes[0] == sim_batch.chunk_size(8000, 2) == 200 and 200 < max(sizes) <= 8000 // (2 * 8)
