"""Games: push/pop, results, and every draw rule."""

import numpy as np
import pytest

from sumito.games.abalone import BLACK, WHITE, DrawRules, Game, GameOverError, IllegalMoveError, LayoutError, Position

from helpers import position_with


def test_push_pop_restores_everything():
    game = Game("standard")
    start = game.position
    for mv in ["a1b1", "i5h5", "c3d3"]:
        game.push(mv)
    assert game.plies == 3 and [m.notation() for m in game.moves] == ["a1b1", "i5h5", "c3d3"]
    for _ in range(3):
        game.pop()
    assert game.position == start and game.repetition_count() == 1
    with pytest.raises(GameOverError, match="no move to take back"):
        game.pop()


def test_illegal_move_leaves_game_unchanged():
    game = Game()
    with pytest.raises(IllegalMoveError):
        game.push("e5e6")
    assert game.plies == 0


def test_win_by_push_off():
    pos = position_with(["e7", "e8"], ["e9"], lost=(0, 5))
    game = Game(pos)
    game.push("e7e8")
    outcome = game.outcome()
    assert outcome.winner == BLACK and outcome.reason == "push-off" and outcome.result == "1-0"
    assert game.legal_moves() == []
    with pytest.raises(GameOverError, match="Black wins"):
        game.push("e8e9")


def _shuffle(game, cycles):
    """Both sides move a marble out and back: the start position recurs every 4 plies."""
    for _ in range(cycles):
        for mv in ["c3d3", "g5f5", "d3c3", "f5g5"]:
            if game.is_over():
                return
            game.push(mv)


def test_threefold_repetition():
    game = Game("standard", DrawRules(repetitions=3))
    _shuffle(game, 1)
    assert game.repetition_count() == 2 and not game.is_over()
    _shuffle(game, 1)
    outcome = game.outcome()
    assert outcome.winner is None and outcome.reason == "repetition" and game.plies == 8


def test_repetition_rule_can_be_off_and_configured():
    game = Game("standard", DrawRules(repetitions=None))
    _shuffle(game, 5)
    assert game.outcome() is None
    game = Game("standard", DrawRules(repetitions=2))
    _shuffle(game, 1)
    assert game.outcome().reason == "repetition" and game.plies == 4


def test_ply_cap():
    game = Game("standard", DrawRules(max_plies=3, repetitions=None))
    _shuffle(game, 2)
    assert game.plies == 3 and game.outcome().reason == "ply-cap" and game.outcome().result == "1/2-1/2"


def test_no_capture_limit():
    rules = DrawRules(no_capture_plies=4, repetitions=None)
    game = Game("standard", rules)
    _shuffle(game, 2)
    assert game.plies == 4 and game.outcome().reason == "no-capture"
    # a push-off resets the count
    pos = position_with(["e7", "e8", "a1"], ["e9", "i5", "i6"], lost=(0, 0))
    game = Game(pos, DrawRules(no_capture_plies=2, repetitions=None))
    game.push("e7e8")  # pushes e9 off the board
    assert game.moves[-1].is_push_off and game.outcome() is None
    game.push("i5h4")
    assert game.outcome() is None
    game.push("a1b1")
    assert game.outcome().reason == "no-capture"


def test_no_legal_moves_draw_or_loss():
    # White's only marble is boxed in at the corner a1 by black lines of two it cannot push
    pos = position_with(["a2", "a3", "b2", "c3", "b1", "c1"], ["a1"], to_move="w")
    assert pos.count_legal_moves() == 0
    assert Game(pos).outcome().reason == "no-moves" and Game(pos).outcome().winner is None
    loss = Game(pos, DrawRules(no_moves="loss")).outcome()
    assert loss.winner == BLACK and loss.reason == "no-moves"


def test_resignation_and_declared_endings():
    game = Game()
    game.push("a1b1")
    outcome = game.resign(WHITE)
    assert outcome.winner == BLACK and outcome.reason == "resignation" and game.is_over()
    with pytest.raises(GameOverError):
        game.push("i5h5")
    game.pop()  # taking back a move also takes back the resignation
    assert not game.is_over()


@pytest.mark.parametrize(
    "kwargs",
    [{"max_plies": 0}, {"repetitions": 1}, {"no_capture_plies": -3}, {"no_moves": "win"}],
)
def test_bad_draw_rules(kwargs):
    with pytest.raises(LayoutError):
        DrawRules(**kwargs)


def test_random_games_end_and_replay_identically():
    for seed in range(3):
        rng = np.random.default_rng(seed)
        game = Game("mini", DrawRules(max_plies=300))
        while not game.is_over():
            moves = game.legal_moves()
            game.push(moves[rng.integers(len(moves))])
        replay = Game("mini", DrawRules(max_plies=300))
        for mv in game.moves:
            replay.push(mv.notation())
        assert replay.outcome() == game.outcome() and replay.position == game.position
        assert isinstance(game.start, Position)
