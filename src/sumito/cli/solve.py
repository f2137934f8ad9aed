"""``sumito solve``: solve a small board exactly, or score players against perfect play."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from sumito.arena.yardstick import YardstickError, build_suite, print_summary, score_player, summarise, verify_table
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.variants import Variant
from sumito.players import make_player, parse_spec
from sumito.players.perfect import solved_table
from sumito.progress import Progress
from sumito.solve.index import space
from sumito.solve.solver import LevelReport
from sumito.solve.table import SolvedTable, describe


def cmd_solve(args: argparse.Namespace) -> int:
    variant = _variant(args)
    if args.solve_command == "score":
        return cmd_score(args, variant)
    sp = space(variant)
    # with --json, stdout holds the JSON alone
    print(f"{describe(variant)}: {sp.size:,} positions (a side with no legal move: {args.no_moves})",
          file=sys.stderr if args.json else sys.stdout)

    def resumed(plies: int) -> None:
        print(f"going on from the checkpoint of a stopped solve, at {plies} plies", file=sys.stderr, flush=True)

    table = SolvedTable.for_variant(variant, args.no_moves, on_level=_print_level,
                                    on_solve=lambda v: print("solving (level by level):", file=sys.stderr),
                                    on_resume=resumed, on_wait=_tell_waiting, on_set_aside=_tell_set_aside,
                                    checkpoint_every=args.checkpoint_every,
                                    force=args.force)
    if args.out is not None:
        table.save(args.out)
    summary = summarise(table)
    if args.verify:
        summary["verified_mismatches"] = verify_table(table)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print_summary(summary)
    if args.verify and summary["verified_mismatches"]:
        raise YardstickError(f"{summary['verified_mismatches']:,} positions differ from their successors' values")
    return 0


def cmd_score(args: argparse.Namespace, variant: Variant) -> int:
    if not args.players:
        raise YardstickError("name at least one player to score, e.g. sumito solve score random greedy")
    for spec in args.players:
        if parse_spec(spec)[0].name == "human":  # a person at the terminal cannot be scored on a suite
            raise YardstickError("sumito solve score scores computer players; 'human' is not one")
        make_player(spec)  # a bad option is refused now, before the suite is built
    # what it does before the first position is scored, said as it starts (a line within seconds, not a silence)
    print(f"the solved table of {describe(variant)}", file=sys.stderr, flush=True)
    table = solved_table(variant, args.no_moves)
    print(f"the suite: {args.positions:,} positions where the choice matters (seed {args.seed})", file=sys.stderr,
          flush=True)
    suite = build_suite(table, args.positions, args.seed)
    rows = []
    for spec in args.players:
        with Progress(f"score {spec}", len(suite), unit="positions") as progress:
            rows.append(score_player(spec, suite, table, args.seed, progress))
    if args.json:
        print(json.dumps([dict(asdict(r), kept_share=r.share(r.kept), optimal_share=r.share(r.optimal),
                               blunder_share=r.share(r.blunders)) for r in rows], indent=1))
        return 0
    print(f"{describe(variant)}; suite of {len(suite)} positions where the choice matters (seed {args.seed}); "
          "95% intervals")
    print(f"{'player':40} {'keeps the value':>24} {'optimal':>24}  win→draw win→loss draw→loss")
    for r in rows:
        print(f"{r.player[:40]:40} {_percent(r.share(r.kept)):>24} {_percent(r.share(r.optimal)):>24}  "
              f"{r.win_to_draw:8d} {r.win_to_loss:8d} {r.draw_to_loss:9d}")
    return 0


def _percent(triple: tuple[float, float, float]) -> str:
    s, lo, hi = triple
    return f"{100 * s:5.1f}% ({100 * lo:.1f}–{100 * hi:.1f})"


def _variant(args: argparse.Namespace) -> Variant:
    try:
        variant = Variant(side=args.side, marbles=args.marbles, win_threshold=args.win, inline_only=args.inline_only)
    except ValueError as exc:
        raise YardstickError(str(exc)) from None
    cells = geometry(variant.side).n_cells
    if 2 * variant.marbles > cells:
        raise YardstickError(f"{variant.marbles} marbles a side do not fit on a board of {cells} cells "
                             f"(at most {cells // 2})")
    return variant


def _print_level(r: LevelReport) -> None:
    """A solve's progress on stderr: a line a level."""
    print(f"  {r.plies:3d} plies: {r.decided:>11,} positions decided ({r.seconds:6.1f} s)", file=sys.stderr, flush=True)


def _tell_set_aside(line: str) -> None:
    """A damaged checkpoint or table renamed aside, in the solve's own words (the solve goes on afresh)."""
    print(line, file=sys.stderr, flush=True)


def _tell_waiting(variant: Variant) -> None:
    print(f"another process is solving {describe(variant)} into the same folder: waiting for it to finish",
          file=sys.stderr, flush=True)
