"""Python bytecodes per duel: `mech sim`'s fight of examples/pbem_ambush.mech against the same fight
written by hand (bench/hand_pbem.py). The count does not depend on the machine or its load, so it
shows what a change to the interpreter or a module saves where timings (bench_sim.py) are too noisy.

    python bench/count_sim.py [--runs N]

Each bytecode Python executes is counted with `sys.settrace` (opcode events), over N fights (default
20) of each, after 200 mechscript fights so that its busy functions are written as Python first.
mechscript's fights are `mech sim`'s: the script set up once (sim/prepared.py), each run restored
and fought; the set-up itself is not counted.
mechscript's count is split by where the bytecodes run: the functions written as Python (and, of
those, the lines that count steps against the `steps` limit: loop rounds, calls, list work) and each
file of the interpreter.
"""

from __future__ import annotations

import argparse
import dis
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sim import EXAMPLE, hand_pbem  # bench/ is not a package: its folder is on sys.path above

STEP_NAMES = {"steps", "step_limit", "step"}   # ev.steps += 1; if ev.steps > ev.step_limit: ev.step(...)


def step_lines(code) -> set:
    """The lines of a written function that count steps: the ones that touch ev.steps or ev.step."""
    lines = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_ATTR", "STORE_ATTR", "LOAD_METHOD") and instruction.argval in STEP_NAMES:
            lines.add(instruction.positions.lineno)
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            lines |= step_lines(const)
    return lines


def counted(call) -> dict:
    """Runs `call`, counting the bytecodes executed, by where they ran."""
    counts: dict = {}
    steps_of: dict = {}

    def where(frame) -> str:
        code = frame.f_code
        if code.co_filename.startswith("<mechscript fn"):
            if code not in steps_of:
                steps_of[code] = step_lines(code)
            return "written functions: counting steps" if frame.f_lineno in steps_of[code] \
                else "written functions: the rest"
        path = Path(code.co_filename)
        return f"{path.parent.name}/{path.name}" if "mechscript" in path.parts else path.name

    def trace(frame, event, arg):
        if event == "call":
            frame.f_trace_opcodes = True
        elif event == "opcode":
            key = where(frame)
            counts[key] = counts.get(key, 0) + 1
        return trace

    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20,
                        help="fights counted of each (default 20; tracing makes a fight about 100 times slower)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    from mechscript.dice.faces import RandomFaces
    from mechscript.interpreter.limits import Limits
    from mechscript.interpreter.script import compile_script
    from mechscript.sim.batch import run_seed
    from mechscript.sim.prepared import Prepared

    script = compile_script(EXAMPLE.read_text(), str(EXAMPLE), EXAMPLE.parent, Limits())
    prepared = Prepared.of(script)      # set up once, as `mech sim` sets it up in each process
    assert prepared is not None, "the example is no longer set up once: the count would not be mech sim's"
    for index in range(200):            # the busy functions are written as Python by now
        prepared.fight(run_seed(1, index))
    steps = sum(script.run(RandomFaces(run_seed(1, 200 + i)), quiet=True).steps for i in range(args.runs))
    mech = counted(lambda: [prepared.fight(run_seed(1, 200 + i)) for i in range(args.runs)])
    hand = counted(lambda: [hand_pbem.fight(hand_pbem.ambush(), random.Random(i)) for i in range(args.runs)])

    per = lambda counts: sum(counts.values()) / args.runs
    print(f"Python bytecodes per duel of examples/pbem_ambush.mech, {args.runs} duels each")
    print(f"  hand-written                 {per(hand):>10,.0f}")
    print(f"  mechscript                   {per(mech):>10,.0f}   {per(mech) / per(hand):.1f}x the hand-written")
    print(f"  mechscript steps counted     {steps / args.runs:>10,.0f}   (loop rounds, calls, list items)")
    print()
    print("mechscript's, by where they run:")
    total = sum(mech.values())
    for key, count in sorted(mech.items(), key=lambda item: -item[1]):
        if count / total >= 0.005:
            print(f"  {key:<36}{count / args.runs:>10,.0f}  {count / total:6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
