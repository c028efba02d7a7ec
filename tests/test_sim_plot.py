"""`mech sim --plot FILE.png`: a picture of the win rates and rounds, behind the optional extra
`plot` (matplotlib). Without it, one clear message and exit 2; with it, a PNG."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from support import mech_forked

AMBUSH = Path(__file__).resolve().parent.parent / "examples" / "pbem_ambush.mech"


def plotted_or_refused(ran, picture: Path, report: str) -> None:
    """With matplotlib, a PNG and the report beginning `report`; without it, one message and exit 2."""
    if importlib.util.find_spec("matplotlib") is None:
        assert (ran.code, ran.out) == (2, "")
        assert ran.err == "mech sim: --plot needs matplotlib: pip install 'mechscript[plot]'\n"
        assert not picture.exists()
    else:
        assert ran.code == 0, ran.err
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert ran.out.startswith(report)


def test_plot_draws_a_picture_or_says_what_to_install(tmp_path):
    picture = tmp_path / "fight.png"
    ran = mech_forked(["sim", str(AMBUSH), "-n", "20", "--seed", "1", "--jobs", "1", "--plot", str(picture)], tmp_path)
    plotted_or_refused(ran, picture, "Punch is attacked: 20 runs, seed 1")


def test_a_sweep_plots_the_win_rate_against_the_value(tmp_path):
    picture = tmp_path / "sweep.png"
    ran = mech_forked(["sim", str(AMBUSH), "-n", "20", "--seed", "1", "--jobs", "1", "--vary", "Punch.skill=5..7",
                       "--vary", "pbem.tie=defender,attacker", "--plot", str(picture)], tmp_path)
    plotted_or_refused(ran, picture, "Punch is attacked: 20 runs at each of 6 points, seed 1")
