"""Building positions for tests."""

from __future__ import annotations

import numpy as np

from sumito.engine import Position, Variant
from sumito.engine.geometry import geometry


def position_with(
    black: list[str], white: list[str], to_move: str = "b", side: int = 5, lost=(0, 0), **variant
) -> Position:
    """A position with marbles on the named cells (everything else empty)."""
    geo = geometry(side)
    rows = []
    for row in range(geo.rows - 1, -1, -1):
        out, run = "", 0
        for diag in geo.row_range(row):
            name = geo.name(geo.grid_index(row, diag))
            ch = "b" if name in black else "w" if name in white else None
            if ch is None:
                run += 1
                continue
            if run:
                out += str(run)
                run = 0
            out += ch
        if run:
            out += str(run)
        rows.append(out)
    base = {5: 14, 4: 11, 3: 5}.get(side, 14)
    v = Variant(side=side, marbles=variant.pop("marbles", base), **variant)
    return Position.from_string(f"{'/'.join(rows)} {to_move} {lost[0]} {lost[1]} 1", v)


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
