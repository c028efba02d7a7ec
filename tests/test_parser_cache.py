"""The parser tables lark builds from the grammar are kept in the user's cache folder
(parser._parser_cache), so that `mech` starts without building them again; so are long programs once
parsed (parsed_cache.py). Each test runs the real `mech` in a new process with XDG_CACHE_HOME (where
platformdirs puts the cache folder on Linux) pointing into a temporary folder."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest

from mechscript.interpreter import parsed_cache
from mechscript.limits import Limits
from mechscript.interpreter.parser import parse_program
from support import HANG_GUARD, MECH

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="XDG_CACHE_HOME places the cache folder on Linux only")


def mech_cached(cache_home, *argv) -> subprocess.CompletedProcess:
    """`mech *argv` in a new process whose cache folder is in `cache_home`."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    return subprocess.run([MECH, *argv], capture_output=True, text=True, env=env, timeout=HANG_GUARD)


def roll(cache_home) -> subprocess.CompletedProcess:
    return mech_cached(cache_home, "roll", "3d6", "--seed", "1")


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


# ---- parsed programs ----

def long_module(said: str) -> str:
    """A module long enough to be kept (parsed_cache.MIN_SIZE): many functions, one of which says `said`."""
    filler = "".join(f"fn helper_{i}(x) = x + {i}   # a function the script does not call\n" for i in range(60))
    return filler + f'fn greeting() = "{said}"\n'


def run(cache_home, folder, *options) -> subprocess.CompletedProcess:
    return mech_cached(cache_home, "run", str(folder / "script.mech"), *options)


def entries(cache_home) -> list:
    return sorted((cache_home / "mechscript" / "parsed").glob("*.pickle"))


@pytest.fixture
def dirs(tmp_path):
    """(the cache home, a folder for the scripts), both in tmp_path; the scripts' folder made."""
    home, folder = tmp_path / "cache", tmp_path / "scripts"
    folder.mkdir()
    return home, folder


def test_a_long_module_is_parsed_once_and_read_back_after(dirs):
    home, folder = dirs
    (folder / "greet.mech").write_text(long_module("hello"))
    (folder / "script.mech").write_text("use greet\nsay greeting()\n")
    first = run(home, folder)
    assert (first.returncode, first.stdout, first.stderr) == (0, "hello\n", "")
    kept, = entries(home)  # the module; the two-line script is too short to keep

    # What the next start runs is what it reads from the cache: put another module's AST there.
    other = parse_program(long_module("read from the cache"), "greet.mech")
    kept.write_bytes(pickle.dumps(other))
    assert run(home, folder).stdout == "read from the cache\n"

    # An edited module is another text: parsed again, not taken for the old one.
    (folder / "greet.mech").write_text(long_module("edited"))
    edited = run(home, folder)
    assert (edited.returncode, edited.stdout, edited.stderr) == (0, "edited\n", "")
    assert len(entries(home)) == 2


@pytest.mark.parametrize("damage", [b"", b"not a pickle\n", pickle.dumps(12)[:-1], pickle.dumps(None),
                                    pickle.dumps(12), pickle.dumps(["use greet"])],
                         ids=["empty", "text", "cut", "none", "a_number", "a_list"])  # the last three: issue 22
def test_a_damaged_entry_is_parsed_again_without_a_word(dirs, damage):
    home, folder = dirs
    (folder / "greet.mech").write_text(long_module("hello"))
    (folder / "script.mech").write_text("use greet\nsay greeting()\n")
    run(home, folder)
    kept, = entries(home)
    kept.write_bytes(damage)
    again = run(home, folder)
    assert (again.returncode, again.stdout, again.stderr) == (0, "hello\n", "")
    assert pickle.loads(kept.read_bytes()) == parse_program(long_module("hello"), "greet.mech")  # written over


def test_a_program_read_from_the_cache_runs_as_deep_as_one_parsed(dirs):
    # Parsing made room on Python's stack for deep calls; reading the AST back must too. Calls 190
    # deep of a function that keeps its closures (a `fn` inside it) need more than Python's default.
    home, folder = dirs
    (folder / "script.mech").write_text(long_module("hello") + "fn down(n) {\n    fn inner(x) = x\n"
                                        "    if n == 0 { return 0 }\n    return 1 + down(n - 1)\n}\nsay down(190)\n")
    first, second = run(home, folder), run(home, folder)
    assert len(entries(home)) == 1
    assert (first.returncode, first.stdout, first.stderr) == (0, "190\n", "")
    assert (second.returncode, second.stdout, second.stderr) == (0, "190\n", "")


def test_a_text_kept_under_one_limit_is_still_checked_under_another(dirs):
    # parsed (and kept) under the default nesting limit; with a lower one the same text is too deep
    home, folder = dirs
    deep = "(" * 30 + "1" + ")" * 30
    (folder / "script.mech").write_text(long_module("hello") + f"say {deep}\n")
    assert run(home, folder).stdout == "1\n"
    tight = run(home, folder, "--limit", "nesting=20")
    assert tight.returncode == 1 and "nested more than 20 deep" in tight.stderr and "Traceback" not in tight.stderr


def test_short_texts_are_not_kept_and_the_oldest_entries_go(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(parsed_cache, "MAX_FILES", 3)
    parse_program("say 1\n", "short.mech")
    assert entries(tmp_path) == []
    for i in range(5):
        text = long_module(f"module {i}")
        parse_program(text, f"m{i}.mech")
        os.utime(parsed_cache._path(text, "program", Limits()), (i, i))  # written in the order of i
    kept = entries(tmp_path)
    assert len(kept) == 3
    assert sorted(entry.stat().st_mtime for entry in kept) == [2, 3, 4]  # the two oldest went


def test_huge_texts_are_not_kept(tmp_path, monkeypatch):
    # issue 22: a stranger's huge script would cost more to pickle than to parse, and fill the folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = long_module("hello")
    monkeypatch.setattr(parsed_cache, "MAX_SIZE", len(text) - 1)
    assert parse_program(text, "huge.mech") == parse_program(text, "again.mech")
    assert entries(tmp_path) == []
    monkeypatch.setattr(parsed_cache, "MAX_SIZE", len(text))  # the largest kept
    parse_program(text, "kept.mech")
    assert len(entries(tmp_path)) == 1
