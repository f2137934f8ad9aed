"""Sumito's build backend: setuptools', and then the kernels a first game uses compiled.

pip builds the package in an isolated environment holding the build requirements of pyproject.toml:
setuptools, and the same numba, llvmlite and numpy as the package pins. Once setuptools has built the
wheel (``pip install -e .``: the editable one), this runs ``python -m sumito.players.precompile`` from the
source tree in that environment. It compiles the kernels of the README's first game into the user's numba
cache (``sumito/__init__.py``: ``~/.cache/sumito/numba/<digest of the source>``, or ``NUMBA_CACHE_DIR``),
which the installed package then reads: the same source, the same numba, the same machine. So the
install takes the compile (about as long as a first game takes without it) and the first game does not.

``SUMITO_PRECOMPILE=0`` skips the step. Should it fail (no writable cache, a killed build), the install
goes on and says so: the first game compiles what it needs, as any command does.
"""

from __future__ import annotations

import os
import subprocess
import sys

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every hook setuptools offers, the two below wrapped)

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "src")


def precompile() -> None:
    if os.environ.get("SUMITO_PRECOMPILE", "1") == "0":
        return
    env = dict(os.environ, SUMITO_COMPILE_NOTICE="0",
               PYTHONPATH=os.pathsep.join(p for p in (SOURCE, os.environ.get("PYTHONPATH")) if p))
    print("sumito: compiling the kernels a first game uses...", file=sys.stderr, flush=True)
    try:
        subprocess.run([sys.executable, "-m", "sumito.players.precompile"], env=env, check=True, timeout=900)
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"sumito: compiling ahead failed ({exc}); the first game compiles instead", file=sys.stderr)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    precompile()
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    precompile()
    return name
