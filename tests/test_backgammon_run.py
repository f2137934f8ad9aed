"""Backgammon training runs on disk (resume, best network, curve) and matches with alternating starts."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from sumito.arena.backgammon import MatchResult, match_points, play_match
from sumito.cli import main
from sumito.learn.backgammon.run import BackgammonRun, BackgammonRunConfig, BackgammonRunError, checkpoint_games
from sumito.models.backgammon.modular import ModularValue
from sumito.players.backgammon.pubeval import PubevalPlayer, RandomPlayer


def small_config(**changes) -> BackgammonRunConfig:
    settings = dict(encoding="tesauro198", alpha=0.1, games=30, test_every=10, test_games=6,
                    test_against=("pubeval", "random:seed=3"), seed=4)
    settings.update(changes)
    return BackgammonRunConfig(**settings)


def test_match_alternates_the_opening():
    rng = np.random.default_rng(1)
    a, b = RandomPlayer(np.random.default_rng(2)), RandomPlayer(np.random.default_rng(3))
    calls: list[str] = []

    def first(board, afterstates):
        calls.append("a")
        return a(board, afterstates)

    def second(board, afterstates):
        calls.append("b")
        return b(board, afterstates)

    openers = []
    for i in range(6):
        calls.clear()
        match_points(first, second, 1, rng, offset=i)
        openers.append(calls[0])
    assert openers == ["a", "b", "a", "b", "a", "b"]


def test_match_result_statistics():
    points = [1, -1, 2, 3, -2, 1, 1, -3]
    m = MatchResult.of(points)
    assert (m.games, m.points_sum, m.wins) == (8, 2, 5)
    assert (m.gammons_won, m.gammons_lost, m.backgammons_won, m.backgammons_lost) == (2, 2, 1, 1)
    assert m.equity == pytest.approx(np.mean(points))
    assert m.half_width == pytest.approx(1.96 * np.std(points, ddof=1) / math.sqrt(8))
    pub = play_match(PubevalPlayer(), RandomPlayer(np.random.default_rng(5)), 60, np.random.default_rng(6))
    assert pub.games == 60 and pub.equity - pub.half_width > 0  # pubeval beats random, the interval says so


def test_test_points():
    assert checkpoint_games(small_config()) == [10, 20, 30]
    assert checkpoint_games(small_config(games=25)) == [10, 20, 25]


def test_run_keeps_curve_best_and_latest(tmp_path):
    run = BackgammonRun(tmp_path / "r", small_config())
    rows = run.run()
    assert [(int(r["games"]), r["opponent"]) for r in rows] == [
        (g, o) for g in (10, 20, 30) for o in ("pubeval", "random:seed=3")]
    with (tmp_path / "r" / "curve.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 6
    best = json.loads((tmp_path / "r" / "best.json").read_text())
    pubeval_rows = [r for r in rows if r["opponent"] == "pubeval"]
    assert best["equity"] == pytest.approx(max(r["equity"] for r in pubeval_rows), abs=1e-4)
    ModularValue.load(tmp_path / "r" / "best.npz")
    assert ModularValue.load(tmp_path / "r" / "network.npz").encoding == "tesauro198"


def test_killed_run_resumes_to_the_same_result(tmp_path):
    straight = BackgammonRun(tmp_path / "a", small_config())
    straight_rows = straight.run()

    class Killed(Exception):
        pass

    def kill_at_second_test(row):
        if row["games"] == 20 and row["opponent"] == "random:seed=3":
            raise Killed  # after the curve rows of 20 were made, before they and the checkpoint were written

    with pytest.raises(Killed):
        BackgammonRun(tmp_path / "b", small_config()).run(progress=kill_at_second_test)
    resumed = BackgammonRun(tmp_path / "b", resume=True)
    assert resumed.config == small_config().check()
    rows = resumed.run()
    strip = [{k: v for k, v in r.items() if k != "train_seconds"} for r in rows]

    def normal(r):
        return {k: float(v) if k not in ("opponent",) else v for k, v in r.items() if k != "train_seconds"}

    assert [normal(r) for r in strip] == [normal(r) for r in straight_rows]
    a = ModularValue.load(tmp_path / "a" / "network.npz")
    b = ModularValue.load(tmp_path / "b" / "network.npz")
    for x, y in zip(a.networks, b.networks):
        np.testing.assert_array_equal(x.theta, y.theta)


def test_a_finished_run_trains_on_to_more_games(tmp_path):
    straight = BackgammonRun(tmp_path / "a", small_config(games=30)).run()
    BackgammonRun(tmp_path / "b", small_config(games=20)).run()
    longer = BackgammonRun(tmp_path / "b", small_config(games=30), resume=True)
    assert longer.saved_config().games == 30
    rows = longer.run()
    assert [r["equity"] for r in rows if int(r["games"]) == 30] == [r["equity"] for r in straight if r["games"] == 30]


def test_run_settings_are_checked(tmp_path):
    with pytest.raises(BackgammonRunError, match="regime"):
        small_config(regime="watch").check()
    with pytest.raises(BackgammonRunError, match="lambda"):
        small_config(lam=2.0).check()
    with pytest.raises(BackgammonRunError, match="best_against"):
        small_config(best_against="gnubg").check()
    with pytest.raises(BackgammonRunError, match="no run"):
        BackgammonRun(tmp_path / "none", resume=True)
    BackgammonRun(tmp_path / "r", small_config(games=10)).run()
    with pytest.raises(BackgammonRunError, match="already holds"):
        BackgammonRun(tmp_path / "r", small_config(games=10))
    with pytest.raises(BackgammonRunError, match=r"--lambda was 0\.6 when this run started, not 0\.3"):
        BackgammonRun(tmp_path / "r", small_config(games=10, lam=0.3), resume=True)
    with pytest.raises(BackgammonRunError, match="fewer"):
        BackgammonRun(tmp_path / "r", small_config(games=5), resume=True)
    with pytest.raises(BackgammonRunError, match="unknown run settings"):
        BackgammonRunConfig.from_dict({"regime": "self", "colour": "red"})


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_train_command(tmp_path, capsys):
    out = str(tmp_path / "cli")
    code, text, _ = run(capsys, "bg", "train", "--out", out, "--encoding", "tesauro198", "--alpha", "0.1",
                        "-n", "20", "--test-every", "10", "--test-games", "4")
    assert code == 0 and "best:" in text and text.count("games  vs pubeval") == 2
    code, _, err = run(capsys, "bg", "train", "--out", out, "-n", "20")
    assert code == 2 and "already holds a run" in err and len(err.strip().splitlines()) == 1
    code, text, _ = run(capsys, "bg", "train", "--out", out, "--resume")
    assert code == 0 and "games  vs pubeval" not in text  # nothing left to do
    code, text, _ = run(capsys, "bg", "train", "--out", out, "--resume", "-n", "30", "--checkpoint-every", "4")
    assert code == 0 and text.count("games  vs pubeval") == 1  # trained on from 20 to 30 games
    code, _, err = run(capsys, "bg", "train", "--out", out, "--resume", "--alpha", "0.5", "--test-games", "9")
    assert code == 2 and "--alpha was 0.1 when this run started, not 0.5" in err
    code, _, err = run(capsys, "bg", "train", "--out", str(tmp_path / "x"), "--hidden", "20,20")
    assert code == 2 and "--hidden" in err
    code, _, err = run(capsys, "bg", "train", "--out", str(tmp_path / "y"), "--test-against", "pubevil")
    assert code == 2 and "pubevil" in err


class FakeExpert:
    """Stands in for gnubg (which CI does not install): plays the first afterstate, evaluates all alike."""

    def __init__(self) -> None:
        self.evaluated = 0

    def __call__(self, board, afterstates):
        return 0

    def evaluate(self, boards):
        n = np.asarray(boards).reshape(-1, 28).shape[0]
        self.evaluated += n
        return np.tile([0.6, 0.1, 0.0, 0.05, 0.0], (n, 1))


@pytest.mark.parametrize("regime, targets", [("expert", "own"), ("observe", "expert"), ("self", "expert")])
def test_expert_regimes_run_with_any_expert(tmp_path, regime, targets):
    from sumito.players.backgammon.players import make_bg_player

    experts = []

    def make_player(spec, rng_seed=None):
        if spec == "fake":
            experts.append(FakeExpert())
            return experts[-1]
        return make_bg_player(spec, rng_seed=rng_seed)

    config = small_config(regime=regime, targets=targets, expert="fake", games=10, test_against=("pubeval",),
                          outputs=7)
    rows = BackgammonRun(tmp_path / "r", config, make_player=make_player).run()
    assert len(rows) == 1 and len(experts) == 1
    assert (experts[0].evaluated > 0) == (targets == "expert")
    with pytest.raises(BackgammonRunError, match="evaluates positions"):
        BackgammonRun(tmp_path / "s", small_config(targets="expert", expert="pubeval")).run()
