"""bench/hand_transformers.py (the fight of examples/transformers_duel.mech written by hand) plays the
same rules as the `transformers` module: its win rates, standing and mean rounds agree with `mech
sim`'s, and given the same faces it fights the very same fight."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import mechscript
from mechscript.dice.faces import GivenFaces
from mechscript.sim.stats import wilson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import hand_transformers

DUEL = ROOT / hand_transformers.EXAMPLE
Z99 = 2.5758293035489  # the normal quantile of 0.995
N, M = 1000, 10000     # mechscript's fights, the hand-written fights


def test_hand_written_rates_and_rounds_lie_within_mechscripts_99_percent_intervals():
    # Tolerance, rates: the hand-written rate over M = 10000 fights must lie within the 99% Wilson
    # interval of mechscript's rate over N = 1000 fights, for each side, for draws and for each
    # character left standing. The two roll different dice; if the rules agree, their difference has
    # a standard deviation of sqrt(p(1-p)(1/N + 1/M)), so one rate misses the interval by chance about
    # 1.4% of the time (|z| > 2.576 / sqrt(1.1)). Mean rounds: the difference of the two means has a
    # standard deviation of sd * sqrt(1/N + 1/M), sd the spread of the rounds (about 1.5, taken from
    # mechscript's histogram), so a tolerance of 2.576 of those misses by chance 1% of the time; it
    # is about 0.13 rounds, where the mean is about 4.8. The seeds are fixed: the test gives the same
    # answer on every run. (About 10 s: mechscript, 2 jobs.)
    mech = mechscript.simulate(str(DUEL), N, seed=1, jobs=2)
    hand = hand_transformers.simulate(M, seed=1)
    for side in ("autobots", "decepticons", "draw"):
        count = mech["winners"][side]["count"]
        low, high = wilson(count, N, Z99)
        rate = hand["winners"][side] / M
        assert low <= rate <= high, \
            f"{side}: hand-written {rate:.4f}, mechscript {count / N:.4f} [{low:.4f}, {high:.4f}]"
    for name, character in mech["characters"].items():
        low, high = wilson(round(character["survival_rate"] * N), N, Z99)
        rate = hand["standing"][name] / M
        assert low <= rate <= high, \
            f"{name} standing: hand-written {rate:.4f}, mechscript {character['survival_rate']:.4f} [{low:.4f}, {high:.4f}]"
    histogram = {int(rounds): count for rounds, count in mech["rounds"]["histogram"].items()}
    mean = mech["rounds"]["mean"]
    sd = math.sqrt(sum(count * (rounds - mean) ** 2 for rounds, count in histogram.items()) / (N - 1))
    tolerance = Z99 * sd * math.sqrt(1 / N + 1 / M)
    assert abs(hand["rounds_mean"] - mean) <= tolerance, \
        f"mean rounds: hand-written {hand['rounds_mean']:.3f}, mechscript {mean:.3f} (tolerance {tolerance:.3f})"


class Faces:
    """A stand-in for random.Random: `random()` gives listed d10 faces in turn (int(random() * 10) + 1
    is the face)."""

    def __init__(self, faces):
        self.faces, self.used = faces, 0

    def random(self) -> float:
        face = self.faces[self.used]
        self.used += 1
        return (face - 1) / 10 + 0.05


def test_the_same_faces_fight_the_same_fight_as_mechscript():
    # The hand-written fight rolls its dice in the order the module does (initiative in the
    # encounter's order; the attack, the Active Defense, the damage, the Durability Check and its
    # Energon Die, the Fatigue roll; a pool's dice, then its explosions in rounds), so the faces
    # mechscript used for a fight replay that fight exactly: the winner, the rounds, every
    # character's state at the end, and the number of faces used. 100 fights (about 1.5 s).
    script = mechscript.api.load_script(DUEL)
    rng = random.Random(5)
    for fight in range(100):
        faces = [rng.randint(1, 10) for _ in range(3000)]
        source = GivenFaces(faces)
        result = script.run(source, quiet=True).result
        replay = Faces(faces)
        winner, rounds, fighters = hand_transformers.fight(hand_transformers.characters(), replay)
        mine = {c.name: {"major": c.major, "minor": c.minor, "energon": c.energon, "status": c.status,
                         "prone": c.prone} for c in fighters}
        theirs = {name: {key: value for key, value in state.items() if key != "side"}
                  for name, state in result["characters"].items()}
        assert (winner, rounds, mine, replay.used) == (result["winner"], result["rounds"], theirs, source.used), \
            f"fight {fight}"


def test_roll_and_keep_dice():
    # README: `7k3` with faces 2,3,5,6,8,9,10,4 is 14 9 8 (6 5 3 2) = 31: the 10 explodes into 14
    faces = Faces([2, 3, 5, 6, 8, 9, 10, 4])
    assert hand_transformers.roll(faces.random, 14, 6, 0, True) == 31 and faces.used == 8
    # Fatigued (L161): the 10 stays a 10 and nothing more is rolled: 10 9 8 = 27
    faces = Faces([2, 3, 5, 6, 8, 9, 10])
    assert hand_transformers.roll(faces.random, 14, 6, 0, False) == 27 and faces.used == 7
    # 3.5k2.5 rolls 4 and keeps 3, the lowest kept halved: 8 7 (5 -> 2) (1) = 17
    faces = Faces([5, 8, 1, 7])
    assert hand_transformers.roll(faces.random, 7, 5, 0, True) == 17
    assert hand_transformers.normalize(24, 10) == (10, 7, 0, False)     # 12k5 rolls as 10k7
    assert hand_transformers.normalize(30, 18) == (10, 10, 40, False)   # 15k9 as 10k10+40
    assert hand_transformers.normalize(-1, 5) is None                   # -0.5k2.5 fails automatically
    assert hand_transformers.normalize(1, 2) is None                    # 0.5k1 loses its only die
    assert hand_transformers.normalize(4, 6) == (2, 2, 0, False)        # 2k3 keeps the 2 it rolls


def test_every_fight_ends_within_10_rounds_with_a_side_or_a_draw():
    rng = random.Random(3)
    for _ in range(500):
        winner, rounds, fighters = hand_transformers.fight(hand_transformers.characters(), rng)
        assert 1 <= rounds <= 10
        assert winner in ("autobots", "decepticons", None)
        standing = {c.side for c in fighters if c.status in ("active", "recovering")}
        assert standing == ({winner} if winner else set()) or rounds == 10
