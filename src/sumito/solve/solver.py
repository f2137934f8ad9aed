"""Solving a small board: the driver around the compiled kernels of :mod:`sumito.solve.retrograde`."""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sumito.defaults import NO_MOVES_RULES, SOLVE_CHECKPOINT_EVERY
from sumito.errors import SumitoError
from sumito.fileio import NpzArchive, atomic_write_bytes, load_json, open_regular, reason_of, set_aside, shown_path
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
#: a checkpoint's bytes beyond its two arrays: the JSON header and the archive's own records
CHECKPOINT_SLACK_BYTES = 1 << 20


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


class CheckpointError(SolveError):
    """A checkpoint file that cannot be used: :attr:`reason` says why, in a few words."""

    #: what the file is set aside as (``PATH.damaged``, ``PATH.other``)
    suffix = "damaged"
    #: the checkpoint in words, for the line that says it was set aside
    state = "damaged"

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{shown_path(path)}: {reason}")


class DamagedCheckpoint(CheckpointError):
    """A checkpoint file that is not one whole checkpoint: cut, changed, not a regular file, too large."""


class OtherSolveCheckpoint(CheckpointError):
    """A whole checkpoint of another solve (another variant, rule, size or format)."""

    suffix = "other"
    state = "of another solve"


def checkpoint_bytes(size: int) -> int:
    """The largest checkpoint file of ``size`` entries: 2 + 1 bytes an entry (values and counters), the
    header and the archive's own records."""
    return 3 * size + CHECKPOINT_SLACK_BYTES


def read_checkpoint(path: Path, meta: dict) -> tuple[int, np.ndarray, np.ndarray] | None:
    """The state a checkpoint holds (level, values, counters), or ``None`` when there is no file at ``path``.
    A file that is not one whole checkpoint is a :class:`DamagedCheckpoint`, a checkpoint of another solve an
    :class:`OtherSolveCheckpoint` (each one line, never a traceback: whatever the file holds, it is opened
    without blocking and read within its bound, :func:`~sumito.fileio.open_regular`)."""
    if not os.path.lexists(path):
        return None
    size = int(meta["size"])
    try:
        with open_regular(path, checkpoint_bytes(size), "solve checkpoint") as fh, \
                NpzArchive(fh, path, checkpoint_bytes(size), "solve checkpoint") as archive:
            saved = load_json(archive.text("meta"), path, "the checkpoint's 'meta' header")  # its nesting bounded
            if not isinstance(saved, dict):
                raise ValueError(f"{shown_path(path)}: the checkpoint's 'meta' header is not a JSON object")
            plies = saved.pop("plies", None)
            if type(plies) is not int or plies < 0:
                raise ValueError(f"{shown_path(path)}: the checkpoint's level is {plies!r}, not a count of plies")
            if saved != meta:
                differ = sorted(k for k in {*saved, *meta} if saved.get(k) != meta.get(k))
                raise OtherSolveCheckpoint(path, "its " + ", ".join(map(str, differ[:3])) + " differ")
            values = archive.array("values", (np.int16,), (size,))
            counters = archive.array("counters", (np.uint8,), (size,))
    except ValueError as exc:
        if isinstance(exc, CheckpointError):
            raise
        raise DamagedCheckpoint(path, reason_of(exc, path, "solve checkpoint")) from None
    return plies, values, counters


def resumable_state(path: Path, meta: dict, on_set_aside: Callable[[str], None] | None = None) -> tuple[
        int, np.ndarray, np.ndarray] | None:
    """:func:`read_checkpoint`, where a checkpoint that cannot be used is renamed aside
    (:func:`~sumito.fileio.set_aside`: never deleted, never overwritten) and ``on_set_aside`` told in one line
    (by default the line goes to stderr), so that the solve starts afresh; a file that cannot be renamed is
    a one-line :class:`SolveError`."""
    try:
        return read_checkpoint(path, meta)
    except CheckpointError as exc:
        line = f"the solve checkpoint {shown_path(path)} is {exc.state} ({exc.reason})"
        try:
            aside = set_aside(path, exc.suffix)
        except OSError as err:
            raise SolveError(f"{line} and cannot be set aside ({err.strerror or err}); remove it or solve into "
                             "another folder") from None
        where = f"set aside as {shown_path(aside)}" if aside is not None else "gone already"
        (on_set_aside or _to_stderr)(f"{line}; {where}; solving afresh")
        return None


def _to_stderr(line: str) -> None:
    print(f"sumito: {line}", file=sys.stderr, flush=True)


def solve_values(
    variant: Variant,
    no_moves: str = "draw",
    *,
    on_level: Callable[[LevelReport], None] | None = None,
    max_entries: int = MAX_ENTRIES,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: float = SOLVE_CHECKPOINT_EVERY,
    on_resume: Callable[[int], None] | None = None,
    on_set_aside: Callable[[str], None] | None = None,
) -> np.ndarray:
    """Every entry's value (see :mod:`sumito.solve.retrograde`) for ``variant``; ``no_moves`` is what a
    side with no legal move gets (``draw``, the arena's default, or ``loss``).

    With ``checkpoint``, the state is written there after the first pass and at the end of a level once
    ``checkpoint_every`` seconds have passed since the last write; a solve that finds a checkpoint of the
    same variant there goes on from it (``on_resume`` is told the level), gives the same values as one
    that was never stopped, and removes the file when it is done. A checkpoint that is damaged or of another
    solve is renamed aside and the solve starts afresh (:func:`resumable_state`; ``on_set_aside`` is told in
    one line)."""
    if no_moves not in NO_MOVES_RULES:
        raise SolveError(f"no_moves must be 'draw' or 'loss', not {no_moves!r}")
    sp = space(variant)
    if sp.size > max_entries:
        raise SolveError(f"{variant} has {sp.size:,} positions; at most {max_entries:,} can be solved here")
    if geometry(variant.side).empty_grid.shape[0] > 64:  # the kernels hold a position in two 64-bit bitboards
        raise SolveError(f"{variant} is on a board of side {variant.side}; the solver solves boards of side 2 and 3")
    args = kernel_args(sp)
    geo = geometry(variant.side)
    path = Path(checkpoint) if checkpoint is not None else None
    meta = _checkpoint_meta(variant, no_moves, sp.size)
    saved = resumable_state(path, meta, on_set_aside) if path is not None else None
    start = time.perf_counter()
    if saved is not None:
        plies, values, counters = saved
        if on_resume is not None:
            on_resume(plies)
    else:
        values = np.zeros(sp.size, dtype=np.int16)
        counters = np.zeros(sp.size, dtype=np.uint8)
        most = call_stoppable(
            R.initial_values, values, counters, geo.cells, geo.offsets, sp.binom, sp.block_start,
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
            common = (level, np.int16(code), values, counters, args["cells"], args["offsets"], args["binom"],
                      args["block_start"], args["marbles"], args["win"], args["inline_only"], args["grid_template"],
                      sp.subsets)
            call_stoppable(R.expand_level, *common, LEVEL_CHUNK, STOP)
        plies += 1
        if path is not None and time.perf_counter() - written >= checkpoint_every:
            write_checkpoint(path, meta, plies, values, counters)
            written = time.perf_counter()
    if path is not None:
        path.unlink(missing_ok=True)
    return values
