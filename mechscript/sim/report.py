"""`mech sim` as a game master reads it: win rates with their intervals, the rounds, who survives,
with bars drawn in text; and the progress bar shown while a batch runs on a terminal."""

from __future__ import annotations

import sys
import time

BAR = 30


def bar(fraction: float, width: int = BAR) -> str:
    cells = round(fraction * width * 8)
    full, part = divmod(cells, 8)
    return "█" * full + ("▏▎▍▌▋▊▉"[part - 1] if part else "")


def text_report(data: dict, replay: str | None = None) -> list[str]:
    """The report of a batch's JSON; `replay`, the command that replays a run but its seed
    (`mech run FILE`), introduces the seeds of the telling runs."""
    partial = " (partial: interrupted)" if data.get("partial") else ""
    lines = [f"{data['encounter']}: {data['runs']} runs, seed {data['seed']}{partial}{precise(data)}", "", "winner"]
    width = max(len(side) for side in data["winners"])
    for side, won in data["winners"].items():
        low, high = won["ci95"]
        lines.append(f"  {side:<{width}}  {won['rate']:6.1%}  [{low:6.1%}, {high:6.1%}]  {bar(won['rate'])}")
    rounds = data["rounds"]
    lines += ["", f"rounds (mean {rounds['mean']:.2f})"]
    most = max(rounds["histogram"].values(), default=1)
    for count_of_rounds, count in rounds["histogram"].items():
        lines.append(f"  {count_of_rounds:>4}  {count:>7}  {bar(count / most)}")
    lines += ["", "characters (survival, and the mean of their end state)"]
    width = max((len(name) for name in data["characters"]), default=0)
    for name, character in data["characters"].items():
        means = "  ".join(f"{key} {value:.2f}" for key, value in character["mean"].items())
        lines.append(f"  {name:<{width}}  survives {character['survival_rate']:6.1%}  {means}".rstrip())
    if data.get("survival"):
        lines.append(f"  (survives: {data['survival']})")
    if replay is not None and data.get("replays"):
        lines += ["", *replays_report(data["replays"], replay)]
    return lines


def precise(data: dict) -> str:
    """What a batch with a precision says of it after its runs."""
    asked = data.get("precision")
    if asked is None:
        return ""
    within = f"±{asked['target'] * 100:g} points"
    if asked["reached"]:
        return f" (until every interval is within {within})"
    return f" (the most allowed: some interval is still wider than {within}; raise -n)"


def replays_report(replays: dict, replay: str) -> list[str]:
    """The run seeds worth watching, blow by blow."""
    lines = [f"runs to watch: {replay} --seed S"]
    width = max(len(f"{outcome} wins") for outcome in [*replays["first"], "longest"])
    for outcome, seeds in replays["first"].items():
        what = "draws" if outcome == "draw" else f"{outcome} wins"
        lines.append(f"  {what:<{width}}  {', '.join(map(str, seeds))}")
    longest = replays.get("longest")
    if longest is not None:
        lines.append(f"  {'longest':<{width}}  {longest['seed']} ({longest['rounds']} round{'' if longest['rounds'] == 1 else 's'})")
    return lines


class Progress:
    """A progress bar on standard error, with the rate and the time left; rewritten in place."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.started = time.monotonic()
        self.shown = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.shown < 0.1:
            return
        self.shown = now
        elapsed = max(now - self.started, 1e-9)
        rate = done / elapsed
        left = (total - done) / rate if rate else 0
        self.stream.write(f"\r  {bar(done / total, 20):<20}  {done}/{total}  {rate:,.0f} runs/s  {left:,.0f} s left ")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r" + " " * 70 + "\r")
        self.stream.flush()


def plot(data: dict, path) -> None:
    """Win rates with their intervals and the rounds histogram, as a picture (`--plot FILE.png`).
    Needs matplotlib: `pip install 'mechscript[plot]'`."""
    import matplotlib
    matplotlib.use("Agg")  # files only, no window
    import matplotlib.pyplot as plt
    figure, (wins, rounds) = plt.subplots(1, 2, figsize=(10, 4))
    sides = list(data["winners"])
    rates = [data["winners"][side]["rate"] for side in sides]
    errors = [[rate - data["winners"][side]["ci95"][0] for side, rate in zip(sides, rates)],
              [data["winners"][side]["ci95"][1] - rate for side, rate in zip(sides, rates)]]
    wins.bar(sides, rates, yerr=errors, capsize=4)
    wins.set_ylim(0, 1)
    wins.set_title("win rate (95% interval)")
    counts = data["rounds"]["histogram"]
    rounds.bar([int(r) for r in counts], list(counts.values()))
    rounds.set_title(f"rounds (mean {data['rounds']['mean']:.2f})")
    figure.suptitle(f"{data['encounter']}: {data['runs']} runs, seed {data['seed']}")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
