"""pytest-benchmark fixtures for mechscript's rolls: parsed once, evaluated many times.

    pytest -n 0 bench/test_bench_roll.py   (one process: under xdist, pytest-benchmark times nothing)

Not collected by the project's test run (its `testpaths` is `tests`); speed is measured here,
never asserted. For the side-by-side comparison with d20 use bench/bench_roll.py.
"""

import pytest

import mechscript
from mechscript.dice.faces import RandomFaces

EXPRESSIONS = ["3d6", "4d6kh3", "7k3", "10d10c>=7"]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_total(benchmark, expr):
    """`CompiledRoll.total`: the value only."""
    benchmark.group = "total()"
    compiled = mechscript.compile_roll(expr)
    value = benchmark(compiled.total, RandomFaces(1))
    assert type(value) is int


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_roll(benchmark, expr):
    """`CompiledRoll.roll`: the value and the display text."""
    benchmark.group = "roll()"
    compiled = mechscript.compile_roll(expr)
    result = benchmark(compiled.roll, RandomFaces(1))
    assert result.text.endswith(f"= {result.total}")
