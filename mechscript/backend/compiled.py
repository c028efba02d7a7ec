"""The written Python of a set-up, compiled once, as Jinja keeps its compiled templates: in this
process (batch after batch of one script: a sweep, a comparison, `--balance`, the REPL's sims), and
in the user's cache folder for the next `mech`, beside the parsed programs (parsed_cache.py).
Python compiles transformers' 7,000 written lines in 0.07 s, an eighth of its set-up; reading
the code back takes a hundredth of that.

An entry is found by a hash of the text, the name the code is compiled under (tracebacks and
`co_filename` show it) and Python's bytecode version (importlib's MAGIC_NUMBER). It is the code
object as `marshal` writes it: like the parsed programs' pickles, for the user's own folder alone.
One that cannot be read, or reads back as anything but code of that name, is compiled again and
written over. Texts under MIN_SIZE characters (a small script's rules) are kept in the process only:
compiling them takes less than reading a file.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import types
from importlib.util import MAGIC_NUMBER
from pathlib import Path

from ..interpreter.parsed_cache import cache_folder, touch, write_entry

MIN_SIZE = 20_000
SUFFIX = ".code"


@functools.lru_cache(maxsize=16)
def compiled(source: str, filename: str) -> types.CodeType:
    """`compile(source, filename, "exec")`, from this process's or the cache folder's copy when there is one."""
    path = _path(source, filename) if len(source) >= MIN_SIZE else None
    if path is not None:
        try:
            code = marshal.loads(path.read_bytes())
        except Exception:   # missing, or damaged in any way: compiled again (and written over)
            code = None
        if type(code) is types.CodeType and code.co_filename == filename:
            touch(path)
            return code
    code = compile(source, filename, "exec")
    if path is not None:
        write_entry(path, marshal.dumps(code))
    return code


def _path(source: str, filename: str) -> Path | None:
    folder = cache_folder("written")
    if folder is None:
        return None
    digest = hashlib.sha256(MAGIC_NUMBER)
    digest.update(filename.encode("utf-8", "surrogatepass") + b"\0")
    digest.update(source.encode("utf-8", "surrogatepass"))
    return folder / f"{digest.hexdigest()}{SUFFIX}"
