"""How many of the last-marble regression positions a search avoids with a node budget.

    python experiments/last_marble_budget.py [--nodes 50000 150000 500000] [--spec engine:threads=1] [--extra ...]

The two regression sets of issue 27 (``tests/data/last_marble.txt``: engine self-play positions where the
search before the threat search walked into a forced push-off of its last marble; and
``tests/data/last_marble_audit.txt``: the last-marble audit's misses) are searched afresh, one position at
a time, with ``nodes=N`` (a node budget stands for a clock that no load changes: the figures are the same
on a busy machine and an idle one, and one thread searches the same nodes every time). For each spec
(``--spec`` plus each ``--extra``, e.g. ``,threats=1``) and budget it prints how many positions the move
played avoids the losing move in, and the mean depth completed. About 1,000,000 nodes a second is what
one core of the development VM searches, so 100,000 nodes stand for about 0.1 s there.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from sumito.cliargs import count_arg
from sumito.engine import Position
from sumito.players import make_player
from sumito.stopping import run_main

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SETS = {"self-play": "last_marble.txt", "audit": "last_marble_audit.txt"}


def regression_rows(name: str) -> list[tuple[str, str]]:
    """(position string, the losing move) for each row of a regression file."""
    rows = []
    for line in (DATA / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            rows.append((fields[0], fields[1]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=count_arg(1, 10**9), nargs="+", default=[50_000, 150_000, 500_000])
    parser.add_argument("--spec", default="engine:threads=1", help="the engine (one thread: deterministic)")
    parser.add_argument("--extra", nargs="*", default=[""], help="options added to --spec, one row set each")
    args = parser.parse_args()
    sets = {label: regression_rows(name) for label, name in SETS.items()}
    print("| spec | nodes | " + " | ".join(f"{label}: avoided (mean depth)" for label in sets) + " |")
    print("|---|---|" + "---|" * len(sets))
    for extra in args.extra:
        spec = args.spec + extra
        for budget in args.nodes:
            cells = []
            t0 = time.perf_counter()
            for rows in sets.values():
                avoided, depth = 0, 0
                for fen, losing in rows:
                    player = make_player(f"{spec},nodes={budget}")
                    avoided += player.choose(Position.from_string(fen)).notation() != losing
                    depth += player.last.depth
                cells.append(f"{avoided} of {len(rows)} ({depth / len(rows):.1f})")
            print(f"| `{spec}` | {budget:,} | " + " | ".join(cells) + f" |  <!-- {time.perf_counter() - t0:.0f} s -->",
                  flush=True)


if __name__ == "__main__":
    run_main(main)
