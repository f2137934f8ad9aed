"""Wiering's modular backgammon architecture: position classes, routing, files and TD(λ) training."""

from __future__ import annotations

import numpy as np
import pytest

from sumito.games.backgammon.board import BackgammonPosition, swap_array
from sumito.games.backgammon.game import random_position
from sumito.games.backgammon.learning import encode_afterstates
from sumito.games.backgammon.modular import (
    ENDGAME,
    OTHER,
    RACE,
    ModularTrainer,
    ModularValue,
    position_class,
    position_classes,
)
from sumito.games.backgammon.pubeval import RandomPlayer, win_rate


def board_of(mine: dict[int, int], theirs: dict[int, int], *, bar=0, opp_bar=0) -> np.ndarray:
    """A board from the mover's view: ``mine``/``theirs`` map the mover's point numbers to counts; the rest
    of each side's 15 checkers are borne off."""
    b = np.zeros(28, dtype=np.int8)
    for p, n in mine.items():
        b[p - 1] += n
    for p, n in theirs.items():
        b[p - 1] -= n
    b[24], b[25] = bar, opp_bar
    b[26] = 15 - sum(mine.values()) - bar
    b[27] = 15 - sum(theirs.values()) - opp_bar
    return BackgammonPosition(b).board.copy()


def test_start_position_is_other():
    assert position_class(BackgammonPosition.start().board) == OTHER


def test_pure_race():
    b = board_of({1: 3, 6: 4, 9: 4, 12: 4}, {13: 5, 17: 5, 24: 5})
    assert position_class(b) == RACE
    assert position_class(swap_array(b)) == RACE


def test_endgame():
    b = board_of({1: 2, 3: 4, 6: 5}, {19: 3, 22: 2, 24: 1})
    assert position_class(b) == ENDGAME
    assert position_class(swap_array(b)) == ENDGAME
    # one checker outside a home board makes it a race, a checker on the bar a contact position
    assert position_class(board_of({1: 2, 3: 4, 7: 5}, {19: 3, 22: 2, 24: 1})) == RACE
    assert position_class(board_of({1: 2, 3: 4, 6: 4}, {19: 3, 22: 2, 24: 1}, bar=1)) == OTHER


def test_one_checker_left_behind_is_the_race_boundary():
    # the mover has passed all the opponent's checkers but one checker on its 20 point, behind the
    # opponent's rearmost checker on the mover's 19 point: contact
    behind = board_of({2: 4, 5: 5, 10: 5, 20: 1}, {19: 4, 21: 5, 23: 6})
    assert position_class(behind) == OTHER
    assert position_class(swap_array(behind)) == OTHER
    # the same checker moved past it (to the 18 point): no contact left
    past = board_of({2: 4, 5: 5, 10: 5, 18: 1}, {19: 4, 21: 5, 23: 6})
    assert position_class(past) == RACE
    assert position_class(swap_array(past)) == RACE
    # side by side on neighbouring points the other way round: the opponent checker on the mover's 10 point
    assert position_class(board_of({2: 4, 5: 5, 11: 6}, {10: 1, 21: 8, 23: 6})) == OTHER
    # an opponent checker on the bar still has to come in past the mover's checkers
    assert position_class(board_of({2: 10, 5: 5}, {21: 8, 23: 6}, opp_bar=1)) == OTHER


def test_batch_equals_scalar_and_is_view_independent():
    rng = np.random.default_rng(5)
    boards = np.array([random_position(rng).board for _ in range(120)], dtype=np.int8)
    batch = position_classes(boards)
    assert batch.tolist() == [position_class(b) for b in boards]
    assert batch.tolist() == [position_class(swap_array(b)) for b in boards]
    assert set(batch.tolist()) == {ENDGAME, RACE, OTHER}


def test_routing_uses_each_class_network():
    rng = np.random.default_rng(6)
    model = ModularValue(7)
    assert [net.n_hidden for net in model.networks] == [20, 20, 40]
    assert all(net.output == "linear" for net in model.networks)
    for net in model.networks:  # distinct outputs per module, so a wrong route would show
        net.b2[:] = rng.normal(size=1)
    boards = np.array([random_position(rng).board for _ in range(200)], dtype=np.int8)
    classes = position_classes(boards)
    values = model.values(boards)
    X = encode_afterstates(boards)
    for k, net in enumerate(model.networks):
        rows = classes == k
        assert rows.any()
        np.testing.assert_allclose(values[rows], net.values(X[rows]), rtol=0, atol=1e-12)
        assert not np.allclose(values[rows], model.networks[(k + 1) % 3].values(X[rows]))
    assert model.values(boards[0]).shape == (1,)


def test_save_and_load_round_trip(tmp_path):
    model = ModularValue(8)
    path = tmp_path / "modular.npz"
    model.save(path)
    loaded = ModularValue.load(path)
    for a, b in zip(model.networks, loaded.networks):
        np.testing.assert_array_equal(a.theta, b.theta)
        assert b.output == "linear"
    rng = np.random.default_rng(9)
    boards = np.array([random_position(rng).board for _ in range(20)], dtype=np.int8)
    np.testing.assert_array_equal(model.values(boards), loaded.values(boards))
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    from sumito.learn.network import NetworkError

    with pytest.raises(NetworkError):
        ModularValue.load(tmp_path / "bad.npz")


@pytest.mark.parametrize("opponent", [None, "random"])
def test_training_changes_every_network_that_saw_positions(opponent):
    model = ModularValue(10)
    before = [net.theta.copy() for net in model.networks]
    chooser = RandomPlayer(np.random.default_rng(11)) if opponent else None
    trainer = ModularTrainer(model, 12, opponent=chooser, points=opponent is not None)
    stats = trainer.train(30)
    assert stats["games"] == 30 and trainer.games == 30
    assert (trainer.positions > 0).all()
    for net, theta in zip(model.networks, before):
        assert np.all(np.isfinite(net.theta))
        assert not np.array_equal(net.theta, theta)
    for side in trainer.learners:
        for learner in side:
            assert not learner.trace.any()  # cleared at each game's end


def test_unseen_module_is_untouched():
    # a game from a pure race never reaches a contact position: the "other" network stays as it was
    start = BackgammonPosition(board_of({1: 3, 6: 4, 9: 4, 12: 4}, {13: 5, 17: 5, 24: 5}))
    model = ModularValue(13)
    other = model.networks[OTHER].theta.copy()
    trainer = ModularTrainer(model, 14, start=start)
    trainer.train(5)
    assert trainer.positions[OTHER] == 0 and trainer.positions[RACE] > 0
    np.testing.assert_array_equal(model.networks[OTHER].theta, other)


def test_short_self_play_run_beats_random():
    model = ModularValue(15)
    ModularTrainer(model, 16, alpha=0.05).train(1000)
    start = BackgammonPosition.start().board
    rate = win_rate(model, RandomPlayer(np.random.default_rng(17)), 200, np.random.default_rng(18), start)
    assert rate > 0.75


class FakeExpert:
    """A scripted expert: picks the last afterstate, counts its calls, and evaluates every board the same."""

    def __init__(self, p_win: float = 0.7) -> None:
        self.calls = 0
        self.evaluated = 0
        self.p_win = p_win

    def __call__(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        self.calls += 1
        return afterstates.shape[0] - 1

    def evaluate(self, boards: np.ndarray) -> np.ndarray:
        n = np.asarray(boards).reshape(-1, 28).shape[0]
        self.evaluated += n
        return np.tile([self.p_win, 0.1, 0.0, 0.05, 0.0], (n, 1))


@pytest.mark.parametrize("targets", ["own", "expert"])
def test_observing_changes_the_weights(targets):
    model = ModularValue(20)
    before = [net.theta.copy() for net in model.networks]
    expert = FakeExpert()
    trainer = ModularTrainer(model, 21, observe=expert, targets=targets, alpha=0.05)
    trainer.train(5)
    assert len(trainer.learners) == 2 and trainer.positions.sum() > 0
    changed = [not np.array_equal(net.theta, theta) for net, theta in zip(model.networks, before)]
    assert changed[OTHER] and all(np.all(np.isfinite(net.theta)) for net in model.networks)
    assert (expert.evaluated > 0) == (targets == "expert")


def test_observing_learner_never_chooses(monkeypatch):
    model = ModularValue(22)

    def no_choosing(*args, **kwargs):
        raise AssertionError("the observing learner valued the alternatives")

    monkeypatch.setattr(model, "values_from", no_choosing)
    monkeypatch.setattr(model, "values", no_choosing)
    monkeypatch.setattr(model, "choose", no_choosing)
    expert = FakeExpert()
    trainer = ModularTrainer(model, 23, observe=expert)
    trainer.train(4)
    # every move of both sides was the expert's: the learning afterstates plus each game's winning move
    assert expert.calls == trainer.positions.sum() + 4


def test_expert_targets_use_the_movers_view():
    trainer = ModularTrainer(ModularValue(24), 25, observe=FakeExpert(p_win=0.7), targets="expert")
    after = BackgammonPosition.start().board
    # the expert evaluates the swapped afterstate, i.e. the opponent on roll wins with 0.7: the mover's value
    assert trainer._expert_value(after) == pytest.approx(1.0 - 2 * 0.7)
    trainer.points = True
    assert trainer._expert_value(after) == pytest.approx(-(2 * 0.7 - 1 + 0.1 - 0.05))
    with pytest.raises(ValueError):
        ModularTrainer(ModularValue(24), 25, targets="expert")
    with pytest.raises(ValueError):
        ModularTrainer(ModularValue(24), 25, observe=FakeExpert(), opponent=FakeExpert())
