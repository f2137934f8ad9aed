"""``sumito nnue gen`` and ``sumito nnue train``: the engine's NNUE from self-play data (issue 17).

    sumito nnue gen --out runs/nnue/data-d4 --games 2000 --workers 2
    sumito nnue train runs/nnue/data-d4 --out runs/nnue/nnue.npz      # H 32, H2 16, 20 epochs, lambda 0.5
    sumito match engine:time=0.1,nnue=runs/nnue/nnue.npz engine:time=0.1 --games 100

``gen`` resumes: its chunks are kept as they finish, and the same command plays only the rest
(Ctrl-C keeps every finished chunk). ``train`` writes the network atomically and stops cleanly on
Ctrl-C (the network of the epochs done is written).
"""

from __future__ import annotations

import argparse
import sys

from sumito.arena.executor import add_backend_args, check_shared_folder, executor_from_args
from sumito.arena.openings import load_openings
from sumito.cliargs import MAX_WORKERS_ARG, count_arg, number_arg
from sumito.evaluation.nnue import MAX_HIDDEN
from sumito.learn.nnue import DATA_PLAYER, generate, load_samples, train
from sumito.players import make_player
from sumito.procs import MAX_WORKERS, cap_workers


def add_nnue_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("nnue", help="make self-play data for the engine's NNUE and train one")
    nsub = p.add_subparsers(dest="nnue_command", required=True, metavar="STEP")

    g = nsub.add_parser("gen", help="play self-play games and keep each position with its search score and result")
    g.add_argument("--out", required=True, metavar="DIR", help="the data folder (chunk-NNNNN.npz files; resumable)")
    g.add_argument("--games", type=count_arg(1, 10**7), required=True, metavar="N", help="games in all")
    g.add_argument("--player", default=DATA_PLAYER, metavar="SPEC",
                   help=f"the searching player whose scores are the targets (default {DATA_PLAYER}: "
                   "the search the shipped data came from)")
    g.add_argument("--seed", type=count_arg(0, 2**31), default=1)
    g.add_argument("--chunk", type=count_arg(1, 10**4), default=10, metavar="K", help="games a work item and file")
    g.add_argument("--random-plies", type=count_arg(0, 40), default=6, metavar="R",
                   help="up to R uniformly random quiet plies after each opening (default 6)")
    g.add_argument("--max-plies", type=count_arg(1, 10**4), default=300, metavar="N",
                   help="a game still going after N plies ends as a draw (default 300)")
    g.add_argument("--openings", default=None, metavar="FILE", help="an opening suite (default: the shipped one)")
    g.add_argument("--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
                   help=f"processes (at most {MAX_WORKERS}; with --backend ray, work items at once)")
    add_backend_args(g)
    g.set_defaults(func=cmd_gen)

    t = nsub.add_parser("train", help="fit an NNUE to data folders from `sumito nnue gen`")
    t.add_argument("data", nargs="+", metavar="DIR", help="data folders")
    t.add_argument("--out", required=True, metavar="FILE", help="the network file to write (.npz)")
    t.add_argument("--hidden", type=count_arg(1, MAX_HIDDEN), default=32, metavar="H", help="accumulator size a side")
    t.add_argument("--hidden2", type=count_arg(0, MAX_HIDDEN), default=16, metavar="H2",
                   help="the second layer's size (0: none)")
    t.add_argument("--epochs", type=count_arg(1, 10**4), default=20)
    t.add_argument("--lam", type=number_arg(0, 1, "--lam"), default=0.5, metavar="L",
                   help="the weight of the search score against the game's result in the target (default 0.5)")
    t.add_argument("--lr", type=number_arg(0, 1, "--lr", above_low=True), default=1e-3)
    t.add_argument("--batch", type=count_arg(1, 10**6), default=1024)
    t.add_argument("--seed", type=count_arg(0, 2**31), default=1)
    t.add_argument("--all-positions", action="store_true",
                   help="train on positions with a push-off pending too (default: quiet ones only)")
    t.add_argument("--no-base", action="store_true",
                   help="a network alone, not a correction of the hand-set linear evaluation (the default)")
    t.add_argument("--decay", type=number_arg(0, 1, "--decay"), default=1e-3, metavar="D",
                   help="weight decay of the output weights and the PSQT (default 1e-3)")
    t.set_defaults(func=cmd_train)


def cmd_gen(args: argparse.Namespace) -> int:
    check_shared_folder(args, args.out)
    make_player(args.player)  # a bad spec fails now, in one line
    suite = load_openings(args.openings)
    workers = cap_workers(args.workers) if args.workers is not None else None
    executor = executor_from_args(args, workers)

    def progress(done: int, total: int) -> None:
        print(f"chunks {done}/{total}", file=sys.stderr, flush=True)

    try:
        written = generate(args.out, args.games, player=args.player, seed=args.seed, chunk=args.chunk,
                           random_plies=args.random_plies, max_plies=args.max_plies, openings=suite,
                           executor=executor, progress=progress)
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

    import signal

    previous = signal.signal(signal.SIGINT, lambda *_: stopped.append(True))
    try:
        net, report = train(samples, hidden=args.hidden, hidden2=args.hidden2, epochs=args.epochs, lam=args.lam,
                            lr=args.lr, batch=args.batch, seed=args.seed, quiet_only=not args.all_positions,
                            base=not args.no_base, decay=args.decay,
                            log=lambda line: print(line, flush=True), stop=stop)
    finally:
        signal.signal(signal.SIGINT, previous)
    net.metadata["data"] = [str(d) for d in args.data]
    net.save(args.out)
    print(f"wrote {args.out}: validation loss {report.val_loss:.5f} against the linear evaluation's "
          f"{report.linear_val_loss:.5f} ({report.samples} training positions, {report.seconds:.0f} s)")
    return 130 if stopped else 0
