"""Evaluations and searches against slow, plainly written references."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sumito.evaluation import EVAL_ABLA, EVAL_ALPHALONE, EVAL_HEURISTIC, EVAL_LINEAR, Evaluation, named_evaluation
from sumito.evaluation.alphalone import default_weights
from sumito.evaluation.features import evaluate, work_arrays
from sumito.games.abalone import Position
from sumito.search.alphabeta import after_values, search
from sumito.search.context import WIN, WIN_BOUND, SearchContext
from sumito.search.pvs import Searcher, mate_moves

from helpers import position_with, random_playout

LAYOUTS = ["standard", "belgian-daisy", "german-daisy", "small", "mini"]


def reference_counts(pos: Position) -> dict:
    """Per colour: summed distance, adjacency, edge marbles, lines of three, touched opponents, count."""
    geo = pos.geometry
    grid = pos.grid
    out = {}
    for color in (1, 2):
        own = [g for g in geo.cells if grid[g] == color]
        opp = [g for g in geo.cells if grid[g] == 3 - color]
        dist = sum(int(geo.ring[g]) for g in own)
        adj = sum(1 for g in own for off in geo.offsets if grid[g + off] == color)
        edge = sum(1 for g in own if geo.ring[g] == geo.side - 1)
        line3 = sum(
            1 for g in own for off in geo.offsets[:3] if grid[g + off] == color and grid[g - off] == color
        )
        touched = sum(1 for g in opp if any(grid[g + off] == color for off in geo.offsets))
        out[color] = dict(dist=dist, adj=adj, edge=edge, line3=line3, touched=touched, count=len(own))
    return out


def reference_eval(pos: Position, side: int, kind: int, params: np.ndarray) -> float:
    c = reference_counts(pos)
    me, op = c[side], c[3 - side]
    lost_me, lost_op = pos.lost[side - 1], pos.lost[2 - side]
    if kind in (EVAL_HEURISTIC, EVAL_ABLA):
        off = params[0] if kind == EVAL_HEURISTIC else params[2]  # a pushed-off marble's distance
        dist_me, dist_op = me["dist"] + off * lost_me, op["dist"] + off * lost_op
        if kind == EVAL_HEURISTIC:
            return dist_op - dist_me
        return params[0] * (dist_me - dist_op) + params[1] * (me["adj"] - op["adj"])
    if kind == EVAL_ALPHALONE:
        b, w = c[1], c[2]
        nb, nw = max(b["count"], 1), max(w["count"], 1)
        f = [
            pos.lost[0], pos.lost[1], b["edge"], w["edge"], 2 * b["dist"] / nb, 2 * w["dist"] / nw,
            (b["adj"] + b["line3"]) / nb, (w["adj"] + w["line3"]) / nw, b["touched"] / nb, w["touched"] / nw,
        ]
        weights = params[:10] if side == 1 else params[10:]
        return float(np.dot(weights, f))
    terms = [lost_op - lost_me, op["dist"] - me["dist"], me["adj"] - op["adj"], op["edge"] - me["edge"],
             me["line3"] - op["line3"], me["touched"] - op["touched"], pushes(pos, side) - pushes(pos, 3 - side)]
    return float(np.dot(params, terms))


def pushes(pos: Position, color: int) -> int:
    """The legal moves of ``color`` that push opposing marbles, were it ``color``'s turn."""
    fields = pos.to_string().split()
    fields[1] = "b" if color == 1 else "w"
    turned = Position.from_string(" ".join(fields), pos.variant)
    return sum(1 for m in turned.legal_moves() if m.pushed)


def engine_eval(pos: Position, side: int, kind: int, params: np.ndarray) -> float:
    geo = pos.geometry
    raw, scratch = work_arrays()
    return evaluate(pos.grid, side, pos.lost[0], pos.lost[1], geo.cells, geo.ring, geo.offsets, geo.side - 1, kind,
                    params, raw, scratch)


@st.composite
def played(draw, max_plies=120):
    layout = draw(st.sampled_from(LAYOUTS))
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, max_plies))
    return random_playout(Position.start(layout), plies, np.random.default_rng(seed))[-1]


EVALUATIONS = ["heuristic", "abla", "abla-single", "alphalone", "linear", "linear-pushes"]


@given(played(), st.sampled_from(EVALUATIONS))
def test_evaluations_match_reference(pos, name):
    if pos.winner() is not None:
        return
    if name == "linear-pushes":  # every linear term in play, the pushes too
        ev = Evaluation("linear", EVAL_LINEAR, np.array([1000.0, 6, 2, 4, 2, 3, 5]))
    else:
        ev = named_evaluation(name)
    for side in (1, 2):
        expected = reference_eval(pos, side, ev.kind, ev.params)
        assert engine_eval(pos, side, ev.kind, ev.params) == pytest.approx(expected)


def test_abla_features_by_hand():
    # Black: a pair c3-c4 (each has one neighbour); White: a lone marble on the centre e5
    pos = position_with(["c3", "c4"], ["e5"])
    ev = named_evaluation("abla")
    # distances: c3 = 2, c4 = 2 (rows c are two from the centre row) -> f1 = 4 - 0; adjacency f2 = 2 - 0
    assert engine_eval(pos, 1, ev.kind, ev.params) == pytest.approx(-1 * 4 + 1 * 2)
    assert engine_eval(pos, 2, ev.kind, ev.params) == pytest.approx(-(-1 * 4 + 1 * 2))


def test_alphalone_coherence_bonus_for_three_in_a_row():
    three = position_with(["e4", "e5", "e6"], ["a1"])
    bent = position_with(["e4", "e5", "f6"], ["a1"])
    c3, cb = reference_counts(three)[1], reference_counts(bent)[1]
    assert c3["line3"] == 1 and cb["line3"] == 0
    assert c3["adj"] == cb["adj"] == 4


def minimax(pos: Position, depth: int, ply: int, kind: int, params: np.ndarray) -> float:
    """Plain negamax over Position values: the reference for the alpha-beta kernel."""
    if pos.winner() is not None:
        return -(WIN - ply)
    if depth == 0:
        return reference_eval(pos, pos.side_to_move, kind, params)
    children = pos.successors()
    if not children:
        return 0.0
    return max(-minimax(child, depth - 1, ply + 1, kind, params) for _, child in children)


@settings(max_examples=15)
@given(played(max_plies=80), st.sampled_from(["heuristic", "abla", "linear"]), st.integers(1, 2))
def test_alphabeta_value_equals_minimax(pos, name, depth):
    codes = pos.legal_move_codes()
    if len(codes) == 0 or pos.winner() is not None:
        return
    ev = named_evaluation(name)
    best, values, _ = search(SearchContext.of(pos), codes, depth, ev.kind, ev.params, values="all")
    expected = [-minimax(child, depth - 1, 1, ev.kind, ev.params) for _, child in pos.successors()]
    assert values == pytest.approx(expected)
    assert best == int(np.argmax(expected))  # the first best move
    # with values="ties" the moves tied for best are the same, with the same values bit for bit, and
    # every other move's bound lies strictly below the best
    best1, values1, _ = search(SearchContext.of(pos), codes, depth, ev.kind, ev.params, values="ties")
    tied = values >= values[best]
    assert best1 == best
    assert np.array_equal(values1 >= values1[best1], tied)
    assert np.array_equal(values1[tied], values[tied]) and np.all(values1[~tied] < values[best])
    # with the ordinary root window the chosen move and its value are the same
    best2, values2, _ = search(SearchContext.of(pos), codes, depth, ev.kind, ev.params)
    assert best2 == best and values2[best2] == pytest.approx(max(expected))


def test_tied_root_values_search_fewer_nodes_and_find_the_same_ties():
    # the paper players' random tie-break at two plies: mid-game positions with many equal moves
    ev = named_evaluation("abla")
    for seed in range(6):
        pos = random_playout(Position.start("standard"), 10 + 5 * seed, np.random.default_rng(seed))[-1]
        codes = pos.legal_move_codes()
        best, values, nodes_all = search(SearchContext.of(pos), codes, 2, ev.kind, ev.params, values="all")
        best1, values1, nodes_ties = search(SearchContext.of(pos), codes, 2, ev.kind, ev.params, values="ties")
        assert best1 == best and np.array_equal(values1 >= values1[best1], values >= values[best])
        assert nodes_ties < nodes_all


def test_root_values_must_be_named():
    pos = Position.start("standard")
    ev = named_evaluation("abla")
    with pytest.raises(ValueError, match="values must be one of best, ties, all"):
        search(SearchContext.of(pos), pos.legal_move_codes(), 2, ev.kind, ev.params, values="exact")


def test_search_leaves_the_position_untouched():
    pos = random_playout(Position.start("belgian-daisy"), 30, np.random.default_rng(5))[-1]
    ctx = SearchContext.of(pos)
    board, lost = ctx.board.copy(), ctx.lost.copy()
    ev = named_evaluation("linear")
    search(ctx, pos.legal_move_codes(), 3, ev.kind, ev.params)
    Searcher(ev.kind, ev.params, 1 << 12).search(ctx, pos.legal_move_codes(), max_depth=4)
    after_values(ctx, pos.legal_move_codes(), ev.kind, ev.params)
    assert np.array_equal(ctx.board, board) and np.array_equal(ctx.lost, lost)


def test_after_values_score_for_the_mover():
    pos = random_playout(Position.start("standard"), 20, np.random.default_rng(9))[-1]
    ev = named_evaluation("alphalone")
    values = after_values(SearchContext.of(pos), pos.legal_move_codes(), ev.kind, ev.params)
    expected = [reference_eval(child, pos.side_to_move, ev.kind, ev.params) for _, child in pos.successors()]
    assert values == pytest.approx(expected)


def test_engine_takes_a_win_in_one():
    # White has lost five; Black's f5-g5-h5 push i5 off the board (three against one) and win
    pos = position_with(["g5", "h5", "f5"], ["i5", "a1", "a2"], lost=(0, 5))
    ev = named_evaluation("linear")
    result = Searcher(ev.kind, ev.params, 1 << 12).search(SearchContext.of(pos), pos.legal_move_codes(), max_depth=3)
    move = pos.legal_moves()[list(pos.legal_move_codes()).index(result.move)]
    assert move.is_push_off
    assert result.score > WIN - 10
    assert pos.play(move).winner() == 1


def test_engine_sees_a_forced_loss_and_avoids_the_push_off_threat():
    # White threatens to push Black's i5 off with three (f5-g5-h5 are white, pushing north-west
    # along the diagonal column). Black at depth 2 must see it, and every plain search agrees.
    pos = position_with(["i5", "a1", "a2"], ["f5", "g5", "h5"], lost=(5, 0))
    ev = named_evaluation("linear")
    result = Searcher(ev.kind, ev.params, 1 << 12).search(SearchContext.of(pos), pos.legal_move_codes(), max_depth=2)
    after = pos.play(pos.legal_moves()[list(pos.legal_move_codes()).index(result.move)])
    # after Black's move White has no winning push-off
    assert not any(m.is_push_off for m in after.legal_moves())


def test_engine_time_limit_is_kept():
    pos = Position.start("standard")
    ev = named_evaluation("linear")
    searcher = Searcher(ev.kind, ev.params, 1 << 16)
    result = searcher.search(SearchContext.of(pos), pos.legal_move_codes(), seconds=0.2)
    assert result.seconds < 0.5
    assert result.depth >= 2
    assert int(result.move) in set(pos.legal_move_codes().tolist())


def test_engine_principal_variation_is_legal():
    pos = Position.start("belgian-daisy")
    ev = named_evaluation("linear")
    searcher = Searcher(ev.kind, ev.params, 1 << 16)
    result = searcher.search(SearchContext.of(pos), pos.legal_move_codes(), max_depth=5)
    assert result.depth == 5 and result.pv[0] == result.move
    for code in result.pv:
        assert code in set(pos.legal_move_codes().tolist())
        pos = pos._after(code)


def test_compiled_searches_load_from_the_cache():
    """numba's cache once failed to link recursive kernels in a second process (a segfault);
    run every search kernel in two fresh processes so that the second one loads the cache."""
    code = (
        "from sumito.games.abalone import Position\n"
        "from sumito.players import make_player\n"
        "p = Position.start('belgian-daisy')\n"
        "for spec in ('engine:depth=3', 'abla:depth=2', 'alphalone:depth=1,seed=1', 'heuristic', 'greedy'):\n"
        "    assert p.is_legal(make_player(spec).choose(p))\n"
        "print('ok')\n"
    )
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "ok"


def test_linear_default_weights_value_material_first():
    ev = named_evaluation("linear")
    assert ev.kind == EVAL_LINEAR and ev.params[0] >= 100 * max(ev.params[1:])
    assert default_weights().vector().shape == (20,)


# ------------------------------------------------------------------ MultiPV and the per-iteration callback
def multipv_positions() -> list[Position]:
    out = [Position.start("belgian-daisy"), Position.start("german-daisy")]
    for seed in range(6):  # mid-game positions of random games: pushes and threats about
        out.append(random_playout(Position.start("standard"), 20 + 5 * seed, np.random.default_rng(seed))[-1])
    return [p for p in out if p.count_legal_moves() > 3]


@pytest.mark.parametrize("depth", [3, 4])
def test_multipv_top_line_is_the_single_pv_best_and_scores_do_not_increase(depth):
    ev = named_evaluation("linear")
    for pos in multipv_positions():
        codes = pos.legal_move_codes()
        single = Searcher(ev.kind, ev.params, 1 << 16).search(SearchContext.of(pos), codes, max_depth=depth)
        multi = Searcher(ev.kind, ev.params, 1 << 16).search(SearchContext.of(pos), codes, max_depth=depth, multipv=3)
        assert multi.depth == depth and len(multi.lines) == 3
        assert (multi.move, multi.score) == (single.move, single.score), pos.to_string()
        assert multi.lines[0].move == multi.move and multi.lines[0].pv == multi.pv
        scores = [line.score for line in multi.lines]
        assert scores == sorted(scores, reverse=True)
        assert len({line.move for line in multi.lines}) == 3
        legal = set(codes.tolist())
        for line in multi.lines:
            assert line.pv[0] == line.move and line.move in legal


def test_multipv_beyond_the_legal_moves_gives_every_move():
    pos = position_with(["i5", "a1", "a2"], ["f5", "g5", "h5"], lost=(5, 0))
    ev = named_evaluation("linear")
    codes = pos.legal_move_codes()
    result = Searcher(ev.kind, ev.params, 1 << 12).search(SearchContext.of(pos), codes, max_depth=3, multipv=200)
    assert sorted(line.move for line in result.lines) == sorted(codes.tolist())
    # i5 moved away is the only move that does not lose at once: the others lose in 1 (after White's move)
    assert result.lines[0].score > -WIN_BOUND
    assert all(mate_moves(line.score) == -1 for line in result.lines[1:] if line.score < -WIN_BOUND)


def test_on_iteration_is_called_once_an_iteration_and_changes_nothing():
    pos = random_playout(Position.start("belgian-daisy"), 24, np.random.default_rng(3))[-1]
    ev = named_evaluation("linear")
    codes = pos.legal_move_codes()
    seen = []
    quiet = Searcher(ev.kind, ev.params, 1 << 16).search(SearchContext.of(pos), codes, max_depth=5)
    loud = Searcher(ev.kind, ev.params, 1 << 16).search(
        SearchContext.of(pos), codes, max_depth=5, on_iteration=seen.append
    )
    assert [r.depth for r in seen] == [1, 2, 3, 4, 5]
    assert [r.nodes for r in seen] == sorted(r.nodes for r in seen) and seen[-1].nodes == loud.nodes
    assert (loud.move, loud.score, loud.nodes, loud.pv) == (quiet.move, quiet.score, quiet.nodes, quiet.pv)
    assert seen[-1].move == loud.move and seen[-1].pv == loud.pv


def test_mate_scores_in_moves():
    assert mate_moves(WIN - 1) == 1 and mate_moves(WIN - 3) == 2 and mate_moves(WIN - 5) == 3
    assert mate_moves(-(WIN - 2)) == -1 and mate_moves(-(WIN - 4)) == -2
    assert mate_moves(0.0) is None and mate_moves(5000.0) is None


def test_a_single_root_move_is_searched_to_full_depth_for_analysis():
    pos = Position.start("belgian-daisy")
    ev = named_evaluation("linear")
    one = pos.legal_move_codes()[:1]
    searcher = Searcher(ev.kind, ev.params, 1 << 14)
    assert searcher.search(SearchContext.of(pos), one, max_depth=4).depth == 1  # play: no need to think
    assert searcher.search(SearchContext.of(pos), one, max_depth=4, quick_single=False).depth == 4


@pytest.mark.parametrize("width", [1.0, 250.0])
def test_aspiration_windows_give_the_full_window_score(width):
    """A narrow window (1 point: it fails on almost every iteration, so the widening runs) and the
    default-sized one both end on the score the full-window search finds at the same depth."""
    ev = named_evaluation("linear")
    for pos in multipv_positions():
        codes = pos.legal_move_codes()
        full = Searcher(ev.kind, ev.params, 1 << 16).search(SearchContext.of(pos), codes, max_depth=6)
        narrow = Searcher(ev.kind, ev.params, 1 << 16, aspiration=width).search(
            SearchContext.of(pos), codes, max_depth=6
        )
        assert narrow.depth == full.depth == 6
        assert narrow.score == pytest.approx(full.score), pos.to_string()
        assert narrow.move in set(codes.tolist()) and narrow.pv[0] == narrow.move


# ------------------------------------------------------------------ search levels (engine option prune=)
@pytest.mark.parametrize("prune", [0, 1])
def test_every_search_level_takes_a_win_and_sees_a_threat(prune):
    ev = named_evaluation("linear")
    win = position_with(["g5", "h5", "f5"], ["i5", "a1", "a2"], lost=(0, 5))
    result = Searcher(ev.kind, ev.params, 1 << 12, prune=prune).search(
        SearchContext.of(win), win.legal_move_codes(), max_depth=5
    )
    assert result.score > WIN - 10 and win._after(result.move).winner() == 1
    threat = position_with(["i5", "a1", "a2"], ["f5", "g5", "h5"], lost=(5, 0))
    result = Searcher(ev.kind, ev.params, 1 << 12, prune=prune).search(
        SearchContext.of(threat), threat.legal_move_codes(), max_depth=5
    )
    assert result.score > -WIN_BOUND
    assert not any(m.is_push_off for m in threat._after(result.move).legal_moves())


def test_null_window_nodes_take_table_cutoffs_and_null_moves():
    """prune=1 (the default) takes the table's bounds and null moves in null-window nodes; prune=0,
    the search before they worked, never did (it took every node for a PV node). At the same depth
    the default searches fewer nodes in every middlegame position tried, and agrees on who stands
    better."""
    ev = named_evaluation("linear")
    for pos in multipv_positions()[2:]:
        codes = pos.legal_move_codes()
        old, new = (
            Searcher(ev.kind, ev.params, 1 << 16, prune=prune).search(SearchContext.of(pos), codes, max_depth=5)
            for prune in (0, 1)
        )
        assert new.nodes < old.nodes, (new.nodes, old.nodes, pos.to_string())
        assert (new.score > 0) == (old.score > 0) or abs(new.score - old.score) < 200, pos.to_string()


def test_the_default_search_leaves_the_position_untouched_and_its_line_is_legal():
    pos = random_playout(Position.start("belgian-daisy"), 30, np.random.default_rng(5))[-1]
    ctx = SearchContext.of(pos)
    board, lost = ctx.board.copy(), ctx.lost.copy()
    ev = named_evaluation("linear")
    result = Searcher(ev.kind, ev.params, 1 << 14, prune=1).search(ctx, pos.legal_move_codes(), max_depth=6)
    assert np.array_equal(ctx.board, board) and np.array_equal(ctx.lost, lost)
    assert result.depth == 6 and result.pv[0] == result.move
    for code in result.pv:
        assert code in set(pos.legal_move_codes().tolist())
        pos = pos._after(code)


def test_a_node_budget_stops_the_search_and_does_not_depend_on_the_clock():
    # nodes= stands for a clock that no load can change: one thread plays the same move, from the same
    # number of nodes, every time, and the main thread never searches past its budget
    from sumito.players import make_player

    pos = Position.start("belgian-daisy")
    first = make_player("engine:nodes=30000,threads=1")
    move = first.choose(pos)
    assert 0 < first.last.nodes <= 30000 and first.last.depth >= 2
    again = make_player("engine:nodes=30000,threads=1")
    assert again.choose(pos) == move and again.last.nodes == first.last.nodes
    # a larger budget searches deeper; time= and depth= still cap it
    deeper = make_player("engine:nodes=400000,threads=1")
    deeper.choose(pos)
    assert deeper.last.depth > first.last.depth
    capped = make_player("engine:nodes=400000,depth=3,threads=1")
    capped.choose(pos)
    assert capped.last.depth == 3
