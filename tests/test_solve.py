"""The solver of small boards: the index, the take-backs, the solve checked three ways, the table and the
``perfect`` player. The mini board's own solve (about 11 s on two cores) is pinned in one test."""

from __future__ import annotations

import functools
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sumito.arena.yardstick import YardstickError, build_suite, position_of, score_player, start_of
from sumito.cli import main
from sumito.games.abalone import Position
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.kernels import count_moves, has_push_off
from sumito.games.abalone.variants import MINI, Variant
from sumito.players import make_player
from sumito.players.base import PlayerSpecError
from sumito.solve import retrograde as R
from sumito.solve import table as T
from sumito.solve.index import rank, rank_bits, space, unrank, unrank_bits
from sumito.solve.solver import SolveError, kernel_args, solve_values
from sumito.solve.table import NotSolvedError, SolvedTable, Value
from sumito.stopping import STOP

SMALL = (
    Variant(side=2, marbles=2, win_threshold=1),
    Variant(side=2, marbles=3, win_threshold=2),
    Variant(side=3, marbles=3, win_threshold=1),
    Variant(side=3, marbles=3, win_threshold=2),
    Variant(side=3, marbles=3, win_threshold=2, inline_only=True),
)
#: a variant large enough to have long wins and every kind of push, small enough for seconds
MID = Variant(side=3, marbles=3, win_threshold=3)


def _args(v: Variant) -> dict:
    a = kernel_args(space(v))
    return {k: a[k] for k in ("cells", "offsets", "zobrist", "binom", "block_start", "marbles", "win", "inline_only",
                              "grid_template")}


@functools.cache
def _solved(v: Variant, no_moves: str = "draw") -> np.ndarray:
    return solve_values(v, no_moves)


def _verify(v: Variant, values: np.ndarray, no_moves: str = "draw") -> tuple[int, int]:
    geo = geometry(v.side)
    sp = space(v)
    n, first = R.verify(values, geo.cells, geo.offsets, geo.zobrist, sp.binom, sp.block_start, v.marbles,
                        v.win_threshold, v.inline_only, no_moves == "loss", geo.empty_grid, 0, sp.size, 4096, STOP)
    return int(n), int(first)


# ----------------------------------------------------------------------------- the index
@pytest.mark.parametrize("v", [SMALL[0], SMALL[1], SMALL[3]])
def test_rank_and_unrank_are_inverse_over_every_entry(v):
    sp = space(v)
    geo = geometry(v.side)
    grid = geo.empty_grid
    free = np.empty(geo.n_cells, dtype=np.int64)
    seen = set()
    for idx in range(sp.size):
        a, b = unrank(idx, grid, geo.cells, sp.binom, sp.block_start, v.marbles, v.win_threshold, free)
        assert (int((grid == 1).sum()), int((grid == 2).sum())) == (a, b)
        assert rank(grid, 1, geo.cells, sp.binom, sp.block_start, v.marbles, v.win_threshold) == idx
        seen.add(grid.tobytes())
    assert len(seen) == sp.size  # every entry a different placement


def _bitboards(v: Variant, idx: int, memo: np.ndarray, free_cells: np.ndarray) -> tuple[int, int, int, int]:
    sp = space(v)
    geo = geometry(v.side)
    return unrank_bits(idx, geo.cells, sp.binom, sp.block_start, v.marbles, v.win_threshold, sp.subsets, memo,
                       free_cells)


@pytest.mark.parametrize("v", [*SMALL, MID, MINI])
def test_the_bitboard_index_is_the_grids(v):
    """The solver's bitboard unrank and rank give the grid's placement and entry, walking entries in index order
    (the mover's set kept between calls) and jumping about (every call a new one)."""
    sp = space(v)
    geo = geometry(v.side)
    grid = geo.empty_grid
    free = np.empty(geo.n_cells, dtype=np.int64)
    board = sum(1 << int(c) for c in geo.cells)
    cell_of_grid = geo.cell_of_grid.astype(np.int64)
    memo, free_cells = np.full(2, -1, dtype=np.int64), np.empty(geo.n_cells, dtype=np.int64)
    rng = np.random.default_rng(3)
    walk = np.arange(min(sp.size, 40_000))
    for idx in np.concatenate([walk, rng.integers(0, sp.size, 2_000)]):
        idx = int(idx)
        x, o, a, b = _bitboards(v, idx, memo, free_cells)
        unrank(idx, grid, geo.cells, sp.binom, sp.block_start, v.marbles, v.win_threshold, free)
        assert x == sum(1 << int(c) for c in geo.cells if grid[c] == 1) and (x | o) & ~board == 0
        assert o == sum(1 << int(c) for c in geo.cells if grid[c] == 2) and (a, b) == (x.bit_count(), o.bit_count())
        assert rank_bits(x, o, a, b, cell_of_grid, geo.n_cells, sp.binom, sp.block_start, v.marbles,
                         v.win_threshold) == idx


@pytest.mark.parametrize("v", [MID, MINI, MINI.with_options(inline_only=True)])
def test_the_first_pass_counts_the_engines_moves(v):
    """The bitboard count of the first pass is the engine's move count, and its push-off test the engine's."""
    sp = space(v)
    geo = geometry(v.side)
    grid = geo.empty_grid
    free = np.empty(geo.n_cells, dtype=np.int64)
    board = sum(1 << int(c) for c in geo.cells)
    memo, free_cells = np.full(2, -1, dtype=np.int64), np.empty(geo.n_cells, dtype=np.int64)
    for idx in np.random.default_rng(5).integers(0, sp.size, 3_000):
        x, o, _a, _b = _bitboards(v, int(idx), memo, free_cells)
        unrank(int(idx), grid, geo.cells, sp.binom, sp.block_start, v.marbles, v.win_threshold, free)
        n, push_off = R._moves_and_push_off(x, o, board, geo.offsets, v.inline_only)
        assert n == count_moves(grid, 1, geo.offsets, geo.cells, v.inline_only)
        assert push_off == has_push_off(grid, 1, geo.offsets, geo.edge_cells)


def test_the_mini_boards_index_counts_every_placement_once():
    sp = space(MINI)
    expected = sum(comb(19, a) * comb(19 - a, b) for a in (4, 5) for b in (4, 5))
    assert sp.size == expected == 51_849_252
    assert [(a, b, n) for a, b, _, n in sp.block_counts()] == [
        (5, 5, comb(19, 5) * comb(14, 5)), (5, 4, comb(19, 5) * comb(14, 4)),
        (4, 5, comb(19, 4) * comb(15, 5)), (4, 4, comb(19, 4) * comb(15, 4))]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, space(MINI).size - 1))
def test_the_colour_swap_is_one_entry(idx):
    """Black to move on a board and White to move on the board with colours exchanged are one entry."""
    sp = space(MINI)
    geo = geometry(MINI.side)
    grid = geo.empty_grid
    unrank(idx, grid, geo.cells, sp.binom, sp.block_start, 5, 2, np.empty(geo.n_cells, dtype=np.int64))
    swapped = grid.copy()
    swapped[grid == 1] = 2
    swapped[grid == 2] = 1
    assert rank(swapped, 2, geo.cells, sp.binom, sp.block_start, 5, 2) == idx


# ----------------------------------------------------------------------------- taking moves back
@pytest.mark.parametrize("v", [MID, MINI, MINI.with_options(inline_only=True)])
def test_each_take_back_is_a_move_forward_and_each_move_is_taken_back(v):
    """The predecessors of an entry are exactly the positions with a move to it, each once per move."""
    a = _args(v)
    rng = np.random.default_rng(7)
    for idx in rng.integers(0, space(v).size, 150):
        idx = int(idx)
        for p in R.predecessors_of(idx, subsets=space(v).subsets, **a):
            succ, _ = R.successors_of(int(p), **a)
            assert idx in succ
        succ, _ = R.successors_of(idx, **a)
        for s in set(succ.tolist()) - {-1}:
            back = R.predecessors_of(s, subsets=space(v).subsets, **a)
            assert (back == idx).sum() == (succ == s).sum()


# ----------------------------------------------------------------------------- the solve, checked
@pytest.mark.parametrize("v", (*SMALL, MID))
@pytest.mark.parametrize("no_moves", ["draw", "loss"])
def test_every_value_agrees_with_its_successors(v, no_moves):
    values = _solved(v, no_moves)
    assert _verify(v, values, no_moves) == (0, -1)
    assert (values > 0).any() and (values < 0).any()


def test_verification_finds_a_wrong_value():
    values = _solved(MID).copy()
    idx = int(np.flatnonzero(values > 3)[0])
    values[idx] += 2  # a win said to take two plies longer than it does
    n, first = _verify(MID, values)
    assert n >= 1 and first >= 0


def _negamax(pos: Position, depth: int) -> Value | None:
    """A plain minimax over the public Position API, written apart from the solver: the exact value when
    the game is decided within ``depth`` plies, else None (a draw cannot be proved this way)."""
    if pos.winner() is not None:
        return Value(-1, 0)  # the side to move has lost
    moves = pos.successors()
    if not moves:
        return Value(0, 0)  # the arena's default: a side with no legal move draws
    if depth == 0:
        return None
    best: Value | None = None
    unknown = False
    for _, child in moves:
        v = _negamax(child, depth - 1)
        if v is None:
            unknown = True
            continue
        mine = Value(-v.result, v.plies + 1 if v.result else 0)
        if best is None or mine.score > best.score:
            best = mine
    if best is not None and best.result > 0:
        return best
    # not a proved win: only exact when every move was resolved
    return None if unknown else best


@pytest.mark.parametrize("v", [MID, SMALL[2]])
def test_a_plain_minimax_agrees_with_the_table(v):
    """Every sampled position whose distance is within the minimax's depth gets the same value and distance;
    positions the minimax proves are proved the same way by the table."""
    table = SolvedTable(v, "draw", _solved(v))
    rng = np.random.default_rng(3)
    depth = 3
    checked = 0
    values = table.values
    near = np.flatnonzero((values != 0) & (np.abs(values) <= depth + 1))  # decided within the depth
    sample = np.concatenate([rng.choice(near, 60, replace=False), rng.integers(0, space(v).size, 60)])
    for idx in sample:
        pos = position_of(table, int(idx))
        exact = table.value(pos)
        found = _negamax(pos, depth)
        if exact.result != 0 and exact.plies <= depth:
            assert found == exact, pos.to_string()
            checked += 1
        elif found is not None:
            assert found == exact, pos.to_string()
    assert checked >= 50


def test_the_no_move_rule_changes_values_only_where_a_side_is_stuck():
    draw, loss = _solved(MID, "draw"), _solved(MID, "loss")
    stuck = loss == -1
    assert stuck.any(), "the variant has positions with no legal move"
    changed = draw != loss
    assert changed[stuck].all()


# ----------------------------------------------------------------------------- the table and the player
def test_a_table_round_trips_through_its_file_and_refuses_a_damaged_one(tmp_path):
    table = SolvedTable.solve(MID)
    table.save(tmp_path / "t.npz")
    again = SolvedTable.load(tmp_path / "t.npz")
    assert again.variant == MID and again.digest() == table.digest()
    data = bytearray((tmp_path / "t.npz").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "bad.npz").write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"bad\.npz"):
        SolvedTable.load(tmp_path / "bad.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a table")
    with pytest.raises(ValueError, match="not a solved table"):
        SolvedTable.load(tmp_path / "junk.npz")


def test_the_table_refuses_positions_it_does_not_hold():
    table = SolvedTable(MID, "draw", _solved(MID))
    with pytest.raises(NotSolvedError, match="solved for"):
        table.value(Position.start("standard"))
    missing = Position.from_string("1ww/1w2/5/4/bb1 b 0 0 1", MID)  # a black marble neither on the board nor lost
    with pytest.raises(NotSolvedError, match="on the board or lost"):
        table.value(missing)


@pytest.fixture(scope="module")
def mini_table():
    """The mini board, from the test session's cache folder (tests/conftest.py: a temporary home), where the
    first test of the session that needs it solves it."""
    return SolvedTable.for_variant(MINI)


@pytest.mark.slow
def test_the_shipped_zero_network_plays_the_mini_board_near_perfectly(mini_table):
    """The shipped zero network, learned from the rules alone, keeps the exact value more often than the engine's
    four-ply search and the raw policy, on a suite of 300 positions (docs/zero.md gives the 1,000-position
    scores)."""
    suite = build_suite(mini_table, 300, 41)
    scores = {spec: score_player(spec, suite, mini_table) for spec in
              ("zero", "zero:play=policy", "engine:depth=4,nnue=none,threads=1")}
    zero = scores["zero"]
    assert zero.kept >= 0.9 * zero.positions
    assert zero.kept > scores["engine:depth=4,nnue=none,threads=1"].kept
    assert zero.kept >= scores["zero:play=policy"].kept


@pytest.mark.slow
def test_the_mini_board_is_solved_and_pinned(mini_table):
    """The mini board's totals, its start's value and the table's digest, pinned; the start's best moves."""
    assert mini_table.counts() == dict(wins=29_306_280, draws=6_799_680, losses=15_743_292)
    assert mini_table.digest() == "a86816be7e20c4b6"
    start = Position.start("mini")
    assert mini_table.value(start) == Value(1, 15)
    assert sorted(m.notation() for m, _ in mini_table.best_moves(start)) == ["a1b2", "a3b3"]
    # the move values agree with the values of the positions they lead to
    for move, value in mini_table.move_values(start):
        after = mini_table.value(start.play(move))
        assert value == Value(-after.result, after.plies + 1)


@pytest.mark.slow
def test_perfect_play_wins_the_mini_board_as_fast_as_the_table_says(mini_table):
    black, white = make_player("perfect:seed=1"), make_player("perfect:seed=2")
    pos = Position.start("mini")
    plies = 0
    while pos.winner() is None:
        pos = pos.play((black if pos.side_to_move == 1 else white).choose(pos))
        plies += 1
    assert pos.winner() == 1 and plies == 15
    # and a perfect player never lets a won position go against random play
    rnd = make_player("random:seed=5")
    pos = Position.start("mini")
    while pos.winner() is None and pos.count_legal_moves():
        player = black if pos.side_to_move == 1 else rnd
        pos = pos.play(player.choose(pos))
    assert pos.winner() == 1


def test_the_perfect_player_refuses_a_board_without_a_table():
    with pytest.raises(PlayerSpecError, match="no solved table"):
        make_player("perfect").choose(Position.start("standard"))


@pytest.mark.slow
def test_sumito_solve_prints_the_board_and_scores_players(mini_table, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SUMITO_SOLVED_DIR", str(tmp_path))
    mini_table.save(tmp_path / "side3-m5-w2.npz")
    T._LOADED.clear()
    assert main(["solve"]) == 0
    out = capsys.readouterr().out
    assert "the side to move wins in 15" in out and "29,306,280" in out
    assert main(["solve", "score", "perfect", "random", "--positions", "40", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith(("perfect", "random"))}
    assert "100.0%" in lines["perfect"].split()[1]
    assert "100.0%" not in lines["random"].split()[1]


def test_sumito_solve_refuses_a_bad_variant(capsys):
    assert main(["solve", "--side", "3", "--marbles", "3", "--win", "4"]) == 2
    assert "win threshold" in capsys.readouterr().err


@pytest.mark.slow
def test_analyse_shows_exact_values_on_the_solved_board(mini_table, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SUMITO_SOLVED_DIR", str(tmp_path))
    mini_table.save(tmp_path / "side3-m5-w2.npz")
    T._LOADED.clear()
    assert main(["analyse", "--layout", "mini", "--depth", "1"]) == 0
    out = capsys.readouterr().out
    assert "exact (the board is solved): the side to move wins in 15" in out
    assert "a1b2 wins in 15" in out and "b3b2 loses in 14" in out
    assert main(["analyse", "--layout", "standard", "--depth", "1"]) == 0
    assert "exact" not in capsys.readouterr().out


@pytest.mark.slow
def test_the_web_offers_perfect_play_on_the_solved_mini_board_with_exact_values(mini_table, monkeypatch, tmp_path):
    """Perfect play is offered once the table is in the cache (a request never starts a solve), only on its
    board; the hint and evaluation bar give the exact value and a value-keeping move."""
    from helpers import api_error, poll_game, web_clients

    folder = tmp_path / "solved"
    monkeypatch.setenv("SUMITO_SOLVED_DIR", str(folder))
    T._LOADED.clear()
    with web_clients(tmp_path, monkeypatch, "perfect-client-token-0123456789") as make:
        client = make()
        assert "perfect" not in [p["id"] for p in client.get("/api/presets").json()]
        refused = api_error(client.post("/api/games", json={"black": "human", "white": "perfect", "layout": "mini"}),
                            400)
        assert "run `sumito solve` once" in refused
    folder.mkdir()
    mini_table.save(folder / "side3-m5-w2.npz")
    T._LOADED.clear()
    with web_clients(tmp_path, monkeypatch, "perfect-client-token-0123456789") as make:
        client = make(db="web2.sqlite", archive="games2.sqlite")
        (preset,) = [p for p in client.get("/api/presets").json() if p["id"] == "perfect"]
        assert preset["layout"] == "mini" and preset["spec"] == "perfect"
        refused = api_error(client.post("/api/games", json={"black": "human", "white": "perfect"}), 400)
        assert "only on a solved board" in refused and "not on the 61-cell board" in refused
        game = client.post("/api/games", json={"black": "human", "white": "perfect", "layout": "mini"}).json()
        hint = client.post(f"/api/games/{game['id']}/hint", json={"seconds": 0.1}).json()
        assert hint["exact"]["result"] == 1 and hint["exact"]["plies"] == 15 and hint["exact"]["value"] == "wins in 15"
        assert hint["best"] in ("a1b2", "a3b3") and hint["exact"]["moves"]["b3b2"] == "loses in 14"
        # a losing first move: perfect play answers with a move that keeps its win
        client.post(f"/api/games/{game['id']}/moves", json={"move": "b3b2"})
        state = poll_game(client, game["id"], lambda s: s["ply"] == 2 and not s["thinking"])
        assert state["ply"] == 2 and state["error"] is None
        after = Position.start("mini").play("b3b2").play(state["moves"][1])
        assert mini_table.value(after) == Value(-1, 12)  # Black, to move, still loses in 12
        hint = client.post(f"/api/games/{game['id']}/hint", json={"seconds": 0.1}).json()
        assert hint["exact"] == {**hint["exact"], "result": -1, "plies": 12} and hint["to_move"] == "black"


def test_a_stopped_solve_goes_on_from_its_checkpoint_to_the_same_values(tmp_path):
    """A solve stopped mid-way (here at level 9) leaves a checkpoint; the next one goes on from it and gives
    the values of a solve that never stopped, then removes the file. A checkpoint of another solve, or a damaged
    one, is set aside (said in one line) and the solve starts afresh."""
    v = Variant(side=3, marbles=3, win_threshold=3)
    whole = solve_values(v)
    path = tmp_path / "solve.partial.npz"

    def stop_at_nine(report):
        if report.plies == 9:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve_values(v, checkpoint=path, checkpoint_every=0, on_level=stop_at_nine)
    assert path.exists()
    resumed: list[int] = []
    again = solve_values(v, checkpoint=path, on_resume=resumed.append)
    assert resumed == [9] and np.array_equal(again, whole) and not path.exists()
    # a checkpoint of another variant, or a damaged one, is not used: the solve starts afresh
    with pytest.raises(KeyboardInterrupt):
        solve_values(Variant(side=3, marbles=3, win_threshold=2), checkpoint=path, checkpoint_every=0,
                     on_level=stop_at_nine)
    resumed.clear()
    told: list[str] = []
    assert np.array_equal(solve_values(v, checkpoint=path, on_resume=resumed.append, on_set_aside=told.append),
                          whole) and resumed == []
    assert (tmp_path / "solve.partial.npz.other").exists() and "of another solve" in told[-1]
    path.write_bytes(b"not a checkpoint")
    assert np.array_equal(solve_values(v, checkpoint=path, on_resume=resumed.append, on_set_aside=told.append),
                          whole) and resumed == []
    assert (tmp_path / "solve.partial.npz.damaged").read_bytes() == b"not a checkpoint" and "damaged" in told[-1]


def test_a_second_solve_of_a_variant_waits_for_the_first_and_uses_its_table(tmp_path, monkeypatch):
    """One solve of a variant at a time in a cache folder: while another holds the variant's lock, a solve says
    it waits, solves nothing, and returns the table the other left; the lock file left behind holds nothing."""
    import fcntl
    import threading

    monkeypatch.setenv("SUMITO_SOLVED_DIR", str(tmp_path))
    v = Variant(side=3, marbles=3, win_threshold=3)
    T._LOADED.pop((v, "draw"), None)
    told: list[str] = []
    done: list[SolvedTable] = []
    with T.solve_lock(v) as waited:  # "the other process" (flock: another open file waits, in a process too)
        assert not waited
        worker = threading.Thread(target=lambda: done.append(SolvedTable.for_variant(
            v, on_wait=lambda _: told.append("waiting"), on_solve=lambda _: told.append("solving"))))
        worker.start()
        while not told and worker.is_alive():  # a state, not a time: the waiter has said so
            worker.join(0.01)
        assert told == ["waiting"] and not done
        whole = SolvedTable(v, "draw", solve_values(v))
        whole.save(T.cache_path(v))
    worker.join()
    assert told == ["waiting"], "the waiter solved again instead of using the table left for it"
    assert done[0].digest() == whole.digest()
    # the lock is the system's: a file left behind holds nothing
    with open(tmp_path / f"{T.variant_name(v)}.lock", "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    T._LOADED.pop((v, "draw"), None)


@pytest.mark.slow
def test_ctrl_c_stops_sumito_solve_and_the_same_command_goes_on(tmp_path):
    """Ctrl-C during `sumito solve` ends it at once with one line (status 130); run again, it goes on from its
    checkpoint and gives the table an uninterrupted solve gives (digest pinned from the family's summary)."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "SUMITO_SOLVED_DIR": str(tmp_path)}
    argv = [sys.executable, "-m", "sumito", "solve", "--marbles", "4", "--win", "3"]
    proc = subprocess.Popen([*argv, "--checkpoint-every", "0"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.strip().startswith("20 plies:"):
                break
        assert seen and seen[-1].strip().startswith("20 plies:"), "".join(seen)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        assert proc.wait(timeout=30) == 130 and time.monotonic() - t0 < 10, rest[-2000:]
    finally:
        proc.kill()
    assert rest.strip().splitlines()[-1] == "sumito: interrupted" and "Traceback" not in rest
    assert (tmp_path / "side3-m4-w3.partial.npz").exists() and not (tmp_path / "side3-m4-w3.npz").exists()
    done = subprocess.run([*argv, "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "going on from the checkpoint of a stopped solve, at 2" in done.stderr  # 20 plies or one more
    assert json.loads(done.stdout)["digest"] == "1e1a9935eb4031f8"
    assert not (tmp_path / "side3-m4-w3.partial.npz").exists()


@pytest.mark.slow
def test_mini_perfect_scores_learners_against_the_table_and_goes_on_from_its_last_checkpoint(mini_table, monkeypatch,
                                                                                             tmp_path):
    """experiments/mini_perfect.py: a run scored at its checkpoints; one extended by a checkpoint later trains
    on from its saved state and gives the rows a run to the new checkpoint in one go gives."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))
    import mini_perfect as mp

    monkeypatch.setattr(mp, "YARDSTICK_SUITE", 60)
    monkeypatch.setattr(mp, "_SUITES", {})
    monkeypatch.setattr(mp, "solved_table", lambda variant: mini_table)
    arm = next(a for a in mp.arms() if a.label == "method-Ia")
    monkeypatch.setattr(mp, "CHECKPOINTS", (0, 20))
    first = mp.run_one((arm, 5, tmp_path / "a"))
    assert [int(r["games"]) for r in first] == [0, 20] and all(int(r["positions"]) == 60 for r in first)
    assert int(first[1]["kept"]) + int(first[1]["win_to_draw"]) + int(first[1]["win_to_loss"]) \
        + int(first[1]["draw_to_loss"]) == 60
    monkeypatch.setattr(mp, "CHECKPOINTS", (0, 20, 40))
    extended = mp.run_one((arm, 5, tmp_path / "a"))
    whole = mp.run_one((arm, 5, tmp_path / "b"))

    def scores(rows):
        return [{k: v for k, v in r.items() if k != "train_seconds"} for r in rows]

    assert scores(extended[:2]) == scores(first) and scores(extended) == scores(whole)


@pytest.mark.parametrize("win", [1, 2, 3])
def test_each_five_marble_variant_starts_from_the_mini_layout_with_its_own_rules(win):
    """The family's summaries look the start up in each variant's own table (5 marbles, 1 to 3 to win)."""
    v = Variant(side=3, marbles=5, win_threshold=win)
    start = start_of(v)
    assert start.variant == v and T.not_covered(v, start) is None
    assert start_of(v.with_options(inline_only=True)).variant.inline_only
    with pytest.raises(YardstickError, match="has no start"):
        start_of(Variant(side=3, marbles=4, win_threshold=win))


def test_a_board_past_the_bitboards_is_refused_in_one_line():
    with pytest.raises(SolveError, match="the solver solves boards of side 2 and 3"):
        solve_values(Variant(side=4, marbles=1, win_threshold=1))
