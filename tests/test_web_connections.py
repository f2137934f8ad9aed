"""Connections that leave room: each address's share of the server's connections shrinks as more
addresses connect, and a full server closes idle connections beyond their share for a newcomer.

The rule is tested on :class:`~sumito.web.connections.ConnectionBook` with fake connections, then
on a real uvicorn server with the protocol (and a server limit scaled down), with 8 and 20
addresses on loopback (127.0.0.x: Linux routes all of 127/8 to ``lo``) holding all they may.
"""

from __future__ import annotations

import contextlib
import http.client
import selectors
import socket
import threading
import time

import pytest
import uvicorn

from sumito.web.connections import ConnectionBook, address_share, protocol_class


class Fake:
    """A connection for the book: idle (no request under way) or busy."""

    def __init__(self, idle: bool = True) -> None:
        self.busy = not idle

    def idle(self) -> bool:
        return not self.busy


def fill(book: ConnectionBook, address: str, *, idle: bool = True) -> list[Fake]:
    """Open connections from ``address`` until the book refuses one: those admitted."""
    held = []
    while True:
        connection = Fake(idle)
        if book.admit(connection, address).refused is not None:
            return held
        held.append(connection)


# ------------------------------------------------------------------ the rule, with fake connections
def test_the_share_is_an_equal_part_with_one_left_over():
    assert [address_share(n) for n in (1, 6, 7, 8, 20)] == [64, 64, 64, 56, 24]
    assert address_share(600) == 1  # never none: an address may always try one
    assert address_share(3, limit=40, per_address=8) == 8 and address_share(9, limit=40, per_address=8) == 4


@pytest.mark.parametrize("addresses", [8, 20])
def test_addresses_at_their_shares_leave_room_for_another(addresses):
    book = ConnectionBook(limit=512, per_address=64)
    filled = [len(fill(book, f"127.0.0.{a + 2}")) for a in range(addresses)]
    assert filled[:7] == [64] * 7 and len(book) <= 512  # the early ones get the larger shares of an emptier server
    victim = Fake()
    admission = book.admit(victim, "127.0.0.250")
    assert admission.refused is None  # room left, or an idle connection beyond its share closed for it
    book.release(victim)
    # as the early addresses' idle connections close (the header deadline), they reopen only within the share
    # of a server with that many addresses, which leaves about one share free
    for a in range(addresses):
        address = f"127.0.0.{a + 2}"
        for connection in [c for c, owner in list(book._open.items()) if owner == address]:
            book.release(connection)
        fill(book, address)
    share = address_share(addresses)
    assert all(count <= share for count in book.by_address.values())
    assert 512 - len(book) >= share  # one share free for the next address
    assert book.admit(Fake(), "127.0.0.250").refused is None


def test_a_full_server_closes_the_oldest_idle_connection_beyond_its_share():
    book = ConnectionBook(limit=10, per_address=10)
    first = fill(book, "A")  # alone: 10 // 2 = 5
    assert len(first) == 5
    busy = fill(book, "B", idle=False)  # two addresses: 10 // 3 = 3
    assert len(busy) == 3
    more = [Fake() for _ in range(2)]
    assert all(book.admit(c, "C").refused is None for c in more)  # the server is full now: 5 + 3 + 2
    assert len(book) == 10
    newcomer = Fake()
    admission = book.admit(newcomer, "D")  # four addresses: 10 // 5 = 2 each; A holds 5
    assert admission.refused is None and admission.shed is first[0]  # A's oldest, idle and beyond its share
    assert book.by_address["A"] == 4 and len(book) == 10
    # A may not take it back: it holds more than its share
    assert "its most while 4 addresses" in book.admit(Fake(), "A").refused


def test_busy_connections_are_never_closed_for_another():
    book = ConnectionBook(limit=6, per_address=6)
    fill(book, "A", idle=False)  # 6 // 2 = 3
    fill(book, "B", idle=False)  # 6 // 3 = 2
    book.admit(Fake(False), "C")  # 6 // 4 = 1
    assert len(book) == 6
    refused = book.admit(Fake(), "D").refused
    assert refused is not None and "6 connections open, its most" in refused and "\n" not in refused


def test_trusted_proxies_have_no_share_but_count():
    book = ConnectionBook(limit=8, per_address=2, trusted=frozenset({"10.0.0.1"}))
    proxied = [Fake(False) for _ in range(7)]
    assert all(book.admit(c, "10.0.0.1").refused is None for c in proxied)
    assert book.admit(Fake(), "A").refused is None  # the last place
    assert book.admit(Fake(), "B").refused is not None  # full, and nothing idle beyond a share
    with pytest.raises(ValueError, match="at least one"):
        ConnectionBook(limit=0)


# ------------------------------------------------------------------ a real server on loopback
async def hello(scope, receive, send):
    """The least ASGI app: 200 to any request (the protocol's rules are what is tested)."""
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@contextlib.contextmanager
def bounded_server(limit: int, per_address: int):
    """uvicorn with the protocol, at most ``limit`` connections and ``per_address`` an address, on a free
    port of 127.0.0.1 (a thread of this process): its (host, port) and its connections' book."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    protocol = protocol_class((), limit, per_address)
    config = uvicorn.Config(hello, log_level="error", access_log=False, lifespan="off", timeout_keep_alive=5,
                            http=protocol, limit_concurrency=4 * limit)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield sock.getsockname(), protocol.book
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


class Holders(threading.Thread):
    """``addresses`` loopback addresses, each opening connections that never send a request, as many as
    the server keeps, and opening another whenever one is closed (refused, shed, or past its deadline)."""

    def __init__(self, server: tuple[str, int], addresses: list[str]) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.addresses = addresses
        self.held = {address: 0 for address in addresses}
        self.done = threading.Event()
        self.selector = selectors.DefaultSelector()

    def run(self) -> None:
        try:
            while not self.done.is_set():
                for address in self.addresses:
                    try:
                        sock = socket.create_connection(self.server, timeout=2, source_address=(address, 0))
                    except OSError:
                        continue
                    sock.setblocking(False)
                    self.selector.register(sock, selectors.EVENT_READ, address)
                    self.held[address] += 1
                for key, _ in self.selector.select(timeout=0.05):
                    with contextlib.suppress(OSError):
                        key.fileobj.recv(4096)  # a 503, or the end: either way the server closed it
                    self.selector.unregister(key.fileobj)
                    key.fileobj.close()
                    self.held[key.data] -= 1
        finally:
            for key in list(self.selector.get_map().values()):
                key.fileobj.close()
            self.selector.close()

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=10)


@pytest.mark.parametrize("addresses", [8, 20])
def test_addresses_holding_all_they_may_leave_another_served(addresses):
    limit, per_address = 48, 8  # the server's 512 and 64, scaled down
    with bounded_server(limit, per_address) as (server, book):
        holders = Holders(server, [f"127.0.0.{10 + a}" for a in range(addresses)])
        holders.start()
        try:
            deadline = time.monotonic() + 20  # until every address holds some, and the server is near full
            while len(book.by_address) < addresses or len(book) < limit - per_address:
                assert time.monotonic() < deadline, dict(book.by_address)
                time.sleep(0.05)
            answered, most = 0, 0
            for _ in range(40):
                connection = http.client.HTTPConnection(*server, timeout=10, source_address=("127.0.0.250", 0))
                try:
                    connection.request("GET", "/")
                    answered += connection.getresponse().status == 200
                except OSError:
                    pass
                finally:
                    connection.close()
                most = max(most, len(book))
                time.sleep(0.05)
            held = dict(book.by_address)
        finally:
            holders.stop()
    assert answered >= 38, (answered, held)  # at least 95 %
    assert most <= limit and len(held) >= addresses, held
