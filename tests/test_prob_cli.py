"""`mech prob` end to end (text and JSON per the contract, errors, limits), and prob/dist/mean in
scripts through `mech run` (issue 7)."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

import mechscript
import exact_reference as exact
from support import mech_forked


def mech(*argv: str, cwd: Path = Path(".")):
    return mech_forked(list(argv), cwd)


# ---- mech prob: text ----

def test_text_table_of_2d6():
    ran = mech("prob", "2d6")
    assert ran.code == 0 and ran.err == ""
    lines = ran.out.splitlines()
    assert lines[0] == "2d6: exact"
    assert lines[1].split() == ["outcome", "probability", "at", "least", "at", "most"]
    rows = {line.split()[0]: line.split() for line in lines[2:13]}
    assert list(rows) == [str(s) for s in range(2, 13)]
    assert rows["7"][1:4] == ["16.67%", "58.33%", "58.33%"]     # P(7), P(>= 7), P(<= 7)
    assert rows["2"][1:4] == ["2.78%", "100.00%", "2.78%"]
    assert rows["12"][1:4] == ["2.78%", "2.78%", "100.00%"]
    bars = {outcome: row[4] for outcome, row in rows.items()}
    assert bars["7"] == "█" * 40                                 # the likeliest outcome has the full bar
    assert len(bars["2"]) < len(bars["4"]) < len(bars["6"]) < len(bars["7"])
    assert lines[13] == "mean 7, sd 2.415"


def test_text_of_a_comparison():
    ran = mech("prob", "d10 + 6 > d10 + 4")
    assert ran.code == 0
    lines = ran.out.splitlines()
    assert lines[0] == "d10 + 6 > d10 + 4: exact"
    assert lines[1] == "P(true) = 0.64 = 16/25 (64.00%)"
    assert lines[2].split()[:2] == ["true", "64.00%"] and lines[3].split()[:2] == ["false", "36.00%"]


def test_text_of_a_long_distribution_sums_its_thin_tails():
    ran = mech("prob", "7k3")
    assert ran.code == 0
    lines = ran.out.splitlines()
    assert lines[0].startswith("7k3: exact but for explosions and rerolls, followed until less than 1e-12 was left")
    assert any("in all below" in line for line in lines) and any("in all above" in line for line in lines)
    assert len(lines) < 80
    assert lines[-1].startswith("mean 28.2")


# ---- mech prob --json: the contract ----

def test_json_of_2d6():
    ran = mech("prob", "2d6", "--json")
    assert ran.code == 0
    data = json.loads(ran.out)
    assert data["expr"] == "2d6" and data["exact"] is True
    assert data["distribution"] == [[s, (6 - abs(s - 7)) / 36] for s in range(2, 13)]
    assert data["mean"] == 7 and data["sd"] == pytest.approx(math.sqrt(35 / 6))
    assert data["truncated"] == 0 and data["estimated"] is False


def test_json_of_a_comparison_is_over_false_and_true():
    data = json.loads(mech("prob", "d10 + 6 > d10 + 4", "--json").out)
    assert data["distribution"] == [[False, 0.36], [True, 0.64]]
    assert data["probability"] == 0.64 and data["probability_exact"] == "16/25"
    assert data["mean"] == pytest.approx(0.64) and data["sd"] == pytest.approx(math.sqrt(0.64 * 0.36))
    certain = json.loads(mech("prob", "d6 > 0", "--json").out)
    assert certain["distribution"] == [[False, 0.0], [True, 1.0]]


def test_json_with_explosions_is_honest_about_its_bound():
    data = json.loads(mech("prob", "7k3 >= 25", "--json").out)
    assert data["exact"] is False
    assert 0 < data["truncated"] < data["bound"] == 1e-12
    assert data["probability"] == pytest.approx(0.6015486, abs=1e-7)
    assert sum(p for _, p in data["distribution"]) == pytest.approx(1 - data["truncated"], abs=1e-15)


def test_json_of_fractions_and_the_api_agree():
    data = json.loads(mech("prob", "d6 / 2", "--json").out)
    assert [x for x, _ in data["distribution"]] == [0.5, 1, 1.5, 2, 2.5, 3]
    assert mechscript.prob("d6 / 2").to_json() == data


def test_samples_give_an_estimate_marked_as_such():
    ran = mech("prob", "3d6!kh2", "--samples", "2000", "--seed", "5", "--json")
    assert ran.code == 0
    data = json.loads(ran.out)
    assert data["exact"] is False and data["estimated"] is True
    assert data["samples"] == 2000 and data["seed"] == 5
    assert sum(p for _, p in data["distribution"]) == pytest.approx(1)
    assert json.loads(mech("prob", "3d6!kh2", "--samples", "2000", "--seed", "5", "--json").out) == data
    text = mech("prob", "3d6!kh2", "--samples", "2000", "--seed", "5").out
    assert text.splitlines()[0] == "3d6!kh2: estimated from 2000 rolls (seed 5)"


# ---- errors ----

def test_bad_dice_is_an_error_with_a_caret():
    ran = mech("prob", "2d6 + d")
    assert ran.code == 1 and ran.out == ""
    assert ran.err.splitlines()[:3] == ["<expr>:1:8: a die needs a number of sides", "  2d6 + d", "         ^"]
    assert "Traceback" not in ran.err


def test_a_die_of_no_sides():
    ran = mech("prob", "3d0")
    assert ran.code == 1
    assert ran.err.startswith("<expr>:1:3: a die needs at least one side, not 0")


def test_what_is_not_computed_exactly_says_how_to_estimate_it():
    ran = mech("prob", "4d6!kh3")
    assert ran.code == 1
    lines = ran.err.splitlines()
    assert lines[0] == "<expr>:1:5: `kh3` after an explosion (`!`) is not computed exactly"
    assert lines[2] == "      ^~~"
    assert "--samples" in lines[3]


def test_explodes_on_every_face():
    ran = mech("prob", "d6!>=1")
    assert ran.code == 1 and "explodes on every face of a d6" in ran.err


def test_division_by_zero_that_can_happen():
    ran = mech("prob", "d6 / (d4 - 1)")
    assert ran.code == 1 and ran.err.startswith("<expr>:1:6: division by zero can happen here")


def test_huge_expression_is_a_limit_error_not_a_hang():
    ran = mech("prob", "1000d1000000")
    assert ran.code == 1
    assert "the limit `exact_work`" in ran.err and "--limit exact_work=N" in ran.err
    assert mech("prob", "2000d6").err.startswith("<expr>:1:1: 2000 dice in one roll is too many")


# Runs a command and prints its peak resident size in KB and CPU seconds (see test_sim_resources).
MEASURE = """
import os, subprocess, sys
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = process.stderr.read()
_, status, usage = os.wait4(process.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
sys.stdout.write(err.decode())
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="ru_maxrss in KB, as Linux gives it")
@pytest.mark.parametrize("expr", ["381d%dh5", "1000d6!p", "100d6!p", "10k10 / 99k3", "5 ** 12k10 * 5 ** 12k10",
                                  "1dF * 4k1.5 ** 12k3 // 10"])
def test_exact_work_counts_what_big_numbers_cost(expr):
    # Issue 22, item 5: 381d%dh5 held 2.3 GB of packed sums before the count stopped it; 1000d6!p
    # ran into the `seconds` limit after a minute (the products of its huge numbers were counted as
    # if they took as long as reading them); 10k10 / 99k3 took over 30 s and 500 MB (its 583,000
    # pairs of fractions counted as pairs of whole numbers). Now the memory is counted before it is
    # taken, a product as Python's multiplication costs and a pair of fractions as 40 of whole
    # numbers: the `exact_work` error comes, in well under 200 MB. The long campaign found the last:
    # 1.9 million products of outcomes up to 5 ** 1200, 9 s of CPU, each counted a step; now each
    # pair of big outcomes multiplied or divided costs its product of digits (distribution.combine).
    # And `1dF * 4k1.5 ** 12k3 // 10` peaked at 261 MB: a combination's memory was bounded at 200 MB
    # without the distributions it combines (the power's 70 MB); now it counts them, within 150 MB.
    import subprocess
    import sys
    from support import MECH
    measured = subprocess.run([sys.executable, "-c", MEASURE, MECH, "prob", expr, "--limit", "seconds=10"],
                              capture_output=True, text=True, timeout=120)
    head, err = measured.stdout.split("\n", 1)
    code, peak, _ = head.split()
    assert int(code) == 1
    assert err.startswith("<expr>:1:1: this ") and "; the limit `exact_work` is 5000000\n" in err
    assert int(peak) < 200_000


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="ru_maxrss in KB, as Linux gives it")
@pytest.mark.parametrize("expr", ["-(12k1) ** 12k1 / 11", "abs(12k1 ** 12k1)"])
def test_a_negation_or_abs_of_a_big_distribution_is_refused_before_it_is_made(expr):
    # The long campaign: -(12k1 ** 12k1) / 11 peaked at 206 MB in its process (177 MB on its own).
    # The power's 166,813 outcomes of up to 4,000 bits (104 MB) were negated one by one (22 MB of
    # new numbers, a dict and its copy) while held, and nothing counted that memory: the error came
    # after, at the division. Now the map is bounded as a combination is, before it is made.
    import subprocess
    import sys
    from support import MECH
    measured = subprocess.run([sys.executable, "-c", MEASURE, MECH, "prob", expr], capture_output=True, text=True,
                              timeout=120)
    head, err = measured.stdout.split("\n", 1)
    code, peak, _ = head.split()
    assert int(code) == 1
    assert err.startswith("<expr>:1:1: this needs too much memory to compute exactly") and "`exact_work`" in err
    assert int(peak) < 150_000


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="ru_maxrss in KB, as Linux gives it")
@pytest.mark.parametrize("expr, column", [("(max(12k3) == 7k10 ** 7k10)", 15), ("(12k3 ** 12k3 != 12k3 ** 12k3)", 2)])
def test_exact_work_counts_the_powers_of_big_distributions(expr, column):
    # A fuzz campaign: these took 10 s and 740 MB, 7 s and 600 MB before the `exact_work` error,
    # which came at the comparison: the powers' pairs (967 by 967 of 7k10, 691 by 691 of 12k3, up
    # to 695 ** 695) were counted a step each, their big numbers never. Now each pair costs the
    # power's checks and squarings, and the error comes at the power, before any of it is worked out.
    import subprocess
    import sys
    from support import MECH
    measured = subprocess.run([sys.executable, "-c", MEASURE, MECH, "prob", expr], capture_output=True, text=True,
                              timeout=120)
    head, err = measured.stdout.split("\n", 1)
    code, peak, _ = head.split()
    assert int(code) == 1
    lines = err.splitlines()
    assert lines[0] == f"<expr>:1:{column}: this is too much work to compute exactly; the limit `exact_work` is 5000000"
    assert lines[2].index("^") == column + 1  # under the power: two spaces of indent
    assert int(peak) < 200_000


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="ru_maxrss in KB, as Linux gives it")
@pytest.mark.parametrize("expr", ["max(4k3 ** 4k3)", "10d10! * 10d10!", "12k3 / 2.5k1"])
def test_exact_work_counts_the_outcomes_made_and_read(expr):
    # The fuzz campaign: exact answers of 167,000 numbers of up to 2,000 bits (3.4 s and 300 MB,
    # most of it writing them in decimal for JSON), of 469,000 outcomes (5 s, 230 MB), of 55,800
    # fractions (3 s: sorted and summed as Fractions). Each new outcome a combination makes is
    # counted, and reading the answer (its mean and sd, a table or JSON) by its outcomes and sizes.
    import subprocess
    import sys
    from support import MECH
    measured = subprocess.run([sys.executable, "-c", MEASURE, MECH, "prob", "--json", expr], capture_output=True,
                              text=True, timeout=120)
    head, err = measured.stdout.split("\n", 1)
    code, peak, _ = head.split()
    assert int(code) == 1
    assert err.startswith("<expr>:1:1: this is too much work to compute exactly; the limit `exact_work` is 5000000\n")
    assert int(peak) < 200_000


def test_exact_work_counts_a_power_by_the_size_of_its_result():
    # 1000 powers: 1000 ** 1000 has 9,966 bits, the squarings that make it some 100 steps; the same
    # pairs multiplied are a step each. Counted a step a pair, the power passed the limit too.
    limit = ("--limit", "exact_work=30000")
    assert mech("prob", "1000 * d1000 > 0", *limit).code == 0
    ran = mech("prob", "1000 ** d1000 > 0", *limit)
    assert ran.code == 1 and ran.err.startswith("<expr>:1:1: this is too much work to compute exactly; the limit "
                                                "`exact_work` is 30000\n")
    assert mech("prob", "1000 ** d1000 > 0", "--limit", "exact_work=60000").code == 0


def test_exact_work_counts_the_digits_of_fractions():
    # 6,000 fractions each way: of 10 ** k, up to 3,322 bits, their gcds and hashes are counted by
    # their digits; of k + 1, a few digits, they fit. Counted as small fractions, the first
    # fit too (and `3d6! / 10 ** 3d6! / 10` took 2.9 s before its error, now at once).
    limit = ("--limit", "exact_work=600000")
    assert mech("prob", "d6 / (d1000 + 1) > 0", *limit).code == 0
    ran = mech("prob", "d6 / (10 ** d1000) > 0", *limit)
    assert ran.code == 1 and "the limit `exact_work` is 600000" in ran.err.splitlines()[0]


def test_exact_work_counts_the_products_of_big_weights():
    # Weights of 3,000 bits (100 digits): a product of two is 10,000 products of digits, 50 steps
    # by DIGIT_PRODUCTS_PER_STEP, where a pair of small weights is a step.
    from mechscript.dice.distribution import Dist, Work, combine
    limits = mechscript.Limits()

    def cost(weight: int) -> int:
        dist = Dist({x: weight for x in range(100)}, 100 * weight)
        work = Work(limits)
        combine(dist, dist, max, work)
        return work.done

    small, big = cost(1), cost(2 ** 3000)
    assert 100 * 100 < small < 100 * 100 * 1.1  # the pairs, and a little for the 100 outcomes made and the digits
    assert big - small >= 100 * 100 * 50  # 50 steps more a pair


def test_usage_errors():
    assert mech("prob").code == 2
    assert mech("prob", "2d6", "--samples", "0").code == 2


def test_a_string_is_no_number():
    ran = mech("prob", 'd6 + "a"')
    assert ran.code == 1 and ran.err.startswith("<expr>:1:6: expected a number here, not a string")
    assert mechscript.prob('"a" == d6').probability == 0   # as `==` rolls: a string is never a number


# ---- in scripts: prob, dist, mean through mech run ----

SCRIPT = """\
let skill = 3
say prob(2d8 + skill >= 9)
say mean(4d6kh3)
let two = dist(2d6)
say two
say prob(two >= 10)
say mean(two + two)
let attack = 7k3 + 1k0
say decimal(prob(attack > 20), 3)
say decimal(mean(roll(7k3, explode: false)), 4)
let natural = d6
say prob(natural + d6 > 6) == prob(d6 > 6 - natural)
fn skill_of(c) = c.skill
let punch = {skill: 7}
let need = skill_of(punch)
say prob(d10 + punch.skill > 2 * need)
say dist(d6 >= 5, samples: 600)
"""


def test_prob_dist_and_mean_in_a_script(tmp_path):
    (tmp_path / "odds.mech").write_text(SCRIPT)
    ran = mech("run", "odds.mech", "--seed", "1", cwd=tmp_path)
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    assert lines[0] == "27/32"                   # 1 - P(2d8 <= 5) = 1 - 10/64
    assert lines[1] == "15869/1296"
    assert lines[2] == "{" + ", ".join(f"{s}: {mechscript.roll(f'{6 - abs(s - 7)}/36').text.split()[-1]}"
                                       for s in range(2, 13)) + "}"
    assert lines[3] == "1/6"
    assert lines[4] == "14"
    assert lines[5] == mechscript.roll("decimal(prob(8k3 > 20), 3)").total     # the pool of the name
    # without explosions: seven d10 keep three, by exact.keep_highest (another programme)
    plain = exact.mean(exact.keep_highest(exact.die(10), 7, 3))
    assert lines[6] == mechscript.roll(f"decimal({plain.numerator}/{plain.denominator}, 4)").total
    assert lines[7] == "true"                    # a rolled die is a number when the odds are computed
    assert lines[8] == "3/10"                    # d10 + 7 > 14
    assert lines[9].endswith("(estimated from 600 rolls)") and lines[9].startswith("{false: ")
    assert mech("run", "odds.mech", "--seed", "1", cwd=tmp_path).out == ran.out  # the same seed, the same words


def test_a_long_distribution_in_a_script_says_its_range_and_mean(tmp_path):
    (tmp_path / "long.mech").write_text("say dist(10d6)\n")
    ran = mech("run", "long.mech", cwd=tmp_path)
    assert (ran.code, ran.out) == (0, "<a distribution of 51 outcomes from 10 to 60, mean 35>\n"), ran.err


TABLE = """\
table task_chart {
    routine:   14 => "overkill", 8 => "success", 7 => "mixed", 2 => "failure", else => "mishap"
    difficult: 15 => "overkill", 10 => "success", 9 => "mixed", 3 => "failure", else => "mishap"
}
let bonus = 1
let odds = dist(task_chart.difficult[2d8 + bonus])
say odds
say prob(task_chart.difficult[2d8 + bonus] == "success")
let bands = ["low", "middle", "high"]
say dist(bands[d3 - 1])
"""


def test_a_look_up_with_a_rolled_key(tmp_path):
    (tmp_path / "chart.mech").write_text(TABLE)
    ran = mech("run", "chart.mech", cwd=tmp_path)
    assert ran.code == 0, ran.err
    # by hand: the 64 ways 2d8 fall, plus 1, on the thresholds of the difficult row
    bands = {"overkill": 0, "success": 0, "mixed": 0, "failure": 0, "mishap": 0}
    for a in range(1, 9):
        for b in range(1, 9):
            total = a + b + 1
            band = "overkill" if total >= 15 else "success" if total >= 10 else "mixed" if total >= 9 else \
                "failure" if total >= 3 else "mishap"
            bands[band] += 1
    expected = ", ".join(f"{band}: {mechscript.roll(f'{count}/64').text.split()[-1]}"
                         for band, count in sorted(bands.items()) if count)
    assert ran.out.splitlines() == ["{" + expected + "}", mechscript.roll(f"{bands['success']}/64").text.split()[-1],
                                    "{high: 1/3, low: 1/3, middle: 1/3}"]


def test_a_function_of_the_script_is_refused_before_running(tmp_path):
    (tmp_path / "bad.mech").write_text("fn hard(x) = x + 1\nsay \"start\"\nsay prob(2d6 >= hard(4))\n")
    ran = mech("check", "bad.mech", cwd=tmp_path)
    assert ran.code == 1
    lines = ran.err.splitlines()
    assert lines[0] == "bad.mech:3:17: `hard(...)` is a function of the script: its odds are not computed exactly"
    assert lines[2] == "                  ^~~~~~~"
    assert "let" in lines[3] and "samples" in lines[3]


def test_a_script_estimates_when_asked(tmp_path):
    (tmp_path / "guess.mech").write_text("fn hard(x) = x + 1\nsay prob(2d6 >= hard(6), samples: 4000)\n")
    ran = mech("run", "guess.mech", "--seed", "3", cwd=tmp_path)
    assert ran.code == 0, ran.err
    estimate = Fraction(ran.out.strip())
    assert estimate.denominator in (1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 80, 100, 125, 160, 200, 250, 400, 500,
                                    800, 1000, 2000, 4000)
    # P(2d6 >= 7) = 7/12, and 4000 rolls are within 4 standard errors of it
    assert abs(estimate - Fraction(7, 12)) < 4 * math.sqrt(7 / 12 * 5 / 12 / 4000)


def test_a_script_of_its_own_mean_keeps_it(tmp_path):
    (tmp_path / "own.mech").write_text("fn mean(list) = sum(list) / len(list)\nsay mean([1, 2, 6])\n")
    ran = mech("run", "own.mech", cwd=tmp_path)
    assert ran.code == 0 and ran.out == "3\n"


@pytest.mark.parametrize("source,message", [
    ("say prob(2d6)\n", "1:10: `prob` takes a comparison, such as `prob(2d6 >= 8)`"),
    ("say mean(d6 > 3)\n", "1:10: expected a number here, not true/false"),
    ("let x = [1]\nsay mean(x)\n", "2:10: odds are of numbers, true/false or strings, not a list"),
    ("say prob(d6 > 3, samples: 0)\n", "1:27: `samples` is a whole number of at least 1, not 0"),
    ("say prob(d6 > 3, tries: 5)\n", "1:25: `prob` has no option `tries`"),
    ("say dist(d6, d8)\n", "1:5: `dist` takes 1 argument, not 2"),
    ("let two = dist(2d6)\nsay two + 1\n", "2:5: expected a number here, not a distribution"),
])
def test_errors_in_scripts(tmp_path, source, message):
    (tmp_path / "bad.mech").write_text(source)
    ran = mech("run", "bad.mech", cwd=tmp_path)
    assert ran.code == 1
    assert ran.err.splitlines()[0] == f"bad.mech:{message}"
    assert "Traceback" not in ran.err


def test_strings_from_a_look_up_have_no_mean():
    data = json.loads(mech("prob", '["hit", "miss", "miss"][d3 - 1]', "--json").out)
    assert data["distribution"] == [["hit", pytest.approx(1 / 3)], ["miss", pytest.approx(2 / 3)]]
    assert data["mean"] is None and data["sd"] is None and data["exact"] is True
    text = mech("prob", '["hit", "miss", "miss"][d3 - 1]').out.splitlines()
    assert [line.split()[:2] for line in text[2:]] == [["hit", "33.33%"], ["miss", "66.67%"]]
