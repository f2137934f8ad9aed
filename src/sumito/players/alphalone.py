"""The Alphalone player (Hakim & Zhou, section 3): depth-limited alpha-beta from the agent's
point of view. Its defaults follow the authors' code (``alphabeta.py`` and ``model.py`` of
github.com/duniahakim/AI-Abalone, the version with ``HeuristicAgent``); every place where that
code and our first reading of the report's text differ is an option, the text reading kept:

- **depth** counted per player as in the report: depth 1 is the agent's move and the
  opponent's reply (2 plies), depth 2 is 4 plies; the agent's evaluation scores the leaves.
  ``adaptive`` (default on, the code's ``getDepth``): search depth 1 while none of the agent's
  marbles touches an opposing marble, else ``depth``. Depth 0 is the report's baseline, the
  "heuristic agent": the best successor by the agent's own weights, no search, no randomness.
- **early stopping by thresholds** (``thresholds``, default on): inside the search (not at the
  root) a node of the agent takes the first successor worth more than 0.5, a node of the
  opponent the first worth less than 0.3, both on the normalised weights (``norm``: ``l1``, the
  code's sum of absolute values, or ``l2``, the Euclidean length).
- **move ordering** (``ordering``): ``code`` (default) sorts the successors of inner nodes by
  the code's fixed ordering weights seen from Black's side (:data:`CODE_ORDERING`), ascending at
  the agent's nodes and descending at the opponent's, and leaves the root in generation order;
  because the weights are Black's, that is best-first for a White agent and worst-first for a
  Black one (the code's ``reverse=`` flags read the other way round from what the report says).
  ``own`` (the text reading): the agent's own evaluation, best first for the node's player, the
  root too. ``off``: generation order.
- **random choice between the two best** (``two_best``): ``nodes`` (default, the code) at every
  inner node — a node of the agent returns one of its two highest values, a node of the opponent
  one of its two lowest, each with probability 1/2 — while the root plays its best move;
  ``root`` (the text reading): exact values inside, a random pick between the two best root
  moves; ``off``: no randomness.
- **features** (``features``): ``code`` (default) or ``text``, see
  :mod:`sumito.evaluation.alphalone`; separate weight sets for Black and White, loadable from a
  file.
- **a time limit** (``time``) checked between the root moves (the report: "effectively setting
  the time limit for the out-most recursive call"; the stored code has no time limit), returning
  the best move found so far.

Not reproduced: the authors' engine also lets a player move its own marbles off the board.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from sumito.evaluation.alphalone import (
    CODE_ORDERING,
    FEATURE_SETS,
    NORMS,
    AlphaloneWeights,
    default_weights,
    feature_vector,
    normalized,
    score,
)
from sumito.evaluation.features import work_arrays
from sumito.games.abalone import DrawCounters, Move, Position
from sumito.games.abalone.kernels import MAX_MOVES, PUSH_OFF_BIT, generate_moves, make_move, unmake_move
from sumito.jit import njit
from sumito.players.base import (
    MAX_PLAYER_DEPTH,
    MAX_SEARCH_SECONDS,
    MAX_SEED,
    Option,
    PlayerBase,
    PlayerKind,
    PlayerSpecError,
    legal_codes,
    register,
)
from sumito.search.context import WIN, SearchContext
from sumito.stopping import STOP, call_stoppable, stop_requested

UPPER_THRESHOLD = 0.5
LOWER_THRESHOLD = 0.3

ORDER_OFF, ORDER_OWN, ORDER_CODE = 0, 1, 2
ORDERINGS = {"code": ORDER_CODE, "own": ORDER_OWN, "off": ORDER_OFF}
PICKS = ("nodes", "root", "off")
_YES = ("1", "true", "yes", "on")
_NO = ("0", "false", "no", "off")


@njit(cache=True)
def _seed(s):
    np.random.seed(s)


@njit(cache=True)
def _after_values(board, agent, lost, win, cells, offsets, ring, edge_ring, zobrist, params, code, moves, values, raw,
                  scratch):
    """The agent's score of the position after each of ``moves`` (a win: WIN)."""
    for i in range(moves.shape[0]):
        mv = moves[i]
        make_move(board, mv, agent, offsets, zobrist)
        if mv & PUSH_OFF_BIT:
            lost[2 - agent] += 1
        if lost[0] >= win or lost[1] >= win:
            values[i] = WIN
        else:
            values[i] = score(board, agent, 3 - agent, lost[0], lost[1], cells, ring, offsets, edge_ring, params, code,
                              raw, scratch)
        unmake_move(board, mv, agent, offsets)
        if mv & PUSH_OFF_BIT:
            lost[2 - agent] -= 1


class SearchState(NamedTuple):
    """What every node of one Alphalone search reads and never changes between nodes (:func:`_value`'s
    ``state``): the board's tables, the evaluation, the report's search options and the work arrays.
    numba compiles a named tuple as a tuple, so a field costs what a positional argument did."""

    win: Any  #: marbles a side must push off to win
    inline_only: Any  #: the reduced game without broadside moves
    cells: Any  #: the grid indices of the board's cells
    offsets: Any  #: the six directions as grid offsets
    ring: Any  #: each grid index's hex distance to the centre
    edge_ring: Any  #: the outermost ring's distance to the centre
    zobrist: Any  #: the hash keys (make_move keeps the hash)
    params: Any  #: the evaluation's weights, as the player normalised them
    order_params: Any  #: the authors' code's fixed ordering weights
    code: Any  #: features as the authors' code computes them (else as the report's text says)
    thresholds: Any  #: early stopping at the upper and lower thresholds
    upper: Any  #: the upper threshold
    lower: Any  #: the lower threshold
    ordering: Any  #: ORDER_OFF, ORDER_OWN or ORDER_CODE
    pick_nodes: Any  #: the second best move at random at inner nodes (two_best=nodes)
    moves: Any  #: a move list per ply
    keys: Any  #: the ordering keys per ply
    raw: Any  #: the evaluation's work arrays
    scratch: Any
    nodes: Any  #: the node count
    stop: Any  #: the stop flag (sumito.stopping.STOP)


@njit(cache=True, nogil=True)
def _value(board, side, agent, lost, depth, alpha, beta, ply, state):
    """The value for ``agent`` of the position with ``side`` to move (minimax, alpha-beta); 0 once
    ``state.stop[0]`` is set (sumito.stopping: the caller throws the search away)."""
    win, inline_only, cells, offsets = state.win, state.inline_only, state.cells, state.offsets
    ring, edge_ring, zobrist, params = state.ring, state.edge_ring, state.zobrist, state.params
    order_params, code, thresholds, upper = state.order_params, state.code, state.thresholds, state.upper
    lower, ordering, pick_nodes, moves = state.lower, state.ordering, state.pick_nodes, state.moves
    keys, raw, scratch, nodes, stop = state.keys, state.raw, state.scratch, state.nodes, state.stop
    nodes[0] += 1
    if stop[0]:
        return 0.0
    if lost[0] >= win or lost[1] >= win:
        agent_lost = lost[agent - 1] >= win
        return -(WIN - ply) if agent_lost else WIN - ply
    if depth == 0 and side == agent:
        return score(board, agent, side, lost[0], lost[1], cells, ring, offsets, edge_ring, params, code, raw, scratch)
    buf = moves[ply]
    key = keys[ply]
    n = generate_moves(board, side, offsets, cells, inline_only, buf)
    if n == 0:
        return 0.0
    maximizing = side == agent
    if ordering != ORDER_OFF:
        for i in range(n):
            mv = buf[i]
            make_move(board, mv, side, offsets, zobrist)
            if mv & PUSH_OFF_BIT:
                lost[2 - side] += 1
            if ordering == ORDER_OWN:
                if lost[0] >= win or lost[1] >= win:
                    v = WIN if maximizing else -WIN
                else:
                    v = score(board, agent, 3 - side, lost[0], lost[1], cells, ring, offsets, edge_ring, params, code,
                              raw, scratch)
                key[i] = v if maximizing else -v
            else:
                # the code's fixed weights, from Black's side: ascending at the agent's nodes
                v = score(board, 1, 3 - side, lost[0], lost[1], cells, ring, offsets, edge_ring, order_params, code,
                          raw, scratch)
                key[i] = -v if maximizing else v
            unmake_move(board, mv, side, offsets)
            if mv & PUSH_OFF_BIT:
                lost[2 - side] -= 1
        # insertion sort, largest key first (stable: ties keep generation order)
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
    second = best
    for i in range(n):
        mv = buf[i]
        make_move(board, mv, side, offsets, zobrist)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] += 1
        v = _value(board, 3 - side, agent, lost, next_depth, alpha, beta, ply + 1, state)
        unmake_move(board, mv, side, offsets)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] -= 1
        if maximizing:
            if thresholds and v > upper:
                return v
            if v > best:
                second = best
                best = v
            elif v > second:
                second = v
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
        else:
            if thresholds and v < lower:
                return v
            if v < best:
                second = best
                best = v
            elif v < second:
                second = v
            if best <= alpha:
                return best
            if best < beta:
                beta = best
    if pick_nodes and n > 1 and np.random.random() < 0.5:
        return second
    return best


def _choice(value: str | bool, name: str, choices: Sequence[str], yes: str, no: str) -> str:
    text = str(value).strip().lower()
    if text in _YES:
        return yes
    if text in _NO:
        return no
    if text not in choices:
        raise PlayerSpecError(f"alphalone {name} must be one of {', '.join(choices)}, not {value!r}")
    return text


class AlphalonePlayer(PlayerBase):
    def __init__(
        self,
        depth: int = 2,
        time: float = 0.0,
        thresholds: bool = True,
        ordering: str | bool = "code",
        two_best: str | bool = "nodes",
        adaptive: bool = True,
        norm: str = "l1",
        features: str = "code",
        weights: str | None = None,
        seed: int | None = None,
    ) -> None:
        if depth < 0:
            raise PlayerSpecError(f"alphalone depth must be 0 or more, not {depth}")
        if not (math.isfinite(time) and time >= 0):
            raise PlayerSpecError(f"alphalone time must be 0 (no limit) or more seconds, not {time}")
        if norm not in NORMS:
            raise PlayerSpecError(f"alphalone norm must be one of {', '.join(NORMS)}, not {norm!r}")
        if features not in FEATURE_SETS:
            raise PlayerSpecError(f"alphalone features must be one of {', '.join(FEATURE_SETS)}, not {features!r}")
        self.depth = depth
        self.time_limit = time
        self.thresholds = thresholds
        self.ordering = _choice(ordering, "ordering", tuple(ORDERINGS), "own", "off")
        self.two_best = _choice(two_best, "two_best", PICKS, "root", "off")
        self.adaptive = adaptive
        self.norm = norm
        self.features = features
        self.weights = default_weights() if weights is None else AlphaloneWeights.load(weights)
        self.params = self.weights.vector(norm)
        order = normalized(CODE_ORDERING, norm)
        self.order_params = np.concatenate([order, order])
        self.rng = np.random.default_rng(seed)
        parts = [f"depth={depth}"]
        if time:
            parts.append(f"time={time:g}")
        for key, value, default in (
            ("thresholds", "on" if thresholds else "off", "on"),
            ("ordering", self.ordering, "code"),
            ("two_best", self.two_best, "nodes"),
            ("adaptive", "on" if adaptive else "off", "on"),
            ("norm", norm, "l1"),
            ("features", features, "code"),
        ):
            if value != default:
                parts.append(f"{key}={value}")
        if weights:
            parts.append(f"weights={weights}")
        self.name = "alphalone:" + ",".join(parts)
        self.last_nodes = 0
        self.last_depth = depth

    def _after(self, ctx: SearchContext, agent: int, codes: np.ndarray) -> np.ndarray:
        values = np.empty(len(codes), dtype=np.float64)
        raw, scratch = work_arrays()
        _after_values(ctx.board, agent, ctx.lost, ctx.win, ctx.cells, ctx.offsets, ctx.ring, ctx.edge_ring,
                      ctx.zobrist, self.params, self.features == "code", codes.astype(np.int32), values, raw, scratch)
        return values

    def search_depth(self, position: Position) -> int:
        """The depth this move is searched to: 1 with ``adaptive`` while the agent touches no
        opposing marble (the code's ``getDepth``), else ``depth``."""
        if self.adaptive and self.depth > 1:
            f = feature_vector(position, "code")
            contact = f[8] if position.side_to_move == 1 else f[9]
            if contact == 0:
                return 1
        return self.depth

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        codes = legal_codes(position)
        ctx = SearchContext.of(position)
        agent = ctx.side
        if self.depth == 0:
            # the report's baseline: the best successor by the agent's own weights
            values = self._after(ctx, agent, codes)
            return Move(int(codes[int(np.argmax(values))]), position.variant.side)
        if self.ordering == "own":
            # root moves best first by the agent's own evaluation
            first = self._after(ctx, agent, codes)
            codes = codes[np.argsort(-first, kind="stable")]
        depth = self.search_depth(position)
        self.last_depth = depth
        values = self._search_root(ctx, agent, codes, depth, movetime)
        searched = np.flatnonzero(~np.isnan(values))
        if len(searched) == 0:  # stopped inside the first root move: the first in root order, at once
            return Move(int(codes[0]), position.variant.side)
        ranked = searched[np.argsort(-values[searched], kind="stable")]
        pick = ranked[0]
        if self.two_best == "root" and len(ranked) > 1 and self.rng.random() < 0.5:
            pick = ranked[1]
        return Move(int(codes[pick]), position.variant.side)

    def _search_root(
        self, ctx: SearchContext, agent: int, codes: np.ndarray, depth: int, movetime: float | None
    ) -> np.ndarray:
        limits = [t for t in (self.time_limit or None, movetime) if t]
        deadline = time.perf_counter() + min(limits) if limits else None
        pick_nodes = self.two_best == "nodes"
        if pick_nodes:
            # numba's random state is per thread: seed it in the thread the search runs in
            call_stoppable(_seed, int(self.rng.integers(2**31)), short=depth <= 1)
        moves = np.empty((2 * depth + 2, MAX_MOVES), dtype=np.int32)
        keys = np.empty((2 * depth + 2, MAX_MOVES), dtype=np.float64)
        raw, scratch = work_arrays()
        nodes = np.zeros(1, dtype=np.int64)
        values = np.full(len(codes), np.nan)
        best = second = -np.inf
        state = SearchState(
            win=ctx.win, inline_only=ctx.inline_only, cells=ctx.cells, offsets=ctx.offsets, ring=ctx.ring,
            edge_ring=ctx.edge_ring, zobrist=ctx.zobrist, params=self.params, order_params=self.order_params,
            code=self.features == "code", thresholds=self.thresholds, upper=UPPER_THRESHOLD, lower=LOWER_THRESHOLD,
            ordering=ORDERINGS[self.ordering], pick_nodes=pick_nodes, moves=moves, keys=keys, raw=raw,
            scratch=scratch, nodes=nodes, stop=STOP,
        )
        for i, mv in enumerate(codes):
            if i > 0 and deadline is not None and time.perf_counter() > deadline:
                break
            make_move(ctx.board, np.int32(mv), agent, ctx.offsets, ctx.zobrist)
            if mv & PUSH_OFF_BIT:
                ctx.lost[2 - agent] += 1
            bound = second if self.two_best == "root" else best
            v = call_stoppable(_value, ctx.board, 3 - agent, agent, ctx.lost, depth, bound, np.inf, 1, state,
                               short=depth <= 1)
            unmake_move(ctx.board, np.int32(mv), agent, ctx.offsets)
            if mv & PUSH_OFF_BIT:
                ctx.lost[2 - agent] -= 1
            if stop_requested():  # the protocol's stop: keep the root moves already searched
                break
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
            "depth": Option(int, 2, "depth per player: 1 = 2 plies, 2 = 4 plies; 0 = the report's 1-ply baseline",
                            low=0, high=MAX_PLAYER_DEPTH // 2),
            "time": Option(float, 0.0, "time limit in seconds a move, checked between root moves (0 = none)",
                           low=0, high=MAX_SEARCH_SECONDS),
            "thresholds": Option(bool, True, "early stopping at 0.5 (agent) and 0.3 (opponent) inside the search"),
            "ordering": Option(str, "code", "move ordering: code (the authors' fixed weights), own, off"),
            "two_best": Option(str, "nodes", "random pick of the two best: nodes (authors' code), root, off"),
            "adaptive": Option(bool, True, "depth 1 while the agent touches no opposing marble (authors' code)"),
            "norm": Option(str, "l1", "weight normalisation: l1 (authors' code) or l2"),
            "features": Option(str, "code", "features as the authors' code computes them (code) or our text reading"),
            "weights": Option(str, None, "JSON file of Black's and White's weights (default: the report's)", path=True),
            "seed": Option(int, None, "seed of the random choices between two best moves", low=0, high=MAX_SEED),
        },
        help="the Alphalone report's alpha-beta player with thresholds, time limit and TD-tuned weights",
    )
)
