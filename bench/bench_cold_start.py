"""Cold start: the README's first game on a fresh install (an empty numba cache), a baseline beside this tree.

Run:  python bench/bench_cold_start.py [--baseline REV] [--runs 2] [--command "sumito game ..."] [--pip]

A fresh numba cache holds no compiled kernels: ``pip install`` compiles those of the README's
first game ahead (tools/build_backend.py runs ``python -m sumito.players.precompile`` in pip's build
environment); without that step the first command compiles the ones it calls (numba, cached on disk afterwards).
This script plays the README's first command (read from the README's first code block, so that it
measures what a newcomer types) with ``NUMBA_CACHE_DIR`` pointing at an empty folder, from
``--baseline`` (a git revision, checked out into a temporary worktree) and from this checkout — once
as the install leaves it (the precompile step first, timed apart: what it adds to ``pip install``) and
once without it (``SUMITO_PRECOMPILE=0``: the first game compiles) — alternating, ``--runs`` times each,
then once more warm. For each it prints the wall time to the first move on stderr, to the end of the
game, and the CPU time. The trees run one after the other in the same session, so they see the same
machine and load. ``--pip`` adds the real thing once: ``pip install -e .`` of this checkout into a fresh
virtual environment (packages from pip's cache), with and without the precompile, each followed by
the first game.
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


def precompile_once(src: Path, cache: str, python: str = sys.executable) -> float:
    """Seconds of the install's compile step (``python -m sumito.players.precompile``) into ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(src), SUMITO_COMPILE_NOTICE="0")
    start = time.perf_counter()
    subprocess.run([python, "-m", "sumito.players.precompile"], env=env, check=True, capture_output=True,
                   cwd=tempfile.gettempdir())
    return time.perf_counter() - start


def run_once(src: Path | None, argv: list[str], cache: str,
             python: str = sys.executable) -> tuple[float, float, float, list[str]]:
    """(seconds to the first move line, seconds to the end, CPU seconds, stderr lines) of one run (``src``:
    the package's source folder, None: the one ``python`` has installed)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, SUMITO_THREADS="1")
    env.pop("PYTHONPATH", None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen([python, "-m", "sumito", *argv], cwd=tempfile.gettempdir(), env=env,
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


def pip_install(tmp: str, argv: list[str], precompile: bool) -> tuple[float, float, float]:
    """(seconds of ``pip install -e .`` into a fresh venv, seconds to the first move, of the game) with an
    empty numba cache, the install precompiling or not."""
    venv = Path(tempfile.mkdtemp(dir=tmp)) / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    cache = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, SUMITO_PRECOMPILE="1" if precompile else "0")
    env.pop("PYTHONPATH", None)
    start = time.perf_counter()
    subprocess.run([python, "-m", "pip", "install", "--quiet", "-e", str(ROOT)], env=env, check=True)
    install = time.perf_counter() - start
    first, total, _cpu, _lines = run_once(None, argv, cache, python=python)
    return install, first, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="89a00fe", help="the git revision to compare with (default: 89a00fe, "
                        "a tree without the cold-start savings measured here)")
    parser.add_argument("--runs", type=int, default=2, help="cold runs of each tree")
    parser.add_argument("--command", default=None, help="the sumito command (default: the README's first)")
    parser.add_argument("--pip", action="store_true", help="also time real installs into fresh venvs")
    parser.add_argument("--json", action="store_true", help="end with this tree's medians as one JSON line "
                        "(tools/readme_samples.py --measure cold reads it)")
    args = parser.parse_args()
    argv = shlex.split(args.command)[1:] if args.command else readme_command()

    with tempfile.TemporaryDirectory(prefix="sumito-cold-") as tmp:
        worktree = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(worktree), args.baseline],
                       check=True, capture_output=True)
        try:
            # name -> (source folder, whether the install precompiles)
            trees = {f"baseline {args.baseline}": (worktree / "src", False),
                     "this tree, no precompile": (ROOT / "src", False),
                     "this tree, as installed": (ROOT / "src", True)}
            results: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in trees}
            warm: dict[str, tuple[float, float, float]] = {}
            notices: dict[str, str] = {}
            print(f"command: sumito {shlex.join(argv)}; {os.cpu_count()} CPUs; {args.runs} cold run(s) a tree")
            for i in range(args.runs):
                for name, (src, ahead) in trees.items():
                    cache = tempfile.mkdtemp(dir=tmp)
                    install = precompile_once(src, cache) if ahead else 0.0
                    first, total, cpu, lines = run_once(src, argv, cache)
                    results[name].append((install, first, total, cpu))
                    notices[name] = next((line for line in lines if "compil" in line), "(no notice)")
                    print(f"  {name:<26} cold run {i + 1}: install's compile {install:6.2f} s, first move "
                          f"{first:6.2f} s, game {total:6.2f} s, CPU {cpu:6.2f} s", flush=True)
                    if i == args.runs - 1:
                        warm[name] = run_once(src, argv, cache)[:3]
            print()
            print(f"{'tree':<26} | {'install compile':>15} | {'first move, cold':>16} | {'game, cold':>10} | "
                  f"{'CPU, cold':>9} | {'game, warm':>10}")
            for name in trees:
                rows = results[name]
                med = [statistics.median(r[k] for r in rows) for k in range(4)]
                print(f"{name:<26} | {med[0]:13.2f} s | {med[1]:14.2f} s | {med[2]:8.2f} s | {med[3]:7.2f} s"
                      f" | {warm[name][1]:8.2f} s")
            print("(medians of the cold runs; the game's CPU leaves the install's compile out)")
            for name in trees:
                print(f"notice on stderr, {name}: {notices[name]}")
            pip_rows = {}
            if args.pip:
                print()
                for ahead in (False, True):
                    install, first, total = pip_install(tmp, argv, ahead)
                    label = "pip install -e ., precompiling" if ahead else "pip install -e ., SUMITO_PRECOMPILE=0"
                    pip_rows[ahead] = (install, first, total)
                    print(f"{label:<40}: install {install:6.1f} s, then first move {first:6.2f} s, game "
                          f"{total:6.2f} s", flush=True)
            if args.json:
                mine = results["this tree, as installed"]
                lazy = results["this tree, no precompile"]
                out = {
                    "command": "sumito " + shlex.join(argv), "runs": args.runs, "baseline": args.baseline,
                    "install_compile_s": round(statistics.median(r[0] for r in mine), 2),
                    "first_move_cold_s": round(statistics.median(r[1] for r in mine), 2),
                    "first_game_cold_s": round(statistics.median(r[2] for r in mine), 2),
                    "first_game_no_precompile_s": round(statistics.median(r[2] for r in lazy), 2),
                    "first_move_no_precompile_s": round(statistics.median(r[1] for r in lazy), 2),
                    "first_game_warm_s": round(warm["this tree, as installed"][1], 2),
                    "baseline_first_game_cold_s": round(statistics.median(r[2] for r in results[next(iter(trees))]),
                                                        2),
                }
                if pip_rows:
                    out.update(pip_install_s=round(pip_rows[True][0], 1),
                               pip_install_no_precompile_s=round(pip_rows[False][0], 1),
                               pip_first_game_s=round(pip_rows[True][2], 2),
                               pip_first_game_no_precompile_s=round(pip_rows[False][2], 2))
                print(json.dumps(out))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)],
                           capture_output=True)


if __name__ == "__main__":
    main()
