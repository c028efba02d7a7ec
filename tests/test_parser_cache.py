"""The parser tables lark builds from the grammar are kept in the user's cache folder
(parser._parser_cache), so that `mech` starts without building them again. Each test runs the real
`mech` in a new process with XDG_CACHE_HOME (where platformdirs puts the cache folder on Linux)
pointing into a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from support import HANG_GUARD, MECH

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="XDG_CACHE_HOME places the cache folder on Linux only")


def roll(cache_home) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    return subprocess.run([MECH, "roll", "3d6", "--seed", "1"], capture_output=True, text=True, env=env,
                          timeout=HANG_GUARD)


def test_the_first_start_writes_the_tables_and_the_next_reads_them(tmp_path):
    cache = tmp_path / "mechscript" / "grammar.lark-cache"
    first = roll(tmp_path)
    assert (first.returncode, first.stderr) == (0, "")
    written = cache.read_bytes()
    assert len(written) > 10_000  # the tables, not an empty file
    os.utime(cache, (1, 1))  # a start that read it leaves it as it was: the same bytes, the old time
    second = roll(tmp_path)
    assert (second.returncode, second.stdout, second.stderr) == (0, first.stdout, "")
    assert cache.read_bytes() == written and cache.stat().st_mtime == 1


@pytest.mark.parametrize("damage", [b"", b"not a cache\n", b"garbage" * 1000], ids=["empty", "a line", "long"])
def test_a_damaged_cache_is_built_again_without_a_word(tmp_path, damage):
    good = roll(tmp_path)
    cache = tmp_path / "mechscript" / "grammar.lark-cache"
    written = cache.read_bytes()
    cache.write_bytes(damage)
    again = roll(tmp_path)
    assert (again.returncode, again.stdout, again.stderr) == (0, good.stdout, "")
    rebuilt = cache.read_bytes()  # built again (a pickle of sets: not byte for byte the same) ...
    assert rebuilt.split(b"\n")[0] == written.split(b"\n")[0] and len(rebuilt) > 10_000
    os.utime(cache, (1, 1))
    third = roll(tmp_path)  # ... and good: the next start reads it and leaves it be
    assert (third.returncode, third.stdout, third.stderr) == (0, good.stdout, "")
    assert cache.stat().st_mtime == 1


def test_a_cache_folder_that_cannot_be_made_is_no_error(tmp_path):
    blocked = tmp_path / "a file"
    blocked.write_text("in the way of the folder")
    ran = roll(blocked)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "3d6: 6 4 6 = 16\n", "")
