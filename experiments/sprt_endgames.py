"""Where an SPRT's games were decided: from the first position in which a side has lost N marbles.

    python experiments/sprt_endgames.py JOURNAL.jsonl [--marbles 1 3 4 5]

For each N it replays every game of the journal (an ``sumito sprt --journal`` file; A is the first player
of the test, ``black_id``/``white_id`` 0) to the first position where a side has lost N marbles, and
counts the games by who got there first and how they ended: how often the side behind at that point
still held (won or drew). It suits the threat search's SPRT: the threat search only acts
once a line reaches a side a marble from losing, so a difference that appears before that is not its
doing.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from sumito.arena.errors import ArenaError
from sumito.arena.journal import GameJournal
from sumito.arena.match import GameResult
from sumito.cliargs import count_arg
from sumito.games.abalone import Position
from sumito.stopping import run_main


def first_behind(result: GameResult, marbles: int) -> str | None:
    """"A" or "B": the side that first lost ``marbles`` marbles in the game; None if neither did."""
    pos = Position.from_string(result.task.start)
    for move in result.moves:
        pos = pos.play(move)
        lost_black, lost_white = pos.lost
        if max(lost_black, lost_white) >= marbles:
            return "A" if (lost_black >= marbles) == (result.task.black_id == 0) else "B"
    return None


def outcome(result: GameResult) -> str:
    """"A", "B" or "draw" (A is player 0 of the test)."""
    return {1.0: "A", 0.5: "draw", 0.0: "B"}[result.score_of(0)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("journal", type=Path)
    parser.add_argument("--marbles", type=count_arg(1, 6), nargs="+", default=[1, 3, 4, 5])
    args = parser.parse_args()
    if not args.journal.is_file():
        parser.error(f"{args.journal}: no such journal file")
    try:
        rows = list(GameJournal(args.journal).done.values())
    except ArenaError as exc:
        parser.error(str(exc))
    print(f"{args.journal}: {len(rows)} games")
    for n in args.marbles:
        counts = Counter((first_behind(r, n), outcome(r)) for r in rows)
        print(f"first to lose {n}:")
        for side, other in (("A", "B"), ("B", "A")):
            total = sum(v for (who, _), v in counts.items() if who == side)
            held = counts[(side, side)] + counts[(side, "draw")]
            if total:
                print(f"  {side} first in {total} games: {other} won {counts[(side, other)]}, {side} won "
                      f"{counts[(side, side)]}, drawn {counts[(side, 'draw')]}; {side} held {held} "
                      f"({100 * held / total:.1f}%)")
        print(f"  neither: {sum(v for (who, _), v in counts.items() if who is None)} games")


if __name__ == "__main__":
    run_main(main)
