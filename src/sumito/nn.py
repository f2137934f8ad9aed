"""Compiled kernels of the two-layer value networks (inputs -> sigmoid hidden layer -> sigmoid,
linear or tanh outputs): forward pass, gradient, batch values. Game-independent and below every
layer that evaluates positions, so that a search can use a trained network
(:mod:`sumito.models.learned`) and :mod:`sumito.models.network` can train one.

A network's parameters are one flat float64 vector ``theta`` in the order W1[h, n_in], b1[h],
W2[n_out, h], b2[n_out]; :func:`unpack` gives the views.

**The same numbers on every x86-64 CPU.** Learning amplifies the last bit of a value into a different
run, so everything a training run computes with is bit-identical on any CPU, BLAS and libm:

* no BLAS: matrix products are loops here in a fixed order (:func:`matmul`, :func:`batch_values`),
  never ``numpy.dot``/``@``, whose sums OpenBLAS orders by the kernel it picks for the CPU;
* no fast-math: every sum is added in index order and no multiply-add is fused, so a loop that the
  compiler vectorises (over independent outputs, never across one sum) gives each lane the same
  IEEE operations as the scalar loop, whatever the vector width (SSE2, AVX2, AVX-512);
* our own :func:`exp`, :func:`log` and :func:`tanh` (fdlibm's algorithms, within one unit in the last
  place), built from +, −, ×, ÷ and exact power-of-two scaling: glibc picks an FMA or a plain
  version of ``exp``/``tanh`` by the CPU, and numpy an AVX-512 or AVX2 one of ``np.exp``/``np.tanh``,
  and each gives other last bits.

``tests/test_determinism.py`` trains under forced BLAS kernels (Haswell, SkylakeX, Zen), numba's
generic CPU, numpy without its AVX2/AVX-512 loops and glibc without FMA, and compares digests.
"""

from __future__ import annotations

import math

import numpy as np

from sumito.jit import njit

OUTPUT_KINDS = ("sigmoid", "linear", "tanh")
SIGMOID = 0
LINEAR = 1
TANH = 2  # ours: a bounded output in (-1, 1) that can represent negative returns

# ---------------------------------------------------------------------------------------------
# exact elementary functions (fdlibm 5.3's e_exp.c and e_log.c, Sun Microsystems, freely
# redistributable; the constants are theirs)

_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_EXP_P1 = 1.66666666666666019037e-01
_EXP_P2 = -2.77777777770155933842e-03
_EXP_P3 = 6.61375632143793436117e-05
_EXP_P4 = -1.65339022054652515390e-06
_EXP_P5 = 4.13813679705723846039e-08
_EXP_OVER = 7.09782712893383973096e02
_EXP_UNDER = -7.45133219101941108420e02
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_SQRT_HALF = 0.70710678118654752440
# 2**k for k = -1074 … 1023, exact (a table, not a libm call: the scaling stays inside the kernel)
_POW2 = np.array([math.ldexp(1.0, k) for k in range(-1074, 1024)], dtype=np.float64)


@njit(cache=True, inline="always")
def _exp_parts(x: float) -> tuple[float, float]:
    """fdlibm's reduction and polynomial: ``y`` and ``k`` with e**x = y·2**k (``y`` in [0.7, 1.42])."""
    k = np.floor(_INV_LN2 * x + 0.5)  # x = k·ln2 + r, |r| ≤ ln2/2 (exact: k·ln2_hi has spare bits)
    hi = x - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    t = r * r
    c = r - t * (_EXP_P1 + t * (_EXP_P2 + t * (_EXP_P3 + t * (_EXP_P4 + t * _EXP_P5))))
    return 1.0 - ((lo - (r * c) / (2.0 - c)) - hi), k


_TINY = 3.725290298461914e-09  # 2**-28: below it e**x is 1 + x
_TWO_M1000 = 2.0**-1000


@njit(cache=True, inline="always")
def exp(x: float) -> float:
    """e**x, within one unit in the last place, the same bits on every CPU."""
    if x != x:
        return x
    if x > _EXP_OVER:
        return math.inf
    if x < _EXP_UNDER:
        return 0.0
    if -_TINY < x < _TINY:
        return 1.0 + x
    y, k = _exp_parts(x)
    n = int(k)
    if n < -1021:  # two exact steps, so that the factor stays a normal number until the last product
        return (y * _POW2[n + 1000 + 1074]) * _TWO_M1000
    if n > 1023:
        return (y * 2.0) * _POW2[n - 1 + 1074]
    return y * _POW2[n + 1074]


@njit(cache=True, error_model="numpy")
def sigmoid_inplace(z):
    """:func:`sigmoid` of every element of the 1-D C-contiguous float64 ``z``, in place, bit for bit.

    The same operations as :func:`exp` on ``-|z|``, without branches: 2**k is built from its bits
    (``(k + 1023) << 52``) rather than looked up, and the special ranges are selected after, so the
    loops vectorise (about 5 times faster than the scalar calls on AVX-512); ``error_model="numpy"``
    drops the division-by-zero checks that would stop that (no division here can be by zero)."""
    n = z.shape[0]
    y = np.empty(n, dtype=np.float64)
    bits = np.empty(n, dtype=np.int64)
    for i in range(n):
        u = -abs(z[i])
        yi, k = _exp_parts(u)
        deep = k < -1021.0
        y[i] = yi
        # kept in range where it is not used (u below -745 or -inf): the result is selected away below
        bits[i] = (np.int64(max(k + 1000.0 if deep else k, -1022.0)) + 1023) << 52
    scale = bits.view(np.float64)
    for i in range(n):
        v = z[i]
        u = -abs(v)
        e = y[i] * scale[i]
        k = np.floor(_INV_LN2 * u + 0.5)
        e = e * _TWO_M1000 if k < -1021.0 else e
        e = 1.0 + u if u > -_TINY else e
        e = 0.0 if u < _EXP_UNDER else e
        z[i] = 1.0 / (1.0 + e) if v >= 0.0 else e / (1.0 + e)


@njit(cache=True, inline="always")
def log(x: float) -> float:
    """The natural logarithm, within one unit in the last place, the same bits on every CPU
    (−inf at 0, nan below 0 or at nan)."""
    if x != x or x < 0.0:
        return math.nan
    if x == 0.0:
        return -math.inf
    if x == math.inf:
        return x
    m, e = math.frexp(x)  # exact: x = m·2**e, 0.5 ≤ m < 1
    k = e
    if m < _SQRT_HALF:
        m = m * 2.0
        k -= 1
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    dk = float(k)
    return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)


@njit(cache=True, inline="always")
def tanh(z: float) -> float:
    """The hyperbolic tangent from :func:`exp`, the same bits on every CPU (absolute error below
    3e-16)."""
    if z != z:
        return z
    a = -z if z < 0.0 else z
    if a < _TINY:
        return z
    if a > 22.0:
        t = 1.0
    else:
        e = exp(-2.0 * a)
        t = (1.0 - e) / (1.0 + e)
    return -t if z < 0.0 else t


@njit(cache=True, inline="always")
def sigmoid(z: float) -> float:
    """The logistic function, without overflow for large ``|z|``."""
    if z >= 0.0:
        return 1.0 / (1.0 + exp(-z))
    e = exp(z)
    return e / (1.0 + e)


_EXP, _LOG, _TANH, _SIGMOID = 0, 1, 2, 3


@njit(cache=True)
def _each(x, fn):
    """One of the functions above (``fn``: :data:`_EXP` … :data:`_SIGMOID`) of every element of a
    C-contiguous ``x``: a new float64 array of its shape."""
    out = np.empty(x.shape, dtype=np.float64)
    flat, src = out.reshape(-1), x.reshape(-1)
    for i in range(flat.size):
        v = np.float64(src[i])
        if fn == _EXP:
            flat[i] = exp(v)
        elif fn == _LOG:
            flat[i] = log(v)
        elif fn == _TANH:
            flat[i] = tanh(v)
        else:
            flat[i] = sigmoid(v)
    return out


def exp_array(x: np.ndarray) -> np.ndarray:
    """:func:`exp` of every element (a new float64 array of ``x``'s shape)."""
    return _each(np.ascontiguousarray(x), _EXP)


def log_array(x: np.ndarray) -> np.ndarray:
    """:func:`log` of every element (a new float64 array of ``x``'s shape)."""
    return _each(np.ascontiguousarray(x), _LOG)


def tanh_array(x: np.ndarray) -> np.ndarray:
    """:func:`tanh` of every element (a new float64 array of ``x``'s shape)."""
    return _each(np.ascontiguousarray(x), _TANH)


def sigmoid_array(x: np.ndarray) -> np.ndarray:
    """:func:`sigmoid` of every element (a new float64 array of ``x``'s shape)."""
    return _each(np.ascontiguousarray(x), _SIGMOID)


@njit(cache=True)
def matmul(A, B):
    """``A @ B`` for 2-D arrays (float64 result), each entry summed in index order: the same bits on
    every CPU, unlike BLAS. The inner loop runs over ``B``'s columns, independent sums, so it
    vectorises without reordering any one of them; a zero of ``A`` is skipped (0·b adds nothing to a
    finite sum), which makes products with one-hot inputs cheap."""
    n, m = A.shape
    p = B.shape[1]
    out = np.zeros((n, p), dtype=np.float64)
    for r in range(n):
        row = out[r]
        for k in range(m):
            a = np.float64(A[r, k])
            if a != 0.0:
                b = B[k]
                for c in range(p):
                    row[c] += a * b[c]
    return out


@njit(cache=True)
def matvec(A, v):
    """``A @ v`` for a 2-D ``A`` and a 1-D ``v`` (float64), each entry summed in index order."""
    n, m = A.shape
    out = np.zeros(n, dtype=np.float64)
    for r in range(n):
        s = 0.0
        for k in range(m):
            s += np.float64(A[r, k]) * np.float64(v[k])
        out[r] = s
    return out


@njit(cache=True)
def dot(u, v):
    """The dot product of two 1-D arrays (float64), summed in index order."""
    s = 0.0
    for k in range(u.shape[0]):
        s += np.float64(u[k]) * np.float64(v[k])
    return s


# ---------------------------------------------------------------------------------------------
# the network


@njit(cache=True)
def unpack(theta, dims):
    """The views ``(W1, b1, W2, b2)`` of a flat parameter (or gradient, or trace) vector."""
    n_in, n_h, n_out = dims[0], dims[1], dims[2]
    a = n_h * n_in
    b = a + n_h
    c = b + n_out * n_h
    return (theta[0:a].reshape((n_h, n_in)), theta[a:b], theta[b:c].reshape((n_out, n_h)), theta[c:c + n_out])


@njit(cache=True)
def _hidden(W1, b1, x, hidden):
    n_h, n_in = W1.shape
    for j in range(n_h):
        z = b1[j]
        for i in range(n_in):
            z += W1[j, i] * x[i]
        hidden[j] = sigmoid(z)


@njit(cache=True)
def _output(W2, b2, output_kind, hidden, o):
    z = b2[o]
    for j in range(W2.shape[1]):
        z += W2[o, j] * hidden[j]
    if output_kind == SIGMOID:
        return sigmoid(z)
    if output_kind == TANH:
        return tanh(z)
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
    """The first output for every row of ``X`` into ``out`` (``hidden``: scratch of n_hidden, unused: the
    rows go through :func:`first_outputs`, bit for bit :func:`forward` row by row)."""
    out[: X.shape[0]] = first_outputs(W1, b1, W2, b2, output_kind, X)


@njit(cache=True)
def _hidden_rows(W1, b1, X):
    """The hidden activations of every row of ``X`` (``[n, n_hidden]``): each unit's sum runs over the
    inputs in index order from its bias, as in :func:`forward`, so the bits are the same; the inner
    loop runs over the hidden units (independent sums, over a transposed copy of ``W1``), which the
    compiler vectorises."""
    n_h, n_in = W1.shape
    W1T = np.ascontiguousarray(W1.T)
    H = np.empty((X.shape[0], n_h), dtype=np.float64)
    for r in range(X.shape[0]):
        z = H[r]
        z[:] = b1
        x = X[r]
        for i in range(n_in):
            xi = np.float64(x[i])
            if xi != 0.0:
                w = W1T[i]
                for j in range(n_h):
                    z[j] += xi * w[j]
    sigmoid_inplace(H.reshape(-1))
    return H


@njit(cache=True)
def batch_outputs(W1, b1, W2, b2, output_kind, X):
    """Every output for every row of ``X``: a new float64 ``[n, n_outputs]`` array, the same bits as
    :func:`forward_all` row by row."""
    H = _hidden_rows(W1, b1, X)
    out = np.empty((X.shape[0], W2.shape[0]), dtype=np.float64)
    for r in range(X.shape[0]):
        for o in range(W2.shape[0]):
            out[r, o] = _output(W2, b2, output_kind, H[r], o)
    return out


@njit(cache=True)
def first_outputs(W1, b1, W2, b2, output_kind, X):
    """The first output for every row of ``X``: a new float64 ``[n]`` array, the same bits as
    :func:`forward` row by row."""
    H = _hidden_rows(W1, b1, X)
    out = np.empty(X.shape[0], dtype=np.float64)
    for r in range(X.shape[0]):
        out[r] = _output(W2, b2, output_kind, H[r], 0)
    return out
