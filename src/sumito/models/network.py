"""A two-layer feed-forward value network: inputs → sigmoid hidden layer → output unit(s).

The Abalearn paper's network (Campos & Langlois 2003, section 4): one hidden layer of sigmoid
units, a sigmoid output (``output="linear"`` gives Wiering's linear output, ``output="tanh"``, ours,
one in (−1, 1)), weights drawn uniformly from [-0.01, 0.01]. Game-independent: nothing here knows
Abalone or backgammon.

**Parameters.** All of them live in one flat ``float64`` vector :attr:`ValueNetwork.theta`, in
this order: ``W1[n_hidden, n_inputs]``, ``b1[n_hidden]``, ``W2[n_outputs, n_hidden]``,
``b2[n_outputs]`` (each C-ordered). ``net.W1`` … ``net.b2`` are views into it, so numba kernels
can take either the four arrays or the flat vector, and a TD update is one loop over ``theta``.
Assigning ``net.W1 = array`` copies into the view (shapes must match).

**Kernels** (in :mod:`sumito.nn`, below the evaluation layer so that a search can use a trained
network, and imported from there; ``@njit(cache=True)``; no checks — the caller passes arrays of
the right sizes):

* :func:`forward` — one input row; writes the hidden activations, returns the first output;
  :func:`forward_all` also writes every output;
* :func:`gradient` — the first output and its gradient with respect to every parameter, written
  into preallocated arrays shaped like the parameters (other outputs' rows are zero);
* :func:`first_outputs` and :func:`batch_outputs` — the first output, or every output, of every row
  of a 2-D input (what :meth:`ValueNetwork.values` and :meth:`ValueNetwork.outputs` call), the same
  bits as :func:`forward` row by row; :func:`batch_values` writes the first into a given array;
* :func:`unpack` — the four parameter views of a flat vector (``dims`` below).

``dims`` is the int64 array ``[n_inputs, n_hidden, n_outputs, output_kind]`` (:attr:`ValueNetwork.dims`)
with ``output_kind`` :data:`SIGMOID` (0), :data:`LINEAR` (1) or :data:`TANH` (2).

**File format** (:meth:`ValueNetwork.save`, :meth:`ValueNetwork.load`): one ``.npz`` file
(numpy's zip of ``.npy`` arrays, read with ``allow_pickle=False``), written atomically, holding
the float64 arrays ``W1``, ``b1``, ``W2``, ``b2`` and ``meta``, a 0-d unicode array with a JSON
object::

    {"format": "sumito-value-network", "version": 1, "n_inputs": 14, "n_hidden": 40,
     "n_outputs": 1, "output": "sigmoid", "metadata": {"encoding": "abalearn3", "games": 3000}}

``metadata`` is free-form JSON (encoding name, training game count, …). Anything else — not a
zip, truncated, another format or version, a header nested too deep, missing arrays, shapes that disagree
with the header, weights that are not finite or larger than :data:`sumito.bounds.MAX_WEIGHT` — raises
:class:`NetworkError` with a one-line message.
"""

from __future__ import annotations

import io
import json
import math
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from sumito.errors import SumitoError
from sumito.fileio import atomic_write_bytes, check_weights, read_file_bounded, read_npz_with_header, shown_path
from sumito.nn import (
    OUTPUT_KINDS,
    batch_outputs,
    first_outputs,
    forward,
    gradient,
    unpack,
)

FORMAT = "sumito-value-network"
FORMAT_VERSION = 1
INIT_RANGE = 0.01  # the paper: initial weights uniform in [-0.01, 0.01]
ARRAY_NAMES = ("W1", "b1", "W2", "b2")


#: the largest network file (and its arrays, inflated) that is read: far above any real network of ours
MAX_NETWORK_BYTES = 256 * 2**20
BUILTIN = "builtin"  # the name of the network shipped in the package (experiments/train_shipped_network.py)
# the networks shipped in the package, by the names ``net=`` takes: the one-ply TD(λ) network,
# and the TD-Leaf(λ) network, which is meant to be played inside a search (``engine``)
BUILTINS = {BUILTIN: "td-abalearn3.npz", "builtin-tdleaf": "tdleaf-abalearn3.npz"}


def network_path(name: str) -> str:
    """The file a player's ``net=`` option names: ``builtin`` and ``builtin-tdleaf`` are the
    shipped networks (see :data:`BUILTINS`), anything else a path."""
    if name in BUILTINS:
        return str(files("sumito") / "data" / BUILTINS[name])
    return name


class NetworkError(SumitoError):
    """A value network file that cannot be read, or a network that does not fit its use."""


# ---------------------------------------------------------------------------------------------
# the network


def _layout(n_inputs: int, n_hidden: int, n_outputs: int) -> tuple[int, ...]:
    a = n_hidden * n_inputs
    b = a + n_hidden
    c = b + n_outputs * n_hidden
    return a, b, c, c + n_outputs


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise NetworkError(f"{what} must be a whole number of at least 1, not {value!r}")
    return int(value)


def _output_kind(output: Any) -> int:
    if output not in OUTPUT_KINDS:
        raise NetworkError(f"unknown output kind {output!r}; known: {', '.join(OUTPUT_KINDS)}")
    return OUTPUT_KINDS.index(output)


class ValueNetwork:
    """inputs → ``n_hidden`` sigmoid units → ``n_outputs`` sigmoid (or linear, or tanh) units.

    ``ValueNetwork(14, 40, rng)`` draws every weight and bias uniformly from
    ``[-init_range, init_range]`` (0.01, the paper's) with ``rng`` (a ``numpy.random.Generator``
    or an int seed), in the order W1, b1, W2, b2. :meth:`from_arrays` builds one from given
    weights, :meth:`load` from a file.
    """

    def __init__(
        self,
        n_inputs: int,
        n_hidden: int,
        rng: np.random.Generator | int,
        *,
        n_outputs: int = 1,
        output: str = "sigmoid",
        init_range: float = INIT_RANGE,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self._setup(n_inputs, n_hidden, n_outputs, output, metadata)
        if not isinstance(rng, np.random.Generator):
            if isinstance(rng, bool) or not isinstance(rng, int | np.integer):
                raise NetworkError(f"rng must be a numpy Generator or an int seed, not {type(rng).__name__}")
            rng = np.random.default_rng(int(rng))
        if not (math.isfinite(init_range) and init_range >= 0.0):
            raise NetworkError(f"init_range must be a finite number of 0 or more, not {init_range!r}")
        self.theta[:] = rng.uniform(-init_range, init_range, self.theta.size)

    def _setup(self, n_inputs: int, n_hidden: int, n_outputs: int, output: str, metadata: dict | None) -> None:
        self.n_inputs = _positive_int(n_inputs, "n_inputs")
        self.n_hidden = _positive_int(n_hidden, "n_hidden")
        self.n_outputs = _positive_int(n_outputs, "n_outputs")
        self.output_kind = _output_kind(output)
        self.output = output
        if metadata is not None and not isinstance(metadata, dict):
            raise NetworkError(f"metadata must be a dict, not {type(metadata).__name__}")
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.source = "network"  # named in error messages; the file name once loaded
        a, b, c, d = _layout(self.n_inputs, self.n_hidden, self.n_outputs)
        self.theta = np.zeros(d, dtype=np.float64)
        self._W1 = self.theta[:a].reshape(self.n_hidden, self.n_inputs)
        self._b1 = self.theta[a:b]
        self._W2 = self.theta[b:c].reshape(self.n_outputs, self.n_hidden)
        self._b2 = self.theta[c:d]
        self.dims = np.array([self.n_inputs, self.n_hidden, self.n_outputs, self.output_kind], dtype=np.int64)
        self._hidden_buf = np.empty(self.n_hidden, dtype=np.float64)

    @classmethod
    def from_arrays(
        cls,
        W1: np.ndarray,
        b1: np.ndarray,
        W2: np.ndarray,
        b2: np.ndarray,
        *,
        output: str = "sigmoid",
        metadata: dict[str, Any] | None = None,
        source: str = "network",
    ) -> ValueNetwork:
        """A network with copies of the given weights (shapes W1[h, n], b1[h], W2[o, h], b2[o])."""
        arrays = {name: np.asarray(arr) for name, arr in zip(ARRAY_NAMES, (W1, b1, W2, b2))}
        # numbers, finite and within MAX_WEIGHT (what a network file holds, and a backgammon module)
        check_weights(arrays, source, NetworkError)
        arrays = {name: a.astype(np.float64) for name, a in arrays.items()}
        W1, b1, W2, b2 = (arrays[n] for n in ARRAY_NAMES)
        if W1.ndim != 2 or W2.ndim != 2 or b1.ndim != 1 or b2.ndim != 1:
            raise NetworkError(
                f"{source}: W1 and W2 must be 2-D and b1, b2 1-D, not {W1.ndim}, {W2.ndim}, {b1.ndim}, {b2.ndim}"
            )
        n_hidden, n_inputs = W1.shape
        n_outputs = W2.shape[0]
        expected = {"b1": (n_hidden,), "W2": (n_outputs, n_hidden), "b2": (n_outputs,)}
        for name, shape in expected.items():
            if arrays[name].shape != shape:
                raise NetworkError(
                    f"{source}: {name} has shape {arrays[name].shape}, but W1 {W1.shape} and W2 rows "
                    f"{n_outputs} need {shape}"
                )
        net = cls.__new__(cls)
        try:
            net._setup(n_inputs, n_hidden, n_outputs, output, metadata)
        except NetworkError as exc:
            raise NetworkError(f"{source}: {exc}") from None
        net.source = source
        net._W1[...] = W1
        net._b1[...] = b1
        net._W2[...] = W2
        net._b2[...] = b2
        return net

    # -- parameters ------------------------------------------------------------------------

    def _set(self, view: np.ndarray, name: str, value: np.ndarray) -> None:
        value = np.asarray(value, dtype=np.float64)
        if value.shape != view.shape:
            raise NetworkError(f"{name} must have shape {view.shape}, not {value.shape}")
        view[...] = value

    @property
    def W1(self) -> np.ndarray:
        """Input → hidden weights, ``[n_hidden, n_inputs]`` (a view into :attr:`theta`)."""
        return self._W1

    @W1.setter
    def W1(self, value: np.ndarray) -> None:
        self._set(self._W1, "W1", value)

    @property
    def b1(self) -> np.ndarray:
        """Hidden biases, ``[n_hidden]``."""
        return self._b1

    @b1.setter
    def b1(self, value: np.ndarray) -> None:
        self._set(self._b1, "b1", value)

    @property
    def W2(self) -> np.ndarray:
        """Hidden → output weights, ``[n_outputs, n_hidden]``."""
        return self._W2

    @W2.setter
    def W2(self, value: np.ndarray) -> None:
        self._set(self._W2, "W2", value)

    @property
    def b2(self) -> np.ndarray:
        """Output biases, ``[n_outputs]``."""
        return self._b2

    @b2.setter
    def b2(self, value: np.ndarray) -> None:
        self._set(self._b2, "b2", value)

    @property
    def params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(W1, b1, W2, b2)``, the views the kernels take."""
        return self._W1, self._b1, self._W2, self._b2

    @property
    def n_parameters(self) -> int:
        return int(self.theta.size)

    def zeros_like_params(self) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """A zeroed flat vector the size of :attr:`theta` and its ``(W1, b1, W2, b2)``-shaped views
        (for gradients and eligibility traces)."""
        flat = np.zeros_like(self.theta)
        return flat, unpack(flat, self.dims)

    def copy(self) -> ValueNetwork:
        net = ValueNetwork.from_arrays(*self.params, output=self.output, metadata=self.metadata, source=self.source)
        return net

    def __repr__(self) -> str:
        return (
            f"ValueNetwork(n_inputs={self.n_inputs}, n_hidden={self.n_hidden}, n_outputs={self.n_outputs}, "
            f"output={self.output!r})"
        )

    # -- evaluation ------------------------------------------------------------------------

    def _rows(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.n_inputs:
            raise NetworkError(f"{self.source} takes rows of {self.n_inputs} inputs, not an array of shape {X.shape}")
        return X

    def outputs(self, X: np.ndarray) -> np.ndarray:
        """Every output for every row of ``X`` (``[n, n_inputs]``, or one row): ``[n, n_outputs]``.

        One compiled call (:func:`sumito.nn.batch_outputs`): the same bits on every CPU, as in training."""
        X = self._rows(X)
        return batch_outputs(self._W1, self._b1, self._W2, self._b2, self.output_kind, _contiguous(X))

    def values(self, X: np.ndarray) -> np.ndarray:
        """The first output for every row of ``X``: ``[n]``; e.g. all afterstates of a position at once."""
        X = self._rows(X)
        return first_outputs(self._W1, self._b1, self._W2, self._b2, self.output_kind, _contiguous(X))

    def value(self, x: np.ndarray) -> float:
        """The first output for one input row (through the compiled kernel)."""
        x = self._row(x)
        return float(forward(self._W1, self._b1, self._W2, self._b2, self.output_kind, x, self._hidden_buf))

    def _row(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float64)
        if x.shape != (self.n_inputs,):
            raise NetworkError(f"{self.source} takes rows of {self.n_inputs} inputs, not an array of shape {x.shape}")
        return x

    def gradient(self, x: np.ndarray) -> tuple[float, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """V(x) and its gradient ``(gW1, gb1, gW2, gb2)`` (fresh arrays; the kernel is the hot path)."""
        x = self._row(x)
        _, grads = self.zeros_like_params()
        v = gradient(*self.params, self.output_kind, x, self._hidden_buf, *grads)
        return float(v), grads

    # -- files -----------------------------------------------------------------------------

    def header(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "n_inputs": self.n_inputs,
            "n_hidden": self.n_hidden,
            "n_outputs": self.n_outputs,
            "output": self.output,
            "metadata": self.metadata,
        }

    def divergence(self) -> str | None:
        """What makes the weights unusable, as a line (a weight not finite, or past
        :data:`~sumito.bounds.MAX_WEIGHT`: a training that diverged); ``None`` when they are sound."""
        try:
            check_weights(dict(zip(ARRAY_NAMES, self.params)), None, NetworkError)
        except NetworkError as exc:
            return str(exc)
        return None

    def save(self, path: str | Path) -> None:
        """Write the network to ``path`` (``.npz``) atomically: a temporary file, then a rename. Weights that
        :meth:`load` would refuse (not finite, or past :data:`~sumito.bounds.MAX_WEIGHT`: a training that
        diverged) are not written; the :class:`NetworkError` says so where it happened, not at a later load."""
        problem = self.divergence()
        if problem:
            raise NetworkError(f"{shown_path(path)} not written: {problem} (the training diverged; a smaller "
                               f"step size alpha may help)")
        try:
            meta = json.dumps(self.header(), default=_json_default, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise NetworkError(f"network metadata cannot be written as JSON: {exc}") from None
        buf = io.BytesIO()
        np.savez(buf, meta=np.array(meta), **{name: np.array(a) for name, a in zip(ARRAY_NAMES, self.params)})
        atomic_write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> ValueNetwork:
        """Read a network written by :meth:`save`; a bad file raises :class:`NetworkError`."""
        try:
            data = read_file_bounded(path, MAX_NETWORK_BYTES, "network file")
        except ValueError as exc:
            raise NetworkError(str(exc)) from None
        return cls.from_bytes(data, str(path))

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "network") -> ValueNetwork:
        try:
            header, arrays = read_npz_with_header(data, source, MAX_NETWORK_BYTES, ARRAY_NAMES, "network file")
        except ValueError as exc:
            raise NetworkError(str(exc)) from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise NetworkError(f"{source}: not a Sumito value network (format {_get(header, 'format')!r})")
        version = header.get("version")
        if version != FORMAT_VERSION:
            raise NetworkError(
                f"{source}: network format version {version!r}; this Sumito reads version {FORMAT_VERSION}"
            )
        for key in ("n_inputs", "n_hidden", "n_outputs", "output"):
            if key not in header:
                raise NetworkError(f"{source}: the header has no {key!r}")
        try:
            n_inputs = _positive_int(header["n_inputs"], "n_inputs")
            n_hidden = _positive_int(header["n_hidden"], "n_hidden")
            n_outputs = _positive_int(header["n_outputs"], "n_outputs")
            _output_kind(header["output"])
        except NetworkError as exc:
            raise NetworkError(f"{source}: {exc}") from None
        metadata = header.get("metadata", {})
        if not isinstance(metadata, dict):
            raise NetworkError(f"{source}: the header's metadata is not an object")
        for name in ARRAY_NAMES:
            if name not in arrays:
                raise NetworkError(f"{source}: no {name!r} array")
        shapes = {
            "W1": (n_hidden, n_inputs),
            "b1": (n_hidden,),
            "W2": (n_outputs, n_hidden),
            "b2": (n_outputs,),
        }
        for name, shape in shapes.items():
            if arrays[name].shape != shape:
                raise NetworkError(
                    f"{source}: {name} has shape {arrays[name].shape}, but the header "
                    f"({n_inputs} inputs, {n_hidden} hidden, {n_outputs} outputs) needs {shape}"
                )
        return cls.from_arrays(
            *(arrays[n] for n in ARRAY_NAMES), output=header["output"], metadata=metadata, source=source
        )

    def expect(self, n_inputs: int | None = None, encoding: str | None = None) -> None:
        """Check that the network fits an encoding: ``n_inputs`` inputs and, when given, the
        encoding name recorded in ``metadata["encoding"]``; :class:`NetworkError` otherwise."""
        recorded = self.metadata.get("encoding")
        if encoding is not None and recorded != encoding:
            if recorded is None:
                raise NetworkError(f"{self.source} records no encoding; it cannot be checked against {encoding!r}")
            raise NetworkError(f"{self.source} was made for encoding {recorded!r}, not {encoding!r}")
        if n_inputs is not None and n_inputs != self.n_inputs:
            what = f"encoding {encoding!r}" if encoding is not None else "the encoding"
            raise NetworkError(f"{self.source} has {self.n_inputs} inputs, but {what} gives {n_inputs}")


def _contiguous(X: np.ndarray) -> np.ndarray:
    """``X`` as the kernels take it: C-ordered, of float64 unless it already holds float32 or int8."""
    if X.dtype not in (np.float64, np.float32, np.int8):
        X = X.astype(np.float64)
    return np.ascontiguousarray(X)


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")
