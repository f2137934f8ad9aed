"""The self-taught line's run across sessions: attempts of `sumito nnue selfplay`, each accepted network committed.

Run:  python experiments/selftaught.py --out runs/selftaught --generations 50 [--commit] [--workers 2]
      python experiments/selftaught.py --out runs/selftaught-s2 --seed 2 --schedule-of runs/selftaught \
          --max-attempts 17 [--commit]    # the same recipe from generation 0 under another seed

The same loop as ``sumito nnue selfplay`` (:mod:`sumito.learn.selftaught`), one attempt at a time, with the
settings of the run recorded in docs/strength.md (the defaults of :class:`LoopSettings`). With ``--commit``,
after each attempt the run's small files (state.json, the accepted networks net-NNN.npz, each attempt's
train.json) are committed with ``git add -f`` (runs/ is ignored), so that the run goes on
from a fresh clone: the data chunks are not committed, and a candidate on a fresh machine trains on the
attempts whose data are there. Stops cleanly on Ctrl-C (the attempt's finished parts are kept).
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
from pathlib import Path

from sumito.arena.executor import executor_from_args
from sumito.cliargs import add_backend_args
from sumito.learn.selftaught import CHANGEABLE, LoopSettings, open_run, run_attempt

ROOT = Path(__file__).resolve().parent.parent


def commit(folder: Path, message: str) -> None:
    # not the gates' journals (a game a line, with its moves: megabytes) nor the data chunks
    files = [folder / "state.json", *folder.glob("net-*.npz"), *folder.glob("attempt-*/train.json")]
    subprocess.run(["git", "-C", str(ROOT), "add", "-f", *map(str, files)], check=True)
    subprocess.run(["git", "-C", str(ROOT), "commit", "-q", "-m", message], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/selftaught"))
    parser.add_argument("--generations", type=int, default=50)
    parser.add_argument("--max-attempts", type=int, default=1000)
    parser.add_argument("--commit", action="store_true", help="commit the run's small files after each attempt")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=None, help="a new run's seed (default: LoopSettings' 1)")
    parser.add_argument("--schedule-of", type=Path, default=None, metavar="RUN",
                        help="follow RUN's recorded settings and their changes, attempt for attempt")
    add_backend_args(parser)
    args = parser.parse_args()
    first, changes = LoopSettings(), []
    if args.schedule_of is not None:
        recorded = open_run(args.schedule_of, None)  # read as a resume reads it; nothing is written
        changes = sorted(recorded.changes, key=lambda c: c["from_attempt"])
        final = dataclasses.asdict(recorded.settings)
        for change in changes:  # back from the final settings to those of attempt 1
            for key in change:
                if key != "from_attempt":
                    final.pop(key, None)
        first = dataclasses.replace(first, **{k: v for k, v in final.items() if k != "seed"})
        for change in changes:  # a recorded run could change only these
            for key in change.keys() - {"from_attempt"}:
                if key not in CHANGEABLE:
                    sys.exit(f"{args.schedule_of}: a recorded change of {key!r}, which a run cannot change")
    if args.seed is not None:
        first = dataclasses.replace(first, seed=args.seed)
    resumed = (args.out / "state.json").exists()
    state = open_run(args.out, None if resumed and args.seed is None else first,
                     only=None if not resumed else {"seed"})
    executor = executor_from_args(args, args.workers)
    try:
        while state.generation < args.generations and len(state.attempts) < args.max_attempts:
            due = {k: v for c in changes if c["from_attempt"] <= len(state.attempts) + 1
                   for k, v in c.items() if k != "from_attempt"}
            if any(getattr(state.settings, k) != v for k, v in due.items()):
                state = open_run(args.out, dataclasses.replace(state.settings, **due),
                                 log=lambda line: print(line, file=sys.stderr, flush=True))
            attempt = run_attempt(args.out, state, executor,
                                  log=lambda line: print(line, file=sys.stderr, flush=True))
            if args.commit:
                verdict = "accepted" if attempt.accepted else "rejected"
                commit(args.out, f"{args.out.name}: self-taught attempt {attempt.number} {verdict}; generation "
                                 f"{state.generation}")
    except KeyboardInterrupt:
        print("interrupted: the attempt's finished parts are kept; the same command goes on", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
