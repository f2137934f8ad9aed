"""Try both and keep what wins: the self-taught line's next candidate fitted to the search
scores and results (``mix``, what the run used) or to TD-Leaf(λ)'s λ-returns (``tdleaf``), from the
same data and the same network.

    python experiments/selftaught_targets.py [--run runs/selftaught] [--generation 9] [--selfplay-games 800]
        [--games 400] [--depth 3] [--mix-lambda 0.5] [--tdleaf-lambda 0.7] [--workers 2] [--out runs/selftaught-targets]

1. ``--selfplay-games`` self-play games of generation G (``engine:depth=D,nnue=RUN/net-G.npz``), as an
   attempt of the loop plays them (random openings and quiet plies, ``sumito.learn.nnue.generate``), into
   ``OUT/data`` (seed 3001; four attempts' worth by default: the loop's window);
2. two candidates warm-started from generation G with the run's settings (layers, epochs, learning rate,
   seed), one for each kind of target: ``OUT/mix.npz`` (λ the search score's weight) and ``OUT/tdleaf.npz``
   (λ of TD(λ));
3. three fixed-length tests at depth D (``sumito sprt --fixed``'s pairs of games from the opening suite,
   journals ``OUT/*.jsonl``): each candidate against generation G, and tdleaf against mix.

Every step resumes (chunks, candidates written atomically, the journals); the table (``OUT/results.md``)
gives each test's W-D-L and Elo with its 95% interval. Verdict rule (docs/strength.md, written before
the run): a kind of target *wins* when its test against the other has an Elo interval above 0; otherwise
the run keeps ``mix``, the loop's default.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from sumito.arena.executor import executor_from_args
from sumito.arena.journal import GameJournal
from sumito.arena.sprt import SprtBounds, play_sprt
from sumito.cliargs import add_backend_args, count_arg, number_arg
from sumito.evaluation.nnue import load_network
from sumito.fileio import atomic_write_text
from sumito.learn.nnue import generate, load_samples
from sumito.learn.selftaught import RunState, net_path
from sumito.models.nnue_fit import FitSettings, fit
from sumito.stopping import run_main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", default="runs/selftaught", type=Path)
    parser.add_argument("--generation", type=count_arg(0, 10**4), default=None, help="default: the run's newest")
    parser.add_argument("--selfplay-games", type=count_arg(2, 10**6), default=800)
    parser.add_argument("--games", type=count_arg(2, 10**6), default=400, help="games of each test")
    parser.add_argument("--depth", type=count_arg(1, 12), default=None, help="default: the run's")
    parser.add_argument("--mix-lambda", type=number_arg(0, 1, "--mix-lambda"), default=None,
                        help="default: the run's lam")
    parser.add_argument("--tdleaf-lambda", type=number_arg(0, 1, "--tdleaf-lambda"), default=0.7,
                        help="TD(lambda)'s lambda (default 0.7, KnightCap's)")
    parser.add_argument("--out", default="runs/selftaught-targets", type=Path)
    parser.add_argument("--workers", type=count_arg(1, 512), default=2)
    add_backend_args(parser)
    args = parser.parse_args()

    try:
        state = RunState.from_json((args.run / "state.json").read_text(), str(args.run / "state.json"))
    except OSError as exc:
        sys.exit(f"selftaught_targets: {args.run}: no self-taught run there ({exc.strerror})")
    s = state.settings
    generation = state.generation if args.generation is None else args.generation
    depth = args.depth or s.depth
    base = net_path(args.run, generation)
    current = f"engine:depth={depth},nnue={base},threads=1"
    executor = executor_from_args(args, args.workers)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    args.out.mkdir(parents=True, exist_ok=True)

    generate(args.out / "data", args.selfplay_games, player=current, seed=3001, chunk=s.chunk,
             random_plies=s.random_plies, max_plies=s.max_plies, executor=executor,
             progress=lambda done, total: log(f"self-play chunk {done}/{total}"))
    lambdas = {"mix": s.lam if args.mix_lambda is None else args.mix_lambda, "tdleaf": args.tdleaf_lambda}
    samples = None
    for kind, lam in lambdas.items():
        path = args.out / f"{kind}.npz"
        if path.exists():
            continue
        if samples is None:
            samples = load_samples([args.out / "data"])
        settings = FitSettings(hidden=s.hidden, hidden2=s.hidden2, epochs=s.epochs, lam=lam, lr=s.lr,
                               seed=s.seed + 1000, base=False, targets=kind)
        net, _ = fit(samples, settings, init=load_network(base), log=lambda line, kind=kind: log(f"{kind}: {line}"))
        net.metadata.update(generation_from=generation)
        net.save(path)

    def spec(kind: str) -> str:
        return f"engine:depth={depth},nnue={args.out / (kind + '.npz')},threads=1"

    tests = [("mix", spec("mix"), f"generation {generation}", current),
             ("tdleaf", spec("tdleaf"), f"generation {generation}", current),
             ("tdleaf", spec("tdleaf"), "mix", spec("mix"))]
    rows = []
    for number, (a_name, a, b_name, b) in enumerate(tests):
        journal = GameJournal(args.out / f"{a_name}-vs-{b_name.replace(' ', '')}.jsonl")
        result = play_sprt(a, b, SprtBounds(0.0, 30.0), max_games=args.games, executor=executor,
                           seed=3100 + number, journal=journal, fixed=True, label=f"{a_name} vs {b_name}")
        rows.append((a_name, b_name, result.summary()))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = [f"Targets for the self-taught line, from generation {generation} of {args.run} (commit {commit}): "
             f"{args.selfplay_games} self-play games at depth {depth}, candidates trained with epochs {s.epochs}, "
             f"lr {s.lr:g}, lambdas {json.dumps(lambdas)}; each test {args.games} games at depth {depth}.", "",
             "| A | B | result (A's) |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {summary} |" for a, b, summary in rows]
    atomic_write_text(args.out / "results.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    run_main(main)
