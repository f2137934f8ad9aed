"""Wiering (2010) on backgammon with the small modular architecture (20/20/40 hidden units, his per-module
input features): the training regimes of his Table 2 / Figures 3-4 and his λ sweep (Figure 7 / Table 3).

    python experiments/wiering_backgammon.py EXPERIMENT [--games 5000] [--test-every 1000] [--test-games 500]
                                             [--seeds 10] [--workers 2] [--outputs 7] [--arms 1,2]
                                             [--backend ray [--address ADDR]]

Experiments:

- ``regimes``: self-play; playing the expert (``gnubg:ply=0``); observing the expert play itself — each
  learning from its own evaluations and from the expert's (``targets=expert``), six arms;
- ``lambda``: self-play with λ ∈ {0, 0.2, 0.4, 0.6, 0.8, 1.0}; α = 0.01, and 0.001 for λ = 1 (the paper's);
- ``architectures``: his Table 1 at this scale: the small network and one with 80 hidden units for the other
  positions, both playing the expert, beside the small network's self-play and observing;
- ``inputs`` (not in the paper): self-play with Tesauro's 198 raw inputs and one output, Wiering's features
  and one output, and his features and seven outputs.

Each (arm, seed) is one :class:`~sumito.learn.backgammon.run.BackgammonRun` (offline minimax TD(λ), α = 0.01, λ = 0.6,
Wiering's inputs and seven outputs unless the arm or the options say otherwise) in
``OUT/EXPERIMENT/ARM-sSEED``: every ``--test-every`` training games it plays ``--test-games`` games against
``pubeval`` and as many against gnubg 0-ply, starts alternating. Runs resume after a kill (``sumito bg train
--resume`` semantics), finished runs are read back, and a finished run trains on when ``--games`` grows, so
the command can simply be run again; ``--report`` tabulates what is on disk without training (unfinished runs
included, a missing run left out). Ten seeds an arm by default (the lab's rule: at least ten runs for a
learning claim).

The results are reported as RL research reports them over seeds (:mod:`sumito.learn.bands`, as
``learning_curves.py`` does): per opponent, one table pools the runs' test games (runs × ``--test-games``
games a cell) and gives equity in points per game with its 95% interval and the win rate. The interval is
the lab's verdict interval: mean ± 1.96·sd/√n over the pooled test games, widened to Student's t over the
runs' own equities where the spread between runs is the larger (:func:`sumito.learn.bands.widened`). A
second table, when a cell has two runs or more, gives the interquartile mean (IQM) of the runs' own equities with
its percentile-bootstrap 95% band. The headings count the runs found. The plot draws, per arm, the IQM over
the runs with its bootstrap band and each run's curve faintly behind (one run: its curve with the pooled
interval as the band). The Markdown goes to standard output, the plot to
``docs/img/backgammon-EXPERIMENT.png`` (written atomically).

The runs train ``--workers`` at once in forked local processes, or as Ray tasks with ``--backend ray`` (a
local Ray instance, or the cluster at ``--address``, whose nodes need gnubg-nn and, for ``--out``, an absolute
path on storage they all see). Ctrl-C: a forked run finishes its game and saves a checkpoint; a Ray task is
cancelled at once, and its run resumes from its last regular checkpoint (at most 100 games earlier).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import defaultdict
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from sumito.arena.backgammon import MatchResult
from sumito.arena.executor import check_shared_folder, executor_from_args
from sumito.cliargs import add_backend_args, count_arg
from sumito.errors import SumitoError
from sumito.learn.backgammon.run import BackgammonRun, BackgammonRunConfig, checkpoint_games
from sumito.learn.bands import Estimate, interval_estimate, widened
from sumito.learn.plot import draw_band, save_figure
from sumito.stopping import run_main

EXPERT = "gnubg:ply=0"
OPPONENTS = ("pubeval", EXPERT)
#: arm -> its settings (BackgammonRunConfig fields) beyond the defaults below: α 0.01, λ 0.6, self-play, own targets
EXPERIMENTS: dict[str, dict[str, dict[str, Any]]] = {
    "regimes": {
        "self-play": {},
        "self-play, expert evals": {"targets": "expert"},
        "vs expert": {"regime": "expert"},
        "vs expert, expert evals": {"regime": "expert", "targets": "expert"},
        "observing": {"regime": "observe"},
        "observing, expert evals": {"regime": "observe", "targets": "expert"},
    },
    "lambda": {f"lambda {lam:.1f}": {"lam": lam, "alpha": 0.001 if lam == 1.0 else 0.01}
               for lam in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)},
    # Table 1 / Figures 1-2 at our scale: the small network and one with 80 hidden units in the "other" module,
    # both playing the expert, beside the small network's self-play and observing (his RBF network and his
    # nine-module large architecture are not built)
    "architectures": {
        "small, vs expert": {"regime": "expert"},
        "80 hidden, vs expert": {"regime": "expert", "hidden": (20, 20, 80)},
        "small, self-play": {},
        "small, observing": {"regime": "observe"},
    },
    # not in the paper: what his input features and his seven outputs are worth, by self-play
    "inputs": {
        "tesauro198, 1 output": {"encoding": "tesauro198", "outputs": 1},
        "wiering, 1 output": {"encoding": "wiering", "outputs": 1},
        "wiering, 7 outputs": {"encoding": "wiering", "outputs": 7},
    },
}


def folder_name(arm: str, seed: int) -> str:
    return arm.replace(", ", "-").replace(" ", "-") + f"-s{seed}"


def config_of(experiment: str, arm: str, seed: int, args: argparse.Namespace) -> BackgammonRunConfig:
    settings: dict[str, Any] = {"regime": "self", "targets": "own", "encoding": args.encoding,
                                "outputs": args.outputs, "alpha": 0.01, "lam": 0.6}
    settings.update(EXPERIMENTS[experiment][arm])
    settings["alpha"] *= args.alpha_scale
    return BackgammonRunConfig(expert=EXPERT, games=args.games, seed=seed, test_every=args.test_every,
                       test_games=args.test_games, test_against=OPPONENTS, **settings)


def run_one(job: tuple[str, str, int, Path, BackgammonRunConfig]) -> tuple[str, int, list[dict[str, Any]]]:
    experiment, arm, seed, folder, config = job
    resume = (folder / "config.json").exists()
    t0 = time.perf_counter()
    rows = BackgammonRun(folder, config, resume=resume).run()  # a finished run with fewer --games trains on
    print(f"done {experiment} / {arm} / seed {seed}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return arm, seed, rows


def pooled(rows: list[dict[str, Any]]) -> tuple[float, float, float, int]:
    """(equity, 95% half-width, win rate, n) over all test games in ``rows`` (several seeds)."""
    m = MatchResult(games=sum(int(r["n"]) for r in rows), points_sum=sum(int(r["points_sum"]) for r in rows),
                    points_sq=sum(int(r["points_sq"]) for r in rows), wins=sum(int(r["wins"]) for r in rows))
    return m.equity, m.half_width, m.win_rate, m.games


#: (arm, opponent, training games) -> seed -> that run's test rows there
Cells = dict[tuple[str, str, int], dict[int, list[dict[str, Any]]]]


def run_equities(runs: dict[int, list[dict[str, Any]]]) -> list[float]:
    """Each run's own equity (points per game over its test games) in one cell, by seed."""
    return [pooled(runs[seed])[0] for seed in sorted(runs)]


def verdict_interval(runs: dict[int, list[dict[str, Any]]]) -> tuple[float, float, float]:
    """(equity, 95% half-width, win rate) of one cell: the pooled test games' mean, its interval widened to
    Student's t over the runs' own equities where that reaches further (the lab's verdict interval,
    :func:`sumito.learn.bands.widened`; symmetric, the wider side on both)."""
    m, h, w, _ = pooled([r for rows in runs.values() for r in rows])
    low, high = widened(m - h, m + h, run_equities(runs))
    return m, max(m - low, high - m), w


def run_band(runs: dict[int, list[dict[str, Any]]]) -> Estimate:
    """The interquartile mean of the runs' own equities in one cell with its percentile-bootstrap 95% band
    (:func:`sumito.learn.bands.interval_estimate`; one run: its equity, no band)."""
    return interval_estimate(np.array(run_equities(runs)), "iqm")


def runs_phrase(cells: Cells, opp: str) -> str:
    """The runs and test games a cell against ``opp``, from the data: "2 runs × 500 games" (a range where
    the cells differ, as with unfinished runs)."""
    groups = [runs for (_, o, _), runs in cells.items() if o == opp and runs]
    counts = sorted({len(runs) for runs in groups}) or [0]
    games = sorted({int(r["n"]) for runs in groups for rows in runs.values() for r in rows}) or [0]

    def span(values: list[int]) -> str:
        return f"{values[0]}" if len(values) == 1 else f"{values[0]}–{values[-1]}"

    word = "run" if counts == [1] else "runs"
    return f"{span(counts)} {word} × {span(games)} games" + (" a cell" if len(counts) > 1 else "")


def summarize(experiment: str, results: list[tuple[str, int, list[dict[str, Any]]]], args: argparse.Namespace) -> None:
    cells: Cells = defaultdict(lambda: defaultdict(list))
    seconds: dict[str, list[float]] = defaultdict(list)
    for arm, seed, rows in results:
        for r in rows:
            cells[(arm, r["opponent"], int(r["games"]))][seed].append(r)
        if rows:
            seconds[arm].append(float(rows[-1]["train_seconds"]))
    arms = [a for a in EXPERIMENTS[experiment] if a in seconds]
    if not arms:
        print(f"{experiment}: no test rows yet", file=sys.stderr)
        return
    games = checkpoint_games(config_of(experiment, arms[0], args.seed, args))
    for opp in OPPONENTS:
        several = any(len(runs) > 1 for (_, o, _), runs in cells.items() if o == opp)
        interval = ("95% interval, the wider of the test games' and Student's t over the runs' equities" if several
                    else "95% interval")
        print(f"\n### {experiment}: equity (points per game) against {opp}, {runs_phrase(cells, opp)}: the pooled "
              f"test games' mean, {interval}; win rate in brackets\n")
        print("| arm | " + " | ".join(str(g) for g in games) + " | train s/run |")
        print("|---|" + "---|" * (len(games) + 1))
        for arm in arms:
            cols = []
            for g in games:
                runs = cells.get((arm, opp, g))
                if runs:
                    m, h, w = verdict_interval(runs)
                    cols.append(f"{m:+.3f} ± {h:.3f} ({w:.0%})")
                else:
                    cols.append("")
            print(f"| {arm} | " + " | ".join(cols) + f" | {sum(seconds[arm]) / len(seconds[arm]):.0f} |")
        if several:
            print(f"\n### {experiment}: equity against {opp}, IQM over the runs ({runs_phrase(cells, opp)}) of "
                  f"their own equities, bootstrap 95% band in brackets\n")
            print("| arm | " + " | ".join(str(g) for g in games) + " |")
            print("|---|" + "---|" * len(games))
            for arm in arms:
                cols = []
                for g in games:
                    runs = cells.get((arm, opp, g))
                    if not runs:
                        cols.append("")
                        continue
                    band = run_band(runs)
                    cols.append(f"{band.value:+.3f} ({band.low:+.3f}, {band.high:+.3f})" if band.runs > 1
                                else f"{band.value:+.3f} (1 run)")
                print(f"| {arm} | " + " | ".join(cols) + " |")
    _plot(experiment, cells, arms, games, args)


def _plot(experiment: str, cells: Cells, arms: list[str], games: list[int], args: argparse.Namespace) -> None:
    """Per opponent and arm: the IQM over the runs with its bootstrap 95% band and each run's curve faintly
    behind, as ``learning_curves.py`` draws them; a point of one run is its equity with the pooled interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(OPPONENTS), figsize=(6.5 * len(OPPONENTS), 4.8), squeeze=False)
    for ax, opp in zip(axes[0], OPPONENTS):
        several = False
        for arm in arms:
            xs = [g for g in games if cells.get((arm, opp, g))]
            if not xs:
                continue
            estimates = []
            for g in xs:
                runs = cells[(arm, opp, g)]
                if len(runs) > 1:
                    estimates.append(run_band(runs))
                else:  # one run: its equity with the pooled interval of its test games
                    m, h, _, _ = pooled(next(iter(runs.values())))
                    estimates.append(Estimate(m, m - h, m + h, 1))
            curves: dict[int, dict[int, float]] = defaultdict(dict)  # each run's own curve, faintly behind
            for g in xs:
                for seed, rows in cells[(arm, opp, g)].items():
                    curves[seed][g] = pooled(rows)[0]
            several = several or len(curves) > 1
            draw_band(ax, xs, estimates, curves.values() if len(curves) > 1 else (), label=arm)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xlabel("training games")
        ax.set_ylabel("equity (points per game): IQM over the runs\n(band: bootstrap 95%; faint: each run)"
                      if several else "equity (points per game)\n(band: 95% interval of the test games)")
        ax.set_title(f"against {opp} ({runs_phrase(cells, opp)})", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Wiering 2010, small modular net, {args.encoding} inputs, {args.outputs} output(s): {experiment}",
                 fontsize=11)
    fig.tight_layout()
    plot = Path(args.plot or f"docs/img/backgammon-{experiment}.png")
    save_figure(fig, plot)
    print(f"\nplot: {plot}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", choices=list(EXPERIMENTS))
    parser.add_argument("--games", type=count_arg(1, 10**7), default=5000, help="training games per run (default 5000)")
    parser.add_argument("--test-every", type=count_arg(1, 10**7), default=1000,
                        help="training games between tests (default 1000)")
    parser.add_argument("--test-games", type=count_arg(1, 10**6), default=500,
                        help="test games per run, test point and opponent (default 500; pooled over the seeds in "
                        "the first table, one equity a run in the IQM table)")
    parser.add_argument("--seeds", type=count_arg(1, 1000), default=10,
                        help="runs per arm (default 10: the lab's rule, ten runs or more for a learning claim)")
    parser.add_argument("--seed", type=int, default=2010, help="the first seed (runs use SEED, SEED+1, ...)")
    parser.add_argument("--encoding", default="wiering", choices=("wiering", "tesauro198"))
    parser.add_argument("--outputs", type=int, default=7, choices=(1, 7), help="outputs (default 7, the paper's)")
    parser.add_argument("--alpha-scale", type=float, default=1.0, help="multiply every arm's α (default 1)")
    parser.add_argument("--workers", type=int, default=None,
                        help="runs trained at once (default 2, forked processes; with --backend ray, default all the "
                        "Ray cluster's CPUs)")
    add_backend_args(parser, "the runs")
    parser.add_argument("--out", default="runs/backgammon", help="where the runs are kept")
    parser.add_argument("--plot", default=None, help="the plot file (default docs/img/backgammon-EXPERIMENT.png)")
    parser.add_argument("--arms", default=None,
                        help="only these arms, comma-separated numbers from 1 in the experiment's order (default: all)")
    parser.add_argument("--report", action="store_true",
                        help="only tabulate the test rows already on disk (unfinished runs included), train nothing")
    return parser


def select_arms(experiment: str, picked: str | None) -> list[str]:
    """The experiment's arms that ``--arms`` picks (comma-separated numbers from 1, in the experiment's order;
    None: all of them); ValueError with the option's one-line message otherwise."""
    arms = list(EXPERIMENTS[experiment])
    if not picked:
        return arms
    try:
        numbers = [int(a) for a in picked.split(",")]
    except ValueError:
        numbers = [0]
    if not all(1 <= a <= len(arms) for a in numbers):
        raise ValueError(f"--arms: comma-separated numbers from 1 to {len(arms)}, got {picked!r}")
    return [arms[a - 1] for a in sorted(set(numbers))]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        arms = select_arms(args.experiment, args.arms)
    except ValueError as exc:
        parser.error(str(exc))
    if args.report:
        results = []
        for arm in arms:
            for seed in range(args.seed, args.seed + args.seeds):
                folder = Path(args.out) / args.experiment / folder_name(arm, seed)
                if not (folder / "config.json").exists():
                    print(f"note: {arm} seed {seed}: no run in {folder}", file=sys.stderr)
                    continue
                rows = BackgammonRun(folder, resume=True).curve_rows()
                results.append((arm, seed, rows))
                last = max((int(r["games"]) for r in rows), default=0)
                if last < args.games:
                    print(f"note: {arm} seed {seed} has tests up to {last} of {args.games} games", file=sys.stderr)
        summarize(args.experiment, results, args)
        return 0
    from sumito.players.backgammon.players import BackgammonPlayerError, make_bg_player

    if args.workers is not None and args.workers < 1:
        parser.error("--workers must be at least 1")
    try:
        make_bg_player(EXPERT)  # every experiment here tests against gnubg: a missing package is one line
    except BackgammonPlayerError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    executor = None
    try:  # a missing Ray, a bad --address, a relative --out on a cluster: one line
        check_shared_folder(args, args.out)
        if args.backend == "ray":
            executor = executor_from_args(args, args.workers)
        else:
            executor_from_args(args, 1)  # --address without --backend ray
    except SumitoError as exc:
        parser.error(str(exc))
    workers = 2 if args.workers is None else args.workers
    jobs = []
    for arm in arms:
        for seed in range(args.seed, args.seed + args.seeds):
            folder = Path(args.out) / args.experiment / folder_name(arm, seed)
            jobs.append((args.experiment, arm, seed, folder, config_of(args.experiment, arm, seed, args)))
    t0 = time.perf_counter()
    if executor is not None:  # Ray: run_one goes to the workers by value (cloudpickle), the jobs as plain data
        results = []
        with contextlib.closing(executor.run(run_one, jobs)) as stream:
            for _, result in stream:
                results.append(result)
                print(f"{len(results)}/{len(jobs)} runs done ({result[0]}, seed {result[1]})", file=sys.stderr,
                      flush=True)
    elif workers > 1 and len(jobs) > 1:
        with get_context("fork").Pool(workers) as pool:
            results = list(pool.imap_unordered(run_one, jobs))
    else:
        results = [run_one(job) for job in jobs]
    print(f"{len(jobs)} runs in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    summarize(args.experiment, results, args)
    return 0


if __name__ == "__main__":
    run_main(main)
