"""Expressions that need names compiled to closures (a part of script.ScriptCompiler): names,
calls, fields, elements, strings, records, and/or/not, `match`."""

from __future__ import annotations

import sys

from . import ast
from .builtins import BUILTINS, NOT_ROLLED
from ..errors import MechError, did_you_mean
from .evaluator import Compiler
from .operators import CONSTANTS
from .lookup import get_index
from .names import KIND_WORDS, UNSET, Binding
from .odds import compile_call
from . import characters
from .values import Character, Function, Record, equal, record_of
from .running import call_function, counted, get_field, name_loader, no_arm, not_callable, ReturnSignal, show, too_long, \
    as_truth


class NameCompiler(Compiler):
    # -- expressions that need names --

    def compile_Name(self, node: ast.Name):
        if self.static.resolve(node.id, node.span) is None:
            if node.id in CONSTANTS or node.id in BUILTINS:
                return super().compile_Name(node)
            raise MechError(f"unknown name `{node.id}`", node.span,
                            hint=did_you_mean(node.id, self.static.visible() | set(CONSTANTS) | set(BUILTINS)))
        _, hops, module = self.static.locate(node.id, node.span)
        return name_loader(hops, module, node.id, node.span)

    def compile_Call(self, node: ast.Call):
        callee = node.callee
        if type(callee) is ast.Name:
            binding = self.static.resolve(callee.id, callee.span)
            if binding is None and callee.id in NOT_ROLLED:
                return compile_call(self, node)
            if binding is None and callee.id in BUILTINS:
                if callee.id == "make":
                    characters.check_make(self.static, node)
                return self.compile_builtin_call(BUILTINS[callee.id], node)
            if binding is None:
                raise MechError(f"unknown function `{callee.id}`", callee.span,
                                hint=did_you_mean(callee.id, self.static.visible() | set(BUILTINS)))
            self._check_arity(callee.id, binding, node)
        elif type(callee) is ast.Field:
            rule = self._check_module_field(callee)
            if rule is not None:
                self._check_arity(f"{callee.target.id}.{callee.name}", rule, node)
        if node.kwargs:
            key = next(iter(node.kwargs))
            raise MechError(f"functions written in mechscript take no named options (`{key}:`)", node.kwargs[key].span)
        function_code = self.compile(callee)
        args = [self.compile(arg) for arg in node.args]
        span, callee_span = node.span, callee.span

        def callee_of(ev) -> Function:
            function = function_code(ev)
            if type(function) is not Function:
                raise not_callable(function, callee_span)
            return function

        # The usual numbers of arguments spelled out: a list comprehension costs a call of its own.
        if len(args) == 1:
            first, = args
            return lambda ev: call_function(ev, callee_of(ev), [first(ev)], span)
        if len(args) == 2:
            first, second = args
            return lambda ev: call_function(ev, callee_of(ev), [first(ev), second(ev)], span)
        return lambda ev: call_function(ev, callee_of(ev), [arg(ev) for arg in args], span)

    def _check_arity(self, name: str, binding: Binding, node: ast.Call) -> None:
        if binding.kind == "fn" and len(binding.params) != len(node.args):
            raise MechError(f"`{name}` takes {counted(len(binding.params), 'argument')}, not {len(node.args)}",
                            node.span, hint=f"fn {name.rsplit('.', 1)[-1]}({', '.join(binding.params)})")
        if binding.kind in ("table", "module"):
            raise MechError(f"`{name}` is a {KIND_WORDS[binding.kind]}, not a function", node.callee.span)

    def _check_module_field(self, node: ast.Field, assigning: bool = False) -> Binding | None:
        """`pbem.to_hit`: checked now when `pbem` is a module."""
        if type(node.target) is not ast.Name:
            return None
        binding = self.static.resolve(node.target.id, node.target.span)
        if binding is None or binding.kind != "module":
            return None
        rule = binding.module.exports.get(node.name)
        if rule is None:
            raise MechError(f"module `{node.target.id}` has no `{node.name}`", node.name_span,
                            hint=did_you_mean(node.name, binding.module.exports))
        if assigning and rule.kind != "let":
            raise MechError(f"`{node.target.id}.{node.name}` is a {KIND_WORDS[rule.kind]} and cannot be assigned to",
                            node.name_span, hint=f"replace a rule with `fn {node.target.id}.{node.name}(...) = ...`"
                            if rule.kind == "fn" else None)
        return rule

    def compile_Field(self, node: ast.Field):
        self._check_module_field(node)
        target, name, span = self.compile(node.target), node.name, node.name_span
        local = self._local_name(node.target)

        def field(ev):
            value = target(ev) if local is None else ev.scope.vars[local]
            if value is UNSET:
                target(ev)  # its error
            kind = type(value)
            if kind is Character:  # the common cases: a stat or state that is not a list, ...
                found = value.fields.get(name, UNSET)
                if found is UNSET:
                    if name == "side":
                        return value.side
                elif type(found) is not list:
                    return found
            elif isinstance(value, Record):  # ... and a record's field
                found = value.fields.get(name, UNSET)
                if found is not UNSET:
                    return found
            return get_field(value, name, span, ev)
        return field

    def _local_name(self, node: ast.Node) -> str | None:
        """The name, if `node` is a name of the innermost runtime scope (a parameter, say): a field
        of it reads the scope's dictionary itself rather than calling the name's loader."""
        if type(node) is not ast.Name:
            return None
        found = self.static.locate(node.id, node.span)
        return node.id if found is not None and found[1] == 0 and found[2] is None else None

    def compile_Index(self, node: ast.Index):
        target, key, span = self.compile(node.target), self.compile(node.key), node.key.span
        return lambda ev: get_index(ev, target(ev), key(ev), span)

    def compile_String(self, node: ast.String):
        parts = [part if type(part) is str else self.compile(part) for part in node.parts]
        if len(parts) == 1 and type(parts[0]) is str:
            text = parts[0]
            return lambda ev: text
        span = node.span

        def interpolate(ev):
            text = "".join(part if type(part) is str else show(ev, part(ev), span) for part in parts)
            if len(text) > ev.limits.string_size:
                raise too_long(ev, text, span)
            return text
        return interpolate

    def compile_Record(self, node: ast.Record):
        # names interned, as a character's (characters.compile_kind): the written code reads them as attributes
        fields = [(sys.intern(name), self.compile(value)) for name, value in node.fields]
        return lambda ev: record_of({name: value(ev) for name, value in fields})

    def compile_Logic(self, node: ast.Logic):
        left, right = self.compile(node.left), self.compile(node.right)
        left_span, right_span = node.left.span, node.right.span
        stop, go = (False, True) if node.op == "and" else (True, False)  # what ends it at once, what goes on

        def logic(ev):
            a = left(ev)
            if a is stop:
                return stop
            if a is not go:
                as_truth(a, left_span)
            b = right(ev)
            return b if type(b) is bool else as_truth(b, right_span)
        return logic

    def compile_Not(self, node: ast.Not):
        operand, span = self.compile(node.operand), node.operand.span
        return lambda ev: not as_truth(operand(ev), span)

    def compile_Match(self, node: ast.Match):
        subject = self.compile(node.subject)
        arms = []
        for arm in node.arms:
            patterns = [self.compile(p) for p in arm.patterns] if arm.patterns is not None else None
            arms.append((patterns, self.compile(arm.body), type(arm.body) is ast.Block))
        span = node.span

        def match(ev):
            value = subject(ev)
            for patterns, body, is_block in arms:
                if patterns is None or any(equal(value, pattern(ev), ev) for pattern in patterns):
                    result = body(ev)
                    if not is_block:
                        return result
                    if result is not None:  # a `return` ran in the arm's block
                        raise ReturnSignal(result.value)
                    return None
            raise no_arm(value, span)
        return match
