"""ABLA paper, Tables 1 and 2: the paper's own pairings played many times, or any tournament
stored in the game archive.

    python experiments/abla_tables.py --play [--games 100] [--out runs/abla] [--workers 2]
                                      [--backend ray [--address ADDR]]
    python experiments/abla_tables.py --db abla.sqlite [--run 1]

``--play`` plays the three pairings of the paper's Table 1 (combined 4-ply against single 4-ply,
combined 4-ply against single 3-ply, combined 3-ply against single 4-ply; the paper has each once
or twice, we play ``--games`` of each, colours alternating, each pair of games from its own
random 2-ply opening so that the deterministic players meet different games), under the arena's
draw rules (threefold repetition, 400 plies). Every finished game is appended to
``OUT/games.jsonl`` as it comes in, so a killed run resumes with the games it lacks. The games run
in ``--workers`` local processes, or as Ray tasks with ``--backend ray`` (a local Ray instance, or
the cluster at ``--address``); only this process writes ``games.jsonl``.

Table 1 of the paper lists each game between the four ABLAs (combined or single heuristic, 3 or
4 plies). Here every pairing has many games, so the first table gives, per pairing, the games,
the first player's wins, draws and losses, and the marbles each pushed off. Table 2 of the paper
sums the games between a 4-ply and a 3-ply player, and between a combined and a single player,
into wins, losses, draws and the marbles score ("+12 (18-6)": marbles pushed off minus marbles
lost); the second table does the same.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from sumito.arena.db import GameArchive
from sumito.arena.executor import Executor, InlineExecutor, available_cores, executor_from_args, make_executor
from sumito.arena.journal import GameJournal, task_key
from sumito.arena.match import ArenaSettings, derive_seed, schedule
from sumito.arena.ratings import score_interval
from sumito.cliargs import add_backend_args
from sumito.errors import SumitoError
from sumito.players import parse_spec
from sumito.stopping import run_main


def describe(spec: str) -> tuple[int, str]:
    kind, options = parse_spec(spec)
    if kind.name != "abla":
        raise SystemExit(f"{spec!r} is not an ABLA player")
    return options.get("depth", 4), options.get("heuristic", "combined")


def label(spec: str) -> str:
    depth, heuristic = describe(spec)
    return f"{heuristic.capitalize()} {depth}-ply"


PAIRINGS = (
    ("abla:depth=4", "abla:depth=4,heuristic=single"),  # the paper's games 1 and 2
    ("abla:depth=4", "abla:depth=3,heuristic=single"),  # games 5 and 3
    ("abla:depth=3", "abla:depth=4,heuristic=single"),  # games 6 and 4
)


@dataclass(frozen=True)
class Played:
    """What the tables need of one game (an archive row or an arena result)."""

    black: str
    white: str
    result: str
    lost_black: int
    lost_white: int


def play(games: int, out: Path, workers: int | None, seed: int, report_only: bool = False, opening_plies: int = 2,
         extra: str = "", executor: Executor | None = None) -> list[Played]:
    """The paper's pairings, ``games`` each, resuming from the games journal ``out/games.jsonl``
    (:class:`~sumito.arena.journal.GameJournal`; ``report_only``: just the games played so far),
    played by ``executor`` (default: ``workers`` local processes)."""
    journal = GameJournal(out / "games.jsonl")
    tasks = []
    for k, pair in enumerate(PAIRINGS):
        settings = ArenaSettings.from_layout("standard", seed=derive_seed(seed, k), opening_plies=opening_plies)
        tasks += schedule([spec + extra for spec in pair], games, settings)
    if report_only:
        tasks = [t for t in tasks if task_key(t) in journal.done]
    todo = sum(1 for t in tasks if task_key(t) not in journal.done)
    if not todo:
        executor = InlineExecutor()  # everything is in the journal: no workers to start
    executor = executor or make_executor(workers)
    played = []
    with contextlib.closing(journal.play(executor, tasks)) as stream:
        for n, (_, r) in enumerate(stream, 1):
            g = Played(r.task.black, r.task.white, r.result, r.lost_black, r.lost_white)
            played.append(g)
            if n > len(tasks) - todo:  # a game played now, not one from the journal
                print(f"{n - (len(tasks) - todo)}/{todo}: {g.black} - {g.white} {g.result} "
                      f"({g.lost_white}-{g.lost_black})", file=sys.stderr, flush=True)
    return played


def journal_games(path: Path) -> list[Played]:
    """The games of a journal written by :func:`play` (``OUT/games.jsonl``), as the tables read them."""
    return [Played(r.task.black, r.task.white, r.result, r.lost_black, r.lost_white)
            for r in GameJournal(path).done.values()]


def tally(games: list[Played]) -> tuple[dict[tuple[str, str], list[int]], dict[str, list[int]]]:
    """Table 1's pairings (per unordered pairing, from the first-named player's side: wins, draws, losses,
    marbles for, against) and Table 2's groups ("4-ply", "3-ply", "Combined", "Single", over the games
    between the groups only: games, wins, losses, draws, marbles for, against)."""
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
    return pairs, groups


def score_cell(wins: int, draws: int, losses: int) -> str:
    score, low, high = score_interval(wins, draws, losses)
    return f"{score:.0%} ({low:.0%}–{high:.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--db", help="read the games of a tournament from this archive")
    source.add_argument("--play", action="store_true", help="play the paper's pairings")
    parser.add_argument("--run", type=int, default=None, help="the tournament's run id (default: every game)")
    parser.add_argument("--games", type=int, default=100, help="--play: games per pairing (default 100)")
    parser.add_argument("--out", default="runs/abla", help="--play: where the games are kept")
    parser.add_argument("--workers", type=int, default=None,
                        help="--play: game processes (default: all cores; with --backend ray, all the cluster's CPUs)")
    add_backend_args(parser, "--play's games")
    parser.add_argument("--seed", type=int, default=2026, help="--play: the seed (default 2026)")
    parser.add_argument("--report-only", action="store_true", help="--play: tables of the games played so far")
    parser.add_argument("--opening-plies", type=int, default=2,
                        help="--play: random opening plies per pair of games (0: from the start, as the paper)")
    parser.add_argument("--options", default="", help="--play: options added to every ABLA spec, e.g. off=8")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables (as in docs/results.md)")
    args = parser.parse_args()
    if args.play:
        if args.games < 1:
            parser.error("--games must be at least 1")
        extra = f",{args.options}" if args.options else ""
        try:  # a missing Ray, a bad --address: one line
            executor = None if args.report_only else executor_from_args(
                args, args.workers or (None if args.backend == "ray" else available_cores()))
        except SumitoError as exc:
            parser.error(str(exc))
        games: list[Any] = play(args.games, Path(args.out), args.workers or available_cores(), args.seed,
                                args.report_only, args.opening_plies, extra, executor)
    else:
        with GameArchive(args.db, create=False) as archive:
            games = archive.games(run=args.run)
    if not games:
        raise SystemExit("no games found")

    pairs, groups = tally(games)
    rows1 = [
        [a, b, str(w + d + lo), str(w), str(d), str(lo), score_cell(w, d, lo), f"{mf}-{ma}"]
        for (a, b), (w, d, lo, mf, ma) in sorted(pairs.items())
    ]
    head1 = ["player A", "player B", "games", "A wins", "draws", "A losses", "A's score (95% interval)",
             "marbles A-B"]
    rows2 = []
    for key in ("4-ply", "3-ply", "Combined", "Single"):
        n, w, lo, d, mf, ma = groups[key]
        if n:
            rows2.append([key, str(n), str(w), str(lo), str(d), score_cell(w, d, lo), f"{mf - ma:+d} ({mf}-{ma})"])
    head2 = ["agent", "games", "win", "loss", "draw", "score (95% interval)", "final score"]
    where = f"{args.out}/games.jsonl" if args.play else args.db
    title1 = f"Table 1: pairings ({len(games)} games in {where})"
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
    run_main(main)
