"""Stopping long computations: Ctrl-C, the protocol's ``stop``, a server's deadline.

A compiled kernel (perft, the searches) holds the interpreter for as long as it runs, so Python
cannot deliver ``KeyboardInterrupt`` to it (or, where a kernel calls back into Python for the clock,
delivers it in the middle of that call and numba turns it into a ``SystemError``). So the kernels
release the GIL (``nogil=True``), take the process-wide flag :data:`STOP` as an argument and give up
soon after it is set. :func:`call_stoppable` runs a kernel call in a helper thread when it is made
from the main thread under Python's default Ctrl-C handler: the main thread then waits, receives
Ctrl-C at once, sets the flag, lets the kernel wind down and re-raises ``KeyboardInterrupt``. In
worker processes and threads the call runs directly. numba's thread count is per thread, so the
helper thread takes the caller's (``numba.set_num_threads`` before a call holds inside it).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numba
import numba.np.ufunc.parallel
import numpy as np

T = TypeVar("T")

#: set to 1 to make every running kernel give up; kernels read ``STOP[0]``
STOP = np.zeros(1, dtype=np.int64)
#: more flags that :func:`request_stop` sets with :data:`STOP`: those of the helper threads of a running search
#: (which the search also sets by itself when it is done), so that a stop reaches every thread at once, not
#: after the main thread has wound down (:func:`linked_stop`)
_LINKED_FLAGS: dict[int, np.ndarray] = {}

_runner: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def stop_requested() -> bool:
    return bool(STOP[0])


def request_stop() -> None:
    """Make the running kernels give up (they return early; their callers throw the result away or
    keep what was finished before), the helper threads of a search included."""
    STOP[0] = 1
    for flag in tuple(_LINKED_FLAGS.values()):
        flag[0] = 1


@contextlib.contextmanager
def linked_stop(flag: np.ndarray) -> Iterator[None]:
    """While inside, :func:`request_stop` sets ``flag[0]`` too (set at once when a stop is already
    requested): a kernel that reads its own flag rather than :data:`STOP` stops with the others."""
    key = id(flag)
    _LINKED_FLAGS[key] = flag
    if STOP[0]:
        flag[0] = 1
    try:
        yield
    finally:
        _LINKED_FLAGS.pop(key, None)


def clear_stop() -> None:
    STOP[0] = 0


def raises_keyboard_interrupt(handler: object) -> bool:
    """Whether a SIGINT handler turns Ctrl-C into ``KeyboardInterrupt`` (Python's own, or one that says so with
    a true ``raises_keyboard_interrupt`` attribute, as the ``sumito`` program's does)."""
    return handler is signal.default_int_handler or bool(getattr(handler, "raises_keyboard_interrupt", False))


def _interruptible_here() -> bool:
    return threading.current_thread() is threading.main_thread() and raises_keyboard_interrupt(
        signal.getsignal(signal.SIGINT))


def _with_callers_threads(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn``, made to run with the calling thread's numba thread count. Until numba's thread pool is
    started (``set_num_threads`` starts it) every thread has the default count, so a process that never
    runs a parallel kernel does not start the pool here."""
    if not numba.np.ufunc.parallel._is_initialized:
        return fn
    threads = numba.get_num_threads()

    def with_threads(*args: object) -> T:
        numba.set_num_threads(threads)
        return fn(*args)

    return with_threads


def call_stoppable(fn: Callable[..., T], *args: object, short: bool = False) -> T:
    """``fn(*args)``, a kernel that reads :data:`STOP`; Ctrl-C stops it within a fraction of a second
    and raises ``KeyboardInterrupt`` here (never a ``SystemError`` from inside the kernel).

    ``short`` marks a call known to take a millisecond or so (a one- or two-ply search): it runs
    directly, as Ctrl-C then arrives as soon as it returns, and the thread hand-off (tens of microseconds)
    would cost more than the call. A kernel that calls back into Python (the engine's clock) must
    never be ``short``."""
    if short or not _interruptible_here():
        return fn(*args)
    global _runner
    with _lock:
        if _runner is None:
            _runner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sumito-kernel")
    future = _runner.submit(_with_callers_threads(fn), *args)
    # waited for on a bare lock, not in future.result(): a Ctrl-C that lands inside threading.Condition's wait
    # can leave its lock released and turn into "RuntimeError: cannot release un-acquired lock" (seen on a
    # loaded machine); a bare lock's acquire is one C call, which the signal interrupts cleanly
    finished = threading.Lock()
    finished.acquire()
    future.add_done_callback(lambda _: finished.release())
    try:
        finished.acquire()
        return future.result()
    except KeyboardInterrupt:
        request_stop()
        try:
            future.result()  # the kernel notices the flag within a few thousand nodes
        except Exception:
            pass
        finally:
            clear_stop()
        raise


def run_main(main: Callable[[], int | None], resumable: bool = True) -> None:
    """Run a script's ``main`` and exit with its status; Ctrl-C ends it with one line and status 130
    instead of a traceback (what the script had finished stays on disk)."""
    try:
        code = main()
    except KeyboardInterrupt:
        again = "; run the same command again to go on from there" if resumable else ""
        print(f"{sys.argv[0]}: interrupted: what was finished is kept{again}", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        # the reader went away (e.g. `python experiments/conversion.py --report-only | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    sys.exit(code or 0)
