"""The engine's NNUE: incremental accumulator, symmetry, search, files, data and training."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from tests.helpers import random_playout

from sumito.cli import main
from sumito.evaluation.features import EVAL_NNUE
from sumito.evaluation.nnue import (
    NNUE,
    SCALE,
    NNUEError,
    load_network,
    n_features,
    nnue_output,
    nnue_score,
    refresh_accumulator,
    symmetries,
    update_accumulator,
)
from sumito.games.abalone import Position
from sumito.games.abalone.kernels import PUSH_OFF_BIT, generate_push_offs, make_move
from sumito.learn.nnue import generate, load_samples
from sumito.models.nnue_features import features
from sumito.models.nnue_fit import FitSettings, NNUEDataError, _forward, _loss_and_grads, fit
from sumito.players import PlayerSpecError, make_player
from sumito.players.engine import EnginePlayer
from sumito.search.context import SearchContext
from sumito.search.pvs import Searcher


def random_net(side: int = 5, h: int = 8, h2: int = 4, seed: int = 0) -> NNUE:
    rng = np.random.default_rng(seed)
    nf = n_features(side)
    return NNUE(rng.normal(0, 0.3, (nf, h)), rng.normal(0.4, 0.2, h), rng.normal(0, 0.5, (h2, 2 * h)),
                rng.normal(0, 0.2, h2), rng.normal(0, 0.5, h2 if h2 else 2 * h), 0.05, 1.0,
                psqt=rng.normal(0, 0.1, nf), side=side)


@pytest.mark.parametrize(("layout", "h2"), [("belgian-daisy", 4), ("standard", 0), ("small", 4), ("mini", 0)])
def test_incremental_accumulator_equals_a_fresh_sum_along_games(layout, h2):
    start = Position.start(layout)
    geo = start.geometry
    net = random_net(geo.side, h2=h2)
    params = net.params()
    rng = np.random.default_rng(3)
    scratch = np.zeros(2048)
    kinds = set()
    for _ in range(4):
        board, side, lost = start.grid.copy(), 1, [0, 0]
        acc = np.zeros((2, 9))  # H = 8, then the PSQT sum
        refresh_accumulator(board, geo.cells, params, acc)
        pos = start
        for _ply in range(200):
            codes = pos.legal_move_codes()
            if len(codes) == 0 or max(pos.lost) >= pos.variant.win_threshold:
                break
            pushes = [int(c) for c in codes if (c >> 18) & 3]  # prefer pushes: they change opposing marbles
            pick = pushes if pushes and rng.random() < 0.6 else [int(c) for c in codes]
            mv = pick[rng.integers(len(pick))]
            kinds.add("off" if mv & PUSH_OFF_BIT else "push" if (mv >> 18) & 3 else "broadside" if mv & (1 << 14)
                      else "inline")
            child = np.zeros_like(acc)
            update_accumulator(acc, child, mv, side, geo.offsets, params)
            make_move(board, np.int32(mv), side, geo.offsets, geo.zobrist)
            if mv & PUSH_OFF_BIT:
                lost[2 - side] += 1
            side = 3 - side
            pos = pos._after(mv)
            fresh = np.zeros_like(acc)
            refresh_accumulator(board, geo.cells, params, fresh)
            assert np.allclose(child, fresh, atol=1e-12)
            assert nnue_output(child, side, lost[0], lost[1], params, scratch) == pytest.approx(
                nnue_score(board, side, lost[0], lost[1], geo.cells, params, scratch))
            acc = child
    assert {"inline", "push", "broadside"} <= kinds


def test_the_score_is_the_same_for_either_colour_of_a_mirrored_position():
    """A half-turned board with the colours swapped is the same position for the other side."""
    net = random_net(seed=5)
    params = net.params()
    scratch = np.zeros(2048)
    rng = np.random.default_rng(1)
    geo = Position.start().geometry
    turn = symmetries(5)[3]
    for pos in random_playout(Position.start("belgian-daisy"), 30, rng)[::5]:
        board = pos.grid
        mirrored = geo.empty_grid
        cells = board[geo.cells]
        swapped = np.where(cells == 1, 2, np.where(cells == 2, 1, 0)).astype(np.int8)
        mirrored[geo.cells[turn]] = swapped
        side = pos.side_to_move
        a = nnue_score(board, side, 1, 2, geo.cells, params, scratch)
        b = nnue_score(mirrored, 3 - side, 2, 1, geo.cells, params, scratch)
        assert a == pytest.approx(b)


def test_the_psqt_start_is_the_linear_evaluation_without_its_pair_terms():
    """Training starts from the hand-set evaluation's cell terms: with the hidden layers silent, the
    network scores a position as the linear evaluation with adjacency and lines of three off."""
    from sumito.evaluation import LINEAR_DEFAULT
    from sumito.evaluation.features import EVAL_LINEAR, evaluate, work_arrays
    from sumito.models.nnue_fit import linear_psqt

    net = random_net(h=4, h2=2)
    silent = NNUE(net.W1, net.b1, net.W2, net.b2, np.zeros(2), 0.0, 1.0, psqt=linear_psqt(5))
    params = silent.params()
    weights = np.array(LINEAR_DEFAULT)
    weights[2] = weights[4] = 0.0
    raw, scratch = work_arrays()
    geo = Position.start().geometry
    for pos in random_playout(Position.start("belgian-daisy"), 60, np.random.default_rng(2))[::6]:
        board, side, (lb, lw) = pos.grid, pos.side_to_move, pos.lost
        linear = evaluate(board, side, lb, lw, geo.cells, geo.ring, geo.offsets, 4, EVAL_LINEAR, weights, raw, scratch)
        assert nnue_score(board, side, lb, lw, geo.cells, params, np.zeros(2048)) == pytest.approx(linear)


def test_symmetries_are_board_automorphisms():
    geo = Position.start().geometry
    perms = symmetries(5)
    assert len({tuple(p) for p in perms}) == 12
    # every symmetry keeps neighbours neighbours and the centre the centre
    neighbours = {(i, j) for i, g in enumerate(geo.cells) for j, h in enumerate(geo.cells)
                  if h - g in set(geo.offsets.tolist())}
    for p in perms:
        assert {(int(p[i]), int(p[j])) for i, j in neighbours} == neighbours
        assert geo.ring[geo.cells[p]].tolist() == geo.ring[geo.cells].tolist()


def test_search_scores_depth_one_moves_by_the_network():
    """At depth 1 every quiet reply is scored by the accumulator the search updated incrementally:
    it must equal minus the from-scratch score of the position after the move."""
    net = random_net(h=16, h2=8, seed=2)
    params = net.params()
    pos = Position.start("belgian-daisy")
    searcher = Searcher(EVAL_NNUE, params)
    codes = pos.legal_move_codes()
    result = searcher.search(SearchContext.of(pos), codes, max_depth=1, multipv=len(codes), quick_single=False)
    geo = pos.geometry
    scratch = np.zeros(2048)
    edge = geo.cells[geo.ring[geo.cells] == 4]
    quiet = 0
    for line in result.lines:
        child = pos._after(line.move)
        if generate_push_offs(child.grid, 2, geo.offsets, edge, np.empty(512, dtype=np.int32)):
            continue  # White can push a marble off: the quiescence search scores it, not the network alone
        quiet += 1
        expected = -nnue_score(child.grid, 2, 0, 0, geo.cells, params, scratch)
        assert line.score == pytest.approx(expected)
    assert quiet >= 40


def test_engine_with_an_nnue_plays_and_reports(tmp_path):
    path = tmp_path / "net.npz"
    random_net(h=16, h2=8).save(path)
    player = make_player(f"engine:depth=3,nnue={path}")
    move = player.choose(Position.start())
    assert Position.start().is_legal(move)
    assert "nnue=" in player.name
    # on a board the network does not know, the engine searches with the hand-set evaluation
    mini = Position.start("mini")
    assert mini.is_legal(player.choose(mini)) and "NNUE is for the side-5 board" in player.search_info
    assert player.choose(Position.start()) is not None and "NNUE" not in player.search_info
    builtin = make_player("engine:depth=2,nnue=builtin-nnue")
    assert Position.start("belgian-daisy").is_legal(builtin.choose(Position.start("belgian-daisy")))


def test_bad_nnue_files_are_one_line_errors(tmp_path):
    good = tmp_path / "good.npz"
    random_net().save(good)
    assert load_network(good).hidden == (8, 4)
    (tmp_path / "text.npz").write_text("hello")
    data = good.read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    bad = random_net()
    bad.W1[0, 0] = np.nan
    cases = {"text.npz": "not a NNUE file", "cut.npz": "damaged or truncated", "missing.npz": "no such file"}
    for name, message in cases.items():
        with pytest.raises(NNUEError, match=message) as info:
            load_network(tmp_path / name)
        assert "\n" not in str(info.value)
    with pytest.raises(NNUEError, match="not a finite number"):
        NNUE(bad.W1, bad.b1, bad.W2, bad.b2, bad.w3, bad.b3, bad.material)
    with pytest.raises(NNUEError, match="shape"):
        NNUE(bad.W1[:5], bad.b1, bad.W2, bad.b2, bad.w3, bad.b3, bad.material)
    # arrays of the wrong shape or kind, as a hand-made file could hold them
    import io
    import json

    arrays = {"W1": bad.W1, "b1": bad.b1, "W2": bad.W2, "b2": bad.b2, "w3": bad.w3, "b3": np.array(0.0),
              "material": np.array(1.0), "psqt": bad.psqt}
    for name, value, message in (("W2", np.zeros(7), "W2 has shape"), ("b1", np.zeros((8, 1)), "must be vectors"),
                                 ("base", np.array(["a"] * 7), "base is not numeric")):
        buf = io.BytesIO()
        np.savez(buf, meta=np.array(json.dumps({"format": "sumito-nnue", "version": 1, "side": 5})),
                 **{**arrays, name: value})
        (tmp_path / "odd.npz").write_bytes(buf.getvalue())
        with pytest.raises(NNUEError, match=message):
            load_network(tmp_path / "odd.npz")
    with pytest.raises(PlayerSpecError, match="no such file"):
        make_player(f"engine:nnue={tmp_path / 'missing.npz'}")
    with pytest.raises(PlayerSpecError, match="not several"):
        EnginePlayer(nnue=str(good), eval="abla")


@pytest.mark.parametrize(("layout", "h2"), [("belgian-daisy", 16), ("standard", 0), ("small", 4)])
def test_the_search_kernel_and_the_training_forward_pass_agree(layout, h2):
    """The network the search evaluates (sumito.evaluation.nnue, one position) and the one training
    fits (sumito.models.nnue_fit, a batch) are written twice, for speed; they must be one function: inputs,
    perspectives, clipping, layers, PSQT and marble value."""
    start = Position.start(layout)
    geo = start.geometry
    net = random_net(geo.side, h=32, h2=h2, seed=7)
    params = net.params()
    P = {"W1": net.W1, "b1": net.b1, "W2": net.W2, "b2": net.b2, "w3": net.w3, "b3": np.array([net.b3]),
         "material": np.array([net.material]), "psqt": net.psqt}
    positions = [p for game in range(6) for p in random_playout(start, 150, np.random.default_rng(game))]
    boards = np.array([p.grid[geo.cells] for p in positions])
    side = np.array([p.side_to_move for p in positions], dtype=np.int64)
    mat = np.array([p.lost[2 - p.side_to_move] - p.lost[p.side_to_move - 1] for p in positions], dtype=np.float64)
    Xs, Xo = features(boards, side, geo.side)
    expected = SCALE * _forward(P, Xs.astype(np.float64), Xo.astype(np.float64), mat)[-1]
    scratch = np.zeros(2048)
    got = [nnue_score(p.grid, p.side_to_move, p.lost[0], p.lost[1], geo.cells, params, scratch) for p in positions]
    assert np.any(mat != 0) and len(set(np.round(expected, 6))) > len(positions) // 2  # marbles lost; scores differ
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize(("h", "h2"), [(32, 16), (12, 5), (7, 0)])
def test_the_search_kernel_sums_in_the_order_of_a_plain_loop(h, h2):
    """nnue_output without fast-math: bit for bit the sums of a scalar loop over the inputs in order
    (Python floats: IEEE doubles, no fused multiply-add), so the same on every CPU."""
    start = Position.start("belgian-daisy")
    geo = start.geometry
    net = random_net(geo.side, h=h, h2=h2, seed=11)
    params = net.params()
    scratch = np.zeros(2048)
    for pos in random_playout(start, 60, np.random.default_rng(2))[::6]:
        acc = np.zeros((2, h + 1))
        refresh_accumulator(pos.grid, geo.cells, params, acc)
        me, op = pos.side_to_move - 1, 2 - pos.side_to_move
        x = [min(max(float(v), 0.0), 1.0) for v in (*acc[me, :h], *acc[op, :h])]
        out = net.b3
        if h2:
            for u in range(h2):
                z = float(net.b2[u])
                for j in range(2 * h):
                    z += float(net.W2[u, j]) * x[j]
                out += float(net.w3[u]) * min(max(z, 0.0), 1.0)
        else:
            for j in range(2 * h):
                out += float(net.w3[j]) * x[j]
        lost = pos.lost[op] - pos.lost[me]
        expected = SCALE * (out + float(acc[me, h]) - float(acc[op, h]) + net.material * lost)
        assert nnue_output(acc, pos.side_to_move, pos.lost[0], pos.lost[1], params, scratch) == expected


def test_sparse_inputs_are_the_dense_ones():
    from sumito.models.nnue_features import csr, sparse_features

    for layout in ("belgian-daisy", "small"):
        start = Position.start(layout)
        pos = random_playout(start, 80, np.random.default_rng(5))
        boards = np.array([p.grid[p.geometry.cells] for p in pos], dtype=np.int8)
        side = np.array([p.side_to_move for p in pos])
        for dense, sparse in zip(features(boards, side, start.geometry.side),
                                 sparse_features(boards, side, start.geometry.side)):
            assert all(np.array_equal(a, b) for a, b in zip(csr(dense), sparse))


def test_training_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    pos = random_playout(Position.start("belgian-daisy"), 40, rng)
    boards = np.array([p.grid[p.geometry.cells] for p in pos], dtype=np.int8)
    side = np.array([p.side_to_move for p in pos])
    Xs, Xo = features(boards, side, 5)
    assert Xs.sum(axis=1).tolist() == (boards > 0).sum(axis=1).tolist()
    mat = rng.integers(-2, 3, len(pos)).astype(float)
    target = rng.random(len(pos))
    net = random_net(h=6, h2=3, seed=4)
    P = {"W1": net.W1, "b1": net.b1, "W2": net.W2, "b2": net.b2, "w3": net.w3, "b3": np.array([net.b3]),
         "psqt": net.psqt,
         "material": np.array([net.material])}
    _, G = _loss_and_grads(P, Xs, Xo, mat, target, 800.0)
    eps = 1e-6
    for name in P:
        flat = P[name].reshape(-1)
        for i in rng.choice(flat.size, size=min(4, flat.size), replace=False):
            old = flat[i]
            flat[i] = old + eps
            up, _ = _loss_and_grads(P, Xs, Xo, mat, target, 800.0, grads=False)
            flat[i] = old - eps
            down, _ = _loss_and_grads(P, Xs, Xo, mat, target, 800.0, grads=False)
            flat[i] = old
            assert G[name].reshape(-1)[i] == pytest.approx((up - down) / (2 * eps), rel=1e-3, abs=1e-9), name


def test_generate_resumes_and_training_fits(tmp_path, capsys):
    folder = tmp_path / "data"
    openings = [Position.start("belgian-daisy").to_string()]
    assert generate(folder, games=4, player="engine:depth=1", chunk=2, max_plies=60, openings=openings) == 2
    assert generate(folder, games=4, player="engine:depth=1", chunk=2, max_plies=60, openings=openings) == 0
    samples = load_samples([folder])
    assert len(samples) > 100
    assert set(np.unique(samples.game)) == {0, 1, 2, 3}
    assert set(np.unique(samples.result)) <= {0.0, 0.5, 1.0}
    # a position and its result are for the side to move: the two sides' results of a game add up to 1
    g0 = samples.game == 0
    r = samples.result[g0]
    assert set((r[samples.side[g0] == 1][:1] + r[samples.side[g0] == 2][:1]).tolist()) == {1.0}
    _net, report = fit(samples, FitSettings(hidden=8, hidden2=4, epochs=6, lr=3e-3, batch=64, quiet_only=False))
    assert report.train_loss < 0.25 and np.isfinite(report.val_loss)
    # the command line: gen resumes (with the run's own settings), train writes a network the engine plays with
    suite = tmp_path / "openings.txt"
    suite.write_text(openings[0] + "\n")
    assert main(["nnue", "gen", "--out", str(folder), "--games", "4", "--chunk", "2", "--player",
                 "engine:depth=1", "--max-plies", "60", "--openings", str(suite), "--workers", "1"]) == 0
    assert "0 chunks written" in capsys.readouterr().out
    out = tmp_path / "net.npz"
    assert main(["nnue", "train", str(folder), "--out", str(out), "--epochs", "1", "--hidden", "8",
                 "--hidden2", "0", "--all-positions"]) == 0
    assert "validation loss" in capsys.readouterr().out
    assert load_network(out).hidden == (8, 0)
    assert Position.start().is_legal(make_player(f"engine:depth=2,nnue={out}").choose(Position.start()))


def test_bad_data_is_a_one_line_error(tmp_path):
    with pytest.raises(NNUEDataError, match="no chunk"):
        load_samples([tmp_path])
    (tmp_path / "chunk-00000.npz").write_bytes(b"PK\x03\x04junk")
    with pytest.raises(NNUEDataError, match="damaged"):
        load_samples([tmp_path])
    # a chunk whose values training would index with out of range
    import io
    import json

    n = 3
    good = {"boards": np.zeros((n, 61), np.int8), "side": np.ones(n, np.int8), "lost": np.zeros((n, 2), np.int8),
            "score": np.zeros(n, np.float32), "result": np.full(n, 0.5, np.float32), "quiet": np.ones(n, bool),
            "game": np.zeros(n, np.int32)}
    for change, message in (({"boards": np.full((n, 61), 3, np.int8)}, "out of range"),
                            ({"lost": np.zeros(n, np.int8)}, "one row a position"),
                            ({"boards": np.zeros((n, 50), np.int8)}, "50 cells")):
        buf = io.BytesIO()
        np.savez(buf, meta=np.array(json.dumps({"format": "sumito-nnue-data"})), **{**good, **change})
        (tmp_path / "chunk-00000.npz").write_bytes(buf.getvalue())
        with pytest.raises(NNUEDataError, match=message):
            load_samples([tmp_path])
    assert main(["nnue", "train", str(tmp_path / "none"), "--out", str(tmp_path / "x.npz")]) == 2
    assert main(["nnue", "gen", "--out", str(tmp_path / "d"), "--games", "1", "--player", "random"]) == 2


def test_a_server_offers_the_shipped_nnue_and_no_other_file(tmp_path):
    from sumito.web.limits import ModelFolder

    folder = ModelFolder()
    for name in ("builtin-nnue", "selftaught-nnue", "expert-nnue", "none"):
        assert folder("nnue", name) == name
    with pytest.raises(PlayerSpecError, match="only the shipped networks"):
        folder("nnue", "/etc/passwd")
    random_net().save(tmp_path / "mine.npz")
    assert ModelFolder(str(tmp_path))("nnue", "mine.npz") == str((tmp_path / "mine.npz").resolve())
    with pytest.raises(PlayerSpecError, match="not a file in this server's model folder"):
        ModelFolder(str(tmp_path))("nnue", "../mine.npz")


def test_gen_removes_the_temporary_file_a_kill_left(tmp_path):
    """A kill -9 between a chunk's write and its rename leaves ``.chunk-NNNNN.npz.pidPID.XXXXXXXX.tmp``; `nnue gen`
    going on in the folder removes it (it stayed for ever: found by experiments/probe_kills.py)."""
    folder = tmp_path / "data"
    openings = [Position.start().to_string()]
    # the only chunk, finished already: nothing is played
    assert generate(folder, games=1, player="engine:depth=1", chunk=2, max_plies=4, openings=openings) == 1
    left = folder / ".chunk-00000.npz.pid999999999.abcd1234.tmp"  # its writer (no such pid) is gone
    left.write_bytes(b"half a chunk")
    os.utime(left, (time.time() - 5, time.time() - 5))
    assert generate(folder, games=1, player="engine:depth=1", chunk=2, max_plies=4, openings=openings) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["chunk-00000.npz", "config.json"]


def test_the_shipped_networks_by_name():
    # builtin-nnue is the self-taught network: no base, nothing hand-set; expert-nnue, the one
    # before it, is a correction of the hand-set evaluation
    builtin, selftaught, expert = (load_network(n) for n in ("builtin-nnue", "selftaught-nnue", "expert-nnue"))
    assert builtin.base is None and np.array_equal(builtin.W1, selftaught.W1)
    assert expert.base is not None and not np.array_equal(builtin.W1, expert.W1)
    assert builtin.metadata.get("generation_from") == 8  # generation 9 of runs/selftaught came from 8
    assert "expert-nnue" in make_player("engine:depth=1,nnue=expert-nnue").name
