"""Other programs' formats (sumito.games.abalone.interop): PlayStrategy's FEN and moves, AbaPro and Nacre moves.

The fixed examples come from the programs themselves: PlayStrategy's own tests (strategygames'
AbaloneForsythTest, AbaloneFenTest and AbaloneReplayTest) and a championship game published in
Aba-Pro notation. The rest are round trips over random positions and hostile input.
"""

import re

import numpy as np
import pytest

from sumito.cli import main
from sumito.games.abalone import Game, IllegalMoveError, NotationError, Position, PositionError
from sumito.games.abalone.interop import (
    AmbiguousMoveError,
    from_playstrategy_fen,
    is_playstrategy_fen,
    parse_foreign_move,
    parse_move_as,
    parse_playstrategy_move,
    playstrategy_fen,
    playstrategy_move,
    playstrategy_moves,
    read_playstrategy_fen,
)

from helpers import random_playout


def tokens(text):
    return tuple(text.split())


DAISY_FEN = "SS1ss/SSSsss/1SS1ss1/8/9/8/1ss1SS1/sssSSS/ss1SS 0 0 b 0 1"  # strategygames variant/Abalone.scala
# strategygames AbaloneReplayTest.scala, newest version (two games from the Belgian Daisy)
PS_GAME = tokens(
    "a1d4 i5f5 a2c4 a5d5 b3e6 h4f4 c2c7 c7d6 i9f6 h5e5 b1b3 b6b1 i8g6 b5b1 b1c2 g5b5 h9f7 f5a5 c2c6 g4f5 h8f8 d7d3"
)
PS_GAME_2 = ("a2a3", "c5a3", "a1d4")
# the same test game in an older version of that file: PlayStrategy's early keys (Nacre's axes and rule)
PS_GAME_EARLY = tokens(
    "a1d4 e9e6 b1d3 e1e4 c2e4 d8d6 b3e3 g3f4 i9f6 e8e5 a2c2 f2c2 h9f7 e2b2 a2b3 e7e4 i8g6 e6e3 b3e3 d7e6 h8h6 g4d4"
)
# Abalone World Championship 2015 final, "Aba-Pro notation" (abaloneonline.wordpress.com), Belgian Daisy
AWC_2015 = """1.a1b2 i5h5 2.a2b3 i6h6 3.b3c4 g4g5 4.i9h8 h6g6 5.c2c3 c6c7d6 6.g7g9f7 g5h5f4 7.b2c3 h4g4
8.h7i8h6 a4b4a3 9.e5d5 g4f4 10.b4b5 f4e4 11.c5b4 g6f5 12.f7f9e7 f5e5 13.b5b6c5 f6e5 14.a3b4a4 e6d6 15.e9e8 c6d6
16.b5c5 d7c6 17.b6b5 c6d6 18.h8h9g7 f5e4 19.b1a1 c2c3 20.g7g8f7 f6e6 21.a4b5 e4d4 22.g6h6g7 c3c4 23.c7b6 d7c6
24.g7i7f6 d4c4 25.a1b2 a4b5 26.f8f7 d7d6 27.g6g5 b4c4 28.e7f7 c6d6 29.h6g5 f6e6 30.g7g6 b3b4 31.g6f5 c2d2
32.b6c7 c6c5 33.f7f6 d2e3 34.c2d2 d6d5 35.f5e4 b5c5 36.d1d2 c5d5 37.d3e4 c2c3 38.e4d3 e3e4 39.d2d3 c3c4
40.e8e7 d6c5 41.c7d8 e4e5 42.d8e8 b4c4 43.g4f4 e7e6 44.e8f8e7 d7d6 45.e3f4 a3b3 46.d3d4 d7c6 47.h5g4 b3a3
48.g4g5 e4e5 49.e8f8 b4c4 50.g5g6 c6c5 51.d6d5 e7e6 52.h6g6 a3b4 53.d4d5 c3d4 54.d5d6 d8c7 55.e6d6 b4c5
56.e7d7 g8h8 57.f6g7 i9i8 58.f7g7"""


def daisy():
    return Position.start("belgian-daisy")


def transposed(token):
    """A token's cells in Nacre's axes (letter = diagonal, number = row)."""
    letters = "abcdefghijklmnopq"
    return "".join(f"{letters[int(n) - 1]}{letters.index(c) + 1}" for c, n in re.findall(r"([a-z])([0-9]+)", token))


def sample_positions(seed=7, plies=120):
    rng = np.random.default_rng(seed)
    out = []
    for layout in ("standard", "belgian-daisy", "german-daisy", "small", "mini"):
        out += random_playout(Position.start(layout), plies, rng)[::3]
    return out


# ====================================================================== FEN: PlayStrategy's own examples
def test_belgian_daisy_start_is_playstrategys_initial_fen():
    assert playstrategy_fen(daisy()) == DAISY_FEN
    assert from_playstrategy_fen(DAISY_FEN) == daisy()


def test_fen_after_three_plies_matches_strategygames_forsyth_test():
    # AbaloneForsythTest: from the start, (0,0)->(3,3), (4,8)->(4,5), (1,1)->(4,4); x = diagonal - 1, y = row
    expected = "1S1ss/S1Ssss/1SS1ss1/3S4/4S4/3s4/1ss1SS1/sssSSS/1s1SS 0 0 w 3 2"
    game = Game(daisy())
    for token in ("a1d4", "i5f5", "b2e5"):
        game.push(parse_playstrategy_move(game.position, token))
    assert playstrategy_fen(game) == expected  # the half-move clock counted from the game's moves
    assert playstrategy_fen(game.position, 3) == expected
    read = read_playstrategy_fen(expected)
    assert read.position == game.position and read.halfmove_clock == 3
    assert playstrategy_fen(game.position) == expected.replace(" 3 2", " 0 2")  # a position alone: clock 0


def test_fen_scores_count_the_opponents_marbles_pushed_off():
    # AbaloneFenTest: "a score of 5 for P1 and 3 for P2"; P1's marbles on the board + P2's score == 14. That
    # version wrote P1 in lower case ("5/6/2s4/2ssss2/2SSsS3/1SSSsss1/2s4/1SSs2/3S1 ..."); today's, upper case
    fen = "5/6/2S4/2SSSS2/2ssSs3/1sssSSS1/2S4/1ssS2/3s1 5 3 b 11 42"
    read = read_playstrategy_fen(fen)
    pos = read.position
    assert pos.lost == (3, 5)  # Black lost 3 (White's score), White lost 5 (Black's score)
    assert pos.marble_count(1) + 3 == 14 and pos.marble_count(2) + 5 == 14
    assert read.halfmove_clock == 11 and pos.move_number == 42 and pos.side_to_move == 1
    assert playstrategy_fen(pos, 11) == fen


def test_older_fens_with_move_number_0_and_a_one_move_turn_field():
    assert from_playstrategy_fen(DAISY_FEN.replace(" 0 1", " 0 0")) == daisy()  # PlayStrategy clamps to 1
    assert from_playstrategy_fen(DAISY_FEN + " 1") == daisy()
    with pytest.raises(PositionError, match="Grand Abalone"):
        from_playstrategy_fen(DAISY_FEN + " 2")
    grand = "SS2ss/SSS1sss/1SS2ss1/9/ss6SS/sss5SSS/ss6SS/9/1SS2ss1/SSS1sss/SS2ss 0 0 b 0 1"  # GrandAbalone.scala
    with pytest.raises(PositionError, match="Grand Abalone's hex-6 board"):
        from_playstrategy_fen(grand)


def test_fen_round_trips_over_random_positions():
    rng = np.random.default_rng(3)
    for pos in sample_positions():
        clock = int(rng.integers(0, 200))
        fen = playstrategy_fen(pos, clock)
        read = read_playstrategy_fen(fen)
        assert read.position == pos and read.halfmove_clock == clock
        assert playstrategy_fen(read.position, clock) == fen
        assert is_playstrategy_fen(fen) and not is_playstrategy_fen(pos.to_string())
        # the same board in both formats: rows reversed, S/s for b/w, the lost counts swapped and moved
        rows, side, lost_b, lost_w, _number = pos.to_string().split()
        ours_from_fen = "/".join(reversed(fen.split()[0].split("/"))).replace("S", "b").replace("s", "w")
        assert ours_from_fen == rows and fen.split()[1:4] == [lost_w, lost_b, side]


def test_variant_and_detection():
    pos = from_playstrategy_fen(DAISY_FEN, daisy().variant.with_options(win_threshold=3))
    assert pos.variant.win_threshold == 3
    empty_fen, empty_ours = "5/6/7/8/9/8/7/6/5 0 0 b 0 1", "5/6/7/8/9/8/7/6/5 b 0 0 1"
    assert is_playstrategy_fen(empty_fen) and not is_playstrategy_fen(empty_ours)
    assert from_playstrategy_fen(empty_fen) == Position.from_string(empty_ours)
    for text in ("", "xyz", "wwwww/wwwwww b 0 0 1 2", 12, None):
        assert not is_playstrategy_fen(text)


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "6 fields"),
        (DAISY_FEN.rsplit(" ", 1)[0], "6 fields"),
        (DAISY_FEN + " 1 1", "6 fields"),
        (DAISY_FEN.replace("sssSSS/", ""), "8 rows"),
        (DAISY_FEN.replace("SS1ss/", "SS1s/", 1), "row a .* has 4 cells, but that row has 5"),
        (DAISY_FEN.replace("1SS1ss1", "1Sx1ss1"), "row c: unexpected character 'x'"),
        (DAISY_FEN.replace("1SS1ss1", "1SP1ss1"), "unexpected character 'P'"),
        (DAISY_FEN.replace("/8/9/", "/8/00/"), "'00' is not a run"),
        (DAISY_FEN.replace("/8/9/", "/8/" + "9" * 500 + "/"), "'99999999...' is not a run"),
        (DAISY_FEN.replace(" b ", " x "), "side to move must be 'b' or 'w'"),
        (DAISY_FEN.replace(" 0 0 b", " -1 0 b"), "pushed off by Black must be a whole number"),
        (DAISY_FEN.replace(" 0 0 b", " 0 99 b"), "lost by Black must be at most 14"),
        (DAISY_FEN.replace(" 0 0 b", " 0 " + "9" * 50 + " b"), "pushed off by White must be from 0 to 99"),
        (DAISY_FEN.replace(" 0 1", " 0 " + "1" * 30), "move number must be from 0 to"),
        (DAISY_FEN.replace(" b 0 ", " b \u0663 "), "plies since the last push-off must be a whole number"),
        (DAISY_FEN + " " + "1" * 2000, "at most 1000 characters"),
    ],
)
def test_bad_fens_get_one_line_errors(text, message):
    with pytest.raises(PositionError, match=message) as info:
        read_playstrategy_fen(text)
    assert "\n" not in str(info.value) and str(info.value).startswith("PlayStrategy FEN:")


def test_fen_fuzz_gives_a_position_or_a_one_line_error():
    rng = np.random.default_rng(11)
    alphabet = [*"Ss0123456789/ bwx-", "\u00b2", "\n", "99", "S" * 20]
    bases = [playstrategy_fen(p) for p in sample_positions(seed=5, plies=40)[:20]] + [DAISY_FEN]
    for _ in range(1500):
        text = list(bases[rng.integers(len(bases))])
        for _ in range(int(rng.integers(1, 4))):
            i = int(rng.integers(len(text) + 1))
            op = rng.integers(3)
            if op == 0 and text:
                del text[min(i, len(text) - 1)]
            elif op == 1:
                text.insert(i, alphabet[rng.integers(len(alphabet))])
            elif text:
                text[min(i, len(text) - 1)] = alphabet[rng.integers(len(alphabet))]
        candidate = "".join(text)
        try:
            pos = from_playstrategy_fen(candidate)
        except PositionError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 300
        else:
            assert from_playstrategy_fen(playstrategy_fen(pos)) == pos


def test_non_text_fen_is_a_position_error():
    with pytest.raises(PositionError, match="expected text"):
        read_playstrategy_fen(None)


# ====================================================================== PlayStrategy moves
def test_playstrategy_replay_games():
    """Both games of strategygames' AbaloneReplayTest play through, each token naming one move that
    writes back to the same token; push-offs show with a mark as in the test's comments."""
    pos = daisy()
    shown = []
    for token in PS_GAME:
        move = parse_playstrategy_move(pos, token)
        assert playstrategy_move(pos, move) == token
        shown.append(playstrategy_move(pos, move, display=True))
        pos = pos.play(move)
    assert shown[13] == "b5×b1"  # "b5b1, // b5xb1"
    assert [s for s in shown if "×" in s] == ["b5×b1"]
    assert pos.lost == (1, 0)  # White pushed one Black marble off
    final = pos
    pos, played = daisy(), []
    for token in PS_GAME:
        played.append(parse_playstrategy_move(pos, token))
        pos = pos.play(played[-1])
    assert playstrategy_moves(daisy(), played) == list(PS_GAME)
    assert playstrategy_moves(daisy(), [m.notation() for m in played]) == list(PS_GAME)

    pos = daisy()
    for token in PS_GAME_2:
        pos = pos.play(parse_playstrategy_move(pos, token))
    assert pos.lost == (1, 0)
    after = daisy().play("a2a3")
    assert parse_playstrategy_move(after, "c5xa3") == parse_playstrategy_move(after, "c5a3")

    # the same test game in the older version of that file: Nacre's axes and Nacre's move rule
    pos = daisy()
    for token in PS_GAME_EARLY:
        pos = pos.play(parse_foreign_move(pos, token, axes="nacre"))
    assert pos == final


def test_playstrategy_examples_of_each_kind():
    pos = daisy()
    assert playstrategy_move(pos, "a1b2") == "a1d4"  # three marbles: the first empty cell past the line
    assert playstrategy_move(pos, "c2c3") == "c2c4"  # c2, c3 move: c3 lands on c4
    pos = Position.from_string("5/6/7/8/9/8/7/1bbw2/5 b 0 0 1")  # b2, b3 Black, b4 White
    assert playstrategy_move(pos, "b2b3") == "b2b5"  # a push: where the pushed marble lands
    edge = Position.from_string("5/6/7/8/9/8/7/3bbw/5 b 0 0 1")  # b4, b5 Black, b6 White on the edge
    assert playstrategy_move(edge, "b4b5") == "b4b6" and playstrategy_move(edge, "b4b5", display=True) == "b4×b6"
    side = Position.from_string("5/6/7/8/9/8/7/6/bbb2 b 0 0 1")  # a1, a2, a3
    assert playstrategy_move(side, "a1a3b1") == "a3b1"  # from a3 (NW is 60 degrees off a3->a1); a1 lands on b1
    assert playstrategy_move(side, "a1a3b2") == "a1b4"  # from a1 (NE is 60 degrees off a1->a3); a3 lands on b4
    assert parse_playstrategy_move(side, "a3b1") == side.parse_move("a3a1b3") and side.parse_move("a1b1").count == 1


def test_every_legal_move_round_trips_in_every_notation():
    for pos in sample_positions()[::2]:
        moves = pos.legal_moves()
        stored = [playstrategy_move(pos, m) for m in moves]
        assert len(set(stored)) == len(moves)  # PlayStrategy's notation is one-to-one
        for move, token in zip(moves, stored):
            assert parse_playstrategy_move(pos, token) == move
            assert parse_playstrategy_move(pos, playstrategy_move(pos, move, display=True)) == move
            assert parse_move_as(pos, token, "playstrategy") == move
            tokens = {move.notation(), move.notation().upper(), token}  # AbaPro (Sumito), PlayStrategy
            if move.is_inline:
                tokens.add(move.marbles[0] + move.destinations[-1])  # Nacre: FromFirst, ToLast
            else:
                tokens.add(move.marbles[-1] + move.marbles[0] + move.destinations[-1])  # AbaPro, the other end first
            for text in tokens:
                assert parse_foreign_move(pos, text) == move, text
                assert parse_foreign_move(pos, transposed(text.lower()), axes="nacre") == move, text
                assert parse_move_as(pos, text, "auto") == move
            if move.is_push_off:
                assert parse_foreign_move(pos, token[:2] + "x" + token[2:]) == move


def test_a_token_names_one_move_in_one_system_but_either_system_can_be_ambiguous():
    start = Position.start()
    assert parse_foreign_move(start, "b1c2") == start.parse_move("b1c2")
    assert parse_foreign_move(start, "b1c2", axes="nacre") == start.parse_move("a2b3")
    with pytest.raises(AmbiguousMoveError) as info:
        parse_foreign_move(start, "B1-C2", axes="either")
    message = str(info.value)
    assert "\n" not in message and message.startswith("B1-C2 is ambiguous: it names 2 legal moves")
    assert "b1c2 (inline: b1 to c2)" in message and "a2b3 (inline: a2, b3, c4 to b3, c4, d5)" in message
    assert set(info.value.candidates) == {start.parse_move("b1c2"), start.parse_move("a2b3")}
    assert isinstance(info.value, NotationError)
    assert parse_foreign_move(start, "a1b2", axes="either") == start.parse_move("a1b2")  # a1, b2 map to themselves


def test_either_axes_over_random_positions():
    """With ``either``, a token is read, or refused listing exactly the moves its two readings name."""
    ambiguous = 0
    for pos in sample_positions(seed=9, plies=60)[:40]:
        for move in pos.legal_moves():
            try:
                assert parse_foreign_move(pos, move.notation(), axes="either") == move
            except AmbiguousMoveError as exc:
                ambiguous += 1
                assert move in exc.candidates and len(exc.candidates) == 2
    assert ambiguous > 0


def test_abapro_championship_game():
    tokens = [t for t in re.sub(r"\d+\.", " ", AWC_2015).split()]
    assert len(tokens) == 115
    pos = daisy()
    for token in tokens:
        move = parse_foreign_move(pos, token)
        assert move == pos.parse_move(token)
        pos = pos.play(move)
    assert pos.lost == (1, 5)


@pytest.mark.parametrize(
    "text,error,message",
    [
        ("", NotationError, "is not a move"),
        ("a1", NotationError, "is not a move"),
        ("a1b2c3d4", NotationError, "is not a move"),
        ("a1xxb2", NotationError, "is not a move"),
        ("z1a1", NotationError, "no cell z1 on the standard board"),
        ("e9e6", IllegalMoveError, "no marble on e9"),
        ("a1d5", IllegalMoveError, "no legal move of Black's marbles from a1"),
        ("i5f5", IllegalMoveError, "White's and Black is to move"),
        ("c2xc4", IllegalMoveError, "marked as a push-off, but c2c3 pushes no marble off"),
        ("a1a3b2", NotationError, "two cells"),
        ("a" * 5000, NotationError, "5,000 characters"),
    ],
)
def test_bad_playstrategy_moves(text, error, message):
    with pytest.raises(error, match=message) as info:
        parse_playstrategy_move(daisy(), text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text,axes,message",
    [
        ("", "standard", "is not a move"),
        ("a1a2a3a4", "standard", "is not a move"),
        ("z1a1", "standard", "no cell z1 on the standard board"),
        ("a9a1", "nacre", "no cell a9 in Nacre's axes"),
        ("a1b2b3", "standard", "not the ends of a line|not next to"),
        ("e5e6", "standard", "no marble on e5"),
        ("i5h5", "standard", "White's and Black is to move"),
        ("a1c4", "standard", "no legal move of Black's marbles from a1"),
        ("d5e6", "either", "nor does it name a legal move in Nacre's axes"),
    ],
)
def test_bad_foreign_moves(text, axes, message):
    with pytest.raises(NotationError, match=message) as info:
        parse_foreign_move(Position.start(), text, axes=axes)
    assert "\n" not in str(info.value)


def test_move_fuzz_gives_a_move_or_a_one_line_error():
    rng = np.random.default_rng(5)
    pieces = ["a1", "b2", "c3", "e5", "i9", "j1", "a0", "x", "×", "-", " ", "9", "A", "z", "\u0663", "\n", "b1"]
    positions = sample_positions(seed=13, plies=40)[:15]
    for _ in range(1500):
        text = "".join(pieces[rng.integers(len(pieces))] for _ in range(int(rng.integers(0, 5))))
        pos = positions[rng.integers(len(positions))]
        axes = ("standard", "nacre", "either")[rng.integers(3)]
        for read, kwargs in ((parse_playstrategy_move, {}), (parse_foreign_move, {"axes": axes})):
            try:
                move = read(pos, text, **kwargs)
            except NotationError as exc:
                assert "\n" not in str(exc)
            else:
                assert pos.is_legal(move)


def test_wrong_arguments():
    pos = Position.start()
    with pytest.raises(ValueError, match="axes must be one of"):
        parse_foreign_move(pos, "a1b2", axes="sideways")
    with pytest.raises(ValueError, match="notation must be one of"):
        parse_move_as(pos, "a1b2", "pgn")
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        playstrategy_move(pos, pos.play("a1b2").legal_moves()[0])
    with pytest.raises(NotationError, match="move 2: a1b2 is not legal"):
        playstrategy_moves(pos, ["a1b2", "a1b2"])
    with pytest.raises(NotationError, match="a move is text"):
        parse_playstrategy_move(pos, 12)
    with pytest.raises(ValueError, match="halfmove_clock"):
        playstrategy_fen(pos, -1)


def test_won_position_has_no_moves_to_read():
    won = Position.from_string("5/6/7/8/9/8/7/6/bb3 w 0 6 9")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        parse_foreign_move(won, "a1a2")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        parse_playstrategy_move(won, "a2a3")


# ====================================================================== the command line
def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_reads_a_playstrategy_fen_and_moves(capsys):
    code, out, _ = run(capsys, "show", "--position", DAISY_FEN, "--moves", "a1d4", "i5f5", "--notation", "playstrategy")
    assert code == 0
    assert daisy().play("a1b2").play("i5h5").to_string() in out
    code, out2, _ = run(capsys, "show", "--layout", "belgian-daisy", "--moves", "a1b2", "i5h5")
    assert code == 0 and out2 == out
    code, out3, _ = run(capsys, "show", "--position", DAISY_FEN, "--moves", "a1d4", "i5f5", "--notation", "auto")
    assert code == 0 and out3 == out
    code, out, _ = run(capsys, "moves", "--position", playstrategy_fen(daisy()), "--win", "3")
    assert code == 0 and set(out.split()) == {m.notation() for m in daisy().legal_moves()}


@pytest.mark.parametrize(
    "argv,message",
    [
        (["show", "--position", DAISY_FEN.replace("1SS1ss1", "1Sx1ss1")], "PlayStrategy FEN: row c: unexpected"),
        (["show", "--position", DAISY_FEN.rsplit(" ", 1)[0]], "PlayStrategy FEN: 6 fields"),
        (["show", "--notation", "playstrategy", "--moves", "a1d4", "a1d4"], "move 2: a1d4 is not legal"),
        (["show", "--notation", "auto", "--moves", "b1c2", "zz"], "move 2: 'zz' is not a move"),
        (["show", "--moves", "a1b2", "--notation", "nacre"], "invalid choice: 'nacre'"),
    ],
)
def test_cli_errors(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code != 0 and re.search(message, err), err
    assert len(err.strip().splitlines()) <= 2  # usage line from argparse at most, then the one-line error
