"""Fair shares of the thinking workers between the web app's clients.

The worker pool (:mod:`sumito.web.thinking`) asks this scheduler which waiting job a free worker
takes next. Jobs wait in one queue per client (a client is an owner token, or a network address
for requests without one), and the next job comes from the client with the fewest jobs running,
among equals the one served longest ago: round-robin between clients, so a client's hundredth
game waits behind every other client's first, however many it queued.

Two kinds of job are limited over the whole server: *long* ones (a move expected to take more
than :data:`~sumito.web.limits.LONG_MOVE` seconds, and every move of a watch-mode game, which
nobody waits for at the board) hold at most all workers but one, so that quick moves always
find a worker; *analyses* (hints, the evaluation bar, a game's analysis) run
at most ``analyses`` at once. A client with nothing running is exempt from the first limit: its
first job, long or not, takes the next free worker, else one client's long moves would hold the
spare worker and every other client's long move would wait behind them.

Plain bookkeeping without I/O or asyncio, so that its fairness is tested deterministically with
fake jobs.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

WAITING, RUNNING, DONE = "waiting", "running", "done"


@dataclass(eq=False)
class Ticket(Generic[T]):
    """One job in the scheduler: whose it is, what it is, and where it stands."""

    client: str
    job: T
    long: bool = False
    analysis: bool = False
    seq: int = 0
    state: str = WAITING


class FairScheduler(Generic[T]):
    """Which waiting job a free worker takes next, fair between clients (see the module)."""

    def __init__(self, workers: int, analyses: int) -> None:
        if workers < 1 or analyses < 1:
            raise ValueError("a scheduler needs at least one worker and one analysis at a time")
        self.long_limit = max(1, workers - 1)
        self.analysis_limit = analyses
        self._queues: dict[str, deque[Ticket[T]]] = {}
        self._running: Counter[str] = Counter()
        self._served: dict[str, int] = {}  # the dispatch count when each client was last served
        self._dispatches = 0
        self._seq = 0
        self.long_running = 0
        self.analyses_running = 0

    # ----------------------------------------------------------------- queries
    def load(self, client: str) -> int:
        """The jobs of ``client`` waiting or running."""
        queue = self._queues.get(client)
        return (len(queue) if queue else 0) + self._running[client]

    def running(self, client: str) -> int:
        return self._running[client]

    def waiting(self) -> int:
        """Jobs waiting for a worker, over all clients."""
        return sum(len(q) for q in self._queues.values())

    # ----------------------------------------------------------------- changes
    def submit(self, client: str, job: T, *, long: bool = False, analysis: bool = False) -> Ticket[T]:
        """Queue ``job`` for ``client`` (behind its earlier jobs); the ticket tracks it."""
        self._seq += 1
        ticket = Ticket(client, job, long, analysis, self._seq)
        self._queues.setdefault(client, deque()).append(ticket)
        return ticket

    def next(self) -> Ticket[T] | None:
        """The job a free worker takes now (marked running), or ``None`` when none may start."""
        best: tuple[tuple[int, int, int], Ticket[T]] | None = None
        for client, queue in self._queues.items():
            ticket = next((t for t in queue if self._may_start(t)), None)
            if ticket is None:
                continue
            key = (self._running[client], self._served.get(client, 0), queue[0].seq)
            if best is None or key < best[0]:
                best = (key, ticket)
        if best is None:
            return None
        ticket = best[1]
        queue = self._queues[ticket.client]
        queue.remove(ticket)
        if not queue:
            del self._queues[ticket.client]
        ticket.state = RUNNING
        self._running[ticket.client] += 1
        self.long_running += ticket.long
        self.analyses_running += ticket.analysis
        self._dispatches += 1
        self._served[ticket.client] = self._dispatches
        return ticket

    def withdraw(self, ticket: Ticket[T]) -> None:
        """Forget a job whose caller gave up: drop it from its queue, or end it if it had started."""
        if ticket.state == WAITING:
            queue = self._queues.get(ticket.client)
            if queue is not None:
                queue.remove(ticket)
                if not queue:
                    del self._queues[ticket.client]
            ticket.state = DONE
            self._forget(ticket.client)
        elif ticket.state == RUNNING:
            self.finish(ticket)

    def finish(self, ticket: Ticket[T]) -> None:
        """A running job is over (done, failed or stopped): its worker is free for the next."""
        if ticket.state != RUNNING:
            return
        ticket.state = DONE
        self._running[ticket.client] -= 1
        if self._running[ticket.client] <= 0:
            del self._running[ticket.client]
        self.long_running -= ticket.long
        self.analyses_running -= ticket.analysis
        self._forget(ticket.client)

    # ----------------------------------------------------------------- rules
    def _may_start(self, ticket: Ticket[T]) -> bool:
        if ticket.analysis and self.analyses_running >= self.analysis_limit:
            return False
        return not (ticket.long and self.long_running >= self.long_limit and self._running[ticket.client] > 0)

    def _forget(self, client: str) -> None:
        """Keep memory bounded by the clients with work: an idle client's turn counts from scratch."""
        if client not in self._queues and self._running[client] == 0:
            self._running.pop(client, None)
            self._served.pop(client, None)
