"""The README's short training run over many seeds: what a user will see with their own seed.

    python experiments/readme_seeds.py [--seeds 2006-2015] [--out runs/readme-seeds] [--workers 2]
                                       [--plot docs/img/readme-training-curve.png]

Each seed runs the README's command (Method I(a): 1,000 games against ``random``, then self-play;
3,000 games, evaluated every 250 games in 100 games against the one-ply benchmark with random
tie-breaks) into ``OUT/s<seed>``; a killed run resumes from its checkpoint when this script is
started again, a finished one is kept. Then the plot (``sumito plot --average``: the interquartile
mean over the seeds, its bootstrap 95% band and each seed's curve faint behind) and a Markdown table
of the wins at each evaluation: the IQM with its band, the median, the lowest and highest seed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

from sumito.learn.bands import interval_estimate
from sumito.learn.plot import load_curve, plot_runs
from sumito.stopping import run_main

GAMES = 3000
COMMAND = ["--preset", "method-Ia", "--games", str(GAMES), "--eval-every", "250", "--eval-games", "100",
           "--eval-opponent", "heuristic:depth=1,ties=random"]


def seed_list(text: str) -> list[int]:
    """``A-B`` (A to B) or ``S1,S2,...``: at most 1,000 seeds, each from 0 to 2**31 - 1."""
    try:
        if "-" in text:
            a, b = text.split("-", 1)
            seeds = list(range(int(a), int(b) + 1)) if 0 <= int(b) - int(a) < 1000 else []
        else:
            seeds = [int(s) for s in text.split(",")]
    except ValueError:
        seeds = []
    if not seeds or len(seeds) > 1000 or not all(0 <= s < 2**31 for s in seeds):
        raise argparse.ArgumentTypeError(f"expected A-B or a comma-separated list of seeds, not {text!r}")
    return seeds


def finished(out: Path) -> bool:
    return (out / "curve.csv").exists() and int(load_curve(out).games[-1]) >= GAMES


def run_seed(folder: Path, seed: int, workers: int) -> None:
    """The README's command for ``seed`` (``--resume`` where a killed run left a checkpoint)."""
    out = folder / f"s{seed}"
    if finished(out):
        return
    resume = (out / "checkpoint.npz").exists()
    args = ["--games", str(GAMES), "--resume"] if resume else [*COMMAND, "--seed", str(seed)]
    subprocess.run([sys.executable, "-m", "sumito", "train", *args, "--out", str(out), "--workers", str(workers),
                    "--quiet"], check=True)


def table(runs: list[Path]) -> str:
    curves = [load_curve(r) for r in runs]
    games = curves[0].games
    lines = ["| games | IQM wins of 100 (95% band) | median | lowest | highest |", "|---|---|---|---|---|"]
    for i, g in enumerate(games.tolist()):
        rates = np.array([100.0 * c.wins[i] / (c.wins[i] + c.draws[i] + c.losses[i]) for c in curves])
        est = interval_estimate(rates, "iqm")
        lines.append(f"| {g:,} | {est.value:.1f} ({est.low:.1f}–{est.high:.1f}) | {np.median(rates):.1f} | "
                     f"{rates.min():.0f} | {rates.max():.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=seed_list, default="2006-2015",
                        help="A-B or a comma-separated list (default 2006-2015)")
    parser.add_argument("--out", type=Path, default=Path("runs/readme-seeds"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--plot", type=Path, default=Path("docs/img/readme-training-curve.png"))
    args = parser.parse_args()
    seeds = args.seeds
    for seed in seeds:
        run_seed(args.out, seed, args.workers)
    runs = [args.out / f"s{s}" for s in seeds]
    plot_runs([str(r) for r in runs], str(args.plot), ["Method I(a)"], "wins", 1, True,
              f"The README's run, {len(seeds)} seeds: wins against heuristic:depth=1")
    print(f"{len(seeds)} seeds ({seeds[0]}–{seeds[-1]}), `sumito train {' '.join(COMMAND)} --seed S`\n")
    print(table(runs))


if __name__ == "__main__":
    run_main(main)
