"""`mech sim --balance Punch.endurance [--side autobots] [--target 0.5]`: the value of a stat, in its
range, whose win rate for a side is nearest the target.

The win rate is taken to move one way as the stat grows (a monotone response), so the search is a
bisection over the stat's values: each probe a quarter of the runs, enough to tell on which side of
the target a value lies, far from it. The runs that decide the answer are spent near the crossing:
the two values either side of it, and their neighbours, are fought with all the runs, and the
nearest to the target of them is the answer, reported with its neighbours. Every value fights the
same run seeds, as a sweep's points do.
"""

from __future__ import annotations

from ..dice.faces import RandomFaces
from ..errors import MechError, did_you_mean
from ..interpreter.characters import stat_values
from ..interpreter.running import Run
from ..interpreter.script import Script
from ..interpreter.values import Character, Scope
from .batch import Batch, simulate
from .variants import Setting, Variant, at_option, checked, compile_variant

PROBE_SHARE = 4   # a probe of the bisection fights this share of the runs (at least PROBE_LEAST)
PROBE_LEAST = 100


def balance(script: Script, option: str, n: int, seed: int, side: str | None = None, target: float = 0.5,
            jobs: int = 1, executor=None) -> dict:
    """The search's JSON: {encounter, seed, runs, balance, side, target, value, rate, ci95, neighbours,
    probes, point}. `option` is the stat as typed (`Punch.endurance`)."""
    owner, _, stat = option.partition(".")
    named = Setting(option, None, option, (0, len(option)), "--balance")
    values = _values(script, owner, stat, named)
    base = Batch.of(script)
    fought: dict = {}

    def fight(index: int, runs: int) -> dict:
        value = values[index]
        if (value, runs) not in fought:
            setting = Setting(option, value, option, (0, len(option)), "--balance")
            variant = Variant((setting,))
            made = compile_variant(base.text, base.filename, base.folder, base.limits, base.module_path, variant)
            result = simulate(Batch.of(checked(made.choose(base.encounter), seed), variant), runs, seed, jobs, executor)
            if result.partial:
                raise KeyboardInterrupt
            fought[value, runs] = result.to_json()
        return fought[value, runs]

    probe = min(n, max(PROBE_LEAST, n // PROBE_SHARE))
    low, high = 0, len(values) - 1
    first = fight(low, probe)
    side = side if side is not None else next(iter(first["winners"]))
    if side not in first["winners"]:
        raise MechError(f"the encounter has no side `{side}`",
                        hint=did_you_mean(side, first["winners"]) or "its sides: " + ", ".join(first["winners"])) \
            .located("", "--side")
    probes = [(low, probe)]

    def rate(index: int, runs: int) -> float:
        if (index, runs) not in probes:
            probes.append((index, runs))
        return fight(index, runs)["winners"][side]["rate"]

    rising = rate(high, probe) >= rate(low, probe)

    def short(index: int) -> bool:  # on the side of the crossing where the value is too small
        return rate(index, probe) < target if rising else rate(index, probe) > target

    if not short(low):
        candidates = [low]
    elif short(high):
        candidates = [high]
    else:
        while high - low > 1:
            middle = (low + high) // 2
            if short(middle):
                low = middle
            else:
                high = middle
        candidates = [low, high]
    near = sorted({i for c in candidates for i in (c - 1, c, c + 1) if 0 <= i < len(values)})
    best = min(near, key=lambda i: (abs(rate(i, n) - target), i))
    point = fight(best, n)
    won = point["winners"][side]
    neighbours = [{"value": values[i], "rate": fight(i, n)["winners"][side]["rate"],
                   "ci95": fight(i, n)["winners"][side]["ci95"]} for i in (best - 1, best + 1) if 0 <= i < len(values)]
    numbers = {key: value for key, value in point.items() if key not in ("encounter", "seed", "runs")}
    return {"encounter": point["encounter"], "seed": seed, "runs": n, "balance": option, "side": side,
            "target": target, "value": values[best], "rate": won["rate"], "ci95": won["ci95"],
            "neighbours": neighbours,
            "probes": [{"value": values[i], "runs": runs, "rate": fight(i, runs)["winners"][side]["rate"]}
                       for i, runs in probes],
            "point": numbers}


def _values(script: Script, owner: str, stat: str, named: Setting) -> list:
    """The whole numbers the stat may take, from its kind, as the script's top level makes the character."""
    if not owner or not stat:
        raise at_option("--balance names a character's stat: Punch.endurance", named, None, whole=True)
    ev = Run(RandomFaces(0), script.limits, quiet=True)
    ev.scope = Scope(None)
    script.code(ev)
    character = ev.scope.vars.get(owner)
    if type(character) is not Character:
        known = [name for name, value in ev.scope.vars.items() if type(value) is Character]
        raise at_option(f"the script has no character `{owner}`", named, did_you_mean(owner, known), whole=True)
    values = stat_values(ev, character, stat)
    if values is None:
        kind = character.kind
        raise at_option(f"`{stat}` is no stat of {kind.name} with a range of whole numbers", named,
                        did_you_mean(stat, kind.schema.stats) or "its stats: " + ", ".join(kind.schema.stats),
                        whole=True)
    return values


def text_report(data: dict) -> list[str]:
    side, target = data["side"], data["target"]
    lines = [f"{data['encounter']}: the {data['balance']} nearest a win rate of {target:.1%} for the {side}, "
             f"seed {data['seed']}", "",
             f"  {data['balance']} {data['value']}: the {side} win {data['rate']:.1%} "
             f"[{data['ci95'][0]:.1%}, {data['ci95'][1]:.1%}] of {data['runs']} runs"]
    for neighbour in data["neighbours"]:
        low, high = neighbour["ci95"]
        lines.append(f"  {data['balance']} {neighbour['value']}: {neighbour['rate']:.1%} [{low:.1%}, {high:.1%}]")
    probes = ", ".join(f"{probe['value']}: {probe['rate']:.1%} ({probe['runs']})" for probe in data["probes"])
    lines += ["", f"  values tried, in order (runs): {probes}"]
    return lines
