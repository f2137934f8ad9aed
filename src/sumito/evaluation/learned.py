"""A trained value network as a search evaluation (``engine:net=PATH``).

The networks of :mod:`sumito.learn` value an *afterstate* for the player who just moved: the
rewards still to come after it (marbles taken minus marbles lost, ±1 for the result), from that
player's point of view. A search node with ``side`` to move is the opponent's afterstate, so its
score for ``side`` is the marbles already won on the board minus what the opponent can still
expect, ``(lost by opponent − lost by side) − V(board, me = opponent)`` (without the first term
for a network trained on the result alone), times ``scale`` so that one marble weighs as much as
in the hand-made evaluation.

The parameter vector: ``[n_inputs, n_hidden, n_outputs, output_kind, encoding_kind, marbles,
win, scale, material]`` followed by the network's flat weights (W1, b1, W2, b2):
:func:`network_params` builds it from a network file (the engine player), :func:`network_params_of`
from a network in memory (TD-Leaf training, which refreshes the weights in place before each search).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from sumito.evaluation.abalearn import _encode_into
from sumito.nn import forward

if TYPE_CHECKING:  # the learning layer sits above this one: imported at run time only where needed
    from sumito.learn.network import ValueNetwork

HEADER = 9
SCALE = 1000.0


@njit(cache=True)
def network_score(board, side, lost_black, lost_white, cells, ring, offsets, params, scratch):
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


def network_params(path: str, side: int, marbles: int, win: int) -> np.ndarray:
    """The parameter vector of the network in ``path`` for boards of ``side`` cells a side,
    ``marbles`` a colour and ``win`` marbles to push off (a bad or unfitting file: NetworkError)."""
    from sumito.learn.network import ValueNetwork

    return network_params_of(ValueNetwork.load(path), side, marbles, win, source=path)


def network_params_of(net: ValueNetwork, side: int, marbles: int, win: int, source: str | None = None) -> np.ndarray:
    """The parameter vector of an in-memory network (see :func:`network_params`).

    Separate from the file loader because TD-Leaf training (:mod:`sumito.learn.tdleaf`) searches
    with a network whose weights change after every move: it builds the vector once and then
    copies the current ``net.theta`` into ``vector[HEADER:]`` in place before each search (the
    weights are the tail of the vector, in ``theta``'s order). ``source`` names the network in
    error messages (its file, when it has one).
    """
    from sumito.learn.abalone_encodings import ENCODINGS, get_encoding
    from sumito.learn.network import NetworkError

    source = source or net.source
    name = net.metadata.get("encoding")
    if name not in ENCODINGS:
        raise NetworkError(f"{source}: the network does not say which encoding it was trained with")
    encoding = get_encoding(str(name))
    net.expect(n_inputs=encoding.n_inputs(side), encoding=encoding.name)
    if net.n_inputs + net.n_hidden > 2048:
        raise NetworkError(
            f"{source}: too large for the search's work array ({net.n_inputs} + {net.n_hidden} > 2048)"
        )
    material = 0.0 if net.metadata.get("rewards") == "end" else 1.0
    header = [net.n_inputs, net.n_hidden, net.n_outputs, net.output_kind, encoding.kind, marbles, win, SCALE, material]
    return np.concatenate([np.array(header, dtype=np.float64), net.theta])
