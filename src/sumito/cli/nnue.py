"""``sumito nnue gen`` and ``sumito nnue train``: the engine's NNUE from self-play data.

    sumito nnue gen --out runs/nnue/data-d4 --games 2000 --workers 2
    sumito nnue train runs/nnue/data-d4 --out runs/nnue/nnue.npz      # H 32, H2 16, 20 epochs, lambda 0.5
    sumito match engine:time=0.1,nnue=runs/nnue/nnue.npz engine:time=0.1 --games 100

``gen`` resumes: its chunks are kept as they finish, and the same command plays only the rest
(Ctrl-C keeps every finished chunk); the folder's config.json and each chunk's header record the settings the
games depend on, and a resume with another of them is refused in one line naming it. ``train`` writes the
network atomically and stops cleanly on Ctrl-C (the network of the epochs done is written).
"""

from __future__ import annotations

import argparse
import signal
import sys
from dataclasses import replace
from pathlib import Path

from sumito.arena.executor import check_shared_folder, executor_from_args
from sumito.arena.openings import load_openings
from sumito.learn.nnue import generate, load_samples
from sumito.learn.selftaught import LoopSettings, net_path, open_run, run
from sumito.models.nnue_fit import FitSettings, fit
from sumito.players import make_player
from sumito.procs import cap_workers
from sumito.progress import Progress


def cmd_gen(args: argparse.Namespace) -> int:
    check_shared_folder(args, args.out)
    make_player(args.player)  # a bad spec fails now, in one line
    suite = load_openings(args.openings)
    workers = cap_workers(args.workers) if args.workers is not None else None
    executor = executor_from_args(args, workers)
    # generate() gives the chunks already in the folder first: the rate counts only the chunks played now
    progress = Progress(f"nnue gen {args.out}", unit="chunks", done=None)

    try:
        with progress:
            written = generate(args.out, args.games, player=args.player, seed=args.seed, chunk=args.chunk,
                               random_plies=args.random_plies, max_plies=args.max_plies, openings=suite,
                               executor=executor, progress=lambda done, total: progress.update(done, total=total))
    except KeyboardInterrupt:
        print("interrupted: the finished chunks are kept; the same command goes on from them", file=sys.stderr)
        return 130
    print(f"{written} chunks written to {args.out}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    samples = load_samples(args.data)
    stopped = []

    def stop() -> bool:
        return bool(stopped)

    progress = Progress(f"nnue train {args.out}", unit="batches")
    previous = signal.signal(signal.SIGINT, lambda *_: stopped.append(True))
    try:
        with progress:
            settings = FitSettings(hidden=args.hidden, hidden2=args.hidden2, epochs=args.epochs, lam=args.lam,
                                   targets=args.targets, lr=args.lr, batch=args.batch, seed=args.seed,
                                   quiet_only=not args.all_positions, base=not args.no_base, decay=args.decay)
            net, report = fit(samples, settings, log=lambda line: print(line, flush=True), stop=stop,
                              progress=lambda done, total: progress.update(done, total=total))
    finally:
        signal.signal(signal.SIGINT, previous)
    net.metadata["data"] = [str(d) for d in args.data]
    net.save(args.out)
    print(f"wrote {args.out}: validation loss {report.val_loss:.5f} against the linear evaluation's "
          f"{report.linear_val_loss:.5f} ({report.samples} training positions, {report.seconds:.0f} s)")
    return 130 if stopped else 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    check_shared_folder(args, args.out)
    # the settings typed; a fresh run takes the defaults for the others, a resumed run must not be changed
    typed = {k: v for k, v in vars(args).items() if k in LoopSettings.__dataclass_fields__ and v is not None}
    settings = replace(LoopSettings(), **typed)  # its bounds are checked as the run will use them (open_run)
    state = open_run(args.out, settings if typed or not (Path(args.out) / "state.json").exists() else None,
                     only=set(typed), log=lambda line: print(line, file=sys.stderr, flush=True))
    workers = cap_workers(args.workers) if args.workers is not None else None
    executor = executor_from_args(args, workers)
    print(f"nnue selfplay {args.out}: generation {state.generation}, {len(state.attempts)} attempt(s) so far; "
          f"{executor.workers} worker(s)", file=sys.stderr, flush=True)
    try:
        state = run(args.out, args.generations, None, executor, max_attempts=args.max_attempts)
    except KeyboardInterrupt:
        print("interrupted: the finished chunks, the candidate and the gate's games are kept; the same command "
              "goes on from them", file=sys.stderr)
        return 130
    accepted = sum(a.accepted for a in state.attempts)
    print(f"generation {state.generation} after {len(state.attempts)} attempt(s) ({accepted} accepted); "
          f"the newest network: {net_path(Path(args.out), state.generation)}")
    return 0
