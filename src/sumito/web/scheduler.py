"""Fair shares of the thinking workers between the web app's clients.

The worker pool (:mod:`sumito.web.thinking`) asks this scheduler which waiting job a free worker
takes next. Jobs wait in one queue per client. A client is written ``ADDRESS`` or
``ADDRESS|TOKEN``: the network address its requests come from and, inside it, the owner token
they carry. Shares go to addresses first, because owner tokens cost nothing (a client could make
a thousand): the next job comes from the address with the fewest jobs running, among equals the
one served longest ago; inside that address, from its token with the fewest running, among equals
the one served longest ago. So an address's hundredth game waits behind every other address's
first, however many games and tokens it has.

Two kinds of job are limited over the whole server. *Long* ones (a move expected to take more
than :data:`~sumito.web.limits.LONG_MOVE` seconds, an analysis as long, and every move of a
watch-mode game, which nobody waits for at the board) hold at most all workers but one, whoever
asks: the last free worker is kept for quick jobs, so a person's quick reply always finds one
however many addresses queue long moves. *Analyses* (hints, the evaluation bar, a game's analysis)
run at most ``analyses`` at once.

The long slots (all workers but one) are handed out in the same turn as every job, so they go
round the addresses: when one frees, the waiting long move of the address with the fewest jobs
running, among equals the one served longest ago, takes it. An address's first long move
therefore waits for the quickest of the long moves running to end, and then goes ahead of every
address that has one running or was served since; it never waits behind another address's queue.
An address's quick jobs pass its own long ones waiting.

With one worker there is no spare to keep: long jobs may take the only worker (else none would
ever run), and a quick job waits for the job running to end, then goes first if its address has
been served least recently. So ``sumito serve --workers 1`` keeps turns fair but cannot promise
quick replies while others' long moves run; two workers or more can.

Plain bookkeeping without I/O or asyncio, so that its fairness is tested deterministically with
fake jobs.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")

WAITING, RUNNING, DONE = "waiting", "running", "done"


def group_of(client: str) -> str:
    """The address part of a client (``ADDRESS|TOKEN`` → ``ADDRESS``): whom fair shares and caps count."""
    return client.partition("|")[0]


@dataclass(eq=False)
class Ticket(Generic[T]):
    """One job in the scheduler: whose it is, what it is, and where it stands."""

    client: str
    job: T
    long: bool = False
    analysis: bool = False
    seq: int = 0
    state: str = WAITING
    scheduler: Any = field(default=None, repr=False)  # the FairScheduler it waits in

    @property
    def group(self) -> str:
        return group_of(self.client)

    def ahead(self) -> int | None:
        """About how many waiting jobs a free worker takes before this one; ``None`` once it runs."""
        if self.state != WAITING or self.scheduler is None:
            return None
        return int(self.scheduler.ahead(self))


class FairScheduler(Generic[T]):
    """Which waiting job a free worker takes next, fair between clients (see the module)."""

    def __init__(self, workers: int, analyses: int) -> None:
        if workers < 1 or analyses < 1:
            raise ValueError("a scheduler needs at least one worker and one analysis at a time")
        # all workers but one, so that quick jobs always find one; the only worker when there is one
        self.long_limit = max(1, workers - 1)
        self.analysis_limit = analyses
        self._queues: dict[str, deque[Ticket[T]]] = {}
        # jobs running and the dispatch count when last served, for clients and for their addresses (groups)
        self._running: Counter[str] = Counter()
        self._served: dict[str, int] = {}
        self._group_running: Counter[str] = Counter()
        self._group_served: dict[str, int] = {}
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

    def group_load(self, group: str) -> int:
        """The jobs waiting or running of every client of the address ``group``."""
        waiting = sum(len(q) for c, q in self._queues.items() if group_of(c) == group)
        return waiting + self._group_running[group]

    def ahead(self, ticket: Ticket[T]) -> int:
        """About how many waiting jobs a free worker takes before ``ticket`` (0 once it runs).

        Round-robin between addresses: each other address is served about as many times as the
        jobs ``ticket``'s own address has ahead of it (one more where that address's turn comes
        first), and never more than it has waiting.
        """
        if ticket.state != WAITING:
            return 0
        group = ticket.group
        own = sorted((t for c, q in self._queues.items() if group_of(c) == group for t in q), key=lambda t: t.seq)
        before = next((i for i, t in enumerate(own) if t is ticket), len(own))
        waiting: Counter[str] = Counter()
        first: dict[str, int] = {}  # each address's oldest waiting job: the tie-break of next()
        for client, queue in self._queues.items():
            other = group_of(client)
            first[other] = min(first.get(other, queue[0].seq), queue[0].seq)
            if other != group:
                waiting[other] += len(queue)
        mine = (*self._turn_key(group), first[group])
        return before + sum(
            min(count, before + ((*self._turn_key(other), first[other]) < mine)) for other, count in waiting.items()
        )

    def _turn_key(self, group: str) -> tuple[int, int]:
        return self._group_running[group], self._group_served.get(group, 0)

    def waiting(self) -> int:
        """Jobs waiting for a worker, over all clients."""
        return sum(len(q) for q in self._queues.values())

    # ----------------------------------------------------------------- changes
    def submit(self, client: str, job: T, *, long: bool = False, analysis: bool = False) -> Ticket[T]:
        """Queue ``job`` for ``client`` (behind its earlier jobs); the ticket tracks it."""
        self._seq += 1
        ticket = Ticket(client, job, long, analysis, self._seq, scheduler=self)
        self._queues.setdefault(client, deque()).append(ticket)
        return ticket

    def next(self) -> Ticket[T] | None:
        """The job a free worker takes now (marked running), or ``None`` when none may start."""
        best: tuple[tuple[int, int, int, int, int], Ticket[T]] | None = None
        for client, queue in self._queues.items():
            ticket = next((t for t in queue if self._may_start(t)), None)
            if ticket is None:
                continue
            key = (*self._turn_key(ticket.group), self._running[client], self._served.get(client, 0), queue[0].seq)
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
        self._group_running[ticket.group] += 1
        self.long_running += ticket.long
        self.analyses_running += ticket.analysis
        self._dispatches += 1
        self._served[ticket.client] = self._dispatches
        self._group_served[ticket.group] = self._dispatches
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
        self._group_running[ticket.group] -= 1
        if self._group_running[ticket.group] <= 0:
            del self._group_running[ticket.group]
        self.long_running -= ticket.long
        self.analyses_running -= ticket.analysis
        self._forget(ticket.client)

    # ----------------------------------------------------------------- rules
    def _may_start(self, ticket: Ticket[T]) -> bool:
        if ticket.analysis and self.analyses_running >= self.analysis_limit:
            return False
        return not (ticket.long and self.long_running >= self.long_limit)

    def _forget(self, client: str) -> None:
        """Keep memory bounded by the clients with work: an idle client's turn counts from scratch."""
        if client not in self._queues and self._running[client] == 0:
            self._running.pop(client, None)
            self._served.pop(client, None)
        group = group_of(client)
        if self._group_running[group] == 0 and not any(group_of(c) == group for c in self._queues):
            self._group_running.pop(group, None)
            self._group_served.pop(group, None)
