"""``sumito analyse``: the engine's best moves in a position, or every move of a game scored."""

from __future__ import annotations

import argparse
import json

from sumito.analysis import (
    AnalysisError,
    MoveReview,
    analyse_game,
    analyse_position,
    analysis_engine,
    exact_values,
    score_unit,
)
from sumito.cliargs.position import position_from_args
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
