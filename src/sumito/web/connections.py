"""Connections to ``sumito serve``: none held idle, and no address holding more than its share.

uvicorn closes a kept-alive connection 5 s after its last answer, but a connection that never
sends a request (or sends one a byte at a time) stays open for as long as its client likes, and
the server's connection limit counts it: a few hundred of them lock every client out. This
protocol, uvicorn's own h11 one with two rules added, closes such connections:

- a request must arrive whole within :data:`REQUEST_SECONDS` of the connection opening (or of the
  last answer on a kept-alive one), its headers within :data:`HEADER_SECONDS`;
- one address holds at most :data:`CONNECTIONS_PER_ADDRESS` connections at once; a connection
  past that is answered ``503`` with a one-line reason and closed. Trusted proxies
  (``sumito serve --trusted-proxy``), through which many clients come, are exempt.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has, once connected (or answered), to send a request's line and headers
HEADER_SECONDS = 5.0
#: seconds a client has to send a whole request, its body included (bodies are at most 256 KiB)
REQUEST_SECONDS = 30.0
#: connections one address may hold open at once (a browser opens about 6 to one server)
CONNECTIONS_PER_ADDRESS = 64
#: the server's connections in all: past it, new ones are answered 503 (uvicorn's ``limit_concurrency``)
CONNECTIONS_IN_ALL = 512

_TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: %d\r\n\r\n%s"
)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request and a cap on connections per address."""

    #: open connections by address, over every connection of the server (one event loop)
    open_by_address: ClassVar[Counter[str]] = Counter()
    #: addresses exempt from the cap (set by :func:`protocol_class`)
    trusted: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address: str | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for = h11.IDLE

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else "unknown"
        if address not in self.trusted and self.open_by_address[address] >= CONNECTIONS_PER_ADDRESS:
            detail = (
                f'{{"detail": "this address has {CONNECTIONS_PER_ADDRESS} connections open to this server, '
                'its most; close some"}'
            ).encode()
            transport.write(_TOO_MANY % (len(detail), detail))
            transport.close()
            return
        self._address = address
        self.open_by_address[address] += 1
        self._arm(HEADER_SECONDS)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._address is not None:
            self.open_by_address[self._address] -= 1
            if self.open_by_address[self._address] <= 0:
                del self.open_by_address[self._address]
            self._address = None
        super().connection_lost(exc)

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


def protocol_class(trusted: tuple[str, ...] = ()) -> type[BoundedH11Protocol]:
    """The protocol for one server, with ``trusted`` proxies exempt from the per-address cap."""
    fields = {"open_by_address": Counter(), "trusted": frozenset(trusted)}
    return type("ServerH11Protocol", (BoundedH11Protocol,), fields)
