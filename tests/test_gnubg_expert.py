"""GNU Backgammon (gnubg-nn) as the expert: board conversions both ways, move choice, evaluations."""

from __future__ import annotations

import numpy as np
import pytest

gnubg_nn = pytest.importorskip(
    "gnubg_nn", reason="the GNU Backgammon expert needs the optional package gnubg-nn: pip install 'sumito[gnubg]'"
)

from sumito.games.backgammon.board import START_ID, BackgammonPosition, from_position_id, position_id, swap_array  # noqa: E402  # noqa: E402
from sumito.games.backgammon.game import afterstate_arrays, play_game, random_position, roll_dice  # noqa: E402
from sumito.players.backgammon.gnubg_expert import (  # noqa: E402
    GnubgExpert,
    apply_gnubg_move,
    equity,
    from_gnubg,
    to_gnubg,
)
from sumito.players.backgammon.pubeval import PubevalPlayer  # noqa: E402


def _positions(n: int, seed: int) -> list[BackgammonPosition]:
    rng = np.random.default_rng(seed)
    return [random_position(rng) for _ in range(n)]


def test_start_position_converts_both_ways():
    start = BackgammonPosition.start()
    side = [0] * 25
    for point, count in ((24, 2), (13, 5), (8, 3), (6, 5)):
        side[point - 1] = count
    assert to_gnubg(start) == (side, side)
    assert from_gnubg(gnubg_nn.board_from_position_id(START_ID)) == start


def test_bar_and_borne_off_position():
    # mover: 2 on its bar, 3 on its 2 point, 10 off; opponent: 1 on its bar, 4 on its 20 point, 10 off
    pos = BackgammonPosition.from_points({2: 3}, {20: 4}, bar=2, opp_bar=1)
    assert (pos.off, pos.opp_off) == (10, 10)
    opponent, mover = to_gnubg(pos)
    assert mover[24] == 2 and mover[1] == 3 and sum(mover) == 5
    assert opponent[24] == 1 and opponent[19] == 4 and sum(opponent) == 5
    assert from_gnubg((opponent, mover)) == pos
    # gnubg agrees that the side on roll (second list) enters from its bar, "point 25"
    for frm, _ in gnubg_nn.best_move([opponent, mover], 6, 5)[:2]:
        assert frm == 25


def test_round_trips_on_random_positions():
    for pos in _positions(300, seed=1):
        lists = to_gnubg(pos)
        assert from_gnubg(lists) == pos
        assert to_gnubg(from_gnubg(lists)) == lists
        assert from_gnubg(to_gnubg(pos.swap())) == pos.swap()


def test_position_ids_agree_with_gnubg():
    assert position_id(from_gnubg(gnubg_nn.board_from_position_id(START_ID))) == START_ID
    # after 31 played 8/5 6/5 from the start the other side is on roll; gnubg 1.07 shows this ID
    after = apply_gnubg_move(BackgammonPosition.start().board, ((8, 5), (6, 5)))
    turned = BackgammonPosition(swap_array(after))
    assert gnubg_nn.position_id(list(to_gnubg(turned))) == position_id(turned) == "sGfwATDgc/ABMA"
    for pos in _positions(200, seed=2):
        pid = position_id(pos)
        assert gnubg_nn.position_id(list(to_gnubg(pos))) == pid
        assert from_gnubg(gnubg_nn.board_from_position_id(pid)) == pos == from_position_id(pid)


def test_gnubg_legal_plays_match_our_afterstates():
    """gnubg's move list (unswapped result keys, side on roll second) is exactly our set of afterstates."""
    rng = np.random.default_rng(3)
    for pos in _positions(200, seed=3):
        dice = roll_dice(rng)
        boards, _ = afterstate_arrays(pos, dice)
        ours = {b.tobytes() for b in boards}
        listed = gnubg_nn.moves(list(to_gnubg(pos)), dice[0], dice[1], 1)
        if not listed:  # no legal move: our only afterstate is the board itself
            assert ours == {pos.board.tobytes()}
            continue
        theirs = {from_gnubg(gnubg_nn.board_from_position_key(key)).board.tobytes() for key, _ in listed}
        assert theirs == ours
        for key, move in listed:  # gnubg's moves, applied by us, give gnubg's result
            assert apply_gnubg_move(pos.board, move).tobytes() == from_gnubg(
                gnubg_nn.board_from_position_key(key)
            ).board.tobytes()


@pytest.mark.parametrize("ply", [0, 1])
def test_expert_plays_are_our_afterstates(ply):
    expert = GnubgExpert(ply=ply)
    rng = np.random.default_rng(4 + ply)
    agree = total = 0
    for pos in _positions(300 if ply == 0 else 60, seed=5 + ply):
        dice = roll_dice(rng)
        boards, _ = afterstate_arrays(pos, dice)
        row = expert.choose(pos.board, boards)
        assert 0 <= row < boards.shape[0]
        gnubg_row = expert.choose_dice(pos.board, boards, dice)  # raises unless gnubg's play is ours
        assert 0 <= gnubg_row < boards.shape[0]
        total += 1
        agree += row == gnubg_row or np.isclose(
            expert.evaluate_equity(swap_array(boards[row]))[0], expert.evaluate_equity(swap_array(boards[gnubg_row]))[0]
        )
    if ply == 0:  # at 0-ply our scoring of the afterstates is gnubg's own choice
        assert agree / total > 0.97


def test_start_position_evaluation_is_sane():
    expert = GnubgExpert()
    probs = expert.evaluate(BackgammonPosition.start())
    assert probs.shape == (1, 5)
    win, win_g, win_bg, lose_g, lose_bg = probs[0]
    assert 0.5 < win < 0.56  # the side on roll is a little ahead
    assert 0.0 < win_bg < win_g < win and 0.0 < lose_bg < lose_g < 1 - win
    assert 0.0 < expert.evaluate_equity(BackgammonPosition.start())[0] < 0.1
    assert 0.5 < GnubgExpert(ply=1).evaluate(BackgammonPosition.start())[0, 0] < 0.56


def test_evaluations_are_from_the_side_to_move():
    expert = GnubgExpert()
    # the side to move has 1 checker left on its 1 point, the opponent 15 at home: the mover wins
    pos = BackgammonPosition.from_points({1: 1}, {1: 5, 2: 5, 3: 5})
    assert expert.evaluate(pos)[0, 0] > 0.99
    assert expert.evaluate(pos.swap())[0, 0] < 0.01
    assert equity(np.array([1.0, 1.0, 0.0, 0.0, 0.0])) == pytest.approx(2.0)


def test_expert_beats_pubeval():
    expert, pubeval = GnubgExpert(), PubevalPlayer()
    rng = np.random.default_rng(7)
    start = BackgammonPosition.start().board
    results = [play_game(expert, pubeval, rng, start) for _ in range(100)]
    wins = sum(r > 0 for r in results)
    assert wins >= 60, f"gnubg won only {wins} of 100 against pubeval"
    assert sum(results) > 0


def test_missing_package_message(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    with pytest.raises(ImportError, match=r"pip install 'sumito\[gnubg\]'"):
        GnubgExpert()
