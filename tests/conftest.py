# mechscript raises Python's recursion limit the first time it parses (deeply nested expressions
# need it); doing it once up front keeps hypothesis from warning that a test changed it.
from mechscript.interpreter.limits import make_room_for_nesting

make_room_for_nesting()
