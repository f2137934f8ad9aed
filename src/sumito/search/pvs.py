"""The engine's search: iterative-deepening principal-variation search (negamax) in numba.

Pieces, as in a chess engine (Stockfish's split of search, ordering and transposition table):

- a Zobrist-keyed transposition table (always-replace, one entry a slot) holding the best move,
  the score, the bound kind and the depth; mate-like scores are stored relative to the node;
- move ordering: the table's move, then push-offs, then pushes (more marbles pushed first), then
  two killer moves a ply, then the history heuristic;
- null-move pruning (Abalone has no zugzwang to speak of) and late-move reductions of quiet
  moves, both re-searched at full depth when they look good;
- search levels (``Searcher(prune=)``, the engine option ``prune=``): 1, the default, takes the
  table's bounds and null moves in null-window nodes; 0 takes every null-window node for a PV node
  and so does neither (kept to measure against: SPRT +166 Elo for 1 over 0). Futility and late-move
  pruning and deeper reductions lost their SPRTs (docs/strength-ledger.md);
- a quiescence search over push-offs at the horizon, so that a pending push-off is never
  misjudged by a static evaluation;
- threats against a last marble (``threats=1``): a side a marble from losing with a push-off against
  it is in check: the node is extended a ply, its quiescence tries every reply, and at the horizon the
  attacker's quiet threats are searched besides its push-offs (off by default: its SPRT at 0.1 s found
  it weaker);
- the game's draw rules (``rules=1``, with :class:`~sumito.games.abalone.DrawCounters`): a line reaching the
  ply cap or the no-capture limit is a draw, and so is a position that has occurred as often as the
  repetition rule needs (twice before, for threefold repetition) or once inside the search; a draw is
  worth ``-contempt`` to the side searching (so that it plays on in a level position);
- Lazy SMP (``threads``): helper threads search the same root over the shared table, every other one a
  ply ahead of the main thread; a helper that completed a deeper iteration than the main thread
  decides the move, and with helpers the main thread searches to the end of its time (their
  unfinished iteration is not wasted as a lone thread's would be);
- a time limit checked every 1,024 nodes through a clock read in object mode; an aborted
  iteration is thrown away by the driver, which keeps the previous iteration's move;
- MultiPV: the best N root moves with exact scores, by searching the root again without the
  moves already found (each search with a full window); N = 1 is the plain search;
- a per-iteration callback (the protocol's streamed ``info`` lines), called between iterations
  from Python, so that it costs the compiled search nothing.

Evaluation is pluggable: any kind of :mod:`sumito.evaluation.features` with its parameters. This module is the
driver, in Python; the compiled search of one node is :mod:`sumito.search.negamax`.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from sumito.evaluation.features import EVAL_NETWORK, EVAL_NNUE, work_arrays
from sumito.games.abalone.draws import DrawCounters
from sumito.games.abalone.kernels import (
    MAX_MOVES,
    generate_moves,
    make_move,
)
from sumito.jit import compile_seconds
from sumito.search.context import MAX_PLY, WIN, WIN_BOUND, SearchContext
from sumito.search.negamax import (
    ABORTED,
    ASPIRATION_DEPTH,
    ASPIRATION_FULL,
    BEST,
    KILLERS,
    NODE_LIMIT,
    NODES,
    ROOT_COUNT,
    ROOT_DEPTH,
    STATS_SLOTS,
    TT_MOVE_SHIFT,
    NodeState,
    clock_now,
    pvs_node,
)
from sumito.stopping import STOP, call_stoppable, linked_stop

#: the threat search a Searcher (and the engine player) uses unless told otherwise (``threats=``): off,
#: since its SPRT at 0.1 s accepted H0 (Elo -22.9, 95% -45.0 to -1.1, 652 games; docs/strength-ledger.md);
#: ``threats=1`` sees a push-off of the last marble sooner, at a cost in depth everywhere near the end
DEFAULT_THREATS = 0
#: whether a Searcher plays to the game's draw rules unless told otherwise (``rules=``)
DEFAULT_RULES = 1
#: converting (``trade=``, in marbles): what each marble off the board is worth to the side that has pushed
#: off more, unless told otherwise. Off: 0.25 converted no better than without in a first 40-game probe
#: against ABLA (docs/strength-ledger.md)
DEFAULT_TRADE = 0.0
#: converting: trading counts only once the game has gone this many plies without a push-off before the
#: move searched (``trade_after=``; 0: always)
DEFAULT_TRADE_AFTER = 0
#: converting a stalled game (``press=``, in marbles): what each push (an inline move that moves opposing
#: marbles) the side to move has beyond the other's adds to its evaluation, in a search whose side to move
#: leads by at least PRESS_LEAD marbles after ``press_after=`` plies without a push-off (0: off). A tenth of
#: a marble from the first ply, with CONTEMPT_LEAD below: the pair that converted every game two or more up
#: in the conversion benchmark at depth 4 and passed its SPRT at equal time (docs/strength-ledger.md)
DEFAULT_PRESS = 0.1
DEFAULT_PRESS_AFTER = 0
PRESS_LEAD = 2
#: what a draw costs the side searching more for each marble it leads by (``contempt_lead=``, in marbles;
#: 0: contempt alone): a draw throws the lead away
DEFAULT_CONTEMPT_LEAD = 0.5
#: the search level a Searcher (and the engine player) uses unless told otherwise: 1, table cutoffs and
#: null moves, accepted by SPRT against 0 (docs/strength-ledger.md)
DEFAULT_PRUNE = 1

#: the evaluation kinds whose compiled search this process has run (loaded from numba's cache): a timed
#: search of another kind loads its kernels first (Searcher.warm_up), off its clock
_LOADED: set[int] = set()


#: the most search threads an engine takes
MAX_THREADS = 64


class _ThreadState:
    """What one search thread keeps to itself: its move lists and their ordering, the history and killer
    moves, the plies since a push-off along its line, the NNUE accumulators and the evaluation's work arrays."""

    def __init__(self, acc_width: int) -> None:
        # per side, the history counts of every move key, then (row k) the k-th killer of each ply
        self.history = np.zeros((2, KILLERS + MAX_PLY), dtype=np.int64)
        self.history[:, KILLERS:] = -1
        self.moves = np.empty((MAX_PLY + 1, MAX_MOVES), dtype=np.int32)  # a row a ply, one to spare
        self.orders = np.empty((MAX_PLY, MAX_MOVES), dtype=np.int64)
        self.since = np.zeros(MAX_PLY + 1, dtype=np.int64)  # plies since a push-off, a ply of the line
        self.raw, self.scratch = work_arrays()
        # an NNUE's accumulator for each ply of the line being searched (one number otherwise)
        self.acc = np.zeros((MAX_PLY + 1, 2, acc_width), dtype=np.float64)
        # the principal variation of each ply's node (row p from column p), and where each row ends
        self.pv = np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int32)
        self.pv_len = np.zeros(MAX_PLY + 1, dtype=np.int64)


def _helper_search(ctx: SearchContext, shared: NodeState, stats: np.ndarray, root_moves: np.ndarray, max_depth: int,
                   offset: int, found: np.ndarray, main_stats: np.ndarray, start: threading.Event) -> None:
    """A Lazy SMP helper thread: once ``start`` is set (every helper is handed out), deepen, ``offset`` plies
    ahead of the main thread (``main_stats``), until its ``halt`` flag (``shared``'s stop: the main thread is
    done, or :func:`~sumito.stopping.request_stop`) or its clock stops it. What it finds reaches the main
    thread through the transposition table, and its deepest completed iteration through ``found`` (depth,
    move, score): when the main thread ends a depth short of it, the helper's move is the better informed one
    (Stockfish's best-thread choice)."""
    start.wait()
    moves, scores, n = shared.moves, shared.root_scores, len(root_moves)
    root_moves = root_moves.copy()
    depth = offset
    while True:
        # ``offset`` plies ahead of the main thread: a helper that fell behind it (the main thread gains
        # from the table entries the helper made) skips to there, rather than repeating the main's work
        depth = max(depth + 1, int(main_stats[ROOT_DEPTH]) + offset)
        if depth > max_depth:
            return
        stats[ROOT_DEPTH] = depth
        stats[BEST] = -1
        stats[ROOT_COUNT] = n
        scores[:] = -np.inf
        moves[0, :n] = root_moves
        pvs_node(ctx.board, ctx.side, ctx.lost, depth, -np.inf, np.inf, 0, ctx.hash, False, shared)
        if stats[ABORTED] or stats[BEST] < 0:
            return
        best = int(stats[BEST])
        found[0], found[1], found[2] = depth, root_moves[best], scores[best]
        # the next iteration searches the best move first, the rest by this one's scores, as the main thread
        order = np.argsort(-scores, kind="stable")
        root_moves = root_moves[order]


def _deeper_helper(found: list[np.ndarray], depth_done: int) -> np.ndarray | None:
    """Of the helpers' deepest completed iterations (depth, move, score), the deepest when it is deeper
    than the main thread's ``depth_done`` (the first such helper on a tie); else None."""
    deepest = max(found, key=lambda f: f[0], default=None)
    return deepest if deepest is not None and int(deepest[0]) > depth_done else None


#: a draw rule that is off: further than any line reaches
NO_LIMIT = 1 << 40


def _draw_limits(draw: DrawCounters | None, rules: int) -> tuple[int, int, int]:
    """The search's view of the draw rules: plies from the root to the ply cap, the no-capture limit
    (plies without a push-off at which a line is drawn) and how many earlier occurrences of a position
    make a draw (threefold repetition: 2; a repetition inside the search is a draw at once). Without
    ``draw``, threefold repetition alone; with ``rules`` 0 (kept to measure against), any repetition."""
    if not rules:
        return NO_LIMIT, NO_LIMIT, 1
    if draw is None:
        return NO_LIMIT, NO_LIMIT, 2
    left, limit, repetitions = draw.plies_left, draw.rules.no_capture_plies, draw.rules.repetitions
    return ((NO_LIMIT if left is None else left), (NO_LIMIT if limit is None else limit),
            (NO_LIMIT if repetitions is None else repetitions - 1))


@dataclass(frozen=True)
class PVLine:
    """One root move's line: the move, its exact score for the side to move and the line after it."""

    move: int
    score: float
    pv: list[int]


class SearchResult:
    """What one search found: the move, its score, the depth completed and the effort.

    ``lines`` holds the MultiPV lines, best first (``lines[0]`` is ``move``, ``score`` and ``pv``);
    one line when the search ran with ``multipv=1``. A per-iteration callback receives one of these
    for each completed iteration, with the nodes and seconds spent so far.
    """

    __slots__ = ("depth", "lines", "move", "nodes", "pv", "score", "seconds")

    def __init__(
        self,
        move: int,
        score: float,
        depth: int,
        nodes: int,
        seconds: float,
        pv: list[int],
        lines: list[PVLine] | None = None,
    ) -> None:
        self.move = move
        self.score = score
        self.depth = depth
        self.nodes = nodes
        self.seconds = seconds
        self.pv = pv
        self.lines = lines if lines is not None else [PVLine(move, score, pv)]

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def __repr__(self) -> str:
        more = f", lines={len(self.lines)}" if len(self.lines) > 1 else ""
        return (f"SearchResult(move={self.move}, score={self.score:g}, depth={self.depth}, nodes={self.nodes}, "
                f"seconds={self.seconds:.3f}, pv={self.pv}{more})")


def mate_plies(score: float) -> int | None:
    """For a won or lost score (beyond ``WIN_BOUND``) the plies to the end of the game, else ``None``.

    A win found at ply ``p`` scores ``WIN - p`` (a loss ``-(WIN - p)``), so that quicker wins score higher.
    """
    if abs(score) <= WIN_BOUND:
        return None
    return round(WIN - abs(score))


def mate_moves(score: float) -> int | None:
    """UCI's ``score mate N``: the side to move wins in ``N`` of its own moves (``N > 0``) or loses
    after ``-N`` of the opponent's (``N < 0``); ``None`` when the score is not a won or lost game."""
    plies = mate_plies(score)
    if plies is None:
        return None
    return (plies + 1) // 2 if score > 0 else -(plies // 2)


class Searcher:
    """Iterative deepening over :func:`pvs_node`, keeping its tables from one move to the next."""

    def __init__(self, kind: int, params: np.ndarray, hash_entries: int = 1 << 20, contempt: float = 0.0,
                 aspiration: float = 0.0, prune: int = DEFAULT_PRUNE, threats: int = DEFAULT_THREATS,
                 rules: int = DEFAULT_RULES, threads: int = 1, trade: float = 0.0,
                 trade_after: int = DEFAULT_TRADE_AFTER, trade_above: float | None = None, press: float = 0.0,
                 press_after: int = DEFAULT_PRESS_AFTER, contempt_lead: float = 0.0) -> None:
        if hash_entries & (hash_entries - 1):
            raise ValueError("the number of hash entries must be a power of two")
        if prune not in (0, 1):
            raise ValueError(f"the search level prune must be 0 or 1, not {prune}")
        if threats not in (0, 1):
            raise ValueError(f"threats must be 0 or 1, not {threats}")
        if rules not in (0, 1):
            raise ValueError(f"rules must be 0 or 1, not {rules}")
        if not (math.isfinite(trade) and trade >= 0):
            raise ValueError(f"trade must be a finite number of points, at least 0, not {trade}")
        if trade_after < 0:
            raise ValueError(f"trade_after must be a number of plies, at least 0, not {trade_after}")
        if trade_above is not None and not math.isfinite(trade_above):
            raise ValueError(f"trade_above must be a finite number of points, not {trade_above}")
        if not (math.isfinite(press) and press >= 0):
            raise ValueError(f"press must be a finite number of points, at least 0, not {press}")
        if not (math.isfinite(contempt_lead) and contempt_lead >= 0):
            raise ValueError(f"contempt_lead must be a finite number of points, at least 0, not {contempt_lead}")
        if press_after < 0:
            raise ValueError(f"press_after must be a number of plies, at least 0, not {press_after}")
        self.kind = kind
        self.contempt = contempt  # what a draw (repetition, no moves) costs the searching side
        # aspiration windows: from ASPIRATION_DEPTH on, each iteration first searches the previous score
        # ± this many points (0: always the full window), widening fourfold on each failure
        self.aspiration = aspiration
        # 0: null-window nodes searched as PV nodes (no table cutoffs, no null moves), kept to measure
        # against; 1: with them
        self.prune = prune
        # 1: a side a marble from losing with a push-off against it is "in check": extended in the
        # search, every reply tried in quiescence, where threats against a last marble are played too
        self.threats = threats
        # 1: the game's draw rules as the game counts them (threefold repetition, the ply cap, the
        # no-capture limit); 0: any repetition is a draw and nothing else (kept to measure against)
        self.rules = rules
        # converting: each marble off the board is worth this many points to the side ahead (0: off)
        self.trade = trade
        # ... once the game has gone this many plies without a push-off (0: always): a stalled game that a
        # trade would take nearer the win, not the open play where trading gives marbles away
        self.trade_after = trade_after
        # ... and only while this side's own last search scored at least this many points (None: always):
        # trading pays against a player the search already sees itself far ahead of, not against an equal
        # one whose position makes up for the marbles
        self.trade_above = trade_above
        self._last_root: tuple[int, float] | None = None  # (side, score) of the last search
        self._trade_now = trade  # what this search uses (set by search() from the game's counters)
        # converting a stalled game: each push the side to move has beyond the other's is worth this many
        # points (0: off), once the game has gone press_after plies without a push-off with the side
        # searching PRESS_LEAD or more marbles up: against a group that only waits, the pushes lead in
        self.press = press
        self.press_after = press_after
        self._press_now = 0.0
        # a draw costs this much more for each marble the side searching leads by
        self.contempt_lead = contempt_lead
        self._contempt_now = contempt
        self.params = np.ascontiguousarray(params, dtype=np.float64)
        self.tt_keys = np.zeros(hash_entries, dtype=np.uint64)
        self.tt_info = np.zeros(hash_entries, dtype=np.int32)  # move, depth and bound kind in one
        self.tt_scores = np.zeros(hash_entries, dtype=np.float64)
        self._tt_bits = self.tt_scores.view(np.uint64)  # the scores' bits, which an entry's key is mixed with
        self._table_mapped = False  # whether warm_up has had the kernel map the table's memory
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be from 1 to {MAX_THREADS}, not {threads}")
        # thread 0 searches and decides; the others (Lazy SMP) search the same root and fill the shared table
        self._threads = [_ThreadState(self._acc_width()) for _ in range(threads)]
        self._helpers: ThreadPoolExecutor | None = None
        self.helper_chosen = False  # whether the last search took a helper thread's deeper move
        main = self._threads[0]
        self.history, self.moves, self.since, self.orders = main.history, main.moves, main.since, main.orders
        self.raw, self.scratch, self.acc = main.raw, main.scratch, main.acc
        self._pv_buf = np.empty(MAX_MOVES, dtype=np.int32)  # principal_variation's move list
        self._searched: list[int] = []  # the main thread's line of the last finished root search

    @property
    def threads(self) -> int:
        return len(self._threads)

    def _params_slots(self) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """The parameters in :func:`pvs_node`'s three evaluation slots (NNUE, value network, hand-set)."""
        p = self.params
        return (p, None, None) if self.kind == EVAL_NNUE else (None, p, None) if self.kind == EVAL_NETWORK else (
            None, None, p)

    def _acc_width(self) -> int:
        return int(self.params[1]) + 1 if self.kind == EVAL_NNUE else 1  # H, then the PSQT sum

    def set_params(self, params: np.ndarray) -> None:
        """Search with other parameters of the same evaluation kind from now on (a network fitted
        to another board, refreshed weights)."""
        self.params = np.ascontiguousarray(params, dtype=np.float64)
        if self.acc.shape[2] != self._acc_width():
            for state in self._threads:
                state.acc = np.zeros((MAX_PLY + 1, 2, self._acc_width()), dtype=np.float64)
            self.acc = self._threads[0].acc

    def clear(self) -> None:
        self.tt_keys[:] = 0
        self._last_root = None
        for state in self._threads:
            state.history[:] = 0
            state.history[:, KILLERS:] = -1

    def search(
        self,
        ctx: SearchContext,
        root_moves: np.ndarray,
        max_depth: int = 64,
        seconds: float | None = None,
        history: np.ndarray | None = None,
        predict: bool = True,
        multipv: int = 1,
        on_iteration: Callable[[SearchResult], None] | None = None,
        quick_single: bool = True,
        draw: DrawCounters | None = None,
        nodes: int | None = None,
    ) -> SearchResult:
        """Deepen until ``max_depth`` plies, until ``seconds`` run out or until the main thread has
        searched ``nodes`` nodes; ``root_moves`` non-empty.

        ``history`` holds the Zobrist hashes of the game's earlier positions (oldest first), so
        that repeating one of them scores a draw. With ``predict`` (the default, for play) no new
        iteration starts once 45% of the time is gone, as it would most likely not finish; without
        it (benchmarks), and with helper threads (whose deeper iteration may finish), iterations run
        until the clock stops one.

        ``multipv`` > 1 finds the best ``multipv`` root moves with exact scores: each iteration
        searches the root with a full window, then again without the moves already found, and so on
        (as Stockfish does); with 1 the search is the plain single-PV one. ``on_iteration`` is called
        (in the searching thread) after each completed iteration with what it found so far; it runs
        between iterations, never inside the compiled search. With ``quick_single`` (play) a single
        root move is answered at depth 1; without it (analysis) it is scored to the full depth.
        ``draw`` (the game's draw rules and counters) lets the search score a position beyond the
        ply cap or the no-capture limit as the draw it is.
        """
        if seconds is not None:
            self.warm_up(ctx, root_moves)
        start, compiled = time.perf_counter(), compile_seconds()
        deadline = start + seconds if seconds is not None else 0.0
        past = np.zeros(0, dtype=np.uint64) if history is None else np.asarray(history, dtype=np.uint64)
        path = np.zeros(len(past) + MAX_PLY + 1, dtype=np.uint64)
        path[: len(past)] = past
        root_moves = np.array(root_moves, dtype=np.int32)
        n_root = len(root_moves)
        multipv = max(1, min(int(multipv), n_root))
        stats = np.zeros(STATS_SLOTS, dtype=np.int64)
        if nodes is not None:
            stats[NODE_LIMIT] = max(1, int(nodes))
        for state in self._threads:
            state.history[:, :KILLERS] //= 8  # age the history counts between moves
            state.history[:, KILLERS:] = -1
        if n_root == 1 and quick_single:
            max_depth = min(max_depth, 1)
        iteration_scores = np.empty(n_root, dtype=np.float64)
        limits = _draw_limits(draw, self.rules)
        quiet_plies = 0 if draw is None or not self.rules else draw.quiet_plies
        stalled = 0 if draw is None else draw.quiet_plies
        confident = self.trade_above is None or (
            self._last_root is not None and self._last_root[0] == ctx.side and self._last_root[1] >= self.trade_above)
        self._trade_now = self.trade if stalled >= self.trade_after and confident else 0.0
        lead = int(ctx.lost[2 - ctx.side]) - int(ctx.lost[ctx.side - 1])
        self._press_now = self.press if stalled >= self.press_after and lead >= PRESS_LEAD else 0.0
        self._contempt_now = self.contempt + self.contempt_lead * max(lead, 0)
        shared = self._shared(ctx, self._threads[0], path, len(past), stats, deadline, iteration_scores, STOP, limits,
                              quiet_plies)
        # the helpers' flag: set when the main thread is done, and by request_stop (the protocol's stop, Ctrl-C)
        # at the same moment as the main thread's, so that a stop never waits for the main thread to get a
        # core among many busy helpers before they hear of it
        halt = np.zeros(1, dtype=np.int64)
        with linked_stop(halt):
            helpers = self._start_helpers(ctx, root_moves, max_depth, path, len(past), deadline, limits, quiet_plies,
                                          stats, halt)
            try:
                best_move, best_score, depth_done, lines = self._deepen(
                    ctx, root_moves, max_depth, seconds, start, predict, multipv, on_iteration, shared, stats,
                    iteration_scores, helpers)
            finally:
                self._stop_helpers(helpers)
        deeper = _deeper_helper([h[3] for h in helpers], depth_done) if multipv == 1 else None
        self.helper_chosen = deeper is not None and abs(best_score) < WIN_BOUND
        if self.helper_chosen:
            depth_done, best_move, best_score = int(deeper[0]), int(deeper[1]), float(deeper[2])
            lines = []
        nodes = int(stats[NODES]) + sum(int(h[1][NODES]) for h in helpers)
        # a fresh install compiles the search inside its first call: that time is not the search's
        seconds_used = max(time.perf_counter() - start - (compile_seconds() - compiled), 1e-6)
        if not lines or lines[0].move != best_move:
            lines = [PVLine(best_move, best_score, self.principal_variation(ctx, best_move))]
        self._last_root = (ctx.side, best_score)
        _LOADED.add(self.kind)
        return SearchResult(best_move, best_score, depth_done, nodes, seconds_used, lines[0].pv, lines)

    def warm_up(self, ctx: SearchContext, root_moves: np.ndarray) -> None:
        """Load this evaluation's compiled search into the process (from numba's cache; a compile on a
        fresh install) with a depth-2 search of ``root_moves`` under a clock that never runs out, and have
        the kernel map this searcher's table: one-time costs never count against a move's time. A timed
        search does this by itself; the protocol's ``isready`` and the arena's workers call it before a game.
        The search is a throwaway small searcher's of the same kind (the same compiled code), made once a
        process, so this one's table (up to 4 GB) is neither searched nor emptied. Its memory, which the
        kernel maps (and zeroes, 2 MB at a time where numpy asks for huge pages: tens of ms for the default
        table) at the first write to each page, is mapped once a table, by a write to each page of what it
        holds: its cost grows with the table's size (about a second for 1 GB), what the table holds is kept."""
        if not self._table_mapped:
            for table in (self.tt_keys, self.tt_info, self._tt_bits):
                table[:: max(1, 4096 // table.itemsize)] |= 0
            self._table_mapped = True
        if self.kind in _LOADED:
            return
        _LOADED.add(self.kind)  # (the throwaway's timed search below warms up no further)
        try:
            # depth 2 under a clock that never runs out: the clock's object-mode call inside the search
            # (_tick's clock_now, made from depth 2 on), which numba compiles in each process (30-60 ms), is
            # compiled here too, not in the first move's time
            Searcher(self.kind, self.params, 1 << 10).search(ctx, root_moves, max_depth=2, seconds=1e6,
                                                             quick_single=False)
        except BaseException:
            _LOADED.discard(self.kind)
            raise
        clock_now()  # the clock's object-mode call from Python, which numba compiles apart

    def _shared(self, ctx: SearchContext, state: _ThreadState, path: np.ndarray, path_base: int, stats: np.ndarray,
                deadline: float, root_scores: np.ndarray, stop: np.ndarray, limits: tuple[int, int, int],
                quiet_plies: int) -> NodeState:
        """What every node of one thread's search needs (:func:`pvs_node`'s ``shared``): the board's tables, the
        evaluation, the shared transposition table and the thread's own arrays."""
        state.since[0] = quiet_plies
        nnue_params, net_params, hand_params = self._params_slots()
        plies_left, quiet_limit, repeat_need = limits
        return NodeState(
            win=ctx.win, inline_only=ctx.inline_only, cells=ctx.cells, offsets=ctx.offsets, ring=ctx.ring,
            edge_ring=ctx.edge_ring, edge_cells=ctx.edge_cells, zobrist=ctx.zobrist,
            kind=self.kind, nnue_params=nnue_params, net_params=net_params, hand_params=hand_params,
            tt_keys=self.tt_keys, tt_info=self.tt_info, tt_scores=self.tt_scores,
            history=state.history, path=path, path_base=path_base,
            moves=state.moves, orders=state.orders, raw=state.raw, scratch=state.scratch,
            stats=stats, deadline=deadline, root_scores=root_scores, root_side=ctx.side,
            contempt=float(self._contempt_now), stop=stop, acc=state.acc, prune=int(self.prune),
            threats=int(self.threats),
            since=state.since, plies_left=plies_left, quiet_limit=quiet_limit, repeat_need=repeat_need,
            tt_bits=self._tt_bits, trade=float(self._trade_now), pv=state.pv, pv_len=state.pv_len,
            press=float(self._press_now),
        )

    def _start_helpers(self, ctx: SearchContext, root_moves: np.ndarray, max_depth: int, path: np.ndarray,
                       path_base: int, deadline: float, limits: tuple[int, int, int], quiet_plies: int,
                       main_stats: np.ndarray, halt: np.ndarray) -> list:
        """Lazy SMP: each helper thread deepens the same root on its own copy of the board (every other one
        a ply ahead, its root moves in another order) until ``halt`` is set, and shares what it finds through
        the transposition table. Returns (future, stats, halt, found) a helper. The helpers begin together
        once all are handed out: a helper that searched at once would take the cores and the interpreter
        from this thread while it starts the next ones (seconds, with many more threads than cores)."""
        if len(self._threads) == 1 or max_depth < 2 or len(root_moves) < 2:
            return []
        if self._helpers is None:
            self._helpers = ThreadPoolExecutor(len(self._threads) - 1, thread_name_prefix="sumito-search")
        start = threading.Event()
        helpers = []
        try:
            for k, state in enumerate(self._threads[1:], 1):
                stats = np.zeros(STATS_SLOTS, dtype=np.int64)
                helper_ctx = SearchContext(**{**ctx.__dict__, "board": ctx.board.copy(), "lost": ctx.lost.copy()})
                scores = np.empty(len(root_moves), dtype=np.float64)
                shared = self._shared(helper_ctx, state, path.copy(), path_base, stats, deadline, scores, halt, limits,
                                      quiet_plies)
                moves = np.roll(root_moves, -k)  # another first move for each helper: they part ways at once
                found = np.zeros(3, dtype=np.float64)  # the helper's deepest completed iteration: depth, move, score
                future = self._helpers.submit(_helper_search, helper_ctx, shared, stats, moves, max_depth, k % 2, found,
                                              main_stats, start)
                helpers.append((future, stats, halt, found))
        except BaseException:
            halt[0] = 1  # starting one failed (no thread to be had): those started end at once
            raise
        finally:
            start.set()
        return helpers

    @staticmethod
    def _stop_helpers(helpers: list) -> None:
        for _, _, halt, _ in helpers:
            halt[0] = 1
        for future, _, _, _ in helpers:
            future.result()

    def _deepen(self, ctx: SearchContext, root_moves: np.ndarray, max_depth: int, seconds: float | None,
                start: float, predict: bool, multipv: int, on_iteration: Callable[[SearchResult], None] | None,
                shared: NodeState, stats: np.ndarray, iteration_scores: np.ndarray,
                helpers: list) -> tuple[int, float, int, list[PVLine]]:
        """The main thread's iterative deepening: the best move, its score, the depth completed and the lines."""
        n_root = len(root_moves)
        scores = np.zeros(n_root, dtype=np.float64)
        best_move, best_score, depth_done = int(root_moves[0]), 0.0, 0
        lines: list[PVLine] = []
        for depth in range(1, max(1, max_depth) + 1):
            stats[ROOT_DEPTH] = depth
            if multipv == 1:
                iteration_scores[:] = -np.inf
                stats[BEST] = -1
                stats[ROOT_COUNT] = n_root
                self.moves[0, :n_root] = root_moves
                self._aspirated_iteration(ctx, depth, best_score, shared, stats, iteration_scores)
                index = int(stats[BEST])
                if stats[ABORTED]:
                    # a move that beat the previous best in the unfinished iteration is still better
                    if index > 0:
                        best_move, best_score = int(root_moves[index]), float(iteration_scores[index])
                        lines = []
                    break
                best_move, best_score, depth_done = int(root_moves[index]), float(iteration_scores[index]), depth
                self._keep_line()
                scores[:] = iteration_scores
                # next iteration: best move first, the rest by this iteration's scores
                order = np.argsort(-scores, kind="stable")
                root_moves, scores = root_moves[order], scores[order]
                lines = []
                if on_iteration is not None:
                    lines = [PVLine(best_move, best_score, self.principal_variation(ctx, best_move))]
            else:
                found = self._multipv_iteration(
                    ctx, root_moves, scores, depth, multipv, shared, stats, iteration_scores
                )
                if found is None:
                    break  # aborted: the previous iteration's lines stand
                lines, root_moves, scores = found
                best_move, best_score, depth_done = lines[0].move, lines[0].score, depth
            elapsed = time.perf_counter() - start
            if on_iteration is not None:
                pv = lines[0].pv
                nodes = int(stats[NODES]) + sum(int(h[1][NODES]) for h in helpers)
                on_iteration(SearchResult(best_move, best_score, depth, nodes, elapsed, pv, lines))
            if multipv == 1 and abs(best_score) > WIN_BOUND:
                break  # a forced win or loss is found: deeper search cannot change it
            if multipv > 1 and all(abs(line.score) > WIN_BOUND for line in lines):
                break  # every line is a forced win or loss
            # the next iteration would most likely not finish: 45% of the time (or of the node budget,
            # which stands for a clock that does not depend on the load) is spent
            past_time = seconds is not None and elapsed > 0.45 * seconds
            past_nodes = stats[NODE_LIMIT] > 0 and stats[NODES] > 0.45 * stats[NODE_LIMIT]
            if predict and not helpers and (past_time or past_nodes):
                break
        return best_move, best_score, depth_done, lines

    def _aspirated_iteration(self, ctx: SearchContext, depth: int, previous: float, shared: NodeState,
                             stats: np.ndarray, iteration_scores: np.ndarray) -> None:
        """One single-PV iteration at the root: in a window around ``previous`` (aspiration), searched again
        with a wider window while the score falls outside it, or with the full window."""
        alpha, beta = -np.inf, np.inf
        delta = self.aspiration
        if delta > 0 and depth >= ASPIRATION_DEPTH and abs(previous) < WIN_BOUND:
            alpha, beta = previous - delta, previous + delta
        while True:
            call_stoppable(pvs_node, ctx.board, ctx.side, ctx.lost, depth, alpha, beta, 0, ctx.hash, False, shared)
            if stats[ABORTED] or stats[BEST] < 0:
                return
            score = float(iteration_scores[int(stats[BEST])])
            if alpha < score < beta or (alpha == -np.inf and beta == np.inf):
                return
            delta *= 4
            if score <= alpha:
                alpha = previous - delta if delta < ASPIRATION_FULL else -np.inf
            if score >= beta:
                beta = previous + delta if delta < ASPIRATION_FULL else np.inf
            iteration_scores[:] = -np.inf
            stats[BEST] = -1

    def _multipv_iteration(
        self,
        ctx: SearchContext,
        root_moves: np.ndarray,
        scores: np.ndarray,
        depth: int,
        multipv: int,
        shared: NodeState,
        stats: np.ndarray,
        iteration_scores: np.ndarray,
    ) -> tuple[list[PVLine], np.ndarray, np.ndarray] | None:
        """One MultiPV iteration: the best move with a full window, then the best of the rest, and so
        on ``multipv`` times; each search's best score is exact. ``None`` when the clock or ``stop``
        cut it short. Returns the lines and the root moves reordered for the next iteration (the
        lines first, then the others by the bounds the last search gave them)."""
        n_root = len(root_moves)
        rest, rest_scores = root_moves.copy(), scores.copy()
        lines: list[PVLine] = []
        for _ in range(multipv):
            count = len(rest)
            iteration_scores[:] = -np.inf
            stats[BEST] = -1
            stats[ROOT_COUNT] = count
            self.moves[0, :count] = rest
            call_stoppable(pvs_node, ctx.board, ctx.side, ctx.lost, depth, -np.inf, np.inf, 0, ctx.hash, False, shared)
            if stats[ABORTED]:
                return None
            index = int(stats[BEST])
            move, score = int(rest[index]), float(iteration_scores[index])
            # the line now, before a later search (of other moves) overwrites it
            self._keep_line()
            lines.append(PVLine(move, score, self.principal_variation(ctx, move)))
            rest_scores = iteration_scores[:count].copy()
            keep = np.arange(count) != index
            rest, rest_scores = rest[keep], rest_scores[keep]
        # a later search (of fewer moves, with a fuller table) can score a move above an earlier line,
        # which a pruned null-window test had put below: sort, as Stockfish does, so best comes first
        lines.sort(key=lambda line: -line.score)
        order = np.argsort(-rest_scores, kind="stable")
        new_moves = np.empty(n_root, dtype=np.int32)
        new_scores = np.empty(n_root, dtype=np.float64)
        new_moves[:multipv] = [line.move for line in lines]
        new_scores[:multipv] = [line.score for line in lines]
        new_moves[multipv:] = rest[order]
        new_scores[multipv:] = rest_scores[order]
        return lines, new_moves, new_scores

    def _keep_line(self) -> None:
        """Keep the main thread's principal variation of the root search just finished."""
        state = self._threads[0]
        self._searched = [int(m) for m in state.pv[0, : state.pv_len[0]]]

    def principal_variation(self, ctx: SearchContext, first: int, limit: int = 12) -> list[int]:
        """The line after ``first``: the one the last finished search saw, when it starts with ``first``,
        then, to ``limit`` plies, what the table predicts (each move checked for legality)."""
        board, side, h = ctx.board.copy(), ctx.side, ctx.hash
        searched = self._searched if self._searched[:1] == [first] else [first]
        limit = max(limit, len(searched))
        line = [first]
        mv = first
        seen = {int(h)}
        buf = self._pv_buf  # not moves[0]: that holds the root moves between MultiPV searches
        while True:
            delta = make_move(board, np.int32(mv), side, ctx.offsets, ctx.zobrist)
            h = np.uint64(h ^ delta)
            side = 3 - side
            if len(line) >= limit or int(h) in seen:
                break
            seen.add(int(h))
            if len(line) < len(searched):
                mv = searched[len(line)]
            else:
                slot = int(h) & (len(self.tt_keys) - 1)
                if self.tt_keys[slot] ^ self._tt_bits[slot] ^ np.uint64(int(self.tt_info[slot])) != h:
                    break
                mv = int(self.tt_info[slot]) >> TT_MOVE_SHIFT
            n = generate_moves(board, side, ctx.offsets, ctx.cells, ctx.inline_only, buf)
            if mv not in buf[:n]:
                break
            line.append(mv)
        return line
