"""An expression parsed once and rolled many times (`mech roll`, `prob --samples`, the API's
`compile_roll`), and the seeds of rolls nobody seeded."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from fractions import Fraction

from .dice.engine import BatchDice, DiceRoll, sampler
from .dice.faces import FaceSource
from .dice.rollkeep import KeepRoll, Pool
from .errors import MechError
from .interpreter import ast
from .interpreter.evaluator import Evaluation
from .interpreter.parser import parse_expression
from .interpreter.script import compile_expression
from .interpreter.show import expression_text
from .interpreter.values import format_value, to_json
from .limits import Limits, too_deep


EXPR_FILE = "<expr>"


def new_seed() -> int:
    """A fresh seed for a roll nobody seeded; it is reported so the roll can be replayed."""
    return int.from_bytes(os.urandom(4), "big")


@dataclass
class RollResult:
    expr: str
    total: int | Fraction | bool
    text: str
    rolls: list = field(repr=False)
    seed: int | None = None
    faces_used: int | None = None  # with given faces: how many had been used once this roll was done

    def to_json(self) -> dict:
        data = {"expr": self.expr, "total": to_json(self.total), "text": self.text}
        if type(self.total) is Fraction:  # JSON has no fractions: the float above, the exact value here
            data["total_exact"] = format_value(self.total)
        if self.seed is not None:
            data["seed"] = self.seed
        return data


class CompiledRoll:
    """An expression parsed once, to be rolled many times."""

    __slots__ = ("expr", "node", "limits", "code", "_sample", "_direct", "direct_dice")

    def __init__(self, expr: str, limits: Limits = Limits()):
        self.expr = expr
        self.limits = limits
        self.node = parse_expression(expr, EXPR_FILE, limits)
        try:
            self.code = compile_expression(self.node, limits)
            self._sample = compile_expression(self.node, limits, record=False)
        except MechError as error:
            raise error.located(expr, EXPR_FILE) from None
        except RecursionError:
            raise too_deep().located(expr, EXPR_FILE) from None
        self._direct, self.direct_dice = _direct_sampler(self.node, limits)

    def evaluate(self, source: FaceSource, batch: BatchDice | None = None) -> tuple[object, list]:
        """The value and the rolls made, faces drawn from `source`; the dice rolled are counted in
        `batch` when it is one of many."""
        ev = Evaluation(source, self.limits)
        try:
            value = self.code(ev)
            if type(value) is Pool:  # a pool left standing at the end is rolled
                value = ev.roll_pool(value)
            if batch is not None:
                batch.spend(ev.dice, self.node.span)
        except MechError as error:
            raise error.located(self.expr, EXPR_FILE) from None
        except RecursionError:
            raise too_deep().located(self.expr, EXPR_FILE) from None
        return value, ev.rolls

    def total(self, source: FaceSource, batch: BatchDice | None = None):
        """Just the value, as a number or a bool (for sampling many times; nothing is shown); the
        dice rolled are counted in `batch` when given."""
        if self._direct is not None:  # a lone `4d6kh3`: straight from the faces
            try:
                if batch is not None:
                    batch.spend(self.direct_dice, self.node.span)
                return self._direct(source)
            except MechError as error:
                error.span = error.span or self.node.span
                raise error.located(self.expr, EXPR_FILE) from None
        ev = Evaluation(source, self.limits)
        try:
            value = self._sample(ev)
            if type(value) is Pool:
                value = ev.roll_pool(value)
            if batch is not None:
                batch.spend(ev.dice, self.node.span)
        except MechError as error:
            raise error.located(self.expr, EXPR_FILE) from None
        return value.total if type(value) is DiceRoll or type(value) is KeepRoll else value

    def roll(self, source: FaceSource, seed: int | None = None, batch: BatchDice | None = None) -> RollResult:
        value, rolls = self.evaluate(source, batch)
        total = value.total if type(value) in (DiceRoll, KeepRoll) else value
        return RollResult(self.expr, total, expression_text(self.expr, value, rolls), rolls, seed)


def _direct_sampler(node, limits: Limits):
    """When the whole expression is one dice term of known size (`3d6`, `4d6kh3`), the engine's
    sampler of it: its total needs no evaluation state at all; and the dice it rolls each time.
    (None, None) when there is none."""
    if type(node) is not ast.Dice or type(node.sides) not in (ast.Number, str):
        return None, None
    count = 1 if node.count is None else node.count.value if type(node.count) is ast.Number else None
    if type(count) is not int or count > limits.dice_per_roll or count > limits.total_dice:
        return None, None
    die = {"%": 100, "F": None}.get(node.sides) if type(node.sides) is str else node.sides.value
    if type(die) is not int or not 1 <= die <= limits.die_sides:
        return None, None
    direct = sampler(count, die, node.modifiers)
    return direct, None if direct is None else count


@functools.lru_cache(maxsize=256)
def compile_roll(expr: str, limits: Limits = Limits()) -> CompiledRoll:
    return CompiledRoll(expr, limits)
