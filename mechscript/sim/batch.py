"""A script's encounter fought N times.

Run i is seeded from the master seed and i alone (`run_seed`), so a run can be replayed with
`mech run FILE --seed S`, and the batch gives the same numbers however it is split: the runs are cut
into chunks, the chunks fought by worker processes (the standard library's process pool, or any
`concurrent.futures` executor given), and the outcomes added up in the order of their index.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..backend.writer import Unsupported
from ..backend.quiet import QuietFight
from ..errors import MechError
from ..limits import Limits
from ..interpreter.script import Script, compile_script
from .prepared import NothingToSimulate, Prepared, fight_once
from .stats import Tally


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

    def compile(self) -> Script:
        return compile_script(self.text, self.filename, Path(self.folder), self.limits, module_path=self.module_path)

    @classmethod
    def of(cls, script: Script) -> "Batch":
        """The batch of a compiled script, which this process then runs without compiling it again
        (and so do worker processes forked from it, which inherit it)."""
        global _script, _script_of
        batch = cls(script.source_text, script.filename, str(script.folder), script.limits,
                    tuple(map(str, script.module_path)))
        _script, _script_of = script, batch
        return batch


@dataclass
class Chunk:
    """The outcomes of runs start..stop-1, or the first run that failed."""
    start: int
    outcomes: list = field(default_factory=list)
    encounter: str | None = None
    sides: list | None = None
    failure: str | None = None      # the failed run's error, as the user would read it
    failed_seed: int | None = None
    no_encounter: bool = False      # the script declares none: no run of it can be fought


def _start_worker(batch: Batch) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    _worker_script(batch)


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
    for index in range(start, stop):
        s = run_seed(seed, index)
        try:
            fought = prepared.fight(s) if prepared is not None else None
            if fought is None:  # not set up once, or the run failed: fought whole, for its error as `mech run` has it
                fought = fight_once(script, s)
            outcome, chunk.encounter, chunk.sides = fought
        except NothingToSimulate:
            chunk.no_encounter = True
            break
        except MechError as error:
            chunk.failure, chunk.failed_seed = error.render(), s
            break
        chunk.outcomes.append(outcome)
    return chunk


@dataclass
class SimResult:
    encounter: str
    seed: int
    tally: Tally
    requested: int
    partial: bool = False

    def to_json(self) -> dict:
        data = {"encounter": self.encounter, "seed": self.seed, **self.tally.to_json()}
        data = {"runs": data.pop("runs"), **data}
        if self.partial:
            data["partial"] = True
            data["requested"] = self.requested
        return data


def chunks(n: int, jobs: int) -> list[tuple[int, int]]:
    """Runs cut in pieces small enough to share out evenly and report progress, big enough to be cheap."""
    size = max(1, min(200, n // (jobs * 8) or 1))
    return [(start, min(start + size, n)) for start in range(0, n, size)]


def simulate(batch: Batch, n: int, seed: int, jobs: int = 1, executor: Executor | None = None,
             progress=None) -> SimResult:
    """Fight the batch's encounter n times. `progress(done, n)` is told after each chunk. On Ctrl-C
    (KeyboardInterrupt) the runs finished so far are added up, and the result says it is partial."""
    pieces = chunks(n, jobs)
    done: dict[int, Chunk] = {}
    interrupted = False
    try:
        if jobs <= 1 and executor is None:
            script = _worker_script(batch)
            for start, stop in pieces:
                done[start] = _note(_fight_chunk(batch, seed, start, stop, script), progress, done, n, batch.filename)
        else:
            own = executor is None
            if own:   # set up here: worker processes forked from this one start from the set-up, not anew
                prepared_for(_worker_script(batch))
            executor = executor or ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(batch,))
            futures = []
            try:
                for start, stop in pieces:
                    futures.append(executor.submit(_fight_chunk, batch, seed, start, stop))
                for future in futures:
                    chunk = future.result()
                    done[chunk.start] = _note(chunk, progress, done, n, batch.filename)
            finally:
                # Cancel the chunks not started here: shutdown's cancel_futures is carried out by the
                # pool's manager thread only while the executor is alive, and it is not once we return,
                # so the whole batch would be fought before the process could exit.
                for future in futures:
                    future.cancel()
                if own:
                    executor.shutdown(wait=False, cancel_futures=True)
    except KeyboardInterrupt:
        interrupted = True
    except MechError as error:
        raise error.located("", batch.filename)
    return _result(batch, done, seed, n, interrupted)


def _note(chunk: Chunk, progress, done: dict, n: int, filename: str) -> Chunk:
    if chunk.no_encounter:
        raise NothingToSimulate()
    if chunk.failure is not None:
        index = chunk.start + len(chunk.outcomes)
        raise MechError(f"run {index + 1} of the batch failed; replay it with `mech run {filename} --seed "
                        f"{chunk.failed_seed}`:\n{chunk.failure}")
    if progress is not None:
        progress(sum(len(c.outcomes) for c in done.values()) + len(chunk.outcomes), n)
    return chunk


def _result(batch: Batch, done: dict, seed: int, n: int, interrupted: bool) -> SimResult:
    ordered = [done[start] for start in sorted(done)]
    named = next((c for c in ordered if c.encounter is not None), None)
    tally = Tally(named.sides if named else [])
    for chunk in ordered:
        for outcome in chunk.outcomes:
            tally.add(outcome)
    return SimResult(named.encounter if named else "", seed, tally, n, interrupted or tally.runs < n)


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
