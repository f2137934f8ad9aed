"""An efficiently updatable neural evaluation (NNUE) for the engine's search.

**Inputs.** One input per (cell, colour) — "own" and "opponent" — seen from each side's
*perspective*: Black sees the board as it is, White sees it turned half a turn (so that its own
marbles start at the bottom, as Black's do) with the colours swapped. A board of ``n`` cells has
``2n`` inputs a perspective (122 on the standard board).

**Accumulator.** The first layer is a sum of weight rows, one for each marble on the board, plus
a bias: ``acc[P] = b1 + Σ W1[feature(P, marble)]``, ``H`` numbers a perspective, the two
perspectives sharing ``W1``. A move changes at most six marbles (a 3-marble broadside; an inline
move changes two own cells and at most two opposing ones), so the search updates the accumulator
of a child from its parent's in ``O(changes × H)`` (:func:`update_accumulator`), keeping one per
ply — never re-summing the board — and the rest of the network is small. Each accumulator has one
more number, the sum of the marbles' *PSQT* values (a piece-square table, as in Stockfish's NNUE):
a linear path to the output, so that what is linear in the marbles' cells (closeness to the centre,
the edge) needs no hidden unit, and training starts from the hand-set evaluation's cell terms.

**The rest.** ``x = [clip(acc[side to move]), clip(acc[other])]`` (clipped ReLU to [0, 1], the side
to move first, 2H numbers), then a clipped-ReLU layer of ``H2`` units (``H2 = 0``: none), then one
linear output, plus ``PSQT(side to move) − PSQT(other)`` and ``material × (marbles the opponent lost
− marbles the side lost)``. The output is in marbles; the engine's score is ``1000 ×`` it, so a
marble weighs what it does in the hand-set linear evaluation and the search's constants (contempt,
aspiration widths) mean the same.

**The parameter vector** (float64, so that the search takes it like any other evaluation's; see
:mod:`sumito.evaluation.features`): a header ``[n_features, H, H2, grid_size, material]``, the
feature table ``feature[P, colour, grid index]`` (``2 × 3 × grid_size`` numbers, −1 for none), then
W1 with the PSQT as a last column (``n_features × (H + 1)``, one row a feature), b1 (H, then 0),
W2 (``H2 × 2H``), b2 (H2), w3 (H2, or 2H when ``H2 = 0``), b3, then W2 again transposed (``2H × H2``:
what :func:`nnue_output` reads, one row an input).

**The same scores on every x86-64 CPU.** Self-play data for training is scored by this search, so no
kernel here uses fast-math: every sum is added in index order and no multiply-add is fused. The
second layer runs over the transposed W2, each input's row added into the H2 sums at once: the
vectorised loop is over independent sums, so each lane does what the scalar loop does, whatever the
vector width.

**A base evaluation.** A network may be a *correction* of the hand-set linear evaluation: its file
then holds the linear weights (``base``), the search adds that evaluation to the network's output,
and training starts from it (the network's output layer near zero) — so that a network trained on
little data keeps what the hand-set evaluation knows (cohesion and lines of three, which depend on
pairs of marbles) and changes it only where the data says so. The linear part is computed at each
evaluation (it is what the engine evaluates anyway); the network part is incremental.

Networks are ``.npz`` files with a JSON header (:meth:`NNUE.save` / :func:`load_network`), fitted by
:mod:`sumito.models.nnue_fit` to the data of :mod:`sumito.learn.nnue`. Two are shipped in the package, by name:

- ``builtin-nnue`` (also ``selftaught-nnue``), the engine's default: generation 9 of the self-taught
  line (:mod:`sumito.learn.selftaught`, ``runs/selftaught/net-009.npz``), which learned from its own
  self-play games starting from the marble count alone — no base, no hand-set PSQT, no expert data;
- ``expert-nnue``: the network that was ``builtin-nnue`` before it, taught by the hand-set engine's
  depth-4 searches and a correction of the hand-set evaluation (a ``base``); the pages and tests that
  measured it name it so that their commands still play it.
"""

from __future__ import annotations

import io
import json
from functools import cache
from importlib.resources import files
from pathlib import Path

import numpy as np

from sumito.bounds import MAX_NNUE_HIDDEN
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_bytes, check_weights, read_file_bounded, read_npz_with_header, shown_path
from sumito.games.abalone.geometry import geometry, symmetries
from sumito.games.abalone.kernels import BROADSIDE_BIT, PUSH_OFF_BIT, PUSH_SHIFT, move_steps
from sumito.jit import njit

HEADER = 13  # n_features, H, H2, grid size, material, base (0/1), the base's 7 linear weights
BASE = 5
SCALE = 1000.0  # engine points a marble
FORMAT = "sumito-nnue"
FORMAT_VERSION = 1
ARRAY_NAMES = ("W1", "b1", "W2", "b2", "w3", "b3", "material", "psqt", "base")
MAX_NNUE_BYTES = 64 * 2**20
BUILTIN_NNUE = "builtin-nnue"
#: ``engine:nnue=none``: the hand-set evaluation instead of the shipped network the engine plays with by default
NO_NNUE = "none"
#: the shipped networks: a name in a spec -> the file in ``sumito/data``
SHIPPED_NNUE = {BUILTIN_NNUE: "nnue-selftaught.npz", "selftaught-nnue": "nnue-selftaught.npz",
                "expert-nnue": "nnue-expert.npz"}


class NNUEError(SumitoError):
    """An NNUE file that cannot be read, or a network that does not fit the board."""


# --- geometry: symmetries and the feature table -------------------------------------------------
# (the 12 board symmetries themselves are the engine's geometry: sumito.games.abalone.geometry.symmetries)


def half_turn(side: int) -> np.ndarray:
    """The cell each cell goes to under a half turn of the board (White's perspective)."""
    return symmetries(side)[3]


@cache
def feature_table(side: int) -> np.ndarray:
    """``table[P, colour, grid index]``: the input a marble of ``colour`` (1 Black, 2 White) on that
    cell is in perspective ``P`` (0 Black's, 1 White's); −1 for empty and off-board cells."""
    geo = geometry(side)
    n = len(geo.cells)
    table = np.full((2, 3, geo.width * geo.width), -1, dtype=np.int64)
    turned = half_turn(side)
    for i, g in enumerate(geo.cells):
        table[0, 1, g] = i
        table[0, 2, g] = n + i
        table[1, 2, g] = turned[i]  # White's own marble, where Black's would stand after a half turn
        table[1, 1, g] = n + turned[i]
    return table


def n_features(side: int) -> int:
    return 2 * len(geometry(side).cells)


# --- the parameter vector -------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _layout(params):
    nf = int(params[0])
    h = int(params[1])
    h2 = int(params[2])
    size = int(params[3])
    t = HEADER
    w1 = t + 6 * size
    b1 = w1 + nf * (h + 1)  # each feature's row: H accumulator weights, then its PSQT value
    w2 = b1 + h + 1
    b2 = w2 + h2 * 2 * h
    w3 = b2 + h2
    b3 = w3 + (h2 if h2 > 0 else 2 * h)
    w2t = b3 + 1
    return nf, h, h2, t, w1, b1, w2, b2, w3, b3, w2t


@njit(cache=True, inline="always")
def _add_feature(acc_p, params, w1, h, f, sign):
    row = params[w1 + f * (h + 1) : w1 + (f + 1) * (h + 1)]
    for j in range(h + 1):
        acc_p[j] += sign * row[j]


@njit(cache=True)
def _change(acc, params, t, size, w1, h, colour, cell, sign):
    """Add (sign 1) or take away (−1) the marble of ``colour`` on grid ``cell`` in both perspectives."""
    f0 = int(params[t + colour * size + cell])
    f1 = int(params[t + 3 * size + colour * size + cell])
    _add_feature(acc[0], params, w1, h, f0, sign)
    _add_feature(acc[1], params, w1, h, f1, sign)


@njit(cache=True)
def refresh_accumulator(board, cells, params, acc):
    """Sum ``acc`` (float64[2, ≥H]) from scratch over the marbles on ``board``."""
    _nf, h, _h2, t, w1, b1, _w2, _b2, _w3, _b3, _w2t = _layout(params)
    size = int(params[3])
    for p in range(2):
        for j in range(h + 1):
            acc[p, j] = params[b1 + j]
    for i in range(cells.shape[0]):
        c = cells[i]
        v = board[c]
        if v == 1 or v == 2:
            _change(acc, params, t, size, w1, h, v, c, 1.0)


@njit(cache=True)
def copy_accumulator(parent, child):
    """``child[:] = parent`` (float64[2, ≥H]), written as loops: numba compiles a slice copy's shape
    checks and their error messages for seconds, which a fresh install pays before its first move."""
    for p in range(parent.shape[0]):
        for j in range(parent.shape[1]):
            child[p, j] = parent[p, j]


@njit(cache=True)
def update_accumulator(parent, child, move, side, offsets, params):
    """``child = parent`` changed by ``move`` of ``side`` (the move's code alone says which marbles
    move; the board is not read), both float64[2, ≥H]."""
    _nf, h, _h2, t, w1, _b1, _w2, _b2, _w3, _b3, _w2t = _layout(params)
    size = int(params[3])
    copy_accumulator(parent, child)
    start, step, k, line_step = move_steps(move, offsets)
    if move & BROADSIDE_BIT:
        for i in range(k):
            src = start + i * line_step
            _change(child, params, t, size, w1, h, side, src, -1.0)
            _change(child, params, t, size, w1, h, side, src + step, 1.0)
        return
    # inline: the trailing cell empties and the head cell fills; a pushed line moves one cell on
    head = start + k * step
    _change(child, params, t, size, w1, h, side, start, -1.0)
    _change(child, params, t, size, w1, h, side, head, 1.0)
    p = (move >> PUSH_SHIFT) & 3
    if p > 0:
        opp = 3 - side
        _change(child, params, t, size, w1, h, opp, head, -1.0)
        if not (move & PUSH_OFF_BIT):
            _change(child, params, t, size, w1, h, opp, head + p * step, 1.0)


@njit(cache=True)
def nnue_output(acc, side, lost_black, lost_white, params, x):
    """The network's score (engine points) for ``side`` to move from the accumulator ``acc``;
    ``x`` (float64[≥H2]) is work space for the second layer's sums."""
    _nf, h, h2, _t, _w1, _b1, _w2, b2, w3, b3, w2t = _layout(params)
    me = side - 1
    op = 1 - me
    # Loops over slices, not over offsets into ``params``: numba checks a computed index for negative
    # wraparound at every access, a slice's loop index not (bench/bench_nnue.py).
    out = params[b3]
    if h2 == 0:
        w = params[w3 : w3 + 2 * h]
        for j in range(h):
            out += w[j] * min(max(acc[me, j], 0.0), 1.0)
        for j in range(h):
            out += w[h + j] * min(max(acc[op, j], 0.0), 1.0)
    else:
        z = x[:h2]
        bias = params[b2 : b2 + h2]
        for u in range(h2):
            z[u] = bias[u]
        layer = params[w2t : w2t + 2 * h * h2].reshape((2 * h, h2))
        # Inputs outer (eight at a time: fewer loads and stores of z), units inner over W2's transpose:
        # each z[u] is summed in the order of the inputs, as a scalar loop does, and the inner loop
        # vectorises over independent sums.
        for half in range(2):
            a = acc[me] if half == 0 else acc[op]
            rows = layer[half * h : (half + 1) * h]
            j = 0
            while j + 8 <= h:
                v0 = min(max(a[j], 0.0), 1.0)
                v1 = min(max(a[j + 1], 0.0), 1.0)
                v2 = min(max(a[j + 2], 0.0), 1.0)
                v3 = min(max(a[j + 3], 0.0), 1.0)
                v4 = min(max(a[j + 4], 0.0), 1.0)
                v5 = min(max(a[j + 5], 0.0), 1.0)
                v6 = min(max(a[j + 6], 0.0), 1.0)
                v7 = min(max(a[j + 7], 0.0), 1.0)
                r = rows[j : j + 8]
                for u in range(h2):
                    z[u] = (((((((z[u] + r[0, u] * v0) + r[1, u] * v1) + r[2, u] * v2) + r[3, u] * v3)
                              + r[4, u] * v4) + r[5, u] * v5) + r[6, u] * v6) + r[7, u] * v7
                j += 8
            while j < h:
                v = min(max(a[j], 0.0), 1.0)
                row = rows[j]
                for u in range(h2):
                    z[u] += row[u] * v
                j += 1
        w = params[w3 : w3 + h2]
        for u in range(h2):
            out += w[u] * min(max(z[u], 0.0), 1.0)
    lost_me = lost_black if side == 1 else lost_white
    lost_op = lost_white if side == 1 else lost_black
    return SCALE * (out + acc[me, h] - acc[op, h] + params[4] * (lost_op - lost_me))


@njit(cache=True)
def nnue_score(board, side, lost_black, lost_white, cells, params, scratch):
    """The network's score from scratch (no accumulator kept): the reference the incremental one must
    equal. ``scratch`` holds the accumulator. (A base evaluation is added by the callers:
    :func:`sumito.evaluation.features.evaluate` and the search.)"""
    h = int(params[1])
    acc = scratch[: 2 * (h + 1)].reshape((2, h + 1))
    refresh_accumulator(board, cells, params, acc)
    return nnue_output(acc, side, lost_black, lost_white, params, scratch[2 * (h + 1) :])


# --- networks as arrays and files --------------------------------------------------------------------


class NNUE:
    """The weights of one network for one board size (float64 arrays; see the module's docstring)."""

    def __init__(self, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, b2: np.ndarray, w3: np.ndarray,
                 b3: float, material: float, psqt: np.ndarray | None = None, side: int = 5,
                 metadata: dict | None = None, source: str = "network", base: np.ndarray | None = None) -> None:
        self.W1 = np.asarray(W1, dtype=np.float64)
        self.b1 = np.asarray(b1, dtype=np.float64)
        self.W2 = np.asarray(W2, dtype=np.float64)
        self.b2 = np.asarray(b2, dtype=np.float64)
        self.w3 = np.asarray(w3, dtype=np.float64)
        self.b3 = float(b3)
        self.material = float(material)
        self.psqt = np.zeros(n_features(side)) if psqt is None else np.asarray(psqt, dtype=np.float64)
        self.side = side
        #: the hand-set linear evaluation's 7 weights when the network is a correction added to it
        self.base = None if base is None else np.asarray(base, dtype=np.float64).reshape(-1)
        if self.base is not None and self.base.shape != (7,):
            raise NNUEError(f"{source}: the base evaluation needs 7 linear weights, not {self.base.size}")
        self.metadata = dict(metadata or {})
        self.source = source
        if self.b1.ndim != 1 or self.b2.ndim != 1:
            raise NNUEError(f"{source}: b1 and b2 must be vectors")
        h, h2 = len(self.b1), len(self.b2)
        shapes = {"W1": (self.W1.shape, (n_features(side), h)), "W2": (self.W2.shape, (h2, 2 * h)),
                  "w3": (self.w3.shape, (h2 if h2 else 2 * h,)), "psqt": (self.psqt.shape, (n_features(side),))}
        for name, (got, want) in shapes.items():
            if got != want:
                raise NNUEError(f"{source}: {name} has shape {got}; this network needs {want}")
        if not 1 <= h <= MAX_NNUE_HIDDEN or h2 > MAX_NNUE_HIDDEN:
            raise NNUEError(f"{source}: layer sizes {h} and {h2} are outside 1..{MAX_NNUE_HIDDEN}")
        # finite, and within MAX_WEIGHT: a bias of 1e30 is finite, but the search then reports a "win" in a
        # number of moves hundreds of digits long
        check_weights({name: getattr(self, name) for name in ARRAY_NAMES if getattr(self, name) is not None},
                      source, NNUEError)

    @property
    def hidden(self) -> tuple[int, int]:
        return len(self.b1), len(self.b2)

    def params(self) -> np.ndarray:
        """The search's parameter vector (see the module's docstring)."""
        table = feature_table(self.side)
        h, h2 = self.hidden
        base = [0.0] * 8 if self.base is None else [1.0, *self.base]
        header = [self.W1.shape[0], h, h2, table.shape[2], self.material, *base]
        return np.concatenate([np.array(header, dtype=np.float64), table.ravel().astype(np.float64),
                               np.hstack([self.W1, self.psqt[:, None]]).ravel(), self.b1, [0.0], self.W2.ravel(),
                               self.b2, self.w3, [self.b3], self.W2.T.ravel()])

    def save(self, path: str | Path) -> None:
        """Write the network atomically (temporary file, then a rename)."""
        header = {"format": FORMAT, "version": FORMAT_VERSION, "side": self.side, "metadata": self.metadata}
        buf = io.BytesIO()
        np.savez(buf, meta=np.array(json.dumps(header)), W1=self.W1, b1=self.b1, W2=self.W2, b2=self.b2,
                 w3=self.w3, b3=np.array(self.b3), material=np.array(self.material), psqt=self.psqt,
                 base=np.zeros(0) if self.base is None else self.base)
        atomic_write_bytes(path, buf.getvalue())


def nnue_path(name: str) -> str:
    """The file ``name`` names: a shipped network's name (:data:`SHIPPED_NNUE`) or a path."""
    if name in SHIPPED_NNUE:
        return str(files("sumito") / "data" / SHIPPED_NNUE[name])
    return name


def load_network(path: str | Path) -> NNUE:
    """Read an NNUE file; anything wrong with it is a one-line :class:`NNUEError`."""
    source = shown_path(path)
    try:
        data = read_file_bounded(nnue_path(str(path)), MAX_NNUE_BYTES, "NNUE file")
        header, arrays = read_npz_with_header(data, source, MAX_NNUE_BYTES, ARRAY_NAMES, "NNUE file")
    except ValueError as exc:
        raise NNUEError(str(exc)) from None
    if header.get("format") != FORMAT:
        raise NNUEError(f"{source}: not a Sumito NNUE file (format {header.get('format')!r})")
    if header.get("version") != FORMAT_VERSION:
        raise NNUEError(f"{source}: NNUE format version {header.get('version')!r}; this Sumito reads "
                        f"{FORMAT_VERSION}")
    side = header.get("side")
    if side not in (3, 4, 5):
        raise NNUEError(f"{source}: board side {side!r}; expected 3, 4 or 5")
    for name in ARRAY_NAMES:
        if name not in arrays:
            if name == "base":  # optional: a network on its own
                continue
            raise NNUEError(f"{source}: no {name!r} array")
        if arrays[name].dtype.kind not in "fi":
            raise NNUEError(f"{source}: {name} is not numeric")
    metadata = header.get("metadata", {})
    if not isinstance(metadata, dict):
        raise NNUEError(f"{source}: the header's metadata is not an object")
    if arrays["b3"].shape != () or arrays["material"].shape != ():
        raise NNUEError(f"{source}: b3 and material must be single numbers")
    return NNUE(arrays["W1"], arrays["b1"], arrays["W2"], arrays["b2"], arrays["w3"], float(arrays["b3"]),
                float(arrays["material"]), psqt=arrays["psqt"], side=int(side), metadata=metadata, source=source,
                base=arrays["base"] if "base" in arrays and arrays["base"].size else None)
