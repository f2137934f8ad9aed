"""Wiering (2010) on backgammon with the small modular architecture (20/20/40 hidden units): the training
regimes of his Table 1 / Figures 1-3 and his λ sweep (Figure 7 / Table 3), at a small scale.

    python experiments/wiering_backgammon.py EXPERIMENT [--games 2000] [--test-games 200] [--seeds 2] [--workers 2]

Experiments:

- ``regimes``: self-play; playing the expert (``GnubgExpert(ply=0)``, the learner is one side); observing the
  expert play itself (both sides' afterstates learned); observing with the expert's evaluations as TD targets;
- ``lambda``: self-play with λ ∈ {0, 0.2, 0.4, 0.6, 0.8, 1.0}.

Each (arm, seed) trains a fresh :class:`~sumito.games.backgammon.modular.ModularValue` by online TD(λ)
(γ = 1, λ = 0.6 unless the arm says otherwise, α = ``--alpha``, **default 0.05, not the paper's 0.01**: 0.01
learns too slowly in a few thousand games). Rewards are ±1 (win/loss) unless ``--points``. At each
checkpoint (a quarter, half, three quarters and all of ``--games``) the greedy learner plays ``--test-games``
games against :class:`~sumito.games.backgammon.pubeval.PubevalPlayer` and as many against the expert, sides
alternating game by game. Equity is points per game (±1/2/3 with gammons and backgammons, from
:func:`~sumito.games.backgammon.pubeval.play_game`), with a 95% interval mean ± 1.96·sd/√n over all test games
of all seeds; the win rate is the share of games won.

Each finished run writes ``OUT/EXPERIMENT/ARM-sSEED/rows.csv`` atomically and is skipped when it exists, so a
killed experiment resumes. The Markdown table goes to standard output, the plot to
``docs/img/backgammon-EXPERIMENT.png`` (written atomically).
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
import time
from collections import defaultdict
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from sumito.fileio import atomic_write_bytes, atomic_write_text
from sumito.games.backgammon.board import BackgammonPosition
from sumito.games.backgammon.modular import ModularTrainer, ModularValue
from sumito.games.backgammon.pubeval import PubevalPlayer, play_game

#: arm -> (regime, targets, λ); regime is "self", "against" (the expert) or "observe" (the expert)
EXPERIMENTS: dict[str, dict[str, tuple[str, str, float]]] = {
    "regimes": {
        "self-play": ("self", "own", 0.6),
        "vs-expert": ("against", "own", 0.6),
        "observing": ("observe", "own", 0.6),
        "observing-expert-targets": ("observe", "expert", 0.6),
    },
    "lambda": {f"lambda-{lam:.1f}": ("self", "own", lam) for lam in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)},
}
FIELDS = ["arm", "seed", "games", "opponent", "n", "points_sum", "points_sq", "wins", "train_seconds"]


def checkpoints(games: int) -> list[int]:
    return sorted({max(1, games * k // 4) for k in range(1, 5)})


def test(model: ModularValue, opponent: Any, games: int, rng: np.random.Generator) -> tuple[int, int, int]:
    """``games`` games of ``model`` against ``opponent``, the model first in even games; (sum, sum of squares,
    wins) of the model's points."""
    start = BackgammonPosition.start().board
    total = sq = wins = 0
    for i in range(games):
        r = play_game(model, opponent, rng, start) if i % 2 == 0 else -play_game(opponent, model, rng, start)
        total, sq, wins = total + r, sq + r * r, wins + (r > 0)
    return total, sq, wins


def run_arm(job: tuple[str, str, int, dict[str, Any]]) -> list[dict[str, Any]]:
    experiment, arm, seed, opts = job
    from sumito.games.backgammon.gnubg_expert import GnubgExpert

    regime, targets, lam = EXPERIMENTS[experiment][arm]
    expert = GnubgExpert(ply=0)
    model = ModularValue(seed)
    kwargs: dict[str, Any] = {"alpha": opts["alpha"], "lam": lam, "points": opts["points"], "targets": targets}
    if regime == "against":
        kwargs["opponent"] = expert
    elif regime == "observe":
        kwargs["observe"] = expert
    if targets == "expert":
        kwargs["evaluator"] = expert
    trainer = ModularTrainer(model, np.random.default_rng([seed, 1]), **kwargs)
    rows, done, seconds = [], 0, 0.0
    for cp in checkpoints(opts["games"]):
        seconds += trainer.train(cp - done)["seconds"]
        done = cp
        for name, opp, n in (("pubeval", PubevalPlayer(), opts["test_games"]),
                             ("gnubg-0ply", expert, opts["expert_test_games"])):
            if n <= 0:
                continue
            s, sq, w = test(model, opp, n, np.random.default_rng([seed, cp, len(name)]))
            rows.append({"arm": arm, "seed": seed, "games": cp, "opponent": name, "n": n, "points_sum": s,
                         "points_sq": sq, "wins": w, "train_seconds": round(seconds, 2)})
    path = Path(opts["out"]) / experiment / f"{arm}-s{seed}" / "rows.csv"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS)
    writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, out.getvalue())
    print(f"done {experiment} {arm} seed {seed}: {seconds:.0f} s training", file=sys.stderr, flush=True)
    return rows


def read_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def pooled(rows: list[dict[str, Any]]) -> tuple[float, float, float, int]:
    """(equity, 95% half-width, win rate, n) over all test games in ``rows``."""
    n = sum(int(r["n"]) for r in rows)
    s = sum(float(r["points_sum"]) for r in rows)
    sq = sum(float(r["points_sq"]) for r in rows)
    mean = s / n
    var = max(sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    return mean, 1.96 * math.sqrt(var / n), sum(int(r["wins"]) for r in rows) / n, n


def summarize(experiment: str, rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    cells: dict[tuple[str, str, int], list] = defaultdict(list)
    for r in rows:
        cells[(r["arm"], r["opponent"], int(r["games"]))].append(r)
    arms = list(EXPERIMENTS[experiment])
    games = checkpoints(args.games)
    opponents = [o for o in ("pubeval", "gnubg-0ply") if any(k[1] == o for k in cells)]
    for opp in opponents:
        print(f"\n### {experiment}: equity (points per game) against {opp}, 95% interval; win rate in brackets\n")
        print("| arm | " + " | ".join(str(g) for g in games) + " | train s/run |")
        print("|---|" + "---|" * (len(games) + 1))
        for arm in arms:
            cols = []
            for g in games:
                group = cells.get((arm, opp, g))
                if not group:
                    cols.append("")
                    continue
                m, h, w, _ = pooled(group)
                cols.append(f"{m:+.3f} ± {h:.3f} ({w:.0%})")
            last = cells.get((arm, opp, games[-1]), [])
            secs = np.mean([float(r["train_seconds"]) for r in last]) if last else float("nan")
            print(f"| {arm} | " + " | ".join(cols) + f" | {secs:.0f} |")
    _plot(experiment, cells, arms, games, opponents, args)


def _plot(experiment, cells, arms, games, opponents, args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(opponents), figsize=(6 * len(opponents), 4.5), squeeze=False)
    for ax, opp in zip(axes[0], opponents):
        for arm in arms:
            xs = [g for g in games if (arm, opp, g) in cells]
            stats = [pooled(cells[(arm, opp, g)]) for g in xs]
            means = [s[0] for s in stats]
            (line,) = ax.plot(xs, means, marker="o", label=arm)
            ax.fill_between(xs, [s[0] - s[1] for s in stats], [s[0] + s[1] for s in stats], alpha=0.12,
                            color=line.get_color())
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xlabel("training games")
        ax.set_ylabel("equity (points per game)")
        ax.set_title(f"against {opp} ({args.seeds} seeds × {args.test_games} games, 95% band)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Wiering 2010, small modular net: {experiment} (α = {args.alpha})", fontsize=11)
    fig.tight_layout()
    plot = Path(args.plot or f"docs/img/backgammon-{experiment}.png")
    buffer = io.BytesIO()
    fig.savefig(buffer, format=plot.suffix.lstrip(".") or "png", dpi=110)
    atomic_write_bytes(plot, buffer.getvalue())  # a killed run never leaves half a picture
    print(f"\nplot: {plot}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", choices=list(EXPERIMENTS))
    parser.add_argument("--games", type=int, default=2000, help="training games per run")
    parser.add_argument("--test-games", type=int, default=200, help="test games against pubeval per checkpoint")
    parser.add_argument("--expert-test-games", type=int, default=None,
                        help="test games against the expert per checkpoint (default: --test-games; 0: none)")
    parser.add_argument("--seeds", type=int, default=2, help="runs per arm")
    parser.add_argument("--seed", type=int, default=2010, help="the first seed (runs use SEED, SEED+1, ...)")
    parser.add_argument("--alpha", type=float, default=0.05, help="learning rate (default 0.05; the paper's is 0.01)")
    parser.add_argument("--points", action="store_true", help="train on ±1/2/3 rewards instead of ±1")
    parser.add_argument("--workers", type=int, default=2, help="runs trained at once (multiprocessing, fork)")
    parser.add_argument("--out", default="runs/backgammon", help="where the rows are kept")
    parser.add_argument("--plot", default=None, help="the plot file (default docs/img/backgammon-EXPERIMENT.png)")
    args = parser.parse_args(argv)
    if args.expert_test_games is None:
        args.expert_test_games = args.test_games
    try:
        from sumito.games.backgammon.gnubg_expert import GnubgExpert

        GnubgExpert(ply=0)  # the expert of every experiment here: a missing package is one line, not a trace
    except ImportError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    opts = {"games": args.games, "test_games": args.test_games, "expert_test_games": args.expert_test_games,
            "alpha": args.alpha, "points": args.points, "out": args.out}
    rows: list[dict[str, Any]] = []
    jobs = []
    for arm in EXPERIMENTS[args.experiment]:
        for seed in range(args.seed, args.seed + args.seeds):
            path = Path(args.out) / args.experiment / f"{arm}-s{seed}" / "rows.csv"
            if path.exists():
                rows.extend(read_rows(path))
            else:
                jobs.append((args.experiment, arm, seed, opts))
    t0 = time.perf_counter()
    if args.workers > 1 and len(jobs) > 1:
        with get_context("fork").Pool(args.workers) as pool:
            for result in pool.imap_unordered(run_arm, jobs):
                rows.extend(result)
    else:
        for job in jobs:
            rows.extend(run_arm(job))
    print(f"{len(jobs)} runs in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    summarize(args.experiment, rows, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
