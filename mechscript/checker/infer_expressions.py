"""The inference's rules for expressions: what each may give, the calls it reaches and the dice it
may roll (a mixin of infer.Inference)."""

from __future__ import annotations

from ..interpreter import ast
from ..interpreter.builtins import BUILTINS, NOT_ROLLED
from . import types as T
from .scopes import RECORD_SITES, Scope, Unit
from .types import ANY, BOTTOM, T_BOOL, T_INT, T_NONE, T_NUMBER, T_STR, Type


CONSTANTS = {"true": T_BOOL, "false": T_BOOL, "none": T_NONE}


class ExpressionTypes:
    # -- expressions --

    def expr(self, node, scope: Scope, unit: Unit) -> Type:
        """The type of `node`, noted (`note`) with what earlier passes found. The rule of each kind
        of node is looked up once (`rules`): a pass types each expression, six passes a check."""
        rule = self.rules.get(type(node))
        if rule is None:
            rule = self.rules[type(node)] = getattr(type(self), "e_" + type(node).__name__)
        return self.note(node, rule(self, node, scope, unit))

    def e_Number(self, node, scope, unit):
        return T_INT if type(node.value) is int else T.T_FRACTION

    def e_PoolLiteral(self, node, scope, unit):
        return T.of(T.PoolT(True))

    def e_Name(self, node, scope, unit):
        var = scope.lookup(node.id)
        if var is None:
            return CONSTANTS.get(node.id, BOTTOM)  # a builtin's name alone is a checker error
        return self.read_var(var, unit)

    def e_Group(self, node, scope, unit):
        return self.expr(node.inner, scope, unit)

    def e_ListLiteral(self, node, scope, unit):
        items = T.join_all(self.expr(item, scope, unit) for item in node.items)
        return self.list_of(("list", id(node)), f"list@{node.span.line}", items)

    def e_Record(self, node, scope, unit):
        site = self.site(("record", id(node)), f"record@{node.span.line}")
        names = tuple(name for name, _ in node.fields)
        if self.record_sites.get(site) != names:
            self.record_sites[site] = names
            self.grew(RECORD_SITES)
        for name, value in node.fields:
            self.put(("field", site, name), self.expr(value, scope, unit))
        return T.of(T.RecordT(site, names))

    def e_String(self, node, scope, unit):
        for part in node.parts:
            if type(part) is not str and self.expr(part, scope, unit).maybe("pool"):
                self.mark_rolls(unit)
        return T_STR

    def e_Dice(self, node, scope, unit):
        self.mark_rolls(unit)
        whole = True
        if node.count is not None:
            self.expr(node.count, scope, unit)
        if isinstance(node.sides, ast.ListLiteral):  # faces from a list: numbers, maybe fractions
            for item in node.sides.items:
                whole = T.whole(self.expr(item, scope, unit)) and whole
        elif isinstance(node.sides, ast.Node):
            self.expr(node.sides, scope, unit)
        return T.of(T.RollT(whole))

    def e_Unary(self, node, scope, unit):
        t = self.expr(node.operand, scope, unit)
        if t.top:
            return ANY
        pools = {a for a in t if type(a) is T.PoolT}  # `-7k3` is a pool
        return Type(pools) | T.numeric(Type(a for a in t if type(a) is not T.PoolT))

    def e_BinOp(self, node, scope, unit):
        left, right = self.expr(node.left, scope, unit), self.expr(node.right, scope, unit)
        return self.binary(node.op, left, right, node, unit)

    def binary(self, op: str, a: Type, b: Type, node, unit: Unit) -> Type:
        """`evaluator.binary` on types: pools, strings, lists, numbers (rolls by their totals)."""
        if a.maybe("pool") or b.maybe("pool"):
            self.mark_rolls(unit)  # rolled as a number, or a pool sum rolled before its dice terms
        if a.top or b.top:
            return ANY
        out = BOTTOM
        pools_a = [x for x in a if type(x) is T.PoolT]
        pools_b = [x for x in b if type(x) is T.PoolT]
        if op in ("+", "-"):
            plain_a, plain_b = without_pools(a), without_pools(b)
            if pools_a and (pools_b or T.numeric(plain_b).atoms) or pools_b and T.numeric(plain_a).atoms:
                whole = all(p.whole for p in pools_a + pools_b) and T.whole(plain_a) and T.whole(plain_b)
                out = out | T.of(T.PoolT(whole))
                if chain_may_roll(node):
                    out = out | T_NUMBER  # `7k3 + d6`: the pool is rolled, then the die added
            if op == "+" and T.STR in a.atoms and T.STR in b.atoms:
                out = out | T_STR
            if op == "+" and a.maybe("list") and b.maybe("list"):
                out = out | self.list_of(("concat", id(node)), f"list@{node.span.line}",
                                         self.elements(a) | self.elements(b))
            na, nb = T.numeric(plain_a), T.numeric(plain_b)
        else:
            na, nb = T.numeric(a), T.numeric(b)
        if na.atoms and nb.atoms:
            if op == "//":
                out = out | T_INT
            elif op == "/":
                out = out | T_NUMBER
            elif na <= T_INT and nb <= T_INT:
                out = out | T_INT
            else:
                out = out | T_NUMBER
        return out

    def e_Power(self, node, scope, unit):
        """`evaluator.power`: a number; whole when both sides are and the exponent is a literal 0 or
        more (`2 ** -1` is 1/2)."""
        base, exponent = self.expr(node.base, scope, unit), self.expr(node.exponent, scope, unit)
        if base.maybe("pool") or exponent.maybe("pool"):
            self.mark_rolls(unit)  # rolled as a number
        if base.top or exponent.top:
            return ANY
        if not (T.numeric(base).atoms and T.numeric(exponent).atoms):
            return BOTTOM  # an error
        whole = T.numeric(base) <= T_INT and type(node.exponent) is ast.Number and type(node.exponent.value) is int
        return T_INT if whole else T_NUMBER

    def e_Compare(self, node, scope, unit):
        left, right = self.expr(node.left, scope, unit), self.expr(node.right, scope, unit)
        if left.maybe("pool") or right.maybe("pool"):
            self.mark_rolls(unit)
        return T_BOOL

    def e_Logic(self, node, scope, unit):
        self.expr(node.left, scope, unit)
        self.expr(node.right, scope, unit)
        return T_BOOL

    def e_Not(self, node, scope, unit):
        self.expr(node.operand, scope, unit)
        return T_BOOL

    def e_Match(self, node, scope, unit):
        self.expr(node.subject, scope, unit)
        out = BOTTOM
        for arm in node.arms:
            for pattern in arm.patterns or ():
                self.expr(pattern, scope, unit)
            if type(arm.body) is ast.Block:
                self.block(arm.body, scope, unit, unit.file)
                out = out | T_NONE
            else:
                out = out | self.expr(arm.body, scope, unit)
        return out

    def e_Field(self, node, scope, unit):
        return self.read_field(self.expr(node.target, scope, unit), node.name, unit)

    def e_Index(self, node, scope, unit):
        holder, key = self.expr(node.target, scope, unit), self.expr(node.key, scope, unit)
        return self.index(holder, key, node.key)

    def e_Call(self, node, scope, unit):
        callee = node.callee
        if type(callee) is ast.Name:
            var = scope.lookup(callee.id)
            if var is None:
                if callee.id in NOT_ROLLED:
                    return self.odds(node, scope, unit)
                if callee.id in BUILTINS:
                    args = [self.expr(arg, scope, unit) for arg in node.args]
                    options = {key: self.expr(value, scope, unit) for key, value in node.kwargs.items()}
                    return self.builtin(callee.id, args, node, unit, options)
                return BOTTOM
            function = self.note(callee, self.read_var(var, unit, value=False))
        elif type(callee) is ast.Field and type(callee.target) is ast.Name and \
                (module := scope.lookup(callee.target.id)) is not None and module.kind == "module":
            self.note(callee.target, T.of(T.ModuleT(module.file.path)))
            var = module.file.scope.names.get(callee.name)
            function = self.note(callee, self.read_var(var, unit, value=False) if var is not None else BOTTOM)
        else:
            function = self.expr(callee, scope, unit)
        args = [self.expr(arg, scope, unit) for arg in node.args]
        return self.invoke(function, args, node, unit)

    def invoke(self, function: Type, args: list, node, unit: Unit) -> Type:
        """A call of a function value: each `fn` it may be gets the arguments and gives its result."""
        called = self.callees.setdefault(id(node), set()) if node is not None else set()
        if function.top:
            called.add(None)
            if not self.unknown_call:
                self.unknown_call = True
                self.grew()
            self.mark_rolls(unit)
            return ANY
        out = BOTTOM
        for atom in function:
            if type(atom) is not T.FnT:
                continue  # not callable: an error
            info = self.fn_info(atom.ref.node)
            if len(info.params) != len(args):
                continue  # the wrong number of arguments: an error
            called.add(info)
            for param, arg in zip(info.params, args):
                self.put(param.slot, arg)
            one_line = self.of_these_arguments(info.node, args, unit)
            out = out | (self.get(("ret", id(info.node))) if one_line is None else one_line)
            if self.may_roll(info):
                self.mark_rolls(unit)
            if unit.loading and info not in self.loading:
                self.loading.add(info)
                self.grew(("loading", info))
        return out

    def of_these_arguments(self, fn, args: list, unit: Unit) -> "Type | None":
        """What `fn f(a, b) = a op b` gives for these arguments (transformers' `add`, `sub`: pools
        from calls are added through them): the operation on this call's arguments, not on what
        every call gives (a pool added to a pool is a pool here, though other calls add numbers).
        None for any other fn, whose result is read from every call's ("ret", fn)."""
        body = fn.body
        if not fn.line_form or type(body) is not ast.BinOp or \
                type(body.left) is not ast.Name or type(body.right) is not ast.Name:
            return None
        given = dict(zip(fn.params, args))
        if body.left.id not in given or body.right.id not in given:
            return None
        return self.binary(body.op, given[body.left.id], given[body.right.id], body, unit)

    def odds(self, node, scope, unit) -> Type:
        """`prob`, `dist`, `mean`: exact ones read their argument as a distribution (its nodes are
        not run as values, so they get no type: ANY); `samples:` rolls it with the run's dice."""
        if "samples" in node.kwargs:
            for arg in [*node.args, *node.kwargs.values()]:
                self.expr(arg, scope, unit)
            self.mark_rolls(unit)
        else:
            # a call among them is run as a value all the same (odds.py `_value`): what it pushes onto
            # a list, or gives a `fn`, is what that list or parameter may hold (found by review)
            calls, parts = [], [*node.args, *node.kwargs.values()]
            while parts:
                part = parts.pop()
                if type(part) is ast.Call:
                    calls.append(part)
                else:
                    parts.extend(ast.children(part))
            for call in reversed(calls):
                self.expr(call, scope, unit)
        return ANY if node.callee.id == "dist" else T_NUMBER

    def builtin(self, name: str, args: list, node, unit: Unit, options: dict) -> Type:
        numbers = ("floor", "ceil", "round", "abs", "min", "max", "pool", "decimal", "range", "sum", "roll")
        if name in numbers and (any(a.maybe("pool") for a in args) or
                                name in ("min", "max", "sum") and any(self.elements(a).maybe("pool") for a in args)):
            self.mark_rolls(unit)  # a pool given where a number is needed is rolled
        first = args[0] if args else BOTTOM
        if name in ("floor", "ceil", "round"):
            return T_INT
        if name == "abs":
            return T.numeric(first)
        if name in ("min", "max"):
            if len(args) == 1:
                listed = T.numeric(self.elements(first)) if first.maybe("list") else BOTTOM
                return listed | T.numeric(first)
            return T.join_all(T.numeric(a) for a in args)
        if name == "roll":
            if first.top:
                return T.of(T.RollT(False))
            return Type(T.RollT(a.whole, keep=True) for a in first if type(a) is T.PoolT)
        if name == "pool":
            return T.of(T.PoolT(True))
        if name in ("decimal", "lower", "breakdown"):
            return T_STR
        if name == "len":
            return T_INT
        if name == "push":
            self.push(first, args[1] if len(args) > 1 else BOTTOM)
            return T_NONE
        if name == "range":
            return self.list_of(("range", id(node)), f"range@{node.span.line}", T_INT)
        if name == "sum":
            total = T.numeric(self.elements(first))
            return T_INT if total <= T_INT and not first.top else T_NUMBER
        if name == "sorted":
            items = T.plain(self.elements(first))
            items = T.of(T.INT, T.FRACTION, T.STR) if items.top else \
                Type(a for a in items if a in (T.INT, T.FRACTION, T.STR))
            return self.list_of(("sorted", id(node)), f"sorted@{node.span.line}", items)
        if name in ("contains", "ended", "has", "is_a"):
            if name == "ended" and self.may_roll("ended"):
                self.mark_rolls(unit)
            return T_BOOL
        if name == "fail":
            return BOTTOM
        if name == "make":  # a character of the kind given, or of the character's kind
            if first.top:
                return ANY
            made = Type(T.CharT(atom.kind) for atom in first if type(atom) in (T.KindT, T.CharT))
            for atom in made:   # its named options are given values of its stats, as a character's entries
                items = self.kinds[atom.kind].items if atom.kind in self.kinds else {}
                for key, found in options.items():
                    if key in items and items[key].what != "gear":
                        self.put(("kgiven", atom.kind, key), found)
            return made
        return ANY


def without_pools(t: Type) -> Type:
    return Type(a for a in t if type(a) is not T.PoolT)


def chain_may_roll(node) -> bool:
    """Whether a sum holds a term that rolls (evaluator `may_roll`): then a pool in it is rolled."""
    return type(node) is not ast.BinOp or any(type(part) in (ast.Dice, ast.Call, ast.Compare)
                                              for part in ast.walk(node))
