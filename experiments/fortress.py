"""Are the unconverted games won? Each game the conversion matches left drawn with A two or more marbles
up is replayed to its last position, and from there engines play on as A against that match's opponent.

    python experiments/fortress.py [--a SPEC ...] [--plies 200] [--rows GLOB] [--judge SPEC]
                                   [--workers 2] [--out runs/fortress] [--seed 27]

The positions are the final positions of the rows of ``experiments/conversion.py`` that kept their moves
(those drawn at a cap or by repetition with A two or more up; ``--rows``, a glob of its row files, picks
the matches, by default the hand-set engine's against ABLA). From each, every ``--a`` engine plays the
side that was A against the row's opponent (its B) for ``--plies`` more plies (threefold repetition
counted from there). The table gives, for each engine, the games won, A's push-offs and marbles lost, and
the draws by reason: whether a stronger player (more depth, the network, a probe option) turns the
same positions into wins. ``--judge`` (default: the shipped network at depth 4) scores each position
for A, in marbles: what an evaluation makes of "two marbles up" there. The games are kept in
``OUT/games.jsonl`` (the arena's journal: a killed run resumes).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
from pathlib import Path

from sumito.arena.executor import executor_from_args
from sumito.arena.journal import GameJournal
from sumito.arena.match import GameTask, derive_seed
from sumito.cliargs import add_backend_args, count_arg
from sumito.errors import SumitoError
from sumito.games.abalone import DrawRules, Position
from sumito.games.abalone.kernels import count_pushes
from sumito.players import make_player, parse_spec
from sumito.players.engine import EnginePlayer
from sumito.stopping import run_main

ROWS = "runs/conversion/after/linear-0.05-abla4.json"
A_SPECS = ("engine:depth=4,nnue=none,threads=1", "engine:depth=6,nnue=none,threads=1", "engine:depth=4,threads=1")
JUDGE = "engine:depth=4,threads=1"


def fortresses(pattern: str) -> list[dict]:
    """The final positions of the unconverted games in the row files matching ``pattern``: name, position
    (move counter from 1), A's colour (1 Black, 2 White), the opponent's spec."""
    found = []
    for path in sorted(glob.glob(pattern)):
        try:
            match = json.loads(Path(path).read_text())
            opponent, rows = match["b"], match["rows"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SumitoError(f"{path}: not a row file of experiments/conversion.py ({exc})") from None
        for row in rows:
            if "moves" not in row:
                continue
            pos = Position.from_string(row["start"])
            for text in row["moves"]:
                pos = pos.play(pos.parse_move(text))
            text = pos.to_string().rsplit(" ", 1)[0] + " 1"
            name = f"{Path(path).parent.name}/{Path(path).stem}#{row['index']}"
            found.append(dict(name=name, position=text, a=1 if row["a_colour"] == "black" else 2, b=opponent))
    return found


def tasks_for(spec: str, positions: list[dict], plies: int, seed: int, k: int) -> list[GameTask]:
    tasks = []
    for i, f in enumerate(positions):
        black, white = (spec, f["b"]) if f["a"] == 1 else (f["b"], spec)
        pos = Position.from_string(f["position"])
        tasks.append(GameTask(black=black, white=white, start=f["position"], win_threshold=pos.variant.win_threshold,
                              inline_only=pos.variant.inline_only, rules=DrawRules(max_plies=plies, repetitions=3),
                              movetime=None, seed=derive_seed(seed, k, i), index=i,
                              black_id=0 if f["a"] == 1 else 1, white_id=1 if f["a"] == 1 else 0))
    return tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", nargs="+", default=list(A_SPECS), help="the engines that play on as A")
    parser.add_argument("--plies", type=count_arg(1, 10_000), default=200)
    parser.add_argument("--rows", default=ROWS, help=f"a glob of conversion row files (default {ROWS})")
    parser.add_argument("--judge", default=JUDGE, help=f"the engine that scores each position for A (default {JUDGE})")
    parser.add_argument("--seed", type=count_arg(0, 2**31), default=27)
    parser.add_argument("--workers", type=count_arg(1, 256), default=None)
    parser.add_argument("--out", type=Path, default=Path("runs/fortress"))
    add_backend_args(parser)
    args = parser.parse_args()
    try:
        for spec in [*args.a, args.judge]:
            parse_spec(spec)
        positions = fortresses(args.rows)
        if not positions:
            raise SumitoError(f"--rows {args.rows}: no unconverted game with its moves there")
        executor = executor_from_args(args, 2 if args.workers is None and args.backend == "process" else args.workers)
    except SumitoError as exc:
        parser.error(str(exc))
    judge = make_player(args.judge)
    if not isinstance(judge, EnginePlayer) or not (judge.depth or judge.nodes or judge.time):
        parser.error(f"--judge {args.judge}: give an engine with a depth, node or time limit")
    print(f"{len(positions)} positions ({args.rows}); the judge {args.judge} scores them for A, in marbles; "
          "the pushes each side has there:")
    for f in positions:
        pos = Position.from_string(f["position"])
        judge.choose(pos)  # within the judge's own limits, as it would play
        score = judge.last.score / judge.marble_value
        lead = pos.lost[2 - f["a"]] - pos.lost[f["a"] - 1]
        geo = pos.geometry
        pushes = [count_pushes(pos.grid, side, geo.offsets, geo.cells) for side in (f["a"], 3 - f["a"])]
        print(f"  {f['name']}: {lead} up, {score if pos.side_to_move == f['a'] else -score:+.2f}, pushes A {pushes[0]} "
              f"B {pushes[1]}  {f['position']}")
    args.out.mkdir(parents=True, exist_ok=True)
    journal = GameJournal(args.out / "games.jsonl")
    print(f"\n| A (plays on for {args.plies} plies) | won | A's push-offs | A's marbles lost | draws by |")
    print("|---|---|---|---|---|")
    for k, spec in enumerate(args.a):
        won = pushed = gave = 0
        draws: dict[str, int] = {}
        with contextlib.closing(journal.play(executor, tasks_for(spec, positions, args.plies, args.seed, k))) as games:
            for _, r in games:
                start = Position.from_string(r.task.start)
                a = r.color_of(0)
                lost = (r.lost_black - start.lost[0], r.lost_white - start.lost[1])
                pushed += lost[2 - a]
                gave += lost[a - 1]
                if r.winner == a:
                    won += 1
                elif r.winner is None:
                    draws[r.reason] = draws.get(r.reason, 0) + 1
        drawn = ", ".join(f"{why} {n}" for why, n in sorted(draws.items())) or "none"
        print(f"| `{spec}` | {won} of {len(positions)} | {pushed} | {gave} | {drawn} |", flush=True)


if __name__ == "__main__":
    run_main(main)
