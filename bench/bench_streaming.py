"""Streaming and analysis cost: info lines on vs off, and `analyse --depth N` vs `go depth N`.

Run:  python bench/bench_streaming.py [--depth 7] [--repeat 3]

1. Streaming: the same fixed-depth search (a fresh table each run, so both searches visit the very
   same nodes: the node counts are checked equal) without a per-iteration callback and with the
   protocol's callback (``sumito.protocol.info_lines`` formatted and written, under a lock and
   flushed, as ``sumito engine`` does). Runs alternate off/on, ``--repeat`` times each; the table
   shows the fastest run of each (the least disturbed by other work on the machine) and the
   difference. The budget: streaming may cost at most 2%.
2. Analysis: ``engine:depth=N`` choosing a move (what ``go depth N`` runs), the protocol's
   ``go depth N`` end to end (command parsing, the search thread, streamed info lines), and
   ``sumito.analysis.analyse_position(depth=N)`` (what ``sumito analyse --depth N`` runs), each
   with a fresh engine; depth reached, nodes and the fastest time. Then MultiPV 3 for its cost.

Positions: those of bench/bench_search.py (two starts, two mid-game positions of engine
self-play). Single-threaded; JIT warm-up is timed and reported separately.
"""

from __future__ import annotations

import argparse
import io
import platform
import threading
import time

from bench_search import bench_positions
from sumito.analysis import analyse_position
from sumito.evaluation import named_evaluation
from sumito.games.abalone import Position
from sumito.players import make_player
from sumito.protocol import EngineProtocol, info_lines
from sumito.search.context import SearchContext
from sumito.search.pvs import Searcher

HASH_ENTRIES = 1 << 20  # the engine's default 32 MB table


def streaming_search(pos: Position, depth: int, stream: bool) -> tuple[float, int, int, float]:
    """(seconds, nodes, info lines, seconds of streaming work) of one fixed-depth search with a cold
    table. The streaming work is measured directly: the time inside the callback, plus the
    principal-variation walks that the search makes for it (timed again afterwards on the same
    table), so it is a figure free of the machine's noise."""
    ev = named_evaluation("linear")
    searcher = Searcher(ev.kind, ev.params, HASH_ENTRIES, 20.0)
    out, lock, board_side = io.StringIO(), threading.Lock(), pos.variant.side
    spent = [0.0]
    moves = []

    def callback(result) -> None:  # what EngineProtocol._think's callback does
        t0 = time.perf_counter()
        lines = info_lines(result, board_side, 1000.0, False)
        with lock:
            for line in lines:
                out.write(line + "\n")
            out.flush()
        moves.append(result.move)
        spent[0] += time.perf_counter() - t0

    ctx = SearchContext.of(pos)
    t = time.perf_counter()
    r = searcher.search(ctx, pos.legal_move_codes(), max_depth=depth, on_iteration=callback if stream else None)
    elapsed = time.perf_counter() - t
    t0 = time.perf_counter()
    for move in moves:
        searcher.principal_variation(ctx, move)
    spent[0] += time.perf_counter() - t0
    return elapsed, r.nodes, out.getvalue().count("\n"), spent[0]


def go_player(pos: Position, depth: int) -> tuple[float, int, int]:
    player = make_player(f"engine:depth={depth},nnue=none")
    t = time.perf_counter()
    player.choose(pos)
    return time.perf_counter() - t, player.last.depth, player.last.nodes


def go_protocol(pos: Position, depth: int) -> tuple[float, int, int]:
    commands = f"position {pos.to_string()}\ngo depth {depth}\n"
    out = io.StringIO()
    proto = EngineProtocol("engine", io.StringIO(commands), out)
    t = time.perf_counter()
    proto.run()
    elapsed = time.perf_counter() - t
    last = [line.split() for line in out.getvalue().splitlines() if line.startswith("info depth")][-1]
    return elapsed, int(last[2]), int(last[last.index("nodes") + 1])


def analyse(pos: Position, depth: int, top: int = 1) -> tuple[float, int, int]:
    engine = make_player("engine")
    t = time.perf_counter()
    result = analyse_position(pos, depth=depth, top=top, engine=engine)
    return time.perf_counter() - t, result.depth, result.nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    t = time.perf_counter()
    warm = Position.start("mini")
    streaming_search(warm, 3, True)
    analyse(warm, 3, top=2)
    go_protocol(warm, 2)
    warmup = time.perf_counter() - t
    positions = bench_positions()
    print(f"streaming benchmark — {platform.processor() or platform.machine()}, python "
          f"{platform.python_version()}, one search thread; depth {args.depth}, fastest of {args.repeat}")
    print(f"JIT warm-up (compile or load cache): {warmup:.2f} s, not included below")
    print()
    w = 56
    header = (f"{'position':<{w}} | {'nodes':>9} {'lines':>5} | {'off (s)':>8} {'on (s)':>8} {'on-off':>7} | "
              f"{'streaming work':>14}")
    print(header)
    print("-" * len(header))
    total_off = total_on = total_work = 0.0
    for name, pos in positions:
        off, on, work = [], [], []
        for _ in range(args.repeat):  # alternate, so that a busy spell hits both alike
            s, n_off, _, _ = streaming_search(pos, args.depth, False)
            off.append(s)
            s, n_on, count, spent = streaming_search(pos, args.depth, True)
            on.append(s)
            work.append(spent)
            assert n_off == n_on, "streaming changed the search"
        total_off, total_on, total_work = total_off + min(off), total_on + min(on), total_work + min(work)
        print(f"{name:<{w}} | {n_off:>9,} {count:>5} | {min(off):>8.3f} {min(on):>8.3f} "
              f"{100 * (min(on) / min(off) - 1):>+6.1f}% | {1000 * min(work):>7.2f} ms "
              f"{100 * min(work) / min(off):>4.2f}%")
    print(f"{'all positions':<{w}} | {'':>9} {'':>5} | {total_off:>8.3f} {total_on:>8.3f} "
          f"{100 * (total_on / total_off - 1):>+6.1f}% | {1000 * total_work:>7.2f} ms "
          f"{100 * total_work / total_off:>4.2f}%")
    print()
    names = ("go depth N (player)", "go depth N (protocol)", "analyse --depth N", "analyse --top 3")
    header = f"{'position':<{w}} | " + " | ".join(f"{n:>21}" for n in names)
    print(header)
    print(f"{'':<{w}} | " + " | ".join(f"{'depth':>5} {'nodes':>9} {'s':>5}" for _ in names))
    print("-" * len(header))
    for name, pos in positions:
        cells = []
        for fn, top in ((go_player, 1), (go_protocol, 1), (analyse, 1), (analyse, 3)):
            runs = [fn(pos, args.depth) if fn is not analyse else fn(pos, args.depth, top) for _ in range(args.repeat)]
            seconds, depth, nodes = min(runs)
            cells.append(f"{depth:>5} {nodes:>9,} {seconds:>5.2f}")
        print(f"{name:<{w}} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
