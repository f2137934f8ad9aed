"""Does the engine convert won games? Measured with the search that plays to the game's draw rules ("after")
and with one that does not ("before").

    python experiments/conversion.py --label after [--games 100] [--seed 2027] [--workers 2] [--out runs/conversion]
                                     [--configs NAME ...] [--report-only]

Each configuration is a match of ``--games`` games between an engine (A) and an opponent (B), colours
alternating, each pair of games from its own random 2-ply opening, under the arena's draw rules (400
plies, threefold repetition). For every match the table gives A's wins, draws and losses, **the draws at
the ply cap or by repetition with A two or more marbles up** (the goal: none), and the average
length of A's won games in plies (with its standard error).

Finished matches are kept as one JSON file each under ``OUT/LABEL/`` (one row a game: colour, result,
reason, plies, marbles; the moves of a game drawn at a cap or by repetition with A two or more up, to
study), and the games of the match in progress one a line in ``OUT/LABEL/.NAME.games.jsonl`` as they
finish (removed when its file is written), so a killed run resumes with the games it lacks, and
``--report-only`` prints the tables of every label there without playing, and the goal's verdict computed from
the rows (the default engine's four matches under ``press-default`` and its pressing SPRT, ``GOAL_*``;
``tests/test_evidence_pages.py`` fails when the strength page's verdict differs). The "before" rows were played
by the code of 3718e8e's parent, whose search does not know the draw rules (``git worktree add /tmp/base 3718e8e^`` and
``PYTHONPATH=/tmp/base/src python experiments/conversion.py --label before``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import subprocess
from pathlib import Path

from sumito.arena.executor import executor_from_args
from sumito.arena.journal import GameJournal
from sumito.arena.match import ArenaSettings, derive_seed, play_game, schedule
from sumito.arena.ratings import score_interval
from sumito.arena.sprt import SprtBounds, SprtState, run_sprt
from sumito.cliargs import add_backend_args, count_arg
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_text
from sumito.stopping import run_main

#: name -> (A, B): both evaluations at 0.05 s a move and at depth 4, against ABLA at depth 4 and
#: Abalearn's heuristic benchmark (2 plies)
CONFIGS = {
    "nnue-0.05-abla4": ("engine:time=0.05,nnue=expert-nnue", "abla:depth=4"),
    "linear-0.05-abla4": ("engine:time=0.05,nnue=none", "abla:depth=4"),
    "nnue-d4-abla4": ("engine:depth=4,nnue=expert-nnue", "abla:depth=4"),
    "linear-d4-abla4": ("engine:depth=4,nnue=none", "abla:depth=4"),
    "nnue-0.05-heuristic": ("engine:time=0.05,nnue=expert-nnue", "heuristic"),
    "linear-0.05-heuristic": ("engine:time=0.05,nnue=none", "heuristic"),
    "nnue-d4-heuristic": ("engine:depth=4,nnue=expert-nnue", "heuristic"),
    "linear-d4-heuristic": ("engine:depth=4,nnue=none", "heuristic"),
    # builtin-nnue, the shipped self-taught network; the nnue-* rows above measure expert-nnue
    "selftaught-0.05-abla4": ("engine:time=0.05,nnue=builtin-nnue", "abla:depth=4"),
    "selftaught-d4-abla4": ("engine:depth=4,nnue=builtin-nnue", "abla:depth=4"),
    "selftaught-0.05-heuristic": ("engine:time=0.05,nnue=builtin-nnue", "heuristic"),
    "selftaught-d4-heuristic": ("engine:depth=4,nnue=builtin-nnue", "heuristic"),
    # the engine as a plain spec plays it (1 s a move, builtin-nnue, one thread in a match's workers) and at
    # depth 4 on one thread (the same moves on any machine), against ABLA and the heuristic with random ties
    "default-abla4": ("engine", "abla:depth=4"),
    "default-d4-abla4": ("engine:depth=4,threads=1", "abla:depth=4"),
    "default-heuristic2r": ("engine", "heuristic:depth=2,ties=random"),
    "default-d4-heuristic2r": ("engine:depth=4,threads=1", "heuristic:depth=2,ties=random"),
}
UNCONVERTED = ("ply-cap", "repetition", "no-capture")
ROOT = Path(__file__).resolve().parent.parent
#: the goal (docs/strength-ledger.md, "Search options"): none of the 100 games of a match drawn at the cap or by
#: repetition with the engine two or more up, for the engine as a plain spec plays it (its default budget) and
#: at depth 4, against both benchmarks; and the SPRT of its pressing defaults at equal time accepted H1, no
#: Elo lost (H1 +5 against H0 -15)
GOAL_LABEL = "press-default"
GOAL_MATCHES = ("default-abla4", "default-heuristic2r", "default-d4-abla4", "default-d4-heuristic2r")
GOAL_GAMES = 100
GOAL_SPRT = (ROOT / "runs" / "sprt" / "press-0.1.jsonl", SprtBounds(-15.0, 5.0))


def with_extra(spec: str, extra: str) -> str:
    """``spec`` with the options ``extra`` (``,name=value...``) added: after its own, or as its first (``engine``
    alone takes ``engine:name=value``)."""
    if not extra or ":" in spec:
        return spec + extra
    return f"{spec}:{extra.removeprefix(',')}"


def play(name: str, games: int, seed: int, executor, extra: str = "", journal: GameJournal | None = None) -> list[dict]:
    """The rows of one match; with a ``journal``, the games it holds are taken from it and each new one is
    written to it as it finishes (a killed run goes on where it stopped)."""
    a, b = CONFIGS[name]
    a = with_extra(a, extra)
    k = list(CONFIGS).index(name)
    settings = ArenaSettings.from_layout("standard", seed=derive_seed(seed, k, 0))
    tasks = schedule([a, b], games, settings)
    rows = []
    games_run = executor.run(play_game, tasks) if journal is None else journal.play(executor, tasks)
    with contextlib.closing(games_run) as stream:
        for _, r in stream:
            colour = r.color_of(0)
            a_lost, b_lost = r.marbles_lost_by(0), r.marbles_lost_by(1)
            row = dict(index=r.task.index, a_colour="black" if colour == 1 else "white",
                       score=r.score_of(0), reason=r.reason, plies=r.plies, a_pushed=b_lost, a_lost=a_lost)
            if row["score"] == 0.5 and r.reason in UNCONVERTED and b_lost - a_lost >= 2:
                row["start"], row["moves"] = r.task.start, list(r.moves)  # an unconverted game, to study
            rows.append(row)
    return sorted(rows, key=lambda row: row["index"])


def code_version() -> str:
    """The commit the games were played with ("+changes" when the working tree differed from it)."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+changes" if dirty else "")


def summary(rows: list[dict]) -> str:
    n = len(rows)
    wins = sum(r["score"] == 1 for r in rows)
    losses = sum(r["score"] == 0 for r in rows)
    draws = n - wins - losses
    _, low, high = score_interval(wins, draws, losses)
    left = unconverted(rows)
    won = [r["plies"] for r in rows if r["score"] == 1]
    if won:
        mean = sum(won) / len(won)
        se = math.sqrt(sum((p - mean) ** 2 for p in won) / max(len(won) - 1, 1) / len(won))
        length = f"{mean:.0f} ± {1.96 * se:.0f}"
    else:
        length = "—"
    reasons: dict[str, int] = {}
    for r in rows:
        if r["score"] == 0.5:
            reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    drawn = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "none"
    return (f"{wins}-{draws}-{losses} | {(wins + draws / 2) / n:.0%} ({low:.0%}–{high:.0%}) | {drawn} | "
            f"**{len(left)}** | {length}")


def unconverted(rows: list[dict]) -> list[dict]:
    """The games drawn at a cap or by repetition with A two or more marbles up."""
    return [r for r in rows if r["score"] == 0.5 and r["reason"] in UNCONVERTED and r["a_pushed"] - r["a_lost"] >= 2]


def sprt_decision(journal: Path, bounds: SprtBounds) -> tuple[str | None, SprtState]:
    """The decision of the SPRT whose games ``journal`` holds, pair by pair in the order they were scheduled
    (pair k: games 2k and 2k + 1) until a bound is crossed, as ``sumito sprt`` stopped it; A is player 0."""
    games = sorted((r.task.index, r.score_of(0)) for r in GameJournal(journal).done.values())
    state = run_sprt(SprtState(bounds), games)
    return state.decision, state


def goal(out: Path = ROOT / "runs" / "conversion") -> tuple[bool, list[str]]:
    """The goal's verdict from the committed rows (``GOAL_*``), with a line for each of its parts."""
    lines, met = [], True
    for name in GOAL_MATCHES:
        path = out / GOAL_LABEL / f"{name}.json"
        if not path.exists():
            lines.append(f"{name}: not played ({path.relative_to(ROOT) if path.is_relative_to(ROOT) else path})")
            met = False
            continue
        data = json.loads(path.read_text())
        left = len(unconverted(data["rows"]))
        ok = data["a"] == CONFIGS[name][0] and len(data["rows"]) >= GOAL_GAMES and left == 0
        met &= ok
        lines.append(f"{name}: `{data['a']}` against `{data['b']}`, {left} of {len(data['rows'])} unconverted")
    journal, bounds = GOAL_SPRT
    decision, state = sprt_decision(journal, bounds)
    met &= decision == "H1"
    lines.append(f"SPRT ({journal.name}, H0 {bounds.elo0:+g}, H1 {bounds.elo1:+g}): "
                 f"{decision or 'undecided'} after {state.summary()}")
    return met, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="after")
    parser.add_argument("--games", type=count_arg(2, 100_000), default=100)
    parser.add_argument("--seed", type=count_arg(0, 2**31), default=2027)
    parser.add_argument("--workers", type=count_arg(1, 256), default=None)
    parser.add_argument("--out", type=Path, default=Path("runs/conversion"))
    parser.add_argument("--configs", nargs="*", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--report-only", action="store_true", help="print the tables of the matches already played")
    parser.add_argument("--extra", default="", help="options added to A's spec (a probe), e.g. ',weights=...'")
    add_backend_args(parser)
    args = parser.parse_args()
    try:
        executor = executor_from_args(args, 2 if args.workers is None and args.backend == "process" else args.workers)
    except SumitoError as exc:
        parser.error(str(exc))
    if not args.report_only:
        folder = args.out / args.label
        folder.mkdir(parents=True, exist_ok=True)
        for name in args.configs:
            path = folder / f"{name}.json"
            if path.exists():
                continue
            # the games of a match not yet written, one a line: a kill loses only the games in flight
            games_journal = folder / f".{name}.games.jsonl"
            rows = play(name, args.games, args.seed, executor, args.extra, GameJournal(games_journal))
            atomic_write_text(path, json.dumps(dict(a=with_extra(CONFIGS[name][0], args.extra), b=CONFIGS[name][1],
                                                    games=args.games,
                                                    seed=args.seed, code=code_version(), rows=rows)) + "\n")
            games_journal.unlink()
            print(f"{args.label} {name}: {summary(rows)}", flush=True)
    print("| match | A | B | label | A won-drawn-lost | A's score (95%) | draws by | cap/repetition draws "
          "A ≥ 2 up | plies of A's wins (mean ± 95%) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in CONFIGS:
        for label_dir in sorted(p for p in args.out.glob("*") if p.is_dir()):
            path = label_dir / f"{name}.json"
            if path.exists():
                data = json.loads(path.read_text())
                label = f"{label_dir.name} ({data.get('code', 'unknown')})"
                print(f"| {name} | `{data['a']}` | `{data['b']}` | {label} | {summary(data['rows'])} |")
    met, lines = goal(args.out)
    print(f"\nthe goal ({GOAL_GAMES} games a match, label {GOAL_LABEL}): {'met' if met else 'not met'}")
    for line in lines:
        print(f"- {line}")


if __name__ == "__main__":
    run_main(main)
