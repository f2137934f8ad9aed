"""The Abalearn state encodings (Campos & Langlois 2003, section 5), batched and compiled.

Every encoding describes a board **from the learner's point of view**: ``me`` is the colour
whose value is estimated (1 Black, 2 White) and the opponent is ``3 - me``. A kernel writes one
``float64`` row per board into a preallocated 2-D array, so a whole batch (all successors of a
position) goes to the value network in one matrix product. No encoding has a bias input: the
networks add their own bias.

Scaling (every input lies in about [0, 1], or [-1, 1] for Abalearn 1's cells):

* a count of a side's marbles (ring counts, protected, threatened) is divided by ``marbles``,
  the marbles a side starts with (14 standard, 11 small, 5 mini);
* a count of marbles pushed off is divided by the win threshold (6, 5, 2), so it reaches 1.0
  exactly when the game is lost (a terminal afterstate can be encoded too);
* an average distance to the centre is divided by the board's radius ``side - 1`` (the distance
  of the edge cells), so 0 is the centre and 1 the edge.

**Abalearn 1** (:func:`abalearn1_inputs`, ``n_cells + 2`` inputs: 63 on the standard board):
each on-board cell in ``Geometry.cells`` order (a1, a2, ..., row by row) is +1 for an own marble,
-1 for an opponent's, 0 when empty; then ``own_off`` and ``opp_off``, the marbles each side has
lost, divided by the win threshold.

**Abalearn 2** (:data:`ABALEARN2_INPUTS`, 8 inputs): own marbles in the centre, middle and
border rings and own marbles pushed off, then the same four for the opponent. The paper also
lists "a bias input unit set to 1"; it is left out because the network has biases. The rings,
by hex distance ``r`` to the centre cell:

* centre: ``r <= 1`` (7 cells on every board);
* border: ``r == side - 1``, the outermost ring (24 cells standard, 18 small, 12 mini);
* middle: everything in between (``2 <= r <= 3`` standard: 30 cells; ``r == 2`` small: 12
  cells; **none on the mini board**, where ``own_middle``/``opp_middle`` are always 0).

That split is ours: the paper's Figure 1, which draws it, has no text in either version. The others
are encodings of their own, for Abalearn 2 and 3 alike: ``abalearn2-c012`` / ``abalearn3-c012``
(centre ``r <= 2``, 19 cells; middle ``r == 3``, 18; border ``r == 4``, 24) and ``abalearn2-b34`` /
``abalearn3-b34`` (centre ``r <= 1``, 7; middle ``r == 2``, 12; border ``r >= side - 2``, 42). Where
centre and border overlap on a small board the border wins.

**Abalearn 3** (:data:`ABALEARN3_INPUTS`, 14 inputs): Abalearn 2's eight, then for each side
(own first, then the opponent):

* ``protected``: marbles "totally surrounded by stones of the same colour": each of the six
  neighbouring cells holds a marble of the same colour or is off the board. Off-board
  neighbours count as covered, so an edge marble whose on-board neighbours are all its own is
  protected; since every cell has at least three on-board neighbours (a corner has three, an
  edge cell four), a protected marble always has at least three own neighbours. Divided by
  ``marbles``.
* ``distance``: the average hex distance of the side's marbles on the board to the centre,
  divided by ``side - 1`` (0 when the side has no marble on the board).
* ``threatened``: the side's marbles that the other side could push off with one move right
  now, whoever is to move: the distinct marbles that are the last pushed marble of a push-off
  move of the other side (exactly the edge marbles ``kernels.generate_push_offs`` pushes off).
  Computed from the board alone, also in won positions. Divided by ``marbles``.

Kernels: :func:`encode_boards` (a batch of boards with their lost counts, e.g. from
``kernels.expand``) and :func:`encode_successors` (the fused hot path: make each move in place,
encode, unmake; no board copies). ``kind`` is an int (:data:`ABALEARN1` = 0, :data:`ABALEARN2`
= 1, :data:`ABALEARN3` = 2), so one compiled kernel serves all three. The Python API is
:data:`ENCODINGS`, :func:`encode_batch`, :func:`encode_batch_into`, :func:`encode_position` and
:func:`encode_position_successors`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from sumito.errors import SumitoError
from sumito.evaluation.abalearn import ABALEARN1, ABALEARN2, ABALEARN3, SPLITS, _encode_into
from sumito.games.abalone import kernels as K
from sumito.games.abalone.geometry import Geometry
from sumito.games.abalone.geometry import geometry as board_geometry
from sumito.games.abalone.kernels import PUSH_OFF_BIT, generate_moves, make_move, unmake_move
from sumito.games.abalone.position import Position
from sumito.games.abalone.variants import Variant, default_variant
from sumito.jit import njit

MAX_MOVES = K.MAX_MOVES  # rows of ``out`` that always hold every successor

ABALEARN1_TAIL = ("own_off", "opp_off")  # after the cells (see :func:`abalearn1_inputs`)
ABALEARN2_INPUTS = (
    "own_centre",
    "own_middle",
    "own_border",
    "own_off",
    "opp_centre",
    "opp_middle",
    "opp_border",
    "opp_off",
)
ABALEARN3_INPUTS = (
    *ABALEARN2_INPUTS,
    "own_protected",
    "own_distance",
    "own_threatened",
    "opp_protected",
    "opp_distance",
    "opp_threatened",
)


def abalearn1_inputs(side: int = 5) -> tuple[str, ...]:
    """Abalearn 1's input names on a board of ``side``: ``cell_a1``, ``cell_a2``, ... then the tail."""
    return (*(f"cell_{name}" for name in board_geometry(side).names), *ABALEARN1_TAIL)


# --------------------------------------------------------------------------------------- kernels
@njit(cache=True)
def encode_boards(boards, lost, me, cells, ring, offsets, edge_cells, marbles, win, kind, out):
    """Encode ``boards[i]`` (padded grids, ``int8[n, W*W]``) with lost counts ``lost[i]`` (Black's,
    White's) for ``me`` into ``out[i]`` (``float64[n, n_inputs]``); return ``n``."""
    n = boards.shape[0]
    for i in range(n):
        if me == 1:
            lost_me, lost_op = lost[i, 0], lost[i, 1]
        else:
            lost_me, lost_op = lost[i, 1], lost[i, 0]
        _encode_into(boards[i], me, lost_me, lost_op, cells, ring, offsets, edge_cells, marbles, win, kind, out[i])
    return n


@njit(cache=True)
def encode_successors(
    board, side, lost_black, lost_white, moves, n, offsets, cells, ring, zobrist, edge_cells, marbles, win, kind, out,
    me=0,
):
    """For each of the first ``n`` moves: make it on ``board`` in place, encode the afterstate from
    the mover's (``side``'s) point of view into ``out[i]``, unmake it. Returns ``n``. With ``me``
    (1 or 2) the afterstates are encoded from that colour's view instead (a fixed-colour value).

    ``board`` must be writable; it is left as it was. ``marbles`` (per side at the start) and
    ``win`` (the win threshold) set the scaling (see the module docstring).
    """
    if me == 0:
        me = side
    lost_me = lost_black if me == 1 else lost_white
    lost_op = lost_white if me == 1 else lost_black
    for i in range(n):
        mv = moves[i]
        make_move(board, mv, side, offsets, zobrist)
        pushed_off = 1 if mv & PUSH_OFF_BIT else 0
        if me == side:
            _encode_into(
                board, me, lost_me, lost_op + pushed_off, cells, ring, offsets, edge_cells, marbles, win, kind, out[i]
            )
        else:
            _encode_into(
                board, me, lost_me + pushed_off, lost_op, cells, ring, offsets, edge_cells, marbles, win, kind, out[i]
            )
        unmake_move(board, mv, side, offsets)
    return n


@njit(cache=True)
def generate_and_encode(
    board, side, lost_black, lost_white, inline_only, offsets, cells, ring, zobrist, edge_cells, marbles, win, kind,
    moves, out,
):
    """:func:`kernels.generate_moves` into ``moves`` (``MAX_MOVES`` long), then
    :func:`encode_successors` of all of them into ``out`` (``MAX_MOVES`` rows); return the count."""
    n = generate_moves(board, side, offsets, cells, inline_only, moves)
    return encode_successors(
        board, side, lost_black, lost_white, moves, n, offsets, cells, ring, zobrist, edge_cells, marbles, win, kind,
        out,
    )


# ------------------------------------------------------------------------------------ Python API
@dataclass(frozen=True)
class Encoding:
    """One encoding: its kernel ``kind`` and its inputs on a board of a given side."""

    name: str
    kind: int
    _names: Callable[[int], tuple[str, ...]]
    description: str

    def input_names(self, side: int = 5) -> tuple[str, ...]:
        return self._names(side)

    def n_inputs(self, side: int = 5) -> int:
        return len(self._names(side))


_SPLIT_TEXT = ("rings 0-1 | 2-3 | 4", "rings 0-2 | 3 | 4", "rings 0-1 | 2 | 3-4")
ENCODINGS: dict[str, Encoding] = {
    "abalearn1": Encoding(
        "abalearn1", ABALEARN1, abalearn1_inputs, "every cell +1 own / -1 opponent / 0 empty, then marbles lost"
    ),
    **{
        f"abalearn2{suffix}": Encoding(
            f"abalearn2{suffix}", ABALEARN2 + 3 * k, lambda side: ABALEARN2_INPUTS,
            f"marbles in the centre, middle, border ({_SPLIT_TEXT[k]} on the standard board); lost",
        )
        for k, suffix in enumerate(SPLITS)
    },
    **{
        f"abalearn3{suffix}": Encoding(
            f"abalearn3{suffix}", ABALEARN3 + 3 * k, lambda side: ABALEARN3_INPUTS,
            f"abalearn2{suffix} plus protected marbles, average distance to the centre, threatened marbles",
        )
        for k, suffix in enumerate(SPLITS)
    },
}


class EncodingError(SumitoError, ValueError):
    """An unknown encoding name."""


def get_encoding(name: str) -> Encoding:
    try:
        return ENCODINGS[name]
    except KeyError:
        raise EncodingError(f"unknown encoding {name!r}; known: {', '.join(ENCODINGS)}") from None


@cache
def edge_cells(side: int) -> np.ndarray:
    """Grid indices of the outermost ring of the board of ``side`` (what the kernels take)."""
    return board_geometry(side).edge_cells


def _check_me(me: int) -> int:
    if me not in (1, 2):
        raise ValueError(f"me must be 1 (Black) or 2 (White), not {me!r}")
    return int(me)


def encode_batch_into(
    name: str, boards: np.ndarray, lost: np.ndarray, me: int, geometry: Geometry, out: np.ndarray,
    variant: Variant | None = None,
) -> np.ndarray:
    """Encode ``boards`` (``int8[n, W*W]``) with ``lost`` (``int64[n, 2]``: Black's, White's lost)
    for ``me`` into ``out[:n]`` (``float64``, at least ``n`` rows of ``n_inputs``); return ``out[:n]``.

    ``variant`` gives the scaling (marbles a side, win threshold); the board size's default rules
    when left out. Pass ``lost`` as ``int64`` to avoid a conversion.
    """
    enc = get_encoding(name)
    me = _check_me(me)
    n = boards.shape[0]
    width = enc.n_inputs(geometry.side)
    if out.ndim != 2 or out.shape[0] < n or out.shape[1] != width or out.dtype != np.float64:
        raise ValueError(f"out must be float64 [>= {n}, {width}], not {out.dtype}{list(out.shape)}")
    if boards.ndim != 2 or boards.shape[1] != geometry.width * geometry.width:
        raise ValueError(f"boards must be [n, {geometry.width * geometry.width}] padded grids")
    lost = np.asarray(lost, dtype=np.int64)
    if lost.shape != (n, 2):
        raise ValueError(f"lost must be [{n}, 2] (Black's, White's), not {list(lost.shape)}")
    v = variant if variant is not None else default_variant(geometry.side)
    encode_boards(boards, lost, me, geometry.cells, geometry.ring, geometry.offsets, edge_cells(geometry.side),
                  v.marbles, v.win_threshold, enc.kind, out)
    return out[:n]


def encode_batch(
    name: str, boards: np.ndarray, lost: np.ndarray, me: int, geometry: Geometry, variant: Variant | None = None
) -> np.ndarray:
    """Encode ``boards`` (``int8[n, W*W]``) with ``lost`` (``[n, 2]``) for ``me``: ``float64[n, n_inputs]``."""
    out = np.empty((boards.shape[0], get_encoding(name).n_inputs(geometry.side)), dtype=np.float64)
    return encode_batch_into(name, boards, lost, me, geometry, out, variant)


def encode_position(name: str, position: Position, me: int) -> np.ndarray:
    """The encoding of ``position`` for ``me``: ``float64[n_inputs]``."""
    geo = position.geometry
    boards = position.grid.copy()[None, :]
    lost = np.array([position.lost], dtype=np.int64)
    return encode_batch(name, boards, lost, me, geo, position.variant)[0]


def encode_position_successors(
    name: str, position: Position, out: np.ndarray | None = None, viewer: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The legal moves of ``position`` (``int32`` codes) and the encoding of each afterstate from
    the mover's point of view, or ``viewer``'s (1 or 2) when given (``float64[n, n_inputs]``; rows
    of ``out`` when given, ``MAX_MOVES`` rows is always enough), through the fused kernel."""
    enc = get_encoding(name)
    geo = position.geometry
    v = position.variant
    codes = position.legal_move_codes()
    n = len(codes)
    width = enc.n_inputs(geo.side)
    if out is None:
        out = np.empty((n, width), dtype=np.float64)
    elif out.ndim != 2 or out.shape[0] < n or out.shape[1] != width or out.dtype != np.float64:
        raise ValueError(f"out must be float64 [>= {n}, {width}], not {out.dtype}{list(out.shape)}")
    encode_successors(position.grid.copy(), position.side_to_move, position.lost[0], position.lost[1], codes, n,
                      geo.offsets, geo.cells, geo.ring, geo.zobrist, edge_cells(geo.side), v.marbles,
                      v.win_threshold, enc.kind, out, viewer)
    return codes, out[:n]


__all__ = [
    "ABALEARN1",
    "ABALEARN1_TAIL",
    "ABALEARN2",
    "ABALEARN2_INPUTS",
    "ABALEARN3",
    "ABALEARN3_INPUTS",
    "ENCODINGS",
    "MAX_MOVES",
    "Encoding",
    "abalearn1_inputs",
    "edge_cells",
    "encode_batch",
    "encode_batch_into",
    "encode_boards",
    "encode_position",
    "encode_position_successors",
    "encode_successors",
    "generate_and_encode",
    "get_encoding",
]
