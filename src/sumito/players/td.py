"""``td``: a trained value network playing greedily (one ply): the move whose afterstate the
network values highest from the mover's point of view. The network file says which encoding it
was trained with (issue 4's `sumito train` writes it)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sumito.engine import Move, Position
from sumito.players.base import Option, PlayerKind, PlayerSpecError, legal_codes, register


class TDPlayer:
    def __init__(self, net: str | None = None) -> None:
        from sumito.learn.abalone_encodings import ENCODINGS, MAX_MOVES
        from sumito.learn.network import ValueNetwork

        if not net:
            raise PlayerSpecError("td needs a network file: td:net=PATH")
        network = ValueNetwork.load(net)  # a NetworkError (one line) when the file is bad
        encoding = network.metadata.get("encoding")
        if encoding not in ENCODINGS:
            raise PlayerSpecError(
                f"{net}: the network does not say which encoding it was trained with "
                f"(metadata 'encoding' is {encoding!r}; one of {', '.join(ENCODINGS)} expected)"
            )
        self.network = network
        self.encoding = encoding
        self._out = np.empty((MAX_MOVES, network.n_inputs), dtype=np.float64)
        self.name = f"td:net={net}"

    def choose(
        self, position: Position, movetime: float | None = None, history: Sequence[int] | None = None
    ) -> Move:
        from sumito.learn.abalone_encodings import encode_position_successors, get_encoding

        legal_codes(position)
        width = get_encoding(self.encoding).n_inputs(position.variant.side)
        if width != self.network.n_inputs:
            raise PlayerSpecError(
                f"the network takes {self.network.n_inputs} inputs, but {self.encoding} on this board gives {width}"
            )
        codes, inputs = encode_position_successors(self.encoding, position, self._out)
        values = self.network.values(inputs)
        return Move(int(codes[int(np.argmax(values))]), position.variant.side)


register(
    PlayerKind(
        name="td",
        factory=TDPlayer,
        options={"net": Option(str, None, "the network file (.npz) written by `sumito train`")},
        help="a trained value network, one ply, greedy",
    )
)
