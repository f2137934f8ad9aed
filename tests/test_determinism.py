"""The same seed trains the same weights on every x86-64 CPU (sumito.nn's notes say how).

tests/determinism_probe.py trains every learner briefly (Abalone TD(λ) and TD-Leaf(λ), backgammon's
modular TD(λ), Alphalone's TD, the NNUE data and trainer, the zero learner's self-play and fit) and prints
digests. Here it runs in subprocesses under what differs between machines — OpenBLAS's kernel for the CPU
family, numba compiling for a generic x86-64, numpy without its AVX2/AVX-512 loops and glibc without its FMA
functions (all at once by default; one by one as well with ``SUMITO_DETERMINISM=each``) — and every run must
print the digests pinned below, which this machine's default run printed too: a CPU that computed other bits
would fail here.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from sumito import nn
from sumito.defaults import METHOD_PRESETS
from sumito.learn.abalone_game import make_trainer
from sumito.learn.training import TrainingConfig
from sumito.models.network import ValueNetwork

PROBE = Path(__file__).resolve().parent / "determinism_probe.py"

# the digests of tests/determinism_probe.py's trainings (on an AMD EPYC with AVX-512; the same under every
# environment below)
PINNED = {
    "td_abalone": "ec3300506bec1148",
    "td_leaf": "7e8420e6cb396a86",
    "backgammon": "7875778656df9093",
    "backgammon_run": "41f4b1b9992a4a66",
    "alphalone": "8ea8fc24b3db2753",
    "nnue": "c627d6c86b425c9a",
    "zero": "5e2186514a0d3eab",
}


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def _numpy_dispatched() -> list[str]:
    """numpy's run-time dispatched CPU features that this CPU has (what NPY_DISABLE_CPU_FEATURES may name)."""
    from numpy._core import _multiarray_umath as mu

    found = mu.__cpu_features__
    return [f for f in mu.__cpu_dispatch__ if found.get(f)]


def environments(tmp: Path) -> dict[str, dict[str, str]]:
    """What differs between machines, each as environment variables (those this CPU can run): by default two
    runs, this machine and the oldest x86-64 it can imitate — every difference at once (numba compiling for a
    generic x86-64, numpy and glibc without AVX2, AVX-512 and FMA, OpenBLAS forced to its Prescott kernels):
    a result that moved with any one of them moves there. ``SUMITO_DETERMINISM=each`` runs every difference
    on its own as well (OpenBLAS's kernel of each CPU family this CPU has, and the others one by one)."""
    flags = _cpu_flags()
    generic = {"NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": str(tmp / "numba-generic")}
    old_libs = {"NPY_DISABLE_CPU_FEATURES": " ".join(_numpy_dispatched()),
                "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F"}
    envs: dict[str, dict[str, str]] = {"this machine": {},
                                       "the oldest x86-64": {**generic, **old_libs, "OPENBLAS_CORETYPE": "Prescott"}}
    if os.environ.get("SUMITO_DETERMINISM") == "each":
        for core, needs in (("Haswell", "avx2"), ("SkylakeX", "avx512f"), ("Zen", "avx2")):
            if needs in flags:  # OpenBLAS runs a forced kernel even where its instructions are missing
                envs[f"OpenBLAS {core}"] = {"OPENBLAS_CORETYPE": core}
        envs["numba generic x86-64"] = generic
        envs["numpy and glibc without AVX2, AVX-512, FMA"] = old_libs
    return envs


def _probe(env: dict[str, str]) -> dict[str, str]:
    result = subprocess.run([sys.executable, str(PROBE), "--only", *PINNED], env={**os.environ, **env},
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_every_learner_trains_the_same_bits_on_every_cpu(tmp_path):
    envs = environments(tmp_path)
    assert len(envs) >= 2
    with ThreadPoolExecutor(2) as pool:
        digests = dict(zip(envs, pool.map(_probe, envs.values())))
    for name, got in digests.items():
        assert got == PINNED, f"{name}: {got}"


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.view(np.int64) - b.view(np.int64))


def test_exact_functions_are_within_one_ulp_of_libm():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-745.0, 709.0, 20000), rng.uniform(-40.0, 40.0, 20000),
                        rng.normal(0.0, 1e-5, 2000), [0.0, -0.0, 1e-300, -1e-300, 708.0, -744.0]])
    assert _ulps(nn.exp_array(x), np.array([math.exp(v) for v in x])).max() <= 1
    pos = np.abs(x) + 1e-300
    assert _ulps(nn.log_array(pos), np.array([math.log(v) for v in pos])).max() <= 1
    small = x[20000:40000]
    assert np.abs(nn.tanh_array(small) - np.tanh(small)).max() < 3e-16
    assert np.abs(nn.sigmoid_array(small) - 1.0 / (1.0 + np.exp(-small))).max() < 3e-16


def test_exact_functions_at_their_edges():
    assert nn.exp(0.0) == 1.0 and nn.exp(-800.0) == 0.0 and nn.exp(710.0) == math.inf
    assert math.isnan(nn.exp(math.nan)) and nn.exp(-math.inf) == 0.0
    assert nn.exp(-745.0) == math.exp(-745.0) == 5e-324  # the smallest subnormal
    assert nn.log(1.0) == 0.0 and nn.log(0.0) == -math.inf and math.isnan(nn.log(-1.0))
    assert nn.log(math.inf) == math.inf and nn.log(5e-324) == math.log(5e-324)
    assert nn.tanh(30.0) == 1.0 and nn.tanh(-30.0) == -1.0 and nn.tanh(1e-12) == 1e-12
    assert nn.sigmoid(0.0) == 0.5 and nn.sigmoid(-1000.0) == 0.0 and nn.sigmoid(1000.0) == 1.0


def test_products_are_summed_in_index_order():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(7, 13))
    A[A < -0.5] = 0.0  # skipped zeros add nothing
    B = rng.normal(size=(13, 5))
    expected = np.zeros((7, 5))
    for r in range(7):
        for c in range(5):
            s = 0.0
            for k in range(13):
                s += A[r, k] * B[k, c]
            expected[r, c] = s
    assert np.array_equal(nn.matmul(A, B), expected)
    assert np.array_equal(nn.matvec(B.T.copy(), A[0]), expected[0])
    assert nn.dot(A[0], B[:, 0]) == expected[0, 0]
    assert nn.matmul(A.astype(np.float32), B).dtype == np.float64


@pytest.mark.slow
def test_the_shipped_td_network_is_its_recipe_bit_for_bit():
    """experiments/train_shipped_network.py's recipe (Method I(a), seed 2010, 1,750 games) retrains the
    shipped `td` network exactly: here, and so on every CPU the test above accepts."""
    trainer = make_trainer(TrainingConfig(**METHOD_PRESETS["method-Ia"], seed=2010))
    while trainer.games < 1750:
        trainer.play_game()
    shipped = ValueNetwork.load(str(files("sumito") / "data" / "td-abalearn3.npz"))
    assert np.array_equal(trainer.network.theta, shipped.theta)
