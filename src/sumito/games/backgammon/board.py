"""A backgammon position as one small int8 array, always from the point of view of the side to move.

Why one array from the mover's view: the move generator, the position ID and (later) the learning
encoding then never branch on colour, and a whole batch of afterstates is one 2-D array.

Layout (``N_SLOTS`` = 28 int8 values):

* ``[0:24]`` — points 1..24 as the mover counts them (index ``i`` is point ``i + 1``): a positive value is
  that many of the mover's checkers, a negative value that many of the opponent's. The mover's home
  board is points 1–6 and it moves its checkers downwards (24 → 1, then off); the opponent's point ``p``
  (in its own numbering) is the mover's point ``25 - p``.
* ``[24]`` — the mover's checkers on the bar (≥ 0).
* ``[25]`` — the opponent's checkers on the bar (≥ 0).
* ``[26]`` — the mover's checkers borne off (≥ 0).
* ``[27]`` — the opponent's checkers borne off (≥ 0).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable

import numpy as np

N_POINTS = 24
N_CHECKERS = 15
BAR = 24  # slot of the mover's bar
OPP_BAR = 25  # slot of the opponent's bar
OFF = 26  # slot of the mover's borne-off checkers
OPP_OFF = 27  # slot of the opponent's borne-off checkers
N_SLOTS = 28

#: In move descriptions, the bar is "point 25" and bearing off goes to "off" (the mover's numbering).
BAR_POINT = 25


def swap_array(board: np.ndarray) -> np.ndarray:
    """The same position seen by the other side (who is then to move)."""
    out = np.empty(N_SLOTS, dtype=np.int8)
    out[:N_POINTS] = -board[N_POINTS - 1 :: -1]
    out[BAR], out[OPP_BAR] = board[OPP_BAR], board[BAR]
    out[OFF], out[OPP_OFF] = board[OPP_OFF], board[OFF]
    return out


def check_array(board: np.ndarray) -> None:
    """Raise ``ValueError`` unless ``board`` is a possible position (15 checkers a side, sane counts)."""
    if board.shape != (N_SLOTS,):
        raise ValueError(f"a backgammon board has {N_SLOTS} slots, not shape {board.shape}")
    points = board[:N_POINTS].astype(np.int64)
    for slot in (BAR, OPP_BAR, OFF, OPP_OFF):
        if board[slot] < 0:
            raise ValueError(f"slot {slot} (bar / borne off) cannot be negative")
    mine = int(points[points > 0].sum()) + int(board[BAR]) + int(board[OFF])
    theirs = int(-points[points < 0].sum()) + int(board[OPP_BAR]) + int(board[OPP_OFF])
    if mine != N_CHECKERS or theirs != N_CHECKERS:
        raise ValueError(f"each side has {N_CHECKERS} checkers, not {mine} and {theirs}")


class BackgammonPosition:
    """An immutable backgammon position from the side to move's view (see the module docstring).

    The array is kept read-only so that a position can be hashed and shared; kernels take ``.board``.
    """

    __slots__ = ("_board", "_key")

    def __init__(self, board: Iterable[int] | np.ndarray, *, check: bool = True) -> None:
        arr = np.array(board, dtype=np.int8).reshape(-1)
        if check:
            check_array(arr)
        arr.setflags(write=False)
        self._board = arr
        self._key = arr.tobytes()

    @classmethod
    def start(cls) -> BackgammonPosition:
        """The standard opening layout: 2 on the 24 point, 5 on the 13, 3 on the 8, 5 on the 6, a side."""
        board = np.zeros(N_SLOTS, dtype=np.int8)
        for point, count in ((24, 2), (13, 5), (8, 3), (6, 5)):
            board[point - 1] = count
            board[(25 - point) - 1] = -count
        return cls(board)

    @classmethod
    def from_points(
        cls,
        mine: dict[int, int],
        theirs: dict[int, int],
        *,
        bar: int = 0,
        opp_bar: int = 0,
    ) -> BackgammonPosition:
        """Build a position from ``{point: count}`` maps, each side in **its own** numbering (1..24).

        The borne-off counts are whatever is missing from 15, which is how positions are described in
        books and puzzles.
        """
        board = np.zeros(N_SLOTS, dtype=np.int8)
        for point, count in mine.items():
            board[point - 1] += count
        for point, count in theirs.items():
            if board[(25 - point) - 1] != 0:
                raise ValueError(f"both sides on the mover's point {25 - point}")
            board[(25 - point) - 1] -= count
        board[BAR], board[OPP_BAR] = bar, opp_bar
        board[OFF] = N_CHECKERS - sum(mine.values()) - bar
        board[OPP_OFF] = N_CHECKERS - sum(theirs.values()) - opp_bar
        return cls(board)

    @property
    def board(self) -> np.ndarray:
        """The read-only int8 array (28 slots)."""
        return self._board

    def swap(self) -> BackgammonPosition:
        """The same position from the other side's view."""
        return BackgammonPosition(swap_array(self._board), check=False)

    def point(self, point: int) -> int:
        """Checkers on the mover's ``point`` (1..24): positive for the mover's, negative for the opponent's."""
        return int(self._board[point - 1])

    @property
    def bar(self) -> int:
        return int(self._board[BAR])

    @property
    def opp_bar(self) -> int:
        return int(self._board[OPP_BAR])

    @property
    def off(self) -> int:
        return int(self._board[OFF])

    @property
    def opp_off(self) -> int:
        return int(self._board[OPP_OFF])

    def pips(self) -> tuple[int, int]:
        """Pip counts (mover, opponent): the total distance each side's checkers still have to travel."""
        points = self._board[:N_POINTS].astype(np.int64)
        numbers = np.arange(1, N_POINTS + 1)
        mine = int((np.maximum(points, 0) * numbers).sum()) + 25 * self.bar
        theirs = int((np.maximum(-points, 0) * (25 - numbers)).sum()) + 25 * self.opp_bar
        return mine, theirs

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BackgammonPosition):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"BackgammonPosition({position_id(self)!r})"


# --------------------------------------------------------------------------- position IDs
# GNU Backgammon position IDs: the 14-character text key that backgammon programs exchange.
#
# Why: a position ID names a position in tests, logs and bug reports, and lets positions be pasted
# to and from GNU Backgammon for checking.
#
# The key is a bit string of 80 bits: for each side, from its own 1 point up to its 24 point and then
# its bar, as many 1 bits as it has checkers there followed by one 0 bit; then zero padding.
#
# Which side comes first: GNU Backgammon's manual says the player on roll, but the program (checked
# against gnubg 1.07: after X plays 31 as 8/5 6/5 from the start, O on roll, gnubg shows
# ``sGfwATDgc/ABMA``, whose first side has the 5 point made) writes the side **not** on roll first, then
# the side on roll (its ``anBoard[0]``, ``anBoard[1]``). We follow the program, so that IDs paste
# both ways. The bits are packed little-endian into 10 bytes (the first bit is the least
# significant bit of the first byte), and the bytes are written in base64 without the ``==`` padding.
# Borne-off checkers are not stored: they are whatever is missing from 15.

START_ID = "4HPwATDgc/ABMA"
_ALPHABET_ORDER = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_ALPHABET = frozenset(_ALPHABET_ORDER)


class PositionIdError(ValueError):
    """A malformed GNU Backgammon position ID."""


def _runs(board: np.ndarray) -> list[list[int]]:
    """Checker counts for [opponent, mover] (gnubg's order), each in its own numbering: points 1..24, bar."""
    mover = [max(int(board[i]), 0) for i in range(N_POINTS)] + [int(board[BAR])]
    opponent = [max(-int(board[N_POINTS - 1 - i]), 0) for i in range(N_POINTS)] + [int(board[OPP_BAR])]
    return [opponent, mover]


def position_key(position: BackgammonPosition) -> bytes:
    """The 10-byte GNU Backgammon key of ``position`` (the side to move is gnubg's player on roll)."""
    key = 0
    bit = 0
    for counts in _runs(position.board):
        for count in counts:
            key |= ((1 << count) - 1) << bit  # ``count`` one bits ...
            bit += count + 1  # ... then a zero bit
    return key.to_bytes(10, "little")


def position_id(position: BackgammonPosition) -> str:
    """The 14-character GNU Backgammon position ID of ``position``."""
    return base64.b64encode(position_key(position)).decode("ascii")[:14]


def from_position_id(text: str) -> BackgammonPosition:
    """The position (side on roll to move) named by a GNU Backgammon position ID.

    Raises :class:`PositionIdError` for text that is not 14 base64 characters, has more than 15
    checkers for a side, runs past 80 bits, or puts both sides on one point.
    """
    text = text.strip()
    if len(text) != 14 or not set(text) <= _ALPHABET:
        raise PositionIdError(f"a position ID is 14 base64 characters, not {text!r}")
    if _ALPHABET_ORDER.index(text[-1]) & 0xF:
        raise PositionIdError(f"position ID {text!r} sets bits beyond the 80 of the key")
    try:
        raw = base64.b64decode(text + "==", validate=True)
    except binascii.Error as exc:  # pragma: no cover - the alphabet check above catches these
        raise PositionIdError(f"not base64: {text!r}") from exc
    key = int.from_bytes(raw, "little")
    bit = 0
    sides: list[list[int]] = []
    for _ in range(2):
        counts: list[int] = []
        while len(counts) < N_POINTS + 1:
            if bit >= 80:
                raise PositionIdError(f"position ID {text!r} runs past 80 bits")
            count = 0
            while bit < 80 and (key >> bit) & 1:
                count += 1
                bit += 1
            bit += 1  # the closing zero
            counts.append(count)
        if sum(counts) > N_CHECKERS:
            raise PositionIdError(f"position ID {text!r} has {sum(counts)} checkers for one side")
        sides.append(counts)
    if bit > 80 or key >> bit:
        raise PositionIdError(f"position ID {text!r} has stray bits after both sides")
    opponent, mover = sides
    board = np.zeros(N_SLOTS, dtype=np.int8)
    for i in range(N_POINTS):
        theirs = opponent[N_POINTS - 1 - i]
        if mover[i] and theirs:
            raise PositionIdError(f"position ID {text!r} puts both sides on point {i + 1}")
        board[i] = mover[i] - theirs
    board[BAR], board[OPP_BAR] = mover[N_POINTS], opponent[N_POINTS]
    board[OFF] = N_CHECKERS - sum(mover)
    board[OPP_OFF] = N_CHECKERS - sum(opponent)
    return BackgammonPosition(board)
