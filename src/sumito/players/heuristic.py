"""The Abalearn paper's benchmark ``heuristic`` player: plain minimax (alpha-beta, which finds
the same move) over the summed distances of the marbles to the centre, opponent's minus one's
own, so that central is good (Campos & Langlois, section 6 and footnote 3). The paper does not
give the depth; ours defaults to 2 plies.
"""

from __future__ import annotations

from collections.abc import Sequence

from sumito.engine import Move, Position
from sumito.evaluation import named_evaluation
from sumito.players.base import Option, PlayerKind, PlayerSpecError, legal_codes, register
from sumito.search.alphabeta import search
from sumito.search.context import SearchContext


class AlphaBetaPlayer:
    """Fixed-depth alpha-beta over an evaluation; the first best move in generation order."""

    def __init__(self, name: str, evaluation: str, depth: int) -> None:
        if depth < 1:
            raise PlayerSpecError(f"{name.partition(':')[0]} depth must be at least 1, not {depth}")
        self.name = name
        self.evaluation = named_evaluation(evaluation)
        self.depth = depth
        self.last_nodes = 0

    def choose(
        self, position: Position, movetime: float | None = None, history: Sequence[int] | None = None
    ) -> Move:
        codes = legal_codes(position)
        best, _, self.last_nodes = search(
            SearchContext.of(position), codes, self.depth, self.evaluation.kind, self.evaluation.params
        )
        return Move(int(codes[best]), position.variant.side)


def heuristic_player(depth: int = 2) -> AlphaBetaPlayer:
    return AlphaBetaPlayer(f"heuristic:depth={depth}", "heuristic", depth)


register(
    PlayerKind(
        name="heuristic",
        factory=heuristic_player,
        options={"depth": Option(int, 2, "search depth in plies")},
        help="Abalearn's benchmark: minimax over the marbles' distances to the centre",
    )
)
