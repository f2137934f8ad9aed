"""The rules, case by case: every push ratio, blocked and sandwiched pushes, broadside, push-offs."""

import pytest

from sumito.games.abalone import BLACK, WHITE, IllegalMoveError, NotationError, Position
from sumito.games.abalone.geometry import OFF, geometry

from helpers import position_with


def after(pos, text):
    return pos.play(pos.parse_move(text))


# ------------------------------------------------------------------ legal pushes (sumito)
@pytest.mark.parametrize(
    "black,white,move,black_after,white_after",
    [
        # 2 push 1
        (["e3", "e4"], ["e5"], "e3e4", ["e4", "e5"], ["e6"]),
        # 3 push 1
        (["e2", "e3", "e4"], ["e5"], "e2e3", ["e3", "e4", "e5"], ["e6"]),
        # 3 push 2
        (["e2", "e3", "e4"], ["e5", "e6"], "e2e3", ["e3", "e4", "e5"], ["e6", "e7"]),
        # the same ratios along the other axes: north-west (a1 -> b1 -> c1 ...) and north-east
        (["a1", "b1"], ["c1"], "a1b1", ["b1", "c1"], ["d1"]),
        (["a1", "b2", "c3"], ["d4", "e5"], "a1b2", ["b2", "c3", "d4"], ["e5", "f6"]),
        # pushing west and south
        (["e6", "e7"], ["e5"], "e7e6", ["e5", "e6"], ["e4"]),
        (["g5", "f5", "e5"], ["d5", "c5"], "g5f5", ["f5", "e5", "d5"], ["c5", "b5"]),
    ],
)
def test_legal_push(black, white, move, black_after, white_after):
    pos = position_with(black, white)
    mv = pos.parse_move(move)
    assert mv.is_inline and mv.is_push and not mv.is_push_off
    assert mv.pushed == len(white)
    nxt = pos.play(mv)
    assert sorted(nxt.marbles(BLACK)) == sorted(black_after)
    assert sorted(nxt.marbles(WHITE)) == sorted(white_after)
    assert nxt.lost == (0, 0)
    assert nxt.side_to_move == WHITE


# ------------------------------------------------------------------ refused pushes
@pytest.mark.parametrize(
    "black,white,move,why",
    [
        (["e4"], ["e5"], "e4e5", "1 marble cannot push 1"),  # 1 v 1
        (["e3", "e4"], ["e5", "e6"], "e3e4", "2 marbles cannot push 2"),  # 2 v 2
        (["e2", "e3", "e4"], ["e5", "e6", "e7"], "e2e3", "3 marbles cannot push 3"),  # 3 v 3
        (["e1", "e2", "e3"], ["e4", "e5", "e6", "e7"], "e1e2", "cannot push 4"),  # 3 v 4
        (["e3", "e4"], ["e5", "e6", "e7"], "e3e4", "cannot push 3"),  # 2 v 3
        (["e1", "e2", "e3", "e4"], ["e5"], "e1e2", "a line of 4 marbles cannot move"),  # 4 v 1
        # sandwich: own marble behind the opposing line blocks the push
        (["e3", "e4", "e6"], ["e5"], "e3e4", "blocked by Black's own marble on e6"),
        (["e2", "e3", "e4", "e7"], ["e5", "e6"], "e2e3", "blocked by Black's own marble on e7"),
        # a white marble behind a pushable white line makes it too long (2 v 2, 3 v 3)
        (["e3", "e4"], ["e5", "e6"], "e3e4", "cannot push 2"),
        # a marble of one's own would leave the board
        (["e7", "e8", "e9"], [], "e7e8", "would leave the board"),
    ],
)
def test_refused_move(black, white, move, why):
    pos = position_with(black, white)
    with pytest.raises(IllegalMoveError, match=why):
        pos.parse_move(move)


def test_sandwiched_opponent_between_own_marbles_cannot_be_pushed_by_one():
    pos = position_with(["e3", "e5"], ["e4"])
    with pytest.raises(IllegalMoveError, match="cannot push 1"):
        pos.parse_move("e3e4")
    with pytest.raises(IllegalMoveError, match="cannot push 1"):
        pos.parse_move("e5e4")


def test_push_blocked_by_opponent_marble_beyond_is_a_longer_line():
    # B B W _ W : the gap makes the pushed line one marble, so the push is legal
    pos = position_with(["e2", "e3"], ["e4", "e6"])
    nxt = after(pos, "e2e3")
    assert sorted(nxt.marbles(WHITE)) == ["e5", "e6"]


# ------------------------------------------------------------------ push-offs at every edge
def _edge_cases():
    geo = geometry(5)
    for g in geo.cells:
        for d, off in enumerate(geo.offsets):
            if g + off in set(geo.cells):
                continue
            grid = geo.empty_grid
            behind1, behind2 = g - off, g - 2 * off
            if grid[behind1] == OFF or grid[behind2] == OFF:
                continue
            yield geo.name(g), geo.name(behind1), geo.name(behind2), d


@pytest.mark.parametrize("target,b1,b2,direction", list(_edge_cases()))
def test_push_off_every_edge_cell_and_direction(target, b1, b2, direction):
    pos = position_with([b1, b2], [target])
    pushes = [m for m in pos.legal_moves() if m.is_push]
    assert len(pushes) == 1
    mv = pushes[0]
    assert mv.is_push_off and mv.direction == direction and mv.marbles == (b2, b1)
    nxt = pos.play(mv)
    assert nxt.lost == (0, 1)
    assert nxt.marbles(WHITE) == []
    assert sorted(nxt.marbles(BLACK)) == sorted([b1, target])


def test_three_push_two_at_edge_pushes_one_off():
    pos = position_with(["e5", "e6", "e7"], ["e8", "e9"])
    mv = pos.parse_move("e5e6")
    assert mv.pushed == 2 and mv.is_push_off
    nxt = pos.play(mv)
    assert nxt.marbles(WHITE) == ["e9"] and nxt.lost == (0, 1)


def test_white_pushes_black_off():
    pos = position_with(["a1"], ["c1", "b1"], to_move="w")
    nxt = after(pos, "c1b1")
    assert nxt.lost == (1, 0) and nxt.marbles(BLACK) == []


def test_no_move_ever_pushes_own_marble_off():
    # marbles crowded on the edge: no generated move may reduce Black's count
    pos = position_with(["a1", "a2", "a3", "b1", "e1", "e9", "i9", "i5"], ["c1", "e8"])
    for mv in pos.legal_moves():
        assert pos.play(mv).marble_count(BLACK) == 8


# ------------------------------------------------------------------ broadside
def test_broadside_three_and_two():
    pos = position_with(["e3", "e4", "e5"], [])
    nxt = after(pos, "e3e5f4")
    assert nxt.marbles(BLACK) == ["f4", "f5", "f6"]
    nxt = after(pos, "e5e3d5")  # ends in either order
    assert nxt.marbles(BLACK) == ["d3", "d4", "d5"]
    pos2 = position_with(["e3", "e4"], [])
    assert after(pos2, "e3e4d3").marbles(BLACK) == ["d3", "d4"]


def test_broadside_cannot_push_or_move_into_occupied_cells():
    pos = position_with(["e3", "e4", "e5"], ["f5"])
    with pytest.raises(IllegalMoveError, match="needs empty cells, and f5 is occupied"):
        pos.parse_move("e3e5f4")
    pos = position_with(["e3", "e4", "e5", "f4"], [])
    with pytest.raises(IllegalMoveError, match="f4 is occupied"):
        pos.parse_move("e3e5f4")


def test_broadside_needs_own_marbles_in_the_line():
    pos = position_with(["e3", "e5"], ["e4"])
    with pytest.raises(IllegalMoveError, match="no Black marble on e4"):
        pos.parse_move("e3e5f4")


def test_broadside_off_the_board_is_never_generated():
    pos = position_with(["a1", "a2", "a3"], [])
    for mv in pos.legal_moves():
        assert all(c in geometry(5).name_to_grid for c in mv.destinations)
    assert not any(m.is_broadside and m.direction in (4, 5) for m in pos.legal_moves())


def test_inline_only_game_has_no_broadside():
    pos = Position.start("standard", inline_only=True)
    assert all(m.is_inline for m in pos.legal_moves())
    with pytest.raises(IllegalMoveError, match="inline-only"):
        pos.parse_move("c3c5d4")  # legal broadside in the full game
    assert Position.start("standard").parse_move("c3c5d4").is_broadside


def test_along_the_line_is_not_a_broadside():
    pos = Position.start("standard")
    with pytest.raises(NotationError, match="inline move"):
        pos.parse_move("c3c5c2")


def test_moving_opponent_or_empty_is_refused():
    pos = Position.start("standard")
    with pytest.raises(IllegalMoveError, match="White's and Black is to move"):
        pos.parse_move("g5f5")
    with pytest.raises(IllegalMoveError, match="no marble on e5"):
        pos.parse_move("e5e6")
