"""The zero learner's policy-value network, its compiled forward pass, gradient and Adam step.

The network sees a position from the side to move: one input per cell for its own marbles, one per cell for
the other side's, and one-hot counts of the marbles each side has lost (``win`` inputs each: 0 .. win − 1
lost). Every input is 0 or 1, so a position is the list of its active inputs (:func:`encode`). Two hidden
layers of rectified units feed two heads: a logit for every action of the board's fixed action space
(:mod:`sumito.rlcore.actions`; only the legal ones are ever computed) and a value in (−1, 1) for the side to
move (tanh).

The parameters are one flat float64 vector, in the order W1 [n_in, h1], b1 [h1], W2 [h1, h2], b2 [h2],
Wp [n_actions, h2], bp [n_actions], wv [h2], bv [1] (:func:`layout`).

**The same bits on every x86-64 CPU**, as :mod:`sumito.nn` promises for the other learners: every sum runs in
a fixed index order, no multiply-add is fused, no BLAS, and the exponential and tanh are :mod:`sumito.nn`'s
own. The loops that the compiler vectorises run over independent outputs (a hidden layer's units), never
across one sum.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from sumito import nn
from sumito.bounds import MAX_ZERO_HIDDEN
from sumito.errors import SumitoError
from sumito.evaluation.zero_value import ENCODING_ZERO, ZERO_SCALE, dot, hidden_layers
from sumito.fileio import atomic_write_bytes, check_weights, read_file_bounded, read_npz_with_header, shown_path
from sumito.games.abalone.geometry import geometry
from sumito.jit import njit
from sumito.rlcore.actions import action_space

#: the search's work array holds both hidden layers and the active inputs when the engine evaluates with a network
SEARCH_SCRATCH = 2048


def n_inputs(n_cells: int, win: int) -> int:
    return 2 * n_cells + 2 * win


def layout(n_in: int, h1: int, h2: int, n_actions: int) -> np.ndarray:
    """The offsets of the eight parts in the flat vector (and its length last): int64 [9]."""
    sizes = [n_in * h1, h1, h1 * h2, h2, n_actions * h2, n_actions, h2, 1]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def init_parameters(n_in: int, h1: int, h2: int, n_actions: int, rng: np.random.Generator) -> np.ndarray:
    """He-uniform weights for the rectified layers, small policy and value weights, zero biases: uniform draws
    only (a uniform double is exact on every CPU)."""
    off = layout(n_in, h1, h2, n_actions)
    theta = np.zeros(int(off[-1]), dtype=np.float64)
    theta[off[0]:off[1]] = rng.uniform(-1.0, 1.0, off[1] - off[0]) * np.sqrt(6.0 / 12.0)  # ~12 active inputs
    theta[off[2]:off[3]] = rng.uniform(-1.0, 1.0, off[3] - off[2]) * np.sqrt(6.0 / h1)
    theta[off[4]:off[5]] = rng.uniform(-1.0, 1.0, off[5] - off[4]) * (0.1 / np.sqrt(h2))
    theta[off[6]:off[7]] = rng.uniform(-1.0, 1.0, off[7] - off[6]) * (0.1 / np.sqrt(h2))
    return theta


@njit(cache=True)
def evaluate(theta, off, h1, h2, active, n_active, actions, n_actions, logits, a1, a2):
    """The value for the side to move, and the logits of the ``n_actions`` actions listed in ``actions`` into
    ``logits``; ``a1``, ``a2``: scratch of h1 and h2."""
    hidden_layers(theta[off[0]:off[1]], theta[off[1]:off[2]], theta[off[2]:off[3]], theta[off[3]:off[4]], h1, h2,
                  active, n_active, a1, a2)
    Wp = theta[off[4]:off[5]]
    bp = theta[off[5]:off[6]]
    for t in range(n_actions):
        a = actions[t]
        logits[t] = bp[a] + dot(Wp[a * h2:(a + 1) * h2], a2, h2)
    return nn.tanh(theta[off[7]] + dot(theta[off[6]:off[7]], a2, h2))


@njit(cache=True)
def softmax(logits, n, out):
    """The softmax of the first ``n`` logits into ``out`` (max-shifted; :func:`sumito.nn.exp`)."""
    top = logits[0]
    for t in range(1, n):
        if logits[t] > top:
            top = logits[t]
    total = 0.0
    for t in range(n):
        e = nn.exp(logits[t] - top)
        out[t] = e
        total += e
    for t in range(n):
        out[t] /= total


@njit(cache=True)
def batch_gradient(theta, off, h1, h2, feats, feat_start, legal, legal_start, targets, values, rows, maps_cell,
                   maps_action, syms, value_weight, grad):
    """The mean gradient of the loss over the samples ``rows`` into ``grad`` (zeroed first); returns the mean
    policy loss (cross-entropy against the targets) and the mean value loss (squared error).

    Sample ``r`` has active inputs ``feats[feat_start[r]:feat_start[r + 1]]``, legal actions
    ``legal[legal_start[r]:legal_start[r + 1]]`` with target probabilities ``targets`` over the same span,
    and value target ``values[r]``. Each is seen through board symmetry ``syms[i]``: a cell input ``c`` (own
    or other's) becomes ``maps_cell[k, c]``, an action ``a`` becomes ``maps_action[k, a]``. The samples are
    added in the order given, so the sum is the same on every CPU."""
    grad[:] = 0.0
    n_cells = maps_cell.shape[1]
    W2 = theta[off[2]:off[3]]
    Wp = theta[off[4]:off[5]]
    wv = theta[off[6]:off[7]]
    gW1 = grad[off[0]:off[1]]
    gb1 = grad[off[1]:off[2]]
    gW2 = grad[off[2]:off[3]]
    gb2 = grad[off[3]:off[4]]
    gWp = grad[off[4]:off[5]]
    gbp = grad[off[5]:off[6]]
    gwv = grad[off[6]:off[7]]
    a1 = np.empty(h1)
    a2 = np.empty(h2)
    d1 = np.empty(h1)
    d2 = np.empty(h2)
    active = np.empty(512, dtype=np.int64)
    acts = np.empty(512, dtype=np.int64)
    logits = np.empty(512)
    probs = np.empty(512)
    policy_loss = 0.0
    value_loss = 0.0
    for i in range(rows.shape[0]):
        r = rows[i]
        k = syms[i]
        na = feat_start[r + 1] - feat_start[r]
        for t in range(na):
            f = feats[feat_start[r] + t]
            if f < n_cells:
                active[t] = maps_cell[k, f]
            elif f < 2 * n_cells:
                active[t] = n_cells + maps_cell[k, f - n_cells]
            else:
                active[t] = f
        nl = legal_start[r + 1] - legal_start[r]
        for t in range(nl):
            acts[t] = maps_action[k, legal[legal_start[r] + t]]
        v = evaluate(theta, off, h1, h2, active, na, acts, nl, logits, a1, a2)
        softmax(logits, nl, probs)
        d2[:] = 0.0
        for t in range(nl):
            p = targets[legal_start[r] + t]
            if p > 0.0:
                policy_loss -= p * nn.log(max(probs[t], 1e-300))
            g = probs[t] - p
            a = acts[t]
            gbp[a] += g
            row = gWp[a * h2:(a + 1) * h2]
            w = Wp[a * h2:(a + 1) * h2]
            for j in range(h2):
                row[j] += g * a2[j]
                d2[j] += g * w[j]
        err = v - values[r]
        value_loss += err * err
        gv = value_weight * 2.0 * err * (1.0 - v * v)
        grad[off[7]] += gv
        for j in range(h2):
            gwv[j] += gv * a2[j]
            d2[j] += gv * wv[j]
        for j in range(h2):
            if a2[j] <= 0.0:
                d2[j] = 0.0
            gb2[j] += d2[j]
        for i1 in range(h1):
            x = a1[i1]
            row = W2[i1 * h2:(i1 + 1) * h2]
            s = 0.0
            for j in range(h2):
                s += row[j] * d2[j]
            d1[i1] = s if x > 0.0 else 0.0
            if x != 0.0:
                grow = gW2[i1 * h2:(i1 + 1) * h2]
                for j in range(h2):
                    grow[j] += x * d2[j]
        for j in range(h1):
            gb1[j] += d1[j]
        for t in range(na):
            grow = gW1[active[t] * h1:(active[t] + 1) * h1]
            for j in range(h1):
                grow[j] += d1[j]
    n = rows.shape[0]
    for j in range(grad.shape[0]):
        grad[j] /= n
    return policy_loss / n, value_loss / n


@njit(cache=True)
def adam_step(theta, grad, m, v, lr, beta1, beta2, eps, weight_decay, power1, power2):
    """One Adam step with decoupled weight decay (AdamW) on every parameter; ``power1``, ``power2``: β1ᵗ and β2ᵗ
    of this step (kept by the caller by repeated multiplication, not ``**``)."""
    c1 = 1.0 - power1
    c2 = 1.0 - power2
    for j in range(theta.shape[0]):
        g = grad[j]
        m[j] = beta1 * m[j] + (1.0 - beta1) * g
        v[j] = beta2 * v[j] + (1.0 - beta2) * (g * g)
        step = (m[j] / c1) / (np.sqrt(v[j] / c2) + eps)
        theta[j] = theta[j] - lr * (step + weight_decay * theta[j])


# ---------------------------------------------------------------------------------------------
# the network as a file

#: the network file format's version
FORMAT = 1
#: the largest network file read
MAX_NETWORK_BYTES = 64 * 2**20


class ZeroNetworkError(SumitoError):
    """A network file that cannot be used (damaged, of another format, or for another board)."""


class PolicyValueNetwork:
    """A policy-value network for one board size and win threshold (see the module's docstring)."""

    def __init__(self, side: int, win: int, h1: int = 256, h2: int = 128, theta: np.ndarray | None = None,
                 seed: int = 0, metadata: dict[str, Any] | None = None) -> None:
        geo = geometry(side)
        self.side = side
        self.win = win
        self.h1 = h1
        self.h2 = h2
        self.n_actions = action_space(side).n
        self.n_inputs = n_inputs(geo.n_cells, win)
        self.offsets = layout(self.n_inputs, h1, h2, self.n_actions)
        if theta is None:
            theta = init_parameters(self.n_inputs, h1, h2, self.n_actions, np.random.default_rng(seed))
        if theta.shape != (int(self.offsets[-1]),):
            raise ZeroNetworkError(f"a side-{side} network of {h1}×{h2} hidden units has {int(self.offsets[-1])} "
                                   f"parameters, not {theta.size}")
        self.theta = np.ascontiguousarray(theta, dtype=np.float64)
        self.metadata = dict(metadata or {})

    def digest(self) -> str:
        return hashlib.sha256(self.theta.tobytes()).hexdigest()[:16]

    def copy(self) -> PolicyValueNetwork:
        return PolicyValueNetwork(self.side, self.win, self.h1, self.h2, self.theta.copy(), metadata=self.metadata)

    def search_params(self) -> np.ndarray:
        """The parameter vector of the engine's search with this network's value as its evaluation
        (:mod:`sumito.evaluation.zero_value`; the header's marbles field is not read)."""
        if self.h1 + self.h2 + self.n_inputs > SEARCH_SCRATCH:
            raise ZeroNetworkError(f"a network of {self.h1}×{self.h2} hidden units is too large for the search's "
                                   f"work array (h1 + h2 + its {self.n_inputs} inputs at most {SEARCH_SCRATCH})")
        header = [self.n_inputs, self.h1, self.h2, self.n_actions, ENCODING_ZERO, 0.0, self.win, ZERO_SCALE, 0.0]
        return np.concatenate([np.array(header, dtype=np.float64), self.theta])

    def header(self) -> dict[str, Any]:
        return dict(format=FORMAT, kind="zero", side=self.side, win=self.win, h1=self.h1, h2=self.h2,
                    n_actions=self.n_actions, metadata=self.metadata)

    def to_bytes(self) -> bytes:
        out = io.BytesIO()
        np.savez_compressed(out, meta=np.array(json.dumps(self.header())), theta=self.theta)
        return out.getvalue()

    def save(self, path: str | Path) -> None:
        atomic_write_bytes(path, self.to_bytes())

    @classmethod
    def from_bytes(cls, data: bytes, source: str) -> PolicyValueNetwork:
        try:
            header, arrays = read_npz_with_header(data, source, MAX_NETWORK_BYTES, ("theta",), "zero network")
        except ValueError as exc:
            raise ZeroNetworkError(str(exc)) from None
        shown = shown_path(source)
        if header.get("kind") != "zero" or header.get("format") != FORMAT:
            raise ZeroNetworkError(f"{shown}: not a zero network of format {FORMAT}")
        try:
            side, win, h1, h2 = (int(header[k]) for k in ("side", "win", "h1", "h2"))
        except (KeyError, TypeError, ValueError):
            raise ZeroNetworkError(f"{shown}: the header does not say the board and layer sizes") from None
        if not (3 <= side <= 5 and 1 <= win <= 6 and 1 <= h1 <= MAX_ZERO_HIDDEN and 1 <= h2 <= MAX_ZERO_HIDDEN):
            raise ZeroNetworkError(f"{shown}: a network for side {side}, {win} to win, {h1}×{h2} units is not one "
                                   "Sumito makes")
        if "theta" not in arrays:
            raise ZeroNetworkError(f"{shown}: no parameters ('theta')")
        theta = arrays["theta"]
        if theta.dtype != np.float64 or theta.ndim != 1:
            raise ZeroNetworkError(f"{shown}: the parameters are not a float64 vector")
        check_weights({"theta": theta}, source, ZeroNetworkError)
        metadata = header.get("metadata") if isinstance(header.get("metadata"), dict) else {}
        return cls(side, win, h1, h2, theta, metadata=metadata)

    @classmethod
    def load(cls, path: str | Path) -> PolicyValueNetwork:
        try:
            data = read_file_bounded(path, MAX_NETWORK_BYTES, "zero network")
        except ValueError as exc:
            raise ZeroNetworkError(str(exc)) from None
        return cls.from_bytes(data, str(path))
