"""Abalone as a :class:`~sumito.models.game.LearningGame`: afterstates encoded by the Abalearn
encodings (:mod:`sumito.models.abalone_encodings`) and marbles pushed off as the rewards. (Any Sumito
player as a training opponent or expert is the lab's: :mod:`sumito.learn.abalone_game`.)"""

from __future__ import annotations

import numpy as np

from sumito.games.abalone import DrawRules, Game, Move, Position
from sumito.games.abalone.kernels import PUSH_OFF_BIT
from sumito.models.abalone_encodings import MAX_MOVES, encode_position_successors, get_encoding
from sumito.models.game import Afterstates, Leaf
from sumito.models.network import ValueNetwork
from sumito.models.tdleaf import LeafSearch

# Training games: a tie when the same moves repeat 20 times (the Abalearn paper's footnote 4),
# and a cap on the length (the training-speed target counts games capped at 200 plies).
TRAINING_RULES = DrawRules(max_plies=200, repetitions=20)


def position_afterstates(pos: Position, encoding: str, out: np.ndarray, viewer: int = 0) -> Afterstates:
    """The legal moves of ``pos``, their afterstates encoded from the mover's view (or
    ``viewer``'s, 1 or 2) in rows of ``out``, the marble each push-off takes and which moves win
    at once (both for the mover)."""
    codes, inputs = encode_position_successors(encoding, pos, out, viewer)
    gains = ((codes & PUSH_OFF_BIT) != 0).astype(np.float64)
    lost_by_opponent = pos.lost[2 - pos.side_to_move]
    wins = (gains > 0) & (lost_by_opponent + 1 >= pos.variant.win_threshold)
    return Afterstates(codes, inputs, gains, wins)


class AbaloneLearningGame:
    """Abalone from a layout (or position) under draw rules, with one Abalearn encoding."""

    def __init__(
        self,
        encoding: str = "abalearn3",
        start: Position | str = "standard",
        rules: DrawRules = TRAINING_RULES,
        opening_plies: int = 0,
    ) -> None:
        self.start_position = Position.start(start) if isinstance(start, str) else start
        self.rules = rules
        self.encoding = get_encoding(encoding).name
        self.n_inputs = get_encoding(encoding).n_inputs(self.start_position.variant.side)
        self.opening_plies = opening_plies
        self._out = np.empty((MAX_MOVES, self.n_inputs), dtype=np.float64)
        self._leaf_search: LeafSearch | None = None  # built for the first network that searches (TD-Leaf)

    def start(self, rng: np.random.Generator) -> Game:
        game = Game(self.start_position, self.rules)
        for _ in range(self.opening_plies):
            codes = game.position.legal_move_codes()
            if len(codes) == 0 or game.is_over():
                break
            game.push(Move(int(codes[rng.integers(len(codes))]), game.position.variant.side))
        return game

    def side_to_move(self, game: Game) -> int:
        return game.position.side_to_move

    def outcome(self, game: Game) -> int | None:
        outcome = game.outcome()
        if outcome is None:
            return None
        return outcome.winner or 0

    def afterstates(self, game: Game, viewer: int = 0) -> Afterstates:
        """The mover's options, encoded from its view (or ``viewer``'s, 1 or 2); ``inputs`` is a
        view of a buffer reused by the next call."""
        return position_afterstates(game.position, self.encoding, self._out, viewer)

    def play(self, game: Game, move: int) -> Game:
        game.push(Move(int(move), game.position.variant.side))
        return game

    def losses_of(self, game: Game, side: int) -> int:
        return game.position.lost[side - 1]

    def search_leaf(self, game: Game, network: ValueNetwork, depth: int, first: int | None = None) -> Leaf:
        """TD-Leaf(λ)'s search (:mod:`sumito.models.tdleaf`): the principal variation's leaf of a
        ``depth``-ply search of the game's position with ``network``'s current weights; with
        ``first``, that move (a random or an expert's one) starts the line."""
        if self._leaf_search is None or self._leaf_search.network is not network:
            self._leaf_search = LeafSearch(network, self.encoding, self.start_position.variant)
        return self._leaf_search.leaf(game, depth, first)
