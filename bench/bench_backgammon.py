"""Backgammon speed: afterstate generation over every roll of a few thousand positions from random
games, and TD(λ) self-play training throughput (the target: 300 training games a minute).

Run:  python bench/bench_backgammon.py [--positions 2000] [--reference-positions 200] [--seed 2026]
                                      [--training-games 500]

Measures positions×rolls per second and afterstates per second for the numba kernel (one core), beside
the slow brute-force reference generator of tests/test_backgammon.py on a subset of the same positions,
in the same run. JIT warm-up (compiling or loading the on-disk cache) is timed and reported apart.
Training: the shared trainer (:class:`sumito.learn.training.Trainer`) on
:class:`~sumito.models.backgammon.learning.BackgammonLearningGame`, self-play with 40 hidden units,
rewards at the end, after one warm-up game; beside it, in the same run, the pubeval player against
itself over as many games (the cost of the game alone, with no learning); then Wiering's modular trainer
(Tesauro's inputs, and his features with seven outputs), and the feature encoders' speed.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from sumito.games.backgammon import ALL_ROLLS, random_position
from sumito.games.backgammon.kernels import generate_plays
from test_backgammon import reference_afterstates

ROLLS = np.array(ALL_ROLLS, dtype=np.int64)


@njit(cache=True)
def _generate_all(boards, rolls):
    """Afterstates of every position for every roll, all inside numba (no Python between calls)."""
    total = 0
    for i in range(boards.shape[0]):
        for r in range(rolls.shape[0]):
            total += generate_plays(boards[i], rolls[r, 0], rolls[r, 1])[0].shape[0]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--reference-positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--training-games", type=int, default=500, help="TD self-play games to time (0: none)")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    t_warm = time.perf_counter()
    _generate_all(np.stack([random_position(rng, 0).board]), ROLLS)
    warm = time.perf_counter() - t_warm
    positions = [random_position(rng) for _ in range(args.positions)]
    boards = np.stack([p.board for p in positions])
    setup = time.perf_counter() - t0 - warm

    t = time.perf_counter()
    total = _generate_all(boards, ROLLS)
    fast = time.perf_counter() - t
    calls = boards.shape[0] * len(ALL_ROLLS)

    sub = boards[: args.reference_positions]
    t = time.perf_counter()
    ref_total = sum(len(reference_afterstates(b, a, c)) for b in sub for a, c in ALL_ROLLS)
    slow = time.perf_counter() - t
    ref_calls = sub.shape[0] * len(ALL_ROLLS)
    fast_sub = _generate_all(sub, ROLLS)
    assert fast_sub == ref_total, (fast_sub, ref_total)

    print(f"python {platform.python_version()} on {platform.machine()}, seed {args.seed}")
    print(f"JIT warm-up {warm:.2f} s (not in the figures); {args.positions} random-game positions in {setup:.2f} s")
    print(
        f"{'generator':<22}{'positions×rolls':>16}{'afterstates':>13}{'seconds':>10}{'pos×rolls/s':>14}{'after/s':>12}"
    )
    for name, n, m, sec in (("numba kernel", calls, total, fast), ("python reference", ref_calls, ref_total, slow)):
        print(f"{name:<22}{n:>16,}{m:>13,}{sec:>10.3f}{n / sec:>14,.0f}{m / sec:>12,.0f}")
    print(f"speed-up on positions×rolls: {(calls / fast) / (ref_calls / slow):.0f}×")
    if args.training_games > 0:
        training_benchmark(args.training_games, args.seed)


def training_benchmark(games: int, seed: int) -> None:
    from sumito.games.backgammon.board import BackgammonPosition
    from sumito.games.backgammon.game import play_game
    from sumito.learn.training import Trainer, TrainingConfig
    from sumito.models.backgammon.learning import BackgammonLearningGame
    from sumito.players.backgammon.pubeval import PubevalPlayer

    config = TrainingConfig(regime="self", rewards="end", hidden=40, gamma=1.0, output="linear", alpha=0.05,
                            epsilon=0.0, seed=seed, encoding="tesauro198")
    trainer = Trainer(BackgammonLearningGame(), config)
    trainer.play_game()  # warm-up: compiles or loads the kernels
    t = time.perf_counter()
    plies = 0
    for _ in range(games):
        plies += trainer.play_game().plies
    train = time.perf_counter() - t
    rng = np.random.default_rng(seed)
    player = PubevalPlayer()
    start = BackgammonPosition.start().board
    play_game(player, player, rng, start)
    t = time.perf_counter()
    for _ in range(games):
        play_game(player, player, rng, start)
    base = time.perf_counter() - t
    print(f"TD(lambda) self-play training: {games} games in {train:.1f} s = {games / train * 60:,.0f} games/min "
          f"({plies / train:,.0f} plies/s, {plies / games:.0f} plies a game); target 300")
    print(f"baseline, pubeval against itself (no learning): {games / base * 60:,.0f} games/min")

    # Wiering's small modular architecture (three networks), self-play with its own offline trainer: with
    # Tesauro's raw inputs from a fresh network (after warm-up games), and with Wiering's features and seven
    # outputs continuing from the shipped network (a fresh one first plays untypically long games, see
    # modular.MAX_PLIES). pubeval self-play above is the same-run baseline for the cost of the games alone.
    from importlib.resources import files

    from sumito.models.backgammon.features import encode_general
    from sumito.models.backgammon.learning import encode_afterstates
    from sumito.models.backgammon.modular import ModularTrainer, ModularValue
    from sumito.players.backgammon.players import BUILTIN_NETWORK

    shipped = ModularValue.load(files("sumito") / "data" / BUILTIN_NETWORK)
    for name, model, alpha in (("tesauro198, 1 output, fresh", ModularValue(seed), 0.1),
                               ("wiering, 7 outputs, shipped", shipped, 0.01)):
        modular = ModularTrainer(model, np.random.default_rng(seed), alpha=alpha)
        modular.train(max(games // 2, 200))  # warm-up (and compile)
        plies_before = modular.positions.sum()
        t = time.perf_counter()
        modular.train(games)
        spent = time.perf_counter() - t
        plies = (modular.positions.sum() - plies_before) / games
        print(f"modular ({name}) offline TD self-play training: {games / spent * 60:,.0f} games/min "
              f"({plies:.0f} plies a game); target 300")

    # what a user sees: `sumito bg train`'s network (Wiering's features, seven outputs) from fresh, its first
    # games timed as they come (the kernels loaded by a throwaway network's game first)
    fresh = lambda: ModularValue(seed, encoding="wiering", outputs=7)  # noqa: E731
    ModularTrainer(fresh(), np.random.default_rng(seed), alpha=0.01).train(1)
    modular = ModularTrainer(fresh(), np.random.default_rng(seed), alpha=0.01)
    first = max(games // 10, 20)
    t = time.perf_counter()
    modular.train(first)
    spent = time.perf_counter() - t
    print(f"modular (wiering, 7 outputs, fresh: sumito bg train's first {first} games) offline TD self-play "
          f"training: {first / spent * 60:,.0f} games/min ({modular.positions.sum() / first:.0f} plies a game)")

    # feature extraction: Wiering's 393 general inputs (hit counts over every roll included) beside Tesauro's
    # 198 raw inputs, on the same afterstates
    rows = np.array([random_position(np.random.default_rng([seed, i])).board for i in range(2000)], dtype=np.int8)
    encode_general(rows[:2])
    encode_afterstates(rows[:2])
    for label, encode in (("wiering general (393)", encode_general), ("tesauro198 (198)", encode_afterstates)):
        t = time.perf_counter()
        for start in range(0, rows.shape[0], 20):  # batches of 20, about one roll's afterstates
            encode(rows[start : start + 20])
        spent = time.perf_counter() - t
        print(f"encoding {label}: {rows.shape[0] / spent:,.0f} afterstates/s in batches of 20")

if __name__ == "__main__":
    main()
