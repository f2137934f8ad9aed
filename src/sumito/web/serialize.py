"""JSON for the page: boards and legal moves built from engine objects, at the API edge only.

The page draws the board from ``cells`` and never needs to know the geometry rules: every cell
comes with its name, its row and place in the row, and the centre of its hexagon in units of one
cell width (``x`` grows to the right, ``y`` downwards, as in SVG; row ``a`` is at the bottom).
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from sumito.games.abalone import BLACK, WHITE, Move, Position
from sumito.games.abalone.geometry import ROW_LETTERS, geometry

COLOR_WORDS = {BLACK: "black", WHITE: "white"}
ROW_HEIGHT = math.sqrt(3) / 2  # distance between the centres of two rows of hexagons, in cell widths


@cache
def _cells(side: int) -> tuple[tuple[int, str, int, int, float, float], ...]:
    """Grid index, name, row, place in the row and centre (x, y) of every cell of a board, computed once."""
    geo = geometry(side)
    out = []
    for row in range(geo.rows):
        for col, diag in enumerate(geo.row_range(row)):
            # row e (the middle) starts at x = 0; each row further out starts half a cell further in
            x = round(diag - row / 2 + (side - 1) / 2, 4)
            y = round((geo.rows - 1 - row) * ROW_HEIGHT, 4)
            out.append((geo.grid_index(row, diag), f"{ROW_LETTERS[row]}{diag + 1}", row, col, x, y))
    return tuple(out)


def board_json(position: Position, layout: str | None = None) -> dict[str, Any]:
    """The Board object of the API (see docs/web-api.md)."""
    side = position.variant.side
    grid = position.grid.tolist()
    cells = [
        {"name": name, "row": row, "col": col, "x": x, "y": y, "marble": COLOR_WORDS.get(grid[g])}
        for g, name, row, col, x, y in _cells(side)
    ]
    return {
        "position": position.to_string(),
        "layout": layout,
        "side": side,
        "to_move": COLOR_WORDS[position.side_to_move],
        "lost": {"black": position.lost[0], "white": position.lost[1]},
        "win_threshold": position.variant.win_threshold,
        "inline_only": position.variant.inline_only,
        "cells": cells,
    }


def pushed_cells(move: Move) -> list[str]:
    """The opposing marbles a push moves, nearest first (the last one goes off on a push-off)."""
    if not move.pushed:
        return []
    geo = move.geometry
    step = int(geo.offsets[move.direction])
    lead = geo.name_to_grid[move.marbles[-1]]
    return [geo.name(lead + k * step) for k in range(1, move.pushed + 1)]


def legal_move_json(move: Move) -> dict[str, Any]:
    """The Legal move object of the API: enough for the page to highlight and animate a move."""
    return {
        "notation": move.notation(),
        "marbles": list(move.marbles),
        "direction": move.direction_name,
        "destinations": list(move.destinations),
        "pushed": pushed_cells(move),
        "push_off": move.is_push_off,
        "broadside": move.is_broadside,
    }
