"""Compiled hot paths: move generation, make/unmake, hashing and perft.

Everything here works on the padded grid of :mod:`sumito.games.abalone.geometry` (``int8``: 0 empty,
1 black, 2 white, 3 off board) and on moves encoded as one integer, so that move lists are plain
``int32`` arrays and nothing allocates a Python object per move.

Move encoding (bit fields of one int):

=========  =====  ============================================================================
bits       field  meaning
=========  =====  ============================================================================
0-8        start  grid index of the trailing marble (inline) or of the first end (broadside)
9-11       dir    direction the marbles move in (0-5)
12-13      count  number of own marbles moved (1-3)
14         side   1 for a broadside move
15-17      line   direction from ``start`` along the marbles (broadside; equals ``dir`` inline)
18-19      push   number of opposing marbles pushed (0-2)
20         off    1 when the last pushed marble leaves the board
=========  =====  ============================================================================

The push fields are derived from the position when the move is generated; they let make/unmake
run without rescanning and let search order pushes first.
"""

from __future__ import annotations

import numpy as np

from sumito.jit import njit

EMPTY = 0
OFF = 3
MAX_MOVES = 512  # more than any position can have (14 marbles: at most 84 inline + 336 broadside)

START_MASK = 0x1FF
DIR_SHIFT = 9
COUNT_SHIFT = 12
BROADSIDE_BIT = 1 << 14
LINE_SHIFT = 15
PUSH_SHIFT = 18
PUSH_OFF_BIT = 1 << 20


@njit(cache=True, inline="always")
def encode_move(start, direction, count, broadside, line, pushed, push_off):
    code = start | (direction << DIR_SHIFT) | (count << COUNT_SHIFT) | (line << LINE_SHIFT)
    code |= pushed << PUSH_SHIFT
    if broadside:
        code |= BROADSIDE_BIT
    if push_off:
        code |= PUSH_OFF_BIT
    return code


@njit(cache=True, inline="always")
def _scan_moves(board, side, offsets, cells, inline_only, out, write, pushes_only=False):
    """Find every legal move of ``side``; write them into ``out`` when ``write``; return the count.

    Inline moves are found once per (trailing marble, direction): the moving line is the run of
    own marbles starting there, so it is unique. Broadside moves are found once per (first end,
    positive line axis 0-2, length 2-3, sideways direction). The callers pass ``write`` as a
    constant, so the compiler drops the stores from the counting version. With ``pushes_only``
    only the inline moves that push opposing marbles are found.
    """
    opp = 3 - side
    n = 0
    for i in range(cells.shape[0]):
        m = cells[i]
        if board[m] != side:
            continue
        for d in range(6):
            step = offsets[d]
            k = 1
            c = m + step
            while board[c] == side and k < 3:
                k += 1
                c += step
            v = board[c]
            if v == EMPTY:
                if pushes_only:
                    continue
                if write:
                    out[n] = encode_move(m, d, k, False, d, 0, False)
                n += 1
            elif v == opp:
                p = 1
                c += step
                while board[c] == opp:
                    p += 1
                    c += step
                    if p >= k:
                        break
                if p < k:
                    v = board[c]
                    if v != side:  # empty or off the board (the run of opposing marbles ended)
                        if write:
                            out[n] = encode_move(m, d, k, False, d, p, v == OFF)
                        n += 1
        if inline_only or pushes_only:
            continue
        for a in range(3):
            second = m + offsets[a]
            if board[second] != side:
                continue
            third = second + offsets[a]
            has_third = board[third] == side
            for d in range(6):
                if d == a or d == a + 3:
                    continue
                step = offsets[d]
                if board[m + step] != EMPTY or board[second + step] != EMPTY:
                    continue
                if write:
                    out[n] = encode_move(m, d, 2, True, a, 0, False)
                n += 1
                if has_third and board[third + step] == EMPTY:
                    if write:
                        out[n] = encode_move(m, d, 3, True, a, 0, False)
                    n += 1
    return n


_NO_OUTPUT = np.empty(0, dtype=np.int32)


@njit(cache=True)
def generate_moves(board, side, offsets, cells, inline_only, out):
    """Write every legal move of ``side`` into ``out`` (``MAX_MOVES`` long); return how many."""
    return _scan_moves(board, side, offsets, cells, inline_only, out, True)


@njit(cache=True)
def count_moves(board, side, offsets, cells, inline_only):
    """The number of legal moves of ``side``, without writing them (perft's last ply)."""
    return _scan_moves(board, side, offsets, cells, inline_only, _NO_OUTPUT, False)


@njit(cache=True)
def count_pushes(board, side, offsets, cells):
    """How many legal pushes (inline moves that move opposing marbles) ``side`` has: a measure of
    attacking pressure for evaluations, cheaper than generating every move."""
    return _scan_moves(board, side, offsets, cells, True, _NO_OUTPUT, False, True)


@njit(cache=True)
def generate_push_offs(board, side, offsets, edge_cells, out):
    """Write only the push-off moves of ``side`` into ``out``; return how many.

    The same moves, encoded the same way, as :func:`generate_moves` finds with the push-off bit
    set, found from the other end: an opposing marble on an edge cell (``edge_cells``: the grid
    indices of the outermost ring), a direction that leaves the board from it, the run of
    opposing marbles behind it and the run of own marbles behind that. Quiescence search calls
    this at every horizon node, where a full move list would be wasted work.
    """
    opp = 3 - side
    n = 0
    for i in range(edge_cells.shape[0]):
        e = edge_cells[i]
        if board[e] != opp:
            continue
        for d in range(6):
            step = offsets[d]
            if board[e + step] != OFF:
                continue
            p = 1
            c = e - step
            while board[c] == opp:
                p += 1
                c -= step
            if p > 2 or board[c] != side:
                continue
            # c is the front own marble; a move of k own marbles starts k - 1 cells behind it
            for k in range(1, 4):
                if k > 1 and board[c - (k - 1) * step] != side:
                    break
                if k > p:
                    out[n] = encode_move(c - (k - 1) * step, d, k, False, d, p, True)
                    n += 1
    return n


@njit(cache=True)
def has_push_off(board, side, offsets, edge_cells):
    """Whether ``side`` has a push-off: :func:`generate_push_offs`'s test without the move list (the
    search asks it of every node where one side is a marble from losing: "is it in check?")."""
    opp = 3 - side
    for i in range(edge_cells.shape[0]):
        e = edge_cells[i]
        if board[e] != opp:
            continue
        for d in range(6):
            step = offsets[d]
            if board[e + step] != OFF:
                continue
            p = 1
            c = e - step
            while board[c] == opp:
                p += 1
                c -= step
            if p > 2 or board[c] != side:
                continue
            # p opposing marbles need more own marbles behind them: at least p + 1 in a line
            k = 1
            while k <= p and board[c - k * step] == side:
                k += 1
            if k > p:
                return True
    return False


@njit(cache=True, inline="always")
def move_steps(move, offsets):
    """A move's trailing (inline) or first (broadside) cell, its step, how many own marbles move and
    the step along them: what make/unmake, and anything that follows a move's marbles, decode."""
    return (move & START_MASK, offsets[(move >> DIR_SHIFT) & 7], (move >> COUNT_SHIFT) & 3,
            offsets[(move >> LINE_SHIFT) & 7])


@njit(cache=True)
def make_move(board, move, side, offsets, zobrist):
    """Play ``move`` for ``side`` on ``board`` in place; return the Zobrist hash delta.

    The delta includes the side-to-move key. Whether a marble left the board is
    ``move & PUSH_OFF_BIT``; the caller keeps the lost-marble counts. (The callers do that inline
    after the call: a helper taking the counts array as well measured 15-35% slower in perft
    and search, as numba passes every array argument anew.)
    """
    opp = 3 - side
    start, step, k, line_step = move_steps(move, offsets)
    delta = zobrist[0, 0]
    if move & BROADSIDE_BIT:
        for i in range(k):
            src = start + i * line_step
            board[src] = EMPTY
            board[src + step] = side
            delta ^= zobrist[side, src] ^ zobrist[side, src + step]
        return delta
    head = start + k * step
    p = (move >> PUSH_SHIFT) & 3
    board[start] = EMPTY
    delta ^= zobrist[side, start] ^ zobrist[side, head]
    if p > 0:
        delta ^= zobrist[opp, head]
        if not (move & PUSH_OFF_BIT):
            tail = head + p * step
            board[tail] = opp
            delta ^= zobrist[opp, tail]
    board[head] = side
    return delta


@njit(cache=True)
def unmake_move(board, move, side, offsets):
    """Take back ``move`` (just played by ``side``) on ``board`` in place."""
    opp = 3 - side
    start, step, k, line_step = move_steps(move, offsets)
    if move & BROADSIDE_BIT:
        for i in range(k):
            src = start + i * line_step
            board[src + step] = EMPTY
            board[src] = side
        return
    head = start + k * step
    p = (move >> PUSH_SHIFT) & 3
    board[start] = side
    if p > 0:
        board[head] = opp
        if not (move & PUSH_OFF_BIT):
            board[head + p * step] = EMPTY
    else:
        board[head] = EMPTY


@njit(cache=True)
def compute_hash(board, side, cells, zobrist):
    """The Zobrist hash of a position from scratch (the incremental one must always equal it)."""
    h = np.uint64(0)
    for i in range(cells.shape[0]):
        c = cells[i]
        v = board[c]
        if v == 1 or v == 2:
            h ^= zobrist[v, c]
    if side == 2:
        h ^= zobrist[0, 0]
    return h


@njit(cache=True, nogil=True)
def perft(board, side, lost_black, lost_white, depth, win, offsets, cells, zobrist, inline_only, stop):
    """Count the leaf positions ``depth`` plies below this one; give up (returning a partial count)
    once ``stop[0]`` is set (see :mod:`sumito.stopping`).

    A position in which a side has lost ``win`` marbles is over and has no children. The last
    ply is counted without making the moves, as in chess perft. The walk is iterative (an
    explicit stack of move lists) because numba cannot cache recursive functions.
    """
    if depth <= 0:
        return 1
    if lost_black >= win or lost_white >= win:
        return 0
    if depth == 1:
        return count_moves(board, side, offsets, cells, inline_only)
    work = board.copy()
    lost = np.array([lost_black, lost_white], dtype=np.int64)
    moves = np.empty((depth, MAX_MOVES), dtype=np.int32)
    n_moves = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    n_moves[0] = generate_moves(work, side, offsets, cells, inline_only, moves[0])
    total = 0
    ply = 0
    s = side  # side to move at ``ply``
    while ply >= 0:
        if stop[0]:
            break
        if index[ply] == n_moves[ply]:
            # every move at this ply is done: go back up and take back the move that led here
            ply -= 1
            if ply >= 0:
                s = 3 - s
                mv = moves[ply, index[ply]]
                unmake_move(work, mv, s, offsets)
                if mv & PUSH_OFF_BIT:
                    lost[2 - s] -= 1
                index[ply] += 1
            continue
        mv = moves[ply, index[ply]]
        make_move(work, mv, s, offsets, zobrist)
        if mv & PUSH_OFF_BIT:
            lost[2 - s] += 1
        child = 3 - s
        below = depth - ply - 1  # plies still to count under the child
        if lost[0] < win and lost[1] < win:
            if below == 1:
                total += count_moves(work, child, offsets, cells, inline_only)
            else:
                ply += 1
                s = child
                n_moves[ply] = generate_moves(work, s, offsets, cells, inline_only, moves[ply])
                index[ply] = 0
                continue
        unmake_move(work, mv, s, offsets)
        if mv & PUSH_OFF_BIT:
            lost[2 - s] -= 1
        index[ply] += 1
    return total


@njit(cache=True)
def expand(board, side, moves, offsets, zobrist, out_boards):
    """Write the board after each move into ``out_boards[i]``; return the hash deltas.

    All successors of a position in one call, for batched evaluation and learning.
    """
    n = moves.shape[0]
    deltas = np.empty(n, dtype=np.uint64)
    for i in range(n):
        out_boards[i, :] = board
        deltas[i] = make_move(out_boards[i], moves[i], side, offsets, zobrist)
    return deltas
