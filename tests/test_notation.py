"""Move notation: formatting, parsing, and the messages for strings that name no legal move."""

import pytest

from sumito.games.abalone import IllegalMoveError, NotationError, Position


def test_standard_opening_moves_format():
    pos = Position.start()
    texts = {m.notation() for m in pos.legal_moves()}
    assert len(texts) == 44
    assert {"a1b1", "c3d3", "c3d4", "b1c1", "c3c5d3", "c3c5d4", "b1b2c1"} <= texts


def test_inline_move_counts_marbles_from_the_trailing_one():
    pos = Position.start()
    one = pos.parse_move("c3d3")
    assert one.count == 1 and one.marbles == ("c3",) and one.destinations == ("d3",)
    three = pos.parse_move("a1b2")  # a1, b2, c3 move together up the diagonal
    assert three.count == 3 and three.marbles == ("a1", "b2", "c3") and three.destinations == ("b2", "c3", "d4")


def test_broadside_fields_and_canonical_order():
    pos = Position.start()
    mv = pos.parse_move("c5c3d6")
    assert mv.is_broadside and mv.count == 3 and mv.notation() == "c3c5d4"
    assert mv.marbles == ("c3", "c4", "c5") and mv.destinations == ("d4", "d5", "d6")
    assert pos.parse_move(" C3C5D4 ") == mv and pos.parse_move("c3-c5-d4") == mv == pos.parse_move("c5c3d6")


@pytest.mark.parametrize(
    "text,error,message",
    [
        ("", NotationError, "is not a move"),
        ("a1", NotationError, "is not a move"),
        ("a1a2a3a4", NotationError, "is not a move"),
        ("hello", NotationError, "is not a move"),
        ("z1a1", NotationError, "no cell z1 on the standard board"),
        ("a9a1", NotationError, "no cell a9 on the standard board"),
        ("a1a3", NotationError, "a1 and a3 are not neighbours"),
        ("c3c3d3", NotationError, "not the ends of a line"),
        ("c3c6d3", NotationError, "not the ends of a line"),
        ("c3c5e5", NotationError, "e5 is not next to c3"),
        ("c3c5c6", NotationError, "c6 is not next to c3"),
        ("c3c5c2", NotationError, "move along their own line"),
        ("e5e6", IllegalMoveError, "no marble on e5"),
        ("i5h5", IllegalMoveError, "White's and Black is to move"),
        ("b1a1", IllegalMoveError, "would leave the board|cannot"),
    ],
)
def test_bad_move_strings(text, error, message):
    with pytest.raises(error, match=message):
        Position.start().parse_move(text)


def test_cells_depend_on_board_size():
    mini = Position.start("mini")
    with pytest.raises(NotationError, match="no cell e6 on the mini"):
        mini.parse_move("e6e5")
    assert mini.parse_move("b2c2").notation() == "b2c2"


def test_move_in_finished_game():
    pos = Position.from_string("5/6/2www2/8/9/8/2bbb2/bbbbbb/bbbbb w 0 6 9")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        pos.parse_move("g5f5")


def test_move_values_compare_and_hash():
    pos = Position.start()
    a, b = pos.parse_move("c3d3"), pos.parse_move("c3d3")
    assert a == b and hash(a) == hash(b) and a != pos.parse_move("c3d4")
    assert "c3d3" in repr(a) and str(a) == "c3d3"
