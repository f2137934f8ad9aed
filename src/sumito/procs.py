"""Process hygiene shared by every pool of workers (arena, web, training, backgammon).

Workers must die with their parent: a ``kill -9`` of ``sumito serve`` or ``sumito match`` may not
leave forked workers behind holding the listening socket or burning CPU. On Linux the kernel does
it for us (``prctl(PR_SET_PDEATHSIG, SIGKILL)``); elsewhere a worker only checks at start that its
parent still lives. ``cap_workers`` bounds a requested worker count before any process starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Iterator

#: the most worker processes any command starts, whatever it is asked for
MAX_WORKERS = max(4, min(64, 4 * (os.cpu_count() or 1)))

_PR_SET_PDEATHSIG = 1
#: the process that imported this module: in a forked worker, its parent (the pool's owner)
_IMPORTED_BY = os.getpid()


def die_with_parent(parent_pid: int | None = None) -> None:
    """Arrange for this (worker) process to be killed when its parent dies; call it first thing in
    a worker's initializer. ``parent_pid`` (default: the current parent) closes the race where the
    parent died before the call: the worker then exits at once."""
    if parent_pid is None:
        # a forked worker knows its parent's pid from before the fork, so a parent that died before
        # this call is noticed too (getppid() would already name the reaper)
        parent_pid = _IMPORTED_BY if os.getpid() != _IMPORTED_BY else os.getppid()
    expected = parent_pid
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no usable libc: fall back to the check below alone
            pass
    if os.getppid() != expected:
        os._exit(1)


#: the environment variable that sets how many threads an engine searches with when its spec does not say
SEARCH_THREADS_ENV = "SUMITO_THREADS"


def one_search_thread() -> None:
    """In a worker process, engines search with one thread unless the user said otherwise: the pool's
    processes already use the cores, one game or move each."""
    os.environ.setdefault(SEARCH_THREADS_ENV, "1")


def worker_start() -> None:
    """The usual worker initializer: die with the parent, leave Ctrl-C to it (the parent stops the pool
    cleanly; a worker that saw SIGINT too would print a traceback of its own), one search thread."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_search_thread()


def cap_workers(requested: int, what: str = "--workers") -> int:
    """``requested`` bounded to 1..:data:`MAX_WORKERS`, with a one-line note on stderr when it was cut."""
    if requested < 1:
        return 1
    if requested > MAX_WORKERS:
        print(f"sumito: {what} {requested} is more than this machine's cap; using {MAX_WORKERS}", file=sys.stderr)
        return MAX_WORKERS
    return requested


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while worker processes are started, so that they inherit the ignoring (and a
    Ctrl-C in the gap between fork and their initializer cannot reach them). Main thread only:
    elsewhere signal handlers cannot be set."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
