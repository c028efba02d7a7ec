"""Parsed programs kept in the user's cache folder, so that a long module is not parsed again at every
start of `mech`: lark takes about 0.2 s to parse pbem.mech and 0.8 s for robomacs.mech, reading the
pickled AST back a tenth of that.

An entry is found by a hash of everything the AST depends on: the text, the limits it was checked
against (a text that parsed under one `nesting` limit may not under another), the parser's own code
and grammar (a changed parser never reads an old AST), and the Python version. An entry that cannot be
read, or that reads back as anything but a program, is parsed again and written over, without a
word; so is one that is missing. The files are
pickles, so they live in the user's own cache folder, as lark's parser tables do (parser.py).

Only texts of MIN_SIZE to MAX_SIZE characters are kept: a short script or a REPL entry parses in a few
milliseconds, and would only fill the folder; a huge one (a generated script, a stranger's) would
cost more to pickle than to parse, with its pickle in memory besides the AST, and one file of
megabytes in the folder. The largest standard module is about 160 KB. It keeps at most MAX_FILES
entries, the oldest going first.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import tempfile
from importlib import resources
from pathlib import Path

import lark
import platformdirs

MIN_SIZE = 2048
MAX_SIZE = 512 * 1024
MAX_FILES = 200


def cache_folder(*parts: str) -> Path | None:
    """mechscript's folder in the user's cache folder (and `parts` under it), made if need be; None
    when it cannot be made (a read-only home): `mech` then runs without a cache."""
    folder = platformdirs.user_cache_path("mechscript").joinpath(*parts)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


@functools.cache
def _parser_version() -> bytes | None:
    """What the AST of a text depends on besides the text: the grammar and the code building the AST.
    None (no cache) if that code cannot be read as files."""
    digest = hashlib.sha256(f"{sys.version_info[:2]} lark {lark.__version__}".encode())
    here = Path(__file__).parent
    try:
        digest.update(resources.files("mechscript.grammar").joinpath("mechscript.lark").read_bytes())
        # the AST's classes (ast.py holds the notation's Modifier and Condition too) and what builds it
        for path in ("parser.py", "parse_loop.py", "builder.py", "builder_declarations.py", "builder_expressions.py",
                     "tokens.py", "inherit.py", "encounter_params.py", "ast.py", "../errors.py", "../limits.py",
                     "../dice/notation.py"):
            digest.update((here / path).read_bytes())
    except OSError:
        return None
    return digest.digest()


def _path(source: str, start: str, limits) -> Path | None:
    version = _parser_version()
    folder = cache_folder("parsed") if version is not None else None
    if folder is None:
        return None
    digest = hashlib.sha256(version)
    digest.update(f"{start}\0{limits!r}\0".encode())
    digest.update(source.encode("utf-8", "surrogatepass"))
    return folder / f"{digest.hexdigest()}.pickle"


def parsed(source: str, start: str, limits, parse, kind: type):
    """`parse()`'s AST of `source`, an object of type `kind`, read from the cache when it is there;
    written to it when not."""
    if not MIN_SIZE <= len(source) <= MAX_SIZE:
        return parse()
    path = _path(source, start, limits)
    if path is not None:
        try:
            tree = pickle.loads(path.read_bytes())
        except Exception:  # missing, or damaged in any way: parse it again (and write it over)
            tree = None
        if type(tree) is kind:  # a pickle of anything else (None, a number) is damaged too
            touch(path)
            return tree
    tree = parse()
    if path is not None:
        _write(path, tree)
    return tree


def _write(path: Path, tree) -> None:
    try:
        data = pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # nested deeper than pickle goes, or anything else: parsed again next time
        return
    write_entry(path, data)


def write_entry(path: Path, data: bytes) -> None:
    """`data` as the cache entry `path`, whole or not at all; the folder then keeps at most MAX_FILES
    entries of its kind (its suffix). Nothing is said if it cannot be written: the next start works
    it out again."""
    try:
        # written beside it, then renamed: another `mech` reading it at the same time sees all or nothing
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
        _trim(path.parent, path.suffix)
    except OSError:  # a full disk: no entry, and no half-written file left behind
        Path(temporary).unlink(missing_ok=True)


def touch(path: Path) -> None:
    """Marks an entry as read now, so that _trim keeps the entries in use."""
    try:
        os.utime(path)
    except OSError:
        pass


def _trim(folder: Path, suffix: str) -> None:
    """At most MAX_FILES entries: the ones read or written longest ago go."""
    entries = list(folder.glob("*" + suffix))
    if len(entries) <= MAX_FILES:
        return
    by_age = sorted(entries, key=lambda entry: entry.stat().st_mtime)
    for entry in by_age[:len(entries) - MAX_FILES]:
        entry.unlink(missing_ok=True)
