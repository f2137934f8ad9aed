"""A trained value network as a search evaluation (``engine:net=PATH``): the kernel.

The networks of :mod:`sumito.models` value an *afterstate* for the player who just moved: the
rewards still to come after it (marbles taken minus marbles lost, ±1 for the result), from that
player's point of view. A search node with ``side`` to move is the opponent's afterstate, so its
score for ``side`` is the marbles already won on the board minus what the opponent can still
expect, ``material · (lost by opponent − lost by side) − V(board, me = opponent)``, where
``material`` is what a marble was worth in training (its ``reward_scale``; 0 for a network trained
on the result alone), times ``scale`` so that one marble weighs as much as
in the hand-made evaluation.

The parameter vector: ``[n_inputs, n_hidden, n_outputs, output_kind, encoding_kind, marbles,
win, scale, material]`` followed by the network's flat weights (W1, b1, W2, b2). It is built from a
network by :mod:`sumito.models.learned` (above this layer: it loads files and knows the encodings).
The same slot takes a zero learner's network (:mod:`sumito.evaluation.zero_value`), by the header's
encoding field.
"""

from __future__ import annotations

from sumito.evaluation.abalearn import _encode_into
from sumito.evaluation.zero_value import ENCODING_ZERO, zero_score
from sumito.jit import njit
from sumito.nn import forward

HEADER = 9
SCALE = 1000.0


@njit(cache=True)
def network_score(board, side, lost_black, lost_white, cells, ring, offsets, params, scratch):
    if int(params[4]) == ENCODING_ZERO:  # a zero learner's policy-value network (its value)
        return zero_score(board, side, lost_black, lost_white, cells, params, scratch)
    n_in = int(params[0])
    n_hid = int(params[1])
    n_out = int(params[2])
    kind = int(params[3])
    encoding = int(params[4])
    marbles = int(params[5])
    win = int(params[6])
    theta = params[HEADER:]
    a = n_hid * n_in
    W1 = theta[:a].reshape((n_hid, n_in))
    b1 = theta[a : a + n_hid]
    W2 = theta[a + n_hid : a + n_hid + n_out * n_hid].reshape((n_out, n_hid))
    b2 = theta[a + n_hid + n_out * n_hid : a + n_hid + n_out * n_hid + n_out]
    row = scratch[:n_in]
    hidden = scratch[n_in : n_in + n_hid]
    opp = 3 - side
    lost_side = lost_black if side == 1 else lost_white
    lost_opp = lost_white if side == 1 else lost_black
    # every cell serves as an "edge cell" here: only real edge cells have a way off the board
    _encode_into(board, opp, lost_opp, lost_side, cells, ring, offsets, cells, marbles, win, encoding, row)
    v = forward(W1, b1, W2, b2, kind, row, hidden)
    return params[7] * (params[8] * (lost_opp - lost_side) - v)
