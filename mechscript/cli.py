"""The `mech` command. Exit status: 0 success, 1 an error in the expression or script, 2 a usage
error, 3 an internal error (a bug in mechscript: please report it)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import json
import os
import re
import shlex
import sys
import traceback
from fractions import Fraction

from . import __version__
from pathlib import Path

from .api import RollResult, RunResult, check_script, explained, face_source, load_script, new_seed, prob, roll_many, \
    rolls_of, versions_to_compare
from .interpreter.peers import peer_notes
from .interpreter.script import Script, compile_script, quoted, source_text
from .errors import MechError, Span
from .interpreter.values import to_json
from .limits import Limits

EXAMPLES = """examples:
  mech run examples/task_chart.mech  run a script and print what it says
  mech check house_rules.mech      check a script: what every run would meet, nothing said
  mech run examples/pbem_ambush.mech --seed 1   fight an encounter, blow by blow
  mech sim examples/pbem_ambush.mech -n 10000   fight it 10,000 times: win rates, rounds
  mech sim examples/pbem_ambush.mech --vary Punch.skill=3..9   the win rates at each skill
  mech compare examples/pbem_ambush.mech --rule examples/house_rules/tie_to_attacker.mech
                                   a house rule's effect, on the same dice
  mech roll 4d6kh3                 roll four d6, keep the highest three
  mech roll 1d20 + 5               the words are one expression: no quotes needed
  mech roll 7k3 --seed 42          roll-and-keep: seven d10, keep three, 10s explode
  mech roll '6d10!c>=8f1' -n 5     five rolls counting successes (8+) less failures (1s)
  mech roll 7k3 --faces 2,3,5,6,8,9,10,4   use the faces rolled at the table
  mech prob '7k3 >= 25'            the exact chance of 25 or more on 7k3
  mech                             the interactive dice table (also: mech repl)
"""


SIM_RUNS = 10_000  # `mech sim` without -n: enough for win rates within about a percentage point

# `mech roll -0k1` and `--faces -1,0,1`: an argument that starts with `-` and then reads as dice or a
# number is a value, not an option.
_LOOKS_LIKE_VALUE = re.compile(r"-[\d.(\[]|-d[\dF%(\[]|-d$")


class _ArgumentParser(argparse.ArgumentParser):
    def _parse_optional(self, arg_string):
        if _LOOKS_LIKE_VALUE.match(arg_string):
            return None
        return super()._parse_optional(arg_string)


def _faces(text: str) -> list:
    try:
        faces = [Fraction(item.strip()) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"faces are numbers separated by commas, e.g. 2,3,5,10; got {text!r}")
    return [int(f) if f.denominator == 1 else f for f in faces]


def _limit(text: str) -> tuple[str, int | float]:
    name, _, value = text.partition("=")
    if name not in Limits.names():
        raise argparse.ArgumentTypeError(f"unknown limit {name!r}; limits: {', '.join(Limits.names())}")
    if name == "seconds":  # the one limit that is not a count
        return name, _seconds(value, text)
    try:
        return name, _positive(value)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"a limit is NAME=N with N a whole number of at least 1; got {text!r}")


def _seconds(value: str, text: str) -> int | float:
    """`seconds=1` or `seconds=0.5`: a time above 0 (a whole number stays one, as it is shown)."""
    try:
        seconds = int(value) if value.strip().isdigit() else float(value)
    except ValueError:
        seconds = None
    if seconds is None or not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"`seconds` is a number of seconds above 0, e.g. seconds=2.5; got {text!r}")
    return seconds


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {number}")
    return number


def _folder(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"no such folder: {text}")
    return text


def _vary(text: str):
    from .sim.variants import parse_vary
    try:
        return parse_vary(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error))


def _set(text: str):
    """`--set count=4`: one value for one target, as --vary takes it."""
    from .sim.variants import parse_vary
    try:
        vary = parse_vary(text)
    except ValueError:
        vary = None
    if vary is None or len(vary.settings) != 1:
        raise argparse.ArgumentTypeError(f"--set is TARGET=VALUE, e.g. count=4 (an encounter's parameter), "
                                         f"Punch.skill=6 or pbem.tie=attacker; got {text!r}")
    return dataclasses.replace(vary.settings[0], flag="--set")


def _add_set_option(parser: argparse.ArgumentParser, also: str = "") -> None:
    parser.add_argument("--set", type=_set, action="append", default=[], metavar="TARGET=VALUE",
                        help="give a value to an encounter's parameter (count=4), a character's stat (Punch.skill=6), "
                             "a rules option (pbem.tie=attacker) or a top-level `let`" + (f" {also}" if also else ""))


def _precision(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0.0005 <= value < 0.5:
        raise argparse.ArgumentTypeError(f"a precision is a half-width from 0.0005 to below 0.5, e.g. 0.01 for one "
                                         f"point either side; got {text!r}")
    return value


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a win rate is from 0 to 1, e.g. 0.5; got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}")
    if seed < 0:  # Python's generator would take -1 as 1: a second name for the same dice
        raise argparse.ArgumentTypeError(f"a seed is a whole number of 0 or more, got {text!r}")
    return seed


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog="mech", description="mechscript: dice and combat rules for giant-robot RPGs.",
                             epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"mech {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    roll = commands.add_parser("roll", help="roll dice: mech roll 4d6kh3", epilog=EXAMPLES,
                               formatter_class=argparse.RawDescriptionHelpFormatter,
                               description="Roll a dice expression and show every die.")
    roll.add_argument("expr", metavar="EXPR", nargs="+",
                      help="a dice expression, e.g. 3d6+2, 4d6kh3, 7k3, '6d10!c>=8' (its words are joined: "
                           "mech roll 1d20 + 5); - reads one expression a line from standard input")
    roll.add_argument("-n", type=_positive, default=None, metavar="N", help="roll N times")
    _add_run_options(roll, json_help="print JSON: {expr, total, text} (with -n: {expr, totals})")

    prob = commands.add_parser("prob", help="exact odds: mech prob '7k3 >= 25'",
                               description="The exact distribution of a dice expression (or the probability of a "
                                           "comparison), with its mean and sd, as a table with a bar chart.")
    prob.add_argument("expr", metavar="EXPR", nargs="+",
                      help="a dice expression, e.g. 4d6kh3, 7k3, 'd10 + 6 > d10 + 4' (its words are joined)")
    prob.add_argument("--json", action="store_true",
                      help="print JSON: {expr, exact, distribution: [[outcome, probability], ...], mean, sd}")
    prob.add_argument("--samples", type=_positive, default=None, metavar="N",
                      help="estimate by rolling N times instead (for what is not computed exactly)")
    prob.add_argument("--seed", type=_seed, default=None, metavar="S", help="seed the rolls of --samples")
    _add_limit_option(prob)

    run = commands.add_parser("run", help="run a script: mech run fight.mech",
                              description="Run a script: print what it says (and, with an encounter, its result).")
    run.add_argument("file", metavar="FILE", help="the script, or - to read it from standard input")
    _add_run_options(run, json_help='print JSON: {"log": [...], "result": ...}')
    _add_encounter_option(run, "the encounter to fight, when the script has several")
    _add_set_option(run)
    _add_path_option(run)

    sim = commands.add_parser("sim", help="fight a script's encounter many times: mech sim fight.mech -n 10000",
                              description="Fight the script's encounter N times, without narration: win rates with "
                                          "95% intervals, rounds, survival. Run i is seeded from the seed and i, so "
                                          "the numbers are the same for any --jobs.")
    sim.add_argument("file", metavar="FILE", help="the script, with its encounter")
    sim.add_argument("-n", type=_positive, default=None, metavar="N",
                     help=f"how many fights (default {SIM_RUNS:,}); with --precision, the most it may fight")
    sim.add_argument("--precision", type=_precision, default=None, metavar="P",
                     help="fight until every interval is within P of its rate (0.01: one point either side), "
                          "looking every 100 runs; -n is then a cap (default: the runs that always suffice)")
    sim.add_argument("--seed", type=_seed, default=None, metavar="S", help="the master seed (a fresh one if not given)")
    sim.add_argument("--jobs", type=_positive, default=None, metavar="J",
                     help="processes that fight: this one and J-1 workers (default: the number of cores)")
    sim.add_argument("--json", action="store_true", help="print the result as JSON")
    sim.add_argument("--out", default=None, metavar="FILE", help="also write the JSON result to FILE")
    sim.add_argument("--plot", default=None, metavar="FILE.png",
                     help="also draw the win rates and rounds to a picture (needs: pip install 'mechscript[plot]')")
    sim.add_argument("--vary", type=_vary, action="append", default=[], metavar="TARGET=VALUES",
                     help="fight it at each value: a character's stat (Punch.skill=3..9), a rules option "
                          "(pbem.tie=defender,attacker), an encounter's parameter (count=1..6) or a top-level `let` "
                          "(rounds=5,10); several make a grid")
    sim.add_argument("--balance", default=None, metavar="CHARACTER.STAT",
                     help="search the stat's range for the value whose win rate is nearest --target (a bisection, "
                          "then all the runs near the crossing)")
    sim.add_argument("--side", default=None, metavar="SIDE", help="the side whose win rate --balance reads (default: "
                                                                  "the first)")
    sim.add_argument("--target", type=_rate, default=0.5, metavar="RATE",
                     help="the win rate --balance looks for (default 0.5)")
    _add_executor_options(sim)
    _add_encounter_option(sim, "the encounter to fight, when the script has several")
    _add_set_option(sim)
    _add_limit_option(sim)
    _add_path_option(sim)

    compare = commands.add_parser("compare", help="two versions of an encounter on the same dice: "
                                                  "mech compare fight.mech --rule house.mech",
                                  description="Fight an encounter and a version of it (a house rule file `use`d "
                                              "after the script's own modules, or a second script) with the same "
                                              "run seeds, and report how each side's win rate moves, with a paired "
                                              "95% interval, and how many runs' winner changed.")
    compare.add_argument("file", metavar="FILE", help="the script, with its encounter")
    compare.add_argument("other", metavar="OTHER", nargs="?", default=None,
                         help="a second script to compare it with (instead of --rule)")
    compare.add_argument("--rule", action="append", default=[], metavar="VARIANT.mech",
                         help="a house rule file, `use`d after the script's modules: its options and `fn "
                              "module.rule(...)` replace theirs (may be given more than once: each is compared "
                              "with the script)")
    compare.add_argument("-n", type=_positive, default=SIM_RUNS, metavar="N",
                         help=f"fights of each version (default {SIM_RUNS:,})")
    compare.add_argument("--seed", type=_seed, default=None, metavar="S", help="the master seed (a fresh one if not given)")
    compare.add_argument("--jobs", type=_positive, default=None, metavar="J",
                         help="processes that fight: this one and J-1 workers (default: the number of cores)")
    compare.add_argument("--json", action="store_true", help="print the result as JSON")
    compare.add_argument("--out", default=None, metavar="FILE", help="also write the JSON result to FILE")
    _add_executor_options(compare)
    _add_encounter_option(compare, "the encounter to fight, when the scripts have several")
    _add_set_option(compare, "(in every version alike)")
    _add_limit_option(compare)
    _add_path_option(compare)

    repl = commands.add_parser("repl", help="the interactive dice table (also `mech` alone)",
                               description="Roll and script at a prompt: definitions stay, rolls show their dice, "
                                           ":help lists the commands. Reading from a pipe, lines are answered plainly.")
    repl.add_argument("--seed", type=_seed, default=None, metavar="S", help="seed the dice (a fresh one if not given)")
    _add_limit_option(repl)
    _add_path_option(repl)

    check = commands.add_parser("check", help="check a script without fighting it: mech check fight.mech",
                                description="Check a script (and the modules it uses): its names and calls, then "
                                            "what every run would meet before the first die (the script run up "
                                            "to there, for each encounter, saying nothing), and what the "
                                            "checker's types show: a field a value lacks, a house rule whose "
                                            "result its callers cannot use.")
    check.add_argument("file", metavar="FILE", help="the script, or - to read it from standard input")
    _add_encounter_option(check, "also check that the script has this encounter (every encounter is checked)")
    _add_limit_option(check)
    _add_path_option(check)
    return parser


def _add_run_options(parser: argparse.ArgumentParser, json_help: str) -> None:
    parser.add_argument("--seed", type=_seed, default=None, metavar="S",
                        help="seed the dice: the same seed gives the same rolls on every machine")
    parser.add_argument("--faces", type=_faces, default=None, metavar="F,F,...",
                        help="the faces rolled at the table, in the order dice fall: each roll's dice left "
                             "to right, then explosions and rerolls in rounds")
    parser.add_argument("--json", action="store_true", help=json_help)
    _add_limit_option(parser)


def _add_executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--executor", choices=["local", "dask"], default="local",
                        help="where the runs are fought: local worker processes (--jobs), or the workers of a Dask "
                             "cluster (needs: pip install 'mechscript[distributed]'); the same numbers either way")
    parser.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help="the Dask scheduler's address, with --executor dask")


def _add_encounter_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--encounter", default=None, metavar="NAME", help=help)


def _add_limit_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=_limit, action="append", default=[], metavar="NAME=N",
                        help=f"raise or lower a safety limit ({', '.join(Limits.names())})")


def _add_path_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--path", type=_folder, action="append", default=[], metavar="DIR",
                        help="a folder `use` may read modules from, besides the script's folder and the standard "
                             "library (may be given more than once; MECH_PATH adds more, separated by "
                             f"{os.pathsep!r})")


def module_path(args) -> list[str]:
    """The user's folders of modules: `--path DIR`s in order (`mech` alone has none), then those of
    MECH_PATH that exist."""
    named = [folder for folder in os.environ.get("MECH_PATH", "").split(os.pathsep) if folder]
    return [*getattr(args, "path", []), *(folder for folder in named if Path(folder).is_dir())]


def _load(args) -> Script:
    limits = Limits().with_overrides(dict(args.limit))
    if args.file == "-":
        return compile_script(_read_stdin(limits), "<stdin>", Path.cwd(), limits, module_path=module_path(args))
    return load_script(Path(args.file), limits, module_path(args))


def _load_encounter(args) -> Script:
    """The script, with the encounter to fight chosen: `--encounter NAME`, or the only one; with the
    values of `--set`, when given."""
    if not getattr(args, "set", None):
        return _load(args).choose(args.encounter)
    return _load_set(args, Limits().with_overrides(dict(args.limit)))


def _refuse_a_set_twice(args) -> None:
    targets = [setting.target for setting in args.set]
    if len(set(targets)) < len(targets):
        print(f"mech: --set {max(targets, key=targets.count)} is given twice", file=sys.stderr)
        raise SystemExit(2)


def _load_set(args, limits: Limits) -> Script:
    """The script with the values of `--set` (sim/variants.py), checked before any fight."""
    from .sim.variants import Variant, checked, compile_variant
    _refuse_a_set_twice(args)
    if args.file == "-":
        text, filename, folder = _read_stdin(limits), "<stdin>", Path.cwd()
    else:
        path = Path(args.file)
        script = load_script(path, limits, module_path(args))  # its own errors first, as without --set
        text, filename, folder = script.source_text, script.filename, script.folder
    variant = Variant(tuple(args.set))
    script = compile_variant(text, filename, folder, limits, module_path(args), variant)
    return checked(script.choose(args.encounter))


def _read_stdin(limits: Limits) -> str:
    """The script on standard input: one byte more than the `source_bytes` limit is read at most."""
    try:
        return source_text(sys.stdin.buffer.read(limits.source_bytes + 1), limits, "the script")
    except MechError as error:
        raise error.located("", "<stdin>") from None


def run_check(args) -> int:
    check_script(_load(args), args.encounter)
    print(f"{args.file}: ok")
    return 0


def run_script(args) -> int:
    script = _load_encounter(args)
    seed = args.seed if args.seed is not None or args.faces is not None else new_seed()
    try:
        finished = script.run(face_source(seed, args.faces))
    except MechError as error:
        if not args.json:
            for line in getattr(error, "log", []):
                print(line)
        raise explained(script, error)
    result = RunResult(finished.log, finished.result, seed if args.faces is None else None)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        for line in result.log + result.summary():
            print(line)
    return 0


def run_sim(args) -> int:
    from .sim.batch import Batch, simulate
    from .sim.report import Progress, plot, text_report
    from .sim.stats import runs_for
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        print("mech sim: --plot needs matplotlib: pip install 'mechscript[plot]'", file=sys.stderr)
        return 2
    limits = Limits().with_overrides(dict(args.limit))
    if _executor_usage(args):
        print(f"mech sim: {_executor_usage(args)}", file=sys.stderr)
        return 2
    if args.balance is not None and (args.vary or args.precision is not None or args.plot is not None):
        print("mech sim: --balance searches one stat alone: without --vary, --precision or --plot", file=sys.stderr)
        return 2
    if args.balance is None and (args.side is not None or args.target != 0.5):
        print("mech sim: --side and --target go with --balance", file=sys.stderr)
        return 2
    # errors in the script are shown before any fight
    if args.set and args.balance is not None:
        print("mech sim: --balance searches one stat alone: without --set", file=sys.stderr)
        return 2
    if args.set:
        from .sim.variants import Variant
        script = _load_set(args, limits)
        batch = Batch.of(script, Variant(tuple(args.set)))
    else:
        script = load_script(Path(args.file), limits, module_path(args)).choose(args.encounter)
        batch = Batch.of(script)
    args.n = args.n or (runs_for(args.precision) if args.precision is not None else SIM_RUNS)
    if args.vary:
        return _run_sweep(args, batch)
    if args.balance is not None:
        return _run_balance(args, script)
    seed = args.seed if args.seed is not None else new_seed()
    progress = Progress() if sys.stderr.isatty() and not args.json else None
    try:
        with _workers(args) as (jobs, executor):
            result = simulate(batch, args.n, seed, jobs, executor, progress=progress, precision=args.precision)
    finally:
        if progress is not None:
            progress.close()
    data = with_parameters(result.to_json(), script)
    _write_out(args, data, plot)
    replay = f"mech run {shlex.quote(args.file)}" + (f" --encounter {quoted(args.encounter)}" if args.encounter else "")
    replay += "".join(f" --set {shlex.quote(setting.option)}" for setting in args.set)
    print(json.dumps(data) if args.json else "\n".join(text_report(data, replay)))
    return 130 if result.partial else 0


def with_parameters(data: dict, script: Script) -> dict:
    """A batch's JSON with `"parameters"` after `"encounter"`: the value each parameter of the encounter
    was fought with (its default or `--set`'s). An encounter without parameters adds nothing."""
    parameters = script.chosen_parameters()
    if not parameters:
        return data
    placed = {}
    for key, value in data.items():
        placed[key] = value
        if key == "encounter":
            placed["parameters"] = {name: to_json(value) for name, value in parameters.items()}
    return placed


def _run_sweep(args, batch) -> int:
    """`mech sim --vary`: every point compiled and checked first, then fought (sim/sweep.py)."""
    from .sim.report import Progress
    from .sim.sweep import plot, prepared_points, sweep, text_report
    targets = [vary.target for vary in args.vary]
    if len(set(targets)) < len(targets):
        print(f"mech sim: --vary {max(targets, key=targets.count)} is given twice", file=sys.stderr)
        return 2
    prepared = prepared_points(batch, args.vary)
    seed = args.seed if args.seed is not None else new_seed()
    progress = Progress() if sys.stderr.isatty() and not args.json else None
    try:
        with _workers(args) as (jobs, executor):
            data = sweep(batch, args.vary, args.n, seed, jobs, executor, progress=progress, prepared=prepared,
                         precision=args.precision)
    finally:
        if progress is not None:
            progress.close()
    _write_out(args, data, plot)
    print(json.dumps(data) if args.json else "\n".join(text_report(data)))
    return 130 if data.get("partial") else 0


def run_compare(args) -> int:
    """`mech compare FILE --rule VARIANT.mech` or `mech compare A.mech B.mech` (sim/compare.py)."""
    from .sim.compare import compare, text_report
    from .sim.report import Progress
    if (args.other is None) == (not args.rule):
        print("mech compare: give a second script or --rule VARIANT.mech (not both)", file=sys.stderr)
        return 2
    if _executor_usage(args):
        print(f"mech compare: {_executor_usage(args)}", file=sys.stderr)
        return 2
    for path in [args.other] if args.other is not None else args.rule:
        if not Path(path).is_file():
            print(f"mech compare: no such file: {path}", file=sys.stderr)
            return 2
    limits = Limits().with_overrides(dict(args.limit))
    _refuse_a_set_twice(args)
    base, versions = versions_to_compare(args.file, args.rule, args.other, limits, module_path(args), args.encounter,
                                         args.set)
    seed = args.seed if args.seed is not None else new_seed()
    progress = Progress() if sys.stderr.isatty() and not args.json else None
    try:
        with _workers(args) as (jobs, executor):
            data = compare(base, versions, args.n, seed, jobs, executor, progress=progress)
    finally:
        if progress is not None:
            progress.close()
    data = with_parameters(data, base[1])
    if args.out:
        _write_atomically(Path(args.out), json.dumps(data, indent=1) + "\n")
    print(json.dumps(data) if args.json else "\n".join(text_report(data)))
    return 130 if data.get("partial") else 0


def _run_balance(args, script) -> int:
    """`mech sim --balance CHARACTER.STAT` (sim/balance.py)."""
    from .sim.balance import balance, text_report
    seed = args.seed if args.seed is not None else new_seed()
    try:
        with _workers(args) as (jobs, executor):
            data = balance(script, args.balance, args.n, seed, args.side, args.target, jobs, executor)
    except KeyboardInterrupt:
        print("mech sim: --balance interrupted before it found the value", file=sys.stderr)
        return 130
    _write_out(args, data, None)
    print(json.dumps(data) if args.json else "\n".join(text_report(data)))
    return 0


@contextlib.contextmanager
def _workers(args):
    """(jobs, executor): local processes (executor None), or a Dask cluster's executor and its threads."""
    if args.executor == "local":
        yield _jobs(args), None
        return
    from .sim.remote import dask_executor
    with dask_executor(args.scheduler) as (executor, threads):
        yield threads, executor


def _executor_usage(args) -> str | None:
    """What is wrong with --executor and --scheduler, said as a usage error, or None."""
    if args.executor == "dask":
        if args.scheduler is None:
            return "--executor dask needs --scheduler tcp://HOST:PORT (the address `dask scheduler` prints)"
        if importlib.util.find_spec("distributed") is None:
            return "--executor dask needs Dask's distributed: pip install 'mechscript[distributed]'"
    elif args.scheduler is not None:
        return "--scheduler goes with --executor dask"
    return None


def _jobs(args) -> int:
    from .sim.batch import default_jobs
    jobs = args.jobs or default_jobs()
    if jobs > default_jobs():
        print(f"note: --jobs {jobs} is more than the {default_jobs()} cores here; using {default_jobs()}", file=sys.stderr)
        jobs = default_jobs()
    return jobs


def _write_out(args, data: dict, plot) -> None:
    """--out's JSON and --plot's picture."""
    if args.out:
        _write_atomically(Path(args.out), json.dumps(data, indent=1) + "\n")
    if args.plot:
        plot(data, args.plot)


def _write_atomically(path: Path, text: str) -> None:
    """Write beside the target, then rename over it: a reader never sees half a file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def run_roll(args) -> int:
    """Each roll is shown as it comes, and only its total and text are kept for the JSON: the
    rolls of `-n 100000` are never all held at once."""
    limits = Limits().with_overrides(dict(args.limit))
    expr = " ".join(args.expr)  # `mech roll 1d20 + 5`: the shell's words, one expression
    if expr == "-":
        return _roll_lines(args, limits)
    _say_notes(expr, limits)
    with contextlib.closing(rolls_of(expr, args.n or 1, seed=args.seed, faces=args.faces,
                                     limits=limits)) as rolls:
        last = _print_rolls(args, expr, rolls)
    if args.faces is not None and last is not None and last.faces_used < len(args.faces):
        _unused_faces(len(args.faces) - last.faces_used)
    return 0


def _print_rolls(args, expr: str, rolls) -> "RollResult | None":
    """The rolls as they come (text), or their JSON once all are made; the last roll."""
    totals, texts, last, data = [], [], None, None
    for last in rolls:
        if not args.json:
            print(last.text, flush=True)
        elif args.n is None:
            data = last.to_json()
        else:
            totals.append(last.to_json()["total"])
            texts.append(last.text)
    if args.json:
        if args.n is not None:
            data = {"expr": expr, "totals": totals, "texts": texts}
            if last is not None and last.seed is not None:
                data["seed"] = last.seed
        json.dump(data, sys.stdout)  # written in pieces: the texts are not copied into one more string
        print(flush=True)
    return last


def _unused_faces(unused: int) -> None:
    print(f"note: {unused} of the given faces {'was' if unused == 1 else 'were'} not used", file=sys.stderr)


def _roll_lines(args, limits: Limits) -> int:
    """`mech roll -`: each line of standard input an expression, rolled (-n times) and answered as
    `mech roll EXPR` would; the dice come from one source in turn (the seed's, or the given faces).
    A line in error is reported as `<stdin>:LINE:COL` and the next lines are still rolled: exit 1."""
    seed = args.seed if args.seed is not None or args.faces is not None else new_seed()
    source = face_source(seed, args.faces)
    failed = False
    for number, line in enumerate(sys.stdin, start=1):
        expr = line.strip()
        if not expr or expr.startswith("#"):
            continue
        try:
            _say_notes(expr, limits)
            results = roll_many(expr, args.n or 1, seed=seed if args.faces is None else None, limits=limits,
                                source=source)
        except MechError as error:
            print(_on_line(error, line.rstrip("\r\n"), number).render(), file=sys.stderr, flush=True)
            failed = True
            continue
        _print_rolls(args, expr, results)
    if args.faces is not None and source.used < len(args.faces):
        _unused_faces(len(args.faces) - source.used)
    return 1 if failed else 0


def _on_line(error: MechError, line: str, number: int) -> MechError:
    """An expression's error, placed on its line of standard input."""
    error.filename = "<stdin>"
    if error.span is not None:
        shift = len(line) - len(line.lstrip())  # the expression was rolled stripped
        error.span = Span(number, error.span.col + shift, error.span.start + shift, error.span.end + shift)
        error.source = "\n" * (number - 1) + line
    return error


def _say_notes(expr: str, limits: Limits) -> None:
    """The one-line notes for another roller's spelling that means something else here (peers.py)."""
    for note in peer_notes(expr, limits):
        print(f"note: {note}", file=sys.stderr)


def run_prob(args) -> int:
    limits = Limits().with_overrides(dict(args.limit))
    expr = " ".join(args.expr)
    _say_notes(expr, limits)
    result = prob(expr, samples=args.samples, seed=args.seed, limits=limits)
    print(json.dumps(result.to_json()) if args.json else "\n".join(result.text()))
    return 0


def run_repl(args) -> int:
    from .repl import start  # prompt_toolkit is loaded only for the REPL
    limits = Limits().with_overrides(dict(getattr(args, "limit", [])))
    return start(getattr(args, "seed", None), limits, module_path(args))


def _options_first(argv: list[str], parser: argparse.ArgumentParser, commands) -> None:
    """`mech --seed 1 roll 3d6`: a command's options go after it; argparse would only say that `1`
    is not a command. Stops with a usage error showing the command as it is written."""
    first = argv[0] if argv else ""
    if not first.startswith("-") or first in ("-h", "--") or len(first) > 2 and ("--help".startswith(first) or
                                                                               "--version".startswith(first)):
        return  # no option first, or help or the version (as argparse takes them, abbreviated too), or `--`
    place = next((i for i, arg in enumerate(argv) if arg in commands), None)
    if place is not None:
        written = [argv[place], *argv[place + 1:], *argv[:place]]
        parser.error(f"{' '.join(argv[:place])}: a command's options go after it: mech {shlex.join(written)}")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    commands = {"roll": run_roll, "prob": run_prob, "run": run_script, "check": run_check, "sim": run_sim,
                "compare": run_compare}
    _options_first(sys.argv[1:] if argv is None else argv, parser, [*commands, "repl"])
    args = parser.parse_args(argv)
    if args.command in (None, "repl"):  # `mech` alone is the REPL
        return run_repl(args)
    if args.command in ("run", "check", "sim", "compare") and args.file != "-" and not Path(args.file).is_file():
        print(f"mech {args.command}: no such file: {args.file}", file=sys.stderr)
        return 2
    try:
        return commands[args.command](args)
    except MechError as error:
        print(error.render(), file=sys.stderr)
        return 1
    except BrokenPipeError:  # `mech roll 3d6 -n 1000 | head`: the reader has all it wants
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception:  # a bug: say so plainly; the traceback only on request
        print("mech: internal error (this is a bug in mechscript; please report it with the command you ran)",
              file=sys.stderr)
        if os.environ.get("MECH_DEBUG"):
            traceback.print_exc()
        return 3


if __name__ == "__main__":
    sys.exit(main())
