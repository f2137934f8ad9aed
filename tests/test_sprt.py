"""`sumito sprt`: the pentanomial SPRT's bounds, LLR and Elo estimate, its error rates on simulated
tests, the pairing of games, the opening suite, and the command end to end."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sumito.arena.errors import ArenaError
from sumito.arena.openings import load_openings, make_openings
from sumito.arena.openings import main as openings_main
from sumito.arena.ratings import expected_score
from sumito.arena.sprt import PAIR_SCORES, SprtBounds, SprtState, _closest, elo_estimate, llr, pentanomial, run_sprt
from sumito.cli import main
from sumito.games.abalone import Position


def test_bounds_are_walds_and_bad_ones_are_refused():
    b = SprtBounds(0, 10, 0.05, 0.05)
    assert b.upper == pytest.approx(math.log(19)) and b.lower == pytest.approx(-math.log(19))
    assert SprtBounds(0, 5, 0.05, 0.10).lower == pytest.approx(math.log(0.10 / 0.95))
    for kwargs in (dict(elo0=5, elo1=5), dict(elo0=10, elo1=0), dict(alpha=0), dict(beta=0.5), dict(elo1=math.nan)):
        with pytest.raises(ArenaError):
            SprtBounds(**{**dict(elo0=0.0, elo1=10.0), **kwargs})


def test_the_closest_distribution_has_the_hypothesis_mean():
    p_hat = [0.1, 0.2, 0.4, 0.25, 0.05]
    for elo in (-30.0, 0.0, 12.5, 200.0):
        s = expected_score(elo)
        q = _closest(p_hat, s)
        assert sum(q) == pytest.approx(1.0) and min(q) > 0
        assert sum(a * x for a, x in zip(PAIR_SCORES, q)) == pytest.approx(s, abs=1e-12)
    # when the observed mean is the hypothesis's, the closest distribution is the observed one
    mean = sum(a * x for a, x in zip(PAIR_SCORES, p_hat))
    assert _closest(p_hat, mean) == pytest.approx(p_hat)


def test_llr_signs_scaling_and_mirror_symmetry():
    bounds = SprtBounds(0, 10)
    assert llr([0, 0, 0, 0, 0], bounds) == 0.0
    strong, weak = [5, 20, 40, 30, 15], [15, 30, 40, 20, 5]
    assert llr(strong, bounds) > 0 > llr(weak, bounds)
    # the same proportions, ten times the pairs: ten times the evidence
    assert llr([10 * c for c in strong], bounds) == pytest.approx(10 * llr(strong, bounds), rel=1e-9)
    # B's view of the same games: counts reversed and the hypotheses mirrored give the opposite LLR
    mirrored = SprtBounds(-10, 0)
    assert llr(strong[::-1], mirrored) == pytest.approx(-llr(strong, bounds), rel=1e-9)


def test_elo_estimate_and_its_interval():
    even = elo_estimate([10, 20, 40, 20, 10])
    assert even.elo == pytest.approx(0.0, abs=1e-9) and even.low < 0 < even.high
    ahead = elo_estimate([5, 20, 40, 30, 15])  # 62.5 points a game's worth over 110 pairs
    mean = (0.25 * 20 + 0.5 * 40 + 0.75 * 30 + 15) / 110
    assert ahead.score == pytest.approx(mean) and ahead.elo == pytest.approx(400 * math.log10(mean / (1 - mean)))
    assert ahead.low < ahead.elo < ahead.high
    with pytest.raises(ArenaError):
        elo_estimate([0] * 5)


def pentanomial_of(elo: float, draw: float = 0.4) -> np.ndarray:
    s = expected_score(elo)
    game = np.array([1 - (s - draw / 2) - draw, draw, s - draw / 2])  # loss, draw, win
    return np.convolve(game, game)  # two independent games: 0, ½, 1, 1½, 2 points


@pytest.mark.parametrize(("true_elo", "low", "high"), [(0.0, 0.0, 0.12), (10.0, 0.85, 1.0)])
def test_the_test_keeps_its_error_rates_on_simulated_pairs(true_elo, low, high):
    """Under H0 (0 Elo) H1 is accepted about alpha = 5% of the time; under H1 (10 Elo) about 1 - beta."""
    rng = np.random.default_rng(2026)
    p = pentanomial_of(true_elo)
    accepted = 0
    runs = 100
    for _ in range(runs):
        state = SprtState(SprtBounds(0, 10))
        for k, category in enumerate(rng.choice(5, size=30_000, p=p)):
            state.counts[category] += 1
            if k % 4 == 3 and state.decision is not None:
                break
        accepted += state.decision == "H1"
    assert low <= accepted / runs <= high


def test_games_are_paired_by_index_whatever_order_they_finish_in():
    state = SprtState(SprtBounds(0, 10))
    seen = []
    # pair 0: A won both; pair 1: one win, one loss; pair 2: two draws (finishing out of order)
    results = [(1, 1.0), (3, 0.0), (0, 1.0), (4, 0.5), (2, 1.0), (5, 0.5)]
    run_sprt(state, results, on_pair=lambda s: seen.append(list(s.counts)))
    assert state.counts == [0, 0, 2, 0, 1] and (state.wins, state.draws, state.losses) == (3, 2, 1)
    assert seen == [[0, 0, 0, 0, 1], [0, 0, 1, 0, 1], [0, 0, 2, 0, 1]]
    assert pentanomial([2, 1, 1.5, 0.5, 0]) == (1, 1, 1, 1, 1)
    capped = run_sprt(SprtState(SprtBounds(0, 10)), results, max_pairs=2)
    assert capped.pairs == 2


def test_the_shipped_opening_suite_and_bad_suites(tmp_path):
    suite = load_openings()
    assert len(suite) == 200 and len(set(suite)) == 200
    positions = [Position.from_string(text) for text in suite]
    assert all(p.variant.side == 5 and p.lost == (0, 0) and p.legal_moves() for p in positions)
    bad = tmp_path / "bad.txt"
    bad.write_text("# nothing\n\n")
    with pytest.raises(ArenaError, match="no positions"):
        load_openings(bad)
    bad.write_text("ww1bb/wwwbbb b 0 0 1\n")
    with pytest.raises(ArenaError, match="line 1"):
        load_openings(bad)
    with pytest.raises(ArenaError, match="not a file"):
        load_openings(tmp_path)


def test_a_suite_of_the_mini_board_is_made_from_its_start(tmp_path, capsys):
    suite = make_openings(3, seed=5, layouts=("mini",))
    assert len(suite) == 3 and all(Position.from_string(t).variant.side == 3 for t in suite)
    out = tmp_path / "mini.txt"
    assert openings_main(["--layout", "mini", "--count", "3", "--seed", "5", "--out", str(out)]) == 0
    assert load_openings(out) == suite and "--layout mini" in out.read_text().splitlines()[1]
    with pytest.raises(SystemExit):  # two board sizes in one suite
        openings_main(["--layout", "mini", "--layout", "standard", "--out", str(out)])
    assert "of one board size" in capsys.readouterr().err


def test_sumito_sprt_accepts_h1_for_a_much_stronger_player(capsys):
    assert main(["sprt", "greedy", "random", "--elo1", "50", "--workers", "1", "--max-games", "400"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("H1 accepted: A at +50 Elo against B rather than +0")
    assert "LLR +" in out and "pentanomial" in out


def test_sumito_sprt_bad_arguments_are_one_line_errors(capsys):
    assert main(["sprt", "greedy", "random", "--elo0", "10", "--elo1", "5"]) == 2
    err = capsys.readouterr().err
    assert "--elo0 must be below --elo1" in err and err.count("\n") == 1
    assert main(["sprt", "greedy", "random", "--openings", "/nonexistent/suite.txt"]) == 2
    assert "not a file" in capsys.readouterr().err


def test_sumito_sprt_goes_on_from_its_journal(tmp_path, capsys):
    journal = tmp_path / "games.jsonl"
    args = ["sprt", "greedy", "random", "--elo1", "50", "--workers", "1", "--journal", str(journal)]
    assert main([*args, "--max-games", "10"]) == 0
    first = capsys.readouterr().out
    assert "undecided" in first and len(journal.read_text().splitlines()) == 10
    # a larger --max-games keeps the first ten games and plays on to a decision
    assert main([*args, "--max-games", "400"]) == 0
    out = capsys.readouterr()
    assert "10 games kept" in out.err and out.out.startswith("H1 accepted")
    again = main([*args, "--max-games", "400"])
    assert again == 0 and capsys.readouterr().out == out.out  # all from the journal: the same test
    # a fixed-length test plays every game past the bound, keeping the games already played
    assert main([*args, "--max-games", "60", "--fixed"]) == 0
    fixed = capsys.readouterr()
    assert fixed.out.startswith("fixed-length test of 60 games; at its end: H1 accepted")
    assert "60 games (30 pairs)" in fixed.out
    assert len(journal.read_text().splitlines()) >= 60
