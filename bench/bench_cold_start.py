"""Cold start: the README's first game on a fresh install (an empty numba cache), before and after, in one run.

Run:  python bench/bench_cold_start.py [--baseline REV] [--runs 2] [--command "sumito game ..."]

A fresh install has no compiled kernels: its first command compiles the ones it calls (numba, cached on
disk afterwards). This script plays the README's first command (read from the README's first code
block, so that it measures what a newcomer types) with ``NUMBA_CACHE_DIR`` pointing at an empty
folder, from this checkout and from ``--baseline`` (a git revision, checked out into a temporary
worktree), alternating, ``--runs`` times each, then once more warm (the cache filled). For each it
prints the wall time to the first move on stderr, to the end of the game, and the CPU time. The two
trees run one after the other in the same session, so they see the same machine and load.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_command() -> list[str]:
    """The ``sumito ...`` line of the README's first code block."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block is not None, "the README has no bash block"
    for line in block.group(1).splitlines():
        if line.startswith("sumito "):
            return shlex.split(line)[1:]
    raise SystemExit("the README's first block has no sumito command")


def run_once(src: Path, argv: list[str], cache: str) -> tuple[float, float, float, list[str]]:
    """(seconds to the first move line, seconds to the end, CPU seconds, stderr lines) of one run."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(src), SUMITO_THREADS="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "sumito", *argv], cwd=tempfile.gettempdir(), env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first: list[float] = []
    lines: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line.rstrip())
            if not first and re.match(r"\s*1\. ", line):
                first.append(time.perf_counter() - start)

    reader = threading.Thread(target=read)
    reader.start()
    proc.wait()
    reader.join()
    total = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{src}: exit {proc.returncode}: {lines[-1:] if lines else ''}")
    return (first[0] if first else float("nan")), total, cpu, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="89a00fe", help="the git revision to compare with (default: 89a00fe, "
                        "the tree before issue 29's cold-start work)")
    parser.add_argument("--runs", type=int, default=2, help="cold runs of each tree")
    parser.add_argument("--command", default=None, help="the sumito command (default: the README's first)")
    parser.add_argument("--json", action="store_true", help="end with this tree's medians as one JSON line "
                        "(tools/readme_samples.py --measure cold reads it)")
    args = parser.parse_args()
    argv = shlex.split(args.command)[1:] if args.command else readme_command()

    with tempfile.TemporaryDirectory(prefix="sumito-cold-") as tmp:
        worktree = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(worktree), args.baseline],
                       check=True, capture_output=True)
        try:
            trees = {f"baseline {args.baseline}": worktree / "src", "this tree": ROOT / "src"}
            results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in trees}
            warm: dict[str, tuple[float, float, float]] = {}
            notices: dict[str, str] = {}
            print(f"command: sumito {shlex.join(argv)}; {os.cpu_count()} CPUs; {args.runs} cold run(s) a tree")
            for i in range(args.runs):
                for name, src in trees.items():
                    cache = tempfile.mkdtemp(dir=tmp)
                    first, total, cpu, lines = run_once(src, argv, cache)
                    results[name].append((first, total, cpu))
                    notices[name] = next((line for line in lines if "compil" in line), "(no notice)")
                    print(f"  {name:<24} cold run {i + 1}: first move {first:6.2f} s, game {total:6.2f} s, "
                          f"CPU {cpu:6.2f} s", flush=True)
                    if i == args.runs - 1:
                        warm[name] = run_once(src, argv, cache)[:3]
            print()
            print(f"{'tree':<24} | {'first move, cold':>16} | {'game, cold':>10} | {'CPU, cold':>9} | "
                  f"{'game, warm':>10}")
            for name in trees:
                rows = results[name]
                print(f"{name:<24} | {statistics.median(r[0] for r in rows):14.2f} s | "
                      f"{statistics.median(r[1] for r in rows):8.2f} s | {statistics.median(r[2] for r in rows):7.2f} s"
                      f" | {warm[name][1]:8.2f} s")
            print("(medians of the cold runs)")
            for name in trees:
                print(f"notice on stderr, {name}: {notices[name]}")
            if args.json:
                rows = results["this tree"]
                print(json.dumps({
                    "command": "sumito " + shlex.join(argv), "runs": args.runs, "baseline": args.baseline,
                    "first_move_cold_s": round(statistics.median(r[0] for r in rows), 2),
                    "first_game_cold_s": round(statistics.median(r[1] for r in rows), 2),
                    "cpu_cold_s": round(statistics.median(r[2] for r in rows), 2),
                    "first_game_warm_s": round(warm["this tree"][1], 2),
                    "baseline_first_game_cold_s": round(statistics.median(r[1] for r in results[next(iter(trees))]), 2),
                }))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)],
                           capture_output=True)


if __name__ == "__main__":
    main()
