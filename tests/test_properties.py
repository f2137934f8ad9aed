"""Property tests: apply/undo, hashing, conservation, notation and position-string round trips,
and the generator against the independent reference implementation."""

from collections import Counter

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sumito.games.abalone import BLACK, WHITE, Position, Variant
from sumito.games.abalone import kernels as K
from sumito.games.abalone.geometry import geometry

import reference as R
from helpers import random_playout

LAYOUT_NAMES = ["standard", "belgian-daisy", "german-daisy", "domination", "the-wall", "small", "mini"]


@st.composite
def played_positions(draw):
    """Positions reached by random play from a named layout."""
    layout = draw(st.sampled_from(LAYOUT_NAMES))
    inline_only = draw(st.booleans()) if layout in ("small", "mini") else False
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, 150))
    start = Position.start(layout, inline_only=inline_only)
    return random_playout(start, plies, np.random.default_rng(seed))[-1]


@st.composite
def scattered_positions(draw):
    """Arbitrary legal-looking positions: marbles scattered anywhere, edges included."""
    side = draw(st.sampled_from([5, 5, 4, 3]))
    geo = geometry(side)
    marbles = {5: 14, 4: 11, 3: 5}[side]
    values = draw(st.lists(st.sampled_from([0, 0, 1, 2]), min_size=geo.n_cells, max_size=geo.n_cells))
    grid = geo.empty_grid
    counts = {1: 0, 2: 0}
    for g, v in zip(geo.cells, values):
        if v and counts[v] < marbles:
            grid[g] = v
            counts[v] += 1
    to_move = draw(st.sampled_from([BLACK, WHITE]))
    variant = Variant(side=side, marbles=marbles, win_threshold=min(6, marbles), inline_only=draw(st.booleans()))
    lost = (min(marbles - counts[1], variant.win_threshold - 1), min(marbles - counts[2], variant.win_threshold - 1))
    return Position(grid, to_move, lost, 1, variant)


any_position = st.one_of(played_positions(), scattered_positions())


@given(any_position)
def test_make_unmake_round_trip_and_incremental_hash(pos):
    geo = pos.geometry
    board = pos.grid.copy()
    side = pos.side_to_move
    for code in pos.legal_move_codes():
        before = board.copy()
        delta = K.make_move(board, int(code), side, geo.offsets, geo.zobrist)
        recomputed = K.compute_hash(board, 3 - side, geo.cells, geo.zobrist)
        assert int(recomputed) == pos.zobrist ^ int(delta)
        K.unmake_move(board, int(code), side, geo.offsets)
        assert np.array_equal(board, before)


@given(any_position)
def test_marbles_conserved_and_lost_counted(pos):
    me, opp = pos.side_to_move, 3 - pos.side_to_move
    for move, child in pos.successors():
        assert child.marble_count(me) == pos.marble_count(me)
        off = 1 if move.is_push_off else 0
        assert child.marble_count(opp) == pos.marble_count(opp) - off
        assert child.lost[opp - 1] == pos.lost[opp - 1] + off
        assert child.lost[me - 1] == pos.lost[me - 1]
        assert child.zobrist == Position.from_string(child.to_string(), child.variant).zobrist
        assert child.side_to_move == opp


@given(any_position)
def test_notation_round_trip(pos):
    moves = pos.legal_moves()
    texts = [m.notation() for m in moves]
    assert len(set(texts)) == len(texts)
    for move, text in zip(moves, texts):
        assert pos.parse_move(text) == move
        assert pos.parse_move(text.upper()) == move


@given(any_position)
def test_position_string_round_trip(pos):
    text = pos.to_string()
    again = Position.from_string(text, pos.variant)
    assert again == pos and again.to_string() == text and hash(again) == hash(pos)


@given(any_position)
def test_generator_matches_reference(pos):
    s = pos.variant.side
    _, board = R.parse_rows(pos.to_string().split()[0])
    me = "b" if pos.side_to_move == BLACK else "w"
    if pos.winner() is not None:
        return
    expected = Counter(R.rows_string(s, new) for _, _, new, _ in R.successors(s, board, me, pos.variant.inline_only))
    got = Counter(child.to_string().split()[0] for _, child in pos.successors())
    assert got == expected
    assert pos.count_legal_moves() == len(pos.legal_moves())


@given(any_position)
def test_push_off_generator_matches_the_full_generator(pos):
    if pos.winner() is not None:
        return
    geo = pos.geometry
    edge = geo.cells[geo.ring[geo.cells] == geo.side - 1]
    out = np.empty(K.MAX_MOVES, dtype=np.int32)
    n = K.generate_push_offs(pos.grid, pos.side_to_move, geo.offsets, edge, out)
    everything = pos.legal_move_codes()
    assert sorted(out[:n].tolist()) == sorted(int(c) for c in everything if c & K.PUSH_OFF_BIT)


@given(any_position)
def test_push_count_matches_the_full_generator(pos):
    if pos.winner() is not None:
        return
    geo = pos.geometry
    pushes = sum(1 for c in pos.legal_move_codes() if (c >> K.PUSH_SHIFT) & 3)
    assert K.count_pushes(pos.grid, pos.side_to_move, geo.offsets, geo.cells) == pushes
