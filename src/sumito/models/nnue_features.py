"""The NNUE's inputs as the fit feeds them: both perspectives' one-hot features of many boards at once, dense
(:func:`features`) or as the rows' nonzeros (:func:`sparse_features`, a :data:`Sparse`), and the sparse
products the fit computes with, each entry summed in a fixed order (the same bits on every CPU)."""

from __future__ import annotations

from functools import cache

import numpy as np

from sumito.evaluation.nnue import feature_table, n_features
from sumito.games.abalone.geometry import geometry
from sumito.jit import njit


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
#: at ``starts[r]:starts[r + 1]``, columns ascending (:func:`csr`, :func:`sparse_features`)
Sparse = tuple[np.ndarray, np.ndarray, np.ndarray]


@njit(cache=True)
def csr(X):
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
    :func:`csr` lists them, straight from the boards: input f of perspective P is on when the cell
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


def as_sparse(X: np.ndarray | Sparse) -> Sparse:
    return X if isinstance(X, tuple) else csr(np.ascontiguousarray(X))


@njit(cache=True)
def sparse_matmul(starts, columns, values, B):
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
def sparse_matmul_tn(starts, columns, values, B, m):
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


