"""Fair to every client: the scheduler's turns between addresses (and tokens inside one), each
address's caps (429) whatever tokens it uses, bounded specs, the OpenAPI description's error
statuses and the answer to ``OPTIONS``."""

from __future__ import annotations

import time

import pytest

from sumito.cli import main
from sumito.games.abalone import Position
from sumito.players import player_names
from sumito.players.base import Option, PlayerKind, register
from sumito.web.limits import WebLimits
from sumito.web.scheduler import FairScheduler
from sumito.web.session import request_client

from helpers import SlowPlayer, peer_client, web_clients
from helpers import api_error as error
from helpers import poll_game as until

TOKEN = "fairness-test-token-0123456789"
OTHER = "another-fair-client-987654321"

# registered before the pools fork their workers, which therefore know this player too; an unknown
# kind is expected to take --max-time, so with max_time=60 its every move counts as a long one
player_names()
register(PlayerKind("test-fair-sleep", SlowPlayer, {"seconds": Option(float, 60.0, "thinking time")}, "sleeps"))
SLEEPER = "test-fair-sleep"  # a long move that never ends on its own (the test deletes its game)
LONG = WebLimits(max_time=60, grace=60)


@pytest.fixture
def make_client(tmp_path, monkeypatch):
    with web_clients(tmp_path, monkeypatch, TOKEN, LONG) as make:
        yield make


def pool(client):
    return client.app.state.hall.pool


def dispatch_order(scheduler: FairScheduler, workers: int, count: int) -> list[str]:
    """The clients of the first ``count`` jobs dispatched, ``workers`` at a time, each job ending
    before the next dispatch once every worker is busy."""
    order, running = [], []
    while len(order) < count:
        ticket = scheduler.next()
        if ticket is None:
            if not running:
                break
            scheduler.finish(running.pop(0))
            continue
        order.append(ticket.client)
        running.append(ticket)
        if len(running) == workers:
            scheduler.finish(running.pop(0))
    return order


# ------------------------------------------------------------------ the scheduler, with fake jobs
@pytest.mark.parametrize("workers", [1, 2, 4])
def test_one_clients_flood_does_not_delay_anothers_first_job(workers):
    scheduler: FairScheduler[str] = FairScheduler(workers, analyses=2)
    for i in range(50):
        scheduler.submit("A", f"a{i}")
    scheduler.submit("B", "b0")
    order = dispatch_order(scheduler, workers, 10)
    assert "B" in order[:2], order  # B's only job is dispatched first or second, not 51st


def test_clients_take_turns_round_robin():
    scheduler: FairScheduler[int] = FairScheduler(1, analyses=2)
    for client in "ABC":
        for i in range(10):
            scheduler.submit(client, i)
    assert "".join(dispatch_order(scheduler, 1, 9)) == "ABCABCABC"


def test_long_jobs_leave_a_worker_whoever_asks():
    scheduler: FairScheduler[int] = FairScheduler(2, analyses=2)
    for i in range(20):
        scheduler.submit("A", i, long=True)
    first = scheduler.next()
    assert first is not None and first.client == "A"
    assert scheduler.next() is None  # A's second long move would take the last worker
    other = scheduler.submit("B", 0, long=True)
    assert scheduler.next() is None  # and so would B's first: nobody's long move takes it
    quick = scheduler.submit("A", 99)
    assert scheduler.next() is quick  # a quick move of anyone finds it
    scheduler.finish(quick)
    scheduler.finish(first)
    assert scheduler.next() is other  # B's first long move takes the next long slot, not A's 19 waiting
    assert scheduler.load("A") == 19 and scheduler.load("B") == 1


@pytest.mark.parametrize("workers", [2, 4])
@pytest.mark.parametrize("addresses", [8, 20])
def test_a_quick_job_starts_at_once_whatever_the_addresses_at_their_caps_of_long_ones(addresses, workers):
    """The reported stall: each address with nothing running could start a long move, so eight addresses'
    watch games took every worker. Now they hold all but one, and another address's quick move starts."""
    scheduler: FairScheduler[str] = FairScheduler(workers, analyses=2)
    for a in range(addresses):
        for i in range(8):  # --max-games watch games each, one move of each waiting
            scheduler.submit(f"127.0.0.{a + 2}|token-{i}", f"long-{a}-{i}", long=True)
    running = [scheduler.next() for _ in range(workers - 1)]
    assert all(t is not None and t.long for t in running) and scheduler.next() is None
    assert {t.group for t in running if t is not None} == {f"127.0.0.{a + 2}" for a in range(workers - 1)}
    for kind in ("greedy", "perfect", "engine:depth=4", "engine:time=1"):
        quick = scheduler.submit("127.0.0.250|victim", kind)
        assert scheduler.next() is quick, kind  # at once, on the worker kept for quick jobs
        assert scheduler.next() is None  # and the long moves still wait for a long slot
        scheduler.finish(quick)
    assert scheduler.long_running == workers - 1


def test_long_slots_go_round_the_addresses():
    scheduler: FairScheduler[str] = FairScheduler(2, analyses=2)
    for a in "ABCDEFGH":
        for i in range(8):
            scheduler.submit(f"{a}|t{i}", f"{a}{i}", long=True)
    order = dispatch_order(scheduler, 1, 24)  # one long slot: each long move ends before the next starts
    assert "".join(c[0] for c in order) == "ABCDEFGH" * 3
    scheduler.submit("Z|t0", "z0", long=True)  # a newcomer's first long move: next, not 41st
    assert dispatch_order(scheduler, 1, 1) == ["Z|t0"]


def test_with_one_worker_a_long_job_takes_it_and_a_quick_one_goes_next():
    scheduler: FairScheduler[str] = FairScheduler(1, analyses=2)
    for a in range(8):
        for i in range(8):
            scheduler.submit(f"127.0.0.{a + 2}|t{i}", "long", long=True)
    assert len(set(dispatch_order(scheduler, 1, 8))) == 8  # each address's first long move has had its turn
    running = scheduler.next()
    assert running is not None and running.long  # no spare to keep: else no long move would ever run
    quick = scheduler.submit("127.0.0.250", "greedy")
    scheduler.finish(running)  # the pool asks for the next job once its only worker is free
    assert scheduler.next() is quick  # first: its address was served least recently


def test_analyses_run_at_most_so_many_at_once_and_withdrawn_jobs_are_forgotten():
    scheduler: FairScheduler[int] = FairScheduler(4, analyses=2)
    tickets = [scheduler.submit(c, 0, analysis=True) for c in "ABC"]
    assert scheduler.next() is tickets[0] and scheduler.next() is tickets[1] and scheduler.next() is None
    scheduler.withdraw(tickets[2])
    assert scheduler.load("C") == 0 and scheduler.waiting() == 0
    scheduler.withdraw(tickets[0])  # a running job whose caller gave up ends like a finished one
    scheduler.finish(tickets[0])  # twice is harmless
    assert scheduler.load("A") == 0 and scheduler.analyses_running == 1


# ------------------------------------------------------------------ the pool, through the API
def test_an_addresss_first_long_move_goes_before_anothers_queue(make_client):
    """A's watch games of 3 s sleepers hold the long slot; B's long move takes it as soon as A's first ends,
    ahead of A's other two."""
    flood = make_client(workers=2)  # one app; B's requests come from another address
    watch = {"black": f"{SLEEPER}:seconds=3", "white": f"{SLEEPER}:seconds=3"}
    games = [flood.post("/api/games", json=watch).json() for _ in range(3)]
    until_running = time.monotonic() + 10
    while pool(flood).scheduler.long_running < 1 and time.monotonic() < until_running:
        time.sleep(0.05)
    assert pool(flood).scheduler.long_running == 1 and pool(flood).load(request_client("testclient", TOKEN)) == 3
    other = peer_client(flood, "127.0.0.9", OTHER)
    r = other.post("/api/games", json={"black": f"{SLEEPER}:seconds=0.1", "white": "human"})
    assert r.status_code == 201, r.text
    assert pool(flood).scheduler.long_running == 1  # B's long move waits: the other worker is kept for quick ones
    state = until(other, r.json()["id"], lambda s: s["ply"] == 1, seconds=20)
    assert state["ply"] == 1 and state["error"] is None
    plies = sum(flood.get(f"/api/games/{g['id']}").json()["ply"] for g in games)
    assert plies <= 1, plies  # A's second 3 s move did not go first
    for game in games:
        flood.delete(f"/api/games/{game['id']}")


def test_watch_games_leave_a_worker_to_a_persons_reply(make_client):
    """A's watch games of a quick spec (by its estimate) may not take the last worker: B's reply does."""
    quick_estimate = WebLimits(max_time=1.5, grace=60)  # a sleeper is then expected to take 1.5 s: not long
    flood = make_client(limits=quick_estimate, workers=2)
    games = [flood.post("/api/games", json={"black": SLEEPER, "white": SLEEPER}).json() for _ in range(3)]
    time.sleep(0.5)
    assert pool(flood).scheduler.long_running == 1  # one of A's watch moves runs, two wait
    other = peer_client(flood, "127.0.0.9", OTHER)
    r = other.post("/api/games", json={"black": f"{SLEEPER}:seconds=0.1", "white": "human"})
    state = until(other, r.json()["id"], lambda s: s["ply"] == 1, seconds=20)
    assert state["ply"] == 1 and state["error"] is None  # before: both workers held by A's 60 s sleeps
    for game in games:
        flood.delete(f"/api/games/{game['id']}")


# ------------------------------------------------------------------ each client's caps
def test_games_with_a_computer_playing_are_capped_per_client(make_client):
    client = make_client(limits=WebLimits(max_time=60, grace=60, max_games=2, max_queued=5), workers=1)
    watch = {"black": SLEEPER, "white": SLEEPER}
    person = client.post("/api/games", json={"black": "human", "white": SLEEPER}).json()["id"]  # made while free
    first = [client.post("/api/games", json=watch).json()["id"] for _ in range(2)]
    detail = error(client.post("/api/games", json=watch), 429)
    assert "--max-games" in detail and "2 games" in detail and "another player" not in detail  # all its own
    assert len(client.get("/api/games").json()) == 3  # the refused game was not made
    # so is a game whose person moves first: its computer could not take its turn after that move
    detail = error(client.post("/api/games", json={"black": "human", "white": SLEEPER}), 429)
    assert detail.startswith("no game was made") and "--max-games" in detail
    # a person's move that would give a computer the move is refused too (the cap filled after the game was
    # made), and changes nothing
    assert "--max-games" in error(client.post(f"/api/games/{person}/moves", json={"move": "a1b2"}), 429)
    assert client.get(f"/api/games/{person}").json()["ply"] == 0
    # two people need no computer: not in this cap; another token of the same address shares it, another
    # address has caps of its own
    assert client.post("/api/games", json={"black": "human", "white": "human"}).status_code == 201
    assert "--max-games" in error(client.post("/api/games", json=watch, headers={"X-Sumito-Token": OTHER}), 429)
    other = peer_client(client, "127.0.0.9", OTHER)
    r = other.post("/api/games", json=watch)
    assert r.status_code == 201, r.text
    other.delete(f"/api/games/{r.json()['id']}")
    # a game that is gone frees its place
    client.delete(f"/api/games/{first[0]}")
    assert client.post(f"/api/games/{person}/moves", json={"move": "a1b2"}).status_code == 200
    for game in (first[1], person):
        client.delete(f"/api/games/{game}")


def test_a_second_player_behind_the_address_is_refused_at_creation_not_at_each_move(make_client):
    # two people behind one address (one NAT), each with an owner token of their own: the first one's watch
    # games fill --max-games; the second one's game against a computer, the person to move first, is refused
    # when it is made, with a line that says why, not made and then refused at each move
    first = make_client(limits=WebLimits(max_time=60, grace=60, max_games=2, max_queued=5), workers=1)
    watch = [first.post("/api/games", json={"black": SLEEPER, "white": SLEEPER}).json()["id"] for _ in range(2)]
    second = peer_client(first, "testclient", OTHER)  # the same address as the first, another token
    detail = error(second.post("/api/games", json={"black": "human", "white": SLEEPER}), 429)
    assert detail.startswith("no game was made, as its computer could not play now:"), detail
    assert "--max-games" in detail and "all of them another player's at the same address" in detail, detail
    assert second.get("/api/games").json() == []
    # a game of two people needs no computer: made, as its moves are played
    people = second.post("/api/games", json={"black": "human", "white": "human"})
    assert people.status_code == 201, people.text
    # once the first player's game is gone, the second one's is made and its move is played
    first.delete(f"/api/games/{watch[0]}")
    made = second.post("/api/games", json={"black": "human", "white": SLEEPER})
    assert made.status_code == 201, made.text
    assert second.post(f"/api/games/{made.json()['id']}/moves", json={"move": "a1b2"}).status_code == 200
    # and the first is told whose games fill the cap now: one of its own, one the second player's
    detail = error(first.post("/api/games", json={"black": SLEEPER, "white": SLEEPER}), 429)
    assert "1 of them another player's at the same address" in detail and "of yours first" in detail, detail
    for game in (watch[1],):
        first.delete(f"/api/games/{game}")
    for game in (made.json()["id"], people.json()["id"]):
        second.delete(f"/api/games/{game}")


def test_a_second_player_behind_the_address_is_told_whose_searches_fill_max_queued(make_client):
    first = make_client(limits=WebLimits(max_time=60, grace=60, max_games=5, max_queued=2), workers=1)
    watch = [first.post("/api/games", json={"black": SLEEPER, "white": SLEEPER}).json()["id"] for _ in range(2)]
    second = peer_client(first, "testclient", OTHER)
    detail = error(second.post("/api/games", json={"black": "human", "white": SLEEPER}), 429)
    assert detail.startswith("no game was made") and "--max-queued" in detail, detail
    assert "all of them another player's at the same address" in detail, detail
    assert second.get("/api/games").json() == []
    for game in watch:
        first.delete(f"/api/games/{game}")


def test_requests_without_a_token_are_one_client_per_address(make_client):
    client = make_client(limits=WebLimits(max_time=60, grace=60, max_games=1), token=None)
    watch = {"black": SLEEPER, "white": SLEEPER}
    r = client.post("/api/games", json=watch)
    assert r.status_code == 201
    assert "--max-games" in error(client.post("/api/games", json=watch), 429)  # a fresh token each is no way out
    client.delete(f"/api/games/{r.json()['id']}", headers={"X-Sumito-Token": r.json()["token"]})


def test_searches_queued_or_running_are_capped_per_client(make_client):
    client = make_client(limits=WebLimits(max_time=60, grace=60, max_games=5, max_queued=2), workers=1)
    watch = [client.post("/api/games", json={"black": SLEEPER, "white": SLEEPER}).json()["id"] for _ in range(2)]
    person = client.post("/api/games", json={"black": "human", "white": "human"}).json()["id"]
    time.sleep(0.3)
    assert "--max-queued" in error(client.post(f"/api/games/{person}/hint"), 429)
    detail = error(client.post("/api/games", json={"black": SLEEPER, "white": "human"}), 429)
    assert "--max-queued" in detail and len(client.get("/api/games").json()) == 3
    for game in (*watch, person):
        client.delete(f"/api/games/{game}")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--max-games", "0"], "--max-games"),
        (["--max-queued", "1001"], "--max-queued"),
        (["--max-games", "9" * 5000], "--max-games"),
        (["--max-time", "nan"], "--max-time"),
        (["--port", "70000"], "--port"),
        (["--workers", "x" * 500], "--workers"),
        (["--host", "x" * 300], "not a host name"),
        (["--models", "y" * 300], "not a folder"),
    ],
)
def test_the_caps_are_bounded_options_of_serve(tmp_path, monkeypatch, capsys, options, words):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "web.sqlite"), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sumito: error: ") and words in err and err.count("\n") == 1 and len(err) < 300


@pytest.mark.parametrize("spec", ["engine:depth=12", "engine:nodes=100000000000"])
def test_a_depth_only_spec_gets_the_servers_clock(make_client, spec):
    """``engine:depth=N`` (or ``nodes=N``) is bounded in time like every spec: it thinks with --max-time
    as its clock (more than the 1 s a bare engine spec is given)."""
    client = make_client(limits=WebLimits(max_time=3.0, grace=1.0))
    hall = client.app.state.hall
    asked = []

    async def think(request, deadline, long=None, *, client="", queued=None):
        asked.append((request.movetime, deadline))
        return Position.from_string(request.position).legal_moves()[0].notation()

    hall.pool.think = think
    game = client.post("/api/games", json={"black": spec, "white": "human"}).json()
    assert until(client, game["id"], lambda s: s["ply"] == 1)["ply"] == 1
    assert asked == [(3.0, 4.0)]


# ------------------------------------------------------------------ the OpenAPI description and OPTIONS
def test_the_openapi_description_lists_the_real_error_statuses(make_client):
    client = make_client()
    schema = client.app.openapi()
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    error_ref = "#/components/schemas/ErrorBody"
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert "422" not in responses, (method, path)
            assert "400" in responses, (method, path)
            for status, answer in responses.items():
                if status.startswith("4"):
                    assert answer["content"]["application/json"]["schema"]["$ref"] == error_ref
            if method in ("post", "delete"):
                assert {"403", "413"} <= set(responses), (method, path)
            if "{game_id}" in path or "{stored_id}" in path:
                assert "404" in responses, (method, path)

    def statuses(method, path):
        return {int(s) for s in schema["paths"][path][method]["responses"] if s.startswith("4")}

    assert statuses("get", "/api/presets") == {400}
    assert statuses("post", "/api/games") == {400, 403, 413, 429}
    assert statuses("post", "/api/games/{game_id}/moves") == {400, 403, 404, 409, 413, 429}
    assert statuses("post", "/api/games/{game_id}/hint") == {400, 403, 404, 409, 413, 429}
    assert statuses("post", "/api/archive/{stored_id}/analysis") == {400, 403, 404, 413, 429}
    assert statuses("post", "/api/games/{game_id}/resign") == {400, 403, 404, 409, 413}


def test_each_error_a_route_answers_is_in_its_description(make_client):
    client = make_client(limits=WebLimits(max_time=60, grace=60, max_games=1))
    paths = client.app.openapi()["paths"]
    sleeper = client.post("/api/games", json={"black": SLEEPER, "white": "human"}).json()["id"]
    people = client.post("/api/games", json={"black": "human", "white": "human"}).json()["id"]
    answers = [
        ("get", "/api/games/{game_id}", client.get("/api/games/g-nothing"), 404),
        ("post", "/api/games", client.post("/api/games", json={"black": "nobody"}), 400),
        ("post", "/api/games", client.post("/api/games", json={"black": SLEEPER}), 429),
        ("post", "/api/games/{game_id}/moves", client.post(f"/api/games/{sleeper}/moves", json={"move": "a1b2"}), 409),
        ("post", "/api/games/{game_id}/moves", client.post(f"/api/games/{people}/moves", json={"move": "a1a1"}), 400),
        ("post", "/api/games/{game_id}/undo", client.post(f"/api/games/{people}/undo"), 409),
        (
            "post",
            "/api/games/{game_id}/resign",
            client.post(f"/api/games/{people}/resign", headers={"X-Sumito-Token": OTHER}),
            403,
        ),
        ("post", "/api/position", client.post("/api/position", content=b"{" + b" " * 70_000 + b"}"), 413),
        ("get", "/api/archive/{stored_id}", client.get("/api/archive/7"), 404),
    ]
    for method, path, response, status in answers:
        assert response.status_code == status, (method, path, response.text)
        assert str(status) in paths[path][method]["responses"], (method, path, status)
    client.delete(f"/api/games/{sleeper}")


def test_options_names_the_methods_of_a_path(make_client):
    client = make_client()
    r = client.options("/api/games")
    assert r.status_code == 204 and r.headers["allow"] == "GET, POST, OPTIONS"
    r = client.options("/api/games/g-anything/moves", headers={"Origin": "https://elsewhere.example"})
    assert r.status_code == 204 and r.headers["allow"] == "POST, OPTIONS"
    assert client.options("/api/games/g-x").headers["allow"] == "DELETE, GET, OPTIONS"
    r = client.put("/api/games/g-anything/moves")
    assert "takes POST" in error(r, 405) and r.headers["allow"] == "POST, OPTIONS"
    assert "no API path" in error(client.options("/api/nothing-here"), 404)
    assert client.get("/").status_code == 200 and client.get("/api/presets").status_code == 200


# ------------------------------------------------------------------ addresses first, tokens inside them
def test_an_address_gets_one_share_however_many_tokens_it_uses():
    scheduler: FairScheduler[str] = FairScheduler(2, analyses=2)
    for token in range(20):  # address A under 20 tokens, 5 jobs each
        for i in range(5):
            scheduler.submit(f"address:A|token:{token}", f"a{token}-{i}")
    scheduler.submit("address:B|token:x", "b0")
    scheduler.submit("address:B|token:x", "b1")
    order = dispatch_order(scheduler, 2, 6)
    assert [c.partition("|")[0] for c in order[:4]].count("address:B") == 2, order  # A and B take turns
    # inside A, its tokens take turns too
    rest = dispatch_order(scheduler, 2, 10)
    assert len({c for c in rest if c.startswith("address:A")}) == 10, rest


def test_an_address_with_a_long_move_running_does_not_take_the_last_worker_under_another_token():
    scheduler: FairScheduler[str] = FairScheduler(2, analyses=2)
    first = scheduler.submit("address:A|token:1", "a", long=True)
    scheduler.submit("address:A|token:2", "a2", long=True)
    assert scheduler.next() is first
    assert scheduler.next() is None  # token 2 has nothing running, but its address has
    late = scheduler.submit("address:B", "b", long=True)
    assert scheduler.next() is None  # another address's first long move waits for the long slot too
    scheduler.finish(first)
    assert scheduler.next() is late  # and takes it before A's second


def test_a_waiting_job_knows_about_how_many_are_ahead():
    scheduler: FairScheduler[str] = FairScheduler(1, analyses=2)
    a = [scheduler.submit("address:A", f"a{i}") for i in range(4)]
    b = [scheduler.submit("address:B|token:1", f"b{i}") for i in range(2)]
    # served in turns: a0 b0 a1 b1 a2 a3 (A's first job came first)
    assert [t.ahead() for t in a] == [0, 2, 4, 5] and [t.ahead() for t in b] == [1, 3]
    running = scheduler.next()
    assert running is a[0] and running.ahead() is None
    assert b[0].ahead() == 0 and a[1].ahead() == 1  # B was served longer ago: its turn comes first
    assert scheduler.group_load("address:A") == 4 and scheduler.group_load("address:B") == 2


def test_games_between_people_are_capped_per_address(make_client):
    client = make_client(limits=WebLimits(max_human_games=2))
    people = {"black": "human", "white": "human"}
    games = [client.post("/api/games", json=people, headers={"X-Sumito-Token": f"{OTHER}-{i}"}) for i in range(2)]
    assert [g.status_code for g in games] == [201, 201]
    assert "--max-human-games" in error(client.post("/api/games", json=people), 429)  # another token: same address
    record = '[Black "a"]\n[White "b"]\n\n1. a1b2 *\n'
    assert "--max-human-games" in error(client.post("/api/records", json={"text": record}), 429)
    assert peer_client(client, "127.0.0.9").post("/api/games", json=people).status_code == 201
    for i, game in enumerate(games):  # a finished or deleted game frees its place
        client.delete(f"/api/games/{game.json()['id']}", headers={"X-Sumito-Token": f"{OTHER}-{i}"})
    assert client.post("/api/games", json=people).status_code == 201


def test_a_computer_waiting_for_a_worker_says_how_many_are_ahead(make_client):
    client = make_client(workers=1)
    watch = {"black": SLEEPER, "white": SLEEPER}
    games = [client.post("/api/games", json=watch).json()["id"] for _ in range(3)]
    time.sleep(0.5)
    places = sorted(client.get(f"/api/games/{g}").json()["queued"] for g in games[1:])
    assert client.get(f"/api/games/{games[0]}").json()["queued"] is None  # its move runs
    assert places == [0, 1]
    for game in games:
        client.delete(f"/api/games/{game}")


@pytest.mark.parametrize("proxies", ["localhost", "10.0.0.1,not-an-address"])
def test_trusted_proxies_are_addresses(tmp_path, monkeypatch, capsys, proxies):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "web.sqlite"), "--trusted-proxy", proxies]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--trusted-proxy" in err[0] and "not an IP address" in err[0]


def test_a_workers_cached_engines_share_one_memory_budget(monkeypatch):
    """However many engines one client asks for, a worker keeps their arrays within WORKER_PLAYERS_MB."""
    from sumito.defaults import WORKER_PLAYERS_MB
    from sumito.web import thinking
    from sumito.web.playercache import PlayerCache

    monkeypatch.setattr(thinking, "_players", PlayerCache())
    for mb in (200, 100, 64, 32, 16):
        thinking.build_player(f"engine:depth=1,hash={mb},nnue=none")
        assert thinking._players.total_mb <= WORKER_PLAYERS_MB
    assert thinking._players.keys()[-1] == ("engine:depth=1,hash=16,nnue=none", None)  # the latest is kept
    thinking.build_player("engine:depth=1,hash=1024,nnue=none")  # one bigger than the budget (--max-hash) alone
    assert thinking._players.keys() == [("engine:depth=1,hash=1024,nnue=none", None)]


@pytest.mark.parametrize(
    ("spec", "long"),
    [
        ("greedy", False),
        ("perfect", False),  # a table look-up, although its deadline is --max-time
        ("engine", False),  # a bare engine searches 1 s
        ("engine:depth=4", False),
        ("engine:depth=6", False),
        ("engine:depth=7", True),  # beyond the quick depths: the server's clock
        ("engine:depth=4,time=5", True),
        ("engine:nodes=1000", True),
        ("engine:time=1", False),
        ("engine:time=30", True),
        ("heuristic:depth=3", False),
        ("alphalone", True),
    ],
)
def test_which_moves_count_as_long(spec, long):
    assert WebLimits(max_time=30).long_move(spec) is long
