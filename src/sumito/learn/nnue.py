"""Data and training for the engine's NNUE (:mod:`sumito.evaluation.nnue`).

**Data** (:func:`generate`, ``sumito nnue gen``): self-play games of a search player (by default
:data:`DATA_PLAYER`: the hand-set linear evaluation and the search the shipped data came from, the
search without the threat search, the game's draw rules or converting, one thread), each from an opening of the suite
(:mod:`sumito.arena.openings`) followed by a few uniformly random quiet plies so that no two
games are alike. Every position before a move is kept with the search's score of it (for the side
to move, engine points: deeper-search targets), whether it is *quiet* (the side to move has no
push-off: a static evaluation can be right about it), and, once the game ends, its result for the
side to move (1, ½, 0). Games come in chunks, one work item each on the executor (processes or
Ray); a chunk's samples are written atomically to ``chunk-NNNNN.npz`` in the data folder, so a
killed run goes on from the chunks it has (and removes the temporary file a kill may leave), after checking
that each was made with the run's settings (the folder's ``config.json`` and each chunk's header record them).

**Training** (:func:`train`, ``sumito nnue train``): the network's score ``s`` is fitted in
win-probability space, as Stockfish's trainer does: minimise the squared difference between
``σ(s / K)`` and ``λ·σ(search score / K) + (1 − λ)·result``, ``K`` fitted to the data (the scale at
which the search's scores best predict the results). Each sample is seen under a random one of the
board's 12 symmetries (the rules and so the value are the same under each). Adam, minibatches,
a validation split by game; the file printed at the end reports the validation loss beside the
loss of the hand-set linear evaluation on the same positions, so a network that learned nothing
shows it. numpy and numba only: the network is small enough that a framework gains nothing on a CPU
(and the training needs no GPU).

**The same network for the same seed on every x86-64 CPU** (see :mod:`sumito.nn`): the products are
loops summed in a fixed order (:func:`sumito.nn.matmul`, also of a transpose, and over the one-hot
inputs' nonzeros alone :func:`_sparse_matmul` and :func:`_sparse_matmul_tn`) rather than BLAS, whose
kernel and so sums' order depend on the CPU; the sigmoid, logarithms, the scale grid and the initial
weights' normal draws (:func:`normal`) use :mod:`sumito.nn`'s ``tanh``, ``log`` and ``exp`` rather
than numpy's or libm's CPU-dispatched ones; Adam's bias corrections are running products, not ``pow``.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import io
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np

from sumito.arena.executor import InlineExecutor
from sumito.arena.openings import load_openings, random_quiet_moves
from sumito.errors import SumitoError
from sumito.evaluation import LINEAR_DEFAULT, named_evaluation
from sumito.evaluation.features import evaluate, work_arrays
from sumito.evaluation.nnue import NNUE, SCALE, feature_table, n_features, symmetries
from sumito.fileio import atomic_write_bytes, read_file_bounded, read_npz_with_header, refuse_changed, shown_path
from sumito.games.abalone import Game, Move, Position
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.kernels import MAX_MOVES, generate_push_offs
from sumito.jit import njit
from sumito.learn.runfolder import RunFolder
from sumito.nn import dot, exp_array, log_array, matmul, matvec, tanh_array
from sumito.players import make_player
from sumito.players.base import MAX_SEARCH_DEPTH, game_history

CHUNK_FORMAT = "sumito-nnue-data"
MAX_CHUNK_BYTES = 256 * 2**20
SCORE_CLIP = 8000.0  # a won or lost score counts as 8 marbles (more than any game has in hand)
DATA_ARRAYS = ("boards", "side", "lost", "score", "result", "quiet", "game")

#: the player whose searches made the shipped NNUE's data (no threat search, any repetition a draw, no converting)
DATA_PLAYER = "engine:depth=4,prune=0,threats=0,rules=0,trade=0,threads=1,nnue=none"


class NNUEDataError(SumitoError):
    """A data folder or chunk that cannot be used."""


# --- data -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkTask:
    """One work item: ``games`` self-play games, game ``first`` to ``first + games - 1`` of the run."""

    index: int
    first: int
    games: int
    seed: int
    player: str
    openings: tuple[str, ...]
    random_plies: int
    max_plies: int
    chunk: int = 0  # the run's games a chunk and games in all (recorded in the chunk's header)
    total: int = 0

    def settings(self) -> dict:
        """What the chunk's games depend on beyond their numbers: its header records them, and a chunk is
        reused only when they are the run's (:func:`generate`)."""
        return {"chunk": self.chunk, "total": self.total, "player": self.player, "seed": self.seed,
                "random_plies": self.random_plies, "max_plies": self.max_plies,
                "openings": suite_digest(self.openings)}


def suite_digest(openings: Sequence[str]) -> str:
    """An opening suite as a data folder records it: its size and a digest of its positions."""
    digest = hashlib.sha256("\n".join(openings).encode()).hexdigest()[:12]
    return f"{len(openings)} positions, sha256 {digest}"


#: how ``nnue gen`` names the settings a data folder records (config.json, and each chunk's header)
GEN_FLAGS = {"total": "--games"}


def _play_one(task: ChunkTask, number: int, player, rng: np.random.Generator) -> dict[str, list]:
    opening = task.openings[number % len(task.openings)]
    game = Game(Position.from_string(opening))
    geo = game.position.geometry
    edge_cells = geo.edge_cells
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    # a few uniformly random plies that push nothing off: another game from every opening
    for move in random_quiet_moves(game.position, int(rng.integers(0, task.random_plies + 1)), rng):
        if game.is_over():  # the random plies repeated a position: the game ends there, drawn
            break
        game.push(move)
    rows: dict[str, list] = {"boards": [], "side": [], "lost": [], "score": [], "quiet": []}

    while not game.is_over() and game.plies < task.max_plies:
        position = game.position
        result = player.analyse(position, seconds=player.time, depth=player.depth or MAX_SEARCH_DEPTH,
                                history=game_history(game))
        grid = position.grid
        rows["boards"].append(grid[geo.cells].copy())
        rows["side"].append(position.side_to_move)
        rows["lost"].append(tuple(position.lost))
        rows["score"].append(float(np.clip(result.score, -SCORE_CLIP, SCORE_CLIP)))
        rows["quiet"].append(generate_push_offs(grid, position.side_to_move, geo.offsets, edge_cells, buf) == 0)
        game.push(Move(result.move, geo.side))
    outcome = game.outcome()
    winner = outcome.winner if outcome is not None else None
    rows["result"] = [0.5 if winner is None else float(winner == s) for s in rows["side"]]
    return rows


def play_chunk(task: ChunkTask) -> bytes:
    """Play a chunk's games; its samples as the bytes of a ``.npz`` file (written by the parent)."""
    player = make_player(task.player)
    if not hasattr(player, "analyse"):
        raise NNUEDataError(f"{task.player}: the data needs a searching player with scores (an engine spec)")
    rng = np.random.default_rng([task.seed, task.index])
    columns: dict[str, list] = {name: [] for name in DATA_ARRAYS}
    for k in range(task.games):
        rows = _play_one(task, task.first + k, player, rng)
        for name in DATA_ARRAYS[:-1]:
            columns[name].extend(rows[name])
        columns["game"].extend([task.first + k] * len(rows["side"]))
    geo = Position.from_string(task.openings[0]).geometry
    n_cells = len(geo.cells)
    arrays = {
        "boards": np.array(columns["boards"], dtype=np.int8).reshape(-1, n_cells),
        "side": np.array(columns["side"], dtype=np.int8),
        "lost": np.array(columns["lost"], dtype=np.int8).reshape(-1, 2),
        "score": np.array(columns["score"], dtype=np.float32),
        "result": np.array(columns["result"], dtype=np.float32),
        "quiet": np.array(columns["quiet"], dtype=bool),
        "game": np.array(columns["game"], dtype=np.int32),
    }
    meta = {"format": CHUNK_FORMAT, "version": 1, **task.settings(), "first": task.first, "games": task.games,
            "side": geo.side}
    buf = io.BytesIO()
    np.savez_compressed(buf, meta=np.array(json.dumps(meta)), **arrays)
    return buf.getvalue()


def chunk_path(folder: str | Path, index: int) -> Path:
    return Path(folder) / f"chunk-{index:05d}.npz"


def generate(folder: str | Path, games: int, player: str = DATA_PLAYER, seed: int = 1,
             chunk: int = 20, random_plies: int = 6, max_plies: int = 300, openings: Sequence[str] | None = None,
             executor=None, progress: Callable[[int, int], None] | None = None) -> int:
    """Play ``games`` self-play games into ``folder`` in chunks of ``chunk``; chunks already there are
    kept (a resumed run plays only the rest). The folder's ``config.json`` records the settings the chunks
    depend on (``games``, ``chunk``, ``player``, ``seed``, ``random_plies``, ``max_plies``, the openings),
    and each chunk's header records them too: a resume with another of them, or a chunk made with another,
    is a one-line :class:`NNUEDataError` naming the setting, never a mix. Returns the number of chunks
    written now."""
    suite = tuple(openings) if openings is not None else tuple(load_openings())
    tasks = [ChunkTask(i, first, min(chunk, games - first), seed, player, suite, random_plies, max_plies, chunk, games)
             for i, first in enumerate(range(0, games, chunk))]
    settings = ChunkTask(0, 0, 0, seed, player, suite, random_plies, max_plies, chunk, games).settings()
    record = RunFolder(folder, (), NNUEDataError, started_by=("config.json",))
    if record.path.exists() and not record.path.is_dir():
        raise NNUEDataError(f"{shown_path(folder)} exists and is not a folder")
    record.open()  # made, and a chunk's temporary file that a kill between its write and its rename left removed
    if record.holds_run():
        record.check_settings(settings, GEN_FLAGS)
    _check_kept_chunks(folder, tasks, settings)
    if not record.holds_run():
        record.write_config(settings)
    todo = [t for t in tasks if not chunk_path(folder, t.index).exists()]
    executor = executor or InlineExecutor()
    done = len(tasks) - len(todo)
    if progress:
        progress(done, len(tasks))
    written = 0
    with contextlib.closing(executor.run(play_chunk, todo)) as results:
        for i, data in results:
            atomic_write_bytes(chunk_path(folder, todo[i].index), data)
            written += 1
            done += 1
            if progress:
                progress(done, len(tasks))
    return written


def _check_kept_chunks(folder: str | Path, tasks: Sequence[ChunkTask], settings: dict) -> None:
    """Every chunk already in ``folder`` must be one of ``tasks``, made with its settings and holding its
    games (a folder begun before config.json, or a chunk copied in): else a one-line error naming what
    differs."""
    for path in sorted(Path(folder).glob("chunk-*.npz")):
        try:
            index = int(path.stem.partition("-")[2])
        except ValueError:
            continue
        try:
            header, _ = read_npz_with_header(read_file_bounded(path, MAX_CHUNK_BYTES, "NNUE data chunk"), str(path),
                                             MAX_CHUNK_BYTES, (), "NNUE data chunk")
        except ValueError as exc:
            raise NNUEDataError(f"{exc}; remove it to play its games again") from None
        if header.get("format") != CHUNK_FORMAT:
            raise NNUEDataError(f"{shown_path(path)}: not an NNUE data chunk")
        task = tasks[index] if index < len(tasks) else None
        # (a chunk from before the headers held every setting holds its player and seed alone)
        refuse_changed(path, header, settings, NNUEDataError, GEN_FLAGS)
        if task is None or (header.get("first"), header.get("games")) != (task.first, task.games):
            raise NNUEDataError(f"{shown_path(path)}: not chunk {index} of {settings['total']} games in chunks of "
                                f"{settings['chunk']} (it holds other games): it was made with another --games or "
                                "--chunk; use a new --out folder or the same --games and --chunk")


@dataclass
class Samples:
    boards: np.ndarray  # int8 [N, cells]: 0 empty, 1 Black, 2 White
    side: np.ndarray  # int8 [N]: the side to move
    lost: np.ndarray  # int8 [N, 2]: marbles Black and White have lost
    score: np.ndarray  # float32 [N]: the search's score for the side to move (engine points)
    result: np.ndarray  # float32 [N]: the game's result for the side to move
    quiet: np.ndarray  # bool [N]
    game: np.ndarray  # int32 [N]: which game (for a split by game)

    def __len__(self) -> int:
        return len(self.side)

    def take(self, mask: np.ndarray) -> Samples:
        return Samples(*(getattr(self, name)[mask] for name in DATA_ARRAYS))


def load_samples(folders: Sequence[str | Path]) -> Samples:
    """Every chunk in ``folders`` (one-line errors for a folder without chunks or a bad chunk)."""
    files: list[tuple[str, int]] = []  # each chunk, with its folder's number
    for number, folder in enumerate(folders):
        found = sorted(glob.glob(os.path.join(str(folder), "chunk-*.npz")))
        if not found:
            raise NNUEDataError(f"{folder}: no chunk-*.npz files (make them with `sumito nnue gen`)")
        files.extend((path, number) for path in found)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in DATA_ARRAYS}
    for path, number in files:
        try:
            data = read_file_bounded(path, MAX_CHUNK_BYTES, "NNUE data chunk")
            header, arrays = read_npz_with_header(data, path, MAX_CHUNK_BYTES, DATA_ARRAYS, "NNUE data chunk")
        except ValueError as exc:
            raise NNUEDataError(str(exc)) from None
        if header.get("format") != CHUNK_FORMAT:
            raise NNUEDataError(f"{path}: not an NNUE data chunk")
        missing = [name for name in DATA_ARRAYS if name not in arrays]
        if missing:
            raise NNUEDataError(f"{path}: no {missing[0]!r} array")
        _check_chunk(path, arrays)
        if parts["boards"] and arrays["boards"].shape[1] != parts["boards"][0].shape[1]:
            raise NNUEDataError(f"{path}: from another board size than {files[0][0]}")
        for name in DATA_ARRAYS:
            parts[name].append(arrays[name])
        # game numbers restart in another folder: keep them apart
        parts["game"][-1] = arrays["game"].astype(np.int64) + number * 10_000_000
    return Samples(**{name: np.concatenate(parts[name]) for name in DATA_ARRAYS})


def _check_chunk(path: str, arrays: dict[str, np.ndarray]) -> None:
    """What training indexes with must be in range: a damaged or foreign chunk is a one-line error."""
    n = len(arrays["side"]) if arrays["side"].ndim == 1 else -1
    shapes_ok = (arrays["boards"].ndim == 2 and arrays["lost"].shape == (n, 2)
                 and all(arrays[name].shape[:1] == (n,) for name in DATA_ARRAYS))
    if not shapes_ok:
        raise NNUEDataError(f"{path}: its arrays do not have one row a position")
    if arrays["boards"].shape[1] not in (19, 37, 61):
        raise NNUEDataError(f"{path}: {arrays['boards'].shape[1]} cells a board; expected 19, 37 or 61")
    if any(arrays[name].dtype.kind not in "iub" for name in ("boards", "side", "lost", "quiet", "game")) or any(
            arrays[name].dtype.kind not in "fiu" for name in ("score", "result")):
        raise NNUEDataError(f"{path}: an array is not of numbers")
    values_ok = (np.isin(arrays["boards"], (0, 1, 2)).all() and np.isin(arrays["side"], (1, 2)).all()
                 and ((arrays["lost"] >= 0) & (arrays["lost"] <= 14)).all()
                 and np.isfinite(arrays["score"]).all() and np.isin(arrays["result"], (0.0, 0.5, 1.0)).all())
    if not values_ok:
        raise NNUEDataError(f"{path}: a value out of range (cells 0-2, side 1-2, results 0, 0.5 or 1)")


# --- training -------------------------------------------------------------------------------------------


def _side_of_cells(n_cells: int) -> int:
    for side in (3, 4, 5, 6, 7, 8, 9):
        if 3 * side * (side - 1) + 1 == n_cells:
            return side
    raise NNUEDataError(f"no hexagonal board has {n_cells} cells")


def features(boards: np.ndarray, side: np.ndarray, board_side: int) -> tuple[np.ndarray, np.ndarray]:
    """The binary inputs of the side to move's and the other side's perspective (float32 [N, 2n])."""
    geo = geometry(board_side)
    table = feature_table(board_side)[:, :, geo.cells]  # [P, colour, cell]
    n = len(boards)
    nf = n_features(board_side)
    rows = np.repeat(np.arange(n), boards.shape[1])
    colour = boards.ravel().astype(np.int64)
    cell = np.tile(np.arange(boards.shape[1]), n)
    occupied = colour > 0
    rows, colour, cell = rows[occupied], colour[occupied], cell[occupied]
    out = []
    for stm in (True, False):
        persp = np.where(stm, side - 1, 2 - side).astype(np.int64)[rows]
        X = np.zeros((n, nf), dtype=np.float32)
        X[rows, table[persp, colour, cell]] = 1.0
        out.append(X)
    return out[0], out[1]


#: a batch's inputs of one perspective, its nonzeros row by row: ``(starts, columns, values)``, row r's
#: at ``starts[r]:starts[r + 1]``, columns ascending (:func:`_csr`, :func:`sparse_features`)
Sparse = tuple[np.ndarray, np.ndarray, np.ndarray]


@njit(cache=True)
def _csr(X):
    """The nonzeros of a 2-D ``X`` (a :data:`Sparse`)."""
    n, m = X.shape
    count = 0
    for r in range(n):
        for k in range(m):
            if X[r, k] != 0.0:
                count += 1
    starts = np.zeros(n + 1, dtype=np.int64)
    columns = np.empty(count, dtype=np.int64)
    values = np.empty(count, dtype=np.float64)
    q = 0
    for r in range(n):
        for k in range(m):
            a = np.float64(X[r, k])
            if a != 0.0:
                columns[q] = k
                values[q] = a
                q += 1
        starts[r + 1] = q
    return starts, columns, values


@njit(cache=True)
def _board_csr(boards, side, cell_of, colour_of, other):
    """:func:`features`' inputs of the side to move's perspective (``other``: the other side's) as
    :func:`_csr` lists them, straight from the boards: input f of perspective P is on when the cell
    ``cell_of[P, f]`` holds ``colour_of[P, f]``."""
    n, cells = boards.shape
    nf = cell_of.shape[1]
    starts = np.zeros(n + 1, dtype=np.int64)
    for r in range(n):
        count = 0
        for i in range(cells):
            count += boards[r, i] > 0
        starts[r + 1] = starts[r] + count
    columns = np.empty(starts[n] + nf, dtype=np.int64)  # room for the last row's writes that do not count
    for r in range(n):
        persp = 2 - side[r] if other else side[r] - 1
        q = starts[r]
        for f in range(nf):  # without a branch: every input is written, the next overwrites it if off
            columns[q] = f
            q += boards[r, cell_of[persp, f]] == colour_of[persp, f]
    return starts, columns[: starts[n]], np.ones(starts[n], dtype=np.float64)


@cache
def _inputs_of(board_side: int) -> tuple[np.ndarray, np.ndarray]:
    """For each perspective and input, the cell (an index into the board's cells) and the colour it
    stands for: the inverse of :func:`sumito.evaluation.nnue.feature_table`."""
    geo = geometry(board_side)
    table = feature_table(board_side)[:, :, geo.cells]  # [P, colour, cell]
    nf = n_features(board_side)
    cell_of = np.zeros((2, nf), dtype=np.int64)
    colour_of = np.zeros((2, nf), dtype=np.int8)
    for p in range(2):
        for colour in (1, 2):
            cell_of[p, table[p, colour]] = np.arange(table.shape[2])
            colour_of[p, table[p, colour]] = colour
    return cell_of, colour_of


def sparse_features(boards: np.ndarray, side: np.ndarray, board_side: int) -> tuple[Sparse, Sparse]:
    """:func:`features` as two :data:`Sparse` (the same inputs, without the dense matrices)."""
    cell_of, colour_of = _inputs_of(board_side)
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    side = np.ascontiguousarray(side, dtype=np.int64)
    return (_board_csr(boards, side, cell_of, colour_of, False),
            _board_csr(boards, side, cell_of, colour_of, True))


def _sparse(X: np.ndarray | Sparse) -> Sparse:
    return X if isinstance(X, tuple) else _csr(np.ascontiguousarray(X))


@njit(cache=True)
def _sparse_matmul(starts, columns, values, B):
    """``X @ B`` (float64) for the :data:`Sparse` X, each entry summed in X's column order, as
    :func:`sumito.nn.matmul` does."""
    n = starts.shape[0] - 1
    p = B.shape[1]
    out = np.zeros((n, p), dtype=np.float64)
    for r in range(n):
        row = out[r]
        for q in range(starts[r], starts[r + 1]):
            a = values[q]
            b = B[columns[q]]
            for c in range(p):
                row[c] += a * b[c]
    return out


@njit(cache=True)
def _sparse_matmul_tn(starts, columns, values, B, m):
    """``X.T @ B`` (``m`` rows, float64) for the :data:`Sparse` X of ``m`` columns, each entry summed
    over X's rows in order, as :func:`sumito.nn.matmul` of ``X.T`` does."""
    n = starts.shape[0] - 1
    p = B.shape[1]
    out = np.zeros((m, p), dtype=np.float64)
    for r in range(n):
        b = B[r]
        for q in range(starts[r], starts[r + 1]):
            a = values[q]
            row = out[columns[q]]
            for c in range(p):
                row[c] += a * b[c]
    return out


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + tanh_array(np.ascontiguousarray(0.5 * z, dtype=np.float64)))


def normal(rng: np.random.Generator, scale: float, shape: int | tuple[int, ...]) -> np.ndarray:
    """Normal draws of mean 0 and standard deviation ``scale`` (Marsaglia's polar method, from
    ``rng``'s uniforms, ``np.sqrt`` and :mod:`sumito.nn`'s ``log``): ``rng.normal`` computes its tail
    (one draw in about 4,000) with libm's ``log1p``, which newer glibc picks by the CPU."""
    n = math.prod(shape) if isinstance(shape, tuple) else int(shape)
    parts, have = [np.zeros(0)], 0
    while have < n:
        pairs = (n - have + 1) // 2
        u = 2.0 * rng.random(pairs) - 1.0
        v = 2.0 * rng.random(pairs) - 1.0
        s = u * u + v * v
        inside = (s > 0.0) & (s < 1.0)
        u, v, s = u[inside], v[inside], s[inside]
        f = np.sqrt(-2.0 * log_array(s) / s)
        parts.append(np.column_stack([u * f, v * f]).ravel())
        have += parts[-1].size
    return scale * np.concatenate(parts)[:n].reshape(shape)


def _geomspace(start: float, stop: float, num: int) -> np.ndarray:
    """``np.geomspace(start, stop, num)`` through :mod:`sumito.nn`'s ``exp`` and ``log``."""
    logs = log_array(np.array([start, stop], dtype=np.float64))
    grid = exp_array(logs[0] + np.arange(num) * ((logs[1] - logs[0]) / (num - 1)))
    grid[0], grid[-1] = start, stop
    return grid


def fit_scale(score: np.ndarray, result: np.ndarray) -> float:
    """The ``K`` (engine points) at which ``σ(score / K)`` best predicts the results (log-loss)."""
    best, best_loss = 1000.0, math.inf
    for k in _geomspace(100.0, 20000.0, 60):
        p = np.clip(_sigmoid(score / k), 1e-6, 1 - 1e-6)
        loss = -np.mean(result * log_array(p) + (1 - result) * log_array(1 - p))
        if loss < best_loss:
            best, best_loss = float(k), loss
    return best


@dataclass
class TrainReport:
    epochs: int
    samples: int
    validation: int
    scale_k: float
    train_loss: float
    val_loss: float
    linear_val_loss: float
    seconds: float


def linear_scores(s: Samples, board_side: int) -> np.ndarray:
    """The hand-set linear evaluation of each sample, for the side to move (the baseline)."""
    geo = geometry(board_side)
    ev = named_evaluation("linear")
    raw, scratch = work_arrays()
    grid = geo.empty_grid
    out = np.empty(len(s), dtype=np.float64)
    for i in range(len(s)):
        grid[geo.cells] = s.boards[i]
        out[i] = evaluate(grid, int(s.side[i]), int(s.lost[i, 0]), int(s.lost[i, 1]), geo.cells, geo.ring,
                          geo.offsets, geo.side - 1, ev.kind, ev.params, raw, scratch)
    return out


def linear_psqt(board_side: int) -> np.ndarray:
    """The hand-set linear evaluation's per-marble terms (centre and edge) as PSQT values, in marbles:
    the network starts from them (adjacency and lines, which depend on pairs of marbles, are left to
    the hidden layers). Half on each perspective: PSQT(side to move) − PSQT(other) counts each twice."""
    geo = geometry(board_side)
    ring = geo.ring[geo.cells].astype(np.float64)
    material, centre, _adjacency, edge = LINEAR_DEFAULT[:4]
    value = (centre * ring + edge * (ring == board_side - 1)) / material  # what a marble there costs its side
    return np.concatenate([-value / 2, value / 2])  # own marbles, then opposing ones


class _Adam:
    def __init__(self, params: list[np.ndarray], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.b1t = self.b2t = 1.0  # b1**t and b2**t, a product a step: pow is libm's, CPU-dispatched

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        self.b1t *= b1
        self.b2t *= b2
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= self.lr * (m / (1 - self.b1t)) / (np.sqrt(v / (1 - self.b2t)) + 1e-8)


def _forward(P: dict, Xs: np.ndarray | Sparse, Xo: np.ndarray | Sparse, mat: np.ndarray,
             base: np.ndarray | float = 0.0):
    h = P["b1"].shape[0]
    first = np.hstack([P["W1"], P["psqt"][:, None]])  # the PSQT as one more column: one pass over the inputs
    sums_s, sums_o = _sparse_matmul(*_sparse(Xs), first), _sparse_matmul(*_sparse(Xo), first)
    a = np.concatenate([sums_s[:, :h] + P["b1"], sums_o[:, :h] + P["b1"]], axis=1)
    psqt = sums_s[:, h] - sums_o[:, h]
    x = np.clip(a, 0.0, 1.0)
    if P["W2"].shape[0]:
        # (W2 @ x.T).T: each sum in the order of W2's columns, as x @ W2.T; the inner loop runs over
        # the batch, long enough to vectorise
        z = np.ascontiguousarray(matmul(P["W2"], np.ascontiguousarray(x.T)).T) + P["b2"]
        g = np.clip(z, 0.0, 1.0)
    else:
        z = g = x
    out = matvec(g, P["w3"]) + P["b3"][0] + P["material"][0] * mat + psqt + base
    return a, x, z, g, out


def _loss_and_grads(P: dict, Xs, Xo, mat, target, k: float, grads: bool = True, base: np.ndarray | float = 0.0,
                    decay: float = 0.0):
    Xs, Xo = _sparse(Xs), _sparse(Xo)
    a, x, z, g, out = _forward(P, Xs, Xo, mat, base)
    pred = _sigmoid(out * SCALE / k)
    err = pred - target
    loss = float(np.mean(err * err))
    if not grads:
        return loss, None
    # weight decay pulls the output weights and the PSQT towards 0: towards the base evaluation where one
    # is given, and where the data says little
    n = len(target)
    dout = 2.0 * err * pred * (1.0 - pred) * (SCALE / k) / n
    column = dout[:, None]
    G = {"w3": matmul(g.T, column)[:, 0], "b3": np.array([dout.sum()]),
         "material": np.array([dot(dout, mat)])}
    if P["W2"].shape[0]:
        dz = np.outer(dout, P["w3"]) * ((z > 0.0) & (z < 1.0))
        G["W2"] = matmul(dz.T, x)
        G["b2"] = dz.sum(axis=0)
        dx = matmul(dz, P["W2"])
    else:
        G["W2"], G["b2"] = np.zeros_like(P["W2"]), np.zeros_like(P["b2"])
        dx = np.outer(dout, P["w3"])
    da = dx * ((a > 0.0) & (a < 1.0))
    h = P["b1"].shape[0]
    # each side's first-layer gradient with its PSQT gradient as one more column, as in _forward
    nf = P["W1"].shape[0]
    grad_s = _sparse_matmul_tn(*Xs, np.hstack([da[:, :h], column]), nf)
    grad_o = _sparse_matmul_tn(*Xo, np.hstack([da[:, h:], column]), nf)
    G["W1"] = grad_s[:, :h] + grad_o[:, :h]
    G["b1"] = da[:, :h].sum(axis=0) + da[:, h:].sum(axis=0)
    G["psqt"] = grad_s[:, h] - grad_o[:, h]
    if decay:
        for name in ("w3", "psqt", "W2"):
            G[name] = G[name] + decay * P[name]
    return loss, G


NAMES = ("W1", "b1", "W2", "b2", "w3", "b3", "material", "psqt")


def td_leaf_targets(score: np.ndarray, result: np.ndarray, game: np.ndarray, k: float, lam: float) -> np.ndarray:
    """TD-Leaf(λ)'s targets: for each position, the λ-return of the search values that follow it in its
    game, ``G_t = (1 − λ)·v'(t+1) + λ·G'(t+1)``, where ``v = σ(search score / K)`` is the searched value
    (the PV leaf's evaluation) for the side to move and a prime is the same number for the other side
    (``1 − x``: the sides alternate every ply); the game's last position takes its result. ``λ = 1``
    is the result alone (Monte Carlo), ``λ = 0`` the next search's value alone. Positions must come in
    game order, as chunks keep them (all of them, quiet or not: a noisy position's search value is
    as good a bootstrap as any)."""
    value = _sigmoid(score.astype(np.float64) / k)
    target = np.empty(len(value), dtype=np.float64)
    for i in range(len(value) - 1, -1, -1):
        if i == len(value) - 1 or game[i + 1] != game[i]:
            target[i] = result[i]
        else:
            target[i] = (1.0 - lam) * (1.0 - value[i + 1]) + lam * (1.0 - target[i + 1])
    return target


#: what a network is fitted to: ``mix``, λ·σ(its own search's score / K) + (1 − λ)·result (Stockfish's
#: trainer's); ``tdleaf``, TD-Leaf(λ)'s λ-returns of the following searches' values (:func:`td_leaf_targets`)
TARGETS = ("mix", "tdleaf")


def train(samples: Samples, hidden: int = 32, hidden2: int = 16, epochs: int = 20, lam: float = 0.5,
          lr: float = 1e-3, batch: int = 1024, seed: int = 1, quiet_only: bool = True, validation: float = 0.05,
          scale_k: float | None = None, base: bool = True, decay: float = 1e-3, init: NNUE | None = None,
          targets: str = "mix", log: Callable[[str], None] | None = None,
          stop: Callable[[], bool] | None = None,
          progress: Callable[[int, int], None] | None = None) -> tuple[NNUE, TrainReport]:
    """Fit an NNUE to ``samples`` (see the module's docstring); returns it and a report. With ``base``
    the network is a correction of the hand-set linear evaluation (it starts as that evaluation);
    without, it starts from the linear evaluation's cell terms alone (its PSQT) and a marble's value;
    with ``init`` (a network without a base, of the sizes asked for), from that network's weights (a
    warm start: the self-taught line's, :mod:`sumito.learn.selftaught`, which knows no hand-set term).
    ``targets`` (:data:`TARGETS`) says what the network is fitted to, ``lam`` its λ.
    ``progress(done, total)`` is called after each batch: the batches done, and those of all the epochs."""
    start = time.perf_counter()
    log = log or (lambda _: None)
    if targets not in TARGETS:
        raise NNUEDataError(f"targets {targets!r}: expected one of {', '.join(TARGETS)}")
    if targets == "tdleaf":  # the λ-returns need every position of a game, in order: before the quiet ones are kept
        k_all = scale_k or fit_scale(samples.score.astype(np.float64), samples.result.astype(np.float64))
        returns = td_leaf_targets(samples.score, samples.result, samples.game, k_all, lam).astype(np.float32)
        samples = replace(samples, result=returns)  # fitted below with the result's whole weight
        scale_k = k_all  # K from the results, before they were replaced
    data = samples.take(samples.quiet) if quiet_only else samples
    if len(data) < 100:
        raise NNUEDataError(f"{len(data)} usable samples; train on at least 100")
    board_side = _side_of_cells(data.boards.shape[1])
    rng = np.random.default_rng(seed)
    games = np.unique(data.game)
    held = set(rng.choice(games, size=max(1, int(len(games) * validation)), replace=False).tolist())
    is_val = np.array([g in held for g in data.game])
    tr, va = data.take(~is_val), data.take(is_val)
    k = scale_k or fit_scale(tr.score.astype(np.float64), tr.result.astype(np.float64))
    log(f"{len(tr)} training and {len(va)} validation positions; K = {k:.0f} points")

    mix = lam if targets == "mix" else 0.0

    def target_of(s: Samples) -> np.ndarray:
        return mix * _sigmoid(s.score.astype(np.float64) / k) + (1 - mix) * s.result.astype(np.float64)

    def material(s: Samples) -> np.ndarray:
        me = np.where(s.side == 1, s.lost[:, 0], s.lost[:, 1]).astype(np.float64)
        op = np.where(s.side == 1, s.lost[:, 1], s.lost[:, 0]).astype(np.float64)
        return op - me

    nf = n_features(board_side)
    P = {
        "W1": normal(rng, 0.5 / math.sqrt(14), (nf, hidden)),
        "b1": np.full(hidden, 0.5),
        "W2": normal(rng, 1.0 / math.sqrt(2 * hidden), (hidden2, 2 * hidden)),
        "b2": np.full(hidden2, 0.5),
        "w3": normal(rng, 0.01, hidden2 if hidden2 else 2 * hidden),  # start near the PSQT alone
        "b3": np.zeros(1),
        "material": np.zeros(1) if base else np.ones(1),
        "psqt": np.zeros(nf) if base else linear_psqt(board_side),
    }
    if init is not None:
        if base or init.base is not None:
            raise NNUEDataError("a warm start is for a network without a base evaluation (base=False)")
        if init.hidden != (hidden, hidden2) or init.side != board_side:
            raise NNUEDataError(f"the network to start from has layers {init.hidden} on the side-{init.side} "
                                f"board, not {(hidden, hidden2)} on side {board_side}")
        P = {"W1": init.W1.copy(), "b1": init.b1.copy(), "W2": init.W2.copy(), "b2": init.b2.copy(),
             "w3": init.w3.copy(), "b3": np.array([init.b3]), "material": np.array([init.material]),
             "psqt": init.psqt.copy()}
    opt = _Adam([P[n] for n in NAMES], lr)
    Xs_va, Xo_va = sparse_features(va.boards, va.side, board_side)
    t_va, m_va = target_of(va), material(va)
    linear_va = linear_scores(va, board_side)
    linear_err = _sigmoid(linear_va / k) - t_va
    linear_loss = float(np.mean(linear_err * linear_err))
    base_va = linear_va / SCALE if base else 0.0
    base_tr = linear_scores(tr, board_side) / SCALE if base else np.zeros(len(tr))
    perms = symmetries(board_side)
    t_tr, m_tr = target_of(tr), material(tr)
    train_loss = val_loss = math.nan
    batches = math.ceil(len(tr) / batch)
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(tr))
        total, count = 0.0, 0
        for lo in range(0, len(order), batch):
            idx = order[lo : lo + batch]
            sym = perms[rng.integers(0, len(perms), len(idx))]
            boards = np.empty_like(tr.boards[idx])
            # the board under a random symmetry: the marble of cell i goes to cell perm[i]
            np.put_along_axis(boards, sym, tr.boards[idx], axis=1)
            Xs, Xo = sparse_features(boards, tr.side[idx], board_side)
            loss, G = _loss_and_grads(P, Xs, Xo, m_tr[idx], t_tr[idx], k, base=base_tr[idx], decay=decay)
            opt.step([G[n] for n in NAMES])
            total += loss * len(idx)
            count += len(idx)
            if progress is not None:
                progress((epoch - 1) * batches + lo // batch + 1, epochs * batches)
            if stop is not None and stop():
                break
        train_loss = total / max(count, 1)
        val_loss, _ = _loss_and_grads(P, Xs_va, Xo_va, m_va, t_va, k, grads=False, base=base_va)
        log(f"epoch {epoch}: training loss {train_loss:.5f}, validation {val_loss:.5f} "
            f"(the linear evaluation: {linear_loss:.5f})")
        if stop is not None and stop():
            break
    metadata = {"targets": targets, "lambda": lam, "K": k, "epochs": epochs, "samples": len(tr), "seed": seed,
                "decay": decay,
                "validation_loss": val_loss, "linear_validation_loss": linear_loss}
    net = NNUE(P["W1"], P["b1"], P["W2"], P["b2"], P["w3"], float(P["b3"][0]), float(P["material"][0]),
               psqt=P["psqt"], side=board_side, metadata=metadata,
               base=np.array(LINEAR_DEFAULT) if base else None)
    report = TrainReport(epochs, len(tr), len(va), k, train_loss, val_loss, linear_loss,
                         time.perf_counter() - start)
    return net, report


__all__ = ["TARGETS", "ChunkTask", "NNUEDataError", "Samples", "TrainReport", "generate", "load_samples",
           "normal", "play_chunk", "td_leaf_targets", "train"]
