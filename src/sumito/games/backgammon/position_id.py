"""GNU Backgammon position IDs: the 14-character text key that backgammon programs exchange.

Why: a position ID names a position in tests, logs and bug reports, and lets positions be pasted
to and from GNU Backgammon for checking.

The key is a bit string of 80 bits: for each side, from its own 1 point up to its 24 point and then
its bar, as many 1 bits as it has checkers there followed by one 0 bit; then zero padding.

Which side comes first: GNU Backgammon's manual says the player on roll, but the program (checked
against gnubg 1.07: after X plays 31 as 8/5 6/5 from the start, O on roll, gnubg shows
``sGfwATDgc/ABMA``, whose first side has the 5 point made) writes the side **not** on roll first, then
the side on roll (its ``anBoard[0]``, ``anBoard[1]``). We follow the program, so that IDs paste
both ways. The bits are packed little-endian into 10 bytes (the first bit is the least
significant bit of the first byte), and the bytes are written in base64 without the ``==`` padding.
Borne-off checkers are not stored: they are whatever is missing from 15.
"""

from __future__ import annotations

import base64
import binascii

import numpy as np

from sumito.games.backgammon.board import BAR, N_CHECKERS, N_POINTS, N_SLOTS, OFF, OPP_BAR, OPP_OFF, BackgammonPosition

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
