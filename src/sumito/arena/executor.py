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
yet started, kills the workers (the games in progress are lost) and re-raises; every result
already yielded has been handed to the caller, who keeps it. Callers should close the generator
when they stop early (``with contextlib.closing(executor.run(...))``), which shuts the pool down
the same way. Starting and stopping a pool hold Ctrl-C back for the moment they take (stopping: at
most :data:`STOP_PATIENCE` seconds, and the pool's own threads are gone when ``run`` returns, so the
interpreter's exit waits for none of them): a Ctrl-C meanwhile is not lost but raises as soon as they
end. A generator left to the garbage collector instead of closed would swallow that
``KeyboardInterrupt`` (Python ignores an exception raised while it finalizes a generator), hence
``closing``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import platform
import queue
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, TypeVar

from sumito.arena.errors import ArenaError
from sumito.defaults import BACKENDS
from sumito.errors import SumitoError
from sumito.fileio import load_json
from sumito.procs import MAX_WORKERS, Reaper, available_cores, descendants, sigint_held, worker_start

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Runs ``fn`` on every item and yields ``(index, result)`` as each finishes."""

    workers: int

    def run(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[tuple[int, R]]: ...


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
            with sigint_held():  # the workers are forked here: they inherit SIGINT ignored
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
            with sigint_held():  # a Ctrl-C while the pool stops raises once it has stopped
                _stop(pool, cancel=not finished)


def _hand_over(done: queue.SimpleQueue, index: int, future: Future) -> None:
    done.put((index, future))


#: the longest a pool takes to stop (its workers, killed when items are cancelled, go at once)
STOP_PATIENCE = 2.0


def _stop(pool: ProcessPoolExecutor, cancel: bool, patience: float = STOP_PATIENCE) -> None:
    """Shut ``pool`` down and wait (at most ``patience`` seconds) until its workers and its manager thread are
    gone; ``cancel``: drop the items not started and kill the workers now (the games in progress are lost).
    Nothing of the pool is left for the interpreter's exit to wait on, where a Ctrl-C would be ignored."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=cancel)
    if cancel:
        for proc in processes:
            with contextlib.suppress(Exception):
                proc.kill()
    deadline = time.monotonic() + patience
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(timeout=max(0.0, deadline - time.monotonic()))
            if proc.is_alive():  # an idle worker that did not take its leave in time
                proc.kill()
                proc.join(timeout=0.5)
    if manager is not None:
        manager.join(timeout=max(0.1, deadline - time.monotonic()))


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
    ends with this process, ``kill -9`` included (:func:`init_ray`); a cluster stays up.

    An item takes one CPU of Ray's accounting: a cluster without a node of at least one CPU could never run
    one, and is refused at once in one line rather than waited on forever.
    """

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        ray = import_ray()
        self.address = address
        if not ray.is_initialized():
            init_ray(ray, address, workers)
        cluster_cpus = int(ray.cluster_resources().get("CPU", 0))
        largest = largest_node_cpus(ray)
        if largest < TASK_CPUS:
            where = f"the Ray cluster at {address:.60}" if address else "the Ray instance"
            raise ArenaError(f"{where} has no node with a whole CPU ({largest:g} at most): no game could ever run "
                             "there (give a node CPUs: ray start --num-cpus N)")
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
#: the CPUs of Ray's accounting a work item takes (the actors of ``--actors`` take none: sumito.learn.actors)
TASK_CPUS = 1
RAY_ADDRESS_ENV = "SUMITO_RAY_ADDRESS"
#: how long reaching a cluster may take before ``--address`` fails in one line (a TCP connection, then one
#: request to its GCS); Ray itself would retry for 20 s or more, logging as it goes
CONNECT_TIMEOUT = 5.0
_RAY_TASK = None
#: kills a local Ray instance's processes when this process dies (its agents would outlive a ``kill -9``)
_REAPER = Reaper()


def import_ray() -> Any:
    """Ray, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ArenaError("--backend ray needs Ray: pip install 'sumito[ray]'") from None
    return ray


def init_ray(ray: Any, address: str | None, workers: int | None) -> None:
    """Connect to the cluster at ``address``, or start a local Ray instance with ``workers`` CPUs.

    A cluster is checked first (:func:`check_cluster`): one that cannot be reached, that wants an authentication
    token this process lacks, or that runs another Ray or Python, is a one-line error within seconds. A local
    instance dies with this process: Ray's kernel fate-sharing takes its GCS, raylet and workers, and a
    :class:`~sumito.procs.Reaper` its dashboard and runtime-env agents, which a ``kill -9`` of the driver would
    otherwise leave running for a minute or more (they try to report the raylet's death to the dead GCS)."""
    import logging

    options = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, configure_logging=True)
    if address:
        check_cluster(ray, address)
    try:
        if address:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=min(workers or available_cores(), MAX_WORKERS), **options)
    except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as exc:
        where = f"the Ray cluster at {address:.60}" if address else "a local Ray instance"
        raise ArenaError(f"cannot start or reach {where}: {str(exc).splitlines()[0] if str(exc) else exc}") from None
    if not address:
        _REAPER.add(descendants())


def largest_node_cpus(ray: Any) -> float:
    """The CPUs of the largest living node of the Ray cluster this process is connected to."""
    return max((float(n.get("Resources", {}).get("CPU", 0)) for n in ray.nodes() if n.get("Alive")), default=0.0)


def check_cluster(ray: Any, address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """A one-line error naming why the Ray cluster at ``address`` (``HOST:PORT``) cannot be used: it takes no
    connection (within ``timeout`` seconds); it does not answer as a Ray cluster (one request to its GCS,
    within ``timeout`` seconds and 2 more for the start of the process that asks); it wants an authentication
    token this process does not give (Ray 2.60 turns token authentication on by default), or refuses the one
    given; it runs another version of Ray or Python. Other forms (``auto``, ``ray://...``) are left to Ray.
    Ray itself would retry a refused token for 20 s and more, logging each try, and then say only that it
    failed to connect."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or "/" in host:
        return
    shown = f"{address:.60}"
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ArenaError(f"cannot reach the Ray cluster at {shown}: {reason} (is `ray start --head` "
                         "running there?)") from None
    not_ray = (f"the Ray cluster at {shown} does not answer as a Ray {ray.__version__} cluster within {timeout:g} s"
               " ({}): is it the address `ray start --head` printed, with the same Ray version?")
    # Ray's own client of the GCS, in a process of its own: its C++ core logs every failed try on file
    # descriptor 2 and outstays its timeout by 10 s; a process is silenced and stopped on time
    try:
        probe = subprocess.run([sys.executable, "-c", _PROBE, address, str(timeout)], capture_output=True, text=True,
                               timeout=timeout + 2.0, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        answer = load_json(probe.stdout.strip().splitlines()[-1], "the Ray probe", "its answer") \
            if probe.stdout.strip() else {}
    except subprocess.TimeoutExpired:
        raise ArenaError(not_ray.format("no answer")) from None
    except (OSError, ValueError):  # no probe (a Python that cannot run it): ray.init decides
        return
    if not isinstance(answer, dict):
        return
    if "auth" in answer:
        if os.environ.get("RAY_AUTH_MODE", "").lower() != "token":
            raise ArenaError(f"the Ray cluster at {shown} wants its authentication token: set RAY_AUTH_MODE=token "
                             "here too, with the cluster's token in ~/.ray/auth_token (or RAY_AUTH_TOKEN_PATH, "
                             "RAY_AUTH_TOKEN); see docs/scale.md")
        raise ArenaError(f"the Ray cluster at {shown} refused this process's authentication token: give the one "
                         "its head node has (~/.ray/auth_token, RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN)")
    if "failed" in answer:
        raise ArenaError(not_ray.format(str(answer["failed"]).splitlines()[0][:80] if answer["failed"] else "?"))
    try:
        meta = load_json(answer["meta"], "the Ray cluster", "its metadata") if answer.get("meta") else {}
        theirs = (str(meta["ray_version"]), str(meta["python_version"]))
    except (ValueError, KeyError, TypeError):
        return  # no metadata (an old head, another probe): ray.init checks the versions itself
    ours = (ray.__version__, platform.python_version())
    level = 2 if os.environ.get("RAY_DEFAULT_PYTHON_VERSION_MATCH_LEVEL") == "minor" else 3  # Ray's own rule
    if theirs[0] != ours[0] or theirs[1].split(".")[:level] != ours[1].split(".")[:level]:
        raise ArenaError(f"the Ray cluster at {shown} runs Ray {theirs[0]:.20} on Python {theirs[1]:.20}, this "
                         f"process Ray {ours[0]} on Python {ours[1]}: the driver and every node need the same "
                         "versions of both")


#: the body of :func:`check_cluster`'s probe: one request to the GCS at argv[1] within argv[2] seconds, answered
#: as one JSON line (``meta``: the cluster's metadata; ``auth``: the token was refused; ``failed``: anything else)
_PROBE = r"""
import ctypes, json, sys
try:  # PR_SET_PDEATHSIG, SIGKILL: the probe dies with the command that started it
    ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)
except (OSError, AttributeError):
    pass
import ray.exceptions
from ray._raylet import InnerGcsClient
address, timeout = sys.argv[1], float(sys.argv[2])
try:
    client = InnerGcsClient.standalone(address, None, int(timeout * 1000))
    raw = client.internal_kv_get(b"CLUSTER_METADATA", b"cluster", timeout)
    print(json.dumps({"meta": raw.decode("utf-8", "replace") if raw else None}))
except ray.exceptions.AuthenticationError as exc:
    print(json.dumps({"auth": str(exc)}))
except Exception as exc:
    print(json.dumps({"failed": str(exc) or type(exc).__name__}))
"""


def _call(fn: Callable[[T], R], item: T) -> R:
    return fn(item)


def _ray_task(ray: Any) -> Any:
    global _RAY_TASK
    if _RAY_TASK is None:
        _RAY_TASK = ray.remote(num_cpus=TASK_CPUS, max_retries=TASK_RETRIES, retry_exceptions=False)(_call)
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
