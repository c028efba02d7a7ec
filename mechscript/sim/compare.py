"""`mech compare`: two versions of an encounter fought on the same dice.

Both versions fight the same run seeds (common random numbers): run i of one and run i of the other
roll the same dice until the rules make them differ. Most runs then end the same way, and the
difference between the two win rates is measured on the runs whose winner changed alone: for a
side, `gained` runs it wins only in the variant and `lost` runs it wins only in the base. The
difference is (gained - lost) / n, and its 95% interval is the paired (Wald) interval of a difference
of two proportions measured on the same runs, whose variance is (gained + lost - (gained - lost)² / n)
/ n². Beside it the report gives the interval the same rates would have from two separate batches
(Newcombe's, from the two Wilson intervals), to show what pairing the runs saves. A version
compared with itself has no run whose winner changed: a difference of exactly 0, its interval [0, 0].
"""

from __future__ import annotations

import math

from ..errors import MechError
from .batch import Batch, SimResult, simulate
from .stats import Z95, wilson


def compare(base: tuple, variants: list, n: int, seed: int, jobs: int = 1, executor=None, progress=None) -> dict:
    """`base` and each of `variants` a version: (its name, its compiled script, its Variant). The JSON:
    {encounter, seed, runs, base: {script, ...a batch's numbers}, variants: [{script, ..., changed_winners,
    difference}]}; `partial` when a Ctrl-C stopped it (the versions fought in full so far)."""
    versions = [base, *variants]
    results: list[tuple[str, SimResult]] = []
    for number, (name, script, variant) in enumerate(versions):
        told = None if progress is None else (lambda done, total, before=number * n: progress(before + done,
                                                                                               len(versions) * n))
        # made here, just before it is fought: this process's batch is then the one compiled (Batch.of)
        result = simulate(Batch.of(script, variant), n, seed, jobs, executor, told, keep_winners=True)
        if result.partial:
            break
        results.append((name, result))
    data = {"encounter": results[0][1].encounter if results else "", "seed": seed, "runs": n}
    if results:
        data["base"] = _numbers(*results[0])
        base = results[0][1]
        data["variants"] = []
        for name, result in results[1:]:
            if result.tally.sides != base.tally.sides:
                raise MechError(f"{name} fights the sides {', '.join(result.tally.sides)} and {base_name(data)} "
                                f"the sides {', '.join(base.tally.sides)}: only the same sides can be compared",
                                hint="compare two versions of one encounter").located("", name)
            data["variants"].append({**_numbers(name, result), **paired(base, result)})
    if len(results) < len(versions):
        data["partial"] = True
    return data


def base_name(data: dict) -> str:
    return data["base"]["script"]


def _numbers(name: str, result: SimResult) -> dict:
    numbers = result.to_json()
    del numbers["seed"], numbers["runs"]
    return {"script": name, **numbers}


def paired(base: SimResult, variant: SimResult) -> dict:
    """The difference each side's win rate (and the draws') makes from `base` to `variant`, run by run."""
    n = len(base.winners)
    sides = [*base.tally.sides, "draw"]
    gained, lost = [0] * len(sides), [0] * len(sides)
    changed = 0
    for before, after in zip(base.winners, variant.winners):
        if before != after:
            changed += 1
            lost[before] += 1
            gained[after] += 1
    difference = {}
    for k, side in enumerate(sides):
        was, now = base.tally.winners.get(side, 0), variant.tally.winners.get(side, 0)
        low, high = paired_interval(gained[k], lost[k], n)
        apart = unpaired_interval(was, now, n)
        difference[side] = {"from": was / n if n else 0.0, "to": now / n if n else 0.0,
                            "change": (gained[k] - lost[k]) / n if n else 0.0, "ci95": [low, high],
                            "unpaired_ci95": list(apart), "gained": gained[k], "lost": lost[k],
                            "real": low > 0 or high < 0}
    return {"changed_winners": changed, "difference": difference}


def paired_interval(gained: int, lost: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The 95% interval of (gained - lost) / n, a difference of two proportions of the same n runs."""
    if n == 0:
        return (-1.0, 1.0)
    change = (gained - lost) / n
    spread = z * math.sqrt(max(0.0, gained + lost - (gained - lost) ** 2 / n)) / n
    return (max(-1.0, change - spread), min(1.0, change + spread))


def unpaired_interval(was: int, now: int, n: int) -> tuple[float, float]:
    """Newcombe's interval of now/n - was/n from two separate batches of n runs (his method 10)."""
    if n == 0:
        return (-1.0, 1.0)
    p1, p2 = was / n, now / n
    l1, u1 = wilson(was, n)
    l2, u2 = wilson(now, n)
    change = p2 - p1
    return (change - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), change + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2))


def text_report(data: dict) -> list[str]:
    partial = " (partial: interrupted)" if data.get("partial") else ""
    lines = [f"{data['encounter']}: {data['runs']} runs of each version, on the same dice, seed {data['seed']}"
             f"{partial}"]
    if "base" not in data:
        return lines
    base = data["base"]
    for variant in data["variants"]:
        name = variant["script"]
        sides = [side for side in variant["difference"]
                 if side != "draw" or base["winners"]["draw"]["count"] or variant["winners"]["draw"]["count"]]
        width = max(len(side) for side in sides)
        lines += ["", f"{base['script']} -> {name}: the winner changed in {variant['changed_winners']} of "
                      f"{data['runs']} runs"]
        for side in sides:
            moved = variant["difference"][side]
            lines.append(f"  {side:<{width}}  {moved['from']:6.1%} -> {moved['to']:6.1%}  {points(moved['change'])} "
                         f"{interval(moved['ci95'])}  (two separate batches: {interval(moved['unpaired_ci95'])})")
        lines.append("")
        lines += [f"  {sentence(name, side, variant['difference'][side], data['runs'])}" for side in sides]
    return lines


def points(change: float) -> str:
    return f"{change * 100:+.1f} points"


def interval(bounds) -> str:
    return f"[{bounds[0] * 100:+.1f}, {bounds[1] * 100:+.1f}]"


def sentence(name: str, side: str, moved: dict, runs: int) -> str:
    """What a game master reads: does the change move this side, or is it noise?"""
    who = "the draws" if side == "draw" else f"the {side}"
    if moved["gained"] == moved["lost"] == 0:
        return f"{name} changes nothing for {who}: {moved['from']:.1%} either way, in every run"
    said = (f"{name} moves {who} from {moved['from']:.1%} to {moved['to']:.1%}, {points(moved['change'])} "
            f"{interval(moved['ci95'])}")
    if moved["real"]:
        return f"{said}: a real difference"
    return f"{said}: within the noise of {runs} runs, no difference shown"
