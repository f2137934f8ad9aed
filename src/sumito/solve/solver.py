"""Solving a small board: the driver around the compiled kernels of :mod:`sumito.solve.retrograde`."""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sumito.defaults import NO_MOVES_RULES, SOLVE_CHECKPOINT_EVERY
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_bytes, check_npz_inflated, load_json
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.variants import Variant
from sumito.solve import retrograde as R
from sumito.solve.index import Space, space
from sumito.stopping import STOP, call_stoppable

#: entries decided per chunk of the parallel passes (small enough for a prompt Ctrl-C, large enough to share out)
CHUNK = 1 << 16
#: positions of a level taken back per chunk of :func:`retrograde.expand_level` (each has dozens of predecessors)
LEVEL_CHUNK = 1 << 10
#: the most positions solved: 3 bytes each while solving (values and counters), about 6 GB, inside 8 GiB
MAX_ENTRIES = 2_000_000_000
CHECKPOINT_FORMAT = "sumito-solve-checkpoint-1"


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


def _checkpoint_meta(variant: Variant, no_moves: str, size: int) -> dict:
    return dict(format=CHECKPOINT_FORMAT, side=variant.side, marbles=variant.marbles, win=variant.win_threshold,
                inline_only=variant.inline_only, no_moves=no_moves, size=size)


def write_checkpoint(path: Path, meta: dict, plies: int, values: np.ndarray, counters: np.ndarray) -> None:
    """The solve's state at the start of level ``plies``, written atomically (temp file + rename)."""
    buf = io.BytesIO()
    np.savez(buf, meta=np.array(json.dumps({**meta, "plies": plies})), values=values, counters=counters)
    atomic_write_bytes(path, buf.getvalue())


def read_checkpoint(path: Path, meta: dict) -> tuple[int, np.ndarray, np.ndarray] | None:
    """The state a checkpoint holds (level, values, counters), or ``None`` when there is none, or it is of
    another solve, or damaged (the solve then starts afresh)."""
    if not path.exists():
        return None
    try:
        # the state's two arrays (2 + 1 bytes an entry) and a header: nothing larger is inflated
        check_npz_inflated(path, 3 * int(meta["size"]) + (1 << 20), "solve checkpoint")
        with np.load(path, allow_pickle=False) as data:
            saved = load_json(str(data["meta"]), path, "the checkpoint's 'meta' header")  # its nesting bounded
            values, counters = data["values"], data["counters"]
        plies = int(saved.pop("plies"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if saved != meta or values.shape != (meta["size"],) or counters.shape != (meta["size"],) \
            or values.dtype != np.int16 or counters.dtype != np.uint8 or plies < 0:
        return None
    return plies, values, counters


def solve_values(
    variant: Variant,
    no_moves: str = "draw",
    *,
    on_level: Callable[[LevelReport], None] | None = None,
    max_entries: int = MAX_ENTRIES,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: float = SOLVE_CHECKPOINT_EVERY,
    on_resume: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Every entry's value (see :mod:`sumito.solve.retrograde`) for ``variant``; ``no_moves`` is what a
    side with no legal move gets (``draw``, the arena's default, or ``loss``).

    With ``checkpoint``, the state is written there after the first pass and at the end of a level once
    ``checkpoint_every`` seconds have passed since the last write; a solve that finds a checkpoint of the
    same variant there goes on from it (``on_resume`` is told the level), gives the same values as one
    that was never stopped, and removes the file when it is done."""
    if no_moves not in NO_MOVES_RULES:
        raise SolveError(f"no_moves must be 'draw' or 'loss', not {no_moves!r}")
    sp = space(variant)
    if sp.size > max_entries:
        raise SolveError(f"{variant} has {sp.size:,} positions; at most {max_entries:,} can be solved here")
    args = kernel_args(sp)
    geo = geometry(variant.side)
    path = Path(checkpoint) if checkpoint is not None else None
    meta = _checkpoint_meta(variant, no_moves, sp.size)
    saved = read_checkpoint(path, meta) if path is not None else None
    start = time.perf_counter()
    if saved is not None:
        plies, values, counters = saved
        if on_resume is not None:
            on_resume(plies)
    else:
        values = np.zeros(sp.size, dtype=np.int16)
        counters = np.zeros(sp.size, dtype=np.uint8)
        most = call_stoppable(
            R.initial_values, values, counters, geo.cells, geo.offsets, geo.edge_cells, sp.binom, sp.block_start,
            variant.marbles, variant.win_threshold, variant.inline_only, no_moves == "loss", geo.empty_grid,
            sp.subsets, CHUNK, STOP,
        )
        if most > R.MAX_COUNTED_MOVES:
            raise SolveError(f"a position of {variant} has {most} legal moves; the solver counts at most "
                             f"{R.MAX_COUNTED_MOVES}")
        plies = 0
        if path is not None:
            write_checkpoint(path, meta, plies, values, counters)
    written = time.perf_counter()
    while True:
        code = plies + 1 if plies % 2 else -(plies + 1)
        level = R.entries_at(values, np.int16(code), CHUNK)
        if on_level is not None:
            on_level(LevelReport(plies, int(level.size), time.perf_counter() - start))
        if level.size == 0 and plies > 0:
            break
        if level.size:
            common = (level, np.int16(code), values, counters, args["cells"], args["offsets"], args["zobrist"],
                      args["binom"], args["block_start"], args["marbles"], args["win"], args["inline_only"],
                      args["grid_template"], sp.subsets)
            call_stoppable(R.expand_level, *common, LEVEL_CHUNK, STOP)
        plies += 1
        if path is not None and time.perf_counter() - written >= checkpoint_every:
            write_checkpoint(path, meta, plies, values, counters)
            written = time.perf_counter()
    if path is not None:
        path.unlink(missing_ok=True)
    return values
