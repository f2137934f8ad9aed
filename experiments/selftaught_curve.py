"""The curve of a program teaching itself: Elo by generation against fixed anchors, from one tournament.

Run:  python experiments/selftaught_curve.py --run runs/selftaught [--generations 0 1 2 4 8] [--games 4]
          [--movetime 0.1] [--workers 2] [--seed 30] [--prior-draws 0.1]

One round-robin tournament (every pair plays ``--games`` games, colours alternating, random 2-ply openings,
the arena's draw rules) at ``--movetime`` seconds a move between the anchors — ``random``,
``heuristic:depth=2``, ``abla:depth=4``, ``alphalone``, the hand-set engine ``engine:nnue=none`` and the
network taught by it, ``engine:nnue=expert-nnue`` (``builtin-nnue`` when the run began) — and the self-taught
generations asked for (each ``engine:nnue=net-NNN.npz``; the engines search with one thread and the time
given). The games are kept in a journal (``RUN/curve/games.jsonl``), so the same command goes on after a kill;
the table (``RUN/curve/curve.md``) gives each player's Elo (Bradley–Terry, draws half, anchored so that
``random`` is 0) with its 95% interval, the maximum a posteriori one under a prior of ``--prior-draws``
virtual draws added to every pair (default 0.1: with 4 games a pair the strongest generations may never drop
a point to the rest, where maximum likelihood rates them only as "+inf"; ``--prior-draws 0`` is maximum
likelihood), and, for the generations, the self-play games, attempts and CPU-hours the run had spent when that
generation was accepted (from the run's state.json: each attempt's wall time times the worker processes, an
upper bound of the CPU used). ``RUN/curve/curve.png`` plots the generations' Elo against the self-play games
and the CPU-hours spent, the anchors as horizontal lines.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from sumito.arena.executor import executor_from_args
from sumito.arena.journal import GameJournal
from sumito.arena.match import ArenaSettings, Schedule, play_scheduled
from sumito.arena.ratings import rating_method
from sumito.arena.tournament import summarize_tournament
from sumito.bounds import MAX_PRIOR_DRAWS
from sumito.cli.arena import fmt_elo
from sumito.cliargs import add_backend_args, number_arg
from sumito.errors import SumitoError
from sumito.fileio import read_json_file
from sumito.games.abalone import Position
from sumito.learn.selftaught import RunState, net_path

ANCHORS = ("random", "heuristic:depth=2", "abla:depth=4", "alphalone", "engine:nnue=none,threads=1",
           "engine:nnue=expert-nnue,threads=1")


def compute_by_generation(state: RunState, workers: int) -> dict[int, tuple[int, int, float]]:
    """generation -> (self-play games, attempts, CPU-hours) spent when it was accepted (generation 0: none)."""
    out = {0: (0, 0, 0.0)}
    games = 0
    seconds = 0.0
    for attempt in state.attempts:
        games += attempt.games
        seconds += attempt.seconds
        if attempt.accepted:
            out[attempt.generation + 1] = (games, attempt.number, seconds * workers / 3600)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, default=Path("runs/selftaught"))
    parser.add_argument("--generations", type=int, nargs="*", default=None,
                        help="the generations to rate (default: 0, then doubling, and the newest)")
    parser.add_argument("--games", type=int, default=4, help="games per pair of players")
    parser.add_argument("--movetime", type=float, default=0.1)
    parser.add_argument("--run-workers", type=int, default=2, help="the worker processes the run used (CPU-hours)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--prior-draws", type=number_arg(0, MAX_PRIOR_DRAWS, "--prior-draws"), default=0.1,
                        metavar="K",
                        help="virtual draws added to every pair before rating (default 0.1; 0: maximum likelihood, "
                        "where a group that never dropped a point is rated +inf)")
    add_backend_args(parser)
    parser.add_argument("--overlay", type=Path, nargs="+", default=None, metavar="RUN",
                        help="play nothing: draw the curves already rated for these runs (each RUN/curve/curve.json, "
                        "written by this command) in one figure, at --plot")
    parser.add_argument("--plot", type=Path, default=None, help="with --overlay: the figure's file")
    args = parser.parse_args()
    if args.overlay:
        if args.plot is None:
            parser.error("--overlay needs --plot FILE")
        try:
            overlay(args.overlay, args.plot)
        except ValueError as exc:
            parser.error(str(exc))
        return
    state = RunState.from_json((args.run / "state.json").read_text(), str(args.run / "state.json"))
    newest = state.generation
    generations = args.generations
    if generations is None:
        generations = sorted({0, newest, *(g for g in (1, 2, 4, 8, 16, 32, 64, 128) if g < newest)})
    players = [*ANCHORS, *(f"engine:nnue={net_path(args.run, g)},threads=1" for g in generations)]
    start = Position.start()
    settings = ArenaSettings(start=start.to_string(), win_threshold=start.variant.win_threshold,
                             movetime=args.movetime, seed=args.seed, layout="standard")
    tasks = Schedule(players, args.games, settings)
    folder = args.run / "curve"
    journal = GameJournal(folder / "games.jsonl")
    executor = executor_from_args(args, args.workers)
    print(f"curve: {len(players)} players, {len(tasks)} games at {args.movetime:g} s a move on {executor.workers} "
          f"worker(s); {len(journal)} in the journal", file=sys.stderr, flush=True)
    results = []
    try:
        with contextlib.closing(play_scheduled(lambda batch: journal.play(executor, batch), tasks)) as games:
            for _index, result in games:
                results.append(result)
                if len(results) % 10 == 0:
                    print(f"curve: {len(results)}/{len(tasks)} games", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("interrupted: the finished games are in the journal; the same command goes on", file=sys.stderr)
        sys.exit(130)
    summary = summarize_tournament(players, results, anchor="first", prior_draws=args.prior_draws)
    spent = compute_by_generation(state, args.run_workers)
    rows = ["| player | games | score | Elo (95% interval) | self-play games | attempts | CPU-hours |",
            "|---|---|---|---|---|---|---|"]
    ratings = summary.ratings
    def strength(i: int) -> tuple[float, float]:  # by rating, then by score (players of one unbounded tier)
        elo = ratings.elo[i] if ratings is not None and not math.isnan(ratings.elo[i]) else -math.inf
        standing = summary.standings[i]
        return elo, standing.points / standing.games if standing.games else 0.0

    order = sorted(range(len(players)), key=strength, reverse=True)
    for i in order:
        standing, name = summary.standings[i], players[i]
        gen = next((g for g in generations if name == f"engine:nnue={net_path(args.run, g)},threads=1"), None)
        label = f"generation {gen}" if gen is not None else f"`{name}`"
        elo = "?" if ratings is None else fmt_elo(ratings.elo[i])
        if ratings is not None and not math.isnan(ratings.error[i]):
            elo += f" ± {ratings.error[i]:.0f}"
        games, attempts, hours = spent.get(gen, ("", "", None)) if gen is not None else ("", "", None)
        score = standing.points / standing.games if standing.games else math.nan
        rows.append(f"| {label} | {standing.games} | {100 * score:.0f}% | {elo} | {games} | {attempts} | "
                    f"{'' if hours is None else f'{hours:.2f}'} |")
    table = "\n".join(rows)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "curve.md").write_text(
        f"{len(results)} games, {args.games} a pair, {args.movetime:g} s a move, seed {args.seed}; "
        f"Elo: {rating_method(args.prior_draws)}; "
        f"run {args.run} at generation {newest} ({len(state.attempts)} attempts)\n\n{table}\n")
    rated = ratings is not None
    (folder / "curve.json").write_text(json.dumps({
        "generations": generations, "players": players, "games": args.games, "movetime": args.movetime,
        "seed": args.seed, "prior_draws": args.prior_draws,
        "elo": [float(e) for e in ratings.elo] if rated else None,
        "error": [float(e) for e in ratings.error] if rated else None,
        "spent": {str(g): list(spent[g]) for g in generations if g in spent}}, allow_nan=True) + "\n")
    if rated:
        plot(folder / "curve.png", players, generations, ratings, spent, args)
    print(table)


def plot(path: Path, players: list[str], generations: list[int], ratings, spent: dict, args) -> None:
    """Elo by self-play games and by CPU-hours (two panels), anchors as dashed lines, 95% error bars."""
    index = {name: i for i, name in enumerate(players)}
    gens = [g for g in generations if g in spent]
    elo = [ratings.elo[index[f"engine:nnue={net_path(args.run, g)},threads=1"]] for g in gens]
    err = [ratings.error[index[f"engine:nnue={net_path(args.run, g)},threads=1"]] for g in gens]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, column, label in ((axes[0], 0, "self-play games"), (axes[1], 2, "CPU-hours (upper bound)")):
        x = [spent[g][column] for g in gens]
        ax.errorbar(x, elo, yerr=err, marker="o", capsize=3, label="self-taught generations")
        for g, xi, yi in zip(gens, x, elo, strict=True):
            ax.annotate(str(g), (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=8)
        for name in ANCHORS:
            ax.axhline(ratings.elo[index[name]], linestyle="--", linewidth=0.8, color="grey")
            ax.annotate(name.split(",threads")[0], (0, ratings.elo[index[name]]), fontsize=7, color="grey",
                        textcoords="offset points", xytext=(2, 2))
        ax.set_xlabel(label)
    axes[0].set_ylabel("Elo (random = 0), 95% intervals")
    fig.suptitle(f"A program teaching itself Abalone: {args.movetime:g} s a move, {args.games} games a pair\n"
                 f"Elo: {rating_method(args.prior_draws)}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def overlay(runs: list[Path], path: Path) -> None:
    """Several runs' curves in one figure (each run's generations rated in its own tournament against the same
    anchors, so each line is placed by its own anchors; the first run's anchors drawn as dashed lines)."""
    curves = []
    for run in runs:
        if not (run / "curve" / "curve.json").exists():
            raise ValueError(f"{run}: no curve rated yet (run this command with --run {run} first)")
        try:
            curve = read_json_file(run / "curve" / "curve.json", "rated curve")  # bounded in size and nesting
        except SumitoError as exc:
            raise ValueError(str(exc)) from None
        if not isinstance(curve, dict) or not curve.get("elo") or "spent" not in curve:
            raise ValueError(f"{run}/curve/curve.json holds no ratings (rerun the curve's command: its journal "
                             "replays the games it has)")
        curves.append(curve)
    priors = {float(curve.get("prior_draws", 0.0)) for curve in curves}
    if len(priors) > 1:
        raise ValueError("the runs' curves were rated with different priors (--prior-draws "
                         f"{', '.join(sorted(f'{p:g}' for p in priors))}): rerate them with one (the journals replay)")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, column, label in ((axes[0], 0, "self-play games"), (axes[1], 2, "CPU-hours (upper bound)")):
        for run, curve in zip(runs, curves, strict=True):
            index = {name: i for i, name in enumerate(curve["players"])}
            gens = [g for g in curve["generations"] if str(g) in curve["spent"]]
            names = [f"engine:nnue={net_path(run, g)},threads=1" for g in gens]
            x = [curve["spent"][str(g)][column] for g in gens]
            ax.errorbar(x, [curve["elo"][index[n]] for n in names], yerr=[curve["error"][index[n]] for n in names],
                        marker="o", capsize=3, label=f"{run.name} (generations {gens[0]}–{gens[-1]})")
        first = curves[0]
        for name in ANCHORS:
            elo = first["elo"][first["players"].index(name)]
            ax.axhline(elo, linestyle="--", linewidth=0.8, color="grey")
            ax.annotate(name.split(",threads")[0], (0, elo), fontsize=7, color="grey", textcoords="offset points",
                        xytext=(2, 2))
        ax.set_xlabel(label)
    axes[0].set_ylabel("Elo (random = 0), 95% intervals")
    axes[0].legend(fontsize=8, loc="lower right")
    runs_text = f"{len(runs)} run{'s' * (len(runs) > 1)}"
    fig.suptitle(f"A program teaching itself Abalone, {runs_text}: {first['movetime']:g} s a move, "
                 f"{first['games']} games a pair (anchors: {runs[0].name}'s tournament)\n"
                 f"Elo: {rating_method(priors.pop())}")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
