"""Wiering's modular backgammon architecture: position classes, routing, files and TD(λ) training."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sumito.games.backgammon.board import BackgammonPosition, swap_array
from sumito.games.backgammon.game import game_results, random_position, win_rate
from sumito.models.backgammon.features import encode_class
from sumito.models.backgammon.learning import encode_afterstates
from sumito.models.backgammon.modular import (
    ENDGAME,
    OTHER,
    OUTCOME_POINTS,
    RACE,
    ModularTrainer,
    ModularValue,
    expected_points,
    expert_outputs,
    flip_outputs,
    outcome_outputs,
    position_class,
    position_classes,
)
from sumito.models.network import NetworkError
from sumito.models.td import fit_outputs
from sumito.players.backgammon.pubeval import RandomPlayer


def board_of(mine: dict[int, int], theirs: dict[int, int], *, bar=0, opp_bar=0) -> np.ndarray:
    """A board from the mover's view: ``mine``/``theirs`` map the mover's point numbers to counts; the rest
    of each side's 15 checkers are borne off."""
    return BackgammonPosition.from_points(mine, {25 - p: n for p, n in theirs.items()}, bar=bar,
                                          opp_bar=opp_bar).board.copy()


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


@pytest.mark.parametrize("encoding, outputs", [("tesauro198", 1), ("wiering", 7)])
def test_save_and_load_round_trip(tmp_path, encoding, outputs):
    model = ModularValue(8, encoding=encoding, outputs=outputs)
    path = tmp_path / "modular.npz"
    model.save(path)
    loaded = ModularValue.load(path)
    assert (loaded.encoding, loaded.n_outputs) == (encoding, outputs)
    for a, b in zip(model.networks, loaded.networks):
        np.testing.assert_array_equal(a.theta, b.theta)
        assert b.output == "linear"
    rng = np.random.default_rng(9)
    boards = np.array([random_position(rng).board for _ in range(20)], dtype=np.int8)
    np.testing.assert_array_equal(model.values(boards), loaded.values(boards))
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(NetworkError):
        ModularValue.load(tmp_path / "bad.npz")
    with pytest.raises(NetworkError, match="no such file"):
        ModularValue.load(tmp_path / "missing.npz")


def test_version_1_files_still_load(tmp_path):
    # the first format had no encoding or outputs in its header: tesauro198 with one output
    model = ModularValue(8)
    arrays = model._arrays()
    meta = json.loads(str(arrays["meta"]))
    del meta["encoding"], meta["outputs"]
    meta["version"] = 1
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "v1.npz", **arrays)
    loaded = ModularValue.load(tmp_path / "v1.npz")
    assert (loaded.encoding, loaded.n_outputs) == ("tesauro198", 1)


def test_bad_model_settings_are_one_line_errors():
    with pytest.raises(NetworkError, match="encoding"):
        ModularValue(1, encoding="nope")
    with pytest.raises(NetworkError, match="1 or 7"):
        ModularValue(1, outputs=3)
    with pytest.raises(ValueError, match="alpha"):
        ModularTrainer(ModularValue(1), 2, alpha=(0.1, 0.1))
    with pytest.raises(ValueError, match="lambda"):
        ModularTrainer(ModularValue(1), 2, lam=1.5)


def test_wiering_encoding_routes_each_class_to_its_own_inputs():
    rng = np.random.default_rng(6)
    model = ModularValue(7, encoding="wiering", outputs=7)
    assert [net.n_inputs for net in model.networks] == [68, 277, 393]
    assert [net.n_outputs for net in model.networks] == [7, 7, 7]
    boards = np.array([random_position(rng).board for _ in range(200)], dtype=np.int8)
    classes = position_classes(boards)
    out = model.outputs(boards)
    for k, net in enumerate(model.networks):
        rows = np.flatnonzero(classes == k)
        np.testing.assert_allclose(out[rows], net.outputs(encode_class(boards[rows], k)), atol=1e-12)
    # the evaluation averages the single output and the outcome outputs' expected points
    expected = 0.5 * (out[:, 0] + out[:, 1:] @ np.array([1, 2, 3, -1, -2, -3]))
    np.testing.assert_allclose(model.values(boards), expected, atol=1e-12)


def test_flip_and_outcomes():
    rng = np.random.default_rng(3)
    v = rng.random((5, 7))
    np.testing.assert_array_equal(flip_outputs(flip_outputs(v)), v)
    f = flip_outputs(v)
    np.testing.assert_array_equal(f[:, 0], -v[:, 0])
    np.testing.assert_array_equal(f[:, 1:4], v[:, 4:7])
    assert outcome_outputs(2, 7).tolist() == [2, 0, 1, 0, 0, 0, 0]
    assert outcome_outputs(-3, 7).tolist() == [-3, 0, 0, 0, 0, 0, 1]
    assert flip_outputs(outcome_outputs(-1, 7)[None, :])[0].tolist() == outcome_outputs(1, 7).tolist()
    assert outcome_outputs(-2, 1, scale_points=False).tolist() == [-1]
    assert outcome_outputs(-2, 1).tolist() == [-2]


def test_expert_outputs_are_the_movers_view():
    # the roller (opponent of the afterstate's mover) wins 70%, 10% gammons, 1% backgammons; loses 5% gammons
    p = np.array([[0.7, 0.1, 0.01, 0.05, 0.0]])
    seven = expert_outputs(p, 7, True)[0]
    assert seven[1:].sum() == pytest.approx(1.0)
    # the mover wins what the roller loses: 1 point with 0.3 − 0.05, a gammon with 0.05
    np.testing.assert_allclose(seven[1:4], [0.25, 0.05, 0.0])
    np.testing.assert_allclose(seven[4:7], [0.6, 0.09, 0.01])
    roller_equity = 2 * 0.7 - 1 + 0.1 - 0.05 + 0.01 - 0.0
    assert seven[0] == pytest.approx(-roller_equity)
    assert expert_outputs(p, 1, True)[0, 0] == pytest.approx(-roller_equity)
    assert expert_outputs(p, 1, False)[0, 0] == pytest.approx(1 - 2 * 0.7)


def test_values_add_the_outcome_points_in_a_fixed_order():
    # the same bits on every CPU: the expected points are summed in output order, never by BLAS (whose order
    # depends on the kernel it picks), and a value is the paper's average of the two estimates
    model = ModularValue(5, outputs=7, encoding="wiering")
    boards = np.array([random_position(np.random.default_rng([5, i])).board for i in range(40)], dtype=np.int8)
    outputs = model.outputs(boards)
    by_hand = []
    for row in outputs:
        total = 0.0
        for k in range(6):
            total += float(row[k + 1]) * float(OUTCOME_POINTS[k])
        by_hand.append(total)
    assert expected_points(outputs[:, 1:]).tolist() == by_hand
    assert model.values(boards).tolist() == [0.5 * (float(o) + t) for o, t in zip(outputs[:, 0], by_hand)]


def played_chain(seed: int = 30, n_plies: int | None = None) -> np.ndarray:
    trainer = ModularTrainer(ModularValue(seed), seed + 1)
    chain, _ = trainer.generate_game()
    return chain


@pytest.mark.parametrize("outputs", [1, 7])
def test_lambda_returns_follow_the_minimax_rule(outputs):
    chain = played_chain()
    model = ModularValue(31, outputs=outputs)
    values = model.outputs(chain[:-1])
    final = int(game_results(chain[-1:])[0])
    last = flip_outputs(outcome_outputs(final, outputs, True)[None, :])[0]
    # λ = 1: every target is the game's result from its state's mover's view, alternating sides
    _, g1 = ModularTrainer(model, 1, lam=1.0, points=True).targets_of(chain)
    for t in range(len(g1)):
        want = last if (len(g1) - 1 - t) % 2 == 0 else flip_outputs(last[None, :])[0]
        np.testing.assert_allclose(g1[t], want, atol=1e-12)
    # λ = 0: each target is the next afterstate's value turned round
    _, g0 = ModularTrainer(model, 1, lam=0.0, points=True).targets_of(chain)
    np.testing.assert_allclose(g0[:-1], flip_outputs(values[1:]), atol=1e-12)
    np.testing.assert_allclose(g0[-1], last)
    # λ = 0.6: G_t = flip((1 − λ) V_{t+1} + λ G_{t+1})
    _, g = ModularTrainer(model, 1, lam=0.6, points=True).targets_of(chain)
    np.testing.assert_allclose(g[:-1], flip_outputs(0.4 * values[1:] + 0.6 * g[1:]), atol=1e-12)


def test_learn_game_is_backprop_towards_the_returns_in_order():
    chain = played_chain(40)
    model = ModularValue(41)
    trainer = ModularTrainer(model, 1, alpha=(0.02, 0.03, 0.05))
    classes, returns = trainer.targets_of(chain)
    copies = [net.copy() for net in model.networks]
    for t, state in enumerate(chain[:-1]):
        c = int(classes[t])
        fit_outputs(copies[c], encode_afterstates(state[None, :]), returns[t : t + 1], alpha=(0.02, 0.03, 0.05)[c])
    trainer.learn_game(chain)
    for net, ref in zip(model.networks, copies):
        np.testing.assert_allclose(net.theta, ref.theta, atol=1e-13)
    assert trainer.positions.sum() == len(chain) - 1


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
    ModularTrainer(model, 16, alpha=0.1).train(600)
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
    assert trainer.positions.sum() > 0
    changed = [not np.array_equal(net.theta, theta) for net, theta in zip(model.networks, before)]
    assert changed[OTHER] and all(np.all(np.isfinite(net.theta)) for net in model.networks)
    assert (expert.evaluated > 0) == (targets == "expert")
    if targets == "expert":
        assert expert.evaluated == trainer.positions.sum()


def test_observing_learner_never_chooses(monkeypatch):
    model = ModularValue(22)

    def no_choosing(*args, **kwargs):
        raise AssertionError("the observing learner valued the alternatives")

    monkeypatch.setattr(model, "values", no_choosing)
    monkeypatch.setattr(model, "choose", no_choosing)
    expert = FakeExpert()
    trainer = ModularTrainer(model, 23, observe=expert)
    trainer.train(4)
    # every move of both sides was the expert's, and every one but each game's last was learned from
    assert expert.calls == trainer.positions.sum() + 4


def test_playing_an_opponent_learns_from_its_moves_too():
    expert = FakeExpert()
    trainer = ModularTrainer(ModularValue(24), 25, opponent=expert)
    plies = 0
    for _ in range(3):
        chain, _ = trainer.generate_game()
        trainer.learn_game(chain)
        plies += len(chain)
    assert 0 < expert.calls < plies  # the opponent chose about half the moves ...
    assert trainer.positions.sum() == plies - 3  # ... and all of them were learned from
    with pytest.raises(ValueError):
        ModularTrainer(ModularValue(24), 25, targets="expert")
    with pytest.raises(ValueError):
        ModularTrainer(ModularValue(24), 25, observe=FakeExpert(), opponent=FakeExpert())


@pytest.mark.parametrize("encoding, outputs", [("tesauro198", 1), ("wiering", 7)])
def test_checkpoint_resumes_bit_for_bit(tmp_path, encoding, outputs):
    def fresh():
        return ModularTrainer(ModularValue(50, encoding=encoding, outputs=outputs), 51, alpha=0.05, lam=0.7)

    straight = fresh()
    straight.train(12)
    interrupted = fresh()
    interrupted.train(5)
    interrupted.save_checkpoint(tmp_path / "ck.npz", extra={"note": "five"})
    resumed, extra = ModularTrainer.load_checkpoint(tmp_path / "ck.npz")
    assert extra == {"note": "five"} and resumed.games == 5
    assert (resumed.model.encoding, resumed.model.n_outputs, resumed.lam) == (encoding, outputs, 0.7)
    resumed.train(7)
    assert resumed.games == straight.games == 12
    np.testing.assert_array_equal(resumed.positions, straight.positions)
    for a, b in zip(resumed.model.networks, straight.model.networks):
        np.testing.assert_array_equal(a.theta, b.theta)
    (tmp_path / "bad.npz").write_bytes(b"junk")
    with pytest.raises(NetworkError):
        ModularTrainer.load_checkpoint(tmp_path / "bad.npz")
    straight.model.save(tmp_path / "net.npz")  # a network file is not a checkpoint
    with pytest.raises(NetworkError):
        ModularTrainer.load_checkpoint(tmp_path / "net.npz")


def test_endless_games_are_cut_and_bootstrapped(monkeypatch):
    import sumito.models.backgammon.modular as modular

    monkeypatch.setattr(modular, "MAX_PLIES", 10)  # no game ends within 10 plies
    model = ModularValue(60)
    trainer = ModularTrainer(model, 61, lam=0.5)
    chain, result = trainer.generate_game()
    assert result == 0 and len(chain) == 10
    classes, returns = trainer.targets_of(chain)
    values = model.outputs(chain)
    # the last learned state bootstraps on the value of where the game was cut, turned round
    np.testing.assert_allclose(returns[-1], flip_outputs(values[-1:])[0], atol=1e-12)
    np.testing.assert_allclose(returns[:-1], flip_outputs(0.5 * values[1:-1] + 0.5 * returns[1:]), atol=1e-12)
    assert len(classes) == len(returns) == 9
    assert trainer.train(3)["side0_wins"] == 0
    assert trainer.games == trainer.abandoned == 3 and trainer.positions.sum() == 27
