"""The Alphalone player (Hakim & Zhou, section 3): depth-limited alpha-beta from the agent's
point of view, with

- **depth** counted per player as in the report: depth 1 is the agent's move and the
  opponent's reply (2 plies), depth 2 is 4 plies; the agent's evaluation scores the leaves;
- **move ordering** by evaluation: the agent's successors best first, the opponent's worst
  first (for the agent);
- **early stopping by thresholds** on the normalised weights: a node of the agent takes the
  first successor worth more than 0.5, a node of the opponent the first worth less than 0.3;
- **a time limit** checked between the root moves (the report: "effectively setting the time
  limit for the out-most recursive call"), returning the best move found so far;
- **a random choice between the two best root moves**, the report's cure for move loops;
- its five feature pairs (marbles off, marbles on the edge, average distance from the centre,
  coherence with a bonus for three in a row, divide and conquer) and separate weight sets for
  Black and White, loadable from a file (see :mod:`sumito.evaluation.alphalone`).

The root searches each move with the second-best value so far as its lower bound, so the two
best values are exact while the rest can be pruned.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
from numba import njit

from sumito.engine import Move, Position
from sumito.engine.kernels import MAX_MOVES, PUSH_OFF_BIT, generate_moves, make_move, unmake_move
from sumito.evaluation.alphalone import AlphaloneWeights, default_weights
from sumito.evaluation.features import EVAL_ALPHALONE, evaluate, work_arrays
from sumito.players.base import Option, PlayerKind, PlayerSpecError, legal_codes, register
from sumito.search.alphabeta import after_values
from sumito.search.context import WIN, SearchContext

UPPER_THRESHOLD = 0.5
LOWER_THRESHOLD = 0.3


@njit(cache=True)
def _value(board, side, agent, lost, depth, alpha, beta, ply, win, inline_only, cells, offsets, ring, edge_ring,
           zobrist, params, thresholds, upper, lower, ordering, moves, keys, raw, scratch, nodes):
    """The value for ``agent`` of the position with ``side`` to move (minimax, alpha-beta)."""
    nodes[0] += 1
    if lost[0] >= win or lost[1] >= win:
        agent_lost = lost[agent - 1] >= win
        return -(WIN - ply) if agent_lost else WIN - ply
    if depth == 0 and side == agent:
        return evaluate(board, agent, lost[0], lost[1], cells, ring, offsets, edge_ring, EVAL_ALPHALONE, params, raw,
                        scratch)
    buf = moves[ply]
    key = keys[ply]
    n = generate_moves(board, side, offsets, cells, inline_only, buf)
    if n == 0:
        return 0.0
    maximizing = side == agent
    if ordering:
        for i in range(n):
            mv = buf[i]
            make_move(board, mv, side, offsets, zobrist)
            if mv & PUSH_OFF_BIT:
                lost[2 - side] += 1
            if lost[0] >= win or lost[1] >= win:
                v = WIN if maximizing else -WIN
            else:
                v = evaluate(board, agent, lost[0], lost[1], cells, ring, offsets, edge_ring, EVAL_ALPHALONE, params,
                             raw, scratch)
            unmake_move(board, mv, side, offsets)
            if mv & PUSH_OFF_BIT:
                lost[2 - side] -= 1
            key[i] = v if maximizing else -v
        # insertion sort, best first for the node's player (stable: ties keep generation order)
        for i in range(1, n):
            k = key[i]
            m = buf[i]
            j = i - 1
            while j >= 0 and key[j] < k:
                key[j + 1] = key[j]
                buf[j + 1] = buf[j]
                j -= 1
            key[j + 1] = k
            buf[j + 1] = m
    next_depth = depth if maximizing else depth - 1
    best = -np.inf if maximizing else np.inf
    for i in range(n):
        mv = buf[i]
        make_move(board, mv, side, offsets, zobrist)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] += 1
        v = _value(board, 3 - side, agent, lost, next_depth, alpha, beta, ply + 1, win, inline_only, cells, offsets,
                   ring, edge_ring, zobrist, params, thresholds, upper, lower, ordering, moves, keys, raw, scratch,
                   nodes)
        unmake_move(board, mv, side, offsets)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] -= 1
        if maximizing:
            if thresholds and v > upper:
                return v
            if v > best:
                best = v
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
        else:
            if thresholds and v < lower:
                return v
            if v < best:
                best = v
            if best <= alpha:
                return best
            if best < beta:
                beta = best
    return best


class AlphalonePlayer:
    def __init__(
        self,
        depth: int = 2,
        time: float = 0.0,
        thresholds: bool = True,
        ordering: bool = True,
        two_best: bool = True,
        weights: str | None = None,
        seed: int | None = None,
    ) -> None:
        if depth < 0:
            raise PlayerSpecError(f"alphalone depth must be 0 or more, not {depth}")
        if not (math.isfinite(time) and time >= 0):
            raise PlayerSpecError(f"alphalone time must be 0 (no limit) or more seconds, not {time}")
        self.depth = depth
        self.time_limit = time
        self.thresholds = thresholds
        self.ordering = ordering
        self.two_best = two_best
        self.weights = default_weights() if weights is None else AlphaloneWeights.load(weights)
        self.params = self.weights.vector()
        self.rng = np.random.default_rng(seed)
        parts = [f"depth={depth}"]
        if time:
            parts.append(f"time={time:g}")
        if not thresholds:
            parts.append("thresholds=off")
        if weights:
            parts.append(f"weights={weights}")
        self.name = "alphalone:" + ",".join(parts)
        self.last_nodes = 0

    def choose(
        self, position: Position, movetime: float | None = None, history: Sequence[int] | None = None
    ) -> Move:
        codes = legal_codes(position)
        ctx = SearchContext.of(position)
        agent = ctx.side
        # root moves best first by the agent's own evaluation (the report's move ordering)
        first = after_values(ctx, codes, EVAL_ALPHALONE, self.params)
        order = np.argsort(-first, kind="stable") if self.ordering else np.arange(len(codes))
        codes, first = codes[order], first[order]
        # depth 0 is the report's baseline: the best successor, no search
        values = first if self.depth == 0 else self._search_root(ctx, agent, codes, movetime)
        searched = np.flatnonzero(~np.isnan(values))
        ranked = searched[np.argsort(-values[searched], kind="stable")]
        pick = ranked[0]
        if self.two_best and len(ranked) > 1 and self.rng.random() < 0.5:
            pick = ranked[1]
        return Move(int(codes[pick]), position.variant.side)

    def _search_root(self, ctx: SearchContext, agent: int, codes: np.ndarray, movetime: float | None) -> np.ndarray:
        limits = [t for t in (self.time_limit or None, movetime) if t]
        deadline = time.perf_counter() + min(limits) if limits else None
        moves = np.empty((2 * self.depth + 2, MAX_MOVES), dtype=np.int32)
        keys = np.empty((2 * self.depth + 2, MAX_MOVES), dtype=np.float64)
        raw, scratch = work_arrays()
        nodes = np.zeros(1, dtype=np.int64)
        values = np.full(len(codes), np.nan)
        best = second = -np.inf
        for i, mv in enumerate(codes):
            if i > 0 and deadline is not None and time.perf_counter() > deadline:
                break
            make_move(ctx.board, np.int32(mv), agent, ctx.offsets, ctx.zobrist)
            if mv & PUSH_OFF_BIT:
                ctx.lost[2 - agent] += 1
            bound = second if self.two_best else best
            v = _value(ctx.board, 3 - agent, agent, ctx.lost, self.depth, bound, np.inf, 1, ctx.win, ctx.inline_only,
                       ctx.cells, ctx.offsets, ctx.ring, ctx.edge_ring, ctx.zobrist, self.params, self.thresholds,
                       UPPER_THRESHOLD, LOWER_THRESHOLD, self.ordering, moves, keys, raw, scratch, nodes)
            unmake_move(ctx.board, np.int32(mv), agent, ctx.offsets)
            if mv & PUSH_OFF_BIT:
                ctx.lost[2 - agent] -= 1
            values[i] = v
            if v > best:
                best, second = v, best
            elif v > second:
                second = v
        self.last_nodes = int(nodes[0])
        return values


register(
    PlayerKind(
        name="alphalone",
        factory=AlphalonePlayer,
        options={
            "depth": Option(int, 2, "depth per player: 1 = 2 plies, 2 = 4 plies; 0 = the report's 1-ply baseline"),
            "time": Option(float, 0.0, "time limit in seconds a move, checked between root moves (0 = none)"),
            "thresholds": Option(bool, True, "early stopping at 0.5 (agent) and 0.3 (opponent)"),
            "ordering": Option(bool, True, "order moves by evaluation"),
            "two_best": Option(bool, True, "pick at random between the two best moves"),
            "weights": Option(str, None, "JSON file of Black's and White's weights (default: the report's)"),
            "seed": Option(int, None, "seed of the random choice between the two best moves"),
        },
        help="the Alphalone report's alpha-beta player with thresholds, time limit and TD-tuned weights",
    )
)
