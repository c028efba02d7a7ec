"""A script's encounter fought N times.

Run i is seeded from the master seed and i alone (`run_seed`), so a run can be replayed with
`mech run FILE --seed S`, and the batch gives the same numbers however it is split: the runs are cut
into chunks, the chunks fought by this process and worker processes (the standard library's process
pool), or by any `concurrent.futures` executor given, and the outcomes added up in the order of
their index.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from ..backend.writer import Unsupported
from ..backend.quiet import QuietFight
from ..errors import MechError
from ..limits import Limits
from ..interpreter.script import Script, compile_script
from .prepared import NothingToSimulate, Prepared, outcome, run_once, survival
from .stats import Runs, Tally
from .variants import Variant, compile_variant


def run_seed(seed: int, index: int) -> int:
    """The seed of run `index` of a batch seeded `seed`: the same on every machine."""
    digest = hashlib.sha256(f"{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


_script: Script | None = None     # the compiled script a process runs: a worker's, or the parent's
_script_of: "Batch | None" = None  # the batch it was compiled from
# That script set up once in this process, in each thread: a Prepared is one set of characters and
# scopes, which two threads of an executor must not fight at the same time.
_set_up = threading.local()


@dataclass
class Batch:
    """What a worker needs to compile the script on its own: its text and where it lives."""
    text: str
    filename: str
    folder: str
    limits: Limits
    module_path: tuple = ()  # the user's folders of modules (`--path`)
    encounter: str | None = None  # the encounter fought, when the script has several
    variant: Variant = Variant()  # values and house rules of a sweep or comparison (variants.py)

    def compile(self) -> Script:
        if self.variant:
            script = compile_variant(self.text, self.filename, Path(self.folder), self.limits, self.module_path,
                                     self.variant)
        else:
            script = compile_script(self.text, self.filename, Path(self.folder), self.limits,
                                    module_path=self.module_path)
        return script.choose(self.encounter)

    @classmethod
    def of(cls, script: Script, variant: Variant = Variant()) -> "Batch":
        """The batch of a compiled script (of `variant`, when it is one), which this process then
        runs without compiling it again (and so do worker processes forked from it, which inherit it)."""
        global _script, _script_of
        batch = cls(script.source_text, script.filename, str(script.folder), script.limits,
                    tuple(map(str, script.module_path)), script.encounter, variant)
        _script, _script_of = script, batch
        return batch


@dataclass
class Chunk:
    """The outcomes of runs start..stop-1, or the first run that failed."""
    start: int
    outcomes: Runs = field(default_factory=Runs)
    encounter: str | None = None
    sides: list | None = None
    failure: str | None = None      # the failed run's error, as the user would read it
    failed_seed: int | None = None
    failed_index: int | None = None  # the failed run's index in the batch
    failure_rolled: bool = True     # whether a die was drawn before it: else every seed fails the same way
    no_encounter: bool = False      # the script declares none: no run of it can be fought
    survival: str | None = None     # what `survives` counts, by the encounter's rules


def _start_worker(batch: Batch, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    if _switch_before is not None:   # forked while the parent hands chunks over (_quick_hand_over)
        sys.setswitchinterval(_switch_before)
    _end_with_parent(parent)
    _limit_memory(batch.limits)
    _worker_script(batch)


def _end_with_parent(parent: int) -> None:
    """A worker ends when the process that started it does, however that one ends (SIGKILL too):
    on Linux the kernel kills it (PR_SET_PDEATHSIG); elsewhere, and as a second line, a thread
    of the worker sees it handed to another parent (the orphan's reaper) and ends the worker."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.name != "posix":
        return  # Windows keeps the parent's id: no orphan to see
    if os.getppid() != parent:  # the parent died before the line above: nothing will signal it
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_POLL)
        os._exit(1)
    threading.Thread(target=watch, name="mech-parent-watch", daemon=True).start()


PR_SET_PDEATHSIG = 1   # prctl(2): the signal a process gets when its parent dies
ORPHAN_POLL = 0.2      # seconds between a worker's looks at its parent, where prctl is missing


def _limit_memory(limits: Limits) -> None:
    """The `memory` limit (megabytes; 0: none) as this process's address space (RLIMIT_AS): an
    allocation beyond it fails (MemoryError), and the run stops with the limit's error."""
    if not limits.memory:
        return
    try:
        import resource
    except ImportError:  # not on this platform (Windows): not enforced
        return
    wanted = limits.memory * 2 ** 20
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


@contextmanager
def _memory_limited(limits: Limits):
    """The `memory` limit in this process while it fights a chunk (a batch of one job), put back after."""
    try:
        import resource
        before = resource.getrlimit(resource.RLIMIT_AS)
    except ImportError:
        before = None
    if before is None or not limits.memory:
        yield
        return
    _limit_memory(limits)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


def out_of_memory(script: Script) -> MechError:
    """A run's MemoryError, said in the script's name (where in it the memory ran out is not known)."""
    memory = script.limits.memory
    if memory:
        error = MechError(f"a run needed more than {memory} MB of memory; the limit `memory` is {memory}",
                          hint="raise it with --limit memory=MB (Python: Limits(memory=MB))")
    else:
        error = MechError("a run ran out of memory", hint="bound it with --limit memory=MB to stop it sooner")
    return error.located("", script.filename)


def _worker_script(batch: Batch) -> Script:
    """The batch's script compiled once per process: by the pool's initializer, or on the first chunk
    in a worker of another executor, which knows nothing of the initializer; a worker forked from
    the process that made the batch (Batch.of) has it already."""
    global _script, _script_of
    if _script is None or _script_of != batch:
        _script, _script_of = batch.compile(), batch
    return _script


def prepared_for(script: Script) -> "QuietFight | Prepared | None":
    """The script set up once in this process and thread (on its first chunk): fought by written
    Python (backend/quiet.py) where the back end writes it, else by the closures (prepared.py), else
    None: its runs are fought whole. Per thread: a set-up is one set of characters and variables,
    which two threads of an executor must not fight at the same time."""
    if getattr(_set_up, "script", None) is not script:
        try:
            prepared = QuietFight(script)
        except Unsupported:
            prepared = Prepared.of(script)
        _set_up.script, _set_up.prepared = script, prepared
    return _set_up.prepared


def _fight_chunk(batch: Batch, seed: int, start: int, stop: int, script: Script | None = None) -> Chunk:
    script = script or _worker_script(batch)
    prepared = prepared_for(script)
    chunk = Chunk(start)
    # the written code's runs: the `seconds` timer's handler set once for the chunk (CpuTime.handling)
    with prepared.timer.handling() if type(prepared) is QuietFight else nullcontext():
        for index in range(start, stop):
            s = run_seed(seed, index)
            try:
                fought = prepared.fight(s) if prepared is not None else None
                encounter = prepared.encounter if fought is not None else None
                if fought is None:  # not set up once, or the run failed: fought whole, for its error as `mech run` has it
                    ev = run_once(script, s)
                    fought, encounter = outcome(ev), ev.encounter
                result, chunk.encounter, chunk.sides = fought
                if chunk.survival is None:
                    chunk.survival = survival(encounter)
            except NothingToSimulate:
                chunk.no_encounter = True
                break
            except MechError as error:
                chunk.failure, chunk.failed_seed, chunk.failed_index = error.render(), s, index
                chunk.failure_rolled = error.rolled
                break
            except MemoryError:
                chunk.outcomes = Runs()  # room to say so
                chunk.failure, chunk.failed_seed, chunk.failed_index = out_of_memory(script).render(), s, index
                break
            chunk.outcomes.append(result)
    return chunk


@dataclass
class SimResult:
    encounter: str
    seed: int
    tally: Tally
    requested: int
    partial: bool = False
    survival: str | None = None   # what `survives` counts: the rules' `standing` at the end, in words
    winners: bytearray | None = None  # with `keep_winners`: each run's winner, its side's index (draw: len(sides))
    replays: "Replays | None" = None
    precision: tuple | None = None   # with a precision: (the half-width asked, whether every interval is within it)

    def to_json(self) -> dict:
        data = {"encounter": self.encounter, "seed": self.seed, **self.tally.to_json()}
        data = {"runs": data.pop("runs"), **data}
        if self.survival is not None:
            data["survival"] = self.survival
        if self.replays is not None:
            data["replays"] = self.replays.to_json()
        if self.precision is not None:
            data["precision"] = {"target": self.precision[0], "reached": self.precision[1]}
        if self.partial:
            data["partial"] = True
            data["requested"] = self.requested
        return data


def pieces(n: int, size: int, jobs: int, grown=None, least=None) -> Iterator[tuple[int, int]]:
    """(start, stop) of the chunks of a batch spread over `jobs` processes: `size` runs each, or,
    once that is more, a job's share of the runs left over 2 * IN_FLIGHT, down to a quarter chunk
    (or to `least()` runs, if fewer), so that at the end no process waits long for the last chunks
    of another: a worker holds up to IN_FLIGHT chunks (the one it fights, those queued, and one
    more), so at most half a share of the runs left, and those it holds when the others run out
    are small. `grown()`, asked before each chunk, may give a larger size for the chunks from there
    on (_fight_spread's, as it learns how long a run takes); never a smaller one."""
    start = 0
    while start < n:
        if grown is not None:
            size = max(size, grown())
        smallest = max(1, size // 4 if least is None else min(size // 4, least()))
        stop = min(start + min(size, max(smallest, (n - start) // (2 * IN_FLIGHT * jobs))), n)
        yield start, stop
        start = stop


def chunk_size(n: int, jobs: int) -> int:
    return max(1, min(200, n // (jobs * 8) or 1))


# What a chunk fought here should take, once this process has timed its own: a chunk costs each
# process about half a millisecond besides its runs (sent, handed over, added up), which was 5-7% of
# a 200-run chunk of pbem (10 ms); of a transformers run (0.5 ms) 200 are 100 ms, and stay so.
CHUNK_SECONDS = 0.05
# What the last chunks take at the least (`pieces`' `least`): what a worker holds when this process
# has fought its last is what it waits for. Quarter chunks (13 ms of pbem, 25 ms of transformers),
# the last of a worker's 50 ms ones among them, kept it waiting 16-86 ms (bench_spread.py, pbem,
# 20,000 runs: medians 21-41 ms); now medians of 2-4 ms.
TAIL_SECONDS = 0.0025
# The GIL's switch interval while this process fights chunks and its pool's threads hand chunks
# to the workers (_quick_hand_over): at Python's 5 ms, each hand-over waited for the fights here,
# and the worker's first chunk came 27 ms after this process's first (bench_spread.py's medians);
# now 7-10 ms, most of which is forking the worker.
SWITCH_SECONDS = 0.0005
_switching = threading.Lock()
_switched = 0              # batches in this process fighting beside their pools (threads of one process)
_switch_before = None      # the longer interval before the first of them: to restore, in a worker too


@contextmanager
def _quick_hand_over():
    """SWITCH_SECONDS while batches fight beside their pools, unless the interval is shorter
    already (then it is left alone: Python keeps it in whole microseconds, and setting what it
    reads back may shorten it); the one before again once the last of them ends."""
    global _switched, _switch_before
    with _switching:
        before = sys.getswitchinterval()
        if not _switched and before > SWITCH_SECONDS:
            _switch_before = before
            sys.setswitchinterval(SWITCH_SECONDS)
        _switched += 1
    try:
        yield
    finally:
        with _switching:
            _switched -= 1
            if not _switched and _switch_before is not None:
                sys.setswitchinterval(_switch_before)
                _switch_before = None


# Chunks handed to an executor and not yet added up, per job: enough to keep every worker busy
# while the next is added up, few enough that a batch's memory does not grow with its size.
IN_FLIGHT = 4
# Chunks this process fights wait, finished, behind the oldest one a worker has not finished: up to
# HELD times IN_FLIGHT a worker of them, then it waits. At 2 it waited a tenth of a transformers
# batch whenever its worker fell behind (a chunk's runs are a few KB: the memory is no matter).
HELD = 8


def simulate(batch: Batch, n: int, seed: int, jobs: int = 1, executor: Executor | None = None,
             progress=None, keep_winners: bool = False, precision: float | None = None) -> SimResult:
    """Fight the batch's encounter n times. `progress(done, n)` is told after each chunk. On Ctrl-C
    (KeyboardInterrupt) the runs finished so far are added up, and the result says it is partial.
    `keep_winners`: the result holds each run's winner too, a byte a run (`mech compare` pairs
    the runs of two batches). `precision`: stop, before n, at the first multiple of PRECISION_STEP
    runs where every interval the result reports is at most that wide on either side of its rate
    (the same runs for any jobs: the runs are added in order, and looked at only there).

    The batch is streamed: chunks are handed out a few per job ahead of the one added up next,
    and each is added to the tally, in the order of its runs, as soon as those before it are, so
    memory stays the same for any n. With no executor given, `jobs` processes fight, this one
    among them (with a `memory` limit, `jobs` workers: _fight_spread): at most as many as this
    machine has cores, and no more than there are chunks."""
    size = chunk_size(n, jobs)
    stream = _Stream(batch, n, progress, keep_winners, seed, precision)
    script = None
    try:
        if executor is None:
            jobs = min(jobs, default_jobs(), len(range(0, n, size)))
            # set up here, before the `memory` limit bounds this process; worker processes forked
            # from it start from the set-up, not anew
            script = _worker_script(batch)
            prepared_for(script)
        if script is not None and jobs <= 1:
            with _memory_limited(batch.limits):
                for start in range(0, n, size):
                    stream.add(_fight_chunk(batch, seed, start, min(start + size, n), script))
        else:
            _fight_spread(batch, n, seed, size, jobs, executor, stream, script)
    except KeyboardInterrupt:
        stream.interrupted = True
    except _Precise:
        pass
    except BrokenProcessPool:  # a worker killed (by the `memory` limit's allocation failing outside a run, or a signal)
        raise MechError("a worker process of the batch died (killed by a signal, or out of memory)",
                        hint="the `memory` limit (--limit memory=MB) bounds each worker; run with --jobs 1 "
                             "to see the run that fails").located("", batch.filename) from None
    except MechError as error:
        raise error.located("", batch.filename)
    return stream.result(seed)


def _fight_spread(batch: Batch, n: int, seed: int, size: int, jobs: int, executor: "Executor | None",
                  stream: "_Stream", script: "Script | None") -> None:
    """The chunks fought by the executor's workers, or, with no executor given, by a pool of jobs - 1
    worker processes and this one: a process of ours that only handed out chunks and added them
    up would wait most of the time, and the little it does would take a core from a worker (2 jobs
    were 1.6 times 1 job, two batches at once 1.8 times). Chunks are handed to the pool IN_FLIGHT a
    worker ahead and fought here when the pool has enough; at the end, the chunks no worker has
    started are taken back and fought here. Each is added to the stream in the order of its runs.
    The chunks fought here are timed, and the later ones grown to CHUNK_SECONDS (`pieces`' `grown`),
    the last ones shrunk to TAIL_SECONDS (`least`).

    With a `memory` limit only workers fight, `jobs` of them: the pool's threads make this process's
    address space larger than a worker's (pbem: 190 MB against 115), and the limit would leave a
    run fought here less room than one fought by a worker or by a batch of one job. `script`: the
    one set up in this process, when no executor is given."""
    own = executor is None
    here = own and not batch.limits.memory   # this process fights chunks too
    if own:
        executor = ProcessPoolExecutor(jobs - 1 if here else jobs, initializer=_start_worker,
                                       initargs=(batch, os.getpid()))
    ahead = IN_FLIGHT * (jobs - 1 if here else jobs)
    waiting: deque = deque()   # a chunk fought here, or (its future, start, stop), in the order of their runs
    sent = 0                   # futures in `waiting`

    def add_finished(block: bool) -> None:
        """Adds the chunks at the head of `waiting` that are finished, waiting for the first if `block`."""
        nonlocal sent
        while waiting:
            head = waiting[0]
            if type(head) is not Chunk:
                if not (block or head[0].done()):
                    return
                head = head[0].result()
                sent -= 1
            waiting.popleft()
            stream.add(head)
            block = False

    timed_runs, timed_seconds = 0, 0.0   # the runs fought here, and the seconds they took

    def grown() -> int:
        """Chunks as large as take CHUNK_SECONDS here, at most an eighth of a job's share."""
        if not timed_seconds:
            return size
        return min(n // (jobs * 8) or 1, int(CHUNK_SECONDS * timed_runs / timed_seconds))

    def least() -> int:
        """The last chunks as small as take TAIL_SECONDS here."""
        return int(TAIL_SECONDS * timed_runs / timed_seconds) if timed_seconds else size

    interrupted = False
    try:
        with _quick_hand_over() if here else nullcontext():
            for start, stop in pieces(n, size, jobs, grown if here else None, least if here else None):
                if here and sent >= ahead:
                    began = time.perf_counter()
                    chunk = _fight_chunk(batch, seed, start, stop, script)
                    waiting.append(chunk)
                    if chunk.failure is None and not chunk.no_encounter:   # one that stopped early tells nothing
                        timed_runs += stop - start
                        timed_seconds += time.perf_counter() - began
                else:
                    waiting.append((executor.submit(_fight_chunk, batch, seed, start, stop), start, stop))
                    sent += 1
                add_finished(len(waiting) >= HELD * ahead or not here and sent >= ahead)
            while waiting:
                add_finished(False)
                taken = None
                if here:   # a chunk no worker has started, the last first: fought here while the workers finish theirs
                    taken = next((i for i in reversed(range(len(waiting)))
                                  if type(waiting[i]) is not Chunk and waiting[i][0].cancel()), None)
                if taken is None:
                    add_finished(True)
                else:
                    _, start, stop = waiting[taken]
                    waiting[taken] = _fight_chunk(batch, seed, start, stop, script)
                    sent -= 1
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        # Cancel the chunks not started here: shutdown's cancel_futures is carried out by the
        # pool's manager thread only while the executor is alive, and it is not once we return,
        # so the whole batch would be fought before the process could exit.
        for item in waiting:
            if type(item) is not Chunk:
                item[0].cancel()
        if own:
            # Ctrl-C leaves at once. Otherwise the workers are let go before we go on (at most
            # a chunk each is left to fight): a pool left behind running may have closed its
            # wake-up pipe when Python's exit hook writes to it, which Python 3.11 reports as
            # "Bad file descriptor" at the exit of a sweep or a --balance, batches one after another.
            executor.shutdown(wait=not interrupted, cancel_futures=True)


REPLAYS = 3  # run seeds kept of each outcome


class Replays:
    """The run seeds of a batch's telling runs, to watch with `mech run FILE --seed S`: the first
    few a side won (or that ended drawn), in the order of the runs, and the longest fight (the
    first of that length). Their indexes are kept, their seeds worked out once, at the end."""

    def __init__(self, seed: int, sides: list[str]):
        self.seed = seed
        self.first: dict[str, list[int]] = {side: [] for side in [*sides, "draw"]}
        self.longest: tuple[int, int] | None = None   # (rounds, run index)

    def add(self, index: int, outcome) -> None:
        """Run `index`'s outcome: the definition `add_runs` keeps, as Tally.add is add_runs'."""
        winner, rounds, _ = outcome
        indexes = self.first["draw" if winner is None else winner]
        if len(indexes) < REPLAYS:
            indexes.append(index)
        if self.longest is None or rounds > self.longest[0]:
            self.longest = (rounds, index)

    def add_runs(self, first: int, runs: Runs, start: int = 0, stop: int | None = None) -> None:
        """runs[start:stop], whose first has the index `first`, as `add` adds each in turn."""
        stop = len(runs) if stop is None else stop
        if start >= stop:
            return
        winners = ["draw" if winner is None else winner for winner in runs.winners[start:stop]]
        for outcome in dict.fromkeys(winners):
            indexes, at = self.first[outcome], 0
            while len(indexes) < REPLAYS:
                try:
                    at = winners.index(outcome, at) + 1
                except ValueError:
                    break
                indexes.append(first + start + at - 1)
        rounds = runs.rounds[start:stop]
        most = max(rounds)
        if self.longest is None or most > self.longest[0]:
            self.longest = (most, first + start + rounds.index(most))

    def to_json(self) -> dict:
        data: dict = {"first": {outcome: [run_seed(self.seed, index) for index in indexes]
                                for outcome, indexes in self.first.items() if indexes}}
        if self.longest is not None:
            data["longest"] = {"seed": run_seed(self.seed, self.longest[1]), "rounds": self.longest[0]}
        return data


class _Stream:
    """The chunks of a batch added up in the order of their runs: a tally, the runs so far."""

    def __init__(self, batch: Batch, n: int, progress, keep_winners: bool = False, seed: int = 0,
                 precision: float | None = None):
        self.batch, self.n, self.progress, self.seed, self.precision = batch, n, progress, seed, precision
        self.replays: Replays | None = None
        self.winners = bytearray() if keep_winners else None
        self.tally: Tally | None = None
        self.encounter = ""
        self.survival: str | None = None
        self.interrupted = False

    def add(self, chunk: Chunk) -> None:
        if chunk.no_encounter:
            raise NothingToSimulate()
        if chunk.failure is not None:
            if not chunk.failure_rolled:  # no die drawn before it (a sheet a module refuses): no seed to replay
                raise RunError(chunk.failure)
            index = chunk.failed_index
            raise MechError(f"run {index + 1} of the batch failed; replay it with `mech run {self.batch.filename} "
                            f"--seed {chunk.failed_seed}`:\n{chunk.failure}")
        runs = chunk.outcomes
        if self.progress is not None:  # told first: a Ctrl-C while it draws leaves this chunk out
            self.progress((self.tally.runs if self.tally else 0) + len(runs), self.n)
        if self.tally is None and chunk.encounter is not None:
            self.tally, self.encounter, self.survival = Tally(chunk.sides), chunk.encounter, chunk.survival
            self.replays = Replays(self.seed, chunk.sides)
        if not runs:
            return
        # added in parts that end where the precision is looked at (run indexes PRECISION_STEP-1, ...)
        cuts = [len(runs)] if self.precision is None else \
            [*range(PRECISION_STEP - chunk.start % PRECISION_STEP, len(runs), PRECISION_STEP), len(runs)]
        code = {side: index for index, side in enumerate(self.tally.sides)}
        with _ctrl_c_held():
            start = 0
            for stop in cuts:
                if self.winners is not None:
                    self.winners.extend([code.get(winner, len(code)) for winner in runs.winners[start:stop]])
                self.tally.add_runs(runs, start, stop)
                self.replays.add_runs(chunk.start, runs, start, stop)
                if self.precision is not None and (chunk.start + stop) % PRECISION_STEP == 0 and \
                        self.tally.widest() <= self.precision:
                    raise _Precise()
                start = stop

    def result(self, seed: int) -> SimResult:
        tally = self.tally if self.tally is not None else Tally([])
        stopped = self.precision is not None and not self.interrupted and tally.runs % PRECISION_STEP == 0 and \
            tally.runs and tally.widest() <= self.precision
        result = SimResult(self.encounter, seed, tally, self.n, self.interrupted or tally.runs < self.n and not stopped,
                           self.survival, self.winners, self.replays)
        if self.precision is not None:
            result.precision = (self.precision, tally.runs > 0 and tally.widest() <= self.precision)
        return result


PRECISION_STEP = 100  # runs between two looks at the intervals of a batch with a precision


@contextmanager
def _ctrl_c_held():
    """Ctrl-C waits for the block's end, then is raised as usual: a chunk is added up whole. (A
    run's winner counted and not yet its characters' state made a partial result disagree with a
    batch of as many runs.) Signals reach only the main thread: elsewhere there is nothing to hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list = []
    previous = signal.signal(signal.SIGINT, lambda *received: caught.append(received))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)  # None: set outside Python
        if caught and callable(previous):
            previous(*caught[0])


class _Precise(Exception):
    """Every interval is as narrow as asked: the batch stops there, finished, not interrupted."""


class RunError(MechError):
    """A run's error as the worker rendered it, which is `mech run`'s: every run has it, whatever its seed."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def render(self) -> str:
        return self.text


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
