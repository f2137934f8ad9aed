"""Train the value network shipped inside the package (``td`` and ``engine:net=builtin``).

    python experiments/train_shipped_network.py [--games 1500] [--seed 2026]

The Abalearn Method I(a) recipe (Abalearn 3 inputs, 40 hidden units, TD(λ) with α = 0.1,
γ = 0.9, λ = 0.7, ε-greedy from 0.9 decaying by 0.99 a game) against the ``random`` player for
the whole run — self-play does not yet improve on it (see the issue 4 notes) — then a check of
the result against ``random`` and ``heuristic`` in arena games, printed. The network is written
to ``src/sumito/data/td-abalearn3.npz`` with the recipe in its metadata.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sumito.arena.executor import make_executor
from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair
from sumito.engine import Position
from sumito.learn.abalone_game import TRAINING_RULES, AbaloneLearningGame, PlayerOpponent
from sumito.learn.training import PRESETS, Trainer, TrainingConfig

OUT = Path(__file__).resolve().parent.parent / "src" / "sumito" / "data" / "td-abalearn3.npz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--check-games", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    options = {**PRESETS["method-Ia"], "switch_after": args.games, "seed": args.seed}
    config = TrainingConfig(**options)
    game = AbaloneLearningGame(config.encoding, Position.start("standard"), TRAINING_RULES)
    trainer = Trainer(game, config, lambda spec, seed: PlayerOpponent(spec, seed))
    while trainer.games < args.games:
        trainer.play_game()
    trainer.network.metadata.update(
        recipe=f"method-Ia against random for {args.games} games, seed {args.seed} "
        "(experiments/train_shipped_network.py)"
    )
    trainer.network.save(OUT)
    print(f"wrote {OUT} after {trainer.games} training games")
    for opponent in ("random", "heuristic"):
        settings = ArenaSettings.from_layout("standard", seed=args.seed)
        tasks = schedule([f"td:net={OUT}", opponent], args.check_games, settings)
        s = summarize_pair([r for _, r in make_executor(args.workers).run(play_game, tasks)])
        print(f"against {opponent}: {s.wins} wins, {s.draws} draws, {s.losses} losses in {args.check_games} games")


if __name__ == "__main__":
    main()
