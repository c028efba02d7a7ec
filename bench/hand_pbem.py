"""The fight of examples/pbem_ambush.mech written by hand in plain Python: the baseline of
bench/bench_sim.py.

The same rules, default options and default tactics as mechscript/stdlib/pbem.mech, with
`random.Random(seed)` for the dice. It does not roll its dice in the same order as the module (so a
seed gives other fights than `mech run --seed`); it follows the same rules, so over many fights the
win rates agree within their statistical uncertainty (tests/test_hand_pbem.py checks that).

The options are pbem's defaults, fixed here: tie "defender", tied_initiative "roll_off", no
surprise, resist_with "endurance", attack_unconscious true, penalty_counts "every", rank_rolls all
four, rank_timing "before_turn", rank_equal false, courage_after "hit", fizzle true, every weapon a
gun. The encounter ends `until one_side_left or round > 20` (at most 20 rounds).

    import random, hand_pbem
    winner, rounds, fighters = hand_pbem.fight(hand_pbem.ambush(), random.Random(1))
    hand_pbem.simulate(2000, seed=1)   # {"runs": 2000, "winners": {"autobots": 220, ...}, ...}
"""

from __future__ import annotations

import random

MAX_ROUNDS = 20          # `until one_side_left or round > 20`

ACTIVE, UNCONSCIOUS, DEAD, RETREATED = "active", "unconscious", "dead", "retreated"


class Fighter:
    """A Transformer of pbem: its stats and its state in a fight."""

    __slots__ = ("name", "side", "speed", "skill", "rank", "firepower", "strength", "endurance", "courage",
                 "hp_max", "hp", "status", "rank_points", "defenses", "hit", "place", "plan", "acted", "helping")

    def __init__(self, name, side, speed, skill, rank, firepower, strength, endurance, courage):
        self.name, self.side = name, side
        self.speed, self.skill, self.rank = speed, skill, rank
        self.firepower, self.strength, self.endurance, self.courage = firepower, strength, endurance, courage
        self.hp_max = endurance                 # L54
        self.hp = endurance
        self.status = ACTIVE
        self.rank_points = rank                 # L63
        self.defenses = 0
        self.hit = False
        self.place = 0
        self.plan = None                        # this round's declaration, or None
        self.acted = False
        self.helping = False

    def __repr__(self):
        return f"{self.name} ({self.status}, {self.hp}/{self.hp_max} hp)"


def ambush() -> list[Fighter]:
    """The characters of examples/pbem_ambush.mech, in the encounter's order (its sides in turn)."""
    return [
        Fighter("Punch", "autobots", speed=4, skill=7, rank=3, firepower=5, strength=6, endurance=6, courage=7),
        Fighter("Triggerhappy", "decepticons", speed=7, skill=6, rank=4, firepower=8, strength=4, endurance=5,
                courage=5),
        Fighter("Ransack", "decepticons", speed=3, skill=5, rank=2, firepower=6, strength=5, endurance=5, courage=4),
    ]


SIDES = ("autobots", "decepticons")


# ---- the acting order (L12, PROPOSAL 2) ----

def _key(c: Fighter):
    return (c.speed, c.skill, c.rank)


def _settle(tied: list[Fighter], d10) -> list[Fighter]:
    """Characters tied on Speed, Skill and Rank roll d10 each, higher first; a tie rolls again."""
    if len(tied) == 1:
        return tied
    dice = [d10() for _ in tied]
    settled = []
    for face in range(10, 0, -1):
        same = [c for c, die in zip(tied, dice) if die == face]
        if same:
            settled += _settle(same, d10)
    return settled


def acting_order(fighters: list[Fighter], d10) -> list[Fighter]:
    ordered = sorted(fighters, key=_key, reverse=True)   # stable: equal keys keep the encounter's order
    settled, i = [], 0
    while i < len(ordered):
        j = i + 1
        while j < len(ordered) and _key(ordered[j]) == _key(ordered[i]):
            j += 1
        settled += _settle(ordered[i:j], d10)
        i = j
    return settled


# ---- the fight ----

def fight(fighters: list[Fighter], rng: random.Random):
    """One fight; gives (the winning side or None, the rounds played, the fighters at the end)."""
    randint = rng.randint

    def d10():
        return randint(1, 10)

    order = acting_order(fighters, d10)
    for place, c in enumerate(order, 1):
        c.place = place
    declaring = order[::-1]                              # L22: the slowest declares first
    rounds = 0
    while True:
        left = {c.side for c in fighters if c.status == ACTIVE}
        if len(left) <= 1 or rounds + 1 > MAX_ROUNDS:    # `until one_side_left or round > 20`
            break
        rounds += 1
        _play_round(fighters, order, declaring, d10)
    left = {c.side for c in fighters if c.status == ACTIVE}
    return (left.pop() if len(left) == 1 else None), rounds, fighters


def _play_round(fighters, order, declaring, d10):
    for c in order:
        c.defenses = 0
        c.hit = c.acted = c.helping = False
        c.plan = None
    declared = []
    for c in declaring:
        if c.status == ACTIVE:
            c.plan = _choose(c, fighters, declared)
            declared.append(c)
    for c in order:
        plan = c.plan
        if plan is not None and c.status == ACTIVE and not c.acted:
            act, target, target_status = plan
            if act == "retreat":
                c.status = RETREATED
            elif act == "attack":
                # PROPOSAL 10 (fizzle): the declared target fell or fled before this turn
                if target.status in (ACTIVE, UNCONSCIOUS) and target.status == target_status:
                    _attack(c, target, fighters, d10)
        c.acted = True
    for c in order:                                      # L59: courage at the end of the round
        if c.hit and c.status == ACTIVE and d10() > c.courage:
            c.status = RETREATED


def _choose(c, fighters, declared):
    """The default tactics: retreat at a third of the hit points or less, else attack `pick_target`."""
    if c.hp * 3 <= c.hp_max:
        return ("retreat", None, None)
    foes = [f for f in fighters if f.side != c.side and f.status == ACTIVE]
    target = None
    for other in declared:            # an enemy who declared an attack on c and acts after it (L38)
        act, aim, _ = other.plan
        if act == "attack" and aim is c and other in foes and c.place < other.place:
            target = other
            break
    if target is None:                # the fewest hit points left, the first listed on a tie
        for foe in foes:
            if target is None or foe.hp < target.hp:
                target = foe
    if target is None:
        return ("wait", None, None)
    return ("attack", target, target.status)


def _attack(att, dfn, fighters, d10):
    """L25-30: d10 + Skill against d10 + Speed - the attacks already defended this round."""
    penalty = dfn.defenses
    dfn.defenses += 1
    def_die, att_die = d10(), d10()
    att_total, def_total = _rank_window("to_hit", att, dfn, att_die + att.skill,
                                        def_die + dfn.speed - penalty, fighters)
    if att_total <= def_total:                           # a tie goes to the defender (PROPOSAL 1)
        return
    dfn.hit = True
    # L48-54: d10 + Firepower (a gun) against d10 + Endurance; the damage is what the attack wins by
    res_die, dmg_die = d10(), d10()
    att_total, def_total = _rank_window("damage", att, dfn, dmg_die + att.firepower,
                                        res_die + dfn.endurance, fighters)
    if att_total > def_total:
        dfn.hp -= att_total - def_total
    if dfn.status in (ACTIVE, UNCONSCIOUS):              # L88
        if dfn.hp <= -dfn.endurance:
            dfn.status = DEAD
        elif dfn.hp <= 0:
            dfn.status = UNCONSCIOUS
    if att_die == 10 and dmg_die == 10 and def_die == 1 and res_die == 1:   # L90: killed outright
        dfn.status = DEAD


def _rank_window(what, att, dfn, att_total, def_total, fighters):
    """L61-65: once both totals are known, leaders of the losing side may add rank points (the
    default `rank_spend`: exactly what turns the roll, for to-hit rolls, or to keep an ally from
    being knocked out). Gives the totals after it."""
    if att_total > def_total:                            # the defender is losing
        ally, needed = dfn, att_total - def_total
        roll = "defense" if what == "to_hit" else "resist"
    else:
        ally, needed = att, def_total - att_total + 1
        roll = "attack" if what == "to_hit" else "damage"
    leaders = [c for c in fighters
               if c.side == ally.side and c is not ally and c.rank > ally.rank
               and (c.helping or (not c.acted and (c.plan is None or c.plan[0] != "retreat")))
               and c.status == ACTIVE and c.rank_points > 0]
    for helper in leaders:
        if needed <= 0:
            break
        points = _rank_spend(helper, ally, roll, needed)
        if points:
            helper.rank_points -= points
            helper.acted = helper.helping = True
            needed -= points
            if ally is att:
                att_total += points
            else:
                def_total += points
    return att_total, def_total


def _rank_spend(leader, ally, roll, needed):
    if needed > leader.rank_points:
        return 0
    if roll == "attack" or roll == "defense":
        return needed
    if roll == "resist" and ally.hp - needed <= 0:
        return needed
    return 0


# ---- many fights ----

def simulate(n: int, seed: int = 1, characters=ambush) -> dict:
    """n fights of fresh `characters()` with one random.Random(seed): the winners counted (a side or
    "draw"), the rounds summed, and how often each character was standing at the end."""
    rng = random.Random(seed)
    winners = {side: 0 for side in SIDES}
    winners["draw"] = 0
    rounds_total = 0
    standing: dict[str, int] = {}
    for _ in range(n):
        winner, rounds, fighters = fight(characters(), rng)
        key = "draw" if winner is None else winner
        winners[key] = winners.get(key, 0) + 1
        rounds_total += rounds
        for c in fighters:
            standing[c.name] = standing.get(c.name, 0) + (c.status == ACTIVE)
    return {"runs": n, "winners": winners, "rounds_mean": rounds_total / n if n else 0.0, "standing": standing}
