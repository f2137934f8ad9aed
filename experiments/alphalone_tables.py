"""Alphalone report (Hakim & Zhou 2019), Tables 1 and 2: TD-trained agents against each other.

    python experiments/alphalone_tables.py --workers 2            # the report's counts
    python experiments/alphalone_tables.py --games 4 --time-games 2 --train-games 20   # quick look

1. Trains the report's four agents by TD(0) (:mod:`sumito.learn.alphalone_td`): step sizes
   η = 1e-2, 1e-3, 1e-4, 1e-5 (agents 1–4), ``--train-games`` games each (the report's 100
   "iterations"), γ = 0.2, the same hand-set initial weights, on the ``--layout`` (mini), every
   agent with the training seed ``--seed``. The weights files go to ``--weights-dir`` (default:
   a temporary folder, removed at the end).
2. Table 1: every agent as Black against every agent as White (the diagonal too), ``--games``
   games each (the report: 20), as ``alphalone:depth=D,weights=FILE`` players (the report's
   search: thresholds, move ordering, a random pick between the two best moves). Each cell
   gives the percentage of games Black won and the average game length in plies ("moves"),
   with the draws (threefold repetition or the arena's 400-ply cap) in brackets when any.
3. Table 2: agent 2 as Black against agent 3 as White, ``--time-games`` games (the report: 10)
   for every time limit of ``--limits`` (``alphalone:time=T``) on one side, the other side
   unlimited, plus a row without limits; the percentage of games Black won.

Games go through the arena: :func:`~sumito.arena.match.schedule` builds them (from the start
position unless ``--opening-plies``; every game has its own seed, derived from ``--seed``, for
the players' random choice between their two best moves), :func:`~sumito.arena.match.play_game`
plays them in ``--workers`` processes, :func:`~sumito.arena.match.summarize_pair` counts. The
same seed gives the same weights and, except where a time limit binds (wall-clock time), the
same games. Output: Markdown tables (see docs/results-alphalone.md).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

from sumito.arena.executor import make_executor
from sumito.arena.match import ArenaSettings, derive_seed, play_game, schedule, summarize_pair
from sumito.engine import SumitoError
from sumito.evaluation.features import ALPHALONE_FEATURES
from sumito.learn.alphalone_td import REPORT_ETAS, TDConfig, train

DEFAULT_LIMITS = (1.0, 0.1, 0.01, 0.001, 0.0001)
DEFAULT_SEED = 2019


def eta_label(eta: float) -> str:
    exp = math.log10(eta)
    return f"1e{round(exp)}" if abs(exp - round(exp)) < 1e-9 else f"{eta:g}"


def cell_tasks(black: str, white: str, games: int, settings: ArenaSettings) -> list:
    """``games`` arena games with ``black`` always Black (the schedule alternates colours, so ask
    for twice as many and keep those with the first player Black; the others are never played)."""
    return [t for t in schedule([black, white], 2 * games, settings) if t.black_id == 0]


def markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20, help="games per Table 1 cell (the report: 20)")
    p.add_argument("--time-games", type=int, default=10, help="games per Table 2 cell (the report: 10)")
    p.add_argument("--train-games", type=int, default=100, help="TD training games per agent (the report: 100)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"training and game seed (default {DEFAULT_SEED})")
    p.add_argument("--layout", default="mini", help="board (the report: mini)")
    p.add_argument("--depth", type=int, default=2, help="alphalone search depth per player (default 2 = 4 plies)")
    p.add_argument(
        "--limits",
        default=",".join(f"{t:g}" for t in DEFAULT_LIMITS),
        help="Table 2's time limits in seconds, comma-separated",
    )
    p.add_argument("--opening-plies", type=int, default=0, help="random opening plies per game pair (default 0)")
    p.add_argument("--workers", type=int, default=None, help="game processes (default: all cores)")
    p.add_argument("--weights-dir", default=None, help="keep the trained weights files here")
    args = p.parse_args(argv)
    for name in ("games", "time_games", "train_games"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.depth < 1:
        p.error("--depth must be at least 1")
    try:
        args.limits = tuple(float(x) for x in args.limits.split(",") if x.strip())
    except ValueError:
        p.error(f"--limits must be comma-separated seconds, not {args.limits!r}")
    if not args.limits or any(not t > 0 for t in args.limits):
        p.error("--limits must be positive seconds")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    tmp = None
    if args.weights_dir:
        folder = Path(args.weights_dir)
        folder.mkdir(parents=True, exist_ok=True)
    else:
        tmp = folder = Path(tempfile.mkdtemp(prefix="alphalone-agents-"))
    try:
        return run(args, folder, t_start)
    except SumitoError as exc:
        print(f"alphalone_tables: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def run(args: argparse.Namespace, folder: Path, t_start: float) -> int:
    # ---------------------------------------------------------------- training
    agents = []  # (label, weights path)
    train_rows = []
    weight_rows = {name: [name] for name in ALPHALONE_FEATURES}
    for k, eta in enumerate(REPORT_ETAS, start=1):
        config = TDConfig(eta=eta, games=args.train_games, layout=args.layout, seed=args.seed)
        result = train(config)
        path = folder / f"agent{k}-eta{eta_label(eta)}.json"
        result.weights.save(path)
        agents.append((f"Agent {k} (η={eta_label(eta)})", str(path)))
        o = result.outcomes
        train_rows.append(
            [
                f"Agent {k}",
                eta_label(eta),
                str(args.train_games),
                f"{o['black']}/{o['white']}/{o['draw']}",
                f"{result.plies / args.train_games:.1f}",
                str(result.clipped),
            ]
        )
        for name, b, w in zip(ALPHALONE_FEATURES, result.weights.black, result.weights.white):
            weight_rows[name].append(f"{b:.3f} / {w:.3f}")
        print(f"trained agent {k} (eta {eta:g}) in {result.seconds:.1f} s", file=sys.stderr)

    def spec(k: int, limit: float | None = None) -> str:
        parts = [f"depth={args.depth}"]
        if limit is not None:
            parts.append(f"time={limit:g}")
        parts.append(f"weights={agents[k][1]}")
        return "alphalone:" + ",".join(parts)

    def settings(*key: int) -> ArenaSettings:
        return ArenaSettings.from_layout(
            args.layout, opening_plies=args.opening_plies, seed=derive_seed(args.seed, *key)
        )

    # ---------------------------------------------------------------- the games
    cells: dict[tuple, list] = {}
    n = len(agents)
    for b in range(n):
        for w in range(n):
            cells[("t1", b, w)] = cell_tasks(spec(b), spec(w), args.games, settings(1, b, w))
    cells[("t2", "none")] = cell_tasks(spec(1), spec(2), args.time_games, settings(2, 0))
    for i, limit in enumerate(args.limits, start=1):
        cells[("t2", "black", limit)] = cell_tasks(spec(1, limit), spec(2), args.time_games, settings(2, i, 1))
        cells[("t2", "white", limit)] = cell_tasks(spec(1), spec(2, limit), args.time_games, settings(2, i, 2))
    keys, tasks = [], []
    for key, cell in cells.items():
        keys += [key] * len(cell)
        tasks += cell
    results: dict[tuple, list] = {key: [] for key in cells}
    executor = make_executor(args.workers)
    print(f"playing {len(tasks)} games with {executor.workers} worker(s)", file=sys.stderr)
    t0 = time.perf_counter()
    with contextlib.closing(executor.run(play_game, tasks)) as stream:
        for done, (i, result) in enumerate(stream, start=1):
            results[keys[i]].append(result)
            if done % 50 == 0 or done == len(tasks):
                print(f"  {done}/{len(tasks)} games, {time.perf_counter() - t0:.0f} s", file=sys.stderr)

    def black_share(key: tuple) -> tuple[str, float]:
        s = summarize_pair(results[key], 0, 1)
        wins, draws, _ = s.as_black
        text = f"{100 * wins / s.games:.0f}%"
        return (text + (f" ({draws} drawn)" if draws else "")), s.average_plies

    # ---------------------------------------------------------------- tables
    print(f"**Training** ({args.train_games} games per agent on the {args.layout} board, seed {args.seed}, "
          f"γ = 0.2, N = {TDConfig(layout=args.layout).utility_scale:g}, 1-ply greedy self-play)\n")
    print(markdown(["agent", "η", "games", "Black/White/drawn wins", "plies a game", "clipped updates"], train_rows))
    print("\n**Learned weights** (Black's / White's, each from its own side)\n")
    print(markdown(["feature"] + [f"Agent {k}" for k in range(1, n + 1)], list(weight_rows.values())))
    print(
        f"\n**Table 1**: percentage of games Black won and the average game length in plies; "
        f"{args.games} games a cell, alphalone depth {args.depth}, {args.layout} board\n"
    )
    rows = []
    for w in range(n):
        row = [agents[w][0]]
        for b in range(n):
            share, plies = black_share(("t1", b, w))
            row.append(f"{share}, {plies:.1f} plies")
        rows.append(row)
    print(markdown(["White \\ Black"] + [label for label, _ in agents], rows))
    print(
        f"\n**Table 2**: percentage of games Black won, {agents[1][0]} as Black against {agents[2][0]} as White, "
        f"{args.time_games} games a cell; the time limit (`alphalone:time=T`) on one side only, and that side's "
        "mean thinking time a move (ms)\n"
    )
    def move_ms(key: tuple, black: bool) -> str:
        s = summarize_pair(results[key], 0, 1)
        return f"{1000 * (s.move_time_a if black else s.move_time_b):.2f}"

    none_share, _ = black_share(("t2", "none"))
    none_key = ("t2", "none")
    rows = [["None", none_share, move_ms(none_key, True), none_share, move_ms(none_key, False)]]
    for limit in args.limits:
        kb, kw = ("t2", "black", limit), ("t2", "white", limit)
        rows.append([f"{limit:g}", black_share(kb)[0], move_ms(kb, True), black_share(kw)[0], move_ms(kw, False)])
    head = ["time limit (s)", "Black limited", "its ms a move", "White limited", "its ms a move"]
    print(markdown(head, rows))
    print(f"\n({len(tasks)} games, {time.perf_counter() - t_start:.0f} s in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
