"""mechscript: a dice and combat scripting language for giant-robot tabletop RPGs."""

from .api import CompiledRoll, RollResult, compile_roll, roll, roll_many
from .interpreter.errors import MechError
from .interpreter.limits import Limits

__all__ = ["CompiledRoll", "Limits", "MechError", "RollResult", "compile_roll", "roll", "roll_many"]
__version__ = "0.1.0"
