"""The import-linter contract of pyproject.toml: mechscript's layers import downward only (cli, repl,
api and odds, rolling, sim, backend, checker, interpreter, grammar, dice, limits, errors and
numbers), and an import upward breaks it; no imports inside functions but the known ones, no
`_private` names imported, no import cycle, no class over 300 lines."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT = [os.path.join(os.path.dirname(sys.executable), "lint-imports")]


def lint(folder: Path) -> subprocess.CompletedProcess:
    """`lint-imports` of the mechscript package found first in `folder`, with the contract there."""
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run(LINT + ["--config", str(folder / "pyproject.toml"), "--no-cache"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_layers_import_downward_only():
    ran = lint(ROOT)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 kept, 0 broken" in ran.stdout


def test_an_import_upward_breaks_the_contract(tmp_path):
    shutil.copytree(ROOT / "mechscript", tmp_path / "mechscript", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    faces = tmp_path / "mechscript" / "dice" / "faces.py"
    faces.write_text(faces.read_text() + "\nfrom ..sim import stats  # upward: dice is below sim\n")
    ran = lint(tmp_path)
    assert ran.returncode != 0
    assert "mechscript.dice.faces -> mechscript.sim.stats" in ran.stdout


def test_no_module_imports_another_s_private_names():
    # a `_name` is its module's own business: what another module needs is given a public name
    import ast
    found = []
    for path in sorted((ROOT / "mechscript").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if type(node) is ast.ImportFrom:
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.endswith("__")]
    assert found == []


# Imports inside functions, each for a reason of its own (none dodges a cycle: there is none, see
# the last test); a new one fails the test below.
LAZY_IMPORTS = {
    ("mechscript/api.py", ".sim.batch"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/api.py", ".sim.sweep"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/api.py", ".sim.variants"): "a sweep's values and house rules are read only by a sweep or a comparison",
    ("mechscript/cli.py", ".sim.batch"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/cli.py", ".sim.report"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/cli.py", ".sim.compare"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/api.py", ".sim.compare"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/cli.py", ".sim.balance"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/cli.py", ".sim.remote"): "Dask loads only for --executor dask (an optional extra, 1 s to import)",
    ("mechscript/sim/remote.py", "distributed"): "an optional extra (`distributed`), 1 s to import",
    ("mechscript/cli.py", ".sim.stats"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/cli.py", ".sim.sweep"): "the back end loads only for a batch, not for `mech roll`",
    ("mechscript/cli.py", ".sim.variants"): "a variant's values are read only by `--vary` and `--set`",
    ("mechscript/cli.py", ".repl"): "prompt_toolkit loads only for the REPL",
    ("mechscript/repl/__init__.py", ".app"): "prompt_toolkit loads only on a terminal",
    ("mechscript/repl/__init__.py", ".history"): "prompt_toolkit loads only on a terminal",
    ("mechscript/repl/__init__.py", ".plain"): "the plain REPL needs no terminal",
    ("mechscript/sim/batch.py", "ctypes"): "Linux only (the parent-death signal)",
    ("mechscript/sim/batch.py", "resource"): "POSIX only (the memory limit)",
    ("mechscript/sim/report.py", "matplotlib"): "an optional extra (`plot`)",
    ("mechscript/sim/report.py", "matplotlib.pyplot"): "an optional extra (`plot`)",
    ("mechscript/sim/sweep.py", "matplotlib"): "an optional extra (`plot`)",
    ("mechscript/sim/sweep.py", "matplotlib.pyplot"): "an optional extra (`plot`)",
}


def test_imports_inside_functions_are_the_known_ones():
    import ast
    found = set()
    for path in sorted((ROOT / "mechscript").rglob("*.py")):
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(function):
                    if type(node) is ast.ImportFrom:
                        found.add((str(path.relative_to(ROOT)), "." * node.level + (node.module or "")))
                    elif type(node) is ast.Import:
                        found |= {(str(path.relative_to(ROOT)), alias.name) for alias in node.names}
    assert found == set(LAZY_IMPORTS)


def test_no_two_modules_import_each_other():
    # grimp (import-linter's graph) sees imports at the top and inside functions alike
    import grimp
    graph = grimp.build_graph("mechscript")
    cycles = {tuple(sorted((module, imported))) for module in graph.modules
              for imported in graph.find_modules_directly_imported_by(module)
              if graph.find_shortest_chain(importer=imported, imported=module)}
    assert cycles == set()


# the compiler design's limit (shared/design/compiler.md): a class that grows past it is split into
# parts named for what each does (backend/emit.py's chain: work.py, calls.py, access.py, ...)
LONGEST_CLASS = 300


def long_classes(root: Path) -> dict:
    """{"file:Class": its lines} of the classes of the package under `root` longer than LONGEST_CLASS."""
    import ast
    found = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if type(node) is ast.ClassDef:
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST_CLASS:
                    found[f"{path.relative_to(root.parent)}:{node.name}"] = lines
    return found


def test_no_class_is_over_300_lines(tmp_path):
    assert long_classes(ROOT / "mechscript") == {}
    # and the check finds one that is
    package = tmp_path / "mechscript"
    package.mkdir()
    (package / "big.py").write_text("class Big:\n" + "    x = 1\n" * LONGEST_CLASS)
    assert long_classes(package) == {"mechscript/big.py:Big": LONGEST_CLASS + 1}
