"""A self-play game of the zero learner as one compiled call, and the random starting positions it may
begin from.

Each ply the tree search (:func:`sumito.models.zero.search.search`) chooses the move, with its root noise
on, and the game keeps one training sample: the side to move's active inputs, its legal actions and the
search's policy target over them. The game ends by the rules (the marbles to win pushed off; a side without
a legal move draws) or, a draw, at ``max_plies``. The caller turns the result into each sample's value
target (1 for the side that won, −1 for the side that lost, 0 in a draw; with a discount below 1, those
times the discount to the power of the plies left to the game's end).

PUCT's move is drawn from the root's visit counts for the first ``sample_plies`` plies (temperature 1),
then the most visited; Gumbel's move is sequential halving's winner, whose Gumbel noise already samples.
"""

from __future__ import annotations

import numpy as np

from sumito.evaluation.zero_value import encode
from sumito.games.abalone import kernels as K
from sumito.jit import njit
from sumito.models.zero.search import PUCT, next_uniform, search


@njit(cache=True)
def random_position(cells, marbles, win, state, board):
    """Fill ``board`` (a grid with every cell empty) with a position drawn uniformly from those where each
    side has lost fewer than ``win`` marbles: each side's lost count uniform in 0..win − 1, then the marbles
    left placed on uniformly drawn cells. Returns ``(lost_black, lost_white)``."""
    n = cells.shape[0]
    lost_black = min(int(next_uniform(state) * win), win - 1)
    lost_white = min(int(next_uniform(state) * win), win - 1)
    order = cells.copy()
    for i in range(n - 1, 0, -1):  # Fisher–Yates
        j = min(int(next_uniform(state) * (i + 1)), i)
        order[i], order[j] = order[j], order[i]
    b = marbles - lost_black
    w = marbles - lost_white
    for i in range(b):
        board[order[i]] = 1
    for i in range(b, b + w):
        board[order[i]] = 2
    return lost_black, lost_white


@njit(cache=True)
def play_game(board, side, lost_black, lost_white, max_plies, theta, off, h1, h2, cells, offsets, zobrist,
              inline_only, win, lookup, n_sims, mode, considered, c_visit, c_scale, c_puct, discount, dirichlet_alpha,
              dirichlet_frac, sample_plies, state, node_board, node_int, node_value, edge_int, edge_float, moves,
              active, acts, logits, a1, a2, probs, scratch, out_actions, out_codes, out_policy, out_visits,
              feats, feat_start, legal, legal_start, targets, sides, root_values):
    """Play one self-play game from ``board`` (changed in place); write its samples (see the module's
    docstring) from index 0 of the ``feats``/``legal``/``targets`` spans, ``sides`` and ``root_values`` (the
    search's value for the side to move). Returns
    ``(samples, winner, plies)``: ``winner`` 1 or 2, or 0 for a draw."""
    feat_start[0] = 0
    legal_start[0] = 0
    n_samples = 0
    winner = 0
    plies = 0
    never = np.zeros(1, dtype=np.int64)  # a self-play game's searches run all their simulations
    while plies < max_plies:
        own, other = (lost_black, lost_white) if side == 1 else (lost_white, lost_black)
        n, chosen, root_value = search(board, side, lost_black, lost_white, theta, off, h1, h2, cells, offsets, zobrist,
                              inline_only, win, lookup, n_sims, mode, True, considered, c_visit, c_scale, c_puct,
                              discount, dirichlet_alpha, dirichlet_frac, state, never, node_board, node_int, node_value,
                              edge_int, edge_float, moves, active, acts, logits, a1, a2, probs, scratch, out_actions,
                              out_codes, out_policy, out_visits)
        if n == 0:
            break  # a side without a legal move: a draw
        f0 = feat_start[n_samples]
        na = encode(board, side, own, other, cells, win, feats[f0:])
        feat_start[n_samples + 1] = f0 + na
        l0 = legal_start[n_samples]
        for t in range(n):
            legal[l0 + t] = out_actions[t]
            targets[l0 + t] = out_policy[t]
        legal_start[n_samples + 1] = l0 + n
        sides[n_samples] = side
        root_values[n_samples] = root_value
        n_samples += 1
        if mode == PUCT and plies < sample_plies:
            total = 0.0
            for t in range(n):
                total += out_visits[t]
            u = next_uniform(state) * total
            acc = 0.0
            chosen = n - 1
            for t in range(n):
                acc += out_visits[t]
                if u < acc:
                    chosen = t
                    break
        code = out_codes[chosen]
        K.make_move(board, code, side, offsets, zobrist)
        plies += 1
        if code & K.PUSH_OFF_BIT:
            if side == 1:
                lost_white += 1
                if lost_white >= win:
                    winner = 1
                    break
            else:
                lost_black += 1
                if lost_black >= win:
                    winner = 2
                    break
        side = 3 - side
    return n_samples, winner, plies
