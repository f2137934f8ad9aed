"""Sumito: an exact, fast Abalone engine and self-play learning lab."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"
#: true when this source version has no compiled kernels yet: the first command compiles them (~20 s)
COLD_CACHE = False


def _numba_cache_dir() -> str:
    """Where numba keeps Sumito's compiled kernels: one folder per version of the source.

    numba checks a cached kernel against its own file only; a kernel that calls a kernel in
    another file (search calls the move generator, evaluations call feature kernels) would keep
    running the old code after that other file changed. Keying the whole cache on a hash of
    every source file of the package rules that out: any change compiles everything afresh once.
    An explicit ``NUMBA_CACHE_DIR`` is respected, with the same per-source subfolder.
    """
    digest = hashlib.sha1()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "sumito", "numba"
    )
    return os.path.join(base, digest.hexdigest()[:16])


def _configure_numba() -> None:
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is a dependency
        return
    path = _numba_cache_dir()
    try:
        fresh = not os.path.isdir(path)
        os.makedirs(path, exist_ok=True)
    except OSError:
        return  # an unwritable home: numba falls back to its own locations
    numba.config.CACHE_DIR = path
    global COLD_CACHE
    COLD_CACHE = fresh or not any(os.scandir(path))
    if fresh:
        _prune_old_caches(os.path.dirname(path), keep=path)


def _prune_old_caches(parent: str, keep: str, days: float = 14.0) -> None:
    """Remove the caches of source versions not changed for ``days``; should one still be in
    use (another checkout), numba simply compiles into it again."""
    import shutil
    import time

    limit = time.time() - days * 86400
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir() and entry.path != keep and entry.stat().st_mtime < limit:
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            continue


_configure_numba()
