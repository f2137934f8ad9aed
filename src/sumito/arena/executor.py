"""The one small interface through which matches, tournaments (and training evaluation) run work.

A *work item* is plain data (a frozen dataclass of player specs, seeds and position strings),
never a live object, and the work function is a module-level function, so items travel to other
processes (or, later, other machines) by pickling. ``run`` yields ``(index, result)`` pairs as the
items finish, in whatever order they finish; ``index`` is the item's place in the input.

Two backends: :class:`InlineExecutor` runs the items one after another in this process (the
``workers=1`` case, and the easiest to debug); :class:`ProcessExecutor` runs them in a local
``concurrent.futures.ProcessPoolExecutor``. A cluster backend only has to provide ``run``.

Workers die with their parent: each starts with :func:`sumito.procs.worker_start`, so a ``kill -9``
of ``sumito match`` or ``sumito tournament`` takes its workers with it (on Linux the kernel sends
them SIGKILL) instead of leaving them playing on. A pool never has more than
:data:`sumito.procs.MAX_WORKERS` processes, whatever it is asked for.

Ctrl-C: worker processes ignore SIGINT (they are started with it ignored, and ignore it again
first thing), so only the parent sees ``KeyboardInterrupt``. The parent then cancels the items not
yet started, terminates the workers (the games in progress are lost) and re-raises; every result
already yielded has been handed to the caller, who keeps it. Callers should close the generator
when they stop early (``with contextlib.closing(executor.run(...))``), which shuts the pool down
the same way.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol, TypeVar

from sumito.arena.errors import ArenaError
from sumito.procs import MAX_WORKERS, sigint_ignored, worker_start

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Runs ``fn`` on every item and yields ``(index, result)`` as each finishes."""

    workers: int

    def run(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]: ...


def available_cores() -> int:
    """The CPU cores this process may use (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class InlineExecutor:
    """Runs the items one after another in this process."""

    workers = 1

    def run(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        for i, item in enumerate(items):
            yield i, fn(item)


class ProcessExecutor:
    """Runs the items in a pool of ``workers`` local processes."""

    def __init__(self, workers: int | None = None) -> None:
        # bounded here too, silently: the commands cap --workers with a message (sumito.procs.cap_workers)
        self.workers = max(1, min(workers or available_cores(), MAX_WORKERS))

    def run(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        items = list(items)
        if not items:
            return
        # worker_start: the workers die with this process and leave Ctrl-C to it
        pool = ProcessPoolExecutor(max_workers=min(self.workers, len(items)), initializer=worker_start)
        # Finished futures are handed over through a SimpleQueue, whose put never blocks. The main
        # thread never waits on the futures themselves (``concurrent.futures.wait`` holds their locks,
        # and a KeyboardInterrupt raised there can leave one held, which deadlocks the pool's
        # manager thread at shutdown).
        done: queue.SimpleQueue[tuple[int, Future]] = queue.SimpleQueue()
        finished = False
        try:
            with sigint_ignored():
                for i, item in enumerate(items):
                    future = pool.submit(fn, item)
                    future.add_done_callback(functools.partial(_hand_over, done, i))
            for _ in range(len(items)):
                i, future = done.get()
                try:
                    result = future.result()
                except BrokenProcessPool as exc:
                    raise ArenaError(f"a worker process died unexpectedly (out of memory? killed?): {exc}") from exc
                yield i, result
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                _terminate(pool)


def _hand_over(done: queue.SimpleQueue, index: int, future: Future) -> None:
    done.put((index, future))


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started, stop the workers now, and wait for them to go."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        with contextlib.suppress(Exception):
            if proc.is_alive():
                proc.terminate()
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(timeout=5)


def make_executor(workers: int | None = None) -> Executor:
    """The local executor for ``workers`` processes (``None``: all cores; 1: inline, no pool), at most
    :data:`~sumito.procs.MAX_WORKERS`."""
    if workers is not None and workers < 1:
        raise ArenaError(f"--workers must be at least 1, not {workers}")
    n = min(workers or available_cores(), MAX_WORKERS)
    return InlineExecutor() if n == 1 else ProcessExecutor(n)
