"""bench/hand_pbem.py (the baseline of bench/bench_sim.py) plays the same rules as the `pbem` module:
its win rates agree with `mech sim`'s on examples/pbem_ambush.mech."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import mechscript
from mechscript.sim.stats import wilson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import hand_pbem

AMBUSH = ROOT / "examples" / "pbem_ambush.mech"
Z99 = 2.5758293035489  # the normal quantile of 0.995


def test_hand_written_win_rates_lie_within_mechscripts_99_percent_intervals():
    # Tolerance: the hand-written rate over 3000 fights must lie within the 99% Wilson interval of
    # mechscript's rate over 1500 fights, for each side and for draws. The two roll different dice;
    # if the rules agree, their difference has a standard deviation of sqrt(p(1-p)(1/1500 + 1/3000)),
    # so a side misses the interval by chance about 3.6% of the time (|z| > 2.576 / sqrt(1.5)). The
    # seeds are fixed: the test gives the same answer on every run. (About 7 s: mechscript, 2 jobs.)
    mech = mechscript.simulate(str(AMBUSH), 1500, seed=1, jobs=2)
    hand = hand_pbem.simulate(3000, seed=1)
    for side in ("autobots", "decepticons", "draw"):
        count = mech["winners"][side]["count"]
        low, high = wilson(count, 1500, Z99)
        rate = hand["winners"][side] / 3000
        assert low <= rate <= high, f"{side}: hand-written {rate:.3f}, mechscript {count / 1500:.3f} [{low:.3f}, {high:.3f}]"


def test_a_fight_follows_the_ambushs_first_round():
    # Acting order by Speed: Triggerhappy (7), Punch (4), Ransack (3); Ransack declares first, at
    # Punch; Punch then picks Ransack (L38: the enemy who attacks him and acts after him);
    # Triggerhappy picks Punch, the only enemy.
    fighters = hand_pbem.ambush()
    order = hand_pbem.acting_order(fighters, lambda: 5)
    assert [c.name for c in order] == ["Triggerhappy", "Punch", "Ransack"]
    punch, triggerhappy, ransack = fighters
    for place, c in enumerate(order, 1):
        c.place = place
    ransack.plan = hand_pbem._choose(ransack, fighters, [])
    punch.plan = hand_pbem._choose(punch, fighters, [ransack])
    triggerhappy.plan = hand_pbem._choose(triggerhappy, fighters, [ransack, punch])
    assert ransack.plan[:2] == ("attack", punch)
    assert punch.plan[:2] == ("attack", ransack)
    assert triggerhappy.plan[:2] == ("attack", punch)


def test_ties_on_speed_skill_and_rank_are_rolled_off():
    twins = [hand_pbem.Fighter(name, side, 5, 5, 5, 5, 5, 5, 5) for name, side in (("A", "x"), ("B", "y"))]
    faces = iter([3, 8])                                   # A rolls 3, B rolls 8: B first
    assert [c.name for c in hand_pbem.acting_order(twins, lambda: next(faces))] == ["B", "A"]
    faces = iter([4, 4, 2, 9])                             # a tie rolls again
    assert [c.name for c in hand_pbem.acting_order(twins, lambda: next(faces))] == ["B", "A"]


def test_every_fight_ends_within_20_rounds_with_a_side_or_a_draw():
    rng = random.Random(3)
    for _ in range(500):
        winner, rounds, fighters = hand_pbem.fight(hand_pbem.ambush(), rng)
        assert 1 <= rounds <= 20
        assert winner in ("autobots", "decepticons", None)
        standing = {c.side for c in fighters if c.status == "active"}
        assert standing == ({winner} if winner else set()) or rounds == 20
