"""``sumito bg``: backgammon player specs, typed plays and the commands, run in-process through ``main``."""

from __future__ import annotations

import importlib.util
import io
import json
import sys

import numpy as np
import pytest

from sumito.cli import main
from sumito.games.backgammon import BackgammonPosition, from_position_id, position_id
from sumito.games.backgammon.kernels import generate_plays
from sumito.players.backgammon.players import (
    GNUBG_MISSING,
    BackgammonPlayerError,
    HumanPlayer,
    HumanQuit,
    PlayError,
    make_bg_player,
    parse_play,
)

HAS_GNUBG = importlib.util.find_spec("gnubg_nn") is not None
needs_gnubg = pytest.mark.skipif(
    not HAS_GNUBG, reason="gnubg player tests need the optional package gnubg-nn: pip install 'sumito[gnubg]'"
)
START = BackgammonPosition.start()


def run(capsys, *argv):
    """``(exit code, stdout, stderr)`` of ``sumito argv``."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def row_of(position, dice, board):
    """The row of ``generate_plays`` whose afterstate is ``board``."""
    afterstates, _ = generate_plays(position.board, *dice)
    rows = np.flatnonzero((afterstates == np.asarray(board, dtype=np.int8)).all(axis=1))
    assert rows.size == 1
    return int(rows[0])


def moved(position, *steps):
    """``position``'s board after the mover's ``(from, to)`` steps (25 bar, 0 off; a blot landed on is hit)."""
    b = np.array(position.board)
    for a, t in steps:
        if a == 25:
            b[24] -= 1
        else:
            b[a - 1] -= 1
        if t == 0:
            b[26] += 1
        else:
            if b[t - 1] == -1:
                b[t - 1], b[25] = 0, b[25] + 1
            b[t - 1] += 1
    return b


# ------------------------------------------------------------------ player specs
def test_simple_specs():
    assert make_bg_player("random:seed=1").name == "random:seed=1"
    assert make_bg_player(" Pubeval ").name == "pubeval"
    assert make_bg_player("human").name == "human"
    afterstates, _ = generate_plays(START.board, 3, 1)
    for spec in ("random:seed=1", "random", "pubeval"):
        row = make_bg_player(spec, rng_seed=5)(START.board, afterstates)
        assert 0 <= row < afterstates.shape[0]
    # pubeval's favourite 3-1 opening: make the 5 point
    row = make_bg_player("pubeval")(START.board, afterstates)
    assert position_id(BackgammonPosition(afterstates[row]).swap()) == "sGfwATDgc/ABMA"


def test_random_seeds_replay():
    afterstates, _ = generate_plays(START.board, 6, 5)
    picks = [[make_bg_player("random:seed=4", rng_seed=s)(START.board, afterstates) for _ in range(8)] for s in (1, 1)]
    assert picks[0] == picks[1]


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("minimax", "unknown backgammon player 'minimax'"),
        ("random:depth=2", "has no option 'depth'"),
        ("random:seed", "needs a value"),
        ("random:seed=x", "must be int"),
        ("gnubg:ply=3", "ply must be 0, 1 or 2"),
        ("gnubg:ply=-1", "ply must be 0, 1 or 2"),
        ("td:net=", "td needs a network file"),
        ("td:net=/no/such/file.npz", "no such file"),
        ("pubeval:seed=1", "it accepts: none"),
    ],
)
def test_bad_specs(spec, fragment):
    with pytest.raises(BackgammonPlayerError, match=fragment) as info:
        make_bg_player(spec)
    assert "\n" not in str(info.value)


def test_gnubg_missing_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # makes `import gnubg_nn` raise ImportError
    with pytest.raises(BackgammonPlayerError) as info:
        make_bg_player("gnubg")
    assert str(info.value) == GNUBG_MISSING


@needs_gnubg
def test_gnubg_spec():
    player = make_bg_player("gnubg:ply=0")
    assert player.name == "gnubg:ply=0"
    afterstates, _ = generate_plays(START.board, 3, 1)
    assert position_id(BackgammonPosition(afterstates[player(START.board, afterstates)]).swap()) == "sGfwATDgc/ABMA"


def test_td_specs(tmp_path):
    from sumito.models.backgammon.modular import ModularValue
    from sumito.models.network import ValueNetwork

    modular = tmp_path / "modular.npz"
    ModularValue(0).save(modular)
    single = tmp_path / "single.npz"
    ValueNetwork(198, 8, 0, metadata={"encoding": "tesauro198"}).save(single)
    other = tmp_path / "other.npz"
    ValueNetwork(10, 4, 0, metadata={"encoding": "abalearn3"}).save(other)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a network")

    afterstates, _ = generate_plays(START.board, 6, 2)
    for path in (modular, single):
        player = make_bg_player(f"td:net={path}")
        assert player.name == f"td:net={path}"
        assert 0 <= player(START.board, afterstates) < afterstates.shape[0]
    with pytest.raises(BackgammonPlayerError, match="not a backgammon tesauro198 network"):
        make_bg_player(f"td:net={other}")
    with pytest.raises(BackgammonPlayerError, match="neither a modular backgammon network nor"):
        make_bg_player(f"td:net={junk}")


def test_shipped_network_beats_pubeval():
    # the network in the package (docs/results-backgammon.md says how it was made) is Wiering's modular one
    from sumito.arena.backgammon import play_match
    from sumito.players.backgammon.pubeval import PubevalPlayer

    player = make_bg_player("td:net=builtin")
    model = player.engine.__self__  # the ModularValue behind the bound choose
    assert (model.encoding, model.n_outputs) == ("wiering", 7)
    result = play_match(player, PubevalPlayer(), 300, np.random.default_rng(11))
    assert result.equity > 0  # measured +0.2 points a game over 1,000 games; 300 here keep the test short


# ------------------------------------------------------------------ typed plays
def test_parse_normal_plays_any_order():
    row = row_of(START, (3, 1), moved(START, (8, 5), (6, 5)))
    assert parse_play(START, (3, 1), "8/5 6/5") == row
    assert parse_play(START, (1, 3), "6/5 8/5") == row
    assert parse_play(START, (3, 1), " 6/5,  8/5* ") == row  # commas, a stray hit mark
    run_row = row_of(START, (3, 1), moved(START, (13, 10), (10, 9)))
    assert parse_play(START, (3, 1), "13/10 10/9") == run_row
    assert parse_play(START, (3, 1), "13/10/9") == run_row
    assert parse_play(START, (3, 1), "13/9") == run_row
    doubles = row_of(START, (6, 6), moved(START, (24, 18), (24, 18), (13, 7), (13, 7)))
    assert parse_play(START, (6, 6), "13/7(2) 24/18(2)") == doubles


def test_parse_bar_entry_and_hit():
    pos = BackgammonPosition.from_points({6: 5, 8: 3, 13: 5, 24: 1}, {6: 5, 8: 3, 13: 5, 24: 1, 3: 1}, bar=1)
    # the opponent's blot on its 3 point is the mover's 22 point
    row = row_of(pos, (3, 2), moved(pos, (25, 22), (24, 22)))
    assert parse_play(pos, (3, 2), "bar/22* 24/22") == row
    assert parse_play(pos, (3, 2), "24/22 bar/22") == row
    with pytest.raises(PlayError):
        parse_play(pos, (3, 2), "13/10 24/22")  # the bar checker must enter first


def test_parse_compound_move_hits_on_the_way():
    # a blot of the opponent's on the mover's 10 point: 13/9 with 3-1 goes through 10 or 12
    pos = BackgammonPosition.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 11: 4, 24: 2, 15: 1})
    hit = row_of(pos, (3, 1), moved(pos, (13, 10), (10, 9)))
    no_hit = row_of(pos, (3, 1), moved(pos, (13, 12), (12, 9)))
    assert parse_play(pos, (3, 1), "13/10* 10/9") == hit
    assert parse_play(pos, (3, 1), "13/12 12/9") == no_hit
    assert parse_play(pos, (3, 1), "13/9") in (hit, no_hit)


def test_parse_bear_off():
    pos = BackgammonPosition.from_points({1: 3, 3: 2, 5: 2}, {7: 2, 12: 3})
    row = row_of(pos, (5, 3), moved(pos, (5, 0), (3, 0)))
    assert parse_play(pos, (5, 3), "5/off 3/off") == row
    assert parse_play(pos, (5, 3), "3/off 5/off") == row
    assert parse_play(pos, (5, 3), "5/OFF 3/Off") == row
    with pytest.raises(PlayError):
        parse_play(pos, (5, 3), "1/off 5/2")


def test_parse_pass():
    # on the bar against a closed board: no play at all
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}
    pos = BackgammonPosition.from_points({6: 4, 8: 4, 13: 6}, closed, bar=1)
    assert generate_plays(pos.board, 6, 5)[0].shape[0] == 1
    assert parse_play(pos, (6, 5), "pass") == 0
    with pytest.raises(PlayError, match="type pass"):
        parse_play(pos, (6, 5), "13/7 13/8")
    with pytest.raises(PlayError, match="cannot pass"):
        parse_play(START, (3, 1), "pass")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("24/21", "not a legal play with 3-1"),
        ("24/20/16", "not a legal play with 3-1"),
        ("13/8", "point 8|not a legal"),
        ("8/5", "not a legal play"),  # one die left unplayed
        ("8/5 6/5 5/4", "not a legal play"),
        ("5/2 6/5", "no checker on point 5"),
        ("12/9 6/5", "no checker on point 12"),
        ("1/12", "from higher points to lower"),
        ("13-10", "cannot read"),
        ("hello", "cannot read"),
        ("30/27 6/5", "points are 1..24"),
        ("bar/22 6/5", "no checker on the bar"),
        ("13/7(2) 8/2(2) 6/1", "at most 4"),
        ("", "no play given"),
    ],
)
def test_parse_rejects(text, fragment):
    with pytest.raises(PlayError, match=fragment) as info:
        parse_play(START, (3, 1), text)
    assert "\n" not in str(info.value)


def test_human_player_reprompts_and_quits():
    lines = iter(["?", "24/16", "8/5 6/5"])
    shown: list[str] = []
    human = HumanPlayer(read=lambda prompt: next(lines), write=shown.append)
    afterstates, _ = generate_plays(START.board, 3, 1)
    row = human.choose(START.board, afterstates, (3, 1))
    assert row == parse_play(START, (3, 1), "8/5 6/5")
    assert any("13/10 10/9" in s for s in shown)  # the ? list
    assert any("not a legal play" in s for s in shown)

    def eof(prompt):
        raise EOFError

    with pytest.raises(HumanQuit):
        HumanPlayer(read=eof, write=shown.append).choose(START.board, afterstates, (3, 1))
    with pytest.raises(HumanQuit):
        HumanPlayer(read=lambda p: "  ", write=shown.append).choose(START.board, afterstates, (3, 1))


# ------------------------------------------------------------------ commands
def test_bg_show(capsys):
    code, out, _ = run(capsys, "bg", "show")
    assert code == 0
    assert "Position ID: 4HPwATDgc/ABMA" in out
    assert "13-14-15-16-17-18" in out and "12-11-10" in out and "pips 167" in out
    code, out, _ = run(capsys, "bg", "show", "--id", "sGfwATDgc/ABMA")
    assert code == 0 and "Position ID: sGfwATDgc/ABMA" in out


def test_bg_moves(capsys):
    afterstates, _ = generate_plays(START.board, 3, 1)
    for dice in ("3-1", "31", "1-3"):
        code, out, _ = run(capsys, "bg", "moves", "--dice", dice)
        assert code == 0
        lines = out.strip().splitlines()
        assert len(lines) == afterstates.shape[0]
    by_play = {line.rsplit(maxsplit=1)[0].strip(): line.split()[-1] for line in lines}
    assert by_play["8/5 6/5"] == "sGfwATDgc/ABMA"  # as gnubg shows it, O on roll
    for pid in by_play.values():
        from_position_id(pid)
    code, out, _ = run(capsys, "bg", "moves", "--id", "4HPwATDgc/ABMA", "--dice", "6-6")
    assert code == 0 and len(out.strip().splitlines()) == generate_plays(START.board, 6, 6)[0].shape[0]


@pytest.mark.parametrize(
    "argv",
    [
        ("bg", "moves", "--dice", "7-1"),
        ("bg", "moves", "--dice", "3"),
        ("bg", "show", "--id", "not-an-id"),
        ("bg", "show", "--id", "//////////////"),
        ("bg", "game", "random", "nobody"),
        ("bg", "match", "random", "pubeval:ply=2", "-n", "2"),
        ("bg", "match", "random", "pubeval", "-n", "0"),
        ("bg", "match", "random", "human", "-n", "2"),
    ],
)
def test_bg_errors(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("sumito: error: ")


def test_bg_game(capsys):
    code, out, _ = run(capsys, "bg", "game", "pubeval", "random:seed=2", "--seed", "7")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("X: pubeval   O: random:seed=2")
    assert lines[1].split(" rolls ")[0] in ("X", "O")
    assert lines[-1].startswith("result: ") and ("single game" in lines[-1] or "gammon" in lines[-1])
    assert run(capsys, "bg", "game", "pubeval", "random:seed=2", "--seed", "7")[1] == out


def test_bg_match_same_for_any_worker_count(capsys):
    results = []
    for workers in ("1", "2"):
        code, out, _ = run(
            capsys, "bg", "match", "random:seed=1", "pubeval", "-n", "40", "--seed", "3", "--json", "--workers", workers
        )
        assert code == 0
        results.append(json.loads(out))
    assert results[0] == results[1]
    s = results[0]
    assert s["games"] == 40 and s["wins"] + s["losses"] == 40 and s["seed"] == 3
    assert s["equity"] == pytest.approx(s["points"] / 40)


def test_pubeval_beats_random(capsys):
    code, out, _ = run(capsys, "bg", "match", "pubeval", "random:seed=1", "-n", "100", "--seed", "11", "--json")
    assert code == 0
    s = json.loads(out)
    assert s["equity"] > 0 and s["equity"] - s["ci95"] > 0
    code, out, _ = run(capsys, "bg", "match", "pubeval", "random:seed=1", "-n", "10", "--seed", "11")
    assert code == 0 and "equity for pubeval" in out and "95% interval" in out


def test_bg_play_scripted(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("?\n24/10\n"))
    code, out, err = run(capsys, "bg", "play", "--seed", "1")
    assert code == 0, err
    assert "against pubeval" in out
    assert "24/18 18/13" in out  # the ? list (seed 1: the human's first roll is 6-5)
    assert "'24/10' is not a legal play with 6-5" in out
    assert "Game abandoned." in out
