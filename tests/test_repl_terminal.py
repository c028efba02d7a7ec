"""`mech` in a pseudo-terminal, as a game master starts it: pexpect runs the real command, and a
terminal emulator (pyte) draws what it sends, answering its cursor-position requests as a terminal
does, so the test reads the screen a user would see."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

import pexpect
import pyte

import mechscript

from support import MECH, ctrl_c_as_usual

ROWS, COLUMNS = 24, 100


class Screen:
    def __init__(self, child: pexpect.spawn):
        self.child = child
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.screen.write_process_input = child.send  # the terminal's answers go back to the program
        self.stream = pyte.Stream(self.screen)

    def wait_for(self, *texts: str) -> list[str]:
        """Reads what the program sends until every text shows on the screen; the screen's lines."""
        return self.wait_until(lambda lines: all(any(text in line for line in lines) for text in texts), texts)

    def wait_for_exit(self, timeout: float = 30) -> None:
        """Reads (and answers, as a terminal) until the program has ended."""
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up:
            try:
                self._read()
            except pexpect.EOF:
                return
        raise AssertionError("still running:\n" + "\n".join(self.screen.display))

    def wait_until(self, check, what, timeout: float = 30) -> list[str]:
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up:
            self._read()
            lines = [line.rstrip() for line in self.screen.display]
            if check(lines):
                return lines
        raise AssertionError(f"never showed {what}:\n" + "\n".join(self.screen.display))

    def _read(self) -> None:
        """Draws what the program sent in the last moment; pexpect.EOF once it has ended."""
        try:
            self.stream.feed(self.child.read_nonblocking(4096, timeout=0.05))
        except pexpect.TIMEOUT:
            pass


@contextmanager
def mech_in_a_terminal(tmp_path, *argv: str):
    """`mech ARGV` started in a pseudo-terminal, its history in tmp_path; yields (the child, its
    Screen) once the prompt and the toolbar show, and closes the child on the way out."""
    env = dict(os.environ, MECH_HISTORY=str(tmp_path / "history"), TERM="xterm")
    child = pexpect.spawn(MECH, list(argv), env=env, encoding="utf-8", dimensions=(ROWS, COLUMNS), timeout=30,
                          preexec_fn=ctrl_c_as_usual)
    try:
        screen = Screen(child)
        screen.wait_for("mech>", "modules: none")
        yield child, screen
    finally:
        child.close(force=True)


def test_a_roll_typed_at_the_prompt(tmp_path):
    with mech_in_a_terminal(tmp_path) as (child, screen):
        child.send(":seed 7\r")
        screen.wait_for("seed 7 |")
        child.send("4d6kh3\r")
        expected = mechscript.roll("4d6kh3", seed=7).text
        lines = screen.wait_for(expected, "seed 7 | modules: none")
        at = lines.index(expected)
        assert lines[at - 1:at + 2] == ["mech> 4d6kh3", expected, "mech>"]
        assert lines[-1].startswith(" seed 7 | modules: none")  # the toolbar, at the bottom
        row = screen.screen.buffer[at]
        bold = "".join(row[x].data if row[x].bold else "." for x in range(len(expected)))
        assert bold == "........3.....3.5...11"  # the kept dice and the total stand out; (1) does not
        child.sendcontrol("d")
        screen.wait_for_exit()
    assert child.exitstatus == 0
    assert "4d6kh3" in (tmp_path / "history").read_text()


def test_ctrl_c_stops_an_entry_that_runs_and_the_session_goes_on(tmp_path):
    limits = ["--limit", "steps=1000000000", "--limit", "loop_iterations=1000000000"]  # a loop that would run long
    with mech_in_a_terminal(tmp_path, "repl", *limits) as (child, screen):
        child.send("let n = 0\r")
        child.send("while true { n += 1 }\r")
        screen.wait_for("mech> while true { n += 1 }")
        time.sleep(0.5)  # it is running
        child.sendintr()
        screen.wait_for("interrupted")
        child.send("n > 0\r")
        screen.wait_until(lambda lines: "mech> n > 0" in lines and lines[lines.index("mech> n > 0") + 1] == "true"
                          and lines[-1].startswith(" seed"), "the answer to n > 0, then the prompt")
        child.sendcontrol("d")
        screen.wait_for_exit()
    assert child.exitstatus == 0


def test_underscore_then_exit_as_in_python(tmp_path):
    # issue 21, item 5: a Python user's words at the real `mech` in a terminal
    with mech_in_a_terminal(tmp_path) as (child, screen):
        child.send("6 * 7\r")
        screen.wait_for("42")
        child.send("_ + 1\r")
        screen.wait_for("43")
        child.send("exit\r")
        screen.wait_for_exit()
    assert child.exitstatus == 0
