"""The retrograde solver: the whole solve of a small variant, its phases, by thread count, against a compiled reference.

Run:  python bench/bench_solve.py [--side 3] [--marbles 5] [--win 2] [--inline-only] [--no-moves draw|loss]
                                  [--threads 1 2] [--rounds 3] [--no-verify]

For each thread count, ``--rounds`` pairs of solves from scratch, run alternately: the reference
(``bench/solve_reference.c``, an independently written C/OpenMP retrograde solver, compiled here with
``cc -O2 -fopenmp`` into a temporary folder; its threads set with ``OMP_NUM_THREADS``), then ours
(:func:`sumito.solve.solver.solve_values`, its threads set with ``numba.set_num_threads``). Each solve's
phases: the first pass (scoring the positions decided at once, counting every other position's moves)
and the levels (taking moves back); their sum is the solve. Without a C compiler with OpenMP the script
says so in one line and times ours alone.

It prints two markdown tables. The first, ours by thread count: the median solve's phases, positions
solved a second, the verification pass (every position recomputed from its successors, once per thread
count; ``--no-verify`` leaves it out), the table's digest (identical for every thread count) and the
speed-up over the first thread count. The second, ours against the reference: the median (and each
run's figure, in run order) of the first pass, the levels and the solve for both, the ratio of the
medians ours/reference, and whether the histograms of values (the count of each value, which does not
depend on how either solver numbers the positions) agree; they must agree exactly, or the script stops
with a one-line message and status 1. JIT compilation is done on a tiny variant before any timing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from sumito.cliargs import count_arg
from sumito.defaults import NO_MOVES_RULES
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.variants import Variant
from sumito.solve import retrograde as R
from sumito.solve.index import space
from sumito.solve.solver import CHUNK, solve_values
from sumito.stopping import STOP

REFERENCE_SOURCE = Path(__file__).with_name("solve_reference.c")
PHASES = ("first_pass_s", "levels_s", "total_s")


def timed_solve(variant: Variant, no_moves: str) -> tuple[np.ndarray, dict[str, float]]:
    """Our values and the seconds of the first pass, of the levels and of the whole solve."""
    marks: list[float] = []
    start = time.perf_counter()
    values = solve_values(variant, no_moves, on_level=lambda r: marks.append(time.perf_counter()))
    total = time.perf_counter() - start
    return values, {"first_pass_s": marks[0] - start, "levels_s": total - (marks[0] - start), "total_s": total}


def verify_seconds(variant: Variant, no_moves: str, values: np.ndarray) -> float:
    """The verification pass's seconds (every entry recomputed from its successors); stops on a mismatch."""
    sp = space(variant)
    geo = geometry(variant.side)
    t0 = time.perf_counter()
    bad, _ = R.verify(values, geo.cells, geo.offsets, geo.zobrist, sp.binom, sp.block_start, variant.marbles,
                      variant.win_threshold, variant.inline_only, no_moves == "loss", geo.empty_grid, 0, sp.size,
                      CHUNK, STOP)
    if bad:
        raise SystemExit(f"the table differs from its successors at {bad} positions")
    return time.perf_counter() - t0


def histogram(values: np.ndarray) -> dict[int, int]:
    """The count of each value."""
    vals, counts = np.unique(values, return_counts=True)
    return {int(v): int(c) for v, c in zip(vals, counts)}


def compile_reference(folder: Path) -> tuple[Path | None, str]:
    """The reference compiled into ``folder``, or ``None`` and why not."""
    cc = shutil.which("cc")
    if cc is None:
        return None, "no C compiler (cc) found"
    exe = folder / "solve_reference"
    try:
        done = subprocess.run([cc, "-O2", "-fopenmp", "-o", str(exe), str(REFERENCE_SOURCE)], capture_output=True,
                              text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"cc -O2 -fopenmp could not run ({exc})"
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        return None, f"cc -O2 -fopenmp failed: {first}"
    return exe, ""


def variant_args(variant: Variant, no_moves: str) -> list[str]:
    args = ["--side", str(variant.side), "--marbles", str(variant.marbles), "--win", str(variant.win_threshold),
            "--no-moves", no_moves]
    return [*args, "--inline-only"] if variant.inline_only else args


def run_reference(exe: Path, variant: Variant, no_moves: str, threads: int) -> dict:
    """One solve by the reference with ``threads`` OpenMP threads: its JSON report, the histogram's keys as ints."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    done = subprocess.run([str(exe), *variant_args(variant, no_moves)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"the reference solver failed: {done.stderr.strip() or f'status {done.returncode}'}")
    try:
        report = json.loads(done.stdout)
        report["histogram"] = {int(k): int(v) for k, v in report["histogram"].items()}
    except (ValueError, KeyError, AttributeError) as exc:
        raise SystemExit(f"the reference solver's report is not the JSON expected ({exc})") from None
    return report


def figures(runs: list[dict], key: str) -> str:
    """The median of one phase over the runs, then each run's figure when there are several."""
    xs = [r[key] for r in runs]
    med = f"{statistics.median(xs):.1f}"
    return med if len(xs) == 1 else f"{med} ({', '.join(f'{x:.1f}' for x in xs)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", type=count_arg(2, 3), default=3)
    ap.add_argument("--marbles", type=count_arg(1, 9), default=5)
    ap.add_argument("--win", type=count_arg(1, 9), default=2)
    ap.add_argument("--inline-only", action="store_true")
    ap.add_argument("--no-moves", choices=NO_MOVES_RULES, default="draw", help="what a side with no legal move gets")
    ap.add_argument("--threads", type=count_arg(1, 256), nargs="+", default=[1, numba.config.NUMBA_NUM_THREADS])
    ap.add_argument("--rounds", type=count_arg(1, 100), default=3, help="paired solves per thread count")
    ap.add_argument("--no-verify", action="store_true", help="leave out the verification pass")
    args = ap.parse_args()
    if args.win > args.marbles:
        ap.error(f"--win must be at most --marbles ({args.marbles}), not {args.win}")
    variant = Variant(side=args.side, marbles=args.marbles, win_threshold=args.win, inline_only=args.inline_only)
    tiny = Variant(side=2, marbles=2, win_threshold=1)
    timed_solve(tiny, args.no_moves)  # compile the kernels first
    verify_seconds(tiny, args.no_moves, solve_values(tiny, args.no_moves))
    size = space(variant).size
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores; {variant}, no moves: "
          f"{args.no_moves}: {size:,} positions")
    with tempfile.TemporaryDirectory(prefix="bench-solve-") as tmp:
        exe, why = compile_reference(Path(tmp))
        if exe is None:
            print(f"# reference: skipped, {why}")
        paired: list[tuple[int, list[dict], list[dict]]] = []
        ours_rows = []
        for asked in args.threads:
            threads = min(asked, numba.config.NUMBA_NUM_THREADS)  # the same count for both solvers
            numba.set_num_threads(threads)
            ours: list[dict] = []
            refs: list[dict] = []
            values = None
            for rnd in range(1, args.rounds + 1):
                note = ""
                if exe is not None:
                    ref = run_reference(exe, variant, args.no_moves, threads)
                    refs.append(ref)
                    note = f"reference {ref['total_s']:.1f} s, "
                values, times = timed_solve(variant, args.no_moves)
                ours.append(times)
                if exe is not None:
                    ours_hist = histogram(values)
                    if ref["positions"] != values.size or ref["histogram"] != ours_hist:
                        raise SystemExit(f"the value histograms differ at {threads} threads: ours {ours_hist}, "
                                         f"the reference's {ref['histogram']} ({ref['positions']:,} positions)")
                print(f"# {threads} threads, round {rnd}: {note}ours {times['total_s']:.1f} s", flush=True)
            assert values is not None
            check = None if args.no_verify else verify_seconds(variant, args.no_moves, values)
            digest = hashlib.sha256(values.astype(np.int8).tobytes()).hexdigest()[:16]
            ours_rows.append((threads, ours, check, digest))
            if exe is not None:
                paired.append((threads, ours, refs))
    print()
    print("| threads | first pass s | levels s | solve s | positions/s | verify s | digest | speed-up |")
    print("|---|---|---|---|---|---|---|---|")
    base = None
    for threads, ours, check, digest in ours_rows:
        first, levels, total = (statistics.median(r[k] for r in ours) for k in PHASES)
        base = base or total
        verify = "—" if check is None else f"{check:.1f}"
        print(f"| {threads} | {first:.1f} | {levels:.1f} | {total:.1f} | {size / total:,.0f} | {verify} | "
              f"{digest} | {base / total:.2f}× |")
    if not paired:
        return
    print()
    print(f"Ours against the reference (bench/solve_reference.c), median of {args.rounds} paired run(s), seconds:")
    print()
    print("| threads | ours first pass | ours levels | ours solve | reference first pass | reference levels | "
          "reference solve | ours/reference | histograms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for threads, ours, refs in paired:
        ratio = statistics.median(r["total_s"] for r in ours) / statistics.median(r["total_s"] for r in refs)
        cells = [figures(ours, k) for k in PHASES] + [figures(refs, k) for k in PHASES]
        print(f"| {threads} | {' | '.join(cells)} | {ratio:.2f}× | agree |")


if __name__ == "__main__":
    main()
