"""What the checker knows about names: static scopes of bindings, resolved before anything runs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import MechError, Span
from .operators import CONSTANTS

# `d`, `d6`, `dF`...: anything that reads as a die is a die, never a name (grammar, DIE_D/DIE_F).
_READS_AS_A_DIE = re.compile(r"d(\d\w*|F\w*)?")

# The value of a name its block declares but whose `let` has not run yet: reading it is an error
# (and it hides an outer name of the same spelling, as the checker resolved it).
UNSET = object()


@dataclass
class Binding:
    kind: str          # let, param, for, fn, table, module, kind, character
    span: Span | None
    params: list[str] | None = None  # of a fn
    module: "ModuleInfo | None" = None
    schema: object = None            # of a kind, or a character's kind: a characters.KindInfo


@dataclass
class ModuleInfo:
    name: str
    path: Path
    code: object       # runs the module's top level in the run's current scope
    exports: dict      # name -> Binding
    program: object    # the tree `code` was compiled from, which the checker and the quiet back end read (Script.modules)


class StaticScope:
    """The names one scope declares. Each static scope that has a runtime scope (values.Scope)
    stands for exactly that one, so a name resolves, before anything runs, to a number of hops up
    the chain of runtime scopes (`locate`). Scripts, modules, function calls, loops, a kind's
    formulas and `until` always have a runtime scope (`always`); a block has one only if it
    declares names, all of which it declares before any of its statements is compiled. A function's
    body block keeps its names in the call's runtime scope, beside the parameters (`shares_parent`)."""

    def __init__(self, parent: "StaticScope | None", function: bool = False, always: bool = True,
                 shares_parent: bool = False):
        self.names: dict[str, Binding] = {}
        self.parent = parent
        self.in_function = function or (parent is not None and parent.in_function)
        self.uses: list[ModuleInfo] = []
        self.always = always
        self.shares_parent = shares_parent

    @property
    def runtime(self) -> bool:
        return self.always or (bool(self.names) and not self.shares_parent)

    def locate(self, name: str, span: Span) -> tuple[Binding, int, int | None] | None:
        """Where `name` lives at run time: its binding, the hops up from the innermost runtime scope
        to the runtime scope holding it, and the index of the used module (in that scope's `uses`)
        that holds it, if one does. None for a name no scope declares."""
        scope, hops = self, 0
        while scope is not None:
            if name in scope.names:
                return scope.names[name], hops, None
            found = [i for i, m in enumerate(scope.uses) if name in m.exports]
            if len(found) > 1:
                first, second = scope.uses[found[0]], scope.uses[found[1]]
                raise MechError(f"`{name}` is defined by both `{first.name}` and `{second.name}`", span,
                                hint=f"say which: `{first.name}.{name}`")
            if found:
                return scope.uses[found[0]].exports[name], hops, found[0]
            hops += scope.runtime
            scope = scope.parent
        return None

    def declare(self, name: str, binding: Binding) -> None:
        if name in CONSTANTS:
            raise MechError(f"`{name}` is a constant of the language and cannot be defined", binding.span)
        if _READS_AS_A_DIE.fullmatch(name):
            raise MechError(f"`{name}` reads as a die, so it cannot be a name", binding.span,
                            hint=f"choose another name, e.g. `{name}_roll` or `die`")
        previous = self.names.get(name)
        if previous is not None:
            where = f" (line {previous.span.line})" if previous.span else ""
            hint = f"change it with `{name} = ...`" if previous.kind == "let" and binding.kind == "let" else None
            raise MechError(f"`{name}` is already defined in this block{where}", binding.span, hint=hint)
        self.names[name] = binding

    def resolve(self, name: str, span: Span) -> Binding | None:
        found = self.locate(name, span)
        return found[0] if found is not None else None

    def visible(self) -> set[str]:
        names, scope = set(), self
        while scope is not None:
            names.update(scope.names)
            for module in scope.uses:
                names.update(module.exports)
            scope = scope.parent
        return names


KIND_WORDS = {"fn": "function", "table": "table", "module": "module", "let": "variable", "param": "parameter",
               "for": "loop variable", "kind": "kind", "character": "character"}
