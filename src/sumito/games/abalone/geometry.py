"""Board geometry: cells, coordinates, directions and the precomputed tables the kernels use.

A hexagonal board of side ``s`` has ``2s-1`` rows, lettered from ``a`` (Black's side, bottom)
upwards, and ``2s-1`` diagonals numbered from 1. Cell (row ``r``, diagonal ``d``), both 0-based,
is on the board when ``|r - d| <= s - 1``. On the standard board (``s = 5``) that gives a1-a5,
b1-b6, ..., e1-e9, ..., i5-i9.

The kernels work on a *padded grid*: a flat ``int8`` array of ``W * W`` cells with ``W = 2s + 1``,
one ring of off-board sentinels around the playing area and sentinels in the two cut-off corners
of the square. A step in a direction is a constant index offset, and a scan along a line stops
at the first sentinel, so no inner loop needs a bounds check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache

import numpy as np

EMPTY = 0
BLACK = 1
WHITE = 2
OFF = 3  # off-board sentinel in the padded grid

COLOR_NAMES = {BLACK: "Black", WHITE: "White"}


class Color(IntEnum):
    """A side, for people and the Python API (``Position.turn``, ``Position.winner()``). It is an
    int (``Color.BLACK == BLACK == 1``), so it fits everywhere a colour code does; the kernels are
    handed plain ints (``side_to_move``), never the enum."""

    BLACK = BLACK
    WHITE = WHITE

    @property
    def opponent(self) -> Color:
        return Color(3 - self)

    def __str__(self) -> str:
        return COLOR_NAMES[self]

# Directions in (row, diagonal) steps. Direction k and k + 3 are opposite.
DIRECTION_STEPS: tuple[tuple[int, int], ...] = (
    (0, 1),  # 0 east: along the row, towards higher diagonals
    (1, 1),  # 1 north-east: one row up (towards i)
    (1, 0),  # 2 north-west
    (0, -1),  # 3 west
    (-1, -1),  # 4 south-west: one row down (towards a)
    (-1, 0),  # 5 south-east
)
DIRECTION_NAMES = ("E", "NE", "NW", "W", "SW", "SE")
ROW_LETTERS = "abcdefghijklmnopqrstuvwxyz"


_BOARD_NAMES = {5: "standard", 4: "small (side-4)", 3: "mini (side-3)"}


def board_name(side: int) -> str:
    """How messages name a board size."""
    return _BOARD_NAMES.get(side, f"side-{side}")


def opposite(direction: int) -> int:
    return (direction + 3) % 6


@dataclass(frozen=True, eq=False)
class Geometry:
    """All fixed facts about one board size, computed once per size (see :func:`geometry`)."""

    side: int
    width: int  # padded grid width W; the grid holds W * W cells
    cells: np.ndarray  # grid index of each on-board cell, ordered a1, a2, ..., row by row
    offsets: np.ndarray  # grid-index offset of each of the six directions
    ring: np.ndarray  # per grid index: hex distance to the centre (-1 off board)
    cell_of_grid: np.ndarray  # per grid index: position in ``cells`` (-1 off board)
    zobrist: np.ndarray  # uint64 [3, W*W]: keys for (colour, grid index); row 0 holds the side key
    edge_cells: np.ndarray  # grid indices of the outermost ring, in ``cells`` order (where marbles are pushed off)
    names: tuple[str, ...] = field(repr=False)  # cell names in ``cells`` order
    name_to_grid: dict[str, int] = field(repr=False)

    @property
    def rows(self) -> int:
        return 2 * self.side - 1

    @property
    def n_cells(self) -> int:
        return len(self.cells)

    @property
    def empty_grid(self) -> np.ndarray:
        """A fresh padded grid with every on-board cell empty and sentinels elsewhere."""
        grid = np.full(self.width * self.width, OFF, dtype=np.int8)
        grid[self.cells] = EMPTY
        return grid

    def grid_index(self, row: int, diag: int) -> int:
        """Grid index of 0-based (row, diagonal); the caller makes sure it is on the board."""
        return (row + 1) * self.width + (diag + 1)

    def row_diag(self, grid_index: int) -> tuple[int, int]:
        return grid_index // self.width - 1, grid_index % self.width - 1

    def on_board(self, row: int, diag: int) -> bool:
        s = self.side
        return 0 <= row < 2 * s - 1 and 0 <= diag < 2 * s - 1 and abs(row - diag) <= s - 1

    def name(self, grid_index: int) -> str:
        row, diag = self.row_diag(grid_index)
        return f"{ROW_LETTERS[row]}{diag + 1}"

    def row_range(self, row: int) -> range:
        """0-based diagonals of the cells in ``row``, in increasing order."""
        s = self.side
        return range(max(0, row - (s - 1)), min(2 * s - 2, row + s - 1) + 1)

    def direction_between(self, a: int, b: int) -> int | None:
        """The direction of the step from grid cell ``a`` to its neighbour ``b``, if adjacent."""
        delta = b - a
        for k, off in enumerate(self.offsets):
            if off == delta:
                return k
        return None


def _zobrist_keys(size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keys = rng.integers(1, 2**63, size=(3, size), dtype=np.int64).astype(np.uint64)
    keys ^= rng.integers(0, 2, size=(3, size), dtype=np.int64).astype(np.uint64) << np.uint64(63)
    return keys


@cache
def geometry(side: int) -> Geometry:
    """The geometry of the hexagonal board with ``side`` cells a side (3, 4 or 5; 2..9 work)."""
    if not 2 <= side <= 9:
        raise ValueError(f"board side must be between 2 and 9, not {side}")
    width = 2 * side + 1
    size = width * width
    cells = []
    names = []
    ring = np.full(size, -1, dtype=np.int8)
    cell_of_grid = np.full(size, -1, dtype=np.int16)
    centre = side - 1
    for row in range(2 * side - 1):
        for diag in range(2 * side - 1):
            if abs(row - diag) > side - 1:
                continue
            g = (row + 1) * width + (diag + 1)
            cell_of_grid[g] = len(cells)
            cells.append(g)
            names.append(f"{ROW_LETTERS[row]}{diag + 1}")
            dr, dd = row - centre, diag - centre
            ring[g] = (abs(dr) + abs(dd) + abs(dr - dd)) // 2
    offsets = np.array([dr * width + dd for dr, dd in DIRECTION_STEPS], dtype=np.int64)
    zobrist = _zobrist_keys(size, seed=0x5A11 + side)
    cell_array = np.array(cells, dtype=np.int64)
    edge = cell_array[ring[cell_array] == side - 1]
    return Geometry(
        side=side,
        width=width,
        cells=cell_array,
        offsets=offsets,
        ring=ring,
        cell_of_grid=cell_of_grid,
        zobrist=zobrist,
        edge_cells=edge,
        names=tuple(names),
        name_to_grid={n: g for n, g in zip(names, cells)},
    )


def _cube(geo: Geometry, g: int) -> tuple[int, int, int]:
    row, diag = geo.row_diag(g)
    c = geo.side - 1
    dr, dd = row - c, diag - c
    return dd, -dr, dr - dd  # cube coordinates (sum 0) of the (row, diagonal) axial ones


@cache
def symmetries(side: int) -> np.ndarray:
    """The 12 symmetries of the hexagonal board (6 rotations, each with and without a reflection),
    as permutations of cell numbers: ``perm[k, i]`` is the cell that cell ``i`` (in ``cells`` order)
    goes to; ``perm[0]`` is the identity and ``perm[3]`` the half turn. The rules are the same under
    each, so a position and its image have the same value (the NNUE trainer's augmentation and
    :mod:`sumito.rlcore.symmetry`'s)."""
    geo = geometry(side)
    index = {_cube(geo, int(g)): i for i, g in enumerate(geo.cells)}
    perms = []
    for reflect in (False, True):
        for turn in range(6):
            perm = np.empty(len(geo.cells), dtype=np.int64)
            for i, g in enumerate(geo.cells):
                a, b, c = _cube(geo, int(g))
                if reflect:
                    a, b = b, a
                for _ in range(turn):
                    a, b, c = -c, -a, -b  # a 60-degree turn
                perm[i] = index[(a, b, c)]
            perms.append(perm)
    return np.array(perms)
