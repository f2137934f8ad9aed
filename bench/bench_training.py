"""Training throughput: games a minute of TD(λ) self-play, and afterstate evaluations a second.

Run:  python bench/bench_training.py [--games 200] [--preset method-II] [--set KEY=VALUE ...]

``--set`` overrides training options as ``sumito train --set`` does; ``--set output=sigmoid --set
choice=value --set hidden=40`` plays the same games as Sumito before the reading search's default
(a linear output, the reward added when choosing, 10 hidden units), so that its games a minute
compare with that version's directly (the games themselves differ under the default: they are
shorter, and many end before the 200-ply cap). docs/reproductions.md gives the before/after runs.

Training: the preset (default ``method-II``: Abalearn 3, risk-sensitive TD(λ), self-play,
ε-greedy from 0.9) on the standard board with games capped at 200 plies, on one core; the first
game (JIT warm-up) is timed separately. Evaluation: encoding every afterstate of 64 mid-game
positions and valuing them with the network in one matrix product, beside a baseline in the
same run that builds each successor ``Position``, encodes it with ``encode_position`` and values
it row by row.

``--baseline REV`` runs the same benchmark on another revision of Sumito (a temporary git worktree of
REV, in a subprocess) after this one, and prints the two side by side with their ratios: the
before/after of a change in one run, on one machine's conditions.

TD-Leaf(λ): the same preset with ``search_depth=3`` and ``reward_scale=1`` (each learner move a 3-ply
search over the network, the updates on the principal variation's leaves), ``--leaf-games`` games from a fresh
trainer after its own warm-up game. Its ε starts at 0.9 like the 1-ply run's, and a random move's
leaf comes from a 2-ply search, so the cost a game changes as ε decays: the 1-ply run's first
``--leaf-games`` games are timed too, for a figure over the same ε range.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench_engine import midgame_positions  # the same positions as the engine benchmark
from sumito.defaults import METHOD_PRESETS
from sumito.learn.abalone_game import PlayerOpponent
from sumito.learn.config import config_from_args
from sumito.learn.training import Trainer, TrainingConfig
from sumito.models.abalone_encodings import MAX_MOVES, encode_position, encode_position_successors
from sumito.models.abalone_game import AbaloneLearningGame
from sumito.models.network import ValueNetwork


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--preset", default="method-II", choices=sorted(METHOD_PRESETS))
    parser.add_argument("--leaf-games", type=int, default=20, help="TD-Leaf depth-3 games to time (0: none)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a training option")
    parser.add_argument("--baseline", metavar="REV", help="also run this benchmark at git revision REV, side by side")
    args = parser.parse_args()
    if args.baseline:
        compare_with(args.baseline, [a for i, a in enumerate(sys.argv[1:]) if not _is_baseline_arg(sys.argv[1:], i)])
        return
    print(f"training benchmark — {platform.machine()}, python {platform.python_version()}, one thread"
          + (f"; {' '.join(args.set)}" if args.set else ""))

    args.config, args.seed = None, 1  # config_from_args reads these too
    config = config_from_args(args)
    game = AbaloneLearningGame(config.encoding)
    trainer = Trainer(game, config, lambda spec, seed: PlayerOpponent(spec, seed))
    t = time.perf_counter()
    trainer.play_game()
    print(f"warm-up game (JIT compile or cache load): {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    plies = decided = 0
    first_games = first_plies = 0
    first_dt = 0.0
    for g in range(args.games):
        stats = trainer.play_game()
        plies += stats.plies
        decided += stats.winner != 0
        if g + 1 == args.leaf_games:
            first_games, first_plies, first_dt = g + 1, plies, time.perf_counter() - t
    dt = time.perf_counter() - t
    print(f"{args.preset}: {args.games} games in {dt:.1f} s = {args.games / dt * 60:,.0f} games/min "
          f"({plies / dt:,.0f} plies/s, {plies / args.games:.0f} plies a game, {decided} decided); target 1,000")
    if args.leaf_games > 0:
        if first_games:
            print(f"{args.preset} 1-ply, its first {first_games} games: "
                  f"{first_games / first_dt * 60:,.0f} games/min ({first_plies / first_dt:,.0f} plies/s)")
        leaf_benchmark(args.preset, config, args.leaf_games)

    positions = midgame_positions(64, 2026)
    net = ValueNetwork(14, 40, np.random.default_rng(0))
    out = np.empty((MAX_MOVES, 14))
    n_rows = sum(p.count_legal_moves() for p in positions)
    reps = 20
    t = time.perf_counter()
    for _ in range(reps):
        for p in positions:
            _, x = encode_position_successors("abalearn3", p, out)
            net.values(x)
    fast = reps * n_rows / (time.perf_counter() - t)
    child = next(iter(positions[0].successors()))[1]  # warm: the timing below is of calls, not of loading
    net.values(encode_position("abalearn3", child, positions[0].side_to_move)[None, :])
    t = time.perf_counter()
    for p in positions[:8]:
        for _, child in p.successors():
            net.values(encode_position("abalearn3", child, p.side_to_move)[None, :])
    slow_rows = sum(p.count_legal_moves() for p in positions[:8])
    slow = slow_rows / (time.perf_counter() - t)
    print(f"afterstate evaluations (encode + network), {n_rows / 64:.0f} a position: batched {fast:,.0f}/s, "
          f"baseline one Position at a time {slow:,.0f}/s ({fast / slow:.0f}x)")


def leaf_benchmark(preset: str, config: TrainingConfig, games: int) -> None:
    """Games a minute of TD-Leaf(λ) at depth 3 with the preset (and options), from a fresh trainer."""
    config = dataclasses.replace(config, search_depth=3, reward_scale=1.0)  # TD-Leaf takes unscaled rewards
    trainer = Trainer(AbaloneLearningGame(config.encoding), config, lambda spec, seed: PlayerOpponent(spec, seed))
    t = time.perf_counter()
    trainer.play_game()
    print(f"TD-Leaf warm-up game (search kernels' JIT compile or cache load): {time.perf_counter() - t:.2f} s")
    epsilon = trainer.epsilon
    t = time.perf_counter()
    plies = decided = 0
    for _ in range(games):
        stats = trainer.play_game()
        plies += stats.plies
        decided += stats.winner != 0
    dt = time.perf_counter() - t
    print(f"{preset} TD-Leaf depth 3: {games} games in {dt:.1f} s = {games / dt * 60:,.0f} games/min "
          f"({plies / dt:,.0f} plies/s, {plies / games:.0f} plies a game, {decided} decided; "
          f"ε {epsilon:.2f} → {trainer.epsilon:.2f})")


def _is_baseline_arg(argv: list[str], i: int) -> bool:
    return argv[i] == "--baseline" or argv[i].startswith("--baseline=") or (i > 0 and argv[i - 1] == "--baseline")


_FIGURE = re.compile(r"([\d,]+(?:\.\d+)?) ?(games/min|plies/s|/s)")


def _run(root: Path, argv: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": f"{root / 'src'}{os.pathsep}{root / 'bench'}"}
    result = subprocess.run([sys.executable, str(root / "bench" / "bench_training.py"), *argv], env=env,
                            capture_output=True, text=True, cwd=root)
    if result.returncode != 0:
        raise SystemExit(f"the benchmark failed in {root}: {result.stderr.strip().splitlines()[-1:]}")
    return result.stdout


def compare_with(rev: str, argv: list[str]) -> None:
    """This checkout's figures, then REV's (a temporary worktree), and each figure's ratio."""
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "baseline"
        made = subprocess.run(["git", "-C", str(here), "worktree", "add", "--detach", str(tree), rev],
                              capture_output=True, text=True)
        if made.returncode != 0:
            raise SystemExit(f"--baseline {rev}: not a revision of this repository ({made.stderr.strip()[-200:]})")
        try:
            this = _run(here, argv)
            base = _run(tree, argv)
        finally:
            subprocess.run(["git", "-C", str(here), "worktree", "remove", "--force", str(tree)], capture_output=True)
    print(f"== this checkout\n{this}== baseline {rev}\n{base}== this / baseline, line by line")
    for a, b in zip(this.splitlines(), base.splitlines()):
        fa, fb = _FIGURE.findall(a), _FIGURE.findall(b)
        if fa and len(fa) == len(fb):
            ratios = ", ".join(f"{float(x.replace(',', '')) / float(y.replace(',', '')):.2f}x {unit}"
                               for (x, unit), (y, _) in zip(fa, fb))
            print(f"{a.split(':')[0][:60]}: {ratios}")


if __name__ == "__main__":
    main()
