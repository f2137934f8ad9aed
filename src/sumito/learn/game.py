"""The small game interface the learning code sees, so that any two-player game with afterstates
plugs into the same TD training (Abalone now, backgammon next).

A *state* belongs to the game; the learner only ever sees, for the side to move, the encoded
**afterstates** of its legal moves (one input row each, from the mover's point of view) and what
each move earns at once. Rewards follow the Abalearn paper: +1 for each opposing marble (piece)
taken, −1 for each one lost, and ±1 more for winning or losing the game; with ``end_only`` the
only reward is the result at the end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


@dataclass
class Afterstates:
    """The options of the side to move: one row of inputs per legal move, from its point of view."""

    moves: np.ndarray  # the game's move codes
    inputs: np.ndarray  # float64 [n, n_inputs]
    gains: np.ndarray  # float64 [n]: the immediate reward of each move for the mover (taking pieces)
    wins: np.ndarray  # bool [n]: the move ends the game with the mover's win


class LearningGame(Protocol):
    """A game as the TD trainer sees it."""

    n_inputs: int
    encoding: str

    def start(self, rng: np.random.Generator) -> Any:
        """A new game's state (the game may use ``rng`` for a random opening or dice)."""
        ...

    def side_to_move(self, state: Any) -> int:
        """1 or 2."""
        ...

    def outcome(self, state: Any) -> int | None:
        """``None`` while the game goes on; then the winner (1 or 2) or 0 for a draw."""
        ...

    def afterstates(self, state: Any) -> Afterstates: ...

    def play(self, state: Any, move: int) -> Any:
        """The state after the side to move plays ``move`` (one of its afterstates' codes)."""
        ...

    def losses_of(self, state: Any, side: int) -> int:
        """Pieces ``side`` has lost so far (for the rewards)."""
        ...
