"""TD learning of the Alphalone weights (sumito.learn.alphalone_td) and `sumito alphalone-td`."""

import itertools
from collections import Counter

import numpy as np
import pytest

from sumito.cli import main
from sumito.evaluation.alphalone import CODE_ORDERING, AlphaloneWeights, default_weights, feature_vector, normalized
from sumito.evaluation.features import EVAL_ALPHALONE
from sumito.games.abalone import BLACK, WHITE, Move, Position
from sumito.learn.alphalone_td import (
    HAND_SET_BLACK,
    HAND_SET_WHITE,
    TDConfig,
    TDResult,
    features,
    initial_weights,
    play_and_learn,
    play_and_learn_code,
    successor_scores,
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


def test_text_features_are_what_the_evaluation_kernel_scores():
    pos = Position.start("mini")
    w = initial_weights()
    params = np.concatenate([w.black, w.white])
    codes = pos.legal_move_codes()
    values = after_values(SearchContext.of(pos), codes, EVAL_ALPHALONE, params)
    for code, child in zip(codes, (pos.play(m) for m in pos.legal_moves())):
        assert float(np.dot(w.black, features(child, "text"))) == pytest.approx(values[list(codes).index(code)])


def test_code_features_by_hand():
    # row a of the mini board: Black a1, White a2, Black a3; one marble each already off; White to move
    pos = Position.from_string("3/4/5/4/bwb w 1 1 5")
    f = feature_vector(pos, "code")
    # off (squared: White to move), edge, |x|+|y|+|z| per marble, same-colour neighbours per marble,
    # contacts with the other colour per marble
    assert f.tolist() == pytest.approx([1, 1, 2, 1, 4, 4, 0, 0, 1, 2])
    assert feature_vector(pos, "text")[8] == pytest.approx(0.5)  # the text reading: one white marble touched
    two_off = Position.from_string("3/4/5/4/bwb w 1 2 5", pos.variant.with_options(win_threshold=3))
    assert feature_vector(two_off, "code")[1] == 4  # squared when White is to move
    assert feature_vector(Position.from_string("3/4/5/4/bwb b 1 2 5", two_off.variant), "code")[1] == 2


def test_code_features_are_what_the_player_and_the_training_score():
    pos = Position.start("mini", inline_only=True)
    w = initial_weights()
    codes, values = successor_scores(pos, np.array(w.black))
    for code, value in zip(codes, values):
        assert value == pytest.approx(float(np.dot(w.black, features(pos.play(Move(int(code), 3))))))
    # the baseline player (depth 0) scores the same successors with the L1-normalised weights
    player = make_player("alphalone:depth=0")
    best = player.choose(pos).code
    norm = normalized(default_weights().black, "l1")
    scores = {int(c): float(norm @ features(pos.play(Move(int(c), 3)))) for c in codes}
    assert scores[best] == pytest.approx(max(scores.values()))
    assert normalized(CODE_ORDERING, "l1") == pytest.approx(np.array(CODE_ORDERING) / np.abs(CODE_ORDERING).sum())


def test_initial_weights_are_the_same_for_both_players():
    # each colour's weights are the other's seen from the other side (features come in pairs)
    mirrored = [HAND_SET_BLACK[i ^ 1] for i in range(10)]
    assert tuple(mirrored) == HAND_SET_WHITE


# ------------------------------------------------------------------ training
def test_a_game_applies_the_formula_on_each_colours_afterstates():
    config = TDConfig(eta=1e-3, games=1, seed=5, method="afterstates")
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


def test_code_method_updates_every_ply_on_the_position_before_the_move():
    config = TDConfig(eta=1e-3, games=1, seed=5, max_plies=60)
    w0 = np.array(HAND_SET_BLACK)
    trace = []
    result = TDResult(weights=initial_weights())
    w, winner = play_and_learn_code(w0.copy(), BLACK, config, np.random.default_rng(0), result, trace=trace)
    assert result.updates == len(trace) == result.plies  # one update a ply, both colours' moves
    replay = w0.copy()
    for f, reward, f_next in trace:
        assert f_next is not None  # the code has no terminal case
        replay, _ = td_update(replay, f, reward, f_next, eta=1e-3)
    assert replay == pytest.approx(w)
    # consecutive updates chain: each position's features are the next update's start
    for (_, _, f_next), (f, _, _) in itertools.pairwise(trace):
        assert f_next is f
    assert trace[0][0].tolist() == features(Position.start("mini", inline_only=True)).tolist()
    if winner is not None:
        assert (trace[-1][1] > 0) == (winner == BLACK)  # Black's utility


def test_code_method_white_side_and_terminal_options():
    start = initial_weights()
    code = TDConfig(eta=1e-3, games=1, max_plies=40)
    mirror = TDConfig(eta=1e-3, games=1, max_plies=40, white_side="mirror")
    for config in (code, mirror):
        trace = []
        play_and_learn_code(np.array(start.white), WHITE, config, np.random.default_rng(0), TDResult(start), trace)
        assert len(trace) >= 1
    zero = TDConfig(eta=1e-3, games=1, terminal="zero")
    trace = []
    _, winner = play_and_learn_code(np.array(start.black), BLACK, zero, np.random.default_rng(0), TDResult(start),
                                    trace)
    if winner is not None:
        assert trace[-1][2] is None


def test_same_seed_same_weights():
    for method in ("code", "afterstates"):
        a = train(TDConfig(eta=1e-2, games=6, seed=11, method=method, explore=0.5)).weights
        b = train(TDConfig(eta=1e-2, games=6, seed=11, method=method, explore=0.5)).weights
        c = train(TDConfig(eta=1e-2, games=6, seed=12, method=method, explore=0.5)).weights
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
    out.parent.mkdir()
    code = main(["alphalone-td", "--eta", "1e-3", "--games", "3", "--layout", "mini", "--seed", "4", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.strip() == str(out)
    # the code method trains each colour's weights in a run of its own: 3 games each
    assert "6 games, 3 for each colour's weights" in captured.err and "black_off" in captured.err
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
    "unknown method": (["--method", "magic"], "--method must be one of code, afterstates"),
    "unknown white side": (["--white-side", "left"], "--white-side must be one of code, mirror"),
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
