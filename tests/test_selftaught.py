"""The self-taught line: generation 0 knows the marble count alone; attempts play, train and
gate; every step resumes; nothing hand-set enters a network."""

import json

import numpy as np
import pytest

from sumito.arena.errors import ArenaError
from sumito.arena.executor import InlineExecutor
from sumito.arena.openings import default_suite_path, load_openings
from sumito.cli import main
from sumito.evaluation.features import nnue_base
from sumito.evaluation.nnue import load_network, nnue_score
from sumito.games.abalone import Position
from sumito.learn.nnue import generate, load_samples
from sumito.learn.selftaught import LoopSettings, SelfTaughtError, generation_zero, open_run, run
from sumito.models.nnue_fit import FitSettings, NNUEDataError, fit, td_leaf_targets

from helpers import random_playout

TINY = LoopSettings(games=4, depth=1, window=2, hidden=4, hidden2=2, epochs=1, gate_games=4, chunk=2,
                    max_plies=40, elo0=0.0, elo1=50.0)


def test_generation_zero_knows_the_marble_count_and_nothing_else():
    net = generation_zero(hidden=8, hidden2=4)
    assert net.base is None and not net.psqt.any() and not net.w3.any()
    params = net.params()
    geo = Position.start().geometry
    for pos in random_playout(Position.start(), 80, np.random.default_rng(3))[::8]:
        lb, lw = pos.lost
        mine, theirs = (lb, lw) if pos.side_to_move == 1 else (lw, lb)
        score = nnue_score(pos.grid, pos.side_to_move, lb, lw, geo.cells, params, np.zeros(2048))
        assert score == pytest.approx(1000.0 * (theirs - mine))
        assert nnue_base(pos.grid, pos.side_to_move, lb, lw, geo.cells, geo.ring, geo.offsets, 4, params,
                         np.zeros((2, 16))) == 0.0


def test_a_run_plays_trains_gates_and_resumes(tmp_path):
    folder = tmp_path / "run"
    state = run(folder, generations=5, settings=TINY, executor=InlineExecutor(), max_attempts=1, log=lambda _: None)
    assert len(state.attempts) == 1 and (folder / "net-000.npz").exists()
    first = state.attempts[0]
    assert first.generation == 0 and first.positions > 0 and "games" in first.gate
    attempt = folder / "attempt-0001"
    assert len(list((attempt / "data").glob("chunk-*.npz"))) == 2 and (attempt / "candidate.npz").exists()
    assert sum(1 for _ in (attempt / "gate.jsonl").open()) >= 2
    candidate = load_network(attempt / "candidate.npz")
    assert candidate.base is None and candidate.hidden == (4, 2)  # warm-started from generation 0, no base
    assert (folder / "net-001.npz").exists() == first.accepted
    # resumed: the state says where it stands; a second attempt trains on both attempts' data (window 2)
    state = run(folder, generations=5, settings=None, executor=InlineExecutor(), max_attempts=2, log=lambda _: None)
    assert [a.number for a in state.attempts] == [1, 2]
    assert state.attempts[1].positions > first.positions
    saved = json.loads((folder / "state.json").read_text())
    assert saved["generation"] == state.generation and len(saved["attempts"]) == 2


@pytest.mark.parametrize("report", ['["positions"]', '{"positions": "many", "seconds": 1, "validation_loss": 0.1}',
                                    '{"positions": 10, "seconds": null, "validation_loss": 0.1}'])
def test_a_damaged_training_report_is_one_line_naming_it(tmp_path, report):
    """An attempt that goes on after its candidate was trained reads the training report it wrote: one of
    other shapes or types is refused in one line naming the file, not a traceback."""
    folder = tmp_path / "run"
    run(folder, generations=5, settings=TINY, executor=InlineExecutor(), max_attempts=1, log=lambda _: None)
    second = folder / "attempt-0002"
    second.mkdir()
    (second / "candidate.npz").write_bytes((folder / "attempt-0001" / "candidate.npz").read_bytes())
    (second / "train.json").write_text(report)
    with pytest.raises(SelfTaughtError) as caught:
        run(folder, generations=5, settings=None, executor=InlineExecutor(), max_attempts=2, log=lambda _: None)
    assert "train.json" in str(caught.value) and "\n" not in str(caught.value)


def test_a_run_on_the_mini_board_plays_from_its_openings(tmp_path):
    """``side=3``: the networks are the mini board's, and self-play and the gate open from its shipped suite."""
    folder = tmp_path / "mini"
    settings = LoopSettings(**{**TINY.__dict__, "side": 3, "games": 8})
    state = run(folder, generations=5, settings=settings, executor=InlineExecutor(), max_attempts=1,
                log=lambda _: None)
    assert load_network(folder / "net-000.npz").side == 3 and state.attempts[0].positions > 0
    suite = {Position.from_string(text).to_string() for text in load_openings(default_suite_path(3))}
    assert len(suite) == 200 and all(Position.from_string(text).geometry.side == 3 for text in suite)
    games = [json.loads(line) for line in (folder / "attempt-0001" / "gate.jsonl").open()]
    assert games and all(g["result"]["task"]["start"] in suite for g in games)
    with pytest.raises(ArenaError, match="no opening suite is shipped for the board of side 4"):
        default_suite_path(4)


def test_a_resumed_run_refuses_other_settings(tmp_path):
    folder = tmp_path / "run"
    open_run(folder, TINY)
    with pytest.raises(SelfTaughtError, match="--hidden was 4 when this run started, not 8"):
        open_run(folder, LoopSettings(**{**TINY.__dict__, "hidden": 8}))
    # the attempts to come may play longer gates: recorded, and kept on the next resume (the attempt in progress
    # keeps its gate's games: the journal's games do not depend on its length)
    state = open_run(folder, LoopSettings(**{**TINY.__dict__, "gate_games": 8}), only={"gate_games"})
    assert state.settings.gate_games == 8 and state.changes == [{"from_attempt": 1, "gate_games": 8}]
    assert open_run(folder, None).settings.gate_games == 8
    (folder / "state.json").write_text("{not json")
    with pytest.raises(SelfTaughtError, match=r"state\.json"):
        open_run(folder, None)


def test_the_sprt_bounds_are_checked_as_the_run_will_use_them(tmp_path):
    """A resumed run's new --elo1 is checked against its own --elo0, not the default's."""
    folder = tmp_path / "run"
    with pytest.raises(SelfTaughtError, match=r"--elo1 \(0\) must be above --elo0 \(0\)"):
        open_run(folder, LoopSettings(**{**TINY.__dict__, "elo1": 0.0}))
    assert not folder.exists()
    open_run(folder, LoopSettings(**{**TINY.__dict__, "elo0": 40.0, "elo1": 100.0}))
    with pytest.raises(SelfTaughtError, match=r"--elo1 \(30\) must be above --elo0 \(40\)"):
        open_run(folder, LoopSettings(**{**TINY.__dict__, "elo1": 30.0}), only={"elo1"})
    assert open_run(folder, None).settings.elo1 == 100.0  # nothing recorded
    state = open_run(folder, LoopSettings(**{**TINY.__dict__, "elo0": -20.0, "elo1": 10.0}),
                     only={"elo0", "elo1"})
    assert (state.settings.elo0, state.settings.elo1) == (-20.0, 10.0)


def test_a_warm_start_must_match_and_have_no_base(tmp_path):
    generate(tmp_path / "d", 2, player="engine:depth=1", chunk=2, max_plies=60,
             openings=[Position.start().to_string()])
    samples = load_samples([tmp_path / "d"])
    with pytest.raises(NNUEDataError, match="layers"):
        fit(samples, FitSettings(hidden=8, hidden2=4, epochs=1, base=False, quiet_only=False),
            init=generation_zero(hidden=4, hidden2=2))
    with pytest.raises(NNUEDataError, match="without a base"):
        fit(samples, FitSettings(hidden=4, hidden2=2, epochs=1, base=True, quiet_only=False),
            init=generation_zero(hidden=4, hidden2=2))


def test_the_command_runs_and_resumes(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["nnue", "selfplay", "--out", str(out), "--generations", "3", "--max-attempts", "1", "--games", "4",
            "--depth", "1", "--hidden", "4", "--hidden2", "2", "--epochs", "1", "--gate-games", "4", "--chunk", "2",
            "--workers", "1"]
    assert main(argv) == 0
    assert "after 1 attempt(s)" in capsys.readouterr().out
    assert main(["nnue", "selfplay", "--out", str(out), "--generations", "3", "--max-attempts", "1"]) == 0
    assert main(["nnue", "selfplay", "--out", str(out), "--generations", "3", "--hidden", "8"]) == 2
    assert "--hidden was 4 when this run started, not 8" in capsys.readouterr().err


def test_td_leaf_targets_are_lambda_returns_of_the_following_searches():
    k = 1000.0
    # two games: three positions won by the side to move at the last, then two drawn
    score = np.array([0.0, 1000.0, -2000.0, 500.0, 0.0], dtype=np.float32)
    result = np.array([1.0, 0.0, 1.0, 0.5, 0.5], dtype=np.float32)
    game = np.array([0, 0, 0, 1, 1])
    v = 1 / (1 + np.exp(-score.astype(np.float64) / k))
    g2 = 1.0
    g1 = 0.3 * (1 - v[2]) + 0.7 * (1 - g2)  # the next side's value and return, seen from this side
    g0 = 0.3 * (1 - v[1]) + 0.7 * (1 - g1)
    expected = [g0, g1, g2, 0.3 * (1 - v[4]) + 0.7 * (1 - 0.5), 0.5]
    assert td_leaf_targets(score, result, game, k, 0.7) == pytest.approx(expected)
    # lambda 1: the game's result (Monte Carlo); lambda 0: the next search's value, for the side to move
    assert td_leaf_targets(score, result, game, k, 1.0) == pytest.approx(result)
    assert td_leaf_targets(score, result, game, k, 0.0)[:2] == pytest.approx(1 - v[1:3])


def test_a_network_trains_on_td_leaf_targets(tmp_path):
    generate(tmp_path / "d", 2, player="engine:depth=1", chunk=2, max_plies=60,
             openings=[Position.start().to_string()])
    samples = load_samples([tmp_path / "d"])
    net, _ = fit(samples, FitSettings(hidden=4, hidden2=2, epochs=1, base=False, quiet_only=False, targets="tdleaf",
                                      lam=0.7), init=generation_zero(hidden=4, hidden2=2))
    assert net.metadata["targets"] == "tdleaf" and np.isfinite(net.W1).all()
    with pytest.raises(NNUEDataError, match="targets 'td'"):
        fit(samples, FitSettings(hidden=4, hidden2=2, epochs=1, base=False, quiet_only=False, targets="td"))


def test_without_a_gate_every_candidate_becomes_the_next_generation(tmp_path, capsys):
    folder = tmp_path / "nogate"
    settings = LoopSettings(**{**TINY.__dict__, "side": 3, "games": 8, "gate_games": 0})
    state = run(folder, generations=2, settings=settings, executor=InlineExecutor(), max_attempts=2,
                log=lambda _: None)
    assert state.generation == 2 and [a.accepted for a in state.attempts] == [True, True]
    assert all(a.gate == "no gate" for a in state.attempts)
    assert not (folder / "attempt-0001" / "gate.jsonl").exists()
    assert (folder / "net-002.npz").exists()
    assert main(["nnue", "selfplay", "--out", str(tmp_path / "x"), "--generations", "1", "--gate-games", "1"]) == 2
    assert "0 (no gate) or at least 2" in capsys.readouterr().err


def test_random_opening_plies_that_repeat_a_position_end_the_game_there(tmp_path):
    """Many random quiet plies on the mini board come back to a position three times: that game ends drawn
    where the rules end it, and the attempt goes on."""
    settings = LoopSettings(**{**TINY.__dict__, "side": 3, "games": 20, "chunk": 10, "random_plies": 60,
                               "gate_games": 0})
    state = run(tmp_path / "r", generations=1, settings=settings, executor=InlineExecutor(), max_attempts=1,
                log=lambda _: None)
    assert state.attempts[0].positions > 0
