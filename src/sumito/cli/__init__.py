"""The ``sumito`` command line: it parses first, then imports only the command it runs.

:data:`~sumito.cli.table.GROUPS` names every command, the module of this package that runs it, and its
documentation page; :mod:`sumito.cli.options` has, under the same module name, what it accepts. Parsing
imports only the named command's options, which are light (the standard library and Sumito's light
modules): ``sumito --help``, ``--version`` and ``sumito COMMAND --help`` load no numpy, numba or engine.
Only then is the command's module imported, with the layers it uses, and its handler run.
Every error a user can cause is one line and exit status 2; Ctrl-C is one line and 130.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from sumito import __version__
from sumito.cli.table import COMMANDS, GROUPS
from sumito.errors import SumitoError

#: a run of this many characters without a space in an error is a value pasted in, not words: it is cut
_LONG_RUN = re.compile(r"\S{120,}")
#: the longest error line printed (a backstop: each error quotes what it refuses briefly itself)
MAX_ERROR_CHARS = 1000


def one_line(message: str) -> str:
    """``message`` as one short line: characters that are not printable (a newline in a file name) escaped
    as ``repr`` writes them, a long unbroken run (a 5,000-digit value) cut to 60 characters, the whole at
    most :data:`MAX_ERROR_CHARS`."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    text = _LONG_RUN.sub(lambda m: m[0][:57] + "...", text)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


class UsageError(SumitoError):
    """A command line argparse refused (an unknown option, a missing or malformed value)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``sumito: error: sumito perft: argument --depth: ...``)
    and exit status 2 like every other bad input, instead of the usage text and a SystemExit."""

    def error(self, message: str) -> NoReturn:
        # argparse quotes what it refuses in full (an unknown choice, unrecognized arguments): cut it short
        raise UsageError(one_line(f"{self.prog}: {message} (see {self.prog} --help)"))


class _Declared:
    """The subparsers action as a command's options module sees it: the module declares its commands with
    ``add_parser`` as argparse has it, the one line of help of each comes from the table, and only the
    commands in ``names`` are kept (the others were declared from the table already)."""

    def __init__(self, sub: Any, names: set[str]) -> None:
        self._sub, self._names = sub, names

    def add_parser(self, name: str, **options: Any) -> argparse.ArgumentParser:
        if name not in self._names:
            return argparse.ArgumentParser(add_help=False)  # a sibling of the module's, not run now
        return self._sub.add_parser(name, help=COMMANDS[name].help, **options)


def _command_list() -> str:
    width = max(len(name) for name in COMMANDS) + 2
    lines = ["commands:"]
    for group, commands in GROUPS.items():
        lines.append(f"  {group}:")
        lines.extend(f"    {c.name:{width}}{c.help}" for c in commands)
    lines.append("\n`sumito COMMAND --help` describes a command's options.")
    return "\n".join(lines)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``sumito`` parser, with the arguments of the command ``argv`` names and only that command's (the
    others are names in the list, their options not imported); ``argv`` ``None``: every command's arguments
    (for tests and documentation). Each command's parser sets ``command_handler``, the name of its handler in
    its module."""
    parser = _Parser(prog="sumito", description="Abalone engine and self-play learning lab.",
                     epilog=_command_list(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"sumito {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser,
                                help="one of the commands below")
    if argv is None:
        chosen = set(COMMANDS)
    else:
        named = next((a for a in argv if not a.startswith("-")), None)
        chosen = {named} if named in COMMANDS else set()
    for command in COMMANDS.values():
        if command.name not in chosen:
            sub.add_parser(command.name)  # no help: the epilog lists the commands, in their groups
    for module in dict.fromkeys(COMMANDS[name].module for name in chosen):
        importlib.import_module(f"sumito.cli.options.{module}").add_parsers(_Declared(sub, chosen))
    return parser


def handler(args: argparse.Namespace) -> Callable[[argparse.Namespace], int]:
    """The function that runs the command ``args`` parsed: its ``command_handler``, in the command's module,
    imported now."""
    module = importlib.import_module(f"sumito.cli.{COMMANDS[args.command].module}")
    return getattr(module, args.command_handler)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        # a byte that is not in the locale's encoding is a bad move to answer, not a crash (play, bg play);
        # printing a message that quotes such input never fails either
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace" if stream is sys.stdin else "backslashreplace")
    try:
        args = build_parser(argv).parse_args(argv)
        return handler(args)(args)
    except SumitoError as exc:
        print(f"sumito: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sumito: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `sumito moves | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


_ENDING = threading.Lock()


def _end_if_compiling() -> None:
    """End the program with Ctrl-C's line and status 130 when it is compiling kernels: numba turns a
    KeyboardInterrupt raised inside its compiler into its own error (a traceback, status 1), and a compile
    has nothing of the user's to keep."""
    # never imported here (a command that loads no numba compiles nothing), and maybe still importing
    compiling = getattr(sys.modules.get("sumito.jit"), "compiling", None)
    if compiling is not None and compiling():
        _ENDING.acquire()  # the handler and the watcher may both get here: one line (the other waits for the end)
        os.write(2, b"sumito: interrupted\n")
        os._exit(130)


def _on_ctrl_c(signum: int, frame: object) -> None:
    _end_if_compiling()
    raise KeyboardInterrupt


_on_ctrl_c.raises_keyboard_interrupt = True  # type: ignore[attr-defined]  # (sumito.stopping waits on kernels so)


def _watch_for_ctrl_c(reader: int) -> None:
    """A Ctrl-C during a compile, seen at once: Python runs a signal handler only between two instructions
    of the main thread, which waits in LLVM for seconds at a time while a kernel compiles, but the signal's
    byte reaches this thread (LLVM runs without the interpreter lock)."""
    with contextlib.suppress(OSError):
        while data := os.read(reader, 64):
            if signal.SIGINT in data:
                _end_if_compiling()


def _handle_ctrl_c() -> None:
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return  # started with Ctrl-C ignored (or handled by whoever runs us): keep that
    signal.signal(signal.SIGINT, _on_ctrl_c)
    reader, writer = os.pipe()
    os.set_blocking(writer, False)
    with contextlib.suppress(ValueError):  # not the main thread: no watcher
        signal.set_wakeup_fd(writer, warn_on_full_buffer=False)
        threading.Thread(target=_watch_for_ctrl_c, args=(reader,), name="sumito-ctrl-c", daemon=True).start()


def run() -> None:
    """The ``sumito`` program (and ``python -m sumito``): ``main``, then exit with its status.

    A Ctrl-C that lands after ``main`` has returned, while the interpreter shuts down (joining a process
    pool's threads), would be raised inside ``threading._shutdown``, printed as "Exception ignored" and
    lost: the program would exit 0. From here on a Ctrl-C takes its default action, so the program ends
    at once, killed by SIGINT (a shell's 130), as a Ctrl-C means. Not in ``main``: tests call it in their
    own process, which must keep its KeyboardInterrupt.
    """
    _handle_ctrl_c()
    try:
        status = main()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BrokenPipeError, ValueError):
                stream.flush()  # what main printed is out before a Ctrl-C can end the process
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    except KeyboardInterrupt:  # in the instant between main's return and the line above
        print("sumito: interrupted", file=sys.stderr)
        status = 130
    sys.exit(status)
