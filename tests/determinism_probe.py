"""Short trainings of every learner, printed as digests (JSON): run by tests/test_determinism.py in
subprocesses under forced BLAS kernels, numba's generic CPU, numpy without its AVX2/AVX-512 loops
and glibc without FMA. The digests must not depend on any of them.

    python tests/determinism_probe.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def td_abalone() -> str:
    """Method I(a)'s recipe (Abalearn 3, against random then self-play), 24 games: every encoding and the
    risk-sensitive update. The split and the exploration are fixed here (those before stage 3 of the reading
    search), so that the pinned digest does not move with the presets."""
    from sumito.defaults import METHOD_PRESETS
    from sumito.learn.abalone_game import make_trainer
    from sumito.learn.training import TrainingConfig

    config = TrainingConfig(**{**METHOD_PRESETS["method-Ia"], "encoding": "abalearn3", "epsilon_min": 0.0,
                               "switch_after": 12, "max_plies": 120, "seed": 7})
    trainer = make_trainer(config)
    for _ in range(24):
        trainer.play_game()
    return digest(trainer.network.theta)


def td_leaf() -> str:
    """TD-Leaf(λ) at depth 3 over a sigmoid network, 3 games."""
    from sumito.learn.abalone_game import make_trainer
    from sumito.learn.training import TrainingConfig

    config = TrainingConfig(encoding="abalearn3", regime="self", search_depth=3, output="sigmoid", hidden=12,
                            max_plies=60, seed=3)
    trainer = make_trainer(config)
    for _ in range(3):
        trainer.play_game()
    return digest(trainer.network.theta)


def backgammon() -> str:
    """The modular trainer with Wiering's features and seven outputs, 12 games."""
    from sumito.models.backgammon.modular import ModularTrainer, ModularValue

    trainer = ModularTrainer(ModularValue(5, outputs=7, encoding="wiering"), 6)
    trainer.train(12)
    return digest(*[n.theta for n in trainer.model.networks])


def backgammon_run() -> str:
    """A 30-game BackgammonRun (Wiering's features, seven outputs) with its test matches against pubeval and random,
    and 4 games of the modular trainer learning from an evaluator's targets (expert_outputs) while playing
    pubeval."""
    from sumito.learn.backgammon.run import BackgammonRun, BackgammonRunConfig
    from sumito.models.backgammon.modular import ModularTrainer, ModularValue
    from sumito.players.backgammon.pubeval import PubevalPlayer

    class Evaluator:  # gnubg-shaped probabilities from the boards' bytes (no gnubg, no libm)
        def evaluate(self, boards):
            rows = np.asarray(boards, dtype=np.int8).reshape(-1, 28)
            out = np.empty((rows.shape[0], 5))
            for r, b in enumerate(rows):
                h = int.from_bytes(hashlib.sha256(b.tobytes()).digest()[:8], "little")
                win = (h % 1000) / 1000.0
                gammon = win * ((h >> 10) % 100) / 300.0
                lose_gammon = (1.0 - win) * ((h >> 20) % 100) / 300.0
                out[r] = (win, gammon, gammon / 7.0, lose_gammon, lose_gammon / 9.0)
            return out

    with tempfile.TemporaryDirectory() as folder:
        config = BackgammonRunConfig(games=30, test_every=15, test_games=10, seed=5, test_against=("pubeval", "random"))
        rows = BackgammonRun(Path(folder) / "run", config).run()
        run_net = ModularValue.load(str(Path(folder) / "run" / "network.npz"))
    tests = np.array([[r["points_sum"], r["points_sq"], r["wins"]] for r in rows], dtype=np.int64)
    expert = ModularTrainer(ModularValue(9, outputs=7, encoding="wiering"), 10, opponent=PubevalPlayer(),
                            targets="expert", evaluator=Evaluator())
    expert.train(4)
    return digest(tests, *[n.theta for n in run_net.networks], *[n.theta for n in expert.model.networks])


def alphalone() -> str:
    """Alphalone's TD on the mini board, 6 games."""
    from sumito.learn.alphalone_td import TDConfig, train

    result = train(TDConfig(games=6, seed=11, max_plies=150))
    return digest(np.asarray(result.weights.black), np.asarray(result.weights.white))


def nnue() -> str:
    """NNUE data from the default engine (the shipped network in its search) and two epochs of the trainer."""
    from sumito.games.abalone.position import Position
    from sumito.learn.nnue import generate, load_samples
    from sumito.models.nnue_fit import FitSettings, fit

    with tempfile.TemporaryDirectory() as folder:
        openings = [Position.start("belgian-daisy").to_string()]
        generate(folder, games=2, player="engine:depth=2", chunk=2, max_plies=60, openings=openings)
        samples = load_samples([folder])
        net, _ = fit(samples, FitSettings(hidden=8, hidden2=4, epochs=2, lr=3e-3, batch=64, quiet_only=False))
    arrays = [v for v in vars(net).values() if hasattr(v, "dtype")]
    return digest(samples.score, samples.boards, *arrays)


def zero() -> str:
    """The zero learner on the mini board: two iterations of 8 self-play games (half from random positions) and
    10 Adam steps each, under the Gumbel root search and under PUCT, a small network, the value target mixed
    with the search's value and the step size dropped for the second iteration."""
    from sumito.arena.executor import InlineExecutor
    from sumito.learn.zero import Learner, ZeroSettings

    thetas = []
    for mode in ("gumbel", "puct"):
        learner = Learner(ZeroSettings(mode=mode, h1=16, h2=8, sims=8, games=8, chunk=4, steps=10, batch=32,
                                       max_plies=60, seed=5, value_mix=0.5, lr_drop_at=8))
        for _ in range(2):
            learner.iterate(InlineExecutor())
        thetas.append(learner.network.theta)
    return digest(*thetas)


PROBES = {"td_abalone": td_abalone, "td_leaf": td_leaf, "backgammon": backgammon, "backgammon_run": backgammon_run,
          "alphalone": alphalone, "nnue": nnue, "zero": zero}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=sorted(PROBES), default=None)
    args = parser.parse_args()
    names = args.only or list(PROBES)
    json.dump({name: PROBES[name]() for name in names}, sys.stdout)
    print()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
