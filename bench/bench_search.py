"""Search speed: nodes per second and the depth reached in 1, 5 and 10 seconds.

Run:  python bench/bench_search.py [--budgets 1 5 10] [--prune 0 1] [--nnue builtin-nnue | FILE | none]

Positions: the Standard and Belgian Daisy starts, and six mid-game positions reached by the
engine playing itself at depth 4 (``engine:depth=4,prune=0,threats=0,rules=0,trade=0,threads=1``:
deterministic: no threat search, any repetition a draw, so every run searches the same positions).
For each budget the engine (``sumito.search.pvs``: PVS, transposition table, ordering, null move,
reductions, push-off quiescence, hand-set linear evaluation) deepens until the clock stops it;
the depth is the last one completed. Nodes count every node including quiescence. One pair of
columns per search level (``--prune``, the engine option ``prune=``): 0 searches null-window nodes
without table cutoffs and null moves, 1 (the default) with them.

The baseline, in the same run on the same positions, is the plain fixed-depth alpha-beta of the
paper players (``sumito.search.alphabeta``: generation order, no tables) with the same evaluation,
deepened one ply at a time while the next depth can still be expected to finish in the budget.
A third pair of columns is the same engine with an NNUE as its evaluation (``--nnue``; by default
the shipped ``builtin-nnue``, ``none`` leaves it out): its accumulator is updated in make/unmake,
so its speed beside the hand-set evaluation's is the cost of the learned evaluation.
Everything is single-threaded; JIT warm-up is timed and reported separately.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from sumito.cliargs import count_arg, number_arg
from sumito.evaluation import named_evaluation
from sumito.evaluation.features import EVAL_NNUE
from sumito.evaluation.nnue import NNUEError, load_network
from sumito.games.abalone import Game, Position
from sumito.players import game_history, make_player
from sumito.search.alphabeta import search as plain_search
from sumito.search.context import SearchContext
from sumito.search.pvs import DEFAULT_PRUNE, Searcher


def bench_positions() -> list[tuple[str, Position]]:
    out = [("Standard start", Position.start("standard")), ("Belgian Daisy start", Position.start("belgian-daisy"))]
    for layout, plies in (("standard", 30), ("belgian-daisy", 40), ("standard", 20), ("standard", 50),
                          ("belgian-daisy", 25), ("belgian-daisy", 60)):
        game = Game(Position.start(layout))
        # the same positions as ever: the hand-set engine they were made with
        player = make_player("engine:depth=4,prune=0,threats=0,rules=0,threads=1,nnue=none")
        for _ in range(plies):
            if game.is_over():
                break
            game.push(player.choose(game.position, history=game_history(game)))
        out.append((f"{layout} after {game.plies} plies of engine:depth=4,nnue=none self-play", game.position))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", type=number_arg(0, 3600, "a budget in seconds", above_low=True), nargs="+",
                        default=[1.0, 5.0, 10.0])
    parser.add_argument("--hash-mb", type=count_arg(1, 4096), default=64)
    parser.add_argument("--nnue", default="builtin-nnue", help="an NNUE file for the third column (none: leave out)")
    parser.add_argument("--prune", type=int, nargs="+", choices=(0, 1), default=[0, 1],
                        help="the search levels of the hand-set engine's columns (engine option prune=)")
    parser.add_argument("--nnue-prune", type=int, choices=(0, 1), default=DEFAULT_PRUNE,
                        help="the NNUE column's search level (default: the engine's)")
    args = parser.parse_args()
    ev = named_evaluation("linear")
    try:
        nnue_params = None if args.nnue == "none" else load_network(args.nnue).params()
    except NNUEError as exc:
        parser.error(str(exc))

    t = time.perf_counter()
    # Every configuration a cell measures, called once the way the cell calls it (a time budget, each
    # search level): a first call of one not warmed here would be timed with its compile or cache load.
    warm = Position.start("mini")
    for level in sorted(set(args.prune)):
        Searcher(ev.kind, ev.params, 1 << 10, prune=level).search(
            SearchContext.of(warm), warm.legal_move_codes(), seconds=0.05, predict=False)
    plain_search(SearchContext.of(warm), warm.legal_move_codes(), 2, ev.kind, ev.params)
    if nnue_params is not None:
        std = Position.start()
        Searcher(EVAL_NNUE, nnue_params, 1 << 10, prune=args.nnue_prune).search(
            SearchContext.of(std), std.legal_move_codes(), seconds=0.05, predict=False)
    warmup = time.perf_counter() - t
    positions = bench_positions()

    print(f"search benchmark — {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"one thread")
    print(f"JIT warm-up (compile or load cache): {warmup:.2f} s, not included below")
    entries = 1 << int(np.log2(args.hash_mb * 2**20 / 22))
    header = (
        f"{'position':<52} {'budget':>6} | "
        + " | ".join(f"{f'prune={level} depth':>14} {'nodes/s':>10}" for level in args.prune)
        + f" | {'baseline depth':>14} {'nodes/s':>10}"
        + (f" | {'nnue depth':>10} {'nodes/s':>10}" if nnue_params is not None else "")
    )
    print(header)
    print("-" * len(header))
    for name, pos in positions:
        codes = pos.legal_move_codes()
        for budget in args.budgets:
            cells = []
            for level in args.prune:
                searcher = Searcher(ev.kind, ev.params, entries, prune=level)  # a cold table for every measurement
                r = searcher.search(SearchContext.of(pos), codes, seconds=budget, predict=False)
                cells.append(f"{r.depth:>14} {r.nodes_per_second:>10,.0f}")
            # baseline: plain alpha-beta, deepened while the next depth should still fit
            depth, spent, nodes, last = 0, 0.0, 0, 0.0
            while True:
                if depth and spent + last * 20 > budget:  # branching ~40-60: the next ply costs far more
                    break
                t = time.perf_counter()
                _, _, n = plain_search(SearchContext.of(pos), codes, depth + 1, ev.kind, ev.params)
                last = time.perf_counter() - t
                if spent + last > budget:
                    break
                depth, spent, nodes = depth + 1, spent + last, nodes + n
            base_nps = nodes / spent if spent else 0.0
            line = f"{name:<52} {budget:>5g}s | " + " | ".join(cells) + f" | {depth:>14} {base_nps:>10,.0f}"
            if nnue_params is not None and pos.variant.side == 5:
                searcher = Searcher(EVAL_NNUE, nnue_params, entries, prune=args.nnue_prune)
                n = searcher.search(SearchContext.of(pos), codes, seconds=budget, predict=False)
                line += f" | {n.depth:>10} {n.nodes_per_second:>10,.0f}"
            print(line)
    print()
    print("target: at least 1,000,000 nodes/s, and depth 7 from the Standard start within 10 s")
    print("target: depth 8 in middlegames at 1 s a move, at least 1,000,000 nodes/s (hand-set evaluation)")


if __name__ == "__main__":
    main()
