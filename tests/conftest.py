import os

from hypothesis import settings

from mechscript.interpreter.limits import make_room_for_nesting

# mechscript raises Python's recursion limit the first time it parses (deeply nested expressions
# need it); doing it once up front keeps hypothesis from warning that a test changed it.
make_room_for_nesting()

# In CI (CI=true), hypothesis draws the same examples on every run: a red build is reproducible,
# never a coin flip. Locally it keeps exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
