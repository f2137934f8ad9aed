"""Perft: move counts from known positions, cross-checked against the reference implementation."""

import pytest

from sumito.games.abalone import Position, get_layout

import reference as R


@pytest.mark.parametrize("depth,expected", [(1, 44), (2, 1_936), (3, 98_912), (4, 5_045_110)])
def test_standard_perft(depth, expected):
    assert Position.start("standard").perft(depth) == expected


# Belgian and German Daisy: counts computed by tests/reference.py (independent of the kernels)
# and by abalone-boai for depths 1-2; the reference also reproduces the Standard counts above.
@pytest.mark.parametrize(
    "layout,counts",
    [
        ("belgian-daisy", (52, 2_692, 149_322)),
        ("german-daisy", (80, 6_244, 493_480)),
    ],
)
def test_daisy_perft(layout, counts):
    pos = Position.start(layout)
    assert tuple(pos.perft(d) for d in (1, 2, 3)) == counts


@pytest.mark.parametrize(
    "layout", ["standard", "dutch-daisy", "swiss-daisy", "domination", "pyramid", "the-wall", "small", "mini"]
)
def test_perft_matches_reference(layout):
    lay = get_layout(layout)
    s, board = R.parse_rows(lay.rows)
    pos = Position.start(layout)
    for depth in (1, 2):
        assert pos.perft(depth) == R.perft(s, board, "b", depth)


@pytest.mark.parametrize("layout", ["standard", "small", "mini"])
def test_inline_only_perft_matches_reference(layout):
    lay = get_layout(layout)
    s, board = R.parse_rows(lay.rows)
    pos = Position.start(layout, inline_only=True)
    for depth in (1, 2, 3):
        assert pos.perft(depth) == R.perft(s, board, "b", depth, inline_only=True)


def test_perft_zero_and_divide_sum():
    pos = Position.start("standard")
    assert pos.perft(0) == 1
    assert sum(child.perft(2) for _, child in pos.successors()) == pos.perft(3)


def test_won_position_has_no_children():
    pos = Position.from_string("5/6/2www2/8/9/8/2bbb2/bbbbbb/bbbbb w 0 6 9")
    assert pos.winner() == 1
    assert pos.perft(1) == 0 and pos.perft(3) == 0
    assert pos.legal_moves() == []
