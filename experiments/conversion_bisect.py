"""Which commit lost the conversion of won games? One deterministic match per commit, each played by that
commit's own sources.

    python experiments/conversion_bisect.py COMMIT [COMMIT ...] [--a SPEC] [--b SPEC] [--games 10] [--seed 3]
                                          [--workers 2] [--keep DIR] [--per-game] [--bisect GOOD BAD]

For each commit the script checks it out with ``git worktree add --detach`` into a temporary folder, runs
``python -m sumito match A B -n GAMES --seed SEED --workers W --db FILE`` with ``PYTHONPATH`` set to that
checkout's ``src`` (and a temporary ``HOME``, ``XDG_CACHE_HOME`` and ``NUMBA_CACHE_DIR``, so that no cache of
the user's is read or written), reads the games from the database the match wrote, removes the checkout,
and prints one row: the commit, its subject, the games A won, and every game A did not win while two or more
marbles ahead (its number, reason, plies and marbles pushed off by A and by B). The default match is the one
of issue 63 (``engine:depth=4,threads=1`` against ``abla:depth=4``): a fixed depth and one thread, so the same
moves on any machine. ``--bisect GOOD BAD`` searches the first-parent history between two commits for the
first one that leaves a game unconverted (commits that fail to run are skipped, as ``git bisect skip``).
``--keep DIR`` keeps each commit's game database as ``DIR/COMMIT.db`` (to study the games).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Outcome:
    """One commit's match: ``None`` games when it failed to run (``error`` says why)."""

    commit: str
    subject: str
    games: list[dict] | None = None
    error: str = ""
    rows: list[dict] = field(default_factory=list)

    @property
    def unconverted(self) -> list[dict]:
        return [g for g in self.games or [] if g["score"] != 1 and g["a_pushed"] - g["a_lost"] >= 2]


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout.strip()


def read_games(db: Path) -> list[dict]:
    """A's result in every game of the match stored in ``db`` (A is the run's player 0). Read with plain SQL of
    the columns every version has, not ``GameArchive``: ``db`` was written by an older commit's schema."""
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT game_index, black_player, result, reason, plies, lost_black, lost_white, "
                            "start_position, moves FROM games ORDER BY game_index").fetchall()
    games = []
    for r in rows:
        a_black = r["black_player"] == 0
        a_lost, b_lost = (r["lost_black"], r["lost_white"]) if a_black else (r["lost_white"], r["lost_black"])
        score = {"1-0": 1.0, "0-1": 0.0}.get(r["result"], 0.5)
        if not a_black and score != 0.5:
            score = 1 - score
        games.append(dict(index=r["game_index"], a_colour="black" if a_black else "white", score=score,
                          reason=r["reason"], plies=r["plies"], a_pushed=b_lost, a_lost=a_lost,
                          start=r["start_position"], moves=r["moves"].split()))
    return games


def play(commit: str, args: argparse.Namespace) -> Outcome:
    """The match played by ``commit``'s sources in a throwaway checkout."""
    full = git("rev-parse", commit)
    outcome = Outcome(full[:7], git("log", "-1", "--format=%s", full))
    with tempfile.TemporaryDirectory(prefix=f"bisect-{full[:7]}-") as tmp:
        tree = Path(tmp) / "tree"
        git("worktree", "add", "--detach", str(tree), full)
        try:
            home = Path(tmp) / "home"
            home.mkdir()
            env = dict(os.environ, PYTHONPATH=str(tree / "src"), HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"),
                       NUMBA_CACHE_DIR=str(Path(tmp) / "numba"))
            check = subprocess.run([sys.executable, "-c", "import sumito; print(sumito.__file__)"], env=env,
                                   capture_output=True, text=True, cwd=tree)
            if not check.stdout.strip().startswith(str(tree)):
                outcome.error = f"sumito imported from {check.stdout.strip() or check.stderr.strip()[-200:]}"
                return outcome
            db = Path(tmp) / "games.db"
            cmd = [sys.executable, "-m", "sumito", "match", args.a, args.b, "-n", str(args.games), "--seed",
                   str(args.seed), "--workers", str(args.workers), "--db", str(db)]
            run = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tree)
            if run.returncode != 0 or not db.exists():
                outcome.error = (run.stderr.strip().splitlines() or [f"exit status {run.returncode}"])[-1][:200]
                return outcome
            outcome.games = read_games(db)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(db, args.keep / f"{full[:7]}.db")
        finally:
            git("worktree", "remove", "--force", str(tree))
    return outcome


def show(outcome: Outcome, per_game: bool) -> None:
    if outcome.games is None:
        print(f"| {outcome.commit} | {outcome.subject[:60]} | failed: {outcome.error} | |", flush=True)
        return
    won = sum(g["score"] == 1 for g in outcome.games)
    bad = "; ".join(f"game {g['index']}: {g['reason']} at {g['plies']}, {g['a_pushed']}-{g['a_lost']}"
                    for g in outcome.unconverted) or "none"
    print(f"| {outcome.commit} | {outcome.subject[:60]} | {won}/{len(outcome.games)} | {bad} |", flush=True)
    if per_game:
        for g in outcome.games:
            print(f"    game {g['index']}: A {g['a_colour']}, score {g['score']}, {g['reason']}, {g['plies']} plies, "
                  f"A pushed {g['a_pushed']}, A lost {g['a_lost']}", flush=True)


def bisect(good: str, bad: str, args: argparse.Namespace) -> None:
    """Binary search over the first-parent commits after ``good`` up to ``bad`` (the lead's merges as steps)."""
    commits = git("rev-list", "--first-parent", "--reverse", f"{good}..{bad}").split()
    lo, hi = -1, len(commits) - 1  # commits[lo] converts (or is GOOD), commits[hi] does not
    skipped: set[int] = set()
    while hi - lo > 1:
        mid = (lo + hi) // 2
        # a commit that fails to run is skipped: try its neighbours, nearest first
        candidates = sorted((i for i in range(lo + 1, hi) if i not in skipped), key=lambda i: abs(i - mid))
        if not candidates:
            break
        i = candidates[0]
        outcome = play(commits[i], args)
        show(outcome, args.per_game)
        if outcome.games is None:
            skipped.add(i)
        elif outcome.unconverted:
            hi = i
        else:
            lo = i
    first = git("log", "-1", "--format=%h %s", commits[hi])
    print(f"first bad commit (first parent): {first}" + (f" ({len(skipped)} skipped)" if skipped else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commits", nargs="*")
    parser.add_argument("--a", default="engine:depth=4,threads=1")
    parser.add_argument("--b", default="abla:depth=4")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", type=Path, default=None, help="keep each commit's game database here")
    parser.add_argument("--per-game", action="store_true", help="print every game's result, reason and marbles")
    parser.add_argument("--json", type=Path, default=None, help="append each commit's games here, one a line")
    parser.add_argument("--bisect", nargs=2, metavar=("GOOD", "BAD"))
    args = parser.parse_args()
    if not args.commits and not args.bisect:
        parser.error("give commits, or --bisect GOOD BAD")
    print("| commit | subject | A won | unconverted with A two or more up (reason, plies, A pushed-lost) |")
    print("|---|---|---|---|")
    for commit in args.commits:
        outcome = play(commit, args)
        show(outcome, args.per_game)
        if args.json and outcome.games is not None:
            with args.json.open("a") as f:
                f.write(json.dumps(dict(commit=outcome.commit, a=args.a, b=args.b, seed=args.seed,
                                        games=outcome.games)) + "\n")
    if args.bisect:
        bisect(*args.bisect, args)


if __name__ == "__main__":
    main()
