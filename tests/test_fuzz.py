"""Grammar-generated expressions and programs through `mech roll`, `mech prob` (exact and sampled),
`mech check` and `mech run`: none ends in an internal error (exit status 3) (issue 22, item 8).
500 inputs a run (1,250 commands), derandomized so that a failure is the same on every machine;
MECH_FUZZ_EXAMPLES=N runs N of each. bench/fuzz_campaign.py is the long campaign."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from fuzzing import EXPRESSIONS, INTERNAL_ERROR, PROGRAMS, Tally, mech, run_expression, run_program

EXAMPLES = int(os.environ.get("MECH_FUZZ_EXAMPLES", "0"))
# Small bounds keep each command to milliseconds; `seconds` guards against what they miss.
LIMITS = ["--limit", "seconds=5", "--limit", "steps=20000", "--limit", "exact_work=200000",
          "--limit", "total_dice=2000", "--limit", "output_lines=50"]


def fuzzed(n: int):
    return settings(max_examples=EXAMPLES or n, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _say(tally: Tally) -> str:
    return "\n".join(f"mech {' '.join(o.argv)}\n{o.err}" for o in tally.internal[:3])


@fuzzed(250)
@given(EXPRESSIONS)
def test_no_expression_is_an_internal_error(expr):
    tally = Tally()
    run_expression(expr, tally, LIMITS)
    assert not tally.internal, _say(tally)


def test_no_program_is_an_internal_error(tmp_path):
    @fuzzed(250)
    @given(PROGRAMS)
    def one(text):
        tally = Tally()
        run_program(text, tmp_path, tally, LIMITS)
        assert not tally.internal, _say(tally)
    one()


def test_an_internal_error_is_seen(monkeypatch, tmp_path):
    # the check itself can fail: a bug planted in the roll command is an exit status 3, and counted
    from mechscript import cli

    def broken(args):
        raise ZeroDivisionError("planted")
    monkeypatch.setitem(cli.main.__globals__, "run_roll", broken)
    tally = Tally()
    run_expression("2d6", tally, LIMITS)
    assert [o.argv[0] for o in tally.internal] == ["roll"] and tally.internal[0].code == INTERNAL_ERROR
    assert mech(["prob", "--", "2d6"]).code == 0


@pytest.mark.parametrize("expr", ["[]", "none", "{a: 1}"])
def test_sampled_odds_of_what_is_no_outcome_are_the_exact_odds_error(expr):
    # found by the long campaign: `mech prob --samples` of a list (or none, or a record) was an
    # internal error, where the exact odds say what is wrong
    exact = mech(["prob", "--", expr])
    sampled = mech(["prob", "--samples", "20", "--seed", "1", "--", expr])
    assert (sampled.code, sampled.err) == (exact.code, exact.err)
    assert exact.code == 1 and "odds are of numbers, true/false or strings" in exact.err


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="a peak that can be reset: Linux")
def test_a_commands_peak_memory_is_its_own(tmp_path):
    # The campaign names the inputs that take much memory: a command's peak is measured from a
    # reset, so a small command after a big one is small (a chunk's peak alone named no input).
    tally = Tally(heavy_after=0)
    big = mech(["prob", "--limit", "exact_work=50000000", "--", "mean(1d1500 * 1d1500)"],
               measure_peak=True)  # 547,811 outcomes held
    small = mech(["prob", "--", "2d6"], measure_peak=True)
    assert big.code == small.code == 0
    assert big.peak_mb > small.peak_mb + 40
    tally.add(small)
    tally.add(big)
    assert tally.heaviest is big and tally.heavy == [small, big]
    assert mech(["prob", "--", "2d6"]).peak_mb == 0  # not measured unless asked
