"""The learning experiments of Abalearn (Campos & Langlois 2003) and Wiering (2010) on Abalone:
train networks, test them at chosen game counts, write a table and a plot.

    python experiments/learning_curves.py EXPERIMENT [--seeds 3] [--eval-games 24] [--workers 2]
                                          [--backend ray [--address ADDR]]

Experiments (``--list`` prints them):

- ``table2``: Abalearn Table 2, Method I (Abalearn 2) against Method I(a) (Abalearn 3);
- ``fig2``: Abalearn Figure 2, networks sampled along a Method I run against Net 10, Net 250
  and Net 2750 of the same run;
- ``fig3``: Abalearn Figure 3, training against `random`, against a minimax player, by self-play;
- ``fig4``: Abalearn Figure 4, self-play with κ ∈ {−1, −0.8, −0.3, 0};
- ``wiering-regimes``: Wiering's self-play / playing the expert / observing the expert, and
  learning from the expert network's evaluations;
- ``wiering-lambda``: Wiering's λ sweep {0, 0.2, 0.4, 0.6, 0.8, 1}, self-play (λ = 1 at a tenth of α, as his);
  ``wiering-lambda-gl`` the same with the traces decaying by γλ, as his TD(λ) defines them;
  ``wiering-lambda1-alpha`` λ = 1 alone at step sizes α ∈ {0.01, 0.02, 0.03, 0.05, 0.1}, under both
  traces (a run that diverges counts as forfeiting its tests from there);
- ``tdleaf``: ours, TD-Leaf(λ) (training through a 3-ply search) against TD(λ), both tested as
  ``engine:net=…,depth=3``.

Each (arm, seed) is one training run (TD(λ), α = 0.1, γ = 0.9, λ = 0.7, ε from 0.9 decaying by
0.99 a game to a floor of 0.05, traces decaying by λ as in the paper's eq. 5, training games tied at
200 plies or 20 repetitions, and the reading the reading search chose: Abalearn 2's board split into
rings 0-2 | 3 | 4, a linear output, ±1 a marble, moves chosen by reward + γ·value, 10 hidden units;
Method II with the sigmoid output and ±0.1 a marble; unless the arm says otherwise). The reading
search's own stages, the older hypotheses and the TD-Leaf comparison keep the readings they ran
under (``OLD_READING``, ``stage2()``), so that their commands still give the
tables they documented (the experiments are defined in ``learning_experiments.py``, their tables and
plots drawn by ``learning_summary.py``). At each checkpoint its network plays each ``--opponent`` (default: the
experiment's, else the paper's benchmark ``heuristic`` at one ply, with seeded random tie-breaks) in
arena games from random 2-ply openings, colours alternating, stopped at 400 plies or when a position
comes back for the 20th time (the paper's footnote 4).

**The win column** (stage 3 of the reading search; the papers do not define "win rate"): games won
outright or stopped ahead on marbles, over all the test games of the cell's runs, with a 95%
interval (the wider of the profile-likelihood interval of the pooled games and Student's t over the
runs' own rates, so that run-to-run spread counts), and the interquartile mean of the runs with its
bootstrap band. Won outright and drawn are extra columns; the experiments run before stage 3 report
won outright as their bold column.

The scale defaults are the papers': 10 runs per arm and 100 test games per run and checkpoint
(Table 2's 100 games a cell per run; Figure 4's 10 agents); Figure 2 over 10 runs, 100 games a
pairing and run. Independent runs go through the arena's executor (``--workers`` processes, or
Ray tasks with ``--backend ray``, on a local Ray instance or the cluster at ``--address``; on a
cluster, ``--out`` is an absolute path on storage every node sees); each
run saves its trainer and rows after every checkpoint (atomically), so a killed experiment
resumes at the last checkpoint of each run when started again. A run whose weights diverge (not finite,
or past the bound a network file may hold) does not stop the experiment: its tests from the checkpoint
where that was found count as forfeits (lost, no marble for six against), and the summary names it.
The summary table (Markdown) goes to standard output, the plot to ``--plot`` (default
``docs/img/EXPERIMENT.png``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import learning_experiments
import learning_summary
from learning_experiments import DEFAULT_OPPONENTS, EXPERIMENTS, FIG2_PLAYER, FIG2_REFERENCES, FIG2_SAMPLES, M1, Arm
from learning_summary import grid_table, method2_table, screen_table, shown_player, stage3_table, summarize

from sumito.arena.executor import (
    Executor,
    InlineExecutor,
    RayExecutor,
    check_shared_folder,
    executor_from_args,
    import_ray,
)
from sumito.arena.match import ArenaSettings, derive_seed, play_game, schedule, summarize_pair
from sumito.cliargs import add_backend_args
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_rows, refuse_changed
from sumito.fileio import read_rows as read_csv_rows
from sumito.games.abalone import DrawRules
from sumito.learn.abalone_game import make_trainer
from sumito.learn.run import load_checkpoint, save_checkpoint
from sumito.learn.runfolder import RunFolder
from sumito.learn.training import TrainingConfig
from sumito.stopping import run_main

# test games: a tie when the same position comes back 20 times (the paper's footnote 4), or at 400 plies
EVAL_RULES = DrawRules(max_plies=400, repetitions=20)
ROW_FIELDS = ("arm", "seed", "games", "opponent", "eval_games", "wins", "draws", "losses",
              "m_wins", "m_draws", "m_losses", "marbles_won", "marbles_lost", "train_seconds", "player", "diverged")



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


def run_arm(
    job: tuple[str, Arm, int, dict[str, Any], Sequence[int], Path, tuple[str, ...], int, tuple[str, ...]],
) -> list[dict[str, Any]]:
    """Train one (arm, seed) to each checkpoint and test it there, as each of the test ``players`` against
    each opponent. After each checkpoint the trainer and the rows so far are saved (atomically), so that a
    killed run resumes there."""
    name, arm, seed, base, checkpoints, folder, opponents, eval_games, players = job
    players = (players,) if isinstance(players, str) else tuple(players)
    config = TrainingConfig(**{**base, **arm.options, "seed": seed})
    _check_config(folder, config)
    done = folder / "rows.csv"
    if done.exists():
        if all((folder / f"net-{g}.npz").exists() for g in checkpoints):
            return _test_saved(name, arm, seed, folder, checkpoints, opponents, eval_games, players)
        met = {(int(r["games"]), r["opponent"], r["player"] or players[0]) for r in read_rows(done)}
        if all((g, o, p) in met for g in checkpoints for o in opponents for p in players):
            return read_rows(done)
        # new opponents and no saved networks (e.g. rows committed from another machine): train the run again
        # (the same seed gives the same networks and the same games)
        done.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    RunFolder(folder, ()).write_config(_comparable(config))
    trainer = make_trainer(config)
    partial, state = folder / "rows-partial.csv", folder / "trainer.npz"
    rows: list[dict[str, Any]] = []
    if partial.exists() and state.exists():
        rows = read_rows(partial)
        trainer.load_state_dict(load_checkpoint(state)["state"])
    seconds = float(rows[-1]["train_seconds"]) if rows else 0.0
    for target in checkpoints:
        if target <= trainer.games and any(int(r["games"]) == target for r in rows):
            continue
        seconds += trainer.train_until(target)
        problem = trainer.network.divergence()
        if problem:
            rows += _forfeit_rows(name, arm, seed, [g for g in checkpoints if g >= target], f"{seconds:.1f}",
                                  players, opponents, eval_games)
            print(f"{name}: {arm.label}, seed {seed} diverged by {target} games ({problem}); its tests from "
                  f"there count as forfeits", flush=True)
            break
        net = folder / f"net-{target}.npz"
        trainer.network.save(net)
        for player in players:
            for opponent in opponents:
                rows.append(_test_row(name, arm, seed, target, f"{seconds:.1f}", net, player, opponent, eval_games))
        save_checkpoint(state, trainer)
        write_rows(partial, rows)
    write_rows(done, rows)
    state.unlink(missing_ok=True)
    partial.unlink(missing_ok=True)
    return read_rows(done)  # as text, like a finished run's


def _forfeit_rows(name: str, arm: Arm, seed: int, targets: Sequence[int], seconds: str, players: Sequence[str],
                  opponents: Sequence[str], eval_games: int) -> list[dict[str, Any]]:
    """The rows of a run whose weights diverged (not finite, or past the bound a network file may hold) by
    the first of ``targets``: it cannot be saved or played, so each of its tests from there is a forfeit,
    the harshest count there is (lost outright, no marble for six against), and ``diverged`` names the
    checkpoint where it was found. Recorded so that the arm's band counts the run instead of the experiment
    stopping, and never kinder than a played test."""
    return [dict(arm=arm.label, seed=seed, games=target, opponent=opponent, train_seconds=seconds, player=player,
                 eval_games=eval_games, wins=0, draws=0, losses=eval_games, m_wins=0, m_draws=0,
                 m_losses=eval_games, marbles_won=0, marbles_lost=6 * eval_games, diverged=targets[0])
            for target in targets for player in players for opponent in opponents]


def _comparable(config: TrainingConfig) -> dict[str, Any]:
    """A run's configuration as it is kept in its folder (an expert network as its file name only, so that a
    folder copied to another machine still matches)."""
    fields = asdict(config)
    if fields["targets"] != "own":
        fields["targets"] = Path(fields["targets"]).name
    return fields


def _check_config(folder: Path, config: TrainingConfig) -> None:
    """Refuse a run folder trained under another configuration (e.g. before a default changed): its rows
    would be reported as this arm's. Folders without ``config.json`` (rows committed alone) are taken as
    they are; an option added since a folder was made counts as its default there (the same training)."""
    kept = RunFolder(folder, ())
    if kept.config_file.exists():
        new = _comparable(config)
        refuse_changed(folder, {**_comparable(TrainingConfig()), **kept.saved_config()}, new,
                       flags={k: f"the arm's {k}" for k in new},
                       advice="its rows would be counted as this arm's: remove the folder or use another --out")


def _test_saved(name: str, arm: Arm, seed: int, folder: Path, checkpoints: Sequence[int], opponents: Sequence[str],
                eval_games: int, players: Sequence[str]) -> list[dict[str, Any]]:
    """A finished run's rows, with the tests it has not played yet (an opponent, or a way of testing it)
    played by its saved networks (``net-G.npz``) and added, one at a time (atomically, so a kill loses one).
    A row without a player was played by the first of ``players``."""
    done = folder / "rows.csv"
    rows = read_rows(done)
    for target in checkpoints:
        met = {(r["opponent"], r["player"] or players[0]) for r in rows if int(r["games"]) == target}
        for player in players:
            for opponent in opponents:
                if (opponent, player) in met:
                    continue
                seconds = next(r["train_seconds"] for r in rows if int(r["games"]) == target)
                rows.append(_test_row(name, arm, seed, target, seconds, folder / f"net-{target}.npz", player,
                                      opponent, eval_games))
                write_rows(done, rows)
    return read_rows(done)


def _test_row(name: str, arm: Arm, seed: int, target: int, seconds: str, net: Path, player: str, opponent: str,
              eval_games: int) -> dict[str, Any]:
    """The network of ``target`` games tested as ``player`` against ``opponent``: its row, and a progress line."""
    result = evaluate(net, opponent, eval_games, derive_seed(seed, target), player)
    shown = "" if player == "td:net={net}" else f"as {shown_player(player)} "
    print(f"{name}: {arm.label}, seed {seed}, {target} games, {shown}against {opponent}: won {result['wins']} of "
          f"{eval_games} outright, {result['draws']} drawn", flush=True)
    return dict(arm=arm.label, seed=seed, games=target, opponent=opponent, train_seconds=seconds, player=player,
                **result)



def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    atomic_write_rows(path, ROW_FIELDS, rows)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """A run's rows; rows written before tests had several players have ``player`` empty."""
    return [{**row, "player": row.get("player") or ""} for row in read_csv_rows(path)]


# ----------------------------------------------------------------------------- figure 2
def run_fig2(args: argparse.Namespace) -> None:
    """Method I runs (``--seeds``, default 10, from ``--seed``) sampled at FIG2_SAMPLES; in each run, each
    sample plays Net 10, Net 250 and Net 2750 of the same run. One folder a run (``fig2/s<seed>``), its rows
    written when its games are played, so that a killed experiment resumes at the runs not yet finished."""
    floor = args.epsilon_min
    name = "fig2" if floor is None else f"fig2-eps{floor:g}"
    label = "Method I" if floor is None else f"Method I, eps >= {floor:g}"
    config = dict(M1) if floor is None else dict(M1, epsilon_min=floor)
    seeds = [args.seed + k for k in range(args.seeds or 10)]
    folders = [Path(args.out) / name / f"s{seed}" for seed in seeds]
    if args.report_only:
        done = [f / "rows.csv" for f in folders if (f / "rows.csv").exists()]
        rows = [row for path in done for row in read_rows(path)]
    else:
        rows = [row for rows in _map(_fig2_run, [(f, s, config, args.eval_games) for f, s in zip(folders, seeds)],
                                     args.executor) for row in rows]
    if not rows:
        raise SumitoError(f"no finished run of {name} in {Path(args.out) / name}")
    # a line for each reference network: "against Net 250" (of the tested network's own run)
    rows = [dict(r, arm=f"against {r['opponent']}", opponent="its run's reference network") for r in rows]
    summarize(name, rows, None, args, x_label="training games of the tested network",
              title=f"Abalearn Figure 2: sampled networks against Net 10, Net 250 and Net 2750 ({label})",
              against="the column's network")


def _fig2_run(job: tuple[Path, int, dict[str, Any], int]) -> list[dict[str, Any]]:
    """One Figure 2 run: train it (its networks kept at FIG2_SAMPLES), then play each pairing."""
    folder, seed, config, eval_games = job
    if (folder / "rows.csv").exists():
        return read_rows(folder / "rows.csv")
    folder.mkdir(parents=True, exist_ok=True)
    if not all((folder / f"net-{g}.npz").exists() for g in FIG2_SAMPLES):
        trainer = make_trainer(TrainingConfig(**config, seed=seed))
        for target in FIG2_SAMPLES:
            while trainer.games < target:
                trainer.play_game()
            trainer.network.save(folder / f"net-{target}.npz")
    pairs = [(g, r) for r in FIG2_REFERENCES for g in FIG2_SAMPLES if g != r]
    rows = [dict(arm=f"Net {r}", seed=seed, games=g, opponent=f"Net {r}", train_seconds="",
                 **evaluate(folder / f"net-{g}.npz", FIG2_PLAYER.format(net=folder / f"net-{r}.npz"), eval_games,
                            derive_seed(seed, g, r), player=FIG2_PLAYER))
            for g, r in pairs]
    write_rows(folder / "rows.csv", rows)
    return read_rows(folder / "rows.csv")  # as text, like a finished run's


def _map(fn, jobs: list, executor: Executor) -> list:
    """``fn`` over ``jobs`` through the arena's executor (``--workers`` processes, or Ray tasks with
    ``--backend ray``; Ctrl-C stops them all). ``fn`` is a module-level function of this script: run as
    ``__main__``, it goes to Ray's workers by value (cloudpickle), so they need not import the script."""
    results: list[Any] = [None] * len(jobs)
    with _siblings_by_value(executor), contextlib.closing(executor.run(fn, jobs)) as stream:
        for done, (i, result) in enumerate(stream, start=1):
            results[i] = result
            print(f"{done}/{len(jobs)} done", file=sys.stderr, flush=True)
    return results


@contextlib.contextmanager
def _siblings_by_value(executor: Executor) -> Iterator[None]:
    """On Ray, the modules this script imports from beside it (its experiments' definitions and tables) go to the
    workers by value too: they are not on a worker's path, and a job holds their objects (an ``Arm``)."""
    if not isinstance(executor, RayExecutor):
        yield
        return
    pickler = import_ray().cloudpickle
    modules = (learning_experiments, learning_summary)
    for module in modules:
        pickler.register_pickle_by_value(module)
    try:
        yield
    finally:
        for module in modules:
            pickler.unregister_pickle_by_value(module)


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", nargs="?", choices=[*EXPERIMENTS, "fig2"])
    parser.add_argument("--list", action="store_true", help="list the experiments")
    parser.add_argument("--seeds", type=int, default=None, help="runs per arm (default: the experiment's)")
    parser.add_argument("--seed", type=int, default=2003, help="the first seed (runs use SEED, SEED+1, ...)")
    parser.add_argument("--eval-games", type=int, default=None,
                        help="test games per run and checkpoint (default: the experiment's; fig2: 100 a pairing "
                        "and run)")
    parser.add_argument("--opponent", action="append", default=None,
                        help="a test opponent (repeatable; default: the experiment's, else heuristic at 1 and 2 "
                        "plies); with --report-only, the rows against these opponents only")
    parser.add_argument("--arm", action="append", default=None, metavar="TEXT",
                        help="only the arms whose label contains TEXT (repeatable; default: every arm)")
    parser.add_argument("--workers", type=int, default=None,
                        help="runs trained at once (default 2; with --backend ray, all the Ray cluster's CPUs)")
    add_backend_args(parser, "the runs")
    parser.add_argument("--out", default="runs/experiments", help="where runs and rows are kept")
    parser.add_argument("--epsilon-min", type=float, default=None,
                        help="fig2 only: another floor under epsilon than the default's (into fig2-epsF)")
    parser.add_argument("--plot", default=None, help="the plot file (default docs/img/EXPERIMENT.png)")
    parser.add_argument("--no-plot", action="store_true", help="the tables only, no plot")
    parser.add_argument("--report-only", action="store_true",
                        help="tables and plot of the runs finished so far; nothing is trained or played")
    args = parser.parse_args(argv)
    if args.list or not args.experiment:
        for key, exp in EXPERIMENTS.items():
            print(f"{key}: {exp.title} ({len(exp.arms)} arms, checkpoints {', '.join(map(str, exp.checkpoints))})")
        print("fig2: Abalearn Figure 2, sampled networks of a Method I run against Net 10, 250, 2750")
        return 0
    if (args.eval_games is not None and args.eval_games < 2) or (args.seeds is not None and args.seeds < 1) or (
        args.workers is not None and args.workers < 1
    ):
        parser.error("--eval-games must be at least 2, --seeds and --workers at least 1")
    try:
        check_shared_folder(args, args.out)
        args.executor = executor_from_args(args, args.workers or (None if args.backend == "ray" else 2))
    except SumitoError as exc:
        parser.error(str(exc))
    if args.experiment == "fig2":
        args.eval_games = args.eval_games or 100
        run_fig2(args)
        return 0
    exp = EXPERIMENTS[args.experiment]
    args.eval_games = args.eval_games or exp.eval_games
    seeds = [args.seed + k for k in range(args.seeds or exp.seeds)]
    base = Path(args.out) / args.experiment
    jobs = [(args.experiment, arm, seed, exp.base, exp.checkpoints, base / f"{_slug(arm.label)}-s{seed}",
             tuple(args.opponent or exp.opponents or DEFAULT_OPPONENTS), args.eval_games, exp.test_players())
            for arm in exp.arms for seed in seeds
            if not args.arm or any(text in arm.label for text in args.arm)]
    if not jobs:
        parser.error(f"no arm of {args.experiment} matches --arm {' / '.join(args.arm)}")
    t0 = time.perf_counter()
    if args.report_only:
        finished = [job[5] / "rows.csv" for job in jobs if (job[5] / "rows.csv").exists()]
        print(f"{len(finished)} of {len(jobs)} runs finished", file=sys.stderr)
        rows = [row for path in finished for row in read_rows(path)]
        if args.opponent:  # the rows against these test opponents only (a plot of one benchmark reading)
            rows = [row for row in rows if row["opponent"] in args.opponent]
        if not rows:
            parser.error(f"no finished run of {args.experiment} in {base}")
    else:
        rows = [row for rows in _map(run_arm, jobs, args.executor) for row in rows]
        print(f"\n{len(jobs)} runs in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    summarize(args.experiment, rows, exp, args)
    if args.experiment == "readings-screen":
        screen_table(rows)
    if args.experiment == "readings-grid":
        grid_table(rows, exp)
    if args.experiment == "readings-stage3":
        stage3_table(rows, exp)
    if args.experiment == "readings-method2":
        method2_table(rows)
    return 0


if __name__ == "__main__":
    run_main(main)
