"""The ``human`` player and ``sumito play``, with scripted input."""

import io
import re

import pytest

from sumito.arena.db import GameArchive
from sumito.cli import main
from sumito.games.abalone import BLACK, Game, Position, read_records, render
from sumito.players import make_player, parse_spec, player_names
from sumito.players.base import _REGISTRY, PlayerKind


def human_module():
    """``sumito.players.human``, imported once the built-in players are registered."""
    player_names()
    from sumito.players import human

    return human


def play(monkeypatch, capsys, script, *argv):
    """``(exit code, stdout, stderr)`` of ``sumito play argv`` with ``script`` as the typed input."""
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    code = main(["play", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def last_line(text):
    return text.strip().splitlines()[-1]


# ------------------------------------------------------------------ the human player
def test_human_is_a_registered_player():
    assert "human" in player_names()
    kind, options = parse_spec("human:board=no,hint=random:seed=2")
    assert kind.name == "human"
    assert options == {"board": False, "hint": "random:seed=2"}
    player = make_player("human")
    assert player.name == "human" and player.board is True


def human(script, **options):
    out = io.StringIO()
    player = human_module().HumanPlayer(io.StringIO(script), out, **options)
    return player, out


def test_human_reads_a_move_and_draws_the_board():
    player, out = human("c3d3\n")
    move = player.choose(Position.start())
    assert move.notation() == "c3d3"
    text = out.getvalue()
    assert "i O O O O O" in text
    assert "Black to move, move 1. Lost: Black 0, White 0" in text
    assert text.rstrip().endswith("Black>")


def test_human_accepts_either_end_first_and_spaces():
    player, _ = human("  C5C3D6 \n")
    assert player.choose(Position.start()).notation() == "c3c5d4"[:0] + Position.start().parse_move("c5c3d6").notation()


def test_human_explains_bad_moves_and_asks_again():
    player, out = human("e4e5\nzz\nj1j2\na1a3\nc3d3\n")
    assert player.choose(Position.start()).notation() == "c3d3"
    text = out.getvalue()
    assert "e4e5 is not legal: there is no marble on e4" in text
    assert "'zz' is not a move" in text
    assert "there is no cell j1" in text
    assert "a1 and a3 are not neighbours" in text
    assert text.count("Black>") == 5


def test_human_commands():
    player, out = human("\nhelp\nmoves\nboard\nhint\nc3d3\n", board=False, hint="random:seed=4")
    player.choose(Position.start())
    text = out.getvalue()
    assert "Commands:" in text
    assert "44 legal moves:" in text and "c3c5d4" in text
    assert "i O O O O O" in text  # only from 'board': board=no draws nothing by itself
    assert text.count("i O O O O O") == 1
    assert "hint (random:seed=4): " in text


@pytest.mark.parametrize(
    ("opponent", "movetime", "hint"),
    [
        (None, None, "engine:nnue=builtin-nnue,time=1"),  # a person: the learned engine's second
        ("engine:time=3,nnue=none", None, "engine:nnue=builtin-nnue,time=3"),  # at least the opponent's time
        ("engine", None, "engine:nnue=builtin-nnue,time=1"),  # an engine's default second
        ("engine:depth=7", None, "engine:nnue=builtin-nnue,depth=7"),  # its depth, unclocked as it is
        ("engine:depth=7", 2.0, "engine:nnue=builtin-nnue,time=2,depth=7"),  # ... on the game's clock
        ("engine:time=0.2,depth=3", None, "engine:nnue=builtin-nnue,time=1,depth=3"),
        ("greedy", None, "engine:nnue=builtin-nnue,time=1"),  # another player: the learned engine's second
        ("alphalone:time=4", None, "engine:nnue=builtin-nnue,time=4"),
    ],
)
def test_the_hint_is_the_learned_engine_at_least_as_strong_as_the_opponent(opponent, movetime, hint):
    from sumito.players.strongest import hint_spec

    assert hint_spec(opponent, movetime=movetime) == hint


def test_sumito_play_hints_with_the_learned_engine_to_the_opponents_depth(monkeypatch, capsys):
    code, out, err = play(monkeypatch, capsys, "hint\nresign\n", "--opponent", "engine:depth=1,eval=linear",
                          "--layout", "mini")
    assert code == 0, err
    assert "hint (engine:depth=1,nnue=builtin-nnue): " in out  # not the hand-set engine the opponent is


def test_hint_with_a_bad_spec_does_not_crash():
    player, out = human("hint\nc3d3\n", hint="bogus")
    player.choose(Position.start())
    assert "no hint: unknown player 'bogus'" in out.getvalue()


@pytest.mark.parametrize(
    "script,exception,message",
    [
        ("resign\n", "Resign", "Black resigns"),
        ("quit\n", "Quit", "Black quits"),
        ("e4e5\n", "Quit", "end of input"),
        ("", "Quit", "end of input"),
    ],
)
def test_human_resigns_or_quits(script, exception, message):
    mod = human_module()
    player, _ = human(script)
    with pytest.raises(getattr(mod, exception), match=message) as info:
        player.choose(Position.start())
    assert info.value.color == BLACK
    assert isinstance(info.value, mod.HumanExit)


def test_human_shows_the_last_move_from_the_game():
    game = Game("standard")
    game.push("c3d3")
    player, out = human("g7f7\n")
    player.game = game
    player.choose(game.position)
    assert "Last move: Black c3d3" in out.getvalue()


def test_human_works_out_the_opponents_move_without_the_game():
    player, out = human("c3d3\na1b1\n")
    pos = Position.start()
    pos = pos.play(player.choose(pos)).play("g6g7f5")
    player.choose(pos)
    assert "Last move: White g6g7f5" in out.getvalue()


# ------------------------------------------------------------------ sumito play
def test_play_human_against_random_to_the_end(monkeypatch, capsys, tmp_path):
    path = tmp_path / "game.txt"
    script = "e4e5\nhelp\nc3d3\nzz\na1b1\n"
    code, out, err = play(
        monkeypatch, capsys, script, "--white", "random:seed=7", "--max-plies", "4", "--out", str(path)
    )
    assert code == 0, err
    assert "Black: human   White: random:seed=7" in out
    assert "e4e5 is not legal: there is no marble on e4" in out
    assert "'zz' is not a move" in out
    assert "Black plays c3d3" in out and "Black plays a1b1" in out
    assert "Last move: White " in out
    assert "Result: 1/2-1/2, draw (ply-cap) after 4 plies" in out
    (record,) = read_records(path)
    assert record.tags["Black"] == "human" and record.tags["White"] == "random:seed=7"
    assert record.result == "1/2-1/2" and record.tags["Reason"] == "ply-cap"
    assert [m.notation() for m in record.game.moves][::2] == ["c3d3", "a1b1"]


def test_play_final_board_and_record(monkeypatch, capsys, tmp_path):
    path = tmp_path / "g.txt"
    code, out, _ = play(monkeypatch, capsys, "c3d3\n", "--max-plies", "2", "--out", str(path))
    assert code == 0
    final = read_records(path)[0].game.position
    assert out.count("i O O O O O") >= 1
    assert "Black to move, move 2." in out  # the final board
    assert final.move_number == 2
    assert f"Record written to {path}" in out


def test_play_as_white_with_opponent(monkeypatch, capsys):
    code, out, err = play(
        monkeypatch, capsys, "i5h5\n", "--opponent", "random:seed=3", "--color", "white", "--max-plies", "2"
    )
    assert code == 0, err
    assert "Black: random:seed=3   White: human" in out
    assert "White plays i5h5" in out
    assert "Result: 1/2-1/2, draw (ply-cap) after 2 plies" in out


def test_play_color_alone_plays_against_the_strongest_engine(monkeypatch, capsys):
    code, out, _ = play(monkeypatch, capsys, "resign\n", "--color", "white", "--max-plies", "2")
    assert code == 0
    assert "Black: engine:nnue=builtin-nnue   White: human" in out
    assert "White resigns" in out
    assert "Result: 1-0, Black wins (resignation) after 1 plies" in out


@pytest.mark.parametrize(
    "script,said",
    [("resign\n", "Black resigns"), ("quit\n", "Black quits"), ("", "end of input"), ("e4e5\n", "end of input")],
)
def test_play_resign_quit_and_end_of_input(monkeypatch, capsys, tmp_path, script, said):
    path = tmp_path / "g.txt"
    code, out, err = play(monkeypatch, capsys, script, "--layout", "mini", "--out", str(path))
    assert code == 0, err
    assert said in out
    assert last_line(out.split("Stored as game")[0]) == "Result: 0-1, White wins (resignation) after 0 plies"
    (record,) = read_records(path)
    assert record.result == "0-1" and record.tags["Reason"] == "resignation"
    assert record.tags["Layout"] == "mini"


def test_play_position_options(monkeypatch, capsys):
    pos = Position.start("mini", win_threshold=1, inline_only=True).play("a2b3").play("e5d4")
    move = pos.legal_moves()[0].notation()
    code, out, err = play(
        monkeypatch, capsys, move + "\n", "--layout", "mini", "--inline-only", "--win", "1", "--moves", "a2b3", "e5d4",
        "--max-plies", "1",
    )
    assert code == 0, err
    assert "(of 1 to lose)" in out
    assert f"Black plays {move}" in out
    assert "after 1 plies" in out


def test_play_two_computer_players(monkeypatch, capsys, tmp_path):
    path = tmp_path / "g.txt"
    code, out, err = play(
        monkeypatch, capsys, "", "--black", "random:seed=1", "--white", "random:seed=2", "--layout", "mini",
        "--out", str(path),
    )
    assert code == 0, err
    (record,) = read_records(path)
    outcome = record.game.outcome()
    assert f"Result: {outcome.result}, {outcome.describe()} after {record.game.plies} plies" in out
    assert out.count(" plays ") == record.game.plies


def test_play_passes_movetime_to_computer_players(monkeypatch, capsys):
    player_names()
    seen = []

    class Probe:
        name = "probe"

        def choose(self, position, movetime=None, history=None, draw=None):
            seen.append(movetime)
            return position.legal_moves()[0]

    monkeypatch.setitem(_REGISTRY, "probe", PlayerKind("probe", Probe, {}, "test player"))
    code, _, err = play(
        monkeypatch, capsys, "c3d3\n", "--white", "probe", "--black", "probe", "--max-plies", "3", "--movetime", "0.25"
    )
    assert code == 0, err
    assert seen == [0.25, 0.25, 0.25]
    code, _, _ = play(monkeypatch, capsys, "c3d3\n", "--white", "probe", "--max-plies", "2")
    assert code == 0
    assert seen[-1] is None


def test_play_draw_rule_options(monkeypatch, capsys):
    # two humans take turns reading the same script
    cycle = "c3d3\ng7f7\nd3c3\nf7g7\n"
    code, out, err = play(monkeypatch, capsys, cycle, "--white", "human", "--repetitions", "2", "--max-plies", "0")
    assert code == 0, err
    assert "Result: 1/2-1/2, draw (repetition) after 4 plies" in out
    code, out, err = play(monkeypatch, capsys, cycle, "--white", "human", "--no-capture", "2")
    assert code == 0, err
    assert "Result: 1/2-1/2, draw (no-capture) after 2 plies" in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--black", "human", "--opponent", "random"], "use either --black/--white or --opponent/--color"),
        (["--white", "bogus"], "unknown player 'bogus'"),
        (["--movetime", "0"], "--movetime must be more than 0"),
        (["--layout", "nowhere"], "unknown layout 'nowhere'"),
        (["--moves", "e4e5"], "e4e5 is not legal"),
    ],
)
def test_play_bad_options(monkeypatch, capsys, argv, message):
    code, _, err = play(monkeypatch, capsys, "", *argv)
    assert code == 2
    assert message in err


# ------------------------------------------------------------------ undo, redo, the board's side, the archive
def test_undo_takes_back_the_humans_move_and_the_reply_and_redo_plays_them_again(monkeypatch, capsys, tmp_path):
    db = tmp_path / "games.sqlite"
    script = "undo\na1b2\nundo\nredo\nredo\nundo\nb2c3\nredo\nresign\n"
    code, out, err = play(monkeypatch, capsys, script, "--white", "random:seed=7", "--layout", "mini", "--db", str(db))
    assert code == 0, err
    said = [line[len("Black> "):] for line in out.splitlines()
            if line.startswith("Black> ") and line[len("Black> "):] and not re.match(r"Black> \w+ plays [a-i]\d", line)]
    assert said[:5] == ["nothing to undo", "Black takes back 2 plies (redo plays them again)",
                        "Black plays again 2 plies taken back", "nothing to redo",
                        "Black takes back 2 plies (redo plays them again)"]
    assert said[5] == "nothing to redo"  # b2c3 was played after the undo: the plies taken back are gone
    with GameArchive(db, create=False) as archive:
        (stored,) = archive.games()
    record = stored.to_record()
    assert record.game.moves[0].notation() == "b2c3"  # the game as played in the end, not the moves undone
    assert stored.black == "human" and stored.white == "random:seed=7" and stored.result == "0-1"
    assert f"Stored as game {stored.id} in {db}" in out


def test_undo_for_white_before_its_first_move_has_nothing_to_take_back(monkeypatch, capsys):
    code, out, _ = play(monkeypatch, capsys, "undo\nresign\n", "--opponent", "random:seed=3", "--color", "white",
                        "--layout", "mini", "--no-db")
    assert code == 0
    assert "White> nothing to undo" in out
    assert "Stored as game" not in out


def test_whites_player_sees_the_board_from_whites_side_and_flip_turns_it(monkeypatch, capsys):
    start = Position.start("mini")
    code, out, _ = play(monkeypatch, capsys, "flip\nresign\n", "--opponent", "random:seed=3", "--color", "white",
                        "--layout", "mini", "--no-db")
    assert code == 0
    after_black = out.split("White> ")[0]
    assert render(start, flipped=True).splitlines()[0] in after_black  # White's view: row a's numbers on top
    assert "  4 @ @ @ a" not in render(start)  # (the two views differ)
    turned = out.split("White> ")[1]
    assert "     1 2 3" in turned  # flip: Black's view again, the diagonal numbers along the bottom


def test_a_flipped_board_is_the_same_board_turned_half_a_circle():
    for layout in ("mini", "small", "standard"):
        pos = Position.start(layout).play(Position.start(layout).legal_moves()[5])
        plain, flipped = render(pos).splitlines(), render(pos, flipped=True).splitlines()
        # the same cells row by row, in the opposite order
        rows = [line.split() for line in plain[:-3]]
        turned = [line.split() for line in flipped[1:-2]]
        marbles = [[c for c in row if c in ".@O"] for row in rows]
        marbles_turned = [[c for c in row if c in ".@O"] for row in turned]
        assert marbles_turned == [row[::-1] for row in marbles[::-1]]
        assert plain[-1] == flipped[-1]  # the same line about the game


def test_plies_to_undo_goes_back_to_the_players_last_turn():
    game = Game(Position.start("mini"))
    assert game.plies_since_turn(BLACK) is None
    for _ in range(4):
        game.push(game.position.legal_moves()[0])
    assert game.plies_since_turn(BLACK) == 2  # at Black's turn: its last move and White's reply
    assert game.plies_since_turn(3 - BLACK) == 1


def test_a_player_that_cannot_play_the_board_is_refused_before_the_game(monkeypatch, capsys):
    code, out, err = play(monkeypatch, capsys, "resign\n", "--opponent", "perfect", "--no-db")
    assert code != 0
    assert err.count("\n") == 1 and "perfect" in err and "no solved table" in err
    assert "Black>" not in out  # no move was asked for
