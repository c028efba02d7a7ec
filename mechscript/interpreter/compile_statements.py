"""Statements compiled to closures (a part of script.ScriptCompiler): `let`, `say`, `return`, `if`,
loops, `fn` and its house rules, tables, kinds, characters, encounters, assignments."""

from __future__ import annotations

from ..dice.rollkeep import Pool
from . import ast
from ..errors import MechError, Span, did_you_mean
from .evaluator import Compiler, binary
from .lookup import get_index, plain_key
from .names import KIND_WORDS, UNSET, Binding, StaticScope
from . import characters
from .values import Function, Scope, Table, TableRow
from .running import counted, for_too_long, get_field, loop_round, not_a_list, repeat_count, Returned, scope_holding, \
    set_field, set_index, show, too_many_lines, as_truth, unset


class StatementCompiler(Compiler):
    # -- statements --

    def compile_Let(self, node: ast.Let):
        value, name = self.compile(node.value), node.name

        def let(ev):
            ev.scope.vars[name] = value(ev)
        return let

    def compile_ExprStatement(self, node: ast.ExprStatement):
        if type(node.expr) is ast.Unary:   # `+ b` under `let a = 1`: a sum cut in two, its second line lost
            raise MechError(f"this line is only `{node.expr.op} ...`: its value is dropped", node.span,
                            hint="to go on with the line above, end that line with `\\` or put the whole "
                                 "expression in parentheses: `let a = (1` and `+ 2)` on the next line")
        expr = self.compile(node.expr)

        def expression_statement(ev):
            expr(ev)
        return expression_statement

    def compile_Say(self, node: ast.Say):
        value, span = self.compile(node.value), node.span
        # A quiet run still evaluates what the text shows, for the same dice, calls and errors.
        parts = [self.compile(part) for part in node.value.parts if type(part) is not str] \
            if type(node.value) is ast.String else [value]

        def say(ev):
            if len(ev.log) >= ev.limits.output_lines:
                raise too_many_lines(ev, span)
            if not ev.quiet:
                ev.log.append(show(ev, value(ev), span))
                return
            for part in parts:
                shown = part(ev)
                if type(shown) is Pool:  # shown as it rolls, as show does
                    ev.roll_pool(shown)
            ev.log.append("")
        return say

    def compile_Return(self, node: ast.Return):
        if not self.static.in_function:
            raise MechError("`return` outside a function", node.span,
                            hint="return gives a function's result; at the top level, use `say` to show a value")
        value = self.compile(node.value) if node.value is not None else (lambda ev: None)

        def return_(ev):
            return Returned(value(ev))
        return return_

    def compile_If(self, node: ast.If):
        branches = [(self.compile(condition), condition.span, self.compile(block)) for condition, block in node.branches]
        otherwise = self.compile(node.otherwise) if node.otherwise is not None else None

        def if_(ev):
            for condition, condition_span, block in branches:
                truth = condition(ev)
                if truth is True:
                    return block(ev)
                if truth is not False:
                    as_truth(truth, condition_span)
            if otherwise is not None:
                return otherwise(ev)
        return if_

    def compile_While(self, node: ast.While):
        condition, condition_span, body, span = self.compile(node.condition), node.condition.span, self.compile(node.body), node.span

        def while_(ev):
            rounds = 0
            while as_truth(condition(ev), condition_span):
                rounds = loop_round(ev, rounds, span)
                returned = body(ev)
                if returned is not None:
                    return returned
        return while_

    def compile_Repeat(self, node: ast.Repeat):
        count_code = self.compile(node.count)
        body, span, count_span = self.compile(node.body), node.span, node.count.span

        def repeat(ev):
            count = repeat_count(ev, count_code(ev), count_span)
            rounds = 0
            for _ in range(count):
                rounds = loop_round(ev, rounds, span)
                returned = body(ev)
                if returned is not None:
                    return returned
        return repeat

    def compile_For(self, node: ast.For):
        iterable, iterable_span = self.compile(node.iterable), node.iterable.span
        outer = self.static
        self.static = StaticScope(outer)
        self.static.declare(node.name, Binding("for", node.span))
        try:
            body = self.compile(node.body)
        finally:
            self.static = outer
        name, span = node.name, node.span

        def for_(ev):
            items = iterable(ev)
            if type(items) is not list:
                raise not_a_list(items, iterable_span)
            ev.steps += len(items)
            if ev.steps > ev.step_limit or len(items) > ev.limits.loop_iterations:
                for_too_long(ev, items, span)
            saved = ev.scope
            loop_scope = ev.scope = Scope(saved)
            variables = loop_scope.vars
            try:
                for item in list(items):
                    variables[name] = item
                    returned = body(ev)
                    if returned is not None:
                        return returned
            finally:
                ev.scope = saved
        return for_

    def compile_FnDef(self, node: ast.FnDef):
        if node.module is not None:
            return self._compile_override(node)
        function_code, frame = self._function_body(node)
        name, params = node.name, node.params

        def define(ev):
            ev.scope.vars[name] = Function(name, params, function_code, ev.scope, frame)
        return define

    def _function_body(self, node: ast.FnDef):
        """The code of a function's body as closures, and the names its block declares (Function.frame)."""
        outer = self.static
        self.static = StaticScope(outer, function=True)
        for param in node.params:
            self.static.declare(param, Binding("param", node.name_span))
        try:
            if node.line_form:
                body, frame = self.compile(node.body), {}
            else:
                body, frame = self._block(node.body, shares_parent=True)
        finally:
            self.static = outer
        source_text, filename = self.source_text, self.filename
        if node.line_form:
            def located_expression(ev):
                try:
                    return body(ev)
                except MechError as error:
                    raise error.located(source_text, filename)
            return located_expression, frame

        def located_block(ev):
            try:
                returned = body(ev)
            except MechError as error:
                raise error.located(source_text, filename)
            return None if returned is None else returned.value
        return located_block, frame

    def _compile_override(self, node: ast.FnDef):
        """`fn pbem.to_hit(att, def) = ...`: a house rule replacing a module's rule everywhere."""
        if self.static.parent is not None:
            raise MechError("a module's rule is replaced at the top level of a script", node.span)
        binding = self.static.names.get(node.module)
        if binding is None or binding.kind != "module":
            raise MechError(f"`{node.module}` is not a module this script uses", node.span,
                            hint=f"add `use {node.module}` at the top of the script")
        rule = binding.module.exports.get(node.name)
        if rule is None or rule.kind != "fn":
            functions = [n for n, b in binding.module.exports.items() if b.kind == "fn"]
            raise MechError(f"module `{node.module}` has no rule `{node.name}` to replace", node.name_span,
                            hint=did_you_mean(node.name, functions))
        if len(rule.params) != len(node.params):
            raise MechError(f"`{node.module}.{node.name}` takes {counted(len(rule.params), 'argument')}; "
                            f"its replacement must too, not {len(node.params)}", node.name_span,
                            hint=f"fn {node.module}.{node.name}({', '.join(rule.params)})")
        function_code, frame = self._function_body(node)
        module_name, name, params = node.module, node.name, node.params

        def override(ev):
            module = ev.scope.vars[module_name]
            module.scope.vars[name] = Function(f"{module_name}.{name}", params, function_code, ev.scope, frame)
        return override

    def compile_TableDef(self, node: ast.TableDef):
        rows = []
        for row in node.rows:
            entries = [(self.compile(key) if key is not None else None, self.compile(value)) for key, value in row.entries]
            rows.append((row.name, entries))
        name = node.name

        def table(ev):
            built = {}
            for row_name, entries in rows:
                pairs, default, has_default = [], None, False
                for key, value in entries:
                    if key is None:
                        default, has_default = value(ev), True
                    else:
                        pairs.append((plain_key(key(ev)), value(ev)))
                label = f"{name}.{row_name}" if row_name else name
                built[row_name] = TableRow(label, pairs, default, has_default)
            ev.scope.vars[name] = Table(name, built)
        return table

    def compile_KindDef(self, node: ast.KindDef):
        return characters.compile_kind(self, node)

    def compile_CharacterDef(self, node: ast.CharacterDef):
        return characters.compile_character(self, node)

    def compile_EncounterDef(self, node: ast.EncounterDef):
        return characters.compile_encounter(self, node)

    def compile_Assign(self, node: ast.Assign):
        """`x = v`, `rec.field = v`, `list[i] = v`; `x += v` reads and writes the same place,
        evaluating its parts (`list[d3]`) once."""
        target, op = node.target, node.op
        value = self.compile(node.value)
        if op == "=":
            update = None
        else:
            operator = op[0]

            def update(ev, old):
                return binary(ev, operator, old, value(ev), node)
        if type(target) is ast.Name:
            return self._assign_name(target, value, update, node.value.span)
        holder = self.compile(target.target)
        if type(target) is ast.Field:
            option = self._check_module_field(target, assigning=True) is not None and self._sets_options
            field, field_span, value_span = target.name, target.name_span, node.value.span

            def assign_field(ev):
                place = holder(ev)
                new = value(ev) if update is None else update(ev, get_field(place, field, field_span, ev))
                if option:
                    characters.check_option(ev, place.scope, field, new, value_span)
                set_field(place, field, new, field_span)
            return assign_field
        key, key_span = self.compile(target.key), target.key.span

        def assign_index(ev):
            place, at = holder(ev), key(ev)
            new = value(ev) if update is None else update(ev, get_index(ev, place, at, key_span))
            set_index(ev, place, at, new, key_span)
        return assign_index

    @property
    def _sets_options(self) -> bool:
        """Whether an assignment here to a used module's option is checked against its `choices` as
        it is made: at the script's top level, which runs before any fight (in a function, a fight
        may set an option for a while; the encounter checks what the options are when it starts)."""
        return not self.in_module and not self.static.in_function

    def _assign_name(self, target: ast.Name, value, update, value_span: Span):
        found = self.static.locate(target.id, target.span)
        if found is None:
            raise MechError(f"unknown name `{target.id}`", target.span,
                            hint=f"declare it first: `let {target.id} = ...`")
        binding, hops, module = found
        if binding.kind not in ("let", "param", "for"):
            raise MechError(f"`{target.id}` is a {KIND_WORDS[binding.kind]} and cannot be assigned to", target.span)
        name, name_span, option = target.id, target.span, module is not None and self._sets_options

        def assign_name(ev):
            scope = scope_holding(ev, hops, module)  # a used module's option (`tie = ...`) lives in its scope
            if scope.vars[name] is UNSET:
                raise unset(name, name_span)
            new = value(ev) if update is None else update(ev, scope.vars[name])
            if option:
                characters.check_option(ev, scope, name, new, value_span)
            scope.vars[name] = new
        return assign_name
