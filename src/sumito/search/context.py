"""What every search kernel needs to know about a position, as plain arrays and numbers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sumito.games.abalone import Position

WIN = 1.0e7  # a won position, minus the plies it takes (so that quicker wins score higher)
WIN_BOUND = WIN - 1000.0  # scores beyond this are wins or losses found by search
MAX_PLY = 64


@dataclass
class SearchContext:
    """A writable copy of a position's board plus the fixed tables of its board size."""

    board: np.ndarray
    side: int
    lost: np.ndarray  # int64[2]: marbles Black and White have lost
    win: int
    inline_only: bool
    cells: np.ndarray
    offsets: np.ndarray
    ring: np.ndarray
    edge_ring: int
    edge_cells: np.ndarray  # grid indices of the outermost ring
    zobrist: np.ndarray
    hash: np.uint64

    @classmethod
    def of(cls, position: Position) -> SearchContext:
        geo = position.geometry
        return cls(
            board=position.grid.copy(),
            side=position.side_to_move,
            lost=np.array(position.lost, dtype=np.int64),
            win=position.variant.win_threshold,
            inline_only=position.variant.inline_only,
            cells=geo.cells,
            offsets=geo.offsets,
            ring=geo.ring,
            edge_ring=geo.side - 1,
            edge_cells=geo.edge_cells,
            zobrist=geo.zobrist,
            hash=np.uint64(position.zobrist),
        )
