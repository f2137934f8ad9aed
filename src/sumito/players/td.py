"""``td``: a trained value network playing greedily (one ply).

It plays the move of highest immediate reward (marbles pushed off, each worth the ``reward_scale``
it was trained with) plus γ times its afterstate's value (``choice=reward``, eq. 3's R + γV, the
training default since the reading search of docs/reproductions.md), or, with ``choice=value``, the
move whose afterstate the network values most and a move that wins outright. The network file says
which encoding, γ, rewards, reward scale and choice it was trained with
(`sumito train` writes them); each is the player's default, and ``choice=`` and ``reward_scale=``
override it. ``take_wins=yes`` plays a move that wins outright whenever there is one (as
``choice=value`` always does): under ``choice=reward`` a win is worth only its rewards, and a
network whose value of staying ahead exceeds them declines the last push. ``ties=random`` (seeded)
plays a random one of the equally best moves, where the first would always be played: the Abalearn
encodings give many afterstates the very same inputs. Repeat
avoidance (a penalty on moves back into a position of the game) is off by default, as the paper's
agents have none.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sumito.games.abalone import DrawCounters, Move, Position
from sumito.models.abalone_encodings import ENCODINGS, MAX_MOVES, get_encoding
from sumito.models.abalone_game import position_afterstates
from sumito.models.network import ValueNetwork, network_path
from sumito.models.policy import CHOICES, LEGACY_READINGS, VIEWS, move_scores, recorded_reward_scale
from sumito.players.base import Option, PlayerBase, PlayerKind, PlayerSpecError, register
from sumito.players.heuristic import TIE_OPTIONS, TIES


class TDPlayer(PlayerBase):
    def __init__(
        self, net: str = "builtin", avoid_repeats: bool = False, choice: str | None = None,
        reward_scale: float | None = None, ties: str = "first", seed: int | None = None, take_wins: bool = False,
    ) -> None:
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
        # a network trained with view=black values every position for Black: White minimises it
        self.view = network.metadata.get("view", "mover")
        if self.view not in VIEWS:
            raise PlayerSpecError(f"{net}: metadata 'view' is {self.view!r}, not mover or black")
        # networks saved before the choice was recorded were all trained with the reward added
        trained = network.metadata.get("choice", LEGACY_READINGS["choice"])
        self.choice = trained if choice is None else choice
        if self.choice not in CHOICES:
            raise PlayerSpecError(f"td choice must be one of {', '.join(CHOICES)}, not {self.choice!r}")
        # what a marble was worth in training
        trained_scale = recorded_reward_scale(network.metadata, net)
        self.reward_scale = float(trained_scale if reward_scale is None else reward_scale)  # (bounded as an option)
        self._out = np.empty((MAX_MOVES, network.n_inputs), dtype=np.float64)
        self.avoid_repeats = avoid_repeats
        self.take_wins = take_wins
        if ties not in TIES:
            raise PlayerSpecError(f"td ties must be first or random, not {ties!r}")
        self.ties = ties
        self.rng = np.random.default_rng(seed)
        self.name = "td" if net == "builtin" else f"td:net={net}"
        extras = ["avoid_repeats=yes"] * avoid_repeats + [f"choice={self.choice}"] * (self.choice != trained)
        extras += [f"reward_scale={self.reward_scale:g}"] * (self.reward_scale != trained_scale)
        extras += ["ties=random"] * (ties == "random") + ["take_wins=yes"] * take_wins
        for extra in extras:
            self.name += ("," if ":" in self.name else ":") + extra

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        width = get_encoding(self.encoding).n_inputs(position.variant.side)
        if width != self.network.n_inputs:
            raise PlayerSpecError(
                f"the network takes {self.network.n_inputs} inputs, but {self.encoding} on this board gives {width}"
            )
        viewer = 1 if self.view == "black" else 0
        options = position_afterstates(position, self.encoding, self._out, viewer)
        if len(options.moves) == 0:
            raise ValueError("no legal move to choose from")
        values = self.network.values(options.inputs)
        if viewer and position.side_to_move == 2:
            values = -values
        scores = move_scores(options, values, self.gamma, self.end_only, self.choice, self.reward_scale,
                             self.take_wins)
        if history and self.avoid_repeats:
            # a move back into a position of this game (same side to move) steers towards a draw
            # by repetition: worth less than any move that takes the game somewhere new
            _, _, hashes = position.successor_grids()
            seen = np.isin(hashes, np.array(history, dtype=np.uint64))
            # (as a rank: a step below every new move, whatever the scale of the scores)
            fresh = scores[~seen]
            if fresh.size:
                scores = np.where(seen, np.minimum(scores, fresh.min()) - REPEAT_PENALTY, scores)
        if self.ties == "random":  # coarse encodings give many afterstates the very same inputs, hence value
            best = np.flatnonzero(scores == scores.max())
            return Move(int(options.moves[int(best[self.rng.integers(len(best))])]), position.variant.side)
        return Move(int(options.moves[int(np.argmax(scores))]), position.variant.side)


REPEAT_PENALTY = 1.0  # a repeating move ranks this far below the worst move that goes somewhere new


register(
    PlayerKind(
        name="td",
        factory=TDPlayer,
        options={
            "net": Option(str, "builtin", "a network file (.npz) from `sumito train`; default: the shipped one",
                          path=True),
            "avoid_repeats": Option(bool, False, "steer away from positions already seen in the game"),
            "take_wins": Option(bool, False, "always play a move that wins outright (choice=value does anyway)"),
            **TIE_OPTIONS,
            "choice": Option(str, None, "reward (reward + gamma*value) or value (the afterstate's value alone); "
                             "default: as the network was trained"),
            "reward_scale": Option(float, None, "what a marble is worth beside the network's value (choice=reward); "
                                   "default: as the network was trained", low=1e-6, high=1e6),
        },
        help="a trained value network, one ply, greedy",
    )
)
