"""The web API's clocks (loss on time, the computer's share of its clock), the engine's hint
and evaluation of a game, and the paged analysis of a stored game, with the server's bounds."""

from __future__ import annotations

import sqlite3
import time

import pytest

from sumito.defaults import THRESHOLDS
from sumito.players import player_names
from sumito.players.base import Option, PlayerKind, register
from sumito.web.hall import MAX_ANALYSIS_PAGE
from sumito.web.limits import WebLimits
from sumito.web.seats import Clock, score_json

from helpers import SlowPlayer, web_clients
from helpers import api_error as error
from helpers import poll_game as until

TOKEN = "clock-client-token-0123456789"
OTHER = "someone-else-token-0123456789"
POSITION = "2w/2wb/2bww/w1b1/b1b b 0 0 10"  # mini; Black's a3b4 lets White push a marble off (d4c4)

player_names()
register(PlayerKind("test-clock-slow", SlowPlayer, {"seconds": Option(float, 1.0, "thinking time")}, "slow (tests)"))


@pytest.fixture(scope="module", autouse=True)
def engine_kernels():
    """Load (or compile, after a source change) the engine's kernels here, before the workers fork:
    they inherit them, so that no deadline of these tests covers a compilation."""
    from sumito.games.abalone import Position
    from sumito.players import make_player

    make_player("engine:time=0.05,hash=1").choose(Position.start("mini"))


@pytest.fixture
def make_client(tmp_path, monkeypatch):
    with web_clients(tmp_path, monkeypatch, TOKEN) as make:
        yield make


@pytest.fixture
def client(make_client):
    return make_client()


def new_game(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


# --------------------------------------------------------------------------- clocks
def test_a_person_whose_clock_runs_out_loses_on_time(client):
    game = new_game(client, black="human", white="human", layout="mini", clock={"initial": 1.5, "increment": 0.5})
    clock = game["clock"]
    assert clock["initial"] == 1.5 and clock["increment"] == 0.5 and clock["running"] == "black"
    assert 1.0 < clock["black"] <= 1.5 and clock["white"] == 1.5
    state = client.post(f"/api/games/{game['id']}/moves", json={"move": "a1b2"}).json()
    assert state["clock"]["running"] == "white"
    assert 1.5 < state["clock"]["black"] <= 2.0  # the increment was added
    time.sleep(1.8)  # White does not move
    state = client.get(f"/api/games/{game['id']}").json()
    assert state["outcome"] == {"winner": "black", "reason": "time", "result": "1-0"}
    assert state["clock"]["white"] == 0 and state["clock"]["running"] is None
    assert "time" in error(client.post(f"/api/games/{game['id']}/moves", json={"move": "e3d3"}), 409)
    assert "lost on time" in error(client.post(f"/api/games/{game['id']}/undo"), 409)
    time.sleep(0.5)  # archived as a loss on time
    stored = client.get("/api/archive").json()["games"][0]
    assert stored["reason"] == "time" and stored["result"] == "1-0"
    assert client.get(f"/api/games/{game['id']}").json()["archive_id"] == stored["id"]


def test_a_move_after_the_clock_ran_out_is_a_loss_on_time(client):
    game = new_game(client, black="human", white="human", layout="mini", clock={"initial": 1, "increment": 0})
    time.sleep(1.1)
    r = client.post(f"/api/games/{game['id']}/moves", json={"move": "a1b2"})
    assert r.status_code == 409
    state = client.get(f"/api/games/{game['id']}").json()
    assert state["outcome"]["reason"] == "time" and state["outcome"]["winner"] == "white" and state["ply"] == 0


def test_the_computer_thinks_for_a_share_of_its_clock(client):
    game = new_game(client, black="engine:time=5", white="human", layout="mini", clock={"initial": 4, "increment": 0})
    started = time.monotonic()
    state = until(client, game["id"], lambda s: s["ply"] >= 1)
    assert state["ply"] == 1 and state["outcome"] is None
    assert time.monotonic() - started < 3  # not its spec's 5 s: about 4/40 s of its clock
    assert 3 < state["clock"]["black"] < 4 and state["clock"]["running"] == "white"


def test_a_computer_past_its_clock_loses_on_time(make_client):
    client = make_client(limits=WebLimits(max_time=5, grace=0.5))
    game = new_game(client, black="test-clock-slow:seconds=3", white="human", layout="mini",
                    clock={"initial": 1, "increment": 0})
    state = until(client, game["id"], lambda s: s["outcome"] is not None, seconds=10)
    assert state["outcome"] == {"winner": "white", "reason": "time", "result": "0-1"}
    assert state["error"] is None


@pytest.mark.parametrize(
    ("clock", "words"),
    [
        ({"initial": 0}, "clock.initial"),
        ({"initial": 10**6}, "clock.initial"),
        ({"initial": 60, "increment": -1}, "clock.increment"),
        ({"initial": 60, "moves": 40}, "unknown field 'clock.moves'"),
        ({"increment": 3}, "clock.initial: required"),
        ("5+3", "clock"),
    ],
)
def test_bad_clocks_are_one_line_400s(client, clock, words):
    assert words in error(client.post("/api/games", json={"clock": clock}), 400)


def test_clocks_survive_a_restart(make_client):
    first = make_client()
    game = new_game(first, black="human", white="human", layout="mini", clock={"initial": 100, "increment": 2})
    first.post(f"/api/games/{game['id']}/moves", json={"move": "a1b2"})
    first.__exit__(None, None, None)
    again = make_client()
    clock = again.get(f"/api/games/{game['id']}").json()["clock"]
    assert clock["initial"] == 100 and clock["increment"] == 2 and clock["running"] == "white"
    assert 100 < clock["black"] <= 102 and 99 < clock["white"] <= 100


def test_a_version_2_database_gets_the_clock_column(make_client, tmp_path):
    first = make_client()
    game = new_game(first, black="human", white="human")
    first.__exit__(None, None, None)
    with sqlite3.connect(tmp_path / "web.sqlite") as conn:
        conn.executescript("ALTER TABLE web_games DROP COLUMN clock; PRAGMA user_version = 2;")
    client = make_client()
    assert client.get(f"/api/games/{game['id']}").json()["clock"] is None
    with sqlite3.connect(tmp_path / "web.sqlite") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3


def test_the_clock_arithmetic():
    clock = Clock.fresh(10, 2)
    assert clock.charge(1, 3) and clock.left[1] == 9
    assert not clock.charge(2, 11) and clock.left[2] == 0


# --------------------------------------------------------------------------- hints and evaluation
def test_a_hint_is_a_legal_move_with_a_score(client):
    game = new_game(client, black="human", white="human", position=POSITION, win_threshold=1)
    hint = client.post(f"/api/games/{game['id']}/hint", json={"seconds": 0.2}).json()
    legal = {m["notation"] for m in client.get(f"/api/games/{game['id']}/legal").json()}
    assert hint["best"] in legal and hint["ply"] == 0 and hint["position"] == POSITION
    assert hint["to_move"] == "black" and hint["black"] == hint["score"] and hint["depth"] >= 1
    assert hint["pv"][0] == hint["best"] and hint["seconds"] == 0.2
    client.post(f"/api/games/{game['id']}/moves", json={"move": "a3b4"})
    hint = client.post(f"/api/games/{game['id']}/hint").json()  # White pushes a marble off and wins
    # a won game counts the marbles a win takes on this board (1 here), not a made-up 100
    assert hint["win_in"] == 1 and hint["score"] == 1 and hint["black"] == -1 and hint["to_move"] == "white"
    over = client.post(f"/api/games/{game['id']}/moves", json={"move": hint["best"]}).json()
    assert over["outcome"]["winner"] == "white"
    hint = client.post(f"/api/games/{game['id']}/hint").json()  # over on the board: no search
    assert hint["best"] is None and hint["win_in"] == 0 and hint["black"] == -1


def test_the_hint_comes_from_the_learned_engine_at_least_as_strong_as_the_opponent(client):
    # against an engine that thinks 0.5 s, a hint asked for 0.2 s searches 0.5 s with the learned evaluation
    game = new_game(client, black="human", white="engine:time=0.5,eval=linear", layout="mini")
    hint = client.post(f"/api/games/{game['id']}/hint", json={"seconds": 0.2}).json()
    assert hint["player"] == "engine:nnue=builtin-nnue,time=0.5,hash=16" and hint["seconds"] == 0.5
    # against a fixed-depth engine, to that depth at least (and never past the server's --max-time)
    game = new_game(client, black="human", white="engine:depth=2", layout="mini")
    hint = client.post(f"/api/games/{game['id']}/hint", json={"seconds": 0.2}).json()
    assert hint["player"] == "engine:nnue=builtin-nnue,time=30,depth=2,hash=16" and hint["depth"] >= 2
    # between two people: the least the page asks for
    game = new_game(client, black="human", white="human", layout="mini")
    assert client.post(f"/api/games/{game['id']}/hint", json={"seconds": 0.2}).json()["seconds"] == 0.2


def test_hints_need_the_owner_token_and_keep_to_the_limits(make_client):
    client = make_client(limits=WebLimits(max_time=0.1))
    game = new_game(client, black="human", white="human", layout="mini")
    path = f"/api/games/{game['id']}/hint"
    token = client.headers.pop("X-Sumito-Token")
    assert "owner token" in error(client.post(path), 403)
    client.headers["X-Sumito-Token"] = token
    assert "another client" in error(client.post(path, headers={"X-Sumito-Token": OTHER}), 403)
    assert "seconds" in error(client.post(path, json={"seconds": 60}), 400)
    assert "seconds" in error(client.post(path, json={"seconds": 0}), 400)
    assert "unknown field" in error(client.post(path, json={"depth": 3}), 400)
    assert client.post(path, json={"seconds": 2}).json()["seconds"] == 0.1  # cut to --max-time
    error(client.post("/api/games/g-0000000000000000/hint"), 404)


def test_scores_in_marbles_and_wins():
    assert score_json(1500.0, 1.5, 1) == {"score": 1.5, "black": 1.5, "win_in": None}
    assert score_json(1500.0, 1.5, 2) == {"score": 1.5, "black": -1.5, "win_in": None}
    assert score_json(1.0e7 - 3, 2.0, 2) == {"score": 2.0, "black": -2.0, "win_in": 3}
    assert score_json(-(1.0e7 - 2), -6.0, 1)["win_in"] == -2


# --------------------------------------------------------------------------- analysis of a stored game
def test_a_stored_game_is_analysed_page_by_page(client):
    game = new_game(client, black="human", white="human", position=POSITION, win_threshold=1)
    client.post(f"/api/games/{game['id']}/moves", json={"move": "a3b4"})
    client.post(f"/api/games/{game['id']}/moves", json={"move": "d4c4"})
    stored_id = until(client, game["id"], lambda s: s["archive_id"] is not None)["archive_id"]
    assert stored_id is not None
    path = f"/api/archive/{stored_id}/analysis"
    first = client.post(path, json={"start": 0, "count": 2}).json()
    assert first["start"] == 0 and first["total"] == 3 and first["game"]["plies"] == 2
    assert [p["ply"] for p in first["positions"]] == [0, 1]
    assert [p["played"] for p in first["positions"]] == ["a3b4", "d4c4"]
    zero, one = first["positions"]
    # Black had better: a level game, or (deep enough: the mini board with one marble to win is
    # short) a forced win; never the loss a3b4 walks into
    assert zero["best"] != "a3b4" and (zero["win_in"] is None or zero["win_in"] > 0)
    # after a3b4, White wins at once: a lost game on a board of one marble to win is -1 marble, and
    # no score of the game goes beyond it
    assert one["win_in"] == 1 and one["black"] == -1
    assert all(-1 <= p["black"] <= 1 for p in first["positions"])
    # the verdicts of the page are the command line's
    assert first["thresholds"] == dict(THRESHOLDS) == {"blunder": 0.8, "mistake": 0.3, "inaccuracy": 0.1}
    rest = client.post(path, json={"start": 2, "count": 20}).json()
    assert [p["ply"] for p in rest["positions"]] == [2] and rest["positions"][0]["played"] is None
    assert rest["positions"][0]["best"] is None  # over on the board
    assert client.post(path, json={"start": 9}).json()["positions"] == []
    assert "count" in error(client.post(path, json={"count": MAX_ANALYSIS_PAGE + 1}), 400)
    error(client.post("/api/archive/999/analysis"), 404)


def test_analysis_time_follows_max_time(make_client):
    client = make_client(limits=WebLimits(max_time=0.05))
    game = new_game(client, black="human", white="human", layout="mini")
    client.post(f"/api/games/{game['id']}/resign", json={"side": "black"})
    stored_id = until(client, game["id"], lambda s: s["archive_id"] is not None)["archive_id"]
    page = client.post(f"/api/archive/{stored_id}/analysis").json()
    assert page["seconds"] == 0.05 and len(page["positions"]) == 1


def test_a_page_of_another_site_cannot_start_an_analysis(client):
    r = client.post("/api/archive/1/analysis", headers={"Origin": "http://evil.example"})
    assert "another site" in error(r, 403)
