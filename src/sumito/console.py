"""Tables and summaries on stdout as a user copies them.

On a terminal rich draws to the terminal's width. Piped or redirected, nothing is wrapped (a spec string,
a seed or a command stays on one line, however long: rich gets a width no line reaches) and no line
carries the padding that fills a table's width (trailing spaces are dropped as each line is written), so
that what lands in a file or another program is exactly the text, one record a line.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console

#: the width rich lays piped output out in: wider than any line it writes, so that nothing wraps
PIPED_WIDTH = 100_000


class _TrimmedLines:
    """A text stream that writes to ``out`` with each line's trailing spaces removed (the part of a line not
    yet ended waits for its newline, or for :meth:`flush`)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._pending = ""

    def write(self, text: str) -> int:
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        if lines:
            self.out.write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.out.write(self._pending.rstrip(" "))
            self._pending = ""
        self.out.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.out.fileno()


def stdout_console() -> Console:
    """A rich console on stdout: the terminal's as it is, or (piped, and ``COLUMNS`` unset) one that neither
    wraps nor pads."""
    from rich.console import Console  # (imported when a command prints a table, not by every command)

    terminal = sys.stdout is not None and sys.stdout.isatty()
    if terminal or "COLUMNS" in os.environ:
        return Console(highlight=False)
    return Console(file=_TrimmedLines(sys.stdout), width=PIPED_WIDTH, highlight=False)  # type: ignore[arg-type]


__all__ = ["PIPED_WIDTH", "stdout_console"]
