"""What `:help` says of the dice notation (`:help notation`, `:help kh`, `:help explode`), of the
built-in functions together (`:help functions`) and of a kind (`:help Transformer`: its stats with
their ranges and defaults, its derived values, state and gear, as the kind declares them, with those it
inherits from the kinds it extends)."""

from __future__ import annotations

from pathlib import Path

from ..interpreter import ast
from ..interpreter.builtins import BUILTINS
from ..interpreter.parser import parse_program
from ..limits import Limits

# Each form of the notation (README.md's table, docs/language.md): its words, and what it says.
# A topic is found by any of its words (`:help kh`, `:help keep`).
NOTATION = [
    (("dice", "die", "NdS", "d"), "NdS, dS: N dice of S sides (N defaults to 1); N and S may be parenthesised "
                                  "expressions: 3d6, d20, (1d4)d6"),
    (("d%", "percentile"), "d%: a d100"),
    (("dF", "fudge"), "dF: a Fudge die, -1, 0 or +1: 4dF"),
    (("d[", "faces", "custom"), "d[1,1,2,3,5,8]: a die with these faces (a list after `d`)"),
    (("kh", "kl", "dh", "dl", "k", "keep", "drop"),
     "khN klN dhN dlN: keep the highest/lowest N, drop the highest/lowest N (kN is khN): 4d6kh3, 2d20kl1"),
    (("!", "explode", "exploding"), "!: explode: each die showing its highest face adds a new die, again and "
                                    "again; !>=N, !>N explode on those faces: 3d6!, 6d10!>=9"),
    (("!!", "compound", "compounding"), "!!: compounding explode: the extra rolls add into the same die: 5d10!!"),
    (("!p", "penetrate", "penetrating"), "!p: penetrating explode: each extra die counts one less: 3d6!p"),
    (("r", "reroll", "ro"), "rN r<N r<=N ...: reroll while the face matches (until it does not); roN ro<N: "
                            "reroll once: 4d6r1, 2d20ro<3"),
    (("mi", "ma"), "miN maN: faces below N count as N / above N count as N: 3d6mi2"),
    (("c", "count", "success", "successes"), "c>=N c>N c=N ...: count the dice meeting the condition (successes) "
                                             "instead of summing: 6d10c>=8"),
    (("f", "failure", "failures"), "f<=N ...: after c...: subtract the dice meeting this condition (failures): "
                                   "6d10!c>=8f1"),
    (("XkY", "roll-and-keep", "rollkeep", "pool", "7k3"),
     "XkY: roll-and-keep (7th Sea, rule text 000): X d10, 10s compound-explode, keep the Y highest, sum: 7k3; "
     "half dice (4.5k2.5), never more than ten dice (12k5 rolls as 10k7), pools add up (7k3 + 2k0 - 0k1 + 5); "
     "roll(7k3, explode: false) without explosions"),
    (("arithmetic", "+", "-", "*", "/", "//", "%", "**"), "+ - * / // % **: arithmetic on totals; / is exact (7/2 is "
                                                          "7/2), // floors, ** raises to a power (2 ** 3 is 8): 2d6+3"),
    (("compare", "comparison", "<", "<=", ">", ">=", "==", "!="), "< <= > >= == !=: comparisons, giving true or "
                                                                  "false: d20 + 5 >= 15"),
]

NOTATION_TEXT = "\n".join([
    "The dice notation (modifiers chain left to right without spaces: 4d6r1kh3, 6d10!c>=8f1;",
    "with a space an operator is an operator again: 1d6! >= 4 compares an exploding d6 with 4):",
    *(f"  {text}" for _, text in NOTATION),
    "A roll reads `7k3: 14 9 8 (6 5 3 2) = 31`: dropped dice in parentheses; marks: 1r rerolled, 6! exploded,",
    "14!! compounded, 4p penetrating, 8* success, 1f failure, 2^/5v raised by mi/lowered by ma, 5/2 halved.",
    "`:help functions` lists the built-in functions.",
])


def notation(word: str) -> str | None:
    """What `:help WORD` says of the notation, or None if WORD is none of its words."""
    if word in ("notation", "dice notation", "roll", "rolls"):
        return NOTATION_TEXT
    found = [text for words, text in NOTATION if word in words]
    return "\n".join(found) if found else None


def functions() -> str:
    """Every built-in function with its one-line doc."""
    return "\n".join(["The built-in functions (`:help NAME` for one):",
                      *(f"  {BUILTINS[name].doc}" for name in sorted(BUILTINS))])


def kind_fields(source: str, filename: str, line: int, name: str) -> list[str] | None:
    """The items of kind `name` declared on `line` of `source`, one a line: `stat speed 1..10`,
    `stat mode ["robot", ...] = "robot"`, `derived size = strength`, `state hp = 10`, `gear weapon: Weapon`
    (None if it is not found there)."""
    try:
        program = parse_program(source, filename, Limits())
    except Exception:  # the file changed under the session: nothing to show
        return None
    node = next((s for s in program.statements if type(s) is ast.KindDef and s.name == name
                 and s.name_span.line == line), None)
    if node is None:
        return None

    def text(part) -> str:
        return source[part.span.start:part.span.end]

    width = max((len(item.name) for item in node.items), default=0)
    lines = [f"  extends {' extends '.join(node.ancestors)}: its own fields first, then what it inherits "
             "`(from KIND)`"] if node.ancestors else []
    # its own first: what a character of it gives is there, not among the parent's
    for item in sorted(node.items, key=lambda item: item.inherited is not None):
        came = f"  (from {item.inherited})" if item.inherited else ""
        if item.what == "gear":
            lines.append(f"  gear    {item.name:<{width}}  a list of {item.gear_kind} (`{item.name} NAME {{ ... }}`)"
                         + came)
            continue
        if item.what == "stat":
            allowed = f"{text(item.low)} to {text(item.high)}" if item.low is not None else \
                f"one of {text(item.choices)}" if item.choices is not None else "any value"
            default = f", default {text(item.value)}" if item.value is not None else ", required"
            lines.append(f"  stat    {item.name:<{width}}  {allowed}{default}{came}")
        else:
            formula = " ".join(text(item.value).split())
            formula = formula if len(formula) <= 60 else formula[:59] + "…"
            word = "derived" if item.what == "derived" else "state  "
            lines.append(f"  {word} {item.name:<{width}}  = {formula}{came}")
    return lines


def read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError:
        return None
