"""Building positions for tests."""

from __future__ import annotations

import numpy as np

from sumito.engine import BLACK, WHITE, Position, Variant
from sumito.engine.geometry import geometry


def position_with(
    black: list[str], white: list[str], to_move: str = "b", side: int = 5, lost=(0, 0), **variant
) -> Position:
    """A position with marbles on the named cells (everything else empty), validated like any string."""
    geo = geometry(side)
    grid = geo.empty_grid
    for names, color in ((black, BLACK), (white, WHITE)):
        for name in names:
            grid[geo.name_to_grid[name]] = color
    base = {5: 14, 4: 11, 3: 5}.get(side, 14)
    v = Variant(side=side, marbles=variant.pop("marbles", base), **variant)
    text = Position(grid, BLACK if to_move == "b" else WHITE, lost, 1, v).to_string()
    return Position.from_string(text, v)


def random_playout(pos: Position, plies: int, rng: np.random.Generator) -> list[Position]:
    """Positions along a random game of up to ``plies`` plies from ``pos``."""
    out = [pos]
    for _ in range(plies):
        codes = pos.legal_move_codes()
        if len(codes) == 0:
            break
        pos = pos._after(int(codes[rng.integers(len(codes))]))
        out.append(pos)
    return out
