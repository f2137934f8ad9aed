"""numba as Sumito's kernels use it: every kernel module imports :func:`njit` (and ``prange``, ``objmode``) from
here, so that numba is configured before the first kernel is decorated, and loads only with the first module that
has kernels (``import sumito`` and the command line's parsing load no numba).

What the configuration does: compiled kernels are cached in one folder per version of the source
(:func:`numba_cache_dir`), found by the kernel's place in the package (:class:`PackageCacheLocator`); a compile
that takes longer than :data:`NOTICE_AFTER` seconds is announced once a process, and the seconds spent compiling
are counted (:func:`compile_seconds`) so that a move is not charged for them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import numba
from llvmlite import ir
from numba import njit, objmode, prange
from numba.core import cgutils, event, types
from numba.core.caching import UserProvidedCacheLocator
from numba.extending import intrinsic

__all__ = ["COMPILE_NOTICE", "COMPILE_SECONDS", "PackageCacheLocator", "bit_count", "compile_seconds", "compiling",
           "lowest_bit", "njit", "numba_cache_dir", "objmode", "prange", "prefetch"]

#: the package's folder: the cache keys on the source below it
_ROOT = Path(__file__).resolve().parent

#: true when this source version has no compiled kernels yet: the first command compiles them
COLD_CACHE = False
#: seconds the README's first game spends compiling on a fresh install of the 2-core development VM
#: (bench/bench_cold_start.py through tools/readme_samples.py --measure cold; tests/test_readme.py checks
#: that this is the measured figure, docs/timings.json)
COMPILE_SECONDS = 17
COMPILE_NOTICE = (f"sumito: compiling numba kernels for this version of Sumito (once, then cached; a first game "
                  f"compiles for about {COMPILE_SECONDS} s on two cores)...")
#: seconds a compile must have run before the notice is printed: a kernel that numba cannot cache (the
#: search's clock, which calls back into Python) compiles afresh in each process in a few hundredths of
#: a second, and no one waits for that
NOTICE_AFTER = 1.0
_compile = {"seconds": 0.0, "depth": 0, "start": 0.0, "told": False, "timer": None}
_compile_lock = threading.RLock()


def compile_seconds() -> float:
    """Seconds this process has spent compiling kernels so far (numba's compile events, outermost only):
    what a caller takes off a move's time so that the first move is not charged with the compile."""
    return _compile["seconds"]


def compiling() -> bool:
    """Whether a kernel is compiling in this process now (what a caller that waits for it tells its user)."""
    return _compile["depth"] > 0


def numba_cache_dir() -> str:
    """Where numba keeps Sumito's compiled kernels: one folder per version of the source.

    numba checks a cached kernel against its own file only; a kernel that calls a kernel in
    another file (search calls the move generator, evaluations call feature kernels) would keep
    running the old code after that other file changed. Keying the whole cache on a hash of
    every source file of the package rules that out: any change compiles everything afresh once.
    An explicit ``NUMBA_CACHE_DIR`` is respected, with the same per-source subfolder.
    """
    digest = hashlib.sha1()
    for path in sorted(_ROOT.rglob("*.py")):
        digest.update(str(path.relative_to(_ROOT)).encode())
        digest.update(path.read_bytes())
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "sumito", "numba"
    )
    return os.path.join(base, digest.hexdigest()[:16])


@intrinsic
def bit_count(typingctx, x):  # type: ignore[no-untyped-def]
    """The number of set bits of an integer (inside kernels only): LLVM's ``ctpop``, one instruction where
    the CPU has one (bitboards count marbles and cells with it)."""
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])
    return x(x), codegen


@intrinsic
def lowest_bit(typingctx, x):  # type: ignore[no-untyped-def]
    """The index of the lowest set bit of a non-zero integer (inside kernels only): LLVM's ``cttz``."""
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))  # 1: undefined at 0, which is never asked
    return x(x), codegen


@intrinsic
def prefetch(typingctx, array, index):  # type: ignore[no-untyped-def]
    """Ask the CPU to bring ``array[index]`` into its cache, to be written soon (inside kernels only): LLVM's
    ``prefetch``. A kernel that will touch many scattered entries asks for them all first, so that their cache
    misses overlap instead of coming one at a time; it changes no value."""
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]], wraparound=False)
        byte_pointer, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch.p0")
        # to be written, kept in every cache level, a data (not instruction) fetch
        builder.call(function, [builder.bitcast(pointer, byte_pointer), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(array, index), codegen


def _configure_numba() -> None:
    path = numba_cache_dir()
    try:
        fresh = not os.path.isdir(path)
        os.makedirs(path, exist_ok=True)
    except OSError:
        return  # an unwritable home: numba falls back to its own locations
    numba.config.CACHE_DIR = path
    if not numba.config.CACHE_LOCATOR_CLASSES:  # a user's NUMBA_CACHE_LOCATOR_CLASSES wins
        numba.config.CACHE_LOCATOR_CLASSES = ("sumito.jit.PackageCacheLocator,UserProvidedCacheLocator,"
                                              "InTreeCacheLocator,UserWideCacheLocator")
    global COLD_CACHE
    COLD_CACHE = fresh or not any(os.scandir(path))
    event.register("numba:compile", _CompileListener())
    if fresh:
        _prune_old_caches(os.path.dirname(path), keep=path)


class PackageCacheLocator(UserProvidedCacheLocator):
    """numba's locator of a cached kernel, keyed by its file's place in the package rather than by the
    absolute path of its folder (numba's own subfolder name hashes that path): the folder is already one
    version of the source (:func:`numba_cache_dir`), so kernels compiled from one copy of it are valid
    for another — the source tree the install compiles from (``tools/build_backend.py``) and the copy a
    non-editable install puts in site-packages, a worktree and the checkout beside it. Files outside the
    package go to numba's next locator."""

    @classmethod
    def get_suitable_cache_subpath(cls, py_file: str) -> str:
        folder = os.path.relpath(os.path.dirname(os.path.realpath(py_file)), _ROOT)
        return "sumito" if folder == "." else "sumito_" + folder.replace(os.sep, "_")

    @classmethod
    def from_function(cls, py_func, py_file):  # type: ignore[no-untyped-def]
        if not os.path.realpath(py_file).startswith(str(_ROOT) + os.sep):
            return None
        return super().from_function(py_func, py_file)


def _tell_compiling() -> None:
    with _compile_lock:
        if _compile["told"] or _compile["depth"] == 0:
            return
        _compile["told"] = True
    with contextlib.suppress(OSError, ValueError):  # a closed stderr: compile all the same
        print(COMPILE_NOTICE, file=sys.stderr, flush=True)


class _CompileListener(event.Listener):
    """Tell the user, once a process, when kernels compile for longer than :data:`NOTICE_AFTER` seconds
    (terminal or not: a script or CI waits as long), and count the seconds compiling for
    :func:`compile_seconds`. A kernel loaded from the cache raises no compile event, and one compiled in
    a moment says nothing, so a warm start prints nothing. ``SUMITO_COMPILE_NOTICE=0`` silences the
    notice (the test suite does, so that no test's output depends on the cache)."""

    def on_start(self, ev: event.Event) -> None:
        with _compile_lock:
            _compile["depth"] += 1
            if _compile["depth"] > 1:
                return
            _compile["start"] = time.perf_counter()
            if _compile["told"] or os.environ.get("SUMITO_COMPILE_NOTICE", "1") == "0":
                return
            if NOTICE_AFTER > 0:  # said from a timer thread, unless the compile is over by then
                timer = threading.Timer(NOTICE_AFTER, _tell_compiling)
                timer.daemon = True
                _compile["timer"] = timer
                timer.start()
                return
        _tell_compiling()

    def on_end(self, ev: event.Event) -> None:
        with _compile_lock:
            _compile["depth"] -= 1
            if _compile["depth"] == 0:
                _compile["seconds"] += time.perf_counter() - _compile["start"]
                if _compile["timer"] is not None:
                    _compile["timer"].cancel()
                    _compile["timer"] = None


def _prune_old_caches(parent: str, keep: str, days: float = 14.0) -> None:
    """Remove the caches of source versions not changed for ``days``; should one still be in
    use (another checkout), numba simply compiles into it again."""
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
