"""`mech` in a pseudo-terminal, as a game master starts it: pexpect runs the real command, and a
terminal emulator (pyte) draws what it sends, answering its cursor-position requests as a terminal
does, so the test reads the screen a user would see."""

from __future__ import annotations

import os
import time

import pexpect
import pyte

import mechscript

from support import MECH

ROWS, COLUMNS = 24, 100


class Screen:
    def __init__(self, child: pexpect.spawn):
        self.child = child
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.screen.write_process_input = child.send  # the terminal's answers go back to the program
        self.stream = pyte.Stream(self.screen)

    def wait_for(self, *texts: str, timeout: float = 30) -> list[str]:
        """Reads what the program sends until every text shows on the screen; the screen's lines."""
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up:
            try:
                self.stream.feed(self.child.read_nonblocking(4096, timeout=0.05))
            except pexpect.TIMEOUT:
                pass
            lines = [line.rstrip() for line in self.screen.display]
            if all(any(text in line for line in lines) for text in texts):
                return lines
        raise AssertionError(f"never showed {texts}:\n" + "\n".join(self.screen.display))


def test_a_roll_typed_at_the_prompt(tmp_path):
    env = dict(os.environ, MECH_HISTORY=str(tmp_path / "history"), TERM="xterm")
    child = pexpect.spawn(MECH, [], env=env, encoding="utf-8", dimensions=(ROWS, COLUMNS), timeout=30)
    try:
        screen = Screen(child)
        screen.wait_for("mech>", "modules: none")
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
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert "4d6kh3" in (tmp_path / "history").read_text()
