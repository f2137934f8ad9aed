"""TD training runs: determinism, exact resume, checkpoints, the `train` command and the `td` player."""

from __future__ import annotations

import numpy as np
import pytest

from sumito.cli import main
from sumito.defaults import METHOD_PRESETS
from sumito.games.abalone import DrawRules, Position
from sumito.learn.abalone_game import PlayerOpponent
from sumito.learn.run import RunFolder, load_checkpoint, save_checkpoint
from sumito.learn.training import Trainer, TrainingConfig, TrainingError
from sumito.models.abalone_game import AbaloneLearningGame
from sumito.players import PlayerSpecError, make_player

from helpers import position_with

MINI = dict(layout="mini", max_plies=60, repetitions=20)


def trainer(**options) -> Trainer:
    config = TrainingConfig(**{**MINI, **options})
    game = AbaloneLearningGame(config.encoding, Position.start(config.layout), DrawRules(config.max_plies, 20))
    return Trainer(game, config, lambda spec, seed: PlayerOpponent(spec, seed))


@pytest.mark.parametrize("preset", sorted(METHOD_PRESETS))
def test_presets_train_and_change_the_network(preset):
    t = trainer(**METHOD_PRESETS[preset])
    before = t.network.theta.copy()
    for _ in range(5):
        stats = t.play_game()
        assert stats.plies > 0 and stats.winner in (0, 1, 2)
    assert t.games == 5 and not np.array_equal(before, t.network.theta)
    assert t.epsilon == pytest.approx(0.9 * 0.99**5)


def test_same_seed_same_training_and_exact_resume(tmp_path):
    a = trainer(**METHOD_PRESETS["method-II"], seed=3)
    for _ in range(6):
        a.play_game()
    b = trainer(**METHOD_PRESETS["method-II"], seed=3)
    for _ in range(3):
        b.play_game()
    save_checkpoint(tmp_path / "c.npz", b)
    saved = load_checkpoint(tmp_path / "c.npz")
    c = trainer(**saved["config"])
    c.load_state_dict(saved["state"])
    for _ in range(3):
        c.play_game()
    assert c.games == a.games == 6
    assert np.array_equal(a.network.theta, c.network.theta)
    assert np.array_equal(a.learners[1].trace, c.learners[1].trace) and a.epsilon == c.epsilon


def test_opponent_regime_alternates_colours_and_observe_learns_from_the_expert():
    t = trainer(regime="opponent", opponent="random")
    sides = [t.play_game().learner_sides for _ in range(2)]
    assert sides == [(1,), (2,)]
    o = trainer(regime="observe", opponent="greedy", epsilon=0.0)
    before = o.network.theta.copy()
    assert o.play_game().learner_sides == (1, 2)
    assert not np.array_equal(before, o.network.theta)


def test_bad_configurations_are_refused(tmp_path):
    with pytest.raises(TrainingError, match="rewards"):
        TrainingConfig(rewards="sometimes")
    with pytest.raises(TrainingError, match="regime"):
        TrainingConfig(regime="dreaming")
    with pytest.raises(TrainingError, match="no checkpoint"):
        load_checkpoint(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_text("junk")
    with pytest.raises(TrainingError, match="not a readable training checkpoint"):
        load_checkpoint(tmp_path / "junk.npz")


def test_train_command_runs_resumes_and_plays(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "--preset", "method-II", "--set", "layout=mini", "--set", "max_plies=40", "--games", "20",
            "--out", str(out), "--checkpoint-every", "10", "--sample", "10", "--quiet", "--seed", "5"]
    assert main(args) == 0
    for name in ("config.json", "checkpoint.npz", "network.npz", "net-10.npz", "curve.csv"):
        assert (out / name).exists(), name
    assert main(args) == 2  # the folder holds a run: refused without --resume
    assert "already holds a run" in capsys.readouterr().err
    assert main(["train", "--games", "30", "--out", str(out), "--resume", "--quiet"]) == 0
    assert "10 games in" in capsys.readouterr().out
    pos = Position.start("mini")
    assert pos.is_legal(make_player(f"td:net={out / 'network.npz'}").choose(pos))


def test_a_run_stopped_during_an_evaluation_evaluates_again_on_resume(tmp_path):
    # Ctrl-C or kill -9 during the evaluation at a checkpoint's game: the checkpoint has the game, the curve not
    # its row. --resume evaluates that point first, as the run that was not stopped did (the same games).
    args = ["train", "--games", "20", "--quiet", "--eval-every", "10", "--eval-games", "4", "--eval-opponent", "random",
            "--checkpoint-every", "10", "--workers", "1"]
    settings = ["--set", "layout=mini", "--set", "max_plies=30"]
    assert main([*args, *settings, "--out", str(tmp_path / "whole")]) == 0
    whole = RunFolder(tmp_path / "whole").curve_rows()
    stopped = tmp_path / "stopped"
    assert main([*args, *settings, "--out", str(stopped)]) == 0
    folder = RunFolder(stopped)
    folder.write_curve(folder.curve_rows()[:-1])  # as if stopped while evaluating at game 20
    assert main([*args, "--out", str(stopped), "--resume"]) == 0
    assert folder.curve_rows() == whole
    assert main([*args, "--out", str(stopped), "--resume"]) == 0  # nothing missing: nothing evaluated again
    assert folder.curve_rows() == whole


def test_train_command_evaluates_and_writes_the_curve(tmp_path):
    out = tmp_path / "run"
    args = ["train", "--set", "layout=mini", "--set", "max_plies=30", "--games", "20", "--out", str(out), "--quiet",
            "--eval-every", "10", "--eval-games", "4", "--eval-opponent", "random", "--eval-adjudicate", "marbles",
            "--workers", "1"]
    assert main(args) == 0
    rows = RunFolder(out).curve_rows()
    assert [int(r["games"]) for r in rows] == [10, 20]
    for r in rows:
        assert r["adjudicate"] == "marbles" and r["opponent"] == "random"
        assert int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["eval_games"]) == 4
    assert (out / "best.npz").exists()
    from sumito.learn.plot import load_curve

    curve = load_curve(out)  # the curve as written plots
    assert curve.games.tolist() == [10, 20] and (curve.wins + curve.draws + curve.losses).tolist() == [4, 4]


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--set", "colour=1"], "unknown training option 'colour'"),
        (["--set", "hidden=many"], "must be int"),
        (["--set", "regime=dreaming"], "regime must be"),
        (["--set", "novalue"], "needs KEY=VALUE"),
    ],
)
def test_train_command_errors(tmp_path, capsys, extra, message):
    code = main(["train", "--games", "1", "--out", str(tmp_path / "r"), "--quiet", *extra])
    assert code == 2
    assert message in capsys.readouterr().err


def test_td_player_refuses_bad_network_files(tmp_path):
    with pytest.raises(PlayerSpecError, match="needs a network"):
        make_player("td:net=")
    bad = tmp_path / "bad.npz"
    bad.write_text("not a network")
    with pytest.raises(PlayerSpecError, match=r"bad\.npz"):
        make_player(f"td:net={bad}")
    t = trainer(encoding="abalearn1")  # one input a cell: 21 on the mini board
    path = tmp_path / "net.npz"
    t.network.save(path)
    player = make_player(f"td:net={path}")
    assert Position.start("mini").is_legal(player.choose(Position.start("mini")))
    with pytest.raises(PlayerSpecError, match="takes 21 inputs, but abalearn1 on this board gives 63"):
        player.choose(Position.start("standard"))


def test_greedy_choice_by_value_or_with_the_immediate_reward():
    from sumito.models.game import Afterstates
    from sumito.models.policy import move_scores

    options = Afterstates(np.arange(3), np.zeros((3, 1)), np.array([0.0, 1.0, 1.0]), np.array([False, False, True]))
    values = np.array([0.5, 0.2, 0.9])
    # by value (the paper): the quiet move the network values above the push; a win above all
    assert list(move_scores(options, values, 0.9, end_only=False)) == [0.5, 0.2, np.inf]
    # with the reward: a push-off takes a marble now (+1); the winning push ends the game (+1 more)
    assert move_scores(options, values, 0.9, end_only=False, choice="reward") == pytest.approx([0.45, 1.18, 2.0])
    assert move_scores(options, values, 0.9, end_only=True, choice="reward") == pytest.approx([0.45, 0.18, 1.0])


def test_training_against_random_learns_to_push(tmp_path):
    """A few hundred games against `random` on the mini board are enough to beat it."""
    t = trainer(**METHOD_PRESETS["method-I"], seed=1)
    for _ in range(300):
        t.play_game()
    path = tmp_path / "net.npz"
    t.network.save(path)
    from sumito.arena.executor import make_executor
    from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair

    settings = ArenaSettings.from_layout("mini", seed=2)
    results = [r for _, r in make_executor(1).run(play_game, schedule([f"td:net={path}", "random"], 20, settings))]
    summary = summarize_pair(results)
    assert summary.wins > summary.losses + 5


def test_offline_td_and_expert_targets(tmp_path):
    offline = trainer(**METHOD_PRESETS["method-I"], td_mode="offline", seed=4)
    before = offline.network.theta.copy()
    for _ in range(3):
        offline.play_game()
    assert not np.array_equal(before, offline.network.theta)
    assert offline.learners[1].steps == 0  # no online steps were taken
    expert_path = tmp_path / "expert.npz"
    offline.network.save(expert_path)
    learner = trainer(encoding=METHOD_PRESETS["method-I"]["encoding"], targets=str(expert_path), regime="observe",
                      opponent="greedy", seed=5)
    before = learner.network.theta.copy()
    learner.play_game()
    assert not np.array_equal(before, learner.network.theta)
    with pytest.raises(TrainingError, match="td_mode"):
        TrainingConfig(td_mode="sometimes")


def test_expert_network_must_fit_the_encoding(tmp_path):
    other = trainer(encoding="abalearn1")
    path = tmp_path / "a1.npz"
    other.network.save(path)
    from sumito.models.network import NetworkError

    with pytest.raises(NetworkError):
        trainer(encoding="abalearn2", targets=str(path))


def test_engine_searches_with_a_trained_network(tmp_path):
    from sumito.evaluation.features import work_arrays
    from sumito.evaluation.learned import SCALE, network_score
    from sumito.models.abalone_encodings import encode_position
    from sumito.models.learned import network_params

    t = trainer(**METHOD_PRESETS["method-II"], seed=6)
    for _ in range(5):
        t.play_game()
    path = tmp_path / "net.npz"
    t.network.save(path)
    pos = Position.start("mini").play("a1b1")
    geo = pos.geometry
    params = network_params(str(path), 3, 5, 2)
    _, scratch = work_arrays()
    score = network_score(pos.grid, pos.side_to_move, 0, 0, geo.cells, geo.ring, geo.offsets, params, scratch)
    v = t.network.values(encode_position("abalearn3", pos, 3 - pos.side_to_move)[None, :])[0]
    assert score == pytest.approx(-SCALE * v)  # the opponent's afterstate, no marbles taken yet
    engine = make_player(f"engine:depth=3,net={path}")
    for layout in ("mini", "standard"):
        start = Position.start(layout)
        assert start.is_legal(engine.choose(start))
    with pytest.raises(PlayerSpecError, match="not both"):
        make_player(f"engine:net={path},eval=abla")
    (tmp_path / "bad.npz").write_text("no")
    with pytest.raises(PlayerSpecError, match=r"bad\.npz"):
        make_player(f"engine:net={tmp_path / 'bad.npz'}")


def test_resume_is_exact_against_an_opponent(tmp_path):
    a = trainer(regime="opponent", opponent="random", seed=8)
    for _ in range(4):
        a.play_game()
    b = trainer(regime="opponent", opponent="random", seed=8)
    for _ in range(2):
        b.play_game()
    save_checkpoint(tmp_path / "c.npz", b.state_dict())
    saved = load_checkpoint(tmp_path / "c.npz")
    c = trainer(**saved["config"])
    c.load_state_dict(saved["state"])
    for _ in range(2):
        c.play_game()
    assert np.array_equal(a.network.theta, c.network.theta)


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--checkpoint-every", "0"], "--checkpoint-every"),
        (["--sample", "a,b"], "--sample takes game counts"),
        (["--set", "hidden=inf"], "must be int"),
        (["--set", "hidden=1.5"], "must be int"),
        (["--set", "encoding=foo"], "unknown encoding 'foo'"),
        (["--seed", "-1"], "--seed: the value must be a whole number"),
        (["--set", "epsilon_min=7"], "epsilon_min must lie in [0, 1]"),
        (["--set", "epsilon_schedule=never"], "epsilon_schedule must be one of game, self-play"),
        (["--set", "output=relu"], "output must be"),
        (["--set", "opening_plies=-1"], "opening_plies must be 0 or more"),
    ],
)
def test_train_command_checks_every_option(tmp_path, capsys, extra, message):
    assert main(["train", "--games", "1", "--out", str(tmp_path / "r"), "--quiet", *extra]) == 2
    assert message in capsys.readouterr().err


def test_resume_refuses_new_options_and_damaged_checkpoints(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--set", "layout=mini", "--games", "2", "--out", str(out), "--quiet"]) == 0
    assert main(["train", "--games", "3", "--out", str(out), "--resume", "--seed", "3", "--quiet"]) == 2
    assert "--resume continues the run" in capsys.readouterr().err
    (out / "checkpoint.npz").write_bytes(b"PK\x03\x04 damaged")
    assert main(["train", "--games", "3", "--out", str(out), "--resume", "--quiet"]) == 2
    assert "not a readable training checkpoint" in capsys.readouterr().err


def test_the_shipped_network_plays_right_after_installation():
    for spec in ("td", "engine:depth=2,net=builtin", "engine:depth=3,net=builtin-tdleaf", "td:net=builtin-tdleaf"):
        player = make_player(spec)
        for layout in ("standard", "belgian-daisy"):
            pos = Position.start(layout)
            assert pos.is_legal(player.choose(pos)), spec


def test_td_player_steers_away_from_repeating_a_position_when_asked():
    pos = Position.start("belgian-daisy")
    first = make_player("td").choose(pos)
    history = [pos.play(first).zobrist]
    assert make_player("td:avoid_repeats=yes").choose(pos, history=history) != first
    assert make_player("td").choose(pos, history=history) == first  # off by default, as in the paper


def test_train_then_plot_works_with_the_defaults(tmp_path, capsys):
    """The README's two commands: the default evaluates ten times over a run, so the plot has a curve."""
    from sumito.cli import main

    run = tmp_path / "m2"
    assert main(["train", "--games", "200", "--out", str(run), "--set", "layout=mini", "--eval-games", "2",
                 "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "evaluating every 100 games" in err
    assert main(["plot", str(run), "--out", str(tmp_path / "curve.png")]) == 0
    assert (tmp_path / "curve.png").stat().st_size > 0


def test_epsilon_starts_again_when_self_play_begins():
    def epsilons(schedule: str) -> list[float]:
        config = TrainingConfig(**{**METHOD_PRESETS["method-Ia"], "switch_after": 3, "max_plies": 20, "layout": "mini",
                                   "epsilon_schedule": schedule})
        trainer = Trainer(AbaloneLearningGame(config.encoding), config, lambda spec, seed: PlayerOpponent(spec, seed))
        out = []
        for _ in range(5):
            trainer.play_game()
            out.append(trainer.epsilon)
        return out

    assert epsilons("game") == pytest.approx([0.9 * 0.99**k for k in range(1, 6)])
    # after the third game (the last against random) the schedule starts again from 0.9
    assert epsilons("self-play") == pytest.approx([0.9 * 0.99, 0.9 * 0.99**2, 0.9, 0.9 * 0.99, 0.9 * 0.99**2])


def test_td_player_takes_a_winning_push_when_asked(tmp_path):
    # Black has pushed off five; c3-b3 pushes White's a3 off, the sixth. A network whose value of every
    # afterstate is 100 scores the quiet moves at 0.9 * 100 and the win at its rewards, 2: it declines it
    config = TrainingConfig(encoding="abalearn3", hidden=2)
    t = Trainer(AbaloneLearningGame(config.encoding), config)
    t.network.W2[...] = 0.0
    t.network.b2[...] = 100.0
    path = tmp_path / "ahead.npz"
    t.network.save(path)
    pos = position_with(["c3", "b3", "i5", "i6", "i7"], ["a3", "e5"], "b", lost=(0, 5))
    win = next(m for m in pos.legal_moves() if m.notation() == "c3b3")
    assert pos.play(win).winner() == 1
    assert make_player(f"td:net={path}").choose(pos) != win
    assert make_player(f"td:net={path},take_wins=yes").choose(pos) == win
    assert make_player(f"td:net={path},take_wins=yes").name.endswith("take_wins=yes")
