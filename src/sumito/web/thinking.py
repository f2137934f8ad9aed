"""Computer moves for the web app, chosen in worker processes so that the server never waits on them.

The numba kernels of the search and the evaluations hold the GIL while they run, so a computer
thinking in a thread of the server process would stall every other request for as long as it
thinks. Moves are therefore chosen in a small pool of worker processes. A request is plain data
(the player's spec, the position string, the variant and the hashes of the earlier positions);
each worker keeps the players it has built, keyed by spec, so an engine keeps its transposition
table and a network is loaded once per worker, not once per move.
"""

from __future__ import annotations

import importlib
import multiprocessing
import signal
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from sumito.arena.executor import available_cores
from sumito.arena.match import start_position
from sumito.players import Player, make_player

PLAYER_MODULES = ("random", "greedy", "heuristic", "abla", "alphalone", "engine", "td")
# one cheap move of each kind of player loads its kernels
WARM_UP_SPECS = (
    *("random", "greedy", "heuristic:depth=1", "abla:depth=1", "alphalone:depth=1", "td", "engine:depth=1,hash=1"),
)
PLAYERS_PER_WORKER = 8  # players kept per worker process (an engine holds a 32 MB table by default)


@dataclass(frozen=True)
class ThinkRequest:
    """What a worker needs to choose one move: plain data, never a live object."""

    spec: str
    position: str
    win_threshold: int
    inline_only: bool
    history: tuple[int, ...] = ()
    movetime: float | None = None


_players: OrderedDict[str, Player] = OrderedDict()


def build_player(spec: str) -> Player:
    """The player ``spec`` names, built once per worker and kept (most recently used last)."""
    player = _players.pop(spec, None)
    if player is None:
        player = make_player(spec)
    _players[spec] = player
    while len(_players) > PLAYERS_PER_WORKER:
        _players.popitem(last=False)
    return player


def choose_move(request: ThinkRequest) -> str:
    """The move (in notation) that the player ``request.spec`` chooses; runs in a worker process."""
    player = build_player(request.spec)
    position = start_position(request.position, request.win_threshold, request.inline_only)
    move = player.choose(position, movetime=request.movetime, history=list(request.history))
    return move.notation()


def _worker_start() -> None:
    """Workers leave Ctrl-C to the server, which shuts them down, and die when it terminates them.

    A forked worker inherits the server's handlers (uvicorn catches SIGTERM to shut down
    gracefully), so both are set back here.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def preload() -> int:
    """Load every player's compiled kernels in this process (from numba's disk cache, a few seconds).

    Runs in each fresh worker, in the background, so that the first engine move of a game does
    not wait for it; a no-op where the kernels are loaded already (in workers forked from a
    process that has them).
    """
    from sumito.engine import Position

    position = Position.start("mini")
    for spec in WARM_UP_SPECS:
        try:
            make_player(spec).choose(position)
        except Exception:  # a player that cannot warm up fails on its first real move, with its message
            continue
    return position.count_legal_moves()


def _start_worker() -> int:
    return 0


def thinking_pool(workers: int | None = None) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (default: the cores available, at most 4) for computer moves.

    The workers are forked (they start in milliseconds, with the players' modules already
    imported) when the first task is submitted: :func:`warm_up` does that as the server starts,
    from the event loop's thread, before any request is served.
    """
    count = workers or min(4, available_cores())
    context = multiprocessing.get_context("fork")
    return ProcessPoolExecutor(max_workers=count, mp_context=context, initializer=_worker_start)


def start_workers(pool: ProcessPoolExecutor, warm: bool = True) -> None:
    """Fork the workers now, from the calling (event loop's) thread, before any request is served.

    With ``warm``, each worker then loads every player's kernels in the background (see
    :func:`preload`); nothing waits for that.
    """
    for module in PLAYER_MODULES:  # imported before the fork, once for every worker
        importlib.import_module(f"sumito.players.{module}")
    workers = pool._max_workers  # type: ignore[attr-defined]
    for _ in range(workers):
        pool.submit(preload if warm else _start_worker)
