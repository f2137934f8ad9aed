"""How strong each player is: games won outright against ``random`` and against the Abalearn
benchmark ``heuristic`` (2 plies, seeded random tie-breaks), for the README's player table.

    python experiments/player_strength.py [--games 20] [--seed 2026] [--workers 2] [--out runs/strength]
                                          [--backend ray [--address ADDR]]

Each cell is a match of ``--games`` games (colours alternating, each pair of games from its own
random 2-ply opening, the arena's draw rules: threefold repetition, 400 plies) with the outright
win rate and its 95% interval. Finished matches are kept in ``OUT/PLAYER--OPPONENT.json``, so a
killed run resumes with the matches it lacks. A match's games run in ``--workers`` local processes,
or as Ray tasks with ``--backend ray`` (a local Ray instance, or the cluster at ``--address``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

from sumito.arena.executor import executor_from_args
from sumito.arena.match import ArenaSettings, derive_seed, play_game, schedule, summarize_pair
from sumito.arena.ratings import score_interval
from sumito.cliargs import add_backend_args
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_text
from sumito.stopping import run_main

PLAYERS = (
    "random",
    "greedy",
    "heuristic",
    "abla:depth=3",
    "abla:depth=4",
    "abla:depth=4,heuristic=single",
    "alphalone",
    "td",
    "engine:depth=3,net=builtin-tdleaf",
    "engine:time=0.05,nnue=none",
)
OPPONENTS = ("random", "heuristic:ties=random")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=None,
                        help="game processes (default 2; with --backend ray, all the Ray cluster's CPUs)")
    add_backend_args(parser)
    parser.add_argument("--out", type=Path, default=Path("runs/strength"))
    parser.add_argument("--players", nargs="*", default=list(PLAYERS))
    args = parser.parse_args()
    try:  # a bad --workers, a missing Ray, a bad --address: one line
        executor = executor_from_args(args, 2 if args.workers is None and args.backend == "process" else args.workers)
    except SumitoError as exc:
        parser.error(str(exc))
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"| player | {' | '.join(f'against `{o}`: won outright (95% interval)' for o in OPPONENTS)} |")
    print("|---|" + "---|" * len(OPPONENTS))
    for k, player in enumerate(args.players):
        cells = []
        for j, opponent in enumerate(OPPONENTS):
            path = args.out / f"{player}--{opponent}.json".replace(":", "_").replace(",", "_")
            if path.exists():
                summary = json.loads(path.read_text())
            else:
                settings = ArenaSettings.from_layout("standard", seed=derive_seed(args.seed, k, j))
                tasks = schedule([player, opponent], args.games, settings)
                with contextlib.closing(executor.run(play_game, tasks)) as stream:
                    results = [r for _, r in stream]
                s = summarize_pair(results)
                summary = dict(games=s.games, wins=s.wins, draws=s.draws, losses=s.losses,
                               marbles_won=s.marbles_won, marbles_lost=s.marbles_lost)
                atomic_write_text(path, json.dumps(summary) + "\n")
            n, w = summary["games"], summary["wins"]
            _, low, high = score_interval(w, 0, n - w)
            cells.append(f"{w} of {n} ({low:.0%}–{high:.0%}); {summary['draws']} drawn, {summary['losses']} lost; "
                         f"marbles {summary['marbles_won']}:{summary['marbles_lost']}")
        print(f"| `{player}` | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    run_main(main)
