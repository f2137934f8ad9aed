"""The compiled reference solver (bench/solve_reference.c, written apart from sumito.solve) agrees with ours.

Its own indexing and move generation (bitboards), so equal histograms of values (the count of each value,
which does not depend on how positions are numbered) check both solvers' rules and retrograde logic
against each other. Skipped where no C compiler with OpenMP is found."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from sumito.games.abalone.variants import Variant
from sumito.solve.index import space
from sumito.solve.solver import solve_values

SOURCE = Path(__file__).resolve().parent.parent / "bench" / "solve_reference.c"
CC = shutil.which("cc")

VARIANTS = (
    Variant(side=2, marbles=2, win_threshold=1),
    Variant(side=2, marbles=3, win_threshold=2),
    Variant(side=2, marbles=3, win_threshold=2, inline_only=True),
    Variant(side=3, marbles=3, win_threshold=2),
    Variant(side=3, marbles=3, win_threshold=2, inline_only=True),
    Variant(side=3, marbles=3, win_threshold=3),
)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The reference, compiled as bench/bench_solve.py compiles it (-O2 -fopenmp), in a temporary folder."""
    if CC is None:
        pytest.skip("no C compiler (cc) found: the reference solver cannot be built")
    folder = tmp_path_factory.mktemp("solve-reference")
    probe = folder / "probe.c"
    probe.write_text("#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
    if subprocess.run([CC, "-fopenmp", "-o", str(folder / "probe"), str(probe)], capture_output=True).returncode:
        pytest.skip(f"{CC} cannot build an OpenMP program (-fopenmp): the reference solver cannot be built")
    exe = folder / "solve_reference"
    done = subprocess.run([CC, "-std=c11", "-O2", "-fopenmp", "-o", str(exe), str(SOURCE)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return exe


def _run(exe: Path, *args: str, threads: int = 2) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=120)


def _solve_reference(exe: Path, v: Variant, no_moves: str) -> dict:
    args = ["--side", str(v.side), "--marbles", str(v.marbles), "--win", str(v.win_threshold), "--no-moves", no_moves]
    done = _run(exe, *args, *(["--inline-only"] if v.inline_only else []))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout  # one JSON line
    return json.loads(lines[0])


def _histogram(values: np.ndarray) -> dict[str, int]:
    vals, counts = np.unique(values, return_counts=True)
    return {str(int(v)): int(c) for v, c in zip(vals, counts)}


@pytest.mark.parametrize("no_moves", ["draw", "loss"])
@pytest.mark.parametrize("v", VARIANTS, ids=str)
def test_the_reference_solves_to_the_same_histogram_as_ours(reference, v, no_moves):
    report = _solve_reference(reference, v, no_moves)
    values = solve_values(v, no_moves)
    assert report["positions"] == values.size == space(v).size
    assert report["histogram"] == _histogram(values)
    assert report["threads"] == 2
    assert (report["side"], report["marbles"], report["win"]) == (v.side, v.marbles, v.win_threshold)
    assert (report["inline_only"], report["no_moves"]) == (v.inline_only, no_moves)
    assert report["total_s"] == pytest.approx(report["first_pass_s"] + report["levels_s"], abs=2e-3)


@pytest.mark.parametrize("v", [VARIANTS[1], VARIANTS[2], VARIANTS[5]], ids=str)
def test_the_no_moves_rule_changes_the_histogram_where_a_side_can_be_stuck(reference, v):
    # so the comparison above tells the two rules apart: in these variants some position has no legal move
    draw, loss = (_solve_reference(reference, v, rule)["histogram"] for rule in ("draw", "loss"))
    assert draw != loss
    assert sum(draw.values()) == sum(loss.values())


def test_one_and_two_threads_give_the_same_histogram(reference):
    one, two = (json.loads(_run(reference, "--marbles", "3", "--win", "3", threads=t).stdout) for t in (1, 2))
    assert one["threads"] == 1 and two["threads"] == 2
    assert one["histogram"] == two["histogram"]


@pytest.mark.parametrize(("args", "message"), [
    (["--side", "9"], "--side must be an integer from 2 to 4, not '9'"),
    (["--win", "6"], "--win must be at most --marbles"),
    (["--no-moves", "maybe"], "--no-moves must be 'draw' or 'loss'"),
    (["--bogus"], "unknown option --bogus"),
    (["--marbles"], "--marbles needs a value"),
])
def test_bad_options_are_one_line_errors(reference, args, message):
    done = _run(reference, *args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and message in done.stderr
