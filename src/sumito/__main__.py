"""The ``sumito`` program (the command, and ``python -m sumito``): its first instructions, then the command line.

A Ctrl-C must end the program with one line and status 130 at any moment. The command line turns one into that
line from the start of :func:`sumito.cli.main` (which imports a command's modules, numpy and numba among them,
inside its handling), and the handler below does it for the instants before, while this module imports the
command line: it is the first thing the program does. (Before it, while the interpreter itself starts, a Ctrl-C
ends the process by the signal, without output.) A program started with Ctrl-C ignored keeps ignoring it.
"""

import os
import signal


def _interrupted(signum: int, frame: object) -> None:
    os.write(2, b"sumito: interrupted\n")
    os._exit(130)


_OWN_HANDLER = signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _OWN_HANDLER:
    signal.signal(signal.SIGINT, _interrupted)

from sumito.cli import run as _run_command_line  # noqa: E402  (after the handler: a Ctrl-C while it imports)


def run() -> None:
    """Run the command line, with Ctrl-C raising KeyboardInterrupt again (which it answers in one line)."""
    if _OWN_HANDLER:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _run_command_line()


if __name__ == "__main__":
    run()
