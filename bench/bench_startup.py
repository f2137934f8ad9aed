"""Start-up: what ``sumito --help``, ``--version`` and every ``sumito COMMAND --help`` cost before any work,
beside ``python -c "import chess"`` (python-chess), run by run.

Run:  pip install -e '.[bench]'   (python-chess, pinned)
      python bench/bench_startup.py [--runs 7] [--commands play perft ...]

Each round runs the peer's import and then each Sumito command once, as fresh processes, in a shuffled order,
and reads each one's CPU time (user + system, from the operating system's accounting of the child) and its
wall time. The figures are the median over the rounds; the ratio column is the median of each round's own
ratio to the peer in that round, so a busy moment slows both sides of a pair alike. The goal: at most 2x the
peer's CPU for every line.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time

from sumito.cli.table import COMMANDS

PEER = [sys.executable, "-c", "import chess"]
#: the installed ``sumito`` program, as a user starts it (else ``python -m sumito``)
_SCRIPT = os.path.join(os.path.dirname(sys.executable), "sumito")
SUMITO = [_SCRIPT] if os.access(_SCRIPT, os.X_OK) else [sys.executable, "-m", "sumito"]


def cpu_and_wall(argv: list[str]) -> tuple[float, float]:
    """One run of ``argv``: (CPU seconds of the child, user + system; wall seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"bench_startup: {' '.join(argv)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--commands", nargs="+", default=None, metavar="COMMAND",
                        help="the commands whose --help is timed (default: every command)")
    parser.add_argument("--seed", type=int, default=1, help="the order of each round (default 1)")
    args = parser.parse_args()
    try:
        import chess  # noqa: F401
    except ImportError:
        raise SystemExit("bench_startup: python-chess is not installed: pip install -e '.[bench]'") from None
    commands = args.commands or list(COMMANDS)
    cases = {"--help": ["--help"], "--version": ["--version"]}
    cases.update({f"{name} --help": [name, "--help"] for name in commands})
    rng = random.Random(args.seed)
    cpu: dict[str, list[float]] = {name: [] for name in ["peer", *cases]}
    wall: dict[str, list[float]] = {name: [] for name in ["peer", *cases]}
    ratio: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        order = list(cases)
        rng.shuffle(order)
        peer_cpu, peer_wall = cpu_and_wall(PEER)
        cpu["peer"].append(peer_cpu)
        wall["peer"].append(peer_wall)
        for name in order:
            c, w = cpu_and_wall(SUMITO + cases[name])
            cpu[name].append(c)
            wall[name].append(w)
            ratio[name].append(c / peer_cpu if peer_cpu > 0 else float("inf"))
    print(f"{platform.python_implementation()} {platform.python_version()} on {os.cpu_count()} CPUs; "
          f"{args.runs} rounds; medians")
    print(f"{'command':<28}{'CPU s':>8}{'wall s':>8}{'CPU / peer':>12}")
    print(f"{'python -c import chess':<28}{statistics.median(cpu['peer']):8.3f}{statistics.median(wall['peer']):8.3f}"
          f"{'1.00':>12}")
    worst = 0.0
    for name in cases:
        r = statistics.median(ratio[name])
        worst = max(worst, r)
        print(f"{'sumito ' + name:<28}{statistics.median(cpu[name]):8.3f}{statistics.median(wall[name]):8.3f}"
              f"{r:12.2f}")
    print(f"worst ratio {worst:.2f} (goal: at most 2.00)")


if __name__ == "__main__":
    main()
