"""The compiled principal-variation search (negamax): the node kernel :func:`pvs_node` and what it calls — the
transposition table's score conversions, move ordering, the clock check, repetitions, static evaluation with
the NNUE's accumulators, the principal variation, and the quiet checks of the threat search.

:func:`pvs_node` searches one node in numbered steps (the comments ``Step N.`` in its body), as a chess engine's:

1. an aborted search unwinds at once;
2. the game's end and its draws (a side pushed off to the win, a repetition, the ply cap, plies without a push-off);
3. check: the side to move a marble from losing, with a push-off against it;
4. quiescence at the horizon: push-offs only (every reply in check), standing pat otherwise;
5. the check extension;
6. the transposition table: its move for ordering, its bound for a cutoff in a non-PV node;
7. the null move;
8. the moves, generated and ordered;
9. the moves in turn: leaves scored in place, late quiet moves reduced, null windows re-searched, killers and
   history updated at a cutoff;
10. the result into the table, with its bound kind.

:mod:`sumito.search.pvs` drives it (iterative deepening, aspiration windows, MultiPV, Lazy SMP threads,
the time limit) from Python; the kernels are their own module so that each file reads as one thing: this one
the search of one node, that one the search of one move.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np

from sumito.evaluation.features import evaluate_hand_set, nnue_base
from sumito.evaluation.learned import network_score
from sumito.evaluation.nnue import copy_accumulator, nnue_output, refresh_accumulator, update_accumulator
from sumito.games.abalone.kernels import (
    PUSH_OFF_BIT,
    PUSH_SHIFT,
    count_pushes,
    generate_moves,
    generate_push_offs,
    has_push_off,
    make_move,
    unmake_move,
)
from sumito.jit import njit, objmode
from sumito.search.context import MAX_PLY, WIN, WIN_BOUND

EXACT, LOWER, UPPER = 1, 2, 3
ASPIRATION_DEPTH = 5  # shallower iterations are too cheap to gain from a narrow window
ASPIRATION_FULL = 16_000.0  # a window wider than this (16 marbles) is the full one
HISTORY_SIZE = 1 << 15  # history is indexed by the move's start, direction, count and broadside bits
KILLERS = HISTORY_SIZE  # the killer moves live in the history array after the counts
NULL_REDUCTION = 2
#: the most a static evaluation may say: below every score a search proves a win or loss with
STATIC_LIMIT = WIN_BOUND - 1.0
NULL_WINDOW = 1e-6  # the width of a null-window (zero-window) search; scores are float64
QUIESCENCE_PLIES = 8
#: the quiescence plies (from the horizon) in which a side plays quiet moves that threaten to push off
#: the opponent's last marble, besides its push-offs: "checks" in the quiescence search
QUIET_CHECK_PLIES = 1

# stats slots
NODES, ABORTED, QNODES, TT_HITS, BEST, NEXT_CHECK, ROOT_COUNT, ROOT_DEPTH, NODE_LIMIT = range(9)
STATS_SLOTS = 9
TT_MOVE_SHIFT = 9  # a table entry's info: move << 9 | depth << 2 | bound kind


@njit(cache=True)
def clock_now():
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def _score_to_tt(score, ply):
    if score > WIN_BOUND:
        return score + ply
    if score < -WIN_BOUND:
        return score - ply
    return score


@njit(cache=True)
def _score_from_tt(score, ply):
    if score > WIN_BOUND:
        return score - ply
    if score < -WIN_BOUND:
        return score + ply
    return score


@njit(cache=True)
def _tick(stats, deadline, stop):
    stats[NODES] += 1
    if stop[0]:  # Ctrl-C, the protocol's stop or a server's deadline (sumito.stopping)
        stats[ABORTED] = 1
    elif stats[NODE_LIMIT] > 0 and stats[NODES] >= stats[NODE_LIMIT]:
        stats[ABORTED] = 1  # the node budget (``nodes=``) is spent
    elif deadline > 0.0 and stats[NODES] >= stats[NEXT_CHECK] and stats[ROOT_DEPTH] > 1:
        # the clock never stops the first iteration (a few hundred nodes): every move is searched
        stats[NEXT_CHECK] = stats[NODES] + 1024
        if clock_now() > deadline:
            stats[ABORTED] = 1


@njit(cache=True)
def _repeats(path, k, h, base, need):
    """Whether hash ``h`` (at ``path[k]``) repeats a position with the same side to move as a draw: once
    after the root (``path[base]``; a cycle inside the search), or ``need`` times in all (the game's rule:
    2 for threefold repetition), as Stockfish counts them."""
    j = k - 2
    count = 0
    while j >= 0:
        if path[j] == h:
            count += 1
            if j > base or count >= need:
                return True
        j -= 2
    return False


@njit(cache=True)
def _order(buf, n, order, tt_move, history, side, ply):
    for i in range(n):
        mv = buf[i]
        if mv == tt_move:
            s = 1 << 40
        elif mv & PUSH_OFF_BIT:
            s = (1 << 36) + ((mv >> PUSH_SHIFT) & 3)
        elif (mv >> PUSH_SHIFT) & 3:
            s = (1 << 33) + ((mv >> PUSH_SHIFT) & 3)
        elif mv == history[0, KILLERS + ply]:
            s = 1 << 31
        elif mv == history[1, KILLERS + ply]:
            s = (1 << 31) - 1
        else:
            s = history[side - 1, mv & (HISTORY_SIZE - 1)]
        order[i] = s


@njit(cache=True)
def _pick(buf, order, i, n):
    """Selection sort one step: bring the best-ordered remaining move to position ``i``."""
    best = i
    for j in range(i + 1, n):
        if order[j] > order[best]:
            best = j
    if best != i:
        t = buf[i]
        buf[i] = buf[best]
        buf[best] = t
        o = order[i]
        order[i] = order[best]
        order[best] = o
    return buf[i]


# The evaluation's parameters reach the search in one of three slots, the other two None: an NNUE's,
# a value network's, or a hand-set evaluation's. numba removes a branch on ``x is not None`` when the
# argument x is None, so each family's search is compiled on its own, with only that family's code:
# a fresh install compiles the NNUE's evaluation for the default engine, not every evaluation's.


@njit(cache=True)
def _static(board, side, lost, cells, ring, offsets, edge_ring, kind, nnue_params, net_params, hand_params, raw,
            scratch, acc, ply, trade, press):
    """The static evaluation of the node at ``ply``: an NNUE's from the accumulator the search keeps
    for that ply, any other evaluation's from the board; with ``trade`` > 0 (converting), plus that much
    a marble off the board for the side that has pushed off more (minus it for the other side); with ``press``
    > 0 (converting a stalled game), plus that much for each push the side to move has beyond the other's."""
    if nnue_params is not None:
        value = nnue_output(acc[ply], side, lost[0], lost[1], nnue_params, scratch) + nnue_base(
            board, side, lost[0], lost[1], cells, ring, offsets, edge_ring, nnue_params, raw)
    elif net_params is not None:
        value = network_score(board, side, lost[0], lost[1], cells, ring, offsets, net_params, scratch)
    elif hand_params is not None:
        value = evaluate_hand_set(board, side, lost[0], lost[1], cells, ring, offsets, edge_ring, kind, hand_params,
                                  raw, scratch)
    else:
        value = 0.0
    if trade > 0.0:
        # the side ahead gains by every marble that leaves the board, its own included: a trade takes it
        # nearer the win (5-2 after 4-1), and attacking at the price of a marble is worth it
        mine, theirs = lost[side - 1], lost[2 - side]
        if theirs > mine:
            value += trade * (mine + theirs)
        elif mine > theirs:
            value -= trade * (mine + theirs)
    if press > 0.0:
        # pushes available are the way into a turtled group: a search whose horizon holds no push-off
        # still sees which quiet move brings its lines against the group's thin edge
        value += press * (count_pushes(board, side, offsets, cells) - count_pushes(board, 3 - side, offsets, cells))
    # an evaluation is never a proven result: a network whose outputs add up past the win scores (weights
    # each within the loaders' bound, many of them large) would otherwise report a forced win and stop
    return min(max(value, -STATIC_LIMIT), STATIC_LIMIT)


@njit(cache=True)
def _refresh(board, cells, nnue_params, acc):
    """An NNUE search's accumulator at the root (nothing for another evaluation)."""
    if nnue_params is not None:
        refresh_accumulator(board, cells, nnue_params, acc)


@njit(cache=True)
def _update(parent, child, move, side, offsets, nnue_params):
    """An NNUE search's accumulator after ``move`` (nothing for another evaluation)."""
    if nnue_params is not None:
        update_accumulator(parent, child, move, side, offsets, nnue_params)


@njit(cache=True)
def _copy(parent, child, nnue_params):
    """An NNUE search's accumulator after a pass (nothing for another evaluation)."""
    if nnue_params is not None:
        copy_accumulator(parent, child)


@njit(cache=True)
def _extend_pv(pv, pv_len, ply, mv):
    """``mv`` raised alpha at ``ply``: this node's line is ``mv`` and then its child's line (a triangular
    principal-variation table, as Stockfish keeps one: the line the search saw, which a walk through
    the transposition table loses where another position has taken an entry since)."""
    pv[ply, ply] = mv
    end = pv_len[ply + 1]
    if end < ply + 1:
        end = ply + 1
    for j in range(ply + 1, end):
        pv[ply, j] = pv[ply + 1, j]
    pv_len[ply] = end


@njit(cache=True)
def _add_quiet_checks(board, side, offsets, cells, edge_cells, inline_only, zobrist, buf, n, scratch):
    """Append to ``buf[:n]`` (the push-offs) the quiet moves after which ``side`` has a push-off: the
    threats against an opponent a marble from losing. ``scratch`` takes the full move list."""
    total = generate_moves(board, side, offsets, cells, inline_only, scratch)
    for i in range(total):
        mv = scratch[i]
        if mv & PUSH_OFF_BIT:
            continue
        make_move(board, mv, side, offsets, zobrist)
        threat = has_push_off(board, side, offsets, edge_cells)
        unmake_move(board, mv, side, offsets)
        if threat:
            buf[n] = mv
            n += 1
    return n


class NodeState(NamedTuple):
    """What every node of one thread's search needs, read by name: the board's tables, the evaluation, the
    transposition table, the history, the work arrays and the statistics (:func:`pvs_node`'s ``shared``).
    numba compiles a named tuple as a tuple, so reading a field costs what reading an index did."""

    win: Any  #: marbles a side must push off to win
    inline_only: Any  #: the reduced game without broadside moves
    cells: Any  #: the grid indices of the board's cells
    offsets: Any  #: the six directions as cell offsets
    ring: Any  #: each grid index's hex distance to the centre (-1 off the board)
    edge_ring: Any  #: the outermost ring's distance to the centre (the board's side - 1)
    edge_cells: Any  #: the grid indices of the outermost ring (where marbles are pushed off)
    zobrist: Any  #: the hash keys of each (cell, colour)
    kind: Any  #: the evaluation (EVAL_HAND_SET, EVAL_NNUE, EVAL_NETWORK)
    nnue_params: Any  #: the NNUE's parameters (or None)
    net_params: Any  #: a value network's (or None)
    hand_params: Any  #: the hand-set weights (or None)
    tt_keys: Any  #: the transposition table: keys
    tt_info: Any  #: its depth, bound and move
    tt_scores: Any  #: its scores
    history: Any  #: the history heuristic's table
    path: Any  #: the hashes of the positions on the way here (repetitions)
    path_base: Any  #: how many of them were played before the root
    moves: Any  #: a move list per ply
    orders: Any  #: each ply's move ordering keys
    raw: Any  #: the generator's raw moves, per ply
    scratch: Any  #: work space of the move generator
    stats: Any  #: the search's counters and flags (NODES, ABORTED, BEST, ...)
    deadline: Any  #: the clock time at which the search stops
    root_scores: Any  #: each root move's score
    root_side: Any  #: the side to move at the root
    contempt: Any  #: what a draw costs the side to move at the root
    stop: Any  #: the stop flag another thread sets
    acc: Any  #: the NNUE accumulators, per ply
    prune: Any  #: null moves and table cutoffs in null-window nodes (0 or 1)
    threats: Any  #: the threat search (0 or 1)
    since: Any  #: plies without a push-off, per ply (the no-capture rule)
    plies_left: Any  #: plies from the root to the game's ply cap
    quiet_limit: Any  #: plies without a push-off at which a line is drawn
    repeat_need: Any  #: earlier occurrences of a position that make a draw
    tt_bits: Any  #: the table's size as a power of two
    trade: Any  #: converting: what each marble that leaves the board is worth to the side ahead (0: off)
    pv: Any  #: the principal variation's moves, per ply
    pv_len: Any  #: where each ply's line ends
    press: Any  #: converting a stalled game: what each push the side to move has beyond the other's is worth (0: off)


@njit(cache=True, nogil=True)
def pvs_node(board, side, lost, depth, alpha, beta, ply, h, null_ok, shared):
    """One node of the search; ``depth <= 0`` is the quiescence search (``-depth`` plies into it).

    At ply 0 it searches the ``stats[ROOT_COUNT]`` root moves in ``moves[0]`` in that order,
    writes each one's score (or bound) into ``root_scores`` and the index of the best into
    ``stats[BEST]``. Root, main search and quiescence are one function because numba's cache
    cannot load a recursive function that is called from, or calls, another recursive compiled
    function. ``shared`` (a :class:`NodeState`, read by name) bundles what every node needs and never
    changes between nodes (the board's tables, the evaluation, the transposition table, history, work
    arrays, statistics).
    """
    g_win, g_inline, cells, offsets = shared.win, shared.inline_only, shared.cells, shared.offsets
    ring, edge_ring, edge_cells, zobrist = shared.ring, shared.edge_ring, shared.edge_cells, shared.zobrist
    kind, nnue_params, net_params, hand_params = shared.kind, shared.nnue_params, shared.net_params, shared.hand_params
    tt_keys, tt_info, tt_scores, history = shared.tt_keys, shared.tt_info, shared.tt_scores, shared.history
    path, path_base, moves, orders = shared.path, shared.path_base, shared.moves, shared.orders
    raw, scratch, stats, deadline = shared.raw, shared.scratch, shared.stats, shared.deadline
    root_scores, root_side, contempt, stop = shared.root_scores, shared.root_side, shared.contempt, shared.stop
    acc, prune, threats, since = shared.acc, shared.prune, shared.threats, shared.since
    plies_left, quiet_limit, repeat_need = shared.plies_left, shared.quiet_limit, shared.repeat_need
    tt_bits, trade, pv, pv_len, press = shared.tt_bits, shared.trade, shared.pv, shared.pv_len, shared.press
    pv_len[ply] = ply  # this node's principal variation: empty until a move raises alpha
    # a draw is worth -contempt to the side searching at the root (it plays on rather than draw)
    draw = -contempt if side == root_side else contempt
    _tick(stats, deadline, stop)
    # Step 1. An aborted search (time, node limit or stop) unwinds at once
    if stats[ABORTED]:
        return 0.0
    # flags for the recursive calls as run-time values: a literal True/False would make numba
    # compile a second specialisation, which its cache then fails to link
    yes = ply >= 0
    no = ply < 0
    opp = 3 - side
    # Step 2. The game's end and its draws: a side pushed off to the win, a repetition, the ply cap
    if ply > 0:
        if lost[0] >= g_win or lost[1] >= g_win:
            return -(WIN - ply)
        # a repeated position (same marbles, same side to move) on this line or before the root: a draw
        path[path_base + ply] = h
        if _repeats(path, path_base + ply, h, path_base, repeat_need):
            return draw
        # the game's own draw rules: the ply cap, and plies without a push-off
        if ply >= plies_left or since[ply] >= quiet_limit:
            return draw
    else:
        path[path_base] = h
        _refresh(board, cells, nnue_params, acc[0])
    # Step 3. Check: the side to move is a marble from losing with a push-off against it
    # "in check": a marble from losing, with a push-off against it on the board (passing would lose)
    checked = ply > 0 and threats > 0 and lost[side - 1] >= g_win - 1 and has_push_off(board, opp, offsets, edge_cells)
    # Step 4. Quiescence at the horizon: push-offs only (every reply in check), standing pat otherwise
    if ply > 0 and (depth <= 0 or ply >= MAX_PLY - 1):
        # quiescence: stand pat, or play a push-off; in check, every move (no standing pat)
        stats[QNODES] += 1
        stand = _static(board, side, lost, cells, ring, offsets, edge_ring, kind, nnue_params, net_params, hand_params,
                        raw, scratch, acc, ply, trade, press)
        if -depth >= QUIESCENCE_PLIES or ply >= MAX_PLY - 1:
            return stand
        buf = moves[ply]
        if checked:
            best = -np.inf
            n = generate_moves(board, side, offsets, cells, g_inline, buf)
            if n == 0:
                return draw
        else:
            if stand >= beta:
                return stand
            if stand > alpha:
                alpha = stand
            best = stand
            n = generate_push_offs(board, side, offsets, edge_cells, buf)
            if threats > 0 and -depth < QUIET_CHECK_PLIES and lost[opp - 1] >= g_win - 1:
                n = _add_quiet_checks(board, side, offsets, cells, edge_cells, g_inline, zobrist, buf, n,
                                      moves[ply + 1])
        for i in range(n):
            mv = buf[i]
            delta = make_move(board, mv, side, offsets, zobrist)
            if checked and not mv & PUSH_OFF_BIT and has_push_off(board, opp, offsets, edge_cells):
                # a reply that leaves the push-off on the board loses at once: no need to search it
                unmake_move(board, mv, side, offsets)
                if best < -(WIN - (ply + 2)):
                    best = -(WIN - (ply + 2))
                continue
            _update(acc[ply], acc[ply + 1], mv, side, offsets, nnue_params)
            since[ply + 1] = 0 if mv & PUSH_OFF_BIT else since[ply] + 1
            if mv & PUSH_OFF_BIT:
                lost[2 - side] += 1
            score = -pvs_node(board, opp, lost, depth - 1, -beta, -alpha, ply + 1, h ^ delta, no, shared)
            unmake_move(board, mv, side, offsets)
            if mv & PUSH_OFF_BIT:
                lost[2 - side] -= 1
            if stats[ABORTED]:
                return 0.0
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    _extend_pv(pv, pv_len, ply, mv)
                    if alpha >= beta:
                        break
        return best
    # Step 5. Check extension
    if checked and ply < 2 * stats[ROOT_DEPTH]:
        # a forced reply: search it a ply deeper (a chess engine's check extension). A line of threats and
        # parries keeps its depth, so, as in Stockfish, only within twice the iteration's depth of the root
        depth += 1
    # Step 6. The transposition table: its move for ordering, its bound for a cutoff in a non-PV node
    # a null-window search (width NULL_WINDOW) is a non-PV node: it may take the table's bound and
    # be pruned. (Before prune=1 this test compared with 1e-9, so that every node counted as a PV
    # node and no table cutoff or null move ever happened; prune=0 keeps that search, to measure against.)
    pv_node = prune == 0 or beta - alpha > 2 * NULL_WINDOW
    mask = tt_keys.shape[0] - 1
    slot = h & mask
    tt_move = -1
    info = tt_info[slot]
    # an entry's key is stored mixed with its data (key ^ info ^ score bits), so that an entry another
    # search thread wrote half of never passes for a whole one (lockless hashing, as in Crafty)
    if ply > 0 and (tt_keys[slot] ^ tt_bits[slot] ^ np.uint64(info)) == h:
        stats[TT_HITS] += 1
        tt_move = info >> TT_MOVE_SHIFT
        if not pv_node and ((info >> 2) & 127) >= depth:
            s = _score_from_tt(tt_scores[slot], ply)
            f = info & 3
            if f == EXACT or (f == LOWER and s >= beta) or (f == UPPER and s <= alpha):
                return s
    # Step 7. Null move: pass, and a reduced search that still fails high prunes the node
    if ply > 0 and null_ok and not pv_node and not checked and depth >= 3 and beta < WIN_BOUND:
        static = _static(board, side, lost, cells, ring, offsets, edge_ring, kind, nnue_params, net_params,
                         hand_params, raw, scratch, acc, ply, trade, press)
        if static >= beta:
            # pass: the same marbles with the other side to move
            null_child = h ^ zobrist[0, 0]
            _copy(acc[ply], acc[ply + 1], nnue_params)
            null_depth = depth - 1 - NULL_REDUCTION
            since[ply + 1] = since[ply] + 1
            score = -pvs_node(board, opp, lost, null_depth, -beta, -beta + NULL_WINDOW, ply + 1, null_child, no, shared)
            if stats[ABORTED]:
                return 0.0
            if score >= beta:
                return beta
    # Step 8. The moves, generated and ordered (at the root, the driver's list in its order)
    if ply == 0:
        buf = moves[0]
        n = stats[ROOT_COUNT]
    else:
        buf = moves[ply]
        order = orders[ply]
        n = generate_moves(board, side, offsets, cells, g_inline, buf)
        if n == 0:
            return draw
        _order(buf, n, order, tt_move, history, side, ply)
    best = -np.inf
    best_move = buf[0]
    alpha0 = alpha
    # the opponent is a marble from losing: a move that threatens its last marble is a check
    attack = threats > 0 and lost[opp - 1] >= g_win - 1
    # Step 9. The moves in turn: leaves scored in place, late quiet moves reduced, a null window re-searched
    for i in range(n):
        mv = buf[i] if ply == 0 else _pick(buf, order, i, n)
        delta = make_move(board, mv, side, offsets, zobrist)
        _update(acc[ply], acc[ply + 1], mv, side, offsets, nnue_params)
        since[ply + 1] = 0 if mv & PUSH_OFF_BIT else since[ply] + 1
        if mv & PUSH_OFF_BIT:
            lost[2 - side] += 1
        quiet = ((mv >> PUSH_SHIFT) & 3) == 0
        gives_check = attack and lost[opp - 1] < g_win and has_push_off(board, side, offsets, edge_cells)
        child = h ^ delta
        # The children of a depth-1 node are quiescence nodes; most have no push-off, and then
        # their value is their evaluation whatever the window. Score those here: a recursive
        # call costs more than the evaluation itself (numba passes every array argument anew).
        leaf = False
        if depth == 1 and ply + 2 < MAX_PLY:
            leaf = True
            pv_len[ply + 1] = ply + 1  # a leaf scored here has no line of its own
            stats[NODES] += 1
            if lost[0] >= g_win or lost[1] >= g_win:
                score = WIN - (ply + 1)
            elif _repeats(path, path_base + ply + 1, child, path_base, repeat_need):
                score = draw  # the child's draw value is minus ours; negated, it is ours
            elif ply + 1 >= plies_left or since[ply + 1] >= quiet_limit:
                score = draw
            elif gives_check or (threats > 0 and lost[side - 1] >= g_win - 1):
                # the child is in check (its quiescence tries every reply) or may check us quietly
                leaf = False
                stats[NODES] -= 1
            elif generate_push_offs(board, opp, offsets, edge_cells, moves[ply + 1]) == 0:
                stats[QNODES] += 1
                score = -_static(board, opp, lost, cells, ring, offsets, edge_ring, kind, nnue_params, net_params,
                                 hand_params, raw, scratch, acc, ply + 1, trade, press)
            else:
                leaf = False
                stats[NODES] -= 1  # searched below after all
        if leaf:
            pass  # scored above
        elif i == 0:
            score = -pvs_node(board, opp, lost, depth - 1, -beta, -alpha, ply + 1, child, yes, shared)
        else:
            r = 0
            killer = mv == history[0, KILLERS + ply] or mv == history[1, KILLERS + ply]
            if ply > 0 and depth >= 3 and i >= 4 and quiet and not killer and not checked and not gives_check:
                r = 1 if i < 16 else 2
                if r > depth - 2:
                    r = depth - 2
            score = -pvs_node(board, opp, lost, depth - 1 - r, -alpha - NULL_WINDOW, -alpha, ply + 1, child, yes,
                              shared)
            if score > alpha and (r > 0 or score < beta) and not stats[ABORTED]:
                score = -pvs_node(board, opp, lost, depth - 1, -beta, -alpha, ply + 1, child, yes, shared)
        unmake_move(board, mv, side, offsets)
        if mv & PUSH_OFF_BIT:
            lost[2 - side] -= 1
        if stats[ABORTED]:
            return 0.0
        if ply == 0:
            root_scores[i] = score
        if score > best:
            best = score
            best_move = mv
            if ply == 0:
                stats[BEST] = i
            if score > alpha:
                alpha = score
                _extend_pv(pv, pv_len, ply, mv)
                if alpha >= beta:
                    if quiet and ply > 0:
                        if history[0, KILLERS + ply] != mv:
                            history[1, KILLERS + ply] = history[0, KILLERS + ply]
                            history[0, KILLERS + ply] = mv
                        history[side - 1, mv & (HISTORY_SIZE - 1)] += depth * depth
                    break
    # Step 10. The result into the table, with its bound kind
    if best >= beta:
        flag = LOWER
    elif best > alpha0:
        flag = EXACT
    else:
        flag = UPPER
    info = np.int32((best_move << TT_MOVE_SHIFT) | (depth << 2) | flag)
    tt_info[slot] = info
    tt_scores[slot] = _score_to_tt(best, ply)
    tt_keys[slot] = h ^ tt_bits[slot] ^ np.uint64(info)
    return best
