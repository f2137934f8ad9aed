"""Lazy SMP: time to depth and nodes a second with 1 and N search threads, side by side in one run.

Run:  python bench/bench_threads.py [--threads 1 2] [--depth 9] [--budget 1] [--nnue builtin-nnue | none]
      python bench/bench_threads.py --play 0.1 [--threads 1 2] [--plies 30]

Positions: bench_search.py's eight (two starts, six middlegames of deterministic self-play). For each
thread count, a fresh engine (``engine:threads=N``, an empty 64 MB table) searches every position twice:

- to a fixed ``--depth``, timed: the time to depth, the figure that says how much faster the search
  gets there (helper threads fill the shared table; the main thread's iterations use it);
- for ``--budget`` seconds (play's rule of not starting an iteration it cannot finish switched off):
  the depth completed and the nodes a second of all threads together.

``--play SECONDS``: as in a game instead: for each thread count, one engine (``engine:time=SECONDS``, play's
rules, its table kept between moves) plays the first ``--plies`` plies of a self-play game from the
standard and the Belgian Daisy starts; the mean depth completed a move, and how often a helper thread's
deeper iteration chose the move.

One thread is the baseline; the last columns are N threads' speed-up over it (the geometric mean of the
positions' times to depth, and of their nodes a second). JIT warm-up happens before any timing. Nodes a
second count the helpers' nodes, which are partly duplicated work: time to depth is the honest figure.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

from bench_search import bench_positions
from sumito.cliargs import count_arg, number_arg
from sumito.games.abalone import Position
from sumito.players import make_player


def engine(threads: int, nnue: str) -> object:
    spec = f"engine:threads={threads},hash=64,nnue={nnue}"
    return make_player(spec)


def play_depths(thread_counts: list[int], seconds: float, plies: int, nnue: str) -> None:
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; engine:time={seconds:g},"
          f"nnue={nnue}; the first {plies} plies of self-play from the standard and Belgian Daisy starts")
    make_player(f"engine:depth=4,nnue={nnue}").analyse(Position.start("standard"), depth=4)  # compile first
    print("| threads | moves | mean depth completed | helper's move chosen |")
    print("|---|---|---|---|")
    for threads in thread_counts:
        player = make_player(f"engine:time={seconds:g},threads={threads},nnue={nnue}")
        depths, chosen = [], 0
        for layout in ("standard", "belgian-daisy"):
            pos = Position.start(layout)
            for _ in range(plies):
                if pos.winner() is not None:
                    break
                move = player.choose(pos)
                depths.append(player.last.depth)
                chosen += getattr(player.searcher, "helper_chosen", False)  # (a tree before it: none)
                pos = pos.play(move)
        print(f"| {threads} | {len(depths)} | {sum(depths) / len(depths):.2f} | {chosen} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=count_arg(1, 64), nargs="+", default=[1, 2])
    parser.add_argument("--depth", type=count_arg(1, 30), default=9)
    parser.add_argument("--budget", type=number_arg(0, 600, "a budget in seconds", above_low=True), default=1.0)
    parser.add_argument("--nnue", default="builtin-nnue", help="the evaluation: an NNUE (default builtin-nnue) or none")
    parser.add_argument("--play", type=number_arg(0, 600, "a time a move in seconds", above_low=True), default=None,
                        help="measure the depth completed in play at this time a move instead")
    parser.add_argument("--plies", type=count_arg(1, 400), default=30)
    args = parser.parse_args()
    if args.play is not None:
        play_depths(args.threads, args.play, args.plies, args.nnue)
        return
    positions = bench_positions()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; evaluation "
          f"{'hand-set linear' if args.nnue == 'none' else args.nnue}; depth {args.depth}; {args.budget:g} s budget")
    warm = engine(max(args.threads), args.nnue)
    t0 = time.perf_counter()
    warm.analyse(positions[0][1], depth=4)
    print(f"# warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s")
    results: dict[int, list[tuple[float, int, float]]] = {}
    for threads in args.threads:
        rows = []
        for _, pos in positions:
            player = engine(threads, args.nnue)
            t = time.perf_counter()
            player.analyse(pos, depth=args.depth, predict=False)
            to_depth = time.perf_counter() - t
            player = engine(threads, args.nnue)
            result = player.analyse(pos, seconds=args.budget, predict=False)
            rows.append((to_depth, result.depth, result.nodes_per_second))
        results[threads] = rows
    base = args.threads[0]
    head = " | ".join(f"{n} thread{'s' * (n > 1)}: time to depth {args.depth}, depth at {args.budget:g} s, M nodes/s"
                      for n in args.threads)
    print(f"| position | {head} |")
    print("|---|" + "---|" * len(args.threads))
    for k, (name, _) in enumerate(positions):
        cells = [f"{results[n][k][0]:.2f} s, {results[n][k][1]}, {results[n][k][2] / 1e6:.2f}" for n in args.threads]
        print(f"| {name} | " + " | ".join(cells) + " |")
    for n in args.threads[1:]:
        speed = math.exp(sum(math.log(results[base][k][0] / results[n][k][0]) for k in range(len(positions)))
                         / len(positions))
        nps = math.exp(sum(math.log(results[n][k][2] / results[base][k][2]) for k in range(len(positions)))
                       / len(positions))
        print(f"{n} threads over {base}: time to depth {args.depth} {speed:.2f}x faster, nodes a second {nps:.2f}x "
              "(geometric means over the positions)")


if __name__ == "__main__":
    main()
