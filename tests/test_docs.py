"""Every example of the documentation runs, and prints what the documentation says it prints.

How the examples are run (docs/language.md says the same to its readers):

- docs/language.md: every ```mech block is a whole script. It is saved as `example.mech` in a folder
  `docs/` that sits beside a copy of `examples/`, and run from that folder as
  `mech run example.mech --seed 1 --path ../examples`, so `use duel` finds the module just as it
  does for a reader who saves the block in the real docs/ folder. It must succeed; when an ```output block follows it
  (nothing but blank lines between), what `mech run` prints must be exactly that block.
  A ```mech-error block must fail with exit status 1, and the ```output block after it (required)
  holds everything the terminal shows: the lines said before the error, then the error message.
- ```console blocks of docs/language.md (run from docs/), README.md, docs/robomacs.md,
  docs/neojove.md, docs/transformers.md and docs/pbem.md (run from the repository's root): each `$ mech ...` line is a command; the lines
  after it, up to the next `$` line, are what it prints (standard output, then standard error). When
  they end with a line `...`, they are the first lines of what it prints (a long fight), and it must
  succeed. A command with no lines after it must succeed.
- docs/pbem.md's ```mech blocks are whole scripts ("save this as `example.mech`"): each is saved as
  `example.mech` in a new, empty folder, and the `$ mech ...` lines of the ```console blocks after it
  (up to the next ```mech block) that name `example.mech` run in that folder, as above. A block that
  no command names must pass `mech run example.mech --seed 1`, printing nothing (a sheet without an
  encounter).
- README.md's ```mech blocks: each is saved in a new, empty folder and run like a doc example (a
  reader saves them anywhere). The README's JSON shapes are the keys the commands give.
- examples/: every script runs with `mech run FILE --seed 1` (the real command, in a subprocess) and
  exits 0. A module, a file that another example `use`s, only defines rules: it is checked with
  `mech check FILE` instead.

The documentation's examples run in-process through `mechscript.cli.main`, the function behind the
`mech` command (a fresh Python per example would take a minute); one test runs an example through
the real command as well, to show the two agree.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from mechscript import cli

from support import MECH

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGE = DOCS / "language.md"
README = ROOT / "README.md"
MODULE_DOCS = [DOCS / "robomacs.md", DOCS / "neojove.md", DOCS / "transformers.md", DOCS / "pbem.md"]
SCRIPT_DOCS = [DOCS / "pbem.md"]   # module docs whose ```mech blocks are whole scripts, saved as example.mech
EXAMPLES = ROOT / "examples"


SEED = "1"
SCRIPT_NAME = "example.mech"  # the name a doc example is saved under; its errors show this name
SCRIPT_KINDS = ("mech", "mech-error")


# ---- reading Markdown ----

@dataclass
class Block:
    kind: str        # the fence's language: mech, mech-error, output, console, ...
    text: str
    line: int        # line of the opening fence, 1-based
    end: int         # line of the closing fence
    output: "Block | None" = None

    @property
    def id(self) -> str:
        return f"line {self.line}"


_FENCE = re.compile(r"^```\s*([\w-]*)")


def fenced_blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file, in order; an ```output block right after a
    script block (only blank lines between) is attached to it as its `output`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start = i
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            i += 1
        assert i < len(lines), f"{path.name}:{start + 1}: a code block is never closed"
        blocks.append(Block(match.group(1), "\n".join(lines[start + 1:i]) + "\n", start + 1, i + 1))
        i += 1
    for previous, block in zip(blocks, blocks[1:]):
        between = lines[previous.end:block.line - 1]
        if previous.kind in SCRIPT_KINDS and block.kind == "output" and not any(s.strip() for s in between):
            previous.output = block
    return blocks


def doc_scripts() -> list[Block]:
    return [b for b in fenced_blocks(LANGUAGE) if b.kind in SCRIPT_KINDS] if LANGUAGE.exists() else []


def console_commands(path: Path, blocks: list[Block] | None = None) -> list[tuple[str, str, list[str] | None]]:
    """(where, command, expected lines or None) for each `$ mech ...` line of the ```console blocks
    (of `blocks`, when given: some of the file's)."""
    commands = []
    for block in fenced_blocks(path) if blocks is None else blocks:
        if block.kind != "console":
            continue
        lines = block.text.splitlines()
        for n, line in enumerate(lines):
            if not line.startswith("$ mech"):
                continue
            expected = []
            for following in lines[n + 1:]:
                if following.startswith("$"):
                    break
                expected.append(following)
            commands.append((f"{path.name}:{block.line + 1 + n}", line[2:], expected or None))
    return commands


# ---- running ----

def mech(argv: list[str], cwd: Path) -> tuple[int, str]:
    """`mech ARGV` run in-process from `cwd`: (exit status, standard output then standard error)."""
    out, err = io.StringIO(), io.StringIO()
    saved = os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = cli.main(argv)
            except SystemExit as exit_:  # argparse's usage errors
                status = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        os.chdir(saved)
    return status, out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    """A `docs/` folder beside a copy of `examples/`, where doc examples are saved and run."""
    root = tmp_path_factory.mktemp("docs_examples")
    if EXAMPLES.exists():
        shutil.copytree(EXAMPLES, root / "examples")
    (root / "docs").mkdir()
    return root / "docs"


@pytest.fixture(scope="module")
def examples_copy(sandbox: Path) -> Path:
    return sandbox.parent / "examples"


DOC_MODULES = ["--path", "../examples"]  # where a language.md example's `use duel` finds the module


def run_doc_script(block: Block, folder: Path, options: tuple = ()) -> tuple[int, str]:
    (folder / SCRIPT_NAME).write_text(block.text, encoding="utf-8")
    return mech(["run", SCRIPT_NAME, "--seed", SEED, *options], folder)


def checks_as_it_runs(block: Block, folder: Path, printed: str, options: tuple = ()) -> None:
    """`mech check` of the saved example: "ok" for one that runs, and for one that fails either "ok"
    (its error comes after a die) or exactly the error `mech run` ends with (issue 21, item 3)."""
    status, checked = mech(["check", SCRIPT_NAME, *options], folder)
    if status == 0:
        assert checked == f"{SCRIPT_NAME}: ok\n", checked
    else:
        assert status == 1 and block.kind == "mech-error", f"`mech check` of {where(block)} fails:\n{checked}"
        assert printed.endswith(checked), f"`mech check` of {where(block)} gives another error:\n{checked}"


def where(block: Block) -> str:
    return f"docs/language.md line {block.line}"


# ---- docs/language.md ----

def test_the_language_reference_has_examples():
    assert LANGUAGE.exists(), "docs/language.md is missing"
    scripts = doc_scripts()
    assert len(scripts) >= 40, f"only {len(scripts)} examples in docs/language.md"
    assert any(b.kind == "mech-error" for b in scripts)


def test_every_block_is_a_known_kind_and_outputs_follow_scripts():
    blocks = fenced_blocks(LANGUAGE)
    attached = {id(b.output) for b in blocks if b.output is not None}
    for block in blocks:
        assert block.kind in (*SCRIPT_KINDS, "output", "console", "sh", "text", "python"), \
            f"docs/language.md line {block.line}: unknown block kind `{block.kind}` (a typo would skip a test)"
        if block.kind == "output":
            assert id(block) in attached, f"docs/language.md line {block.line}: an output block with no script right before it"
        if block.kind == "mech-error":
            assert block.output is not None, f"{where(block)}: a mech-error block needs the error it shows"


@pytest.mark.parametrize("block", [b for b in doc_scripts() if b.kind == "mech"], ids=lambda b: b.id)
def test_doc_example_runs(block: Block, sandbox: Path):
    status, printed = run_doc_script(block, sandbox, DOC_MODULES)
    assert status == 0, f"{where(block)} fails:\n{printed}"
    checks_as_it_runs(block, sandbox, printed, DOC_MODULES)
    if block.output is not None:
        assert printed.splitlines() == block.output.text.splitlines(), \
            f"{where(block)} prints something else than its output block:\n{printed}"
    else:
        assert printed == "", f"{where(block)} prints lines but has no output block after it:\n{printed}"


@pytest.mark.parametrize("block", [b for b in doc_scripts() if b.kind == "mech-error"], ids=lambda b: b.id)
def test_doc_error_example_fails_as_shown(block: Block, sandbox: Path):
    status, printed = run_doc_script(block, sandbox, DOC_MODULES)
    assert status == 1, f"{where(block)} should fail with exit status 1, not {status}:\n{printed}"
    checks_as_it_runs(block, sandbox, printed, DOC_MODULES)
    assert printed.splitlines() == block.output.text.splitlines(), \
        f"{where(block)} shows another error than its output block:\n{printed}"


def test_the_real_command_prints_what_the_in_process_run_prints(sandbox: Path):
    block = next(b for b in doc_scripts() if b.kind == "mech" and b.output is not None and "use " in b.text)
    (sandbox / SCRIPT_NAME).write_text(block.text, encoding="utf-8")
    done = subprocess.run([MECH, "run", SCRIPT_NAME, "--seed", SEED, *DOC_MODULES], cwd=sandbox, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == block.output.text.splitlines()


# ---- console examples of the docs and the README ----

SAVED_SCRIPT = "example.mech"   # the name a module doc's whole script is saved under


def names_saved_script(command) -> bool:
    return SAVED_SCRIPT in shlex.split(command[1])


CONSOLE = [(DOCS, c) for c in (console_commands(LANGUAGE) if LANGUAGE.exists() else [])] + \
          [(ROOT, c) for c in console_commands(README)] + \
          [(ROOT, c) for doc in MODULE_DOCS if doc.exists() for c in console_commands(doc)
           if not (doc in SCRIPT_DOCS and names_saved_script(c))]


@pytest.mark.parametrize("cwd, command", CONSOLE, ids=[c[0] for _, c in CONSOLE])
def test_console_example(cwd: Path, command):
    place, line, expected = command
    argv = shlex.split(line)
    assert argv[0] == "mech"
    status, printed = mech(argv[1:], cwd)
    if expected is None:
        assert status == 0, f"{place}: `{line}` fails:\n{printed}"
    elif expected[-1] == "...":
        assert status == 0, f"{place}: `{line}` fails:\n{printed}"
        head = expected[:-1]
        assert printed.splitlines()[:len(head)] == head, f"{place}: `{line}` prints:\n{printed}"
    else:
        assert printed.splitlines() == expected, f"{place}: `{line}` prints:\n{printed}"


def saved_scripts(path: Path) -> list[tuple[Block, list]]:
    """Each ```mech block of a SCRIPT_DOCS page, with the commands after it that name example.mech."""
    blocks = fenced_blocks(path)
    scripts = []
    for n, block in enumerate(blocks):
        if block.kind != "mech":
            continue
        following = []
        for later in blocks[n + 1:]:
            if later.kind == "mech":
                break
            following.append(later)
        scripts.append((block, [c for c in console_commands(path, following) if names_saved_script(c)]))
    return scripts


SAVED = [(doc, block, commands) for doc in SCRIPT_DOCS if doc.exists() for block, commands in saved_scripts(doc)]


def test_the_pbem_page_has_whole_scripts_with_their_commands():
    assert (DOCS / "pbem.md").exists(), "docs/pbem.md is missing (issue 18, item 6)"
    assert sum(len(commands) for _, _, commands in SAVED) >= 2


@pytest.mark.parametrize("doc, block, commands", SAVED, ids=[f"{d.name}:{b.line}" for d, b, _ in SAVED])
def test_module_doc_script(doc: Path, block: Block, commands, tmp_path: Path):
    # saved in a new, empty folder as the page tells its reader, then run by the commands after it
    (tmp_path / SAVED_SCRIPT).write_text(block.text, encoding="utf-8")
    if not commands:
        status, printed = mech(["run", SAVED_SCRIPT, "--seed", SEED], tmp_path)
        assert (status, printed) == (0, ""), f"{doc.name} line {block.line}:\n{printed}"
    assert mech(["check", SAVED_SCRIPT], tmp_path) == (0, f"{SAVED_SCRIPT}: ok\n"), f"{doc.name} line {block.line}"
    for place, line, expected in commands:
        status, printed = mech(shlex.split(line)[1:], tmp_path)
        assert status == 0, f"{place}: `{line}` fails:\n{printed}"
        if expected is not None and expected[-1] == "...":
            head = expected[:-1]
            assert printed.splitlines()[:len(head)] == head, f"{place}: `{line}` prints:\n{printed}"
        elif expected is not None:
            assert printed.splitlines() == expected, f"{place}: `{line}` prints:\n{printed}"


README_SCRIPTS = [b for b in fenced_blocks(README) if b.kind in SCRIPT_KINDS]


@pytest.mark.parametrize("block", README_SCRIPTS, ids=lambda b: f"README.md:{b.line}")
def test_readme_script(block: Block, tmp_path: Path):
    # saved in a new, empty folder, as a reader who has only installed mechscript would (issue 21, item 7)
    status, printed = run_doc_script(block, tmp_path)
    assert status == (1 if block.kind == "mech-error" else 0), f"README.md line {block.line}:\n{printed}"
    checks_as_it_runs(block, tmp_path, printed)
    if block.output is not None:
        assert printed.splitlines() == block.output.text.splitlines(), f"README.md line {block.line} prints:\n{printed}"


# The JSON shapes README.md gives, each as written there, with a command whose JSON (at that path in it)
# has exactly those keys, no more and no fewer.
README_SHAPES = [
    ('`{"expr", "total", "text", "seed"}`', "roll 3d6 --seed 1 --json", ()),
    ('`{"expr", "totals", "texts", "seed"}`', "roll 3d6 -n 2 --seed 1 --json", ()),
    ('`{"log", "result", "seed"}`', "run examples/pbem_ambush.mech --seed 1 --json", ()),
    ('`"result": {"winner", "rounds", "characters"}`', "run examples/pbem_ambush.mech --seed 1 --json", ("result",)),
    ('`{"expr", "exact", "distribution": [[outcome, probability], ...], "mean", "sd", "truncated", "bound", '
     '"estimated"}`', "prob 2d6 --json", ()),
    ('`{"runs", "encounter", "seed", "winners", "rounds", "characters", "survival", "replays"}`',
     "sim examples/pbem_ambush.mech -n 20 --seed 1 --json --jobs 1", ()),
    ('`"winners": {side or "draw": {"count", "rate", "ci95"}}`',
     "sim examples/pbem_ambush.mech -n 20 --seed 1 --json --jobs 1", ("winners", "draw")),
    ('`"rounds": {"mean", "histogram"}`', "sim examples/pbem_ambush.mech -n 20 --seed 1 --json --jobs 1", ("rounds",)),
    ('`"replays": {"first", "longest"}`', "sim examples/pbem_ambush.mech -n 20 --seed 1 --json --jobs 1", ("replays",)),
    ('`"precision": {"target", "reached"}`', "sim examples/pbem_ambush.mech --precision 0.2 --seed 1 --json --jobs 1",
     ("precision",)),
    ('`{"encounter", "seed", "runs", "balance", "side", "target", "value", "rate", "ci95", "neighbours", "probes", '
     '"point"}`', "sim examples/pbem_ambush.mech --balance Punch.endurance -n 200 --seed 1 --json --jobs 1", ()),
    ('`"probes": [{"value", "runs", "rate"}]`',
     "sim examples/pbem_ambush.mech --balance Punch.endurance -n 200 --seed 1 --json --jobs 1", ("probes", 0)),
    ('`"longest": {"seed", "rounds"}`', "sim examples/pbem_ambush.mech -n 20 --seed 1 --json --jobs 1",
     ("replays", "longest")),
    ('`"characters": {name: {"survival_rate", "survival_ci95", "mean"}}`',
     "sim examples/pbem_ambush.mech -n 20 --seed 1 --json --jobs 1", ("characters", "Punch")),
    ('`"parameters": {"count", "skill", "rounds"}`',
     "sim examples/pbem_adventure.mech --encounter Drones -n 20 --seed 1 --json --jobs 1", ("parameters",)),
    ('`{"encounter", "seed", "runs", "vary", "points"}`',
     "sim examples/pbem_ambush.mech -n 20 --seed 1 --json --jobs 1 --vary Punch.skill=6,7", ()),
    ('`"points": [{"values", "runs", "winners", "rounds", "characters", "survival", "replays"}]`',
     "sim examples/pbem_ambush.mech -n 20 --seed 1 --json --jobs 1 --vary Punch.skill=6,7", ("points", 0)),
    ('`{"encounter", "seed", "runs", "base", "variants"}`',
     "compare examples/pbem_ambush.mech --rule examples/house_rules/tie_to_attacker.mech -n 20 --seed 1 --json --jobs 1", ()),
    ('`"difference": {side or "draw": {"from", "to", "change", "ci95", "unpaired_ci95", "gained", "lost", "real"}}`',
     "compare examples/pbem_ambush.mech --rule examples/house_rules/tie_to_attacker.mech -n 20 --seed 1 --json --jobs 1",
     ("variants", 0, "difference", "draw")),
]


@pytest.mark.parametrize("shape, command, path", README_SHAPES, ids=[s[0][:40] for s in README_SHAPES])
def test_readme_json_shapes_are_the_output_s(shape, command, path):
    readme = " ".join(README.read_text(encoding="utf-8").split())  # a shape may be wrapped over lines
    assert shape in readme, f"README.md no longer gives {shape}: change this test with it"
    status, printed = mech(shlex.split(command), ROOT)
    assert status == 0, printed
    data = json.loads(printed)
    for key in path:
        data = data[key]
    inner = shape.rsplit("{", 1)[1] if path else shape  # the innermost braces hold the keys of `path`
    assert set(re.findall(r'"(\w+)"', inner)) == set(data), f"README.md says {shape}; `mech {command}` gives {list(data)}"


# ---- examples/ ----

_USE = re.compile(r'^\s*use\s+(?:"([^"]+)"|([A-Za-z_]\w*))', re.MULTILINE)


def example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("*.mech")) if EXAMPLES.exists() else []


def modules() -> set[Path]:
    """The example files that other examples `use`: modules, which define rules but say nothing."""
    used = set()
    for path in example_files():
        for quoted, name in _USE.findall(path.read_text(encoding="utf-8")):
            used.add((path.parent / (quoted or f"{name}.mech")).resolve())
    return used


@pytest.fixture(scope="module")
def example_runs():
    """Every example's command, started at once in parallel; each test waits for its own."""
    module_paths = modules()
    started = {}
    for path in example_files():
        argv = ["check", path.name] if path.resolve() in module_paths else ["run", path.name, "--seed", SEED]
        titles = re.findall(r'^encounter "([^"]+)"', path.read_text(encoding="utf-8"), flags=re.M)
        if argv[0] == "run" and len(titles) > 1:  # an adventure: its first fight, as its comment runs it
            argv += ["--encounter", titles[0]]
        started[path.name] = (argv, subprocess.Popen([MECH, *argv], cwd=EXAMPLES, stdout=subprocess.PIPE,
                                                      stderr=subprocess.PIPE, text=True))
    results = {}
    for name, (argv, process) in started.items():
        out, err = process.communicate(timeout=300)
        results[name] = (argv, process.returncode, out, err)
    return results


def test_there_are_examples():
    names = {p.name for p in example_files()}
    for expected in ("odds_house_rule.mech", "task_chart.mech", "house_rule.mech", "duel.mech", "seven_sea.mech"):
        assert expected in names
    assert (EXAMPLES / "duel.mech").resolve() in modules()


@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.name)
def test_example_runs(path: Path, example_runs):
    argv, status, out, err = example_runs[path.name]
    assert status == 0, f"mech {' '.join(argv)} (in examples/) exits {status}:\n{out}{err}"
    assert out.strip(), f"mech {' '.join(argv)} prints nothing"
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"# {path.name}: "), f"{path.name} should start with a comment saying what it shows"
    if argv[0] == "run":
        assert f"mech run examples/{path.name}" in text, f"{path.name}'s comment should say how to run it"


def test_the_limits_table_gives_every_limit_and_its_default():
    from dataclasses import fields

    from mechscript import Limits

    text = (ROOT / "docs" / "language.md").read_text()
    documented = dict(re.findall(r"^\| `(\w+)` \| (\d+) \|", text, flags=re.M))
    assert documented == {f.name: str(f.default) for f in fields(Limits)}


def test_every_builtin_is_in_the_reference_table():
    from mechscript.interpreter.builtins import BUILTINS

    text = (ROOT / "docs" / "language.md").read_text()
    section = text.split("## Built-in functions", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)\(", section, flags=re.M))
    assert documented == set(BUILTINS)


# ---- docs/pbem.md against the module ----

PBEM = ROOT / "mechscript" / "stdlib" / "pbem.mech"


def test_the_pbem_page_gives_every_option_and_its_default():
    # the module's options are its top-level lets before the character; `choices` lists their values
    head = PBEM.read_text(encoding="utf-8").split("# ---- the character", 1)[0]
    options = dict(re.findall(r"^let (\w+) = (.+?)\s*(?:#.*)?$", head, flags=re.M))
    options.pop("choices")
    text = (DOCS / "pbem.md").read_text(encoding="utf-8")
    section = text.split("## Options", 1)[1].split("\n## ", 1)[0]
    documented = {}
    for names, defaults in re.findall(r"^\| ((?:`\w+`(?:, )?)+) \| ((?:`[^`]+`(?:, )?)+) \|", section, flags=re.M):
        for name, default in zip(re.findall(r"`(\w+)`", names), re.findall(r"`([^`]+)`", defaults)):
            documented[name] = default
    assert documented == options


def test_every_rule_the_pbem_page_offers_is_a_function_of_the_module_with_those_arguments():
    module = PBEM.read_text(encoding="utf-8")
    defined = {name: params for name, params in re.findall(r"^fn (\w+)\(([^)]*)\)", module, flags=re.M)}
    section = (DOCS / "pbem.md").read_text(encoding="utf-8").split("## Rules a script replaces", 1)[1].split("\n## ", 1)[0]
    offered = re.findall(r"^\| `(\w+)\(([^)]*)\)`", section, flags=re.M)
    assert len(offered) >= 15
    for name, params in offered:
        assert name in defined, f"docs/pbem.md offers {name}, which pbem.mech does not define"
        assert params == defined[name], f"docs/pbem.md gives {name}({params}); pbem.mech has {name}({defined[name]})"
