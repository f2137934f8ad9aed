"""Solve the mini board's family exactly and write what each board is (docs/solved.md).

Run:  python experiments/solve_family.py [--out runs/solved] [--max-positions 400000000] [--report-only]

The family: the 19-cell board with 2 to 8 marbles a side and 1 to 3 marbles to push off to win (all moves),
and the mini board (5 marbles, 2 to win) with inline moves only. Each variant is solved, verified (every
position recomputed from its successors with the engine's forward moves) and summarised into
``OUT/<variant>.json``: totals by marble counts (and the seconds it took, which depend on the machine's load;
``bench/bench_solve.py`` times a solve), the longest forced win, and for 5 marbles the start's value,
its moves' values and a perfect line. A variant already summarised is skipped (the run resumes), and the
tables themselves are not kept (except the mini board's, in the cache folder, which the ``perfect`` player
uses). First, for the mini board in both variants, what the rule for a side with no legal move changes (solved
again under ``--no-moves loss``, into ``OUT/no-moves-<variant>.json``). ``--report-only`` prints the markdown
tables of docs/solved.md from the summaries.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from sumito.arena.yardstick import summarise, verify_table
from sumito.fileio import atomic_write_text
from sumito.games.abalone import Position
from sumito.games.abalone.variants import MINI, Variant
from sumito.solve.index import space
from sumito.solve.table import SolvedTable, describe, variant_name


def family(max_positions: int) -> list[Variant]:
    out = [MINI, MINI.with_options(inline_only=True)]
    for marbles in range(2, 9):
        for win in range(1, min(3, marbles) + 1):
            v = Variant(side=3, marbles=marbles, win_threshold=win)
            if v != MINI and space(v).size <= max_positions:
                out.append(v)
    return out[:2] + sorted(out[2:], key=lambda v: space(v).size)


def solve_one(v: Variant, out: Path) -> dict:
    path = out / f"{variant_name(v)}.json"
    if path.exists():
        return json.loads(path.read_text())
    print(f"{describe(v)}: {space(v).size:,} positions", file=sys.stderr, flush=True)
    table = SolvedTable.for_variant(v) if v == MINI else SolvedTable.solve(v)
    if v == MINI and table.seconds == 0.0:  # loaded from the cache: time a fresh solve for the record
        table = SolvedTable.solve(v)
    start = time.perf_counter()
    summary = summarise(table)
    summary["verified_mismatches"] = verify_table(table)
    summary["verify_seconds"] = round(time.perf_counter() - start, 1)
    summary["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    summary["variant_key"] = dict(side=v.side, marbles=v.marbles, win=v.win_threshold, inline_only=v.inline_only)
    atomic_write_text(path, json.dumps(summary, indent=1) + "\n")
    return summary


def no_moves_effect(v: Variant, out: Path) -> dict:
    """What the rule for a side with no legal move changes: the variant solved under ``--no-moves loss``
    against the cached table under the arena's default (``draw``), into ``OUT/no-moves-<variant>.json``."""
    path = out / f"no-moves-{variant_name(v)}.json"
    if path.exists():
        return json.loads(path.read_text())
    draw = SolvedTable.for_variant(v, "draw")
    loss = SolvedTable.solve(v, "loss")
    dv, lv = draw.values.astype(np.int16), loss.values.astype(np.int16)
    start = Position.start("mini", inline_only=v.inline_only)
    found = dict(variant=describe(v), stuck=int((lv == -1).sum()), changed=int((dv != lv).sum()),
                 drawn_now_decided=int(((dv == 0) & (lv != 0)).sum()), start_draw_rule=draw.value(start).text(),
                 start_loss_rule=loss.value(start).text(), digest_loss_rule=loss.digest())
    atomic_write_text(path, json.dumps(found, indent=1) + "\n")
    return found


def report(out: Path) -> None:
    rows = [json.loads(p.read_text()) for p in sorted(out.glob("side*.json"))]
    rows.sort(key=lambda s: (s["variant_key"]["inline_only"], s["variant_key"]["marbles"], s["variant_key"]["win"]))
    print("| marbles | to win | moves | positions | side to move wins | draws | loses | longest forced win "
          "| verified |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in rows:
        k = s["variant_key"]
        n = s["positions"]
        print(f"| {k['marbles']} | {k['win']} | {'inline' if k['inline_only'] else 'all'} | {n:,} | "
              f"{100 * s['wins'] / n:.1f}% | {100 * s['draws'] / n:.1f}% | {100 * s['losses'] / n:.1f}% | "
              f"{s['longest_win']['plies']} plies | {s['verified_mismatches']} mismatches |")
    for s in rows:
        if "start" not in s:
            continue
        st = s["start"]
        print(f"\n**{s['variant']}** (digest {s['digest']}): start `{st['position']}`, the side to move "
              f"**{st['value']}**; a perfect line: {' '.join(st['line'])}")
        print("\n| marbles on the board (mover, other) | positions | wins | draws | losses |\n|---|---|---|---|---|")
        for b in s["blocks"]:
            print(f"| {b['mover_marbles']}, {b['other_marbles']} | {b['positions']:,} | {b['wins']:,} | "
                  f"{b['draws']:,} | {b['losses']:,} |")
        print("\n" + ", ".join(f"{m} {v}" for m, v in st["moves"].items()))
        print(f"\nlongest forced win: {s['longest_win']['plies']} plies, e.g. `{s['longest_win']['position']}`")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="runs/solved")
    ap.add_argument("--max-positions", type=int, default=400_000_000)
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        for v in (MINI, MINI.with_options(inline_only=True)):
            print(no_moves_effect(v, out), flush=True)
        for v in family(args.max_positions):
            s = solve_one(v, out)
            print(f"{s['variant']}: {s['positions']:,} positions, solved in {s['solve_seconds']} s, "
                  f"{s['verified_mismatches']} mismatches", flush=True)
    report(out)


if __name__ == "__main__":
    main()
