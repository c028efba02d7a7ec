"""A script's encounter prepared once per process and fought quietly by written Python (emit.py).

Set-up (once): the script's top level runs on the closures, as every run's would, but with a face
source that refuses to roll: the modules' top levels, the house rules, the characters (made and
checked) and the encounter. Then each module's `fn`s are written as Python into one namespace, and
what a run may change is kept (keep.py): the modules' and the script's variables (options), each
character's state, the encounter's settings.

A run: the variables and each character's state back to what the set-up left (lists and records
as fresh copies), the encounter's round 0, its settings written into its module's options, a fresh
face source for the run's seed, and the module's `fight` called. The outcome is `fight_once`'s.

Exact by construction: a script whose top level rolls dice, or whose kept values share a list or
record (a copy would part them), is not prepared (`Unsupported`): its runs stay on the closures. A
run that bails (runtime.py) is played again on the closures from its seed: its outcome, or its
error, is theirs.
"""

from __future__ import annotations

import math
import types
from fractions import Fraction
from pathlib import Path

from ..checker.infer import infer
from ..dice.engine import DiceRoll, roll_dice
from ..dice.faces import RandomFaces, later_face, later_total
from ..dice.rollkeep import KeepRoll, Pool, pool_of, roll_and_keep
from ..interpreter import ast, characters, running, script as closures
from ..interpreter.evaluator import binary, compare_values, power, small_whole, unary
from ..interpreter.names import UNSET
from ..interpreter.parser import quick_collector
from ..interpreter.lookup import ROLL_FIELDS, get_index
from ..interpreter.values import (TEXT_STEP, Character, Encounter, Kind, Record, Scope, Table,
                                  TableRow, equal, record_of)
from ..limits import CpuTime, Limits
from ..numbers import normal
from .calls import builtin_impls
from .changes import changed_sites, table_may_change, tables_assigned
from .compiled import compiled
from .depth import call_depth
from .emit import Emitter
from .keep import Keeping, reachable
from .memo import REMEMBERING, Remembered, answer_of, known, remembering
from .narration import Purity, has_pools
from .peephole import merged
from .runtime import (Bail, WrittenRun, bail, exact_difference, exact_product, exact_quotient, exact_sum,
                      fresh, half, module_field_set, ratio)
from .scalars import record_lets
from .unchanging import unchanging_fields, written_fields
from .unread import left_out, named_calls, quiet_nodes, uncalled, unread_fields, unread_values, unreached
from .writer import SHORT_LIST, ModuleText, Unsupported, roll_or_none, small_literal


def python_name(text: ModuleText, fn: ast.FnDef) -> str:
    """The name of a `fn`'s Python function in the namespace (a house rule's is the script's own)."""
    if fn.module is not None:
        return f"{text.prefix}__{fn.module}_{fn.name}"
    return text.global_name(fn.name)


def rolls_as_numbers(programs, types, dead: set, unread: dict) -> bool:
    """Whether no code a quiet run works out (`dead` and `unread`: what it leaves out, unread.py)
    shows a roll's breakdown or reads a roll's fields but the `total` of what is surely a roll
    (which, a die being its total, is the die itself)."""
    for node in quiet_nodes(programs, dead, unread):
        if type(node) is ast.Call and type(node.callee) is ast.Name and node.callee.id == "breakdown":
            return False
        if type(node) is ast.Field and node.name in ROLL_FIELDS and types.of(node.target).maybe("roll") \
                and not (node.name == "total" and roll_or_none(types.of(node.target))):
            return False
    return True


def fixed_tables(texts, assigned: set, every_fn, nodes_of, types, changed) -> dict:
    """{global name: Table} of the tables every run reads as the set-up left them, the very objects:
    no code a run may run assigns the name or into any table or row, and no code changes in place
    what an entry holds (so no run gets a copy: keep.py). The written code looks a text up in such a
    table through one dict (access.py)."""
    if tables_assigned(every_fn, nodes_of, types):
        return {}
    fixed = {}
    for text in texts:
        for statement in text.program.statements:
            if type(statement) is not ast.TableDef or statement.name in assigned:
                continue
            value = text.scope.vars.get(statement.name)
            if type(value) is Table and not table_may_change(statement, types, changed):
                fixed[text.global_name(statement.name)] = value
    return fixed


def assigned_names(texts) -> set:
    """The names of top-level variables some code a run may run assigns, by name alone (a local of
    the name counts too): `x = ...` and `module.x = ...` anywhere but a top-level assignment, which
    the set-up ran. A run calls functions alone; a name not in this set keeps what the set-up left."""
    modules = {name for text in texts for name, kind in text.names.items() if kind == "module"}
    assigned = set()
    for text in texts:
        for statement in text.program.statements:
            for node in ast.walk(statement) if type(statement) is not ast.Assign else ():
                if type(node) is not ast.Assign:
                    continue
                target = node.target
                if type(target) is ast.Name:
                    assigned.add(target.id)
                elif type(target) is ast.Field and type(target.target) is ast.Name and target.target.id in modules:
                    assigned.add(target.name)
    return assigned


def frozen_options(texts, assigned: set, home: ModuleText, settings) -> dict:
    """The options no run changes (none of `assigned_names`), by global name, with the value each
    run reads: what the set-up left (in the rules' module, the encounter's setting). The written
    code compares each as the literal it is (Writer.fixed)."""
    frozen = {}
    for text in texts:
        values = option_values(text, home, settings)
        for name, kind in text.names.items():
            value = values.get(name)
            if kind == "let" and name not in assigned and name in values and small_literal(value):
                frozen[text.global_name(name)] = value
    return frozen


def option_values(text: ModuleText, home: ModuleText, settings) -> dict:
    """The values of a module's top-level names as each run reads them: what the set-up left, and in
    the rules' module (`home`) the encounter's settings."""
    return {**text.scope.vars, **({name: value for name, _, value in settings} if text is home else {})}


def short_text_lists(texts, assigned: set, home: ModuleText, settings) -> dict:
    """{global name: its length} of the list options no code assigns that hold no string of
    TEXT_STEP characters or more, as each run reads them (the set-up's, or in the rules' module the
    encounter's setting: pbem's `rank_rolls`): a list no code changes in place either
    (Writer.list_may_change) is that list in every run (access.no_long_text_in, list_length)."""
    short = {}
    for text in texts:
        values = option_values(text, home, settings)
        for name, kind in text.names.items():
            value = values.get(name)
            if kind == "let" and name not in assigned and type(value) is list and \
                    all(type(item) is not str or len(item) < TEXT_STEP for item in value):
                short[text.global_name(name)] = len(value)
    return short


class NoFaces:
    """The set-up's face source: a top level that rolls dice is run anew each run."""

    def roll(self, n, die):
        raise Unsupported("the top level rolls dice")


def kind_names(texts, filename: str) -> dict:
    """{(path, kind name), as the checker names kinds: the Kind}."""
    kinds = {}
    for text in texts:
        for name, value in text.scope.vars.items():
            if type(value) is Kind:
                path = text.path if text.path is not None else filename
                kinds[(str(Path(path).resolve()), name)] = value
    return kinds


def kind_states(kinds: dict) -> dict:
    """Each kind's state names by (path, kind name)."""
    return {key: kind.schema.changes for key, kind in kinds.items()}


ONE_DIGIT = 2 ** 30 - 1   # the largest whole number CPython holds in one digit


def written_helpers(limits, encounter, members, rounds) -> dict:
    """What the written code refers to besides its constants and its own functions."""
    namespace = {
        "Bail": Bail, "bail": bail, "UNSET": UNSET, "ratio": ratio, "half": half,
        "exact_sum": exact_sum, "exact_difference": exact_difference, "exact_product": exact_product,
        "exact_quotient": exact_quotient, "Pool": Pool, "KeepRoll": KeepRoll, "DiceRoll": DiceRoll,
        "pool_of": pool_of, "normal": normal,
        "roll_and_keep": roll_and_keep,
        "Character": Character,
        "Record": Record, "record_of": record_of,
        "Encounter": Encounter, "Table": Table, "TableRow": TableRow, "FunctionType": types.FunctionType,
        "REMEMBERING": REMEMBERING, "known": known,
        "Fraction": Fraction,
        "floor": math.floor, "ceil": math.ceil,
        "binary": binary, "unary": unary, "power": power, "compare_values": compare_values, "equal": equal,
        "roll_dice": roll_dice, "repeat_count": running.repeat_count,
        "ENCOUNTER": encounter, "MEMBERS": members, "ROUNDS": rounds,
        "SIDES": [record_of({"name": side, "members": list(side_members)}) for side, side_members in encounter.sides],
        "get_field": running.get_field, "set_field": module_field_set,
        "get_index": get_index, "set_index": running.set_index, "show": running.show,
        # the written code's run-time tests `x < SMALL`, `-SHOWN_WHOLE < x < SHOWN_WHOLE` take a
        # bound CPython 3.11 compares as quickly as it can (COMPARE_OP_INT_JUMP: both sides within one
        # 30-bit digit; 2**60 is two, a generic comparison at some 15 ns more each time); a number past
        # it takes the slow way, `binary` or `show`, with the same result
        "SMALL": min(small_whole(limits), ONE_DIGIT),
        "LOOP_ITERATIONS": limits.loop_iterations, "LOOP_ROUNDS": range(limits.loop_iterations),
        "LIST_SIZE": limits.list_size, "STEP": None, "DICE": None, "SAY": None,
        "BITS": None, "later_face": later_face, "later_total": later_total, "SHOWN_WHOLE": min(running.SHOWN_WHOLE, ONE_DIGIT),
        "NUMBER_BITS": limits.number_bits, "DICE_PER_ROLL": limits.dice_per_roll, "DIE_SIDES": limits.die_sides,
        "EXPLOSION_DEPTH": limits.explosion_depth,
        "STRING_SIZE": limits.string_size, "TOTAL_DICE": limits.total_dice,
        "SHORT_LIST": SHORT_LIST,
        "NO_FIELD": [],       # a missing field of a character read by its name (access.py): never changed
        "EV": None,           # the run's evaluation: the set-up's one WrittenRun, renewed for each run
    }
    namespace.update(builtin_impls())
    return namespace


class QuietFight(Keeping):
    """A compiled script's encounter, prepared in this process; `fight(seed)` is `fight_once`'s."""

    def __init__(self, script: closures.Script):
        self.script = script
        limits = script.limits
        self.timer = CpuTime(limits)   # each run's `seconds` (CpuTime.again)
        self.faces = RandomFaces(0)    # each run's dice, seeded anew (RandomFaces.reseeded)
        ev = running.Run(NoFaces(), limits, quiet=True)
        ev.scope = Scope(None)
        try:
            script.code(ev)
        except Unsupported:
            raise
        except Exception as error:   # the top level fails: every run gives that error, the closures' way
            raise Unsupported("the top level fails") from error
        encounter = ev.encounter
        if encounter is None or not encounter.characters:
            raise Unsupported("no encounter")
        self.encounter = encounter
        self.sides = [name for name, _ in encounter.sides]
        self.members = tuple(tuple(members) for _, members in encounter.sides)
        self.rounds = limits.rounds
        self.setup_steps, self.setup_lines = ev.steps, len(ev.log)
        self.setup_dice = ev.dice
        modules = {id(module): (path, module) for path, module in ev.modules.items()}
        self.texts: dict[int, ModuleText] = {}      # id(scope) -> ModuleText
        # no garbage collection from here on, as parsing (quick_collector): the set-up makes hundreds of
        # thousands of objects, all alive to its end (robomacs: 140 collections, a quarter of its time),
        # and no code of the script runs: it reads the trees
        with quick_collector():
            program = script.program or closures.text_program(script)
            script_text = self._module_text("s", program, ev.scope, modules)
            home = encounter.characters[0].kind.home
            if id(home) not in self.texts or any(c.kind.home is not home for c in encounter.characters):
                raise Unsupported("the encounter's rules")
            self.home = self.texts[id(home)]
            with ast.children_remembered():
                self.namespace = self._namespace(script_text, ev, limits)
                self.namespace["BITS"] = self.faces.getrandbits
        self._keep(ev, home)
        # each run's budgets and dice: one object, renewed for each run (fight)
        self.run = WrittenRun(self.faces, limits, self.namespace, self.setup_steps, self.setup_dice, self.setup_lines)

    # -- set-up --

    def _module_text(self, prefix: str, program: ast.Program, scope: Scope, modules: dict,
                     path: str | None = None) -> ModuleText:
        text = ModuleText(prefix, program)
        text.scope, text.path = scope, path
        self.texts[id(scope)] = text
        for statement in program.statements:
            if type(statement) is ast.Use:
                module = scope.vars[statement.name]
                if id(module.scope) in self.texts:
                    text.uses[statement.name] = self.texts[id(module.scope)]
                    continue
                path, _ = modules[id(module)]
                if path not in self.script.modules:
                    raise Unsupported("a module the script was not compiled with")
                # the tree the closures run: not the file read again (edited since, or read another way)
                text.uses[statement.name] = self._module_text(f"m{len(self.texts)}", self.script.modules[path],
                                                              module.scope, modules, path)
        return text

    def _namespace(self, script_text: ModuleText, ev, limits) -> dict:
        defs = {}    # global name -> (module, the FnDef bound to it once the house rules are in)
        for text in self.texts.values():
            for statement in text.program.statements:
                if type(statement) is ast.FnDef and statement.module is None:
                    defs.setdefault(text.global_name(statement.name), (text, statement))
        for text in self.texts.values():
            for statement in text.program.statements:
                if type(statement) is ast.FnDef and statement.module is not None:
                    defs[text.uses[statement.module].global_name(statement.name)] = (text, statement)

        def callee(module: ModuleText, call: ast.Call):
            target = call.callee
            if type(target) is ast.Name:
                found = module.lookup(target.id)
                if found is not None and found[1] == "fn":
                    return defs.get(found[0].global_name(target.id))
            elif type(target) is ast.Field and type(target.target) is ast.Name:
                found = module.lookup(target.target.id)
                if found is not None and found[1] == "module":
                    used = found[0].uses[target.target.id]
                    if used.names.get(target.name) == "fn":
                        return defs.get(used.global_name(target.name))
            return None

        programs = [text.program for text in self.texts.values()]
        pools = has_pools(programs)
        every_fn = [(text, fn) for text, fn in defs.values()] + \
            [(text, s) for text in self.texts.values() for s in text.program.statements
             if type(s) is ast.FnDef and s.module is not None]
        types = infer(script_text.program, {Path(text.path): text.program for text in self.texts.values()
                                            if text.path is not None}, Path(self.script.filename))
        purity = Purity(every_fn, callee, pools, types)
        functions = {id(fn): python_name(text, fn) for text in self.texts.values()
                     for fn in text.program.statements if type(fn) is ast.FnDef}
        named = named_calls(every_fn, programs)
        while True:   # a local only unread fields read is left out too, and then more may be unread
            dead = left_out(every_fn, purity)
            never_called = uncalled(every_fn, named, dead)
            dead |= never_called
            unread = unread_fields(every_fn, programs, purity, types, dead)
            values = unread_values(programs, unread)
            if values <= purity.skipped:
                break
            purity.skip(values)
        writer = Emitter(small_whole(limits), purity, pools, types, functions,
                         rolls_as_numbers(programs, types, dead, unread))
        kinds = kind_names(self.texts.values(), self.script.filename)
        writer.states = kind_states(kinds)
        assigned = assigned_names(self.texts.values())
        writer.frozen = frozen_options(self.texts.values(), assigned, self.home, self.encounter.settings)
        keys = {id(kind): key for key, kind in kinds.items()}
        held = [value for text in self.texts.values() for name, value in text.scope.vars.items()
                if text.names.get(name) not in ("fn", "module", None)] + [value for _, _, value in self.encounter.settings]
        until = self._until_node(script_text)
        code = [fn for _, fn in every_fn] + ([until] if until is not None else [])   # what a run may run
        reachable_characters, encounters = reachable(self.encounter.characters, held + [self.encounter, *ev.encounters.values()])
        # the length of `enc.characters` in every run, if every encounter a run can reach has as many
        writer.encounter_size = len(self.encounter.characters) if \
            len({len(encounter.characters) for encounter in encounters}) == 1 else None
        writer.unchanging = unchanging_fields(reachable_characters,
                                              lambda character: keys.get(id(character.kind)),
                                              written_fields(code, types, frozenset().union(
                                                  *(character.kind.schema.changes for character in reachable_characters))))
        writer.short_text_lists = short_text_lists(self.texts.values(), assigned, self.home, self.encounter.settings)
        writer.unread = unread
        writer.record_lets = record_lets(every_fn, purity.nodes)
        writer.short_sides = all(len(name) < TEXT_STEP for name in self.sides)
        writer.limits = limits
        writer.changed = changed_sites(programs, types)
        writer.fixed_tables = fixed_tables(self.texts.values(), assigned, every_fn, purity.nodes, types, writer.changed)
        writer.owners = {id(fn): text for text in self.texts.values() for fn in text.program.statements
                         if type(fn) is ast.FnDef}
        self.types, self.changed, self.kinds = types, writer.changed, set(writer.states)
        # what the rules work out again and again from a sheet is worked out once (memo.py): not
        # written in place of its calls (calls.Calls.inlined)
        remembered = Remembered(list(defs.values()), callee, types, writer.states, writer.changed,
                                {text.global_name(name) for text in self.texts.values() for name in assigned},
                                purity)
        # the depth of calls, counted by the fns that may reach themselves alone (depth.py); a known
        # answer of one that reaches them would skip the depth they count: it is not remembered
        depth = call_depth(self.texts.values(), callee, types)
        if depth.others > limits.recursion - (1 if depth.recursive else 0):
            raise Unsupported("calls that may nest past the `recursion` limit")
        self.depth = depth.others   # each run's depth to start with
        writer.recursive = depth.recursive
        remembered.ids -= depth.reaching
        writer.remembered = remembered.ids
        unwritten = unreached(every_fn, named) | never_called   # fns a quiet run never calls: not written
        writer.remembered_names = {name for name, (_, fn) in defs.items()
                                   if id(fn) in remembered.ids and id(fn) not in unwritten}
        # global name -> (the state it reads, the parameters never none, those a character or none) of
        # a remembered fn keyed by state: its calls call its `answer` with that state, not the
        # function that reads it
        writer.keyed_calls = {name: (remembered.keyed[id(fn)], writer.never_none(fn), writer.characters_or_none(fn))
                              for name, (_, fn) in defs.items()
                              if id(fn) in remembered.ids and remembered.keyed[id(fn)]}
        bound = {}   # global name -> the function's python name (a house rule: the script's function)
        shown = {}   # python name -> the name a text shows the function by, as the closures do
        for text in self.texts.values():
            for statement in text.program.statements:
                if type(statement) is not ast.FnDef:
                    continue
                if statement.module is not None:   # `fn pbem.x(...)`: the script's, bound to pbem's x
                    target = text.uses[statement.module]
                    python = python_name(text, statement)
                    writer.function(text, statement, python)
                    bound[target.global_name(statement.name)] = python
                    shown[python] = f"{statement.module}.{statement.name}"
                elif id(statement) not in unwritten:
                    writer.function(text, statement, text.global_name(statement.name))
                    shown[text.global_name(statement.name)] = statement.name
        writer.ended(script_text, self._until_node(script_text), self.home.global_name("standing"))
        source = "\n".join(merged(writer.lines, writer.present_names)) + "\n"
        namespace = written_helpers(limits, self.encounter, self.members, self.rounds)
        # the depth the recursive fns may reach (depth.py); past the default limit, whatever the
        # limit, the closures decide: with a raised one, Python's stack may end their run first
        namespace["DEEPEST"] = min(limits.recursion, Limits().recursion)
        namespace.update(writer.constants)
        try:
            code = compiled(source, f"<mechscript quiet {self.script.filename}>")
        except (SyntaxError, RecursionError) as error:   # past Python's own limits (20 blocks nested)
            raise Unsupported(f"Python's compiler refuses the written code: {error}") from None
        exec(code, namespace)
        for python, name in shown.items():
            namespace[python].mech_fn = name   # "{f}" shows `<fn name>` (values.format_value)
        for name, python in bound.items():
            namespace[name] = namespace[python]
        self.remembered = writer.remembered_names   # the written code looks up KNOWN_<each>
        keyed = {name: remembered.keyed[id(defs[name][1])] for name in self.remembered}
        for name in self.remembered:
            fn = defs[name][1]
            namespace[name] = remembering(namespace[name], keyed[name], writer.never_none(fn),
                                          writer.characters_or_none(fn))
            if name in writer.keyed_calls:   # what the written code calls with the state it reads
                namespace["A_" + name] = answer_of(namespace[name])
            namespace["KNOWN_" + name] = {}   # the answers the written code looks up first (memo.known)
        self.source = source
        self.assigned = writer.every_assigned
        return namespace

    def _until_node(self, script_text: ModuleText):
        found = [s for s in script_text.program.statements
                 if type(s) is ast.EncounterDef and s.title == self.encounter.name]
        return found[0].until if found else None

    # -- a run --

    def fight(self, seed: int, raising: bool = False):
        """(outcome, the encounter's name, its sides) as `fight_once` gives them, or None when the run
        bailed: the caller fights that run whole, on the closures, for its outcome or its error.
        `raising`: what stopped the run is raised instead, Bail or the Python error of an operation
        the closures stop at with theirs (the fuzz test tells the two apart)."""
        ev = self.run.renew(self.faces.reseeded(seed))   # BITS, its bits, is the namespace's since the set-up
        ev.depth = self.depth   # the most calls of fns that count no depth (depth.py)
        try:
            with self.timer.again(ev):   # the `seconds` of a run, as Script.run times it
                outcome = self._fight()
            if ev.overspent:   # each part of a budget was within the limit, together not (runtime.Budget)
                bail()
        except Exception:   # Bail, or an error the closures will word
            if raising:
                raise
            return None
        return outcome, self.encounter.name, self.sides

    def _fight(self):
        namespace, encounter = self.namespace, self.encounter
        for name, value, copy in self.globals_reset:
            namespace[name] = fresh(value) if copy else value
        for fields, plain in self.restores:
            fields.update(plain)
        self.copy_all()
        encounter.round = 0
        winner = namespace[self.fight_name](encounter)
        if winner is not None and winner not in self.sides or type(encounter.round) is not int:
            bail()
        report = namespace[self.report] if self.report is not None else None
        standing = namespace[self.standing_name]
        result = {}
        if report != self.reported:   # a fight changed `report`: the closures' way, with its checks
            states = characters.end_states(encounter, report)
            for character, (name, state) in zip(encounter.characters, states.items()):
                result[name] = (standing(character) is True, characters.state_numbers(state))
            return winner, encounter.round, result
        return winner, encounter.round, self.written_report(standing)
