"""Abalearn (Campos & Langlois 2003), Table 2: Method I vs Method I(a), win rate against the
heuristic player after 500, 1000, 2000 and 3000 training games.

    python experiments/abalearn_table2.py [--games-per-test 100] [--seed 2003] [--workers 2]

Each method trains one network (Method I: Abalearn 2 inputs; Method I(a): Abalearn 3; both
1,000 games against ``random``, then self-play; standard TD(λ), α = 0.1, γ = 0.9, λ = 0.7,
ε from 0.9 decaying by 0.99 a game; training games tied at 200 plies or 20 repetitions). The
networks sampled at each game count play ``heuristic:ties=random`` (the paper's benchmark, with
seeded random tie-breaks so that the games differ) in arena games from random 2-ply openings,
colours alternating, draws at 400 plies or threefold repetition. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from sumito.arena.executor import make_executor
from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair
from sumito.arena.ratings import score_interval
from sumito.engine import Position
from sumito.learn.abalone_game import TRAINING_RULES, AbaloneLearningGame, PlayerOpponent
from sumito.learn.training import PRESETS, Trainer, TrainingConfig

CHECKPOINTS = (500, 1000, 2000, 3000)
PAPER = {"method-I": (48, 52, 54, 71), "method-Ia": (68, 72, 76, 79)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-per-test", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2003)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--opponent", default="heuristic:ties=random")
    args = parser.parse_args()
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for method in ("method-I", "method-Ia"):
            config = TrainingConfig(**PRESETS[method], seed=args.seed)
            game = AbaloneLearningGame(config.encoding, Position.start("standard"), TRAINING_RULES)
            trainer = Trainer(game, config, lambda spec, seed: PlayerOpponent(spec, seed))
            cells = []
            for target in CHECKPOINTS:
                while trainer.games < target:
                    trainer.play_game()
                path = Path(tmp) / f"{method}-{target}.npz"
                trainer.network.save(path)
                settings = ArenaSettings.from_layout("standard", seed=args.seed + target)
                tasks = schedule([f"td:net={path}", args.opponent], args.games_per_test, settings)
                s = summarize_pair([r for _, r in make_executor(args.workers).run(play_game, tasks)])
                _, low, high = score_interval(s.wins, s.draws, s.losses)
                cells.append(f"{s.wins / args.games_per_test:.0%} ({s.wins}-{s.draws}-{s.losses}; "
                             f"score {low:.0%}–{high:.0%})")
                print(f"{method} after {target} games: {cells[-1]}", flush=True)
            rows[method] = cells
    print()
    print("| training games | Method I | Method I(a) | paper I | paper I(a) |")
    print("|---|---|---|---|---|")
    for k, target in enumerate(CHECKPOINTS):
        print(f"| {target} | {rows['method-I'][k]} | {rows['method-Ia'][k]} | {PAPER['method-I'][k]}% | "
              f"{PAPER['method-Ia'][k]}% |")
    print(f"\nwin rate (wins-draws-losses; 95% interval of the score) over {args.games_per_test} games "
          f"against {args.opponent}, seed {args.seed}")


if __name__ == "__main__":
    main()
