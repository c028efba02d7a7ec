"""The written Python of a set-up is compiled once (backend/compiled.py): kept in the process, and in
the user's cache folder (XDG_CACHE_HOME, where platformdirs puts it on Linux, in a temporary folder
here) for the next `mech`."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mechscript.backend import compiled as written_code
from mechscript.backend.compiled import compiled
from support import HANG_GUARD, MECH

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="XDG_CACHE_HOME places the cache folder on Linux only")

ROOT = Path(__file__).resolve().parent.parent


def written(said: str) -> str:
    """A text as long as the set-up writes (at least MIN_SIZE): functions, and SAID."""
    filler = "".join(f"def helper_{i}(x):\n    return x + {i}\n" for i in range(1200))
    assert len(filler) >= written_code.MIN_SIZE
    return filler + f"SAID = {said!r}\n"


def said(code) -> str:
    namespace: dict = {}
    exec(code, namespace)
    return namespace["SAID"]


def entries(cache_home: Path) -> list:
    return sorted((cache_home / "mechscript" / "written").glob("*.code"))


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    compiled.cache_clear()
    yield tmp_path
    compiled.cache_clear()


def test_a_text_is_compiled_once_a_process(home):
    text = written("hello")
    assert compiled(text, "<w>") is compiled(text, "<w>")
    assert said(compiled(text, "<w>")) == "hello"


def test_the_next_process_reads_the_code_back(home):
    text = written("hello")
    compiled(text, "<w>")
    kept, = entries(home)
    # what the next process runs is what it reads from the cache: put other code there
    kept.write_bytes(marshal.dumps(compile(written("read from the cache"), "<w>", "exec")))
    os.utime(kept, (1, 1))
    compiled.cache_clear()   # as a new process
    assert said(compiled(text, "<w>")) == "read from the cache"
    assert kept.stat().st_mtime > 1   # marked as read: the oldest entries go first
    # another text, or the same under another name, is another entry
    assert said(compiled(written("edited"), "<w>")) == "edited"
    assert said(compiled(text, "<other>")) == "hello"
    assert len(entries(home)) == 3


@pytest.mark.parametrize("damage", [b"", b"not marshalled\n", marshal.dumps(12), marshal.dumps(None),
                                    marshal.dumps(compile("SAID = 'x'", "<another name>", "exec"))[:-1],
                                    marshal.dumps(compile("SAID = 'x'", "<another name>", "exec"))],
                         ids=["empty", "text", "a_number", "none", "cut", "another_name"])
def test_a_damaged_entry_is_compiled_again_and_written_over(home, damage):
    text = written("hello")
    compiled(text, "<w>")
    kept, = entries(home)
    kept.write_bytes(damage)
    compiled.cache_clear()
    assert said(compiled(text, "<w>")) == "hello"
    assert said(marshal.loads(kept.read_bytes())) == "hello"


def test_short_texts_are_compiled_each_time_and_not_kept(home):
    text = "SAID = 'short'\n"
    assert said(compiled(text, "<w>")) == "short"
    assert entries(home) == []


def test_a_second_mech_sim_reads_the_written_code_and_fights_the_same(tmp_path):
    example = ROOT / "examples" / "transformers_duel.mech"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    sim = [MECH, "sim", str(example), "-n", "20", "--seed", "3", "--json"]
    first = subprocess.run(sim, capture_output=True, text=True, env=env, timeout=HANG_GUARD)
    assert (first.returncode, first.stderr) == (0, "")
    kept, = entries(tmp_path)
    os.utime(kept, (1, 1))
    written = kept.stat().st_ino   # an entry written again is a new file (os.replace), read is the same one
    second = subprocess.run(sim, capture_output=True, text=True, env=env, timeout=HANG_GUARD)
    assert (second.returncode, second.stdout, second.stderr) == (0, first.stdout, "")
    assert entries(tmp_path) == [kept] and kept.stat().st_ino == written
    assert kept.stat().st_mtime > 1   # marked as read
