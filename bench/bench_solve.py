"""The retrograde solver: the whole solve of a small variant, its phases, one thread against all, side by side.

Run:  python bench/bench_solve.py [--side 3] [--marbles 5] [--win 2] [--inline-only] [--threads 1 2]

For each thread count (numba's thread pool, set with ``numba.set_num_threads``), the same solve from scratch:
the first pass (scoring the positions decided at once, counting every other position's moves), then the
levels (taking moves back), then the verification pass that recomputes every position from its successors.
One thread is the baseline; the last column is the speed-up of the whole solve. The tables must come out
identical (their digests are printed). JIT compilation is done on a tiny variant before any timing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import time

import numba
import numpy as np

from sumito.cliargs import count_arg
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.variants import Variant
from sumito.solve import retrograde as R
from sumito.solve.index import space
from sumito.solve.solver import CHUNK, solve_values
from sumito.stopping import STOP


def timed_solve(variant: Variant) -> tuple[np.ndarray, float, float, float]:
    """The values, the first pass's seconds, the levels' seconds and the verification's seconds."""
    marks: list[float] = []
    start = time.perf_counter()
    values = solve_values(variant, on_level=lambda r: marks.append(time.perf_counter()))
    done = time.perf_counter()
    first_pass = marks[0] - start
    sp = space(variant)
    geo = geometry(variant.side)
    t0 = time.perf_counter()
    bad, _ = R.verify(values, geo.cells, geo.offsets, geo.zobrist, sp.binom, sp.block_start, variant.marbles,
                      variant.win_threshold, variant.inline_only, False, geo.empty_grid, 0, sp.size, CHUNK, STOP)
    if bad:
        raise SystemExit(f"the table differs from its successors at {bad} positions")
    return values, first_pass, done - start - first_pass, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", type=count_arg(2, 3), default=3)
    ap.add_argument("--marbles", type=count_arg(1, 9), default=5)
    ap.add_argument("--win", type=count_arg(1, 9), default=2)
    ap.add_argument("--inline-only", action="store_true")
    ap.add_argument("--threads", type=count_arg(1, 256), nargs="+", default=[1, numba.config.NUMBA_NUM_THREADS])
    args = ap.parse_args()
    variant = Variant(side=args.side, marbles=args.marbles, win_threshold=args.win, inline_only=args.inline_only)
    solve_values(Variant(side=2, marbles=2, win_threshold=1))  # compile the kernels first
    timed_solve(Variant(side=2, marbles=2, win_threshold=1))
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; {variant}: "
          f"{space(variant).size:,} positions")
    print("| threads | first pass s | levels s | solve s | positions/s | verify s | digest | speed-up |")
    print("|---|---|---|---|---|---|---|---|")
    base = None
    for threads in args.threads:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        values, first, levels, check = timed_solve(variant)
        total = first + levels
        base = base or total
        digest = hashlib.sha256(values.astype(np.int8).tobytes()).hexdigest()[:16]
        print(f"| {threads} | {first:.1f} | {levels:.1f} | {total:.1f} | {values.size / total:,.0f} | {check:.1f} | "
              f"{digest} | {base / total:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
