"""TD learning of the Alphalone weights (sumito.learn.alphalone_td) and `sumito alphalone-td`."""

from collections import Counter

import numpy as np
import pytest

from sumito.cli import main
from sumito.engine import BLACK, WHITE, Position
from sumito.evaluation.alphalone import AlphaloneWeights
from sumito.evaluation.features import EVAL_ALPHALONE
from sumito.learn.alphalone_td import (
    HAND_SET_BLACK,
    HAND_SET_WHITE,
    TDConfig,
    TDResult,
    features,
    initial_weights,
    play_and_learn,
    td_update,
    train,
    utility,
)
from sumito.players import make_player
from sumito.search.alphabeta import after_values
from sumito.search.context import SearchContext


# ------------------------------------------------------------------ the update
def test_td_update_on_a_hand_made_two_step_sequence():
    # s0 -> s1 (reward 1) -> terminal (reward 16): the TD(0) formula, worked by hand
    w = np.array([1.0, -2.0, 0.5])
    f0 = np.array([1.0, 0.0, 2.0])
    f1 = np.array([0.0, 1.0, 1.0])
    eta, gamma = 0.1, 0.2
    w1, d1 = td_update(w, f0, 1.0, f1, eta=eta, gamma=gamma)
    # V(s0) = 1 + 1 = 2; V(s1) = -2 + 0.5 = -1.5; delta = 1 + 0.2 * -1.5 - 2 = -1.3
    assert d1 == pytest.approx(-1.3)
    assert w1 == pytest.approx([1.0 - 0.13, -2.0, 0.5 - 0.26])  # w + 0.1 * -1.3 * f0
    w2, d2 = td_update(w1, f1, 16.0, None, eta=eta, gamma=gamma)
    # V(s1) under w1 = -2 + 0.24 = -1.76; terminal: delta = 16 - (-1.76) = 17.76
    assert d2 == pytest.approx(17.76)
    assert w2 == pytest.approx([0.87, -2.0 + 1.776, 0.24 + 1.776])
    assert w == pytest.approx([1.0, -2.0, 0.5])  # the input is left alone


def test_td_update_clips():
    w, _ = td_update(np.array([9.0, -9.0]), np.array([1.0, -1.0]), 100.0, None, eta=1.0, clip=10.0)
    assert w.tolist() == [10.0, -10.0]


def test_utility_sign_for_each_colour():
    assert utility(0, 0, BLACK, 10) == 0 and utility(0, 0, WHITE, 10) == 0
    assert utility(0, 1, BLACK, 10) == 10  # White lost one: good for Black
    assert utility(0, 1, WHITE, 10) == -10
    assert utility(2, 1, BLACK, 10) == 10 * (1 - 16)  # fourth powers
    assert utility(2, 1, WHITE, 3) == 3 * 15


def test_default_scale_makes_a_win_worth_160():
    assert TDConfig(layout="mini").utility_scale == 10  # 2 to win
    assert TDConfig(layout="small").utility_scale == pytest.approx(160 / 5**4)
    assert TDConfig(layout="small", scale=2).utility_scale == 2


def test_features_are_what_the_player_scores():
    pos = Position.start("mini")
    w = initial_weights()
    params = np.concatenate([w.black, w.white])
    codes = pos.legal_move_codes()
    values = after_values(SearchContext.of(pos), codes, EVAL_ALPHALONE, params)
    for code, child in zip(codes, (pos.play(m) for m in pos.legal_moves())):
        assert float(np.dot(w.black, features(child))) == pytest.approx(values[list(codes).index(code)])


def test_initial_weights_are_the_same_for_both_players():
    # each colour's weights are the other's seen from the other side (features come in pairs)
    mirrored = [HAND_SET_BLACK[i ^ 1] for i in range(10)]
    assert tuple(mirrored) == HAND_SET_WHITE


# ------------------------------------------------------------------ training
def test_a_game_applies_the_formula_on_each_colours_afterstates():
    config = TDConfig(eta=1e-3, games=1, seed=5)
    trace = []
    w = {BLACK: np.array(HAND_SET_BLACK), WHITE: np.array(HAND_SET_WHITE)}
    start = {c: v.copy() for c, v in w.items()}
    result = TDResult(weights=initial_weights())
    winner = play_and_learn(w, config, np.random.default_rng(5), result, trace=trace)
    assert winner in (BLACK, WHITE)  # the mini board's games end quickly
    # replaying the recorded transitions through td_update gives the same weights
    for color, f, reward, f_next in trace:
        start[color], _ = td_update(start[color], f, reward, f_next, eta=1e-3)
    assert start[BLACK] == pytest.approx(w[BLACK]) and start[WHITE] == pytest.approx(w[WHITE])
    # the game ends with one terminal update per colour: the winner's reward positive, the loser's negative
    *_, last_a, last_b = trace
    assert last_a[3] is None and last_b[3] is None
    rewards = {last_a[0]: last_a[2], last_b[0]: last_b[2]}
    assert rewards[winner] > 0 > rewards[3 - winner]
    assert Counter(c for c, *_ in trace)[BLACK] >= 1 and result.updates == len(trace)


def test_same_seed_same_weights():
    a = train(TDConfig(eta=1e-2, games=6, seed=11)).weights
    b = train(TDConfig(eta=1e-2, games=6, seed=11)).weights
    c = train(TDConfig(eta=1e-2, games=6, seed=12)).weights
    assert a == b
    assert a != c
    assert a != initial_weights()


def test_the_weights_file_plays(tmp_path):
    result = train(TDConfig(eta=1e-3, games=3, seed=2))
    path = tmp_path / "w.json"
    result.weights.save(path)
    assert AlphaloneWeights.load(path) == result.weights
    black = make_player(f"alphalone:weights={path},seed=1")
    white = make_player(f"alphalone:depth=1,weights={path},seed=2")
    pos = Position.start("mini")
    for ply in range(12):
        if pos.winner() is not None:
            break
        move = (black if ply % 2 == 0 else white).choose(pos)
        assert pos.is_legal(move)
        pos = pos.play(move)


# ------------------------------------------------------------------ the command
def test_cli_writes_weights(tmp_path, capsys):
    out = tmp_path / "sub" / "weights.json"
    code = main(["alphalone-td", "--eta", "1e-3", "--games", "3", "--layout", "mini", "--seed", "4", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.strip() == str(out)
    assert "3 games" in captured.err and "black_off" in captured.err
    assert AlphaloneWeights.load(out) == train(TDConfig(eta=1e-3, games=3, seed=4)).weights


BAD = {
    "eta not a number": (["--eta", "fast"], "--eta must be a number, not 'fast'"),
    "eta zero": (["--eta", "0"], "--eta must be a positive number"),
    "games zero": (["--games", "0"], "--games must be at least 1"),
    "games fraction": (["--games", "2.5"], "--games must be a whole number"),
    "negative seed": (["--seed", "-1"], "--seed must be a whole number from 0"),
    "unknown layout": (["--layout", "hexagon"], "unknown layout 'hexagon'"),
    "gamma above 1": (["--gamma", "1.5"], "--gamma must be from 0 to 1"),
    "negative scale": (["--scale", "-2"], "--scale must be a positive number"),
    "no out": (None, "--out FILE is required"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_cli_bad_arguments_are_one_error_line(tmp_path, capsys, case):
    extra, message = BAD[case]
    argv = ["alphalone-td", "--games", "1", *([*extra, "--out", str(tmp_path / "w.json")] if extra else [])]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("sumito: error: ") and message in err, err
    assert not (tmp_path / "w.json").exists()
