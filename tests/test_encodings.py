"""The Abalearn encodings (sumito.models.abalone_encodings) against a slow, plainly written reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sumito.games.abalone import Position
from sumito.games.abalone import kernels as K
from sumito.games.abalone.geometry import DIRECTION_STEPS, geometry
from sumito.models.abalone_encodings import (
    ABALEARN2_INPUTS,
    ABALEARN3_INPUTS,
    ENCODINGS,
    MAX_MOVES,
    edge_cells,
    encode_batch,
    encode_batch_into,
    encode_position,
    encode_position_successors,
    encode_successors,
    generate_and_encode,
)

from helpers import position_with, random_playout

LAYOUTS = ["standard", "belgian-daisy", "small", "mini"]
NAMES = list(ENCODINGS)


# ------------------------------------------------------------------------------------ reference
# the split of each encoding suffix: the centre up to ring C, the border from ring (side - 1 - B)
SPLIT_RINGS = {"": (1, 0), "-c012": (2, 0), "-b34": (1, 1)}


def ring_class(geo, name: str, split: str = "") -> str:
    """centre (distance <= 1), border (the outermost ring) or middle (the rest); other splits by suffix,
    the border first where the two overlap."""
    centre, from_edge = SPLIT_RINGS[split]
    r = int(geo.ring[geo.name_to_grid[name]])
    if r >= geo.side - 1 - from_edge:
        return "border"
    if r <= centre:
        return "centre"
    return "middle"


def neighbours(pos: Position, name: str) -> list[str | None]:
    """The six neighbouring cells' names, None where off the board."""
    geo = pos.geometry
    row, diag = geo.row_diag(geo.name_to_grid[name])
    out: list[str | None] = []
    for dr, dd in DIRECTION_STEPS:
        if geo.on_board(row + dr, diag + dd):
            out.append(geo.name(geo.grid_index(row + dr, diag + dd)))
        else:
            out.append(None)
    return out


def pushed_off_marbles(pos: Position, attacker: int) -> set[str]:
    """Cells of the marbles ``attacker`` could push off with one move, were it its turn (rules
    applied to the board alone: the lost counts are set to 0 so that no position is over)."""
    fields = pos.to_string().split()
    fields[1] = "b" if attacker == 1 else "w"
    fields[2] = fields[3] = "0"
    turned = Position.from_string(" ".join(fields), pos.variant)
    geo = pos.geometry
    out = set()
    for move in turned.legal_moves():
        if move.is_push_off:
            step = geo.offsets[move.direction]
            last = geo.name_to_grid[move.start] + (move.count + move.pushed - 1) * step
            assert turned.cell(geo.name(int(last))) == 3 - attacker
            out.add(geo.name(int(last)))
    return out


def reference_encoding(name: str, pos: Position, me: int) -> list[float]:
    geo = pos.geometry
    marbles, win = pos.variant.marbles, pos.variant.win_threshold
    opp = 3 - me
    lost_me, lost_opp = pos.lost[me - 1], pos.lost[opp - 1]
    if name == "abalearn1":
        cells = [{me: 1.0, opp: -1.0}.get(pos.cell(cell), 0.0) for cell in geo.names]
        return [*cells, lost_me / win, lost_opp / win]
    base, _, suffix = name.partition("-")
    split = f"-{suffix}" if suffix else ""
    out: list[float] = []
    for color, lost in ((me, lost_me), (opp, lost_opp)):
        own = pos.marbles(color)
        for where in ("centre", "middle", "border"):
            out.append(sum(1 for cell in own if ring_class(geo, cell, split) == where) / marbles)
        out.append(lost / win)
    if base == "abalearn2":
        return out
    for color in (me, opp):
        own = pos.marbles(color)
        protected = sum(
            1 for cell in own if all(nb is None or pos.cell(nb) == color for nb in neighbours(pos, cell))
        )
        distances = [int(geo.ring[geo.name_to_grid[cell]]) for cell in own]
        average = sum(distances) / len(distances) / (geo.side - 1) if distances else 0.0
        threatened = len(pushed_off_marbles(pos, 3 - color))
        out += [protected / marbles, average, threatened / marbles]
    return out


# ------------------------------------------------------------------------------------ helpers
@st.composite
def played(draw, max_plies=160):
    layout = draw(st.sampled_from(LAYOUTS))
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, max_plies))
    return random_playout(Position.start(layout), plies, np.random.default_rng(seed))[-1]


def fused(name: str, pos: Position, board: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """encode_successors on a copy of the board (or on ``board``), as a trainer calls it."""
    geo, v = pos.geometry, pos.variant
    board = pos.grid.copy() if board is None else board
    codes = pos.legal_move_codes()
    out = np.full((MAX_MOVES, ENCODINGS[name].n_inputs(geo.side)), np.nan)
    n = encode_successors(board, pos.side_to_move, pos.lost[0], pos.lost[1], codes, len(codes), geo.offsets,
                          geo.cells, geo.ring, geo.zobrist, edge_cells(geo.side), v.marbles, v.win_threshold,
                          ENCODINGS[name].kind, out)
    assert n == len(codes)
    assert np.isnan(out[n:]).all()
    return codes, out[:n]


# ------------------------------------------------------------------------------------ properties
@given(played(), st.sampled_from(NAMES), st.sampled_from([1, 2]))
def test_encoding_matches_reference(pos, name, me):
    got = encode_position(name, pos, me)
    assert got.shape == (ENCODINGS[name].n_inputs(pos.variant.side),)
    assert got == pytest.approx(reference_encoding(name, pos, me), abs=1e-12)


@settings(max_examples=25)
@given(played(), st.sampled_from(NAMES))
def test_encode_successors_equals_encoding_each_child(pos, name):
    board = pos.grid.copy()
    codes, got = fused(name, pos, board)
    assert np.array_equal(board, pos.grid)  # made and unmade in place: the board is as it was
    children = pos.successors()
    assert [m.code for m, _ in children] == codes.tolist()
    for row, (_, child) in zip(got, children):
        assert row == pytest.approx(encode_position(name, child, pos.side_to_move), abs=1e-12)
    # the same afterstates through kernels.expand and encode_batch
    _, grids, _ = pos.successor_grids()
    lost = np.array([child.lost for _, child in children], dtype=np.int64).reshape(-1, 2)
    batch = encode_batch(name, grids, lost, pos.side_to_move, pos.geometry, pos.variant)
    assert np.array_equal(batch, got)


def test_reference_over_whole_games_for_every_encoding():
    """Every position of a few long random games on every board, both points of view; the
    features the hypothesis test may rarely reach (threats, protection, marbles lost) do occur."""
    seen = {"threatened": 0, "protected": 0, "lost": 0}
    for i, layout in enumerate(LAYOUTS):
        game = random_playout(Position.start(layout), 300, np.random.default_rng(100 + i))
        positions = game[::3]
        geo = positions[0].geometry
        boards = np.stack([p.grid for p in positions])
        lost = np.array([p.lost for p in positions], dtype=np.int64)
        for name in NAMES:
            for me in (1, 2):
                got = encode_batch(name, boards, lost, me, geo, positions[0].variant)
                for row, pos in zip(got, positions):
                    assert row == pytest.approx(reference_encoding(name, pos, me), abs=1e-12)
                if name == "abalearn3":
                    seen["threatened"] += int(np.count_nonzero(got[:, [10, 13]]))
                    seen["protected"] += int(np.count_nonzero(got[:, [8, 11]]))
                    seen["lost"] += int(np.count_nonzero(got[:, [3, 7]]))
    assert all(count > 0 for count in seen.values()), seen


# ------------------------------------------------------------------------------------ by hand
def test_start_ring_counts():
    # standard: a1-a5, b1, b6 on the border; b2-b5 (distance 3) and c3-c5 (distance 2) in the middle
    for me in (1, 2):
        x = encode_position("abalearn2", Position.start("standard"), me)
        assert x * 14 == pytest.approx([0, 7, 7, 0, 0, 7, 7, 0])
    # small: c3, c4 are at distance 1 (centre); b2-b4 middle; a1-a4, b1, b5 border
    assert encode_position("abalearn2", Position.start("small"), 1) * 11 == pytest.approx([2, 3, 6, 0, 2, 3, 6, 0])
    # mini: b2, b3 in the centre, a1-a3 on the border, no middle ring at all
    assert encode_position("abalearn2", Position.start("mini"), 2) * 5 == pytest.approx([2, 0, 3, 0, 2, 0, 3, 0])
    # the same counts through the Abalearn 3 prefix; the start position threatens nothing
    x = encode_position("abalearn3", Position.start("standard"), 1)
    assert x[:8] * 14 == pytest.approx([0, 7, 7, 0, 0, 7, 7, 0])
    assert x[10] == 0 and x[13] == 0
    assert x[8] * 14 == pytest.approx(7)  # a1-a5, b3, b4: every neighbour own or off the board


def test_ring_sizes():
    for side, sizes in ((5, (7, 30, 24)), (4, (7, 12, 18)), (3, (7, 0, 12))):
        geo = geometry(side)
        classes = [ring_class(geo, name) for name in geo.names]
        assert tuple(classes.count(c) for c in ("centre", "middle", "border")) == sizes
    # the other splits of the standard board: 19 / 18 / 24 and 7 / 12 / 42 cells
    geo = geometry(5)
    for split, sizes in (("-c012", (19, 18, 24)), ("-b34", (7, 12, 42))):
        classes = [ring_class(geo, name, split) for name in geo.names]
        assert tuple(classes.count(c) for c in ("centre", "middle", "border")) == sizes


def test_the_splits_of_the_board_on_the_start_position():
    # standard: a1-a5, b1, b6 (ring 4), b2-b5 (ring 3), c3-c5 (ring 2) for each side
    start = Position.start("standard")
    for name, counts in (("abalearn2", (0, 7, 7)), ("abalearn2-c012", (3, 4, 7)), ("abalearn2-b34", (0, 3, 11))):
        for full in (name, name.replace("abalearn2", "abalearn3")):
            x = encode_position(full, start, 1)
            assert x[:8] * 14 == pytest.approx([*counts, 0, *counts, 0]), full
    assert ENCODINGS["abalearn3-b34"].n_inputs() == 14 and ENCODINGS["abalearn2-c012"].kind == 4
    # mini (rings 0-2): where centre and border overlap, the border wins
    mini = Position.start("mini")
    assert encode_position("abalearn2-c012", mini, 2) * 5 == pytest.approx([2, 0, 3, 0, 2, 0, 3, 0])


def test_edge_marble_threatened_by_two_on_one():
    # Black c3, b3 push White's a3 off the board (direction SE, c3 -> b3 -> a3 -> off)
    pos = position_with(["c3", "b3"], ["a3"], "b")
    assert any(m.is_push_off and m.notation() == "c3b3" for m in pos.legal_moves())
    white = encode_position("abalearn3", pos, 2)
    black = encode_position("abalearn3", pos, 1)
    assert white[10] == pytest.approx(1 / 14) and white[13] == 0  # White's own marble is threatened
    assert black[13] == pytest.approx(1 / 14) and black[10] == 0
    # whoever is to move: the threat is a property of the board
    assert np.array_equal(encode_position("abalearn3", position_with(["c3", "b3"], ["a3"], "w"), 2), white)
    # one on one is no threat, nor are two attackers out of line; a marble behind the attackers changes nothing
    assert encode_position("abalearn3", position_with(["b3"], ["a3"]), 2)[10] == 0
    assert encode_position("abalearn3", position_with(["c4", "b3"], ["a3"]), 2)[10] == 0
    assert encode_position("abalearn3", position_with(["c3", "b3"], ["a3", "d3"]), 2)[10] == pytest.approx(1 / 14)
    # two defending marbles need three attackers; the threatened marble is the edge one, counted once
    assert encode_position("abalearn3", position_with(["d3", "c3"], ["b3", "a3"]), 2)[10] == 0
    pos = position_with(["e3", "d3", "c3", "b4", "c5"], ["b3", "a3"])
    assert encode_position("abalearn3", pos, 2)[10] == pytest.approx(1 / 14)
    assert pushed_off_marbles(pos, 1) == {"a3"}


def test_protected_marble_in_a_full_hexagon():
    hexagon = ["d4", "d5", "e4", "e6", "f5", "f6"]
    pos = position_with(["e5", *hexagon], ["i5"])
    x = encode_position("abalearn3", pos, 1)
    assert x[8] == pytest.approx(1 / 14)  # only e5: each of the six has empty neighbours
    assert encode_position("abalearn3", pos, 2)[11] == pytest.approx(1 / 14)
    # one opposing neighbour, or one empty neighbour, breaks it
    assert encode_position("abalearn3", position_with(["e5", *hexagon[:-1]], ["f6"]), 1)[8] == 0
    assert encode_position("abalearn3", position_with(["e5", *hexagon[:-1]], []), 1)[8] == 0
    # off-board neighbours count as covered: the corner a1 with a2, b1, b2 is protected (a1 only)
    assert encode_position("abalearn3", position_with(["a1", "a2", "b1", "b2"], []), 1)[8] == pytest.approx(1 / 14)
    # a lone marble on the edge is not
    assert encode_position("abalearn3", position_with(["a3"], []), 1)[8] == 0


def test_abalearn1_cells_and_scaling():
    pos = position_with(["a1", "e5"], ["i9"], lost=(2, 3))
    x = encode_position("abalearn1", pos, 1)
    geo = pos.geometry
    assert len(x) == 63 == ENCODINGS["abalearn1"].n_inputs(5)
    assert x[geo.names.index("a1")] == 1 and x[geo.names.index("e5")] == 1 and x[geo.names.index("i9")] == -1
    assert np.count_nonzero(x[:61]) == 3
    assert x[61:] == pytest.approx([2 / 6, 3 / 6])
    y = encode_position("abalearn1", pos, 2)
    assert np.array_equal(y[:61], -x[:61]) and y[61:] == pytest.approx([3 / 6, 2 / 6])
    # the scaling follows the variant: win threshold 3, marbles lost 2 and 3 -> 2/3 and 1 (lost)
    pos3 = position_with(["a1", "e5"], ["i9"], lost=(2, 3), win_threshold=3)
    assert encode_position("abalearn1", pos3, 1)[61:] == pytest.approx([2 / 3, 1.0])
    assert encode_position("abalearn3", pos3, 1)[[3, 7]] == pytest.approx([2 / 3, 1.0])


def test_average_distance():
    # Black: e5 (0) and a1 (4): mean 2, over radius 4 -> 0.5; White: i9 alone -> 1.0
    x = encode_position("abalearn3", position_with(["e5", "a1"], ["i9"]), 1)
    assert x[9] == pytest.approx(0.5) and x[12] == pytest.approx(1.0)
    # a side with no marble on the board: 0
    assert encode_position("abalearn3", position_with(["e5"], []), 1)[12] == 0


def test_names_and_sizes():
    assert ENCODINGS["abalearn2"].input_names() == ABALEARN2_INPUTS and len(ABALEARN2_INPUTS) == 8
    assert ENCODINGS["abalearn3"].input_names() == ABALEARN3_INPUTS and len(ABALEARN3_INPUTS) == 14
    assert ABALEARN3_INPUTS[:8] == ABALEARN2_INPUTS
    for side, cells in ((5, 61), (4, 37), (3, 19)):
        names = ENCODINGS["abalearn1"].input_names(side)
        assert len(names) == cells + 2 == ENCODINGS["abalearn1"].n_inputs(side)
        assert names[0] == "cell_a1" and names[-2:] == ("own_off", "opp_off")
        assert ENCODINGS["abalearn3"].n_inputs(side) == 14


def test_fused_variants_agree():
    pos = random_playout(Position.start("belgian-daisy"), 40, np.random.default_rng(7))[-1]
    geo, v = pos.geometry, pos.variant
    for name, enc in ENCODINGS.items():
        codes, x = encode_position_successors(name, pos)
        assert np.array_equal(x, fused(name, pos)[1])
        moves = np.empty(MAX_MOVES, dtype=np.int32)
        out = np.empty((MAX_MOVES, enc.n_inputs(geo.side)))
        board = pos.grid.copy()
        n = generate_and_encode(board, pos.side_to_move, pos.lost[0], pos.lost[1], v.inline_only, geo.offsets,
                                geo.cells, geo.ring, geo.zobrist, edge_cells(geo.side), v.marbles,
                                v.win_threshold, enc.kind, moves, out)
        assert np.array_equal(moves[:n], codes) and np.array_equal(out[:n], x)
        assert np.array_equal(board, pos.grid)


def test_won_afterstate_is_encoded():
    # White has lost 5 of 6; Black pushes a3 off: the afterstate shows opp_off = 1.0
    pos = position_with(["c3", "b3"], ["a3", "i9"], "b", lost=(0, 5))
    codes, x = encode_position_successors("abalearn2", pos)
    (i,) = [j for j, c in enumerate(codes.tolist()) if c & K.PUSH_OFF_BIT]
    assert x[i, 7] == pytest.approx(1.0) and x[i, 3] == 0
    assert x[i, 4:7].sum() * 14 == pytest.approx(1)  # i9 left


def test_bad_arguments():
    pos = Position.start("standard")
    with pytest.raises(ValueError, match="unknown encoding"):
        encode_position("abalearn4", pos, 1)
    with pytest.raises(ValueError, match="me must be"):
        encode_position("abalearn2", pos, 0)
    boards = pos.grid.copy()[None, :]
    lost = np.zeros((1, 2), dtype=np.int64)
    with pytest.raises(ValueError, match="out must be"):
        encode_batch_into("abalearn2", boards, lost, 1, pos.geometry, np.empty((1, 9)))
    with pytest.raises(ValueError, match="lost must be"):
        encode_batch("abalearn2", boards, np.zeros((2, 2)), 1, pos.geometry)
    out = np.full((4, 8), -7.0)
    got = encode_batch_into("abalearn2", boards, lost, 1, pos.geometry, out)
    assert got.shape == (1, 8) and (out[1:] == -7.0).all()
