"""Data for the engine's NNUE (:mod:`sumito.evaluation.nnue`): self-play games with search scores and results.

:func:`generate` (``sumito nnue gen``) plays self-play games of a search player (by default
:data:`NNUE_DATA_PLAYER`: the hand-set linear evaluation and the search the shipped data came from, the
search without the threat search, the game's draw rules or converting, one thread), each from an opening of the suite
(:mod:`sumito.arena.openings`) followed by a few uniformly random quiet plies so that no two
games are alike. Every position before a move is kept with the search's score of it (for the side
to move, engine points: deeper-search targets), whether it is *quiet* (the side to move has no
push-off: a static evaluation can be right about it), and, once the game ends, its result for the
side to move (1, ½, 0). Games come in chunks, one work item each on the executor (processes or
Ray); a chunk's samples are written atomically to ``chunk-NNNNN.npz`` in the data folder, so a
killed run goes on from the chunks it has (and removes the temporary file a kill may leave), after checking
that each was made with the run's settings (the folder's ``config.json`` and each chunk's header record them).
:func:`load_samples` reads data folders back as :class:`~sumito.models.nnue_fit.Samples`, which
:func:`sumito.models.nnue_fit.fit` fits a network to.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import io
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sumito.arena.executor import InlineExecutor
from sumito.arena.openings import load_openings, random_quiet_moves
from sumito.defaults import NNUE_DATA_PLAYER
from sumito.fileio import atomic_write_bytes, read_file_bounded, read_npz_with_header, refuse_changed, shown_path
from sumito.games.abalone import Game, Move, Position
from sumito.games.abalone.kernels import MAX_MOVES, generate_push_offs
from sumito.learn.runfolder import RunFolder
from sumito.models.nnue_fit import DATA_ARRAYS, NNUEDataError, Samples
from sumito.players import make_player
from sumito.players.base import MAX_SEARCH_DEPTH, game_history

CHUNK_FORMAT = "sumito-nnue-data"
MAX_CHUNK_BYTES = 256 * 2**20
SCORE_CLIP = 8000.0  # a won or lost score counts as 8 marbles (more than any game has in hand)





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


def generate(folder: str | Path, games: int, player: str = NNUE_DATA_PLAYER, seed: int = 1,
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


















































