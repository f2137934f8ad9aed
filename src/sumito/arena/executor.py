"""The one small interface through which matches, tournaments (and training evaluation) run work.

A *work item* is plain data (a frozen dataclass of player specs, seeds and position strings),
never a live object, and the work function is a module-level function, so items travel to other
processes (or, later, other machines) by pickling. ``run`` yields ``(index, result)`` pairs as the
items finish, in whatever order they finish; ``index`` is the item's place in the input.

Three backends: :class:`InlineExecutor` runs the items one after another in this process (the
``workers=1`` case, and the easiest to debug); :class:`ProcessExecutor` runs them in a local
``concurrent.futures.ProcessPoolExecutor`` (the default); :class:`RayExecutor` runs them as Ray
tasks, on a local Ray instance or a cluster (``--backend ray [--address ADDR]``, or
``SUMITO_RAY_ADDRESS``; the optional extra ``sumito[ray]``). Results are the same whatever the
backend and the number of workers: an item carries its own seeds.

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

import argparse
import contextlib
import functools
import os
import queue
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, TypeVar

from sumito.arena.errors import ArenaError
from sumito.errors import SumitoError
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


class RayExecutor:
    """Runs the items as Ray tasks: on the cluster at ``address`` (``ray start --head`` prints it),
    or, without one, on a Ray instance started here with ``workers`` CPUs (all cores by default).

    At most ``workers`` items run at once (by default as many as the cluster has CPUs, and then twice
    as many are in flight, so a long list never floods the scheduler and a CPU that comes free finds
    the next item waiting). A task whose worker process dies (killed, out of memory, its node lost)
    is run again by Ray (up to :data:`TASK_RETRIES` times): a work item is a pure function of its
    data, so a retry gives the same result, and each item's result is yielded exactly once.
    Ctrl-C, or closing the generator, cancels the tasks not finished (stopping those that run) and
    waits a moment (at most 3 s) until they are gone. A Ray instance started here
    ends with this process (Ray's processes share the driver's fate); a cluster stays up.
    """

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        ray = import_ray()
        self.address = address
        if not ray.is_initialized():
            init_ray(ray, address, workers)
        cluster_cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, min(workers or cluster_cpus, cluster_cpus if address else MAX_WORKERS))
        # with fewer workers than CPUs, ``workers`` bounds the items running at once (as a pool's size does);
        # with all of them, twice as many are queued, so that a CPU that comes free finds one waiting
        self._window = 2 * self.workers if self.workers >= cluster_cpus else self.workers
        self._ray = ray

    def run(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]:
        items = list(items)
        if not items:
            return
        ray = self._ray
        task = _ray_task(ray)
        window = self._window
        pending: dict = {}  # object ref -> item index
        next_item = 0
        finished = False
        try:
            while next_item < len(items) or pending:
                while next_item < len(items) and len(pending) < window:
                    pending[task.remote(fn, items[next_item])] = next_item
                    next_item += 1
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    index = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:  # the item's own error, as the pool raises it
                        raise exc.as_instanceof_cause() from None
                    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                            ray.exceptions.OutOfMemoryError) as exc:
                        raise ArenaError(f"a Ray worker died {TASK_RETRIES + 1} times running one item: {exc}") from exc
                    yield index, result
            finished = True
        finally:
            if not finished and pending:
                _cancel(ray, list(pending))


def _cancel(ray: Any, refs: list, patience: float = 3.0) -> None:
    """Cancel the tasks of ``refs``, stopping those that run, and wait (at most ``patience`` seconds) until
    they are all gone: a task handed to a worker just as it was cancelled can start anyway (Ray loses that
    cancellation), so what is still not done after a moment is cancelled again."""
    deadline = time.monotonic() + patience
    while refs:
        for ref in refs:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        if time.monotonic() >= deadline:
            return
        try:
            _, refs = ray.wait(refs, num_returns=len(refs), timeout=0.25)
        except Exception:
            return


#: how often Ray runs a task again after its worker process died (work items are pure: safe to retry)
TASK_RETRIES = 3
BACKENDS = ("process", "ray")
RAY_ADDRESS_ENV = "SUMITO_RAY_ADDRESS"
_RAY_TASK = None


def import_ray() -> Any:
    """Ray, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ArenaError("--backend ray needs Ray: pip install 'sumito[ray]'") from None
    return ray


def init_ray(ray: Any, address: str | None, workers: int | None) -> None:
    """Connect to the cluster at ``address``, or start a local Ray instance with ``workers`` CPUs."""
    import logging

    options = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, configure_logging=True)
    if address:
        _check_reachable(address)
    try:
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=min(workers or available_cores(), MAX_WORKERS), **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise ArenaError(f"cannot start or reach {where}: {str(exc).splitlines()[0] if str(exc) else exc}") from None


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A one-line error now for a ``HOST:PORT`` that takes no connection (``ray.init`` would retry it for
    minutes, logging as it goes); other forms (``auto``, ``ray://...``) are left to Ray."""
    import socket

    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or "/" in host:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ArenaError(f"cannot reach the Ray cluster at {address:.80}: {reason} (is `ray start --head` "
                         "running there?)") from None


def _call(fn: Callable[[T], R], item: T) -> R:
    return fn(item)


def _ray_task(ray: Any) -> Any:
    global _RAY_TASK
    if _RAY_TASK is None:
        _RAY_TASK = ray.remote(num_cpus=1, max_retries=TASK_RETRIES, retry_exceptions=False)(_call)
    return _RAY_TASK


def ray_address(address: str | None = None) -> str | None:
    """The cluster to use: ``address``, else ``$SUMITO_RAY_ADDRESS``, else none (a local instance)."""
    return address or os.environ.get(RAY_ADDRESS_ENV) or None


def make_executor(workers: int | None = None, backend: str = "process", address: str | None = None) -> Executor:
    """The executor for ``workers`` processes (``None``: all cores; 1: inline, no pool), at most
    :data:`~sumito.procs.MAX_WORKERS`; with ``backend="ray"`` Ray tasks on the cluster at
    ``address`` (or ``$SUMITO_RAY_ADDRESS``), or on a local Ray instance."""
    if workers is not None and workers < 1:
        raise ArenaError(f"--workers must be at least 1, not {workers}")
    if backend not in BACKENDS:
        raise ArenaError(f"--backend must be one of {', '.join(BACKENDS)}, not {backend!r:.40}")
    if backend == "ray":
        return RayExecutor(workers, ray_address(address))
    if address:
        raise ArenaError("--address names a Ray cluster: it needs --backend ray")
    n = min(workers or available_cores(), MAX_WORKERS)
    return InlineExecutor() if n == 1 else ProcessExecutor(n)


# --------------------------------------------------------------------------- command-line options
def add_backend_args(p: argparse.ArgumentParser, what: str = "the games", note: str = "") -> None:
    """``--backend {process,ray}`` and ``--address ADDR``: where ``what`` run (read by :func:`executor_from_args`);
    ``note`` ends the help of ``--backend`` (what does not run on Ray, say)."""
    p.add_argument(
        "--backend",
        choices=("process", "ray"),  # sumito.arena.executor.BACKENDS (not imported here: the CLI starts quickly)
        default="process",
        help=f"where {what} run: process (the default), a pool of local worker processes; ray, Ray tasks on a "
        f"local Ray instance or on the Ray cluster at --address (pip install 'sumito[ray]'){note}",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the Ray cluster to run on, e.g. 10.0.0.5:6379 (the address `ray start --head` "
        "prints; default $SUMITO_RAY_ADDRESS, else a local Ray instance). Every node must have this Sumito "
        "installed and see the files the work names (networks, weights, run folders) at the same paths",
    )


def executor_from_args(args: argparse.Namespace, workers: int | None, factory=None):
    """The executor ``--backend``/``--address`` name, for ``workers`` workers (None: all cores, or with Ray all
    the cluster's CPUs): ``make_executor(workers, args.backend, args.address)``. ``factory`` replaces
    ``make_executor`` (a test hook); for the default process backend it is called as ``factory(workers)``."""
    factory = factory or make_executor
    backend, address = getattr(args, "backend", "process"), getattr(args, "address", None)
    if backend == "process" and address is None:
        return factory(workers)
    return factory(workers, backend=backend, address=address)


def uses_ray(args: argparse.Namespace) -> bool:
    """Whether ``--backend ray`` was given."""
    return getattr(args, "backend", "process") == "ray"


def check_shared_folder(args: argparse.Namespace, folder: str, option: str = "--out") -> None:
    """On a Ray cluster every node reads and writes ``folder`` at the same path: refuse a relative one, which
    each node would take from its own working directory (one-line error). Local runs take any folder."""
    if uses_ray(args) and ray_address(getattr(args, "address", None)) and not os.path.isabs(folder):
        raise SumitoError(f"{option} {folder!r}: on a Ray cluster give an absolute path on storage every node "
                          "sees (a shared file system)")
