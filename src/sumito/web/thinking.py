"""Computer moves for the web app, chosen in worker processes that the server can kill.

The numba kernels of the search and the evaluations hold the GIL while they run, so a computer
thinking in a thread of the server process would stall every other request for as long as it
thinks. Moves are therefore chosen in a small pool of forked worker processes. A request is plain
data (the player's spec, the position string, the variant, the hashes of the earlier positions);
each worker keeps the players it has built, keyed by spec, so an engine keeps its transposition
table and a network is loaded once per worker, not once per move: the most recently used ones, within
a number and a budget of memory (:mod:`sumito.web.playercache`).

A search cannot be interrupted from outside, so the pool is our own rather than
``concurrent.futures``': each worker is one process on one pipe, and a move that runs past its
deadline, or whose game no longer wants it (an undo, a resignation, a deleted game), costs its
worker: the process is killed and a fresh one forked in its place. Which waiting request a free
worker takes is up to :class:`~sumito.web.scheduler.FairScheduler`: round-robin between addresses,
long moves on all workers but one whoever asks (so that quick players always find a worker), an
address's first request never behind another address's queue. Workers die with the server (``kill -9``
included) and close the sockets they inherited, so they never hold the port or a client's
connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import multiprocessing
import os
import signal
import stat
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from sumito.analysis import exact_values, score_on
from sumito.arena.executor import available_cores
from sumito.arena.match import start_position
from sumito.games.abalone import DrawCounters, Move, Position
from sumito.players import Player, make_player
from sumito.players.engine import EnginePlayer
from sumito.procs import die_with_parent, map_big_arrays, one_search_thread
from sumito.search.context import WIN
from sumito.web.limits import ANALYSES_AT_ONCE, LONG_MOVE, ModelFolder
from sumito.web.playercache import PlayerCache
from sumito.web.scheduler import FairScheduler, Ticket, group_of

log = logging.getLogger("sumito.web")

PLAYER_MODULES = ("random", "greedy", "heuristic", "abla", "alphalone", "engine", "td")
# one cheap move of each kind of player loads its kernels
WARM_UP_SPECS = (
    *("random", "greedy", "heuristic:depth=1", "abla:depth=1", "alphalone:depth=1", "td", "engine:depth=1,hash=1"),
)
READY_TIMEOUT = 300.0  # seconds a fresh worker may take to load the kernels before it is replaced


#: the transposition table of the engines that analyse positions (MB): their own small one, so that
#: analysing never disturbs a playing engine's
ANALYSIS_HASH = 16
#: the engine that scores the positions of a game's analysis (for the seconds each request gives)
ANALYSIS_SPEC = f"engine:time=30,hash={ANALYSIS_HASH},nnue=builtin-nnue"


class ThinkError(Exception):
    """The player raised while choosing (a bug or a bad file): its message; the worker lives on."""


class ThinkTimeout(Exception):
    """The move ran past its deadline; its worker was killed and replaced."""


class WorkerDied(Exception):
    """The worker process died while thinking (out of memory, a crash); it was replaced."""


class PoolBusy(Exception):
    """The client has as many requests waiting or running as it may (the request was not queued)."""

    def __init__(self, load: int) -> None:
        super().__init__(f"{load} searches of this client are queued or running")
        self.load = load


@dataclass(frozen=True)
class ThinkRequest:
    """What a worker needs to choose one move: plain data, never a live object."""

    spec: str
    position: str
    win_threshold: int
    inline_only: bool
    history: tuple[int, ...] = ()
    movetime: float | None = None
    models: ModelFolder | None = None  # which files the spec may name; None: any (not a server's request)
    draw: DrawCounters | None = None  # the game's draw rules and counters, so a search sees a draw coming


@dataclass(frozen=True)
class AnalyseRequest:
    """What a worker needs to score one position: the best move and score of the engine ``spec``,
    searching ``seconds`` at most (``None``: as long and as deep as its spec says)."""

    position: str
    win_threshold: int
    inline_only: bool
    history: tuple[int, ...] = ()
    seconds: float | None = 0.3
    spec: str = ANALYSIS_SPEC


#: the players this worker has built, within PLAYERS_PER_WORKER and WORKER_PLAYERS_MB (see playercache)
_players: PlayerCache[tuple[str, ModelFolder | None]] = PlayerCache()


def build_player(spec: str, models: ModelFolder | None = None) -> Player:
    """The player ``spec`` names, built once per worker and kept while it is among the most recently used
    within the worker's bounds (:class:`~sumito.web.playercache.PlayerCache`)."""
    player: Player = _players.get((spec, models), lambda: make_player(spec, resolve_path=models))
    return player


def choose_move(request: ThinkRequest) -> str:
    """The move (in notation) that the player ``request.spec`` chooses; runs in a worker process."""
    player = build_player(request.spec, request.models)
    position = start_position(request.position, request.win_threshold, request.inline_only)
    try:
        move = player.choose(position, movetime=request.movetime, history=list(request.history), draw=request.draw)
    finally:
        _players.settle((request.spec, request.models))  # its move may have made it another table
    return move.notation()


def analyse_position(request: AnalyseRequest) -> dict[str, Any]:
    """The engine's view of one position (runs in a worker): best move, score for the side to move
    (``score`` in the engine's points, beyond ``WIN_BOUND`` a won or lost position; ``marbles`` the
    same in the board's own scale, :func:`~sumito.analysis.score_on`), depth and principal variation.

    A position that is over on the board (a side pushed off enough marbles, or no legal move) is
    not searched: ``move`` is ``None`` and the score says who won. On a board whose table is in the cache
    (the mini board, once ``sumito solve`` has built it) ``exact`` is the position's exact value and each
    move's (:func:`~sumito.analysis.exact_values`); a request never starts a solve.
    """
    position = start_position(request.position, request.win_threshold, request.inline_only)
    player = build_player(request.spec)
    assert isinstance(player, EnginePlayer), f"analysis needs an engine spec, not {request.spec}"
    winner = position.winner()
    if winner is not None or position.count_legal_moves() == 0:
        mover = position.side_to_move
        score = 0.0 if winner is None else (WIN if winner == mover else -WIN)
        marbles = score_on(player, position.variant, score).marbles
        return {"move": None, "score": score, "marbles": marbles, "depth": 0, "pv": [], "nodes": 0}
    try:
        player.choose(position, movetime=request.seconds, history=list(request.history))
    finally:
        _players.settle((request.spec, None))
    result = player.last
    assert result is not None
    side = position.variant.side
    return {
        "move": Move(result.move, side).notation(),
        "score": float(result.score),
        "marbles": score_on(player, position.variant, float(result.score)).marbles,
        "depth": int(result.depth),
        "pv": [Move(code, side).notation() for code in result.pv],
        "nodes": int(result.nodes),
        "exact": exact_values(position, solve=False),
    }


def handle(request: ThinkRequest | AnalyseRequest) -> Any:
    """A worker's answer to one request: a move in notation, or an analysis (a dict)."""
    if isinstance(request, AnalyseRequest):
        return analyse_position(request)
    return choose_move(request)


def preload() -> int:
    """Load every player's compiled kernels in this process (from numba's disk cache, a few seconds).

    Runs in each fresh worker before it takes a move, so that the first engine move of a game
    does not wait for it; cheap where the kernels are loaded already.
    """
    position = Position.start("mini")
    for spec in WARM_UP_SPECS:
        try:
            make_player(spec).choose(position)
        except Exception:  # a player that cannot warm up fails on its first real move, with its message
            continue
    return position.count_legal_moves()


def _close_inherited_sockets(keep: int) -> None:
    """Point every inherited socket (the listening one, clients' connections, the event loop's
    self-pipe) at /dev/null: a worker holding a copy of the listening socket keeps the port busy
    after the server dies, and one holding a client's connection keeps that client waiting.
    ``dup2`` rather than ``close``, so that the parent's socket objects copied into this process
    can never close an unrelated file that reused the number."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd in (keep, null):
                continue
            with contextlib.suppress(OSError):
                if stat.S_ISSOCK(os.fstat(fd).st_mode):
                    os.dup2(null, fd)
    except OSError:  # no /proc (not Linux): the worker dies with the server all the same
        pass
    finally:
        os.close(null)


def _worker_main(conn: Connection, parent: int, warm: bool) -> None:
    """A worker's life: die with the server, then answer requests one at a time until the pipe closes."""
    die_with_parent(parent)
    one_search_thread()  # the workers share the cores between the clients' games
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's; it kills the workers
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # uvicorn's graceful-shutdown handler is the server's
    _close_inherited_sockets(conn.fileno())
    map_big_arrays()  # a dropped player's tables go back to the OS (see sumito.web.playercache)
    if warm:
        preload()
    conn.send(("ready", None))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[str, Any] = ("move", handle(request))
        except BaseException as exc:  # any failure of the player is its game's error, not the worker's end
            lines = str(exc).strip().splitlines()
            reply = ("error", lines[0] if lines else type(exc).__name__)
        conn.send(reply)


class _Worker:
    def __init__(self, context: Any, warm: bool) -> None:
        self.conn, child = context.Pipe(duplex=True)
        self.process = context.Process(target=_worker_main, args=(child, os.getpid(), warm), daemon=True)
        self.process.start()
        child.close()

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.join(timeout=2)  # SIGKILL: milliseconds; reaps the process
        with contextlib.suppress(Exception):
            self.conn.close()


async def _readable(conn: Connection, timeout: float | None) -> bool:
    """Wait until ``conn`` has data (or EOF) without blocking the event loop; False on timeout."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    fd = conn.fileno()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(True))
    try:
        await asyncio.wait_for(ready, timeout)
        return True
    except TimeoutError:
        return False
    finally:
        loop.remove_reader(fd)


class ThinkingPool:
    """``size`` worker processes choosing computer moves, each move with a deadline, any move cancellable.

    Create and use it inside the server's event loop: :meth:`start` forks the workers,
    :meth:`think` chooses one move, :meth:`close` kills them all.
    """

    def __init__(self, size: int | None = None, warm: bool = True) -> None:
        self.size = max(1, size or min(4, available_cores()))
        self.warm = warm
        self.context = multiprocessing.get_context("fork")  # workers know every registered player at once
        self.workers: set[_Worker] = set()
        self.replaced = 0  # workers killed for overrunning, being cancelled or dying (for tests and logs)
        self.scheduler: FairScheduler[asyncio.Future[_Worker]] = FairScheduler(self.size, ANALYSES_AT_ONCE)
        self._idle: deque[_Worker] = deque()
        self._starting: set[asyncio.Task] = set()
        self._started = False
        self._closed = False

    def start(self) -> None:
        """Fork the workers now, from the event loop's thread, before any request is served."""
        for module in PLAYER_MODULES:  # imported before the fork, once for every worker
            importlib.import_module(f"sumito.players.{module}")
        self._started = True
        map_big_arrays()  # this process builds a player to check each new spec; the workers inherit it too
        for _ in range(self.size):
            self._spawn()

    def load(self, client: str) -> int:
        """The requests of ``client``'s address waiting for a worker or running (every token's)."""
        return self.scheduler.group_load(group_of(client))

    def _spawn(self) -> None:
        if self._closed:
            return
        worker = _Worker(self.context, self.warm)
        self.workers.add(worker)
        task = asyncio.get_running_loop().create_task(self._await_ready(worker))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _await_ready(self, worker: _Worker) -> None:
        """Hand a fresh worker out once it says it is ready; replace one that never does."""
        try:
            if await _readable(worker.conn, READY_TIMEOUT):
                kind, _ = worker.conn.recv()
                if kind == "ready":
                    self._release(worker)
                    return
            log.warning("a thinking worker did not start; starting another")
        except (EOFError, OSError):
            log.warning("a thinking worker died as it started; starting another")
            await asyncio.sleep(1)  # never fork in a tight loop
        except asyncio.CancelledError:
            self._retire(worker, replace=False)
            raise
        self._retire(worker)

    def _release(self, worker: _Worker) -> None:
        """A worker is free: give it the next job the scheduler picks, or keep it idle."""
        self._idle.append(worker)
        self._dispatch()

    def _dispatch(self) -> None:
        """Pair idle workers with the jobs the scheduler picks, until either runs out."""
        while self._idle:
            ticket = self.scheduler.next()
            if ticket is None:
                return
            if ticket.job.done():  # its caller gave up (cancelled) before it got a worker
                self.scheduler.finish(ticket)
                continue
            ticket.job.set_result(self._idle.popleft())

    def _retire(self, worker: _Worker, replace: bool = True) -> None:
        worker.kill()
        self.workers.discard(worker)
        if replace and not self._closed:
            self.replaced += 1
            self._spawn()

    async def think(
        self,
        request: ThinkRequest,
        deadline: float,
        long: bool | None = None,
        *,
        client: str = "",
        queued: Callable[[Ticket[Any]], None] | None = None,
    ) -> str:
        """The move ``request`` asks for, chosen by a worker within ``deadline`` seconds of starting,
        in ``client``'s turn (see :class:`~sumito.web.scheduler.FairScheduler`). A ``long`` move
        (default: a deadline over ``LONG_MOVE`` seconds) may not take the last free worker.

        Raises :class:`ThinkTimeout` (past the deadline), :class:`WorkerDied` or :class:`ThinkError`
        (the player's own error). Cancelling the caller kills the worker if it had the move.
        ``queued`` is given the move's ticket as it is queued (it tells how many jobs are ahead).
        """
        return str(await self.run(request, deadline, long, client=client, queued=queued))

    async def analyse(
        self,
        request: AnalyseRequest,
        deadline: float,
        *,
        client: str = "",
        limit: int | None = None,
        long: bool = False,
    ) -> dict[str, Any]:
        """The engine's analysis of one position (see :func:`analyse_position`), with the same
        deadline, worker replacement and cancellation as a move; at most ``ANALYSES_AT_ONCE`` run
        at once, and a ``long`` one never on the last free worker. :class:`PoolBusy` when ``client``
        has ``limit`` requests queued or running already."""
        return dict(await self.run(request, deadline, long=long, client=client, limit=limit, analysis=True))

    async def run(
        self,
        request: ThinkRequest | AnalyseRequest,
        deadline: float,
        long: bool | None = None,
        *,
        client: str = "",
        limit: int | None = None,
        analysis: bool = False,
        queued: Callable[[Ticket[Any]], None] | None = None,
    ) -> Any:
        """What a worker answers to ``request`` within ``deadline`` seconds of starting on it.

        The request waits in ``client``'s queue for a worker (the scheduler's turn); with
        ``limit``, a client whose address has that many requests queued or running already gets
        :class:`PoolBusy` at once. Raises :class:`ThinkTimeout` (past the deadline),
        :class:`WorkerDied` or :class:`ThinkError` (the player's own error). Cancelling the caller
        kills the worker if it had the move.
        """
        assert self._started, "start() the pool first"
        long = deadline > LONG_MOVE if long is None else long
        if limit is not None and self.load(client) >= limit:
            raise PoolBusy(self.load(client))
        assigned: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        ticket = self.scheduler.submit(client, assigned, long=long, analysis=analysis)
        if queued is not None:
            queued(ticket)
        self._dispatch()
        try:
            worker = await assigned
        except BaseException:
            self._give_up(ticket)
            raise
        try:
            kind, value = await self._ask(worker, request, deadline)
        finally:
            self.scheduler.finish(ticket)
            self._dispatch()
        if kind == "error":
            raise ThinkError(value)
        return value

    def _give_up(self, ticket: Ticket[asyncio.Future[_Worker]]) -> None:
        """The caller was cancelled while it waited: a worker handed to it meanwhile goes back."""
        assigned = ticket.job
        if assigned.done() and not assigned.cancelled():
            self.scheduler.finish(ticket)
            self._release(assigned.result())  # it never got the request: idle and clean
        else:
            assigned.cancel()
            self.scheduler.withdraw(ticket)
            self._dispatch()  # a job it held back (an analysis, a long move) may start now

    async def _ask(self, worker: _Worker, request: ThinkRequest | AnalyseRequest, deadline: float) -> tuple[str, Any]:
        """Send ``request`` to ``worker`` and read its answer; a worker that fails or overruns is replaced."""
        try:
            worker.conn.send(request)
            if not await _readable(worker.conn, deadline):
                raise ThinkTimeout(f"no move within {deadline:g} s")
            kind, value = worker.conn.recv()
        except (EOFError, OSError):
            self._retire(worker)
            raise WorkerDied("its worker process died (out of memory?)") from None
        except BaseException:  # the deadline, or a cancelled turn: the worker is still thinking
            self._retire(worker)
            raise
        self._idle.append(worker)  # dispatched by the caller, once the scheduler counts the job as done
        return kind, value

    def stop_replacing(self) -> None:
        """From now on a worker killed (a cancelled move, as the server stops) is not replaced."""
        self._closed = True

    def close(self) -> None:
        """Kill every worker now: a computer still thinking has nobody left to tell its move to."""
        self._closed = True
        for task in self._starting:
            task.cancel()
        workers = list(self.workers)
        for worker in workers:
            with contextlib.suppress(Exception):
                worker.process.kill()
        for worker in workers:
            worker.kill()
        self.workers.clear()

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process.pid is not None]
