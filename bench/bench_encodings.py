"""Speed of the Abalearn encodings: every afterstate of mid-game positions, encoded for the mover.

Run:  python bench/bench_encodings.py [--positions 64] [--seed 2026] [--reps 300]

For each encoding (abalearn1/2/3) on the same mid-game positions (seeded random games, 20 to 60
plies in, Standard and Belgian Daisy), the move lists generated beforehand:

* ``encode_successors`` (fused: make, encode, unmake in place), called from a numba loop over
  the positions (the kernel's own speed) and from a Python loop, one call a position (what a
  trainer driving games from Python pays, call overhead included);
* the baseline, measured in the same run: ``kernels.expand`` (one board copy a successor) plus
  a vectorised plain-numpy encoding of the expanded boards (checked equal to the kernel's);
* the test suite's pure-Python reference (``tests/test_encodings.py``, from ``Position``
  objects) on the first 8 positions, for scale.

One core. JIT warm-up (compiling or loading numba's on-disk cache) is timed and reported
separately, outside the figures.
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

import test_encodings as T
from bench_engine import midgame_positions  # the same positions as the engine benchmark
from sumito.games.abalone import kernels as K
from sumito.models.abalone_encodings import ENCODINGS, MAX_MOVES, edge_cells, encode_successors


@njit  # not cached: numba's cache would not notice a change to the encoding kernels it calls
def _fused_all(boards, sides, lost, moves, counts, offsets, cells, ring, zobrist, edges, marbles, win, kind, reps,
               out):
    total = 0
    for _ in range(reps):
        for i in range(boards.shape[0]):
            total += encode_successors(boards[i], sides[i], lost[i, 0], lost[i, 1], moves[i], counts[i], offsets,
                                       cells, ring, zobrist, edges, marbles, win, kind, out)
    return total


class NumpyEncoder:
    """The baseline: each encoding of a batch of padded grids in vectorised numpy."""

    def __init__(self, geo, variant) -> None:
        cells = geo.cells
        r = geo.ring[cells].astype(np.int64)
        self.radius = geo.side - 1
        self.cells = cells
        self.dist = r
        self.classes = [r <= 1, (r > 1) & (r < self.radius), r == self.radius]
        self.neighbours = cells[:, None] + geo.offsets[None, :]
        self.marbles, self.win = variant.marbles, variant.win_threshold
        size = geo.width * geo.width
        edges = edge_cells(geo.side)
        lines, owner = [], []
        empty = geo.empty_grid
        for j, e in enumerate(edges):
            for off in geo.offsets:
                if empty[e + off] == K.OFF:  # a direction that leaves the board from e
                    lines.append([e - k * off for k in range(5)])
                    owner.append(j)
        # indices past a sentinel are clipped: they are only read once the cells before them matched
        self.lines = np.clip(np.array(lines), 0, size - 1)
        self.owner = np.zeros((len(lines), len(edges)))
        self.owner[np.arange(len(lines)), owner] = 1.0

    def threatened(self, boards, v):
        a = 3 - v
        x = boards[:, self.lines]
        one = (x[..., 1] == a) & (x[..., 2] == a)
        two = (x[..., 1] == v) & (x[..., 2] == a) & (x[..., 3] == a) & (x[..., 4] == a)
        hit = ((x[..., 0] == v) & (one | two)).astype(np.float64)
        return ((hit @ self.owner) > 0).sum(axis=1)

    def encode(self, kind, boards, lost, me):
        opp = 3 - me
        vals = boards[:, self.cells]
        lost_me, lost_op = lost[:, me - 1] / self.win, lost[:, opp - 1] / self.win
        if kind == 0:
            x = (vals == me).astype(np.float64) - (vals == opp)
            return np.column_stack([x, lost_me, lost_op])
        cols = []
        for color, lost_c in ((me, lost_me), (opp, lost_op)):
            own = vals == color
            cols += [own[:, c].sum(axis=1) / self.marbles for c in self.classes] + [lost_c]
        if kind == 1:
            return np.column_stack(cols)
        nb = boards[:, self.neighbours]
        for color in (me, opp):
            own = vals == color
            covered = ((nb == color) | (nb == K.OFF)).all(axis=2)
            count = own.sum(axis=1)
            dist = np.where(count > 0, (own * self.dist).sum(axis=1) / np.maximum(count, 1) / self.radius, 0.0)
            cols += [(own & covered).sum(axis=1) / self.marbles, dist, self.threatened(boards, color) / self.marbles]
        return np.column_stack(cols)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=64)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--reps", type=int, default=300)
    args = ap.parse_args()

    print(f"# Abalearn encodings benchmark — Python {platform.python_version()}, {platform.machine()}, one core")
    positions = midgame_positions(args.positions, args.seed)
    geo, variant = positions[0].geometry, positions[0].variant
    edges = edge_cells(geo.side)
    boards = np.stack([p.grid for p in positions])  # a writable copy
    sides = np.array([p.side_to_move for p in positions], dtype=np.int64)
    lost = np.array([p.lost for p in positions], dtype=np.int64)
    moves = np.zeros((len(positions), MAX_MOVES), dtype=np.int32)
    counts = np.zeros(len(positions), dtype=np.int64)
    for i, p in enumerate(positions):
        codes = p.legal_move_codes()
        moves[i, : len(codes)] = codes
        counts[i] = len(codes)
    n_succ = int(counts.sum())
    numpy_encoder = NumpyEncoder(geo, variant)
    fixed = (geo.offsets, geo.cells, geo.ring, geo.zobrist, edges, variant.marbles, variant.win_threshold)

    t = time.perf_counter()
    outs = {name: np.empty((MAX_MOVES, enc.n_inputs(geo.side))) for name, enc in ENCODINGS.items()}
    for name, enc in ENCODINGS.items():
        _fused_all(boards, sides, lost, moves, counts, *fixed, enc.kind, 1, outs[name])
        encode_successors(boards[0], sides[0], lost[0, 0], lost[0, 1], moves[0], counts[0], *fixed, enc.kind,
                          outs[name])
    K.expand(boards[0], sides[0], moves[0, : counts[0]], geo.offsets, geo.zobrist,
             np.empty((counts[0], boards.shape[1]), dtype=np.int8))
    print(f"warm-up (JIT compile or cache load): {time.perf_counter() - t:.2f} s")
    print(f"{len(positions)} positions (seed {args.seed}), {n_succ / len(positions):.1f} successors on average\n")

    header = f"{'encoding':<10} {'inputs':>6} {'fused, numba loop':>18} {'fused, Python loop':>19} "
    header += f"{'expand+numpy':>13} {'Python ref':>11} {'speed-up':>9}"
    print("encodings per second (afterstates encoded, one row each)")
    print(header)
    for name, enc in ENCODINGS.items():
        out = outs[name]
        # fused, from a numba loop
        t = time.perf_counter()
        total = _fused_all(boards, sides, lost, moves, counts, *fixed, enc.kind, args.reps, out)
        fused_rate = total / (time.perf_counter() - t)
        # fused, one call a position from Python
        reps_py = max(1, args.reps // 10)
        t = time.perf_counter()
        for _ in range(reps_py):
            for i in range(len(positions)):
                encode_successors(boards[i], sides[i], lost[i, 0], lost[i, 1], moves[i], counts[i], *fixed, enc.kind,
                                  out)
        py_rate = reps_py * n_succ / (time.perf_counter() - t)
        # baseline: expand + numpy, checked equal to the kernel on every position
        for i in range(len(positions)):
            n = counts[i]
            grids = np.empty((n, boards.shape[1]), dtype=np.int8)
            K.expand(boards[i], sides[i], moves[i, :n], geo.offsets, geo.zobrist, grids)
            succ_lost = np.repeat(lost[i : i + 1], n, axis=0)
            succ_lost[:, 2 - sides[i]] += (moves[i, :n] & K.PUSH_OFF_BIT) != 0
            encode_successors(boards[i], sides[i], lost[i, 0], lost[i, 1], moves[i], n, *fixed, enc.kind, out)
            assert np.allclose(numpy_encoder.encode(enc.kind, grids, succ_lost, sides[i]), out[:n], atol=1e-12), name
        reps_np = max(1, args.reps // 30)
        t = time.perf_counter()
        for _ in range(reps_np):
            for i in range(len(positions)):
                n = counts[i]
                grids = np.empty((n, boards.shape[1]), dtype=np.int8)
                K.expand(boards[i], sides[i], moves[i, :n], geo.offsets, geo.zobrist, grids)
                succ_lost = np.repeat(lost[i : i + 1], n, axis=0)
                succ_lost[:, 2 - sides[i]] += (moves[i, :n] & K.PUSH_OFF_BIT) != 0
                numpy_encoder.encode(enc.kind, grids, succ_lost, sides[i])
        np_rate = reps_np * n_succ / (time.perf_counter() - t)
        # the tests' pure-Python reference, from Position objects, on a few positions
        few = positions[:8]
        t = time.perf_counter()
        n_ref = 0
        for p in few:
            for _, child in p.successors():
                T.reference_encoding(name, child, p.side_to_move)
                n_ref += 1
        ref_rate = n_ref / (time.perf_counter() - t)
        print(f"{name:<10} {enc.n_inputs(geo.side):>6} {fused_rate:>18,.0f} {py_rate:>19,.0f} {np_rate:>13,.0f} "
              f"{ref_rate:>11,.0f} {fused_rate / np_rate:>8,.0f}x")
    print("\nspeed-up: fused numba loop over expand + numpy; boards are left unchanged by the fused kernel")
    assert np.array_equal(boards, np.stack([p.grid for p in positions]))


if __name__ == "__main__":
    main()
