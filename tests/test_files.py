"""A stranger's script reads no file of the machine but modules (issue 22, item 1, the table's first
row: `use "/etc/passwd"`, `use "../../../../../etc/hostname"`, `use "/proc/self/cmdline"` used to
read the file and quote its first line in the error).

`use` reads only .mech files, and only in the script's folder and its subfolders, the folders of
`--path DIR` and MECH_PATH, and the standard library. Every refusal is an error at the `use` line of
the script, quoting that line and nothing of the other file. Each case writes a "secret" file
outside the script's folder whose text would show in the error if it were read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import mechscript
from mechscript import MechError
from mechscript.repl.commands import Commands
from mechscript.sim.batch import Batch
from support import mech_forked

SECRET = "SECRET_LINE vm + 1\n"  # parses as far as `vm`: read, it would show in `unknown name vm`
MODULE = 'fn hi() = "hi"\n'


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """tmp/game/ (the script's folder, with sub/ and rules/ inside) beside tmp/secret files."""
    for name in ("secret", "secret.mech", "secret.txt"):
        (tmp_path / name).write_text(SECRET, encoding="utf-8")
    folder = tmp_path / "game"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes").write_text(SECRET, encoding="utf-8")
    (folder / "sub" / "helper.mech").write_text('use "../beside.mech"\nfn help() = beside_value\n')
    (folder / "beside.mech").write_text("let beside_value = 7\n")
    return folder


def run_cli(folder: Path, source: str, *options: str):
    (folder / "main.mech").write_text(source, encoding="utf-8")
    return mech_forked(["run", "main.mech", "--seed", "1", *options], folder)


def assert_refused(ran, use_line: str, message: str) -> None:
    assert ran.code == 1, ran
    assert "Traceback" not in ran.err and "SECRET" not in ran.err and "SECRET" not in ran.out, ran.err
    lines = ran.err.splitlines()
    assert lines[0].startswith("main.mech:1:1: ") and message in lines[0], ran.err
    assert lines[1] == f"  {use_line}", ran.err  # the script's own line is the one quoted
    assert lines[-1].startswith("  hint: "), ran.err


@pytest.mark.parametrize("written", ["/etc/passwd", "/proc/self/cmdline", "{tmp}/secret.mech"])
def test_an_absolute_path_is_refused(game, written):
    use = f'use "{written.format(tmp=game.parent)}"'
    assert_refused(run_cli(game, use + "\n"), use, "never absolute")


@pytest.mark.parametrize("written", ["../../../../../etc/hostname", "../secret", "../secret.mech",
                                     "sub/../../secret.mech", "../game/../secret.mech"])
def test_a_path_leading_out_is_refused(game, written):
    use = f'use "{written}"'
    assert_refused(run_cli(game, use + "\n"), use, "leads out of the folders modules are read from")


def test_a_file_not_ending_in_mech_is_refused(game):
    assert_refused(run_cli(game, 'use "notes"\n'), 'use "notes"', "only files ending in .mech are modules")


def test_a_link_leading_out_is_refused(game):
    (game / "linked.mech").symlink_to(game.parent / "secret.mech")
    (game / "sub" / "other.mech").symlink_to(game.parent / "secret.txt")
    assert_refused(run_cli(game, "use linked\n"), "use linked", "leads out of the folders")
    assert_refused(run_cli(game, 'use "linked.mech"\n'), 'use "linked.mech"', "leads out of the folders")
    assert_refused(run_cli(game, 'use "sub/other.mech"\n'), 'use "sub/other.mech"', "leads out of the folders")


def test_check_refuses_too(game):
    (game / "main.mech").write_text('use "../secret.mech"\n', encoding="utf-8")
    ran = mech_forked(["check", "main.mech"], game)
    assert ran.code == 1 and "SECRET" not in ran.err and "leads out" in ran.err, ran


def test_the_api_refuses_a_source_text(game, monkeypatch):
    monkeypatch.chdir(game)
    with pytest.raises(MechError) as info:
        mechscript.run('use "../secret.mech"\n', seed=1)
    assert "leads out" in info.value.message and "SECRET" not in info.value.render()


def test_subfolders_and_dotdot_inside_are_read(game):
    ran = run_cli(game, 'use "sub/helper.mech"\nsay helper.help()\n')
    assert (ran.code, ran.out) == (0, "7\n"), ran


def test_the_users_folders_are_read(game, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "greet.mech").write_text(MODULE)
    source = "use greet\nsay hi()\n"
    ran = run_cli(game, source)
    assert ran.code == 1 and "no module `greet`" in ran.err, ran
    assert run_cli(game, source, "--path", str(rules)) == (0, "hi\n", "")
    assert run_cli(game, source, "--path", str(game / "sub"), "--path", "../rules") == (0, "hi\n", "")
    os.environ["MECH_PATH"] = os.pathsep.join(["/no/such/folder", str(rules)])
    try:
        assert run_cli(game, source) == (0, "hi\n", "")
    finally:
        del os.environ["MECH_PATH"]
    # from a module of those folders, `use "../x.mech"` may not leave them either
    (rules / "escape.mech").write_text('use "../secret.mech"\n')
    ran = run_cli(game, "use escape\n", "--path", str(rules))
    assert ran.code == 1 and "SECRET" not in ran.err and "leads out" in ran.err, ran
    assert ran.err.startswith(f"{rules.resolve() / 'escape.mech'}:1:1: "), ran.err


def test_a_missing_path_folder_is_a_usage_error(game):
    ran = run_cli(game, "say 1\n", "--path", "no_such_folder")
    assert ran.code == 2 and "no such folder: no_such_folder" in ran.err, ran


def test_a_batch_carries_the_users_folders_to_its_workers(game, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "greet.mech").write_text(MODULE)
    (game / "main.mech").write_text("use greet\nsay hi()\n")
    batch = Batch.of(mechscript.api.load_script(game / "main.mech", module_path=[rules]))
    assert batch.compile().run(mechscript.api.face_source(1)).log == ["hi"]  # as a fresh worker compiles it


@pytest.mark.parametrize("name", ["secret", "secret.txt"])
def test_run_reads_only_mech_files(game, name):
    ran = mech_forked(["run", str(game.parent / name)], game)
    assert ran.code == 1 and "SECRET" not in ran.err, ran
    assert ran.err.splitlines()[0] == f"{game.parent / name}: only files ending in .mech are read as scripts"


def test_repl_load_takes_mech_files_anywhere_and_quotes_no_other(game, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "greet.mech").write_text(MODULE)
    (other / "table.mech").write_text("use greet\nlet loaded = hi()\n")
    commands = Commands(seed=1, folder=game)
    for name in ("secret", "secret.txt"):
        reply = commands.handle(f":load {tmp_path / name}")
        text = "\n".join(fragment for _, line in reply.lines for _, fragment in line)
        assert reply.failed and "SECRET" not in text and "only files ending in .mech" in text, text
    reply = commands.handle(f":load {other / 'table.mech'}")  # absolute, outside: the user's own terminal
    assert not reply.failed, reply.lines
    assert commands.session.value("loaded") == "hi"  # its `use` read beside it
    reply = commands.handle('use "../secret.mech"')  # an entry's `use` is confined to the session's folder
    text = "\n".join(fragment for _, line in reply.lines for _, fragment in line)
    assert reply.failed and "leads out" in text and "SECRET" not in text, text
