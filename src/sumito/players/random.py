"""The ``random`` player: a uniformly random legal move, from its own seeded generator."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sumito.games.abalone import DrawCounters, Move, Position
from sumito.players.base import MAX_SEED, Option, PlayerBase, PlayerKind, legal_codes, register


class RandomPlayer(PlayerBase):
    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.name = "random" if seed is None else f"random:seed={seed}"

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        codes = legal_codes(position)
        return Move(int(codes[self.rng.integers(len(codes))]), position.variant.side)


register(
    PlayerKind(
        name="random",
        factory=RandomPlayer,
        options={"seed": Option(int, None, "seed of the player's random generator", low=0, high=MAX_SEED)},
        help="uniformly random legal moves",
    )
)
