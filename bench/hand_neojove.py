"""The fights of examples/neojove_duel.mech and examples/neojove_frigate.mech written by hand in plain
Python: a baseline for the Rise of Neo-Jove module, as bench/hand_pbem.py is for pbem.

The same rules, default options and default tactics as mechscript/stdlib/neojove.mech (and
fights.mech), with `random.Random(seed)` for the dice: a d10 is `int(random() * 10) + 1`, so a seed
gives other fights than `mech run --seed`, but over many fights the win rates and the rounds agree
within their statistical uncertainty. It asks for its d10s in the order the module rolls them (the
module's header lists it), so the same faces give the same fight as `mech run --faces`: an object
whose `random()` gives (face - 0.5) / 10 replays them. tests/test_hand_neojove.py checks both.

Only what these two fights reach is written here. The options are neojove's defaults, fixed:
positioning_mode "attack_only" (the Positioning bonus on the attack only), include_targeting true,
untrained_attacks true (halved 2d10 without the attack's skill), very_close_counts true (range
penalties from Very Close), assault_class "listed" (every Assault hit Glancing), smash_auto_vital true,
glance_flash "none" (never reached: Newtype Flash is used on Solid and Smash hits only),
crit_armor "effective", environment "space" (Thrust), no air battle, no daylight, positioning_ties
"roll", pilot_in_positioning false. Each encounter's own settings: start_range (Moderate for the duel,
Distant for the frigate), strategic_initiative and tactical_initiative (the frigate's), and its
`until one_side_left or round > N` (12 rounds at most for the duel, 15 for the frigate).

The default tactics: no one overthrusts, declares a Full Dodge or Parry, takes more than one action,
Alpha Strikes (no Overkill pilot) or throws a Sacrificial Parry; a unit that has lost half its
Durability and whose target has more of its own left pulls out (L162): it flees by all its movement,
showing its Rear arc the whole turn (L539, -2 on the thresholds, L530), and leaves the battle once
beyond every foe's reach even after the foe's next move; a flight that gained nothing corners it and
it turns to fight for good; a Hot-Blooded pilot spends Pluck every turn
while it lasts (L84); each unit attacks the nearest enemy (the most damaged on a tie) with
`pick_weapon`'s weapon, closing on it first; Newtype Flash on any Solid or Smash hit (L191); Limit
Break when the target has lost half its Durability (L199).

Left out because no unit or weapon of these examples has them: AP, SP, E-Shield Ignore and Weakness,
damage penalties by range, Concentrate, Continuous charge, fittings (no external load), traits other
than Hot-Blooded, the Aleph abilities other than Newtype Flash and Limit Break, control systems
(Command Cockpit, Trace, ...), Made Of Iron's threshold shift, Rear or Fore armor of their own on a
mecha (so L541's dogfight Flank changes nothing). Critical hits are
rolled and counted (Surface and Vital Hits) but have no effect, as in the module (the effect list is
lost, P22).

`characters(example)` gives the units in the encounter's order as an `Encounter`, a list that also
carries the encounter's sides and settings, which `fight` reads.

    import random, hand_neojove
    winner, rounds, fighters = hand_neojove.fight(hand_neojove.characters(), random.Random(1))
    hand_neojove.simulate(2000, seed=1, example="neojove_frigate")
"""

from __future__ import annotations

import random

EXAMPLES = {"neojove_duel": "examples/neojove_duel.mech", "neojove_frigate": "examples/neojove_frigate.mech"}
EXAMPLE = EXAMPLES["neojove_duel"]

ACTIVE, SHOT_DOWN, WITHDRAWN = "active", "shot down", "withdrawn"
KINETIC, ENERGY, ELECTRONIC, MELEE = "kinetic", "energy", "electronic", "melee"

# L649-677: the range brackets by number (Brawl 0, Point Blank 1, Very Close 2, ...)
BRACKETS = {"Brawl": 0, "Point Blank": 1, "Very Close": 2, "Close": 3, "Not So Close": 4, "Moderately Near": 5,
            "Moderate": 6, "Moderately Far": 7, "Distant": 8, "Very Distant": 9, "Extremely Distant": 10}

# L509-518: the Positioning Table, by the difference: 0 -> 0, 1-2 -> +1, 3-5 -> +2, ..., 55 or more -> +10
POSITIONING = [0] * 56
for _n in range(1, 11):
    for _d in range(_n * (_n + 1) // 2, 56):
        POSITIONING[_d] = _n


class Pilot:
    """A pilot's effective attributes (genotype bonuses included) and skills, and the pools that change."""

    __slots__ = ("name", "physique", "wits", "intellect", "clarity", "perception", "charisma", "piloting", "gunnery",
                 "melee", "electronic_warfare", "leadership", "hot_blooded", "newtype_flash", "limit_break",
                 "second_wind", "crusader", "mama_bear", "pluck_max", "pluck_left", "aleph_left")

    def __init__(self, name, *, physique, wits, intellect, clarity, perception, charisma, piloting=0, gunnery=0,
                 melee=0, electronic_warfare=0, leadership=0, aleph=0, pluck=0, traits=(), abilities=(),
                 pluck_conditions=("heavy_sleeper",)):
        self.name = name
        self.physique, self.wits, self.intellect, self.clarity, self.perception, self.charisma = \
            physique, wits, intellect, clarity, perception, charisma
        self.piloting, self.gunnery, self.melee = piloting, gunnery, melee
        self.electronic_warfare, self.leadership = electronic_warfare, leadership
        self.hot_blooded = "hot_blooded" in traits
        self.newtype_flash = "newtype_flash" in abilities
        self.limit_break = "limit_break" in abilities
        self.second_wind = "second_wind" in pluck_conditions
        self.crusader = "crusader" in pluck_conditions
        self.mama_bear = "mama_bear" in pluck_conditions
        self.pluck_max = self.pluck_left = pluck          # the genotype's Pluck plus the bought (P30)
        self.aleph_left = aleph                           # L174: the pool is the power level

    def skill_for(self, kind):
        """The skill an attack uses (3.10): Gunnery for Kinetic and Energy, EW for Electronic, Melee."""
        if kind == ELECTRONIC:
            return self.electronic_warfare
        return self.melee if kind == MELEE else self.gunnery


class Weapon:
    __slots__ = ("name", "type", "hybrid", "attack", "glance", "solid", "solid_at", "smash", "smash_at", "reach",
                 "attack_penalty", "crit", "aae", "assault_at", "assault_max", "parry", "charge", "cooldown",
                 "shots", "charged", "charged_turn", "fired_turn", "expected")

    def __init__(self, name, type, *, glance, attack=0, solid=None, solid_at=4, smash=None, smash_at=8,
                 range="Close", attack_penalty=0, crit=20, aae=1, assault_at=0, assault_max=1, parry=0, charge=0,
                 cooldown=None, ammo=None, hybrid=()):
        self.name, self.type = name, type
        self.hybrid = hybrid                  # ((type, numerator, denominator), ...): L587, floor of each part
        self.attack, self.glance, self.solid, self.solid_at, self.smash, self.smash_at = \
            attack, glance, solid, solid_at, smash, smash_at
        self.reach = BRACKETS[range]
        self.attack_penalty, self.crit, self.aae = attack_penalty, crit, aae
        self.assault_at, self.assault_max, self.parry = assault_at, assault_max, parry
        self.charge, self.cooldown, self.shots = charge, cooldown, ammo
        self.charged = 0
        self.charged_turn = -1
        self.fired_turn = -100
        self.expected = {}                    # pick_weapon's damage x hits at margin 4, by target (x10)

    def __repr__(self):
        return self.name


class Unit:
    __slots__ = ("name", "side", "pilot", "type", "defense", "attack_base", "rating", "allowance", "armor_fore",
                 "armor_flank", "armor_rear", "fleeing", "withdrawing", "fled", "fled_from", "cornered", "last_hit_by",
                 "shields", "durability_max", "targeting", "vital_protection", "vital_multiplier",
                 "weapons", "parry", "durability_left", "status", "place", "positioning", "closing", "fired_on",
                 "hot", "fired_up", "flash_used", "half_lost", "surface_hits", "vital_hits")

    def __init__(self, name, pilot, *, kinetic, energy, electronic, melee, thrust, durability, armor=0,
                 armor_fore=None, armor_flank=None, shields=0, targeting=0, type="mecha", vital_protection=None,
                 vital_multiplier=None, weapons=()):
        p = pilot
        self.name, self.pilot, self.type = name, pilot, type
        # 3.10 (L824-830): the suit's and the pilot's part of each defense and attack
        self.defense = {KINETIC: kinetic + p.physique + p.piloting, ENERGY: energy + p.wits + p.piloting,
                        ELECTRONIC: electronic + p.clarity + p.electronic_warfare,
                        MELEE: melee + p.perception + p.melee}
        self.attack_base = {KINETIC: p.perception + p.gunnery, ENERGY: p.perception + p.gunnery,
                            ELECTRONIC: p.intellect + p.electronic_warfare, MELEE: p.wits + p.melee}
        self.rating = thrust                                  # L591: Thrust in space
        self.allowance = -(-thrust // 10)                     # L589: a bracket per 10 or part thereof
        self.armor_fore = armor if armor_fore is None else armor_fore
        self.armor_flank = armor if armor_flank is None else armor_flank
        self.armor_rear = armor                               # no example gives a Rear arc its own armor
        self.shields, self.targeting = shields, targeting
        self.durability_max = self.durability_left = durability
        self.vital_protection, self.vital_multiplier = vital_protection, vital_multiplier
        self.weapons = list(weapons)
        self.parry = max([w.parry for w in self.weapons], default=0)   # L637: the best Parry weapon
        self.side = None
        self.status = ACTIVE
        self.place = 0
        self.positioning = 0
        self.closing = False              # it closed on someone this turn: it presents its Fore (L538)
        self.fleeing = False              # it pulls out this turn: it presents its Rear (L539)
        self.withdrawing = False          # its plan this turn is to pull out (L162)
        self.fled = False                 # it fled last turn
        self.fled_from = 0                # the brackets to its nearest foe when it declared that flight
        self.cornered = False             # a turn's flight gained it nothing: it fights on
        self.last_hit_by = None           # the unit whose hit last cost it Durability (Crusader, L162)
        self.fired_on = 0
        self.hot = 0                      # Hot-Blooded's +2 this turn (L84)
        self.fired_up = False             # Hot-Blooded's +1 for the battle
        self.flash_used = False
        self.half_lost = False
        self.surface_hits = 0
        self.vital_hits = 0

    def __repr__(self):
        return f"{self.name} ({self.status}, {self.durability_left}/{self.durability_max})"


class Encounter(list):
    """The units in the encounter's order, with its settings."""

    def __init__(self, name, sides, start_range, max_rounds, strategic=False, tactical=False):
        self.name = name
        self.sides = [side for side, _ in sides]
        super().__init__(u for _, members in sides for u in members)
        for side, members in sides:
            for u in members:
                u.side = side
        self.start = BRACKETS[start_range]
        self.max_rounds = max_rounds
        self.strategic, self.tactical = strategic, tactical


def duel() -> Encounter:
    """examples/neojove_duel.mech (effective attributes: the genotype's bonuses added)."""
    rin = Pilot("Rin", physique=4, wits=4, intellect=3, clarity=2, perception=4, charisma=5, piloting=2, gunnery=2,
                melee=2, electronic_warfare=1, pluck=2, traits=("hot_blooded",), pluck_conditions=("second_wind",))
    kessler = Pilot("Kessler", physique=5, wits=5, intellect=4, clarity=3, perception=4, charisma=4, piloting=1,
                    gunnery=2, melee=1, aleph=2, abilities=("newtype_flash", "limit_break"),
                    pluck_conditions=("crusader",))
    white_rose = Unit("WhiteRose", rin, armor=2, shields=0, kinetic=3, energy=3, electronic=2, melee=3,
                      thrust=20, durability=18, targeting=1, weapons=[
                          Weapon("Head Gatlings", KINETIC, glance=2, range="Close", attack_penalty=1, assault_at=2,
                                 assault_max=6, crit=15),
                          Weapon("Beam rifle", ENERGY, attack=1, glance=4, solid=6, solid_at=4, smash=9, smash_at=8,
                                 range="Moderately Near", attack_penalty=1, crit=16),
                          Weapon("Alpha Edge Sword", MELEE, attack=1, glance=5, solid=8, solid_at=4, range="Brawl",
                                 crit=14, parry=2)])
    nightjar = Unit("Nightjar", kessler, armor=3, shields=1, kinetic=2, energy=3, electronic=3, melee=2,
                    thrust=20, durability=16, targeting=1, weapons=[
                        Weapon("Beam machine gun", ENERGY, glance=3, range="Close", attack_penalty=1, assault_at=3,
                               assault_max=4, crit=15),
                        Weapon("Hunter missiles", KINETIC, hybrid=((ELECTRONIC, 1, 2),), attack=2, glance=5, solid=7,
                               solid_at=5, range="Moderate", crit=13, ammo=2, cooldown=0)])
    return Encounter("Duel over Neo-Jove", [("white_rose", [white_rose]), ("cygnus", [nightjar])],
                     start_range="Moderate", max_rounds=12)


def frigate() -> Encounter:
    """examples/neojove_frigate.mech."""
    marr = Pilot("Marr", physique=3, wits=3, intellect=3, clarity=3, perception=4, charisma=2, piloting=2, gunnery=3,
                 electronic_warfare=1, leadership=2, pluck=3)
    voss = Pilot("Voss", physique=2, wits=3, intellect=3, clarity=2, perception=3, charisma=3, piloting=2, gunnery=2,
                 electronic_warfare=2, leadership=1, pluck=4)
    haydee = Unit("Haydee", marr, type="warship", kinetic=6, energy=9, electronic=9, melee=0, thrust=10,
                  targeting=2, armor=4, armor_fore=6, armor_flank=5, shields=2, durability=57, vital_protection=20,
                  vital_multiplier=2, weapons=[
                      Weapon("Main beam cannon", ENERGY, attack=1, glance=10, solid=12, solid_at=5, range="Distant",
                             aae=5, charge=1, cooldown=1, crit=14),
                      Weapon("Missile cells", ELECTRONIC, attack=2, glance=6, range="Very Distant", aae=2, ammo=6,
                             crit=12),
                      Weapon("Point-defense gatlings", KINETIC, glance=3, range="Close", assault_at=2, assault_max=6,
                             crit=16)])
    picket = Unit("Picket", voss, type="warship", kinetic=6, energy=9, electronic=9, melee=0, thrust=12,
                  targeting=1, armor=4, armor_flank=4, shields=3, durability=54, vital_protection=30,
                  vital_multiplier=2, weapons=[
                      Weapon("Twin beam turrets", ENERGY, attack=1, glance=8, solid=10, solid_at=4,
                             range="Moderately Far", aae=3, crit=15),
                      Weapon("Ship-killer missiles", ELECTRONIC, attack=1, glance=8, range="Distant", aae=3, ammo=4,
                             cooldown=0, crit=13)])
    return Encounter("The Haydée breaks the picket", [("neo_jove", [haydee]), ("cygnus", [picket])],
                     start_range="Distant", max_rounds=15, strategic=True, tactical=True)


BUILDERS = {"neojove_duel": duel, "neojove_frigate": frigate}


def characters(example: str = "neojove_duel") -> Encounter:
    """Fresh fighters of one of EXAMPLES, in the encounter's order, with its settings."""
    return BUILDERS[example]()


# ---- the fight ----

def fight(fighters: Encounter, rng: random.Random):
    """One fight; gives (the winning side or None, the rounds played, the fighters at the end)."""
    rand = rng.random

    def d10():
        return int(rand() * 10) + 1

    for u in fighters:
        if u.side != fighters.sides[0]:
            u.place = fighters.start
    strategic = command_roll_off(fighters, None, d10) if fighters.strategic else None
    rounds = 0
    while True:
        left = {u.side for u in fighters if u.status == ACTIVE}
        if len(left) <= 1 or rounds + 1 > fighters.max_rounds:     # `until one_side_left or round > N`
            break
        rounds += 1
        play_turn(fighters, rounds, strategic, d10)
    return (left.pop() if len(left) == 1 else None), rounds, fighters


def command_roll_off(units, earlier, d10):
    """L427-429: the side leaders (each side's first standing unit) roll 2d10 + Command (P33: Intellect
    + Charisma + Leadership; the Strategic winner adds its bonus to the Tactical roll); the winner gets
    +1 per 3 of margin (half for a Hot-Blooded leader); a tie rolls again (P8). Gives (side, bonus)."""
    leaders, seen = [], set()
    for u in units:
        if u.status == ACTIVE and u.side not in seen:
            seen.add(u.side)
            leaders.append(u)
    if len(leaders) < 2:
        return None
    while True:
        best, best_total, second = None, 0, 0
        for u in leaders:
            p = u.pilot
            total = d10() + d10() + p.intellect + p.charisma + p.leadership
            if earlier is not None and earlier[0] == u.side:
                total += earlier[1]
            if best is None or total > best_total:
                second, best, best_total = best_total, u, total
            elif total > second or second == 0:
                second = total
        if best_total != second:
            bonus = (best_total - second) // 3
            if best.pilot.hot_blooded:
                bonus //= 2
            return best.side, bonus


def play_turn(units, turn, strategic, d10):
    for u in units:
        u.fired_on = 0
        u.hot = 0
        u.flash_used = u.closing = u.fleeing = u.withdrawing = False
        p = u.pilot
        if u.status == ACTIVE and p.hot_blooded and p.pluck_left >= 1:    # L84: 1 Pluck for +2 this turn
            p.pluck_left -= 1
            u.hot = 2
    tactical = command_roll_off(units, strategic, d10) if units.tactical else None

    # L431, L435: Positioning 2d10 + Thrust + EW + Clarity (+ all-rolls bonuses) + the Tactical bonus;
    # the highest acts first; ties (P8): the Tactical winner, the higher Thrust, then a d10 each
    standing = [u for u in units if u.status == ACTIVE]
    keys = {}
    for u in standing:
        p = u.pilot
        bonus = 0
        won = tactical is not None and tactical[0] == u.side
        if won:
            bonus = tactical[1] // 2 if p.hot_blooded else tactical[1]
        u.positioning = d10() + d10() + u.rating + p.electronic_warfare + p.clarity + u.hot + u.fired_up + bonus
        keys[u] = [u.positioning, won, u.rating, 0]
    for a in standing:
        ka = keys[a]
        for b in standing:
            if a is not b and ka[3] == 0 and ka[:3] == keys[b][:3]:
                ka[3] = d10()
    order = sorted(standing, key=keys.__getitem__, reverse=True)   # stable: full ties keep the encounter's order

    # L433: declarations, lowest Positioning first: a unit pulls out (`pulls_out`) and flees, showing its
    # Rear the whole turn; one whose last flight gained nothing is cornered and fights on; no one
    # declares a Full Dodge or Parry or more than one action (the default tactics)
    for u in reversed(order):
        gap = gap_to_foes(u, units)
        if u.fled and gap <= u.fled_from:
            u.cornered = True
        if pulls_out(u, units):
            u.withdrawing = u.fleeing = u.fled = True
            u.fled_from = gap
        else:
            u.fled = False

    for u in order:
        if u.status == ACTIVE and u.withdrawing:
            flee(u, units)
        elif u.status == ACTIVE:
            act(u, units, turn, d10)
            p = u.pilot
            # L199: Limit Break, an immediate full action, when the target has lost half its Durability
            if p.limit_break and u.status == ACTIVE and p.aleph_left >= 1:
                target = pick_target(u, units)
                if target is not None and target.half_lost:
                    p.aleph_left -= 1
                    act(u, units, turn, d10)


def nearest_foe(u, units):
    """The nearest standing enemy (the first listed on a tie)."""
    best = None
    for other in units:
        if other.side != u.side and other.status == ACTIVE:
            if best is None or abs(u.place - other.place) < abs(u.place - best.place):
                best = other
    return best


def gap_to_foes(u, units):
    from_ = nearest_foe(u, units)
    return 0 if from_ is None else abs(u.place - from_.place)


def pulls_out(u, units):
    """L162: a unit that has lost half its Durability, can move and is not cornered pulls out when its
    target has more of its own Durability left, in proportion."""
    if not u.half_lost or u.cornered or u.allowance <= 0:
        return False
    t = pick_target(u, units)
    return t is not None and u.durability_left * t.durability_max < t.durability_left * u.durability_max


def flee(u, units):
    """L162, L539: open range by all its movement, away from the nearest foe, firing nothing; beyond the
    reach of every standing foe's loaded weapons even after the foe's next move, it is out of the battle,
    and a Crusader whose hit last cost it Durability recovers 1 Pluck if it had lost half."""
    from_ = nearest_foe(u, units)
    if from_ is None:
        return
    u.place += -u.allowance if from_.place > u.place else u.allowance
    for other in units:
        if other.side != u.side and other.status == ACTIVE:
            near = abs(u.place - other.place) - other.allowance
            if any((w.shots is None or w.shots > 0) and near <= w.reach for w in other.weapons):
                return
    u.status = WITHDRAWN
    by = u.last_hit_by
    if u.half_lost and by is not None and by.pilot.crusader and by.pilot.pluck_left < by.pilot.pluck_max:
        by.pilot.pluck_left += 1


def pick_target(u, units):
    """The nearest standing enemy, the most damaged on a tie (the first listed on a full tie)."""
    best = None
    for other in units:
        if other.side != u.side and other.status == ACTIVE:
            if best is None:
                best = other
            else:
                d, best_d = abs(u.place - other.place), abs(u.place - best.place)
                if d < best_d or (d == best_d and other.durability_left < best.durability_left):
                    best = other
    return best


def ready(w, turn):
    """Loaded and not cooling down (L647)."""
    return (w.shots is None or w.shots > 0) and (w.cooldown is None or turn > w.fired_turn + w.cooldown)


def expected(w, target):
    """What `w` should do to `target` on a margin of 4 through its shields and Fore armor, times its hits,
    after-armor effect included (x10, to compare with range penalties / 10 in whole numbers)."""
    if w.smash is not None and 4 >= w.smash_at:
        dmg = w.smash
    elif w.solid is not None and 4 >= w.solid_at:
        dmg = w.solid
    else:
        dmg = w.glance
    hits = min(w.assault_max, 1 + 4 // w.assault_at) if w.assault_at > 0 else 1
    return 10 * hits * through_armor(dmg, target.shields, target.armor_fore)[0] * w.aae


def pick_weapon(u, target, turn):
    """The ready weapon that should do the most damage among those in reach this turn (after moving),
    else the one that reaches farthest (the first listed on a tie)."""
    dist = abs(u.place - target.place)
    reach = dist - u.allowance
    candidates, far = [], None
    for w in u.weapons:
        if ready(w, turn):
            if w.reach >= reach:
                candidates.append(w)
            if far is None or w.reach > far.reach:
                far = w
    if len(candidates) <= 1:
        return candidates[0] if candidates else far
    best, best_score = None, 0
    for w in candidates:
        score = w.expected.get(target)
        if score is None:
            score = w.expected[target] = expected(w, target)
        n = max(reach, min(dist, w.reach))
        score -= w.attack_penalty * max(0, n - 1)
        if best is None or score > best_score:
            best, best_score = w, score
    return best


def act(u, units, turn, d10):
    """One action: pick a target and a weapon, close toward the weapon's range, then fire (or charge it)."""
    target = pick_target(u, units)
    if target is None:
        return
    w = pick_weapon(u, target, turn)
    if w is None:
        return
    gap = abs(u.place - target.place) - w.reach
    if gap > 0:
        step = min(gap, u.allowance)
        if step > 0:
            u.place += step if target.place > u.place else -step
            u.closing = True
    # L645, P13: a weapon with Charge Time fires from the turn after its last charging turn
    if w.charge > 0 and (w.charged < w.charge or w.charged_turn >= turn):
        w.charged += 1
        w.charged_turn = turn
        return
    if abs(u.place - target.place) <= w.reach:
        attack(u, target, w, units, turn, d10)


def defense(u, kind):
    total = u.defense[kind] + u.hot + u.fired_up
    if kind == MELEE:
        total += u.parry
    return total


def attack(att, dfn, w, units, turn, d10):
    """L449, 4.5-4.6: 2d10 + the attack's bonuses against the target's defense, succeeding on a tie."""
    dist = abs(att.place - dfn.place)
    kind = w.type
    rolled = d10() + d10()
    if att.pilot.skill_for(kind) <= 0:
        rolled //= 2                                         # L407: untrained, the 2d10 halved
    total = rolled + att.attack_base[kind] + w.attack + att.hot + att.fired_up
    if kind != MELEE:
        total += att.targeting                               # L603
    diff = att.positioning - dfn.positioning                 # L437, P7: on the attack only
    total += POSITIONING[min(diff, 55)] if diff >= 0 else -POSITIONING[min(-diff, 55)]
    total -= w.attack_penalty * max(0, dist - 1)             # L613, P14: from Very Close
    if dfn.type == "mecha":                                  # L469, P10: crowding out, mecha only
        if kind == ELECTRONIC:
            total -= dfn.fired_on
        elif kind != MELEE:
            total -= 2 * dfn.fired_on
    tn = defense(dfn, kind)
    for h_kind, num, den in w.hybrid:                        # L587
        tn += defense(dfn, h_kind) * num // den
    if kind != MELEE:
        dfn.fired_on += 1
    w.fired_turn = turn
    if w.shots is not None:
        w.shots -= 1
    if w.charge > 0:
        w.charged = 0
    if total < tn:
        return
    margin = total - tn
    # L538-542: a warship that kept its range shows its Flank to another warship; a fleeing unit its Rear
    # (L539), which lowers the thresholds by 2 (L530); else the Fore. (L541's dogfight gives the higher
    # Positioning the Flank at Close or nearer: the duel's suits have one armor for every arc, so it
    # changes nothing here.)
    arc = "rear" if dfn.fleeing else "flank" if att.type == "warship" and dfn.type == "warship" and not dfn.closing \
        else "fore"
    shift = -2 if arc == "rear" else 0
    if w.assault_at > 0:                                     # L629, P19: Assault, every hit Glancing
        hits = min(w.assault_max, 1 + margin // w.assault_at)
        first = "glance"
    else:
        hits = 1
        if w.smash is not None and margin >= w.smash_at + shift:     # L451, L611
            first = "smash"
        elif w.solid is not None and margin >= w.solid_at + shift:
            first = "solid"
        else:
            first = "glance"
    p = dfn.pilot
    # L191: Newtype Flash (1 aleph, once a turn) on a Solid or Smash: one class down
    if p.newtype_flash and not dfn.flash_used and p.aleph_left >= 1 and first != "glance":
        dfn.flash_used = True
        p.aleph_left -= 1
        first = "solid" if first == "smash" else "glance"
    for i in range(hits):
        if dfn.durability_left <= 0:
            break
        resolve_hit(att, dfn, w, first if i == 0 else "glance", arc, units, d10)


def through_armor(dmg, shields, armor):
    """4.8: shields (reaching the damage they stop it, with no critical roll, L457), then armor: more
    than twice the damage stops it (L453), else at least 1 goes through; up to three times the damage
    lets a critical through (L565). Gives (the damage after armor, whether it may crit)."""
    if shields >= dmg:
        return 0, False
    left = dmg - shields
    if armor > 2 * left:
        return 0, armor <= 3 * left
    return max(1, left - armor), True


def resolve_hit(att, dfn, w, cls, arc, units, d10):
    dmg = w.smash if cls == "smash" else w.solid if cls == "solid" else w.glance
    armor = dfn.armor_rear if arc == "rear" else dfn.armor_flank if arc == "flank" else dfn.armor_fore
    through, crit_ok = through_armor(dmg, dfn.shields, armor)
    final = through * w.aae                                  # L625: After-Armor Effect
    vital = dfn.vital_protection is not None and final > dfn.vital_protection   # L687, P23
    if vital:
        final *= dfn.vital_multiplier
    dfn.durability_left -= final
    if final > 0:
        dfn.last_hit_by = att
    if crit_ok:                                              # L569, P20: 2d10 against the Crit
        if d10() + d10() >= w.crit:
            if cls == "glance" and not vital:
                dfn.surface_hits += 1
            else:
                dfn.vital_hits += 1
        if cls == "smash":
            dfn.vital_hits += 1
    after_damage(dfn, att, units)


def after_damage(dfn, att, units):
    """P24: shot down at 0; the 50% marker (Second Wind, L166); Crusader (L162), Mama Bear (L158) and
    Hot-Blooded's +1 when a friend is shot down (L84)."""
    p = dfn.pilot
    if not dfn.half_lost and dfn.durability_left * 2 <= dfn.durability_max:
        dfn.half_lost = True
        if p.second_wind and p.pluck_left < p.pluck_max:
            p.pluck_left = p.pluck_max
    if dfn.durability_left <= 0 and dfn.status == ACTIVE:
        dfn.status = SHOT_DOWN
        ap = att.pilot
        if ap.crusader and ap.pluck_left < ap.pluck_max:
            ap.pluck_left += 1
        for u in units:
            if u is not dfn and u.side == dfn.side and u.status == ACTIVE:
                up = u.pilot
                if up.mama_bear and up.pluck_left < up.pluck_max:
                    up.pluck_left += 1
                if up.hot_blooded:
                    u.fired_up = True


# ---- many fights ----

def simulate(n: int, seed: int = 1, characters=characters, example: str | None = None) -> dict:
    """n fights of fresh `characters()` (or `characters(example)`) with one random.Random(seed): the
    winners counted (a side or "draw"), the rounds (their mean and a histogram), and how often each
    character was standing at the end."""
    make = characters if example is None else (lambda: characters(example))
    rng = random.Random(seed)
    winners = {side: 0 for side in make().sides}
    winners["draw"] = 0
    histogram: dict[int, int] = {}
    standing: dict[str, int] = {}
    for _ in range(n):
        winner, rounds, fighters = fight(make(), rng)
        key = "draw" if winner is None else winner
        winners[key] = winners.get(key, 0) + 1
        histogram[rounds] = histogram.get(rounds, 0) + 1
        for u in fighters:
            standing[u.name] = standing.get(u.name, 0) + (u.status == ACTIVE)
    rounds_mean = sum(r * c for r, c in histogram.items()) / n if n else 0.0
    return {"runs": n, "winners": winners, "rounds_mean": rounds_mean,
            "rounds_histogram": dict(sorted(histogram.items())), "standing": standing}
