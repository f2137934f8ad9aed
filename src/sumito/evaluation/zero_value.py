"""A zero learner's network (``sumito zero train``) as the engine's evaluation (``engine:zero=FILE``): the kernel.

The network values a position for the side to move in (−1, 1) from its active inputs (its own marbles, the
other side's, and each side's lost count one-hot; :mod:`sumito.models.zero.network`). The search takes
``ZERO_SCALE`` × that value as the position's score: a value of 1, a sure win, weighs as much as six marbles
in the other networks' scores (:data:`sumito.models.learned.SCALE` a marble), and the search's proven wins
stay above every static score.

The search reaches this kernel through its value-network slot (:func:`sumito.evaluation.learned.network_score`
dispatches on the header's encoding field, :data:`ENCODING_ZERO`). The parameter vector:
``[n_inputs, h1, h2, n_actions, ENCODING_ZERO, marbles, win, scale, 0]`` followed by the network's flat
parameters in their own order (W1, b1, W2, b2, Wp, bp, wv, bv); only the value's part is read. The sums run in
the trainer's order and the tanh is :mod:`sumito.nn`'s, so the engine's value is the trainer's, bit for bit.
"""

from __future__ import annotations

from numba import njit

from sumito import nn

#: the encoding field of a zero network's header (the other networks' encodings count up from 0)
ENCODING_ZERO = -1
#: a zero network's value of 1 (a sure win) in the search's points: six marbles of 1000
ZERO_SCALE = 6000.0
ZERO_HEADER = 9


@njit(cache=True)
def zero_score(board, side, lost_black, lost_white, cells, params, scratch):
    """The network's value of the position for ``side`` (to move), times the header's scale; ``scratch``
    holds the two hidden layers (h1 + h2 doubles)."""
    n_in = int(params[0])
    h1 = int(params[1])
    h2 = int(params[2])
    win = int(params[6])
    theta = params[ZERO_HEADER:]
    n_cells = cells.shape[0]
    o1 = n_in * h1
    o2 = o1 + h1
    o3 = o2 + h1 * h2
    o4 = o3 + h2
    o6 = o4 + int(params[3]) * h2 + int(params[3])
    a1 = scratch[:h1]
    a2 = scratch[h1:h1 + h2]
    a1[:] = theta[o1:o2]
    opp = 3 - side
    # the active inputs in increasing order, as the trainer's encode lists them: the sums are the trainer's
    for i in range(n_cells):
        if board[cells[i]] == side:
            row = i * h1
            for j in range(h1):
                a1[j] += theta[row + j]
    for i in range(n_cells):
        if board[cells[i]] == opp:
            row = (n_cells + i) * h1
            for j in range(h1):
                a1[j] += theta[row + j]
    lost_own = lost_black if side == 1 else lost_white
    lost_opp = lost_white if side == 1 else lost_black
    row = (2 * n_cells + min(lost_own, win - 1)) * h1
    for j in range(h1):
        a1[j] += theta[row + j]
    row = (2 * n_cells + win + min(lost_opp, win - 1)) * h1
    for j in range(h1):
        a1[j] += theta[row + j]
    for j in range(h1):
        if a1[j] < 0.0:
            a1[j] = 0.0
    a2[:] = theta[o3:o4]
    for i in range(h1):
        x = a1[i]
        if x != 0.0:
            row = o2 + i * h2
            for j in range(h2):
                a2[j] += x * theta[row + j]
    for j in range(h2):
        if a2[j] < 0.0:
            a2[j] = 0.0
    s = 0.0
    for j in range(h2):
        s += theta[o6 + j] * a2[j]
    return params[7] * nn.tanh(theta[o6 + h2] + s)
