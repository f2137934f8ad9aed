"""Scaling out: games a minute for the process pool and Ray side by side, Ray's overhead a game, and
the wall time of each paper-scale reproduction projected from measured per-game costs.

Run:  python bench/bench_scale.py [--games 40] [--workers 1,2] [--tasks 200] [--cost-games 20]

1. **Throughput**: the same match (``--games`` games of ``td`` against ``heuristic:depth=2,ties=random``
   on the standard board, random 2-ply openings, the experiments' test rules) through the process
   pool and through Ray (a local instance started here) with each worker count of ``--workers``,
   after a warm-up run of each executor (worker start-up and numba's cache are timed apart).
2. **Overhead**: ``--tasks`` empty work items through each executor at the largest worker count:
   the seconds a work item costs beyond its own work (submission, pickling, scheduling, result).
3. **Per-game costs** on one core, in this process: an Abalearn training game (``method-II``
   self-play, the standard board, capped at 200 plies; and observing the 2-ply ABLA player, the
   cost of the arms that train with a searching expert), an Abalearn test game (``td`` against the
   heuristic player at 1 and at 2 plies), a Wiering training game (his modular network with his
   features and seven outputs, fresh, self-play) and a backgammon test game (the shipped network
   against pubeval, and against GNU Backgammon at 0 ply when gnubg-nn is installed: the experiments
   test against both). Wiering's
   arms that play or watch gnubg also pay gnubg's evaluation in every training game, which the
   projection leaves out: it is a lower bound for those arms.
4. **Projections**: for each reproduction at the papers' scale, the training games (sequential
   within a run) and test games (independent) it needs, read off the experiment scripts, give its
   CPU time and its wall time on 8, 64 and 512 cores: ``max(longest run, CPU time / cores)`` plus
   Ray's overhead per item over the cores. A run's training is one sequential chain (without
   ``--actors``), so the longest run bounds the wall time however many cores there are.
5. **A self-taught generation** (``sumito nnue selfplay``'s default settings): its self-play and
   gate games measured on one core, its training step measured a position and epoch, projected to 8,
   64 and 512 cores (the training is one sequential step: it bounds the wall time).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

from sumito.arena.executor import make_executor
from sumito.arena.match import ArenaSettings, play_game, schedule
from sumito.games.abalone import DrawRules
from sumito.learn.nnue import generate, load_samples
from sumito.learn.selftaught import LoopSettings
from sumito.models.nnue_fit import FitSettings, fit

TEST_RULES = DrawRules(max_plies=400, repetitions=20)  # the learning experiments' test games
CORES = (8, 64, 512)


def empty(item: int) -> int:
    """An empty work item: what the executor costs by itself."""
    return item


def fresh_ray(backend: str) -> None:
    if backend == "ray":
        import ray

        ray.shutdown()


def throughput(games: int, workers: list[int]) -> list[tuple[str, int, float]]:
    settings = ArenaSettings.from_layout("standard", seed=2026, opening_plies=2, rules=TEST_RULES)
    tasks = schedule(["td", "heuristic:depth=2,ties=random"], games, settings)
    rows = []
    for backend in ("process", "ray"):
        for n in workers:
            fresh_ray(backend)  # a local Ray instance with n CPUs (one started for fewer would cap it)
            executor = make_executor(n, backend=backend)
            t = time.perf_counter()
            list(executor.run(play_game, tasks[: max(2, n)]))  # warm-up: workers start, kernels load
            warm = time.perf_counter() - t
            t = time.perf_counter()
            done = sum(1 for _ in executor.run(play_game, tasks))
            seconds = time.perf_counter() - t
            rows.append((backend, n, done / seconds * 60))
            print(f"  {backend:8s} {n} worker(s): {done} games in {seconds:6.1f} s = {done / seconds * 60:7.1f} "
                  f"games/min (warm-up {warm:.1f} s)", flush=True)
    return rows


def overhead(tasks: int, workers: int) -> dict[str, float]:
    out = {}
    for backend in ("process", "ray"):
        fresh_ray(backend)
        executor = make_executor(max(2, workers), backend=backend)
        list(executor.run(empty, list(range(8))))
        t = time.perf_counter()
        assert sum(1 for _ in executor.run(empty, list(range(tasks)))) == tasks
        out[backend] = (time.perf_counter() - t) / tasks
    return out


def per_game(fn: Callable[[], object], games: int) -> float:
    fn()  # warm-up
    t = time.perf_counter()
    for _ in range(games):
        fn()
    return (time.perf_counter() - t) / games


def game_costs(games: int) -> dict[str, float]:
    from sumito.defaults import METHOD_PRESETS
    from sumito.learn.abalone_game import make_trainer
    from sumito.learn.training import TrainingConfig

    trainer = make_trainer(TrainingConfig(**{**METHOD_PRESETS["method-II"], "seed": 1}))
    costs = {"abalone-train": per_game(trainer.play_game, games)}
    # observing (or playing) a searching expert: Wiering's regimes and Figure 3 against the 2-ply ABLA player
    expert = make_trainer(TrainingConfig(encoding="abalearn3", regime="observe", kappa=0.0, seed=1,
                                         opponent="abla:depth=2,ties=random"))
    costs["abalone-train-expert"] = per_game(expert.play_game, max(2, games // 4))
    for depth in (1, 2):
        settings = ArenaSettings.from_layout("standard", seed=7, opening_plies=2, rules=TEST_RULES)
        tasks = iter(schedule(["td", f"heuristic:depth={depth},ties=random"], games + 1, settings) * 2)
        costs[f"abalone-test-d{depth}"] = per_game(lambda tasks=tasks: play_game(next(tasks)), games)

    from importlib.resources import files

    from sumito.games.backgammon.board import BackgammonPosition
    from sumito.games.backgammon.game import play_game as bg_play
    from sumito.models.backgammon.modular import ModularTrainer, ModularValue
    from sumito.players.backgammon.players import BUILTIN_NETWORK
    from sumito.players.backgammon.pubeval import PubevalPlayer

    # a run starts from a fresh network (Wiering's features, 7 outputs), whose first games are the longest
    fresh = ModularTrainer(ModularValue(1, encoding="wiering", outputs=7), np.random.default_rng(1), alpha=0.01)
    costs["backgammon-train"] = per_game(fresh.play_game, games)
    model = ModularValue.load(files("sumito") / "data" / BUILTIN_NETWORK)  # the shipped, trained network
    rng, player, start = np.random.default_rng(1), PubevalPlayer(), BackgammonPosition.start().board
    tested = model.copy()  # a test game: Wiering's network against pubeval
    costs["backgammon-test"] = per_game(lambda: bg_play(tested.choose, player, rng, start), games)
    try:  # and against GNU Backgammon at 0 ply, the experiments' other test opponent (gnubg-nn, optional)
        from sumito.players.backgammon.players import make_bg_player

        gnubg = make_bg_player("gnubg:ply=0", rng_seed=1)
        costs["backgammon-test-gnubg"] = per_game(lambda: bg_play(tested.choose, gnubg, rng, start), games)
    except Exception as exc:  # any reason gnubg cannot play: leave it out, say why
        print(f"   (no gnubg test game: {str(exc).splitlines()[0]})")
    return costs


def train_kind(options: dict) -> str:
    """Which measured training game an arm's runs play: self-play, or against (or watching) a searching player."""
    opponent = str(options.get("opponent", ""))
    if options.get("regime") in ("opponent", "observe") and opponent.split(":")[0] in ("abla", "heuristic"):
        return "abalone-train-expert"
    return "abalone-train"


def reproductions() -> list[tuple[str, list[tuple[int, str]], int, str]]:
    """(name, [(training games, training kind) a run], test games in all, test kind) at the papers' scale."""
    import learning_experiments

    rows = []
    for name in ("table2", "fig3", "fig4", "fig5", "wiering-regimes", "wiering-lambda"):
        exp = learning_experiments.EXPERIMENTS[name]
        runs = [(max(exp.checkpoints), train_kind(arm.options)) for arm in exp.arms for _ in range(exp.seeds)]
        opponents = exp.opponents or learning_experiments.DEFAULT_OPPONENTS
        tests = len(runs) * len(exp.checkpoints) * len(opponents) * exp.eval_games
        rows.append((f"learning_curves.py {name}", runs, tests, "abalone-test"))
    samples = learning_experiments.FIG2_SAMPLES
    rows.append(("learning_curves.py fig2", [(max(samples), "abalone-train")], len(samples) * 500 * 2, "abalone-test"))
    # Wiering's backgammon study: the commands of results-backgammon.md, sized by wiering_backgammon.py's own
    # arms and options (ten runs an arm at 5,000 games; the one-run studies at 20,000 and 50,000 games)
    for command in ("regimes", "lambda", "architectures", "inputs",
                    "regimes --games 20000 --test-every 2500 --test-games 1000 --seeds 1",
                    "architectures --arms 1,2 --games 50000 --test-every 10000 --test-games 1000 --seeds 1"):
        rows.append((f"wiering_backgammon.py {command}", *backgammon_runs(command.split())))
    return rows


def backgammon_runs(argv: list[str]) -> tuple[list[tuple[int, str]], int, str]:
    """The runs and test games of one ``wiering_backgammon.py`` command (arms that share a run counted apart)."""
    import wiering_backgammon as wb

    args = wb.build_parser().parse_args(argv)
    arms = wb.select_arms(args.experiment, args.arms)
    tests_a_run = len(wb.checkpoint_games(wb.config_of(args.experiment, arms[0], args.seed, args)))
    runs = [(args.games, "backgammon-train")] * (len(arms) * args.seeds)
    tests = len(runs) * tests_a_run * len(wb.OPPONENTS) * args.test_games
    return runs, tests, "backgammon-test"


def hours(seconds: float) -> str:
    return f"{seconds / 3600:,.1f} h" if seconds >= 3600 else f"{seconds / 60:,.1f} min"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per throughput measurement")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--tasks", type=int, default=200, help="empty items for the overhead")
    parser.add_argument("--cost-games", type=int, default=20, help="games per per-game cost")
    parser.add_argument("--selftaught-net", default="builtin-nnue",
                        help="the network whose self-play a self-taught generation's projection times "
                        "(default builtin-nnue, of the same size; runs/selftaught/net-NNN.npz for the run's own)")
    parser.add_argument("--selftaught-only", action="store_true",
                        help="only section 5 (and the overhead a work item it uses)")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    print(f"scale benchmark — {platform.machine()}, python {platform.python_version()}, "
          f"{len(os.sched_getaffinity(0))} cores here\n")
    if args.selftaught_only:
        selftaught_projection(args.selftaught_net, args.cost_games, overhead(args.tasks, max(workers))["ray"])
        return
    print("1. throughput: td against heuristic:depth=2 (standard board)")
    throughput(args.games, workers)
    costs_overhead = overhead(args.tasks, max(workers))
    print("\n2. overhead a work item (empty items): " + ", ".join(
        f"{backend} {1000 * s:.2f} ms" for backend, s in costs_overhead.items()))
    print(f"   Ray's extra cost a game: {1000 * (costs_overhead['ray'] - costs_overhead['process']):.2f} ms "
          "beyond the process pool's")
    print(f"\n3. per-game costs on one core ({args.cost_games} games each, after a warm-up game)")
    costs = game_costs(args.cost_games)
    for kind, seconds in costs.items():
        print(f"   {kind:20s} {1000 * seconds:8.1f} ms a game")
    # the experiments test against both opponents, as many games each
    bg_tests = [costs["backgammon-test"], costs.get("backgammon-test-gnubg", costs["backgammon-test"])]
    test_cost = {"abalone-test": (costs["abalone-test-d1"] + costs["abalone-test-d2"]) / 2,
                 "backgammon-test": sum(bg_tests) / 2}
    print("\n4. projected wall time at the papers' scale (Ray; one core a worker)")
    print(f"| reproduction | runs × training games a run | test games | CPU time | "
          f"{' | '.join(f'{c} cores' for c in CORES)} |")
    print("|---|---|---|---|" + "---|" * len(CORES))
    per_item = costs_overhead["ray"]
    for name, runs, tests, test_kind in reproductions():
        chains = [games * costs[kind] for games, kind in runs]
        cpu = sum(chains) + tests * test_cost[test_kind]
        items = len(runs) + tests
        walls = [max(max(chains), cpu / c) + items * per_item / c for c in CORES]
        games = sorted({g for g, _ in runs})
        print(f"| `{name}` | {len(runs)} × {'/'.join(f'{g:,}' for g in games)} | {tests:,} | {hours(cpu)} | "
              + " | ".join(hours(w) for w in walls) + " |")
    selftaught_projection(args.selftaught_net, args.cost_games, per_item)


def selftaught_projection(net: str, games: int, per_item: float) -> None:
    """5. A generation of the self-taught line (sumito.learn.selftaught, its default settings): the
    self-play games and the gate's games are independent work items; the training is one sequential
    step on one core. Measured here: a self-play game of ``engine:depth=D,nnue=NET`` (a chunk on one
    core, positions kept) and an epoch of training a position; a gate game costs what a self-play game
    does (the same search and network size), and a gate plays at most its maximum."""
    s = LoopSettings()
    spec = f"engine:depth={s.depth},nnue={net},threads=1"
    with tempfile.TemporaryDirectory() as folder:
        generate(Path(folder) / "warm", 1, player=spec, chunk=1, max_plies=s.max_plies)
        start = time.perf_counter()
        generate(Path(folder) / "data", games, player=spec, chunk=games, max_plies=s.max_plies, seed=7)
        game = (time.perf_counter() - start) / games
        samples = load_samples([Path(folder) / "data"])
        start = time.perf_counter()
        fit(samples, FitSettings(hidden=s.hidden, hidden2=s.hidden2, epochs=1, base=False))
        position_epoch = (time.perf_counter() - start) / max(len(samples), 1)
    positions = len(samples) / games * s.games * s.window  # what a candidate trains on, the window full
    training = positions * position_epoch * s.epochs
    items = s.games / s.chunk + s.gate_games
    cpu = (s.games + s.gate_games) * game + training
    print(f"\n5. a self-taught generation ({s.games} self-play games and at most {s.gate_games} gate games at depth "
          f"{s.depth}, {s.epochs} epochs on {positions:,.0f} positions; {spec}): {1000 * game:.0f} ms a game, "
          f"{1e6 * position_epoch:.1f} µs a position and epoch, training {training:.0f} s on one core")
    print(f"| step | CPU time | {' | '.join(f'{c} cores' for c in CORES)} |")
    print("|---|---|" + "---|" * len(CORES))
    walls = [(s.games + s.gate_games) * game / c + training + items * per_item / c for c in CORES]
    print(f"| a generation (the gate at its maximum) | {hours(cpu)} | " + " | ".join(hours(w) for w in walls) + " |")


if __name__ == "__main__":
    main()
