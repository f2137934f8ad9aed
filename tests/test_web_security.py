"""The web server against hostile and careless clients: one test per reproducer.

Player specs may name only shipped networks and files in the model folder, within the server's
caps; every computer move has a deadline and is cancelled by resign, undo or deletion (its worker
is killed and replaced); imports and replays are bounded; games have owner tokens; the Host header
is checked; and a ``kill -9`` of ``sumito serve`` leaves no worker and frees the port at once.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from importlib.resources import files
from pathlib import Path

import httpx2
import pytest

from sumito.arena.db import GameArchive
from sumito.games.abalone import BLACK, DrawRules, Game, Position
from sumito.players import player_names
from sumito.players.base import Option, PlayerKind, register
from sumito.web.limits import MAX_IMPORT_BYTES, MAX_IMPORT_PLIES, MAX_REPLAY_PAGE, ModelFolder, WebLimits
from sumito.web.store import archive_finished_game

from helpers import SlowPlayer, web_clients
from helpers import api_error as error
from helpers import poll_game as until

TOKEN = "security-test-token-0123456789"
OTHER = "another-client-token-987654321"


# registered before the pools fork their workers, which therefore know this player too
player_names()
register(PlayerKind("test-sec-sleep", SlowPlayer, {"seconds": Option(float, 60.0, "thinking time")}, "sleeps (tests)"))

# quick limits for tests: a move may take 0.5 s plus 1 s of grace before its worker is killed
QUICK = WebLimits(max_time=0.5, grace=1.0)


@pytest.fixture
def make_client(tmp_path, monkeypatch):
    with web_clients(tmp_path, monkeypatch, TOKEN, QUICK) as make:
        yield make


@pytest.fixture
def client(make_client):
    return make_client()


def pool(client):
    return client.app.state.hall.pool


# ------------------------------------------------------------------ files a spec may name
@pytest.mark.parametrize(
    "spec", ["td:net=/dev/zero", "engine:net=/dev/zero", "alphalone:weights=/dev/zero", "td:net=../../etc/passwd"]
)
def test_a_client_cannot_make_the_server_read_any_file(client, spec):
    started = time.monotonic()
    detail = error(client.post("/api/games", json={"white": spec}), 400)
    assert "shipped networks" in detail or "default" in detail
    assert time.monotonic() - started < 5  # refused before reading anything


def test_the_model_folder_alone_is_offered_and_outside_paths_are_not_told_apart(make_client, tmp_path):
    models = tmp_path / "models"
    (models / "sub").mkdir(parents=True)
    shutil.copy(str(files("sumito") / "data" / "td-abalearn3.npz"), models / "sub" / "mine.npz")
    outside = tmp_path / "secret.npz"
    shutil.copy(models / "sub" / "mine.npz", outside)
    (models / "link.npz").symlink_to(outside)
    (models / "zero.npz").symlink_to("/dev/zero")
    client = make_client(limits=WebLimits(models=ModelFolder(str(models))))

    ok = client.post("/api/games", json={"black": "human", "white": "td:net=sub/mine.npz"})
    assert ok.status_code == 201, ok.text
    assert client.post("/api/games", json={"white": "engine:net=builtin-tdleaf,depth=1"}).status_code == 201

    def refused(value: str) -> str:
        return error(client.post("/api/games", json={"white": f"td:net={value}"}), 400).replace(value[:60], "X")

    existing, missing = refused(str(outside)), refused(str(tmp_path / "nothing.npz"))
    assert existing == missing and "model folder" in existing  # the same words whether it exists or not
    for value in ("../secret.npz", "link.npz", "zero.npz", "sub", "sub/../../secret.npz", "/dev/zero"):
        assert refused(value) == existing
    assert "model folder" in error(client.post("/api/games", json={"white": "alphalone:weights=/etc/passwd"}), 400)


# ------------------------------------------------------------------ the server's caps
@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("engine:hash=4096", "--max-hash"),
        ("engine:depth=13", "--max-depth"),
        ("engine:depth=99", "depth"),
        ("engine:time=1e9", "time"),
        ("engine:time=31", "--max-time"),
        ("abla:depth=13", "depth"),
    ],
)
def test_specs_beyond_the_servers_caps_are_refused(make_client, spec, words):
    client = make_client(limits=WebLimits())  # the defaults: depth 12, 30 s, 256 MB
    assert words in error(client.post("/api/games", json={"black": spec}), 400)


def test_caps_are_options_of_the_server(make_client):
    client = make_client(limits=WebLimits(max_depth=3, max_time=2, max_hash=8))
    assert "limit of 3" in error(client.post("/api/games", json={"black": "engine:depth=4"}), 400)
    assert "limit of 8 MB" in error(client.post("/api/games", json={"black": "engine:hash=16"}), 400)
    assert "limit of 2 s" in error(client.post("/api/games", json={"black": "engine:time=2.5"}), 400)
    r = client.post("/api/games", json={"black": "engine:depth=3,hash=8,time=2", "white": "human"})
    assert r.status_code == 201, r.text
    client.post(f"/api/games/{r.json()['id']}/resign")


# ------------------------------------------------------------------ deadlines and cancelling
def test_a_move_past_its_deadline_is_stopped_and_not_restarted(make_client):
    client = make_client()
    game = client.post("/api/games", json={"black": "test-sec-sleep", "white": "human"}).json()
    started = time.monotonic()
    state = until(client, game["id"], lambda s: s["error"] is not None)
    assert "did not move within 1.5 s" in state["error"] and not state["thinking"] and state["ply"] == 0
    assert time.monotonic() - started < 10 and pool(client).replaced == 1
    # the worker was replaced: another game is served
    other = client.post("/api/games", json={"black": "random", "white": "human"}).json()
    assert until(client, other["id"], lambda s: s["ply"] == 1)["ply"] == 1
    client.__exit__(None, None, None)
    again = make_client()  # a restart does not start the stuck search again
    state = again.get(f"/api/games/{game['id']}").json()
    assert state["error"] is not None and not state["thinking"]


@pytest.mark.parametrize("action", ["resign", "delete", "undo"])
def test_resign_undo_and_delete_cancel_the_search(make_client, action):
    client = make_client(limits=WebLimits(max_time=60, grace=60))
    if action == "undo":
        game = client.post("/api/games", json={"black": "human", "white": "test-sec-sleep"}).json()
        client.post(f"/api/games/{game['id']}/moves", json={"move": "a1b2"})
    else:
        game = client.post("/api/games", json={"black": "test-sec-sleep", "white": "human"}).json()
    time.sleep(0.3)  # the worker has the move
    before = set(pool(client).pids())
    url = f"/api/games/{game['id']}"
    r = client.delete(url) if action == "delete" else client.post(f"{url}/{action}")
    assert r.status_code in (200, 204), r.text
    deadline = time.monotonic() + 5
    while pool(client).replaced < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pool(client).replaced == 1 and set(pool(client).pids()) != before  # killed at once, replaced
    other = client.post("/api/games", json={"black": "random", "white": "human"}).json()
    assert until(client, other["id"], lambda s: s["ply"] == 1)["ply"] == 1
    if action == "delete":
        error(client.get(url), 404)


def test_long_searches_leave_a_worker_to_quick_players(make_client):
    client = make_client(limits=WebLimits(max_time=60, grace=60), workers=2)
    slow = [client.post("/api/games", json={"black": "test-sec-sleep", "white": "human"}).json() for _ in range(2)]
    time.sleep(0.5)
    quick = client.post("/api/games", json={"black": "random", "white": "human"}).json()
    started = time.monotonic()
    assert until(client, quick["id"], lambda s: s["ply"] == 1, seconds=20)["ply"] == 1
    assert time.monotonic() - started < 10
    for game in slow:
        client.delete(f"/api/games/{game['id']}")


# ------------------------------------------------------------------ imports and replays
def test_record_imports_are_bounded(client):
    big = '[Layout "standard"]\n\n' + "x" * (MAX_IMPORT_BYTES + 10) + " *\n"
    started = time.monotonic()
    assert "at most" in error(client.post("/api/records", json={"text": big}), 413)
    long = '[Layout "standard"]\n\n' + " ".join(["a1b2"] * (2 * MAX_IMPORT_PLIES + 2_500)) + " *\n"
    assert "plies" in error(client.post("/api/records", json={"text": long}), 413)
    assert time.monotonic() - started < 5
    # a body over the limit is refused from its Content-Length, before it is read
    huge = b'{"text": "' + b"x" * (3 * MAX_IMPORT_BYTES) + b'"}'
    r = client.post("/api/records", content=huge, headers={"content-type": "application/json"})
    assert "larger than" in error(r, 413)
    # and so is one sent in chunks without a length
    chunks = iter([b"{" + b" " * 40_000] * 3)
    r = client.post("/api/games", content=chunks, headers={"content-type": "application/json"})
    assert "larger than" in error(r, 413)
    assert client.get("/api/presets").status_code == 200


def test_replays_are_paged(make_client, tmp_path):
    rules = DrawRules(max_plies=None, repetitions=None)
    start = Position.start("standard")
    game = Game(start, rules)
    moves = []
    while game.plies < 1_200:  # a long game: never a push-off, never a repetition rule
        move = next(m for m in game.position.legal_moves()[game.plies % 7 :] if not m.is_push_off)
        moves.append(game.push(move).notation())
    game.resign(BLACK)
    snapshot = {
        "black": "human", "white": "human", "start": start.to_string(), "win_threshold": 6, "inline_only": False,
        "rules": rules, "layout": "standard", "moves": moves, "times": [None] * len(moves), "winner": 1 - BLACK,
        "reason": "resignation", "lost": game.position.lost, "final": game.position.to_string(),
    }  # fmt: skip
    stored_id = archive_finished_game(tmp_path / "games.sqlite", snapshot)
    client = make_client()
    first = client.get(f"/api/archive/{stored_id}").json()
    assert (first["start"], len(first["boards"]), len(first["moves"])) == (0, MAX_REPLAY_PAGE, MAX_REPLAY_PAGE)
    assert first["game"]["plies"] == 1_200 and first["moves"] == moves[:MAX_REPLAY_PAGE]
    last = client.get(f"/api/archive/{stored_id}", params={"start": 1_000, "count": 500}).json()
    assert len(last["boards"]) == 201 and last["moves"] == moves[1_000:]
    assert last["boards"][-1]["position"] == game.position.to_string()
    assert last["boards"][0]["position"] == game.positions[1_000].to_string()
    assert client.get(f"/api/archive/{stored_id}", params={"start": 5_000}).json()["boards"] == []
    error(client.get(f"/api/archive/{stored_id}", params={"count": MAX_REPLAY_PAGE + 1}), 400)
    error(client.get(f"/api/archive/{2**64}"), 400)
    with GameArchive(tmp_path / "games.sqlite", create=False) as archive:
        assert archive.count() == 1


# ------------------------------------------------------------------ owner tokens
def test_only_the_owner_changes_a_game_and_sees_it_listed(make_client):
    owner = make_client()
    other = make_client(token=OTHER)
    anonymous = make_client(token=None)
    created = owner.post("/api/games", json={"black": "human", "white": "human"}).json()
    assert created["token"] == TOKEN
    url = f"/api/games/{created['id']}"
    for client, words in ((other, "another client"), (anonymous, "owner token")):
        assert words in error(client.post(f"{url}/moves", json={"move": "a1b2"}), 403)
        for action in ("undo", "redo", "resign"):
            error(client.post(f"{url}/{action}"), 403)
        error(client.post(f"{url}/speed", json={"speed": 1}), 403)
        error(client.delete(url), 403)
        assert client.get(url).status_code == 200  # watching needs no token
        assert created["id"] not in {g["id"] for g in client.get("/api/games").json()}
    assert [g["id"] for g in owner.get("/api/games").json()] == [created["id"]]
    assert owner.post(f"{url}/moves", json={"move": "a1b2"}).status_code == 200
    # without a token of its own, a client gets one made for it, once
    made = anonymous.post("/api/games", json={"black": "human", "white": "human"}).json()
    assert re.fullmatch(r"[A-Za-z0-9_-]{16,128}", made["token"]) and made["token"] != TOKEN
    headers = {"X-Sumito-Token": made["token"]}
    assert anonymous.post(f"/api/games/{made['id']}/moves", json={"move": "a1b2"}, headers=headers).status_code == 200
    assert "X-Sumito-Token" in error(other.post("/api/games", json={}, headers={"X-Sumito-Token": "short"}), 400)
    imported = owner.post("/api/records", json={"text": owner.get(f"{url}/record").text}).json()
    assert imported["token"] == TOKEN and owner.post(f"/api/games/{imported['game']['id']}/undo").status_code == 200
    assert owner.delete(url).status_code == 204
    error(owner.get(url), 404)


# ------------------------------------------------------------------ hosts and origins
def test_the_host_header_must_name_this_server(make_client):
    client = make_client()
    assert "allowed-hosts" in error(client.get("/api/presets", headers={"host": "attacker.example"}), 400)
    assert "allowed-hosts" in error(client.get("/", headers={"host": "attacker.example:8000"}), 400)
    for host in ("localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST"):
        assert client.get("/api/presets", headers={"host": host}).status_code == 200
    r = client.post("/api/games", json={}, headers={"origin": "http://attacker.example"})
    assert "another site" in error(r, 403)
    assert client.post("/api/games", json={"black": "human"}, headers={"origin": "http://127.0.0.1"}).is_success
    named = make_client(limits=WebLimits(allowed_hosts=("abalone.lan",)), base_url="http://abalone.lan:8000")
    assert named.get("/api/presets").status_code == 200


def test_same_origin_means_the_same_port_too(make_client):
    # a page of another server on the same machine (a dev server on :3000, a notebook on :8888) is another
    # origin: it may read nothing and change nothing
    client = make_client(base_url="http://127.0.0.1:8000")
    for origin in ("http://127.0.0.1:3000", "http://localhost:8000", "http://127.0.0.1:8888", "null",
                   "http://127.0.0.1", "file://", "http://127.0.0.1:8000/path", "http://127.0.0.1:80000"):
        r = client.post("/api/games", json={"black": "human"}, headers={"origin": origin})
        assert "another host or port" in error(r, 403), origin
    assert client.post("/api/games", json={"black": "human"}, headers={"origin": "http://127.0.0.1:8000"}).is_success
    # behind a proxy that ends TLS the Host names no port and the page's origin is https
    bare = make_client(base_url="http://127.0.0.1")
    assert bare.post("/api/games", json={"black": "human"}, headers={"origin": "https://127.0.0.1"}).is_success
    other_port = bare.post("/api/games", json={"black": "human"}, headers={"origin": "http://127.0.0.1:3000"})
    assert other_port.status_code == 403


def test_every_answer_carries_the_security_headers(make_client):
    client = make_client()
    answers = {
        "page": client.get("/"),
        "api": client.get("/api/presets"),
        "missing": client.get("/api/no-such-thing"),
        "static": client.get("/style.css"),
        "guard": client.get("/api/presets", headers={"host": "attacker.example"}),
        "cross-origin": client.post("/api/games", json={}, headers={"origin": "http://127.0.0.1:3000"}),
    }
    assert answers["guard"].status_code == 400 and answers["cross-origin"].status_code == 403
    for what, r in answers.items():
        policy = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy, what
        assert "unsafe-inline" not in policy, what
        assert r.headers.get("x-content-type-options") == "nosniff", what
        assert r.headers.get("x-frame-options") == "DENY", what
    # FastAPI's API pages load Swagger UI from its CDN: a policy of their own, framed by nobody all the same
    docs = client.get("/docs")
    assert "cdn.jsdelivr.net" in docs.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in docs.headers["content-security-policy"]


# ------------------------------------------------------------------ kill -9 of sumito serve
def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _start_serve(tmp_path: Path, port: int) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    cmd = [sys.executable, "-m", "sumito", "serve", "--port", str(port), "--workers", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.fullmatch(r"Sumito is running at (http://127\.0\.0\.1:\d+/)\n", line)
    assert match, line + (proc.stderr.read() if proc.poll() is not None else "")
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx2.get(match.group(1) + "api/presets", timeout=5)
            return proc, match.group(1)
        except httpx2.TransportError:
            assert time.monotonic() < deadline
            time.sleep(0.1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_serve_leaves_no_worker_and_frees_the_port(tmp_path):
    proc, url = _start_serve(tmp_path, 0)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    try:
        headers = {"X-Sumito-Token": TOKEN}
        r = httpx2.post(url + "api/games", json={"black": "engine:time=20", "white": "human"}, headers=headers)
        assert r.status_code == 201 and r.json()["thinking"], r.text
        workers = _children(proc.pid)
        assert workers
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while any(Path(f"/proc/{pid}").exists() and _alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if Path(f"/proc/{pid}").exists() and _alive(pid)]
        with socket.socket() as probe:  # nothing holds the port: it binds at once
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(("127.0.0.1", port))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    again, url2 = _start_serve(tmp_path, port)  # and a new server starts on it
    try:
        assert url2 == url and httpx2.get(url2 + "api/presets", timeout=10).status_code == 200
        game = httpx2.get(url2 + "api/games", headers=headers, timeout=10).json()
        assert len(game) == 1  # the game survived; its engine thinks again (it had no error)
    finally:
        again.send_signal(signal.SIGINT)
        assert again.wait(timeout=20) == 0
        assert not _children(again.pid)


def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_games_from_before_owner_tokens_can_be_watched_not_changed(make_client, tmp_path):
    import sqlite3

    first = make_client()
    game = first.post("/api/games", json={"black": "human", "white": "human"}).json()
    first.__exit__(None, None, None)
    with sqlite3.connect(tmp_path / "web.sqlite") as conn:  # back to version 1: no owner column
        conn.executescript(
            "DROP INDEX web_games_owner; ALTER TABLE web_games DROP COLUMN owner; PRAGMA user_version = 1;"
        )
    client = make_client()  # upgrades the file
    assert client.get(f"/api/games/{game['id']}").json()["id"] == game["id"]
    assert "before owner tokens" in error(client.post(f"/api/games/{game['id']}/moves", json={"move": "a1b2"}), 403)
    with sqlite3.connect(tmp_path / "web.sqlite") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/position", {"position": "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbb² b 0 0 1"}),
        ("/api/position", {"position": "1000000000000000000000/9/9/9/9/9/9/9/9 b 0 0 1"}),
        ("/api/games", {"black": "engine:depth=" + "9" * 5000}),
        ("/api/records", {"text": '[Layout "standard"]\n[Result "' + "9" * 5000 + '"]\n\n*\n'}),
        ("/api/games", {"speed": float("nan")}),
    ],
)
def test_malformed_bodies_are_one_line_4xx(client, path, body):
    import json

    r = client.post(path, content=json.dumps(body).encode(), headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500
    error(r, r.status_code)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--max-time", "0"], "--max-time"),
        (["--max-depth", "65"], "--max-depth"),
        (["--max-hash", "5000"], "--max-hash"),
        (["--models", "/no/such/folder"], "not a folder"),
    ],
)
def test_serve_options_are_checked(tmp_path, monkeypatch, capsys, options, words):
    from sumito.cli import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "web.sqlite"), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sumito: error: ") and words in err and err.count("\n") == 1
