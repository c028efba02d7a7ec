"""The checker's type inference (mechscript/checker): facts it must find in the pbem rules, house rules
and options it must follow, and soundness: every value a run gives an expression is in its type."""

from __future__ import annotations

import functools
from fractions import Fraction
from pathlib import Path

import pytest

from mechscript.checker import types as T
from mechscript import check
from mechscript.api import load_script
from mechscript.checker.infer import infer, infer_file, load_modules
from mechscript.checker.problems import program_types
from mechscript.dice.engine import DiceRoll
from mechscript.dice.faces import RandomFaces
from mechscript.dice.rollkeep import KeepRoll, Pool
from mechscript.interpreter import ast, compile_names, running, script
from mechscript.interpreter.evaluator import Compiler
from mechscript.limits import Limits
from mechscript.interpreter.parser import parse_program
from mechscript.interpreter.values import Character, Encounter, Function, Kind, Module, Record, Table, TableRow

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mech"))
STDLIB = sorted((ROOT / "mechscript" / "stdlib").glob("*.mech"))
AMBUSH = ROOT / "examples" / "pbem_ambush.mech"


@functools.lru_cache(maxsize=None)
def ambush():
    return infer_file(AMBUSH)


def fn(types, name: str, module: str = "pbem") -> ast.FnDef:
    """The `fn` of that name in the file whose stem is `module`."""
    found = [info.node for info in types._i.fns.values()
             if info.node.name == name and info.file is not None and Path(info.file.path).stem == module]
    assert len(found) == 1, (name, module, found)
    return found[0]


def nodes(fn_def, cls, **attrs):
    return [n for n in ast.walk(fn_def.body) if type(n) is cls and all(getattr(n, k) == v for k, v in attrs.items())]


def field_in(types, fn_def, target: str, name: str) -> T.Type:
    """The type of `target.name` in a function (all such nodes must agree)."""
    found = {types.of(n) for n in nodes(fn_def, ast.Field, name=name)
             if type(n.target) is ast.Name and n.target.id == target}
    assert len(found) == 1, found
    return found.pop()


def infer_text(text: str, folder: Path = ROOT / "examples"):
    return infer_program(text, folder)[1]


def infer_program(text: str, folder: Path = ROOT / "examples"):
    """(the program of `text`, its types)."""
    path = folder / "<test>.mech"
    program = parse_program(text, str(path))
    return program, infer(program, load_modules(program, path), path)


# ---- it runs on everything ----

@pytest.mark.parametrize("path", EXAMPLES + STDLIB, ids=lambda p: p.name)
def test_infers_every_example_and_module(path):
    types = infer_file(path)
    for info in types._i.fns.values():  # every function has an answer of each kind
        types.params(info.node), types.returns(info.node), types.rolls(info.node)


# ---- facts of the pbem rules, as examples/pbem_ambush.mech uses them ----

TRANSFORMER = (str(ROOT / "mechscript" / "stdlib" / "pbem.mech"), "Transformer")


def test_pbem_fields_of_characters():
    types = ambush()
    assert field_in(types, fn(types, "standing"), "c", "status").surely("str")
    acts_before = fn(types, "acts_before")
    for name in ("speed", "skill", "rank"):
        assert field_in(types, acts_before, "a", name) == T.T_INT
        assert field_in(types, acts_before, "b", name) == T.T_INT
    assert [p.kind() for p in types.params(acts_before)] == [TRANSFORMER, TRANSFORMER]
    fields = types.kind_fields(TRANSFORMER)
    assert fields["hp"] == T.T_INT and fields["hp_max"] == T.T_INT and fields["status"] == T.T_STR
    assert fields["hit"] == T.T_BOOL and fields["rank_points"] == T.T_INT
    assert types.elements(fields["weapon"]).kind() == (TRANSFORMER[0], "Weapon")


def test_pbem_results_of_functions():
    types = ambush()
    for name in ("standing", "can_act", "targetable", "acts_before", "beats", "rolled_again", "instant_kill"):
        assert types.returns(fn(types, name)) == T.T_BOOL, name
    leaders = types.returns(fn(types, "leaders_of"))
    assert leaders.surely("list") and types.elements(leaders).kind() == TRANSFORMER
    roll = types.returns(fn(types, "opposed"))
    assert roll.shape() == ("what", "att", "def", "att_die", "def_die", "att_total", "def_total", "att_help",
                            "def_help")
    fields = types.fields(roll)
    for name in ("att_die", "def_die", "att_total", "def_total"):
        assert fields[name] == T.T_INT, name
    assert fields["what"] == T.T_STR and fields["att_help"] == T.T_STR and fields["att"].kind() == TRANSFORMER
    assert types.returns(fn(types, "damage_power")) == T.T_INT
    assert types.returns(fn(types, "rank_spend")) == T.T_INT


def test_pbem_dice_and_calls():
    types = ambush()
    assert types.rolls(fn(types, "opposed")) and types.rolls(fn(types, "attack")) and types.rolls(fn(types, "fight"))
    assert not types.rolls(fn(types, "standing")) and not types.rolls(fn(types, "beats"))
    assert not types.rolls(fn(types, "leaders_of"))
    opposed = fn(types, "opposed")
    dice = nodes(opposed, ast.Dice)
    assert dice and all(types.of(d) == T.of(T.RollT(True)) for d in dice)   # dice: not a roll-and-keep's
    # a call by name reaches one fn; a call through a parameter holding a function reaches the ones passed
    damage = fn(types, "damage")
    call = next(c for c in nodes(damage, ast.Call) if type(c.callee) is ast.Name and c.callee.id == "damage_power")
    assert types.callee(call) is fn(types, "damage_power")


def test_fights_calls_through_a_function_value():
    types = ambush()
    sides_standing = fn(types, "sides_standing", "fights")
    enc, standing = types.params(sides_standing)
    assert enc.surely("encounter")
    assert standing.functions() == [fn(types, "standing")]
    call = next(c for c in nodes(sides_standing, ast.Call) if type(c.callee) is ast.Name and c.callee.id == "standing")
    assert types.of(call) == T.T_BOOL  # what pbem's standing gives: the only function passed here
    assert types.callee(call) is fn(types, "standing")
    assert types.elements(types.returns(sides_standing)) == T.T_STR


# ---- house rules and options ----

def test_a_house_rule_replaces_the_rule_for_every_caller():
    types = infer_text('use pbem\nfn pbem.damage_power(att, weapon) = "x"\n' + _AMBUSH_CHARACTERS)
    damage = fn(types, "damage")
    power = next(n for n in nodes(damage, ast.Call) if type(n.callee) is ast.Name and n.callee.id == "damage_power")
    assert types.of(power).maybe("str")
    house = types.callee(power)
    assert house is not None and house.module == "pbem"  # pbem's own caller reaches the script's rule
    original = fn(types, "damage_power")  # never called: nothing reaches it
    assert types.params(original)[0].is_empty and types.returns(original).is_empty


def test_an_option_assigned_a_number_is_no_longer_surely_a_string():
    plain = ambush()
    assert field_in(plain, fn(plain, "beats"), "roll", "what").surely("str")
    tie = next(n for n in nodes(fn(plain, "beats"), ast.Name, id="tie"))
    assert plain.of(tie).surely("str")
    for text in ("use pbem\npbem.tie = 3\n", "use pbem\nfn f() { tie = 3 }\nf()\n"):
        types = infer_text(text + _AMBUSH_CHARACTERS)
        tie = next(n for n in nodes(fn(types, "beats"), ast.Name, id="tie"))
        assert types.of(tie).maybe("int") and not types.of(tie).surely("str")
    setting = _AMBUSH_CHARACTERS.replace("until one_side_left", "tie: 4\n    until one_side_left")
    types = infer_text("use pbem\n" + setting)
    tie = next(n for n in nodes(fn(types, "beats"), ast.Name, id="tie"))
    assert types.of(tie) == T.of(T.STR, T.INT)


def test_unknown_calls_make_function_values_unknown():
    text = """
fn twice(x) = x * 2
fn apply(f, v) = f(v)
let table_of = [twice]
let g = table_of[0]
say apply(g, 3)
"""
    types = infer_text(text)
    assert types.params(fn(types, "twice", "<test>"))[0] == T.T_INT
    text = "fn twice(x) = x * 2\nlet r = dist(d6)\nsay r(3)\nsay twice\n"
    types = infer_text(text)
    assert types.params(fn(types, "twice", "<test>"))[0].is_any


def test_a_call_of_a_one_line_fn_of_two_parameters_gives_what_its_own_arguments_make():
    # transformers adds pools from calls through `add(a, b) = a + b`, which other calls give numbers:
    # each call's type is the sum of its own arguments' types (every call's result is the fn's)
    text = "fn add(a, b) = a + b\nlet n = add(1, 2)\nlet p = add(3k2, 1k1)\nlet q = add(3k2, n)\nsay n\nsay p\nsay q\n"
    program, types = infer_program(text)
    n, p, q = (s.value for s in program.statements if type(s) is ast.Let)
    assert types.of(n) == T.T_INT
    assert types.of(p) == types.of(q) == T.of(T.PoolT(True))
    assert types.returns(fn(types, "add", "<test>")) == T.T_INT | T.of(T.PoolT(True))


def test_a_pool_rolled_is_surely_a_roll_and_keep_roll_and_a_die_is_not():
    # `roll(p)` of a pool gives a KeepRoll (whose `kept` the written code reads as it is); a die, or
    # a value that may be either, is a roll that may be any
    text = "let p = roll(3k2)\nlet die = d6\nlet e = [roll(2k1), d8][0]\nsay p\nsay die\nsay e\n"
    program, types = infer_program(text)
    p, d, e = (s.value for s in program.statements if type(s) is ast.Let)
    assert types.of(p) == T.of(T.RollT(True, keep=True))
    assert types.of(d) == T.of(T.RollT(True))
    assert types.of(e) == T.of(T.RollT(True, keep=True), T.RollT(True))


def test_a_table_of_one_unnamed_row_gives_its_values_and_one_with_named_rows_may_give_a_row():
    # `t[key]` of a table without named rows looks up its one row: never a row itself
    text = """
table ordinal { "close" => 1, "far" => 2, else => 0 }
table chart {
    fast: "a" => 1, else => 0
    slow: "b" => 2, else => 3
}
fn near(key) = ordinal[key]
fn lane(key) = chart[key]
say near("close") + 1
say lane("fast")["a"]
"""
    types = infer_text(text)
    assert types.returns(fn(types, "near", "<test>")) == T.T_INT
    lane = types.returns(fn(types, "lane", "<test>"))
    assert lane.maybe("row") and lane.maybe("int")



def test_a_field_named_at_run_time_and_updated_is_written_only_where_the_update_can_be():
    # `c[level] -= 1` fails at run time on a state that holds a character: only the number states
    # can take the result, so `foe` stays a character (it made robomacs' `holding` a number too)
    text = """
kind Mech {
    stat skill 1..5
    state hp = 3
    state foe = none
}
fn hurt(c, level) { c[level] -= 1 }
fn mark(c, other, name) { c[name] = other }
fn foe_of(c) = c.foe
character A is Mech { skill 2 }
character B is Mech { skill 3 }
A.foe = B
hurt(A, "hp")
say foe_of(A)
"""
    types = infer_text(text)
    foe = types.returns(fn(types, "foe_of", "<test>"))
    assert foe.maybe("character") and not foe.maybe("int"), foe
    types = infer_text(text + "mark(A, 4, \"foe\")\n")   # a plain write may put anything anywhere
    assert types.returns(fn(types, "foe_of", "<test>")).maybe("int")


# ---- soundness: what runs is in the types ----

def atom_holds(value, atom, types, depth) -> bool:
    kind = type(value)
    if kind is bool:
        return atom == T.BOOL
    if kind is int:
        return atom == T.INT
    if kind is Fraction:
        return atom == T.FRACTION
    if kind is str:
        return atom == T.STR
    if value is None:
        return atom == T.NONE
    if kind in (DiceRoll, KeepRoll):   # a roll the types say is surely a roll-and-keep's is one
        return type(atom) is T.RollT and (not atom.whole or type(value.total) is int) and \
            (not atom.keep or kind is KeepRoll)
    if kind is Pool:
        return type(atom) is T.PoolT and (not atom.whole or type(value.flat) is int)
    if kind is list:
        return type(atom) is T.ListT and (depth > 0 or all(holds(v, types._i.get(("elems", atom.site)), types,
                                                                     depth + 1) for v in value[:4]))
    if kind is Record:
        return type(atom) is T.RecordT and atom.names == tuple(value.fields) and (
            depth > 0 or all(holds(v, types._i.get(("field", atom.site, k)), types, depth + 1)
                             for k, v in value.fields.items()))
    if kind is Character:
        return type(atom) is T.CharT and atom.kind == (str(Path(value.kind.schema.filename).resolve()),
                                                       value.kind.name)
    if kind is Function:
        return type(atom) is T.FnT and value.name.rsplit(".", 1)[-1] == atom.ref.node.name
    if kind is Encounter:
        return atom == T.ENCOUNTER
    return {Module: T.ModuleT, Table: T.TableT, TableRow: T.RowT, Kind: T.KindT}.get(kind) is type(atom)


def holds(value, t: T.Type, types, depth=0) -> bool:
    return t.is_any or any(atom_holds(value, atom, types, depth) for atom in t)


_EXPRESSIONS = (ast.Number, ast.PoolLiteral, ast.Name, ast.ListLiteral, ast.Group, ast.Unary, ast.BinOp,
                ast.Compare, ast.Call, ast.Dice, ast.String, ast.Field, ast.Index, ast.Logic, ast.Not, ast.Record,
                ast.Match, ast.Power)


_SCALARS = (bool, int, str, type(None), Fraction)


class Tracer:
    """Runs a script under the interpreter (the closures) and checks each value an
    expression gives, each call's arguments and result, and that a function that drew dice rolls."""

    def __init__(self, types):
        self.types, self.bad, self.seen, self.passed = types, [], 0, set()
        self.bodies = {}  # id(closure of a function body) -> its FnDef

    def check(self, what, value, t):
        self.seen += 1
        if t.is_any:
            return
        kind = type(value)
        if kind in _SCALARS:  # a scalar kind checked once per type is checked for good
            if (t, kind) in self.passed:
                return
            self.passed.add((t, kind))
        elif kind is Character:  # as is a character of one kind
            if (t, value.kind) in self.passed:
                return
            self.passed.add((t, value.kind))
        if not holds(value, t, self.types):
            if type(what) is tuple:
                what = f"{what[0]} {what[1].name}"
            else:
                what = f"{type(what).__name__} at {what.span.line}:{what.span.col}"
            self.bad.append(f"{what}: {value!r} not in {t}")

    def run(self, path: Path, program, seeds):
        tracer = self
        original_compile, original_body, original_call = Compiler.compile, script.ScriptCompiler._function_body, \
            running.call_function

        def compile_traced(self, node):
            code = original_compile(self, node)
            if type(node) not in _EXPRESSIONS:
                return code

            def traced(ev):
                value = code(ev)
                tracer.check(node, value, tracer.types.of(node))
                return value
            return traced

        def body_traced(self, node):
            code, frame = original_body(self, node)
            tracer.bodies[id(code)] = node
            return code, frame

        def call_traced(ev, function, args, span):
            node = tracer.bodies.get(id(function.body))
            before = ev.dice
            result = original_call(ev, function, args, span)
            if node is not None:
                for i, (arg, t) in enumerate(zip(args, tracer.types.params(node))):
                    tracer.check((f"argument {i} of", node), arg, t)
                tracer.check(("result of", node), result, tracer.types.returns(node))
                if ev.dice > before and not tracer.types.rolls(node):
                    tracer.bad.append(f"{node.name} rolled dice")
            return result

        Compiler.compile, script.ScriptCompiler._function_body = compile_traced, body_traced
        running.call_function = compile_names.call_function = call_traced   # both places it is called from
        try:
            limits = Limits()
            text = path.read_text(encoding="utf-8-sig")
            compiler = script.ScriptCompiler(limits, script.ModuleLoader(limits), text, str(path),
                                             path.parent)
            code, _ = compiler.compile_program(program)
            compiled = script.Script(code, str(path), text, limits, path.parent)
            for seed in seeds:
                compiled.run(RandomFaces(seed), quiet=True)
        finally:
            Compiler.compile, script.ScriptCompiler._function_body = original_compile, original_body
            running.call_function = compile_names.call_function = original_call


@pytest.mark.parametrize("path", EXAMPLES + STDLIB, ids=lambda p: p.name)
def test_every_value_a_run_gives_is_in_its_type(path):
    program = parse_program(path.read_text(encoding="utf-8-sig"), str(path))
    types = infer(program, load_modules(program, path), path)
    tracer = Tracer(types)
    tracer.run(path, program, seeds=(1,))
    assert not tracer.bad, tracer.bad[:20]
    assert tracer.seen > 0 or path in STDLIB or path.name == "duel.mech"  # modules: their top level is lets
    print(path.name, tracer.seen)


def test_the_tracer_finds_a_wrong_type(monkeypatch):
    """The property above is not vacuous: a type made narrower than the truth is caught."""
    program = parse_program(AMBUSH.read_text(), str(AMBUSH))
    types = infer(program, load_modules(program, AMBUSH), AMBUSH)
    speed = next(n for n in nodes(fn(types, "acts_before"), ast.Field, name="speed"))
    types._i.node_types[id(speed)] = T.T_STR
    tracer = Tracer(types)
    tracer.run(AMBUSH, program, seeds=(1,))
    assert tracer.bad and all("Field at" in line and "not in str" in line for line in tracer.bad)


def test_soundness_under_a_house_rule_giving_a_string(tmp_path):
    path = tmp_path / "house.mech"
    path.write_text('use pbem\nfn pbem.weapon_name(weapon) = 7\n' + _AMBUSH_CHARACTERS)
    program = parse_program(path.read_text(), str(path))
    types = infer(program, load_modules(program, path), path)
    tracer = Tracer(types)
    tracer.run(path, program, seeds=(3,))
    assert not tracer.bad and tracer.seen > 1000


_AMBUSH_CHARACTERS = AMBUSH.read_text().split("use pbem\n", 1)[1]


def test_a_module_with_a_carriage_return_in_a_string_checks_as_it_runs(tmp_path):
    """`mech check` reads a module as the run does (a lone CR inside a string stays in it), where it
    read it in Python's text mode, which ends a line there: the string was not closed."""
    from test_sim import DUEL_RULES, encounter
    script = encounter(tmp_path, "duel", DUEL_RULES + 'let tag = "a\rb"\n')
    check(str(script))   # raised: the string is not closed
    infer_file(script)   # the types of a script file alone read its modules the same way


def test_the_checker_types_the_module_trees_the_script_runs(tmp_path):
    """The types of a compiled script are those of its modules as compiled (Script.modules), not of
    the files read again: a module edited since would be typed, not the trees the runs run."""
    from test_sim import DUEL_RULES, encounter
    path = encounter(tmp_path, "duel", DUEL_RULES)
    script = load_script(str(path))
    (tmp_path / "duel.mech").write_text(DUEL_RULES.replace("fn fight(enc)", "fn other(enc)"))
    types = program_types(script, script.parsed)
    module, = script.modules.values()
    fight = next(s for s in module.statements if type(s) is ast.FnDef and s.name == "fight")
    attacker = fight.body.statements[1].value   # let att = enc.sides[0].members[0]
    assert types.of(attacker).surely("character")


def _canonical(inference) -> tuple:
    """An inference's node types and slots, with its own objects (sites, variables) named by what
    made them, so that two inferences of one program compare."""
    import dataclasses
    site_keys = {id(site): key for key, site in inference.sites.items()}

    def value(v):
        if type(v) is T.Site:
            return ("site", site_keys[id(v)])
        if type(v) is T.Ref:
            return ("ref", id(v.node))
        if dataclasses.is_dataclass(v):
            return (type(v).__name__, *(value(getattr(v, f.name)) for f in dataclasses.fields(v)))
        return v

    def typed(t):
        return "ANY" if t.top else sorted(map(repr, map(value, t.atoms)))

    def key(k):
        return tuple(map(value, k)) if type(k) is tuple else ("var", id(k.node), k.name, k.kind)
    return ({k: typed(t) for k, t in inference.node_types.items()},
            {repr(key(k)): typed(t) for k, t in inference.slots.items()})


def assert_typed_as_typing_every_fn(path: Path, monkeypatch) -> None:
    """The types of the script at `path` are those of typing every `fn` on every pass, in fewer typings."""
    from mechscript.checker import infer as inference
    program = parse_program(path.read_text(), str(path), Limits())
    typings = []
    typed_once = inference.Inference._function
    monkeypatch.setattr(inference.Inference, "_function", lambda self, *a: typings.append(1) or typed_once(self, *a))
    skipping = infer(program, load_modules(program, path), path)._i
    fewer = len(typings)
    monkeypatch.setattr(inference.Inference, "function", inference.Inference._function)
    every = infer(program, load_modules(program, path), path)._i
    assert _canonical(skipping) == _canonical(every)
    assert fewer < len(typings) - fewer   # the second inference typed every fn on every pass


@pytest.mark.parametrize("name", ["pbem_ambush", "transformers_duel", "neojove_frigate", "robomacs_spartacus"])
def test_typing_only_the_fns_whose_inputs_grew_gives_the_types_of_typing_all(name, monkeypatch):
    """A pass types a `fn` again only when a slot its last typing read has grown since (or what
    every fn may read): the same types as typing every fn on every pass, in fewer typings."""
    assert_typed_as_typing_every_fn(Path(__file__).resolve().parent.parent / "examples" / f"{name}.mech", monkeypatch)


def test_a_kind_declared_in_a_block_reaches_the_fns_typed_before_it(tmp_path, monkeypatch):
    """A kind in an `if` is known only once a pass reaches it; `a`, typed before, writes a field of
    any holder, which is then the kind's too (review: `a` was skipped, and `hp` missed "str")."""
    script = tmp_path / "nested_kind.mech"
    script.write_text('let x = dist(d6)\na(x)\nw(x, "hp")\nfn a(p) {\n  p.hp = "wounded"\n}\n'
                      'fn w(p, k) {\n  p[k] = [1]\n}\nif true {\n  kind K {\n    state hp = 0\n  }\n'
                      '  character C is K { }\n  say C.hp\n}\n')
    assert_typed_as_typing_every_fn(script, monkeypatch)
