"""The zero learner's loop: self-play games whose moves a tree search chooses, a replay window of their
positions, and a policy-value network fitted to the searches' policies and the games' results.

One *iteration* plays ``games`` self-play games with the current network (spread over the arena's executor,
in chunks that carry their own seeds), adds their positions to the replay window (the newest ``window``
positions), then takes ``steps`` Adam steps on batches drawn uniformly from the window, each position seen
through one of the board's 12 symmetries drawn at random. The loss is the cross-entropy of the network's
policy against the search's policy target plus ``value_weight`` times the squared error of its value against
the game's result (or, with ``value_mix``, a mix of the result and the search's value at the root). A
share ``random_starts`` of the games begins from a position drawn uniformly at random (each side's lost
marbles, then its marbles' cells), the rest from the layout's start: every position the
learner sees comes from the rules alone.

A run is a folder (:class:`~sumito.learn.runfolder.RunFolder`): ``config.json`` (the settings, a resume that
changes one is refused), ``checkpoint.npz`` (the network, Adam's moments, the replay window and the counters,
written atomically after every iteration), ``net.npz`` (the latest network) and ``curve.csv`` (a row for every
test). Every random number of iteration *i* comes from the run's seed and *i*, so a run resumed after a kill
gives the same weights, bit for bit, as one never stopped; and a chunk's games depend on its seeds only, so
the number of workers changes nothing.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sumito.arena.executor import Executor, InlineExecutor
from sumito.defaults import ZERO_SEARCH_MODES
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_bytes, read_file_bounded, read_npz_with_header
from sumito.games.abalone import kernels as K
from sumito.games.abalone.geometry import geometry, symmetries
from sumito.games.abalone.position import Position
from sumito.games.abalone.variants import get_layout
from sumito.learn.runfolder import RunFolder
from sumito.learn.settings import ZeroSettings
from sumito.models.zero.network import PolicyValueNetwork, adam_step, batch_gradient
from sumito.models.zero.search import workspace
from sumito.models.zero.selfplay import play_game, random_position
from sumito.rlcore.actions import action_space
from sumito.rlcore.symmetry import board_symmetries

CURVE_FIELDS = ("iteration", "games", "positions", "cpu_seconds", "wall_seconds", "policy_loss", "value_loss",
                "player", "suite", "kept", "optimal", "win_to_draw", "win_to_loss", "draw_to_loss")
#: the largest checkpoint read back (the replay window of a big run)
MAX_CHECKPOINT_BYTES = 2**31
FORMAT = 1


class ZeroRunError(SumitoError):
    """A zero run that cannot start or go on (a bad folder, a changed setting, a damaged checkpoint)."""


def discount_powers(discount: float, n: int) -> np.ndarray:
    """``discount ** k`` for k = 0..n, by repeated products (numpy's power may differ between CPUs in its last
    bit; a product of two doubles does not)."""
    out = np.ones(n + 1)
    for k in range(1, n + 1):
        out[k] = out[k - 1] * discount
    return out


def game_seed(seed: int, iteration: int, game: int) -> int:
    """The seed of one self-play game: from the run's seed, the iteration and the game's number."""
    return int(np.random.SeedSequence([seed, iteration, game, 0x5E1F]).generate_state(2, np.uint32).view(np.uint64)[0])


@dataclass(frozen=True)
class Chunk:
    """A work item: ``n`` games from game number ``first`` of ``iteration``, with the network ``theta``."""

    settings: ZeroSettings
    theta: np.ndarray
    iteration: int
    first: int
    n: int


@dataclass
class Samples:
    """Positions with their targets, ragged: sample ``r``'s active inputs are
    ``feats[feat_start[r]:feat_start[r + 1]]``, its legal actions and policy target the same span of ``legal``
    and ``targets``, its value target ``values[r]``."""

    feats: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int16))
    feat_start: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    legal: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int16))
    legal_start: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    targets: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    values: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))

    def __len__(self) -> int:
        return len(self.values)

    @staticmethod
    def join(parts: list[Samples]) -> Samples:
        parts = [p for p in parts if len(p)]
        if not parts:
            return Samples()
        feat_starts, legal_starts = [np.zeros(1, dtype=np.int64)], [np.zeros(1, dtype=np.int64)]
        f = g = 0
        for p in parts:
            feat_starts.append(p.feat_start[1:] - p.feat_start[0] + f)
            legal_starts.append(p.legal_start[1:] - p.legal_start[0] + g)
            f += int(p.feat_start[-1] - p.feat_start[0])
            g += int(p.legal_start[-1] - p.legal_start[0])
        return Samples(np.concatenate([p.feats[p.feat_start[0]:p.feat_start[-1]] for p in parts]),
                       np.concatenate(feat_starts),
                       np.concatenate([p.legal[p.legal_start[0]:p.legal_start[-1]] for p in parts]),
                       np.concatenate(legal_starts),
                       np.concatenate([p.targets[p.legal_start[0]:p.legal_start[-1]] for p in parts]),
                       np.concatenate([p.values for p in parts]))

    def last(self, n: int) -> Samples:
        """The newest ``n`` samples."""
        if len(self) <= n:
            return self
        r = len(self) - n
        fs, ls = self.feat_start[r:], self.legal_start[r:]
        return Samples(self.feats[fs[0]:fs[-1]], fs - fs[0], self.legal[ls[0]:ls[-1]], ls - ls[0],
                       self.targets[ls[0]:ls[-1]], self.values[r:])

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {prefix + k: v for k, v in asdict(self).items()}


@dataclass
class ChunkResult:
    samples: Samples
    winners: list[int]
    plies: list[int]
    cpu_seconds: float


def play_chunk(chunk: Chunk) -> ChunkResult:
    """Play one chunk's self-play games (a module-level function: the executor sends it to its workers)."""
    started = time.process_time()
    s = chunk.settings
    start = Position.start(s.layout, inline_only=s.inline_only)
    v = start.variant
    geo = geometry(v.side)
    net = PolicyValueNetwork(v.side, v.win_threshold, s.h1, s.h2, chunk.theta)
    lookup = action_space(v.side).lookup
    ws = workspace(s.sims, geo.width ** 2, s.h1, s.h2)
    out = (np.zeros(K.MAX_MOVES, dtype=np.int64), np.zeros(K.MAX_MOVES, dtype=np.int32), np.zeros(K.MAX_MOVES),
           np.zeros(K.MAX_MOVES))
    cap = s.max_plies
    feats = np.zeros(cap * (2 * geo.n_cells + 2), dtype=np.int64)
    feat_start = np.zeros(cap + 1, dtype=np.int64)
    legal = np.zeros(cap * K.MAX_MOVES, dtype=np.int64)
    legal_start = np.zeros(cap + 1, dtype=np.int64)
    targets = np.zeros(cap * K.MAX_MOVES)
    sides = np.zeros(cap, dtype=np.int64)
    root_values = np.zeros(cap)
    state = np.zeros(1, dtype=np.uint64)
    parts, winners, plies = [], [], []
    mode = ZERO_SEARCH_MODES.index(s.mode)
    for g in range(chunk.first, chunk.first + chunk.n):
        state[0] = np.uint64(game_seed(s.seed, chunk.iteration, g))
        board = geo.empty_grid
        if g % 1000 < round(1000 * s.random_starts):  # the same share in every chunk, whatever its size
            lost_black, lost_white = random_position(geo.cells, v.marbles, v.win_threshold, state, board)
        else:
            board, lost_black, lost_white = start.grid.copy(), start.lost[0], start.lost[1]
        n, winner, n_plies = play_game(board, 1, lost_black, lost_white, cap, net.theta, net.offsets, s.h1, s.h2,
                                       geo.cells, geo.offsets, geo.zobrist, v.inline_only, v.win_threshold, lookup,
                                       s.sims, mode, s.considered, s.c_visit, s.c_scale, s.c_puct, s.discount,
                                       s.dirichlet_alpha, s.dirichlet_frac, s.sample_plies, state, *ws, *out, feats,
                                       feat_start, legal, legal_start, targets, sides, root_values)
        values = np.zeros(n, dtype=np.float32)
        if winner:
            values[:] = np.where(sides[:n] == winner, 1.0, -1.0)
            if s.discount != 1.0:
                values *= discount_powers(s.discount, n_plies)[n_plies - np.arange(n)].astype(np.float32)
        if s.value_mix > 0.0:
            values = ((1.0 - s.value_mix) * values + s.value_mix * root_values[:n]).astype(np.float32)
        parts.append(Samples(feats[:feat_start[n]].astype(np.int16), feat_start[:n + 1].copy(),
                             legal[:legal_start[n]].astype(np.int16), legal_start[:n + 1].copy(),
                             targets[:legal_start[n]].astype(np.float32), values))
        winners.append(int(winner))
        plies.append(int(n_plies))
    return ChunkResult(Samples.join(parts), winners, plies, time.process_time() - started)


class Learner:
    """The network, Adam's state and the replay window of one run, and how it learns (see the module)."""

    def __init__(self, settings: ZeroSettings) -> None:
        self.settings = s = settings
        v = Position.start(s.layout, inline_only=s.inline_only).variant
        self.network = PolicyValueNetwork(v.side, v.win_threshold, s.h1, s.h2, seed=s.seed)
        self.m = np.zeros_like(self.network.theta)
        self.v = np.zeros_like(self.network.theta)
        self.power1 = 1.0
        self.power2 = 1.0
        self.iteration = 0
        self.games = 0
        self.positions = 0
        self.cpu_seconds = 0.0
        self.wall_seconds = 0.0
        self.replay = Samples()
        self.losses = (float("nan"), float("nan"))
        self.stamp()
        sym = board_symmetries(v.side)
        self.maps_cell = np.ascontiguousarray(symmetries(v.side), dtype=np.int64)
        self.maps_action = np.ascontiguousarray(sym.action_map, dtype=np.int64)

    def stamp(self) -> None:
        """Record in the network what it is: its games, iteration and the run's settings (its search mode)."""
        self.network.metadata = dict(games=self.games, iteration=self.iteration, settings=asdict(self.settings))

    def chunks(self) -> list[Chunk]:
        s = self.settings
        theta = self.network.theta.copy()
        return [Chunk(s, theta, self.iteration, first, min(s.chunk, s.games - first))
                for first in range(0, s.games, s.chunk)]

    def add(self, results: list[ChunkResult]) -> None:
        new = Samples.join([r.samples for r in results])
        self.replay = Samples.join([self.replay, new]).last(self.settings.window)
        self.games += sum(len(r.winners) for r in results)
        self.positions += len(new)
        self.cpu_seconds += sum(r.cpu_seconds for r in results)

    def train(self) -> None:
        started = time.process_time()
        s = self.settings
        rng = np.random.default_rng([s.seed, self.iteration, 0x7A11])
        grad = np.zeros_like(self.network.theta)
        net = self.network
        r = self.replay
        feats = r.feats.astype(np.int64)
        legal = r.legal.astype(np.int64)
        targets = r.targets.astype(np.float64)
        values = r.values.astype(np.float64)
        total_p = total_v = 0.0
        lr = s.lr * (s.lr_drop if s.lr_drop_at and self.games >= s.lr_drop_at else 1.0)
        for _ in range(s.steps):
            rows = rng.integers(0, len(r), s.batch)
            syms = rng.integers(0, 12, s.batch)
            lp, lv = batch_gradient(net.theta, net.offsets, s.h1, s.h2, feats, r.feat_start, legal, r.legal_start,
                                    targets, values, rows, self.maps_cell, self.maps_action, syms, s.value_weight, grad)
            self.power1 *= 0.9
            self.power2 *= 0.999
            adam_step(net.theta, grad, self.m, self.v, lr, 0.9, 0.999, 1e-8, s.weight_decay, self.power1,
                      self.power2)
            total_p += lp
            total_v += lv
        self.losses = (total_p / s.steps, total_v / s.steps)
        self.iteration += 1
        self.cpu_seconds += time.process_time() - started

    def iterate(self, executor: Executor, on_chunk: Callable[[ChunkResult], None] | None = None) -> None:
        """One iteration: the self-play games, then the training steps."""
        chunks = self.chunks()
        results: list[ChunkResult | None] = [None] * len(chunks)
        for i, result in executor.run(play_chunk, chunks):
            results[i] = result
            if on_chunk is not None:
                on_chunk(result)
        self.add([r for r in results if r is not None])  # in the chunks' order, whatever order they ended in
        self.train()

    # ------------------------------------------------------------------ the checkpoint
    def state(self) -> dict[str, Any]:
        return dict(format=FORMAT, iteration=self.iteration, games=self.games, positions=self.positions,
                    cpu_seconds=self.cpu_seconds, wall_seconds=self.wall_seconds, power1=self.power1,
                    power2=self.power2, losses=list(self.losses), network=self.network.header())

    def save(self, path: Path) -> None:
        out = io.BytesIO()
        np.savez_compressed(out, meta=np.array(json.dumps(self.state())), theta=self.network.theta, m=self.m,
                            v=self.v, **self.replay.arrays("replay_"))
        atomic_write_bytes(path, out.getvalue())

    def load(self, path: Path) -> None:
        try:
            data = read_file_bounded(path, MAX_CHECKPOINT_BYTES, "zero checkpoint")
            meta, arrays = read_npz_with_header(data, str(path), MAX_CHECKPOINT_BYTES, None, "zero checkpoint")
        except ValueError as exc:
            raise ZeroRunError(str(exc)) from None
        names = ["theta", "m", "v", *("replay_" + k for k in asdict(Samples()))]
        missing = [n for n in names if n not in arrays]
        if meta.get("format") != FORMAT or missing:
            raise ZeroRunError(f"{path}: not a zero checkpoint of format {FORMAT}"
                               + (f" (no {missing[0]})" if missing else ""))
        theta = arrays["theta"]
        if theta.shape != self.network.theta.shape or arrays["m"].shape != theta.shape:
            raise ZeroRunError(f"{path}: the checkpoint's network is not this run's")
        try:
            replay = Samples(*(arrays["replay_" + k] for k in asdict(Samples())))
            _check_samples(replay, self.network)
            self.iteration, self.games, self.positions = (int(meta[k]) for k in ("iteration", "games", "positions"))
            self.cpu_seconds, self.wall_seconds = float(meta["cpu_seconds"]), float(meta["wall_seconds"])
            self.power1, self.power2 = float(meta["power1"]), float(meta["power2"])
            self.losses = tuple(float(x) for x in meta["losses"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ZeroRunError(f"{path}: a damaged zero checkpoint ({exc})") from None
        self.network.theta[:] = theta
        self.stamp()
        self.m[:] = arrays["m"]
        self.v[:] = arrays["v"]
        self.replay = replay


def _check_samples(r: Samples, net: PolicyValueNetwork) -> None:
    """That the replay window read from a file indexes only inside itself (the kernels do not check)."""
    n = len(r.values)
    ok = (r.feat_start.shape == (n + 1,) and r.legal_start.shape == (n + 1,) and r.feat_start[0] == 0
          and r.legal_start[0] == 0 and np.all(np.diff(r.feat_start) >= 0) and np.all(np.diff(r.legal_start) > 0)
          and r.feat_start[-1] == len(r.feats) and r.legal_start[-1] == len(r.legal) == len(r.targets)
          and np.all(np.diff(r.feat_start) <= 2 * geometry(net.side).n_cells + 2)
          and np.all(np.diff(r.legal_start) <= K.MAX_MOVES)
          and (len(r.feats) == 0 or (r.feats.min() >= 0 and r.feats.max() < net.n_inputs))
          and (len(r.legal) == 0 or (r.legal.min() >= 0 and r.legal.max() < net.n_actions))
          and np.all(np.isfinite(r.targets)) and np.all(np.abs(r.values) <= 1.0))
    if not ok:
        raise ValueError("its replay window does not hold this board's positions")


def open_run(folder: str | Path, settings: ZeroSettings, resume: bool) -> tuple[RunFolder, Learner]:
    """The run in ``folder``: a new one (refused over an old run) or, with ``resume``, the old one with the same
    settings (a changed one is refused in one line)."""
    run = RunFolder(folder, CURVE_FIELDS, ZeroRunError)
    run.check(resume, "add --resume to go on with it, or choose a new folder")
    run.open()
    wanted = asdict(settings)
    learner = Learner(settings)
    if resume:
        run.check_settings(wanted)
        if run.checkpoint.exists():
            learner.load(run.checkpoint)
    else:
        get_layout(settings.layout)  # a bad layout is refused before anything is written
        run.write_config(wanted)
    return run, learner


def iterations(run: RunFolder, learner: Learner, executor: Executor | None, until_games: int,
               on_chunk: Callable[[ChunkResult], None] | None = None,
               cpu_budget: float | None = None) -> Iterator[Learner]:
    """Iterate until ``until_games`` self-play games (or, with ``cpu_budget``, until that many CPU-seconds in
    all), checkpointing after every iteration; yields the learner after each (for tests and reports)."""
    executor = executor or InlineExecutor()
    while learner.games < until_games and (cpu_budget is None or learner.cpu_seconds < cpu_budget):
        started = time.monotonic()
        learner.iterate(executor, on_chunk)
        learner.wall_seconds += time.monotonic() - started
        learner.save(run.checkpoint)
        learner.stamp()
        learner.network.save(run.path / "net.npz")
        yield learner
