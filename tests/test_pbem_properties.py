"""Property tests (hypothesis) of the `pbem` module (rule text 002): whatever the cast, the options and
the dice, a fight is played to its end and its state stays within the rules.

Drawn: 2 to 4 Transformers on two sides, every stat from 1 to 10 (PROPOSAL 3), a Gun, a fist weapon
or no weapon; any subset of the module's options set from the encounter's settings, each to one of
its documented values; any seed. `until watch() and (one_side_left or round > 30)`: the script's
`watch` says everyone's state before each round and once the fight has ended, so the checks see the
fight between rounds as well as its result.

Checked: the fight ends without an error, within 30 rounds; `result.winner` is a side or null, and
is the one side with anyone standing (`standing`: status "active") or null when no side or both are;
everyone starts at hp = Endurance and rank_points = Rank (L54, L63); hit points never rise (no
healing in this part, PROPOSAL 14); a status is active, unconscious, dead or retreated, and only
moves on (active to unconscious, dead or retreated; unconscious to dead: no one gets back up, and
dead stays dead); rank points stay between 0 and Rank; the same seed gives byte-identical output.
And examples/pbem_ambush.mech, run as its header says, gives the same bytes each time and ends with
a result.

The example counts are small, so the module runs in a few seconds (each run compiles pbem);
set MECH_PROPERTY_EXAMPLES=N to run N examples of each.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mechscript.api import run
from support import mech_forked

REPO = Path(__file__).resolve().parent.parent
PBEM = REPO / "mechscript" / "stdlib" / "pbem.mech"
STATS = ("speed", "skill", "rank", "firepower", "strength", "endurance", "courage")
STATUSES = {"active", "unconscious", "dead", "retreated"}
# where a status may go next (the rules never bring anyone back: PROPOSAL 6, 9, 14)
MOVES = {"active": STATUSES, "unconscious": {"unconscious", "dead"}, "dead": {"dead"}, "retreated": {"retreated"}}
SIDES = ("autobots", "decepticons")
NAMES = ("Punch", "Ransack", "Triggerhappy", "Jazz")
MAX_ROUNDS = 30

EXAMPLES = int(os.environ.get("MECH_PROPERTY_EXAMPLES", "0"))


def examples(n: int):
    return settings(max_examples=EXAMPLES or n, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def text(value: str) -> str:
    return f'"{value}"'


# Each option of the module (its top-level `let`s but `choices` and `report`), as
# mechscript text, over the values its comment documents. stat_low and stat_high, read when a
# character is made, are set by the script before the characters (an encounter cannot set them);
# they are drawn so that 1..10 stays valid.
BEFORE_CHARACTERS = {
    "stat_low": st.sampled_from(["0", "1"]),
    "stat_high": st.sampled_from(["10", "12"]),
}
OPTIONS = {
    "tie": st.sampled_from(["defender", "attacker", "reroll"]).map(text),
    "tied_initiative": st.sampled_from(["roll_off", "written"]).map(text),
    "surprise": st.sampled_from(["none", text(SIDES[0]), text(SIDES[1])]),
    "surprise_needs": st.sampled_from(["all", "each"]).map(text),
    "surprise_failure": st.sampled_from(["military", "reversed"]).map(text),
    "resist_with": st.sampled_from(["endurance", "hp"]).map(text),
    "attack_unconscious": st.sampled_from(["true", "false"]),
    "penalty_counts": st.sampled_from(["every", "hits"]).map(text),
    "rank_rolls": st.lists(st.sampled_from(["attack", "defense", "damage", "resist"]), unique=True)
    .map(lambda rolls: "[" + ", ".join(map(text, rolls)) + "]"),
    "rank_timing": st.sampled_from(["before_turn", "declared"]).map(text),
    "rank_equal": st.sampled_from(["true", "false"]),
    "courage_after": st.sampled_from(["hit", "damaged"]).map(text),
    "fizzle": st.sampled_from(["true", "false"]),
    "default_weapon": st.sampled_from(["gun", "fists"]).map(text),
    "check_stat": st.sampled_from(STATS).map(text),
}

WEAPONS = ("", "  weapon Gun", '  weapon Fist { uses "fists" }', '  weapon Blowpipe { uses "gun" }')


def test_every_option_of_the_module_is_drawn():
    """A new option of pbem.mech needs a strategy above, or these tests would never try it (`survival`, the
    words of `mech sim`, changes no fight)."""
    options = re.findall(r"^let (\w+) =", PBEM.read_text(encoding="utf-8"), flags=re.M)
    assert options and sorted(options) == sorted([*OPTIONS, *BEFORE_CHARACTERS, "choices", "report", "survival"])


@st.composite
def fights(draw):
    """(script, {name: stats}, [(side, names)]): a cast, its sides, some options."""
    count = draw(st.integers(2, 4))
    names = list(NAMES[:count])
    cut = draw(st.integers(1, count - 1))
    order = draw(st.permutations(names))
    sides = [(SIDES[0], order[:cut]), (SIDES[1], order[cut:])]
    cast, lines = {}, ["use pbem"]
    for option in draw(st.lists(st.sampled_from(sorted(BEFORE_CHARACTERS)), unique=True)):
        lines.append(f"pbem.{option} = {draw(BEFORE_CHARACTERS[option])}")
    for name in names:
        stats = {stat: draw(st.integers(1, 10)) for stat in STATS}
        cast[name] = stats
        entries = " ".join(f"{stat} {value}" for stat, value in stats.items())
        lines.append(f"character {name} is Transformer {{ {entries}{draw(st.sampled_from(WEAPONS))} }}")
    chosen = draw(st.lists(st.sampled_from(sorted(OPTIONS)), unique=True))
    # watch(): everyone's state, said before each round and at the end
    lines.append("fn watch() {")
    lines += [f'    say "@ {name} {{{name}.hp}} {{{name}.status}} {{{name}.rank_points}}"' for name in names]
    lines.append("    return true")
    lines.append("}")
    lines.append('encounter "property" {')
    lines += [f"    side {side}: {', '.join(members)}" for side, members in sides]
    lines += [f"    {option}: {draw(OPTIONS[option])}" for option in sorted(chosen)]
    lines.append(f"    until watch() and (one_side_left or round > {MAX_ROUNDS})")
    lines.append("}")
    return "\n".join(lines) + "\n", cast, sides


SEEDS = st.integers(0, 2**32 - 1)


def snapshots(log: list[str], cast: dict) -> dict[str, list[tuple[int, str, int]]]:
    """Each character's (hp, status, rank_points) as `watch` said them, in order."""
    seen = {name: [] for name in cast}
    for line in log:
        if line.startswith("@ "):
            name, hp, status, points = line[2:].split(" ")
            seen[name].append((int(hp), status, int(points)))
    return seen


@examples(12)
@given(fights(), SEEDS)
def test_a_fight_ends_and_its_state_stays_within_the_rules(fight, seed):
    script, cast, sides = fight
    ran = run(script, seed=seed)  # no error, whatever the cast, options and dice
    result = ran.result
    assert result is not None, script
    assert 0 <= result["rounds"] <= MAX_ROUNDS

    end = result["characters"]
    assert set(end) == set(cast)
    standing = {side for side, members in sides for name in members if end[name]["status"] == "active"}
    assert result["winner"] is None or result["winner"] in SIDES
    assert result["winner"] == (standing.pop() if len(standing) == 1 else None), (standing, result)

    seen = snapshots(ran.log, cast)
    for side, members in sides:
        for name in members:
            stats, history = cast[name], seen[name]
            history.append((end[name]["hp"], end[name]["status"], end[name]["rank_points"]))
            assert end[name]["side"] == side
            assert len(history) >= 3  # before round 1, at the end (the check that ended it), the result
            assert history[0] == (stats["endurance"], "active", stats["rank"]), (name, history)  # L54, L63
            for (hp, status, points), (next_hp, next_status, next_points) in zip(history, history[1:]):
                assert next_hp <= hp, (name, history)                                   # hp never rises
                assert next_status in MOVES[status], (name, history)                    # dead stays dead
                assert next_points <= points, (name, history)                           # spent until the battle is over
            for hp, status, points in history:
                assert status in STATUSES, (name, history)
                assert 0 <= points <= stats["rank"], (name, history)


@examples(4)
@given(fights(), SEEDS)
def test_the_same_seed_gives_byte_identical_output(fight, seed):
    script = fight[0]
    first, second = run(script, seed=seed), run(script, seed=seed)
    assert first.log == second.log
    assert json.dumps(first.to_json()) == json.dumps(second.to_json())
    assert "\n".join(first.log + first.summary()).encode() == "\n".join(second.log + second.summary()).encode()


def test_the_ambush_example_gives_the_same_bytes_for_the_same_seed():
    """`mech run examples/pbem_ambush.mech --seed 1` (its header's command, from the repository's
    root), twice, and with --json: identical output, ending with the result."""
    argv = ["run", "examples/pbem_ambush.mech", "--seed", "1"]
    first, second = mech_forked(argv, REPO), mech_forked(argv, REPO)
    assert (first.code, first.err) == (0, ""), first.err
    assert first.out.encode() == second.out.encode()
    lines = first.out.splitlines()
    # L22, L36-40: Ransack declares first, at Punch; then Punch, at Ransack; then Triggerhappy, at Punch
    assert lines[3:6] == ["  Ransack declares: attack Punch with concussion rifle",
                          "  Punch declares: attack Ransack with Gun",
                          "  Triggerhappy declares: attack Punch with Blowpipe"]
    assert any(line.startswith("Result: ") for line in lines)
    data = [mech_forked(argv + ["--json"], REPO) for _ in range(2)]
    assert data[0].code == 0 and data[0].out.encode() == data[1].out.encode()
    assert json.loads(data[0].out)["result"]["winner"] in (None, *SIDES)
