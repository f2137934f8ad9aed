"""Position strings: round trips and clear errors for malformed input; named layouts."""

import pytest

from sumito.games.abalone import BLACK, LAYOUTS, WHITE, LayoutError, Position, PositionError, Variant, get_layout

STANDARD = "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1"


def test_standard_start_string():
    pos = Position.start()
    assert pos.to_string() == STANDARD
    assert Position.from_string(STANDARD) == pos
    assert pos.marble_count(BLACK) == 14 and pos.marble_count(WHITE) == 14
    assert pos.side_to_move == BLACK and pos.lost == (0, 0) and pos.move_number == 1


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_every_layout_round_trips_and_is_full(name):
    lay = LAYOUTS[name]
    pos = Position.start(name)
    assert pos.to_string() == lay.position_string
    assert pos.marble_count(BLACK) == lay.variant.marbles == pos.marble_count(WHITE)
    assert pos.variant == lay.variant


def test_layout_names_are_forgiving():
    assert get_layout("Belgian Daisy").name == "belgian-daisy"
    assert get_layout("german").name == "german-daisy"
    assert get_layout("wall").name == "the-wall"
    with pytest.raises(LayoutError, match="unknown layout 'hexagon'; known layouts: standard"):
        get_layout("hexagon")


def test_move_number_and_side_advance():
    pos = Position.start().play("a1b1")
    assert pos.side_to_move == WHITE and pos.move_number == 1
    pos = pos.play("i5h5")
    assert pos.side_to_move == BLACK and pos.move_number == 2
    assert pos.to_string().endswith(" b 0 0 2")


def test_small_boards_are_recognised_by_row_count():
    small = Position.from_string("wwww/wwwww/2ww2/7/2bb2/bbbbb/bbbb b 0 0 1")
    assert small.variant.side == 4 and small.variant.win_threshold == 5
    mini = Position.from_string("www/1ww1/5/1b2/bbb w 1 0 7")
    assert mini.variant.side == 3 and mini.side_to_move == WHITE and mini.lost == (1, 0)


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "5 fields"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0", "5 fields"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb b 0 0 1", "8 rows"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbb b 0 0 1", "row a has 4 cells, but that row has 5"),
        ("wwwww/wwwwww/2www2/9/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1", "row f has 9 cells, but that row has 8"),
        ("wwwww/wwwwww/2wxw2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1", "row g: unexpected character 'x'"),
        ("wwwww/wwwwww/0www4/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1", "row g: '0' is not a run"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb x 0 0 1", "side to move must be 'b' or 'w'"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b -1 0 1", "marbles lost by Black must be a whole number"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 z 1", "marbles lost by White must be a whole number"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 0", "move number must be at least 1"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 1 0 1", "Black has 14 marbles on the board and 1 lost"),
        ("wwwww/wwwwww/2www2/8/9/8/bbbbbbb/bbbbbb/bbbbb b 0 0 1", "Black has 18 marbles on the board"),
        ("wwwww/wwwwww/wwwwwww/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1", "White has 18 marbles"),
    ],
)
def test_malformed_position_strings(text, message):
    with pytest.raises(PositionError, match=message):
        Position.from_string(text)


def test_variant_must_match_board_size():
    with pytest.raises(PositionError, match="side-5 board"):
        Position.from_string("www/1ww1/5/1bb1/bbb b 0 0 1", Variant())


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"win_threshold": 0}, "win threshold must be between 1 and 14"),
        ({"win_threshold": 15}, "win threshold must be between 1 and 14"),
        ({"side": 1}, "board side must be between 2 and 9"),
        ({"marbles": 0}, "marbles per side must be positive"),
    ],
)
def test_bad_variants(kwargs, message):
    with pytest.raises(LayoutError, match=message):
        Variant(**kwargs)


def test_configurable_win_threshold():
    pos = Position.from_string("2w2/6/7/8/9/8/7/6/3bb w 0 2 30", Variant(win_threshold=3))
    assert pos.winner() is None
    pos = Position.from_string("2w2/6/7/8/9/8/7/6/3bb w 0 3 30", Variant(win_threshold=3))
    assert pos.winner() == BLACK
    assert Position.start("standard", win_threshold=1).variant.win_threshold == 1


def test_positions_are_values():
    a = Position.start().play("c3d3")
    b = Position.start().play("c3d3")
    assert a == b and hash(a) == hash(b) and a is not b
    assert a != Position.start()
    assert len({a, b, Position.start()}) == 2
    with pytest.raises(ValueError):
        a.grid[0] = 1  # the grid is read-only
