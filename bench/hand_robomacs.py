"""The fight of examples/robomacs_spartacus.mech written by hand in plain Python: a baseline like
bench/hand_pbem.py, for the `robomacs` module (rule text 001, RoboMACs v2.1).

The same rules, options and tactics as mechscript/stdlib/robomacs.mech plays for that example, with
`random.Random(seed)` for the dice. It does not roll its dice in the same order as the module (so a
seed gives other fights than `mech run --seed`); it follows the same rules, so over many fights the
win rates and the rounds agree within their statistical uncertainty (tests/test_hand_robomacs.py
checks that).

The fight: Spartacus, Blueblaze and Thresher (guardians) against Antiochus (mace, a PC-style NPC who
acts in the NPC phase), all RoboMACs, everyone Close. For rounds 1-16, while Spartacus and Antiochus
both stand, everyone follows the example's `sample_plan` (the text's choices, round by round); after
that, or once either of the two is down, everyone plays the module's `default_plan`: one who holds a
foe out of the fight lets go of him first (free, `let_go` "free"); a held character tries to break
free on Responsive, anyone else makes his strongest attack on Advantage (Antiochus in the NPC phase)
at the one he holds, else the first foe standing. The encounter ends `until
one_side_left or round > 20`.

The options are robomacs' defaults, fixed here, except `armored_wrecked_grace: true` (the encounter's):
automatic_low "mixed", below_automatic "clamp", npc_phase_column "advantage", overkill_effect "level"
(+1 damage level), mixed_effect "less_damage" (-1 level), mishap_effect "break" (a Mishap breaks the
weapon used, if any), overflow_at "empty", human_override (no humans here), unskilled_shift 1,
attack_frees true, mixed_hold "other_party", npc_map true, bruise false, mab false,
defensive_modifier false, start_apart false. What the module has and this fight never reaches is left
out: Range changes (no one ever leaves Close), humans and Piloted Robos, chart NPCs, Mind skills,
Autorepair, rams, Shields, an Advantage Parry, a Responsive Dodge or Trip, MACJitsu's -2 on Advantage
(Spartacus's one Advantage MACJitsu is the disarm, which trades it away). The two perception rolls of
round 12 are left out too: with no Multiple Attempt Bonus and nothing to break, their dice change
nothing.

    import random, hand_robomacs
    winner, rounds, fighters = hand_robomacs.fight(hand_robomacs.characters(), random.Random(1))
    hand_robomacs.simulate(2000, seed=1)   # {"runs": 2000, "winners": {"guardians": ..., ...}, ...}
"""

from __future__ import annotations

import random

EXAMPLE = "examples/robomacs_spartacus.mech"
MAX_ROUNDS = 20                  # `until one_side_left or round > 20`
SIDES = ("guardians", "mace")
SAMPLE_ROUNDS = 16               # the example's `sample_plan` plays the text's choices up to round 16

ACTIVE, WRECKED, DESTROYED, RECALLED, SHUTDOWN = "active", "wrecked", "destroyed", "recalled", "shutdown"

# Degrees (the rows of the Task Resolution Chart) and bands
AUTOMATIC, ROUTINE, DIFFICULT, TASKING, LIMIT = range(5)
OVERKILL, SUCCESS, MIXED, FAILURE, MISHAP, IMPOSSIBLE = range(6)
# L1156-1163: the least total for Overkill, Success, Mixed and Failure on each row. The Automatic row
# stops at 2 and A01 ("mixed") reads a total below it as Mixed: everything below 4 is Mixed there.
CHART = ((13, 4, -1000, -1000), (14, 8, 7, 2), (15, 10, 9, 3), (16, 12, 10, 5), (17, 14, 12, 8))

# Wound levels; NONE is "no damage" (a level shifted below Flesh, the Bruise rule being off)
NONE, BRUISE, FLESH, BONE, METAL, STRUCTURE, CRITICAL, WRECKED_LEVEL = -1, 0, 1, 2, 3, 4, 5, 6
LEVELS = ("metal", "structure", "critical", "wrecked")

# L378-404: wounds per trait instance (metal, structure, critical, wrecked); a trait at bonus b is b+1
# instances; a RoboMAC has the Robo line and the MAC line
TRAIT_WOUNDS = {"robo": (1, 1, 1, 0), "mac": (1, 1, 1, 1), "armored": (2, 2, 1, 1), "brawn": (1, 2, 1, 0),
                "gadgets": (1, 0, 0, 0), "mind": (0, 0, 1, 1), "weapons": (1, 1, 0, 0), "fast": (0, 0, 0, 0)}


class Skill:
    """A combat skill (L604-702): its degree and damage on Advantage and on Responsive, and the
    {Brawn} version's; `hand` hand-to-hand; `wields` a skill that uses a weapon system."""

    __slots__ = ("degree", "advantage", "responsive", "brawn_degree", "brawn_advantage", "brawn_responsive",
                 "hand", "wields")

    def __init__(self, degree, advantage, responsive, brawn_degree, brawn_advantage, brawn_responsive, hand):
        self.degree, self.advantage, self.responsive = degree, advantage, responsive
        self.brawn_degree, self.brawn_advantage, self.brawn_responsive = brawn_degree, brawn_advantage, brawn_responsive
        self.hand = hand
        self.wields = not hand


COMBAT = {
    "brawl": Skill(DIFFICULT, METAL, BONE, DIFFICULT, STRUCTURE, METAL, True),
    "macjitsu": Skill(TASKING, METAL, METAL, DIFFICULT, METAL, METAL, True),
    "weaponmaster": Skill(TASKING, STRUCTURE, NONE, TASKING, CRITICAL, NONE, True),
    "blast": Skill(DIFFICULT, METAL, NONE, DIFFICULT, METAL, NONE, False),
    "killing shot": Skill(TASKING, STRUCTURE, METAL, TASKING, STRUCTURE, METAL, False),
    "godcannon shot": Skill(TASKING, CRITICAL, NONE, TASKING, CRITICAL, NONE, False),
}
COMBAT["weaponmaster"].wields = True          # the one hand-to-hand skill that uses a weapon (L621-625)
WEAPON_SORTS = ("megaweapon", "built-in weapon", "weapon", "sidearm")


class System:
    __slots__ = ("name", "sort", "built_in")

    def __init__(self, name, sort=None, built_in=False):
        self.name = name.lower()
        self.sort = (sort or name).lower()
        self.built_in = built_in


class Fighter:
    """A RoboMAC of robomacs: traits, skills (lowercase name -> bonus), systems, and its fight state."""

    __slots__ = ("name", "side", "npc", "brawn", "mind", "armored", "skills", "systems", "wounds", "status",
                 "grace", "held_by", "holding", "escape", "disarmed", "lost", "pending", "pain", "lose_round",
                 "trip_round", "dodge_round", "dodge_against", "brace_round", "choice", "phase")

    def __init__(self, name, side, traits, skills, systems, npc=False, **start):
        self.name, self.side, self.npc = name, side, npc
        self.brawn, self.mind, self.armored = "brawn" in traits, "mind" in traits, "armored" in traits
        self.skills = skills
        self.systems = systems
        wounds = [0, 0, 0, 0, 0, 0, 0]                      # by level; only Metal and up for a Robo
        for line, n in [("robo", 1), ("mac", 1)] + [(t, b + 1) for t, b in traits.items()]:
            for i, per in enumerate(TRAIT_WOUNDS[line]):
                wounds[METAL + i] += n * per
        for level, count in start.items():                  # "neither was unharmed": fewer to start
            wounds[METAL + LEVELS.index(level)] = count
        self.wounds = wounds
        self.status = ACTIVE
        self.grace = 0               # A07: the round a Wrecked but Armored Robo with Mind falls at the end of
        self.held_by = self.holding = None
        self.escape = None           # the degree he needs to break the hold on him
        self.disarmed = False
        self.lost = set()            # weapons broken by a Mishap
        self.pending = []            # damage waiting for the end of the round
        self.pain = {}               # round -> flat penalty on all his rolls (Structure pain)
        self.lose_round = 0          # he loses his actions this round (Scramble after a Critical wound)
        self.trip_round = 0          # tripped on Advantage or in the NPC phase: no hand-to-hand this round,
                                     # and -4 on a ranged attack (L644-646)
        self.dodge_round = 0         # Dodge: -3 to be hit by `dodge_against` this round
        self.dodge_against = None
        self.brace_round = 0         # braced for a Godcannon Shot: +2 to be hit this round
        self.choice = None           # the default tactics' attack, kept while nothing is lost
        self.phase = None            # this round's phase, or None

    def __repr__(self):
        w = self.wounds
        return f"{self.name} ({self.status}, {w[METAL]}/{w[STRUCTURE]}/{w[CRITICAL]} W{w[WRECKED_LEVEL]})"


def characters() -> list[Fighter]:
    """The characters of examples/robomacs_spartacus.mech, in the encounter's order."""
    return [
        Fighter("Spartacus", "guardians", {"mind": 3, "armored": 0, "brawn": 0, "weapons": 0},
                {"dodge": 0, "macjitsu": 0, "parry": 0, "brawl": 0}, [System("Megaweapon")], critical=3),
        Fighter("Blueblaze", "guardians", {"mind": 0, "weapons": 0, "gadgets": 0, "fast": 0},
                {"blast": 1, "killing shot": 0, "brawl": 0, "dodge": 1, "stunt driver": 0},
                [System("Shoulder bombs", "Built-In Weapon", True), System("Energy rifle", "Built-In Weapon", True),
                 System("Passenger Armor")]),
        Fighter("Thresher", "guardians", {"brawn": 0, "armored": 0},
                {"brawl": 2, "weaponmaster": 0, "parry": 0, "grab": 0, "trip": 0, "blast": 0,
                 "knowledge specialty: farming": 0},
                [System("Threshing devices", "Sidearm"), System("Combat Form"), System("Ramplate")]),
        Fighter("Antiochus", "mace", {"brawn": 0, "weapons": 0},
                {"godcannon shot": 3, "weaponmaster": 1, "grab": 0, "brawl": 0, "trip": 0, "macjitsu": 0},
                [System("Massdriver", "Megaweapon", True)], npc=True, critical=2),
    ]


class Act:
    """An action and the GM's rulings on it (the module's `act` record, the fields this fight uses)."""

    __slots__ = ("skill", "target", "bonus", "shift", "degree", "waive_map", "trick", "improvised", "weapon",
                 "declared", "mishap", "then", "free", "allowed", "release")

    def __init__(self, skill, target=None, bonus=0, shift=0, degree=None, waive_map=False, trick=None,
                 improvised=False, weapon=None, declared=DIFFICULT, mishap=None, then=(), free=False,
                 allowed=False, release=False):
        self.skill, self.target, self.bonus, self.shift, self.degree = skill, target, bonus, shift, degree
        self.waive_map, self.trick, self.improvised, self.weapon = waive_map, trick, improvised, weapon
        self.declared, self.mishap, self.then, self.free, self.allowed = declared, mishap, then, free, allowed
        self.release = release


class Damage:
    __slots__ = ("source", "level", "hand", "squeeze", "then", "skill")

    def __init__(self, source, level, hand, squeeze, then, skill):
        self.source, self.level, self.hand, self.squeeze, self.then, self.skill = source, level, hand, squeeze, then, skill


NO_PLAN = (None, ())
FOUND = {}                       # found weapons (a shard of debris, a laser sword, a MACE sidearm): never built in


def shift_level(level, by):
    """A level moved by `by`: capped at Wrecked, "none" at Bruise or below (no Bruise rule)."""
    if level == NONE:
        return NONE
    level += by
    if level > WRECKED_LEVEL:
        return WRECKED_LEVEL
    return NONE if level <= BRUISE else level


def release(holder, held):
    holder.holding = None
    held.held_by = None
    held.escape = None


class _Fight:
    def __init__(self, fighters, rng):
        self.fighters = fighters
        self.by_name = {c.name: c for c in fighters}
        self.spartacus, self.blueblaze, self.antiochus = (self.by_name[n] for n in ("Spartacus", "Blueblaze", "Antiochus"))
        self.random = rng.random
        self.round = 0

    def two_d8(self):
        random = self.random
        return int(random() * 8) + int(random() * 8) + 2

    # ---- a round (play_round) ----

    def play_round(self):
        self.round += 1
        r = self.round
        fighters = self.fighters
        for c in fighters:                 # the phase each acts in is asked at the start of the round
            c.phase = None
            if c.status == ACTIVE and c.lose_round != r:
                phase = self.plan_for(c)[0]
                c.phase = "npc" if c.npc and phase is not None else phase
        for phase in ("advantage", "npc", "responsive"):
            for c in fighters:             # ... and the actions when that phase comes (L1428-1435)
                if c.phase == phase and c.status == ACTIVE:
                    self.take_actions(c, self.plan_for(c)[1], phase)
        for c in fighters:                 # the damage that waited for the end of the round
            waiting, c.pending = c.pending, []
            for damage in waiting:
                if damage.level != NONE:
                    self.land(c, damage)
        for c in fighters:
            if c.grace and c.grace <= r and c.status == ACTIVE:
                c.status = WRECKED

    def take_actions(self, c, actions, phase):
        """L1204-1206: combined actions each pay MAP (+1 degree), except free ones, waiting and letting
        go of a hold (let_go "free")."""
        counted = sum(1 for a in actions if not a.free and a.skill not in ("wait", "release"))
        map_ = counted > 1
        for a in actions:
            if c.status == ACTIVE:
                self.take_action(c, a, phase, map_ and not a.free and a.skill not in ("wait", "release"))

    def take_action(self, c, a, phase, map_):
        skill = a.skill
        if skill == "wait" or skill == "perception":   # a perception roll here changes nothing
            return
        if skill == "release":                         # letting go of a hold: no roll
            if c.holding is a.target:
                release(c, a.target)
            return
        if a.target is not None and a.target.status != ACTIVE and skill != "escape":
            return                                     # no target
        if skill == "dodge":
            self.dodge(c, a, map_)
        elif skill == "parry":
            self.parry(c, a, map_)
        elif skill == "trip":
            self.trip(c, a, map_)
        elif skill == "grab":
            self.grab(c, a, map_)
        elif skill == "escape":
            self.escape(c, a, map_)
        else:
            self.attack(c, a, phase, map_)

    # ---- the task roll ----

    def attempt(self, degree, shift, mods):
        """`degree` shifted by `shift`, 2d8 + `mods` read on the chart: (band, the degree rolled at)."""
        at = degree + shift
        if at > LIMIT:
            return IMPOSSIBLE, at          # L1215-1216
        if at < AUTOMATIC:
            at = AUTOMATIC                 # A02 "clamp"
        total = self.two_d8() + mods
        overkill, success, mixed, failure = CHART[at]
        if total >= overkill:
            return OVERKILL, at
        if total >= success:
            return SUCCESS, at
        if total >= mixed:
            return MIXED, at
        return (FAILURE if total >= failure else MISHAP), at

    def shifts(self, c, a, map_, skill):
        """MAP, unskilled use (L1211-1222), the GM's shift."""
        n = a.shift
        if map_ and not a.waive_map:
            n += 1
        if skill is not None and skill not in c.skills:
            n += 1                         # unskilled_shift 1
        return n

    def penalty(self, c):
        return c.pain.get(self.round, 0) if c.pain else 0

    def mods(self, c, a, skill):
        """The skill bonus, status penalties and the GM's bonus."""
        return c.skills.get(skill, 0) + self.penalty(c) + a.bonus

    def to_be_hit(self, c, t):
        """Dodge (-3 against the one dodged) and bracing for a Godcannon Shot (+2), this round."""
        r, m = self.round, 0
        if t.dodge_round == r and t.dodge_against is c:
            m -= 3
        if t.brace_round == r:
            m += 2
        return m

    # ---- weapons ----

    def megaweapon(self, c):
        if c.disarmed:
            return None
        for s in c.systems:
            if s.sort == "megaweapon" and s.name not in c.lost:
                return s
        return None

    def attack_weapon(self, c, found, skill):
        if found is not None:
            weapon = FOUND.get(found)
            if weapon is None:
                weapon = FOUND[found] = System(found, "found")
            return weapon
        if skill == "godcannon shot":
            return self.megaweapon(c)
        if not COMBAT[skill].wields or c.disarmed:
            return None
        for s in c.systems:
            if s.name not in c.lost and s.sort in WEAPON_SORTS:
                return s
        return None

    def mishap(self, c, a):
        """L1179-1180 ("break"): he breaks whatever he was using: the weapon of an attack; else nothing."""
        if a.mishap is None and a.skill in COMBAT:
            weapon = self.attack_weapon(c, a.weapon, a.skill)
            if weapon is not None:
                c.lost.add(weapon.name)

    # ---- attacks ----

    def attack(self, c, a, phase, map_):
        skill, t, r = a.skill, a.target, self.round
        info = COMBAT[skill]
        if phase == "responsive" and info.responsive == NONE and a.trick is None:
            return                                         # A15: it does its damage on Advantage
        if c.holding is not None and c.holding is not t and not a.allowed:
            return                                         # L628-629: a grabber attacks only the one he holds
        if info.hand and c.trip_round == r:
            return                                         # L644-645
        if a.weapon is not None and a.weapon.lower() in c.lost:
            return                                         # broken
        if skill == "godcannon shot" and a.weapon is None and self.megaweapon(c) is None:
            return                                         # L670-671
        degree = info.brawn_degree if c.brawn else info.degree
        weapon = self.attack_weapon(c, a.weapon, skill)
        shift = 0
        if a.degree is not None:
            degree = a.degree                              # the GM's
        elif weapon is not None and weapon.built_in:
            shift = -1                                     # L651-652: built in
        ranged = -4 if not info.hand and c.trip_round == r else 0    # tripped: -4 at range only (L645-646)
        band, at = self.attempt(degree, shift + self.shifts(c, a, map_, skill),
                                self.mods(c, a, skill) + ranged + self.to_be_hit(c, t))
        self.after_attack(c, a, phase, band, at, info)
        if skill == "godcannon shot":
            c.brace_round = r                              # L667-675: +2 to be hit this round
        if a.release and c.holding is t:
            release(c, t)

    def after_attack(self, c, a, phase, band, at, info):
        t = a.target
        if band == MISHAP:
            self.mishap(c, a)
            return
        if band > MIXED:
            return                                         # a miss
        if info.hand and c.held_by is t and at >= c.escape:
            release(t, c)                                  # attack_frees: the hit breaks the hold (L1920)
        if a.trick is not None:                            # the disarm (L620); an Overkill does the damage too
            t.disarmed = True
            if band != OVERKILL:
                return
        if phase == "responsive":
            level = info.brawn_responsive if c.brawn else info.responsive
        else:                                              # Advantage, and the NPC phase (A03)
            level = info.brawn_advantage if c.brawn else info.advantage
        if a.improvised:
            level = shift_level(level, -1)                 # L621-622
        if a.trick is None:
            if band == OVERKILL:
                level = shift_level(level, 1)              # A04
            elif band == MIXED:
                level = shift_level(level, -1)             # A05
        self.hit(c, t, level, info.hand, band, phase, a)

    def hit(self, c, t, level, hand, band, phase, a):
        target = t
        if band == MIXED and c.holding is not t and t.held_by is not c and c.held_by is not t:
            if t.held_by is not None:                      # A14: a Mixed on a held pair hits the other one
                target = t.held_by
            elif t.holding is not None:
                target = t.holding
        if target.held_by is not None:
            level = shift_level(level, 1)                  # L629: a held target takes one level more
        squeeze = c.holding is target
        damage = Damage(c, level, hand, squeeze, a.then, a.skill)
        if phase == "npc" or (phase == "advantage" and squeeze):
            target.pending.append(damage)                  # waits for the end of the round
        else:
            self.land(target, damage)

    def land(self, t, damage):
        self.wound(t, damage.level)
        for _ in damage.then:                              # sample R16: a fall "like Two Commanders"
            if t.status == ACTIVE or t.grace:
                total = self.two_d8()                      # the Cm line of the NPC Robo Attack Chart
                self.wound(t, CRITICAL if total >= 11 else STRUCTURE if total >= 8 else METAL if total >= 5 else NONE)

    # ---- defences and holds ----

    def dodge(self, c, a, map_):
        """L683-686: Routine against one foe; -3 to hit him this round."""
        band, _ = self.attempt(ROUTINE, self.shifts(c, a, map_, "dodge"), self.mods(c, a, "dodge"))
        if band <= MIXED:
            c.dodge_round, c.dodge_against = self.round, a.target

    def parry(self, c, a, map_):
        """L634-640, on Responsive: Routine against an attack he has himself, else Tasking; it cancels
        the foe's pending hand-to-hand damage."""
        foe = a.target
        shared = any(d.source is foe and d.skill in c.skills for d in c.pending)
        band, _ = self.attempt(ROUTINE if shared else TASKING, self.shifts(c, a, map_, "parry"), self.mods(c, a, "parry"))
        if band <= MIXED:
            c.pending = [d for d in c.pending if not (d.source is foe and d.hand)]

    def trip(self, c, a, map_):
        """L641-648, in the NPC phase: no hand-to-hand attack this round, and -4 on ranged attacks."""
        t = a.target
        band, _ = self.attempt(DIFFICULT, self.shifts(c, a, map_, "trip"), self.mods(c, a, "trip") + self.to_be_hit(c, t))
        if band <= MIXED:
            t.trip_round = self.round

    def grab(self, c, a, map_):
        """L626-637: at the declared degree; the held one escapes at it, one higher if only the grabber
        has Brawn, one lower if only he has."""
        t = a.target
        if c.holding is not None and c.holding is not t and not a.allowed:
            return                                         # L628-629: holding one, he grabs no one else
        band, _ = self.attempt(a.declared, self.shifts(c, a, map_, "grab"), self.mods(c, a, "grab") + self.to_be_hit(c, t))
        if band > MIXED:
            return
        if c.held_by is t:
            release(t, c)
        if c.holding is not None and c.holding is not t:
            release(c, c.holding)                          # allowed by the GM: the first is let go
        t.held_by, c.holding = c, t
        t.escape = min(LIMIT, max(AUTOMATIC, a.declared + (c.brawn and not t.brawn) - (t.brawn and not c.brawn)))

    def escape(self, c, a, map_):
        holder = c.held_by
        if holder is None:
            return
        band, _ = self.attempt(c.escape, self.shifts(c, a, map_, None), self.mods(c, a, None))
        if band > MIXED:
            return
        for damage in c.pending:
            if damage.source is holder and damage.squeeze:
                damage.level = NONE                        # the squeeze does nothing (L633-637)
        release(holder, c)

    # ---- wounds (L406-489) ----

    def wound(self, c, level):
        if level <= BONE:
            return                                         # nothing to a Robo (and "none")
        w = c.wounds
        while True:
            if w[level] > 0:
                w[level] -= 1
                if not c.mind:                             # pain (L459-480); Mind ignores it
                    if level == STRUCTURE:
                        nxt = self.round + 1
                        c.pain[nxt] = c.pain.get(nxt, 0) - 2
                    elif level == CRITICAL:
                        c.lose_round = self.round + 1
                if level == WRECKED_LEVEL and c.status == ACTIVE:
                    if c.grace == 0 and c.armored and c.mind:      # A07, the encounter's option
                        c.grace = self.round + 1
                    elif c.grace == 0:
                        c.status = WRECKED
                return
            if level == CRITICAL:                          # L423: it goes on into Wrecked
                level = WRECKED_LEVEL
                continue
            if level == WRECKED_LEVEL:                     # L424: Total Destruction
                c.status = DESTROYED
                return
            # L410-416: he overflows into the next level if a path of overridable levels leads to one
            # not empty (Structure is overridable only with Mind); else the Overflow Effect
            i = level
            while i < WRECKED_LEVEL and (i != STRUCTURE or c.mind) and w[i + 1] == 0:
                i += 1
            if i < WRECKED_LEVEL and (i != STRUCTURE or c.mind):
                level += 1
                continue
            c.status = RECALLED if level == METAL else SHUTDOWN
            return

    # ---- tactics ----

    def plan_for(self, c):
        """The example's `sample_plan`: the text's choices up to round 16 while both leaders stand."""
        r = self.round
        s, a, b = self.spartacus, self.antiochus, self.blueblaze
        if r > SAMPLE_ROUNDS or s.status != ACTIVE or a.status != ACTIVE:
            return self.default_plan(c)
        if c is s:
            return self.spartacus_plan(r)
        if c is a:
            return self.antiochus_plan(r)
        if c is b:
            return self.blueblaze_plan(r)
        return NO_PLAN                     # Thresher: "This is Spartacus's fight"

    def spartacus_plan(self, r):
        foe = self.antiochus
        if r == 1:
            return "advantage", (Act("dodge", foe, bonus=-2),)
        if r == 2:
            return "advantage", (Act("macjitsu", foe, trick="disarm"),)
        if r == 3 and self.spartacus.held_by is foe:
            return "responsive", (Act("parry", foe), Act("macjitsu", foe, waive_map=True))
        if r == 4:
            return "responsive", (Act("wait"),)
        if 5 <= r <= 10:
            return "responsive", (Act("parry", foe),)
        if r == 12:
            return "responsive", (Act("perception", free=True, degree=TASKING), Act("wait"))
        if 13 <= r <= 15:
            return "responsive", (Act("wait"),)
        if r == 16:
            return "advantage", (Act("brawl", foe, bonus=3, then=("Cm", "Cm")),)
        return "advantage", (Act("brawl", foe),)

    def antiochus_plan(self, r):
        me, foe, b = self.antiochus, self.spartacus, self.blueblaze
        if r == 1:
            return "npc", (Act("godcannon shot", foe),)
        if r == 2:
            return "npc", (Act("grab", foe),)
        if r == 3:
            return "npc", (Act("brawl", foe),)
        if r == 4:
            return "npc", (Act("weaponmaster", foe, improvised=True, weapon="a shard of debris"),)
        if 5 <= r <= 10 and "a laser sword" not in me.lost:
            return "npc", (Act("weaponmaster", foe, weapon="a laser sword"),)
        if r == 11:
            return "npc", (Act("trip", foe, mishap="over a ledge"),)
        if r == 12:
            if me.held_by is b:
                return "npc", (Act("escape", b), Act("grab", b, declared=ROUTINE))
            return "npc", (Act("grab", b),)
        if r == 15 and me.holding is b:
            return "npc", (Act("macjitsu", b, waive_map=True, release=True),
                           Act("godcannon shot", foe, weapon="a MACE sidearm", allowed=True, degree=AUTOMATIC,
                               waive_map=True))
        if r >= 13:
            return "npc", (Act("godcannon shot", foe, weapon="a MACE sidearm", allowed=True),)
        return "npc", (Act("brawl", foe),)

    def blueblaze_plan(self, r):
        me, foe = self.blueblaze, self.antiochus
        if r < 12:
            return NO_PLAN
        if (r == 13 or r == 14) and me.held_by is foe:
            return "advantage", (Act("escape", foe),)
        if r == 12:                        # no Grab skill: Difficult +1 (unskilled) -1 (the text's roll)
            return "advantage", (Act("perception", free=True, degree=ROUTINE), Act("grab", foe, shift=-1))
        if me.held_by is not foe:
            return self.default_plan(me)
        return NO_PLAN

    def default_plan(self, c):
        """robomacs' default_plan: one who holds a foe out of the fight lets go first (L628-629), then
        as fighting_plan."""
        phase, actions = self.fighting_plan(c)
        if c.holding is not None and c.holding.status != ACTIVE and phase is not None:
            return phase, (Act("release", c.holding),) + tuple(actions)
        return phase, actions

    def fighting_plan(self, c):
        """robomacs' fighting_plan: break a hold on Responsive, else the strongest attack on Advantage
        at the one he holds, else the first foe standing."""
        target = c.holding
        if target is None or target.status != ACTIVE:
            target = next((f for f in self.fighters if f.side != c.side and f.status == ACTIVE), None)
            if target is None:
                return NO_PLAN
        if c.held_by is not None:
            return "responsive", (Act("escape", c.held_by),)
        skill = self.best_attack(c)
        if skill is None:
            return NO_PLAN
        return "advantage", (Act(skill, target),)

    def best_attack(self, c):
        """The attack skill with the most damage for the least degree (level rank x2 - degree x3 +
        bonus, the first listed on a tie), worked out again when a weapon is lost or he is disarmed."""
        key = (len(c.lost), c.disarmed)
        if c.choice is None or c.choice[0] != key:
            best, score = None, -100
            for skill, bonus in c.skills.items():
                info = COMBAT.get(skill)
                if info is None:
                    continue
                if skill == "godcannon shot" and self.megaweapon(c) is None:
                    continue
                weapon = self.attack_weapon(c, None, skill)
                if skill == "weaponmaster" and weapon is None:
                    continue
                degree = info.brawn_degree if c.brawn else info.degree
                if weapon is not None and weapon.built_in:
                    degree = max(AUTOMATIC, degree - 1)
                value = (info.brawn_advantage if c.brawn else info.advantage) * 2 - degree * 3 + bonus
                if value > score:
                    best, score = skill, value
            c.choice = (key, best)
        return c.choice[1]


def fight(fighters: list[Fighter], rng: random.Random):
    """One fight; gives (the winning side or None, the rounds played, the fighters at the end)."""
    f = _Fight(fighters, rng)
    while True:
        left = {c.side for c in fighters if c.status == ACTIVE}
        if len(left) <= 1 or f.round + 1 > MAX_ROUNDS:
            break
        f.play_round()
    left = {c.side for c in fighters if c.status == ACTIVE}
    return (left.pop() if len(left) == 1 else None), f.round, fighters


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
            standing[c.name] = standing.get(c.name, 0) + (c.status == ACTIVE)
    return {"runs": n, "winners": winners, "rounds_mean": rounds_total / n if n else 0.0, "standing": standing}
