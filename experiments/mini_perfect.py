"""Does each learning method learn to play perfectly? Learning curves on the solved mini board.

Run:  python experiments/mini_perfect.py [--out runs/mini-perfect] [--workers 2] [--seeds 10]
                                          [--plot docs/img/mini-perfect.png] [--report-only]

Every arm trains on the mini board (19 cells, 5 marbles a side, 2 to win) and, at each checkpoint of
:data:`CHECKPOINTS` training games, its player is scored against perfect play with the yardstick of
``sumito solve score`` (:mod:`sumito.arena.yardstick`): the share of value-preserving moves and the blunder
rate (a won position thrown to a draw or a loss, a drawn one to a loss: every move that does not keep the
value) and the share of perfect moves (the value kept, and the distance too: the fastest win, the slowest
loss), over the fixed suite of 1,000 positions (seed 41) where the choice of move matters. The arms:

* Abalearn's TD(λ) (``sumito train`` with ``layout=mini``): Methods I and I(a) as their presets, and Method II
  with each of the paper's κ (−1, −0.8, −0.3, 0); tested as ``td:net=NET`` (the greedy afterstate player), on
  the mini board with all moves (Abalearn's game);
* Alphalone's TD(0) weights (:mod:`sumito.learn.alphalone_td`) on the report's game, the mini board with inline
  moves only, scored on that variant's table: the authors' method (``code``, no exploration: every seed gives
  the same weights, so it is one run) at the report's four step sizes, and the ``afterstates`` method (ours,
  seeded exploration) at η = 1e-3; tested as ``alphalone:depth=0,weights=FILE`` (the evaluation alone, one
  ply) and ``alphalone:depth=1,weights=FILE`` (two plies);
* the NNUE self-play line (:mod:`sumito.learn.selftaught`, ``sumito nnue selfplay --side 3``): generation 0
  knows the rules and the marble count; attempts of self-play at the loop's depth, training and an SPRT gate,
  from the mini board's shipped opening suite, with the loop's default settings (200 games an attempt, depth
  3); its training games are the self-play games of all attempts, accepted or not, and at each checkpoint the
  newest accepted network is tested as ``engine:depth=1,nnue=NET`` (the network's own judgement, one ply
  and its push-off quiescence) and ``engine:depth=3,nnue=NET`` (as it plays in the loop).

Each (arm, seed) is a folder under ``--out`` with its rows (``rows.csv``, written atomically after each
checkpoint) and the trainer's state at its last checkpoint, so the same command after a kill resumes where
each run stood, and a checkpoint added to :data:`CHECKPOINTS` later trains on from the last one. The summary
prints, for each arm and checkpoint, the interquartile mean over the runs with its bootstrap 95% band
(:mod:`sumito.learn.bands`) of both measures, and plots them with each run's curve faint behind, beside the reference
players' scores of ``runs/solved/scores.json`` (docs/solved.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sumito.arena.executor import InlineExecutor
from sumito.arena.yardstick import build_suite, score_player
from sumito.defaults import METHOD_PRESETS, YARDSTICK_SEED, YARDSTICK_SUITE
from sumito.fileio import atomic_write_rows, atomic_write_text, read_rows
from sumito.games.abalone.variants import MINI
from sumito.learn.abalone_game import make_trainer
from sumito.learn.alphalone_td import REPORT_ETAS, TDConfig
from sumito.learn.alphalone_td import train as train_alphalone
from sumito.learn.bands import Estimate, iqm
from sumito.learn.plot import save_figure
from sumito.learn.run import load_checkpoint, save_checkpoint
from sumito.learn.selftaught import LoopSettings, net_path, open_run, run_attempt
from sumito.learn.training import TrainingConfig
from sumito.players.perfect import solved_table
from sumito.stopping import run_main

CHECKPOINTS = (0, 10, 30, 100, 300, 1000, 3000, 10000)
ALPHALONE_CHECKPOINTS = (0, 10, 30, 100, 300, 1000)
NNUE_CHECKPOINTS = (0, 200, 400, 1000, 2000, 4000)
FIRST_SEED = 3001
ROW_FIELDS = ("arm", "seed", "games", "player", "positions", "kept", "optimal", "win_to_draw", "win_to_loss",
              "draw_to_loss", "train_seconds")


@dataclass(frozen=True)
class Arm:
    label: str
    kind: str  # "abalearn", "alphalone" or "nnue"
    options: dict[str, Any] = field(default_factory=dict)
    players: tuple[str, ...] = ("td:net={net}",)
    seeded: bool = True  # False: every seed trains the same weights (one run stands for all)
    later: tuple[int, ...] = ()  # checkpoints beyond its kind's

    @property
    def inline_only(self) -> bool:
        return self.kind == "alphalone"

    @property
    def checkpoints(self) -> tuple[int, ...]:
        return {"alphalone": ALPHALONE_CHECKPOINTS, "nnue": NNUE_CHECKPOINTS}.get(self.kind, CHECKPOINTS) + self.later


ALPHALONE_PLAYERS = ("alphalone:depth=0,weights={net}", "alphalone:depth=1,weights={net}")
NNUE_PLAYERS = ("engine:depth=1,nnue={net},threads=1", "engine:depth=3,nnue={net},threads=1")
PLOTTED_ALPHALONE = ("alphalone code η=0.001, depth 0", "alphalone afterstates η=0.001, depth 0")
REFERENCES = Path(__file__).resolve().parent.parent / "runs" / "solved" / "scores.json"


def arms() -> tuple[Arm, ...]:
    out = [Arm("method-I", "abalearn", {**METHOD_PRESETS["method-I"]}),
           Arm("method-Ia", "abalearn", {**METHOD_PRESETS["method-Ia"]})]
    for kappa in (-1.0, -0.8, -0.3, 0.0):
        out.append(Arm(f"method-II κ={kappa:g}", "abalearn", {**METHOD_PRESETS["method-II"], "kappa": kappa}))
    for eta in REPORT_ETAS:
        out.append(Arm(f"alphalone code η={eta:g}", "alphalone", {"eta": eta, "method": "code"}, ALPHALONE_PLAYERS,
                       seeded=False))
    out.append(Arm("alphalone afterstates η=0.001", "alphalone", {"eta": 1e-3, "method": "afterstates"},
                   ALPHALONE_PLAYERS))
    out.append(Arm("nnue self-play", "nnue", {}, NNUE_PLAYERS))
    # the stall's hypotheses (docs/reproductions.md, "Why the NNUE line stalls"): no gate; no gate and more
    # exploration (20 uniformly random quiet plies at the start of each game instead of 6)
    out.append(Arm("nnue no gate", "nnue", {"gate_games": 0}, NNUE_PLAYERS, later=(10_000,)))
    out.append(Arm("nnue no gate, 20 random plies", "nnue", {"gate_games": 0, "random_plies": 20}, NNUE_PLAYERS,
                   later=(10_000,)))
    return tuple(out)


# ----------------------------------------------------------------------------- one run
_SUITES: dict[bool, tuple] = {}


def suite_and_table(inline_only: bool):
    """The variant's table and its suite (built once a process)."""
    if inline_only not in _SUITES:
        table = solved_table(MINI.with_options(inline_only=True) if inline_only else MINI)
        _SUITES[inline_only] = (table, build_suite(table, YARDSTICK_SUITE, YARDSTICK_SEED))
    return _SUITES[inline_only]


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-=." else "_" for c in text.replace("κ", "k").replace("η", "eta"))


def score_rows(arm: Arm, seed: int, games: int, seconds: float, net: Path) -> list[dict[str, Any]]:
    table, suite = suite_and_table(arm.inline_only)
    rows = []
    for player in arm.players:
        s = score_player(player.format(net=net), suite, table, seed=YARDSTICK_SEED)
        rows.append(dict(arm=arm.label, seed=seed, games=games, player=player, positions=s.positions, kept=s.kept,
                         optimal=s.optimal, win_to_draw=s.win_to_draw, win_to_loss=s.win_to_loss,
                         draw_to_loss=s.draw_to_loss, train_seconds=f"{seconds:.1f}"))
        print(f"{arm.label}, seed {seed}, {games} games, {player.replace('{net}', 'NET')}: keeps the value in "
              f"{s.kept}/{s.positions}, {s.blunders} blunders", flush=True)
    return rows


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    atomic_write_rows(path, ROW_FIELDS, rows)


def run_one(job: tuple[Arm, int, Path]) -> list[dict[str, Any]]:
    """Train one (arm, seed) to each checkpoint and score it there; resumes from the folder."""
    arm, seed, folder = job
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "rows.csv"
    rows = read_rows(done) if done.exists() else []
    met = {int(r["games"]) for r in rows}
    if all(g in met for g in arm.checkpoints):
        return rows
    seconds = max((float(r["train_seconds"]) for r in rows), default=0.0)
    if arm.kind == "abalearn":
        trainer = make_trainer(TrainingConfig(**{**arm.options, "layout": "mini", "seed": seed}))
        state = folder / "trainer.npz"
        if rows and state.exists():
            trainer.load_state_dict(load_checkpoint(state)["state"])
        for target in arm.checkpoints:
            if target in met:
                continue
            seconds += trainer.train_until(target)
            net = folder / f"net-{target}.npz"
            trainer.network.save(net)
            rows += score_rows(arm, seed, target, seconds, net)
            write_rows(done, rows)
            # kept, so that a later checkpoint goes on from here; written after the rows, so that a kill
            # between the two leaves a state that is behind them (trained on again), never ahead
            save_checkpoint(state, trainer)
    elif arm.kind == "nnue":
        # the loop resumes itself from its folder (state.json, the accepted networks, each attempt's parts)
        loop = folder / "loop"
        state = open_run(loop, LoopSettings(**{**arm.options, "side": MINI.side, "seed": seed}))
        for target in arm.checkpoints:
            if target in met:
                continue
            while sum(a.games for a in state.attempts) < target:
                run_attempt(loop, state, InlineExecutor(), log=lambda line: None)
            seconds = sum(a.seconds for a in state.attempts)
            rows += score_rows(arm, seed, target, seconds, net_path(loop, state.generation))
            write_rows(done, rows)
    else:
        # the Alphalone trainer has no state to resume: each checkpoint is a run of that many games (the
        # authors' method trains each colour's weights over all of them in turn)
        for target in arm.checkpoints:
            if target in met:
                continue
            t0 = time.perf_counter()
            if target == 0:
                weights = TDConfig().initial
            else:
                weights = train_alphalone(TDConfig(games=target, layout="mini", seed=seed, **arm.options)).weights
            seconds = time.perf_counter() - t0
            net = folder / f"weights-{target}.json"
            atomic_write_text(net, weights.to_json())
            rows += score_rows(arm, seed, target, seconds, net)
            write_rows(done, rows)
    return read_rows(done)


# ----------------------------------------------------------------------------- summary
SUITE_RESAMPLES, SUITE_SEED = 2000, 2021


def band(group: list[dict[str, Any]], column: str) -> Estimate:
    """The IQM over the runs of their rate in ``column`` with a 95% band that carries the suite's own error as
    well as the runs': a two-level percentile bootstrap, the runs drawn with replacement and then each drawn
    run's count drawn again from the binomial of its rate over the suite's positions (the rows keep totals per
    run, not the positions one by one, so the positions' sampling error is this binomial's)."""
    counts = np.array([blunders(r) if column == "blunders" else int(r[column]) for r in group], dtype=float)
    n = np.array([int(r["positions"]) for r in group], dtype=float)
    value = float(iqm(counts / n))
    rng = np.random.default_rng(SUITE_SEED)
    pick = rng.integers(0, len(group), size=(SUITE_RESAMPLES, len(group)))
    draws = np.sort(iqm(rng.binomial(n[pick].astype(int), (counts / n)[pick]) / n[pick], axis=1))
    low = float(draws[int(0.025 * (SUITE_RESAMPLES - 1))])
    high = float(draws[int(np.ceil(0.975 * (SUITE_RESAMPLES - 1)))])
    return Estimate(value, low, high, len(group))


def policies(group: list[dict[str, Any]]) -> int:
    """How many distinct policies the runs hold, counted as distinct score rows: runs whose kept, perfect and
    blunder counts are all equal are counted as one policy."""
    return len({tuple(r[k] for k in ("kept", "optimal", "win_to_draw", "win_to_loss", "draw_to_loss")) for r in group})


def blunders(row: dict[str, Any]) -> int:
    return int(row["win_to_draw"]) + int(row["win_to_loss"]) + int(row["draw_to_loss"])


def shown(arm: str, player: str) -> str:
    if player.startswith(("alphalone:depth=", "engine:depth=")):
        return f"{arm}, depth {player.split('depth=')[1].split(',')[0]}"
    return arm


def summarize(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    cells: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    order: list[str] = []
    for r in rows:
        name = shown(r["arm"], r["player"])
        if name not in order:
            order.append(name)
        cells[(name, int(r["games"]))].append(r)
    shown_games = (0, 100, 1000, 10000)
    print("\nblunder rate, IQM over the runs (95% band: a bootstrap over the runs and, by each run's binomial, over "
          "the suite's positions), by training games:\n")
    print("| arm | runs | " + " | ".join(f"{g:,} games" for g in shown_games) + " |")
    print("|---|---:|" + "---|" * len(shown_games))
    for name in order:
        got = sorted({g for (n, g) in cells if n == name})
        at = [g if g in got else (got[-1] if g > got[-1] else None) for g in shown_games]
        row = []
        for want, g in zip(shown_games, at):
            if g is None:
                row.append("")
                continue
            b = band(cells[(name, g)], "blunders")
            row.append(f"{100 * b.value:.1f}% ({100 * b.low:.1f}–{100 * b.high:.1f})" + ("" if g == want
                                                                                          else f" at {g:,}"))
        print(f"| {name} | {len(cells[(name, got[0])])} | " + " | ".join(row) + " |")
    print("\n| arm | games | runs | distinct policies | perfect moves (IQM, 95% band) | blunders (IQM, 95% band) |")
    print("|---|---:|---:|---:|---|---|")
    for name in order:
        for g in sorted({g for (n, g) in cells if n == name}):
            group = cells[(name, g)]
            k, b = band(group, "optimal"), band(group, "blunders")
            print(f"| {name} | {g:,} | {len(group)} | {policies(group)} | {100 * k.value:.1f}% "
                  f"({100 * k.low:.1f}–{100 * k.high:.1f}) | {100 * b.value:.1f}% "
                  f"({100 * b.low:.1f}–{100 * b.high:.1f}) |")
    if args.plot:
        # the figure: every Abalearn arm, and two of Alphalone's (the report's agent 2 and the seeded reading),
        # each as its evaluation alone; the table above has them all
        shown_arms = [n for n in order if not n.startswith("alphalone") or n in PLOTTED_ALPHALONE]
        plot(cells, shown_arms, Path(args.plot), Path(args.references))


def plot(cells, order: list[str], path: Path, references: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharex=True)
    colours = plt.get_cmap("tab10").colors
    for ax, column, title in ((axes[0], "optimal", "perfect moves (the value and the distance kept)"),
                              (axes[1], "blunders", "blunders (win → draw/loss, draw → loss)")):
        for k, name in enumerate(order):
            xs = sorted(g for (n, g) in cells if n == name)
            stats = [band(cells[(name, g)], column) for g in xs]
            px = [max(g, 3) for g in xs]  # the untrained network (0 games) drawn at the axis' left end
            (line,) = ax.plot(px, [s.value for s in stats], marker="o", markersize=3, label=name, zorder=3,
                              color=colours[k % len(colours)])
            ax.fill_between(px, [s.low for s in stats], [s.high for s in stats], alpha=0.12,
                            color=line.get_color())
            per_seed: dict[str, list[tuple[int, float]]] = defaultdict(list)
            for g, x in zip(xs, px):
                for r in cells[(name, g)]:
                    v = blunders(r) if column == "blunders" else int(r[column])
                    per_seed[r["seed"]].append((x, v / int(r["positions"])))
            for curve in per_seed.values():
                ax.plot(*zip(*curve), color=line.get_color(), alpha=0.18, linewidth=0.6, zorder=1)
        if references.exists():
            for ref in json.loads(references.read_text()):
                if ref["player"] in ("random", "perfect", "heuristic:depth=2,ties=random") \
                        or ref["player"].startswith(("engine:time", "engine:depth=4")):
                    share = ref["optimal_share"][0] if column == "optimal" else ref["blunder_share"][0]
                    ax.axhline(share, color="grey", linestyle=":", linewidth=0.8)
                    ax.text(2.2, share, ref["player"].split(",")[0].replace(":", " "), fontsize=7, color="grey",
                            va="bottom", ha="left")
        ax.set_xscale("log")
        ax.set_xlabel("training games (left end: untrained)")
        ax.set_ylabel(f"{title}\nIQM over the runs (band: bootstrap 95%; faint: each run)", fontsize=9)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("Learning on the solved mini board, measured against perfect play (1,000 positions, seed 41)",
                 fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)
    print(f"plot: {path}")


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="runs/mini-perfect")
    p.add_argument("--seeds", type=int, default=10, help="runs an arm (default 10)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--arms", default="", help="only the arms whose label contains one of these (comma-separated)")
    p.add_argument("--plot", default="")
    p.add_argument("--references", default=str(REFERENCES), help="reference players' scores (sumito solve score "
                   "--json; default runs/solved/scores.json)")
    p.add_argument("--report-only", action="store_true", help="summarise the finished runs only")
    args = p.parse_args(argv)
    out = Path(args.out)
    chosen = [a for a in arms() if not args.arms or any(k in a.label for k in args.arms.split(","))]
    jobs = [(arm, FIRST_SEED + i, out / f"{_slug(arm.label)}-s{FIRST_SEED + i}")
            for i in range(args.seeds) for arm in chosen if arm.seeded or i == 0]
    rows: list[dict[str, Any]] = []
    if args.report_only:
        for _, _, folder in jobs:
            if (folder / "rows.csv").exists():
                rows += read_rows(folder / "rows.csv")
    elif args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            for done, result in enumerate(pool.map(run_one, jobs), 1):
                rows += result
                print(f"{done}/{len(jobs)} runs done", file=sys.stderr, flush=True)
    else:
        for done, job in enumerate(jobs, 1):
            rows += run_one(job)
            print(f"{done}/{len(jobs)} runs done", file=sys.stderr, flush=True)
    summarize(rows, args)
    return 0


if __name__ == "__main__":
    run_main(main)
