"""The fight of examples/transformers_duel.mech written by hand in plain Python: a baseline for the
batch simulation benchmarks, like bench/hand_pbem.py for the `pbem` module.

The same rules, default options and default tactics as mechscript/stdlib/transformers.mech (with
fights.mech), with `random.Random(seed)` for the dice (a d10 is `int(random() * 10) + 1`), so a seed
gives other fights than `mech run --seed`; over many fights the win rates, the mean rounds and who is
left standing agree within their statistical uncertainty. It rolls its dice in the order the module
does (a pool's dice, then its explosions in rounds; the rolls in the order of the module's header),
so the faces of a mechscript fight, fed to it in turn, replay that very fight.
tests/test_hand_transformers.py checks both.

What it plays, as the module does: roll-and-keep pools in half dice (auto-fail, half dice, the
ten-dice rule, keep at most what was rolled), 10s compounding unless the roller is Fatigued;
Initiative (Speed Dice, less phases borrowed last round) and the 10-phase loop; closing in on a line
(a move then the attack, or a double move); the attack against Passive Defense (Intelligence + 5 x
the Dodge Level + the target's own last move), the damage Boost tactic, Energon Dice before an
attack (+1k1, from 2 Major Damage on) and after a Durability, Fatigue or Active Defense roll short
by 0 to 5 (a d10 that always explodes); Active Defense (5 phases, borrowed from next round at 0);
the damage pool (the armament's base + its type's Tech Spec Dice unkept), the Durability Check
against the Minor total, Major Damage in half points, blow-back after a ranged hit, the prone check
after a melee one; Fatigued (above half its Courage: no 10s explode, and a Durability roll against
5 x Major at each gain, or Knocked Out), Knocked Out, dying and dead; the over-Courage penalty;
recovery from Knocked Out with an Energon Die; a dying Spark going out at the end of the scene
(unless one of its side saves it, with Fix or Repair or at +5 without); melee damage adding the
hexes moved at the target (L231, melee_move "flat").

The options are the module's defaults, fixed here: success_at "above" (a total above the TN
succeeds), melee_move "flat", fatigue_roll "each_gain", ad_borrow 5, energon_explodes_fatigued true, ties_in_phase
"together" (whoever is not dead and stood with that Initiative at a phase's start acts in it, in
the encounter's order), every Size modifier and range modifier 0; the encounter's `distance: 12` and
`until one_side_left or round > 10` (at most 10 rounds). The default tactics: `pick_target` (the
standing foe with the most Major Damage, the first on a tie), `pick_weapon` (the first armament),
`damage_boosts`, `wants_active_defense` (whenever it costs no Energon Die), `energon_before`,
`energon_after`, `recovers`; they never hold, ready, interrupt or prepare (and maintain no Focus), so
Held, Readied and Interrupt Actions, Prepare (L130) and Focus (L132) are not written here. Characters are in Robot mode (Beast, Vehicle and Object modes are not
written).

    import random, hand_transformers
    winner, rounds, fighters = hand_transformers.fight(hand_transformers.characters(), random.Random(1))
    hand_transformers.simulate(2000, seed=1)   # {"runs": 2000, "winners": {"autobots": ..., ...}, ...}
"""

from __future__ import annotations

import random

EXAMPLE = "examples/transformers_duel.mech"   # from the project's root

MAX_ROUNDS = 10          # `until one_side_left or round > 10`
DISTANCE = 12            # `distance: 12`: the hexes between the first side and the others at the start
AD_BORROW = 5            # ad_borrow
SIDES = ("autobots", "decepticons")

ACTIVE, RECOVERING, KNOCKED_OUT, DYING, DEAD = "active", "recovering", "knocked out", "dying", "dead"
STANDING = (ACTIVE, RECOVERING)      # the module's `standing`

ADVANCED = {"gunnery", "autofire", "doubleshot", "dual_strike", "aggressive_hit", "solid_hit", "quick_hit",
            "stunning_hit", "acrobatics", "stunt_driving", "sidestep", "repair"}
UNTRAINED_ADVANCED = {"diplomacy", "interrogation", "interview"}
ENHANCING = {"observe", "leadership", "persuade"}
MELEE = {"strike", "brawling", "grapple"}


# ---- roll-and-keep dice, counted in half dice: 7k3 is (14, 6), 3.5k2.5 is (7, 5) ----

_normalized: dict = {}


def normalize(unkept2: int, kept2: int):
    """What a pool of unkept2/2 rolled and kept2/2 kept dice rolls: (rolled, kept, extra flat, halve
    the lowest kept die), or None for an automatic failure (digest 2.3, as mechscript/dice/rollkeep.py)."""
    key = (unkept2, kept2)
    if key in _normalized:
        return _normalized[key]
    if unkept2 <= 0 or kept2 <= 0:                   # L24: 0 or fewer dice fail automatically
        result = None
    else:
        halve = kept2 % 2 == 1                       # L28: a kept half die halves the lowest kept die
        kept = (kept2 + 1) // 2
        rolled = (unkept2 + 1) // 2 if halve else unkept2 // 2
        flat = 0
        if rolled <= 0:
            result = None
        else:
            if rolled > 10:                          # L32: at most ten dice rolled
                kept += rolled - 10
                rolled = 10
            if kept > 10:                            # ... and ten kept, +10 for each kept die beyond
                flat = 10 * (kept - 10) - (5 if halve else 0)
                kept = 10
                halve = False
            if kept > rolled:                        # keep what was rolled; no half die to halve then
                kept = rolled
                halve = False
            result = (rolled, kept, flat, halve)
    _normalized[key] = result
    return result


def roll(random, unkept2: int, kept2: int, flat, explode: bool):
    """A roll-and-keep total, or None when the pool fails automatically (nothing rolled or kept)."""
    n = normalize(unkept2, kept2)
    if n is None:
        return None
    rolled, kept, extra, halve = n
    dice = [int(random() * 10) + 1 for _ in range(rolled)]
    if explode and 10 in dice:                       # L20-22: a 10 rolls again and adds, while 10s come
        pending = [i for i, face in enumerate(dice) if face == 10]
        while pending:                               # in rounds, as the module's dice fall
            again = []
            for i in pending:
                face = int(random() * 10) + 1
                dice[i] += face
                if face == 10:
                    again.append(i)
            pending = again
    if kept < rolled:
        dice.sort(reverse=True)
        dice = dice[:kept]
    total = sum(dice) + flat + extra
    if halve:
        lowest = min(dice)
        total -= lowest - lowest // 2
    return total


def exploding_d10(random) -> int:
    """An Energon Die after a roll: a d10 that always explodes (L101, A23)."""
    total = face = int(random() * 10) + 1
    while face == 10:
        face = int(random() * 10) + 1
        total += face
    return total


# ---- the characters ----

class Armament:
    __slots__ = ("name", "unkept2", "kept2", "flat", "type", "uses", "operated_by", "range", "carried", "ranged")

    def __init__(self, name, damage, type="firepower", uses="shooting", operated_by="skill", range=8,
                 carried="held"):
        """`damage`: the base pool as (rolled, kept) dice, halves allowed, or (rolled, kept, flat)."""
        unkept, kept, *flat = damage
        self.name = name
        self.unkept2, self.kept2, self.flat = int(unkept * 2), int(kept * 2), (flat[0] if flat else 0)
        self.type, self.uses, self.operated_by = type, uses.lower(), operated_by
        self.range, self.carried = range, carried
        self.ranged = self.uses not in MELEE


class Fighter:
    """A Transformer of the module: its Tech Specs, gear and state in a fight."""

    __slots__ = ("name", "side", "strength", "intelligence", "speed", "endurance", "rank", "courage", "firepower",
                 "skill", "defends_with", "levels", "armament", "major", "minor", "energon", "initiative", "debt",
                 "status", "prone", "hex", "moved")

    def __init__(self, name, side, strength, intelligence, speed, endurance, rank, courage, firepower, skill,
                 concentrations=None, armament=(), defends_with="dodge"):
        self.name, self.side = name, side
        self.strength, self.intelligence, self.speed, self.endurance = strength, intelligence, speed, endurance
        self.rank, self.courage, self.firepower, self.skill = rank, courage, firepower, skill
        self.defends_with = defends_with
        self.levels = {key.lower(): level for key, level in (concentrations or {}).items()}
        self.armament = list(armament)
        self.major = 0            # Major Damage (halves allowed)
        self.minor = 0
        self.energon = rank / 2   # L111
        self.initiative = 0
        self.debt = 0             # phases borrowed from next round by Active Defense
        self.status = ACTIVE
        self.prone = False
        self.hex = 0
        self.moved = 0            # hexes moved in its last action

    def __repr__(self):
        return f"{self.name} ({self.status}, major {self.major}, minor {self.minor}, energon {self.energon})"

    def level(self, name: str) -> int:
        return self.levels.get(name, 0)

    def fatigued(self) -> bool:                      # L161: Major above half the Courage
        return 2 * self.major > self.courage

    def penalty2(self) -> int:
        """L164, A9: -1k0 for each whole Major point above Courage, in half dice."""
        over = self.major - self.courage
        return 2 * int(over) if over > 0 else 0


def characters() -> list[Fighter]:
    """The characters of examples/transformers_duel.mech, in the encounter's order."""
    return [
        Fighter("Sparkplug", "autobots", strength=5, intelligence=6, speed=6, endurance=5, rank=4, courage=6,
                firepower=3, skill=6, concentrations={"Shooting": 3, "Dodge": 3},
                armament=[Armament("Blaster", (3, 2), type="firepower", range=8)]),
        Fighter("Slagtrap", "decepticons", strength=7, intelligence=5, speed=5, endurance=7, rank=5, courage=5,
                firepower=6, skill=7, concentrations={"Shooting": 2, "Dodge": 1, "Brawling": 2},
                armament=[Armament("Blaster", (3, 2), type="firepower", range=8)]),
    ]


# ---- defense ----

def defense_concentration(c: Fighter):
    if c.status == RECOVERING:                       # L164: none while recovering from Knocked Out
        return None
    return c.defends_with


def passive_defense(c: Fighter) -> int:
    """L141: Base Defense (Intelligence) + 5 x the defense Concentration's Level (+5 Block), + half the
    hexes it moved; prone, none (L143)."""
    if c.prone:
        return 0
    conc = defense_concentration(c)
    pd = c.intelligence
    if conc is not None:
        pd += 5 * c.level(conc)
        if conc == "block":
            pd += 5
    return pd + c.moved // 2


def unskilled(c: Fighter, conc: str) -> int:
    """2.6 (L40): the TN penalty for lacking the Concentration."""
    if c.level(conc) > 0 or conc in ENHANCING:
        return 0
    if conc in UNTRAINED_ADVANCED:
        return 5
    if conc in ADVANCED:
        return 10
    return 5


def roll_after(c: Fighter, random, unkept2, kept2, flat, tn):
    """A Durability, Fatigue or Active Defense roll of `c`'s, with an Energon Die after it when it is
    short of the TN by 0 to 5 (`energon_after`): its total, or None when the pool failed
    automatically (an Energon Die may have been spent on it all the same, as the module does)."""
    total = roll(random, unkept2 - c.penalty2(), kept2, flat, not c.fatigued())
    if total is None:
        if 0 <= tn <= 5 and c.energon >= 1:
            c.energon -= 1
            exploding_d10(random)
        return None
    if total <= tn and tn - total <= 5 and c.energon >= 1:
        c.energon -= 1
        total += exploding_d10(random)
    return total


def active_defense(dfn: Fighter, total, random) -> bool:
    """L151: after a hit, Intelligence Dice + the defense Concentration against the attack's total; 5
    phases now, or borrowed from next round. Whether the attack was avoided."""
    if dfn.status not in STANDING:
        return False
    cost = 5 - min(dfn.level("sidestep"), dfn.speed // 2)
    if dfn.initiative + AD_BORROW - dfn.debt < cost:     # wants_active_defense: only when no Energon Die
        return False
    if dfn.initiative >= cost:
        dfn.initiative -= cost
    else:
        dfn.debt += cost - dfn.initiative
        dfn.initiative = 0
    tn = total + 10 if dfn.prone else total              # L143: prone, 2 Boosts
    conc = defense_concentration(dfn)
    level = dfn.level(conc) if conc is not None else 0
    flat = -(dfn.moved // 2) + (5 if conc == "block" else 0)
    defense = roll_after(dfn, random, dfn.intelligence + 2 * level, dfn.intelligence, flat, tn)
    return defense is not None and defense > tn


# ---- the fight ----

def fight(fighters: list[Fighter], rng: random.Random):
    """One fight; gives (the winning side or None, the rounds played, the fighters at the end)."""
    random = rng.random
    first = fighters[0].side
    for c in fighters:
        if c.side != first:
            c.hex = DISTANCE
        if c.major >= 2 * c.courage:
            c.status = status_for(c)
    rounds = 0
    while True:
        left = {c.side for c in fighters if c.status in STANDING}
        if len(left) <= 1 or rounds + 1 > MAX_ROUNDS:
            break
        rounds += 1
        play_round(fighters, random)
    end_of_scene(fighters, random)
    left = {c.side for c in fighters if c.status in STANDING}
    return (left.pop() if len(left) == 1 else None), rounds, fighters


def play_round(fighters, random):
    """L126-130: Initiative, then the highest phase acts, 10 phases an action, until none is left."""
    for c in fighters:
        c.initiative = 0
        if c.status == KNOCKED_OUT and c.energon >= 1:   # L164: recover for an Energon Die and the round
            c.energon -= 1
            c.status = RECOVERING
        elif c.status == ACTIVE:
            total = roll(random, c.speed - c.penalty2(), c.speed, 0, not c.fatigued()) or 0
            c.initiative = max(total - c.debt, 0)
        c.debt = 0
    while True:
        phase = 0
        for c in fighters:
            if c.status == ACTIVE and c.initiative > phase:
                phase = c.initiative
        if phase == 0:
            break
        for c in [c for c in fighters if c.status == ACTIVE and c.initiative == phase]:
            if c.status != DEAD:                         # ties_in_phase "together"
                act(c, fighters, random)
            c.initiative = max(c.initiative - 10, 0)
    for c in fighters:
        if c.status == RECOVERING:
            c.status = ACTIVE


def act(c: Fighter, fighters, random):
    """Get up, or close in on `pick_target` and attack with the first armament."""
    c.moved = 0
    if c.prone:
        c.prone = False
        return
    target = None
    for other in fighters:                           # the standing foe with the most Major Damage
        if other.side != c.side and other.status in STANDING and (target is None or other.major > target.major):
            target = other
    if target is None:
        c.initiative = 0
        return
    weapon = c.armament[0] if c.armament else None
    gap = abs(target.hex - c.hex) - (weapon.range if weapon is not None and weapon.ranged else 1)
    if gap > 0:                                      # L187: move, then act; or a double move
        step = 1 + c.level("sprinting")
        if step >= gap:
            move_toward(c, target, gap)
        else:
            move_toward(c, target, min(2 * step, gap))
            return
    attack(c, target, weapon, random)


def move_toward(c, target, hexes):
    if target.hex < c.hex:
        c.hex -= hexes
    else:
        c.hex += hexes
    c.moved = hexes


def attack(att: Fighter, dfn: Fighter, weapon, random):
    """L146-148: the attack roll against Passive Defense (+5 a Boost, + the unskilled penalty); the
    target is standing (pick_target), so never Knocked Out here."""
    conc = weapon.uses if weapon is not None else "brawling"
    level = att.level(conc)
    pd = passive_defense(dfn)
    penalty = unskilled(att, conc)
    boosts = 1 if level > 0 and att.skill * 3 >= pd + penalty + 15 else 0   # damage_boosts: dice(skill) x 6
    tn = pd + 5 * boosts + penalty
    spent = 0
    if att.major >= 2 and att.energon >= 1:          # energon_before: +1k1 once hurt
        att.energon -= 1
        spent = 2
    spec = getattr(att, weapon.operated_by) if weapon is not None else att.skill
    flat = -(att.moved // 2) if weapon is not None and weapon.carried == "mounted" else -(att.moved // 4)
    total = roll(random, spec + 2 * level - att.penalty2() + spent, spec + spent, flat, not att.fatigued())
    if total is None or total <= tn:
        return
    if active_defense(dfn, total, random):
        return
    # 4.8, A18: the base damage + the type's Tech Spec Dice unkept (unarmed: Strength Dice k Size), +1k0 a Boost
    if weapon is not None:
        unkept2 = weapon.unkept2 + getattr(att, weapon.type)
        kept2, flat = weapon.kept2, weapon.flat
    else:
        unkept2, kept2, flat = att.strength, max(att.strength // 2, 1), 0
    if weapon is None or not weapon.ranged:          # L231, melee_move "flat": + the hexes moved at the target
        flat += att.moved
    damage = roll(random, unkept2 + 2 * boosts - att.penalty2(), kept2, flat, not att.fatigued()) or 0
    ranged = weapon is not None and weapon.ranged
    gain = take_damage(dfn, damage, ranged, random)
    if ranged and gain >= 2:                         # L159: blown back floor(gain) - 1 hexes
        if dfn.hex < att.hex:
            dfn.hex -= int(gain) - 1
        else:
            dfn.hex += int(gain) - 1


def take_damage(c: Fighter, damage, ranged: bool, random):
    """L154-157: Minor grows; the Durability Check against the Minor total; failing gives 1 Major +
    0.5 per 10 failed by, and Minor goes back to 0. Gives the Major Damage taken."""
    if damage <= 0:
        return 0
    c.minor += damage
    tn = c.minor
    if c.status == KNOCKED_OUT:
        total = 0                                    # L164: counts as a roll of 0
    else:
        total = roll_after(c, random, c.endurance, c.endurance, 0, tn)
        if total is None:
            total = 0                                # L24, 2.5: an automatic failure totals 0 (Minor is >= 1)
    if total > tn:
        return 0
    gain = 1 + (tn - total) // 10 / 2
    c.major += gain
    c.minor = 0
    c.status = status_for(c)
    if c.status in STANDING:
        if not ranged and not c.prone:               # L159: a melee hit may knock it prone
            check = roll(random, c.skill - c.penalty2(), c.skill, 0, not c.fatigued())
            if check is None or check <= 15 * (int(gain) - 1):
                c.prone = True
        if c.fatigued():                             # L161, fatigue_roll "each_gain"
            tn = 5 * c.major
            total = roll_after(c, random, c.endurance, c.endurance, 0, tn)
            if total is None or total <= tn:
                c.status = KNOCKED_OUT
    return gain


def status_for(c: Fighter) -> str:
    """L161-173, A8: above 2 x Courage dead, exactly 2 x Courage dying, above Courage knocked out."""
    if c.major > 2 * c.courage:
        return DEAD
    if c.major == 2 * c.courage:
        return DYING
    if c.major > c.courage and c.status in STANDING:
        return KNOCKED_OUT
    return c.status


def end_of_scene(fighters, random):
    """L169-171: a dying Spark goes out unless one of its side saves it (`pick_medic`: the highest Fix or
    Repair Level, then the highest Skill, then the first written); without either, at +5 TN (L40)."""
    for c in fighters:
        if c.status == DYING:
            medic, best = None, 0
            for other in fighters:
                level = max(other.level("fix"), other.level("repair"))
                if other.side == c.side and other.status in STANDING and (
                        medic is None or level > best or (level == best and other.skill > medic.skill)):
                    medic, best = other, level
            if medic is None:
                c.status = DEAD
            else:
                lacking = 5 if best == 0 else 0
                total = roll(random, medic.skill + 2 * best - medic.penalty2(), medic.skill, 0, not medic.fatigued())
                if total is None or total <= 5 * (c.major - c.courage) + lacking:
                    c.status = DEAD


# ---- many fights ----

def simulate(n: int, seed: int = 1, characters=characters) -> dict:
    """n fights of fresh `characters()` with one random.Random(seed): the winners counted (a side or
    "draw"), the mean rounds, and how often each character was standing at the end."""
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
            standing[c.name] = standing.get(c.name, 0) + (c.status in STANDING)
    return {"runs": n, "winners": winners, "rounds_mean": rounds_total / n if n else 0.0, "standing": standing}
