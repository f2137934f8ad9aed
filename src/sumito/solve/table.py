"""A solved board as a value: every position's exact value, looked up from a :class:`Position`.

``SolvedTable.for_variant(variant)`` loads the table from the cache folder, solving it there first if it is
not yet built (the mini board takes about 11 s on two cores). Values are for the side to move:
:class:`Value` says win, loss or draw and in how many plies under perfect play (the winner as fast as it
can, the loser as slowly).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sumito.defaults import NO_MOVES_RULES, SOLVE_CHECKPOINT_EVERY
from sumito.errors import SumitoError
from sumito.fileio import (
    NpzArchive,
    atomic_write_bytes,
    load_json,
    open_regular,
    reason_of,
    set_aside,
    shown_path,
)
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.kernels import MAX_MOVES
from sumito.games.abalone.move import Move
from sumito.games.abalone.position import Position
from sumito.games.abalone.variants import MINI, Variant
from sumito.jit import njit
from sumito.solve import retrograde as R
from sumito.solve.index import rank, space, unrank
from sumito.solve.retrograde import value_from_successors
from sumito.solve.solver import LevelReport, SolveError, kernel_args, solve_values

#: the table format's version (a table of another version is solved again)
FORMAT = 1
#: the environment variable naming the folder solved tables are kept in
CACHE_ENV = "SUMITO_SOLVED_DIR"
#: the largest table file read (the mini board's is about 25 MB)
MAX_TABLE_BYTES = 2**31
#: the most a table's arrays may inflate to: two bytes an entry of the largest variant solved on first use
MAX_TABLE_INFLATED = 4 * MAX_TABLE_BYTES
#: entries recomputed from their successors' values when a table is loaded, one in each of as many equal
#: stretches of the table: a damaged file passes its digest only by chance, but a table written wrong (or
#: every value changed and the digest written again) fails here
CHECK_SAMPLE = 4096


class TableCheckError(SumitoError):
    """A solved table file that failed its check on load (its format, its header, its digest or its sample)."""


class NotSolvedError(SumitoError):
    """A position the table does not cover (another board or rules, or marbles missing without being lost)."""


@dataclass(frozen=True, order=True)
class Value:
    """The exact value of a position for the side to move: ``result`` 1 (win), 0 (draw) or -1 (loss), and
    ``plies`` to the end under perfect play (0 for a draw)."""

    result: int
    plies: int

    @property
    def score(self) -> int:
        """Orders values from the mover's point of view: faster wins and slower losses score higher."""
        if self.result > 0:
            return 10_000 - self.plies
        if self.result < 0:
            return -10_000 + self.plies
        return 0

    def text(self) -> str:
        if self.result == 0:
            return "draw"
        word = "wins" if self.result > 0 else "loses"
        return f"{word} in {self.plies}"

    @staticmethod
    def decode(stored: int) -> Value:
        if stored > 0:
            return Value(1, stored - 1)
        if stored < 0:
            return Value(-1, -stored - 1)
        return Value(0, 0)


def cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "sumito", "solved"
    )
    return Path(base)


def not_covered(variant: Variant, position: Position) -> str | None:
    """Why ``position`` is not in the table of ``variant`` (``None`` when it is); needs no table."""
    v, pv = variant, position.variant
    if (pv.side, pv.marbles, pv.win_threshold, pv.inline_only) != (v.side, v.marbles, v.win_threshold, v.inline_only):
        return f"the table is solved for {describe(v)}, not for {describe(pv)}"
    if position.winner() is not None:
        return "the game is over"
    for color, lost in zip((1, 2), position.lost):
        if position.marble_count(color) + lost != v.marbles:
            return (f"{'Black' if color == 1 else 'White'} has {position.marble_count(color)} marbles on the board "
                    f"and has lost {lost}: the table holds positions where every marble is on the board or lost")
    return None


def cache_path(variant: Variant, no_moves: str = "draw") -> Path:
    """Where the cache keeps the table of ``variant``."""
    return cache_dir() / f"{variant_name(variant, no_moves)}.npz"


def checkpoint_path(variant: Variant, no_moves: str = "draw") -> Path:
    """Where a solve into the cache keeps its checkpoint until it is done."""
    return cache_dir() / f"{variant_name(variant, no_moves)}.partial.npz"


@contextlib.contextmanager
def solve_lock(variant: Variant, no_moves: str = "draw",
               on_wait: Callable[[Variant], None] | None = None) -> Iterator[bool]:
    """One solve of ``variant`` at a time in the cache folder: an exclusive lock on its ``.lock`` file there,
    held while the block runs (the system lets it go when a process dies, so a killed solve leaves no stale
    lock). When another process holds it, ``on_wait`` is told and this one waits. Yields whether it waited."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with _lock_file(folder / f"{variant_name(variant, no_moves)}.lock") as handle:
        waited = False
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waited = True
            if on_wait is not None:
                on_wait(variant)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield waited
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _lock_file(path: Path) -> io.BufferedWriter:
    """The lock file open (made when missing), refused in one line unless it is a regular file: opened without
    blocking, so a FIFO put in its place is refused, not waited on for ever."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if path.exists() and not path.is_file():  # a FIFO without a reader is ENXIO: say what it is
            raise SolveError(f"the lock file {shown_path(path)} is not a regular file; remove it") from None
        raise SolveError(f"cannot open the lock file {shown_path(path)}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise SolveError(f"the lock file {shown_path(path)} is not a regular file; remove it")
    return os.fdopen(fd, "ab")


def variant_name(variant: Variant, no_moves: str = "draw") -> str:
    """A file name for a variant's table: ``side3-m5-w2`` (``-inline``, ``-nomoves-loss`` when they apply)."""
    name = f"side{variant.side}-m{variant.marbles}-w{variant.win_threshold}"
    if variant.inline_only:
        name += "-inline"
    if no_moves != "draw":
        name += f"-nomoves-{no_moves}"
    return name


def describe(variant: Variant) -> str:
    """The variant in words: "the mini board (19 cells), 5 marbles a side, 2 to win, all moves"; "mini" only
    for the mini layout's marbles and win threshold, "the 19-cell board" for the rest of its family (and
    "the 61-cell board" for the standard one)."""
    if (variant.side, variant.marbles, variant.win_threshold) == (MINI.side, MINI.marbles, MINI.win_threshold):
        board = "the mini board (19 cells)"
    else:
        board = f"the {3 * variant.side * (variant.side - 1) + 1}-cell board"
    rules = "inline moves only" if variant.inline_only else "all moves"
    return f"{board}, {variant.marbles} marbles a side, {variant.win_threshold} to win, {rules}"


@dataclass
class SolvedTable:
    """Every position of one variant, solved. ``values`` holds one entry per position of
    :func:`sumito.solve.index.space` (see :mod:`sumito.solve.retrograde` for the coding)."""

    variant: Variant
    no_moves: str
    values: np.ndarray
    seconds: float = 0.0

    # ----------------------------------------------------------------- building and files
    @classmethod
    def solve(cls, variant: Variant, no_moves: str = "draw",
              on_level: Callable[[LevelReport], None] | None = None, *,
              checkpoint: str | os.PathLike[str] | None = None, checkpoint_every: float = SOLVE_CHECKPOINT_EVERY,
              on_resume: Callable[[int], None] | None = None,
              on_set_aside: Callable[[str], None] | None = None) -> SolvedTable:
        """``variant`` solved (resumably with ``checkpoint``: :func:`~sumito.solve.solver.solve_values`)."""
        start = time.perf_counter()
        values = solve_values(variant, no_moves, on_level=on_level, checkpoint=checkpoint,
                              checkpoint_every=checkpoint_every, on_resume=on_resume, on_set_aside=on_set_aside)
        if np.abs(values).max(initial=0) <= 127:
            values = values.astype(np.int8)
        return cls(variant, no_moves, values, time.perf_counter() - start)

    def to_bytes(self) -> bytes:
        meta = json.dumps(dict(format=FORMAT, side=self.variant.side, marbles=self.variant.marbles,
                               win=self.variant.win_threshold, inline_only=self.variant.inline_only,
                               no_moves=self.no_moves, seconds=round(self.seconds, 2), digest=self.digest()))
        buf = io.BytesIO()
        np.savez_compressed(buf, meta=np.array(meta), values=self.values)
        return buf.getvalue()

    def save(self, path: str | os.PathLike[str]) -> None:
        atomic_write_bytes(path, self.to_bytes())

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, check: bool = True) -> SolvedTable:
        """A table written by :meth:`save`; anything wrong with the file is a one-line ``ValueError``
        (:class:`TableCheckError`). The file is read as :func:`~sumito.fileio.open_regular` reads (a regular
        file of at most :data:`MAX_TABLE_BYTES`), then its format, header, array type and size are checked,
        its digest against its values and, with ``check``, :data:`CHECK_SAMPLE` entries against their
        successors' values (:meth:`sample_check`)."""
        return cls._load(path, check)[0]

    @classmethod
    def _load(cls, path: str | os.PathLike[str], check: bool = True) -> tuple[SolvedTable, os.stat_result | None]:
        """:meth:`load`, and the ``stat`` of the file read (``None`` when it could not be opened)."""
        where = shown_path(path)
        found: os.stat_result | None = None
        try:
            with open_regular(path, MAX_TABLE_BYTES, "solved table") as fh:
                found = os.fstat(fh.fileno())
                data = fh.read(MAX_TABLE_BYTES + 1)
            if len(data) > MAX_TABLE_BYTES:
                raise ValueError(f"{where}: larger than {MAX_TABLE_BYTES:,} bytes; not a solved table of ours")
            with NpzArchive(data, path, MAX_TABLE_INFLATED, "solved table") as archive:
                header = load_json(archive.text("meta"), path, "the 'meta' header")
                if not isinstance(header, dict):
                    raise ValueError(f"{where}: the 'meta' header is not a JSON object")
                variant, no_moves = _table_header(header, where)
                size = space(variant).size
                values = archive.array("values", (np.int8, np.int16), (size,))
        except TableCheckError:
            raise
        except OSError as exc:
            raise TableCheckError(f"{where}: cannot read ({exc.strerror or exc})") from None
        except ValueError as exc:
            raise TableCheckError(str(exc)) from None
        table = cls(variant, no_moves, values, _seconds(header.get("seconds")))
        digest = table.digest()
        if header.get("digest") != digest:
            raise TableCheckError(f"{where}: the values do not match the digest in the header (a damaged file)")
        if check:
            bad, first = table.sample_check(seed=int(digest, 16))
            if bad:
                raise TableCheckError(f"{where}: {bad:,} of {min(CHECK_SAMPLE, size):,} entries checked differ from "
                                      f"their successors' values, entry {first:,} the first: a table written wrong")
        return table, found

    def sample_check(self, n: int = CHECK_SAMPLE, seed: int | None = None) -> tuple[int, int]:
        """Recompute ``n`` entries from their successors' values, one drawn in each of ``n`` equal stretches
        of the table (seeded by ``seed``, by default by the table's digest, so a file's check is the same
        each time); returns how many differ and the first that does (-1: none). A few milliseconds on the
        mini board: a check against damage and tampering, not a proof (``sumito solve --verify`` checks
        every entry)."""
        size = self.values.shape[0]
        n = min(n, size)
        if n == 0:
            return 0, -1
        rng = np.random.default_rng(int(self.digest(), 16) if seed is None else seed)
        edges = np.linspace(0, size, n + 1).astype(np.int64)
        indices = edges[:-1] + (rng.random(n) * (edges[1:] - edges[:-1])).astype(np.int64)
        sp = space(self.variant)
        a = kernel_args(sp)
        bad, first = _sample_mismatches(self.values, indices, a["cells"], a["offsets"], a["zobrist"], a["binom"],
                                        a["block_start"], a["marbles"], a["win"], a["inline_only"],
                                        self.no_moves == "loss", a["grid_template"])
        return int(bad), int(first)

    @classmethod
    def for_variant(cls, variant: Variant = MINI, no_moves: str = "draw", *,
                    on_level: Callable[[LevelReport], None] | None = None,
                    on_solve: Callable[[Variant], None] | None = None,
                    on_resume: Callable[[int], None] | None = None,
                    on_wait: Callable[[Variant], None] | None = None,
                    on_set_aside: Callable[[str], None] | None = None,
                    checkpoint_every: float = SOLVE_CHECKPOINT_EVERY, force: bool = False) -> SolvedTable:
        """The cached table of ``variant``, solved and saved first when there is none or with ``force``
        (``on_solve`` is told); the solve keeps a checkpoint in the cache folder, so a stopped one goes on
        where it stood. One solve of a variant runs at a time (:func:`solve_lock`): another process's solve
        of it is waited for (``on_wait`` is told), and its table used. A cached table that fails its check, or a
        checkpoint that is damaged or of another solve, is renamed aside and ``on_set_aside`` told in one line
        (:meth:`cached`, :func:`~sumito.solve.solver.resumable_state`); the table is then solved again."""
        table = None if force else cls.cached(variant, no_moves, on_set_aside=on_set_aside, then="solving again")
        if table is not None:
            return table
        with solve_lock(variant, no_moves, on_wait) as waited:
            # a solve that held the lock before this one has left the table (or was stopped: its checkpoint)
            table = None if force and not waited else cls.cached(variant, no_moves, on_set_aside=on_set_aside,
                                                                   then="solving again")
            if table is not None:
                return table
            if on_solve is not None:
                on_solve(variant)
            table = cls.solve(variant, no_moves, on_level, checkpoint=checkpoint_path(variant, no_moves),
                              checkpoint_every=checkpoint_every, on_resume=on_resume, on_set_aside=on_set_aside)
            table.save(cache_path(variant, no_moves))
        _LOADED[(variant, no_moves)] = table
        return table

    @classmethod
    def cached(cls, variant: Variant = MINI, no_moves: str = "draw", *,
               on_set_aside: Callable[[str], None] | None = None, then: str = "`sumito solve` builds it again") \
            -> SolvedTable | None:
        """The table of ``variant`` when it is in the cache folder (loaded once a process), else ``None``:
        never solves (a web server's workers use this, so that no request starts a solve). A file there that
        fails :meth:`load`'s check (or holds another variant) is renamed aside (never deleted, never
        overwritten: :func:`~sumito.fileio.set_aside`) and ``on_set_aside`` told in one line ending in ``then``
        (by default the line goes to stderr); the result is then ``None``."""
        key = (variant, no_moves)
        if key in _LOADED:
            return _LOADED[key]
        path = cache_path(variant, no_moves)
        if not os.path.lexists(path):
            return None
        found: os.stat_result | None = None
        try:
            table, found = cls._load(path)
            if table.variant != variant or table.no_moves != no_moves:
                raise TableCheckError(f"{shown_path(path)}: it holds {describe(table.variant)} "
                                      f"(no legal move: {table.no_moves})")
        except ValueError as exc:
            line = f"the solved table {shown_path(path)} failed its check ({reason_of(exc, path, 'solved table')})"
            try:
                aside = set_aside(path, "damaged", same_as=found)
            except OSError as err:
                raise TableCheckError(f"{line} and cannot be set aside ({err.strerror or err}); remove it") from None
            where = f"set aside as {shown_path(aside)}" if aside is not None else "replaced since"
            (on_set_aside or _to_stderr)(f"{line}; {where}; {then}")
            return None
        _LOADED[key] = table
        return table

    def digest(self) -> str:
        return hashlib.sha256(np.ascontiguousarray(self.values).tobytes()).hexdigest()[:16]

    # ----------------------------------------------------------------- looking up
    def covers(self, position: Position) -> str | None:
        """Why ``position`` is not in the table (``None`` when it is)."""
        return not_covered(self.variant, position)

    def entry(self, position: Position) -> int:
        why = self.covers(position)
        if why is not None:
            raise NotSolvedError(why)
        sp = space(self.variant)
        geo = geometry(self.variant.side)
        return int(rank(position.grid, position.side_to_move, geo.cells, sp.binom, sp.block_start,
                        self.variant.marbles, self.variant.win_threshold))

    def value(self, position: Position) -> Value:
        """The exact value of ``position`` for the side to move."""
        return Value.decode(int(self.values[self.entry(position)]))

    def move_values(self, position: Position) -> list[tuple[Move, Value]]:
        """Each legal move with its value for the side that plays it, in the engine's move order."""
        index = self.entry(position)
        sp = space(self.variant)
        a = kernel_args(sp)
        succ, codes = R.successors_of(index, a["cells"], a["offsets"], a["zobrist"], a["binom"], a["block_start"],
                                      a["marbles"], a["win"], a["inline_only"], a["grid_template"])
        # the kernel numbers moves on a board where the side to move is colour 1; the codes do not name colours
        out = []
        for s, code in zip(succ.tolist(), codes.tolist()):
            if s < 0:
                value = Value(1, 1)
            else:
                after = Value.decode(int(self.values[s]))
                value = Value(-after.result, after.plies + 1 if after.result else 0)
            out.append((Move(int(code), self.variant.side), value))
        return out

    def best_moves(self, position: Position) -> list[tuple[Move, Value]]:
        """The moves that keep the position's value: the fastest win, a draw, or the slowest loss."""
        moves = self.move_values(position)
        if not moves:
            return []
        best = max(v.score for _, v in moves)
        return [(m, v) for m, v in moves if v.score == best]

    def counts(self) -> dict[str, int]:
        vals = self.values
        return dict(wins=int((vals > 0).sum()), draws=int((vals == 0).sum()), losses=int((vals < 0).sum()))


_LOADED: dict[tuple[Variant, str], SolvedTable] = {}


def _table_header(header: dict, where: str) -> tuple[Variant, str]:
    """The variant and no-moves rule a table's header names; anything else is a :class:`TableCheckError`."""
    if header.get("format") != FORMAT:
        raise TableCheckError(f"{where}: a solved table of format {header.get('format')!r}; this version reads "
                              f"{FORMAT}")
    try:
        variant = Variant(side=int(header["side"]), marbles=int(header["marbles"]),
                          win_threshold=int(header["win"]), inline_only=bool(header["inline_only"]))
        no_moves = str(header["no_moves"])
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise TableCheckError(f"{where}: the solved table's header is damaged ({exc})") from None
    if no_moves not in NO_MOVES_RULES:
        raise TableCheckError(f"{where}: unknown no-moves rule {no_moves!r}")
    # the board and marbles first: space() of a header's made-up marble count could take any memory
    if variant.side > 3 or 2 * variant.marbles > geometry(variant.side).n_cells \
            or space(variant).size > MAX_TABLE_INFLATED:
        raise TableCheckError(f"{where}: its header names {describe(variant)}, larger than any solved table")
    return variant, no_moves


def _seconds(value: object) -> float:
    """The solve's seconds a header records (0 where it is not a number)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _to_stderr(line: str) -> None:
    print(f"sumito: {line}", file=sys.stderr, flush=True)


@njit(cache=True, nogil=True)
def _sample_mismatches(values, indices, cells, offsets, zobrist, binom, block_start, marbles, win, inline_only,
                       no_moves_loss, grid_template):
    """How many of the entries ``indices`` differ from the value their successors give them, and the first that
    does (-1: none): :func:`~sumito.solve.retrograde.value_from_successors` over a sample, on one thread."""
    grid = grid_template.copy()
    free = np.empty(cells.shape[0], dtype=np.int64)
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    bad = 0
    first = -1
    for t in range(indices.shape[0]):
        idx = indices[t]
        _a, b = unrank(idx, grid, cells, binom, block_start, marbles, win, free)
        expected = value_from_successors(grid, b, values, cells, offsets, zobrist, binom, block_start, marbles, win,
                                         inline_only, no_moves_loss, moves)
        if expected != values[idx]:
            bad += 1
            if first < 0:
                first = idx
    return bad, first
