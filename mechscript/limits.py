"""Limits that keep a stranger's roll or script from hanging or exhausting the machine.

All limits live in one object; each is checked in one place and, when exceeded, raises a
MechError that names the limit and how to raise it (`--limit NAME=N` on the command line,
`Limits(NAME=N)` in Python).
"""

from __future__ import annotations

import math
import os
import signal
# signal's C functions themselves: `signal.signal` wraps them in enum conversions that cost each
# timed run of a batch some 300 bytecodes (2% of a pbem fight)
import _signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace

from .errors import MechError, Span


@dataclass(frozen=True, slots=True)
class Limits:
    dice_per_roll: int = 1_000          # dice rolled by one term, before explosions and rerolls
    explosion_depth: int = 100          # rounds of explosions for one term
    rerolls: int = 1_000                # rounds of rerolls (`r`) for one term
    total_dice: int = 1_000_000         # dice rolled by one roll or run of a script, extra dice included
    die_sides: int = 1_000_000          # sides of one die
    nesting: int = 200                  # depth of nested parentheses and operators
    modifiers: int = 20                 # modifiers on one dice term (`4d6r1kh3` has 2)
    rolls: int = 100_000                # times one `mech roll -n N` may roll
    sample_dice: int = 10_000_000       # dice rolled by all the rolls of one `mech roll -n N` or `mech prob --samples N`
    steps: int = 1_000_000              # loop rounds, calls and list and string work of one run of a script
    loop_iterations: int = 100_000      # rounds of one loop (`while`, `for`, `repeat`)
    recursion: int = 200                # depth of nested function calls
    list_size: int = 100_000            # items in one list
    string_size: int = 100_000          # characters in one string
    output_lines: int = 10_000          # lines `say` may print in one run
    rounds: int = 1_000                 # rounds of one encounter
    number_bits: int = 10_000           # size of one whole number (about 3,000 digits)
    exact_work: int = 5_000_000         # steps of one exact distribution (`mech prob`, `prob()`)
    seconds: float = 60                 # CPU time of one run, roll or REPL entry (see CpuTime), int or float
    source_bytes: int = 1_000_000       # size of one script, module, expression or REPL entry, checked before it is read
    memory: int = 0                     # megabytes of address space of each `mech sim` worker (RLIMIT_AS); 0: none

    def __post_init__(self):
        # setitimer takes no time of 0 or below (0 would switch the limit off) nor an infinite one
        if not (type(self.seconds) in (int, float) and 0 < self.seconds < math.inf):
            raise ValueError(f"the limit `seconds` is a number of seconds above 0, not {self.seconds!r}")

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def with_overrides(self, overrides: dict[str, int]) -> "Limits":
        return replace(self, **overrides)


def limit_error(name: str, what: str, limit: int, span: Span | None) -> MechError:
    return MechError(
        f"{what}; the limit `{name}` is {limit}",
        span,
        hint=f"raise it with --limit {name}=N (Python: Limits({name}=N))",
    )


def source_too_big(what: str, limits: Limits, span: Span | None = None) -> MechError:
    return limit_error("source_bytes", f"{what} is more than {limits.source_bytes} bytes", limits.source_bytes, span)


def check_source_size(text: str, limits: Limits) -> None:
    """A text to parse (a script, module, expression, REPL entry) within `source_bytes`: counted in
    UTF-8 bytes, as a file's size is, after the cheap count of its characters."""
    if len(text) > limits.source_bytes or len(text.encode("utf-8", "surrogatepass")) > limits.source_bytes:
        raise source_too_big("the text", limits)


# Nested expressions are parsed, compiled and run by recursion, a few Python frames per level; this
# leaves room for a raised `nesting` limit, and RecursionError beyond it becomes `too_deep()`.
PYTHON_RECURSION = 20_000


def make_room_for_nesting() -> None:
    if sys.getrecursionlimit() < PYTHON_RECURSION:
        sys.setrecursionlimit(PYTHON_RECURSION)


def too_deep() -> MechError:
    return MechError("nested too deeply: Python's own stack ran out",
                     hint="lower the `recursion` limit (calls) or the `nesting` limit (expressions)")


# ---- the CPU time of one run: `Limits.seconds` ----

def out_of_time(limits: Limits, span: Span | None) -> MechError:
    return limit_error("seconds", f"it took more than {limits.seconds} s of CPU time", limits.seconds, span)


class _Clock:
    """What the timers of this process share. Not attributes of CpuTime: setting a class's attribute
    makes CPython drop what it has learnt of the class's attributes, a run's worth of slow reads."""

    __slots__ = ("running", "ticking")

    def __init__(self):
        self.running = None   # True while a CpuTime of this process is timing (not in a child forked then: _forked)
        self.ticking = None   # the CpuTime whose clock ticks in this process (`handling`), while it does


_CLOCK = _Clock()


class CpuTime:
    """`with CpuTime(limits, ev):` stops the body once it has used `limits.seconds` of CPU time: the
    last line of defence against what the counts (steps, loop rounds, dice...) miss.

    A profiling timer (ITIMER_PROF, CPU time of the process) sends SIGPROF when the time is up.
    With an evaluation `ev` (a run of a script), the handler first sets `ev.step_limit` below
    any count, so the next loop round, call or list work stops with the `seconds` error at its
    place, as the other counts do (`Evaluation.step`). If none comes within GRACE more (or without
    an `ev`: a roll, `mech prob`), the handler raises the error itself, without a place, and again
    every GRACE should something swallow it.

    Signals reach only the main thread, and not every platform has setitimer: elsewhere the limit
    is not enforced. One timer is running at a time: inside another CpuTime (of the same
    process) this one does nothing, the outer one's time covering it. On leaving, the timer is
    cleared before the previous handler comes back (SIGPROF's default ends the process), and
    `ev.step_limit` is restored, so nothing of it is left for a later run.

    A batch's runs, one after another, share one timer (`again`) and may time them all with one
    clock (`handling`): its handler is set once, and the timer ticks every TICKS-th of the time
    (of `seconds` or GRACE, the less; MIN_TICK at least) from the first run to the last. At the
    first tick that comes while a run runs, the handler reads the process's CPU time, and at each
    later one how much has gone by since: past `seconds`, the run is stopped as above, at most a
    tick or so late (it began before that first tick; the kernel delivers ticks at its own pace, a
    few milliseconds, and several that come during one long operation in C as one). A run then
    makes no system call: starting and stopping a timer for each run cost two, some 2.7
    microseconds of a pbem run's 52 in a VM."""

    LONGEST = 10 ** 8  # seconds the timer takes at most (setitimer overflows far beyond): over 3 years
    SHORTEST = 1e-6    # and at least (setitimer's unit: below it, a time of 0 clears the timer)
    GRACE = 0.5  # seconds of CPU time the next loop round or call has, at most, to stop the run
    TICKS = 4    # ticks a batch's clock gives in `seconds` or GRACE, the less
    MIN_TICK = 0.001   # seconds of CPU time between two ticks at least

    __slots__ = ("limits", "ev", "timing", "fired", "previous", "handled", "due")

    def __init__(self, limits: Limits, ev=None):
        self.limits, self.ev = limits, ev
        self.timing = self.fired = self.handled = False
        self.previous = None
        self.due = None   # in a batch's clock: the CPU time (process_time) at which the run's time is up

    def again(self, ev) -> "CpuTime":
        """This timer, for the next run `ev`: a batch times each of its runs with one timer."""
        self.ev, self.fired, self.due = ev, False, None
        return self

    @contextmanager
    def handling(self):
        """Runs one after another, each `with self.again(ev)`, timed by one clock that ticks from
        the first to the last, with this timer's handler set once for them all, and put back
        after. A timer of another run between them (a run the closures play again) sets its own
        and puts this one back; the clock starts again at the next run. Inside a timer that is
        timing, nothing: its handler stays, for its time."""
        if _CLOCK.running or not _can_time():
            yield self
            return
        previous = _signal.signal(signal.SIGPROF, self._expired)
        self.handled = True
        try:
            yield self
        finally:
            # no clock is left (nor a run's timer: a Ctrl-C just past a run's start can skip its
            # exit), stopped before SIGPROF's handler goes back to one that may end the process
            signal.setitimer(signal.ITIMER_PROF, 0)
            _CLOCK.running = _CLOCK.ticking = None
            self.timing = self.handled = False
            _signal.signal(signal.SIGPROF, _signal.SIG_DFL if previous is None else previous)

    def __enter__(self) -> "CpuTime":
        if _CLOCK.running or not self.handled and not _can_time():
            return self
        _CLOCK.running = self.timing = True
        if self.handled:
            if _CLOCK.ticking is not self:   # the first run, or a timer of another run stopped the clock
                _CLOCK.ticking = self
                tick = max(min(self.limits.seconds, self.GRACE) / self.TICKS, self.MIN_TICK)
                signal.setitimer(signal.ITIMER_PROF, tick, tick)
            return self
        self.previous = _signal.signal(signal.SIGPROF, self._expired)
        _CLOCK.ticking = None
        seconds = max(min(self.limits.seconds, self.LONGEST), self.SHORTEST)
        signal.setitimer(signal.ITIMER_PROF, seconds, min(self.GRACE, seconds))
        return self

    def __exit__(self, *exc_info) -> None:
        if not self.timing:
            return
        if not self.handled:
            signal.setitimer(signal.ITIMER_PROF, 0)
            # (None: the handler before was not set from Python; _signal takes only its own SIG_DFL)
            _signal.signal(signal.SIGPROF, _signal.SIG_DFL if self.previous is None else self.previous)
        _CLOCK.running, self.timing = None, False
        if self.fired:   # the handler set it
            self.ev.step_limit = self.limits.steps

    def _expired(self, signum, frame) -> None:
        if self.handled:   # a tick of the batch's clock
            if not self.timing:
                return   # between two runs: the batch's own work
            now = time.process_time()
            if self.due is None:   # the run's first tick: it has spent more than it will be charged
                self.due = now + self.limits.seconds
            if now < self.due:
                return
            self.due = now + self.GRACE   # stopped at its next count, or by the handler a GRACE later
        if self.ev is not None and not self.fired:
            self.fired = True
            self.ev.step_limit = -1  # the next count stops the run where it is: Evaluation.step
            return
        raise out_of_time(self.limits, None)


def _forked() -> None:
    """A child forked while a timer was timing, or a batch's clock ticking, has none: fork carries
    no interval timer over."""
    _CLOCK.running = _CLOCK.ticking = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _can_time() -> bool:
    """Signals reach the main thread alone, and some platforms (Windows) have no setitimer."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
