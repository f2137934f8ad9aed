"""Backgammon rules: case-by-case rules, the fast generator against a brute-force reference, position IDs
and game results.

The reference move generator below is deliberately slow and literal: it tries every order of the dice
and every checker at every step, with no pruning and no shared code with the numba kernels, then
applies the must-use rules to the finished sequences. It is the oracle for the afterstate counts too.
"""

from __future__ import annotations

import base64

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sumito.games.backgammon import (
    ALL_ROLLS,
    ROLL_PROBABILITIES,
    BackgammonPosition,
    PositionIdError,
    afterstate_arrays,
    from_position_id,
    game_result,
    is_over,
    legal_plays,
    opening_roll,
    position_id,
    random_position,
    roll_dice,
)
from sumito.games.backgammon.board import BAR, OFF, OPP_BAR, OPP_OFF

# --------------------------------------------------------------------------------------------------
# The brute-force reference (lists, mover's view: index 0..23 = points 1..24, 24/25 bars, 26/27 off)


def _ref_single_moves(board: list[int], die: int) -> list[list[int]]:
    """Every board reachable by moving one checker ``die`` pips, straight from the rules."""
    out = []
    # a checker on the bar must enter first, on the opponent's home board
    sources = [25] if board[24] > 0 else [p for p in range(1, 25) if board[p - 1] > 0]
    checkers_home = sum(c for c in board[0:6] if c > 0) + board[26]
    highest = max((p for p in range(1, 25) if board[p - 1] > 0), default=0)
    for source in sources:
        target = source - die
        new = list(board)
        if source == 25:
            new[24] -= 1
        else:
            new[source - 1] -= 1
        if target >= 1:
            if board[target - 1] <= -2:
                continue  # blocked
            if board[target - 1] == -1:  # hit the blot
                new[target - 1] = 0
                new[25] += 1
            new[target - 1] += 1
        else:
            if checkers_home != 15:
                continue  # bearing off needs every checker home
            if target < 0 and source != highest:
                continue  # a larger die bears off only from the highest point
            new[26] += 1
        out.append(new)
    return out


def reference_afterstates(board: list[int] | np.ndarray, d1: int, d2: int) -> set[tuple[int, ...]]:
    """The set of legal afterstates for the roll, by brute force over every dice order."""
    start = [int(x) for x in board]
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    finished: list[tuple[tuple[int, ...], tuple[int, ...]]] = []  # (board, dice used)
    for order in orders:
        frontier = [(start, ())]
        for die in order:
            nxt = []
            for b, used in frontier:
                children = _ref_single_moves(b, die)
                if not children:
                    finished.append((tuple(b), used))
                nxt.extend((c, (*used, die)) for c in children)
            frontier = nxt
        finished.extend((tuple(b), used) for b, used in frontier)
    most = max(len(used) for _, used in finished)
    plays = [(b, used) for b, used in finished if len(used) == most]
    if most == 1 and d1 != d2:
        high = max(d1, d2)
        if any(used[0] == high for _, used in plays):
            plays = [(b, used) for b, used in plays if used[0] == high]
    return {b for b, _ in plays}


def kernel_afterstates(position: BackgammonPosition, dice: tuple[int, int]) -> set[tuple[int, ...]]:
    boards, _ = afterstate_arrays(position, dice)
    return {tuple(int(x) for x in row) for row in boards}


def pos(mine: dict[int, int], theirs: dict[int, int], bar: int = 0, opp_bar: int = 0) -> BackgammonPosition:
    return BackgammonPosition.from_points(mine, theirs, bar=bar, opp_bar=opp_bar)


def afterstate_set(position: BackgammonPosition, dice: tuple[int, int]) -> set[BackgammonPosition]:
    return {play.afterstate for play in legal_plays(position, dice)}


START = BackgammonPosition.start()
FAR_AWAY = {6: 15}  # opponent checkers that stay out of the way of the mover's home board

# --------------------------------------------------------------------------------------------------
# Board


def test_start_position_layout():
    assert START.point(24) == 2 and START.point(13) == 5 and START.point(8) == 3 and START.point(6) == 5
    assert START.point(1) == -2 and START.point(12) == -5 and START.point(17) == -3 and START.point(19) == -5
    assert START.pips() == (167, 167)
    assert START.swap() == START


def test_swap_is_an_involution_and_positions_hash_by_value():
    p = pos({24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4}, bar=1, opp_bar=1)
    assert p.swap() != p and p.swap().swap() == p
    assert p.swap().bar == p.opp_bar and p.swap().off == p.opp_off
    assert len({p, BackgammonPosition(p.board.copy()), START}) == 2
    with pytest.raises(ValueError):
        p.board[0] = 3  # read-only: positions are values


def test_a_position_needs_fifteen_checkers_a_side():
    board = START.board.copy()
    board[5] += 1
    with pytest.raises(ValueError, match="15 checkers"):
        BackgammonPosition(board)


# --------------------------------------------------------------------------------------------------
# Rules, case by case


def test_entering_from_the_bar_comes_first():
    # the 6 cannot enter (the opponent holds its 6 point = our 19); the 5 enters, then the 6 moves on
    p = pos({6: 14}, {6: 3, 13: 12}, bar=1)
    plays = legal_plays(p, (6, 5))
    assert [play.notation() for play in plays] == ["bar/20 20/14"]


def test_only_one_of_two_checkers_on_the_bar_can_enter():
    p = pos({6: 13}, {6: 3, 13: 12}, bar=2)
    assert afterstate_set(p, (6, 5)) == {pos({20: 1, 6: 13}, {6: 3, 13: 12}, bar=1)}


def test_entering_can_hit_a_blot():
    p = pos({6: 14}, {5: 1, 6: 3, 13: 11}, bar=1)
    after = afterstate_set(p, (5, 5))
    assert pos({5: 1, 6: 14}, {6: 3, 13: 11}, opp_bar=1) in after  # bar/20* 20/15 15/10 10/5
    assert all(a.opp_bar == 1 for a in after)  # entering on 20 with a 5 always hits


def test_a_closed_board_means_a_pass():
    p = pos({6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5}, bar=1)
    boards, moves = afterstate_arrays(p, (6, 3))
    assert boards.shape[0] == 1 and BackgammonPosition(boards[0]) == p
    assert (moves[0] == -1).all()
    assert [play.notation() for play in legal_plays(p, (6, 3))] == ["pass"]


def test_blocked_points_are_never_landed_on():
    # from the start, 5-5: 24/19 and 6/1 are blocked, so only 13/8 and 8/3 combinations remain
    assert len(afterstate_set(START, (5, 5))) == 4
    for play in legal_plays(START, (6, 5)):
        assert (24, 19) not in play.moves and (6, 1) not in play.moves


def test_hitting_a_blot_sends_it_to_the_bar():
    p = pos({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 5: 1})  # their blot on their 5 = our 20
    after = afterstate_set(p, (4, 1))
    hit = pos({23: 1, 20: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4}, opp_bar=1)  # 24/20* 24/23
    assert hit in after
    for a in after:  # whoever lands on 20 hits; nobody else does
        assert (a.point(20) > 0) == (a.opp_bar == 1)


def test_bearing_off_with_the_exact_number():
    p = pos({6: 1, 3: 1}, FAR_AWAY)
    assert afterstate_set(p, (6, 3)) == {pos({}, FAR_AWAY), pos({3: 1}, FAR_AWAY)}


def test_bearing_off_with_a_higher_die_only_from_the_highest_point():
    p = pos({4: 1, 2: 1}, FAR_AWAY)
    assert afterstate_set(p, (6, 5)) == {pos({}, FAR_AWAY)}
    assert afterstate_set(p, (6, 1)) == {pos({1: 1}, FAR_AWAY), pos({2: 1}, FAR_AWAY)}


def test_no_bearing_off_with_a_checker_outside_the_home_board():
    p = pos({7: 1, 3: 1}, FAR_AWAY)  # 3/off is not allowed before 7/6 or 7/4
    assert afterstate_set(p, (3, 1)) == {
        pos({6: 1}, FAR_AWAY),  # 7/6 3/off: home first, then bear off
        pos({3: 2}, FAR_AWAY),
        pos({4: 1, 2: 1}, FAR_AWAY),
    }
    assert kernel_afterstates(p, (3, 1)) == reference_afterstates(p.board, 3, 1)


def test_both_dice_must_be_played_when_possible():
    # 2/1 alone would be legal for the 1, but then the 6 cannot be played; 10/9 9/3 plays both
    theirs = {21: 2}  # holds our 4 point: 10/4 is blocked
    p = pos({10: 1, 2: 1}, theirs)
    assert [play.notation() for play in legal_plays(p, (6, 1))] == ["10/9 9/3"]


def test_the_larger_die_when_only_one_can_be_played():
    theirs = {23: 2}  # holds our 2 point: 10/4 then 4/2, and 10/8 then 8/2, are blocked
    p = pos({10: 1}, theirs)
    assert [play.notation() for play in legal_plays(p, (6, 2))] == ["10/4"]
    # when the larger die cannot be played at all, the smaller one is
    theirs = {21: 2, 22: 2}  # holds our 4 and 3 points
    p = pos({10: 1}, theirs)
    assert [play.notation() for play in legal_plays(p, (6, 1))] == ["10/9"]


def test_doubles_move_up_to_four_times_and_as_many_as_possible():
    assert all(len(play.moves) == 4 for play in legal_plays(START, (6, 6)))
    # 13/9/5 and then 5/1 is blocked (their 24 point): only two of the four 4s can be played
    p = pos({13: 1}, {24: 2})
    assert [play.notation() for play in legal_plays(p, (4, 4))] == ["13/9 9/5"]


def test_the_move_rows_replay_to_their_afterstates():
    rng = np.random.default_rng(7)
    for _ in range(40):
        p = random_position(rng)
        dice = roll_dice(rng)
        for play in legal_plays(p, dice):
            board = [int(x) for x in p.board]
            for source, target in play.moves:
                die = source - target if target > 0 else None
                matches = [
                    b
                    for d in set(dice)
                    if die in (None, d)
                    for b in _ref_single_moves(board, d)
                    if _moved(board, b, source, target)
                ]
                board = matches[0]
            assert tuple(board) == tuple(int(x) for x in play.afterstate.board)


def _moved(before: list[int], after: list[int], source: int, target: int) -> bool:
    src = 24 if source == 25 else source - 1
    if after[src] != before[src] - 1:
        return False
    return after[26] == before[26] + 1 if target == 0 else after[target - 1] in (before[target - 1] + 1, 1)


# --------------------------------------------------------------------------------------------------
# Against the reference; counts from the start position

# Distinct afterstates from the start for each of the 21 rolls, as the reference oracle counts them
# (checked by hand for 5-5: 13/8 and 8/3 only, a + b = 4 with b <= 3 + a -> 4; and 6-6 -> 11).
START_COUNTS = {
    (1, 1): 42, (2, 1): 15, (2, 2): 75, (3, 1): 16, (3, 2): 17, (3, 3): 73, (4, 1): 14,
    (4, 2): 18, (4, 3): 17, (4, 4): 52, (5, 1): 8, (5, 2): 8, (5, 3): 9, (5, 4): 9,
    (5, 5): 4, (6, 1): 10, (6, 2): 14, (6, 3): 14, (6, 4): 14, (6, 5): 7, (6, 6): 11,
}  # fmt: skip


def test_start_counts_match_the_reference():
    for a, b in ALL_ROLLS:
        fast = kernel_afterstates(START, (a, b))
        assert fast == reference_afterstates(START.board, a, b), (a, b)
        assert kernel_afterstates(START, (b, a)) == fast  # the order of the dice does not matter
        assert len(fast) == START_COUNTS[a, b], (a, b)


@given(seed=st.integers(0, 2**32 - 1))
def test_afterstates_match_the_reference_on_random_positions(seed):
    rng = np.random.default_rng(seed)
    p = random_position(rng)
    for a, b in ALL_ROLLS:
        boards, moves = afterstate_arrays(p, (a, b))
        rows = {tuple(int(x) for x in row) for row in boards}
        assert len(rows) == boards.shape[0]  # unique: no afterstate is listed twice
        assert rows == reference_afterstates(p.board, a, b), (position_id(p), a, b)
        assert moves.shape == (boards.shape[0], 8)


@given(seed=st.integers(0, 2**32 - 1))
def test_checkers_are_conserved(seed):
    rng = np.random.default_rng(seed)
    p = random_position(rng)
    boards, _ = afterstate_arrays(p, roll_dice(rng))
    points = boards[:, :24].astype(int)
    mine = np.where(points > 0, points, 0).sum(axis=1) + boards[:, BAR] + boards[:, OFF]
    theirs = np.where(points < 0, -points, 0).sum(axis=1) + boards[:, OPP_BAR] + boards[:, OPP_OFF]
    assert (mine == 15).all() and (theirs == 15).all()
    # the mover never loses pips to its own play and the opponent never gains checkers off
    assert (boards[:, OPP_OFF] == p.opp_off).all() and (boards[:, OFF] >= p.off).all()


# --------------------------------------------------------------------------------------------------
# Position IDs


def test_start_position_id():
    assert position_id(START) == "4HPwATDgc/ABMA"
    assert from_position_id("4HPwATDgc/ABMA") == START


def test_position_id_matches_gnubg_for_a_lopsided_position():
    # checked with gnubg 1.07: X opens 31 with 8/5 6/5; with O on roll gnubg shows sGfwATDgc/ABMA
    x_after_31 = pos({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert position_id(x_after_31.swap()) == "sGfwATDgc/ABMA"
    assert from_position_id("sGfwATDgc/ABMA") == x_after_31.swap()


@given(seed=st.integers(0, 2**32 - 1))
def test_position_ids_round_trip(seed):
    p = random_position(np.random.default_rng(seed))
    text = position_id(p)
    assert len(text) == 14 and from_position_id(text) == p
    assert from_position_id(position_id(p.swap())) == p.swap()


@pytest.mark.parametrize(
    "text",
    ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMAA", "4HPwATDgc/AB!A", "//////////////", "4HPwATDgc/ABMB"],
)
def test_malformed_position_ids_are_rejected(text):
    with pytest.raises(PositionIdError):
        from_position_id(text)


def test_position_id_with_both_sides_on_one_point_is_rejected():
    # the mover on its 1 point and the opponent on its 24 point (the same point)
    bits = "0" * 23 + "10" + "0" + "10" + "0" * 24  # opponent 24 pt, opponent bar, mover 1 pt, ...
    key = sum(1 << i for i, c in enumerate(bits) if c == "1")
    text = base64.b64encode(key.to_bytes(10, "little")).decode()[:14]
    with pytest.raises(PositionIdError, match="both sides"):
        from_position_id(text)


# --------------------------------------------------------------------------------------------------
# Game results and dice


def test_game_results_single_gammon_backgammon():
    assert game_result(START.board) == 0 and not is_over(START)
    single = pos({}, {6: 14})  # the mover is off; the opponent has borne one off
    assert game_result(single.board) == 1 and game_result(single.swap().board) == -1
    gammon = pos({}, {12: 15})  # none off, none in our home board (their 19-24) or on the bar
    assert game_result(gammon.board) == 2 and game_result(gammon.swap().board) == -2
    in_home = pos({}, {12: 14, 20: 1})  # their 20 point is our 5: inside the winner's home board
    assert game_result(in_home.board) == 3 and game_result(in_home.swap().board) == -3
    on_bar = pos({}, {12: 14}, opp_bar=1)
    assert game_result(on_bar.board) == 3 and is_over(on_bar)


def test_dice_are_reproducible_and_the_roll_table_sums_to_one():
    assert len(ALL_ROLLS) == 21 and abs(ROLL_PROBABILITIES.sum() - 1) < 1e-12
    rolls = [roll_dice(np.random.default_rng(5)) for _ in range(3)]
    assert rolls[0] == rolls[1] == rolls[2]
    first, (a, b) = opening_roll(np.random.default_rng(9))
    assert a != b and first == (0 if a > b else 1)
