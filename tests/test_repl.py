"""The REPL as a user drives it (issue 8).

On a terminal: the prompt_toolkit application reads keys from prompt_toolkit's pipe input and draws
to a vt100 output kept in a buffer; the tests type as a user would (Enter is `\\r`, Tab `\\t`,
Ctrl-C `\\x03`, Ctrl-D `\\x04`, Up `\\x1b[A`) and read what the screen was sent.
From a pipe: `mech` with standard input not a terminal, in-process through the CLI's main and once
as a real subprocess; and the README's transcript, replayed.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyte
from prompt_toolkit.data_structures import Size
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

import mechscript
from mechscript import cli
from mechscript.repl.app import TerminalRepl
from mechscript.repl.commands import Commands
from mechscript.repl.history import HISTORY_VARIABLE, open_history

from support import MECH, deadline

ROOT = Path(__file__).resolve().parent.parent
ENTER, TAB, CTRL_C, CTRL_D, UP = "\r", "\t", "\x03", "\x04", "\x1b[A"
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")
ROWS, COLUMNS = 30, 120


class Terminal:
    """The REPL on a pipe input and a vt100 output into a buffer, which a terminal emulator (pyte)
    also reads to keep the screen as a user sees it. `keys` are typed in order; a (keys, text) step
    waits until `text` shows on the screen before the next keys are typed (a completion or the
    history is applied by the event loop after the key that asked for it); a callable step is
    called there (to look at the screen)."""

    def __init__(self, history=None, seed: int = 1):
        self.buffer = io.StringIO()
        self.output = Vt100_Output(self.buffer, lambda: Size(rows=ROWS, columns=COLUMNS), term="xterm-256color")
        self.history = history if history is not None else InMemoryHistory()
        self.seed = seed
        self.exit_code = None
        self.emulator = pyte.Screen(COLUMNS, ROWS)
        self.stream, self.fed = pyte.Stream(self.emulator), 0
        self.lock = threading.Lock()

    def text(self) -> str:
        """Everything sent to the screen, as text: escapes removed, lines ended by \\n. Lines the
        REPL printed are whole in it; the prompt's are redrawn in pieces."""
        return _ESCAPES.sub("", self.buffer.getvalue()).replace("\r\n", "\n")

    def display(self) -> list[str]:
        """The screen now, line by line."""
        with self.lock:
            sent = self.buffer.getvalue()
            self.stream.feed(sent[self.fed:])
            self.fed = len(sent)
            return [line.rstrip() for line in self.emulator.display]

    def run(self, *steps) -> list[str]:
        """Types the steps; the lines the REPL printed."""
        failures = []
        with create_pipe_input() as pipe:
            def type_keys():
                for step in steps:
                    if callable(step):  # a look at the screen at this point
                        step()
                        continue
                    keys, wait_for = step if isinstance(step, tuple) else (step, None)
                    pipe.send_text(keys)
                    if wait_for is not None and not self._shows(wait_for):
                        failures.append(f"never showed {wait_for!r}")
                        pipe.send_text(CTRL_C + CTRL_D)
                        return
            typist = threading.Thread(target=type_keys, daemon=True)
            typist.start()
            with deadline(60):
                self.exit_code = TerminalRepl(Commands(self.seed), self.history, input=pipe, output=self.output).run()
            typist.join(5)
        assert not failures, failures[0] + "\n" + "\n".join(self.display())
        return [line.rstrip() for line in self.text().split("\n")]

    def _shows(self, text: str, timeout: float = 10) -> bool:
        give_up = time.monotonic() + timeout
        while time.monotonic() < give_up:
            if any(text in line for line in self.display()):
                return True
            time.sleep(0.01)
        return False


# ---- on a terminal (pipe input) ----

def test_a_definition_on_several_lines_then_a_call():
    terminal = Terminal()
    printed = terminal.run("fn double(x) {" + ENTER + "return x * 2" + ENTER + "}" + ENTER, "double(21)" + ENTER,
                           CTRL_D)
    assert "42" in printed
    assert not any("error" in line or "hint" in line for line in printed)
    screen = terminal.display()  # the definition went on to continuation lines, indented while open
    at = screen.index("mech> fn double(x) {")
    assert screen[at + 1:at + 4] == ["  ...     return x * 2", "  ... }", "mech> double(21)"]


def test_a_block_goes_on_while_open_and_its_brace_goes_back():
    terminal = Terminal()
    printed = terminal.run("let total = 0" + ENTER, "for i in [1, 2, 3] {" + ENTER + "total += i" + ENTER + "}" + ENTER,
                           "total" + ENTER, CTRL_D)
    assert "6" in printed
    assert "  ... }" in terminal.display()


def test_a_roll_shows_its_dice_kept_emphasised_and_dropped_dimmed():
    terminal = Terminal()
    printed = terminal.run(":seed 7" + ENTER, "4d6kh3" + ENTER, CTRL_D)
    expected = mechscript.roll("4d6kh3", seed=7).text  # `:seed N` rolls as `mech roll --seed N`
    assert expected == "4d6kh3: 3 (1) 3 5 = 11"
    assert expected in printed
    sent = terminal.buffer.getvalue()
    assert "\x1b[0;1m3\x1b[0m \x1b[0;2m(1)\x1b[0m \x1b[0;1m3\x1b[0m \x1b[0;1m5\x1b[0m" in sent  # bold kept, dim dropped


def test_an_error_then_a_good_line_that_sees_the_earlier_definitions():
    printed = Terminal().run("let bonus = 3" + ENTER, "fn hit(x) = x + bonus" + ENTER, "hti(2)" + ENTER,
                             "hit(2) +" + ENTER, "hit(4)" + ENTER, CTRL_D)
    at = printed.index("<repl>:1:1: unknown function `hti`")
    assert printed[at + 1:at + 4] == ["  hti(2)", "  ^~~", "  hint: did you mean `hit`?"]
    assert any(line.startswith("<repl>:1:") and "ends too early" in line for line in printed[at:])
    assert "7" in printed[at:]


def test_a_line_of_a_negative_number_at_the_prompt_shows_it_and_one_in_a_block_is_refused():
    # at the prompt a line is shown; in a script or a block a line `- x` alone is a sum cut in two
    printed = Terminal().run("-3" + ENTER, "fn f(x) {" + ENTER + "- x" + ENTER + "}" + ENTER, CTRL_D)
    assert "-3" in printed
    assert any("this line is only `- ...`: its value is dropped" in line for line in printed)


def test_a_runaway_loop_stops_at_its_limit_and_the_session_goes_on():
    printed = Terminal().run("let n = 0" + ENTER, "while true { n += 1 }" + ENTER, "n > 0" + ENTER, CTRL_D)
    assert any("the limit `loop_iterations` is 100000" in line for line in printed)
    assert "true" in printed


def test_completion_of_a_prefix():
    printed = Terminal().run("let punch_bonus = 3" + ENTER, ("punch_b" + TAB, "mech> punch_bonus"), ENTER, CTRL_D)
    assert "3" in printed
    assert not any("unknown name" in line for line in printed)


def test_completion_lists_every_name_that_fits():
    terminal, screens = Terminal(), []
    terminal.run("let punch_bonus = 3" + ENTER, "let punch_rank = 2" + ENTER, ("punch_" + TAB, "variable"),
                 lambda: screens.append(terminal.display()), CTRL_C, CTRL_D)
    menu = [line for line in screens[0] if "variable" in line]  # each name, and what it is
    assert [line.split()[-2] for line in menu] == ["punch_bonus", "punch_rank"]


def test_the_bracket_matching_the_one_just_closed_is_highlighted():
    terminal, screens = Terminal(), []
    def look():
        row = terminal.display().index("mech> max(1, 2)")
        screens.append(dict(terminal.emulator.buffer[row]))
    terminal.run(("max(1, 2)", "mech> max(1, 2)"), look, CTRL_C, CTRL_D)
    cells = screens[0]
    opening, closing, other = cells[len("mech> max")], cells[len("mech> max(1, 2")], cells[len("mech> m")]
    assert (opening.data, closing.data) == ("(", ")")
    assert opening.bg != "default" and other.bg == "default"


def test_completion_of_modules_after_use_and_of_a_characters_stats():
    kind = "kind Robot { stat speed 1..10; stat skill 1..10; state hp = 5 }" + ENTER
    printed = Terminal().run(("use pb" + TAB, "mech> use pbem"), ENTER, kind,
                             "character Punch is Robot { speed 4; skill 7 }" + ENTER,
                             ("Punch.sk" + TAB, "mech> Punch.skill"), ENTER, CTRL_D)
    assert not any("no module" in line or "unknown" in line for line in printed)
    assert "7" in printed


def test_completion_of_a_rolls_fields():
    printed = Terminal().run("let r = 3d6" + ENTER, ("r.fa" + TAB, "mech> r.faces"), ENTER, CTRL_D)
    assert not any("no field" in line or "unknown" in line for line in printed)


def test_completion_of_words_and_commands():
    printed = Terminal().run(("let n = 0; whi" + TAB, "mech> let n = 0; while"), " n < 3 { n += 1 }; n" + ENTER,
                             (":se" + TAB, "mech> :seed"), " 3" + ENTER, CTRL_D)
    assert "3" in printed and "seed 3" in printed
    assert not any("unknown" in line or "unexpected" in line for line in printed)


def test_ctrl_c_cancels_the_line_and_ctrl_d_leaves():
    terminal = Terminal()
    printed = terminal.run("let x = 1/0" + CTRL_C, "1 + 1" + ENTER, CTRL_D)
    assert not any("division by zero" in line for line in printed)
    assert "2" in printed
    assert terminal.exit_code == 0


def test_quit_leaves():
    terminal = Terminal()
    terminal.run(":quit" + ENTER)  # nothing after it: the REPL must end by itself
    assert terminal.exit_code == 0


def test_history_is_reloaded_in_a_new_session(tmp_path, monkeypatch):
    monkeypatch.setenv(HISTORY_VARIABLE, str(tmp_path / "history"))
    Terminal(open_history()[0]).run("40 + 2" + ENTER, CTRL_D)
    printed = Terminal(open_history()[0]).run((UP, "mech> 40 + 2"), ENTER, CTRL_D)  # a new session and history
    assert "42" in printed


def test_history_that_cannot_be_kept_still_lets_the_repl_start(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(HISTORY_VARIABLE, str(blocker / "history"))  # under a file: cannot be made
    history, note = open_history()
    assert "history not kept" in note
    assert "2" in Terminal(history).run("1 + 1" + ENTER, CTRL_D)


def test_help_and_help_for_a_builtin_and_a_rule():
    printed = Terminal().run(":help" + ENTER, ":help floor" + ENTER, "use pbem" + ENTER, ":help attack" + ENTER, CTRL_D)
    assert any(line.startswith("  :seed [N]") for line in printed)
    assert "floor(x): round down: floor(7/2) is 3" in printed
    assert any(line.startswith("fn attack(att, def, weapon, enc): a function of module `pbem` (pbem.mech:")
               for line in printed)


# ---- from a pipe ----

def pipe(text: str, *args: str, monkeypatch, capsys) -> tuple[int, str, str]:
    """`mech ARGS` with `text` on standard input (not a terminal), through the CLI's main."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_pipe_mode_answers_lines_plainly(monkeypatch, capsys):
    code, out, err = pipe("fn double(x) {\n  return x * 2\n}\ndouble(4)\n:seed 7\n4d6kh3\nlet y = 1 \\\n  + 2\ny\n",
                          monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out, err) == (0, "8\nseed 7\n4d6kh3: 3 (1) 3 5 = 11\n3\n", "")


def test_pipe_mode_errors_go_to_standard_error_and_the_session_goes_on(monkeypatch, capsys):
    code, out, err = pipe("let x = 2\nx +* 3\nx * 3\n", "repl", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1  # an entry failed
    assert out == "6\n"
    assert err.split("\n")[:4] == ["<repl>:1:4: unexpected `*`", "  x +* 3", "     ^", err.split("\n")[3]]
    assert err.split("\n")[3].startswith("  hint: expected ")


def test_a_name_defined_again_replaces_the_old_one(monkeypatch, capsys):
    code, out, err = pipe("fn hit(x) = x + 1\nlet y = hit(1)\nfn hit(x) = x * 10\nhit(2)\nlet y = 5\ny\n"
                          "fn twice() = hit(1) + hit(1)\ntwice()\n", monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out, err) == (0, "20\n5\n20\n", "")


def test_a_failed_entry_leaves_the_session_as_it_was(monkeypatch, capsys):
    code, out, err = pipe("let x = 2\nlet x = 3; let x = 4\nlet y = oops\nx\ny\n", monkeypatch=monkeypatch,
                          capsys=capsys)
    assert code == 1 and out == "2\n"
    assert "`x` is already defined in this block" in err and "unknown name `oops`" in err
    assert "<repl>:1:1: unknown name `y`" in err


def test_the_seed_option_and_the_seed_command(monkeypatch, capsys):
    code, out, _ = pipe("3d6\n:seed\n:seed 5\n3d6\n:seed five\n", "repl", "--seed", "5", monkeypatch=monkeypatch,
                        capsys=capsys)
    roll = mechscript.roll("3d6", seed=5).text
    assert code == 1 and out == f"{roll}\nseed 5\nseed 5\n{roll}\n"


def test_a_roll_made_in_a_function_or_kept_in_a_name_shows_its_dice(monkeypatch, capsys):
    code, out, err = pipe(":seed 7\nfn stat() = 4d6kh3\nstat()\nlet kept = 4d6kh3\nkept\n",
                          monkeypatch=monkeypatch, capsys=capsys)
    first, second = mechscript.roll_many("4d6kh3", 2, seed=7)
    assert (code, err) == (0, "")
    assert out == f"seed 7\nstat() [{first.text.split(': ')[1].split(' = ')[0]}] = {first.total}\n" \
                  f"kept [{second.text.split(': ')[1].split(' = ')[0]}] = {second.total}\n"


def test_say_and_values_come_out_in_the_order_they_happen(monkeypatch, capsys):
    code, out, _ = pipe('say "first"; 1 + 1; say "last"\n', monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out) == (0, "first\n2\nlast\n")


def test_load_a_file_and_run_its_encounter_again_and_again(tmp_path, monkeypatch, capsys):
    script = tmp_path / "ambush.mech"
    script.write_text(_readme_fight(), encoding="utf-8")
    ran = cli.main(["run", str(script), "--seed", "1"])
    fought = capsys.readouterr().out
    assert ran == 0 and "Result: " in fought
    code, out, err = pipe(f":load {script}\nPunch\n:seed 1\n:run\n:seed 1\n:run\nPunch\n",
                          monkeypatch=monkeypatch, capsys=capsys)
    assert (code, err) == (0, "")
    punch = out.split("\n")[1]
    assert punch.startswith("Punch (a Transformer): ")
    # :run fights as `mech run` does, from the same start each time; the characters stay as declared
    assert out == f"loaded {script}\n{punch}\nseed 1\n{fought}seed 1\n{fought}{punch}\n"


def test_run_without_an_encounter_and_unknown_commands(monkeypatch, capsys):
    code, out, err = pipe(":run\n:sede 3\n:load nowhere.mech\n", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1 and out == ""
    assert err.startswith("this session has no encounter\n")
    assert "unknown command `:sede`\n  hint: did you mean `:seed`?" in err
    assert "no such file: nowhere.mech" in err


def test_reset_forgets_the_names(monkeypatch, capsys):
    code, out, err = pipe("let x = 1\n:reset\nx\n", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1 and out.startswith("a new session, seed ")
    assert "unknown name `x`" in err


def test_prob(monkeypatch, capsys):
    code, out, err = pipe(":prob 2d6 >= 8\nlet skill = 7\nprob(d10 + skill >= 15)\n:prob d10 + skill >= 15\n",
                          monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1
    assert "5/12" in out and out.endswith("\n3/10\n")  # :prob's chart, then prob(...) with a name of the session
    assert err.split("\n")[0] == "<expr>:1:7: unknown name `skill`"
    assert "type prob(d10 + skill >= 15)" in err


def test_the_real_command_in_a_pipe():
    """`mech` itself, as a subprocess, reading a multi-line block from a pipe."""
    source = "fn hit(skill) {\n    return d20 + skill >= 15\n}\n:seed 3\nhit(4)\nhit(\n  40)\n"
    ran = subprocess.run([MECH], input=source, capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stderr) == (0, "")
    first = mechscript.roll("d20 + 4 >= 15", seed=3).total
    assert ran.stdout == f"seed 3\n{str(first).lower()}\ntrue\n"


# ---- the README's transcript ----

def _readme_blocks() -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.DOTALL)


def _readme_fight() -> str:
    return next(block for block in _readme_blocks() if block.startswith("use pbem"))


def test_the_readme_transcript(monkeypatch, capsys):
    """The README's REPL transcript: lines after `mech> ` and `  ... ` are typed, the others are
    what is printed."""
    block = next(block for block in _readme_blocks() if block.startswith("$ mech\nmech> "))
    typed, printed = [], []
    for line in block.splitlines()[1:]:
        prompt = next((p for p in ("mech> ", "  ... ") if line.startswith(p)), None)
        (typed if prompt else printed).append(line[len(prompt):] if prompt else line)
    monkeypatch.setattr(sys, "stderr", sys.stdout)  # as on a terminal: errors in their place among the answers
    _, out, _ = pipe("\n".join(typed) + "\n", monkeypatch=monkeypatch, capsys=capsys)
    assert out.splitlines() == printed


def test_a_long_entry_is_lexed_once_not_again_at_each_line(monkeypatch, capsys):
    # `(` then N lines of `1 +`: each line re-lexed the whole entry to count its brackets, so the
    # work grew with N squared (4,000 lines took 62 s). Counted here in characters lexed.
    from mechscript.repl import lexer
    lexed = [0]
    tokens = lexer.grammar_tokens

    def counting(text):
        lexed[0] += len(text)
        return tokens(text)
    monkeypatch.setattr(lexer, "grammar_tokens", counting)
    lines = 2_000
    text = "len([\n" + "1,\n" * lines + "1])\n(1 +\n2)\n[3,\n 4]\n"
    code, out, err = pipe(text, monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out, err) == (0, f"{lines + 1}\n3\n[3, 4]\n", "")
    assert lexed[0] < 3 * len(text)


def test_the_lexer_of_the_brackets_is_built_once(monkeypatch, capsys):
    # lark's lex(text, dont_ignore=True) built a new lexer at each call, a few milliseconds: two
    # calls a line, so `(` and 4,000 lines of `1 +` still took 6 s. Counted in lexers built.
    from lark import Lark
    built, build = [0], Lark._build_lexer

    def counting(self, *args, **kwargs):
        built[0] += 1
        return build(self, *args, **kwargs)
    monkeypatch.setattr(Lark, "_build_lexer", counting)
    code, out, err = pipe("(1 +\n" + "1 +\n" * 100 + "1)\n", monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out, err) == (0, "102\n", "")
    assert built[0] <= 1  # none when an earlier entry built it


def test_the_brackets_of_an_entry_edited_or_another_are_counted_afresh():
    from mechscript.repl.lexer import needs_more, open_brackets
    assert open_brackets("f(1,\n  [2,\n") == 2
    assert open_brackets("f(1,\n  [2,\n   3]") == 1      # the same entry, grown
    assert open_brackets("f(1,\n  [2]\n") == 1          # edited in a line before the last
    assert open_brackets("x\n") == 0                      # another entry
    assert open_brackets('say "(\n') == 0 and open_brackets("# (\n") == 0   # a string, a comment
    assert needs_more("let y = 1 \\\n") and not needs_more(":help (\n") and needs_more("{\n\n")
