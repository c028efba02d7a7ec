"""The inference's bindings: a name's variable, the scopes that hold them, what it knows of a
file, a `fn` and a kind, and the unit of code it walks (infer.py)."""

from __future__ import annotations

from ..interpreter import ast


# what Inference.grew names when a list or record site or a kind is added (a kind may be declared in
# a block a pass reaches late): code that looks at every one of them reads it
LIST_SITES, RECORD_SITES, KINDS = ("list sites",), ("record sites",), ("kinds",)


class Var:
    """A name's binding. `slot` is where a variable's type is kept."""

    __slots__ = ("kind", "name", "node", "file", "scope", "fn", "slot", "top")

    def __init__(self, kind, name, node=None, file=None, scope=None, fn=None, slot=None):
        self.kind, self.name, self.node, self.file, self.scope, self.fn = kind, name, node, file, scope, fn
        self.slot = slot if slot is not None else self
        self.top = False  # declared at the top level of its file


class Scope:
    __slots__ = ("names", "parent", "uses")

    def __init__(self, parent=None):
        self.names: dict[str, Var] = {}
        self.parent = parent
        self.uses: list = []

    def lookup(self, name: str) -> Var | None:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            for module in scope.uses:
                if name in module.scope.names:
                    return module.scope.names[name]
            scope = scope.parent
        return None


class FileInfo:
    def __init__(self, path: str, program: ast.Program, is_main: bool):
        self.path, self.program, self.is_main = path, program, is_main
        self.scope = Scope()


class FnInfo:
    """A `fn` definition: its parameters' variables and the file it is in."""

    def __init__(self, node: ast.FnDef, file: FileInfo):
        self.node, self.file = node, file
        self.params = [Var("param", p) for p in node.params]


class KindInfo:
    def __init__(self, key, node: ast.KindDef, scope: Scope):
        self.key, self.node, self.scope = key, node, scope
        self.items = {item.name: item for item in node.items}


class Unit:
    """The code being walked: a function's body (fn), or a top level, a kind's formulas, `until`.
    `loading`: it may run while the modules are loaded, before the script's house rules are in."""

    __slots__ = ("fn", "key", "loading", "file")

    def __init__(self, fn, key, loading, file=None):
        self.fn, self.key, self.loading, self.file = fn, key, loading, file
