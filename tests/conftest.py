import atexit
import os
import shutil
import signal
import tempfile

import pytest
from hypothesis import settings

from mechscript.limits import make_room_for_nesting

# mechscript's cache (lark's parser tables, parsed programs) goes to a folder of the test run's own,
# for this process and every `mech` it starts: the tests neither write into the user's cache folder
# nor depend on what is there. (platformdirs takes XDG_CACHE_HOME on Linux.)
_CACHE_HOME = tempfile.mkdtemp(prefix="mechscript-tests-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
_OWNER = os.getpid()  # a forked child leaving must not take the folder away from the run
atexit.register(lambda: os.getpid() == _OWNER and shutil.rmtree(_CACHE_HOME, ignore_errors=True))

# mechscript raises Python's recursion limit the first time it parses (deeply nested expressions
# need it); doing it once up front keeps hypothesis from warning that a test changed it.
make_room_for_nesting()

# In CI (CI=true), hypothesis draws the same examples on every run: a red build is reproducible,
# never a coin flip. Locally it keeps exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def _warm_the_standard_library() -> None:
    """Parse each standard module once in this process (the loader keeps what it parsed): the
    tests that run `mech` in a forked child then start from it instead of parsing it again."""
    import mechscript
    from mechscript.errors import MechError
    from mechscript.interpreter.script import STDLIB
    for module in sorted(STDLIB.glob("*.mech")):
        try:
            mechscript.check(f"use {module.stem}\n")
        except MechError:
            pass  # a broken module fails its own tests, not the loading of every test


_warm_the_standard_library()


@pytest.fixture(autouse=True)
def _ctrl_c_handled_as_before():
    """A test that leaves Ctrl-C handled otherwise (ignored: every `mech` the later tests start
    would inherit it) fails itself, instead of the later Ctrl-C tests failing for it."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"the test left SIGINT handled by {after!r} (it was {before!r})")
