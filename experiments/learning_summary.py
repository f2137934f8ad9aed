"""The tables and plots of the learning experiments (``learning_curves.py``) from their rows: win rates with
their 95% intervals, the runs' interquartile means with bootstrap bands, and the reading search's rules
(distances from the paper's Table 2, Method II's claims)."""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from learning_experiments import COLUMN_NAMES, COLUMNS, KAPPAS, TABLE2, Experiment

from sumito.arena.ratings import score_interval
from sumito.learn.bands import Estimate, interval_estimate, widened
from sumito.learn.plot import draw_band, save_figure


def shown_player(player: str) -> str:
    """A test player's spec as tables show it (``NET`` for the network; a row without one: the plain ``td``)."""
    return (player or "td:net={net}").replace("{net}", "NET")



def run_band(group: list[dict[str, Any]], field_name: str = "wins") -> Estimate:
    """The interquartile mean over the runs of their own ``field_name`` a test game (outright wins by
    default: the win rate; ``marbles_won``: stones won a game), with its bootstrap 95% band."""
    return interval_estimate(np.array([int(r[field_name]) / int(r["eval_games"]) for r in group]), "iqm")


def win_rate(group: list[dict[str, Any]], column: str = "wins") -> tuple[float, float, float]:
    """The win rate over the group's games in ``column`` (outright wins by default; ``m_wins``: won or
    stopped ahead on marbles) and its 95% interval: the wider of the profile-likelihood interval of the
    pooled games and Student's t over the runs' rates."""
    wins = sum(int(r[column]) for r in group)
    games = sum(int(r["eval_games"]) for r in group)
    rate, low, high = score_interval(wins, 0, games - wins)
    low, high = widened(low, high, [int(r[column]) / int(r["eval_games"]) for r in group])
    return rate, max(low, 0.0), min(high, 1.0)


def summarize(name: str, rows: list[dict[str, Any]], experiment: Experiment | None, args: argparse.Namespace,
              x_label: str = "training games", title: str | None = None, against: str | None = None,
              column: str | None = None) -> None:
    """Print the table (the win rate in the experiment's column over all runs' games, with its 95% interval,
    the other column beside it) and plot it."""
    column = column or (experiment.column if experiment else "m_wins")
    other = "wins" if column == "m_wins" else "m_wins"
    cells: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    arms: list[str] = []
    several = len({r["opponent"] for r in rows}) > 1
    players = len({r["player"] for r in rows}) > 1
    for r in rows:
        arm = f"{r['arm']} vs {r['opponent']}" if several else r["arm"]
        if players:
            arm += f" as {shown_player(r['player'])}"
        cells[(arm, int(r["games"]))].append(r)
        if arm not in arms:
            arms.append(arm)
    games = sorted({g for _, g in cells})
    title = title or (experiment.title if experiment else name)
    paper = experiment.paper if experiment else {}
    print(f"\n{title}\n")
    print(f"| arm | training games | runs × test games | {COLUMN_NAMES[column]} (95% interval) | IQM over the runs "
          f"(bootstrap 95%) | paper | {COLUMN_NAMES[other]} | drawn | marbles for:against |")
    print("|---|---|---|---|---|---|---|---|---|")
    for arm, g, group in _cells_in_order(cells, arms, games):
        rate, low, high = win_rate(group, column)
        total = {k: sum(int(r[k]) for r in group) for k in ("eval_games", "draws", other, "marbles_won",
                                                            "marbles_lost")}
        n = total["eval_games"]
        published = ""
        paper_arm = group[0]["arm"]
        if paper_arm in paper and experiment and g in experiment.checkpoints:
            published = f"{paper[paper_arm][experiment.checkpoints.index(g)]:.0%}"
        cell = arm.replace("|", "\\|")  # a grid arm's label holds a bar: escaped in a Markdown table
        band = run_band(group, column)
        print(f"| {cell} | {g} | {len(group)} × {n // len(group)} | **{rate:.1%}** ({low:.1%}–{high:.1%}) | "
              f"{band.value:.1%} ({band.low:.1%}–{band.high:.1%}) | "
              f"{published} | {total[other] / n:.1%} | {total['draws'] / n:.0%} | "
              f"{total['marbles_won']}:{total['marbles_lost']} |")
    seeds = sorted({int(r["seed"]) for r in rows})
    opponents = ", ".join(dict.fromkeys(r["opponent"] for r in rows))
    print(f"\nThe win column (bold): {COLUMN_NAMES[column]}, over all the runs' test games, against "
          f"{against or opponents}; runs (seeds) {', '.join(map(str, seeds))}. Won outright: six marbles pushed "
          f"off; ahead on marbles: a game stopped at 400 plies or the 20th repetition counted for the side that "
          f"pushed off more. IQM: the interquartile mean of the runs' own win rates (the bold column) with its "
          f"percentile-bootstrap 95% band (rliable's method, sumito.learn.bands). Drawn: the games stopped "
          f"without a winner.")
    diverged = {(r["arm"], int(r["seed"])): int(r["diverged"]) for r in rows if r.get("diverged")}
    if diverged:
        print(f"\n{len(diverged)} of {len({(r['arm'], int(r['seed'])) for r in rows})} runs diverged (their weights "
              f"not finite or past the bound a network file may hold), each counted from the checkpoint where "
              f"it was found as forfeiting every test there and after (lost, 0 marbles to 6): "
              + "; ".join(f"{arm} seed {seed} by {g} games" for (arm, seed), g in sorted(diverged.items())) + ".")
    plots = not getattr(args, "no_plot", False)
    if plots:
        _plot(name, cells, arms, games, experiment, args, x_label, title, column)
    if experiment and experiment.marbles:
        marbles_table(cells, arms, games)
        if plots:
            _plot_marbles(name, cells, arms, games, args, x_label, title)


def _cells_in_order(cells: dict[tuple[str, int], list[dict[str, Any]]], arms: list[str], games: list[int]):
    """``(arm, games, rows)`` of every cell that has rows, arm by arm, checkpoint by checkpoint."""
    for arm in arms:
        for g in games:
            if cells.get((arm, g)):
                yield arm, g, cells[(arm, g)]


def marbles_table(cells: dict[tuple[str, int], list[dict[str, Any]]], arms: list[str], games: list[int]) -> None:
    """Stones won and lost a test game, each the IQM over the runs with its bootstrap 95% band."""
    print("\n| arm | training games | runs | stones won a game (IQM, 95% band) | stones lost a game | "
          "material advantage |")
    print("|---|---|---|---|---|---|")
    for arm, g, group in _cells_in_order(cells, arms, games):
        won, lost = run_band(group, "marbles_won"), run_band(group, "marbles_lost")
        diff = interval_estimate(np.array([(int(r["marbles_won"]) - int(r["marbles_lost"])) / int(r["eval_games"])
                                           for r in group]), "iqm")
        print(f"| {arm.replace('|', chr(92) + '|')} | {g} | {len(group)} | {won.value:.2f} ({won.low:.2f}–"
              f"{won.high:.2f}) | {lost.value:.2f} ({lost.low:.2f}–{lost.high:.2f}) | {diff.value:+.2f} "
              f"({diff.low:+.2f}–{diff.high:+.2f}) |")


def screen_table(rows: list[dict[str, Any]], base: str = "base") -> None:
    """Stage 1's rule (docs/reproductions.md): at the last checkpoint, against each benchmark reading, does
    an arm's outright win rate lie outside the base point's 95% interval, or the base's outside the arm's?"""
    last = max(int(r["games"]) for r in rows)
    cells: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if int(r["games"]) == last:
            cells[(r["arm"], r["opponent"])].append(r)
    opponents = list(dict.fromkeys(r["opponent"] for r in rows))
    arms = list(dict.fromkeys(r["arm"] for r in rows))
    print(f"\nAt {last} training games: won outright (95% interval); * = differs from the {base} point by the rule\n")
    print("| arm | " + " | ".join(opponents) + " | goes on |")
    print("|---|" + "---|" * (len(opponents) + 1))
    for arm in arms:
        texts, differs = [], False
        for opponent in opponents:
            rate, low, high = win_rate(cells[(arm, opponent)])
            b_rate, b_low, b_high = win_rate(cells[(base, opponent)])
            star = arm != base and (not b_low <= rate <= b_high or not low <= b_rate <= high)
            differs |= star
            texts.append(f"{rate:.1%} ({low:.1%}–{high:.1%}){' *' if star else ''}")
        print(f"| {arm} | " + " | ".join(texts) + f" | {'yes' if differs else 'no' if arm != base else '—'} |")


def _seed_rates(group: list[dict[str, Any]], checkpoints: Sequence[int]) -> np.ndarray:
    """Wins and games of each run (seed) at each checkpoint: an array (runs, checkpoints, 2)."""
    by_seed: dict[str, dict[int, tuple[int, int]]] = defaultdict(dict)
    for r in group:
        by_seed[r["seed"]][int(r["games"])] = (int(r["wins"]), int(r["eval_games"]))
    return np.array([[by_seed[s].get(g, (0, 0)) for g in checkpoints] for s in sorted(by_seed)], dtype=float)


def table2_distance(runs: dict[str, np.ndarray], rng: np.random.Generator | None = None,
                    resamples: int = 2000) -> tuple[float, float, float]:
    """The distance of a Table 2 from the paper's (sum over both methods and the checkpoints of the squared
    difference of the pooled outright win rates) and its 95% bootstrap interval, the runs of each method
    resampled with replacement. ``runs``: each method's (runs, checkpoints, 2) wins and games."""

    def distance(chosen: dict[str, np.ndarray]) -> float:
        total = 0.0
        for method, paper in TABLE2.items():
            wins, games = chosen[method].sum(axis=0).T
            total += float((((wins / games) - np.array(paper)) ** 2).sum())
        return total

    point = distance(runs)
    rng = rng or np.random.default_rng(2026)
    draws = [distance({m: a[rng.integers(0, len(a), len(a))] for m, a in runs.items()}) for _ in range(resamples)]
    low, high = np.percentile(draws, [2.5, 97.5])
    return point, float(low), float(high)


class GridCell(NamedTuple):
    """One training reading with one benchmark reading, scored by stage 2's rule."""

    distance: float
    low: float  # the distance's 95% bootstrap interval
    high: float
    reading: str
    benchmark: str
    rates: list[str]  # each method's outright win rates, checkpoint by checkpoint, as text
    runs: int  # runs a method


def grid_distances(rows: list[dict[str, Any]], checkpoints: Sequence[int]) -> list[GridCell]:
    """Stage 2's rule: for each training reading with each benchmark reading, the distance of our Table 2
    (both methods, every checkpoint, won outright) from the paper's, with its 95% bootstrap interval over the
    runs, least first."""
    return _distances(rows, checkpoints, lambda r: r["opponent"], {"": "wins"})


def stage3_distances(rows: list[dict[str, Any]], checkpoints: Sequence[int]) -> list[GridCell]:
    """Stage 3's rule: for each training reading, test player and win column, the distance of our Table 2
    from the paper's with its 95% bootstrap interval, least first (``benchmark`` holds the test reading)."""
    return _distances(rows, checkpoints, lambda r: r["player"], COLUMNS)


def _distances(rows: list[dict[str, Any]], checkpoints: Sequence[int], test_of: Callable[[dict], str],
               columns: dict[str, str]) -> list[GridCell]:
    """Each (training reading, test reading, win column)'s distance from the paper's Table 2; a cell whose
    runs have not all finished has none yet."""
    cells: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        method, reading = r["arm"].split(" | ")
        cells[(reading, test_of(r), method)].append(r)
    scored = []
    for reading, test in dict.fromkeys((k[0], k[1]) for k in cells):
        for column, field_name in columns.items():
            runs = {m: _seed_rates([{**r, "wins": r[field_name]} for r in cells[(reading, test, m)]], checkpoints)
                    for m in TABLE2}
            if any(len(a) == 0 or (a[:, :, 1] == 0).any() for a in runs.values()):
                continue
            distance, low, high = table2_distance(runs)
            parts = [" → ".join(f"{w / n:.0%}" for w, n in runs[m].sum(axis=0)) for m in TABLE2]
            label = test
            if column:  # a stage-3 test reading: the player, then the column
                label = f"{test.replace('td:net={net}', 'td') or 'td'}, {column}"
            scored.append(GridCell(distance, low, high, reading, label, parts, min(len(a) for a in runs.values())))
    return sorted(scored)


class Method2Reading(NamedTuple):
    """One (output, reward scale) reading of Method II, judged by Figures 4 and 5's claims (stage 3)."""

    reading: str
    rates: dict[float, tuple[float, float, float]]  # each kappa's win rate (the win column) and 95% interval
    lost_at_zero: tuple[float, float, float]  # kappa = 0's lost rate (the same column) and its interval
    claim1: bool  # kappa = -1 and -0.8 each above -0.3 and 0, the intervals apart
    claim1_half: bool  # kappa = -0.8 alone above -0.3 and 0, the intervals apart
    claim2: bool  # kappa = 0 loses most games: its lost rate's interval above 50%
    order_distance: float  # the squared shortfalls of -1 and -0.8 below -0.3 and 0 (the rule's tie-break)


def method2_readings(rows: list[dict[str, Any]], column: str = "m_wins") -> list[Method2Reading]:
    """Stage 3's rule for Method II (docs/reproductions.md): at the last checkpoint, each reading's claims
    1 and 2 by the verdict rules (a level claim holds when its interval lies on its side; a direction holds
    when the arms' intervals are apart); the readings holding the most claims first, then the least order
    distance."""
    lost = {"m_wins": "m_losses", "wins": "losses"}[column]
    last = max(int(r["games"]) for r in rows)
    cells: dict[tuple[str, float], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if int(r["games"]) == last:
            kappa, reading = r["arm"].split(" | ")
            cells[(reading, float(kappa.removeprefix("kappa=")))].append(r)
    readings = []
    for reading in dict.fromkeys(reading for reading, _ in cells):
        rates = {k: win_rate(cells[(reading, k)], column) for k in KAPPAS if cells.get((reading, k))}
        if len(rates) < len(KAPPAS):
            continue

        low_kappas, high_kappas = (-1.0, -0.8), (-0.3, 0.0)
        # a above b: a's interval lies wholly above b's
        claim1 = all(rates[a][1] > rates[b][2] for a in low_kappas for b in high_kappas)
        half = all(rates[-0.8][1] > rates[b][2] for b in high_kappas)
        lost_zero = win_rate(cells[(reading, 0.0)], lost)
        order = sum(max(0.0, rates[b][0] - rates[a][0]) ** 2 for a in low_kappas for b in high_kappas)
        readings.append(Method2Reading(reading, rates, lost_zero, bool(claim1), bool(half), bool(lost_zero[1] > 0.5),
                                       float(order)))
    return sorted(readings, key=lambda m: (-(m.claim1 + m.claim2), m.order_distance))


def method2_table(rows: list[dict[str, Any]]) -> None:
    """The readings of :func:`method2_readings`, in Markdown, the rule's choice first."""
    cells = method2_readings(rows)
    last = max(int(r["games"]) for r in rows)
    print(f"\nStage 3, Method II, at {last} training games: won or ahead on marbles (95% interval) for each kappa; "
          "kappa = 0's lost rate; the claims (docs/reproductions.md)\n")
    print("| reading | " + " | ".join(f"κ = {k:g}" for k in KAPPAS) + " | κ = 0 lost | claim 1 (−1, −0.8 best) | "
          "claim 2 (κ = 0 loses most) | order distance |")
    print("|---|" + "---|" * (len(KAPPAS) + 4))
    for m in cells:
        texts = [f"{r:.0%} ({lo:.0%}–{hi:.0%})" for r, lo, hi in (m.rates[k] for k in KAPPAS)]
        r, lo, hi = m.lost_at_zero
        one = "holds" if m.claim1 else "−0.8 only" if m.claim1_half else "no"
        print(f"| {m.reading} | " + " | ".join(texts) + f" | {r:.0%} ({lo:.0%}–{hi:.0%}) | {one} | "
              f"{'holds' if m.claim2 else 'no'} | {m.order_distance:.3f} |")


def stage3_table(rows: list[dict[str, Any]], experiment: Experiment) -> None:
    _distance_table("Stage 3: distance from the paper's Table 2 for each training reading, test player and win "
                    "column", "test", stage3_distances(rows, experiment.checkpoints))


def grid_table(rows: list[dict[str, Any]], experiment: Experiment) -> None:
    """The distance table of :func:`grid_distances`, in Markdown."""
    _distance_table("Distance from the paper's Table 2", "benchmark", grid_distances(rows, experiment.checkpoints))


def _distance_table(title: str, second: str, cells: list[GridCell]) -> None:
    print(f"\n{title} (sum of squared differences of the win rates over both methods and four checkpoints; the "
          "least is the default; 95% interval: the runs resampled)\n")
    print(f"| training reading | {second} | runs a method | Method I (500 → 3,000) | Method I(a) | distance "
          "(95% interval) |")
    print("|---|---|---|---|---|---|")
    for distance, low, high, reading, test, parts, runs in cells:
        reading = reading.replace("|", "\\|")  # a stage-3 split holds bars: escaped in a Markdown table
        print(f"| {reading} | {test} | {runs} | {parts[0]} | {parts[1]} | {distance:.3f} ({low:.3f}–{high:.3f}) |")


def _plot_marbles(name, cells, arms, games, args, x_label, title) -> None:
    """Stones won (solid) and lost (dashed) a test game against training games, each the IQM over the runs
    with its bootstrap band and every run's own curve faintly behind, on a log axis when the first checkpoint is
    at 10 games (the paper's Figure 5)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.8))
    for arm in arms:
        xs = [g for g in games if (arm, g) in cells]
        color = None
        for field_name, style, what in (("marbles_won", "-", "stones won"), ("marbles_lost", "--", "stones lost")):
            runs: dict[str, dict[int, float]] = defaultdict(dict)  # each run's own curve, faintly behind
            for g in xs:
                for r in cells[(arm, g)]:
                    runs[r["seed"]][g] = int(r[field_name]) / int(r["eval_games"])
            color = draw_band(ax, xs, [run_band(cells[(arm, g)], field_name) for g in xs], runs.values(),
                              linestyle=style, color=color, label=f"{arm}: {what}")
    if games and min(games) <= 10:
        ax.set_xscale("log")
    ax.set_ylim(0, 6.1)
    ax.set_xlabel(x_label)
    ax.set_ylabel("stones a game against the heuristic player\n"
                  "(IQM over the runs; band: bootstrap 95%; faint: each run)")
    ax.set_title(f"{title}: material", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    base = Path(args.plot or f"docs/img/{name}.png")
    plot = base.with_name(f"{base.stem}-marbles{base.suffix}")
    save_figure(fig, plot)
    print(f"plot: {plot}")


def _paper_name(published: tuple[float, ...], checkpoints: tuple[int, ...], arm: str) -> str:
    """The Table 2 method whose published rates are ``published`` at ``checkpoints`` (the reading search's arms
    all share one method's line), else ``arm``."""
    for method, rates in TABLE2.items():
        by_games = dict(zip((500, 1000, 2000, 3000), rates))
        if all(by_games.get(g) == rate for g, rate in zip(checkpoints, published)):
            return method
    return arm


def _plot(name, cells, arms, games, experiment, args, x_label, title, column="wins") -> None:
    if len(arms) > 30:  # a legend of that many lines says nothing: the table does
        print(f"no plot: {len(arms)} lines are too many for one figure")
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.8))
    drawn: set[tuple[float, ...]] = set()
    for arm in arms:
        xs = [g for g in games if (arm, g) in cells]
        runs: dict[str, dict[int, float]] = defaultdict(dict)  # each run's own curve, faintly behind
        for g in xs:
            for r in cells[(arm, g)]:
                runs[r["seed"]][g] = int(r[column]) / int(r["eval_games"])
        color = draw_band(ax, xs, [run_band(cells[(arm, g)], column) for g in xs], runs.values(), label=arm)
        paper_arm = cells[(arm, xs[0])][0]["arm"]
        if experiment and paper_arm in experiment.paper and experiment.paper[paper_arm] not in drawn:
            published = experiment.paper[paper_arm]
            drawn.add(published)  # each published line once (with several opponents, or arms of one method)
            ax.plot(experiment.checkpoints, published, linestyle="--", marker="x",
                    color=color, label=f"{_paper_name(published, experiment.checkpoints, paper_arm)} (paper)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(x_label)
    ax.set_ylabel(f"{COLUMN_NAMES[column]}: IQM over the runs\n(band: bootstrap 95%; faint: each run)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    plot = Path(args.plot or f"docs/img/{name}.png")
    save_figure(fig, plot)
    print(f"plot: {plot}")
