"""`mech check`: everything that can be found before the first die, in the order a run meets it.

First the compiler's checks (names, arguments, characters' entries: done as the script is
compiled); then a house rule whose result no caller of the rule can use (problems.py), which a run
would report far from it, inside the module; then the script run up to its first die, for each of
its encounters (setup.py): a character's values, a module's `fail` about a sheet, an option outside
its choices, a character on two sides, errors of the top level; last, the fields the checker's
types show missing anywhere in the script (problems.py), which a run meets only when it gets there.
"""

from __future__ import annotations

from ..errors import MechError
from ..interpreter import ast
from ..interpreter.parser import quick_collector
from ..interpreter.script import Script
from .problems import TypeProblem, field_problems, house_rule_problems, program_types, script_program
from .setup import rehearse


def check_script(script: Script, encounter: str | None = None) -> None:
    """Raises the first MechError found in a compiled script; with `encounter`, first checks that the
    script has that encounter."""
    if encounter is not None:
        script.choose(encounter)
    program = script_program(script)
    with quick_collector():  # as parsing: the checker's types of a big script are all alive till the end
        types = program_types(script, program)
        house_rule_problems(script, program, types)
    rehearse(script)  # a run, whose garbage the collector frees as in any run
    with quick_collector():
        field_problems(script, program, types)


def explained(script: Script, error: MechError) -> MechError:
    """A run's error, raised inside a module: when a house rule of the script gives what the
    module's callers cannot use, the likely cause, far from the error's place, is named in its
    hint. Worked out only once a run has failed, so a run that does not pays nothing for it."""
    if error.filename == script.filename or error.hint:
        return error
    program = script_program(script)
    if not any(type(s) is ast.FnDef and s.module is not None for s in program.statements):
        return error
    try:
        house_rule_problems(script, program, program_types(script, program))
    except TypeProblem as problem:
        error.hint = f"{problem.message} ({script.filename}:{problem.span.line}:{problem.span.col})"
    return error
