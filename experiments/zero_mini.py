"""The zero learner against perfect play on the mini board: its runs' curves beside every other method's.

Run:  python experiments/zero_mini.py [--runs runs/zero/mini-v3-s1 runs/zero/mini-v3-s2 ...]
                                      [--plot docs/img/zero-mini.png] [--report runs/zero/mini-v3-report.md]
                                      [--page docs/zero.md]

Reads each run's ``curve.csv`` (``sumito zero train --score-every``: every player scored on ``sumito solve
score``'s suite of 1,000 positions, seed 41) and prints, for each player and checkpoint the runs share, the
mean share of value-keeping moves, of perfect moves and of blunders over the runs, with a 95% band that
carries both errors: a bootstrap over the runs and, inside each resampled run, a binomial draw of its count
over the suite's positions (the suite is one sample of positions; a run's share on it is an estimate). Each
run's own value is printed beside it. The plot draws each run as a faint line and the mean with its band,
by training games and by CPU-hours, beside the mean curve of every method of ``experiments/mini_perfect.py``
(``runs/mini-perfect``, its best-scoring player an arm) and the reference players of ``runs/solved/scores.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from sumito.learn.plot import save_figure

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RUNS = [ROOT / f"runs/zero/mini-v3-s{s}" for s in (1, 2, 3)]
BOOTSTRAP = 4000


def read_curves(runs: list[Path]) -> dict[str, dict[int, list[dict]]]:
    """player -> games -> one row a run (the runs that reached that checkpoint)."""
    out: dict[str, dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        with (run / "curve.csv").open(newline="") as fh:
            for row in csv.DictReader(fh):
                row["run"] = run.name
                out[row["player"]][int(row["games"])].append(row)
    return out


def blunders(row: dict) -> int:
    return int(row["win_to_draw"]) + int(row["win_to_loss"]) + int(row["draw_to_loss"])


def band(counts: list[int], n: int, seed: int = 0) -> tuple[float, float, float]:
    """The mean share over runs and its 95% band: runs resampled, each run's count drawn Binomial(n, its share)."""
    p = np.array(counts, dtype=np.float64) / n
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(p), size=(BOOTSTRAP, len(p)))
    draws = rng.binomial(n, p[picks]) / n
    means = draws.mean(axis=1)
    return float(p.mean()), float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def measures(rows: list[dict]) -> dict[str, tuple[list[int], int]]:
    n = int(rows[0]["suite"])
    return {"keeps": ([int(r["kept"]) for r in rows], n), "perfect": ([int(r["optimal"]) for r in rows], n),
            "blunders": ([blunders(r) for r in rows], n)}


def report(curves, runs: list[Path], checkpoints: set[int] | None = None) -> str:
    lines = [f"Runs: {', '.join(r.name for r in runs)}; suite of 1,000 positions (seed 41). Mean over the runs "
             "that reached the checkpoint, 95% band (bootstrap over runs and the suite's binomial error), then "
             "each run's own value.", "",
             "| player | games | CPU-hours | runs | keeps the value | perfect move | blunders | each run's blunders |",
             "|---|---|---|---|---|---|---|---|"]
    for player in curves:
        ticks = sorted(curves[player])
        # a run scores at the first iteration past each multiple of --score-every: the page shows the first
        # checkpoint at or past each of its targets, and the last
        shown = set(ticks) if checkpoints is None else {min((g for g in ticks if g >= c), default=ticks[-1])
                                                        for c in checkpoints} | {ticks[-1]}
        for games in ticks:
            if games not in shown:
                continue
            rows = curves[player][games]
            m = measures(rows)
            cells = []
            for name in ("keeps", "perfect", "blunders"):
                mean, lo, hi = band(*m[name])
                cells.append(f"{100 * mean:.1f}% ({100 * lo:.1f}–{100 * hi:.1f})")
            each = ", ".join(f"{100 * c / m['blunders'][1]:.1f}" for c in m["blunders"][0])
            cpu = np.mean([float(r["cpu_seconds"]) for r in rows]) / 3600
            lines.append(f"| {player} | {games:,} | {cpu:.2f} | {len(rows)} | {' | '.join(cells)} | {each} |")
    return "\n".join(lines) + "\n"


def other_methods() -> dict[str, tuple[list[int], list[float]]]:
    """Every mini_perfect arm's mean blunder share by training games, for its best player at its last checkpoint."""
    folder = ROOT / "runs/mini-perfect"
    by_arm: dict[str, dict[str, dict[int, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for rows_file in sorted(folder.glob("*/rows.csv")):
        with rows_file.open(newline="") as fh:
            for row in csv.DictReader(fh):
                by_arm[row["arm"]][row["player"]][int(row["games"])].append(blunders(row) / int(row["positions"]))
    out = {}
    for arm, players in by_arm.items():
        def last_mean(curve: dict[int, list[float]]) -> float:
            return float(np.mean(curve[max(curve)]))

        player = min(players, key=lambda p: last_mean(players[p]))
        curve = players[player]
        games = sorted(g for g in curve if g > 0)
        out[f"{arm} ({player.split(':')[0]})"] = (games, [100 * float(np.mean(curve[g])) for g in games])
    return out


def plot(curves, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    for arm, (games, values) in other_methods().items():
        axes[0].plot(games, values, color="0.6", lw=1, ls="--")
        axes[0].annotate(arm, (games[-1], values[-1]), fontsize=6, color="0.4")
    scores = ROOT / "runs/solved/scores.json"
    if scores.exists():
        for row in json.loads(scores.read_text()):
            if row["player"].startswith("engine"):
                share = 100 * (row["win_to_draw"] + row["win_to_loss"] + row["draw_to_loss"]) / row["positions"]
                for ax in axes:
                    ax.axhline(share, color="0.3", lw=0.8, ls=":")
                axes[1].annotate(row["player"], (0.0, share), fontsize=6, color="0.3")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, player in enumerate(curves):
        colour = colours[k % len(colours)]
        games = sorted(g for g in curves[player] if g > 0)
        by_run: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
        means, los, his, cpus = [], [], [], []
        for g in games:
            rows = curves[player][g]
            mean, lo, hi = band(*measures(rows)["blunders"])
            means.append(100 * mean)
            los.append(100 * lo)
            his.append(100 * hi)
            cpus.append(np.mean([float(r["cpu_seconds"]) for r in rows]) / 3600)
            for r in rows:
                by_run[r["run"]].append((g, float(r["cpu_seconds"]) / 3600, 100 * blunders(r) / int(r["suite"])))
        for points in by_run.values():
            axes[0].plot([p[0] for p in points], [p[2] for p in points], color=colour, lw=0.6, alpha=0.3)
            axes[1].plot([p[1] for p in points], [p[2] for p in points], color=colour, lw=0.6, alpha=0.3)
        axes[0].plot(games, means, color=colour, lw=2, label=f"zero, {player}")
        axes[0].fill_between(games, los, his, color=colour, alpha=0.15)
        axes[1].plot(cpus, means, color=colour, lw=2)
        axes[1].fill_between(cpus, los, his, color=colour, alpha=0.15)
    axes[0].set_xscale("log")
    axes[0].set_xlabel("training games")
    axes[1].set_xlabel("CPU-hours (self-play and training)")
    axes[0].set_ylabel("blunders on the suite (%)")
    axes[0].set_ylim(0, 60)
    axes[0].legend(fontsize=7)
    axes[0].set_title("the zero learner (colour) and the other methods (grey, mean of their runs)", fontsize=9)
    axes[1].set_title("by CPU-hours; dotted: the engine's reference scores", fontsize=9)
    save_figure(fig, str(path))
    plt.close(fig)


def comparison(runs: list[Path], until: int = 10_000, perfect: bool = False,
               players: list[str] | None = None) -> str:
    """One row a (checkpoint, player) with each run's blunders (and with ``perfect`` its perfect moves) and
    CPU-seconds side by side, to ``until`` games; ``players``: those players only."""
    tables = [read_curves([run]) for run in runs]
    what = "blunders (95%), perfect (95%), CPU s" if perfect else "blunders (95%), CPU s"
    header = " | ".join(f"{run.name}: {what}" for run in runs)
    lines = [f"| player | games | {header} |", "|---|---|" + "---|" * len(runs)]
    for player in tables[0]:
        if players is not None and player not in players:
            continue
        for games in sorted(tables[0][player]):
            if games > until or not all(games in t[player] for t in tables):
                continue
            cells = []
            for t in tables:
                row = t[player][games][0]
                n = int(row["suite"])
                mean, lo, hi = band([blunders(row)], n)
                cell = f"{100 * mean:.1f}% ({100 * lo:.1f}–{100 * hi:.1f})"
                if perfect:
                    mean, lo, hi = band([int(row["optimal"])], n)
                    cell += f", {100 * mean:.1f}% ({100 * lo:.1f}–{100 * hi:.1f})"
                cells.append(f"{cell}, {float(row['cpu_seconds']):.0f}")
            lines.append(f"| {player} | {games:,} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def shipped_table(scores: Path) -> str:
    """The rows of ``sumito solve score ... --json`` as a table."""
    lines = ["| player | keeps the value (95%) | perfect move (95%) | win → draw | win → loss | draw → loss | "
             "kept: uniform / games (of 500) | seconds |", "|---|---|---|---|---|---|---|---|"]
    for r in json.loads(scores.read_text()):
        kept, optimal = r["kept_share"], r["optimal_share"]
        lines.append(f"| `{r['player']}` | {100 * kept[0]:.1f}% ({100 * kept[1]:.1f}–{100 * kept[2]:.1f}) | "
                     f"{100 * optimal[0]:.1f}% ({100 * optimal[1]:.1f}–{100 * optimal[2]:.1f}) | {r['win_to_draw']} | "
                     f"{r['win_to_loss']} | {r['draw_to_loss']} | {r['by_source']['uniform'][1]} / "
                     f"{r['by_source']['games'][1]} | {r['seconds']:.0f} |")
    return "\n".join(lines) + "\n"


MARK = "zero-results"
PAGE_CHECKPOINTS = {0, 2500, 10_000, 20_000, 40_000}


def page_table(curves, runs: list[Path]) -> str:
    return report(curves, runs, PAGE_CHECKPOINTS)


def write_page(page: Path, table: str, mark: str = MARK) -> None:
    """``table`` between ``<!-- MARK -->`` and ``<!-- /MARK -->`` of ``page``."""
    text = page.read_text()
    start, end = f"<!-- {mark} -->", f"<!-- /{mark} -->"
    if start not in text:
        raise SystemExit(f"{page}: no {start} marker")
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1] if end in rest else rest
    page.write_text(f"{head}{start}\n{table}{end}{tail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", nargs="+", type=Path, default=DEFAULT_RUNS)
    parser.add_argument("--plot", type=Path, default=None)
    parser.add_argument("--report", type=Path, default=None, help="write the whole table (every checkpoint) here")
    parser.add_argument("--page", type=Path, default=None,
                        help="write the page's table (checkpoints 0, 2,500, 10,000, 20,000, 40,000 and the last) "
                        f"between the page's {MARK} markers")
    parser.add_argument("--shipped", type=Path, default=None, metavar="JSON",
                        help="with --page: write the table of these `sumito solve score --json` rows at its "
                        "zero-shipped markers")
    parser.add_argument("--compare", nargs="+", type=Path, default=None, metavar="RUN",
                        help="print the runs' curves side by side to --until games instead (one run each)")
    parser.add_argument("--until", type=int, default=10_000, help="with --compare: the last checkpoint shown")
    parser.add_argument("--perfect", action="store_true", help="with --compare: the perfect moves' share too")
    parser.add_argument("--players", nargs="+", default=None, help="with --compare: these players only")
    parser.add_argument("--mark", default="zero-comparison",
                        help="with --compare and --page: the page's markers to write between")
    args = parser.parse_args()
    if args.compare:
        text = comparison(args.compare, args.until, args.perfect, args.players)
        print(text)
        if args.page:
            write_page(args.page, text, args.mark)
        return
    curves = read_curves(args.runs)
    text = report(curves, args.runs)
    print(text)
    if args.report:
        args.report.write_text(text)
    if args.page:
        write_page(args.page, page_table(curves, args.runs))
        if args.shipped:
            write_page(args.page, shipped_table(args.shipped), "zero-shipped")
    if args.plot:
        plot(curves, args.plot)


if __name__ == "__main__":
    main()
