"""TD(λ) speed: online updates per second, and batched evaluation of 60 rows.

Run:  python bench/bench_td.py [--inputs 14] [--hidden 40] [--rows 60] [--seconds 0.5]

The network is Abalearn 3's size by default: 14 inputs, 40 sigmoid hidden units, one sigmoid
output (641 parameters). One online TD(λ) update (``sumito.models.td``) evaluates V(s_{t+1}),
evaluates V(s_t) with its gradient, decays the traces and adds the gradient, and moves the
weights. It is timed four ways in the same run, on the same input rows:

* ``td_step`` kernel — the compiled step called from Python once per update (preallocated
  arrays, no allocation; includes numba's call overhead);
* ``TDLambda.step`` — the learner class's method around that kernel (input checks included);
* in-kernel loop — the same kernel called from a compiled loop: the update's own cost;
* numpy — the same update written with numpy array operations (the baseline), checked to give
  the same weights.

Batched evaluation of ``--rows`` rows (all afterstates of a position): ``ValueNetwork.values``
(one BLAS matrix product per layer), the compiled ``batch_values`` kernel, and the row kernel
called once per row from Python. Every figure is the best of 5 timed runs; JIT warm-up (compile,
or load from numba's disk cache) is timed and reported separately.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from sumito.models.network import ValueNetwork
from sumito.models.td import TDLambda, td_step
from sumito.nn import batch_values, forward


@njit(cache=True)
def _loop_steps(theta, trace, grad, hidden, dims, X, rewards, hyper, n):
    """``n`` online steps over the rows of X (cyclically), inside one compiled call."""
    m = X.shape[0]
    acc = 0.0
    for k in range(n):
        t = k % (m - 1)
        acc += td_step(theta, trace, grad, hidden, dims, X[t], rewards[t], X[t + 1], False, hyper)
    return acc


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def numpy_step(W1, b1, W2, b2, traces, x, reward, x_next, alpha, gamma, lam, kappa):
    """The same online TD(λ) step with numpy array operations (sigmoid hidden and output)."""
    v_next = _sigmoid(W2[0] @ _sigmoid(W1 @ x_next + b1) + b2[0])
    h = _sigmoid(W1 @ x + b1)
    v = _sigmoid(W2[0] @ h + b2[0])
    delta = reward + gamma * v_next - v
    dz = v * (1.0 - v)
    d = dz * W2[0] * h * (1.0 - h)
    eW1, eb1, eW2, eb2 = traces
    decay = gamma * lam
    eW1 *= decay
    eW1 += np.outer(d, x)
    eb1 *= decay
    eb1 += d
    eW2 *= decay
    eW2[0] += dz * h
    eb2 *= decay
    eb2[0] += dz
    step = alpha * ((1.0 - kappa) * delta if delta > 0 else (1.0 + kappa) * delta)
    W1 += step * eW1
    b1 += step * eb1
    W2 += step * eW2
    b2 += step * eb2
    return delta


def best_rate(fn: Callable[[], None], calls: int, repeats: int = 5) -> float:
    """Calls per second of ``fn`` (which makes ``calls`` calls), the best of ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return calls / best


def calibrate(fn_n: Callable[[int], None], seconds: float) -> int:
    n = 16
    while True:
        t = time.perf_counter()
        fn_n(n)
        if time.perf_counter() - t > seconds / 5 or n > 1 << 26:
            return n
        n *= 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=14)
    parser.add_argument("--hidden", type=int, default=40)
    parser.add_argument("--rows", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=0.5, help="about how long each timed run takes")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    X = rng.uniform(0.0, 1.0, size=(256, args.inputs))
    rewards = rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0], size=256)
    alpha, gamma, lam, kappa = 0.1, 0.9, 0.7, -0.8
    hyper = np.array([alpha, gamma, lam, kappa])

    t = time.perf_counter()
    warm = ValueNetwork(args.inputs, args.hidden, 1)
    warm_learner = TDLambda(warm)
    warm_learner.step(X[0], 0.0, X[1])
    _loop_steps(warm.theta, warm_learner.trace, np.empty_like(warm.theta), np.empty(args.hidden), warm.dims, X,
                rewards, hyper, 2)
    hidden = np.empty(args.hidden)
    out = np.empty(args.rows)
    batch_values(*warm.params, warm.output_kind, X[: args.rows], hidden, out)
    warmup = time.perf_counter() - t

    def fresh() -> tuple[ValueNetwork, TDLambda]:
        net = ValueNetwork(args.inputs, args.hidden, np.random.default_rng(1))
        return net, TDLambda(net, alpha=alpha, gamma=gamma, lam=lam, kappa=kappa)

    # the same 200 steps with the kernel and with numpy give the same weights
    net_k, learner_k = fresh()
    net_n, _ = fresh()
    traces_n = tuple(np.zeros_like(p) for p in net_n.params)
    for k in range(200):
        t_ = k % 255
        dk = learner_k.step(X[t_], rewards[t_], X[t_ + 1])
        dn = numpy_step(*net_n.params, traces_n, X[t_], rewards[t_], X[t_ + 1], alpha, gamma, lam, kappa)
        assert abs(dk - dn) < 1e-12
    assert np.allclose(net_k.theta, net_n.theta, rtol=1e-10, atol=1e-13), "kernel and numpy steps disagree"

    rates: dict[str, float] = {}
    net, learner = fresh()
    grad = np.empty_like(net.theta)

    def kernel_calls(n: int) -> None:
        theta, trace, dims = net.theta, learner.trace, net.dims
        for k in range(n):
            t_ = k % 255
            td_step(theta, trace, grad, hidden, dims, X[t_], rewards[t_], X[t_ + 1], False, hyper)

    def class_calls(n: int) -> None:
        for k in range(n):
            t_ = k % 255
            learner.step(X[t_], rewards[t_], X[t_ + 1])

    def in_kernel(n: int) -> None:
        _loop_steps(net.theta, learner.trace, grad, hidden, net.dims, X, rewards, hyper, n)

    net_np, _ = fresh()
    tr_np = tuple(np.zeros_like(p) for p in net_np.params)

    def numpy_calls(n: int) -> None:
        P = net_np.params
        for k in range(n):
            t_ = k % 255
            numpy_step(*P, tr_np, X[t_], rewards[t_], X[t_ + 1], alpha, gamma, lam, kappa)

    for name, fn in (("td_step kernel, one Python call per update", kernel_calls),
                     ("TDLambda.step (class method)", class_calls),
                     ("td_step in a compiled loop", in_kernel),
                     ("numpy (baseline)", numpy_calls)):
        n = calibrate(fn, args.seconds)
        rates[name] = best_rate(lambda fn=fn, n=n: fn(n), n)

    Xb = np.ascontiguousarray(X[: args.rows])
    enet = ValueNetwork(args.inputs, args.hidden, np.random.default_rng(3))
    evals: dict[str, float] = {}

    def values_numpy(n: int) -> None:
        for _ in range(n):
            enet.values(Xb)

    def values_kernel(n: int) -> None:
        P, kind = enet.params, enet.output_kind
        for _ in range(n):
            batch_values(*P, kind, Xb, hidden, out)

    def values_rows(n: int) -> None:
        W1, b1, W2, b2 = enet.params
        kind = enet.output_kind
        for _ in range(n):
            for r in range(args.rows):
                forward(W1, b1, W2, b2, kind, Xb[r], hidden)

    batch_values(*enet.params, enet.output_kind, Xb, hidden, out)
    assert np.allclose(out, enet.values(Xb), rtol=1e-12)
    for name, fn in (("ValueNetwork.values (numpy BLAS)", values_numpy),
                     ("batch_values kernel", values_kernel),
                     ("forward kernel, one Python call per row", values_rows)):
        n = calibrate(fn, args.seconds)
        evals[name] = best_rate(lambda fn=fn, n=n: fn(n), n)

    n_par = net.theta.size
    print(f"TD(lambda) benchmark — {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"numpy {np.__version__}, one thread")
    print(f"network {args.inputs}-{args.hidden}-1 (sigmoid), {n_par} parameters; "
          f"alpha={alpha} gamma={gamma} lambda={lam} kappa={kappa}")
    print(f"JIT warm-up (compile or load cache): {warmup:.2f} s, not included below")
    print()
    base = rates["numpy (baseline)"]
    print(f"{'online TD(lambda) step':<46} {'updates/s':>12} {'us/update':>10} {'vs numpy':>9}")
    for name, rate in rates.items():
        print(f"{name:<46} {rate:>12,.0f} {1e6 / rate:>10.2f} {rate / base:>8.1f}x")
    print()
    base = evals["ValueNetwork.values (numpy BLAS)"]
    print(f"{f'evaluating {args.rows} rows':<46} {'batches/s':>12} {'us/batch':>10} {'rows/s':>12} {'vs values':>9}")
    for name, rate in evals.items():
        print(f"{name:<46} {rate:>12,.0f} {1e6 / rate:>10.2f} {rate * args.rows:>12,.0f} {rate / base:>8.1f}x")


if __name__ == "__main__":
    main()
