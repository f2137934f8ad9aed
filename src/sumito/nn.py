"""Compiled kernels of the two-layer value networks (inputs -> sigmoid hidden layer -> sigmoid,
linear or tanh outputs): forward pass, gradient, batch values. Game-independent and below every
layer that evaluates positions, so that a search can use a trained network
(:mod:`sumito.models.learned`) and :mod:`sumito.models.network` can train one.

A network's parameters are one flat float64 vector ``theta`` in the order W1[h, n_in], b1[h],
W2[n_out, h], b2[n_out]; :func:`unpack` gives the views.
"""

from __future__ import annotations

import math

from numba import njit

OUTPUT_KINDS = ("sigmoid", "linear", "tanh")
SIGMOID = 0
LINEAR = 1
TANH = 2  # ours: a bounded output in (-1, 1) that can represent negative returns
# The two dot-product loops may reorder their sums (SIMD) and fuse multiply-adds; no other
# fast-math liberties (NaN and infinity keep their meaning). Results are the same run to run on
# one machine, not bit-identical to numpy's.
FAST = {"reassoc", "contract"}



@njit(cache=True, inline="always")
def sigmoid(z: float) -> float:
    """The logistic function, without overflow for large ``|z|``."""
    if z >= 0.0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@njit(cache=True)
def unpack(theta, dims):
    """The views ``(W1, b1, W2, b2)`` of a flat parameter (or gradient, or trace) vector."""
    n_in, n_h, n_out = dims[0], dims[1], dims[2]
    a = n_h * n_in
    b = a + n_h
    c = b + n_out * n_h
    return (theta[0:a].reshape((n_h, n_in)), theta[a:b], theta[b:c].reshape((n_out, n_h)), theta[c:c + n_out])


@njit(cache=True, fastmath=FAST)
def _hidden(W1, b1, x, hidden):
    n_h, n_in = W1.shape
    for j in range(n_h):
        z = b1[j]
        for i in range(n_in):
            z += W1[j, i] * x[i]
        hidden[j] = sigmoid(z)


@njit(cache=True, fastmath=FAST)
def _output(W2, b2, output_kind, hidden, o):
    z = b2[o]
    for j in range(W2.shape[1]):
        z += W2[o, j] * hidden[j]
    if output_kind == SIGMOID:
        return sigmoid(z)
    if output_kind == TANH:
        return math.tanh(z)
    return z


@njit(cache=True)
def forward(W1, b1, W2, b2, output_kind, x, hidden):
    """The first output for input row ``x``; the hidden activations are written into ``hidden``."""
    _hidden(W1, b1, x, hidden)
    return _output(W2, b2, output_kind, hidden, 0)


@njit(cache=True)
def forward_all(W1, b1, W2, b2, output_kind, x, hidden, out):
    """Every output for ``x`` into ``out`` and the hidden activations into ``hidden``; returns ``out[0]``."""
    _hidden(W1, b1, x, hidden)
    for o in range(W2.shape[0]):
        out[o] = _output(W2, b2, output_kind, hidden, o)
    return out[0]


@njit(cache=True)
def gradient(W1, b1, W2, b2, output_kind, x, hidden, gW1, gb1, gW2, gb2):
    """The first output V(x), with dV/dparameter written into ``gW1, gb1, gW2, gb2``.

    ``hidden`` receives the hidden activations. Rows of ``gW2``/``gb2`` for other outputs are zero.
    """
    _hidden(W1, b1, x, hidden)
    v = _output(W2, b2, output_kind, hidden, 0)
    dz = v * (1.0 - v) if output_kind == SIGMOID else (1.0 - v * v if output_kind == TANH else 1.0)
    n_h, n_in = W1.shape
    gb2[0] = dz
    for o in range(1, W2.shape[0]):
        gb2[o] = 0.0
        for j in range(n_h):
            gW2[o, j] = 0.0
    for j in range(n_h):
        h = hidden[j]
        gW2[0, j] = dz * h
        d = dz * W2[0, j] * h * (1.0 - h)
        gb1[j] = d
        for i in range(n_in):
            gW1[j, i] = d * x[i]
    return v


@njit(cache=True)
def batch_values(W1, b1, W2, b2, output_kind, X, hidden, out):
    """The first output for every row of ``X`` into ``out`` (``hidden``: scratch of n_hidden)."""
    for r in range(X.shape[0]):
        out[r] = forward(W1, b1, W2, b2, output_kind, X[r], hidden)
