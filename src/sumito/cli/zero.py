"""``sumito zero``: the zero learner's commands.

    sumito zero train --out runs/zero/mini --games 20000 --workers 2 --score-every 2000
    sumito zero train --out runs/zero/mini --games 40000 --resume        # on from the checkpoint, to 40,000
    sumito zero report runs/zero/mini
    sumito zero analyse --net runs/zero/mini/net.npz --layout mini --sims 256

``train`` checkpoints atomically after every iteration, and ``--resume`` goes on from the last one with the same
weights, bit for bit, as a run never stopped. ``--score-every`` measures the network against perfect play on
the solved boards (the mini board: ``sumito solve score``'s suite), the only place the solved table is read:
training, search and selection never see it.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

from sumito.arena.executor import check_shared_folder, executor_from_args
from sumito.arena.yardstick import build_suite, score_player
from sumito.cliargs.position import position_from_args
from sumito.defaults import YARDSTICK_SEED
from sumito.fileio import read_rows
from sumito.games.abalone.move import Move
from sumito.games.abalone.position import Position
from sumito.games.abalone.variants import get_layout
from sumito.learn.runfolder import RunFolder
from sumito.learn.zero import CURVE_FIELDS, ZeroRunError, ZeroSettings, iterations, open_run
from sumito.models.zero.agent import ZeroAgent
from sumito.models.zero.network import PolicyValueNetwork
from sumito.players.perfect import has_table, solved_table
from sumito.players.zero import trained_discount, trained_mode, zero_network_path
from sumito.procs import cap_workers
from sumito.progress import Progress

#: the train command's flags that are run settings, by their dest; each sets the ZeroSettings field of its name
#: but --games-per-iteration (``games``: --games is the run's length)
SETTING_FLAGS = ("layout", "inline_only", "h1", "h2", "mode", "sims", "considered", "sample_plies", "iteration_games",
                 "chunk", "steps", "batch", "lr", "weight_decay", "value_mix", "discount", "lr_drop_at", "lr_drop",
                 "window", "random_starts", "max_plies", "seed")


def settings_from(args: argparse.Namespace, base: ZeroSettings | None = None) -> ZeroSettings:
    """The settings typed, over ``base`` (a resumed run's own, else the defaults)."""
    typed = {"games" if dest == "iteration_games" else dest: getattr(args, dest) for dest in SETTING_FLAGS
             if getattr(args, dest) is not None}
    return replace(base or ZeroSettings(), **typed)


def saved_settings(folder: str) -> ZeroSettings | None:
    """The settings in a run folder's config.json, or ``None`` where there is no run (a damaged or foreign file
    is refused in one line)."""
    run = RunFolder(folder, CURVE_FIELDS, ZeroRunError)
    if not run.config_file.exists():
        return None
    saved = run.saved_config()
    known = {f.name for f in fields(ZeroSettings)}
    if set(saved) - known:
        raise ZeroRunError(f"{folder}: config.json holds settings a zero run does not have: "
                           f"{', '.join(sorted(set(saved) - known))[:200]}")
    defaults = ZeroSettings()
    for name, value in saved.items():  # each of the type its default has (a whole number may stand for a float)
        want = type(getattr(defaults, name))
        if not (type(value) is want or (want is float and type(value) is int)):
            raise ZeroRunError(f"{folder}: config.json's {name} is not a {want.__name__}: {str(value)[:40]!r}")
    return ZeroSettings(**saved)


def score_specs(text: str, net: str) -> list[str]:
    """The zero specs a score measures: each item of ``text`` (';'-separated options) on the network ``net``."""
    items = [item.strip() for item in text.split(";") if item.strip()]
    if not items:
        raise ZeroRunError("--score-players names nothing to measure")
    return [f"zero:net={net},{item.replace(' ', '')}" for item in items]


class Scorer:
    """Measures a network against perfect play on a solved board's suite (built once)."""

    def __init__(self, settings: ZeroSettings, positions: int) -> None:
        variant = Position.start(settings.layout, inline_only=settings.inline_only).variant
        if not has_table(variant):
            raise ZeroRunError(f"--score-every needs a solved board; the {settings.layout} layout's is not one "
                               "(sumito solve: the mini board)")
        self.table = solved_table(variant)
        self.suite = build_suite(self.table, positions, YARDSTICK_SEED)

    def rows(self, specs: list[str]) -> list[dict]:
        out = []
        for spec in specs:
            score = score_player(spec, self.suite, self.table, YARDSTICK_SEED)
            out.append(dict(player=spec.split(",", 1)[1], suite=score.positions, kept=score.kept,
                            optimal=score.optimal, win_to_draw=score.win_to_draw, win_to_loss=score.win_to_loss,
                            draw_to_loss=score.draw_to_loss))
        return out


def cmd_train(args: argparse.Namespace) -> int:
    check_shared_folder(args, args.out)
    if args.score_every and any(c in args.out for c in ",="):  # the folder goes into a player spec's net= option
        raise ZeroRunError(f"--score-every needs a run folder without ',' or '=' in its path, not {args.out[:200]!r}")
    settings = settings_from(args, saved_settings(args.out) if args.resume else None)
    get_layout(settings.layout)
    run, learner = open_run(args.out, settings, args.resume)
    scorer = Scorer(settings, args.score_positions) if args.score_every else None
    specs = score_specs(args.score_players, str(run.path / "net.npz")) if scorer else []
    workers = cap_workers(args.workers) if args.workers is not None else None
    executor = executor_from_args(args, workers)
    next_score = ((learner.games // args.score_every) + 1) * args.score_every if scorer else None
    if scorer is not None and learner.games == 0:
        learner.network.save(run.path / "net.npz")
        _score(run, learner, scorer, specs)
    progress = Progress(f"zero train {args.out}", args.games, done=learner.games)
    with progress:
        def chunk_done(result) -> None:
            progress.update(advance=len(result.winners), status=f"iteration {learner.iteration + 1}")

        budget = None if args.cpu_hours is None else 3600 * args.cpu_hours
        for _ in iterations(run, learner, executor, args.games, chunk_done, budget):
            progress.update(learner.games, status=f"iteration {learner.iteration}: policy loss "
                            f"{learner.losses[0]:.3f}, value loss {learner.losses[1]:.3f}")
            if scorer is not None and next_score is not None and learner.games >= next_score:
                _score(run, learner, scorer, specs)
                next_score += args.score_every
    if budget is not None and learner.cpu_seconds >= budget:
        print(f"{run.path}: the budget of {args.cpu_hours:g} CPU-hours is spent", file=sys.stderr)
    print(f"{run.path}: {learner.games:,} games, {learner.positions:,} positions, {learner.iteration} iterations, "
          f"{learner.cpu_seconds / 3600:.2f} CPU-hours; network {run.path / 'net.npz'} ({learner.network.digest()})")
    return 0


def _score(run, learner, scorer: Scorer, specs: list[str]) -> None:
    started = time.monotonic()
    base = dict(iteration=learner.iteration, games=learner.games, positions=learner.positions,
                cpu_seconds=round(learner.cpu_seconds, 1), wall_seconds=round(learner.wall_seconds, 1),
                policy_loss=f"{learner.losses[0]:.4f}", value_loss=f"{learner.losses[1]:.4f}")
    for row in scorer.rows(specs):
        run.append_curve({**base, **row})
        share = 100 * row["kept"] / row["suite"]
        print(f"  {learner.games:>8,} games  {row['player']:14} keeps {share:5.1f}%  perfect "
              f"{100 * row['optimal'] / row['suite']:5.1f}%", file=sys.stderr, flush=True)
    print(f"  (measured in {time.monotonic() - started:.1f} s)", file=sys.stderr, flush=True)


def cmd_report(args: argparse.Namespace) -> int:
    run = Path(args.run)
    curve = run / "curve.csv"
    if not curve.exists():
        raise ZeroRunError(f"{run}: no curve.csv (a run trained with --score-every has one)")
    rows = read_rows(curve, "zero run's curve")  # a regular file of bounded size
    print(f"{'games':>9} {'CPU h':>7} {'player':16} {'keeps':>7} {'perfect':>8} {'blunders':>9}")
    for r in rows:
        n = int(r["suite"])
        blunders = int(r["win_to_draw"]) + int(r["win_to_loss"]) + int(r["draw_to_loss"])
        print(f"{int(r['games']):>9,} {float(r['cpu_seconds']) / 3600:7.2f} {r['player']:16} "
              f"{100 * int(r['kept']) / n:6.1f}% {100 * int(r['optimal']) / n:7.1f}% {100 * blunders / n:8.1f}%")
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    position = position_from_args(args)
    network = PolicyValueNetwork.load(zero_network_path(args.net))
    mode = args.mode or trained_mode(network)
    agent = ZeroAgent(network, mode, discount=trained_discount(network))
    views = agent.views(position)
    result = agent.search(position, args.sims)
    side = position.variant.side
    order = np.argsort(-result.visits, kind="stable")
    print(f"{position.to_string()}: the network's value {views.value:+.3f}, the search's ({args.sims} simulations, "
          f"{mode}) {result.value:+.3f}")
    print(f"{'move':10} {'policy':>7} {'value 1 ply':>12} {'visits':>7} {'target':>7}")
    index = {int(c): i for i, c in enumerate(views.codes)}
    for t in order:
        code = int(result.codes[t])
        i = index[code]
        mark = "  <- plays" if t == result.chosen else ""
        print(f"{Move(code, side).notation():10} {100 * views.prior[i]:6.1f}% {views.after[i]:+12.3f} "
              f"{int(result.visits[t]):7d} {100 * result.policy[t]:6.1f}%{mark}")
    return 0
