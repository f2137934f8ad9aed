"""Wiering (2010) on Abalone: where should a TD learner's training games come from?

    python experiments/wiering_regimes.py [--games 600] [--expert abla:depth=2] [--seed 2010]

Three networks learn with the same TD(λ) settings (Abalearn 3 inputs, α = 0.1, γ = 0.9,
λ = 0.7, κ = 0, ε-greedy from 0.9 decaying by 0.99 a game) from the same number of games:

- **self**: self-play;
- **expert**: playing against the expert (``--expert``, any player spec), colours alternating;
- **observe**: watching expert-vs-expert games and learning from the expert's moves of both sides.

Every training game opens with 4 random plies (so that a deterministic expert does not play one
game over and over). Each network then plays fixed opponents in arena games (random 2-ply
openings, colours alternating); the table gives its score with a 95% interval.
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
from sumito.learn.training import Trainer, TrainingConfig

REGIMES = {"self": "self", "expert": "opponent", "observe": "observe"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--expert", default="abla:depth=2")
    parser.add_argument("--test-opponents", default="random,greedy")
    parser.add_argument("--games-per-test", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2010)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    opponents = [s.strip() for s in args.test_opponents.split(",") if s.strip()]
    table = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, regime in REGIMES.items():
            config = TrainingConfig(encoding="abalearn3", regime=regime, opponent=args.expert, seed=args.seed)
            game = AbaloneLearningGame(config.encoding, Position.start("standard"), TRAINING_RULES, opening_plies=4)
            trainer = Trainer(game, config, lambda spec, seed: PlayerOpponent(spec, seed))
            while trainer.games < args.games:
                trainer.play_game()
            path = Path(tmp) / f"{name}.npz"
            trainer.network.save(path)
            row = []
            for k, opponent in enumerate(opponents):
                settings = ArenaSettings.from_layout("standard", seed=args.seed + k)
                tasks = schedule([f"td:net={path}", opponent], args.games_per_test, settings)
                s = summarize_pair([r for _, r in make_executor(args.workers).run(play_game, tasks)])
                score, low, high = score_interval(s.wins, s.draws, s.losses)
                row.append(f"{score:.0%} ({low:.0%}–{high:.0%}; {s.wins}-{s.draws}-{s.losses})")
            table[name] = row
            print(f"{name}: {', '.join(row)}", flush=True)
    print()
    print("| training games from | " + " | ".join(f"score against {o}" for o in opponents) + " |")
    print("|---|" + "---|" * len(opponents))
    for name, row in table.items():
        print(f"| {name} | " + " | ".join(row) + " |")
    print(f"\n{args.games} training games each, expert {args.expert}, {args.games_per_test} test games per cell "
          f"(W-D-L), seed {args.seed}")


if __name__ == "__main__":
    main()
