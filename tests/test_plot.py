"""``sumito plot``: learning curves from run folders' curve.csv files."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from sumito.arena.ratings import score_interval
from sumito.cli import main
from sumito.learn.bands import BandError, interval_estimate, iqm, widened
from sumito.learn.plot import PlotError, build_series, load_curve, plot_runs, series

# the columns of curve files written before the "adjudicate" column: such files still plot
HEADER = "games,epsilon,opponent,eval_games,wins,draws,losses,score"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SVG = "{http://www.w3.org/2000/svg}"


def write_run(root: Path, name: str, rows: list[tuple[int, int, int, int]], opponent: str = "heuristic") -> Path:
    """A run folder whose curve.csv has one row per (games, wins, draws, losses)."""
    folder = root / name
    folder.mkdir(parents=True)
    lines = [HEADER]
    for games, w, d, lo in rows:
        n = w + d + lo
        lines.append(f"{games},0.100000,{opponent},{n},{w},{d},{lo},{(w + 0.5 * d) / n:.4f}")
    (folder / "curve.csv").write_text("\n".join(lines) + "\n")
    return folder


ROWS_A = [(500, 10, 5, 35), (1000, 20, 10, 20), (1500, 30, 10, 10)]
ROWS_B = [(500, 15, 5, 30), (1000, 25, 10, 15), (1500, 35, 10, 5)]


def svg_lines(path: Path) -> dict[str, int]:
    """{group id: vertices of its line path} for the SVG groups curve-<n>."""
    root = ET.parse(path).getroot()
    out = {}
    for g in root.iter(f"{SVG}g"):
        gid = g.get("id", "")
        if gid.startswith("curve-"):
            paths = g.findall(f"{SVG}path")
            assert len(paths) == 1, gid
            out[gid] = sum(tok in ("M", "L") for tok in paths[0].get("d").split())
    return out


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["plot", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_png_and_svg_one_line_per_run(tmp_path, capsys):
    a, b = write_run(tmp_path, "a", ROWS_A), write_run(tmp_path, "b", ROWS_B)
    png = tmp_path / "curves.png"
    code, out, err = run_cli(capsys, str(a), str(b), "--out", str(png))
    assert (code, err) == (0, "")
    assert "2 line(s) from 2 run(s)" in out
    assert png.read_bytes().startswith(PNG_MAGIC)

    svg = tmp_path / "out" / "curves.SVG"  # the suffix in any case
    svg.parent.mkdir()  # a missing folder is an error (tests/test_cli.py), not made silently
    assert main(["plot", str(a), str(b / "curve.csv"), "--out", str(svg), "--label", "first", "second"]) == 0
    text = svg.read_text()
    assert svg_lines(svg) == {"curve-0": 3, "curve-1": 3}
    assert "first" in text and "second" in text and "against heuristic" in text
    assert not list(svg.parent.glob(".*.tmp"))  # the temporary file was renamed


def test_default_labels_and_opponents(tmp_path):
    a = write_run(tmp_path, "m2", ROWS_A, opponent="heuristic")
    b = write_run(tmp_path / "other", "m2", ROWS_B, opponent="random")
    curves = [load_curve(a), load_curve(b / "curve.csv")]
    assert [c.label for c in curves] == ["m2", "m2"]
    assert [c.opponents for c in curves] == [("heuristic",), ("random",)]
    out = tmp_path / "c.svg"
    plot_runs([str(a), str(b)], out)  # same folder names: labelled by the paths as given
    text = out.read_text()
    assert str(a) in text and str(b) in text
    assert "vs heuristic" in text and "vs random" in text  # two opponents: named in the legend


def test_series_values_and_intervals(tmp_path):
    curve = load_curve(write_run(tmp_path, "a", ROWS_A))
    s = series(curve)
    assert s.x.tolist() == [500, 1000, 1500]
    for i, (_, w, d, lo) in enumerate(ROWS_A):
        assert (s.y[i], s.low[i], s.high[i]) == pytest.approx(score_interval(w, d, lo))
    wins = series(curve, "wins")
    assert wins.y.tolist() == pytest.approx([0.2, 0.4, 0.6])
    assert (wins.y[0], wins.low[0], wins.high[0]) == pytest.approx(score_interval(10, 0, 40))
    assert series(curve, "draws").y.tolist() == pytest.approx([0.1, 0.2, 0.2])
    assert np.all((s.low <= s.y) & (s.y <= s.high)) and s.low.min() >= 0 and s.high.max() <= 1


def test_smoothing_pools_the_last_k_evaluations(tmp_path, capsys):
    folder = write_run(tmp_path, "a", ROWS_A)
    s = series(load_curve(folder), smooth=2)
    # the first point has no predecessor; the others pool two evaluations' games
    assert s.y.tolist() == pytest.approx([0.25, (30 + 7.5) / 100, (50 + 10) / 100])
    assert (s.low[2], s.high[2]) == pytest.approx(score_interval(50, 20, 30)[1:])
    assert series(load_curve(folder), smooth=1).y.tolist() == pytest.approx([0.25, 0.5, 0.7])
    out = tmp_path / "s.svg"
    assert main(["plot", str(folder), "--smooth", "3", "--out", str(out)]) == 0
    assert svg_lines(out) == {"curve-0": 3}
    code, _, err = run_cli(capsys, str(folder), "--smooth", "0", "--out", str(tmp_path / "x.png"))
    assert code == 2 and "--smooth: the value must be from 1 to 10000, not 0" in err


def test_average_is_the_iqm_with_a_bootstrap_band(tmp_path, capsys):
    a, b = write_run(tmp_path, "s1", ROWS_A), write_run(tmp_path, "s2", ROWS_B)
    assert len(build_series([load_curve(a), load_curve(b)], average_runs=True)) == 2  # labels differ
    lines = build_series([load_curve(a, "seeds"), load_curve(b, "seeds")], average_runs=True)
    assert len(lines) == 1 and lines[0].runs == 2
    assert lines[0].y.tolist() == pytest.approx([0.3, 0.55, 0.75])
    assert lines[0].low.tolist() == pytest.approx([0.25, 0.5, 0.7])
    assert lines[0].high.tolist() == pytest.approx([0.35, 0.6, 0.8])

    out = tmp_path / "avg.svg"
    code, stdout, _ = run_cli(capsys, str(a), str(b), "--average", "--out", str(out))
    assert code == 0 and "1 line(s) from 2 run(s)" in stdout
    assert svg_lines(out) == {"curve-0": 3}
    text = out.read_text()
    assert "all runs (IQM of 2 runs)" in text and "IQM over runs, bootstrap 95% band" in text
    assert 'id="run-0-0"' in text and 'id="run-0-1"' in text  # each run faint behind


def test_average_groups_by_label(tmp_path):
    runs = [str(write_run(tmp_path, f"k{k}-s{s}", ROWS_A if s == 1 else ROWS_B)) for k in (0, 1) for s in (1, 2)]
    out = tmp_path / "kappa.svg"
    lines = plot_runs(runs, out, labels=["k=0", "k=0", "k=1", "k=1"], average_runs=True)
    assert [(s.label, s.runs) for s in lines] == [("k=0", 2), ("k=1", 2)]
    assert svg_lines(out) == {"curve-0": 3, "curve-1": 3}
    single = plot_runs(runs[:2], tmp_path / "one.png", labels=["k=0"], average_runs=True)
    assert [(s.label, s.runs) for s in single] == [("k=0", 2)]


def test_average_needs_the_same_game_counts(tmp_path, capsys):
    a = write_run(tmp_path, "a", ROWS_A)
    b = write_run(tmp_path, "b", ROWS_B[:2])
    code, _, err = run_cli(capsys, str(a), str(b), "--average", "--out", str(tmp_path / "x.png"))
    assert code == 2 and err.count("\n") == 1
    assert "cannot average" in err and "different game counts" in err
    c = write_run(tmp_path, "c", ROWS_B, opponent="random")
    code, _, err = run_cli(capsys, str(a), str(c), "--average", "--out", str(tmp_path / "x.png"))
    assert code == 2 and "heuristic, random" in err
    assert not (tmp_path / "x.png").exists()


def test_repeated_game_counts_keep_the_last_row(tmp_path):
    folder = write_run(tmp_path, "a", [(1000, 20, 10, 20), (500, 10, 5, 35), (1000, 40, 0, 10)])
    curve = load_curve(folder)
    assert curve.games.tolist() == [500, 1000]
    assert curve.wins.tolist() == [10, 40]


def _bad(tmp_path: Path, text: str | bytes) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir()
    path = folder / "curve.csv"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return folder


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty file"),
        ("\n  \n", "empty file"),
        (HEADER + "\n", "no evaluation rows yet"),
        ("games,score\n500,0.5\n", "missing column(s) wins, draws, losses"),
        (HEADER + "\n500,0.1,heuristic,50,ten,5,35,0.25\n", "line 2: wins 'ten' is not a whole number"),
        (HEADER + "\n500,0.1,heuristic,50,10,5,35,0.25\n1e3,0.1,h,50,1,1,1,0.5\n", "line 3: games '1e3'"),
        (HEADER + "\n500,0.1,heuristic,50,-1,5,35,0.25\n", "wins -1 is negative"),
        (HEADER + "\n500,0.1,heuristic,50,10,5\n", "line 2: 6 fields, but the header has 8"),
        (HEADER + "\n500,0.1,heuristic,0,0,0,0,0\n", "no evaluation games"),
        (b"\xff\xfe\x00g\x00a\x00m\x00e", "not a text (UTF-8) CSV file"),
    ],
)
def test_bad_curve_files(tmp_path, capsys, content, message):
    folder = _bad(tmp_path, content)
    out = tmp_path / "x.png"
    code, stdout, err = run_cli(capsys, str(folder), "--out", str(out))
    assert code == 2 and stdout == ""
    assert err.startswith("sumito: error: ") and err.count("\n") == 1
    assert str(folder / "curve.csv") in err and message in err
    assert not out.exists()
    with pytest.raises(PlotError):
        load_curve(folder)


def test_missing_files_and_bad_options(tmp_path, capsys):
    good = write_run(tmp_path, "good", ROWS_A)
    out = str(tmp_path / "x.png")
    cases = [
        ([str(tmp_path / "nope"), "--out", out], "nope: no such run folder or curve file"),
        ([str(tmp_path), "--out", out], f"{tmp_path / 'curve.csv'}: missing (is {tmp_path} a training run folder?)"),
        ([str(good), "--out", str(tmp_path / "x.pdf")], "unknown image format '.pdf'; use .png or .svg"),
        ([str(good), "--out", str(tmp_path / "x")], "unknown image format '(no suffix)'"),
        ([str(good), str(good), "--label", "one", "--out", out], "1 --label value(s) for 2 run(s); give one per run"),
        ([str(good), "--label", "a", "b", "--average", "--out", out], "or one for all with --average"),
    ]
    for argv, message in cases:
        code, stdout, err = run_cli(capsys, *argv)
        assert code == 2 and stdout == "", argv
        assert err.count("\n") == 1 and message in err, (argv, err)
    assert not (tmp_path / "x.png").exists()
    assert main(["plot", str(good), "--metric", "elo", "--out", out]) == 2  # argparse rejects an unknown metric
    assert "invalid choice: 'elo'" in capsys.readouterr().err


def test_wins_and_draws_metrics_on_the_command_line(tmp_path):
    folder = write_run(tmp_path, "a", ROWS_A)
    for metric, name in (("wins", "win rate"), ("draws", "draw rate")):
        out = tmp_path / f"{metric}.svg"
        assert main(["plot", str(folder), "--metric", metric, "--out", str(out), "--title", f"T {metric}"]) == 0
        text = out.read_text()
        assert f"{name} against heuristic" in text and f"T {metric}" in text


def test_iqm_and_its_band():
    runs = np.array([0.0, 0.0, 30.0, 40.0, 45.0, 50.0, 52.0, 55.0, 60.0, 100.0])
    assert iqm(runs) == pytest.approx(np.mean([30.0, 40.0, 45.0, 50.0, 52.0, 55.0]))  # 2 dropped at each end
    est = interval_estimate(runs)
    assert est.low < est.value < est.high and est.runs == 10
    assert est.low >= 0.0 and est.high <= 100.0
    assert interval_estimate(runs) == est  # a seeded resampling: the same band every time
    assert interval_estimate(runs, "median").value == 47.5
    assert interval_estimate([7.0]) == interval_estimate([7.0], "mean")
    with pytest.raises(BandError, match="at least one run"):
        interval_estimate([])
    with pytest.raises(BandError, match="unknown statistic"):
        interval_estimate(runs, "max")


def test_verdict_interval_widens_to_the_spread_between_runs():
    # one run, or runs that agree: the pooled games' interval stands
    assert widened(0.4, 0.6, [0.5]) == (0.4, 0.6)
    assert widened(0.4, 0.6, [0.5, 0.5, 0.5]) == (0.4, 0.6)
    # ten runs spread wide: Student's t with 9 degrees of freedom, 2.262 * sd / sqrt(10)
    runs = np.array([0.1, 0.9] * 5)
    half = 2.262 * runs.std(ddof=1) / np.sqrt(10)
    assert widened(0.45, 0.55, runs) == pytest.approx((0.5 - half, 0.5 + half))
    # a side reaches only as far as the wider of the two
    low, high = widened(0.1, 0.55, runs)
    assert low == 0.1 and high == pytest.approx(0.5 + half)
