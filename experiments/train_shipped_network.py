"""Train the value networks shipped inside the package (``td``, ``engine:net=builtin`` and
``engine:net=builtin-tdleaf``).

    python experiments/train_shipped_network.py [--games 1750] [--seed 2010] [--check-games 100] [--verify]
    python experiments/train_shipped_network.py --tdleaf [--games 500] [--seed 2003]

The recipe is Method I(a) (Abalearn 3 inputs, 1,000 games against ``random``, then self-play,
κ = 0) under the training defaults that the reading search of docs/reproductions.md chose: Abalearn
2's board split into rings 0-2, 3 and 4 (``abalearn3-c012``), a linear output, rewards of ±1 a
marble, moves chosen by reward + γ·value, 10 hidden units, TD(λ) with α = 0.1, γ = 0.9, λ = 0.7 and
traces decaying by λ, ε-greedy from 0.9 decaying by 0.99 a game to a floor of 0.05; training games
tied at 200 plies or 20 repetitions. The network is written to
``src/sumito/data/td-abalearn3.npz`` with the recipe in its metadata, then checked in arena games
against ``random`` and the Abalearn benchmark at 1 and 2 plies, printed. The shipped network is
the run of ``readme_seeds.py`` (the README's command over seeds 2006-2015) that won most against the
one-ply benchmark at any evaluation (won or ahead on marbles, the lab's win column): seed 2010 at
1,750 games (100 of 100; the same seed and game
count give the same network, bit for bit, on any x86-64 CPU: ``--verify`` retrains and compares).
Its check games are other games (seeded by the run's seed, not by the evaluation), so they measure
it without the selection's luck.

With ``--tdleaf``: the TD-Leaf(λ) recipe of the ``tdleaf`` experiment (self-play, κ = 0, sigmoid
output, each move a 3-ply search over the network, the updates on the principal variation's
leaves; 500 games, seed 2003: the same run as that experiment's first seed, bit for bit),
written to ``src/sumito/data/tdleaf-abalearn3.npz``. It is meant to be played inside a search
(``engine:net=builtin-tdleaf``).
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np
from learning_curves import evaluate

from sumito.defaults import METHOD_PRESETS
from sumito.learn.abalone_game import make_trainer
from sumito.learn.training import TrainingConfig
from sumito.models.network import ValueNetwork
from sumito.stopping import run_main

DATA = Path(__file__).resolve().parent.parent / "src" / "sumito" / "data"
RECIPE = dict(METHOD_PRESETS["method-Ia"])
# the tdleaf experiment's first run: the split and exploration of before stage 3 of the reading search
TDLEAF_RECIPE = dict(encoding="abalearn3", regime="self", kappa=0.0, search_depth=3, output="sigmoid", hidden=40,
                     epsilon_min=0.0)


def digest(theta: np.ndarray) -> str:
    """The first 16 hex digits of the weights' SHA-256 (tests/test_architecture.py pins them)."""
    return hashlib.sha256(np.ascontiguousarray(theta).tobytes()).hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tdleaf", action="store_true", help="the TD-Leaf(lambda) network instead")
    parser.add_argument("--games", type=int, default=None, help="training games (default 1750; --tdleaf 500)")
    parser.add_argument("--seed", type=int, default=None, help="default 2010; --tdleaf 2003")
    parser.add_argument("--check-games", type=int, default=100)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--verify", action="store_true",
                        help="retrain and compare the weights with the shipped file's, bit for bit (writes nothing)")
    args = parser.parse_args()
    if args.tdleaf:
        recipe, games, seed, out = TDLEAF_RECIPE, 500, 2003, DATA / "tdleaf-abalearn3.npz"
        what = "TD-Leaf(lambda) self-play through a 3-ply search, kappa 0"
    else:
        recipe, games, seed, out = RECIPE, 1750, 2010, DATA / "td-abalearn3.npz"
        what = "Method I(a) under the reading search's default (1,000 games against random, then self-play)"
    args.games = games if args.games is None else args.games
    args.seed = seed if args.seed is None else args.seed
    args.out = out if args.out is None else args.out
    trainer = make_trainer(TrainingConfig(**recipe, seed=args.seed))
    t0 = time.perf_counter()
    while trainer.games < args.games:
        trainer.play_game()
    trainer.network.metadata.update(
        recipe=f"{what}, {args.games} games, seed {args.seed} "
        "(experiments/train_shipped_network.py)"
    )
    if args.verify:
        shipped = ValueNetwork.load(out)
        same = np.array_equal(shipped.theta, trainer.network.theta)
        print(f"{out.name}: the recipe {'gives' if same else 'does NOT give'} the shipped weights bit for bit "
              f"(retrained {digest(trainer.network.theta)}, shipped {digest(shipped.theta)}; "
              f"{time.perf_counter() - t0:.0f} s)")
        raise SystemExit(0 if same else 1)
    trainer.network.save(args.out)
    print(f"wrote {args.out} after {trainer.games} training games ({time.perf_counter() - t0:.0f} s)")
    for player in ("td:net={net}", "engine:net={net},depth=3"):
        for opponent in ("random", "heuristic:depth=1,ties=random", "heuristic:ties=random"):
            r = evaluate(args.out, opponent, args.check_games, args.seed, player)
            print(f"{player.format(net='NET')} against {opponent}: won {r['wins']}, drew {r['draws']}, "
                  f"lost {r['losses']}; on marbles {r['m_wins']}-{r['m_draws']}-{r['m_losses']}; "
                  f"marbles {r['marbles_won']}:{r['marbles_lost']} ({args.check_games} games)", flush=True)


if __name__ == "__main__":
    run_main(main)
