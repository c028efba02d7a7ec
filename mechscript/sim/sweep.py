"""A sweep (`mech sim --vary`): the encounter fought at each value of one or more targets (several
`--vary` make a grid, every value of one with every value of the others), each point a batch of its
own. Every point's runs have the same run seeds, so the points differ by the value and not by the
luck of their dice: a curve from one point to the next is smoother than separate batches would be.

Each point is compiled and checked once, before the first fight, so a value the script refuses
stops the sweep at once; each is then prepared once per process (batch.py), not once per run.
"""

from __future__ import annotations

import itertools

from .batch import Batch, simulate
from .variants import Variant, checked, compile_variant, json_value, written


def points(varies: list) -> list[tuple]:
    """The settings of each point: every value of the first --vary with every value of the others."""
    return list(itertools.product(*(vary.settings for vary in varies)))


def prepared_points(base: Batch, varies: list) -> list[tuple]:
    """(settings, script) for each point, compiled and checked: a MechError before any fight."""
    prepared = []
    for settings in points(varies):
        variant = Variant(base.variant.settings + tuple(settings))  # after --set's values, if any
        script = compile_variant(base.text, base.filename, base.folder, base.limits, base.module_path, variant)
        prepared.append((settings, checked(script.choose(base.encounter))))
    return prepared


def sweep(base: Batch, varies: list, n: int, seed: int, jobs: int = 1, executor=None, progress=None,
          prepared: list | None = None, precision: float | None = None) -> dict:
    """The sweep's JSON: {encounter, seed, runs (a point), vary: [targets], points: [{values, ...a
    batch's numbers}]}; `partial` when a Ctrl-C stopped it (the points fought so far, the last one's
    runs so far). With a `precision`, each point stops as a batch does (`runs` is then the most a
    point may fight)."""
    prepared = prepared if prepared is not None else prepared_points(base, varies)
    data = {"encounter": "", "seed": seed, "runs": n, "vary": [vary.target for vary in varies], "points": []}
    for number, (settings, script) in enumerate(prepared):
        told = None if progress is None else (lambda done, total, before=number * n: progress(before + done,
                                                                                               len(prepared) * n))
        variant = Variant(base.variant.settings + tuple(settings))
        result = simulate(Batch.of(script, variant), n, seed, jobs, executor, told, precision=precision)
        point = result.to_json()
        data["encounter"] = point.pop("encounter")
        point.pop("seed")
        data["points"].append({"values": {s.target: json_value(s.value) for s in settings}, **point})
        if result.partial:
            data["partial"] = True
            break
    return data


def text_report(data: dict) -> list[str]:
    """The table of the points, then a chart of each side's win rate against the values."""
    partial = " (partial: interrupted)" if data.get("partial") else ""
    precise = data["points"][0].get("precision") if data["points"] else None
    runs = f"{data['runs']} runs" if precise is None else \
        f"up to {data['runs']} runs (until every interval is within ±{precise['target'] * 100:g} points)"
    lines = [f"{data['encounter']}: {runs} at each of {len(data['points'])} points, seed {data['seed']}{partial}", ""]
    if not data["points"]:
        return lines
    sides = list(data["points"][0]["winners"])
    labels = [label(point) for point in data["points"]]
    width = max(len(text) for text in [*labels, " ".join(data["vary"])])
    header = f"  {' '.join(data['vary']):<{width}}" + "".join(f"  {side:>24}" for side in sides) + "  rounds" + \
        ("     runs" if precise is not None else "")
    # every point's characters: an encounter's parameter may change who fights (`--vary count=1..3`)
    names = list(dict.fromkeys(name for point in data["points"] for name in point["characters"]))
    lines += [header + "".join(f"  {name[:12]:>12}" for name in names)]
    for text, point in zip(labels, data["points"]):
        cells = "".join(f"  {rate_cell(point['winners'][side]):>24}" for side in sides)
        survival = "".join(f"  {point['characters'][name]['survival_rate']:>12.1%}" if name in point["characters"]
                           else f"  {'':>12}" for name in names)
        runs = f"  {point['runs']:>7}" if precise is not None else ""
        lines.append(f"  {text:<{width}}{cells}  {point['rounds']['mean']:6.2f}{runs}{survival}".rstrip())
    lines.append(f"  (the characters' columns: how often each survives{'; ' + data['points'][0]['survival'] if data['points'][0].get('survival') else ''})")
    for side in sides:
        if side == "draw" and not any(point["winners"]["draw"]["count"] for point in data["points"]):
            continue
        lines += ["", *chart(data, side)]
    return lines


def label(point: dict) -> str:
    return " ".join(f"{written(value)}" for value in point["values"].values())


def rate_cell(won: dict) -> str:
    low, high = won["ci95"]
    return f"{won['rate']:.1%} [{low:.1%}, {high:.1%}]"


CHART = 50  # characters from 0% to 100%


def chart(data: dict, side: str, width: int = CHART) -> list[str]:
    """One side's win rate at each point as a row: its interval drawn ├──●──┤ on a line from 0% to 100%."""
    labels = [label(point) for point in data["points"]]
    wide = max(len(text) for text in labels)
    what = "draws" if side == "draw" else f"{side} win rate"
    middle = width // 2 + 1   # the column of the rate 50% in a row: after its `|`
    lines = [f"{what} by {', '.join(data['vary'])} (● the rate, ├─┤ its 95% interval)",
             f"  {'':<{wide}}  " + "0%".ljust(middle - 1) + "50%".ljust(width + 2 - middle - 3) + "100%"]
    for text, point in zip(labels, data["points"]):
        won = point["winners"][side]
        lines.append(f"  {text:<{wide}}  |{interval_row(won['rate'], *won['ci95'], width)}|  {won['rate']:.1%}")
    return lines


def interval_row(rate: float, low: float, high: float, width: int = CHART) -> str:
    """`    ├──●─┤      `: the cells of a line from 0 to 1, the interval's ends and the rate marked."""
    def cell(x: float) -> int:
        return min(width - 1, int(x * width))
    cells = [" "] * width
    left, right, centre = cell(low), cell(high), cell(rate)
    for i in range(left, right + 1):
        cells[i] = "─"
    if right > left:
        cells[left], cells[right] = "├", "┤"
    cells[centre] = "●"
    return "".join(cells)


def plot(data: dict, path) -> None:
    """Each side's win rate against the first target's value, with its interval, as a picture (a line
    for each value of the other targets). Needs matplotlib: `pip install 'mechscript[plot]'`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    first, *others = data["vary"]
    figure, axes = plt.subplots(figsize=(8, 5))
    sides = [side for side in data["points"][0]["winners"] if side != "draw" or
             any(point["winners"]["draw"]["count"] for point in data["points"])]
    series: dict = {}
    for point in data["points"]:
        rest = ", ".join(f"{target}={written(point['values'][target])}" for target in others)
        for side in sides:
            series.setdefault((side, rest), []).append(point)
    for (side, rest), chosen in series.items():
        values = [written(point["values"][first]) for point in chosen]
        rates = [point["winners"][side]["rate"] for point in chosen]
        errors = [[rate - point["winners"][side]["ci95"][0] for rate, point in zip(rates, chosen)],
                  [point["winners"][side]["ci95"][1] - rate for rate, point in zip(rates, chosen)]]
        axes.errorbar(values, rates, yerr=errors, capsize=3, marker="o", label=f"{side} {rest}".strip())
    axes.set_ylim(0, 1)
    axes.set_xlabel(first)
    axes.set_ylabel("win rate (95% interval)")
    axes.legend()
    axes.set_title(f"{data['encounter']}: {data['runs']} runs a point, seed {data['seed']}")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)

