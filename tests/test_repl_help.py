"""The REPL for a user coming from Python's (issue 21, item 5), driven on a terminal as
tests/test_repl.py drives it: `quit`, `exit` and `help` as Python takes them; `:help` of the dice
notation, of the built-ins and of a kind's fields; completions that say what each name is; `_`, the
last value; the internal modules not offered after `use`."""

from __future__ import annotations

import re

from test_repl import CTRL_C, CTRL_D, ENTER, TAB, Terminal

SPARKPLUG = ("character Sparkplug is Transformer { strength 5  intelligence 6  speed 6  endurance 5  rank 4  "
             "courage 6  firepower 3  skill 6 }" + ENTER)


def test_quit_and_exit_leave_as_in_python():
    for word in ("quit", "exit", "exit()", "quit()"):
        terminal = Terminal()
        printed = terminal.run("1 + 1" + ENTER, word + ENTER)  # nothing after it: the REPL must end by itself
        assert terminal.exit_code == 0 and "2" in printed
        assert not any("unknown" in line for line in printed), word


def test_a_name_the_session_defines_is_its_own():
    # `quit` is only the REPL's while the session has no name `quit`
    terminal = Terminal()
    printed = terminal.run("let quit = 5" + ENTER, "quit + 1" + ENTER, "quit" + ENTER, ":quit" + ENTER)
    assert terminal.exit_code == 0
    assert "6" in printed and "5" in printed


def test_help_and_help_of_a_name_as_in_python():
    printed = Terminal().run("help" + ENTER, "help(floor)" + ENTER, 'help("kh")' + ENTER, CTRL_D)
    assert any(line.startswith("Type dice or mechscript.") for line in printed)
    assert "floor(x): round down: floor(7/2) is 3" in printed
    assert any(line.startswith("khN klN dhN dlN: keep the highest/lowest N") for line in printed)
    assert not any("unknown" in line for line in printed)


def test_help_of_the_notation():
    printed = Terminal().run(":help kh" + ENTER, ":help explode" + ENTER, ":help notation" + ENTER, CTRL_D)
    keep = [line for line in printed if line.startswith("khN klN dhN dlN")]
    assert keep and "4d6kh3" in keep[0]
    assert any(line.startswith("!: explode: each die showing its highest face adds a new die") for line in printed)
    at = printed.index("The dice notation (modifiers chain left to right without spaces: 4d6r1kh3, 6d10!c>=8f1;")
    table = printed[at:at + 20]
    for form in ("NdS, dS:", "d%:", "dF:", "khN klN", "!!:", "!p:", "rN r<N", "miN maN", "c>=N", "f<=N", "XkY:"):
        assert any(line.startswith(f"  {form}") for line in table), form


def test_help_lists_the_built_in_functions():
    printed = Terminal().run(":help functions" + ENTER, CTRL_D)
    at = printed.index("The built-in functions (`:help NAME` for one):")
    listed = [line.split("(")[0].strip() for line in printed[at + 1:] if line.startswith("  ")]
    from mechscript.interpreter.builtins import BUILTINS
    assert set(BUILTINS) <= set(listed)


def test_help_of_a_kind_lists_its_fields_with_ranges_and_defaults():
    printed = Terminal().run("use transformers" + ENTER, ":help Transformer" + ENTER, CTRL_D)
    assert "kind Transformer: a kind of module `transformers` (transformers.mech:344)" in printed or \
        any(re.fullmatch(r"kind Transformer: a kind of module `transformers` \(transformers\.mech:\d+\)", line)
            for line in printed)
    fields = {line.split()[1]: line for line in printed if re.match(r"  (stat|derived|state|gear) ", line)}
    assert re.fullmatch(r"  stat +strength +1 to 10, required", fields["strength"])
    assert re.fullmatch(r'  stat +mode +one of \["robot", "beast", "vehicle", "object"\], default "robot"',
                        fields["mode"])
    assert re.fullmatch(r"  stat +mega +0 to 10, default 0", fields["mega"])
    assert re.fullmatch(r"  derived +size += strength", fields["size"])
    assert re.fullmatch(r'  state +status += "active"', fields["status"])
    assert re.fullmatch(r"  gear +armament +a list of Armament \(`armament NAME \{ \.\.\. \}`\)", fields["armament"])


def test_help_of_a_kind_of_the_session():
    printed = Terminal().run("kind Robot { stat speed 1..10; stat arm [\"gun\", \"claw\"] = \"gun\"; state hp = 5 }"
                             + ENTER, ":help Robot" + ENTER, CTRL_D)
    at = printed.index("kind Robot: a kind of this session, with these fields:")
    assert printed[at + 1:at + 4] == ["  stat    speed  1 to 10, required",
                                      '  stat    arm    one of ["gun", "claw"], default "gun"',
                                      "  state   hp     = 5"]


def menu_of(terminal: Terminal, screens: list) -> list[tuple[str, str]]:
    """The completion menu on the last screen looked at: (completion, what it is) a line."""
    found = []
    for line in screens[-1]:
        cells = line.split()
        if len(cells) >= 2 and cells[-1] in ("stat", "derived", "state", "gear", "own", "rule", "option", "kind",
                                               "table", "module", "character", "field", "variable", "function"):
            found.append((cells[-2], cells[-1]))
    return found


def test_completion_says_what_a_character_s_names_are():
    terminal, screens = Terminal(), []
    terminal.run("use transformers" + ENTER, SPARKPLUG, ("Sparkplug.s" + TAB, "derived"),
                 lambda: screens.append(terminal.display()), CTRL_C,
                 ("Sparkplug.si" + TAB, "own"), lambda: screens.append(terminal.display()), CTRL_C,
                 ("Sparkplug.a" + TAB, "gear"), lambda: screens.append(terminal.display()), CTRL_C, CTRL_D)
    menu = dict(menu_of(terminal, screens[:1]))
    assert menu["strength"] == "stat" and menu["speed"] == "stat" and menu["skill"] == "stat"
    assert menu["size"] == "derived" and menu["status"] == "state"
    assert dict(menu_of(terminal, screens[1:2])) == {"side": "own", "size": "derived"}
    assert dict(menu_of(terminal, screens[2:])) == {"advantage": "gear", "afflicted": "state", "against": "state",
                                                      "armament": "gear"}


def test_completion_says_what_a_module_s_names_are():
    terminal, screens = Terminal(), []
    terminal.run("use transformers" + ENTER, ("transformers.fa" + TAB, "option"),
                 lambda: screens.append(terminal.display()), CTRL_C,
                 ("transformers.Tr" + TAB, "kind"), lambda: screens.append(terminal.display()), CTRL_C, CTRL_D)
    assert dict(menu_of(terminal, screens[:1])) == {"fatigue_roll": "option", "fatigued": "rule",
                                                      "fall": "rule", "fall_actions": "rule", "fall_time": "option",
                                                      "falls_pass": "rule"}
    assert dict(menu_of(terminal, screens[1:])) == {"Trait": "kind", "Transformer": "kind"}


def test_completion_says_a_module_s_rules_and_options_unqualified_too():
    terminal, screens = Terminal(), []
    terminal.run("use transformers" + ENTER, ("fatigu" + TAB, "option"), lambda: screens.append(terminal.display()),
                 CTRL_C, CTRL_D)
    assert dict(menu_of(terminal, screens)) == {"fatigue_roll": "option", "fatigued": "rule"}


def test_use_does_not_offer_the_internal_modules():
    terminal, screens = Terminal(), []
    terminal.run(("use " + TAB, "module"), lambda: screens.append(terminal.display()), CTRL_C, CTRL_D)
    offered = [name for name, what in menu_of(terminal, screens) if what == "module"]
    assert {"pbem", "transformers", "robomacs", "neojove"} <= set(offered)
    assert "fights" not in offered
    # it is still there for the rules modules that use it
    printed = Terminal().run("use fights" + ENTER, "fights.plural(2)" + ENTER, CTRL_D)
    assert not any("no module" in line for line in printed)


def test_underscore_is_the_last_value():
    printed = Terminal().run(":seed 7" + ENTER, "4d6kh3" + ENTER, "_ + 100" + ENTER, 'say "x"' + ENTER,
                             "_ * 2" + ENTER, CTRL_D)
    assert "4d6kh3: 3 (1) 3 5 = 11" in printed
    assert "111" in printed and "222" in printed  # `say` shows no value: `_` stays 111
