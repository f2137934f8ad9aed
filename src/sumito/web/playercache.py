"""The players a thinking worker keeps between requests, within a number and a budget of memory.

Each worker keeps the players it has built, keyed by spec, so that an engine keeps its transposition table
from one move to the next and a network is read once. Clients choose the specs, and every distinct one
(another ``hash``, ``contempt`` or ``depth``) is a new player with tables of its own, so what a worker keeps
is bounded twice: at most :data:`~sumito.defaults.PLAYERS_PER_WORKER` players, and at most
:data:`~sumito.defaults.WORKER_PLAYERS_MB` of their arrays all together, counted by :func:`footprint_mb`
(each array's full size, touched or not). Past either, the least recently used player goes; the player just
used is kept even when it alone is over the budget (an engine of a ``--max-hash`` above it). A player is
counted again after each of its moves (what a move made is counted as it is).

Dropping a player frees its arrays; :func:`~sumito.procs.map_big_arrays` (set in each worker) makes sure that
the freed memory goes back to the OS rather than staying in a fragmented heap.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

import numpy as np

from sumito.defaults import PLAYERS_PER_WORKER, WORKER_PLAYERS_MB
from sumito.players.engine import EnginePlayer
from sumito.procs import trim_heap

K = TypeVar("K", bound=Hashable)
#: how far :func:`footprint_mb` looks into a player (attributes of attributes...), and at how many objects
DEPTH = 6
MAX_OBJECTS = 20_000
_LEAVES = (str, bytes, int, float, complex, bool, type(None), type, Callable)


def footprint_mb(player: Any) -> float:
    """The MB of the numpy arrays ``player`` holds: in its attributes, theirs and so on (lists, tuples,
    dicts and sets too, :data:`DEPTH` levels deep), each buffer counted once, views as the array they view;
    with an engine's second table counted before it is made (:attr:`EnginePlayer.table_bytes_to_come`), so
    that its first move on another board does not take the worker past its budget."""
    to_come = player.table_bytes_to_come if isinstance(player, EnginePlayer) else 0
    seen: set[int] = set()
    buffers: dict[int, int] = {}
    todo: list[tuple[Any, int]] = [(player, 0)]
    while todo and len(seen) < MAX_OBJECTS:
        obj, depth = todo.pop()
        if id(obj) in seen or isinstance(obj, _LEAVES):
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            base = obj
            while isinstance(base.base, np.ndarray):
                base = base.base
            buffers[id(base)] = base.nbytes
            continue
        if depth >= DEPTH:
            continue
        if isinstance(obj, dict):
            children = list(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            children = list(obj)
        else:
            children = list(getattr(obj, "__dict__", {}).values())
            children += [getattr(obj, name, None) for name in getattr(type(obj), "__slots__", ())]
        todo.extend((child, depth + 1) for child in children)
    return (sum(buffers.values()) + to_come) / 2**20


class PlayerCache(Generic[K]):
    """Players by key, most recently used last, within ``most`` players and ``budget_mb`` MB of arrays
    (``size`` counts a player's MB)."""

    def __init__(
        self,
        budget_mb: float = WORKER_PLAYERS_MB,
        most: int = PLAYERS_PER_WORKER,
        size: Callable[[Any], float] = footprint_mb,
    ) -> None:
        self.budget_mb = budget_mb
        self.most = most
        self.size = size
        self._players: OrderedDict[K, Any] = OrderedDict()
        self._mb: dict[K, float] = {}
        self.dropped = 0  # players dropped to stay within the bounds (for tests and probes)

    def get(self, key: K, build: Callable[[], Any]) -> Any:
        """The player of ``key``, built by ``build`` when it is not kept; it becomes the most recently used."""
        player = self._players.pop(key, None)
        if player is None:
            player = build()
        self._players[key] = player
        self.settle(key)
        return player

    def settle(self, key: K) -> None:
        """Count the player of ``key`` again (after a move, which may have made it a table) and drop the least
        recently used others until the cache is within its bounds."""
        if key in self._players:
            self._mb[key] = self.size(self._players[key])
        dropped = False
        while len(self._players) > 1 and (len(self._players) > self.most or self.total_mb > self.budget_mb):
            oldest = next(k for k in self._players if k != key)
            del self._players[oldest]
            self._mb.pop(oldest, None)
            self.dropped += 1
            dropped = True
        if dropped:
            # an engine's arrays go with its last reference (no cycle holds them; gc.collect() would cost a
            # worker with the kernels loaded a second); the heap's free pages go back to the OS
            trim_heap()

    @property
    def total_mb(self) -> float:
        return sum(self._mb.values())

    def keys(self) -> list[K]:
        """The keys kept, least recently used first."""
        return list(self._players)

    def __len__(self) -> int:
        return len(self._players)

    def __contains__(self, key: object) -> bool:
        return key in self._players
