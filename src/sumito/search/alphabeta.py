"""Fixed-depth alpha-beta (negamax) over any evaluation, as the ABLA paper and Abalearn's
benchmark player use it: moves in generation order, no tables, no extensions.

The evaluation must be symmetric (a position's score for one side is minus its score for the
other), which holds for every evaluation built from own-minus-opponent differences. A position
where a side has lost ``win`` marbles is a loss for the side to move there; a side with no legal
move scores a draw.
"""

from __future__ import annotations

import numpy as np

from sumito.evaluation.features import evaluate, evaluate_hand_set, work_arrays
from sumito.games.abalone.kernels import MAX_MOVES, PUSH_OFF_BIT, generate_moves, make_move, unmake_move
from sumito.jit import njit
from sumito.search.context import WIN, SearchContext
from sumito.stopping import STOP, call_stoppable


@njit(cache=True, nogil=True)
def _negamax(board, side, lost, depth, alpha, beta, ply, root, win, inline_only, cells, offsets, ring, edge_ring,
             zobrist, kind, params, root_moves, values, moves, raw, scratch, nodes, stop):
    """Negamax alpha-beta; at ply 0 it searches ``root_moves``, fills ``values`` and returns the
    index of the first best move.

    ``root`` is the root's window (see :data:`ROOT_VALUES`): 0 a later root move that does not beat
    the best so far gets only an upper bound, at or below the best; 1 one that ties with it gets its
    exact value and one below it an upper bound strictly below it, so that the moves tied for best
    are exactly known (a random choice among them needs no more); 2 every move a full window. The
    root is handled here rather than in a separate caller because numba's cache cannot load a
    recursive function called from another compiled one.
    """
    nodes[0] += 1
    if stop[0]:  # Ctrl-C (sumito.stopping): the caller throws this search away
        return 0 if ply == 0 else 0.0
    if ply > 0:
        if lost[0] >= win or lost[1] >= win:
            return -(WIN - ply)  # the previous mover pushed off the last marble needed: we have lost
        if depth == 0:
            return evaluate_hand_set(board, side, lost[0], lost[1], cells, ring, offsets, edge_ring, kind, params,
                                     raw, scratch)
        buf = moves[ply]
        n = generate_moves(board, side, offsets, cells, inline_only, buf)
        if n == 0:
            return 0.0
    else:
        buf = root_moves
        n = root_moves.shape[0]
    best = -np.inf
    best_index = 0
    for i in range(n):
        mv = buf[i]
        make_move(board, mv, side, offsets, zobrist)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] += 1
        lower = alpha
        if ply == 0 and root == 2:
            lower = -np.inf
        elif ply == 0 and root == 1 and best > -np.inf:
            # just below the best: a move that ties is inside the window, so its value is exact; one
            # that fails low returns at most this bound, so it never reads as a tie
            lower = best - (1e-9 + abs(best) * 1e-12)
        score = -_negamax(board, 3 - side, lost, depth - 1, -beta, -lower, ply + 1, root, win, inline_only, cells,
                          offsets, ring, edge_ring, zobrist, kind, params, root_moves, values, moves, raw, scratch,
                          nodes, stop)
        unmake_move(board, mv, side, offsets)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] -= 1
        if ply == 0:
            values[i] = score
        if score > best:
            best = score
            best_index = i
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best_index if ply == 0 else best


# what the root's values are: "best" the best move's alone (the others are upper bounds at or below
# it), "ties" every move that ties with the best (the others strictly below it: the tied moves are
# known exactly, and a 2-ply search visits far fewer nodes than "all"), "all" every move's
ROOT_VALUES = {"best": 0, "ties": 1, "all": 2}


def search(ctx: SearchContext, root_moves: np.ndarray, depth: int, kind: int, params: np.ndarray,
           values: str = "best") -> tuple[int, np.ndarray, int]:
    """Alpha-beta to ``depth`` plies below each of ``root_moves`` (encoded, at least one).

    Returns the index of the first best move, the value of each root move (exact as ``values``
    says: see :data:`ROOT_VALUES`) and the number of nodes visited.
    """
    if depth < 1:
        raise ValueError("search depth must be at least 1")
    if values not in ROOT_VALUES:
        raise ValueError(f"values must be one of {', '.join(ROOT_VALUES)}, not {values!r}")
    root = ROOT_VALUES[values]
    moves = np.empty((depth + 1, MAX_MOVES), dtype=np.int32)
    root_values = np.empty(len(root_moves), dtype=np.float64)
    raw, scratch = work_arrays()
    nodes = np.zeros(1, dtype=np.int64)
    best = call_stoppable(_negamax, ctx.board, ctx.side, ctx.lost, depth, -np.inf, np.inf, 0, root, ctx.win,
                          ctx.inline_only, ctx.cells, ctx.offsets, ctx.ring, ctx.edge_ring, ctx.zobrist, kind, params,
                          root_moves.astype(np.int32), root_values, moves, raw, scratch, nodes, STOP,
                          short=depth <= 3)
    return int(best), root_values, int(nodes[0])


@njit(cache=True)
def _one_ply(board, side, lost, win, cells, offsets, ring, edge_ring, zobrist, kind, params, root_moves, values, raw,
             scratch):
    for i in range(root_moves.shape[0]):
        mv = root_moves[i]
        make_move(board, mv, side, offsets, zobrist)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] += 1
        if lost[0] >= win or lost[1] >= win:
            values[i] = WIN
        else:
            values[i] = evaluate(board, side, lost[0], lost[1], cells, ring, offsets, edge_ring, kind, params, raw,
                                 scratch)
        unmake_move(board, mv, side, offsets)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] -= 1


def after_values(ctx: SearchContext, root_moves: np.ndarray, kind: int, params: np.ndarray) -> np.ndarray:
    """The score, for the side to move, of the position after each of ``root_moves``.

    Scored from the mover's own point of view, so it serves evaluations that are not symmetric
    (Alphalone's per-colour weights) as well as the others; a winning move scores ``WIN``.
    """
    values = np.empty(len(root_moves), dtype=np.float64)
    raw, scratch = work_arrays()
    _one_ply(ctx.board, ctx.side, ctx.lost, ctx.win, ctx.cells, ctx.offsets, ctx.ring, ctx.edge_ring, ctx.zobrist,
             kind, params, root_moves.astype(np.int32), values, raw, scratch)
    return values
