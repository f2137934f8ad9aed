"""``engine``: Sumito's own player, the strongest in the project.

Iterative-deepening PVS with a transposition table, move ordering, null-move pruning, late-move
reductions and a push-off quiescence search (see :mod:`sumito.search.pvs`), over a pluggable
evaluation: by default our hand-set linear evaluation (material first, then centre, cohesion,
the edge and lines of three), or any named evaluation of :mod:`sumito.evaluation`.

Time control: ``time`` seconds a move (default 1), or a fixed ``depth`` in plies, or both (the
first reached stops the search); a caller's clock (``movetime``) caps the time further.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sumito.engine import Move, Position
from sumito.evaluation import evaluation_names, named_evaluation
from sumito.players.base import Option, PlayerKind, PlayerSpecError, register
from sumito.search.context import SearchContext
from sumito.search.pvs import Searcher, SearchResult


class EnginePlayer:
    def __init__(
        self,
        time: float | None = None,
        depth: int | None = None,
        eval: str = "linear",
        hash: int = 32,
    ) -> None:
        if depth is not None and depth < 1:
            raise PlayerSpecError(f"engine depth must be at least 1, not {depth}")
        if time is not None and time <= 0:
            raise PlayerSpecError(f"engine time must be a positive number of seconds, not {time}")
        if not 1 <= hash <= 4096:
            raise PlayerSpecError(f"engine hash must be between 1 and 4096 MB, not {hash}")
        try:
            self.evaluation = named_evaluation(eval)
        except ValueError as exc:
            raise PlayerSpecError(f"engine: {exc}") from None
        if time is None and depth is None:
            time = 1.0
        self.time = time
        self.depth = depth
        entries = 1 << max(10, int(np.log2(hash * 2**20 / 22)))  # about 22 bytes an entry
        self.searcher = Searcher(self.evaluation.kind, self.evaluation.params, entries)
        parts = []
        if time is not None:
            parts.append(f"time={time:g}")
        if depth is not None:
            parts.append(f"depth={depth}")
        if eval != "linear":
            parts.append(f"eval={self.evaluation.name}")
        self.name = "engine:" + ",".join(parts)
        self.last: SearchResult | None = None

    def choose(
        self, position: Position, movetime: float | None = None, history: Sequence[int] | None = None
    ) -> Move:
        codes = position.legal_move_codes()
        if len(codes) == 0:
            raise ValueError("no legal move to choose from")
        limits = [t for t in (self.time, movetime) if t]
        seconds = min(limits) if limits else None
        result = self.searcher.search(
            SearchContext.of(position), codes, max_depth=self.depth or 64, seconds=seconds, history=history
        )
        self.last = result
        return Move(result.move, position.variant.side)


register(
    PlayerKind(
        name="engine",
        factory=EnginePlayer,
        options={
            "time": Option(float, None, "seconds a move (default 1 when no depth is given)"),
            "depth": Option(int, None, "search depth in plies (fixed depth when no time is given)"),
            "eval": Option(str, "linear", f"evaluation: {', '.join(evaluation_names())}"),
            "hash": Option(int, 32, "transposition table size in MB"),
        },
        help="Sumito's engine: iterative-deepening PVS with a transposition table and quiescence",
    )
)
