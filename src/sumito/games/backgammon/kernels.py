"""Backgammon move generation in numba: every legal play for a roll, as de-duplicated afterstates.

Why it looks like this: a learner evaluates *afterstates*, so the generator's product is the set of
distinct boards the mover can leave (one row each) plus a compact description of one way to reach
each, and nothing else. The search is an explicit-stack depth-first walk over single checker moves
(no recursion, no per-move Python objects); duplicates are folded in an open-addressing hash table.

Boards follow :mod:`sumito.games.backgammon.board` (28 int8 slots, mover's view, mover moves 24 → 1 → off).
A move description row holds up to four ``(from, to)`` pairs in the mover's numbering, the bar being
point 25 and bearing off point 0; unused pairs are ``-1``.

Rules applied: checkers on the bar enter first; a point held by two or more opposing checkers is
blocked; landing on a single opposing checker (a blot) hits it to the bar; bearing off only with all
15 checkers home (points 1–6), by the exact number or, from the highest occupied point, by a larger
die; play as many dice as possible (four with doubles), and if only one die of a non-double can be
played, the larger one when either could. A roll with no legal play leaves one afterstate: the board
itself (a pass).
"""

from __future__ import annotations

import numpy as np

from sumito.jit import njit

N_SLOTS = 28
BAR = 24
OPP_BAR = 25
OFF = 26
BAR_POINT = 25

_HASH_MULT = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def rearmost_checkers(board: np.ndarray) -> tuple[int, int]:
    """The point of each side's farthest-back checker in the mover's numbering: the mover's (its bar
    counts as point 25, 0 when it has none left) and the opponent's (its bar counts as point 0, 25 when
    it has none left). The checkers can meet again while the mover's lies above the opponent's."""
    mover_back = 0
    if board[24] > 0:
        mover_back = 25
    else:
        for i in range(23, -1, -1):
            if board[i] > 0:
                mover_back = i + 1
                break
    opp_back = 25
    if board[25] > 0:
        opp_back = 0
    else:
        for i in range(24):
            if board[i] < 0:
                opp_back = i + 1
                break
    return mover_back, opp_back


@njit(cache=True)
def all_home(board: np.ndarray) -> bool:
    """True when the mover has no checker on the bar or on points 7..24 (so it may bear off)."""
    if board[BAR] > 0:
        return False
    for i in range(6, 24):  # noqa: SIM110 - a plain loop, as numba wants
        if board[i] > 0:
            return False
    return True


@njit(cache=True)
def can_move(board: np.ndarray, source: int, die: int) -> bool:
    """Whether the mover may move one checker from ``source`` (1..24, or 25 = bar) by ``die`` pips.

    Assumes the caller only offers the bar while checkers are on it (see :func:`next_source`).
    """
    if source == BAR_POINT:
        if board[BAR] <= 0:
            return False
    elif board[source - 1] <= 0:
        return False
    target = source - die
    if target >= 1:
        return board[target - 1] >= -1
    # bearing off
    if not all_home(board):
        return False
    if target == 0:
        return True
    # a larger die bears off only from the highest occupied point
    for i in range(source, 6):  # noqa: SIM110 - a plain loop, as numba wants
        if board[i] > 0:
            return False
    return True


@njit(cache=True)
def apply_move(board: np.ndarray, source: int, die: int) -> int:
    """Move one checker in place (hitting a blot if there is one); return the landing point (0 = off)."""
    if source == BAR_POINT:
        board[BAR] -= 1
    else:
        board[source - 1] -= 1
    target = source - die
    if target >= 1:
        if board[target - 1] == -1:
            board[target - 1] = 0
            board[OPP_BAR] += 1
        board[target - 1] += 1
        return target
    board[OFF] += 1
    return 0


@njit(cache=True)
def board_hash(board: np.ndarray) -> np.uint64:
    """A 64-bit mix of the 28 slots, for the de-duplication table (collisions are checked exactly)."""
    h = np.uint64(1469598103934665603)
    for i in range(N_SLOTS):
        h = (h ^ np.uint64(board[i] + 16)) * _HASH_MULT
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True)
def _same(a: np.ndarray, b: np.ndarray) -> bool:
    for i in range(N_SLOTS):  # noqa: SIM110 - a plain loop, as numba wants
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def _insert(boards, moves, tags, table, n, leaf, path, depth, tag):
    """Add ``leaf`` unless already present; return the new row count (the caller grows the buffers)."""
    mask = table.shape[0] - 1
    slot = np.int64(board_hash(leaf) >> np.uint64(1)) & mask
    while table[slot] >= 0:
        if _same(boards[table[slot]], leaf):
            return n
        slot = (slot + 1) & mask
    table[slot] = n
    boards[n, :] = leaf
    for j in range(8):
        moves[n, j] = path[j] if j < 2 * depth else -1
    tags[n] = tag
    return n + 1


@njit(cache=True)
def _rebuild_table(boards, n, size):
    table = np.full(size, -1, dtype=np.int64)
    mask = size - 1
    for r in range(n):
        slot = np.int64(board_hash(boards[r]) >> np.uint64(1)) & mask
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = r
    return table


@njit(cache=True)
def generate_plays(board: np.ndarray, die1: int, die2: int):
    """All distinct afterstates of ``board`` for the roll ``die1``-``die2``, and one way to play each.

    Returns ``(afterstates int8[n, 28], moves int8[n, 8])`` with ``n >= 1`` (a pass gives the board
    itself with an all ``-1`` move row). Afterstates stay in the mover's view (no swap).
    """
    doubles = die1 == die2
    hi = max(die1, die2)
    lo = min(die1, die2)
    n_dice = 4 if doubles else 2
    n_orders = 1 if doubles else 2

    cap = 64
    boards = np.empty((cap, N_SLOTS), dtype=np.int8)
    moves = np.empty((cap, 8), dtype=np.int8)
    tags = np.empty(cap, dtype=np.int8)  # the die played first (tells a one-die play's die)
    table = np.full(4 * cap, -1, dtype=np.int64)
    n = 0
    best = -1  # most dice used by any play found so far

    stack = np.empty((5, N_SLOTS), dtype=np.int8)
    next_src = np.empty(5, dtype=np.int64)
    had_child = np.zeros(5, dtype=np.bool_)
    path = np.full(8, -1, dtype=np.int64)
    dice = np.empty(4, dtype=np.int64)

    for order in range(n_orders):
        if doubles:
            for k in range(4):
                dice[k] = hi
        elif order == 0:
            dice[0], dice[1] = hi, lo
        else:
            dice[0], dice[1] = lo, hi
        stack[0, :] = board
        k = 0
        next_src[0] = BAR_POINT
        had_child[0] = False
        while k >= 0:
            cur = stack[k]
            die = dice[k] if k < n_dice else 0
            found = -1
            if k < n_dice:
                src = next_src[k]
                if doubles and k > 0 and src > path[2 * (k - 1)]:
                    src = path[2 * (k - 1)]  # doubles: sources never rise, so each order is tried once
                if cur[BAR] > 0:
                    if src == BAR_POINT and can_move(cur, BAR_POINT, die):
                        found = BAR_POINT
                else:
                    if src == BAR_POINT:
                        src = 24
                    while src >= 1:
                        if cur[src - 1] > 0 and can_move(cur, src, die):
                            found = src
                            break
                        src -= 1
            if found > 0:
                next_src[k] = found - 1
                had_child[k] = True
                nxt = stack[k + 1]
                nxt[:] = cur
                path[2 * k] = found
                path[2 * k + 1] = apply_move(nxt, found, die)
                k += 1
                next_src[k] = BAR_POINT
                had_child[k] = False
                continue
            # no further checker to move at depth k: a leaf if nothing was played from here
            if not had_child[k] and k >= best:
                if k > best:
                    best = k
                    n = 0
                    table[:] = -1
                if n + 1 > cap:
                    cap *= 2
                    nb = np.empty((cap, N_SLOTS), dtype=np.int8)
                    nb[:n] = boards[:n]
                    boards = nb
                    nm = np.empty((cap, 8), dtype=np.int8)
                    nm[:n] = moves[:n]
                    moves = nm
                    nt = np.empty(cap, dtype=np.int8)
                    nt[:n] = tags[:n]
                    tags = nt
                    table = _rebuild_table(boards, n, 4 * cap)
                n = _insert(boards, moves, tags, table, n, cur, path, k, dice[0])
            k -= 1

    if best == 1 and not doubles:
        # only one die can be played: the larger one if any play uses it
        has_hi = False
        for r in range(n):
            if tags[r] == hi:
                has_hi = True
                break
        if has_hi:
            m = 0
            for r in range(n):
                if tags[r] == hi:
                    boards[m] = boards[r]
                    moves[m] = moves[r]
                    m += 1
            n = m
    return boards[:n].copy(), moves[:n].copy()

