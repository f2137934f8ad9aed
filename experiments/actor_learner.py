"""Does distributed self-play (4 actors, one learner) learn like the sequential trainer at equal games?

    python experiments/actor_learner.py [--games 3000] [--test-every 500] [--test-games 1000] [--seeds 10]
                                        [--actors 4] [--publish-every 4] [--out runs/actor-learner] [--report]

Backgammon, Wiering's small modular network learning by self-play (his input features, seven outputs,
α = 0.01, λ = 0.6: ``sumito bg train``'s defaults), which learns to beat pubeval within a few thousand games.
Each seed is trained twice to the same game count: sequentially (:class:`~sumito.learn.backgammon.run.BackgammonRun`,
what ``sumito bg train`` does) and by ``--actors`` Ray actors with one learner publishing its weights every
``--publish-every`` games (:class:`~sumito.learn.backgammon.actors.ActorBackgammonRun`, ``sumito bg train --actors 4
--publish-every 4``). Same seed, same initial weights; the dice differ (the actor run gives each game its own
generator), so the two runs of a seed are two samples of the same learning process, not the same games.

Every ``--test-every`` games both networks play ``--test-games`` games against pubeval (starts alternating,
seeded by the run's seed and the game count, so both arms of a seed meet the same dice in their tests). A cell
pools the seeds: the win rate over all test games with its 95% interval, the wider of the profile-likelihood
interval of the pooled games and Student's t over the seeds' own rates (so that run-to-run spread counts);
"overlap" says whether the two arms' intervals overlap, "in seq. interval" whether the actors' rate lies inside
the sequential one's. A second table gives the equity (points a game, mean ± the same kind of half-width).

Runs live in ``OUT/sequential-sSEED`` and ``OUT/actorsN-kK-sSEED`` and resume after a kill (``BackgammonRun``
semantics: run the same command again; finished runs are read back). The actor runs also keep
``actors.json`` (staleness counts, actors replaced, weights published, summed over resumes). The Markdown
tables go to standard output; ``--plot FILE`` draws the curves.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from sumito.arena.backgammon import MatchResult
from sumito.arena.ratings import score_interval
from sumito.fileio import atomic_write_text
from sumito.learn.backgammon.actors import ActorBackgammonRun
from sumito.learn.backgammon.run import BackgammonRun, BackgammonRunConfig, checkpoint_games
from sumito.learn.bands import widened

OPPONENT = "pubeval"


def config_of(seed: int, args: argparse.Namespace) -> BackgammonRunConfig:
    return BackgammonRunConfig(regime="self", encoding="wiering", outputs=7, alpha=0.01, lam=0.6, games=args.games,
                       seed=seed, test_every=args.test_every, test_games=args.test_games, test_against=(OPPONENT,))


def folders(seed: int, args: argparse.Namespace) -> dict[str, Path]:
    out = Path(args.out)
    return {"sequential": out / f"sequential-s{seed}",
            "actors": out / f"actors{args.actors}-k{args.publish_every}-s{seed}"}


def train(arm: str, folder: Path, config: BackgammonRunConfig, args: argparse.Namespace) -> list[dict[str, Any]]:
    resume = (folder / "config.json").exists()
    if arm == "sequential":
        return BackgammonRun(folder, config, resume=resume).run()
    run = ActorBackgammonRun(folder, config, resume=resume, actors=args.actors, publish_every=args.publish_every)
    try:
        return run.run()
    finally:
        report = run.report
        if report is not None and report.games:
            path = folder / "actors.json"
            old = json.loads(path.read_text()) if path.exists() else {}
            staleness = collections.Counter({int(k): v for k, v in old.get("staleness", {}).items()})
            staleness.update(report.staleness)
            state = {"actors": args.actors, "publish_every": args.publish_every,
                     "games": old.get("games", 0) + report.games, "replaced": old.get("replaced", 0) + report.replaced,
                     "published": old.get("published", 0) + report.published,
                     "staleness": {str(k): staleness[k] for k in sorted(staleness)}}
            atomic_write_text(path, json.dumps(state, indent=2) + "\n")


def win_rate(rows: list[dict[str, Any]]) -> tuple[float, float, float]:
    wins = sum(int(r["wins"]) for r in rows)
    games = sum(int(r["n"]) for r in rows)
    mean, low, high = score_interval(wins, 0, games - wins)
    low, high = widened(low, high, [int(r["wins"]) / int(r["n"]) for r in rows])
    return mean, max(low, 0.0), min(high, 1.0)


def equity(rows: list[dict[str, Any]]) -> tuple[float, float, float]:
    pooled = MatchResult(games=sum(int(r["n"]) for r in rows), points_sum=sum(int(r["points_sum"]) for r in rows),
                         points_sq=sum(int(r["points_sq"]) for r in rows))
    mean, half = pooled.equity, pooled.half_width
    return (mean, *widened(mean - half, mean + half, [int(r["points_sum"]) / int(r["n"]) for r in rows]))


def table(title: str, cells: dict[tuple[str, int], list], games: list[int], measure, fmt: str, args) -> None:
    print(f"\n#### {title}\n")
    print(f"| games | sequential | {args.actors} actors, K = {args.publish_every} | overlap | in seq. interval |")
    print("|---|---|---|---|---|")
    for g in games:
        a, b = cells.get(("sequential", g)), cells.get(("actors", g))
        if not a or not b:
            continue
        (ma, la, ha), (mb, lb, hb) = measure(a), measure(b)
        overlap = "yes" if lb <= ha and la <= hb else "no"
        inside = "yes" if la <= mb <= ha else "no"
        print(f"| {g} | {fmt.format(ma)} [{fmt.format(la)}, {fmt.format(ha)}] | "
              f"{fmt.format(mb)} [{fmt.format(lb)}, {fmt.format(hb)}] | {overlap} | {inside} |")


def summarize(results: list[tuple[str, int, list[dict[str, Any]]]], args: argparse.Namespace) -> None:
    cells: dict[tuple[str, int], list] = collections.defaultdict(list)
    seconds: dict[str, list[float]] = collections.defaultdict(list)
    for arm, _seed, rows in results:
        for r in rows:
            if r["opponent"] == OPPONENT:
                cells[(arm, int(r["games"]))].append(r)
        if rows:
            seconds[arm].append(float(rows[-1]["train_seconds"]))
    games = checkpoint_games(config_of(args.seed, args))
    seeds = f"{args.seeds} seed{'s' if args.seeds > 1 else ''}"
    table(f"Win rate against {OPPONENT} ({seeds} × {args.test_games} test games a point, 95% interval)", cells,
          games, win_rate, "{:.3f}", args)
    table(f"Equity against {OPPONENT}, points a game (95% interval)", cells, games, equity, "{:+.3f}", args)
    print()
    for arm in ("sequential", "actors"):
        if seconds[arm]:
            print(f"- {arm}: {sum(seconds[arm]) / len(seconds[arm]):.0f} s of training a run "
                  f"({len(seconds[arm])} runs)")
    staleness: collections.Counter = collections.Counter()
    replaced = published = 0
    for seed in range(args.seed, args.seed + args.seeds):
        path = folders(seed, args)["actors"] / "actors.json"
        if path.exists():
            state = json.loads(path.read_text())
            staleness.update({int(k): v for k, v in state["staleness"].items()})
            replaced += state["replaced"]
            published += state["published"]
    n = sum(staleness.values())
    if n:
        mean = sum(k * v for k, v in staleness.items()) / n
        q = np.repeat(np.array(sorted(staleness)), [staleness[k] for k in sorted(staleness)])
        print(f"- staleness of the {n} actor-run games (games applied between the weights' publication and the "
              f"game's own application): mean {mean:.2f}, median {np.median(q):.0f}, 95th percentile "
              f"{np.percentile(q, 95):.0f}, max {q.max()}; 0 for {staleness[0] / n:.0%} of them; "
              f"{published} publications, {replaced} actors replaced")
    if args.plot:
        plot(cells, games, args)


def plot(cells, games, args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sumito.learn.plot import save_figure

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for arm, label in (("sequential", "sequential"), ("actors", f"{args.actors} actors, K = {args.publish_every}")):
        xs = [g for g in games if cells.get((arm, g))]
        stats = [win_rate(cells[(arm, g)]) for g in xs]
        (line,) = ax.plot(xs, [s[0] for s in stats], marker="o", label=label)
        ax.fill_between(xs, [s[1] for s in stats], [s[2] for s in stats], alpha=0.15, color=line.get_color())
    ax.axhline(0.5, color="grey", linewidth=0.8)
    ax.set_xlabel("training games")
    ax.set_ylabel(f"win rate against {OPPONENT}")
    ax.set_title(f"backgammon self-play, {args.seeds} seeds × {args.test_games} test games, 95% band", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, args.plot)
    print(f"\nplot: {args.plot}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3000, help="training games per run (default 3000)")
    parser.add_argument("--test-every", type=int, default=500, help="training games between tests (default 500)")
    parser.add_argument("--test-games", type=int, default=1000, help="test games per run and point (default 1000)")
    parser.add_argument("--seeds", type=int, default=10, help="runs per arm (default 10: the lab's rule)")
    parser.add_argument("--seed", type=int, default=2010, help="the first seed (runs use SEED, SEED+1, ...)")
    parser.add_argument("--actors", type=int, default=4, help="actors of the distributed arm (default 4)")
    parser.add_argument("--publish-every", type=int, default=4, help="games between publications (default 4)")
    parser.add_argument("--out", default="runs/actor-learner", help="where the runs are kept")
    parser.add_argument("--plot", default=None, metavar="FILE", help="draw the win-rate curves into FILE")
    parser.add_argument("--report", action="store_true", help="only tabulate what is on disk, train nothing")
    args = parser.parse_args(argv)
    if min(args.games, args.test_every, args.test_games, args.seeds, args.actors, args.publish_every) < 1:
        parser.error("--games, --test-every, --test-games, --seeds, --actors and --publish-every must be positive")
    results = []
    ray = None
    try:
        for seed in range(args.seed, args.seed + args.seeds):
            for arm, folder in folders(seed, args).items():
                if args.report:
                    rows = BackgammonRun(folder, resume=True).curve_rows() if (folder / "config.json").exists() else []
                else:
                    if arm == "actors" and ray is None:  # one local Ray instance for every actor run
                        from sumito.arena.executor import init_ray
                        from sumito.learn.actors import require_ray

                        ray = require_ray()
                        if not ray.is_initialized():
                            init_ray(ray, None, None)
                        logging.getLogger("ray").setLevel(logging.ERROR)
                    t0 = time.perf_counter()
                    rows = train(arm, folder, config_of(seed, args), args)
                    print(f"done {arm} seed {seed}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
                results.append((arm, seed, rows))
    except KeyboardInterrupt:
        print("interrupted: run the same command again to resume", file=sys.stderr)
        return 130
    finally:
        if ray is not None:
            ray.shutdown()
    summarize(results, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
