"""The engine's search in two source trees, side by side: node counts at fixed depth, and speed paired run by run.

Run:  python bench/bench_two_trees.py OLD_SRC NEW_SRC [--runs 5] [--depth 6] [--nnue builtin-nnue]

OLD_SRC and NEW_SRC are two checkouts' ``src`` folders (e.g. ``git worktree add /tmp/old HEAD~1`` and this
tree's ``src``). Each run is a fresh process per tree, the two trees in turn (old, new, old, new, ...), that
loads the kernels (from each tree's own cache, compiled on its first run), then searches the positions of
``bench_search.py`` (made once, by this process) to a fixed depth with one thread and a cold table, ``--repeat``
times, and keeps the fastest repeat's seconds: the hand-set linear evaluation and the NNUE,
each at the engine's default search level. It prints, per position, both trees' node counts (which must be
equal: a change of code that keeps the search's meaning keeps them), and per run pair the ratio of the
trees' search seconds (new / old; the compile or cache load is not in it). The summary is the median ratio
with the smallest and largest, so one noisy run does not decide it. Beside the search, each run times perft(4)
from the standard start (the rules' kernels alone, the fastest of ``--repeat``) and reports the seconds it spent
compiling: 0 on every run after a tree's first shows its kernels loaded from the cache in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_search import bench_positions
from sumito.cliargs import count_arg

#: what each run does in its own process (the tree under test first on the path)
CHILD = r"""
import json, sys, time
from sumito.evaluation import named_evaluation
from sumito.evaluation.features import EVAL_NNUE
from sumito.evaluation.nnue import load_network
from sumito.games.abalone import Position
from sumito.search.context import SearchContext
from sumito.search.pvs import Searcher

ev = named_evaluation("linear")
evaluations = [("linear", ev.kind, ev.params)]
if {nnue!r} != "none":
    evaluations.append(("nnue", EVAL_NNUE, load_network({nnue!r}).params()))
warm = Position.start()
for _, kind, params in evaluations:  # the kernels loaded (or compiled) before anything is timed
    Searcher(kind, params, 1 << 10).search(SearchContext.of(warm), warm.legal_move_codes(), max_depth=2,
                                           predict=False)
warm.perft(2)
from sumito.jit import compile_seconds
compiled = compile_seconds()  # 0 when every kernel came from the cache
perft_best = None
for _ in range({repeat}):  # the rules' kernels alone: perft(4) from the standard start
    t = time.perf_counter()
    leaves = warm.perft(4)
    perft_best = time.perf_counter() - t if perft_best is None else min(perft_best, time.perf_counter() - t)
best = None
for _ in range({repeat}):  # the fastest of the repeats: a slow moment of the machine is not the code's
    rows, seconds = [], 0.0
    for name, text in json.load(open({positions!r})):
        pos = Position.from_string(text)
        for label, kind, params in evaluations:
            searcher = Searcher(kind, params, 1 << 20)
            t = time.perf_counter()
            r = searcher.search(SearchContext.of(pos), pos.legal_move_codes(), max_depth={depth}, predict=False,
                                quick_single=False)
            seconds += time.perf_counter() - t
            rows.append([name, label, int(r.nodes), int(r.move), float(r.score)])
    best = seconds if best is None else min(best, seconds)
seconds = best
import sumito
print(json.dumps({{"rows": rows, "seconds": seconds, "package": sumito.__file__, "perft": leaves,
                  "perft_seconds": perft_best, "compiled": compiled}}))
"""


def run_tree(src: Path, depth: int, nnue: str, repeat: int, positions: Path) -> dict:
    code = CHILD.format(depth=depth, nnue=nnue, repeat=repeat, positions=str(positions))
    env = dict(os.environ, PYTHONPATH=str(src))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"bench_two_trees: the run in {src} failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(result["package"]).resolve().is_relative_to(src.resolve()):
        sys.exit(f"bench_two_trees: the run meant for {src} imported {result['package']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the baseline tree's src folder")
    parser.add_argument("new", type=Path, help="the changed tree's src folder")
    parser.add_argument("--runs", type=count_arg(1, 100), default=5, help="run pairs (default 5)")
    parser.add_argument("--depth", type=count_arg(1, 12), default=6, help="the fixed depth (default 6)")
    parser.add_argument("--nnue", default="builtin-nnue", help="the NNUE searched too (none: hand-set only)")
    parser.add_argument("--repeat", type=count_arg(1, 100), default=3,
                        help="searches of every position in a run; its figure is the fastest (default 3)")
    args = parser.parse_args()
    for tree in (args.old, args.new):
        if not (tree / "sumito" / "__init__.py").is_file():
            parser.error(f"{tree} is not a src folder holding the sumito package")
    # the positions once, as strings, from this process's tree: both trees search the same ones
    positions = Path(tempfile.mkdtemp()) / "positions.json"
    positions.write_text(json.dumps([(name, pos.to_string()) for name, pos in bench_positions()]))
    ratios, perft_ratios, first = [], [], None
    for k in range(args.runs):
        old = run_tree(args.old, args.depth, args.nnue, args.repeat, positions)
        new = run_tree(args.new, args.depth, args.nnue, args.repeat, positions)
        if first is None:
            first = (old, new)
        ratios.append(new["seconds"] / old["seconds"])
        perft_ratios.append(new["perft_seconds"] / old["perft_seconds"])
        print(f"run {k + 1}: search old {old['seconds']:.3f} s, new {new['seconds']:.3f} s, new/old {ratios[-1]:.4f};"
              f" perft(4) new/old {perft_ratios[-1]:.4f}; compiling old {old['compiled']:.1f} s, new "
              f"{new['compiled']:.1f} s", flush=True)
    old, new = first
    print(f"\nnode counts at depth {args.depth} (old | new), one thread, cold table:")
    same = True
    for a, b in zip(old["rows"], new["rows"], strict=True):
        equal = a[2:] == b[2:]
        same &= equal
        print(f"  {a[0][:50]:<50} {a[1]:<8} {a[2]:>12,} | {b[2]:>12,} {'' if equal else '  DIFFERENT'}")
    same_perft = old["perft"] == new["perft"]
    print(f"  perft(4) from the standard start: {old['perft']:,} | {new['perft']:,}")
    same &= same_perft
    print(f"\nnode counts, best moves, scores and perft {'identical' if same else 'DIFFER'} in every position")
    print(f"search seconds new/old over {args.runs} paired runs: median {statistics.median(ratios):.4f} "
          f"(min {min(ratios):.4f}, max {max(ratios):.4f})")
    print(f"perft(4) seconds new/old over {args.runs} paired runs: median {statistics.median(perft_ratios):.4f} "
          f"(min {min(perft_ratios):.4f}, max {max(perft_ratios):.4f})")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
