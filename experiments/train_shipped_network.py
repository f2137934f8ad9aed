"""Train the value network shipped inside the package (``td`` and ``engine:net=builtin``).

    python experiments/train_shipped_network.py [--games 5000] [--seed 2026] [--check-games 100]

The recipe is the best of our learning experiments (docs/results.md, Abalearn Figure 4):
risk-neutral self-play (κ = 0) with Abalearn 3 inputs, 40 hidden units, a linear output, TD(λ)
with α = 0.1, γ = 0.9, λ = 0.7, and ε-greedy from 0.9 decaying by 0.99 a game; training games
tied at 200 plies or 20 repetitions. The network is written to
``src/sumito/data/td-abalearn3.npz`` with the recipe in its metadata, then checked in arena
games against ``random`` and the Abalearn benchmark ``heuristic:ties=random`` (plain score and
win rate on marbles, see ``experiments/learning_curves.py``), printed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from learning_curves import evaluate

from sumito.learn.commands import make_trainer
from sumito.learn.training import PRESETS, TrainingConfig

OUT = Path(__file__).resolve().parent.parent / "src" / "sumito" / "data" / "td-abalearn3.npz"
RECIPE = dict(PRESETS["method-II"], kappa=0.0, output="linear")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--check-games", type=int, default=100)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    trainer = make_trainer(TrainingConfig(**RECIPE, seed=args.seed))
    t0 = time.perf_counter()
    while trainer.games < args.games:
        trainer.play_game()
    trainer.network.metadata.update(
        recipe=f"self-play, kappa 0, linear output, {args.games} games, seed {args.seed} "
        "(experiments/train_shipped_network.py)"
    )
    trainer.network.save(args.out)
    print(f"wrote {args.out} after {trainer.games} training games ({time.perf_counter() - t0:.0f} s)")
    for player in ("td:net={net}", "engine:net={net},depth=3"):
        for opponent in ("random", "heuristic:ties=random"):
            r = evaluate(args.out, opponent, args.check_games, args.seed, player)
            print(f"{player.format(net='NET')} against {opponent}: won {r['wins']}, drew {r['draws']}, "
                  f"lost {r['losses']}; on marbles {r['m_wins']}-{r['m_draws']}-{r['m_losses']}; "
                  f"marbles {r['marbles_won']}:{r['marbles_lost']} ({args.check_games} games)", flush=True)


if __name__ == "__main__":
    main()
