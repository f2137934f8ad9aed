"""The zero learner's self-play beside the NNUE line's, in one run: positions a second, network evaluations a
second, and where the zero learner's time goes.

Run:  python bench/bench_zero.py [--net FILE] [--games 200] [--sims 32 64] [--nnue-games 40]

- **zero**: :func:`sumito.learn.zero.play_chunk`, the lab's own work item, on the mini board with the network
  ``--net`` (default: a fresh one of the default size; a trained one plays other games), at each ``--sims``;
  positions (plies played) a second, and network evaluations (one a position for the root, one a simulation)
  a second, in the process's CPU time.
- **where the time goes**: the network alone (:func:`~sumito.models.zero.network.evaluate` on the same
  positions, as many calls as the self-play made), the rest of the compiled search (tree walk, move
  generation, Gumbel selection), and Python (the chunk's time outside the compiled game);
- **the NNUE line**: its self-play, :func:`sumito.learn.nnue.generate` with ``engine:depth=3,nnue=NET,threads=1``
  (the self-taught loop's player on the mini board, generation 0's network) from the mini board's opening
  suite, in the same process.

Kernels are compiled before the clock starts (a first small call).
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time

import numpy as np

from sumito.arena.openings import default_suite_path, load_openings
from sumito.evaluation.zero_value import encode
from sumito.games.abalone import kernels as K
from sumito.games.abalone.geometry import geometry
from sumito.learn import zero as zero_loop
from sumito.learn.nnue import generate
from sumito.learn.selftaught import generation_zero
from sumito.learn.zero import Chunk, ZeroSettings, play_chunk
from sumito.models.zero.network import PolicyValueNetwork, evaluate
from sumito.rlcore.actions import action_space, move_key


def network_loop(net: PolicyValueNetwork, positions: list[tuple[np.ndarray, int, int, int]], calls: int) -> float:
    """CPU seconds for ``calls`` network evaluations, cycling over ``positions`` (board, side, lost own, lost
    other), with the legal actions' logits as the search computes them."""
    geo = geometry(net.side)
    lookup = action_space(net.side).lookup
    prepared = []
    moves = np.zeros(K.MAX_MOVES, dtype=np.int32)
    for board, side, own, other in positions:
        n = K.generate_moves(board, side, geo.offsets, geo.cells, False, moves)
        acts = np.array([lookup[move_key(int(m))] for m in moves[:n]], dtype=np.int64)
        active = np.zeros(512, dtype=np.int64)
        na = encode(board, side, own, other, geo.cells, net.win, active)
        prepared.append((active, na, acts, n))
    logits, a1, a2 = np.zeros(K.MAX_MOVES), np.zeros(net.h1), np.zeros(net.h2)
    started = time.process_time()
    for i in range(calls):
        active, na, acts, n = prepared[i % len(prepared)]
        evaluate(net.theta, net.offsets, net.h1, net.h2, active, na, acts, n, logits, a1, a2)
    return time.process_time() - started


def sample_positions(count: int, seed: int) -> list[tuple[np.ndarray, int, int, int]]:
    from sumito.games.abalone import Position

    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        pos = Position.start("mini")
        for _ in range(int(rng.integers(0, 30))):
            moves = pos.legal_moves()
            if not moves or pos.winner() is not None:
                break
            pos = pos.play(moves[int(rng.integers(len(moves)))])
        if pos.winner() is None and pos.count_legal_moves():
            s = pos.side_to_move
            out.append((pos.grid.copy(), s, pos.lost[s - 1], pos.lost[2 - s]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--net", default=None, help="a zero network of the mini board (default: a fresh one)")
    parser.add_argument("--games", type=int, default=200, help="zero self-play games at each --sims")
    parser.add_argument("--sims", type=int, nargs="+", default=[32, 64])
    parser.add_argument("--nnue-games", type=int, default=40, help="the NNUE line's self-play games")
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, one process; CPU seconds")
    base = ZeroSettings()
    net = PolicyValueNetwork.load(args.net) if args.net else PolicyValueNetwork(3, 2, base.h1, base.h2, seed=1)
    positions = sample_positions(500, 3)
    print(f"{'self-play':34} {'positions/s':>12} {'net evals/s':>12} {'network':>8} {'search':>8} {'Python':>8}")
    compiled_game = zero_loop.play_game
    in_kernel = [0.0]

    def timed_game(*a):  # the compiled game's CPU time, so that the rest of the chunk is Python's
        t = time.process_time()
        out = compiled_game(*a)
        in_kernel[0] += time.process_time() - t
        return out

    zero_loop.play_game = timed_game
    for sims in args.sims:
        s = ZeroSettings(sims=sims, h1=net.h1, h2=net.h2)
        play_chunk(Chunk(s, net.theta, 0, 0, 1))  # compiled before the clock
        in_kernel[0] = 0.0
        started = time.process_time()
        result = play_chunk(Chunk(s, net.theta, 0, 0, args.games))
        total = time.process_time() - started
        plies = len(result.samples)
        evals = plies * (sims + 1)
        network = min(network_loop(net, positions, evals), in_kernel[0])
        python = total - in_kernel[0]
        search = in_kernel[0] - network
        print(f"{'zero, ' + str(sims) + ' simulations':34} {plies / total:12,.0f} {evals / total:12,.0f} "
              f"{100 * network / total:7.0f}% {100 * search / total:7.0f}% {100 * python / total:7.0f}%")
    with tempfile.TemporaryDirectory() as folder:
        gen0 = generation_zero(side=3)
        path = f"{folder}/gen0.npz"
        gen0.save(path)
        openings = load_openings(default_suite_path(3))
        player = f"engine:depth=3,nnue={path},threads=1"
        generate(f"{folder}/warm", 1, player=player, chunk=1, max_plies=150, openings=openings)
        started = time.process_time()
        generate(f"{folder}/data", args.nnue_games, player=player, chunk=args.nnue_games, max_plies=150,
                 openings=openings)
        total = time.process_time() - started
        from sumito.learn.nnue import load_samples

        plies = len(load_samples([f"{folder}/data"]).score)
    print(f"{'NNUE line, engine depth 3':34} {plies / total:12,.0f} {'':>12} {'':>8} {'':>8} {'':>8}")
    print("(net evals/s: the zero network's root and simulation evaluations; the NNUE line's searches evaluate"
          " incrementally and are counted as positions only)")


if __name__ == "__main__":
    main()
