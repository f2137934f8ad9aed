"""``sumito train``: TD(λ) training runs with presets, checkpoints, resume and evaluation."""

from __future__ import annotations

import argparse
import collections
import dataclasses
import sys
import time

from sumito.arena.executor import check_shared_folder, executor_from_args, uses_ray
from sumito.bounds import parse_count
from sumito.cli.options.train import MAX_TRAINING_GAMES
from sumito.errors import SumitoError
from sumito.fileio import refuse_changed, shown_path
from sumito.learn.abalone_game import make_trainer
from sumito.learn.actors import AbaloneLearner, ActorLearner
from sumito.learn.config import (
    config_from_args,
    options_from_args,
    short_text,
)
from sumito.learn.evaluation import evaluate
from sumito.learn.run import RunFolder, load_checkpoint, save_checkpoint
from sumito.learn.training import GameStats, TrainingConfig, TrainingError
from sumito.models.policy import LEGACY_READINGS
from sumito.procs import cap_workers
from sumito.progress import Progress


def _learner_score(stats: GameStats) -> float | None:
    """The learner's score in a game against an opponent (1, ½, 0); None in self-play."""
    if len(stats.learner_sides) != 1:
        return None
    side = stats.learner_sides[0]
    return 0.5 if stats.winner == 0 else 1.0 if stats.winner == side else 0.0


def _recent_text(recent: collections.deque[tuple[float | None, bool]]) -> str:
    """The learner's recent score against its opponent, or in self-play how many games end."""
    scores = [s for s, _ in recent if s is not None]
    if scores:
        return f"win rate {sum(scores) / len(scores):.0%} (last {len(scores)})"
    return f"{sum(d for _, d in recent) / max(len(recent), 1):.0%} decided (last {len(recent)})"


def cmd_train(args: argparse.Namespace) -> int:
    if args.eval_every is None:  # a curve by default: ten points over the run
        args.eval_every = max(100, args.games // 10) if args.games >= 100 else 0
    if args.checkpoint_every < 1 or args.eval_every < 0 or args.eval_games < 1 or args.games < 0:
        raise TrainingError("--games, --eval-every must be 0 or more; --checkpoint-every, --eval-games at least 1")
    try:
        samples = sorted({parse_count(g.strip(), "a game count", high=MAX_TRAINING_GAMES)
                          for g in args.sample.split(",") if g.strip()}) if args.sample else []
    except SumitoError:
        raise TrainingError(
            f"--sample takes game counts separated by commas, not {short_text(args.sample)!r}") from None
    if "," in str(args.out):
        raise TrainingError(f"--out {shown_path(args.out)}: a run folder's path may not hold a comma (it goes in "
                            "player specs)")
    if args.actors is not None and args.actors < 1:
        raise TrainingError(f"--actors must be at least 1, not {args.actors}")
    if args.publish_every is not None and (args.publish_every < 1 or not args.actors):
        raise TrainingError("--publish-every takes a number of games, at least 1, and needs --actors")
    if args.workers is not None:
        if args.workers < 1:
            raise TrainingError(f"--workers must be at least 1, not {args.workers}")
        if not uses_ray(args):  # on Ray the executor bounds it by the cluster's CPUs
            args.workers = cap_workers(args.workers)  # once, with a note, not at every evaluation
    folder = RunFolder(args.out)
    # the evaluation games read the network from --out: on a cluster, a folder every node sees
    check_shared_folder(args, str(args.out))
    # made once, before training: a missing Ray or a bad --address fails now, not at the first evaluation (no
    # Ray instance is started for a run that never evaluates)
    executor = executor_from_args(args, args.workers) if args.eval_every or not uses_ray(args) else None
    if args.resume:
        saved = load_checkpoint(folder.checkpoint)
        try:
            config = TrainingConfig(**{**LEGACY_READINGS, **saved["config"]})
        except TypeError as exc:
            raise TrainingError(f"{folder.checkpoint}: its configuration does not fit this Sumito ({exc})") from None
        # the run's own settings may be given again; another is refused, naming it (the options given are read
        # and checked as a new run's would be)
        options, flags = options_from_args(args)
        asked = dataclasses.asdict(TrainingConfig(**{**dataclasses.asdict(config), **options}))
        refuse_changed(args.out, dataclasses.asdict(config), {k: asked[k] for k in options}, TrainingError, flags,
                       "--resume continues the run as it was configured: give none of its settings, or the same, or "
                       "use a new --out folder")
        trainer = make_trainer(config)
        trainer.load_state_dict(saved["state"])
    else:
        config = config_from_args(args)
        trainer = make_trainer(config)
    folder.create(config, args.resume)
    best = folder.best_score()
    print(f"training {args.out}: {config.regime} play, {config.encoding}, seed {config.seed}, "
          f"from game {trainer.games} to {args.games}", file=sys.stderr)
    if args.eval_every:
        print(f"evaluating every {args.eval_every} games: {args.eval_games} games against {args.eval_opponent} "
              "(--eval-every 0 to skip)", file=sys.stderr)
    results = {0: 0, 1: 0, 2: 0}
    recent: collections.deque[tuple[float | None, bool]] = collections.deque(maxlen=100)
    start_games, t0 = trainer.games, time.perf_counter()
    progress = Progress(f"train {args.out}", args.games, "games", done=trainer.games, quiet=args.quiet)
    play_game = trainer.play_game
    pool = None
    if args.actors:  # distributed self-play: the actors play, this process learns (sumito.learn.actors)

        pool = ActorLearner(AbaloneLearner(trainer), args.actors, args.publish_every or 1, limit=args.games,
                            address=args.address)
        play_game = pool.play_game
        print(f"{args.actors} actor(s) play the games, weights published every {args.publish_every or 1} games",
              file=sys.stderr)
    boundary = trainer.state_dict()  # the state between games: what Ctrl-C saves

    def evaluate_point(g: int, best: float, saved: bool) -> float:
        """The curve's point at game ``g`` (the network as it is now); the best score so far, after it."""
        latest = folder.path / "network.npz"
        if not saved:  # not just saved with the checkpoint
            trainer.network.save(latest)
        w, d, lo = evaluate(latest, args.eval_opponent, args.eval_games, args.workers, config.seed + g,
                            config.layout, args.eval_adjudicate == "marbles", executor)
        score = (w + 0.5 * d) / max(w + d + lo, 1)
        folder.append_curve(dict(games=g, epsilon=f"{trainer.epsilon:.6f}", opponent=args.eval_opponent,
                                 adjudicate=args.eval_adjudicate, eval_games=w + d + lo, wins=w, draws=d,
                                 losses=lo, score=f"{score:.4f}"))
        if score > best:
            trainer.network.save(folder.path / "best.npz")
        return max(best, score)

    try:
        g = trainer.games
        if (args.resume and args.eval_every and g and g % args.eval_every == 0
                and not any(row.get("games") == str(g) for row in folder.curve_rows())):
            # a run stopped (Ctrl-C, kill) during the evaluation at its checkpoint's game: that point first
            best = evaluate_point(g, best, saved=False)
        with progress:
            while trainer.games < args.games:
                stats = play_game()
                boundary = trainer.state_dict()
                results[stats.winner] += 1
                recent.append((_learner_score(stats), stats.winner != 0))
                g = trainer.games
                progress.update(g, status=f"eps {trainer.epsilon:.3f}, {_recent_text(recent)}, best eval {best:.2f}")
                if g in samples:
                    trainer.network.save(folder.path / f"net-{g}.npz")
                if g % args.checkpoint_every == 0 or g == args.games:
                    trainer.network.save(folder.path / "network.npz")
                    save_checkpoint(folder.checkpoint, trainer)
                if args.eval_every and g % args.eval_every == 0:
                    best = evaluate_point(g, best, saved=not (g % args.checkpoint_every and g != args.games))
    except KeyboardInterrupt:
        # the game in progress is dropped: the checkpoint is the state after the last whole game
        save_checkpoint(folder.checkpoint, boundary)
        print(f"sumito: interrupted after game {boundary['games']}; checkpoint saved, continue with --resume",
              file=sys.stderr)
        return 130
    finally:
        if pool is not None:
            pool.close()  # the actors stop; the games they were playing are dropped
            r = pool.report
            if r.games:
                print(f"actors: {r.games} games applied, {r.staleness_text()}, {r.published} publications, "
                      f"{r.replaced} actor(s) replaced", file=sys.stderr)
    elapsed = time.perf_counter() - t0
    played = trainer.games - start_games
    print(f"{played} games in {elapsed:.1f} s ({played / max(elapsed, 1e-9) * 60:.0f} games/min); "
          f"results of the training games: {results[1]} won by Black, {results[2]} by White, {results[0]} drawn")
    print(f"network: {folder.path / 'network.npz'}  (play it: td:net={folder.path / 'network.npz'})")
    return 0
