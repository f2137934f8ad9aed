"""Under one address's flood, another address is served as if the server were idle.

A real ``sumito serve`` (two workers) on 127.0.0.1; clients connect from other loopback addresses
(127.0.0.x), so that each is an address of its own. One address floods it with watch games of a
30-second engine under 2, 20 and 200 owner tokens, or with 600 connections that never send a
request; another address's moves must come within max(2 × unloaded, unloaded + 2 s), and its
requests must never get a 503.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time

import pytest

from sumito.defaults import DEFAULT_MAX_GAMES
from sumito.web.connections import CONNECTIONS_PER_ADDRESS, HEADER_SECONDS

from helpers import served

FLOOD, OTHER, IDLE, THIRD = "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"
FLOOD_SPEC = "engine:time=30"
# a person's reply from each of these, timed unloaded and then under each flood
REPLIES = ("greedy", "engine:depth=4", "engine:time=1")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`sumito serve --workers 2` on a free port of 127.0.0.1: its (host, port)."""
    with served(tmp_path_factory.mktemp("load"), "--workers", "2") as url:
        host, _, port = url.removeprefix("http://").rstrip("/").rpartition(":")
        address = (host, int(port))
        _until_ready(address)
        yield address


def call(server, source: str, method: str, path: str, body: dict | None = None, token: str | None = None,
         headers: dict | None = None) -> tuple[int, dict]:
    """One request to ``server`` from the loopback address ``source``: (status, JSON answer)."""
    connection = http.client.HTTPConnection(*server, timeout=60, source_address=(source, 0))
    try:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["X-Sumito-Token"] = token
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=sent)
        response = connection.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data else {})
    finally:
        connection.close()


def _until_ready(server, seconds: float = 120) -> None:
    """Until both workers have loaded their kernels: a quick move is answered at once."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        reply_seconds(server, OTHER, "greedy")
        if time.monotonic() - started < 1:
            return
    raise RuntimeError("the server's workers did not get ready")


def reply_seconds(server, source: str, spec: str, token: str = "load-test-other-client-0001") -> float:
    """Seconds from a person's first move to ``spec``'s reply, in a new game from ``source``."""
    status, game = call(server, source, "POST", "/api/games", {"black": "human", "white": spec}, token)
    assert status == 201, game
    started = time.monotonic()
    status, state = call(server, source, "POST", f"/api/games/{game['id']}/moves", {"move": "a1b2"}, token)
    assert status == 200, state
    while state["ply"] < 2:
        assert state["error"] is None, state
        status, state = call(server, source, "GET", f"/api/games/{game['id']}?wait=5&ply={state['ply']}")
        assert status == 200, state
        assert time.monotonic() - started < 90, "no reply in 90 s"
    seconds = time.monotonic() - started
    call(server, source, "DELETE", f"/api/games/{game['id']}", token=token)
    return seconds


def test_one_address_with_many_tokens_delays_no_other_address(server):
    unloaded = {spec: min(reply_seconds(server, OTHER, spec) for _ in range(2)) for spec in REPLIES}
    accepted, refused, tokens = [], 0, 0
    for count in (2, 20, 200):
        while tokens < count:  # watch games under fresh tokens, as many as the address's caps allow
            token = f"flood-token-{tokens:04d}-abcdefgh"
            tokens += 1
            for _ in range(4):
                status, answer = call(server, FLOOD, "POST", "/api/games", {"black": FLOOD_SPEC, "white": FLOOD_SPEC},
                                      token)
                if status == 201:
                    accepted.append((answer["id"], token))
                else:
                    assert status == 429, answer
                    refused += 1
        time.sleep(0.5)
        for spec in REPLIES:
            loaded = reply_seconds(server, OTHER, spec)
            bound = max(2 * unloaded[spec], unloaded[spec] + 2)
            assert loaded <= bound, f"{count} tokens: {spec} replied in {loaded:.2f} s (unloaded {unloaded[spec]:.2f})"
    # the address's cap holds whatever tokens it uses (before: a cap for each token)
    assert len(accepted) == DEFAULT_MAX_GAMES and refused == 4 * 200 - DEFAULT_MAX_GAMES
    # a flood's games report their place in the queue while they wait for a worker
    places = [call(server, FLOOD, "GET", f"/api/games/{game}")[1]["queued"] for game, _ in accepted]
    assert any(isinstance(place, int) and place >= 1 for place in places), places
    # X-Forwarded-For from an untrusted client names no other address: the caps still count it as itself
    status, answer = call(server, FLOOD, "POST", "/api/games", {"black": FLOOD_SPEC, "white": FLOOD_SPEC},
                          "flood-token-spoofed-abcdefgh", headers={"X-Forwarded-For": "10.1.2.3"})
    assert status == 429 and "--max-games" in answer["detail"], answer
    for game, token in accepted:
        call(server, FLOOD, "DELETE", f"/api/games/{game}", token=token)


def test_idle_connections_lock_nobody_out_and_are_closed(server):
    idle = []
    try:
        for _ in range(600):
            sock = socket.create_connection(server, timeout=10, source_address=(IDLE, 0))
            idle.append(sock)
        # the connections past the address's share are answered 503 at once and closed
        time.sleep(1)
        closed = 0
        for sock in idle:
            sock.settimeout(0.01)
            try:
                data = sock.recv(4096)
            except TimeoutError:
                continue
            assert data == b"" or data.startswith(b"HTTP/1.1 503"), data[:80]
            closed += 1
        assert closed >= 600 - CONNECTIONS_PER_ADDRESS
        # another address is served at once, with no 503
        for _ in range(5):
            status, layouts = call(server, THIRD, "GET", "/api/layouts")
            assert status == 200, layouts
        # the connections that never sent a request are closed after the header timeout
        time.sleep(HEADER_SECONDS + 1.5)
        still_open = 0
        for sock in idle:
            sock.settimeout(0.01)
            try:
                if sock.recv(4096) == b"":
                    continue
            except TimeoutError:
                still_open += 1
            except OSError:
                continue
        assert still_open == 0
    finally:
        for sock in idle:
            sock.close()


def test_a_request_sent_a_byte_at_a_time_is_cut_off(server):
    sock = socket.create_connection(server, timeout=10, source_address=(THIRD, 0))
    try:
        started = time.monotonic()
        request = b"GET /api/layouts HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 200
        for byte in request:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            time.sleep(0.05)
            if time.monotonic() - started > HEADER_SECONDS + 5:
                break
        sock.settimeout(5)
        with contextlib.suppress(ConnectionResetError):  # closed, or reset for the bytes sent after the close
            assert sock.recv(4096) == b""
        assert time.monotonic() - started < HEADER_SECONDS + 5
    finally:
        sock.close()
