"""pubeval (Tesauro's benchmark) and backgammon under the game-independent TD trainer."""

from __future__ import annotations

import time

import numpy as np
import pytest

from sumito.games.backgammon import BackgammonPosition, afterstate_arrays
from sumito.games.backgammon.board import N_CHECKERS
from sumito.games.backgammon.game import win_rate
from sumito.games.backgammon.kernels import generate_plays
from sumito.learn.training import Trainer, TrainingConfig
from sumito.models.backgammon.learning import (
    N_INPUTS,
    BackgammonLearningGame,
    NetworkPlayer,
    encode_afterstates,
)
from sumito.players.backgammon.pubeval import (
    WC,
    WIN_SCORE,
    WR,
    PubevalPlayer,
    RandomPlayer,
    is_race,
    pubeval_inputs,
    pubeval_scores,
)

START = BackgammonPosition.start().board


# ---------------------------------------------------------------------------------------- pubeval
def test_pubeval_weights_match_tesauro():
    assert WC.shape == WR.shape == (122,)
    assert WC[0] == 0.25696 and WC[4] == -2.53398 and WC[120] == 5.62596 and WC[121] == -2.75800
    assert WR[1] == -0.17160 and WR[119] == -12.32252 and WR[121] == 3.42040
    assert np.all(WR[0:120:5] == 0.0)  # race weights ignore opponent blots
    assert WC.sum() == pytest.approx(-6.72565, abs=1e-9)
    assert WR.sum() == pytest.approx(-31.29905, abs=1e-9)
    assert np.abs(WC).sum() == pytest.approx(118.13987, abs=1e-9)
    assert np.abs(WR).sum() == pytest.approx(122.18361, abs=1e-9)


def test_race_and_contact_detection():
    assert not is_race(START)
    race = BackgammonPosition.from_points({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5}).board
    assert is_race(race)
    # the opponent's 6 point is the mover's 19 point, below the mover's checker on 20: contact
    assert not is_race(BackgammonPosition.from_points({20: 1, 6: 14}, {6: 15}).board)
    assert is_race(BackgammonPosition.from_points({18: 1, 6: 14}, {6: 15}).board)
    assert not is_race(BackgammonPosition.from_points({6: 14}, {6: 15}, bar=1).board)
    assert not is_race(BackgammonPosition.from_points({6: 15}, {6: 14}, opp_bar=1).board)


def test_pubeval_inputs_follow_tesauro_setx():
    board = BackgammonPosition.from_points({24: 1, 13: 5, 8: 3, 6: 6}, {6: 14}, opp_bar=1).board
    x = pubeval_inputs(board[None, :])[0]
    assert x[1] == 1.0  # j = 1 is point 24: a single mover checker
    assert x[5 * 11 + 2] == 1.0 and x[5 * 11 + 4] == 1.0  # point 13: five -> n >= 2 and (5 - 3) / 2
    assert x[5 * 16 + 2] == 1.0 and x[5 * 16 + 3] == 1.0  # point 8: three
    assert x[5 * 18 + 4] == 1.5  # point 6: six
    assert x[5 * 5 + 2] == 0.0 and x[5 * 5 + 4] == 0.0  # the opponent's 14 on the mover's 19: pubeval ignores them
    assert x[120] == 0.5 and x[121] == 0.0
    assert pubeval_scores(board[None, :], False)[0] == pytest.approx(float(x @ WC))
    total = 0.0  # bit for bit pubeval.c's sum, in input order (not BLAS's order, which depends on the CPU)
    for i in range(len(x)):
        total += float(x[i]) * float(WC[i])
    assert pubeval_scores(board[None, :], False)[0] == total


def test_pubeval_bears_off_in_a_race():
    board = BackgammonPosition.from_points({1: 1, 2: 1}, {6: 15}).board
    after = PubevalPlayer().choose_play(board, (2, 1))
    assert after[26] == N_CHECKERS  # both checkers off: the game is won
    afterstates, _ = generate_plays(board, 2, 1)
    assert pubeval_scores(afterstates, True).max() == WIN_SCORE
    # with 6-5 from 6 and 5 it takes both off rather than moving down
    board = BackgammonPosition.from_points({6: 1, 5: 1, 2: 3}, {6: 15}).board
    after = PubevalPlayer().choose_play(board, (6, 5))
    assert after[26] == 12


def test_pubeval_hits_a_blot():
    # the opponent has a blot on the mover's 5 point; the mover rolls 3-1 with checkers on 8 and 6 and
    # also makes its 5 point by 8/5 6/5, which hits
    board = BackgammonPosition.from_points({8: 3, 6: 5, 13: 5, 24: 2}, {20: 1, 13: 5, 8: 3, 6: 4, 24: 2}).board
    assert board[4] == -1
    after = PubevalPlayer().choose_play(board, (3, 1))
    assert after[25] == 1 and after[4] == 2


def test_pubeval_beats_random():
    rng = np.random.default_rng(2024)
    rate = win_rate(PubevalPlayer(), RandomPlayer(rng), 200, rng, START)
    assert rate > 0.8


# ---------------------------------------------------------------------------------------- learning
def test_encoding_of_the_start_position():
    x = encode_afterstates(START[None, :])[0]
    assert x.shape == (N_INPUTS,) == (198,)
    mine = x[:96].reshape(24, 4)
    np.testing.assert_array_equal(mine[23], [1, 1, 0, 0])  # 2 on the 24 point
    np.testing.assert_array_equal(mine[12], [1, 1, 1, 1.0])  # 5 on the 13: (5 - 3) / 2
    np.testing.assert_array_equal(mine[7], [1, 1, 1, 0])  # 3 on the 8
    np.testing.assert_array_equal(mine[5], mine[12])
    assert mine.sum() == 2 + 4 + 3 + 4  # 24, 13, 8 and 6 points
    np.testing.assert_array_equal(x[96:192], x[:96])  # symmetric start, opponent in its own numbering
    np.testing.assert_array_equal(x[192:], [0, 0, 0, 0, 0, 1])
    board = BackgammonPosition.from_points({6: 10}, {1: 4, 24: 1}, bar=2, opp_bar=3).board
    y = encode_afterstates(board[None, :])[0]
    np.testing.assert_array_equal(y[96 + 0 : 96 + 4], [1, 1, 1, 0.5])  # the opponent's 4 on its own 1 point
    np.testing.assert_array_equal(y[96 + 92 : 96 + 96], [1, 0, 0, 0])
    assert y[192] == 1.0 and y[193] == 1.5 and y[194] == 3 / 15 and y[195] == 7 / 15
    swapped = encode_afterstates(BackgammonPosition(board).swap().board[None, :])[0]
    np.testing.assert_array_equal(swapped[:96], y[96:192])


def test_random_game_under_the_protocol():
    game = BackgammonLearningGame()
    rng = np.random.default_rng(7)
    state = game.start(rng)
    assert game.side_to_move(state) in (1, 2) and game.outcome(state) is None
    sides = set()
    while game.outcome(state) is None:
        options = game.afterstates(state)
        n = len(options.moves)
        assert options.inputs.shape == (n, 198) and np.all(options.gains == 0)
        boards, _ = afterstate_arrays(BackgammonPosition(state.board), state.dice)
        assert boards.shape[0] == n
        sides.add(game.side_to_move(state))
        i = int(rng.integers(n))
        won = bool(options.wins[i])
        state = game.play(state, int(options.moves[i]))
        assert (game.outcome(state) is not None) == won
        b = state.board.astype(int)
        pts = b[:24]
        assert pts[pts > 0].sum() + b[24] + b[26] == N_CHECKERS
        assert -pts[pts < 0].sum() + b[25] + b[27] == N_CHECKERS
        assert game.losses_of(state, 1) == game.losses_of(state, 2) == 0
    assert sides == {1, 2} and game.outcome(state) in (1, 2)
    assert state.board[26] == N_CHECKERS and state.result in (1, 2, 3)


def test_td_self_play_changes_the_weights():
    game = BackgammonLearningGame()
    trainer = Trainer(game, TrainingConfig(regime="self", rewards="end", hidden=40, seed=3))
    before = [np.array(w, copy=True) for w in vars(trainer.network).values() if isinstance(w, np.ndarray)]
    for _ in range(3):
        stats = trainer.play_game()
        assert stats.winner in (1, 2) and stats.plies > 10
    after = [w for w in vars(trainer.network).values() if isinstance(w, np.ndarray)]
    assert trainer.network.metadata["encoding"] == "tesauro198"
    assert any(not np.array_equal(a, b) for a, b in zip(before, after, strict=True))


def test_short_training_beats_random():
    game = BackgammonLearningGame()
    # undiscounted (gamma 1: the default 0.9 makes the net prefer short games) and a linear output (losses are -1)
    config = TrainingConfig(regime="self", rewards="end", hidden=40, seed=11, epsilon=0.0, gamma=1.0,
                            output="linear", alpha=0.05)
    trainer = Trainer(game, config)
    t0 = time.perf_counter()
    for _ in range(1000):
        trainer.play_game()
    assert time.perf_counter() - t0 < 30
    rng = np.random.default_rng(99)
    rate = win_rate(NetworkPlayer(trainer.network), RandomPlayer(rng), 200, rng, START)
    assert rate > 0.8
