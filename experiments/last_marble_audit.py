"""The last-marble goal: in games against the engine at ten times its time, does the
engine ever lose to a forced push-off that a 1-second search sees?

    python experiments/last_marble_audit.py [--games 200] [--a SPEC] [--b SPEC] [--check-time 1]
                                            [--seed 2027] [--workers 2] [--out runs/last-marble]
                                            [--audit-only] [--depths LOW HIGH]

A (default ``engine:time=0.1,nnue=builtin-nnue``) plays B (the same engine at 1 s a move), colours
alternating, each pair of games from its own random 2-ply opening (400 plies, threefold repetition).
Every finished game is kept in ``OUT/games.jsonl`` (the arena's game journal: a killed run resumes with
the games it lacks). Then every game A lost is audited: at each of A's moves made with all but one of
its marbles lost, a threat-aware search of ``--check-time`` seconds (one thread) looks at the position
after the move; when it finds a forced push-off, and the same search from before the move finds a move
that does not lose by force, the move is a **miss**. The goal is no miss in 200 games. The audit is
kept in ``OUT/audit.json`` (the misses, with positions, so that they can become regression tests).
``--audit-only`` plays nothing and audits the scheduled games the journal holds so far (a partial run).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sumito.arena.executor import executor_from_args
from sumito.arena.journal import GameJournal, task_key
from sumito.arena.match import ArenaSettings, schedule, start_position
from sumito.arena.ratings import score_interval
from sumito.cliargs import add_backend_args, count_arg, number_arg
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_text
from sumito.games.abalone import Move, Position
from sumito.players import make_player
from sumito.search.pvs import mate_plies
from sumito.stopping import run_main

A = "engine:time=0.1,nnue=builtin-nnue"
B = "engine:time=1,nnue=builtin-nnue"


def walks_into_push_off(check, pos, move, **search) -> tuple[int, str] | None:
    """When ``move`` (by a side a marble from losing) lets ``check`` (a searching player; ``search``: its
    ``analyse`` limits) find a forced push-off while another move does not lose by force: the plies from
    ``pos`` to the push-off and the move that holds; else None. (A move that wins the game walks into nothing.)"""
    after = pos.play(move)
    if after.winner() is not None:
        return None
    check.analyse(after, **search)
    plies = mate_plies(check.last.score)
    if plies is None or check.last.score <= 0:
        return None
    root = check.analyse(pos, **search)
    if mate_plies(root.score) is not None and root.score < 0:  # every move loses: nothing to avoid
        return None
    return plies + 1, Move(int(root.lines[0].move), pos.variant.side).notation()


def audit_game(result, a_id: int, check, seconds: float) -> list[dict]:
    """A's moves in a game it lost after which ``check``, searching ``seconds`` a position (to the end of
    that time), finds a forced push-off while another move does not lose by force
    (:func:`walks_into_push_off`)."""
    colour = result.color_of(a_id)
    pos = start_position(result.task.start, result.task.win_threshold, result.task.inline_only)
    misses = []
    for ply, text in enumerate(result.moves):
        move = pos.parse_move(text)
        if pos.side_to_move == colour and pos.lost[colour - 1] == pos.variant.win_threshold - 1:
            miss = walks_into_push_off(check, pos, move, seconds=seconds, predict=False)
            if miss is not None:
                misses.append(dict(game=result.task.index, ply=ply, position=pos.to_string(), played=text,
                                   loses_in=miss[0], holds=miss[1]))
        pos = pos.play(move)
    return misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=count_arg(2, 100_000), default=200)
    parser.add_argument("--a", default=A, help=f"the engine audited (default {A})")
    parser.add_argument("--b", default=B, help=f"its opponent (default {B})")
    parser.add_argument("--check-time", type=number_arg(0.01, 600, "--check-time"), default=1.0)
    parser.add_argument("--seed", type=count_arg(0, 2**31), default=2027)
    parser.add_argument("--workers", type=count_arg(1, 256), default=None)
    parser.add_argument("--out", type=Path, default=Path("runs/last-marble"))
    parser.add_argument("--depths", type=count_arg(1, 30), nargs=2, metavar=("LOW", "HIGH"), default=None,
                        help="then, for each miss, whether a fresh one-thread search to each fixed depth from LOW to "
                             "HIGH plays the losing move (what depth the engine needed)")
    parser.add_argument("--audit-only", action="store_true",
                        help="play nothing: audit the games of the schedule already in the journal (a partial run)")
    add_backend_args(parser)
    args = parser.parse_args()
    if args.depths and args.depths[0] > args.depths[1]:
        parser.error(f"--depths: LOW ({args.depths[0]}) is above HIGH ({args.depths[1]})")
    try:
        executor = executor_from_args(args, 2 if args.workers is None and args.backend == "process" else args.workers)
        settings = ArenaSettings.from_layout("standard", seed=args.seed)
        tasks = schedule([args.a, args.b], args.games, settings)
    except SumitoError as exc:
        parser.error(str(exc))
    args.out.mkdir(parents=True, exist_ok=True)
    journal = GameJournal(args.out / "games.jsonl")
    results = []
    if args.audit_only:
        # the schedule's games already played, in schedule order (a journal may hold games of other runs)
        results = [journal.done[key] for key in map(task_key, tasks) if key in journal.done]
        if not results:
            parser.error(f"--audit-only: {args.out / 'games.jsonl'} holds none of the scheduled games")
        print(f"auditing {len(results)} of the {len(tasks)} games (--audit-only)", flush=True)
    else:
        for n, (_, result) in enumerate(journal.play(executor, tasks), 1):
            results.append(result)
            if n % 10 == 0 or n == len(tasks):
                print(f"{n}/{len(tasks)} games", flush=True)
    check = make_player(f"engine:time={args.check_time},nnue=builtin-nnue,threads=1,threats=1")
    lost = [r for r in results if r.score_of(0) == 0]
    misses: list[dict] = []
    for n, r in enumerate(lost, 1):
        misses += audit_game(r, 0, check, args.check_time)
        print(f"audited {n}/{len(lost)} lost games: {len(misses)} misses", flush=True)
    wins = sum(r.score_of(0) == 1 for r in results)
    draws = sum(r.score_of(0) == 0.5 for r in results)
    score, low, high = score_interval(wins, draws, len(lost))
    summary = dict(a=args.a, b=args.b, games=len(results), scheduled=len(tasks), seed=args.seed,
                   check_time=args.check_time, won=wins, drawn=draws, lost=len(lost),
                   lost_by_push_off=sum(r.reason == "push-off" for r in lost), misses=misses)
    atomic_write_text(args.out / "audit.json", json.dumps(summary, indent=1) + "\n")
    print(f"{len(results)} of {len(tasks)} games. A {args.a} against B {args.b}: {wins}-{draws}-{len(lost)} "
          f"({score:.0%}, 95% {low:.0%}-{high:.0%}); "
          f"{len(misses)} misses in {len(lost)} lost games (a forced push-off a {args.check_time:g} s search sees)")
    for m in misses:
        print(f"  game {m['game']} ply {m['ply']}: {m['position']} played {m['played']} (loses in {m['loses_in']}; "
              f"{m['holds']} holds)")
    if args.depths:
        low, high = args.depths
        print(f"| game | loses in | {' | '.join(f'depth {d}' for d in range(low, high + 1))} |")
        print("|---|---|" + "---|" * (high - low + 1))
        for m in misses:
            pos = Position.from_string(m["position"])
            cells = []
            for d in range(low, high + 1):
                engine = make_player(f"engine:depth={d},nnue=builtin-nnue,threads=1,threats=1")
                cells.append("plays it" if engine.choose(pos).notation() == m["played"] else "avoids it")
            print(f"| {m['game']} | {m['loses_in']} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    run_main(main)
