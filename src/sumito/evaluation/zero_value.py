"""A zero learner's network (``sumito zero train``) as the engine's evaluation (``engine:zero=FILE``): the kernel.

The network values a position for the side to move in (−1, 1) from its active inputs (its own marbles, the
other side's, and each side's lost count one-hot; :mod:`sumito.models.zero.network`). The search takes
``ZERO_SCALE`` × that value as the position's score: a value of 1, a sure win, weighs as much as six marbles
in the other networks' scores (:data:`sumito.models.learned.SCALE` a marble), and the search's proven wins
stay above every static score.

The search reaches this kernel through its value-network slot (:func:`sumito.evaluation.learned.network_score`
dispatches on the header's encoding field, :data:`ENCODING_ZERO`). The parameter vector:
``[n_inputs, h1, h2, n_actions, ENCODING_ZERO, marbles, win, scale, 0]`` followed by the network's flat
parameters in their own order (W1, b1, W2, b2, Wp, bp, wv, bv); only the value's part is read. The encoding and
the hidden layers are the trainer's own kernels (:func:`encode`, :func:`hidden_layers`, :func:`dot`, here so
that the search can call them), so the engine's value is the trainer's, bit for bit.
"""

from __future__ import annotations

from sumito import nn
from sumito.jit import njit

#: the encoding field of a zero network's header (the other networks' encodings count up from 0)
ENCODING_ZERO = -1
#: a zero network's value of 1 (a sure win) in the search's points: six marbles of 1000
ZERO_SCALE = 6000.0
ZERO_HEADER = 9


@njit(cache=True)
def encode(board, side, lost_own, lost_opp, cells, win, out):
    """Write the active inputs of ``board`` seen by ``side`` (the side to move) into ``out``, in increasing
    order; return how many (the network's inputs: :mod:`sumito.models.zero.network`)."""
    n_cells = cells.shape[0]
    opp = 3 - side
    k = 0
    for i in range(n_cells):
        if board[cells[i]] == side:
            out[k] = i
            k += 1
    for i in range(n_cells):
        if board[cells[i]] == opp:
            out[k] = n_cells + i
            k += 1
    out[k] = 2 * n_cells + min(lost_own, win - 1)
    out[k + 1] = 2 * n_cells + win + min(lost_opp, win - 1)
    return k + 2


@njit(cache=True)
def hidden_layers(W1, b1, W2, b2, h1, h2, active, n_active, a1, a2):
    """The two rectified hidden layers of the active inputs (``active``, integers or whole doubles) into ``a1``
    [h1] and ``a2`` [h2]: the trainer's forward pass and the engine's, one code."""
    a1[:] = b1
    for t in range(n_active):
        first = int(active[t]) * h1
        for j in range(h1):
            a1[j] += W1[first + j]
    for j in range(h1):
        if a1[j] < 0.0:
            a1[j] = 0.0
    a2[:] = b2
    for i in range(h1):
        x = a1[i]
        if x != 0.0:
            first = i * h2
            for j in range(h2):
                a2[j] += x * W2[first + j]
    for j in range(h2):
        if a2[j] < 0.0:
            a2[j] = 0.0


@njit(cache=True)
def dot(u, v, n):
    """``u · v`` over the first ``n`` entries, summed in index order."""
    s = 0.0
    for k in range(n):
        s += u[k] * v[k]
    return s


@njit(cache=True)
def zero_score(board, side, lost_black, lost_white, cells, params, scratch):
    """The network's value of the position for ``side`` (to move), times the header's scale; ``scratch``
    holds the two hidden layers and the active inputs (h1 + h2 + 2 · cells + 2 doubles)."""
    n_in = int(params[0])
    h1 = int(params[1])
    h2 = int(params[2])
    n_actions = int(params[3])
    win = int(params[6])
    theta = params[ZERO_HEADER:]
    o1 = n_in * h1
    o2 = o1 + h1
    o3 = o2 + h1 * h2
    o4 = o3 + h2
    o6 = o4 + n_actions * h2 + n_actions
    a1 = scratch[:h1]
    a2 = scratch[h1:h1 + h2]
    active = scratch[h1 + h2:]
    own, other = (lost_black, lost_white) if side == 1 else (lost_white, lost_black)
    n_active = encode(board, side, own, other, cells, win, active)
    hidden_layers(theta[:o1], theta[o1:o2], theta[o2:o3], theta[o3:o4], h1, h2, active, n_active, a1, a2)
    return params[7] * nn.tanh(theta[o6 + h2] + dot(theta[o6:o6 + h2], a2, h2))
