"""experiments/wiering_backgammon.py's report over several seeds (the pooled table, the IQM table with its
bootstrap band, the plot), from fake run folders: nothing is trained and gnubg is not needed."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

import wiering_backgammon as wb

from sumito.learn.backgammon.run import CURVE_FIELDS, BackgammonRunError
from sumito.learn.runfolder import RunFolder

ARMS = ("self-play", "self-play, expert evals")
SEEDS = (2010, 2011, 2012)
N = 10  # test games a row


def row(games: int, opponent: str, points_sum: int, seconds: float) -> dict:
    """A test row of N games of ±1 point each (so points_sq = N and the wins follow from the sum)."""
    wins = (N + points_sum) // 2
    return {"games": games, "opponent": opponent, "n": N, "equity": points_sum / N, "half_width": 0.5,
            "win_rate": wins / N, "points_sum": points_sum, "points_sq": N, "wins": wins, "gammons_won": 0,
            "gammons_lost": 0, "train_seconds": seconds}


def fake_runs(out: Path) -> None:
    """3 seeds × 2 arms to 2,000 games; the second arm's last seed unfinished (tested at 1,000 games only).
    Against pubeval at 2,000 games the first arm's runs score +0.2, +0.6, -0.2 points a game."""
    args = wb.build_parser().parse_args(["regimes", "--games", "2000", "--test-games", str(N)])
    sums = {2010: 2, 2011: 6, 2012: -2}
    for a, arm in enumerate(ARMS):
        for seed in SEEDS:
            folder = RunFolder(out / "regimes" / wb.folder_name(arm, seed), CURVE_FIELDS, BackgammonRunError)
            folder.open()
            folder.write_config(asdict(wb.config_of("regimes", arm, seed, args)))
            rows = []
            for games in (1000, 2000):
                if a == 1 and seed == 2012 and games == 2000:
                    break
                rows += [row(games, "pubeval", sums[seed] if games == 2000 else a * 2, games / 10),
                         row(games, wb.EXPERT, -4, games / 10)]
            folder.write_curve(rows)


def test_report_tabulates_the_iqm_over_the_runs_with_its_bootstrap_band(tmp_path, capsys):
    fake_runs(tmp_path)
    plot = tmp_path / "plot.png"
    # --seeds defaults to 10: seeds 2013-2019 have no folder, and the headings count the runs found
    assert wb.main(["regimes", "--report", "--arms", "1,2", "--games", "2000", "--test-games", str(N),
                    "--out", str(tmp_path), "--plot", str(plot)]) == 0
    out, err = capsys.readouterr()
    assert "self-play seed 2013: no run" in err and "self-play, expert evals seed 2012 has tests up to 1000" in err
    lines = out.splitlines()
    pooled_head = next(i for i, line in enumerate(lines) if line.startswith("### regimes: equity (points per game) "
                                                                          "against pubeval"))
    assert "2–3 runs × 10 games a cell" in lines[pooled_head]  # the unfinished run: 2 runs at 2,000 games
    # pooled: 0 and then 6 points over 30 games (15 and 18 wins). At 1,000 games the runs agree: the games'
    # half-width 1.96·sqrt((1 - mean²)·30/29 / 30); at 2,000 they score +0.2, +0.6, -0.2, and Student's t over
    # them is wider: 4.303 · 0.4 / sqrt(3)
    assert "the wider of the test games' and Student's t over the runs' equities" in lines[pooled_head]
    assert lines[pooled_head + 4] == "| self-play | +0.000 ± 0.364 (50%) | +0.200 ± 0.994 (60%) | 200 |"
    iqm_head = next(i for i, line in enumerate(lines) if line.startswith("### regimes: equity against pubeval, IQM"))
    assert iqm_head > pooled_head and "bootstrap 95% band" in lines[iqm_head]
    assert lines[iqm_head + 2] == "| arm | 1000 | 2000 |"
    # three runs: the IQM is their mean, and the 2.5th/97.5th percentiles of 2,000 resampled means are the
    # lowest and the highest run (each resample of three alike has probability 1/27 > 2.5%)
    assert lines[iqm_head + 4] == "| self-play | +0.000 (+0.000, +0.000) | +0.200 (-0.200, +0.600) |"
    band = wb.run_band({seed: [row(2000, "pubeval", s, 0)] for seed, s in zip(SEEDS, (2, 6, -2))})
    assert (band.value, band.low, band.high, band.runs) == (pytest.approx(0.2), pytest.approx(-0.2),
                                                            pytest.approx(0.6), 3)
    assert lines[iqm_head + 5].startswith("| self-play, expert evals | +0.200 (+0.200, +0.200) | ")
    assert any("against gnubg:ply=0, IQM over the runs (2–3 runs × 10 games a cell)" in line for line in lines)
    assert plot.stat().st_size > 0


def test_report_of_one_run_has_no_iqm_table(tmp_path, capsys):
    fake_runs(tmp_path)
    plot = tmp_path / "one.png"
    assert wb.main(["regimes", "--report", "--arms", "1", "--games", "2000", "--seeds", "1", "--test-games",
                    str(N), "--out", str(tmp_path), "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "against pubeval, 1 run × 10 games: the pooled test games' mean" in out
    assert "| self-play | +0.000 ± 0.653 (50%) | +0.200 ± 0.640 (60%) | 200 |" in out  # 1.96·sqrt((1 - m²)/9)
    assert "IQM" not in out
    assert plot.stat().st_size > 0
