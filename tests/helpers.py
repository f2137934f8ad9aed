"""Building positions, slow players and web test clients for tests."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sumito.games.abalone import BLACK, WHITE, Position, Variant
from sumito.games.abalone.geometry import geometry


def position_with(
    black: list[str], white: list[str], to_move: str = "b", side: int = 5, lost=(0, 0), **variant
) -> Position:
    """A position with marbles on the named cells (everything else empty), validated like any string."""
    geo = geometry(side)
    grid = geo.empty_grid
    for names, color in ((black, BLACK), (white, WHITE)):
        for name in names:
            grid[geo.name_to_grid[name]] = color
    base = {5: 14, 4: 11, 3: 5}.get(side, 14)
    v = Variant(side=side, marbles=variant.pop("marbles", base), **variant)
    text = Position(grid, BLACK if to_move == "b" else WHITE, lost, 1, v).to_string()
    return Position.from_string(text, v)


def random_playout(pos: Position, plies: int, rng: np.random.Generator) -> list[Position]:
    """Positions along a random game of up to ``plies`` plies from ``pos``."""
    out = [pos]
    for _ in range(plies):
        codes = pos.legal_move_codes()
        if len(codes) == 0:
            break
        pos = pos._after(int(codes[rng.integers(len(codes))]))
        out.append(pos)
    return out


class SlowPlayer:
    """Thinks for ``seconds`` without looking at any clock (like a search that never returns), then
    plays the first legal move. Test files register it under names of their own."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.name = f"test-slow:seconds={seconds}"

    def choose(self, position, movetime=None, history=None, draw=None):
        import time

        time.sleep(self.seconds)
        return position.legal_moves()[0]


@contextlib.contextmanager
def web_clients(tmp_path, monkeypatch, token: str, limits=None) -> Iterator:
    """``make(...)`` starting web apps on databases in ``tmp_path`` (never the user's), each with a test
    client that sends the owner ``token``; every app is shut down at the end."""
    from fastapi.testclient import TestClient

    from sumito.web.app import create_app
    from sumito.web.limits import WebLimits

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    opened = []
    default_limits = limits

    def make(limits=None, workers=1, token=token, db="web.sqlite", archive="games.sqlite",
             base_url="http://127.0.0.1"):
        limits = limits or default_limits or WebLimits()
        app = create_app(tmp_path / db, tmp_path / archive, workers=workers, warm=False, limits=limits)
        client = TestClient(app, base_url=base_url, headers={"X-Sumito-Token": token} if token else {})
        client.__enter__()
        opened.append(client)
        return client

    try:
        yield make
    finally:
        for client in opened:
            client.__exit__(None, None, None)


def peer_client(client, address: str, token: str | None = None):
    """Another client of ``client``'s running app, connecting from ``address`` (with ``token``, or none):
    it shares the app's event loop, so that both are served by one server, as two browsers would be."""
    from fastapi.testclient import TestClient

    peer = TestClient(
        client.app, base_url=str(client.base_url), headers={"X-Sumito-Token": token} if token else {},
        client=(address, 50000),
    )
    peer.portal = client.portal  # the app's loop and lifespan are the first client's
    return peer


def api_error(response, status: int) -> str:
    """The one-line ``detail`` of a web API error answer with ``status`` (asserting both)."""
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail
    return detail


def poll_game(client, game_id, done, seconds: float = 20.0):
    """Poll a web game with ``wait`` until ``done(state)`` or ``seconds`` pass; the state it ended with."""
    import time

    deadline = time.monotonic() + seconds
    while True:
        state = client.get(f"/api/games/{game_id}", params={"wait": 1}).json()
        if done(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


SUMITO_MAIN = [sys.executable, "-c", "import sys; from sumito.cli import main; sys.exit(main(sys.argv[1:]))"]


@contextlib.contextmanager
def served(home: Path, *options: str, timeout: float = 300) -> Iterator[str]:
    """`sumito serve --port 0 OPTIONS` with its databases and data in ``home``, once it answers: its base
    address (e.g. ``http://127.0.0.1:40123/``); stopped at the end."""
    out, err = home / "stdout.txt", home / "stderr.txt"
    env = {**os.environ, "XDG_DATA_HOME": str(home / "xdg")}
    databases = ["--db", str(home / "web.sqlite")]
    if "--archive" not in options:
        databases += ["--archive", str(home / "games.sqlite")]
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen([*SUMITO_MAIN, "serve", "--port", "0", *databases, *options], stdout=stdout,
                                   stderr=stderr, env=env)
    try:
        yield _wait_for_url(process, out, err, timeout)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for_url(process: subprocess.Popen, out: Path, err: Path, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    url = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sumito serve exited with {process.returncode}: {err.read_text()}")
        if url is None:
            words = [w for w in out.read_text().split() if w.startswith("http://")]
            url = words[0] if words else None
        if url is not None:
            try:
                with urllib.request.urlopen(url + "api/layouts", timeout=5):
                    return url
            except OSError:
                pass
        time.sleep(0.2)
    raise RuntimeError(f"sumito serve did not start in {timeout} s: {err.read_text()}")


RAY_STARTS = 3  # Ray gives its node 30 s to start (a constant of ray._private.node); a loaded machine may need more


def start_local_ray(ray, **options) -> None:
    """``ray.init(**options)`` for a local instance, tried again when the node times out during start-up (on a
    loaded machine its fixed 30 s can pass before the raylet registers); after RAY_STARTS tries the test is
    skipped, saying why."""
    for attempt in range(1, RAY_STARTS + 1):
        try:
            ray.init(**options)
            return
        except Exception as exc:  # Ray raises a bare Exception for a node that timed out
            if "timed out during startup" not in str(exc):
                raise
            ray.shutdown()
            if attempt == RAY_STARTS:
                pytest.skip(f"Ray's local node did not start in {RAY_STARTS} tries of 30 s (a loaded machine): {exc}")
