"""``sumito analyse`` and :mod:`sumito.analysis`: best moves of a position, a game's moves scored."""

import json

import pytest

from sumito.analysis import AnalysisError, Score, analyse_game, analyse_position, shown_loss, throws_game, verdict
from sumito.cli import main
from sumito.defaults import THRESHOLDS
from sumito.games.abalone import Game, GameRecord, Move, Position, write_records
from sumito.players import make_player
from sumito.search.context import WIN

from helpers import position_with

# Black to move; White's f5-g5-h5 threaten to push i5 off. Moving i5 away holds; anything else
# hangs it (White then pushes it off with f5g5 or g5h5): a planted blunder. Three marbles a side is
# nothing like the games the shipped NNUE learned from, so these games are scored by the hand-set
# evaluation, which counts the hung marble as the marble it is.
HAND_SET = "engine:nnue=none"
THREAT = position_with(["i5", "a1", "a2"], ["f5", "g5", "h5"])


def planted_game() -> Game:
    game = Game(THREAT)
    for move in ("a1b1", "f5g5"):  # the blunder, then White takes the marble
        game.push(move)
    return game


# ------------------------------------------------------------------ scores
def test_scores_in_marbles_and_forced_results():
    assert Score(1250.0).text() == "+1.25" and Score(-30.0).text() == "-0.03"
    assert Score(1250.0).uci() == "cp 125" and Score(1250.0).marbles == 1.25
    assert Score(WIN - 3).text() == "wins in 2" and Score(WIN - 3).uci() == "mate 2"
    assert Score(-(WIN - 2)).text() == "loses in 1" and Score(-(WIN - 2)).uci() == "mate -1"
    assert Score(WIN - 1).marbles == 6 and Score(-(WIN - 4)).marbles == -6  # the standard board's win
    assert Score(WIN - 1, win=2).marbles == 2 and Score(3500.0, win=2).marbles == 2  # no score beyond a won game
    assert Score(WIN - 1).to_dict() == {"marbles": None, "mate": 1, "text": "wins in 1"}
    assert Score(12.0, marble=1.0, unit="points").text() == "+12.00"


def test_verdicts():
    assert verdict(0.0, True) == "best" and verdict(0.05, False) == "good"
    assert verdict(0.1, False) == "inaccuracy" and verdict(0.5, False) == "mistake"
    assert verdict(0.8, False) == "blunder" and verdict(12.0, False) == "blunder"
    assert [name for name, _ in THRESHOLDS] == ["blunder", "mistake", "inaccuracy"]  # worst first


def test_a_verdict_judges_the_loss_as_shown():
    # a loss printed "0.30" is a mistake however it was rounded; one printed "0.29" is not
    assert shown_loss(0.2961) == 0.3 and verdict(0.2961, False) == "mistake"
    assert shown_loss(0.2949) == 0.29 and verdict(0.2949, False) == "inaccuracy"
    assert verdict(0.0951, False) == "inaccuracy" and verdict(0.7951, False) == "blunder"
    assert verdict(0.0949, False) == "good"


def test_a_move_that_throws_the_game_is_a_blunder_whatever_its_loss():
    lost, nearly_lost = Score(-(WIN - 2)), Score(-5_900.0)  # lost in one; 5.9 marbles down
    assert lost.mate == -1 and nearly_lost.mate is None
    assert throws_game(nearly_lost, lost) and verdict(0.1, False, thrown=True) == "blunder"
    assert throws_game(Score(WIN - 1), Score(300.0))  # a win let go
    assert throws_game(Score(0.0), Score(-WIN))  # lost on the board (mate 0)
    assert not throws_game(lost, lost)  # lost already
    assert not throws_game(Score(WIN - 1), Score(WIN - 3))  # a slower win
    assert not throws_game(Score(300.0), Score(-200.0))  # a loss, not a lost game


# the mini board, 2 marbles to win, Black one down: a3b4 lets White push off the second (d4c4)
MINI_LAST_MARBLE = "2w/2wb/2bww/w1b1/2b b 1 0 10"


def test_a_game_on_the_mini_board_is_scored_in_its_own_marbles():
    game = Game(Position.from_string(MINI_LAST_MARBLE))
    for move in ("a3b4", "d4c4"):
        game.push(move)
    first, second = analyse_game(game, depth=3).reviews
    # a lost game is 2 marbles down on this board, not 10: the loss is the marble or so that Black
    # had left to give, not "9 marbles" (which the board does not even hold)
    assert first.played_score.mate == -1 and first.played_score.marbles == -2.0
    assert first.verdict == "blunder" and 0.8 <= first.loss <= 4.0
    assert second.best_score.marbles == second.played_score.marbles == 2.0


# ------------------------------------------------------------------ positions
def test_analyse_position_gives_the_best_moves_in_order():
    pos = Position.start("belgian-daisy")
    result = analyse_position(pos, depth=4, top=3)
    assert result.depth == 4 and result.side == "Black" and len(result.lines) == 3
    scores = [line.score.points for line in result.lines]
    assert scores == sorted(scores, reverse=True)
    assert len({line.move for line in result.lines}) == 3
    for line in result.lines:
        assert line.pv[0] == line.move
        after = pos
        for move in line.pv:  # every line is legal in notation
            after = after.play(move)
    # the top line is the move `go depth 4` plays
    assert result.best.move == make_player("engine:depth=4").choose(pos).notation()


def test_analyse_depth_is_the_same_search_as_go_depth():
    """Same depth, same nodes (so the same time, within noise) as the engine playing at that depth."""
    pos = Position.start("standard").play("a1b2").play("i5h5")
    player = make_player("engine:depth=5")
    player.choose(pos)
    result = analyse_position(pos, depth=5)
    assert (result.depth, result.nodes) == (player.last.depth, player.last.nodes)
    assert result.best.move == Move(player.last.move, pos.variant.side).notation()
    assert result.best.score.points == player.last.score


def test_a_won_position_scores_wins_in_one():
    pos = position_with(["g5", "h5", "f5"], ["i5", "a1", "a2"], lost=(0, 5))
    result = analyse_position(pos, depth=3, top=2)
    assert result.best.score.text() == "wins in 1" and result.best.score.mate == 1
    assert pos.play(result.best.move).winner() == 1


def test_a_finished_position_is_not_searched():
    won = position_with(["a1", "a2"], ["i5"], lost=(0, 6))
    result = analyse_position(won, depth=3)
    assert result.lines == () and result.over == "Black wins"
    assert "game over: Black wins" in result.to_text()


def test_analysis_errors():
    with pytest.raises(AnalysisError, match="needs an engine spec"):
        analyse_position(Position.start(), depth=2, engine="random")
    with pytest.raises(AnalysisError, match="top must be from 1 to 256"):
        analyse_position(Position.start(), depth=2, top=0)
    with pytest.raises(AnalysisError, match="depth must be from 1 to 64"):
        analyse_position(Position.start(), depth=0)


def test_on_iteration_sees_every_iteration():
    seen = []
    analyse_position(Position.start("belgian-daisy"), depth=4, top=2, on_iteration=seen.append)
    assert [r.depth for r in seen] == [1, 2, 3, 4] and all(len(r.lines) == 2 for r in seen)


# ------------------------------------------------------------------ the command, a position
def test_cli_analyse_text(capsys):
    assert main(["analyse", "--layout", "belgian-daisy", "--depth", "4", "--top", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "position " + Position.start("belgian-daisy").to_string()
    assert lines[1].startswith("Black to move; scores in marbles for Black; depth 4,")
    assert [line.split()[0] for line in lines[2:]] == ["1.", "2."]
    first = lines[2].split()
    assert first[2].startswith(("+", "-")) and first[3] == first[1]  # move, score, then the line from it


def test_cli_analyse_json_after_moves(capsys):
    assert main(["analyse", "--moves", "a1b2", "i5h5", "--depth", "3", "--top", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    pos = Position.start().play("a1b2").play("i5h5")
    assert data["position"] == pos.to_string() and data["side"] == "Black" and data["depth"] == 3
    assert data["unit"] == "marbles" and data["over"] is None and len(data["lines"]) == 3
    for line in data["lines"]:
        assert set(line) == {"move", "score", "pv"} and line["pv"][0] == line["move"]
        assert set(line["score"]) == {"marbles", "mate", "text"} and isinstance(line["score"]["marbles"], float)
        pos.parse_move(line["move"])


def test_cli_analyse_time(capsys):
    assert main(["analyse", "--layout", "mini", "--time", "0.3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["depth"] >= 2 and data["seconds"] < 1.5


# ------------------------------------------------------------------ games
def test_record_analysis_finds_the_planted_blunder(tmp_path, capsys):
    path = tmp_path / "game.txt"
    write_records(path, [GameRecord.from_game(planted_game(), Black="me", White="engine")])
    assert main(["analyse", str(path), "--depth", "3", "--json", "--engine", HAND_SET]) == 0
    data = json.loads(capsys.readouterr().out)
    first, second = data["moves"]
    assert (first["ply"], first["side"], first["played"]) == (1, "Black", "a1b1")
    assert first["verdict"] == "blunder" and first["loss"] >= 0.8
    assert first["best"].startswith("i5")  # the threatened marble steps away
    assert first["played_score"]["marbles"] < first["best_score"]["marbles"] - 0.8
    assert second["played"] == "f5g5" and second["verdict"] in ("best", "good")  # taking it is right
    assert data["summary"]["Black"]["blunders"] == 1 and data["summary"]["Black"]["worst"] == [1]
    assert data["summary"]["White"]["blunders"] == 0
    assert data["tags"]["Black"] == "me" and data["thresholds"]["blunder"] == 0.8


def test_record_analysis_text(tmp_path, capsys):
    path = tmp_path / "game.txt"
    write_records(path, [GameRecord.from_game(planted_game(), Black="me", White="engine")])
    assert main(["analyse", str(path), "--depth", "3", "--engine", HAND_SET]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("me (Black) vs engine (White), *")
    assert lines[1].split()[:2] == ["1.", "a1b1"] and lines[1].endswith("blunder") and "best i5" in lines[1]
    assert lines[2].split()[:2] == ["1...", "f5g5"]
    assert lines[3].startswith("Black: 1 moves,") and "1 blunders" in lines[3] and "plies 1" in lines[3]
    assert lines[4].startswith("White: 1 moves, 0 inaccuracies, 0 mistakes, 0 blunders")


def test_analyse_game_reports_each_move_as_it_goes():
    seen = []
    done = analyse_game(planted_game(), depth=2, on_move=seen.append, engine=HAND_SET)
    assert [r.ply for r in seen] == [1, 2] and list(done.reviews) == seen
    assert done.reviews[0].verdict == "blunder" and done.reviews[0].depth == 2


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--layout", "mini"], "give a RECORD file or a position"),
        (["--top", "2"], "--top is for a position"),
        (["--game", "2"], "holds 1 game(s); there is no game 2"),
    ],
)
def test_record_analysis_errors(tmp_path, capsys, argv, message):
    path = tmp_path / "game.txt"
    write_records(path, [GameRecord.from_game(planted_game())])
    assert main(["analyse", str(path), "--depth", "2", *argv]) == 2
    assert message in capsys.readouterr().err


def test_cli_analyse_errors(capsys):
    assert main(["analyse", "--engine", "random", "--depth", "2"]) == 2
    assert "needs an engine spec" in capsys.readouterr().err
    assert main(["analyse", "--depth", "2", "--time", "1"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert main(["analyse", "--game", "2", "--depth", "2"]) == 2
    assert "--game picks a game of a RECORD file" in capsys.readouterr().err
