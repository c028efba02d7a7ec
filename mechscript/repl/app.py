"""The REPL on a terminal: a prompt_toolkit prompt with mechscript's colours, completion, history,
multi-line entries and bracket matching, and a bottom toolbar with the seed and the modules used."""

from __future__ import annotations

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import has_focus, is_done
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import History
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout.processors import ConditionalProcessor, HighlightMatchingBracketProcessor
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from .commands import Commands, Reply
from .completion import MechCompleter
from .display import STYLE
from .lexer import MechscriptLexer, needs_more, open_brackets

PROMPT = "mech> "
INDENT = "    "


class TerminalRepl:
    def __init__(self, commands: Commands, history: History | None = None, input: Input | None = None,
                 output: Output | None = None, note: str | None = None):
        self.commands = commands
        self.note = note  # said once, at the start (e.g. that the history cannot be kept)
        self.style = Style.from_dict(STYLE)
        self.prompt = PromptSession(
            PROMPT, multiline=True, key_bindings=_key_bindings(), prompt_continuation=_continuation,
            lexer=PygmentsLexer(MechscriptLexer), style=self.style, include_default_pygments_style=False,
            completer=MechCompleter(lambda: self.commands.session), complete_while_typing=False,
            history=history, bottom_toolbar=self._toolbar,
            input_processors=[ConditionalProcessor(HighlightMatchingBracketProcessor("()[]{}"), ~is_done)],
            input=input, output=output)

    def run(self) -> int:
        self._print(Reply().say("mechscript: type dice or mechscript, :help for help, Ctrl-D to leave", "class:note"))
        if self.note:
            self._print(Reply().say(self.note, "class:note"))
        while True:
            try:
                text = self.prompt.prompt()
            except KeyboardInterrupt:  # Ctrl-C: the line is dropped, the session goes on
                continue
            except EOFError:  # Ctrl-D on an empty line
                return 0
            try:
                reply = self.commands.handle(text)
            except KeyboardInterrupt:  # Ctrl-C while an entry runs
                reply = Reply().fail("interrupted")
            self._print(reply)
            if reply.quit:
                return 0

    def _print(self, reply: Reply) -> None:
        for _, fragments in reply.lines:
            print_formatted_text(FormattedText(fragments), style=self.style, output=self.prompt.output,
                                 include_default_pygments_style=False)

    def _toolbar(self):
        session = self.commands.session
        modules = ", ".join(session.modules) or "none"
        return [("class:bottom-toolbar", f" seed {session.seed} | modules: {modules} | :help  Ctrl-D leaves ")]


def _continuation(width: int, line_number: int, wrap_count: int) -> str:
    return "...".rjust(width - 1) + " "


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER)  # not while searching the history (Ctrl-R)

    @bindings.add("enter", filter=editing)
    def _enter(event):
        """Enter runs the entry, unless a bracket is still open: then the entry goes on, indented.
        With the completion menu open, it only takes the completion chosen."""
        buffer = event.current_buffer
        if buffer.complete_state is not None:
            buffer.complete_state = None
            return
        text = buffer.text
        if needs_more(text):
            buffer.insert_text("\n" + INDENT * open_brackets(buffer.document.text_before_cursor))
        else:
            buffer.validate_and_handle()

    @bindings.add("escape", "enter", filter=editing)
    def _newline(event):
        """Alt-Enter: a new line, whatever is open."""
        event.current_buffer.insert_text("\n")

    for closing in ")]}":
        @bindings.add(closing, filter=editing)
        def _close(event):
            """A closing bracket on a line of its own goes back one indent."""
            buffer = event.current_buffer
            line = buffer.document.current_line_before_cursor
            if line and not line.strip() and line.endswith(INDENT):
                buffer.delete_before_cursor(len(INDENT))
            buffer.insert_text(event.data)
    return bindings
