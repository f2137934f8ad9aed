"""Game records: writing and reading back (round trips), several records a file, and bad records."""

import numpy as np
import pytest

from sumito.games.abalone import (
    BLACK,
    WHITE,
    DrawRules,
    Game,
    GameRecord,
    Position,
    RecordError,
    parse_records,
    read_records,
    write_records,
)

STANDARD_WHITE_TO_MOVE = "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb w 0 0 1"


def random_game(start="mini", rules=None, seed=0, max_plies=None):
    """A game of uniformly random legal moves, until it is over (or ``max_plies`` are played)."""
    game = Game(start, rules)
    rng = np.random.default_rng(seed)
    while not game.is_over() and (max_plies is None or game.plies < max_plies):
        moves = game.legal_moves()
        game.push(moves[rng.integers(len(moves))])
    return game


def won_by(winner, start="mini"):
    """A random game on ``start`` that ``winner`` wins by pushing off marbles."""
    for seed in range(100):
        game = random_game(start, seed=seed)
        outcome = game.outcome()
        if outcome is not None and outcome.winner == winner and outcome.reason == "push-off":
            return game
    raise AssertionError("no such game in 100 seeds")


def record_text(game, **tags):
    tags = {"Black": "random:seed=1", "White": "random:seed=2", **tags}
    return GameRecord.from_game(game, **tags).to_text()


def assert_same_game(got, expected):
    assert [m.notation() for m in got.moves] == [m.notation() for m in expected.moves]
    assert [m.code for m in got.moves] == [m.code for m in expected.moves]
    assert got.positions == expected.positions
    assert [p.to_string() for p in got.positions] == [p.to_string() for p in expected.positions]
    assert got.start.variant == expected.start.variant
    assert got.rules == expected.rules
    assert got.outcome() == expected.outcome()


def round_trip(game, **tags):
    """Write ``game`` and read it back; check the record survives unchanged and return it."""
    record = GameRecord.from_game(game, Black="random:seed=1", White="random:seed=2", **tags)
    text = record.to_text()
    (parsed,) = parse_records(text)
    assert_same_game(parsed.game, game)
    assert parsed.tags == record.tags
    assert parsed.result == record.result
    assert parsed.to_text() == text  # writing what was read gives the same text
    return parsed


# ------------------------------------------------------------------ round trips
@pytest.mark.parametrize("seed", [0, 1, 4])
def test_finished_mini_game_round_trips(seed):
    game = random_game("mini", seed=seed)
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "push-off"
    parsed = round_trip(game)
    assert parsed.tags["Layout"] == "mini"
    assert parsed.tags["Result"] == outcome.result
    assert parsed.tags["Reason"] == "push-off"
    assert parsed.tags["Plies"] == str(game.plies)
    assert parsed.tags["Black"] == "random:seed=1" and parsed.tags["White"] == "random:seed=2"
    assert parsed.to_text().rstrip().endswith(outcome.result)


def test_standard_game_with_ply_cap_round_trips():
    game = random_game("standard", DrawRules(max_plies=200), seed=3)
    assert game.outcome().reason == "ply-cap" and game.plies == 200
    parsed = round_trip(game)
    assert parsed.tags["Layout"] == "standard"
    assert parsed.tags["MaxPlies"] == "200"
    assert parsed.game.rules.max_plies == 200
    assert parsed.result == "1/2-1/2" and parsed.tags["Reason"] == "ply-cap"


def test_draw_rules_round_trip():
    rules = DrawRules(max_plies=30, repetitions=None, no_capture_plies=25, no_moves="loss")
    game = random_game("standard", rules, seed=5)
    parsed = round_trip(game)
    tags = parsed.tags
    assert (tags["MaxPlies"], tags["Repetitions"], tags["NoCapturePlies"], tags["NoMoves"]) == (
        "30",
        "off",
        "25",
        "loss",
    )
    assert parsed.game.rules == rules
    assert parsed.game.outcome().reason == "no-capture"


def test_unfinished_game_round_trips():
    game = random_game("standard", seed=7, max_plies=15)
    assert game.outcome() is None
    text = record_text(game)
    assert '[Result "*"]' in text and "Reason" not in text
    assert text.rstrip().endswith("*")
    parsed = round_trip(game)
    assert parsed.result == "*" and "Reason" not in parsed.tags
    assert parsed.game.outcome() is None
    parsed.game.push(parsed.game.legal_moves()[0])  # the game goes on after reading


def test_game_from_a_position_with_white_to_move_round_trips():
    start = Position.from_string(STANDARD_WHITE_TO_MOVE)
    game = random_game(start, seed=2, max_plies=9)
    text = record_text(game)
    assert f'[Position "{STANDARD_WHITE_TO_MOVE}"]' in text
    assert "Layout" not in text
    movetext = text.split("\n\n", 1)[1]
    assert movetext.startswith("1... ")
    assert " 2. " in movetext
    parsed = round_trip(game)
    assert parsed.game.start.side_to_move == WHITE
    assert parsed.tags["WinThreshold"] == "6"


def test_mini_position_with_marbles_lost_round_trips():
    start = Position.from_string("w1w/1ww1/5/1bb1/bb1 w 1 1 5")
    game = random_game(start, seed=1)
    assert game.is_over()
    text = record_text(game)
    assert text.split("\n\n", 1)[1].startswith("5... ")
    parsed = round_trip(game)
    assert parsed.game.start.lost == (1, 1) and parsed.game.start.move_number == 5


def test_small_board_with_win_threshold_and_inline_only_round_trips():
    start = Position.start("small", win_threshold=3, inline_only=True)
    game = random_game(start, DrawRules(max_plies=300), seed=11)
    assert game.outcome().reason == "push-off"  # with 3 to win instead of 5
    text = record_text(game)
    assert '[Layout "small"]' in text
    assert '[WinThreshold "3"]' in text
    assert '[InlineOnly "yes"]' in text
    parsed = round_trip(game)
    variant = parsed.game.start.variant
    assert (variant.side, variant.win_threshold, variant.inline_only) == (4, 3, True)
    assert all(m.is_inline for m in parsed.game.moves)


def test_default_small_board_writes_no_rule_tags():
    text = record_text(random_game("small", seed=1, max_plies=6))
    assert "WinThreshold" not in text and "InlineOnly" not in text


def test_inline_only_record_refuses_broadside():
    text = '[Layout "standard"]\n[InlineOnly "yes"]\n\n1. c3c5d4 *\n'
    with pytest.raises(RecordError, match=r"line 4: .*c3c5d4.*inline-only"):
        parse_records(text)
    (record,) = parse_records(text.replace("yes", "no"))
    assert record.game.moves[0].is_broadside


def test_resigned_game_round_trips():
    game = random_game("standard", seed=4, max_plies=12)
    game.resign(WHITE)
    text = record_text(game)
    assert '[Result "1-0"]' in text and '[Reason "resignation"]' in text
    parsed = round_trip(game)
    outcome = parsed.game.outcome()
    assert outcome.winner == BLACK and outcome.reason == "resignation"
    assert parsed.game.plies == 12


def test_hand_written_record_with_comments_and_loose_spacing():
    text = (
        '[Event "Club night"]\n'
        '[Layout "Belgian Daisy"]\n'
        "\n"
        "1.  a1b2 {first move}  i5h4\n"
        "; a comment line\n"
        "2. a2b3 ; to the end of the line\n"
        "b6c7 *\n"
    )
    (record,) = parse_records(text)
    assert [m.notation() for m in record.game.moves] == ["a1b2", "i5h4", "a2b3", "b6c7"]
    assert record.tags["Event"] == "Club night" and record.result == "*"


def test_tag_values_with_quotes_and_backslashes_round_trip():
    game = random_game("mini", seed=1, max_plies=4)
    name = 'the "best" player \\ ever'
    record = GameRecord.from_game(game, Black=name, White="w")
    (parsed,) = parse_records(record.to_text())
    assert parsed.tags["Black"] == name


# ------------------------------------------------------------------ several records, files
def several_games():
    return [
        random_game("mini", seed=4),
        random_game("standard", seed=7, max_plies=15),
        random_game(Position.from_string(STANDARD_WHITE_TO_MOVE), seed=2, max_plies=9),
    ]


@pytest.mark.parametrize("separator", ["\n", ""])
def test_several_records_in_one_text(separator):
    games = several_games()
    records = [GameRecord.from_game(g, Black="b", White=f"w{i}") for i, g in enumerate(games)]
    parsed = parse_records(separator.join(r.to_text() for r in records))
    assert len(parsed) == 3
    for got, expected, record in zip(parsed, games, records):
        assert_same_game(got.game, expected)
        assert got.tags == record.tags


def test_write_and_read_records(tmp_path):
    games = several_games()
    records = [GameRecord.from_game(g, Black="b", White="w") for g in games]
    path = tmp_path / "sub" / "games.txt"
    write_records(path, records)
    assert [p.name for p in path.parent.iterdir()] == ["games.txt"]  # no temporary file left behind
    loaded = read_records(path)
    assert len(loaded) == 3
    for got, expected in zip(loaded, games):
        assert_same_game(got.game, expected)
    assert read_records(str(path))[0].tags == records[0].tags
    write_records(path, records[:1])  # overwrites
    assert len(read_records(path)) == 1


def test_error_in_second_record_names_its_line():
    first = record_text(random_game("mini", seed=4))
    second = '[Layout "standard"]\n\n1. a1b1 i5h5 2. a1a2 *\n'
    offset = first.count("\n") + 1  # the blank line between the records
    with pytest.raises(RecordError, match=rf"line {offset + 3}: move 3 \(a1a2\)"):
        parse_records(first + "\n" + second)


# ------------------------------------------------------------------ bad records
def bad(text, pattern):
    with pytest.raises(RecordError, match=pattern):
        parse_records(text)


def test_illegal_move_names_line_and_move():
    bad('[Layout "standard"]\n\n1. a1b1 i5h5\n2. a1b2 *\n', r"^record, line 4: move 3 \(a1b2\): .*no marble on a1")
    bad('[Layout "standard"]\n\n1. a1b1 zz9 *\n', r"line 3: move 2 \(zz9\)")
    bad("1. a1b1 i5h5 2. e5e6 *\n", r"line 1: move 3 \(e5e6\)")


def test_illegal_move_by_the_wrong_side():
    bad('[Layout "standard"]\n\n1. a1b1 a2b2 *\n', r"line 3: move 2 \(a2b2\): .*Black's and White is to move")


def test_malformed_tag_line():
    bad('[Event "x"]\n[Layout standard]\n\n*\n', r"line 2: malformed tag '\[Layout standard\]'")
    bad('[Event "x"\n\n*\n', r"line 1: malformed tag")
    bad('[Event "unterminated]\n\n*\n', r"line 1: malformed tag")


def test_duplicate_tag():
    bad('[Layout "standard"]\n[Event "a"]\n[Layout "mini"]\n\n*\n', r"line 3: tag Layout appears twice")


def test_unknown_layout():
    bad('[Event "a"]\n[Layout "nosuch"]\n\n*\n', r"line 2: unknown layout 'nosuch'")


@pytest.mark.parametrize(
    "position,problem",
    [
        ("xyz", "5 fields"),
        ("www/1ww1/5/1bb1/bb b 0 0 1", "row a has 2 cells"),
        ("www/1ww1/5/1bb1/bbb x 0 0 1", "side to move"),
        ("www/1ww1/5/1bb1/bbb b 0 0 0", "move number"),
        ("www/1ww1/5/1bb1/bbb b 4 0 1", "Black has 5 marbles on the board and 4 lost"),
        ("www/1ww1/5/1bb1 b 0 0 1", "4 rows"),
    ],
)
def test_malformed_position_tag(position, problem):
    bad(f'[Event "a"]\n[Position "{position}"]\n\n*\n', rf"line 2: .*{problem}")


@pytest.mark.parametrize("value", ["0", "-1", "two", "2.5", "", "²"])
def test_bad_win_threshold(value):
    bad(
        f'[Layout "mini"]\n[WinThreshold "{value}"]\n\n*\n',
        rf"line 2: WinThreshold must be a positive whole number, not '{value}'",
    )


def test_win_threshold_above_the_marbles():
    bad('[Layout "mini"]\n[WinThreshold "9"]\n\n*\n', r"line 2: win threshold must be between 1 and 5")


def test_bad_inline_only():
    bad('[Layout "mini"]\n[InlineOnly "maybe"]\n\n*\n', r"line 2: InlineOnly must be yes or no, not 'maybe'")


@pytest.mark.parametrize(
    "tag,value,problem",
    [
        ("MaxPlies", "0", "MaxPlies must be a positive whole number"),
        ("NoCapturePlies", "x", "NoCapturePlies must be a positive whole number"),
        ("Repetitions", "1", "repetitions must be at least 2"),
        ("NoMoves", "maybe", "no_moves must be 'draw' or 'loss'"),
    ],
)
def test_bad_draw_rule_tags(tag, value, problem):
    bad(f'[Event "a"]\n[Layout "mini"]\n[{tag} "{value}"]\n\n*\n', rf"line 3: .*{problem}")


def test_bad_result_tag():
    bad('[Layout "mini"]\n[Result "2-0"]\n\n*\n', r"line 2: Result must be one of")


def test_result_that_disagrees_with_the_push_off():
    game = won_by(BLACK)
    text = record_text(game)
    assert '[Result "1-0"]' in text
    # both the tag and the movetext claim White won
    lines = text.splitlines()
    result_line = lines.index('[Result "1-0"]') + 1
    wrong = text.replace('[Result "1-0"]', '[Result "0-1"]').replace(" 1-0\n", " 0-1\n")
    bad(wrong, rf"line {result_line}: the result says 0-1 but the moves end in Black wins \(push-off\)")
    # only the tag is changed: tag and movetext disagree
    only_tag = text.replace('[Result "1-0"]', '[Result "0-1"]')
    bad(only_tag, rf"line {len(lines)}: the moves end with 1-0 but the Result tag says 0-1")
    # a draw claimed for a won game
    drawn = text.replace('[Result "1-0"]', '[Result "1/2-1/2"]').replace(" 1-0\n", " 1/2-1/2\n")
    bad(drawn, r"the result says 1/2-1/2 but the moves end in Black wins")


def test_reason_that_disagrees_with_the_push_off():
    text = record_text(won_by(WHITE))
    line = text.splitlines().index('[Reason "push-off"]') + 1
    bad(text.replace('"push-off"', '"resignation"'), rf"line {line}: the Reason tag says resignation but .* push-off")


def test_decisive_result_without_reason_for_a_game_not_over():
    bad(
        '[Layout "standard"]\n[Result "1-0"]\n\n1. a1b1 i5h5 1-0\n',
        r"line 2: the result says 1-0 but the game is not over after its moves; a Reason tag must say",
    )
    # push-off is not a reason the board does not show
    bad(
        '[Layout "standard"]\n[Result "0-1"]\n[Reason "push-off"]\n\n1. a1b1 0-1\n',
        r"line 2: the result says 0-1 but the game is not over",
    )
    # without a Result tag, the line of the result token is named
    bad('[Layout "standard"]\n\n1. a1b1\ni5h5 0-1\n', r"line 4: the result says 0-1 but the game is not over")


def test_declared_endings_without_push_off():
    (record,) = parse_records('[Layout "mini"]\n[Result "1/2-1/2"]\n[Reason "agreement"]\n\n1. a1b2 1/2-1/2\n')
    assert record.game.outcome().reason == "agreement" and record.game.outcome().winner is None
    (record,) = parse_records('[Layout "mini"]\n[Result "0-1"]\n[Reason "time"]\n\n0-1\n')
    assert record.game.outcome().winner == WHITE and record.game.plies == 0


def test_moves_after_the_game_ended():
    game = won_by(BLACK)
    text = record_text(game)
    plies = game.plies
    bad(
        text.replace(" 1-0\n", " a1a2 1-0\n"),
        rf"move {plies + 1} \(a1a2\) comes after the game ended: Black wins \(push-off\)",
    )
    bad(
        '[Layout "standard"]\n[MaxPlies "2"]\n\n1. a1b1 i5h5\n2. a2b2 *\n',
        r"line 5: move 3 \(a2b2\) comes after the game ended: draw \(ply-cap\)",
    )


def test_token_after_the_result():
    bad('[Layout "standard"]\n\n1. a1b1 *\ni5h5\n', r"line 4: 'i5h5' after the result \*")
    bad('[Layout "standard"]\n\n1. a1b1 *\n2. i5h5\n', r"line 4: '2\.' after the result \*")
    bad('[Layout "standard"]\n\n1. a1b1 * *\n', r"line 3: '\*' after the result \*")


def test_unknown_reason():
    bad(
        '[Layout "mini"]\n[Result "1-0"]\n[Reason "boredom"]\n\n1-0\n',
        r"line 3: unknown Reason 'boredom'; known: push-off",
    )


@pytest.mark.parametrize("text", ["", "\n\n   \n", "; only a comment\n"])
def test_empty_text(text):
    bad(text, r"^record: no game record found")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("")
    with pytest.raises(RecordError, match=r"empty\.txt: no game record found"):
        read_records(path)


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes('[Event "caf\xe9"]\n\n*\n'.encode("latin-1"))
    with pytest.raises(RecordError, match=r"latin1\.txt is not a text file \(not UTF-8\)"):
        read_records(path)


def test_missing_file(tmp_path):
    with pytest.raises(RecordError, match=r"cannot read .*nosuch\.txt: No such file or directory"):
        read_records(tmp_path / "nosuch.txt")


def test_file_errors_name_the_file(tmp_path):
    path = tmp_path / "games.txt"
    path.write_text('[Layout "standard"]\n\n1. a1b1 a1b1 *\n')
    with pytest.raises(RecordError, match=rf"^{path}, line 3: move 2 \(a1b1\)"):
        read_records(path)


def test_unfinished_result_for_a_finished_game_is_refused():
    text = record_text(won_by(BLACK))
    starred = text.replace('[Result "1-0"]', '[Result "*"]').replace(" 1-0\n", " *\n")
    bad(starred.replace('[Reason "push-off"]\n', ""), r"the result says \* but the moves end in Black wins")


def test_reason_on_an_unfinished_game_is_refused():
    bad(
        '[Layout "standard"]\n[Reason "resignation"]\n\n1. a1b1 *\n',
        r"line 2: an unfinished game .* cannot have a Reason",
    )


def test_declared_ending_must_fit_the_result():
    bad('[Layout "mini"]\n[Result "1/2-1/2"]\n[Reason "resignation"]\n\n1/2-1/2\n', r"resignation has a winner")
    bad('[Layout "mini"]\n[Result "1-0"]\n[Reason "agreement"]\n\n1-0\n', r"agreement is a draw")


def test_plies_tag_must_match_the_moves():
    text = record_text(won_by(BLACK))
    plies = won_by(BLACK).plies
    bad(text.replace(f'[Plies "{plies}"]', f'[Plies "{plies + 1}"]'), rf"the Plies tag says '{plies + 1}'")
