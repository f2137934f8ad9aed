"""``sumito analyse``: the engine's best moves in a position, or every move of a game scored."""

from __future__ import annotations

import argparse
import json

from sumito.analysis import (
    DEFAULT_GAME_DEPTH,
    DEFAULT_SECONDS,
    THRESHOLDS,
    AnalysisError,
    MoveReview,
    analyse_game,
    analyse_position,
    analysis_engine,
    exact_values,
    score_unit,
)
from sumito.cliargs import add_position_args, count_arg, position_from_args, seconds_arg
from sumito.games.abalone import read_records
from sumito.progress import Progress


def cmd_analyse(args: argparse.Namespace) -> int:
    engine = analysis_engine(args.engine)
    if args.record is not None:
        if args.layout is not None or args.position is not None or args.moves:
            raise AnalysisError("give a RECORD file or a position (--layout, --position, --moves), not both")
        if args.top != 1:
            raise AnalysisError("--top is for a position; a game's analysis gives the best move of each")
        records = read_records(args.record)
        if not 1 <= args.game <= len(records):
            raise AnalysisError(f"{args.record} holds {len(records)} game(s); there is no game {args.game}")
        record = records[args.game - 1]
        stream = None if args.json else _print_review
        if not args.json:
            black, white = record.tags.get("Black", "?"), record.tags.get("White", "?")
            print(f"{black} (Black) vs {white} (White), {record.result}; scores in {score_unit(engine)} for the "
                  "side that moves", flush=True)
        with Progress("analyse", len(record.game.moves), "moves") as progress:

            def on_move(review: MoveReview) -> None:
                if stream is not None:
                    stream(review)
                progress.update(advance=1)

            done = analyse_game(record.game, seconds=args.time, depth=args.depth, engine=engine, tags=record.tags,
                                on_move=on_move)
        print(json.dumps(done.to_dict(), indent=2) if args.json else done.summary_text())
        return 0
    if args.game != 1:
        raise AnalysisError("--game picks a game of a RECORD file")
    position = position_from_args(args)
    analysis = analyse_position(position, seconds=args.time, depth=args.depth, top=args.top, engine=engine)
    exact = exact_values(position)
    if args.json:
        print(json.dumps(dict(analysis.to_dict(), **({"exact": exact} if exact else {})), indent=2))
    else:
        print(analysis.to_text())
        if exact:
            print(f"exact (the board is solved): the side to move {exact['value']}")
            print("  " + ", ".join(f"{m} {v}" for m, v in exact["moves"].items()))
    return 0


def _print_review(review: MoveReview) -> None:
    print(review.to_text(), flush=True)  # as it is done: a long analysis shows its progress


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add the ``analyse`` subcommand to the ``sumito`` parser's subcommands."""
    p = sub.add_parser(
        "analyse",
        description="Analyse a position (--layout/--position/--moves: the best --top moves with scores and "
        "lines) or a game record (RECORD: each move against the engine's best, with the loss and a verdict: "
        f"{', '.join(f'{name} from {least:g} marble' for name, least in reversed(THRESHOLDS))}, as the loss "
        f"is shown; a move into a forced loss, or one that lets a forced win go, is a {THRESHOLDS[0][0]}).",
    )
    p.add_argument("record", nargs="?", default=None, metavar="RECORD", help="a game record file to analyse")
    p.add_argument("--game", type=count_arg(1, 10**6), default=1, metavar="K", help="which game in RECORD (default 1)")
    add_position_args(p)
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--time", type=seconds_arg(24 * 3600.0), default=None, metavar="S",
                       help="seconds of search for a position, or for each move of a RECORD "
                       f"(default {DEFAULT_SECONDS:g} for a position)")
    limit.add_argument("--depth", type=count_arg(1, 64), default=None, metavar="N",
                       help=f"search depth in plies (default {DEFAULT_GAME_DEPTH} for each move of a game)")
    p.add_argument("--top", type=count_arg(1, 256), default=1, metavar="N", help="show the best N moves (MultiPV)")
    p.add_argument("--engine", default="engine", metavar="SPEC",
                   help="the engine spec (its eval, weights, net, hash, contempt apply; default engine)")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.set_defaults(func=cmd_analyse)
