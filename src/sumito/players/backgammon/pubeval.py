"""Tesauro's ``pubeval``: the standard linear benchmark evaluator for backgammon, and a player using it.

Source of the weights and the input encoding: Gerry Tesauro's public-domain ``pubeval.c`` ("Provided as a
public service to the backgammon programming community by Gerry Tesauro, IBM Research"), as kept in
OpenBSD's ``games/backgammon/common_source/pubeval.c`` (rev. 1.3, 2015). The 2 × 122 weights below are
copied digit for digit from that file (GNU Backgammon's ``pub_eval.c`` holds the same numbers, with every
fifth contact weight pre-divided by 2 because it folds the ``/ 2`` of the input into the weight).

The evaluator scores an *afterstate* (the board after the mover's play, not swapped) with one of two weight
vectors, chosen by whether the position **before** the move is a race (no contact) or not.

Board mapping. pubeval's ``pos[28]`` is the computer's (mover's) view with the mover moving 24 → 1, exactly
like our 28-slot board (:mod:`sumito.games.backgammon.board`), so for an afterstate ``b``:

* ``pos[p] = b[p - 1]`` for points ``p = 1..24`` (mover positive, opponent negative, same numbering);
* ``pos[25] = b[24]`` (mover's bar, positive — pubeval does not encode it);
* ``pos[0] = -b[25]`` (opponent's bar, negative in pubeval);
* ``pos[26] = b[26]`` (mover's borne off), ``pos[27] = -b[27]`` (opponent's borne off, unused).

Inputs (122): for ``j = 1..24`` the block ``x[5(j-1) : 5j]`` describes ``pos[25 - j]`` (our ``b[24 - j]``):
``[n == -1, n == 1, n >= 2, n == 3, (n - 3) / 2 if n >= 4]``; ``x[120] = -pos[0] / 2`` (opponent's bar),
``x[121] = pos[26] / 15`` (mover's off). A play that bears off the last checker scores 99999999.
"""

from __future__ import annotations

import numpy as np

from sumito.games.backgammon.kernels import generate_plays, rearmost_checkers
from sumito.jit import njit
from sumito.nn import matvec

N_PUBEVAL_INPUTS = 122
WIN_SCORE = 99999999.0

# fmt: off
#: Contact weights, Tesauro's ``wc[122]`` (OpenBSD games/backgammon/common_source/pubeval.c).
WC: np.ndarray = np.array([
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654,
    -0.92830, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220,
    -0.73667, 0.89032, -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389,
    -1.80390, -0.83425, -0.97741, -1.41371, 0.24500, 0.10970, -1.36476, -1.05572,
    1.15420, 0.11069, -0.38319, -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
    -0.73169, -0.56074, 1.09792, 0.15977, 0.13786, -1.18435, -0.43363, 1.06169,
    -0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
    -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070, 0.40868,
    -0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240,
    1.78964, 0.54304, 0.41174, -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
    -0.90750, 0.05941, 1.83120, 0.58722, 1.28777, -0.83711, -0.33248, 2.64983,
    0.52698, 0.82132, -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276,
    -0.36214, 4.37655, 0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612,
    -0.18108, 0.63211, -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342,
    1.24612, -0.82385, -2.77082, 1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
    5.62596, -2.75800,
])

#: Race weights, Tesauro's ``wr[122]`` (same file).
WR: np.ndarray = np.array([
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121,
    0.07217, -0.01351, 0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000,
    -2.29847, -2.34631, 0.17253, 0.08302, 0.00000, -1.27266, -2.87401, -0.07456,
    -0.34240, 0.00000, -1.34640, -2.46556, -0.13022, -0.01591, 0.00000, 0.27448,
    0.60015, 0.48302, 0.25236, 0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
    0.00000, 0.24855, -0.06844, -0.37646, 0.05685, 0.00000, 0.17405, 0.00430,
    0.74427, 0.00576, 0.00000, 0.12392, 0.31202, -0.91035, -0.16270, 0.00000,
    0.01418, -0.10839, -0.02781, -0.88035, 0.00000, 1.07274, 2.00366, 1.16242,
    0.22520, 0.00000, 0.85631, 1.06349, 1.49549, 0.18966, 0.00000, 0.37183,
    -0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
    0.00000, -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412,
    -0.09308, -1.26062, 0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000,
    2.19605, 3.85390, 0.88296, 2.30052, 0.00000, 0.92321, 1.08744, -0.11696,
    -0.78560, 0.00000, -0.09795, -0.83050, -1.09167, -4.94251, 0.00000, -1.00316,
    -3.66465, -2.56906, -9.67677, 0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
    0.00000, 3.42040,
])
# fmt: on
WC.setflags(write=False)
WR.setflags(write=False)


@njit(cache=True)
def is_race(board: np.ndarray) -> bool:
    """No contact: every mover checker (bar = point 25) lies below every opponent checker (bar = point 0)."""
    mover_back, opp_back = rearmost_checkers(board)
    return mover_back < opp_back


@njit(cache=True)
def pubeval_inputs(boards: np.ndarray) -> np.ndarray:
    """pubeval's 122 inputs (``setx``) of each afterstate row (our 28-slot layout, see the module docstring)."""
    n = boards.shape[0]
    x = np.zeros((n, N_PUBEVAL_INPUTS), dtype=np.float64)
    for r in range(n):
        for j in range(1, 25):
            c = boards[r, 24 - j]  # pos[25 - j]
            k = 5 * (j - 1)
            if c == -1:
                x[r, k] = 1.0
            elif c == 1:
                x[r, k + 1] = 1.0
            if c >= 2:
                x[r, k + 2] = 1.0
            if c == 3:
                x[r, k + 3] = 1.0
            if c >= 4:
                x[r, k + 4] = (c - 3) / 2.0
        x[r, 120] = boards[r, 25] / 2.0  # -pos[0] / 2
        x[r, 121] = boards[r, 26] / 15.0
    return x


def pubeval_scores(boards: np.ndarray, race: bool) -> np.ndarray:
    """pubeval's score of each afterstate row; ``race`` is :func:`is_race` of the position *before* the move.

    The weighted sum is added in input order, as ``pubeval.c`` does (:func:`sumito.nn.matvec`: the same bits on
    every CPU, which BLAS's ``@`` is not), so a training run tested against pubeval replays anywhere."""
    scores = matvec(pubeval_inputs(boards), WR if race else WC)
    return np.where(boards[:, 26] == 15, WIN_SCORE, scores)


class PubevalPlayer:
    """Plays the afterstate with the highest pubeval score (ties: the first row)."""

    def choose(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        return int(np.argmax(pubeval_scores(afterstates, bool(is_race(board)))))

    def __call__(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        return self.choose(board, afterstates)

    def choose_play(self, board: np.ndarray, dice: tuple[int, int]) -> np.ndarray:
        """The afterstate (mover's view, not swapped) pubeval plays from ``board`` with ``dice``."""
        afterstates, _ = generate_plays(np.asarray(board, dtype=np.int8), dice[0], dice[1])
        return afterstates[self.choose(board, afterstates)]


class RandomPlayer:
    """Plays a uniformly random distinct afterstate."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        return int(self.rng.integers(afterstates.shape[0]))
