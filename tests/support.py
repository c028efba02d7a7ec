"""Helpers shared by the tests that drive `mech` as a user would and guard against hangs."""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from hypothesis import strategies as st

# The real `mech` console script of this Python's environment (as the README installs it)
BIN = os.path.dirname(sys.executable)
MECH = os.path.join(BIN, "mech") if os.path.exists(os.path.join(BIN, "mech")) else "mech"

# A small module the tests write beside a script as `pbem.mech` (standing in for, and hiding, the
# standard one): an option, two rules and a table.
PBEM = """\
let bonus = 2
fn to_hit(att, def) = att + bonus > def
fn damage(x) {
    return x * 2
}
table hits { 10 => "crit", 5 => "hit", else => "miss" }
"""

HANG_GUARD = 120  # seconds: a guard against a hang, generous on purpose, not a speed check


class Ran(NamedTuple):
    code: int
    out: str
    err: str


def mech_forked(argv: list[str], cwd: Path) -> Ran:
    """`mech ARGV` as the console script runs it (`sys.exit(main())`), in a forked child of this
    process: the grammar is already loaded, so it costs milliseconds instead of a new interpreter.
    An exception escaping `main` prints its traceback and exits 1, as Python does. The child leaves
    with os._exit, without the clean-up of a process pool: `mech sim` here takes `--jobs 1`."""
    from mechscript import cli
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 70
            try:
                os.chdir(cwd)
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
                sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
                sys.stdin = open(os.devnull, encoding="utf-8")
                os.environ.pop("MECH_DEBUG", None)
                try:
                    code = cli.main(argv)
                except SystemExit as exit_:
                    code = exit_.code if isinstance(exit_.code, int) else 1
                except BaseException:
                    traceback.print_exc()
                    code = 1
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
        give_up = time.monotonic() + HANG_GUARD
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > give_up:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise TimeoutError(f"mech {' '.join(argv)} still running after {HANG_GUARD} s")
            time.sleep(0.005)
        out.seek(0)
        err.seek(0)
        return Ran(os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode())


def run_json(tmp_path: Path, script: str, faces: list[int] | None = None, code: int = 0) -> dict | str:
    """`mech run FILE --faces ... --json` (or `--seed 1` without faces): {"log": [...], "result": ...},
    or the error text when the exit code expected is not 0."""
    path = tmp_path / "script.mech"
    path.write_text(script)
    dice = ["--faces", ",".join(map(str, faces))] if faces is not None else ["--seed", "1"]
    ran = mech_forked(["run", str(path), *dice, "--json"], tmp_path)
    assert ran.code == code, ran.err
    return json.loads(ran.out) if code == 0 else ran.err


def keyed(log: list[str]) -> dict[str, str]:
    """A script's said lines `KEY: value` as {KEY: value}."""
    return dict(line.split(": ", 1) for line in log)


@contextmanager
def deadline(seconds: int = HANG_GUARD):
    """Fail (instead of hanging) when the body runs longer than `seconds`: a guard against a hang,
    not a speed check (speed is measured in bench/)."""
    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def dice_token_strategies(max_half: int) -> tuple:
    """Valid text for the dice terminals of the grammar that hypothesis cannot draw from their
    regexes (lookarounds): (small numbers as text, {terminal: strategy})."""
    small = st.integers(0, 12).map(str)
    signed = st.one_of(small, st.builds(lambda minus, n: f"{minus}{n}", st.sampled_from("-−–"), st.integers(1, 3)))
    compare = [">=", "<=", ">", "<", "="]
    cond = st.one_of(small, st.builds("".join, st.tuples(st.sampled_from(compare), signed)))
    half = st.builds(lambda n, h: f"{n}{'.5' if h else ''}", st.integers(0, max_half), st.booleans())
    return small, {
        "POOL": st.builds(lambda a, b: f"{a}k{b}", half, half),
        "DIE_D": st.just("d"),
        "DIE_F": st.just("dF"),
        # other rollers' spellings too (README, "Dice notation"): a keep without a count, by value
        "KEEP": st.one_of(st.builds("".join, st.tuples(st.sampled_from(["k", "kh", "kl", "dh", "dl"]),
                                                       st.one_of(st.just(""), small))),
                          st.builds("".join, st.tuples(st.sampled_from(["k", "d"]), st.sampled_from(compare), signed))),
        "EXPLODE": st.builds("".join, st.tuples(st.sampled_from(["!", "!!", "!p", "x", "xo"]),
                                                st.one_of(st.just(""), cond))),
        "REROLL": st.builds("".join, st.tuples(st.sampled_from(["r", "ro", "rr", "ra"]), cond)),
        "CLAMP": st.builds("".join, st.tuples(st.sampled_from(["mi", "ma"]), signed)),
        "COUNT": st.builds("".join, st.tuples(st.sampled_from(["c", "cs", "cf"]), cond)),
        "FAIL": cond.map(lambda c: "f" + c),
    }


def write_case(root: Path, case) -> Path:
    """An error case (`id`, `source`, `modules`) as files: its folder, main.mech and the modules beside it."""
    folder = root / case.id
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in case.modules.items():
        (folder / name).write_text(text, encoding="utf-8")
    script = folder / "main.mech"
    script.write_text(case.source, encoding="utf-8")
    return script


def error_file(case, script: Path) -> str:
    """How an error names its file (`case.file`): the script as given, a module by its resolved path."""
    return str(script) if case.file == "main.mech" else str((script.parent / case.file).resolve())


def api_errors(case, script: Path) -> list:
    """An error case through the Python API: the errors of `check` (when the checker finds it,
    `case.when == "check"`; otherwise check must pass) and of `run`, the run's last."""
    import pytest

    import mechscript
    errors = []
    if case.when == "check":
        with pytest.raises(mechscript.MechError) as checked:
            mechscript.check(str(script))
        errors.append(checked.value)
    else:
        mechscript.check(str(script))  # the checker cannot see it
    with pytest.raises(mechscript.MechError) as ran:
        mechscript.run(str(script), seed=1)
    return errors + [ran.value]


def ctrl_c_as_usual() -> None:
    """A child's `preexec_fn`: Ctrl-C back to its default before `mech` starts. A test run started in
    the background of a shell ignores SIGINT, and a child inherits that (Python then leaves it
    ignored), so a test sending Ctrl-C would see it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
