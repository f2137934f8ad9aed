"""TD(λ) for a :class:`~sumito.models.network.ValueNetwork`: online with eligibility traces, offline
with λ-returns at the end of an episode, and training towards given targets. Game-independent.

**Conventions.** An episode visits the states ``s_0, s_1, …`` (their input rows ``x_t``);
``r_{t+1}`` is the reward received on the transition ``s_t → s_{t+1}``. A terminal state has
value 0, so a final transition's target is its reward alone (the Abalearn rewards: +1/−1 for a
push-off or the game's end, 0 otherwise; a game scored only at the end puts the result there).

**The risk-sensitive transform** (Mihatsch & Neuneier, used by Abalearn, equation 2):
``χ^κ(x) = (1 − κ)x`` for ``x > 0`` and ``(1 + κ)x`` otherwise, ``κ ∈ [−1, 1]``. κ = 0 is
ordinary TD; κ < 0 is risk-seeking (κ = −1, the paper's best self-play agent, ignores negative
TD errors and doubles positive ones); κ > 0 risk-averse (κ = 1 ignores positive errors).

**Online TD(λ)** (the paper's equation 5, accumulating traces), one compiled call per step::

    δ_t = r_{t+1} + γ V(s_{t+1}) − V(s_t)           (V(s_{t+1}) = 0 when s_{t+1} is terminal)
    e   ← λ e + ∇_w V(s_t)
    w   ← w + α χ^κ(δ_t) e

The trace decays by λ, as equation 5's ``Σ_k λ^(t−k) ∇V(s_k)`` says (``trace_decay="lambda"``,
the default); ``trace_decay="gamma-lambda"`` decays it by γλ, Sutton & Barto's form for a
discounted return, which differs from the paper's whenever γ < 1.

V(s_{t+1}) is evaluated with the weights before the update. Defaults α = 0.1, γ = 0.9, λ = 0.7
(the Abalearn paper's). γ may be negative, down to −1: γ = −1 with values always taken from the
side to move is Wiering's minimax ("negamax") TD rule for alternating-turn games.

**Offline TD(λ)** (Wiering 2010, section 3.3): at the end of an episode of states
``s_0 … s_{T−1}`` with rewards ``r_1 … r_T`` (``rewards[t]`` received on leaving ``s_t``) and
``s_T`` terminal (value ``final_value``, 0 by default; pass V(s_T) for an episode cut short), the
λ-returns are computed backwards,

    G_{T−1} = r_T + γ·final_value
    G_t     = r_{t+1} + γ((1 − λ) V(s_{t+1}) + λ G_{t+1})

(equivalently ``G_t = r_{t+1} + γV(s_{t+1}) + γλ(G_{t+1} − V(s_{t+1}))``, Wiering's form), with
V the values at the end of the episode — the network's own, or an external evaluator's (the
"learning from the expert's evaluations" regime). Then each state is moved towards its target in
order, ``w ← w + α χ^κ(G_t − V(s_t)) ∇V(s_t)`` with the current weights (Sutton & Barto's
offline λ-return algorithm), or with ``accumulate=True`` all updates are computed at the
episode's weights and applied together (then, with κ = 0, the total equals online TD(λ)'s with
the weights frozen during the episode). :func:`fit_targets` is the same update towards any given
targets.

:class:`TDLambda` holds a network, α, γ, λ, κ and the traces, with :meth:`~TDLambda.state_dict`
and :meth:`~TDLambda.load_state_dict` for checkpoints that resume bit for bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sumito.errors import SumitoError
from sumito.jit import njit
from sumito.models.network import ValueNetwork
from sumito.nn import OUTPUT_KINDS, SIGMOID, forward, gradient, sigmoid, unpack

ALPHA = 0.1
GAMMA = 0.9
LAMBDA = 0.7
KAPPA = 0.0
STATE_VERSION = 1
TRACE_DECAYS = ("lambda", "gamma-lambda")  # eq. 5's λ^(t−k), or Sutton & Barto's (γλ)^(t−k)


class TDError(SumitoError):
    """A bad TD(λ) setting (α, γ, λ, κ), input row or learner state."""


# ---------------------------------------------------------------------------------------------
# checks


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TDError(f"{name} must be a number, not {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise TDError(f"{name} must be a finite number, not {value!r}")
    return x


def check_kappa(kappa: Any) -> float:
    """κ as a float, or :class:`TDError` unless −1 ≤ κ ≤ 1."""
    k = _number(kappa, "kappa")
    if not -1.0 <= k <= 1.0:
        raise TDError(f"kappa must lie between -1 and 1 (0: ordinary TD, negative: risk-seeking), not {kappa!r}")
    return k


def check_alpha(alpha: Any) -> float:
    a = _number(alpha, "alpha")
    if a <= 0.0:
        raise TDError(f"alpha (the learning rate) must be above 0, not {alpha!r}")
    return a


def check_gamma(gamma: Any) -> float:
    g = _number(gamma, "gamma")
    if not -1.0 <= g <= 1.0:
        raise TDError(f"gamma (the discount) must lie between -1 and 1, not {gamma!r}")
    return g


def check_trace_decay(trace_decay: Any) -> str:
    if trace_decay not in TRACE_DECAYS:
        raise TDError(f"trace_decay must be one of {', '.join(TRACE_DECAYS)}, not {trace_decay!r}")
    return trace_decay


def check_lambda(lam: Any) -> float:
    v = _number(lam, "lambda")
    if not 0.0 <= v <= 1.0:
        raise TDError(f"lambda must lie between 0 and 1, not {lam!r}")
    return v


# ---------------------------------------------------------------------------------------------
# kernels


@njit(cache=True, inline="always")
def chi(delta: float, kappa: float) -> float:
    """The risk-sensitive transform χ^κ (no check of κ; see :func:`check_kappa`)."""
    if delta > 0.0:
        return (1.0 - kappa) * delta
    return (1.0 + kappa) * delta


def risk_transform(delta: np.ndarray | float, kappa: float) -> np.ndarray:
    """χ^κ on a number or an array, with κ checked."""
    k = check_kappa(kappa)
    d = np.asarray(delta, dtype=np.float64)
    return np.where(d > 0.0, (1.0 - k) * d, (1.0 + k) * d)


@njit(cache=True)
def td_update(theta, trace, grad, hidden, dims, x, target, hyper):
    """One online TD(λ) update of V(x) towards ``target`` (= r + γV(s'), or r when s' is terminal).

    ``theta``/``trace``/``grad``: flat parameter, trace and scratch vectors (layout of
    :func:`~sumito.models.network.unpack`); ``hidden``: scratch of n_hidden; ``hyper`` =
    ``[α, γ, λ, κ, trace decay]`` (the decay is λ or γλ). Sets ``e ← decay·e + ∇V(x)`` and
    ``w ← w + αχ^κ(δ)e``; returns δ = target − V(x).
    """
    alpha, kappa, decay = hyper[0], hyper[3], hyper[4]
    W1, b1, W2, b2 = unpack(theta, dims)
    gW1, gb1, gW2, gb2 = unpack(grad, dims)
    v = gradient(W1, b1, W2, b2, dims[3], x, hidden, gW1, gb1, gW2, gb2)
    delta = target - v
    step = alpha * chi(delta, kappa)
    for i in range(theta.shape[0]):
        e = decay * trace[i] + grad[i]
        trace[i] = e
        theta[i] += step * e
    return delta


@njit(cache=True)
def td_step(theta, trace, grad, hidden, dims, x, reward, x_next, terminal, hyper):
    """One online TD(λ) step from ``x`` (s_t) to ``x_next`` (s_{t+1}) with reward r_{t+1}.

    The target is ``reward + γV(x_next)``, or ``reward`` when ``terminal`` (``x_next`` is then not
    read). Trace and weight updates as :func:`td_update`; nothing is allocated. Returns δ_t.
    """
    target = reward
    if not terminal:
        W1, b1, W2, b2 = unpack(theta, dims)
        target += hyper[1] * forward(W1, b1, W2, b2, dims[3], x_next, hidden)
    return td_update(theta, trace, grad, hidden, dims, x, target, hyper)


@njit(cache=True)
def lambda_returns_into(values, rewards, gamma, lam, final_value, out):
    """The λ-returns of an episode into ``out`` (see the module notes); ``values[0]`` is not used."""
    n = rewards.shape[0]
    g = final_value
    v_next = final_value
    for t in range(n - 1, -1, -1):
        g = rewards[t] + gamma * ((1.0 - lam) * v_next + lam * g)
        out[t] = g
        v_next = values[t]


@njit(cache=True)
def fit_kernel(theta, grad, hidden, dims, X, targets, alpha, kappa, accumulate, total, errors):
    """Move V(X[t]) towards ``targets[t]`` for every row: ``w += α χ^κ(target − V) ∇V``.

    In order with the current weights, or (``accumulate``) all at the starting weights, summed
    in ``total`` and applied at the end. ``errors[t]`` receives ``target − V`` as used.
    """
    W1, b1, W2, b2 = unpack(theta, dims)
    gW1, gb1, gW2, gb2 = unpack(grad, dims)
    n_par = theta.shape[0]
    if accumulate:
        for i in range(n_par):
            total[i] = 0.0
    for t in range(X.shape[0]):
        v = gradient(W1, b1, W2, b2, dims[3], X[t], hidden, gW1, gb1, gW2, gb2)
        err = targets[t] - v
        errors[t] = err
        step = alpha * chi(err, kappa)
        if accumulate:
            for i in range(n_par):
                total[i] += step * grad[i]
        else:
            for i in range(n_par):
                theta[i] += step * grad[i]
    if accumulate:
        for i in range(n_par):
            theta[i] += total[i]


@njit(cache=True)
def fit_outputs_kernel(theta, dims, X, targets, alpha, hidden, delta_out, errors):
    """Backpropagation of every output towards its own target, row by row with the current weights
    (Wiering 2010, section 3.3): ``δ_O(o) = D_o − O_o`` (times ``O(1 − O)`` for a sigmoid output),
    ``δ_H(h) = Σ_o δ_O(o) w_ho H_h(1 − H_h)``, then ``w ← w + α δ …`` for both layers.

    ``targets``/``errors``: ``[n, n_outputs]``; ``hidden``/``delta_out``: scratch of n_hidden /
    n_outputs. With one output this is :func:`fit_kernel`'s update with κ = 0. Zero inputs are
    skipped in the first layer's update, which matters for sparse board encodings.
    """
    W1, b1, W2, b2 = unpack(theta, dims)
    n_in, n_hid, n_out, kind = dims[0], dims[1], dims[2], dims[3]
    for t in range(X.shape[0]):
        for h in range(n_hid):
            z = b1[h]
            for i in range(n_in):
                z += W1[h, i] * X[t, i]
            hidden[h] = sigmoid(z)
        for o in range(n_out):
            z = b2[o]
            for h in range(n_hid):
                z += W2[o, h] * hidden[h]
            if kind == SIGMOID:
                y = sigmoid(z)
                delta_out[o] = (targets[t, o] - y) * y * (1.0 - y)
            else:
                y = z
                delta_out[o] = targets[t, o] - y
            errors[t, o] = targets[t, o] - y
        for h in range(n_hid):
            back = 0.0
            for o in range(n_out):
                back += delta_out[o] * W2[o, h]
                W2[o, h] += alpha * delta_out[o] * hidden[h]
            step = alpha * back * hidden[h] * (1.0 - hidden[h])
            b1[h] += step
            if step != 0.0:
                for i in range(n_in):
                    if X[t, i] != 0.0:
                        W1[h, i] += step * X[t, i]
        for o in range(n_out):
            b2[o] += alpha * delta_out[o]


# ---------------------------------------------------------------------------------------------
# offline TD(λ) and training towards targets


def _vector(values: Any, name: str, n: int | None = None) -> np.ndarray:
    a = np.ascontiguousarray(values, dtype=np.float64)
    if a.ndim != 1 or (n is not None and a.shape[0] != n):
        want = f"{n} numbers" if n is not None else "a 1-D array"
        raise TDError(f"{name} must be {want}, not an array of shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise TDError(f"{name} holds non-finite numbers")
    return a


def _inputs(network: ValueNetwork, X: Any) -> np.ndarray:
    a = np.ascontiguousarray(X, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != network.n_inputs:
        raise TDError(f"the inputs must be rows of {network.n_inputs} numbers, not an array of shape {a.shape}")
    return a


def lambda_returns(
    values: Any, rewards: Any, gamma: float = GAMMA, lam: float = LAMBDA, final_value: float = 0.0
) -> np.ndarray:
    """The λ-return targets ``G_0 … G_{T−1}`` of an episode (module notes).

    ``values[t]`` = V(s_t) for t < T (``values[0]`` is not used), ``rewards[t]`` the reward on
    leaving s_t, ``final_value`` the value of s_T (0: terminal)."""
    r = _vector(rewards, "rewards")
    v = _vector(values, "values", r.shape[0])
    out = np.empty_like(r)
    fv = _number(final_value, "final_value")
    lambda_returns_into(v, r, check_gamma(gamma), check_lambda(lam), fv, out)
    return out


def fit_targets(
    network: ValueNetwork,
    X: Any,
    targets: Any,
    *,
    alpha: float = ALPHA,
    kappa: float = KAPPA,
    accumulate: bool = False,
) -> np.ndarray:
    """Train V(X[t]) towards ``targets[t]`` (e.g. an expert's evaluations, or λ-returns):
    ``w ← w + α χ^κ(target − V(x)) ∇V(x)`` row by row (or summed, ``accumulate``).

    Returns the errors ``target − V(x)`` each update used."""
    X = _inputs(network, X)
    y = _vector(targets, "targets", X.shape[0])
    a, k = check_alpha(alpha), check_kappa(kappa)
    grad = np.empty_like(network.theta)
    total = np.empty_like(network.theta) if accumulate else np.empty(0)
    errors = np.empty(X.shape[0])
    hidden = np.empty(network.n_hidden)
    fit_kernel(network.theta, grad, hidden, network.dims, X, y, a, k, bool(accumulate), total, errors)
    return errors


def fit_outputs(network: ValueNetwork, X: Any, targets: Any, *, alpha: float = ALPHA) -> np.ndarray:
    """Train every output of ``network`` towards its own column of ``targets`` (``[n, n_outputs]``),
    row by row (:func:`fit_outputs_kernel`); returns the errors ``target − output`` each update used."""
    X = _inputs(network, X)
    y = np.ascontiguousarray(targets, dtype=np.float64)
    if y.shape != (X.shape[0], network.n_outputs):
        raise TDError(f"targets must have shape {(X.shape[0], network.n_outputs)}, not {y.shape}")
    if not np.all(np.isfinite(y)):
        raise TDError("targets hold non-finite numbers")
    errors = np.empty_like(y)
    fit_outputs_kernel(network.theta, network.dims, X, y, check_alpha(alpha), np.empty(network.n_hidden),
                       np.empty(network.n_outputs), errors)
    return errors


def offline_td_lambda(
    network: ValueNetwork,
    X: Any,
    rewards: Any,
    *,
    alpha: float = ALPHA,
    gamma: float = GAMMA,
    lam: float = LAMBDA,
    kappa: float = KAPPA,
    final_value: float = 0.0,
    values: Any = None,
    accumulate: bool = False,
) -> np.ndarray:
    """Offline TD(λ) at the end of an episode: λ-returns, then :func:`fit_targets`.

    ``X``: the input rows of s_0 … s_{T−1}; ``rewards[t]``: the reward on leaving s_t;
    ``final_value``: the value of s_T (0 when terminal). ``values``: V(s_t) for the λ-returns —
    by default the network's own before the update, or an external evaluator's (learning from an
    expert's evaluations). Returns the targets."""
    X = _inputs(network, X)
    r = _vector(rewards, "rewards", X.shape[0])
    v = network.values(X) if values is None else _vector(values, "values", X.shape[0])
    targets = np.empty_like(r)
    lambda_returns_into(v, r, check_gamma(gamma), check_lambda(lam), _number(final_value, "final_value"), targets)
    fit_targets(network, X, targets, alpha=alpha, kappa=kappa, accumulate=accumulate)
    return targets


# ---------------------------------------------------------------------------------------------
# the learner


class TDLambda:
    """Online TD(λ) with accumulating eligibility traces for one :class:`ValueNetwork`::

        learner = TDLambda(ValueNetwork(14, 40, rng), alpha=0.1, gamma=0.9, lam=0.7, kappa=-1.0)
        learner.start_episode()
        learner.step(x0, 0.0, x1)           # s_0 -> s_1, reward 0
        learner.end_episode(x1, 1.0)        # s_1 -> terminal, reward 1; clears the traces

    ``trace`` is the flat trace vector (``traces`` its ``(W1, b1, W2, b2)``-shaped views). The
    network's weights change in place.
    """

    def __init__(
        self,
        network: ValueNetwork,
        *,
        alpha: float = ALPHA,
        gamma: float = GAMMA,
        lam: float = LAMBDA,
        kappa: float = KAPPA,
        trace_decay: str = "lambda",
    ) -> None:
        if not isinstance(network, ValueNetwork):
            raise TDError(f"TDLambda needs a ValueNetwork, not {type(network).__name__}")
        self.network = network
        self._hyper = np.zeros(5, dtype=np.float64)
        self._trace_decay = check_trace_decay(trace_decay)
        self.alpha, self.gamma, self.lam, self.kappa = alpha, gamma, lam, kappa
        self.trace = np.zeros_like(network.theta)
        self._grad = np.zeros_like(network.theta)
        self._hidden = np.zeros(network.n_hidden, dtype=np.float64)
        self.steps = 0  # updates made
        self.episodes = 0  # episodes ended

    # hyper-parameters, checked, mirrored into the array the kernels read
    @property
    def alpha(self) -> float:
        return float(self._hyper[0])

    @alpha.setter
    def alpha(self, value: float) -> None:
        self._hyper[0] = check_alpha(value)

    @property
    def gamma(self) -> float:
        return float(self._hyper[1])

    @gamma.setter
    def gamma(self, value: float) -> None:
        self._hyper[1] = check_gamma(value)
        self._set_decay()

    @property
    def lam(self) -> float:
        return float(self._hyper[2])

    @lam.setter
    def lam(self, value: float) -> None:
        self._hyper[2] = check_lambda(value)
        self._set_decay()

    @property
    def trace_decay(self) -> str:
        """``"lambda"`` (equation 5) or ``"gamma-lambda"``: what the traces decay by each step."""
        return self._trace_decay

    @trace_decay.setter
    def trace_decay(self, value: str) -> None:
        self._trace_decay = check_trace_decay(value)
        self._set_decay()

    def _set_decay(self) -> None:
        lam = self._hyper[2]
        self._hyper[4] = lam if self._trace_decay == "lambda" else self._hyper[1] * lam

    @property
    def kappa(self) -> float:
        return float(self._hyper[3])

    @kappa.setter
    def kappa(self, value: float) -> None:
        self._hyper[3] = check_kappa(value)

    @property
    def traces(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The eligibility traces shaped like ``(W1, b1, W2, b2)`` (views of :attr:`trace`)."""
        return unpack(self.trace, self.network.dims)

    def __repr__(self) -> str:
        return (
            f"TDLambda({self.network!r}, alpha={self.alpha}, gamma={self.gamma}, lam={self.lam}, "
            f"kappa={self.kappa}, trace_decay={self.trace_decay!r})"
        )

    def _row(self, x: Any, name: str) -> np.ndarray:
        a = np.ascontiguousarray(x, dtype=np.float64)
        if a.shape != (self.network.n_inputs,):
            raise TDError(f"{name} must be a row of {self.network.n_inputs} inputs, not an array of shape {a.shape}")
        return a

    def start_episode(self) -> None:
        """Clear the eligibility traces."""
        self.trace[:] = 0.0

    def step(
        self,
        x_t: Any,
        reward: float = 0.0,
        x_next: Any = None,
        terminal: bool = False,
        *,
        next_value: float | None = None,
    ) -> float:
        """One online update for the transition s_t → s_{t+1} with reward r_{t+1}; returns δ_t.

        The target is ``reward + γ V(x_next)``, or ``reward`` alone when ``terminal``.
        ``next_value`` gives V(s_{t+1}) instead of ``x_next`` when the caller has it already (from
        a batched evaluation of the afterstates with the current weights)."""
        x = self._row(x_t, "x_t")
        r = float(reward)
        if terminal:
            target = r
        elif next_value is not None:
            target = r + self._hyper[1] * float(next_value)
        elif x_next is None:
            raise TDError("a non-terminal step needs x_next (or next_value)")
        else:
            xn = self._row(x_next, "x_next")
            self.steps += 1
            return float(
                td_step(self.network.theta, self.trace, self._grad, self._hidden, self.network.dims, x, r, xn,
                        False, self._hyper)
            )
        self.steps += 1
        return float(
            td_update(self.network.theta, self.trace, self._grad, self._hidden, self.network.dims, x, target,
                      self._hyper)
        )

    def end_episode(self, x_last: Any = None, reward: float = 0.0) -> float | None:
        """End the episode: with ``x_last``, first the terminal step from it with the final
        ``reward`` (returns its δ); then the traces are cleared and :attr:`episodes` counted."""
        delta = None if x_last is None else self.step(x_last, reward, terminal=True)
        self.trace[:] = 0.0
        self.episodes += 1
        return delta

    # -- checkpoints -----------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The whole learner state as plain numpy arrays (copies) and numbers."""
        net = self.network
        state: dict[str, Any] = {"version": STATE_VERSION, "output_kind": net.output_kind}
        for name, a in zip(("W1", "b1", "W2", "b2"), net.params):
            state[name] = a.copy()
        for name, a in zip(("trace_W1", "trace_b1", "trace_W2", "trace_b2"), self.traces):
            state[name] = a.copy()
        state.update(alpha=self.alpha, gamma=self.gamma, lam=self.lam, kappa=self.kappa, steps=self.steps,
                     episodes=self.episodes, trace_decay=self.trace_decay)
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a :meth:`state_dict` into this learner (same architecture), in place."""
        if not isinstance(state, dict):
            raise TDError(f"a learner state is a dict, not {type(state).__name__}")
        keys = ("version", "output_kind", "W1", "b1", "W2", "b2", "trace_W1", "trace_b1", "trace_W2", "trace_b2",
                "alpha", "gamma", "lam", "kappa", "steps", "episodes")
        for key in keys:
            if key not in state:
                raise TDError(f"the learner state has no {key!r}")
        if state["version"] != STATE_VERSION:
            raise TDError(f"learner state version {state['version']!r}; this Sumito reads version {STATE_VERSION}")
        net = self.network
        if int(state["output_kind"]) != net.output_kind:
            raise TDError(f"the state is of a network with output kind {state['output_kind']!r}, not {net.output_kind}")
        arrays = {}
        targets = dict(zip(("W1", "b1", "W2", "b2"), net.params))
        targets.update(zip(("trace_W1", "trace_b1", "trace_W2", "trace_b2"), self.traces))
        for name, dest in targets.items():
            a = np.asarray(state[name], dtype=np.float64)
            if a.shape != dest.shape:
                raise TDError(f"the state's {name} has shape {a.shape}, but this network needs {dest.shape}")
            arrays[name] = a
        hyper = (check_alpha(state["alpha"]), check_gamma(state["gamma"]), check_lambda(state["lam"]),
                 check_kappa(state["kappa"]))
        # states saved before the choice existed decayed their traces by γλ
        trace_decay = check_trace_decay(str(state.get("trace_decay", "gamma-lambda")))
        for name, dest in targets.items():
            dest[...] = arrays[name]
        self._hyper[:4] = hyper
        self.trace_decay = trace_decay
        self.steps = int(state["steps"])
        self.episodes = int(state["episodes"])

    @classmethod
    def from_state_dict(cls, state: dict[str, Any], metadata: dict[str, Any] | None = None) -> TDLambda:
        """A new learner (and network) from a :meth:`state_dict`."""
        try:
            kind = OUTPUT_KINDS[int(state["output_kind"])]
            arrays = [state[n] for n in ("W1", "b1", "W2", "b2")]
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise TDError(f"not a learner state ({type(exc).__name__}: {exc})") from None
        net = ValueNetwork.from_arrays(*arrays, output=kind, metadata=metadata, source="learner state")
        learner = cls(net)
        learner.load_state_dict(state)
        return learner
