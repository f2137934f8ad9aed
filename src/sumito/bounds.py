"""Bounded parsing of numbers from anything a user, a file or a client supplies.

Every parser in Sumito reads counts through :func:`parse_count`: ASCII digits only (``str.isdigit``
also accepts '²' or Arabic-Indic digits, which ``int`` then rejects or reads), and the length is
checked before ``int`` runs, so a 5,000-digit field is a one-line error, never a slow conversion or
an OverflowError further on. Other numbers (a sign, a fraction, an exponent: player specs' options, the
command line's seconds, the engine protocol's values) go through :func:`read_number`, one syntax for all:
what ``float()`` and ``int()`` accept besides it ('1_0', 'nan', 'inf', ' 1 ', '١', '1e400') is refused.
The limits that the docs promise live here, one place.
"""

from __future__ import annotations

import math
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
#: the deepest nesting of JSON read from a file, an archive or another program (Sumito's own files nest
#: a few levels deep); checked by a scan without recursion before the parser, which would recurse once a level
MAX_JSON_DEPTH = 64
#: the largest JSON file read whole (a run's state or settings, a training report)
MAX_JSON_FILE_BYTES = 16 * 2**20
#: the largest size of any weight a file of learned weights may hold (networks, NNUE, Alphalone's weights,
#: backgammon's modules, training checkpoints): the shipped networks' largest is 1,000 (the NNUE base's
#: marble weight, in engine points), their learned weights under 3; a weight beyond this is a damaged or
#: hostile file, never training
MAX_WEIGHT = 1e6

_DIGITS = re.compile(r"[0-9]+")
#: the numbers :func:`read_number` reads: an optional sign, then ASCII digits (18 at most before and after
#: the point), an optional exponent of at most three digits; whole numbers without point or exponent
_WHOLE = re.compile(r"[-+]?[0-9]{1,18}")
_NUMBER = re.compile(r"[-+]?([0-9]{1,18}(\.[0-9]{0,18})?|\.[0-9]{1,18})([eE][-+]?[0-9]{1,3})?")
#: virtual draws a pair of players may be given as a rating prior: far past any use, small enough to stay a prior
MAX_PRIOR_DRAWS = 1000.0
#: the largest Elo difference an SPRT's hypothesis names
MAX_ELO = 1000.0
#: the widest hidden layer of an NNUE (the search's 2,048-number work array holds the accumulator and the
#: second layer: 2H + 2 + H2)
MAX_NNUE_HIDDEN = 511
#: the widest hidden layer of a zero learner's network, in a file or an option
MAX_ZERO_HIDDEN = 4096
#: the most simulations a zero search may be asked for
MAX_SIMS = 100_000
#: the most evaluations a learning curve pools into one point
MAX_SMOOTH = 10_000
#: the most `sumito serve --max-games/--max-queued/--max-human-games` may be set to (a few thousand sessions
#: and queued jobs are still cheap)
MAX_CLIENT_CAP = 1_000
#: the most positions of `sumito solve score`'s suite
MAX_SUITE = 100_000


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


def read_number(text: str, whole: bool = False) -> float | int | None:
    """``text`` as a finite number (an ``int`` when ``whole``: no point, no exponent), or None when it is
    not one: ASCII digits with an optional sign, point and exponent only (no underscores, spaces, 'nan',
    'inf' or other digits), and not so large that it is infinite ('1e400')."""
    if not (_WHOLE if whole else _NUMBER).fullmatch(text):
        return None
    if whole:
        return int(text)
    value = float(text)
    return value if math.isfinite(value) else None


def parse_number(text: str, what: str, *, low: float, high: float, whole: bool = False,
                 error: type[Exception] | None = None) -> float | int:
    """``text`` as a number (:func:`read_number`) in ``low..high``; else a one-line ``error`` (default
    :class:`~sumito.errors.SumitoError`) that names ``what``."""
    if error is None:
        error = SumitoError
    shown = text if len(text) <= 20 else text[:17] + "..."
    value = read_number(text, whole)
    if value is None:
        raise error(f"{what} must be {'a whole number' if whole else 'a number'}, not {shown!r}")
    if not low <= value <= high:
        raise error(f"{what} must be from {low:g} to {high:g}, not {shown}")
    return value
