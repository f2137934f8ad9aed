"""Fitting the engine's NNUE (:mod:`sumito.evaluation.nnue`) to positions with search scores and results.

:func:`fit` fits a network to :class:`Samples` (``sumito nnue train``; the data are made by
:mod:`sumito.learn.nnue`) as :class:`FitSettings` say. The network's score ``s`` is fitted in win-probability
space, as Stockfish's trainer does: minimise the squared difference between ``σ(s / K)`` and
``λ·σ(search score / K) + (1 − λ)·result``, ``K`` fitted to the data (the scale at which the search's scores
best predict the results); with ``targets="tdleaf"`` the target is each position's TD-Leaf(λ) return
(:func:`td_leaf_targets`). Each sample is seen under a random one of the board's 12 symmetries (the rules and so
the value are the same under each). Adam, minibatches, a validation split by game; the report gives the
validation loss beside the loss of the hand-set linear evaluation on the same positions, so a network that
learned nothing shows it. numpy and numba only: the network is small enough that a framework gains nothing on a
CPU (and the fit needs no GPU).

**The same network for the same seed on every x86-64 CPU** (see :mod:`sumito.nn`): the products are
loops summed in a fixed order (:func:`sumito.nn.matmul`, also of a transpose, and over the one-hot
inputs' nonzeros alone :func:`~sumito.models.nnue_features.sparse_matmul` and
:func:`~sumito.models.nnue_features.sparse_matmul_tn`) rather than BLAS, whose kernel and so sums' order depend
on the CPU; the sigmoid, logarithms, the scale grid and the initial weights' normal draws (:func:`normal`) use
:mod:`sumito.nn`'s ``tanh``, ``log`` and ``exp`` rather than numpy's or libm's CPU-dispatched ones; Adam's bias
corrections are running products, not ``pow``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from sumito.defaults import NNUE_TARGETS
from sumito.errors import SumitoError
from sumito.evaluation import LINEAR_DEFAULT, named_evaluation
from sumito.evaluation.features import evaluate, work_arrays
from sumito.evaluation.nnue import NNUE, SCALE, n_features, symmetries
from sumito.games.abalone.geometry import geometry
from sumito.models.nnue_features import Sparse, as_sparse, sparse_features, sparse_matmul, sparse_matmul_tn
from sumito.nn import dot, exp_array, log_array, matmul, matvec, tanh_array

DATA_ARRAYS = ("boards", "side", "lost", "score", "result", "quiet", "game")


class NNUEDataError(SumitoError):
    """A data folder or chunk that cannot be used."""


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
class FitReport:
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
    sums_s, sums_o = sparse_matmul(*as_sparse(Xs), first), sparse_matmul(*as_sparse(Xo), first)
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
    Xs, Xo = as_sparse(Xs), as_sparse(Xo)
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
    grad_s = sparse_matmul_tn(*Xs, np.hstack([da[:, :h], column]), nf)
    grad_o = sparse_matmul_tn(*Xo, np.hstack([da[:, h:], column]), nf)
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




@dataclass(frozen=True)
class FitSettings:
    """How :func:`fit` fits a network (the module's docstring says what each does)."""

    hidden: int = 32  #: the first hidden layer's width (one for each perspective)
    hidden2: int = 16  #: the second hidden layer's width (0: none)
    epochs: int = 20  #: passes over the training positions
    lam: float = 0.5  #: λ: the search score's weight against the result (``mix``), or TD-Leaf's λ (``tdleaf``)
    lr: float = 1e-3  #: Adam's step size
    batch: int = 1024  #: positions a minibatch
    seed: int = 1  #: the seed of the split, the initial weights, the order and the symmetries
    quiet_only: bool = True  #: fit only the quiet positions (no push-off for the side to move)
    validation: float = 0.05  #: the share of games held out for the validation loss
    scale_k: float | None = None  #: K, the scale of the win probability; None: fitted to the data
    base: bool = True  #: a correction of the hand-set linear evaluation (else from its PSQT alone)
    decay: float = 1e-3  #: the weight decay
    targets: str = "mix"  #: what the network is fitted to (:data:`NNUE_TARGETS`)


def fit(samples: Samples, settings: FitSettings = FitSettings(), *, init: NNUE | None = None,
        log: Callable[[str], None] | None = None, stop: Callable[[], bool] | None = None,
        progress: Callable[[int, int], None] | None = None) -> tuple[NNUE, FitReport]:
    """Fit an NNUE to ``samples`` (see the module's docstring); returns it and a report. With ``base``
    the network is a correction of the hand-set linear evaluation (it starts as that evaluation);
    without, it starts from the linear evaluation's cell terms alone (its PSQT) and a marble's value;
    with ``init`` (a network without a base, of the sizes asked for), from that network's weights (a
    warm start: the self-taught line's, :mod:`sumito.learn.selftaught`, which knows no hand-set term).
    ``targets`` (:data:`NNUE_TARGETS`) says what the network is fitted to, ``lam`` its λ.
    ``progress(done, total)`` is called after each batch: the batches done, and those of all the epochs."""
    hidden, hidden2, epochs, lam, lr, batch = (settings.hidden, settings.hidden2, settings.epochs, settings.lam,
                                              settings.lr, settings.batch)
    seed, quiet_only, validation, scale_k = settings.seed, settings.quiet_only, settings.validation, settings.scale_k
    base, decay, targets = settings.base, settings.decay, settings.targets
    start = time.perf_counter()
    log = log or (lambda _: None)
    if targets not in NNUE_TARGETS:
        raise NNUEDataError(f"targets {targets!r}: expected one of {', '.join(NNUE_TARGETS)}")
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
    report = FitReport(epochs, len(tr), len(va), k, train_loss, val_loss, linear_loss,
                         time.perf_counter() - start)
    return net, report

def _side_of_cells(n_cells: int) -> int:
    for side in (3, 4, 5, 6, 7, 8, 9):
        if 3 * side * (side - 1) + 1 == n_cells:
            return side
    raise NNUEDataError(f"no hexagonal board has {n_cells} cells")
