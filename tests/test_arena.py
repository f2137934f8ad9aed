"""The arena: executor, matches, statistics, ratings, the SQLite archive and the CLI commands."""

import contextlib
import json
import math
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from sumito.arena.db import APPLICATION_ID, SCHEMA_VERSION, GameArchive, default_db_path
from sumito.arena.errors import ArchiveError, ArenaError
from sumito.arena.executor import InlineExecutor, ProcessExecutor, make_executor
from sumito.arena.match import (
    DEFAULT_RULES,
    ArenaSettings,
    GameResult,
    GameTask,
    play_game,
    schedule,
    seeded_spec,
    summarize_pair,
)
from sumito.arena.ratings import elo_from_score, expected_score, fit_elo, score_interval
from sumito.arena.tournament import summarize_tournament
from sumito.bounds import MAX_PRIOR_DRAWS
from sumito.cli import arena as commands
from sumito.cli import main
from sumito.games.abalone import BLACK, LAYOUTS, WHITE, Game, Position, read_records
from sumito.players import player_names
from sumito.players.base import Option, PlayerKind, register

MINI = LAYOUTS["mini"].position_string


# ------------------------------------------------------------------ test players
class FirstMove:
    """Deterministic: always the first legal move (no seed option)."""

    name = "first"

    def choose(self, position, movetime=None, history=None, draw=None):
        # the arena hands over the game's earlier positions (games here start from a layout at move 1)
        assert len(history) == 2 * (position.move_number - 1) + (position.side_to_move == WHITE)
        return position.legal_moves()[0]


class Broken:
    name = "broken"

    def __init__(self, after: int = 0):
        self.after = after
        self.calls = 0

    def choose(self, position, movetime=None, history=None, draw=None):
        self.calls += 1
        if self.calls > self.after:
            raise RuntimeError("the engine crashed")
        return position.legal_moves()[0]


player_names()  # load the built-in players before adding ours
register(PlayerKind("test-first", FirstMove, {}, "first legal move (tests)"))
register(PlayerKind("test-broken", Broken, {"after": Option(int, 0, "moves before crashing")}, "crashes (tests)"))


@pytest.fixture(autouse=True)
def private_data_home(tmp_path, monkeypatch):
    """Never touch the user's real game database."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def mini_settings(seed=7, **kw):
    return ArenaSettings.from_layout("mini", seed=seed, **kw)


def play_all(tasks, executor=None):
    executor = executor or InlineExecutor()
    return sorted((r for _, r in executor.run(play_game, tasks)), key=lambda r: r.task.index)


# ------------------------------------------------------------------ seeds, colours, openings
def test_same_seed_same_games():
    first = play_all(schedule(["random", "random"], 6, mini_settings(seed=11)))
    again = play_all(schedule(["random", "random"], 6, mini_settings(seed=11)))
    other = play_all(schedule(["random", "random"], 6, mini_settings(seed=12)))
    assert [r.moves for r in first] == [r.moves for r in again]
    assert [(r.result, r.reason) for r in first] == [(r.result, r.reason) for r in again]
    assert [r.moves for r in first] != [r.moves for r in other]


def test_process_pool_plays_the_same_games_as_inline():
    tasks = schedule(["random", "random:seed=3"], 4, mini_settings(seed=5))
    inline = play_all(tasks)
    pooled = play_all(tasks, ProcessExecutor(2))
    assert [r.moves for r in inline] == [r.moves for r in pooled]


def test_colours_alternate_and_pairs_share_an_opening():
    tasks = schedule(["random", "random:seed=9"], 7, mini_settings(seed=3))
    assert [t.index for t in tasks] == list(range(7))
    assert [t.black_id for t in tasks] == [0, 1, 0, 1, 0, 1, 0]
    assert [t.white_id for t in tasks] == [1, 0, 1, 0, 1, 0, 1]
    for k in range(0, 6, 2):
        assert tasks[k].opening == tasks[k + 1].opening
        assert len(tasks[k].opening) == 2
    assert len({t.opening for t in tasks}) > 1
    # the unseeded spec gets a derived seed per game, the seeded one keeps its own
    a_specs = [t.black if t.black_id == 0 else t.white for t in tasks]
    b_specs = [t.white if t.black_id == 0 else t.black for t in tasks]
    assert all(s.startswith("random:seed=") for s in a_specs) and len(set(a_specs)) == 7
    assert set(b_specs) == {"random:seed=9"}
    assert len({t.seed for t in tasks}) == 7


def test_seeded_spec():
    assert seeded_spec("random", 5) == "random:seed=5"
    assert seeded_spec(" random: ", 5) == "random:seed=5"
    assert seeded_spec("random:seed=1", 5) == "random:seed=1"
    assert seeded_spec("test-first", 5) == "test-first"
    assert seeded_spec("test-broken:after=3", 5) == "test-broken:after=3"


def test_openings_make_deterministic_players_play_different_games():
    with_opening = play_all(schedule(["test-first", "test-first"], 4, mini_settings(seed=1, opening_plies=2)))
    without = play_all(schedule(["test-first", "test-first"], 4, mini_settings(seed=1, opening_plies=0)))
    assert without[0].moves == without[2].moves  # nothing random: the same game again
    assert with_opening[0].moves != with_opening[2].moves
    for r in with_opening:
        assert r.moves[:2] == r.task.opening
        assert r.times[:2] == (None, None) and all(t is not None for t in r.times[2:])


def test_play_game_result_agrees_with_a_replay():
    (result,) = play_all(schedule(["random", "random"], 1, mini_settings(seed=2)))
    game = Game(Position.from_string(MINI), DEFAULT_RULES)
    for move in result.moves:
        game.push(move)
    outcome = game.outcome()
    assert outcome is not None and (outcome.result, outcome.reason) == (result.result, result.reason)
    assert (result.lost_black, result.lost_white) == game.position.lost
    assert result.final == game.position.to_string()
    assert result.plies == len(result.times) == game.plies


def test_draw_rules_reach_the_games():
    (result,) = play_all(
        schedule(
            ["test-first", "test-first"],
            1,
            ArenaSettings.from_layout(
                "standard", rules=DEFAULT_RULES.__class__(max_plies=10, repetitions=None), opening_plies=0
            ),
        )
    )
    assert (result.result, result.reason, result.plies) == ("1/2-1/2", "ply-cap", 10)


def test_a_crashing_player_is_a_clear_error():
    tasks = schedule(["test-broken:after=2", "random"], 1, mini_settings(opening_plies=0))
    with pytest.raises(ArenaError, match=r"Black player 'test-broken:after=2' failed at ply 5: RuntimeError"):
        play_game(tasks[0])


# ------------------------------------------------------------------ statistics
def fake(index, black_id, winner, reason="push-off", lost=(0, 0), plies=4, times=(0.5, 0.25, 0.5, 0.25)):
    task = GameTask(
        black=f"p{black_id}",
        white=f"p{1 - black_id}",
        start=MINI,
        win_threshold=2,
        inline_only=False,
        rules=DEFAULT_RULES,
        movetime=None,
        seed=index,
        index=index,
        black_id=black_id,
        white_id=1 - black_id,
    )
    return GameResult(task, ("x",) * plies, tuple(times), winner, reason, lost[0], lost[1], MINI)


def test_adjudication_on_marbles_scores_only_games_without_a_winner():
    results = [
        fake(0, 0, None, "repetition", lost=(0, 2)),  # A (Black) ahead on marbles: an A win on marbles
        fake(1, 1, None, "ply-cap", lost=(1, 3)),  # B (Black) lost fewer: a B win on marbles
        fake(2, 0, None, "ply-cap", lost=(1, 1)),  # level: still a draw
        fake(3, 1, BLACK, lost=(0, 4)),  # B won outright: adjudication never touches a decided game
    ]
    assert [r.score_of(0) for r in results] == [0.5, 0.5, 0.5, 0.0]
    assert [r.score_of(0, adjudicate=True) for r in results] == [1.0, 0.0, 0.5, 0.0]
    assert [r.score_of(1, adjudicate=True) for r in results] == [0.0, 1.0, 0.5, 1.0]
    s = summarize_pair(results, 0, 1, adjudicate=True)
    assert (s.wins, s.draws, s.losses) == (1, 1, 2)
    assert dict(s.endings["win"]) == {"repetition on marbles": 1}
    assert dict(s.endings["loss"]) == {"ply-cap on marbles": 1, "push-off": 1}
    plain = summarize_pair(results, 0, 1)
    assert (plain.wins, plain.draws, plain.losses) == (0, 3, 1)
    table = summarize_tournament(["a", "b"], results, adjudicate=True)
    assert table.points[0, 1] == 1.5 and table.points[1, 0] == 2.5


def test_pair_summary_on_hand_made_results():
    results = [
        fake(0, 0, BLACK, lost=(1, 2)),  # A (Black) wins
        fake(1, 1, BLACK, lost=(2, 0), plies=6, times=(None, None, 1.0, 2.0, 1.0, 2.0)),  # B (Black) wins
        fake(2, 0, None, "ply-cap", lost=(0, 1)),  # draw
        fake(3, 1, WHITE, lost=(2, 1)),  # A (White) wins
    ]
    s = summarize_pair(results, 0, 1)
    assert (s.games, s.wins, s.draws, s.losses) == (4, 2, 1, 1)
    assert s.as_black == [1, 1, 0] and s.as_white == [1, 0, 1]
    assert s.points == 2.5
    assert dict(s.endings["win"]) == {"push-off": 2} and dict(s.endings["draw"]) == {"ply-cap": 1}
    assert dict(s.endings["loss"]) == {"push-off": 1}
    # marbles won by A = marbles B lost in each game (B is White in games 0 and 2, Black in 1 and 3)
    assert s.marbles_won == 2 + 2 + 1 + 2
    assert s.marbles_lost == 1 + 0 + 0 + 1
    assert s.average_plies == (4 + 6 + 4 + 4) / 4
    # A moves on the even plies as Black, odd as White; opening plies (None) do not count
    a_times = [0.5, 0.5, 2.0, 2.0, 0.5, 0.5, 0.25, 0.25]
    b_times = [0.25, 0.25, 1.0, 1.0, 0.25, 0.25, 0.5, 0.5]
    assert s.move_time_a == pytest.approx(sum(a_times) / len(a_times))
    assert s.move_time_b == pytest.approx(sum(b_times) / len(b_times))
    score, low, high = s.interval
    assert score == 0.625 and 0 < low < score < high < 1
    elo, elo_low, elo_high = s.elo
    assert elo == pytest.approx(400 * math.log10(0.625 / 0.375))
    assert elo_low < elo < elo_high


def test_score_interval_known_values():
    # a perfect score: the profile likelihood is mu^n, so the bound is exp(-chi2/2n)
    score, low, high = score_interval(20, 0, 0)
    assert score == 1.0 and high == 1.0
    assert low == pytest.approx(math.exp(-3.841458820694124 / 40), abs=1e-9)
    # without draws the interval is the binomial likelihood-ratio interval; symmetric at 50%
    score, low, high = score_interval(10, 0, 10)
    assert score == 0.5 and low == pytest.approx(1 - high, abs=1e-12)
    assert low == pytest.approx(0.29098, abs=1e-4)  # 20 log(2p) ... solved independently below
    ll = lambda p: 10 * math.log(p) + 10 * math.log(1 - p)  # noqa: E731
    assert 2 * (ll(0.5) - ll(low)) == pytest.approx(3.841458820694124, abs=1e-6)
    # draws narrow the interval; all draws: mu = 1/2 + delta needs wins, likelihood (1 - 2 delta)^n
    assert score_interval(5, 10, 5)[1] > low
    score, low, high = score_interval(0, 50, 0)
    assert high - 0.5 == pytest.approx((1 - math.exp(-3.841458820694124 / 100)) / 2, abs=1e-9)
    assert low == pytest.approx(1 - high, abs=1e-12)
    # mirror symmetry
    s1 = score_interval(7, 3, 2)
    s2 = score_interval(2, 3, 7)
    assert s1[1] == pytest.approx(1 - s2[2], abs=1e-9) and s1[2] == pytest.approx(1 - s2[1], abs=1e-9)
    with pytest.raises(ArenaError):
        score_interval(0, 0, 0)


def test_elo_from_score():
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(190.848, abs=1e-3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert expected_score(elo_from_score(0.3)) == pytest.approx(0.3)


# ------------------------------------------------------------------ maximum-likelihood ratings
TRUE = np.array([0.0, 100.0, -200.0, 350.0, 50.0])


def exact_results(true, games=1000):
    n = len(true)
    n_games = np.full((n, n), float(games))
    np.fill_diagonal(n_games, 0)
    points = n_games * expected_score(true[:, None] - true[None, :])
    return n_games, points


def test_elo_ml_recovers_ratings_from_expected_results():
    n_games, points = exact_results(TRUE)
    r = fit_elo(list("abcde"), n_games, points)
    assert r.finite and r.anchor == "mean"
    np.testing.assert_allclose(r.elo, TRUE - TRUE.mean(), atol=1e-6)
    r = fit_elo(list("abcde"), n_games, points, anchor="first")
    np.testing.assert_allclose(r.elo, TRUE - TRUE[0], atol=1e-6)
    assert r.error[0] == 0 and np.all(r.error[1:] > 0)


def test_elo_ml_on_simulated_games_is_within_its_error_bars():
    rng = np.random.default_rng(2024)
    n = len(TRUE)
    n_games = np.zeros((n, n))
    points = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            k = 300
            p = expected_score(TRUE[i] - TRUE[j])
            d = 0.4 * min(p, 1 - p)  # some draws, keeping the expected score p (a draw counts half)
            wins, draws, _ = rng.multinomial(k, [p - d / 2, d, 1 - p - d / 2])
            n_games[i, j] = n_games[j, i] = k
            points[i, j] = wins + draws / 2
            points[j, i] = k - points[i, j]
    r = fit_elo(list("abcde"), n_games, points)
    dev = np.abs(r.elo - (TRUE - TRUE.mean()))
    assert np.all(dev < r.error * 1.5), (dev, r.error)  # 1.96 sigma bars; allow a little slack
    assert np.all((r.error > 15) & (r.error < 60))
    # the standard error matches the Fisher information of a two-player match
    two = fit_elo(["a", "b"], np.array([[0, 400], [400, 0]]), np.array([[0, 200], [200, 0]]), anchor="first")
    se = 400 / math.log(10) / math.sqrt(400 * 0.25)
    assert two.error[1] == pytest.approx(1.959964 * se, rel=1e-5)


def test_elo_ml_with_perfect_scores_reports_infinities():
    n_games = np.array([[0, 4, 4], [4, 0, 4], [4, 4, 0]], dtype=float)
    points = np.array([[0, 4, 4], [0, 0, 2.5], [0, 1.5, 0]], dtype=float)  # a won everything
    r = fit_elo(["a", "b", "c"], n_games, points)
    assert not r.finite and r.tiers == [[0], [1, 2]]
    assert r.elo[0] == math.inf and math.isnan(r.error[0])
    # b and c are rated from their games against each other only
    sub = fit_elo(["b", "c"], np.array([[0, 4], [4, 0]]), np.array([[0, 2.5], [1.5, 0]]))
    np.testing.assert_allclose(r.elo[1:], sub.elo, atol=1e-9)
    np.testing.assert_allclose(r.error[1:], sub.error, atol=1e-9)
    # a player who lost everything
    points = np.array([[0, 2, 0], [2, 0, 0], [4, 4, 0]], dtype=float)
    r = fit_elo(["a", "b", "c"], n_games, points)
    assert r.tiers[0] == [2] and r.elo[2] == math.inf
    points = np.array([[0, 2, 4], [2, 0, 4], [0, 0, 0]], dtype=float)
    r = fit_elo(["a", "b", "c"], n_games, points)
    assert r.elo[2] == -math.inf and r.elo[0] == r.elo[1] == 0


def test_elo_prior_of_virtual_draws_makes_every_rating_finite():
    n_games = np.array([[0, 4, 4], [4, 0, 4], [4, 4, 0]], dtype=float)
    points = np.array([[0, 4, 4], [0, 0, 2.5], [0, 1.5, 0]], dtype=float)  # a won everything: +inf by ML
    r = fit_elo(["a", "b", "c"], n_games, points, anchor="first", prior_draws=1)
    assert r.finite and r.prior_draws == 1 and np.all(np.isfinite(r.elo)) and np.all(np.isfinite(r.error))
    assert r.method == "maximum a posteriori with 1 virtual draw a pair"
    assert r.elo[0] > r.elo[1] > r.elo[2]
    # the same as maximum likelihood over the results with one drawn game added to every pair
    plus = fit_elo(["a", "b", "c"], n_games + 1 - np.eye(3), points + 0.5 * (1 - np.eye(3)), anchor="first")
    np.testing.assert_allclose(r.elo, plus.elo, atol=1e-9)
    np.testing.assert_allclose(r.error, plus.error, atol=1e-9)
    # two players, 4-0: with 2 virtual draws the score is 5 of 6, so the gap is 400·log10(5)
    two = fit_elo(["a", "b"], np.array([[0, 4], [4, 0]]), np.array([[0, 4], [0, 0]]), anchor="first", prior_draws=2)
    assert two.elo[1] == pytest.approx(-400 * math.log10(5), abs=1e-6)
    # pairs that never met stay unmet: the prior does not connect them
    with pytest.raises(ArenaError, match="never met"):
        fit_elo(["a", "b", "c"], np.array([[0, 2, 0], [2, 0, 0], [0, 0, 0]]),
                np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]), prior_draws=1)
    for bad in (-1.0, math.nan, math.inf, MAX_PRIOR_DRAWS * 2):
        with pytest.raises(ArenaError, match="prior_draws"):
            fit_elo(["a", "b"], np.array([[0, 2], [2, 0]]), np.array([[0, 1], [1, 0]]), prior_draws=bad)


def test_elo_ml_refuses_bad_input():
    with pytest.raises(ArenaError, match="never met"):
        fit_elo(
            ["a", "b", "c"], np.array([[0, 2, 0], [2, 0, 0], [0, 0, 0]]), np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
        )
    with pytest.raises(ArenaError, match="add up"):
        fit_elo(["a", "b"], np.array([[0, 2], [2, 0]]), np.array([[0, 2], [1, 0]]))


def test_tournament_summary():
    results = play_all(schedule(["random:seed=1", "random:seed=2", "random:seed=3"], 4, mini_settings(seed=4)))
    assert len(results) == 12
    t = summarize_tournament(["random:seed=1", "random:seed=2", "random:seed=3"], results)
    assert t.total_games == 12
    np.testing.assert_allclose(t.points + t.points.T, t.games)
    assert all(st.games == 8 for st in t.standings)
    assert sum(st.points for st in t.standings) == 12
    assert t.ratings is not None and t.ratings.elo.shape == (3,)
    # round by round: the first three games are one per pair
    tasks = schedule(["random"] * 3, 4, mini_settings(seed=4))
    assert [(t.black_id, t.white_id) for t in tasks[:6]] == [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]


# ------------------------------------------------------------------ the executor
def slow_square(x):
    time.sleep(0.05 if x == 0 else 5)
    return x * x


def test_executor_close_terminates_the_workers():
    ex = ProcessExecutor(2)
    stream = ex.run(slow_square, [0, 1, 2, 3])
    t0 = time.perf_counter()
    with contextlib.closing(stream):
        assert next(stream) == (0, 0)
    assert time.perf_counter() - t0 < 3
    deadline = time.time() + 3
    while multiprocessing.active_children() and time.time() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()


def die(x):
    if x == 1:
        os._exit(3)
    time.sleep(0.1)
    return x


def test_a_dying_worker_is_a_clear_error():
    with pytest.raises(ArenaError, match="worker process died"):
        list(ProcessExecutor(2).run(die, [0, 1, 2]))


def test_make_executor():
    assert isinstance(make_executor(1), InlineExecutor)
    assert make_executor(3).workers == 3
    with pytest.raises(ArenaError):
        make_executor(0)


class InterruptAfter:
    """An executor that hands out ``k`` results and then behaves as if Ctrl-C was pressed."""

    def __init__(self, k):
        self.k = k
        self.workers = 1

    def run(self, fn, items):
        for i, item in enumerate(items):
            if i == self.k:
                raise KeyboardInterrupt
            yield i, fn(item)


def test_interrupted_match_keeps_the_finished_games(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(commands, "executor_factory", lambda workers: InterruptAfter(3))
    db = tmp_path / "games.sqlite"
    code, out, err = run(capsys, "match", "random", "random", "-n", 10, "--layout", "mini", "--db", db, "--seed", 1)
    assert code == 130
    assert "interrupted: 3 of 10 games finished; 3 stored in" in err
    assert "Traceback" not in err
    assert "(interrupted: 3 of 10 games)" in out
    with GameArchive(db, create=False) as archive:
        assert archive.count() == 3
        status = archive.conn.execute("SELECT status FROM runs").fetchone()[0]
    assert status == "interrupted"


def test_ctrl_c_stops_a_pooled_match_cleanly(tmp_path):
    db = tmp_path / "games.sqlite"
    # far more games than can finish before the interrupt, even if the polling below is starved
    argv = [sys.executable, "-m", "sumito", "match", "random", "random", "-n", "20000", "--layout", "small"]
    argv += ["--max-plies", "2000", "--repetitions", "0", "--workers", "2", "--db", str(db), "--seed", "1"]
    env = dict(os.environ, COLUMNS="200")
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        # a shell's background job inherits SIGINT ignored, and Python then never raises
        # KeyboardInterrupt: give the match a terminal's default, whoever runs the tests
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    stored_now = 0
    try:
        deadline = time.time() + 90
        while time.time() < deadline and proc.poll() is None:  # wait for the first stored games
            time.sleep(0.3)
            if not db.exists():
                continue  # read only: the poll must never create the file the match creates
            with contextlib.suppress(sqlite3.Error), contextlib.closing(
                sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=5)
            ) as conn:
                stored_now = conn.execute("SELECT count(*) FROM games").fetchone()[0]
            if stored_now >= 2:
                break
        assert proc.poll() is None, f"the match ended before the interrupt: {proc.communicate()}"
        assert stored_now >= 2, "no games stored in 90 s"
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the workers too
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "sumito: interrupted:" in err
    finished = int(err.split("interrupted: ")[1].split()[0])
    stored = int(err.split("finished; ")[1].split()[0])
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == stored >= 2
    assert finished - stored in (0, 1)  # Ctrl-C may come between a game's end and its storing
    assert conn.execute("SELECT status FROM runs").fetchone()[0] == "interrupted"
    assert conn.execute("SELECT count(*) FROM run_owners").fetchone()[0] == 0  # it ended: no owner left


#: a ``sitecustomize`` for a match's ``PYTHONPATH`` (a match records no depths): run by the match and by each of its
#: workers, forked or started afresh, it writes each engine move's completed depth to $SUMITO_TEST_DEPTHS,
#: a line ``pid depth`` a move, in the order each process plays them
DEPTH_RECORDER = """\
import os

from sumito.players.engine import EnginePlayer

_choose = EnginePlayer.choose


def _recorded(self, *args, **kwargs):
    move = _choose(self, *args, **kwargs)
    with open(os.environ["SUMITO_TEST_DEPTHS"], "a") as f:
        f.write(f"{os.getpid()} {self.last.depth}\\n")
    return move


EnginePlayer.choose = _recorded
"""


@pytest.mark.slow
def test_each_match_workers_first_move_is_searched_as_deep_as_its_later_ones(tmp_path):
    # a worker's first move loads (and compiles what numba compiles in each process) before its clock starts:
    # it reaches the depth of the worker's later moves, within a ply (it stopped at depth 1 or 2 when the
    # loading, or the compile of the search's clock call, was inside its 0.1 s)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(DEPTH_RECORDER)
    depths = tmp_path / "depths.txt"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")])),
               SUMITO_TEST_DEPTHS=str(depths), SUMITO_THREADS="1")
    argv = [sys.executable, "-m", "sumito", "match", "engine:time=0.1", "engine:time=0.1", "-n", "4",
            "--workers", "2", "--max-plies", "16", "--no-db", "--quiet", "--seed", "1"]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    moves: dict[int, list[int]] = {}
    for line in depths.read_text().splitlines():
        pid, depth = map(int, line.split())
        moves.setdefault(pid, []).append(depth)
    assert len(moves) == 2, moves  # each worker played a game at least
    for pid, (first, *later) in moves.items():
        typical = sorted(later)[len(later) // 2]  # the median (forced wins end early at any depth)
        assert typical >= 3, moves  # the later moves are searched: the comparison means something
        assert first >= typical - 1, (pid, first, later)

# ------------------------------------------------------------------ the archive
def test_db_round_trip_store_list_export_replay(capsys, tmp_path):
    db = tmp_path / "games.sqlite"
    code, out, err = run(
        capsys, "match", "random", "random:seed=4", "-n", 4, "--layout", "mini", "--seed", 9, "--db", db, "--workers", 1
    )
    assert code == 0, err
    assert "4 game(s) stored in" in out
    with GameArchive(db, create=False) as archive:
        stored = archive.games()
    assert [g.game_index for g in stored] == [0, 1, 2, 3]
    assert [(g.black_player, g.white_player) for g in stored] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert stored[0].black == "random" and stored[0].black_played.startswith("random:seed=")
    assert stored[0].white == stored[0].white_played == "random:seed=4"
    assert stored[0].layout == "mini" and stored[0].board_side == 3 and stored[0].win_threshold == 2
    assert stored[0].max_plies == 400 and stored[0].repetitions == 3 and stored[0].no_capture_plies is None
    assert stored[0].opening_plies == 2 and stored[0].times[:2] == [None, None]
    assert len(stored[0].moves.split()) == stored[0].plies == len(stored[0].times)
    # the same games as playing the schedule directly
    results = play_all(schedule(["random", "random:seed=4"], 4, mini_settings(seed=9)))
    assert [g.moves for g in stored] == [" ".join(r.moves) for r in results]
    assert [(g.result, g.reason, g.lost_black, g.lost_white) for g in stored] == [
        (r.result, r.reason, r.lost_black, r.lost_white) for r in results
    ]

    code, out, err = run(capsys, "games", "--db", db)
    assert code == 0, err
    assert "4 of 4 matching game(s) shown" in out
    assert "random:seed=4" in out and "match 1" in out
    code, out, err = run(capsys, "games", "list", "--db", db, "--result", stored[0].result, "--limit", 1)
    assert "1 of" in out

    records_file = tmp_path / "out.txt"
    code, out, err = run(capsys, "games", "export", "--db", db, "--out", records_file)
    assert code == 0, err
    records = read_records(records_file)
    assert len(records) == 4
    for rec, g in zip(records, stored):
        assert " ".join(m.notation() for m in rec.game.moves) == g.moves
        assert rec.result == g.result and rec.tags["Reason"] == g.reason
        assert rec.tags["Black"] == g.black_played and rec.tags["Layout"] == "mini"
        assert rec.tags["MaxPlies"] == "400" and rec.tags["GameId"] == str(g.id)
    code, out, err = run(capsys, "games", "export", "--db", db, "--id", 2, 3, "--out", records_file)
    assert code == 0 and len(read_records(records_file)) == 2

    code, out, err = run(capsys, "replay", "--db", db, "--id", 2, "--ply", 3)
    assert code == 0, err
    game = Game(Position.from_string(MINI), DEFAULT_RULES)
    for move in stored[1].moves.split()[:3]:
        game.push(move)
    assert game.position.to_string() in out
    code, out, err = run(capsys, "replay", "--db", db, "--id", 2)
    assert code == 0 and f"result: {stored[1].result}" in out


def test_games_filters(capsys, tmp_path):
    db = tmp_path / "g.sqlite"
    assert run(capsys, "match", "test-first", "random", "-n", 2, "--layout", "mini", "--db", db, "--seed", 1)[0] == 0
    assert run(capsys, "match", "random", "random", "-n", 2, "--layout", "small", "--max-plies", 20, "--db", db)[0] == 0
    with GameArchive(db, create=False) as archive:
        assert archive.count() == 4
        assert archive.count(player="TEST-FIRST") == 2
        assert archive.count(layout="small") == 2
        assert archive.count(run=2) == 2
        assert archive.count(result="1/2-1/2", layout="small") == 2  # the ply cap of 20
        assert [g.id for g in archive.games(limit=3, newest_first=True)] == [4, 3, 2]
        runs = archive.conn.execute("SELECT kind, players, status, settings FROM runs").fetchall()
    assert runs[0][:3] == ("match", json.dumps(["test-first", "random"]), "finished")
    assert json.loads(runs[1][3])["max_plies"] == 20
    code, out, err = run(capsys, "games", "--db", db, "--player", "test-first")
    assert "2 of 2 matching" in out
    code, out, err = run(capsys, "games", "--db", db, "--layout", "nowhere")
    assert code == 2 and "unknown layout" in err


def test_bad_database_files_are_one_line_errors(capsys, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a database at all, just some text\n" * 20)
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE stuff (x)")
    conn.commit()
    conn.close()
    newer = tmp_path / "newer.sqlite"
    GameArchive(newer).close()
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    damaged = tmp_path / "damaged.sqlite"
    conn = sqlite3.connect(damaged)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute("CREATE TABLE games (id)")
    conn.execute("CREATE TABLE runs (id)")
    conn.commit()
    conn.close()
    cases = [
        (text, "is not a Sumito game database (not an SQLite file"),
        (other, "is an SQLite database of another program"),
        (newer, f"schema version {SCHEMA_VERSION + 1} (written by a newer Sumito)"),
        (damaged, "is damaged"),
        (tmp_path, "is a folder"),
        (tmp_path / "missing.sqlite", "there is no game database at"),
    ]
    for path, message in cases:
        for argv in (("games", "--db", path), ("replay", "--db", path, "--id", 1)):
            code, _, err = run(capsys, *argv)
            assert code == 2, (path, err)
            assert err.startswith("sumito: error: ") and message in err, err
            assert len(err.strip().splitlines()) == 1
        if path.name != "missing.sqlite":
            code, _out, err = run(capsys, "match", "random", "random", "-n", 1, "--layout", "mini", "--db", path)
            assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    with pytest.raises(ArchiveError):
        GameArchive(text)
    assert not (tmp_path / "missing.sqlite").exists()


def test_default_database_location(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "sumito" / "games.sqlite"
    code, out, err = run(capsys, "match", "random", "random", "-n", 1, "--layout", "mini", "--no-db")
    assert code == 0 and "not stored" in out and not default_db_path().exists()
    code, _, err = run(capsys, "match", "random", "random", "-n", 1, "--layout", "mini")
    assert code == 0 and default_db_path().exists(), err
    code, out, _err = run(capsys, "games")
    assert "1 of 1 matching" in out
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / ".local" / "share" / "sumito" / "games.sqlite"


# ------------------------------------------------------------------ the commands
def test_match_command_output(capsys, tmp_path):
    code, out, err = run(
        capsys,
        "match",
        "random",
        "random:seed=2",
        "-n",
        6,
        "--layout",
        "mini",
        "--seed",
        3,
        "--no-db",
        "--workers",
        2,
        "--opening-plies",
        1,
    )
    assert code == 0, err
    for text in (
        "A = random, B = random:seed=2",
        "score of A",
        "profile likelihood",
        "Elo A - B",
        "as Black",
        "endings",
        "push-off",
        "plies on average",
        "seed 3",
        "opening 1 random plies",
    ):
        assert text in out, text
    # no bar when stderr is not a terminal: the run's first line, then plain progress lines, the last at 6 of 6
    assert err.startswith("Match: 6 games on 2 worker(s); mini;")
    assert err.splitlines()[-1].startswith("match: 6/6 games (100%), ") and "ETA 0:00:00" in err
    again = run(
        capsys,
        "match",
        "random",
        "random:seed=2",
        "-n",
        6,
        "--layout",
        "mini",
        "--seed",
        3,
        "--no-db",
        "--workers",
        1,
        "--opening-plies",
        1,
    )[1]
    strip = lambda s: [line for line in s.splitlines() if "per move" not in line and "s │" not in line]  # noqa: E731
    assert strip(out) == strip(again)


def test_tournament_command_output(capsys, tmp_path):
    db = tmp_path / "t.sqlite"
    code, out, err = run(
        capsys,
        "tournament",
        "random:seed=1",
        "random:seed=2",
        "test-first",
        "-n",
        2,
        "--layout",
        "mini",
        "--seed",
        1,
        "--db",
        db,
        "--workers",
        1,
    )
    assert code == 0, err
    assert "Tournament 1: 6 games" in out and "Cross table" in out and "maximum likelihood" in out
    assert "6 game(s) stored" in out
    with GameArchive(db, create=False) as archive:
        assert archive.count(run=1) == 6
        assert archive.conn.execute("SELECT kind FROM runs").fetchone()[0] == "tournament"
    # a prior of virtual draws: named in the report, every rating finite
    code, out, err = run(capsys, "tournament", "test-first", "random:seed=1", "-n", 2, "--layout", "mini",
                         "--seed", 1, "--db", db, "--workers", 1, "--prior-draws", 0.5)
    assert code == 0, err
    assert "maximum a posteriori with 0.5 virtual draws a pair" in out and "+inf" not in out and "unbounded" not in out
    code, out, err = run(capsys, "tournament", "a", "b", "--prior-draws", "nan", "--db", db)
    assert code == 2 and "--prior-draws must be a number" in err


def test_piped_tables_neither_wrap_nor_pad_and_rank_the_players(capsys, tmp_path, monkeypatch):
    # what a user copies from a pipe: a long spec stays on one line, no line ends in padding, and the
    # tournament's first column ranks (the entry number is a column of its own, as in the cross table)
    monkeypatch.delenv("COLUMNS", raising=False)
    db = tmp_path / "t.sqlite"
    long_spec = "random:seed=2385566079"
    code, out, err = run(capsys, "tournament", "test-first", long_spec, "random:seed=1234567890123", "-n", 2,
                         "--layout", "mini", "--seed", 1, "--db", db, "--workers", 1)
    assert code == 0, err
    code, games, err = run(capsys, "games", "--db", db)
    assert code == 0, err
    for text in (out, games):
        assert all(line == line.rstrip() for line in text.splitlines()), text
    assert long_spec in games and "random:seed=1234567890123" in games
    assert f"stored in {db}" in out.replace("\n", "")
    cells = lambda line: [c.strip() for c in line.replace("┃", "│").strip("│").split("│")]  # noqa: E731
    header = next(cells(line) for line in out.splitlines() if "W-D-L" in line)
    assert header[:3] == ["rank", "entry", "player"]
    rows = [cells(line) for line in out.splitlines() if "%)" in line and "│" in line]
    ranks = [int(row[0]) for row in rows]
    assert len(rows) == 3 and ranks == sorted(ranks) and ranks[0] == 1
    assert rows[0][2] == "test-first"  # the player that plays the first legal move wins


def test_command_errors(capsys, tmp_path):
    cases = [
        (("match", "nobody", "random", "--no-db"), "unknown player 'nobody'"),
        (("match", "random:depth=3", "random", "--no-db"), "has no option 'depth'"),
        (("match", "random", "random", "-n", 0, "--no-db"), "-n/--games: the value must be from 1 to"),
        (("match", "random", "random", "--repetitions", 1, "--no-db"), "repetitions must be at least 2"),
        (("match", "random", "random", "--workers", 0, "--no-db"), "--workers: the value must be from 1 to"),
        (("match", "random", "random", "--seed", -1, "--no-db"), "--seed: the value must be a whole number"),
        (("match", "random", "random", "--layout", "moon", "--no-db"), "unknown layout"),
        (("match", "random", "random", "--position", "1ww/1w2/2b2/b3/bbb w 0 2 2", "--no-db"), "already decided"),
        (("match", "test-broken", "random", "--layout", "mini", "--no-db", "-n", 1), "failed at ply"),
        (("tournament", "random", "random", "--no-db"), "listed twice"),
        (("games", "export", "--db", tmp_path / "x.sqlite"), "needs --out"),
        (("replay",), "needs a record FILE or --id"),
        (("replay", "file.txt", "--id", 3), "needs a record FILE or --id"),
    ]
    for argv, message in cases:
        code, _out, err = run(capsys, *argv)
        assert code == 2, (argv, err)
        # the error is one line, the last; a run that started has named itself on the line before
        lines = err.strip().splitlines()
        assert message in lines[-1] and lines[-1].startswith("sumito: error: "), (argv, err)
        assert len(lines) == 1 or (len(lines) == 2 and lines[0].startswith("Match: ")), err


def test_a_crash_marks_the_run_failed(capsys, tmp_path):
    db = tmp_path / "c.sqlite"
    code, _, err = run(
        capsys,
        "match",
        "random",
        "test-broken:after=1000",
        "-n",
        3,
        "--layout",
        "small",
        "--max-plies",
        40,
        "--db",
        db,
        "--workers",
        1,
        "--seed",
        2,
    )
    assert code == 0, err  # 20 moves each: nobody crashed
    code, _out, err = run(
        capsys,
        "match",
        "random",
        "test-broken:after=10",
        "-n",
        3,
        "--layout",
        "small",
        "--max-plies",
        40,
        "--db",
        db,
        "--workers",
        1,
        "--seed",
        2,
    )
    assert code == 2 and "failed at ply" in err
    with GameArchive(db, create=False) as archive:
        statuses = [r[0] for r in archive.conn.execute("SELECT status FROM runs ORDER BY id")]
    assert statuses == ["finished", "failed"]


def test_replay_of_a_file_still_works(capsys, tmp_path):
    path = tmp_path / "g.txt"
    assert main(["game", "--layout", "mini", "--black", "random:seed=1", "--white", "random:seed=2", "--out", str(path),
                 "--quiet"]) == 0
    capsys.readouterr()
    code, out, _err = run(capsys, "replay", path, "--ply", 1)
    assert code == 0 and "after ply 1" in out


def test_match_command_adjudicates_draws_on_marbles(capsys):
    # greedy takes marbles from random and games stop at a 12-ply cap: every game is decided on marbles
    argv = ["match", "greedy", "random:seed=1", "-n", 4, "--seed", 5, "--no-db", "--workers", 1, "--max-plies", 12]
    code, out, err = run(capsys, *argv, "--adjudicate", "marbles")
    assert code == 0, err
    assert "on marbles" in out and "draws scored on marbles" in out
    code, plain, err = run(capsys, *argv)
    assert code == 0, err
    assert "on marbles" not in plain
    code, out, err = run(capsys, *argv, "--adjudicate", "coin")
    assert code == 2 and "invalid choice: 'coin'" in err and err.count("\n") == 1


def test_a_stored_resignation_replays_with_its_declared_ending(tmp_path):
    settings = mini_settings(opening_plies=0)
    start = Position.from_string(MINI)
    moves = []
    pos = start
    for _ in range(2):
        move = pos.legal_moves()[0]
        moves.append(str(move))
        pos = pos.play(move)
    task = GameTask("a", "b", MINI, 2, False, DEFAULT_RULES, None, 0, 0)
    result = GameResult(task, tuple(moves), (0.1, 0.1), WHITE, "resignation", 0, 0, pos.to_string())
    with GameArchive(tmp_path / "a.sqlite") as archive:
        run = archive.start_run("web", ["a", "b"], 1, 1, settings)
        game_id = archive.add_game(run, ["a", "b"], result, "mini")
        game = archive.game(game_id).replay()
        assert game.outcome().describe() == "White wins (resignation)" and game.plies == 2
        assert archive.record(game_id).result == "0-1"


# ------------------------------------------------------------------ clocks
def test_a_player_that_overruns_its_clock_loses_on_time():
    settings = ArenaSettings.from_layout("mini", opening_plies=0, seed=3, clock=(0.001, 0.0))
    (first, second) = schedule(["abla:depth=4", "random"], 2, settings)
    for task in (first, second):
        result = play_game(task)
        abla_color = BLACK if task.black_id == 0 else WHITE
        assert result.reason == "time" and result.winner == 3 - abla_color, result
        assert len(result.times) == result.plies  # the move the flag stopped is not played


def test_an_engine_with_a_clock_spends_it_and_plays_on(capsys):
    argv = ["match", "engine", "random:seed=1", "-n", "2", "--layout", "mini", "--tc", "3+0.1", "--no-db", "--seed", 4]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert "time " not in out.split("endings", 1)[1].splitlines()[0]  # nobody lost on time
    assert "clock 3+0.1 s" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--tc", "0+1"], "0 < BASE"),
        (["--tc", "sixty"], "a time control is BASE+INC seconds"),
        (["--tc", "nan"], "a time control is BASE+INC seconds"),  # not a number at all
        (["--tc", "60+1", "--movetime", "1"], "not both"),
    ],
)
def test_bad_time_controls(capsys, argv, message):
    code, _out, err = run(capsys, "match", "random", "random", "-n", "2", "--no-db", *argv)
    assert code == 2 and message in err and err.count("\n") == 1, err
