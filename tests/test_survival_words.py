"""What `survives` counts, said in words by each rules module, in `mech sim`'s report and JSON
(issue 21, item 6): a character survives a run when its rules' `standing` holds at the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import mech_forked

ROOT = Path(__file__).resolve().parent.parent

WORDS = {
    "pbem_ambush.mech": "active at the end: not retreated, unconscious or dead",
    "transformers_duel.mech": "active or recovering at the end: not knocked out, dying or dead",
    "robomacs_spartacus.mech": "active at the end: not recalled, shut down, scrambled, wrecked, destroyed, merged "
                               "or unformed; a Robo's pilot active too, not stunned, unconscious, in shock, dying "
                               "or dead",
    "neojove_duel.mech": "active at the end: not shot down or withdrawn",
}


@pytest.mark.parametrize("example", sorted(WORDS))
def test_each_module_says_what_survives_counts(example, tmp_path):
    path = ROOT / "examples" / example
    as_json = mech_forked(["sim", str(path), "-n", "3", "--seed", "1", "--jobs", "1", "--json"], tmp_path)
    assert as_json.code == 0, as_json.err
    assert json.loads(as_json.out)["survival"] == WORDS[example]
    report = mech_forked(["sim", str(path), "-n", "3", "--seed", "1", "--jobs", "1"], tmp_path)
    lines = report.out.splitlines()
    # the last line of the characters' block, before the runs to watch
    watch = next(number for number, line in enumerate(lines) if line.startswith("runs to watch: "))
    assert lines[watch - 2:watch] == [f"  (survives: {WORDS[example]})", ""]
    assert lines[lines.index("characters (survival, and the mean of their end state)") + 1].split()[1] == "survives"


def _ambush_with(tmp_path, rules: str) -> dict:
    """`mech sim --json` of the pbem ambush with house `rules` after its `use pbem`."""
    script = tmp_path / "ambush.mech"
    ambush = (ROOT / "examples" / "pbem_ambush.mech").read_text(encoding="utf-8")
    script.write_text(ambush.replace("use pbem\n", "use pbem\n" + rules, 1), encoding="utf-8")
    ran = mech_forked(["sim", str(script), "-n", "4", "--seed", "1", "--jobs", "1", "--json"], tmp_path)
    assert ran.code == 0, ran.err
    return json.loads(ran.out)


def test_a_retreated_character_does_not_survive_and_the_words_say_so(tmp_path):
    # pbem's `standing` is `active`: a house rule making everyone retreat at once leaves no one standing
    data = _ambush_with(tmp_path, 'fn pbem.play_round(enc, order, only) {\n'
                              '    for c in enc.characters { c.status = "retreated" }\n}\n')
    assert all(c["survival_rate"] == 0.0 for c in data["characters"].values())
    assert "not retreated" in data["survival"]


def test_a_script_replacing_standing_says_its_own_words(tmp_path):
    data = _ambush_with(tmp_path, 'fn pbem.standing(c) = c.status != "dead"\npbem.survival = "not dead at the end"\n')
    assert data["survival"] == "not dead at the end"


def test_rules_that_say_nothing_get_the_general_words(tmp_path):
    (tmp_path / "tiny.mech").write_text(
        "kind Bot { state hp = 1 }\n"
        "fn standing(c) = c.hp > 0\n"
        "fn fight(enc) {\n    enc.round = 1\n    return none\n}\n", encoding="utf-8")
    script = tmp_path / "fight.mech"
    script.write_text('use tiny\ncharacter A is Bot { }\ncharacter B is Bot { }\n'
                      'encounter "e" {\n    side a: A\n    side b: B\n}\n', encoding="utf-8")
    ran = mech_forked(["sim", str(script), "-n", "2", "--seed", "1", "--jobs", "1", "--json"], tmp_path)
    assert ran.code == 0, ran.err
    assert json.loads(ran.out)["survival"] == "standing at the end, by the rules' `standing`"
