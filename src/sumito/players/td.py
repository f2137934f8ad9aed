"""``td``: a trained value network playing greedily (one ply): the move worth most to the mover,
its immediate reward (a marble pushed off, a win) plus γ times the network's value of the
afterstate, as in training. The network file says which encoding, γ and rewards it was trained
with (`sumito train` writes them)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sumito.engine import Move, Position
from sumito.players.base import Option, PlayerKind, PlayerSpecError, register


class TDPlayer:
    def __init__(self, net: str = "builtin", avoid_repeats: bool = True) -> None:
        from sumito.learn.abalone_encodings import ENCODINGS, MAX_MOVES
        from sumito.learn.network import ValueNetwork, network_path

        if not net:
            raise PlayerSpecError("td needs a network: td:net=PATH, or td for the built-in one")
        network = ValueNetwork.load(network_path(net))  # a NetworkError (one line) when the file is bad
        encoding = network.metadata.get("encoding")
        if encoding not in ENCODINGS:
            raise PlayerSpecError(
                f"{net}: the network does not say which encoding it was trained with "
                f"(metadata 'encoding' is {encoding!r}; one of {', '.join(ENCODINGS)} expected)"
            )
        self.network = network
        self.encoding = encoding
        # how the network was trained: the discount and whether marbles were rewarded on the way
        self.gamma = float(network.metadata.get("gamma", 0.9))
        self.end_only = network.metadata.get("rewards", "marbles") == "end"
        self._out = np.empty((MAX_MOVES, network.n_inputs), dtype=np.float64)
        self.avoid_repeats = avoid_repeats
        self.name = "td" if net == "builtin" else f"td:net={net}"
        if not avoid_repeats:
            self.name += ("," if ":" in self.name else ":") + "avoid_repeats=no"

    def choose(
        self, position: Position, movetime: float | None = None, history: Sequence[int] | None = None
    ) -> Move:
        from sumito.learn.abalone_encodings import get_encoding
        from sumito.learn.abalone_game import position_afterstates
        from sumito.learn.training import move_scores

        width = get_encoding(self.encoding).n_inputs(position.variant.side)
        if width != self.network.n_inputs:
            raise PlayerSpecError(
                f"the network takes {self.network.n_inputs} inputs, but {self.encoding} on this board gives {width}"
            )
        options = position_afterstates(position, self.encoding, self._out)
        if len(options.moves) == 0:
            raise ValueError("no legal move to choose from")
        values = self.network.values(options.inputs)
        scores = move_scores(options, values, self.gamma, self.end_only)
        if history and self.avoid_repeats:
            # a move back into a position of this game (same side to move) steers towards a draw
            # by repetition: worth less than any move that takes the game somewhere new
            _, _, hashes = position.successor_grids()
            seen = np.isin(hashes, np.array(history, dtype=np.uint64))
            scores = np.where(seen, scores - REPEAT_PENALTY, scores)
        return Move(int(options.moves[int(np.argmax(scores))]), position.variant.side)


REPEAT_PENALTY = 2.0  # more than any immediate reward (a marble, a win) plus a discounted value


register(
    PlayerKind(
        name="td",
        factory=TDPlayer,
        options={
            "net": Option(str, "builtin", "a network file (.npz) from `sumito train`; default: the shipped one"),
            "avoid_repeats": Option(bool, True, "steer away from positions already seen in the game"),
        },
        help="a trained value network, one ply, greedy",
    )
)
