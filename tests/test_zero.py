"""The zero learner: its network, search, self-play loop, player and commands."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sumito.arena.executor import InlineExecutor, ProcessExecutor
from sumito.cli import main
from sumito.evaluation.zero_value import encode
from sumito.games.abalone import Position
from sumito.games.abalone.geometry import geometry, symmetries
from sumito.learn.zero import Learner, ZeroRunError, ZeroSettings, iterations, open_run, play_chunk
from sumito.models.zero.agent import ZeroAgent
from sumito.models.zero.network import PolicyValueNetwork, ZeroNetworkError
from sumito.players import make_player
from sumito.rlcore.actions import action_space
from sumito.rlcore.symmetry import board_symmetries

from helpers import position_with

TINY = dict(h1=16, h2=8, sims=8, games=6, chunk=3, steps=4, batch=16, max_plies=40)


def tiny_net(side: int = 3, seed: int = 0) -> PolicyValueNetwork:
    win = Position.start({3: "mini", 4: "small", 5: "standard"}[side]).variant.win_threshold
    return PolicyValueNetwork(side, win, 16, 8, seed=seed)


def test_the_inputs_and_actions_move_with_each_symmetry_of_the_board():
    rng = np.random.default_rng(1)
    pos = Position.start("mini")
    for _ in range(6):
        pos = pos.play(pos.legal_moves()[int(rng.integers(len(pos.legal_moves())))])
    geo, sym, space = geometry(3), board_symmetries(3), action_space(3)
    cells = symmetries(3)
    active = np.zeros(64, dtype=np.int64)
    n = encode(pos.grid, pos.side_to_move, pos.lost[pos.side_to_move - 1], pos.lost[2 - pos.side_to_move],
               geo.cells, 2, active)
    legal = sorted(space.move_to_action(m) for m in pos.legal_moves())
    for k in range(12):
        image = sym.position(pos, k)
        got = np.zeros(64, dtype=np.int64)
        m = encode(image.grid, image.side_to_move, image.lost[image.side_to_move - 1],
                   image.lost[2 - image.side_to_move], geo.cells, 2, got)
        n_cells = geo.n_cells
        mapped = [int(cells[k, f]) if f < n_cells else n_cells + int(cells[k, f - n_cells]) if f < 2 * n_cells else f
                  for f in active[:n]]
        assert m == n and sorted(got[:m]) == sorted(mapped)
        assert sorted(space.move_to_action(mv) for mv in image.legal_moves()) == sorted(sym.action(a, k) for a in legal)


def test_the_search_wins_at_once_when_a_push_off_wins():
    # Black's c2-c3-c4 pushes White's c5 off the board: White's second marble lost, Black wins
    pos = position_with(["c2", "c3", "c4", "a1", "a2"], ["c5", "e5", "e4", "d5"], side=3, lost=(0, 1),
                        win_threshold=2)
    wins = [m for m in pos.legal_moves() if pos.play(m).winner() == 1]
    assert wins
    for mode in ("gumbel", "puct"):
        # (every move considered: an untrained prior need not rank the winning move among its top 16)
        agent = ZeroAgent(tiny_net(), mode, considered=64)
        result = agent.search(pos, 64)
        move = int(result.codes[result.chosen])
        assert pos.play(pos.legal_moves()[[m.code for m in pos.legal_moves()].index(move)]).winner() == 1
        assert abs(result.policy.sum() - 1.0) < 1e-9 and result.visits.sum() == 64
        assert result.policy[result.chosen] == result.policy.max()  # the target learns the win too


def test_the_search_is_deterministic_without_noise_and_seeded_with_it():
    pos = Position.start("mini")
    agent = ZeroAgent(tiny_net(seed=3))
    a, b = agent.search(pos, 32), agent.search(pos, 32)
    assert a.chosen == b.chosen and np.array_equal(a.policy, b.policy)
    c, d = agent.search(pos, 32, noise=True, seed=9), agent.search(pos, 32, noise=True, seed=9)
    assert np.array_equal(c.policy, d.policy) and c.chosen == d.chosen


@pytest.mark.parametrize("layout", ["mini", "small", "standard"])
def test_a_learner_plays_and_trains_on_every_board(layout):
    learner = Learner(ZeroSettings(layout=layout, **{**TINY, "games": 2, "chunk": 2}))
    before = learner.network.theta.copy()
    learner.iterate(InlineExecutor())
    assert learner.games == 2 and learner.positions == len(learner.replay) > 0
    assert not np.array_equal(before, learner.network.theta)
    assert np.isfinite(learner.losses).all()
    r = learner.replay
    assert np.all(np.abs(r.values) <= 1) and np.all(np.diff(r.legal_start) > 0)
    sums = np.add.reduceat(r.targets.astype(np.float64), r.legal_start[:-1])
    assert np.allclose(sums, 1.0, atol=1e-5)


def test_workers_and_a_resume_change_no_bit(tmp_path):
    settings = ZeroSettings(**TINY, seed=4)
    run, learner = open_run(tmp_path / "straight", settings, resume=False)
    for _ in iterations(run, learner, InlineExecutor(), 12):
        pass
    straight = learner.network.theta.copy()
    # the same run on two worker processes, stopped after its first iteration and resumed
    run, learner = open_run(tmp_path / "resumed", settings, resume=False)
    for _ in iterations(run, learner, ProcessExecutor(2), 6):
        pass
    run, learner = open_run(tmp_path / "resumed", settings, resume=True)
    assert learner.games == 6
    for _ in iterations(run, learner, ProcessExecutor(2), 12):
        pass
    assert np.array_equal(straight, learner.network.theta)
    assert learner.network.digest() == PolicyValueNetwork.load(tmp_path / "resumed" / "net.npz").digest()


def test_a_resume_with_another_setting_is_refused(tmp_path):
    open_run(tmp_path / "r", ZeroSettings(**TINY), resume=False)
    with pytest.raises(ZeroRunError, match="--sims was 8"):
        open_run(tmp_path / "r", ZeroSettings(**{**TINY, "sims": 9}), resume=True)
    with pytest.raises(ZeroRunError, match="already holds a run"):
        open_run(tmp_path / "r", ZeroSettings(**TINY), resume=False)


def test_damaged_files_are_one_line_errors(tmp_path, capsys):
    net = tmp_path / "net.npz"
    tiny_net().save(net)
    data = net.read_bytes()
    for name, damaged in (("cut", data[: len(data) // 2]), ("text", b"hello"), ("empty", b"")):
        bad = tmp_path / f"{name}.npz"
        bad.write_bytes(damaged)
        with pytest.raises(ZeroNetworkError):
            PolicyValueNetwork.load(bad)
        assert main(["zero", "analyse", "--net", str(bad), "--layout", "mini"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("sumito: error:") and "\n" not in err
    run, learner = open_run(tmp_path / "run", ZeroSettings(**TINY), resume=False)
    for _ in iterations(run, learner, InlineExecutor(), 6):
        pass
    checkpoint = run.checkpoint.read_bytes()
    run.checkpoint.write_bytes(checkpoint[:-100])
    with pytest.raises(ZeroRunError):
        open_run(tmp_path / "run", ZeroSettings(**TINY), resume=True)


def test_the_player_plays_legal_moves_the_same_way_twice(tmp_path):
    net = tmp_path / "net.npz"
    tiny_net(seed=2).save(net)
    pos = Position.start("mini")
    for options in ("sims=16", "play=policy", "play=value", "time=0.01", "sims=16,mode=puct"):
        a, b = make_player(f"zero:net={net},{options}"), make_player(f"zero:net={net},{options}")
        p = pos
        for _ in range(6):
            move = a.choose(p)
            assert move in p.legal_moves()
            if "time" not in options:
                assert b.choose(p) == move
            p = p.play(move)
    with pytest.raises(Exception, match="side-3 board"):
        make_player(f"zero:net={net}").choose(Position.start("standard"))


def test_the_commands_train_report_and_analyse(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["zero", "train", "--out", str(out), "--games", "4", "--games-per-iteration", "2", "--chunk", "2",
            "--h1", "16", "--h2", "8", "--sims", "4", "--steps", "2", "--batch", "8", "--workers", "1"]
    assert main(args) == 0
    assert "4 games" in capsys.readouterr().out
    assert main([*args[:4], "--games", "6", *args[6:], "--resume"]) == 0
    assert main([*args, "--resume", "--sims", "5"]) == 2
    assert "--sims was 4" in capsys.readouterr().err
    assert main(["zero", "analyse", "--net", str(out / "net.npz"), "--layout", "mini", "--sims", "16"]) == 0
    text = capsys.readouterr().out
    assert "<- plays" in text and "a1b2" in text
    assert main(["zero", "report", str(out)]) == 2  # trained without --score-every: no curve


def test_a_run_names_its_search_in_every_network_it_writes(tmp_path):
    assert main(["zero", "train", "--out", str(tmp_path / "r"), "--games", "2", "--games-per-iteration", "2",
                 "--h1", "8", "--h2", "4", "--sims", "4", "--steps", "1", "--batch", "4", "--mode", "puct",
                 "--workers", "1"]) == 0
    net = PolicyValueNetwork.load(tmp_path / "r" / "net.npz")
    assert net.metadata["settings"]["mode"] == "puct" and net.metadata["games"] == 2
    assert Learner(ZeroSettings(mode="puct", h1=8, h2=4)).network.metadata["settings"]["mode"] == "puct"
    # a discounted run's network searches with its discount
    learner = Learner(ZeroSettings(h1=8, h2=4, discount=0.9))
    learner.network.save(tmp_path / "d.npz")
    assert make_player(f"zero:net={tmp_path / 'd.npz'}").agent.discount == 0.9
    assert make_player(f"zero:net={tmp_path / 'r' / 'net.npz'}").agent.discount == 1.0


def test_a_discounted_result_counts_less_the_further_away_it_is():
    settings = ZeroSettings(**{**TINY, "games": 8, "chunk": 8}, random_starts=1.0, value_mix=0.0, seed=3)
    plain = play_chunk(Learner(settings).chunks()[0])
    settings = ZeroSettings(**{**TINY, "games": 8, "chunk": 8}, random_starts=1.0, value_mix=0.0, seed=3,
                            discount=0.9)
    discounted = play_chunk(Learner(settings).chunks()[0])
    decided = 0
    start = 0
    for winner, plies in zip(discounted.winners, discounted.plies):
        values = discounted.samples.values[start:start + plies]
        if winner:
            decided += 1
            # the side that pushed the last marble off: 0.9 a ply before the end, 0.81 two plies before, ...
            left = plies - np.arange(plies)
            assert np.allclose(np.abs(values), 0.9 ** left, rtol=1e-6)
            assert np.all(np.sign(values[-1::-2]) == 1) and np.all(np.sign(values[-2::-2]) == -1)
        else:
            assert np.all(values == 0)
        start += plies
    assert decided >= 2 and start == len(discounted.samples)
    # undiscounted, every decided game's samples are exactly ±1
    assert np.all(np.isin(plain.samples.values, [-1.0, 0.0, 1.0]))


def test_the_pages_tables_are_the_scripts_output_from_the_committed_runs():
    """docs/zero.md's tables are written by experiments/zero_mini.py from the committed curves and scores: a
    page edited by hand, or rows changed without the page, fails here."""
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("zero_mini", root / "experiments" / "zero_mini.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    page = (root / "docs" / "zero.md").read_text()
    runs = script.DEFAULT_RUNS
    assert script.page_table(script.read_curves(runs), runs) in page
    assert script.shipped_table(root / "runs" / "zero" / "scores-shipped.json") in page
    assert script.comparison([root / "runs/zero/mini-s1", root / "runs/zero/mini-puct-s1"]) in page
    assert script.comparison([root / "runs/zero/mini-v3-s1", root / "runs/zero/mini-wide-s1"]) in page
    discount = [root / f"runs/zero/{name}" for name in ("mini-v3-s1", "mini-v3-s2", "mini-v3-s3", "mini-disc99-s1",
                                                         "mini-disc95-s1")]
    assert script.comparison(discount, 20_000, True, ["sims=256", "play=policy"]) in page
    spec = importlib.util.spec_from_file_location("zero_errors", root / "experiments" / "zero_errors.py")
    errors = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(errors)
    rows = json.loads((root / "runs" / "zero" / "errors-shipped.json").read_text())
    assert errors.table(rows) in page
    shipped = PolicyValueNetwork.load(root / "src" / "sumito" / "data" / "zero-mini.npz")
    assert shipped.digest() == PolicyValueNetwork.load(root / "runs/zero/mini-v3-s1/net.npz").digest()
    assert shipped.metadata["games"] == 70_000


def test_the_engine_searches_with_a_zero_networks_value():
    from sumito.evaluation.learned import network_score
    from sumito.evaluation.zero_value import ZERO_SCALE
    from sumito.games.abalone.geometry import geometry as board_geometry
    from sumito.players.engine import EnginePlayer
    from sumito.players.zero import zero_network_path

    net = PolicyValueNetwork.load(zero_network_path("builtin"))
    agent, params, geo = ZeroAgent(net, "puct"), net.search_params(), board_geometry(3)
    rng = np.random.default_rng(0)
    pos = Position.start("mini")
    for _ in range(12):  # the search's static value is the network's, bit for bit
        score = network_score(pos.grid, pos.side_to_move, pos.lost[0], pos.lost[1], geo.cells, geo.cells,
                              geo.offsets, params, np.zeros(2048))
        assert score == ZERO_SCALE * agent.value(pos)
        moves = pos.legal_moves()
        pos = pos.play(moves[int(rng.integers(len(moves)))])
    engine = make_player("engine:zero=builtin,depth=2")
    assert isinstance(engine, EnginePlayer) and engine.name == "engine:depth=2,zero=builtin"
    assert engine.choose(pos) in pos.legal_moves()
    small = Position.start("small")  # another board than the network's: the hand-set evaluation
    assert engine.choose(small) in small.legal_moves() and "hand-set evaluation" in engine.search_info
    with pytest.raises(Exception, match="zero= or net="):
        make_player("engine:zero=builtin,eval=linear")


def test_sumito_zero_train_resume_takes_the_runs_own_settings(tmp_path, capsys):
    """`zero train --resume` goes on with the settings in the run's config.json: the flags given when it began
    need not be typed again, and one typed that differs is refused in one line, naming it."""
    out = str(tmp_path / "run")
    flags = ["--h1", "16", "--h2", "8", "--sims", "4", "--games-per-iteration", "2", "--chunk", "1", "--steps", "2",
             "--batch", "8", "--max-plies", "20", "--seed", "5"]
    assert main(["zero", "train", "--out", out, "--games", "2", *flags]) == 0
    capsys.readouterr()
    assert main(["zero", "train", "--out", out, "--games", "4", "--resume"]) == 0
    assert ": 4 games," in capsys.readouterr().out  # went on to 4 games, its network of 16 and 8 units loaded
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["h1"] == 16 and config["sims"] == 4
    capsys.readouterr()
    assert main(["zero", "train", "--out", out, "--games", "6", "--resume", "--sims", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--sims was 4" in err and "\n" not in err


def test_a_scored_run_in_a_folder_a_spec_cannot_hold_is_refused_first(tmp_path, capsys):
    assert main(["zero", "train", "--out", str(tmp_path / "a,b"), "--games", "2", "--score-every", "2"]) == 2
    assert "without ',' or '='" in capsys.readouterr().err and not (tmp_path / "a,b").exists()
