"""Connections to ``sumito serve``: none held idle, and every address within a share that leaves room.

uvicorn closes a kept-alive connection 5 s after its last answer, but a connection that never
sends a request (or sends one a byte at a time) stays open for as long as its client likes, and
the server's connection limit counts it: a few hundred of them lock every client out. This
protocol, uvicorn's own h11 one with three rules added, keeps room for every address:

- a request must arrive whole within :data:`REQUEST_SECONDS` of the connection opening (or of the
  last answer on a kept-alive one), its headers within :data:`HEADER_SECONDS`;
- one address holds at most its *share*: :data:`CONNECTIONS_PER_ADDRESS`, or fewer as more
  addresses connect, an equal part of :data:`CONNECTIONS_IN_ALL` with one part left over
  (:func:`address_share`). So however many addresses hold all they may, about one share stays
  free for the next. A connection past its address's share is answered ``503`` with a one-line
  reason and closed; the connections an address opened while its share was larger stay until they
  close (within the deadlines above when idle);
- when the server holds :data:`CONNECTIONS_IN_ALL` connections, a new one within its address's
  share closes the oldest idle connection (no request under way) of an address above its share;
  with none to close it is answered ``503``.

Trusted proxies (``sumito serve --trusted-proxy``), through which many clients come, have no
share of their own, but count in the server's connections. :class:`ConnectionBook` keeps the
accounts without I/O, so that the rules are tested deterministically.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has, once connected (or answered), to send a request's line and headers
HEADER_SECONDS = 5.0
#: seconds a client has to send a whole request, its body included (bodies are at most 256 KiB)
REQUEST_SECONDS = 30.0
#: connections one address may hold open at once while few addresses are connected (a browser opens
#: about 6 to one server)
CONNECTIONS_PER_ADDRESS = 64
#: the server's connections in all: past it, a new one closes an idle one over its address's share, or is
#: answered 503
CONNECTIONS_IN_ALL = 512
#: uvicorn's own limit (its ``limit_concurrency``), above this protocol's: uvicorn still counts a refused or
#: shed connection until it has closed, and would answer 503 to a connection this protocol admitted
UVICORN_LIMIT = 2 * CONNECTIONS_IN_ALL


def address_share(addresses: int, limit: int = CONNECTIONS_IN_ALL, per_address: int = CONNECTIONS_PER_ADDRESS) -> int:
    """The most connections one address may hold while ``addresses`` addresses (its own included) hold
    some: ``limit`` split into one part more than the addresses, at most ``per_address``, at least 1."""
    return max(1, min(per_address, limit // (addresses + 1)))


class Idle(Protocol):
    def idle(self) -> bool:
        """Whether the connection has no request under way (closing it loses nothing)."""
        ...


@dataclass(frozen=True)
class Admission:
    """What :meth:`ConnectionBook.admit` decided: ``refused`` the one-line reason of a 503, or ``None``;
    ``shed`` an idle connection the caller closes to make room (already out of the book)."""

    refused: str | None = None
    shed: Idle | None = None


class ConnectionBook:
    """The connections a server holds, by address, oldest first; whether one more may open (see the module)."""

    def __init__(
        self,
        limit: int = CONNECTIONS_IN_ALL,
        per_address: int = CONNECTIONS_PER_ADDRESS,
        trusted: frozenset[str] = frozenset(),
    ) -> None:
        if limit < 1 or per_address < 1:
            raise ValueError("a server holds at least one connection, and an address at least one")
        self.limit = limit
        self.per_address = per_address
        self.trusted = trusted
        self.by_address: Counter[str] = Counter()
        self._open: dict[Idle, str] = {}  # connection -> its address, in the order they opened

    def __len__(self) -> int:
        return len(self._open)

    def share(self, address: str) -> int:
        """The most connections ``address`` may hold now (counting it among the connected addresses)."""
        addresses = len(self.by_address) + (address not in self.by_address)
        return address_share(addresses, self.limit, self.per_address)

    def admit(self, connection: Idle, address: str) -> Admission:
        """Open ``connection`` from ``address`` if the rules allow: in the book unless ``refused``."""
        share = self.share(address)
        held = self.by_address[address]
        if address not in self.trusted and held >= share:
            addresses = len(self.by_address)
            return Admission(f"this address has {held} connections open to this server, its most while "
                             f"{addresses} addresses are connected; close some")
        shed = None
        if len(self._open) >= self.limit:
            shed = self._idle_over_share(share)
            if shed is None:
                return Admission(f"this server has {len(self._open)} connections open, its most, and none idle "
                                 "that an address holds beyond its share; try again shortly")
            self.release(shed)
        self._open[connection] = address
        self.by_address[address] += 1
        return Admission(shed=shed)

    def release(self, connection: Idle) -> None:
        """``connection`` closed (or is being closed): out of the book; twice is harmless."""
        address = self._open.pop(connection, None)
        if address is None:
            return
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]

    def _idle_over_share(self, share: int) -> Idle | None:
        """The oldest idle connection of an address holding more than ``share`` (not a trusted proxy)."""
        for connection, address in self._open.items():
            if address not in self.trusted and self.by_address[address] > share and connection.idle():
                return connection
        return None


_TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: %d\r\n\r\n%s"
)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request and a share of connections for each address."""

    #: every connection of the server (one event loop), by address (set by :func:`protocol_class`)
    book: ClassVar[ConnectionBook] = ConnectionBook()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._admitted = False
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for = h11.IDLE

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else "unknown"
        admission = self.book.admit(self, address)
        if admission.refused is not None:
            detail = json.dumps({"detail": admission.refused}).encode()
            transport.write(_TOO_MANY % (len(detail), detail))
            transport.close()
            return
        self._admitted = True
        if isinstance(admission.shed, BoundedH11Protocol):  # the book holds this server's connections only
            admission.shed.shed()
        self._arm(HEADER_SECONDS)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._admitted:
            self.book.release(self)
            self._admitted = False
        super().connection_lost(exc)

    def idle(self) -> bool:
        """No request under way: none arrived since the last answer (or since it opened), and none is answered."""
        return (self.cycle is None or self.cycle.response_complete) and self.conn.their_state is h11.IDLE

    def shed(self) -> None:
        """Closed to make room for another address's connection (the book has let it go already)."""
        self._admitted = False
        self._disarm()
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    # ----------------------------------------------------------------- the request's deadline
    def _follow(self) -> None:
        """Re-arm the deadline as the request moves on: headers, then body, then none while it is answered."""
        state = self.conn.their_state
        if state == self._waiting_for:
            return
        self._waiting_for = state
        if state is h11.IDLE:  # a kept-alive connection's next request: uvicorn's keep-alive timer waits
            self._arm(HEADER_SECONDS)
        elif state is h11.SEND_BODY:
            self._arm(REQUEST_SECONDS)
        else:  # the whole request is in (or the connection is closing): the app answers in its own time
            self._disarm()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        """The client took too long to send its request: close the connection (nothing was asked yet)."""
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def protocol_class(
    trusted: tuple[str, ...] = (), limit: int = CONNECTIONS_IN_ALL, per_address: int = CONNECTIONS_PER_ADDRESS
) -> type[BoundedH11Protocol]:
    """The protocol for one server: at most ``limit`` connections, ``per_address`` for one address while
    few are connected, ``trusted`` proxies exempt from the shares."""
    fields = {"book": ConnectionBook(limit, per_address, frozenset(trusted))}
    return type("ServerH11Protocol", (BoundedH11Protocol,), fields)
