"""The search sees threats against a last marble, and the game's draw rules."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sumito.games.abalone import DrawCounters, DrawRules, Game, LayoutError, Move, Position
from sumito.games.abalone.kernels import count_pushes, generate_push_offs, has_push_off
from sumito.players import make_player
from sumito.protocol import run_engine
from sumito.search.pvs import mate_plies

from helpers import position_with, random_playout

#: positions the engine lost from: White to move, a marble from losing. The first move walks
#: into a forced push-off three plies later. (The report named h7g6 and c5d6 as holding; a threat-aware
#: 8-second search finds a push-off after both, in 9 and 11 plies; f8g8 holds the first.)
LAST_MARBLE = [
    ("b4/1www2/2bww2/2w1wbw1/4wbbb1/4bbb1/5b1/6/5 w 4 5 1", "g7g6"),
    ("5/b1www1/3wbb1/2bwwbw1/2bb1bbb1/2w5/4w2/6/5 w 4 5 1", "h8h7"),
]


@pytest.mark.parametrize("layout", ["standard", "belgian-daisy", "small", "mini"])
def test_has_push_off_is_generate_push_offs_without_the_list(layout):
    rng = np.random.default_rng(27)
    pos = Position.start(layout)
    geo = pos.geometry
    edge = geo.cells[geo.ring[geo.cells] == geo.side - 1]
    buf = np.empty(256, dtype=np.int32)
    seen = 0
    for p in random_playout(pos, 300, rng):
        for side in (1, 2):
            expected = generate_push_offs(p.grid, side, geo.offsets, edge, buf) > 0
            assert has_push_off(p.grid, side, geo.offsets, edge) == expected
            seen += expected
    assert seen > 0  # the playouts reached positions with push-offs


@pytest.mark.parametrize("fen, loses", LAST_MARBLE)
@pytest.mark.parametrize("evaluation", ["nnue=builtin-nnue", "nnue=expert-nnue", "eval=linear"])
def test_a_threat_against_the_last_marble_is_seen_at_depth_3(fen, loses, evaluation):
    pos = Position.from_string(fen)
    assert make_player(f"engine:depth=3,threats=1,{evaluation}").choose(pos).notation() != loses
    # the losing move is a forced loss that a threat-aware search sees at once
    engine = make_player("engine:depth=3,nnue=expert-nnue,threats=1")
    engine.choose(pos.play(loses))
    assert mate_plies(engine.last.score) == 5  # the third push after it is the push-off


def test_without_threats_the_engine_walks_into_the_push_off():
    # what the issue saw: the search before this change plays the losing move at the depth it reached
    fen, loses = LAST_MARBLE[0]
    before = make_player("engine:depth=3,nnue=expert-nnue,threats=0")
    assert before.choose(Position.from_string(fen)).notation() == loses


def test_the_hold_is_found_two_plies_sooner():
    # f8g8 is the move that holds (an 8-second search); with threats the engine plays it from depth 5, without
    # them from depth 7 (before that h7g6, which loses in 9 plies)
    pos = Position.from_string(LAST_MARBLE[0][0])
    assert make_player("engine:depth=5,nnue=expert-nnue,threats=1").choose(pos).notation() == "f8g8"
    assert make_player("engine:depth=5,nnue=expert-nnue,threats=0").choose(pos).notation() == "h7g6"


def test_draw_counters_count_towards_the_rules():
    game = Game("standard", DrawRules(max_plies=10, no_capture_plies=6))
    for move in ("a1b2", "i5h5", "b2c3"):
        game.push(move)
    counters = game.draw_counters()
    assert (counters.plies, counters.quiet_plies, counters.plies_left, counters.quiet_plies_left) == (3, 3, 7, 3)
    assert DrawCounters(DrawRules()).plies_left is None
    with pytest.raises(LayoutError):
        DrawCounters(DrawRules(), plies=-1)
    # the same game under other rules: over once past a new cap
    assert game.with_rules(DrawRules(max_plies=3)).outcome().reason == "ply-cap"
    assert game.with_rules(DrawRules(max_plies=3)).moves == game.moves


@pytest.mark.parametrize("rule", ["max_plies", "no_capture_plies"])
def test_the_search_scores_a_line_past_a_draw_rule_as_a_draw(rule):
    # one ply before the limit every move draws (none pushes a marble off at the start): the score is
    # exactly what a draw is worth to the engine, whatever the depth
    pos = Position.start("standard")
    rules = DrawRules(**{rule: 10})
    counters = DrawCounters(rules, plies=9, quiet_plies=9)
    engine = make_player("engine:depth=4,contempt=0.05")
    engine.choose(pos, draw=counters)
    assert engine.last.score == pytest.approx(-0.05 * engine.marble_value)
    engine.choose(pos, draw=DrawCounters(rules, plies=0))
    assert engine.last.score != pytest.approx(-0.05 * engine.marble_value)


def test_the_protocol_passes_its_draw_rules_to_the_search():
    def score(*setup):
        out = io_lines(*setup, "position startpos moves a1b2 i5h5", "go depth 2")
        return next(line for line in out if line.startswith("info depth 2")).split("score cp ")[1].split()[0]

    assert score("setoption name MaxPlies value 3") == "-5"  # contempt 0.05 marble: every line is a draw
    assert score("setoption name MaxPlies value 0") != "-5"
    lines = io_lines("uci")
    assert "option name MaxPlies type spin default 0 min 0 max 100000" in lines
    assert io_lines("setoption name NoCapture value 1e9")[-1].startswith(
        "info string error NoCapture must be a whole number")


def io_lines(*lines):
    import io

    out = io.StringIO()
    assert run_engine("engine:contempt=0.05", io.StringIO("".join(line + "\n" for line in lines)), out) == 0
    return out.getvalue().splitlines()


def test_repetitions_count_as_the_game_counts_them():
    # Black three marbles up plays on rather than repeat a position a third time; a position seen once
    # before the root is no draw yet, but a cycle inside the search is
    pos = Position.start("belgian-daisy")
    ahead = position_with(pos.marbles(1), pos.marbles(2)[3:], lost=(0, 3))
    engine = make_player("engine:depth=3,contempt=0")
    first = engine.choose(ahead)
    after = ahead.play(first).zobrist
    twofold = DrawCounters(DrawRules(repetitions=2))
    assert engine.choose(ahead, history=[after], draw=twofold) != first  # two-fold is this game's rule
    assert engine.choose(ahead, history=[after], draw=DrawCounters(DrawRules(repetitions=3))) == first
    assert engine.choose(ahead, history=[after, 0, after], draw=DrawCounters(DrawRules(repetitions=None))) == first


def test_one_thread_is_deterministic_and_two_find_the_same_forced_results(monkeypatch):
    pos = Position.start("belgian-daisy")
    one = [make_player("engine:depth=6,threads=1") for _ in range(2)]
    results = [p.analyse(pos, depth=6) for p in one]
    assert (results[0].move, results[0].score, results[0].nodes) == (results[1].move, results[1].score,
                                                                     results[1].nodes)
    two = make_player("engine:depth=6,threads=2")
    result = two.analyse(pos, depth=6)
    assert result.move in pos.legal_move_codes() and result.depth == 6
    # the helper's nodes are counted: two threads search more nodes to the same depth than one... or at
    # least as many as the main thread alone (which the shared table may have spared some)
    assert result.nodes > 0
    # a forced push-off is found with helpers as without
    fen, loses = LAST_MARBLE[0]
    engine = make_player("engine:depth=3,nnue=expert-nnue,threads=2,threats=1")
    engine.choose(Position.from_string(fen).play(loses))
    assert mate_plies(engine.last.score) == 5


def test_a_helper_thread_that_completed_a_deeper_iteration_decides(monkeypatch):
    from sumito.search import pvs

    assert pvs._deeper_helper([], 3) is None
    found = [np.array([4.0, 11.0, 0.5]), np.array([5.0, 22.0, -0.25]), np.array([5.0, 33.0, 1.0])]
    assert pvs._deeper_helper(found, 5) is None and pvs._deeper_helper(found, 6) is None
    assert pvs._deeper_helper(found, 4)[1] == 22.0  # the deepest; the first of them on a tie
    # a main thread that (as if its clock had run out) ends after one ply: the helper, which searched on
    # over the same root, has completed a deeper iteration, and its move is played
    deepen = pvs.Searcher._deepen

    def one_ply(self, *args):
        move, score, _, lines = deepen(self, *args)
        return move, score, 1, lines

    monkeypatch.setattr(pvs.Searcher, "_deepen", one_ply)
    pos = Position.start("belgian-daisy")
    # (depth 6: the main thread searches long enough for the helper to start and finish an iteration
    # even on a loaded machine)
    two = make_player("engine:depth=6,threads=2")
    result = two.analyse(pos, depth=6)
    assert two.searcher.helper_chosen and result.depth > 1 and result.move in pos.legal_move_codes()
    one = make_player("engine:depth=6,threads=1")
    assert one.analyse(pos, depth=6).depth == 1 and not one.searcher.helper_chosen  # no helper: no choice


def test_the_default_thread_count(monkeypatch):
    from sumito.players.base import PlayerSpecError
    from sumito.players.engine import DEFAULT_MAX_THREADS, default_threads

    monkeypatch.setenv("SUMITO_THREADS", "3")
    assert default_threads() == 3 and make_player("engine:depth=1").searcher.threads == 3
    assert make_player("engine:depth=1,threads=1").searcher.threads == 1
    monkeypatch.delenv("SUMITO_THREADS")
    assert 1 <= default_threads() <= DEFAULT_MAX_THREADS
    for bad in ("0", "65", "x", "9" * 50):
        monkeypatch.setenv("SUMITO_THREADS", bad)
        with pytest.raises(PlayerSpecError, match="SUMITO_THREADS must be a whole number from 1 to 64"):
            default_threads()
    with pytest.raises(PlayerSpecError):
        make_player("engine:threads=0")


def test_worker_processes_search_with_one_thread(monkeypatch):
    from sumito.procs import one_search_thread

    monkeypatch.delenv("SUMITO_THREADS")
    one_search_thread()
    assert make_player("engine:depth=1").searcher.threads == 1
    monkeypatch.setenv("SUMITO_THREADS", "2")  # what the user set stands
    one_search_thread()
    assert make_player("engine:depth=1").searcher.threads == 2


def test_converting_values_every_marble_off_the_board_for_the_side_ahead():
    # Black has pushed off two more: each marble off the board (four here) is worth ``trade`` to it, and
    # as much against White; a level position gets nothing
    pos = Position.start("belgian-daisy")
    ahead = position_with(pos.marbles(1)[1:], pos.marbles(2)[3:], lost=(1, 3))
    for position, bonus in ((ahead, 0.25 * 4), (pos, 0.0)):
        trading = make_player("engine:depth=1,multipv=200,trade=0.25")
        plain = make_player("engine:depth=1,multipv=200,trade=0")
        with_trade = {line.move: line.score for line in trading.analyse(position, depth=1).lines}
        quiet = 0
        for line in plain.analyse(position, depth=1).lines:
            if any(reply.is_push_off for reply in position.play(Move(line.move, 5)).legal_moves()):
                continue  # the quiescence search scores it, and a push-off changes the count
            quiet += 1
            assert with_trade[line.move] == pytest.approx(line.score + bonus * plain.marble_value)
        assert quiet >= 30


def test_the_protocol_sets_threads(monkeypatch):
    monkeypatch.setattr("sumito.protocol.available_cores", lambda: 8)  # (more threads than cores are clamped)
    lines = io_lines("setoption name Threads value 2", "uci", "player", "setoption name Threads value 65")
    assert "option name Threads type spin default 2 min 1 max 64" in lines
    assert any(line.startswith("info player engine:contempt=0.05,threads=2") for line in lines)
    assert lines[-1].startswith("info string error Threads must be from 1 to 64")


def _data_rows(name: str) -> list[list[str]]:
    """The tab-separated rows of ``tests/data/NAME``, without its ``#`` comment lines."""
    path = Path(__file__).parent / "data" / name
    return [line.split("\t") for line in path.read_text().splitlines() if line and not line.startswith("#")]


def _regression_set(most_plies: int) -> list[tuple[str, str, int]]:
    """``tests/data/last_marble.txt`` (experiments/threat_positions.py): positions of engine self-play where
    the search before the threat search walked into a forced push-off of its last marble, kept when the
    push-off comes within ``most_plies`` plies."""
    return [(fen, move, int(plies)) for fen, move, plies in _data_rows("last_marble.txt") if int(plies) <= most_plies]


def test_the_self_play_regression_set_is_avoided_at_depth_5():
    # a push-off within 8 plies of the position (3 or 4 moves of the side pushing): the threat search at
    # depth 5 never walks into it; the search without it still does in some (the set can fail the test)
    cases = _regression_set(8)
    assert len(cases) >= 10
    walked_into = 0
    for fen, loses, _ in cases:
        pos = Position.from_string(fen)
        assert make_player("engine:depth=5,nnue=expert-nnue,threats=1").choose(pos).notation() != loses, fen
        # the set was found with expert-nnue (the default then); the self-taught network shipped since
        # needs more: at depth 5 it walks into 1 of these 12, at depth 6 into 2 (docs/strength.md), at 7 none
        assert make_player("engine:depth=7,nnue=builtin-nnue,threats=1").choose(pos).notation() != loses, fen
        walked_into += make_player("engine:depth=5,nnue=expert-nnue,threats=0").choose(pos).notation() == loses
    assert walked_into >= 3


@pytest.mark.slow
def test_the_audits_misses_are_avoided_at_depth_7():
    # the last-marble audit's misses (docs/strength.md): the move the engine played at 0.1 s a move, and
    # lost by, a push-off 8 to 12 plies later. A fresh one-thread search avoids every one from depth 7; at
    # depth 4 it still plays most of them (the set can fail the test)
    rows = _data_rows("last_marble_audit.txt")
    assert len(rows) >= 7
    spec = "engine:nnue=builtin-nnue,threads=1,threats=1"
    played_at_4 = 0
    for fen, loses, _plies, _holds in rows:
        pos = Position.from_string(fen)
        assert make_player(f"{spec},depth=7").choose(pos).notation() != loses, fen
        played_at_4 += make_player(f"{spec},depth=4").choose(pos).notation() == loses
    assert played_at_4 >= 4


def test_trading_waits_for_a_stalled_game_when_told_to():
    # trade_after=N: the trade term counts only once the game has gone N plies without a push-off
    pos = Position.start("belgian-daisy")
    ahead = position_with(pos.marbles(1)[1:], pos.marbles(2)[3:], lost=(1, 3))
    plain = make_player("engine:depth=1,multipv=200,trade=0").analyse(ahead, depth=1).lines
    waiting = make_player("engine:depth=1,multipv=200,trade=0.25,trade_after=30")
    stalled = DrawCounters(DrawRules(), plies=80, quiet_plies=30)
    fresh = DrawCounters(DrawRules(), plies=80, quiet_plies=29)
    before = {line.move: line.score for line in waiting.analyse(ahead, depth=1, draw=fresh).lines}
    after = {line.move: line.score for line in waiting.analyse(ahead, depth=1, draw=stalled).lines}
    gained = [after[line.move] - before[line.move] for line in plain]
    assert all(before[line.move] == pytest.approx(line.score) for line in plain)  # not yet
    assert max(gained) > 0.5 * waiting.marble_value  # now: a quarter marble for each of the four off
    assert "trade_after=30" in waiting.name


def test_trading_waits_for_the_engines_own_score_when_told_to():
    # trade_above=X: the trade term counts only while the engine's own previous search (same side) scored
    # at least X marbles; a search for the other side, or a new game, does not count
    pos = Position.start("belgian-daisy")
    ahead = position_with(pos.marbles(1)[1:], pos.marbles(2)[3:], lost=(1, 3))
    plain = {line.move: line.score
             for line in make_player("engine:depth=1,multipv=200,trade=0").analyse(ahead, depth=1).lines}
    sure = make_player("engine:depth=1,multipv=200,trade=0.25,trade_above=1")
    unsure = make_player("engine:depth=1,multipv=200,trade=0.25,trade_above=50")
    first = {line.move: line.score for line in sure.analyse(ahead, depth=1).lines}
    assert first == pytest.approx(plain)  # no earlier search: not yet
    assert sure.last.score >= sure.marble_value  # Black two up scores more than a marble here
    second = {line.move: line.score for line in sure.analyse(ahead, depth=1).lines}
    assert max(second[m] - plain[m] for m in plain) > 0.5 * sure.marble_value  # now it trades
    for _ in range(2):
        assert {line.move: line.score for line in unsure.analyse(ahead, depth=1).lines} == pytest.approx(plain)
    white = ahead.play(ahead.legal_moves()[0])
    sure.analyse(white, depth=1)  # White's search: Black's score no longer stands
    assert {line.move: line.score for line in sure.analyse(ahead, depth=1).lines} == pytest.approx(plain)
    sure.analyse(ahead, depth=1)
    sure.searcher.clear()  # a new game
    assert {line.move: line.score for line in sure.analyse(ahead, depth=1).lines} == pytest.approx(plain)
    assert "trade_above=1" in sure.name


def test_pressing_values_each_push_beyond_the_others_in_a_stalled_game_the_engine_leads():
    # press=X: after press_after plies without a push-off, with the engine two or more marbles up, each push
    # the side to move has beyond the other's is worth X marbles; one marble up, or not yet stalled, nothing
    pos = Position.start("belgian-daisy")
    two_up = position_with(pos.marbles(1)[1:], pos.marbles(2)[3:], lost=(1, 3))
    one_up = position_with(pos.marbles(1)[1:], pos.marbles(2)[2:], lost=(1, 2))
    stalled = DrawCounters(DrawRules(), plies=80, quiet_plies=20)
    fresh = DrawCounters(DrawRules(), plies=80, quiet_plies=19)
    geo = two_up.geometry
    for position, counts in ((two_up, True), (one_up, False)):
        plain = {line.move: line.score for line in
                 make_player("engine:depth=1,multipv=200,press=0").analyse(position, depth=1, draw=stalled).lines}
        pressing = make_player("engine:depth=1,multipv=200,press=0.2,press_after=20")
        assert "press=0.2,press_after=20" in pressing.name
        before = {line.move: line.score for line in pressing.analyse(position, depth=1, draw=fresh).lines}
        after = {line.move: line.score for line in pressing.analyse(position, depth=1, draw=stalled).lines}
        assert before == pytest.approx(plain)  # not yet stalled
        if not counts:
            assert after == pytest.approx(plain)  # one marble up: never
            assert {line.move: line.score for line in make_player("engine:depth=1,multipv=200").analyse(
                position, depth=1, draw=fresh).lines} == pytest.approx(plain)
            continue
        # the default: a tenth of a marble from the first ply
        by_default = {line.move: line.score for line in
                      make_player("engine:depth=1,multipv=200").analyse(position, depth=1, draw=fresh).lines}
        checked = 0
        for move, score in plain.items():
            child = position.play(Move(move, 5))
            if any(reply.is_push_off for reply in child.legal_moves()):
                continue  # the quiescence search scores it
            # the child's evaluation is White's: its pushes beyond Black's, negated for Black at the root
            mine = count_pushes(child.grid.copy(), 1, geo.offsets, geo.cells)
            theirs = count_pushes(child.grid.copy(), 2, geo.offsets, geo.cells)
            assert after[move] == pytest.approx(score + 0.2 * (mine - theirs) * pressing.marble_value)
            assert by_default[move] == pytest.approx(score + 0.1 * (mine - theirs) * pressing.marble_value)
            checked += 1
        assert checked >= 30
        assert max(after[m] - plain[m] for m in plain) > 0  # some moves gain by it


def test_a_draw_costs_the_engine_more_for_each_marble_it_leads_by():
    # contempt_lead=Y: a repetition two marbles up is worth -(contempt + 2Y) to the engine; level, -contempt
    pos = Position.start("belgian-daisy")
    two_up = position_with(pos.marbles(1)[1:], pos.marbles(2)[3:], lost=(1, 3))
    for position, lead in ((two_up, 2), (pos, 0)):
        move = position.legal_moves()[0]
        history = [position.zobrist, position.play(move).zobrist]  # the move repeats a position: a draw (rules=0)
        for spec, contempt in ((",contempt_lead=0", 0.25), ("", 0.25 + 0.5 * lead), (",contempt_lead=1", 0.25 + lead)):
            engine = make_player("engine:depth=1,multipv=200,rules=0" + spec)
            scores = {line.move: line.score for line in engine.analyse(position, depth=1, history=history).lines}
            assert scores[move.code] == pytest.approx(-contempt * engine.marble_value)
