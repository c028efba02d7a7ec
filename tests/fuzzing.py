"""Grammar-generated inputs through the commands a user runs (`roll`, `prob`, `run`, `check`), in
this process through the CLI's main: what tests/test_fuzz.py checks on a few hundred per run and
bench/fuzz_campaign.py on 10^5. An input passes when no command ends in an internal error (exit
status 3: an exception other than a MechError, a traceback's worth of bug)."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import io
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from mechscript import cli
from test_prob_properties import GRAMMAR_EXPRESSIONS, NOTATION
from test_program_properties import GRAMMAR_PROGRAMS

EXPRESSIONS = st.one_of(GRAMMAR_EXPRESSIONS, NOTATION)
PROGRAMS = st.one_of(GRAMMAR_PROGRAMS, GRAMMAR_PROGRAMS.map(lambda p: "fn main() {\n" + p + "\n}\nsay main()\n"))
INTERNAL_ERROR = 3


@dataclass
class Outcome:
    argv: list
    code: int
    err: str
    cpu: float
    peak_mb: float = 0.0  # see `mech`


def mech(argv: list[str], measure_peak: bool = False) -> Outcome:
    """`mech ARGV` through the CLI's main, its output kept, its CPU time measured, and if asked its
    peak memory (else 0): this process's resident size at its highest while the command ran
    (Linux's VmHWM, reset before it), what its own process would have needed, the interpreter and
    hypothesis included. Where the peak cannot be reset, it is the process's peak if it rose during
    the command (the command that took it there), else 0."""
    out, err = io.StringIO(), io.StringIO()
    resets = measure_peak and _reset_peak()
    before = peak_mb()
    started = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as leaving:  # argparse's usage errors
            code = leaving.code if isinstance(leaving.code, int) else 2
    cpu = time.process_time() - started
    peak = _peak_since_reset() if resets else (peak_mb() if measure_peak and peak_mb() > before else 0.0)
    return Outcome(argv, code, err.getvalue(), cpu, peak)


def _reset_peak() -> bool:
    """Resets this process's peak resident size (Linux 4.0 and later: `5` to clear_refs), after
    giving back to the system the memory this process freed (glibc's malloc_trim): else a command
    after others (a test worker's) builds in memory freed before it, and its peak is lower than
    what its own process would need."""
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):   # no glibc
        pass
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def _peak_since_reset() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def expression_commands(expr: str, limits: list[str]) -> list[list[str]]:
    return [["roll", "--seed", "1", "--json", *limits, "--", expr],
            ["prob", "--json", *limits, "--", expr],
            ["prob", "--samples", "200", "--seed", "1", *limits, "--", expr]]


def program_commands(path: Path, limits: list[str]) -> list[list[str]]:
    return [["check", *limits, str(path)], ["run", "--seed", "1", "--json", *limits, str(path)]]


@dataclass
class Tally:
    """What a campaign found: inputs and commands run, the internal errors, the slow ones, the ones
    that took much memory (`heavy`, over `heavy_after` MB; None: not measured)."""
    slow_after: float = 2.0
    heavy_after: float | None = None
    inputs: int = 0
    commands: int = 0
    internal: list = field(default_factory=list)
    slow: list = field(default_factory=list)
    heavy: list = field(default_factory=list)
    heaviest: Outcome | None = None  # the command with the highest peak memory
    cpu: float = 0.0

    def add(self, outcome: Outcome) -> None:
        self.commands += 1
        self.cpu += outcome.cpu
        if outcome.code == INTERNAL_ERROR:
            self.internal.append(outcome)
        if outcome.cpu > self.slow_after:
            self.slow.append(outcome)
        if self.heavy_after is not None and outcome.peak_mb > self.heavy_after:
            self.heavy.append(outcome)
        if self.heaviest is None or outcome.peak_mb > self.heaviest.peak_mb:
            self.heaviest = outcome


def run_expression(expr: str, tally: Tally, limits: list[str]) -> None:
    tally.inputs += 1
    for argv in expression_commands(expr, limits):
        tally.add(mech(argv, tally.heavy_after is not None))


def run_program(text: str, folder: Path, tally: Tally, limits: list[str]) -> None:
    tally.inputs += 1
    path = folder / "fuzz.mech"
    path.write_text(text, encoding="utf-8", errors="replace")
    for argv in program_commands(path, limits):
        tally.add(mech(argv, tally.heavy_after is not None))


def peak_mb() -> float:
    """This process's peak resident size so far, in MB (Linux counts ru_maxrss in KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
