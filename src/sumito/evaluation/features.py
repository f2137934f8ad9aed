"""Board features and the hand-made evaluations of the papers, compiled.

One pass over the cells collects, for each colour, the raw counts every evaluation here is built
from (:data:`N_RAW` numbers a colour, index 0 Black, 1 White):

==========  =================================================================================
DIST        summed hex distance of the colour's marbles to the centre (the ABLA paper's
            "Manhattan distance": the fewest single steps to the centre)
ADJ         summed number of same-colour neighbours over the colour's marbles
EDGE        marbles on the outermost ring
LINE3       three-in-a-row segments: (marble, axis) pairs with a same-colour neighbour on both
            sides along the axis (a line of four holds two)
TOUCHED     opposing marbles that touch at least one marble of the colour
COUNT       marbles on the board
==========  =================================================================================

An evaluation is an integer kind plus a float64 parameter vector, so that every search kernel
takes any evaluation without recompiling; the learned evaluations (a value network, the NNUE) are kinds here too.
Scores are from the point of view of ``side`` (higher is better for it).
"""

from __future__ import annotations

import numpy as np

from sumito.evaluation.learned import network_score
from sumito.evaluation.nnue import BASE as NNUE_BASE
from sumito.evaluation.nnue import nnue_score
from sumito.games.abalone.kernels import count_pushes
from sumito.jit import njit

DIST, ADJ, EDGE, LINE3, TOUCHED, COUNT = range(6)
N_RAW = 6

# Evaluation kinds
EVAL_HEURISTIC = 0  # Abalearn's benchmark: opponent's summed distance to the centre minus one's own
EVAL_ABLA = 1  # ABLA: w1*f1 + w2*f2, f1 = own - opponent summed distance, f2 = own - opponent adjacency
# In both, a pushed-off marble still counts in the distance sums, at params' OFF distance from the
# centre (see OFF_DISTANCE): params = [off] for the heuristic, [w1, w2, off] for ABLA.
EVAL_ALPHALONE = 2  # Alphalone: per-colour weights over five feature pairs (see ALPHALONE_FEATURES)
EVAL_LINEAR = 3  # ours: material plus positional terms, all own minus opponent (see LINEAR_TERMS)
EVAL_NETWORK = 4  # a trained value network (see sumito.evaluation.learned)
EVAL_NNUE = 5  # an efficiently updatable network (see sumito.evaluation.nnue; the search keeps its accumulator)

ALPHALONE_FEATURES = (
    "black_off",
    "white_off",
    "black_edge",
    "white_edge",
    "black_average_distance",
    "white_average_distance",
    "black_coherence",
    "white_coherence",
    "black_break",
    "white_break",
)
N_ALPHALONE = len(ALPHALONE_FEATURES)
LINE3_BONUS = 1.0  # Alphalone's coherence: extra point per three-in-a-row segment

LINEAR_TERMS = ("material", "centre", "adjacency", "edge", "line3", "touched", "pushes")


@njit(cache=True)
def raw_features(board, cells, ring, offsets, edge_ring, out, touches=True):
    """Fill ``out`` (float64[2, N_RAW]) with the raw counts of both colours.

    Leaves are most of a search's nodes, so this is written for speed: counts live in local
    integers, each same-colour pair is found once (looking in three of the six directions) and
    TOUCHED, the only count that needs all six, is skipped when ``touches`` is false (left 0).
    """
    dist0 = dist1 = adj0 = adj1 = edge0 = edge1 = line0 = line1 = touch0 = touch1 = n0 = n1 = 0
    for i in range(cells.shape[0]):
        c = cells[i]
        v = board[c]
        if v != 1 and v != 2:
            continue
        r = ring[c]
        pairs = 0
        lines = 0
        for d in range(3):
            step = offsets[d]
            if board[c + step] == v:
                pairs += 1
                if board[c - step] == v:
                    lines += 1
        if v == 1:
            n0 += 1
            dist0 += r
            adj0 += pairs
            line0 += lines
            if r == edge_ring:
                edge0 += 1
        else:
            n1 += 1
            dist1 += r
            adj1 += pairs
            line1 += lines
            if r == edge_ring:
                edge1 += 1
        if touches:
            opp = 3 - v
            for d in range(6):
                if board[c + offsets[d]] == opp:
                    # this marble touches the other colour: it counts towards that colour's TOUCHED
                    if v == 1:
                        touch1 += 1
                    else:
                        touch0 += 1
                    break
    out[0, DIST] = dist0
    out[1, DIST] = dist1
    out[0, ADJ] = 2 * adj0  # every pair gives each of its two marbles a neighbour
    out[1, ADJ] = 2 * adj1
    out[0, EDGE] = edge0
    out[1, EDGE] = edge1
    out[0, LINE3] = line0
    out[1, LINE3] = line1
    out[0, TOUCHED] = touch0
    out[1, TOUCHED] = touch1
    out[0, COUNT] = n0
    out[1, COUNT] = n1


@njit(cache=True)
def alphalone_features(raw, lost_black, lost_white, out):
    """Alphalone's five feature pairs (Black's then White's of each), from the raw counts."""
    nb = max(raw[0, COUNT], 1.0)
    nw = max(raw[1, COUNT], 1.0)
    out[0] = lost_black
    out[1] = lost_white
    out[2] = raw[0, EDGE]
    out[3] = raw[1, EDGE]
    # the report sums |x|+|y|+|z| in cube coordinates: twice the hex distance
    out[4] = 2.0 * raw[0, DIST] / nb
    out[5] = 2.0 * raw[1, DIST] / nw
    out[6] = (raw[0, ADJ] + LINE3_BONUS * raw[0, LINE3]) / nb
    out[7] = (raw[1, ADJ] + LINE3_BONUS * raw[1, LINE3]) / nw
    out[8] = raw[0, TOUCHED] / nb
    out[9] = raw[1, TOUCHED] / nw


@njit(cache=True, inline="always")
def evaluate(board, side, lost_black, lost_white, cells, ring, offsets, edge_ring, kind, params, raw, scratch):
    """The score of the position for ``side`` under evaluation ``kind`` with ``params``.

    ``raw`` (float64[2, N_RAW]) and ``scratch`` (float64[N_ALPHALONE]) are work arrays the
    caller allocates once, so that evaluating a leaf allocates nothing.
    """
    if kind == EVAL_NETWORK:
        return network_score(board, side, lost_black, lost_white, cells, ring, offsets, params, scratch)
    if kind == EVAL_NNUE:
        return nnue_score(board, side, lost_black, lost_white, cells, params, scratch) + nnue_base(
            board, side, lost_black, lost_white, cells, ring, offsets, edge_ring, params, raw)
    return evaluate_hand_set(board, side, lost_black, lost_white, cells, ring, offsets, edge_ring, kind, params, raw,
                             scratch)


@njit(cache=True)
def evaluate_hand_set(board, side, lost_black, lost_white, cells, ring, offsets, edge_ring, kind, params, raw,
                      scratch):
    """:func:`evaluate` for the hand-set evaluations alone (every kind but the networks): what the
    papers' searches and the engine's hand-set search call, so that they never compile a network's
    code."""
    if kind == EVAL_LINEAR:
        return linear_score(board, side, lost_black, lost_white, cells, ring, offsets, edge_ring, params, raw)
    touches = kind == EVAL_ALPHALONE
    raw_features(board, cells, ring, offsets, edge_ring, raw, touches)
    me = side - 1
    op = 1 - me
    if kind == EVAL_HEURISTIC or kind == EVAL_ABLA:  # noqa: SIM109  (plain comparisons in a numba kernel)
        # the summed distances, each pushed-off marble counted at params' off-board distance
        off = params[0] if kind == EVAL_HEURISTIC else params[2]
        lost_me = lost_black if side == 1 else lost_white
        lost_op = lost_white if side == 1 else lost_black
        dist_me = raw[me, DIST] + off * lost_me
        dist_op = raw[op, DIST] + off * lost_op
        if kind == EVAL_HEURISTIC:
            return dist_op - dist_me
        f1 = dist_me - dist_op
        f2 = raw[me, ADJ] - raw[op, ADJ]  # a pushed-off marble has no neighbours
        return params[0] * f1 + params[1] * f2
    if kind == EVAL_ALPHALONE:
        alphalone_features(raw, lost_black, lost_white, scratch)
        base = me * N_ALPHALONE
        total = 0.0
        for j in range(N_ALPHALONE):
            total += params[base + j] * scratch[j]
        return total
    return 0.0  # no other kinds


@njit(cache=True, inline="always")
def linear_score(board, side, lost_black, lost_white, cells, ring, offsets, edge_ring, params, raw):
    """Our hand-set linear evaluation (see LINEAR_TERMS) with weights ``params[0:7]``."""
    touches = params[5] != 0.0
    raw_features(board, cells, ring, offsets, edge_ring, raw, touches)
    me = side - 1
    op = 1 - me
    lost_me = lost_black if side == 1 else lost_white
    lost_op = lost_white if side == 1 else lost_black
    total = params[0] * (lost_op - lost_me)
    total += params[1] * (raw[op, DIST] - raw[me, DIST])
    total += params[2] * (raw[me, ADJ] - raw[op, ADJ])
    total += params[3] * (raw[op, EDGE] - raw[me, EDGE])
    total += params[4] * (raw[me, LINE3] - raw[op, LINE3])
    total += params[5] * (raw[me, TOUCHED] - raw[op, TOUCHED])
    if params[6] != 0.0:
        # attacking pressure: the pushes each side could make now
        total += params[6] * (count_pushes(board, side, offsets, cells) - count_pushes(board, 3 - side, offsets, cells))
    return total


@njit(cache=True, inline="always")
def nnue_base(board, side, lost_black, lost_white, cells, ring, offsets, edge_ring, params, raw):
    """The base evaluation an NNUE corrects (0 for a network without one; see sumito.evaluation.nnue)."""
    if params[NNUE_BASE] == 0.0:
        return 0.0
    return linear_score(board, side, lost_black, lost_white, cells, ring, offsets, edge_ring,
                        params[NNUE_BASE + 1 : NNUE_BASE + 8], raw)


def work_arrays() -> tuple[np.ndarray, np.ndarray]:
    """The two scratch arrays :func:`evaluate` needs (the second also holds a network's input
    row and hidden layer)."""
    return np.zeros((2, N_RAW), dtype=np.float64), np.zeros(2048, dtype=np.float64)
