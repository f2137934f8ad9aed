"""Solving a small board: the driver around the compiled kernels of :mod:`sumito.solve.retrograde`."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from sumito.engine.geometry import geometry
from sumito.engine.variants import Variant
from sumito.errors import SumitoError
from sumito.solve import retrograde as R
from sumito.solve.index import Space, space
from sumito.stopping import STOP, call_stoppable

#: entries decided per chunk of the parallel passes (small enough for a prompt Ctrl-C, large enough to share out)
CHUNK = 1 << 16
NO_MOVES_RULES = ("draw", "loss")
#: the most positions solved: 3 bytes each while solving (values and counters), about 6 GB, inside 8 GiB
MAX_ENTRIES = 2_000_000_000


class SolveError(SumitoError):
    """A variant that cannot be solved here (too large, or the counters cannot hold its moves)."""


@dataclass
class LevelReport:
    """One level of the solve: ``plies`` to the end, how many entries it decided, seconds so far."""

    plies: int
    decided: int
    seconds: float


def kernel_args(sp: Space) -> dict:
    geo = geometry(sp.variant.side)
    return dict(
        cells=geo.cells, offsets=geo.offsets, zobrist=geo.zobrist, binom=sp.binom, block_start=sp.block_start,
        marbles=sp.variant.marbles, win=sp.variant.win_threshold, inline_only=sp.variant.inline_only,
        grid_template=geo.empty_grid,
    )


def solve_values(
    variant: Variant,
    no_moves: str = "draw",
    *,
    on_level: Callable[[LevelReport], None] | None = None,
    max_entries: int = MAX_ENTRIES,
) -> np.ndarray:
    """Every entry's value (see :mod:`sumito.solve.retrograde`) for ``variant``; ``no_moves`` is what a
    side with no legal move gets (``draw``, the arena's default, or ``loss``)."""
    if no_moves not in NO_MOVES_RULES:
        raise SolveError(f"no_moves must be 'draw' or 'loss', not {no_moves!r}")
    sp = space(variant)
    if sp.size > max_entries:
        raise SolveError(f"{variant} has {sp.size:,} positions; at most {max_entries:,} can be solved here")
    args = kernel_args(sp)
    geo = geometry(variant.side)
    values = np.zeros(sp.size, dtype=np.int16)
    counters = np.zeros(sp.size, dtype=np.uint8)
    start = time.perf_counter()
    most = call_stoppable(
        R.initial_values, values, counters, geo.cells, geo.offsets, geo.edge_cells, sp.binom, sp.block_start,
        variant.marbles, variant.win_threshold, variant.inline_only, no_moves == "loss", geo.empty_grid, CHUNK, STOP,
    )
    if most > R.MAX_COUNTED_MOVES:
        raise SolveError(f"a position of {variant} has {most} legal moves; the solver counts at most "
                         f"{R.MAX_COUNTED_MOVES}")
    plies = 0
    while True:
        code = plies + 1 if plies % 2 else -(plies + 1)
        level = np.flatnonzero(values == code)
        if on_level is not None:
            on_level(LevelReport(plies, int(level.size), time.perf_counter() - start))
        if level.size == 0 and plies > 0:
            break
        if level.size:
            common = (level, np.int16(code), values, counters, args["cells"], args["offsets"], args["zobrist"],
                      args["binom"], args["block_start"], args["marbles"], args["win"], args["inline_only"],
                      args["grid_template"])
            call_stoppable(R.expand_level, *common, numba.get_num_threads(), STOP)
        plies += 1
    return values
