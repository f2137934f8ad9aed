"""The zero learner's tree search: a policy-value network guiding a search tree, as one compiled call.

Two root searches, chosen by ``mode`` (docs/zero.md compares them on the mini board):

* :data:`GUMBEL` (Danihelka et al. 2022, "Policy improvement by planning with Gumbel"): the root samples
  ``considered`` actions without replacement by the Gumbel-top-k trick (logits + Gumbel noise; no noise when
  playing), then shares the simulations out by sequential halving, keeping each round the better half by
  ``g + logit + σ(q)``; the action played is the last one left. Inside the tree an action is chosen
  deterministically, the one whose share of the visits lags most behind the improved policy
  ``softmax(logit + σ(completed q))``. The policy's training target is that improved policy at the root.
  ``σ(q) = (c_visit + max visits) · c_scale · q`` with ``q`` in [0, 1], the paper's transform.
* :data:`PUCT` (AlphaZero, Silver et al. 2017): every node chooses ``argmax Q + c_puct · P · √N / (1 + n)``
  (unvisited actions valued at the node's own network value), the root's priors mixed with Dirichlet noise
  in self-play; the training target is the root's visit counts.

A node holds its board, side to move and lost marbles, so a simulation walks down from the root without
replaying moves; an edge holds its action, move code, logit, visits and value sum (for the side to move
at its parent). Terminal positions are the rules' own: a push-off that reaches the marbles to win (the
side to move there has lost, value −1) and a side without a legal move (a draw, the arena's rule).
Repetitions and ply caps are not seen inside the tree.

Random numbers come from :func:`next_uniform`, a splitmix64 generator on a one-element state array, and
the logarithm from :mod:`sumito.nn`: the same draws and the same search on every CPU.
"""

from __future__ import annotations

import numpy as np

from sumito import nn
from sumito.evaluation.zero_value import encode
from sumito.games.abalone import kernels as K
from sumito.jit import njit
from sumito.models.zero.network import evaluate, softmax
from sumito.rlcore.actions import move_key

GUMBEL = 0
PUCT = 1

# node fields (int64 [nodes, N_NODE_INT])
_SIDE, _LOST_BLACK, _LOST_WHITE, _EDGE0, _N_EDGES, _TERMINAL = range(6)
N_NODE_INT = 6
# edge fields: int64 [edges, 3] (action, code, child) and float64 [edges, 3] (logit, visits, value sum)
_ACTION, _CODE, _CHILD = range(3)
_LOGIT, _VISITS, _VALUE_SUM = range(3)
MAX_DEPTH = 512


@njit(cache=True)
def next_uniform(state):
    """A uniform double in [0, 1) from splitmix64 (``state``: uint64 [1], advanced)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def gumbel(state):
    """A standard Gumbel draw, −log(−log u), with :mod:`sumito.nn`'s logarithm."""
    u = next_uniform(state)
    if u <= 0.0:
        u = 1e-300
    return -nn.log(-nn.log(u))


@njit(cache=True)
def gamma_draw(alpha, state):
    """A Gamma(alpha, 1) draw (Marsaglia and Tsang, normals by the polar method; alpha < 1 boosted)."""
    boost = 1.0
    if alpha < 1.0:
        u = next_uniform(state)
        boost = nn.exp(nn.log(max(u, 1e-300)) / alpha)
        alpha += 1.0
    d = alpha - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    while True:
        while True:
            x1 = 2.0 * next_uniform(state) - 1.0
            x2 = 2.0 * next_uniform(state) - 1.0
            s = x1 * x1 + x2 * x2
            if 0.0 < s < 1.0:
                break
        x = x1 * np.sqrt(-2.0 * nn.log(s) / s)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = next_uniform(state)
        if nn.log(max(u, 1e-300)) < 0.5 * x * x + d - d * v + d * nn.log(v):
            return d * v * boost


def workspace(n_sims: int, width: int, h1: int, h2: int) -> tuple:
    """The arrays one search needs, allocated once and reused (a player's or a self-play worker's)."""
    nodes = n_sims + 2
    return (np.zeros((nodes, width), dtype=np.int8), np.zeros((nodes, N_NODE_INT), dtype=np.int64),
            np.zeros(nodes, dtype=np.float64), np.zeros((nodes * K.MAX_MOVES, 3), dtype=np.int64),
            np.zeros((nodes * K.MAX_MOVES, 3), dtype=np.float64), np.zeros(K.MAX_MOVES, dtype=np.int32),
            np.zeros(512, dtype=np.int64), np.zeros(K.MAX_MOVES, dtype=np.int64), np.zeros(K.MAX_MOVES),
            np.zeros(h1), np.zeros(h2), np.zeros(K.MAX_MOVES), np.zeros(2 * K.MAX_MOVES))


@njit(cache=True)
def _expand(node, n_nodes_edges, node_board, node_int, node_value, edge_int, edge_float, theta, off, h1, h2, cells,
            offsets, inline_only, win, lookup, moves, active, acts, logits, a1, a2):
    """Generate ``node``'s moves, evaluate it with the network and add its edges from ``n_nodes_edges[1]``;
    returns the node's value for its side to move."""
    board = node_board[node]
    side = node_int[node, _SIDE]
    n = K.generate_moves(board, side, offsets, cells, inline_only, moves)
    first = n_nodes_edges[1]
    node_int[node, _EDGE0] = first
    node_int[node, _N_EDGES] = n
    if n == 0:
        node_int[node, _TERMINAL] = 1
        node_value[node] = 0.0
        return 0.0
    for t in range(n):
        acts[t] = lookup[move_key(moves[t])]
    lost_black = node_int[node, _LOST_BLACK]
    lost_white = node_int[node, _LOST_WHITE]
    own, other = (lost_black, lost_white) if side == 1 else (lost_white, lost_black)
    na = encode(board, side, own, other, cells, win, active)
    value = evaluate(theta, off, h1, h2, active, na, acts, n, logits, a1, a2)
    for t in range(n):
        e = first + t
        edge_int[e, _ACTION] = acts[t]
        edge_int[e, _CODE] = moves[t]
        edge_int[e, _CHILD] = -1
        edge_float[e, _LOGIT] = logits[t]
        edge_float[e, _VISITS] = 0.0
        edge_float[e, _VALUE_SUM] = 0.0
    n_nodes_edges[1] = first + n
    node_value[node] = value
    return value


@njit(cache=True)
def _child(parent, e, n_nodes_edges, node_board, node_int, node_value, edge_int, offsets, zobrist, win):
    """Make the node that edge ``e`` of ``parent`` leads to; returns it (its value set when it is terminal)."""
    c = n_nodes_edges[0]
    n_nodes_edges[0] = c + 1
    node_board[c, :] = node_board[parent]
    side = node_int[parent, _SIDE]
    code = edge_int[e, _CODE]
    K.make_move(node_board[c], code, side, offsets, zobrist)
    node_int[c, _SIDE] = 3 - side
    node_int[c, _LOST_BLACK] = node_int[parent, _LOST_BLACK]
    node_int[c, _LOST_WHITE] = node_int[parent, _LOST_WHITE]
    node_int[c, _TERMINAL] = 0
    node_int[c, _N_EDGES] = 0
    if code & K.PUSH_OFF_BIT:
        loser = _LOST_WHITE if side == 1 else _LOST_BLACK
        node_int[c, loser] += 1
        if node_int[c, loser] >= win:
            node_int[c, _TERMINAL] = 1
            node_value[c] = -1.0
    edge_int[e, _CHILD] = c
    return c


@njit(cache=True)
def _sigma(q, max_visits, c_visit, c_scale):
    return (c_visit + max_visits) * c_scale * (0.5 * (q + 1.0))


@njit(cache=True)
def _improved(node, node_int, node_value, edge_float, c_visit, c_scale, probs, out):
    """The improved policy ``softmax(logit + σ(completed q))`` over ``node``'s edges into ``out``; ``probs``:
    scratch for the prior. Returns the node's total visits."""
    first = node_int[node, _EDGE0]
    n = node_int[node, _N_EDGES]
    for t in range(n):
        out[t] = edge_float[first + t, _LOGIT]
    softmax(out, n, probs)
    total = 0.0
    max_visits = 0.0
    weighted = 0.0
    mass = 0.0
    for t in range(n):
        visits = edge_float[first + t, _VISITS]
        total += visits
        if visits > max_visits:
            max_visits = visits
        if visits > 0.0:
            weighted += probs[t] * edge_float[first + t, _VALUE_SUM] / visits
            mass += probs[t]
    v_mix = node_value[node]
    if mass > 0.0:
        v_mix = (v_mix + total * weighted / mass) / (1.0 + total)
    for t in range(n):
        visits = edge_float[first + t, _VISITS]
        q = edge_float[first + t, _VALUE_SUM] / visits if visits > 0.0 else v_mix
        out[t] = edge_float[first + t, _LOGIT] + _sigma(q, max_visits, c_visit, c_scale)
    softmax(out, n, out)
    return total


@njit(cache=True)
def _select(node, mode, node_int, node_value, edge_float, c_visit, c_scale, c_puct, priors, probs, scratch):
    """The edge a simulation follows from an inner ``node`` (or from the root under PUCT, ``priors`` then
    holding the root's noisy priors; otherwise ``priors`` is scratch)."""
    first = node_int[node, _EDGE0]
    n = node_int[node, _N_EDGES]
    best = 0
    best_score = -np.inf
    if mode == GUMBEL:
        total = _improved(node, node_int, node_value, edge_float, c_visit, c_scale, probs, scratch)
        for t in range(n):
            score = scratch[t] - edge_float[first + t, _VISITS] / (1.0 + total)
            if score > best_score:
                best_score = score
                best = t
        return first + best
    total = 0.0
    for t in range(n):
        total += edge_float[first + t, _VISITS]
    root_factor = np.sqrt(total) if total > 0.0 else 1.0
    for t in range(n):
        visits = edge_float[first + t, _VISITS]
        q = edge_float[first + t, _VALUE_SUM] / visits if visits > 0.0 else node_value[node]
        score = q + c_puct * priors[t] * root_factor / (1.0 + visits)
        if score > best_score:
            best_score = score
            best = t
    return first + best


@njit(cache=True)
def _simulate(first_edge, mode, n_nodes_edges, node_board, node_int, node_value, edge_int, edge_float, theta, off,
              h1, h2, cells, offsets, zobrist, inline_only, win, lookup, c_visit, c_scale, c_puct, discount, moves,
              active, acts, logits, a1, a2, probs, scratch, path):
    """One simulation through edge ``first_edge`` of the root: down to a new or terminal node, then the value
    back up the path, times ``discount`` at each ply (1: none)."""
    depth = 0
    node = 0
    e = first_edge
    while True:
        path[depth] = e
        depth += 1
        child = edge_int[e, _CHILD]
        if child < 0:
            child = _child(node, e, n_nodes_edges, node_board, node_int, node_value, edge_int, offsets, zobrist, win)
            if node_int[child, _TERMINAL] == 1:
                value = node_value[child]
            else:
                value = _expand(child, n_nodes_edges, node_board, node_int, node_value, edge_int, edge_float, theta,
                                off, h1, h2, cells, offsets, inline_only, win, lookup, moves, active, acts, logits,
                                a1, a2)
            break
        if node_int[child, _TERMINAL] == 1 or depth >= MAX_DEPTH or n_nodes_edges[0] >= node_board.shape[0]:
            value = node_value[child]
            break
        node = child
        if mode == PUCT:  # the node's priors into probs (Gumbel's selection computes its own)
            first = node_int[node, _EDGE0]
            for t in range(node_int[node, _N_EDGES]):
                probs[t] = edge_float[first + t, _LOGIT]
            softmax(probs, node_int[node, _N_EDGES], probs)
        # (scratch[:K.MAX_MOVES] only: its second half holds the root's priors under PUCT)
        e = _select(node, mode, node_int, node_value, edge_float, c_visit, c_scale, c_puct, probs, probs, scratch)
    for i in range(depth - 1, -1, -1):  # value is the side to move's at the node below path[i]
        value = -discount * value
        edge_float[path[i], _VISITS] += 1.0
        edge_float[path[i], _VALUE_SUM] += value


@njit(cache=True, nogil=True)
def search(root_board, side, lost_black, lost_white, theta, off, h1, h2, cells, offsets, zobrist, inline_only, win,
           lookup, n_sims, mode, noise, considered, c_visit, c_scale, c_puct, discount, dirichlet_alpha,
           dirichlet_frac, state, stop, node_board, node_int, node_value, edge_int, edge_float, moves, active, acts,
           logits, a1, a2, probs, scratch, out_actions, out_codes, out_policy, out_visits):
    """Search the position and write, for each legal move (in the generator's order), its action, move code,
    the policy target (Gumbel: the improved policy; PUCT: the visit shares) and the visits into the ``out_``
    arrays. Returns ``(n_legal, chosen, root_value)``: ``chosen`` is the index of the move to play (Gumbel:
    sequential halving's winner; PUCT: the most visited — the caller may sample from the visits instead)
    and ``root_value`` the search's value for the side to move. ``noise``: Gumbel noise at the root (Gumbel)
    or Dirichlet noise on its priors (PUCT), for self-play; without it the search is deterministic. ``discount``:
    a value seen one ply further down counts ``discount`` times (1: AlphaZero's undiscounted value; below 1 the
    search prefers the quicker win and the slower loss). Once ``stop[0]`` is set (:data:`sumito.stopping.STOP`:
    the protocol's ``stop``, Ctrl-C) it runs no more simulations, and the ones done decide."""
    node_board[0, :] = root_board
    node_int[0, _SIDE] = side
    node_int[0, _LOST_BLACK] = lost_black
    node_int[0, _LOST_WHITE] = lost_white
    node_int[0, _TERMINAL] = 0
    n_nodes_edges = np.zeros(2, dtype=np.int64)
    n_nodes_edges[0] = 1
    root_value = _expand(0, n_nodes_edges, node_board, node_int, node_value, edge_int, edge_float, theta, off, h1, h2,
                         cells, offsets, inline_only, win, lookup, moves, active, acts, logits, a1, a2)
    n = node_int[0, _N_EDGES]
    path = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    for t in range(n):
        out_actions[t] = edge_int[t, _ACTION]
        out_codes[t] = edge_int[t, _CODE]
    if n == 0:
        return 0, -1, 0.0
    priors = scratch[K.MAX_MOVES:]  # the second half of scratch (two of K.MAX_MOVES)
    chosen = 0
    if mode == GUMBEL:
        g = np.zeros(n)
        for t in range(n):
            g[t] = gumbel(state) if noise else 0.0
        m = min(considered, n)
        # the considered actions: the top m by g + logit
        order = np.argsort(-(g + edge_float[:n, _LOGIT]), kind="mergesort")
        keep = order[:m].copy()
        k = m
        phases = 0
        while (1 << phases) < m:
            phases += 1
        phases = max(phases, 1)
        left = n_sims
        for phase in range(phases):
            per = max(1, left // ((phases - phase) * k))
            for _ in range(per):
                for i in range(k):
                    if left > 0 and stop[0] != 0:
                        left = 0  # stopped: the simulations so far decide
                    if left > 0:
                        _simulate(keep[i], mode, n_nodes_edges, node_board, node_int, node_value, edge_int,
                                  edge_float, theta, off, h1, h2, cells, offsets, zobrist, inline_only, win, lookup,
                                  c_visit, c_scale, c_puct, discount, moves, active, acts, logits, a1, a2, probs,
                                  scratch, path)
                        left -= 1
            max_visits = 0.0
            for t in range(n):
                max_visits = max(max_visits, edge_float[t, _VISITS])
            score = np.empty(k)
            for i in range(k):
                e = keep[i]
                visits = edge_float[e, _VISITS]
                q = edge_float[e, _VALUE_SUM] / visits if visits > 0.0 else root_value
                score[i] = g[e] + edge_float[e, _LOGIT] + _sigma(q, max_visits, c_visit, c_scale)
            ranked = np.argsort(-score, kind="mergesort")
            keep = keep[ranked].copy()
            if phase < phases - 1:
                k = max(1, (k + 1) // 2)
        chosen = keep[0]
        _improved(0, node_int, node_value, edge_float, c_visit, c_scale, probs, out_policy)
    else:
        for t in range(n):
            logits[t] = edge_float[t, _LOGIT]
        softmax(logits, n, priors)
        if noise and n > 1:
            total = 0.0
            for t in range(n):
                probs[t] = gamma_draw(dirichlet_alpha, state)
                total += probs[t]
            for t in range(n):
                priors[t] = (1.0 - dirichlet_frac) * priors[t] + dirichlet_frac * probs[t] / total
        for _ in range(n_sims):
            if stop[0] != 0:
                break  # stopped: the visits so far decide
            e = _select(0, mode, node_int, node_value, edge_float, c_visit, c_scale, c_puct, priors, probs, scratch)
            _simulate(e, mode, n_nodes_edges, node_board, node_int, node_value, edge_int, edge_float, theta, off,
                      h1, h2, cells, offsets, zobrist, inline_only, win, lookup, c_visit, c_scale, c_puct, discount,
                      moves, active, acts, logits, a1, a2, probs, scratch, path)
        total = 0.0
        for t in range(n):
            total += edge_float[t, _VISITS]
        best = -1.0
        for t in range(n):
            out_policy[t] = edge_float[t, _VISITS] / total if total > 0.0 else 1.0 / n
            if edge_float[t, _VISITS] > best:
                best = edge_float[t, _VISITS]
                chosen = t
    visits_total = 0.0
    value_total = 0.0
    for t in range(n):
        out_visits[t] = edge_float[t, _VISITS]
        visits_total += edge_float[t, _VISITS]
        value_total += edge_float[t, _VALUE_SUM]
    value = (root_value + value_total) / (1.0 + visits_total)
    return n, chosen, value


@njit(cache=True)
def one_ply(root_board, side, lost_black, lost_white, theta, off, h1, h2, cells, offsets, zobrist, inline_only, win,
            lookup, discount, moves, active, acts, logits, a1, a2, out_codes, out_values, out_logits):
    """Every legal move's code, its value for the side to move by the network one ply on, times ``discount``
    (a win: ``discount``; a move into a position without moves: 0) and its logit; returns the number of moves."""
    n = K.generate_moves(root_board, side, offsets, cells, inline_only, moves)
    if n == 0:
        return 0
    for t in range(n):
        acts[t] = lookup[move_key(moves[t])]
    own, other = (lost_black, lost_white) if side == 1 else (lost_white, lost_black)
    na = encode(root_board, side, own, other, cells, win, active)
    evaluate(theta, off, h1, h2, active, na, acts, n, out_logits, a1, a2)
    board = root_board.copy()
    child_moves = np.empty(K.MAX_MOVES, dtype=np.int32)
    child_acts = np.empty(K.MAX_MOVES, dtype=np.int64)
    for t in range(n):
        code = moves[t]
        out_codes[t] = code
        board[:] = root_board
        K.make_move(board, code, side, offsets, zobrist)
        other_lost = other + (1 if code & K.PUSH_OFF_BIT else 0)
        if other_lost >= win:
            out_values[t] = discount
            continue
        m = K.generate_moves(board, 3 - side, offsets, cells, inline_only, child_moves)
        if m == 0:
            out_values[t] = 0.0
            continue
        for u in range(m):
            child_acts[u] = lookup[move_key(child_moves[u])]
        na = encode(board, 3 - side, other_lost, own, cells, win, active)
        out_values[t] = -discount * evaluate(theta, off, h1, h2, active, na, child_acts, m, logits, a1, a2)
    return n
