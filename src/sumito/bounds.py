"""Bounded parsing of numbers from anything a user, a file or a client supplies.

Every parser in Sumito reads numbers through :func:`parse_count`: ASCII digits only (``str.isdigit``
also accepts '²' or Arabic-Indic digits, which ``int`` then rejects or reads), and the length is
checked before ``int`` runs, so a 5,000-digit field is a one-line error, never a slow conversion or
an OverflowError further on. The limits that the docs promise live here, one place.
"""

from __future__ import annotations

import re

from sumito.errors import SumitoError

#: longest position string (the standard board's is under 100 characters)
MAX_POSITION_CHARS = 1_000
#: longest move in notation ("a1a3b2" is six characters)
MAX_NOTATION_CHARS = 64
#: the biggest game record file or upload
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: the longest line of a record or of the engine protocol
MAX_LINE_CHARS = 64 * 1024
#: the most plies in one game record
MAX_RECORD_PLIES = 20_000
#: search limits (players' ``depth``, ``time``, ``nodes``, ``hash``; the protocol's ``go``)
MAX_SEARCH_DEPTH = 64
MAX_SEARCH_SECONDS = 24 * 3600.0
#: the most nodes a search may be given (``nodes=``, ``go nodes``): about a day at a million a second
MAX_SEARCH_NODES = 10**11
MAX_HASH_MB = 4096
#: the deepest search of the papers' plain alpha-beta players (heuristic, ABLA, Alphalone: no iterative deepening)
MAX_PLAYER_DEPTH = 12
#: seeds of players' and runs' random generators
MAX_SEED = 2**63 - 1
#: the most games one match, tournament or SPRT schedules (they are made as they are played, never all at
#: once, but a larger count is a typo)
MAX_GAMES = 10_000_000

_DIGITS = re.compile(r"[0-9]+")


def parse_count(text: str, what: str, *, low: int = 0, high: int, error: type[Exception] | None = None) -> int:
    """``text`` as an integer in ``low..high``, written in ASCII digits; else a one-line ``error``
    (default :class:`~sumito.errors.SumitoError`)."""
    if error is None:
        error = SumitoError
    shown = text if len(text) <= 20 else text[:17] + "..."
    if not _DIGITS.fullmatch(text):
        raise error(f"{what} must be a whole number written in digits 0-9, not {shown!r}")
    if len(text.lstrip("0")) > len(str(high)) or not low <= int(text) <= high:
        raise error(f"{what} must be from {low} to {high}, not {shown}")
    return int(text)
