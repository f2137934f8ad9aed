"""The paper players' random tie-break (``heuristic``/``abla`` with ``ties=random``): its root search
keeping only the moves tied for best exact (``values="ties"``, what the players do) against every root
move searched with a full window (``values="all"``, the baseline), in the same run on the same
positions.

Run:  python bench/bench_paper_players.py [--games 4] [--depth 2] [--plies 120] [--train-games 300]

Positions: those of ``--games`` games of ``abla:depth=2,ties=random`` against
``heuristic:depth=2,ties=random`` (seeded, from the Standard start), up to ``--plies`` plies each.
At each position both root searches run for both evaluations; the script counts the positions
whose set of tied best moves differs (it must be 0: the players then choose the same move with the
same random draw, so every game and every experiment is unchanged) and prints the time and nodes a
search for each. Then, as a lab run meets it, ``--train-games`` games of TD(λ) training against
``abla:depth=2,ties=random`` (Wiering's "playing the expert", seed 2003, the default network and
encoding) with the players' root search as it is and with every value asked for
(``sumito.players.heuristic.TIE_VALUES = "all"``): the time each, and whether the trained weights
are the same bits. Single-threaded; JIT warm-up is left out.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import platform
import time

import numpy as np

from sumito.cliargs import count_arg
from sumito.evaluation import named_evaluation
from sumito.games.abalone import Game
from sumito.learn.abalone_game import make_trainer
from sumito.learn.training import TrainingConfig
from sumito.players import heuristic, make_player
from sumito.search.alphabeta import search
from sumito.search.context import SearchContext


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=count_arg(1, 1000), default=4)
    parser.add_argument("--depth", type=count_arg(1, 4), default=2, help="the search depth (default 2)")
    parser.add_argument("--plies", type=count_arg(1, 1000), default=120, help="at most, plies a game (default 120)")
    parser.add_argument("--train-games", type=count_arg(0, 100_000), default=300,
                        help="training games against the expert each way (default 300; 0: none)")
    args = parser.parse_args()

    positions = []
    for g in range(args.games):
        game = Game()
        players = [make_player(f"abla:depth=2,ties=random,seed={g}"),
                   make_player(f"heuristic:depth=2,ties=random,seed={g + 1000}")]
        while not game.is_over() and game.plies < args.plies:
            positions.append(game.position)
            game.push(players[game.plies % 2].choose(game.position))

    print(f"paper players' root search — {platform.processor() or platform.machine()}, "
          f"python {platform.python_version()}, numpy {np.__version__}")
    print(f"{len(positions)} positions from {args.games} games, depth {args.depth}")
    header = f"{'evaluation':<11} {'values':<7} {'ms a search':>12} {'nodes a search':>15} {'tie sets differ':>16}"
    print(header)
    print("-" * len(header))
    for name in ("heuristic", "abla"):
        ev = named_evaluation(name)
        first = positions[0]
        for mode in ("all", "ties"):  # JIT warm-up
            search(SearchContext.of(first), first.legal_move_codes(), args.depth, ev.kind, ev.params, values=mode)
        tied: dict[str, list[np.ndarray]] = {}
        for mode in ("all", "ties"):
            nodes, sets = 0, []
            t0 = time.perf_counter()
            for pos in positions:
                best, values, n = search(SearchContext.of(pos), pos.legal_move_codes(), args.depth, ev.kind,
                                         ev.params, values=mode)
                nodes += n
                sets.append(values >= values[best])
            seconds = time.perf_counter() - t0
            tied[mode] = sets
            differ = "" if mode == "all" else str(sum(not np.array_equal(a, b)
                                                      for a, b in zip(tied["all"], sets, strict=True)))
            print(f"{name:<11} {mode:<7} {1000 * seconds / len(positions):>12.2f} "
                  f"{nodes / len(positions):>15,.0f} {differ:>16}")

    if args.train_games:
        print()
        print(f"training against abla:depth=2,ties=random, {args.train_games} games (after 2 of warm-up)")
        digests = {}
        for mode in ("all", "ties"):
            heuristic.TIE_VALUES = mode
            trainer = make_trainer(TrainingConfig(regime="opponent", opponent="abla:depth=2,ties=random",
                                                  kappa=0.0, opening_plies=4, seed=2003))
            trainer.train_until(2)
            t0 = time.perf_counter()
            trainer.train_until(2 + args.train_games)
            seconds = time.perf_counter() - t0
            digests[mode] = hashlib.sha256(pickle.dumps(trainer.state_dict()["learners"])).hexdigest()[:16]
            print(f"  values={mode:<5} {seconds:8.1f} s   weights {digests[mode]}")
        same = "the same" if digests["all"] == digests["ties"] else "DIFFERENT"
        print(f"  weights: {same}")


if __name__ == "__main__":
    main()
