"""``sumito sprt``: a sequential probability ratio test between two players."""

from __future__ import annotations

import sys
from typing import Any

from sumito.arena.executor import executor_from_args
from sumito.arena.journal import GameJournal
from sumito.arena.openings import load_openings
from sumito.arena.sprt import SprtBounds, play_sprt
from sumito.cliargs import (
    rules_from_args,
)
from sumito.fileio import shown_path
from sumito.procs import cap_workers


def cmd_sprt(args: Any) -> int:
    bounds = SprtBounds(args.elo0, args.elo1, args.alpha, args.beta)
    openings = load_openings(args.openings)
    workers = args.workers
    if workers is not None and workers >= 1 and args.backend == "process":
        workers = cap_workers(workers)
    journal = None
    if args.journal:  # opened before anything runs: a bad path is an error now
        journal = GameJournal(args.journal)
    executor = executor_from_args(args, workers)
    max_games = 2 * (args.max_games // 2)
    print(f"sprt: {args.a} (A) against {args.b} (B); H0 {bounds.elo0:+g} Elo, H1 {bounds.elo1:+g} Elo, alpha "
          f"{bounds.alpha:g}, beta {bounds.beta:g}; {len(openings)} openings; at most {max_games} games on "
          f"{executor.workers} worker(s)", file=sys.stderr)
    if journal is not None:
        skipped = f", {journal.skipped} damaged lines skipped (their games are played again)" if journal.skipped else ""
        print(f"journal {shown_path(args.journal)}: {len(journal)} games kept{skipped}", file=sys.stderr)
    try:
        state = play_sprt(args.a, args.b, bounds, max_games=args.max_games, executor=executor, openings=openings,
                          rules=rules_from_args(args), movetime=args.movetime, clock=args.tc, seed=args.seed,
                          journal=journal, fixed=args.fixed, journal_of_this_test=True)
    except KeyboardInterrupt:
        return 130
    decision = state.decision
    # what the test decided, and no more: the games favour one hypothesis over the other, not a bound on
    # A's strength (with H1 at +5 and H0 at -15, A may be accepted at +2; the Elo line below says where)
    verdict = {"H1": f"H1 accepted: A at {bounds.elo1:+g} Elo against B rather than {bounds.elo0:+g}",
               "H0": f"H0 accepted: A at {bounds.elo0:+g} Elo against B rather than {bounds.elo1:+g}",
               None: "undecided after the maximum number of games"}[decision]
    if args.fixed:
        verdict = f"fixed-length test of {2 * state.pairs} games; at its end: " + (
            verdict if decision is not None else "the LLR is between the bounds")
    print(verdict)
    print(state.summary())
    return 0
