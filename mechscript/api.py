"""The Python API, mirroring the command line: `roll`, `roll_many`, `compile_roll`, `prob`, `run`, `check`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .checker.check import check_script, explained
from .dice.engine import BatchDice
from .dice.faces import FaceSource, GivenFaces, RandomFaces
from .errors import MechError
from .limits import CpuTime, Limits, limit_error
from .interpreter.values import to_json
from .interpreter.script import Script, compile_script, read_source
from .odds import ProbResult, prob  # noqa: F401  (`mech prob` and mechscript.prob)
from .rolling import EXPR_FILE, CompiledRoll, RollResult, compile_roll, new_seed  # noqa: F401  (the API's)


def seeded(seed: int | None) -> int:
    """The seed to use: a fresh one for None, else a whole number of 0 or more, as `--seed` takes
    (the generator would roll -1 as 1); another is a ValueError."""
    if seed is None:
        return new_seed()
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"a seed is a whole number of 0 or more, not {seed!r}")
    return seed


def face_source(seed: int | None = None, faces: Sequence | None = None) -> FaceSource:
    if faces is not None:
        return GivenFaces(faces)
    return RandomFaces(seeded(seed))


def roll(expr: str, seed: int | None = None, faces: Sequence | None = None,
         limits: Limits = Limits()) -> RollResult:
    """Roll `expr` once. `faces` gives the dice faces in the order they fall (golden tests, physical
    dice); otherwise `seed` seeds the generator (a fresh seed, reported in the result, if None)."""
    return roll_many(expr, 1, seed, faces, limits)[0]


def roll_many(expr: str, n: int, seed: int | None = None, faces: Sequence | None = None,
              limits: Limits = Limits(), source: FaceSource | None = None) -> list[RollResult]:
    """Roll `expr` n times from one face source (the faces of a seed, or given faces, in turn).
    `source`: go on drawing from a source already in use (`mech roll -`, a line after another);
    `seed` is then only what the results report."""
    return list(rolls_of(expr, n, seed, faces, limits, source))


def rolls_of(expr: str, n: int, seed: int | None = None, faces: Sequence | None = None,
             limits: Limits = Limits(), source: FaceSource | None = None):
    """`roll_many`, one roll at a time (`mech roll -n N` shows each as it comes: N rolls are not
    held at once). The dice of all n count against `Limits.sample_dice`."""
    compiled = compile_roll(expr, limits)
    if n > limits.rolls:
        raise limit_error("rolls", f"{n} rolls at once are too many", limits.rolls,
                          compiled.node.span).located(expr, EXPR_FILE)
    if source is None:
        if faces is None:
            seed = seeded(seed)
        source = face_source(seed, faces)
    given = type(source) is GivenFaces
    batch = BatchDice(limits, n) if n > 1 else None
    try:
        with CpuTime(limits):
            for _ in range(n):
                result = compiled.roll(source, None if given else seed, batch)
                if given:
                    result.faces_used = source.used
                yield result
    except MechError as error:  # the time ran out between two rolls
        raise error.located(expr, EXPR_FILE) from None


@dataclass
class RunResult:
    log: list[str]
    result: dict | None = None  # the encounter's: {"winner", "rounds", "characters": {name: {side, state...}}}
    seed: int | None = None

    def summary(self) -> list[str]:
        """The encounter's result as text, after the log: who won, in how many rounds, and where
        everyone ended."""
        if self.result is None:
            return []
        winner, rounds = self.result["winner"], self.result["rounds"]
        lines = ["", f"Result: {winner + ' win' if winner is not None else 'no winner'} after {rounds} "
                 f"round{'' if rounds == 1 else 's'}"]
        for name, state in self.result["characters"].items():
            values = ", ".join(f"{key} {_plain_json(value)}" for key, value in state.items() if key != "side")
            lines.append(f"  {name} ({state['side']}): {values}" if values else f"  {name} ({state['side']})")
        return lines

    def to_json(self) -> dict:
        data = {"log": self.log, "result": self.result}
        if self.seed is not None:
            data["seed"] = self.seed
        return data


def _plain_json(value) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def load_script(path_or_source: str | Path, limits: Limits = Limits(), module_path: Sequence = ()) -> Script:
    """Compile a script from a file (a Path, or a str like `fight.mech`: ending in .mech, no spaces)
    or from source text.
    `use` looks beside the file (or in the current folder for text) and in its subfolders, then in
    the folders of `module_path` (the command's `--path` and MECH_PATH), then in the stdlib."""
    text = str(path_or_source)
    if isinstance(path_or_source, Path) or (text.endswith(".mech") and not any(c.isspace() for c in text)):
        path = Path(path_or_source)
        return compile_script(read_script(path, limits), str(path), path.resolve().parent, limits,
                              module_path=module_path)
    return compile_script(text, "<script>", Path.cwd(), limits, module_path=module_path)


def read_script(path: Path, limits: Limits = Limits()) -> str:
    """A script file's text (UTF-8; a byte-order mark is dropped); a MechError naming it if it is
    not a .mech file (an error must never quote a line of another file) or cannot be read."""
    try:
        if path.suffix != ".mech" or path.resolve().suffix != ".mech":
            raise MechError("only files ending in .mech are read as scripts", hint=f"rename it {path.stem}.mech")
        return read_source(path, limits, "the script")
    except MechError as error:
        raise error.located("", str(path)) from None


def run(path_or_source: str | Path, seed: int | None = None, faces: Sequence | None = None,
        limits: Limits = Limits(), module_path: Sequence = (), encounter: str | None = None) -> RunResult:
    """Run a script: its `say` lines in `log`. Raises MechError (its `.log` holds what was said).
    `encounter` names the encounter to fight when the script has several (`--encounter`)."""
    script = load_script(path_or_source, limits, module_path).choose(encounter)
    if faces is None:
        seed = seeded(seed)
    try:
        finished = script.run(face_source(seed, faces))
    except MechError as error:
        raise explained(script, error)
    return RunResult(finished.log, finished.result, seed if faces is None else None)


def check(path_or_source: str | Path, limits: Limits = Limits(), module_path: Sequence = (),
          encounter: str | None = None) -> None:
    """Check a script without running it (every encounter of it; with `encounter`, that it has this
    one): what `mech run` would find before its first die, and what the checker's types show
    (checker/check.py). Raises MechError."""
    check_script(load_script(path_or_source, limits, module_path), encounter)


def simulate(path_or_source: str | Path, n: int, seed: int | None = None, jobs: int = 1,
             limits: Limits = Limits(), executor=None, module_path: Sequence = (), encounter: str | None = None) -> dict:
    """Fight the script's encounter n times (`mech sim`): the contract's JSON as a dict. Run i is
    seeded from `seed` and i, so the numbers are the same for any `jobs` (or executor). `encounter`
    names the one to fight when the script has several. With `jobs` above 1 and no executor, this
    process fights beside a pool of worker processes, at a switch interval of at most 0.5 ms
    (`sys.setswitchinterval`, for every thread of the process) until the batch ends."""
    from .sim.batch import Batch, simulate as simulate_batch  # the back end loads only for a batch
    batch = Batch.of(load_script(path_or_source, limits, module_path).choose(encounter))
    return simulate_batch(batch, n, seeded(seed), jobs, executor).to_json()


def sweep(path_or_source: str | Path, vary: Sequence[str], n: int, seed: int | None = None, jobs: int = 1,
          limits: Limits = Limits(), executor=None, module_path: Sequence = (), encounter: str | None = None) -> dict:
    """`mech sim --vary`: the encounter fought n times at each point of the grid of `vary` (each
    "TARGET=VALUES", as the option takes it; a malformed one is a ValueError): the sweep's JSON as a dict."""
    from .sim.batch import Batch
    from .sim.sweep import sweep as sweep_batch
    from .sim.variants import parse_vary
    varies = [parse_vary(text) for text in vary]
    batch = Batch.of(load_script(path_or_source, limits, module_path).choose(encounter))
    return sweep_batch(batch, varies, n, seeded(seed), jobs, executor)


def compare(path: str | Path, n: int, rules: Sequence = (), other: str | Path | None = None, seed: int | None = None,
            jobs: int = 1, limits: Limits = Limits(), executor=None, module_path: Sequence = (),
            encounter: str | None = None) -> dict:
    """`mech compare`: the script at `path` and each house rule file of `rules` (or the script
    `other`) fought on the same run seeds: the comparison's JSON as a dict."""
    from .sim.compare import compare as compare_versions
    if (other is None) == (not rules):
        raise ValueError("compare a script with house rule files (rules) or with another script (other), not both")
    base, versions = versions_to_compare(path, rules, other, limits, module_path, encounter)
    return compare_versions(base, versions, n, seeded(seed), jobs, executor)


def versions_to_compare(path: str | Path, rules: Sequence, other: str | Path | None, limits: Limits,
                        module_path: Sequence, encounter: str | None, settings: Sequence = ()) -> tuple:
    """The script and the versions `compare` fights, each (name, compiled script, Variant): the
    script with each house rule file `use`d after its modules, or the other script. `settings`
    (`--set`'s, sim/variants.py) are given to every version alike. Raises MechError."""
    from .sim.variants import Variant, checked, compile_variant
    given = Variant(tuple(settings))

    def version(script_path):
        script = load_script(Path(script_path), limits, module_path).choose(encounter)  # its own errors first
        if not given:
            return script
        return checked(compile_variant(script.source_text, script.filename, script.folder, limits,
                                       tuple(map(str, module_path)), given).choose(encounter))
    base = version(path)
    if other is not None:
        return (str(path), base, given), [(str(other), version(other), given)]
    versions = []
    for rule in rules:
        read_script(Path(rule), limits)  # a file that is no .mech script: said as for a script
        variant = Variant(given.settings, rules=(str(Path(rule).resolve()),))
        script = compile_variant(base.source_text, base.filename, base.folder, limits, tuple(map(str, module_path)),
                                 variant)
        versions.append((str(rule), checked(script.choose(encounter)), variant))
    return (str(path), base, given), versions
