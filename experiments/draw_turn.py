"""The turn to draws after 2,000 games, measured over every run: wins, draws, losses and marbles a
game at each checkpoint, for each arm and test player, as the interquartile mean over the runs with
its bootstrap 95% band (sumito.learn.bands).

    python experiments/draw_turn.py [--experiment readings-stage3] [--out runs/repro] [--arm TEXT ...]
                                    [--seed FIRST --seeds N]

It reads the rows that ``learning_curves.py`` committed for the experiment (no training, no games).
docs/reproductions.md writes down the hypotheses it tests and what each predicts.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from learning_curves import read_rows
from learning_summary import run_band, shown_player

from sumito.stopping import run_main

# won outright, won or stopped ahead on marbles (the lab's win column), drawn, lost
COLUMNS = (("won", "wins"), ("won or ahead", "m_wins"), ("drawn", "draws"), ("lost", "losses"))


def cell(rows: list[dict], field_name: str, scale: float = 1.0) -> str:
    est = run_band(rows, field_name)
    return f"{scale * est.value:.2f} ({scale * est.low:.2f}–{scale * est.high:.2f})"


def table(rows: list[dict], arm: str, player: str) -> list[str]:
    by_games: dict[int, list[dict]] = defaultdict(list)
    for r in rows:
        if r["arm"] == arm and (r["player"] or "td:net={net}") == player:
            by_games[int(r["games"])].append(r)
    lines = []
    for games in sorted(by_games):
        group = by_games[games]
        parts = [cell(group, f, 100.0) for _, f in COLUMNS]
        parts += [cell(group, "marbles_won"), cell(group, "marbles_lost")]
        lines.append(f"| {arm.replace('|', chr(92) + '|')} | {shown_player(player)} | {games:,} | "
                     f"{len(group)} | " + " | ".join(parts) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiment", default="readings-stage3")
    parser.add_argument("--out", type=Path, default=Path("runs/repro"))
    parser.add_argument("--arm", action="append", default=None, metavar="TEXT",
                        help="only the arms whose label contains TEXT (repeatable)")
    parser.add_argument("--seed", type=int, default=2003, help="with --seeds: the first seed (default 2003)")
    parser.add_argument("--seeds", type=int, default=None, metavar="N",
                        help="only the runs of seeds SEED to SEED+N-1 (default: every run committed)")
    args = parser.parse_args()
    rows = [r for path in sorted((args.out / args.experiment).glob("*/rows.csv")) for r in read_rows(path)]
    if args.seeds is not None:
        rows = [r for r in rows if args.seed <= int(r["seed"]) < args.seed + args.seeds]
    if not rows:
        raise SystemExit(f"no finished run of {args.experiment} under {args.out}")
    arms = [a for a in dict.fromkeys(r["arm"] for r in rows) if not args.arm or any(t in a for t in args.arm)]
    players = list(dict.fromkeys(r["player"] or "td:net={net}" for r in rows))
    print("| arm | test player | games | runs | won % | won or ahead % | drawn % | lost % | marbles won a game | "
          "marbles lost a game |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for arm in arms:
        for player in players:
            for line in table(rows, arm, player):
                print(line)
    print("\nEach cell: the interquartile mean over the runs, with its bootstrap 95% band; 100 test games a run "
          "and checkpoint against the one-ply benchmark.")


if __name__ == "__main__":
    run_main(main)
