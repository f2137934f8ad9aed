"""``engine``: Sumito's own player, the strongest in the project.

Iterative-deepening PVS with a transposition table, move ordering, null-move pruning, late-move
reductions and a push-off quiescence search (see :mod:`sumito.search.pvs`), over a pluggable
evaluation: by default our hand-set linear evaluation (material first, then centre, cohesion,
the edge and lines of three), or any named evaluation of :mod:`sumito.evaluation`.

Time control: ``time`` seconds a move (default 1), or a fixed ``depth`` in plies, or both (the
first reached stops the search); a caller's clock (``movetime``) caps the time further.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sumito.engine import Move, Position
from sumito.evaluation import EVAL_LINEAR, LINEAR_TERMS, Evaluation, evaluation_names, named_evaluation
from sumito.evaluation.features import EVAL_ALPHALONE, EVAL_NETWORK
from sumito.evaluation.learned import HEADER, network_params
from sumito.learn.network import ValueNetwork, network_path
from sumito.players.base import (
    MAX_HASH_MB,
    MAX_SEARCH_DEPTH,
    MAX_SEARCH_SECONDS,
    Option,
    PlayerBase,
    PlayerKind,
    PlayerSpecError,
    legal_codes,
    register,
)
from sumito.search.context import SearchContext
from sumito.search.pvs import Searcher, SearchResult


class EnginePlayer(PlayerBase):
    def __init__(
        self,
        time: float | None = None,
        depth: int | None = None,
        eval: str = "linear",
        hash: int = 32,
        weights: str | None = None,
        contempt: float = 20.0,
        net: str | None = None,
    ) -> None:
        if depth is not None and depth < 1:
            raise PlayerSpecError(f"engine depth must be at least 1, not {depth}")
        if time is not None and not (math.isfinite(time) and time > 0):
            raise PlayerSpecError(f"engine time must be a positive number of seconds, not {time}")
        if not math.isfinite(contempt):
            raise PlayerSpecError(f"engine contempt must be a finite number, not {contempt}")
        if not 1 <= hash <= 4096:
            raise PlayerSpecError(f"engine hash must be between 1 and 4096 MB, not {hash}")
        try:
            self.evaluation = named_evaluation(eval)
        except ValueError as exc:
            raise PlayerSpecError(f"engine: {exc}") from None
        if self.evaluation.kind == EVAL_ALPHALONE:
            # its two colours' weight sets are not negatives of each other: negamax needs a
            # zero-sum score (use the alphalone player, or greedy:eval=alphalone)
            raise PlayerSpecError("engine: the alphalone evaluation is not zero-sum; the engine's search needs one")
        if weights is not None:
            self.evaluation = _with_weights(self.evaluation, weights)
        self.net = None if net is None else network_path(net)
        self._net_params: dict[tuple[int, int, int], np.ndarray] = {}
        if self.net is not None:
            if weights is not None or eval != "linear":
                raise PlayerSpecError("engine: give either net= or eval=/weights=, not both")
            ValueNetwork.load(self.net)  # a bad file fails now, not mid-game; it is fitted to each board later
            self.evaluation = Evaluation(f"net {net}", EVAL_NETWORK, np.zeros(HEADER))
        if time is None and depth is None:
            time = 1.0
        self.time = time
        self.depth = depth
        entries = 1 << max(10, int(np.log2(hash * 2**20 / 22)))  # about 22 bytes an entry
        self.searcher = Searcher(self.evaluation.kind, self.evaluation.params, entries, contempt)
        parts = []
        if time is not None:
            parts.append(f"time={time:g}")
        if depth is not None:
            parts.append(f"depth={depth}")
        if eval != "linear":
            parts.append(f"eval={self.evaluation.name}")
        if weights is not None:
            parts.append(f"weights={weights}")
        if contempt != 20.0:
            parts.append(f"contempt={contempt:g}")
        if net is not None:
            parts.append(f"net={net}")
        self.name = "engine:" + ",".join(parts)
        self.last: SearchResult | None = None
        self.search_info: str | None = None  # the last search, as `sumito engine` reports it

    def choose(
        self, position: Position, movetime: float | None = None, history: Sequence[int] | None = None
    ) -> Move:
        codes = legal_codes(position)
        if self.net is not None:  # the network's inputs depend on the board and its rules
            v = position.variant
            key = (v.side, v.marbles, v.win_threshold)
            if key not in self._net_params:
                self._net_params[key] = network_params(self.net, *key)
            self.searcher.params = self._net_params[key]
        limits = [t for t in (self.time, movetime) if t]
        seconds = min(limits) if limits else None
        result = self.searcher.search(
            SearchContext.of(position), codes, max_depth=self.depth or 64, seconds=seconds, history=history
        )
        self.last = result
        side = position.variant.side
        pv = " ".join(Move(code, side).notation() for code in result.pv)
        self.search_info = (
            f"depth {result.depth} score {result.score:g} nodes {result.nodes} "
            f"nps {result.nodes_per_second:.0f} time {result.seconds * 1000:.0f}ms pv {pv}"
        )
        return Move(result.move, side)


def _with_weights(evaluation: Evaluation, text: str) -> Evaluation:
    """The evaluation with its parameters replaced by ``text``: numbers separated by ``/``."""
    try:
        values = [float(x) for x in text.split("/")]
        if not all(math.isfinite(v) for v in values):
            raise ValueError
    except ValueError:
        raise PlayerSpecError(f"engine weights must be finite numbers separated by '/', not {text!r}") from None
    if len(values) != len(evaluation.params):
        raise PlayerSpecError(
            f"the {evaluation.name} evaluation takes {len(evaluation.params)} weights, not {len(values)}"
            + (f" ({', '.join(LINEAR_TERMS)})" if evaluation.kind == EVAL_LINEAR else "")
        )
    return Evaluation(evaluation.name, evaluation.kind, np.array(values))


register(
    PlayerKind(
        name="engine",
        factory=EnginePlayer,
        options={
            "time": Option(
                float, None, "seconds a move (default 1 when no depth is given)", low=0, high=MAX_SEARCH_SECONDS
            ),
            "depth": Option(int, None, "search depth in plies (fixed depth when no time is given)", low=1,
                            high=MAX_SEARCH_DEPTH),
            "eval": Option(str, "linear", f"evaluation: {', '.join(evaluation_names())}"),
            "hash": Option(int, 32, "transposition table size in MB", low=1, high=MAX_HASH_MB),
            "contempt": Option(float, 20.0, "what a draw by repetition costs the engine, in evaluation units",
                               low=-1e6, high=1e6),
            "net": Option(
                str, None, "a network file from `sumito train` as the evaluation (builtin, builtin-tdleaf: shipped)",
                path=True,
            ),
            "weights": Option(str, None, f"evaluation weights separated by '/' (linear: {'/'.join(LINEAR_TERMS)})"),
        },
        help="Sumito's engine: iterative-deepening PVS with a transposition table and quiescence",
    )
)
