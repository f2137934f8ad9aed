"""The learning experiments of Abalearn (Campos & Langlois 2003) and Wiering (2010) on Abalone:
train networks, test them at chosen game counts, write a table and a plot.

    python experiments/learning_curves.py EXPERIMENT [--seeds 3] [--eval-games 24] [--workers 2]

Experiments (``--list`` prints them):

- ``table2``: Abalearn Table 2, Method I (Abalearn 2) against Method I(a) (Abalearn 3);
- ``fig2``: Abalearn Figure 2, networks sampled along a Method I run against Net 10, Net 250
  and Net 2750 of the same run;
- ``fig3``: Abalearn Figure 3, training against `random`, against a minimax player, by self-play;
- ``fig4``: Abalearn Figure 4, self-play with κ ∈ {−1, −0.8, −0.3, 0} (the paper's sigmoid
  output; and, ours, a linear output that can represent negative returns);
- ``wiering-regimes``: Wiering's self-play / playing the expert / observing the expert, and
  learning from the expert network's evaluations;
- ``wiering-lambda``: Wiering's λ sweep {0, 0.2, 0.4, 0.6, 0.8, 1}, self-play;
- ``tdleaf``: ours, TD-Leaf(λ) (training through a 3-ply search) against TD(λ), both tested as
  ``engine:net=…,depth=3``.

Each (arm, seed) is one training run (TD(λ), α = 0.1, γ = 0.9, ε from 0.9 decaying by 0.99 a
game, training games tied at 200 plies or 20 repetitions, unless the arm says otherwise). At
each checkpoint its network plays ``--opponent`` (default ``heuristic:ties=random``, the
papers' benchmark with seeded random tie-breaks) in arena games from random 2-ply openings,
colours alternating, stopped at 300 plies or threefold repetition. A stopped game counts as a
draw in the plain score, and for the side with more marbles pushed off in the *win rate on
marbles* (the tournament rule for games stopped by the clock, see ``sumito match
--adjudicate``). The paper's win rates are compared with the latter: a one-ply player and a
defensive minimax player rarely finish a game.

Runs are independent processes (``--workers``); each finished run writes its rows to
``OUT/EXPERIMENT/ARM-sSEED/rows.csv`` atomically, so a killed experiment resumes where it
stopped when run again. The summary table goes to standard output, the plot to
``--plot`` (default ``docs/img/EXPERIMENT.png``).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from sumito.arena.executor import InlineExecutor
from sumito.arena.match import ArenaSettings, derive_seed, play_game, schedule, summarize_pair
from sumito.engine import DrawRules
from sumito.fileio import atomic_write_text
from sumito.learn.commands import make_trainer
from sumito.learn.network import network_path
from sumito.learn.plot import save_figure
from sumito.learn.training import PRESETS, TrainingConfig

EVAL_RULES = DrawRules(max_plies=300, repetitions=3)
ROW_FIELDS = ("arm", "seed", "games", "opponent", "eval_games", "wins", "draws", "losses",
              "m_wins", "m_draws", "m_losses", "marbles_won", "marbles_lost", "train_seconds")


@dataclass(frozen=True)
class Arm:
    """One line of a figure: a training configuration (overrides of the experiment's base)."""

    label: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    title: str
    arms: tuple[Arm, ...]
    checkpoints: tuple[int, ...]
    base: dict[str, Any] = field(default_factory=dict)
    paper: dict[str, tuple[float, ...]] = field(default_factory=dict)  # the paper's figures, per arm
    seeds: int = 3  # default number of seeds per arm
    player: str = "td:net={net}"  # how a network is tested (a player spec; {net}: its file)


M1 = dict(PRESETS["method-I"])
M1A = dict(PRESETS["method-Ia"])
SELF0 = dict(encoding="abalearn3", regime="self", kappa=0.0)

EXPERIMENTS: dict[str, Experiment] = {
    "table2": Experiment(
        "Abalearn Table 2: Method I vs Method I(a), win rate against the heuristic player",
        (
            Arm("Method I", M1),
            Arm("Method I(a)", M1A),
            # ours: ε kept at 0.1 or more, so that self-play after game 1000 still explores
            Arm("Method I, eps >= 0.1", dict(M1, epsilon_min=0.1)),
            Arm("Method I(a), eps >= 0.1", dict(M1A, epsilon_min=0.1)),
        ),
        (500, 1000, 2000, 3000),
        paper={"Method I": (0.48, 0.52, 0.54, 0.71), "Method I(a)": (0.68, 0.72, 0.76, 0.79)},
        seeds=2,
    ),
    "fig3": Experiment(
        "Abalearn Figure 3: training against random, a minimax player, or itself",
        (
            Arm("against random", dict(SELF0, regime="opponent", opponent="random")),
            Arm("against abla:depth=2", dict(SELF0, regime="opponent", opponent="abla:depth=2,ties=random")),
            Arm("self-play", SELF0),
        ),
        (250, 500, 1000, 2000),
        seeds=2,
    ),
    "fig4": Experiment(
        "Abalearn Figure 4: risk-sensitive self-play (method II) for several kappa",
        tuple(Arm(f"kappa={k:g}", dict(PRESETS["method-II"], kappa=k)) for k in (-1.0, -0.8, -0.3, 0.0))
        + tuple(
            Arm(f"kappa={k:g}, linear output", dict(PRESETS["method-II"], kappa=k, output="linear"))
            for k in (-1.0, -0.3, 0.0)
        ),
        (250, 1000, 2000),
        seeds=3,
    ),
    "wiering-regimes": Experiment(
        "Wiering's regimes on Abalone: where the training games come from",
        (
            Arm("self-play", SELF0),
            Arm("playing the expert", dict(SELF0, regime="opponent", opponent="abla:depth=2,ties=random")),
            Arm("observing the expert", dict(SELF0, regime="observe", opponent="abla:depth=2,ties=random")),
            # a network expert (the shipped one) can also give its evaluations as the TD targets
            Arm("observing td", dict(SELF0, regime="observe", opponent="td")),
            Arm("observing td, its evaluations as targets",
                dict(SELF0, regime="observe", opponent="td", targets=str(network_path("builtin")))),
        ),
        (250, 500, 1000, 2000),
        base=dict(opening_plies=4),
        seeds=2,
    ),
    "wiering-lambda": Experiment(
        "Wiering's lambda sweep on Abalone (self-play)",
        tuple(Arm(f"lambda={lam:g}", dict(SELF0, lam=lam)) for lam in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)),
        (250, 1000, 2000),
        seeds=2,
    ),
    "tdleaf": Experiment(
        "TD-Leaf(lambda) against TD(lambda): self-play, kappa = 0, tested in a 3-ply search",
        (Arm("TD(lambda), 1-ply training", SELF0), Arm("TD-Leaf(lambda), 3-ply training", dict(SELF0, search_depth=3))),
        (100, 250, 500),
        seeds=2,
        player="engine:net={net},depth=3",
    ),
}
FIG2_SAMPLES = (10, 100, 250, 500, 1000, 1500, 2000, 2750)
FIG2_REFERENCES = (10, 250, 2750)


# ----------------------------------------------------------------------------- one training run
def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-=." else "_" for c in text)


def evaluate(net: Path, opponent: str, games: int, seed: int, player: str = "td:net={net}") -> dict[str, int]:
    """The network's plain and on-marbles results against ``opponent`` (arena games, in this process)."""
    settings = ArenaSettings.from_layout("standard", seed=seed, rules=EVAL_RULES)
    tasks = schedule([player.format(net=net), opponent], games, settings)
    results = [r for _, r in InlineExecutor().run(play_game, tasks)]
    plain, marbles = summarize_pair(results), summarize_pair(results, adjudicate=True)
    return dict(eval_games=plain.games, wins=plain.wins, draws=plain.draws, losses=plain.losses,
                m_wins=marbles.wins, m_draws=marbles.draws, m_losses=marbles.losses,
                marbles_won=plain.marbles_won, marbles_lost=plain.marbles_lost)


def run_arm(job: tuple[str, Arm, int, dict[str, Any], Sequence[int], Path, str, int, str]) -> list[dict[str, Any]]:
    """Train one (arm, seed) to each checkpoint, test it there; write and return the rows."""
    name, arm, seed, base, checkpoints, folder, opponent, eval_games, player = job
    done = folder / "rows.csv"
    if done.exists():
        return read_rows(done)
    folder.mkdir(parents=True, exist_ok=True)
    config = TrainingConfig(**{**base, **arm.options, "seed": seed})
    trainer = make_trainer(config)
    rows, seconds = [], 0.0
    for target in checkpoints:
        t0 = time.perf_counter()
        while trainer.games < target:
            trainer.play_game()
        seconds += time.perf_counter() - t0
        net = folder / f"net-{target}.npz"
        trainer.network.save(net)
        result = evaluate(net, opponent, eval_games, derive_seed(seed, target), player)
        rows.append(dict(arm=arm.label, seed=seed, games=target, opponent=opponent, train_seconds=f"{seconds:.1f}",
                         **result))
        print(f"{name}: {arm.label}, seed {seed}, {target} games: won {result['wins']}, on marbles "
              f"{result['m_wins']}-{result['m_draws']}-{result['m_losses']} of {eval_games}", flush=True)
    write_rows(done, rows)
    return rows


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    out = io.StringIO()
    writer = csv.DictWriter(out, ROW_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, out.getvalue())


def read_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


# ----------------------------------------------------------------------------- figure 2
def run_fig2(args: argparse.Namespace) -> None:
    """One Method I run sampled at FIG2_SAMPLES; each sample plays Net 10, Net 250 and Net 2750."""
    floor = args.epsilon_min
    name = "fig2" if floor == 0 else f"fig2-eps{floor:g}"
    label = "Method I" if floor == 0 else f"Method I, eps >= {floor:g}"
    folder = Path(args.out) / name
    folder.mkdir(parents=True, exist_ok=True)
    seed = args.seed
    if not all((folder / f"net-{g}.npz").exists() for g in FIG2_SAMPLES):
        trainer = make_trainer(TrainingConfig(**M1, seed=seed, epsilon_min=floor))
        for target in FIG2_SAMPLES:
            while trainer.games < target:
                trainer.play_game()
            trainer.network.save(folder / f"net-{target}.npz")
    if (folder / "rows.csv").exists():
        rows = read_rows(folder / "rows.csv")
    else:
        pairs = [(g, r) for r in FIG2_REFERENCES for g in FIG2_SAMPLES if g != r]
        jobs = [(folder / f"net-{g}.npz", f"td:net={folder / f'net-{r}.npz'}", args.eval_games,
                 derive_seed(seed, g, r)) for g, r in pairs]
        results = _map(_evaluate_job, jobs, args.workers)
        rows = [dict(arm=f"Net {r}", seed=seed, games=g, opponent=f"Net {r}", train_seconds="", **res)
                for (g, r), res in zip(pairs, results)]
        write_rows(folder / "rows.csv", rows)
    summarize(name, rows, None, args, x_label="training games of the tested network",
              title=f"Abalearn Figure 2: sampled networks against Net 10, Net 250 and Net 2750 ({label})",
              against="the column's network")


def _evaluate_job(job: tuple[Path, str, int, int]) -> dict[str, int]:
    return evaluate(*job)


def _map(fn, jobs: list, workers: int) -> list:
    if workers <= 1:
        return [fn(j) for j in jobs]
    with get_context("fork").Pool(workers) as pool:
        return pool.map(fn, jobs, chunksize=1)


# ----------------------------------------------------------------------------- summary
def summarize(name: str, rows: list[dict[str, Any]], experiment: Experiment | None, args: argparse.Namespace,
              x_label: str = "training games", title: str | None = None, against: str | None = None) -> None:
    """Print the table (mean over seeds) and draw the plot of the win rate on marbles."""
    cells: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    arms: list[str] = []
    for r in rows:
        cells[(r["arm"], int(r["games"]))].append(r)
        if r["arm"] not in arms:
            arms.append(r["arm"])
    games = sorted({g for _, g in cells})
    title = title or (experiment.title if experiment else name)
    print(f"\n{title}\n")
    print("| " + " | ".join(["training games", *arms]) + " |")
    print("|" + "---|" * (len(arms) + 1))
    for g in games:
        line = [str(g)]
        for arm in arms:
            group = cells.get((arm, g), [])
            line.append(_cell(group) if group else "")
        print("| " + " | ".join(line) + " |")
    if experiment and experiment.paper:
        print("\npaper: " + "; ".join(f"{a}: " + ", ".join(f"{v:.0%}" for v in vals)
                                      for a, vals in experiment.paper.items()))
    seeds = sorted({int(r["seed"]) for r in rows})
    n = int(rows[0]["eval_games"]) if rows else 0
    print(f"\nEach cell: win rate on marbles, mean over {len(seeds)} run(s) (seeds {', '.join(map(str, seeds))}), "
          f"with the range over runs; then games won outright / on marbles / drawn / lost in total, and marbles "
          f"pushed off / lost; {n} games per run and checkpoint against "
          f"{against or (rows[0]['opponent'] if rows else '?')}.")
    _plot(name, cells, arms, games, experiment, args, x_label, title)


def _rate(r: dict[str, Any]) -> float:
    return int(r["m_wins"]) / int(r["eval_games"])


def _cell(group: list[dict[str, Any]]) -> str:
    rates = [_rate(r) for r in group]
    total = {k: sum(int(r[k]) for r in group) for k in ("wins", "m_wins", "m_draws", "m_losses", "marbles_won",
                                                        "marbles_lost")}
    spread = f" ({min(rates):.0%}–{max(rates):.0%})" if len(rates) > 1 else ""
    return (f"{np.mean(rates):.0%}{spread}; {total['wins']}/{total['m_wins'] - total['wins']}/{total['m_draws']}/"
            f"{total['m_losses']}; {total['marbles_won']}:{total['marbles_lost']}")


def _plot(name, cells, arms, games, experiment, args, x_label, title) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.8))
    for arm in arms:
        xs = [g for g in games if (arm, g) in cells]
        rates = [[_rate(r) for r in cells[(arm, g)]] for g in xs]
        mean = [np.mean(v) for v in rates]
        (line,) = ax.plot(xs, mean, marker="o", label=arm)
        if any(len(v) > 1 for v in rates):
            ax.fill_between(xs, [min(v) for v in rates], [max(v) for v in rates], alpha=0.15, color=line.get_color())
        outright = [np.mean([int(r["wins"]) / int(r["eval_games"]) for r in cells[(arm, g)]]) for g in xs]
        if any(outright):
            ax.plot(xs, outright, linestyle=":", marker=".", color=line.get_color(), label=f"{arm}: won outright")
        if experiment and arm in experiment.paper:
            ax.plot(experiment.checkpoints, experiment.paper[arm], linestyle="--", marker="x", color=line.get_color(),
                    label=f"{arm} (paper)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(x_label)
    ax.set_ylabel("win rate on marbles (dotted: won outright)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    plot = Path(args.plot or f"docs/img/{name}.png")
    save_figure(fig, plot)
    print(f"plot: {plot}")


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", nargs="?", choices=[*EXPERIMENTS, "fig2"])
    parser.add_argument("--list", action="store_true", help="list the experiments")
    parser.add_argument("--seeds", type=int, default=None, help="runs per arm (default: the experiment's)")
    parser.add_argument("--seed", type=int, default=2003, help="the first seed (runs use SEED, SEED+1, ...)")
    parser.add_argument("--eval-games", type=int, default=24, help="test games per run and checkpoint")
    parser.add_argument("--opponent", default="heuristic:ties=random", help="the test opponent")
    parser.add_argument("--workers", type=int, default=2, help="runs trained at once")
    parser.add_argument("--out", default="runs/experiments", help="where runs and rows are kept")
    parser.add_argument("--epsilon-min", type=float, default=0.0,
                        help="fig2 only: a floor under epsilon (the paper's Method I has none)")
    parser.add_argument("--plot", default=None, help="the plot file (default docs/img/EXPERIMENT.png)")
    args = parser.parse_args(argv)
    if args.list or not args.experiment:
        for key, exp in EXPERIMENTS.items():
            print(f"{key}: {exp.title} ({len(exp.arms)} arms, checkpoints {', '.join(map(str, exp.checkpoints))})")
        print("fig2: Abalearn Figure 2, sampled networks of a Method I run against Net 10, 250, 2750")
        return 0
    if args.eval_games < 2 or (args.seeds is not None and args.seeds < 1) or args.workers < 1:
        parser.error("--eval-games must be at least 2, --seeds and --workers at least 1")
    if args.experiment == "fig2":
        run_fig2(args)
        return 0
    exp = EXPERIMENTS[args.experiment]
    seeds = [args.seed + k for k in range(args.seeds or exp.seeds)]
    base = Path(args.out) / args.experiment
    jobs = [(args.experiment, arm, seed, exp.base, exp.checkpoints, base / f"{_slug(arm.label)}-s{seed}",
             args.opponent, args.eval_games, exp.player) for arm in exp.arms for seed in seeds]
    t0 = time.perf_counter()
    rows = [row for rows in _map(run_arm, jobs, args.workers) for row in rows]
    print(f"\n{len(jobs)} runs in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    summarize(args.experiment, rows, exp, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
