"""Where a zero network still goes wrong on the mini board: its mistakes on the yardstick's suite, by kind.

Run:  python experiments/zero_errors.py [--net src/sumito/data/zero-mini.npz] [--sims 256 1024 4096]
                                        [--json runs/zero/errors-shipped.json] [--page docs/zero.md]
      python experiments/zero_errors.py --from-json runs/zero/errors-shipped.json --page docs/zero.md

For every position of ``sumito solve score``'s suite (1,000 positions, seed 41) it plays the network's search
and compares with the solved table: each blunder (a move that gives up the exact value) with the position's
value, its distance and how many of its legal moves keep the value; each value-keeping move that is not
perfect (a slower win); and the network's own value of the positions, by their exact result. The JSON holds
every row; the page's table is written from it (tests/test_zero.py checks that the page is this script's).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "experiments"))

from zero_mini import write_page  # noqa: E402

MARK = "zero-errors"


def measure(net: str, sims: int) -> dict:
    from sumito.arena.yardstick import build_suite
    from sumito.defaults import YARDSTICK_SEED
    from sumito.games.abalone import Position
    from sumito.players import make_player
    from sumito.players.perfect import solved_table

    table = solved_table(Position.start("mini").variant)
    suite = build_suite(table, 1000, YARDSTICK_SEED)
    player = make_player(f"zero:net={net if Path(net).is_absolute() else ROOT / net},sims={sims}")
    blunders, slower, values = [], [], {"win": [], "draw": [], "loss": []}
    names = {1: "win", 0: "draw", -1: "loss"}
    for source, pos in suite:
        before = table.value(pos)
        moves = dict(table.move_values(pos))
        after = moves[player.choose(pos)]
        best = max(v.score for v in moves.values())
        values[names[before.result]].append(round(player.agent.value(pos), 4))
        if after.result != before.result:
            keeping = sum(v.result == before.result for v in moves.values())
            blunders.append(dict(source=source, value=names[before.result], to=names[after.result],
                                 plies=before.plies, keeping=keeping, moves=len(moves)))
        elif after.score != best:
            slower.append(dict(source=source, value=names[before.result], plies=before.plies,
                               played=after.plies + 1))
    return dict(net=net, sims=sims, positions=len(suite), blunders=blunders, slower=slower, values=values)


def _share(k: int, n: int) -> str:
    return f"{k} ({100 * k / n:.1f}%)"


def table(results: list[dict]) -> str:
    lines = ["| search | blunders | of them: one keeping move | win → draw: median distance (range) | "
             "draw → loss: median keeping moves of all | slower wins: plies lost, median (max) | "
             "network value of wins / draws, mean ± sd |", "|---|---|---|---|---|---|---|"]
    for r in results:
        n, b = r["positions"], r["blunders"]
        one = sum(x["keeping"] == 1 for x in b)
        wd = [x["plies"] for x in b if x["value"] == "win"]
        dl = [x for x in b if x["value"] == "draw"]
        lost = [x["played"] - x["plies"] for x in r["slower"]]
        v = r["values"]
        win_d = f"{np.median(wd):.0f} ({min(wd)}–{max(wd)})" if wd else "–"
        draw_k = (f"{np.median([x['keeping'] for x in dl]):.0f} of {np.median([x['moves'] for x in dl]):.0f}"
                  if dl else "–")
        lost_s = f"{_share(len(lost), n)}: {np.median(lost):.0f} ({max(lost)})" if lost else "0"
        vals = " / ".join(f"{np.mean(v[k]):+.2f} ± {np.std(v[k]):.2f}" for k in ("win", "draw") if v[k])
        lines.append(f"| sims={r['sims']} | {_share(len(b), n)} | {one} | {win_d} | {draw_k} | {lost_s} | {vals} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--net", default="src/sumito/data/zero-mini.npz", help="a network (relative: to the repo)")
    parser.add_argument("--sims", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--json", type=Path, default=None, help="write every row here")
    parser.add_argument("--from-json", type=Path, default=None, help="the table from rows written before")
    parser.add_argument("--page", type=Path, default=None, help=f"write the table between <!-- {MARK} --> marks")
    args = parser.parse_args()
    if args.from_json:
        results = json.loads(args.from_json.read_text())
    else:
        results = [measure(args.net, sims) for sims in args.sims]
        if args.json:
            args.json.write_text(json.dumps(results, indent=1) + "\n")
    text = table(results)
    print(text, end="")
    if args.page:
        write_page(args.page, text, MARK)


if __name__ == "__main__":
    main()
