"""Where an SPRT's games were decided: from the first position in which a side has lost N marbles.

    python experiments/sprt_endgames.py JOURNAL.jsonl [--marbles 1 3 4 5]

For each N it replays every game of the journal (an ``sumito sprt --journal`` file; A is the first player
of the test, ``black_id``/``white_id`` 0) to the first position where a side has lost N marbles, and
counts the games by who got there first and how they ended: how often the side behind at that point
still held (won or drew). Issue 27 used it on the threat search's SPRT: the threat search only acts
once a line reaches a side a marble from losing, so a difference that appears before that is not its
doing.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from sumito.engine import BLACK, Position
from sumito.stopping import run_main


def first_behind(result: dict, marbles: int) -> str | None:
    """"A" or "B": the side that first lost ``marbles`` marbles in the game; None if neither did."""
    task = result["task"]
    pos = Position.from_string(task["start"])
    for move in result["moves"]:
        pos = pos.play(move)
        lost_black, lost_white = pos.lost
        if max(lost_black, lost_white) >= marbles:
            black_behind = lost_black >= marbles
            return "A" if black_behind == (task["black_id"] == 0) else "B"
    return None


def outcome(result: dict) -> str:
    """"A", "B" or "draw"."""
    winner = result["winner"]
    if winner is None:
        return "draw"
    return "A" if (winner == BLACK) == (result["task"]["black_id"] == 0) else "B"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("journal", type=Path)
    parser.add_argument("--marbles", type=int, nargs="+", default=[1, 3, 4, 5])
    args = parser.parse_args()
    try:
        rows = [json.loads(line)["result"] for line in args.journal.read_text().splitlines() if line.strip()]
    except (OSError, ValueError, KeyError) as exc:
        parser.error(f"{args.journal}: {exc}")
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
