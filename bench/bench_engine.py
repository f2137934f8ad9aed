"""Rules-engine speed: perft(1..5) from Standard and move generation on mid-game positions.

Run:  python bench/bench_engine.py [--depth 5] [--positions 64] [--seed 2026]

Everything runs on one core (the kernels are single-threaded numba). JIT warm-up (compiling, or
loading the on-disk cache) is timed and reported separately, outside the figures. The baseline,
measured in the same run on the same positions, is the slow pure-Python reference implementation
in tests/reference.py.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from sumito.games.abalone import Position
from sumito.games.abalone import kernels as K

import reference as R


@njit(cache=True)
def _generate_all(boards, sides, offsets, cells, reps, out):
    total = 0
    for _ in range(reps):
        for i in range(boards.shape[0]):
            total += K.generate_moves(boards[i], sides[i], offsets, cells, False, out)
    return total


@njit(cache=True)
def _count_all(boards, sides, offsets, cells, reps):
    total = 0
    for _ in range(reps):
        for i in range(boards.shape[0]):
            total += K.count_moves(boards[i], sides[i], offsets, cells, False)
    return total


def midgame_positions(n: int, seed: int) -> list[Position]:
    """``n`` positions from seeded random games, 20 to 60 plies in, from Standard and Belgian Daisy."""
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = Position.start("standard" if len(out) % 2 == 0 else "belgian-daisy")
        for _ in range(int(rng.integers(20, 61))):
            codes = pos.legal_move_codes()
            if len(codes) == 0:
                break
            pos = pos._after(int(codes[rng.integers(len(codes))]))
        if pos.winner() is None:
            out.append(pos)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--positions", type=int, default=64)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()

    print(f"# Sumito engine benchmark — Python {platform.python_version()}, {platform.machine()}, one core")
    start = Position.start("standard")
    geo = start.geometry

    t = time.perf_counter()
    start.perft(2)
    positions = midgame_positions(args.positions, args.seed)
    boards = np.stack([p.grid for p in positions])
    sides = np.array([p.side_to_move for p in positions], dtype=np.int64)
    out = np.empty(K.MAX_MOVES, dtype=np.int32)
    _generate_all(boards, sides, geo.offsets, geo.cells, 1, out)
    _count_all(boards, sides, geo.offsets, geo.cells, 1)
    print(f"warm-up (JIT compile or cache load): {time.perf_counter() - t:.2f} s")

    print("\n## perft from Standard (last ply counted without making the moves)")
    print(f"{'depth':>5} {'leaves':>14} {'seconds':>9} {'leaves/s':>14}")
    for depth in range(1, args.depth + 1):
        t = time.perf_counter()
        n = start.perft(depth)
        dt = time.perf_counter() - t
        print(f"{depth:>5} {n:>14,} {dt:>9.3f} {n / dt:>14,.0f}")

    print(f"\n## move generation on {len(positions)} mid-game positions (seed {args.seed})")
    reps = 2000
    t = time.perf_counter()
    moves = _generate_all(boards, sides, geo.offsets, geo.cells, reps, out)
    dt = time.perf_counter() - t
    gen_rate = reps * len(positions) / dt
    t = time.perf_counter()
    _count_all(boards, sides, geo.offsets, geo.cells, reps)
    dt_count = time.perf_counter() - t
    count_rate = reps * len(positions) / dt_count
    print(f"average legal moves per position: {moves / (reps * len(positions)):.1f}")

    # baseline: the pure-Python reference generator on the same positions
    t = time.perf_counter()
    ref_reps = 3
    for _ in range(ref_reps):
        for p in positions:
            s, board = R.parse_rows(p.to_string().split()[0])
            R.successors(s, board, "b" if p.side_to_move == 1 else "w")
    ref_rate = ref_reps * len(positions) / (time.perf_counter() - t)

    print(f"{'generator':<44} {'positions/s':>14} {'vs baseline':>12}")
    print(f"{'numba generate_moves (writes the move list)':<44} {gen_rate:>14,.0f} {gen_rate / ref_rate:>11,.0f}x")
    print(f"{'numba count_moves (counts only)':<44} {count_rate:>14,.0f} {count_rate / ref_rate:>11,.0f}x")
    print(f"{'baseline: pure-Python reference (tests/)':<44} {ref_rate:>14,.0f} {1:>11}x")

    # perft baseline at a depth the reference can reach
    t = time.perf_counter()
    s, board = R.parse_rows(start.to_string().split()[0])
    ref_n = R.perft(s, board, "b", 3)
    ref_dt = time.perf_counter() - t
    t = time.perf_counter()
    n = start.perft(3)
    dt = time.perf_counter() - t
    assert n == ref_n
    print(f"\nperft(3) = {n:,}: numba {dt * 1e3:.1f} ms, reference {ref_dt * 1e3:.0f} ms ({ref_dt / dt:,.0f}x)")


if __name__ == "__main__":
    main()
