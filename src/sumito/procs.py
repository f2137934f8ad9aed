"""Process hygiene shared by every pool of workers (arena, web, training, backgammon).

Workers must die with their parent: a ``kill -9`` of ``sumito serve`` or ``sumito match`` may not
leave forked workers behind holding the listening socket or burning CPU. On Linux the kernel does
it for us (``prctl(PR_SET_PDEATHSIG, SIGKILL)``); elsewhere a worker only checks at start that its
parent still lives. ``cap_workers`` bounds a requested worker count before any process starts.

Processes that are not ours to start with ``PR_SET_PDEATHSIG`` (a local Ray instance's agents, which
linger for a minute or more after a ``kill -9`` of the driver) are handed to a :class:`Reaper`: a small
process that outlives its parent just long enough to kill them when the parent is gone.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import subprocess
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


#: glibc's ``mallopt`` parameter: the size from which an allocation is a mapping of its own
_M_MMAP_THRESHOLD = -3
#: that size for a long-lived process that makes and drops big arrays (a web worker's engines' tables)
MAPPED_FROM_BYTES = 1 << 20


def _glibc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt, libc.malloc_trim  # noqa: B018 - not glibc (musl): neither exists
    except (OSError, AttributeError):
        return None
    return libc


def map_big_arrays(threshold: int = MAPPED_FROM_BYTES) -> bool:
    """Give every allocation of ``threshold`` bytes or more a mapping of its own, returned to the OS when it
    is freed. glibc starts there too, but raises the threshold (up to 32 MB) each time such a block is freed,
    after which the next tables of a few MB come from the heap and stay there, fragmented, once freed: a
    process that keeps making and dropping engines grows. Whether it could be set (glibc only)."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(_M_MMAP_THRESHOLD, threshold))


def trim_heap() -> None:
    """Hand the heap's free pages back to the OS (glibc's ``malloc_trim``); nothing elsewhere."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


#: the environment variable that sets how many threads an engine searches with when its spec does not say
SEARCH_THREADS_ENV = "SUMITO_THREADS"


def available_cores() -> int:
    """The CPU cores this process may use: its affinity mask where the OS has one, else the machine's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


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
def sigint_held() -> Iterator[None]:
    """Hold Ctrl-C back while worker processes are started or stopped: a SIGINT meanwhile is only noted (the
    workers forked meanwhile inherit that handler, so a Ctrl-C in the gap between fork and their initializer
    does not reach them as ``KeyboardInterrupt``), and raised again, to the handler of before, as the hold
    ends. (Ignoring and blocking it would lose it: a process-directed signal goes to any thread that does not
    block it — numpy's BLAS threads — and is dropped there.) Main thread only: elsewhere signal handlers
    cannot be set (nothing is held)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if noted:  # to this thread, by the handler just restored: KeyboardInterrupt, as if it came now
            signal.raise_signal(signal.SIGINT)


# --------------------------------------------------------------------------- the reaper
def _start_time(pid: int) -> int | None:
    """The start time of process ``pid`` (clock ticks since boot), which with the pid names one process (a pid
    is reused, the pair is not); None when it is gone or there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    try:  # the command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'
        return int(stat[stat.rindex(b")") + 2 :].split()[19])
    except (ValueError, IndexError):
        return None


def descendants(pid: int | None = None) -> list[tuple[int, int]]:
    """Every living descendant of process ``pid`` (default: this one) as ``(pid, start time)``, from /proc
    (empty where there is none)."""
    root = os.getpid() if pid is None else pid
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
            ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found: list[tuple[int, int]] = []
    todo = list(children.get(root, []))
    while todo:
        child = todo.pop()
        start = _start_time(child)
        if start is not None:
            found.append((child, start))
            todo.extend(children.get(child, []))
    return found


class Reaper:
    """Kills the processes it is given when this process dies, however it dies (``kill -9`` included).

    A child process (started in a session of its own, so that a Ctrl-C or a hang-up of the terminal does not
    reach it) reads ``pid start`` lines from a pipe whose other end only this process holds; when this process
    is gone the pipe ends, and the child kills (SIGKILL) each process it was given that still runs (the same
    pid started at the same time), then exits. Linux only (it needs /proc); elsewhere it does nothing."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None

    def add(self, processes: list[tuple[int, int]]) -> None:
        """Kill ``processes`` (``(pid, start time)``, as :func:`descendants` gives them) when this process dies."""
        if not processes or not sys.platform.startswith("linux"):
            return
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", os.path.abspath(__file__), "reap"],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True, close_fds=True,
            )
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write("".join(f"{pid} {start}\n" for pid, start in processes
                                           if pid != self._proc.pid).encode())
            self._proc.stdin.flush()
        except OSError:  # the reaper is gone (killed by someone): the processes are left to their own fate
            pass


def _reap_from_stdin() -> None:
    """The reaper's body: collect ``pid start`` lines until the pipe ends, then kill those still running."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    processes: list[tuple[int, int]] = []
    for line in sys.stdin.buffer:
        with contextlib.suppress(ValueError):
            pid, start = (int(x) for x in line.split())
            processes.append((pid, start))
    for pid, start in processes:
        if _start_time(pid) == start:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":  # the reaper process (Reaper), run as a script: it imports nothing of Sumito
    if sys.argv[1:] == ["reap"]:
        _reap_from_stdin()
