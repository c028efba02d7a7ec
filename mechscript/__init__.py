"""mechscript: a dice and combat scripting language for giant-robot tabletop RPGs."""

from .api import CompiledRoll, ProbResult, RollResult, RunResult, check, compare, compile_roll, prob, roll, roll_many, run, simulate, sweep
from .errors import MechError
from .limits import Limits

__all__ = ["CompiledRoll", "Limits", "MechError", "ProbResult", "RollResult", "RunResult", "check", "compare", "compile_roll",
           "prob", "roll", "roll_many", "run", "simulate", "sweep"]
__version__ = "0.1.0"
