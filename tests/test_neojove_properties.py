"""Property test of the neojove damage pipeline (digest 4.8; rule text 004 L451-459, L565, L599,
L619-627, L643, L765): the module's `damage_pipeline`, run by mech on many drawn hits in one script,
against a plain Python reading of the same rules written from the digest."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from support import run_json


def reference(dmg, penalty, shield, sp, ignore, esw, armor, fittings, glance, ap, aae):
    """(final damage, critical roll allowed) by the digest's pseudo-code of 4.8 and its proposals."""
    base = max(0, dmg - penalty)                       # P15
    sh = 0 if ignore else max(0, shield - sp) * esw    # L621, L623, L643, P16
    if sh >= base:
        return 0, False                                # L457
    left = base - sh
    a = max(0, armor - fittings) if glance else armor  # L765, P26
    if ap > a:                                         # L459, P17
        through = max(0, left - (ap - a))
        return through * aae, through > 0
    eff = a - ap
    if eff > 2 * left:                                 # L453, L599
        return 0, eff <= 3 * left                      # L565, P18
    return max(1, left - eff) * aae, True              # L625


HIT = st.tuples(st.integers(0, 30), st.integers(0, 6), st.integers(0, 8), st.integers(0, 4), st.booleans(),
                st.integers(1, 3), st.integers(0, 12), st.integers(0, 3), st.booleans(), st.integers(0, 8),
                st.integers(1, 5))


def word(b: bool) -> str:
    return "true" if b else "false"


# no shrinking: each example is a whole mech run, and a failing list of 120 hits is read as it is
@settings(max_examples=2, deadline=None, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(HIT, min_size=120, max_size=120))
def test_the_pipeline_agrees_with_a_plain_reading_of_4_8(tmp_path_factory, hits):
    rows = ",\n".join("[" + ", ".join(word(v) if isinstance(v, bool) else str(v) for v in h) + "]" for h in hits)
    script = ("use neojove\n"
              f"for h in [{rows}] {{\n"
              "    let r = damage_pipeline(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10])\n"
              '    say "{r.final} {r.crit_allowed}"\n'
              "}\n")
    got = run_json(tmp_path_factory.mktemp("pipeline"), script)["log"]
    expected = [f"{final} {word(crit)}" for final, crit in (reference(*h) for h in hits)]
    assert got == expected
