"""The web app's JSON API (docs/web-api.md), through FastAPI's TestClient, and `sumito serve`."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import httpx2
import pytest

from sumito.arena.db import GameArchive
from sumito.arena.match import DEFAULT_RULES
from sumito.cli import main
from sumito.games.abalone import LAYOUTS, Game, GameRecord, Position, parse_records
from sumito.players import parse_spec, player_names
from sumito.players.base import Option, PlayerKind, register
from sumito.web.app import create_app
from sumito.web.seats import player_name

from helpers import SlowPlayer, position_with, web_clients
from helpers import api_error as error
from helpers import poll_game as until

STANDARD = LAYOUTS["standard"].position_string
TOKEN = "test-client-token-0123456789"  # the owner token every test client sends (header X-Sumito-Token)


class _Failing:
    """Raises while thinking, like a player with a bug."""

    name = "test-web-failing"

    def choose(self, position, movetime=None, history=None, draw=None):
        raise RuntimeError("out of ideas")


class _Dying:
    """Takes its worker process down with it."""

    name = "test-web-dying"

    def choose(self, position, movetime=None, history=None, draw=None):
        os._exit(3)


# The pool's workers are forked from this process, so they know these players too.
player_names()
register(PlayerKind("test-web-failing", _Failing, {}, "raises while thinking (tests)"))
register(PlayerKind("test-web-dying", _Dying, {}, "kills its worker process (tests)"))
register(PlayerKind("test-web-slow", SlowPlayer, {"seconds": Option(float, 1.0, "thinking time")}, "slow (tests)"))


@pytest.fixture
def make_client(tmp_path, monkeypatch):
    """Start apps on databases in a temporary folder (never the user's); each is shut down after the test."""
    with web_clients(tmp_path, monkeypatch, TOKEN) as make:
        yield make


@pytest.fixture
def client(make_client):
    return make_client()


def new_game(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    state = r.json()
    token = state.pop("token")
    assert token == client.headers.get("X-Sumito-Token", token)
    return state


# ------------------------------------------------------------------ reference data
def test_presets_name_the_players_of_the_issue(client):
    presets = client.get("/api/presets").json()
    ids = [p["id"] for p in presets]
    assert ids[0] == "beginner" and {"abla", "alphalone", "td"} <= set(ids)
    assert sum(p["spec"].startswith("engine") for p in presets) >= 3
    for p in presets:
        parse_spec(p["spec"])  # every preset is a valid spec
        assert p["name"] and p["description"]


def test_layouts_include_the_small_boards(client):
    layouts = {lay["name"]: lay for lay in client.get("/api/layouts").json()}
    assert list(layouts) == list(LAYOUTS)
    assert layouts["mini"] == {**layouts["mini"], "side": 3, "marbles": 5, "win_threshold": 2, "inline_only": False}
    assert layouts["small"]["side"] == 4 and layouts["standard"]["side"] == 5


def test_position_string_to_board(client):
    board = client.post("/api/position", json={"position": STANDARD}).json()
    assert board["layout"] == "standard" and board["side"] == 5 and board["to_move"] == "black"
    assert len(board["cells"]) == 61 and board["position"] == STANDARD
    cells = {c["name"]: c for c in board["cells"]}
    assert cells["a1"]["marble"] == "black" and cells["i9"]["marble"] == "white" and cells["e5"]["marble"] is None
    assert (cells["e1"]["x"], cells["e1"]["row"], cells["e1"]["col"]) == (0, 4, 0)
    assert cells["a1"]["y"] > cells["e1"]["y"] > cells["i5"]["y"] == 0  # row a at the bottom
    mini = client.post("/api/position", json={"position": "www/1ww1/5/1bb1/bb1 w 1 0 3"}).json()
    assert (mini["side"], len(mini["cells"]), mini["to_move"]) == (3, 19, "white")
    assert mini["lost"] == {"black": 1, "white": 0} and mini["layout"] is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb", "5 fields"),
        ("www/1ww1/5/1bb1/bbx b 0 0 1", "unexpected character 'x'"),
        ("wwwww/wwwwww/2www2/9/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1", "row f has 9 cells"),
        ("", "5 fields"),
    ],
)
def test_malformed_position_string_is_a_400(client, text, words):
    assert words in error(client.post("/api/position", json={"position": text}), 400)


def test_the_page_and_the_api_description_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/games", "/api/games/{game_id}/moves", "/api/archive/{stored_id}", "/api/position"):
        assert path in paths
    assert client.get("/docs").status_code == 200
    assert client.get("/api/nothing-here").status_code == 404


# ------------------------------------------------------------------ playing
def test_new_game_state(client):
    state = new_game(client, black="human", white="human", layout="mini")
    assert re.fullmatch(r"g-[0-9a-f]+", state["id"])
    assert state["black"] == {"spec": "human", "name": "You"}
    assert (state["ply"], state["moves"], state["outcome"], state["error"], state["speed"]) == (0, [], None, None, None)
    assert (state["can_undo"], state["can_redo"], state["thinking"]) == (False, False, False)
    assert state["board"]["layout"] == "mini" and len(state["board"]["cells"]) == 19
    assert client.get(f"/api/games/{state['id']}").json() == state


def test_legal_moves_are_the_engines(client):
    # Black to move: g7-h8 pushes i9 off the board; c3-c5 can move broadside; d5-d6 push e7 to f8
    text = position_with(["g7", "h8", "c3", "c4", "c5", "d5", "d6"], ["i9", "e7"]).to_string()
    game = new_game(client, black="human", white="human", position=text)
    moves = client.get(f"/api/games/{game['id']}/legal").json()
    assert [m["notation"] for m in moves] == [m.notation() for m in Position.from_string(text).legal_moves()]
    by_name = {m["notation"]: m for m in moves}
    assert all(len(m["marbles"]) == len(m["destinations"]) for m in moves)
    pushes = [m for m in moves if m["pushed"]]
    assert pushes and all(not m["broadside"] for m in pushes)
    assert any(m["push_off"] for m in pushes)
    assert any(m["broadside"] for m in by_name.values())


def test_a_move_against_the_computer_gets_a_reply(client):
    game = new_game(client, black="human", white="random")
    r = client.post(f"/api/games/{game['id']}/moves", json={"move": "a1b2"})
    assert r.status_code == 200 and r.json()["moves"][0] == "a1b2"
    state = until(client, game["id"], lambda s: s["ply"] == 2)
    assert state["ply"] == 2 and not state["thinking"] and state["board"]["to_move"] == "black"
    assert state["can_undo"] and state["error"] is None


@pytest.mark.parametrize(
    "path",
    ["", "/legal", "/record"],
)
def test_unknown_game_is_a_404(client, path):
    assert "g-nothing" in error(client.get(f"/api/games/g-nothing{path}"), 404)


@pytest.mark.parametrize(
    ("path", "body"),
    [("/moves", {"move": "a1b2"}), ("/undo", None), ("/redo", None), ("/resign", None), ("/speed", {"speed": 1})],
)
def test_unknown_game_is_a_404_for_every_action(client, path, body):
    error(client.post(f"/api/games/g-nothing{path}", json=body), 404)


def test_illegal_and_malformed_moves_are_400s_naming_the_move(client):
    game = new_game(client, black="human", white="human")
    url = f"/api/games/{game['id']}/moves"
    assert error(client.post(url, json={"move": "e4e5"}), 400).startswith("e4e5 is not legal")
    assert "a1a2" in error(client.post(url, json={"move": "a1a2"}), 400)  # blocked by its own marbles
    assert "'zz9'" in error(client.post(url, json={"move": "zz9"}), 400)
    assert "j1" in error(client.post(url, json={"move": "j1j2"}), 400)
    assert error(client.post(url, json={}), 400) == "move: required"
    assert "unknown field" in error(client.post(url, json={"move": "a1b2", "colour": "black"}), 400)
    assert "JSON" in error(client.post(url, content=b"{bad", headers={"content-type": "application/json"}), 400)
    assert "JSON object" in error(client.post(url, json=["a1b2"]), 400)
    error(client.post(url, json={"move": "x" * 1000}), 400)
    error(client.post(url, json={"move": 12}), 400)
    assert client.get(f"/api/games/{game['id']}").json()["ply"] == 0  # nothing changed


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"white": "nobody"}, "unknown player 'nobody'"),
        ({"white": "abla:colour=1"}, "has no option 'colour'"),
        ({"white": "abla:depth=three"}, "must be int"),
        ({"white": "td:net=/no/such/net.npz"}, "only the shipped networks"),
        ({"black": ""}, "a player is"),
        ({"layout": "hexagon"}, "unknown layout 'hexagon'"),
        ({"position": "www/1ww1/5/1bb1/bbx b 0 0 1"}, "unexpected character"),
        ({"speed": -1}, "speed"),
        ({"win_threshold": 99}, "win threshold"),
    ],
)
def test_bad_new_game_is_a_400(client, body, words):
    assert words in error(client.post("/api/games", json=body), 400)


def test_moving_on_the_computers_turn_is_a_409(client):
    game = new_game(client, black="test-web-slow:seconds=1", white="human")
    assert game["thinking"] and game["board"]["to_move"] == "black"
    detail = error(client.post(f"/api/games/{game['id']}/moves", json={"move": "a1b2"}), 409)
    assert "computer" in detail
    assert "nothing to undo" in error(client.post(f"/api/games/{game['id']}/undo"), 409)
    state = client.post(f"/api/games/{game['id']}/resign").json()  # the person (White) resigns
    assert state["outcome"] == {"winner": "black", "reason": "resignation", "result": "1-0"}
    assert not state["thinking"]
    assert "over" in error(client.post(f"/api/games/{game['id']}/moves", json={"move": "i5h5"}), 409)
    assert "over" in error(client.post(f"/api/games/{game['id']}/resign"), 409)


def test_undo_and_redo_between_two_people(client):
    game_id = new_game(client, black="human", white="human")["id"]
    for move in ("a1b2", "i5h5", "b1c2"):
        client.post(f"/api/games/{game_id}/moves", json={"move": move})
    state = client.post(f"/api/games/{game_id}/undo").json()
    assert state["moves"] == ["a1b2", "i5h5"] and state["can_redo"] and state["board"]["to_move"] == "black"
    state = client.post(f"/api/games/{game_id}/undo").json()
    assert state["moves"] == ["a1b2"]
    state = client.post(f"/api/games/{game_id}/redo").json()
    assert state["moves"] == ["a1b2", "i5h5"] and state["can_redo"]
    state = client.post(f"/api/games/{game_id}/moves", json={"move": "a2b3"}).json()
    assert state["moves"] == ["a1b2", "i5h5", "a2b3"] and not state["can_redo"]  # a new move clears the redo stack
    assert error(client.post(f"/api/games/{game_id}/redo"), 409) == "nothing to redo"
    for _ in range(3):
        client.post(f"/api/games/{game_id}/undo")
    assert "nothing to undo" in error(client.post(f"/api/games/{game_id}/undo"), 409)


def test_undo_against_the_computer_takes_back_its_reply_too(client):
    game_id = new_game(client, black="human", white="random:seed=1")["id"]
    client.post(f"/api/games/{game_id}/moves", json={"move": "a1b2"})
    reply = until(client, game_id, lambda s: s["ply"] == 2)["moves"][1]
    state = client.post(f"/api/games/{game_id}/undo").json()
    assert state["ply"] == 0 and state["can_redo"] and not state["thinking"] and not state["can_undo"]
    state = client.post(f"/api/games/{game_id}/redo").json()
    assert state["moves"] == ["a1b2", reply] and not state["thinking"]


def test_resign_and_the_game_stays_over(client):
    game_id = new_game(client, black="human", white="human")["id"]
    client.post(f"/api/games/{game_id}/moves", json={"move": "a1b2"})
    state = client.post(f"/api/games/{game_id}/resign", json={"side": "black"}).json()
    assert state["outcome"] == {"winner": "white", "reason": "resignation", "result": "0-1"}
    assert not state["can_undo"] and not state["can_redo"]
    assert client.get(f"/api/games/{game_id}/legal").json() == []
    assert "side" in error(client.post(f"/api/games/{game_id}/resign", json={"side": "red"}), 400)
    # the resigned game is archived, and replays with its declared ending
    archived = {}
    deadline = time.monotonic() + 5
    while not archived.get("total") and time.monotonic() < deadline:
        archived = client.get("/api/archive").json()
        time.sleep(0.05)
    assert archived["total"] == 1 and archived["games"][0]["reason"] == "resignation"
    replay = client.get(f"/api/archive/{archived['games'][0]['id']}").json()
    assert replay["moves"] == ["a1b2"] and len(replay["boards"]) == 2
    # a finished game is not taken back, resigned or not: undo is for a game in progress
    assert "the game is over" in error(client.post(f"/api/games/{game_id}/undo"), 409)
    state = client.get(f"/api/games/{game_id}").json()
    assert state["outcome"]["reason"] == "resignation" and state["moves"] == ["a1b2"]


def test_a_game_won_on_the_board_cannot_be_undone(client):
    # two people on the mini board, one marble to win: a3b4 lets White push one off
    game = new_game(client, black="human", white="human", position="2w/2wb/2bww/w1b1/b1b b 0 0 10", win_threshold=1)
    client.post(f"/api/games/{game['id']}/moves", json={"move": "a3b4"})
    state = client.post(f"/api/games/{game['id']}/moves", json={"move": "d4c4"}).json()
    assert state["outcome"]["reason"] == "push-off" and not state["can_undo"]
    assert "the game is over (White wins (push-off))" in error(client.post(f"/api/games/{game['id']}/undo"), 409)
    assert client.get(f"/api/games/{game['id']}").json()["ply"] == 2


def test_the_archive_names_players_as_the_page_does(client):
    game_id = new_game(client, black="human", white="engine-fast", layout="mini")["id"]
    client.post(f"/api/games/{game_id}/resign")
    stored = until(client, game_id, lambda s: s["archive_id"] is not None)["archive_id"]
    (listed,) = client.get("/api/archive").json()["games"]
    assert listed["id"] == stored and listed["black"] == "human"  # the specs as played stay
    # the owner's own game: "You", and the preset's name rather than its spec
    assert listed["names"] == {"black": "You", "white": "Engine (0.2 s)"}
    assert client.get(f"/api/archive/{stored}").json()["game"]["names"] == listed["names"]
    # someone else's game: a person, not "You"
    others = client.get("/api/archive", headers={"X-Sumito-Token": "someone-else-token-0123"}).json()
    assert others["games"][0]["names"] == {"black": "Human", "white": "Engine (0.2 s)"}


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("engine:nnue=builtin-nnue,time=0.1", "Engine (0.1 s)"),  # sumito game/match's default player
        ("engine:nnue=builtin-nnue,time=1", "Engine (1 s)"),  # a preset's spec, its options in another order
        ("engine:depth=4,nnue=builtin-nnue", "Engine (depth 4)"),
        ("engine:time=1,nnue=none", "Engine, hand-set evaluation (1 s)"),
        ("abla:depth=3", "ABLA"),
        ("random:seed=3", "random:seed=3"),
        ("no-such-player:x=1", "no-such-player:x=1"),  # an archived spec of a player unknown here
    ],
)
def test_player_names(spec, name):
    assert player_name(spec) == name
    assert player_name("human") == "You" and player_name("human", you=False) == "Human"


def test_a_computer_game_reaches_an_outcome_and_is_archived(client):
    game = new_game(client, black="random", white="random", layout="mini", speed=0)
    assert game["speed"] == 0 and game["thinking"]
    state = until(client, game["id"], lambda s: s["outcome"] is not None, seconds=25)
    assert state["outcome"] is not None and not state["thinking"] and state["error"] is None
    assert "cannot" not in str(state)
    ok = Game("mini", DEFAULT_RULES)  # the server's draw rules: a random game may reach the ply cap
    for move in state["moves"]:
        ok.push(move)
    assert ok.outcome().result == state["outcome"]["result"] and ok.position.to_string() == state["board"]["position"]
    archived = {}
    deadline = time.monotonic() + 5
    while not archived.get("total") and time.monotonic() < deadline:
        archived = client.get("/api/archive").json()
        time.sleep(0.05)
    assert archived["total"] == 1
    stored = archived["games"][0]
    assert (stored["black"], stored["layout"], stored["plies"]) == ("random", "mini", state["ply"])
    assert stored["names"] == {"black": "random", "white": "random"}
    assert stored["result"] == state["outcome"]["result"] and stored["run"].startswith("web ")


def test_watch_speed(client):
    game = new_game(client, black="random", white="random", speed=30)
    state = client.post(f"/api/games/{game['id']}/speed", json={"speed": 0.5}).json()
    assert state["speed"] == 0.5
    assert "speed" in error(client.post(f"/api/games/{game['id']}/speed", json={"speed": -2}), 400)
    assert "undo" in error(client.post(f"/api/games/{game['id']}/undo"), 409)  # nobody's move to take back
    assert until(client, game["id"], lambda s: s["ply"] >= 2, seconds=10)["ply"] >= 2
    client.post(f"/api/games/{game['id']}/resign", json={"side": "white"})


def test_wait_returns_at_once_when_the_ply_has_moved_on(client):
    game = new_game(client, black="test-web-slow:seconds=1", white="human")
    t0 = time.monotonic()
    state = client.get(f"/api/games/{game['id']}", params={"wait": 5, "ply": 7}).json()
    assert time.monotonic() - t0 < 1 and state["ply"] == 0
    state = client.get(f"/api/games/{game['id']}", params={"wait": 5, "ply": 0}).json()
    assert state["ply"] == 1 and not state["thinking"]
    error(client.get(f"/api/games/{game['id']}", params={"wait": 11}), 400)
    error(client.get(f"/api/games/{game['id']}", params={"wait": "soon"}), 400)


def test_a_failing_player_sets_error_and_the_server_goes_on(client):
    game = new_game(client, black="human", white="test-web-failing")
    client.post(f"/api/games/{game['id']}/moves", json={"move": "a1b2"})
    state = until(client, game["id"], lambda s: s["error"] is not None)
    assert state["error"] == "test-web-failing failed: out of ideas" and not state["thinking"]
    assert state["ply"] == 1 and state["can_undo"]
    dying = new_game(client, black="test-web-dying", white="human")
    state = until(client, dying["id"], lambda s: s["error"] is not None)
    assert "worker process died" in state["error"]
    other = new_game(client, black="human", white="random")  # a fresh pool of workers
    client.post(f"/api/games/{other['id']}/moves", json={"move": "a1b2"})
    assert until(client, other["id"], lambda s: s["ply"] == 2)["ply"] == 2


def test_games_list(client):
    first = new_game(client, black="human", white="human", layout="small")
    second = new_game(client, black="human", white="random")
    listed = client.get("/api/games").json()
    assert {g["id"] for g in listed} == {first["id"], second["id"]}
    small = next(g for g in listed if g["id"] == first["id"])
    assert small["layout"] == "small" and small["ply"] == 0 and small["outcome"] is None


# ------------------------------------------------------------------ records
def test_record_export_and_import_round_trip(client):
    game_id = new_game(client, black="human", white="human", layout="belgian-daisy")["id"]
    for move in ("a1b1", "i5h5", "b1c2"):
        client.post(f"/api/games/{game_id}/moves", json={"move": move})
    r = client.get(f"/api/games/{game_id}/record")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    (record,) = parse_records(r.text)
    assert record.tags["Layout"] == "belgian-daisy" and record.result == "*"
    assert [m.notation() for m in record.game.moves] == ["a1b1", "i5h5", "b1c2"]
    r = client.post("/api/records", json={"text": r.text})
    assert r.status_code == 201
    imported = r.json()["game"]
    assert imported["id"] != game_id and imported["moves"] == ["a1b1", "i5h5", "b1c2"]
    assert imported["black"]["spec"] == imported["white"]["spec"] == "human"
    assert imported["board"] == client.get(f"/api/games/{game_id}").json()["board"]
    state = client.post(f"/api/games/{imported['id']}/undo").json()  # step back through it
    assert state["ply"] == 2 and state["can_redo"]


def test_import_a_finished_game(client):
    game = Game("mini")
    while not game.is_over():
        game.push(game.legal_moves()[0])
    text = GameRecord.from_game(game, Black="first", White="first").to_text()
    state = client.post("/api/records", json={"text": text}).json()["game"]
    assert state["outcome"]["result"] == game.outcome().result and state["ply"] == game.plies
    assert state["black"]["name"] == "first"
    (again,) = parse_records(client.get(f"/api/games/{state['id']}/record").text)
    assert again.tags["Black"] == "first" and again.result == game.outcome().result


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[Layout "standard"]\n\n1. e4e5 *\n', "e4e5 is not legal"),
        ('[Layout "hexagon"]\n\n*\n', "unknown layout"),
        ('[Result "1-0"]\n\n1. a1b2 *\n', "the moves end with *"),
        ("", "no game record"),
        ('[Layout "mini"]\n\n*\n\n[Layout "mini"]\n\n*\n', "2 game records"),
    ],
)
def test_malformed_record_is_a_400(client, text, words):
    assert words in error(client.post("/api/records", json={"text": text}), 400)


# ------------------------------------------------------------------ the arena's archive
def test_archive_list_filters_and_replay(make_client, tmp_path, capsys):
    archive = tmp_path / "arena.sqlite"
    common = ["--seed", "1", "--workers", "1", "--quiet", "--db", str(archive)]
    for players in (["random:seed=3", "random"], ["greedy", "random:seed=5"]):
        assert main(["match", *players, "-n", "2", "--layout", "mini", *common]) == 0
    assert main(["match", "random", "random", "-n", "1", "--layout", "small", *common]) == 0
    capsys.readouterr()
    client = make_client(archive="arena.sqlite")
    listing = client.get("/api/archive").json()
    assert listing["total"] == 5 and [g["id"] for g in listing["games"]] == [5, 4, 3, 2, 1]
    # the match's own seeds are in the specs as played, not in the names shown
    last = listing["games"][0]
    assert last["black"].startswith("random:seed=") and last["names"] == {"black": "random", "white": "random"}
    assert client.get("/api/archive", params={"layout": "small"}).json()["total"] == 1
    assert client.get("/api/archive", params={"player": "GREEDY"}).json()["total"] == 2
    with GameArchive(archive, create=False) as db:
        wins = db.count(result="1-0")
    assert client.get("/api/archive", params={"result": "1-0"}).json()["total"] == wins
    page = client.get("/api/archive", params={"limit": 2, "offset": 1}).json()
    assert page["total"] == 5 and [g["id"] for g in page["games"]] == [4, 3]
    assert "result must be one of" in error(client.get("/api/archive", params={"result": "2-0"}), 400)
    assert "unknown layout" in error(client.get("/api/archive", params={"layout": "hexagon"}), 400)
    error(client.get("/api/archive", params={"limit": 0}), 400)

    replay = client.get("/api/archive/2").json()
    summary = replay["game"]
    assert len(replay["boards"]) == summary["plies"] + 1 == len(replay["moves"]) + 1
    assert replay["boards"][0]["position"] == LAYOUTS["mini"].position_string
    with GameArchive(archive, create=False) as db:
        stored = db.game(2)
    assert replay["boards"][-1]["position"] == stored.final_position
    assert replay["moves"] == stored.moves.split()
    (record,) = parse_records(client.get("/api/archive/2/record").text)
    assert record.tags["GameId"] == "2" and record.game.plies == summary["plies"]
    assert "no stored game 99" in error(client.get("/api/archive/99"), 404)
    error(client.get("/api/archive/99/record"), 404)
    error(client.get("/api/archive/two"), 400)


def test_archive_is_empty_before_any_game(client):
    assert client.get("/api/archive").json() == {"total": 0, "games": []}
    error(client.get("/api/archive/1"), 404)


# ------------------------------------------------------------------ restarts
def test_games_survive_a_restart(make_client):
    first = make_client()
    people = new_game(first, black="human", white="human", layout="small")["id"]
    played = []
    for _ in range(3):
        played.append(first.get(f"/api/games/{people}/legal").json()[0]["notation"])
        assert first.post(f"/api/games/{people}/moves", json={"move": played[-1]}).status_code == 200
    first.post(f"/api/games/{people}/undo")
    resigned = new_game(first, black="human", white="human")["id"]
    first.post(f"/api/games/{resigned}/resign", json={"side": "white"})
    thinking = new_game(first, black="human", white="test-web-slow:seconds=0.5")["id"]
    first.post(f"/api/games/{thinking}/moves", json={"move": "a1b2"})
    assert first.get(f"/api/games/{thinking}").json()["thinking"]
    before = first.get(f"/api/games/{people}").json()
    first.__exit__(None, None, None)  # the server stops while the engine thinks

    second = make_client()
    assert second.get(f"/api/games/{people}").json() == before
    assert before["moves"] == played[:2] and before["can_redo"]
    assert second.post(f"/api/games/{people}/redo").json()["moves"] == played
    assert second.get(f"/api/games/{resigned}").json()["outcome"]["reason"] == "resignation"
    state = second.get(f"/api/games/{thinking}").json()
    assert state["moves"] == ["a1b2"] and state["thinking"]  # it thinks again
    assert until(second, thinking, lambda s: s["ply"] == 2)["ply"] == 2


def test_a_file_that_is_not_a_game_database_is_refused(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("hello")
    with pytest.raises(Exception, match="not a database of Sumito web games"):
        create_app(path, tmp_path / "games.sqlite")


# ------------------------------------------------------------------ sumito serve
def test_serve_reports_a_port_in_use(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--port", str(port), "--db", str(tmp_path / "web.sqlite")])
    err = capsys.readouterr().err
    assert code == 2 and err == f"sumito: error: port {port} on 127.0.0.1 is in use (give another with --port)\n"


def test_serve_prints_its_address_and_serves(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    cmd = [sys.executable, "-m", "sumito", "serve", "--port", "0", "--workers", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        match = re.fullmatch(r"Sumito is running at (http://127\.0\.0\.1:\d+/)\n", line)
        assert match, line + proc.stderr.read() if proc.poll() is not None else line
        deadline = time.monotonic() + 20
        while True:
            try:
                r = httpx2.get(match.group(1) + "api/presets", timeout=5)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert r.status_code == 200 and r.json()[0]["id"] == "beginner"
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0


def test_each_router_serves_one_tag_and_together_they_are_the_api(tmp_path):
    from fastapi.routing import APIRoute

    from sumito.web.routes import ROUTERS

    tags = [router.tags for router in ROUTERS]
    assert all(len(t) == 1 for t in tags) and len({t[0] for t in tags}) == len(tags), tags
    for router in ROUTERS:
        for route in router.routes:
            assert isinstance(route, APIRoute) and route.tags == router.tags, (route, router.tags)
    app = create_app(tmp_path / "web.sqlite", tmp_path / "arena.sqlite", workers=1, warm=False)
    served = {(op, path) for path, ops in app.openapi()["paths"].items() for op in ops}
    routed = {(m.lower(), r.path) for router in ROUTERS for r in router.routes for m in r.methods}
    assert served == routed
