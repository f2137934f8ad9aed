"""A trained value network as a search evaluation's parameter vector (``engine:net=PATH``).

The kernel that scores a board with it, and the layout of the vector (``HEADER`` numbers, then the
weights), are :mod:`sumito.evaluation.learned`'s: :func:`network_params` builds the vector from a network
file (the engine player), :func:`network_params_of` from a network in memory (TD-Leaf training, which
refreshes the weights in place before each search).
"""

from __future__ import annotations

import numpy as np

from sumito.evaluation.learned import SCALE
from sumito.models.abalone_encodings import ENCODINGS, get_encoding
from sumito.models.network import NetworkError, ValueNetwork
from sumito.models.policy import recorded_reward_scale


def network_params(path: str, side: int, marbles: int, win: int) -> np.ndarray:
    """The parameter vector of the network in ``path`` for boards of ``side`` cells a side,
    ``marbles`` a colour and ``win`` marbles to push off (a bad or unfitting file: NetworkError)."""
    return network_params_of(ValueNetwork.load(path), side, marbles, win, source=path)


def network_params_of(net: ValueNetwork, side: int, marbles: int, win: int, source: str | None = None) -> np.ndarray:
    """The parameter vector of an in-memory network (see :func:`network_params`).

    Separate from the file loader because TD-Leaf training (:mod:`sumito.models.tdleaf`) searches
    with a network whose weights change after every move: it builds the vector once and then
    copies the current ``net.theta`` into ``vector[HEADER:]`` in place before each search (the
    weights are the tail of the vector, in ``theta``'s order). ``source`` names the network in
    error messages (its file, when it has one).
    """
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
    # a marble on the board counts what it was worth in training (``reward_scale``; 0 with the result alone)
    material = 0.0 if net.metadata.get("rewards") == "end" else recorded_reward_scale(net.metadata, source)
    header = [net.n_inputs, net.n_hidden, net.n_outputs, net.output_kind, encoding.kind, marbles, win, SCALE, material]
    return np.concatenate([np.array(header, dtype=np.float64), net.theta])
