"""The NNUE's kernels, float64 (as shipped) beside float32: nanoseconds a call, and how far apart.

Run:  python bench/bench_nnue.py [--nnue builtin-nnue | FILE] [--positions 2000] [--repeat 50]

The learned evaluation may run quantised or as float32, whichever is faster at equal strength; the
search runs the network as float64. Before rewriting the search's arrays for
float32, this measures what it could gain: the same compiled kernels (numba compiles one
specialisation per dtype, so the code timed is the code the search runs) on float64 and on
float32 copies of the network's parameters and accumulators, in the same run. It also times the
kernels against each other: where the network's cost lies.

- ``update``: ``update_accumulator``, a child's accumulator from its parent's and the move
  (copy both perspectives, then add and take away the 2-6 marbles the move changes);
- ``output``: ``nnue_output``, clip both accumulators, the hidden layer of 16, the output (no
  fast-math: the same bits on every CPU; the hidden layer over the transposed W2, vectorised across
  its units);
- ``output fastmath``: the baseline, the same function with fast-math (``reassoc``, ``contract``),
  each unit's sum over W2's row, which the compiler vectorises by reordering the sum: scores that
  depend on the CPU's vector width (the bench prints how far they are from ``output``'s);
- ``base``: the hand-set linear evaluation the shipped network corrects (float64 only: it is the
  hand-set engine's own evaluation, computed from the board), for scale;
- ``refresh``: the accumulator summed from scratch, what the incremental update replaces.

The positions are those before a random legal move of random games from the shipped opening suite,
each with that move (pushes and push-offs included). A call's time is the loop's total over
``--repeat`` passes divided by the calls, in the process's CPU time (``time.process_time``: the
kernels are single-threaded, and CPU time is not inflated by other work on the machine), the least
of three such loops, the kernels taking turns (a busy machine's slow moments fall on all of them);
JIT compilation is excluded (a first pass warms up).
The last lines print the largest difference float32 makes to a score, in engine points and as a
fraction of the scores' spread: how far from "equal strength" float32 could be at equal depth.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from numba import njit

from sumito.arena.openings import load_openings
from sumito.cliargs import count_arg
from sumito.evaluation.features import nnue_base, work_arrays
from sumito.evaluation.nnue import (
    SCALE,
    NNUEError,
    _layout,
    load_network,
    nnue_output,
    refresh_accumulator,
    update_accumulator,
)
from sumito.games.abalone import Position

# numba's fast-math liberties that the baseline kernel took (sum reordering, fused multiply-adds): faster,
# but its scores depend on the CPU's vector width, so no kernel of Sumito's takes them
FAST = {"reassoc", "contract"}


@njit(cache=False, fastmath=FAST)
def output_fastmath(acc, side, lost_black, lost_white, params, x):
    """The baseline for the ``output`` row: ``nnue_output`` with fast-math, one unit's sum at a time
    over W2's row (``x``: float64[≥2H])."""
    _nf, h, h2, _t, _w1, _b1, w2, b2, w3, b3, _w2t = _layout(params)
    me = side - 1
    op = 1 - me
    xs = x[: 2 * h]
    for j in range(h):
        xs[j] = min(max(acc[me, j], 0.0), 1.0)
        xs[h + j] = min(max(acc[op, j], 0.0), 1.0)
    out = params[b3]
    if h2 == 0:
        w = params[w3 : w3 + 2 * h]
        for j in range(2 * h):
            out += w[j] * xs[j]
    else:
        layer = params[w2 : w2 + h2 * 2 * h].reshape((h2, 2 * h))
        bias = params[b2 : b2 + h2]
        w = params[w3 : w3 + h2]
        for u in range(h2):
            row = layer[u]
            z = bias[u]
            for j in range(2 * h):
                z += row[j] * xs[j]
            out += w[u] * min(max(z, 0.0), 1.0)
    lost_me = lost_black if side == 1 else lost_white
    lost_op = lost_white if side == 1 else lost_black
    return SCALE * (out + acc[me, h] - acc[op, h] + params[4] * (lost_op - lost_me))


@njit(cache=False)
def _time_update(parents, moves, sides, offsets, params, child, repeat):
    total = 0.0
    for _ in range(repeat):
        for i in range(moves.shape[0]):
            update_accumulator(parents[i], child, moves[i], sides[i], offsets, params)
            total += child[0, 0]
    return total


def _output_loop(kernel):
    """A timing loop for one output kernel. ``kernel`` is closed over, not passed: numba compiles a
    closed-over function as a direct call, but one passed as an argument as an indirect call, which
    would be timed too."""

    @njit(cache=False)
    def run(children, sides, lost, params, x, repeat):
        total = 0.0
        for _ in range(repeat):
            for i in range(sides.shape[0]):
                total += kernel(children[i], 3 - sides[i], lost[i, 0], lost[i, 1], params, x)
        return total

    return run


_time_output = _output_loop(nnue_output)
_time_output_fastmath = _output_loop(output_fastmath)


@njit(cache=False)
def _time_base(boards, sides, lost, cells, ring, offsets, edge_ring, params, raw, repeat):
    total = 0.0
    for _ in range(repeat):
        for i in range(sides.shape[0]):
            total += nnue_base(boards[i], sides[i], lost[i, 0], lost[i, 1], cells, ring, offsets, edge_ring,
                               params, raw)
    return total


@njit(cache=False)
def _time_refresh(boards, cells, params, acc, repeat):
    total = 0.0
    for _ in range(repeat):
        for i in range(boards.shape[0]):
            refresh_accumulator(boards[i], cells, params, acc)
            total += acc[0, 0]
    return total


def sample_positions(n: int, seed: int) -> tuple[list[Position], list[int]]:
    """``n`` positions of random play from the opening suite, each with a random legal move."""
    rng = np.random.default_rng(seed)
    openings = load_openings()
    positions: list[Position] = []
    moves: list[int] = []
    while len(positions) < n:
        pos = Position.from_string(openings[int(rng.integers(len(openings)))])
        for _ in range(int(rng.integers(10, 120))):
            codes = pos.legal_move_codes()
            if len(codes) == 0 or max(pos.lost) >= pos.variant.win_threshold:
                break
            mv = int(codes[rng.integers(len(codes))])
            positions.append(pos)
            moves.append(mv)
            pos = pos._after(mv)
            if len(positions) == n:
                break
    return positions, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nnue", default="builtin-nnue", help="the network (default: the shipped one)")
    parser.add_argument("--positions", type=count_arg(1, 100_000), default=2000)
    parser.add_argument("--repeat", type=count_arg(1, 10_000), default=50)
    parser.add_argument("--seed", type=count_arg(0, 2**63 - 1), default=0)
    args = parser.parse_args()
    try:
        net = load_network(args.nnue)
    except NNUEError as exc:
        parser.error(str(exc))

    positions, move_list = sample_positions(args.positions, args.seed)
    geo = positions[0].geometry
    n = len(positions)
    boards = np.stack([p.grid for p in positions])
    sides = np.array([p.side_to_move for p in positions], dtype=np.int64)
    lost = np.array([p.lost for p in positions], dtype=np.int64)
    moves = np.array(move_list, dtype=np.int64)
    h = net.hidden[0]
    raw, _scratch = work_arrays()

    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}; network {args.nnue} "
          f"(hidden {net.hidden[0]}, {net.hidden[1]}); {n} positions, seed {args.seed}, {args.repeat} passes")
    print(f"{'kernel':<14} {'float64 ns':>11} {'float32 ns':>11} {'f64/f32':>8}")
    results: dict[str, dict[type, float]] = {}
    outputs: dict[type, np.ndarray] = {}
    for dtype in (np.float64, np.float32):
        params = net.params().astype(dtype)
        parents = np.zeros((n, 2, h + 1), dtype=dtype)
        children = np.zeros((n, 2, h + 1), dtype=dtype)
        for i in range(n):
            refresh_accumulator(boards[i], geo.cells, params, parents[i])
            update_accumulator(parents[i], children[i], moves[i], sides[i], geo.offsets, params)
        x = np.zeros(2 * h + net.hidden[1], dtype=dtype)
        child = np.zeros((2, h + 1), dtype=dtype)
        outputs[dtype] = np.array([nnue_output(children[i], 3 - sides[i], lost[i, 0], lost[i, 1], params, x)
                                   for i in range(n)])
        kernels = {
            "update": lambda r, p=params, pa=parents, c=child: _time_update(pa, moves, sides, geo.offsets, p, c, r),
            "output": lambda r, p=params, ch=children, xx=x: _time_output(ch, sides, lost, p, xx, r),
            "refresh": lambda r, p=params, c=child: _time_refresh(boards, geo.cells, p, c, r),
        }
        if dtype is np.float64:
            kernels["output fastmath"] = lambda r, p=params, ch=children, xx=x: _time_output_fastmath(
                ch, sides, lost, p, xx, r)
            fast = np.array([output_fastmath(children[i], 3 - sides[i], lost[i, 0], lost[i, 1], params, x)
                             for i in range(n)])
            off = np.abs(fast - outputs[dtype])
            assert off.max() <= 1e-9 * max(1.0, float(np.abs(fast).max())), "nnue_output strays from its baseline"
            kernels["base"] = lambda r, p=params: _time_base(boards, sides, lost, geo.cells, geo.ring, geo.offsets,
                                                             geo.side - 1, p, raw, r)
        for run in kernels.values():
            run(1)  # compile
        for _ in range(3):
            for name, run in kernels.items():
                t0 = time.process_time()
                run(args.repeat)
                ns = (time.process_time() - t0) / (n * args.repeat) * 1e9
                best = results.setdefault(name, {})
                best[dtype] = min(ns, best.get(dtype, ns))
    for name in ("update", "output", "output fastmath", "base", "refresh"):
        f64 = results[name][np.float64]
        f32 = results[name].get(np.float32)
        ratio = f"{f64 / f32:8.2f}" if f32 else f"{'-':>8}"
        print(f"{name:<14} {f64:11.1f} {f32 if f32 else float('nan'):11.1f} {ratio}")
    print(f"output against output fastmath: {int(np.count_nonzero(off))} of {n} scores differ, by at most "
          f"{off.max():.3g} points (the last bits)")
    diff = np.abs(outputs[np.float64] - outputs[np.float32])
    spread = float(np.std(outputs[np.float64]))
    print(f"float32 against float64, the network's part of the score: largest difference {diff.max():.4g} points, "
          f"mean {diff.mean():.3g}; the scores' standard deviation {spread:.4g} points "
          f"(largest difference / sd = {diff.max() / spread:.2g})")
    per_node = results["update"][np.float64] + results["output"][np.float64]
    saved = per_node - results["update"][np.float32] - results["output"][np.float32]
    print(f"update + output a node: float64 {per_node:.1f} ns, float32 {per_node - saved:.1f} ns "
          f"({saved:.1f} ns saved a node)")


if __name__ == "__main__":
    main()
