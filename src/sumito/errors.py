"""The errors every layer shares, at the ground so that the small helpers below the engine
(:mod:`sumito.bounds`, :mod:`sumito.fileio`) can raise them without importing the engine. Each
carries a one-line message that names what is wrong; :mod:`sumito.games.abalone.errors` adds the rules' own."""

from __future__ import annotations

import os

#: the longest file name an error message quotes in full
MAX_SHOWN_PATH_CHARS = 100


class SumitoError(ValueError):
    """Base class: bad input from a user, a file or another program."""


class FileWriteError(SumitoError):
    """A file that cannot be written (no such folder, no permission, disk full...)."""


def shown_path(path: str | os.PathLike[str], limit: int = MAX_SHOWN_PATH_CHARS) -> str:
    """``path`` as an error message quotes it: as it is when it is printable, else escaped as ``repr`` does
    (``'a\\nb'``), so that a file name holding a newline still makes a one-line error; a name longer than
    ``limit`` characters is cut in the middle (its start and its file name stay)."""
    text = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    shown = text if text.isprintable() else repr(text)
    if len(shown) > limit:
        keep = (limit - 3) // 2
        shown = shown[:keep] + "..." + shown[-keep:]
    return shown
