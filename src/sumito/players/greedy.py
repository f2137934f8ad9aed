"""The ``greedy`` player: one ply, the move whose resulting position scores best for the mover
under a chosen evaluation (ties: the first move found). With ``eval=alphalone`` it is the
Alphalone report's baseline "heuristic agent"."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sumito.evaluation import evaluation_names, named_evaluation
from sumito.games.abalone import DrawCounters, Move, Position
from sumito.players.base import Option, PlayerBase, PlayerKind, PlayerSpecError, legal_codes, register
from sumito.search.alphabeta import after_values
from sumito.search.context import SearchContext


class GreedyPlayer(PlayerBase):
    def __init__(self, eval: str = "linear") -> None:
        try:
            self.evaluation = named_evaluation(eval)
        except ValueError as exc:
            raise PlayerSpecError(f"greedy: {exc}") from None
        self.name = f"greedy:eval={self.evaluation.name}"

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        codes = legal_codes(position)
        values = after_values(SearchContext.of(position), codes, self.evaluation.kind, self.evaluation.params)
        return Move(int(codes[int(np.argmax(values))]), position.variant.side)


register(
    PlayerKind(
        name="greedy",
        factory=GreedyPlayer,
        options={"eval": Option(str, "linear", f"evaluation: {', '.join(evaluation_names())}")},
        help="one ply: the best-scoring resulting position",
    )
)
