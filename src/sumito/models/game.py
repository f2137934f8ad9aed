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
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from sumito.models.network import ValueNetwork


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


@dataclass
class Leaf:
    """The leaf of a search's principal variation, for TD-Leaf(λ): always an afterstate of the
    side that searched (it moved last), or a position it has won.

    ``material`` is that side's cumulative material in the leaf, on the same scale as the
    game's ``losses_of`` (pieces the opponent lost minus pieces it lost), so that differences of
    it are the rewards received between two leaves."""

    move: int  # the move to play now (the first of ``line``)
    inputs: np.ndarray  # float64 [n_inputs]: the leaf encoded from the searching side's view
    material: float
    won: bool  # the leaf is a won end of the game for the searching side
    line: tuple[int, ...]  # the moves from the searched position to the leaf (odd count)


class LeafSearchGame(Protocol):
    """A :class:`~sumito.models.game.LearningGame` that can also search (``search_depth`` > 1)."""

    def search_leaf(self, state: Any, network: ValueNetwork, depth: int, first: int | None = None) -> Leaf:
        """Search ``depth`` plies from ``state`` (side to move's view, valued by ``network``) and
        return the principal variation's leaf; with ``first``, that move is played as the first
        ply and the opponent's best reply line is searched ``depth - 1`` plies after it."""
        ...
