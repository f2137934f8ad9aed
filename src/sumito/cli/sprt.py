"""``sumito sprt``: a sequential probability ratio test between two players."""

from __future__ import annotations

import sys
from typing import Any

from sumito.arena.executor import add_backend_args, executor_from_args
from sumito.arena.journal import GameJournal
from sumito.arena.match import DEFAULT_RULES, MAX_SEED
from sumito.arena.openings import load_openings
from sumito.arena.sprt import (
    MAX_ELO,
    SprtBounds,
    play_sprt,
)
from sumito.bounds import MAX_GAMES
from sumito.cliargs import (
    MAX_MOVETIME,
    MAX_WORKERS_ARG,
    add_rules_args,
    count_arg,
    number_arg,
    rules_from_args,
    seconds_arg,
    time_control,
)
from sumito.fileio import shown_path
from sumito.procs import cap_workers


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "sprt",
        description="Play pairs of games between A and B (each pair from one opening of the suite, colours swapped) "
        "until the log-likelihood ratio of H1 (A is elo1 Elo stronger) against H0 (elo0) crosses a bound, as "
        "fishtest does (pentanomial statistics); print A's Elo with its 95%% interval and the LLR.",
    )
    p.add_argument("a", metavar="A", help="player spec, e.g. engine:time=0.1")
    p.add_argument("b", metavar="B", help="player spec")
    p.add_argument("--elo0", type=number_arg(-MAX_ELO, MAX_ELO, "--elo0"), default=0.0,
                   help=f"H0: A is elo0 stronger (default 0; within ±{MAX_ELO:g})")
    p.add_argument("--elo1", type=number_arg(-MAX_ELO, MAX_ELO, "--elo1"), default=10.0,
                   help=f"H1: A is elo1 stronger (default 10; within ±{MAX_ELO:g})")
    p.add_argument("--alpha", type=number_arg(0, 0.5, "--alpha", above_low=True), default=0.05,
                   help="false H1 rate (default 0.05; between 0 and 0.5)")
    p.add_argument("--beta", type=number_arg(0, 0.5, "--beta", above_low=True), default=0.05,
                   help="false H0 rate (default 0.05; between 0 and 0.5)")
    p.add_argument("--max-games", type=count_arg(2, MAX_GAMES), default=20_000, metavar="N",
                   help=f"stop undecided after N games (default 20000; 2 to {MAX_GAMES}); the games are made as "
                   "they are played, so a large N costs nothing until they are")
    p.add_argument("--openings", default=None, metavar="FILE",
                   help="the opening suite, one position string a line (default: the shipped suite of 200 balanced "
                   "positions from Standard and Belgian Daisy)")
    p.add_argument("--movetime", type=seconds_arg(MAX_MOVETIME), default=None, metavar="S",
                   help=f"seconds per move given to the players (above 0, at most {MAX_MOVETIME:g})")
    p.add_argument("--tc", type=time_control, default=None, metavar="BASE+INC", help="a clock for each side")
    add_rules_args(p, DEFAULT_RULES)
    p.add_argument("--seed", type=count_arg(0, MAX_SEED), default=0,
                   help="seed of the players' random choices (default 0)")
    p.add_argument("--journal", default=None, metavar="FILE",
                   help="keep every finished game in FILE (JSON lines): the same command again, or with a larger "
                   "--max-games, other bounds or --fixed, takes the games from there and plays only the rest; a "
                   "journal of other players, --seed, --openings, draw rules, --movetime or --tc is refused")
    p.add_argument("--fixed", action="store_true",
                   help="a fixed-length test: play all --max-games games whatever the LLR (to measure the Elo "
                   "difference to a given precision); the LLR and the bound it stands beyond are reported at the end")
    p.add_argument("--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
                   help="games at once (default: all cores)")
    add_backend_args(p)
    p.set_defaults(func=cmd_sprt)


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
