"""The Abalearn paper's benchmark ``heuristic`` player: plain minimax (alpha-beta, which finds
the same move) over the summed distances of the marbles to the centre, opponent's minus one's
own, so that central is good (Campos & Langlois, section 6 and footnote 3). The paper does not
give the depth; ours defaults to 2 plies. A pushed-off marble counts at ``off`` (default
:data:`~sumito.evaluation.OFF_DISTANCE`) from the centre: the paper's "good heuristic player"
must be able to win, and one whose lost marbles vanish from the sum gains by losing them.
Ties go to the first best move found, or with ``ties=random`` to a seeded random one of the
equally best moves (the root's window then keeps every move that ties with the best inside it, so
that the ties are exact): two deterministic players otherwise repeat the same game, or the same
cycle, again and again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sumito.evaluation import OFF_DISTANCE, Evaluation, named_evaluation
from sumito.games.abalone import DrawCounters, Move, Position
from sumito.players.base import (
    MAX_PLAYER_DEPTH,
    MAX_SEED,
    Option,
    PlayerBase,
    PlayerKind,
    PlayerSpecError,
    legal_codes,
    register,
)
from sumito.search.alphabeta import search
from sumito.search.context import SearchContext

TIES = ("first", "random")
# the root values the random tie-break asks the search for: "ties" knows the tied moves exactly and
# visits 4-6 times fewer nodes at two plies than "all" (bench/bench_paper_players.py, which sets this
# to "all" for its baseline; both choose the same moves)
TIE_VALUES = "ties"
TIE_OPTIONS = {  # the tie-break options of every AlphaBetaPlayer kind
    "ties": Option(str, "first", "first (the first best move, deterministic) or random (a seeded random best move)"),
    "seed": Option(int, None, "seed of the random tie-break", low=0, high=MAX_SEED),
}


#: whether this process has run the alpha-beta kernel (loaded it from numba's cache, or compiled it)
_SEARCH_LOADED = False


class AlphaBetaPlayer(PlayerBase):
    """Fixed-depth alpha-beta over an evaluation; ties to the first best move in generation
    order, or to a random one of the best (``ties="random"``, seeded)."""

    def __init__(self, name: str, evaluation: str, depth: int, ties: str = "first", seed: int | None = None) -> None:
        kind = name.partition(":")[0]
        if depth < 1:
            raise PlayerSpecError(f"{kind} depth must be at least 1, not {depth}")
        if ties not in TIES:
            raise PlayerSpecError(f"{kind} ties must be first or random, not {ties!r}")
        self.name = name + ("" if ties == "first" else ",ties=random")
        self.evaluation = named_evaluation(evaluation)
        self.depth = depth
        self.ties = ties
        self.rng = np.random.default_rng(seed)
        self.last_nodes = 0

    def warm_up(self, position: Position) -> None:
        """Load the compiled alpha-beta search (one kernel for every evaluation) with a one-ply search,
        before any clock runs: once a process (the protocol warms up at every position)."""
        global _SEARCH_LOADED
        codes = legal_codes(position)
        if not _SEARCH_LOADED and len(codes):
            search(SearchContext.of(position), codes, 1, self.evaluation.kind, self.evaluation.params)
            _SEARCH_LOADED = True

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        codes = legal_codes(position)
        ties = self.ties == "random"
        best, values, self.last_nodes = search(SearchContext.of(position), codes, self.depth, self.evaluation.kind,
                                               self.evaluation.params, values=TIE_VALUES if ties else "best")
        if ties:
            tied = np.flatnonzero(values >= values[best])
            best = int(tied[self.rng.integers(len(tied))])
        return Move(int(codes[best]), position.variant.side)


def check_off(kind: str, off: float) -> float:
    if not math.isfinite(off) or off < 0:
        raise PlayerSpecError(f"{kind} off (a pushed-off marble's distance) must be a finite number >= 0, not {off}")
    return float(off)


def heuristic_player(
    depth: int = 2, ties: str = "first", seed: int | None = None, off: float = OFF_DISTANCE
) -> AlphaBetaPlayer:
    name = f"heuristic:depth={depth}" + ("" if off == OFF_DISTANCE else f",off={off:g}")
    player = AlphaBetaPlayer(name, "heuristic", depth, ties, seed)
    player.evaluation = Evaluation(name, player.evaluation.kind, np.array([check_off("heuristic", off)]))
    return player


register(
    PlayerKind(
        name="heuristic",
        factory=heuristic_player,
        options={
            "depth": Option(int, 2, "search depth in plies", low=1, high=MAX_PLAYER_DEPTH),
            "off": Option(float, OFF_DISTANCE, "distance from the centre a pushed-off marble counts at"),
            **TIE_OPTIONS,
        },
        help="Abalearn's benchmark: minimax over the marbles' distances to the centre",
    )
)
