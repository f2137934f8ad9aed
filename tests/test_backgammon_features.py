"""Wiering's per-module backgammon inputs: shapes, names, swap symmetry, hand-made positions, and the hit
counts against a brute-force reference built on the move generator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sumito.games.backgammon.board import BackgammonPosition, swap_array
from sumito.games.backgammon.game import afterstate_arrays, random_position, roll_dice
from sumito.games.backgammon.kernels import generate_plays
from sumito.models.backgammon.features import (
    ENCODING,
    FEATURE_NAMES,
    N_ENDGAME,
    N_GENERAL,
    N_INPUTS_BY_CLASS,
    N_RACE,
    encode_class,
    encode_endgame,
    encode_general,
    encode_race,
    hit_rolls,
)
from sumito.models.backgammon.modular import ENDGAME, RACE, position_class

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
ENCODERS = (encode_endgame, encode_race, encode_general)


def board_of(mine: dict[int, int], theirs: dict[int, int], *, bar: int = 0, opp_bar: int = 0) -> np.ndarray:
    """A board from the mover's view: ``mine``/``theirs`` map the **mover's** point numbers to counts; the
    rest of each side's 15 checkers are borne off."""
    return BackgammonPosition.from_points(mine, {25 - p: n for p, n in theirs.items()}, bar=bar,
                                          opp_bar=opp_bar).board.copy()


def reference_hit_rolls(board: np.ndarray) -> np.ndarray:
    """:func:`hit_rolls` by brute force: for each roll, every legal play of the hitter on roll.

    A blot of the side not on roll sits at index ``j`` of the hitter's view as ``-1``; its checker can only
    leave that point by being hit, so a play hits it iff the afterstate has ``>= 0`` there.
    """
    counts = np.zeros((2, 24), dtype=np.int64)
    for side, hitter_view in ((0, swap_array(board)), (1, board)):
        blots = np.flatnonzero(hitter_view[:24] == -1)
        if blots.size == 0:
            continue
        for a, b in ROLLS:
            afters = generate_plays(hitter_view, a, b)[0]
            for j in blots:
                if (afters[:, j] >= 0).any():
                    counts[side, 23 - j] += 1 if a == b else 2  # the hitter's point j + 1 is the owner's 24 - j
    return counts


def random_afterstates(seed: int, positions: int, per_position: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(positions):
        afters = afterstate_arrays(random_position(rng, 250), roll_dice(rng))[0]
        rows.append(afters[rng.permutation(afters.shape[0])[:per_position]])
    return np.concatenate(rows)


@pytest.fixture(scope="module")
def afterstates() -> np.ndarray:
    return random_afterstates(11, 300)


def test_constants_and_names():
    assert ENCODING == "wiering"
    assert (N_ENDGAME, N_RACE, N_GENERAL) == N_INPUTS_BY_CLASS == (68, 277, 393)
    assert tuple(len(names) for names in FEATURE_NAMES) == N_INPUTS_BY_CLASS
    for names in FEATURE_NAMES:
        assert len(set(names)) == len(names)
    # the race inputs begin with the endgame inputs
    assert FEATURE_NAMES[1][:N_ENDGAME] == FEATURE_NAMES[0]


def test_shapes_and_ranges(afterstates):
    for cls, encoder in enumerate(ENCODERS):
        X = encoder(afterstates)
        assert X.shape == (afterstates.shape[0], N_INPUTS_BY_CLASS[cls])
        assert X.dtype == np.float64
        assert np.isfinite(X).all()
        assert X.min() >= -4.0 and X.max() <= 6.0
        np.testing.assert_array_equal(encode_class(afterstates, cls), X)
        assert encoder(afterstates[:0]).shape == (0, N_INPUTS_BY_CLASS[cls])
    # the hit counts are probabilities
    X = encode_general(afterstates)
    assert X[:, 248:273].min() >= 0.0 and X[:, 248:273].max() <= 1.0
    with pytest.raises(ValueError):
        encode_class(afterstates, 3)


def test_race_starts_with_the_endgame_inputs(afterstates):
    np.testing.assert_array_equal(encode_race(afterstates)[:, :N_ENDGAME], encode_endgame(afterstates))


def _swap_all(boards: np.ndarray) -> np.ndarray:
    return np.stack([swap_array(b) for b in boards])


def test_swap_exchanges_the_side_blocks(afterstates):
    swapped = _swap_all(afterstates)

    def exchanged(X, Y, pairs):
        for (a0, a1), (b0, b1) in pairs:
            np.testing.assert_array_equal(X[:, a0:a1], Y[:, b0:b1])
            np.testing.assert_array_equal(X[:, b0:b1], Y[:, a0:a1])

    E, Es = encode_endgame(afterstates), encode_endgame(swapped)
    exchanged(E, Es, [((0, 28), (28, 56)), ((56, 62), (62, 68))])
    R, Rs = encode_race(afterstates), encode_race(swapped)
    exchanged(R, Rs, [((0, 28), (28, 56)), ((56, 62), (62, 68)), ((68, 164), (164, 260)), ((260, 268), (268, 276))])
    np.testing.assert_allclose(R[:, 276], -Rs[:, 276])
    G, Gs = encode_general(afterstates), encode_general(swapped)
    exchanged(G, Gs, [((0, 124), (124, 248)), ((248, 320), (320, 392))])
    np.testing.assert_array_equal(G[:, 392], Gs[:, 392])
    for b, s in zip(afterstates[:200], swapped[:200]):
        np.testing.assert_array_equal(hit_rolls(b)[::-1], hit_rolls(s))


def test_hit_rolls_match_the_legal_plays(afterstates):
    for board in afterstates:
        np.testing.assert_array_equal(hit_rolls(board), reference_hit_rolls(board), err_msg=str(board.tolist()))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_hit_rolls_match_the_legal_plays_hypothesis(seed):
    for board in random_afterstates(seed, 1, per_position=3):
        np.testing.assert_array_equal(hit_rolls(board), reference_hit_rolls(board), err_msg=str(board.tolist()))


@pytest.mark.parametrize(
    "board",
    [
        # 6-4 for the mover: the 4 would hit on its 8 point but then the 6 cannot be played, while 6 then
        # nothing is possible; so only the larger die may be played and 6-4 does not hit
        [7, -2, 0, -1, 0, 0, 0, -1, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, -2, -1, -4, 0, -3, 0, 0, 7, 0],
        # the opponent bears off: after some hits the other die has nothing left to play
        [4, 2, 1, 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, -1, 1, -6, -6, 2, 0, 0, 0, 0],
        # bar checkers that must enter first
        [-4, 5, 4, 0, -1, 5, 0, 0, 0, 0, 0, -2, 0, -1, -1, 0, -2, -1, 1, -2, 0, 0, 0, 0, 0, 1, 0, 0],
    ],
)
def test_hit_rolls_where_a_hit_is_not_a_legal_play(board):
    b = np.array(board, dtype=np.int8)
    BackgammonPosition(b)  # a valid position
    np.testing.assert_array_equal(hit_rolls(b), reference_hit_rolls(b))


def test_a_blot_six_pips_away_is_hit_by_17_rolls():
    # the opponent's lone checker on the mover's 7 point moves up towards the mover's 24 point
    b = board_of({13: 1, 1: 2}, {7: 1})
    h = hit_rolls(b)
    assert h[0, 12] == 17  # 11 sixes, 5-1, 4-2, 3-3, 2-2
    assert h[1, 17] == 17  # and the mover, on roll, would hit the opponent's blot (its 18 point) alike
    assert h.sum() == 34
    np.testing.assert_array_equal(h, reference_hit_rolls(b))
    # the mover's points 9 and 10 stop 3-3 and 2-2
    blocked = board_of({13: 1, 9: 2, 10: 2, 1: 2}, {7: 1})
    assert hit_rolls(blocked)[0, 12] == 15
    np.testing.assert_array_equal(hit_rolls(blocked), reference_hit_rolls(blocked))
    G = encode_general(b[None, :])[0]
    names = FEATURE_NAMES[2]
    assert G[names.index("me_hit_pt13")] == pytest.approx(17 / 36)
    assert G[names.index("me_any_hit")] == pytest.approx(17 / 36)
    assert G[names.index("me_blots")] == pytest.approx(1 / 5)
    assert G[names.index("me_direct_blots")] == pytest.approx(1 / 5)
    assert G[names.index("opp_hit_pt18")] == pytest.approx(17 / 36)
    assert G[names.index("opp_blots")] == pytest.approx(1 / 5)


def test_a_blot_hit_from_the_bar():
    # the opponent enters on the mover's points 1..6; the mover's blot on its 4 point
    b = board_of({4: 1, 6: 2, 13: 12}, {19: 14}, opp_bar=1)
    h = hit_rolls(b)
    np.testing.assert_array_equal(h, reference_hit_rolls(b))
    assert h[0, 3] > 11
    names = FEATURE_NAMES[2]
    G = encode_general(b[None, :])[0]
    assert G[names.index("me_direct_blots")] == pytest.approx(1 / 5)
    # the opponent enters against one made home point of the mover
    assert G[names.index("opp_enter")] == pytest.approx(35 / 36)
    assert G[names.index("opp_dance")] == pytest.approx(1 / 36)


def test_six_prime():
    names = FEATURE_NAMES[2]
    b = board_of({3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 3, 13: 2}, {1: 2, 2: 1, 20: 12})
    G = encode_general(b[None, :])[0]
    assert G[names.index("me_prime")] == 1.0
    assert G[names.index("me_prime_low")] == pytest.approx(3 / 24)
    assert G[names.index("me_made_1_6")] == pytest.approx(4 / 6)
    # the opponent's three checkers on the mover's 1 and 2 points (its 24 and 23) cannot jump the prime
    assert G[names.index("opp_trapped")] == pytest.approx(3 / 15)
    assert G[names.index("opp_rear_escapes")] == 0.0
    assert G[names.index("opp_rearmost")] == pytest.approx(24 / 25)
    assert G[names.index("opp_escapes_pt24")] == 0.0
    assert G[names.index("me_trapped")] == 0.0
    # the opponent's 20 point blocks a checker on the mover's 24: any 5 or 6 (20), 3-3, 4-1, 3-2, 4-2, 4-3
    assert G[names.index("me_escapes_pt24")] == pytest.approx(29 / 36)
    assert G[names.index("me_escapes_pt13")] == 1.0  # nothing in front of the 13 point
    # the opponent's blot on its 23 point is in front of five of the mover's points
    assert G[names.index("opp_blots")] == pytest.approx(1 / 5)
    assert G[names.index("opp_hit_pt23")] > 0.0


def test_closed_board_and_anchor():
    names = FEATURE_NAMES[2]
    b = board_of({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 20: 2}, {19: 2, 24: 13})
    G = encode_general(b[None, :])[0]
    assert G[names.index("me_closed_board")] == 1.0
    assert G[names.index("me_advanced_anchor")] == 1.0
    assert G[names.index("me_made_19_24")] == pytest.approx(1 / 6)
    assert G[names.index("opp_enter")] == 0.0


def test_bear_off_position():
    # the mover has two checkers on its 6 and 5 points: 6-5, 6-6, 5-5, 4-4 and 3-3 bear both off
    b = board_of({5: 1, 6: 1}, {19: 5, 24: 10})
    assert position_class(b) == ENDGAME
    E = encode_endgame(b[None, :])[0]
    names = FEATURE_NAMES[0]
    assert E[names.index("me_bear_off_next_roll")] == pytest.approx(6 / 36)
    assert E[names.index("me_off")] == pytest.approx(13 / 15)
    assert E[names.index("me_off_ge10")] == 1.0 and E[names.index("me_off_ge14")] == 0.0
    assert E[names.index("me_home_pips")] == pytest.approx(11 / 90)
    assert E[names.index("me_left")] == pytest.approx(2 / 15)
    assert E[names.index("me_home5_ge1")] == 1.0 and E[names.index("me_home4_ge1")] == 0.0
    assert E[names.index("opp_home6_over3")] == pytest.approx(1.0)  # 5 on its 6 point
    assert E[names.index("opp_home1_over3")] == pytest.approx(3.5)
    assert E[names.index("opp_bear_off_next_roll")] == 0.0


def _bear_off_rolls_by_plays(board: np.ndarray) -> int:
    return sum(
        (1 if a == b else 2) for a, b in ROLLS if (generate_plays(board, a, b)[0][:, 26] == 15).any()
    )


def test_bear_off_probability_matches_the_plays():
    rng = np.random.default_rng(3)
    names = FEATURE_NAMES[0]
    me, opp = names.index("me_bear_off_next_roll"), names.index("opp_bear_off_next_roll")
    for _ in range(150):
        mine: dict[int, int] = {}
        for p in rng.integers(1, 7, size=int(rng.integers(1, 6))):
            mine[int(p)] = mine.get(int(p), 0) + 1
        theirs: dict[int, int] = {}
        for p in rng.integers(19, 25, size=int(rng.integers(1, 6))):
            theirs[int(p)] = theirs.get(int(p), 0) + 1
        b = board_of(mine, theirs)
        E = encode_endgame(b[None, :])[0]
        assert E[me] * 36 == pytest.approx(_bear_off_rolls_by_plays(b))
        assert E[opp] * 36 == pytest.approx(_bear_off_rolls_by_plays(swap_array(b)))


def test_race_features():
    b = board_of({1: 3, 6: 4, 9: 4, 12: 4}, {13: 5, 17: 5, 24: 5})
    assert position_class(b) == RACE
    R = encode_race(b[None, :])[0]
    names = FEATURE_NAMES[1]
    my_pips = 3 + 24 + 36 + 48
    their_pips = 5 * 12 + 5 * 8 + 5 * 1
    assert R[names.index("me_pips")] == pytest.approx(my_pips / 167)
    assert R[names.index("opp_pips")] == pytest.approx(their_pips / 167)
    assert R[names.index("pip_lead")] == pytest.approx((their_pips - my_pips) / 100)
    assert R[names.index("me_not_home")] == pytest.approx(8 / 15)
    assert R[names.index("me_crossovers")] == pytest.approx(8 / 45)
    assert R[names.index("me_travel_home")] == pytest.approx((4 * 3 + 4 * 6) / 90)
    assert R[names.index("me_on_19_24")] == 0.0
    assert R[names.index("me_pt12_over3")] == pytest.approx(0.5)
    assert R[names.index("opp_pt1_ge3")] == 1.0  # its 1 point is the mover's 24
    assert R[names.index("opp_not_home")] == pytest.approx(10 / 15)


def test_start_position():
    b = BackgammonPosition.start().board.copy()
    G = encode_general(b[None, :])[0]
    names = FEATURE_NAMES[2]
    for side in ("me", "opp"):
        assert G[names.index(f"{side}_pips")] == pytest.approx(167 / 167)
        assert G[names.index(f"{side}_blots")] == 0.0
        assert G[names.index(f"{side}_any_hit")] == 0.0
        assert G[names.index(f"{side}_in_contact")] == 1.0
        assert G[names.index(f"{side}_made_1_6")] == pytest.approx(1 / 6)
        assert G[names.index(f"{side}_pt13_ge4")] == 1.0 and G[names.index(f"{side}_pt13_over4")] == pytest.approx(0.5)
    assert G[names.index("total_pips")] == pytest.approx(1.0)
