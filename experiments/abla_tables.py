"""ABLA paper, Tables 1 and 2, from a tournament stored in the game archive.

    sumito tournament abla:depth=4 abla:depth=3 abla:depth=4,heuristic=single \
        abla:depth=3,heuristic=single -n 20 --seed 2026 --db abla.sqlite
    python experiments/abla_tables.py --db abla.sqlite [--run 1]

Table 1 of the paper lists each game between the four ABLAs (combined or single heuristic, 3 or
4 plies). Here every pairing has many games, so the first table gives, per pairing, the games,
the first player's wins, draws and losses, and the marbles each pushed off. Table 2 of the paper
sums the games between a 4-ply and a 3-ply player, and between a combined and a single player,
into wins, losses, draws and the marbles score ("+12 (18-6)": marbles pushed off minus marbles
lost); the second table does the same.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from rich.console import Console
from rich.table import Table

from sumito.arena.db import GameArchive
from sumito.players import parse_spec


def describe(spec: str) -> tuple[int, str]:
    kind, options = parse_spec(spec)
    if kind.name != "abla":
        raise SystemExit(f"{spec!r} is not an ABLA player")
    return options.get("depth", 4), options.get("heuristic", "combined")


def label(spec: str) -> str:
    depth, heuristic = describe(spec)
    return f"{heuristic.capitalize()} {depth}-ply"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--run", type=int, default=None, help="the tournament's run id (default: every game)")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables (as in docs/results.md)")
    args = parser.parse_args()
    with GameArchive(args.db, create=False) as archive:
        games = archive.games(run=args.run)
    if not games:
        raise SystemExit("no games found")

    # per unordered pairing, from the first-named player's side
    pairs: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])  # W D L marbles for/against
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])  # games W L D marbles for/against
    for g in games:
        a, b = sorted((label(g.black), label(g.white)))
        score = {"1-0": (1, 0), "0-1": (0, 1)}.get(g.result, (0.5, 0.5))
        black_points = score[0]
        a_is_black = label(g.black) == a
        a_points = black_points if a_is_black else 1 - black_points
        taken_by = {label(g.black): g.lost_white, label(g.white): g.lost_black}
        row = pairs[(a, b)]
        row[0 if a_points == 1 else 1 if a_points == 0.5 else 2] += 1
        row[3] += taken_by[a] if a != b else 0
        row[4] += taken_by[b] if a != b else 0
        for player, opponent, points in ((g.black, g.white, black_points), (g.white, g.black, 1 - black_points)):
            (dp, hp), (do, ho) = describe(player), describe(opponent)
            own_taken = g.lost_white if player == g.black else g.lost_black
            own_lost = g.lost_black if player == g.black else g.lost_white
            for key, differs in ((f"{dp}-ply", dp != do), (hp.capitalize(), hp != ho)):
                if differs:
                    s = groups[key]
                    s[0] += 1
                    s[1 if points == 1 else 2 if points == 0 else 3] += 1
                    s[4] += own_taken
                    s[5] += own_lost

    rows1 = [
        [a, b, str(w + d + lo), str(w), str(d), str(lo), f"{mf}-{ma}"]
        for (a, b), (w, d, lo, mf, ma) in sorted(pairs.items())
    ]
    head1 = ["player A", "player B", "games", "A wins", "draws", "A losses", "marbles A-B"]
    rows2 = []
    for key in ("4-ply", "3-ply", "Combined", "Single"):
        n, w, lo, d, mf, ma = groups[key]
        rows2.append([key, str(n), str(w), str(lo), str(d), f"{mf - ma:+d} ({mf}-{ma})"])
    head2 = ["agent", "games", "win", "loss", "draw", "final score"]
    title1 = f"Table 1: pairings ({len(games)} games in {args.db})"
    title2 = "Table 2: 4-ply vs 3-ply and combined vs single (games between the groups only)"
    if args.markdown:
        for title, head, rows in ((title1, head1, rows1), (title2, head2, rows2)):
            print(f"**{title}**\n")
            print("| " + " | ".join(head) + " |")
            print("|" + "---|" * len(head))
            for row in rows:
                print("| " + " | ".join(row) + " |")
            print()
        return
    console = Console(width=120)
    for title, head, rows in ((title1, head1, rows1), (title2, head2, rows2)):
        table = Table(title=title)
        for i, col in enumerate(head):
            table.add_column(col, justify="left" if i < (2 if head is head1 else 1) else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)

if __name__ == "__main__":
    main()
