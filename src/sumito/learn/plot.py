"""``sumito plot``: learning curves of training runs, drawn from their ``curve.csv`` files.

Each run folder's ``curve.csv`` (see :mod:`sumito.learn.run`) holds one row per evaluation: the
training games played so far and the evaluation games' wins, draws and losses against a fixed
opponent. A curve is the evaluation *score* (win 1, draw ½; or the win or draw rate with
``--metric``) against training games, with the 95% profile-likelihood interval of every point
(:func:`sumito.arena.ratings.score_interval`) as a band. ``--smooth K`` pools each point's games
with those of the K − 1 evaluations before it (a moving average weighted by games, whose band is
the interval of the pooled games). ``--average`` aggregates several runs evaluated at the same game
counts (seeds of one configuration) as RL research reports them (:mod:`sumito.learn.bands`): at each
point the interquartile mean over the runs (``--statistic median`` or ``mean`` instead) with its
percentile-bootstrap 95% band, and every run's own curve drawn faintly behind; runs given the same
``--label`` are aggregated together, so one plot can compare several configurations.

The figure is drawn with matplotlib's Agg canvas (no display needed) and written atomically, as
PNG or SVG according to the output's suffix. matplotlib is imported only when a plot is drawn.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sumito.arena.ratings import score_interval
from sumito.defaults import PLOT_METRICS
from sumito.errors import SumitoError
from sumito.fileio import MAX_CSV_BYTES, atomic_write_bytes, read_file_bounded
from sumito.learn.bands import Estimate, interval_estimate

FORMATS = {".png": "png", ".svg": "svg"}
REQUIRED = ("games", "wins", "draws", "losses")
METRIC_NAMES = {"score": "score", "wins": "win rate", "draws": "draw rate"}
_STAT_NAMES = {"iqm": "IQM", "median": "median", "mean": "mean"}


class PlotError(SumitoError):
    """A curve file that cannot be read, or plot options that do not fit together."""


@dataclass
class Curve:
    """One run's evaluations, in order of training games (one row per game count)."""

    source: Path  # the curve.csv file
    label: str
    games: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray
    opponents: tuple[str, ...]  # the distinct evaluation opponents named in the file (may be empty)


@dataclass
class Series:
    """What is drawn for one line: x, y and the band's lower and upper edges."""

    label: str
    x: np.ndarray
    y: np.ndarray
    low: np.ndarray
    high: np.ndarray
    runs: int = 1
    statistic: str = ""  # of an aggregate of runs: "iqm", "median" or "mean"
    members: tuple[Series, ...] = ()  # of an aggregate: each run's own line


def curve_file(path: str | Path) -> Path:
    """The ``curve.csv`` of a run folder, or ``path`` itself when it is a file."""
    p = Path(path)
    if p.is_dir():
        return p / "curve.csv"
    return p


def default_label(path: str | Path) -> str:
    """The run folder's name (for a CSV file given directly: its folder's name if it is ``curve.csv``)."""
    p = Path(path)
    if p.is_dir() or p.name == "curve.csv":
        p = p.resolve() if p.is_dir() else p.resolve().parent
        return p.name or str(path)
    return p.stem


def _count(text: str, field: str, where: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise PlotError(f"{where}: {field} {text!r} is not a whole number") from None
    if value < 0:
        raise PlotError(f"{where}: {field} {value} is negative")
    return value


def load_curve(path: str | Path, label: str | None = None) -> Curve:
    """Read a run folder's ``curve.csv`` (or a CSV file given directly); :class:`PlotError` if unusable.

    Rows repeating a game count (an evaluation replayed after ``--resume`` from an earlier
    checkpoint) keep the last one; rows are sorted by game count.
    """
    if not Path(path).exists():
        raise PlotError(f"{path}: no such run folder or curve file")
    source = curve_file(path)
    if not source.exists():
        raise PlotError(f"{source}: missing (is {path} a training run folder?)")
    if source.is_dir():
        raise PlotError(f"{source}: a folder, not a curve file")
    try:
        text = read_file_bounded(source, MAX_CSV_BYTES, "curve file").decode("utf-8")
    except UnicodeDecodeError:
        raise PlotError(f"{source}: not a text (UTF-8) CSV file") from None
    except ValueError as exc:  # not a regular file (a FIFO, a device), too large, unreadable
        raise PlotError(str(exc)) from None
    if not text.strip():
        raise PlotError(f"{source}: empty file (no header, no evaluations)")
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise PlotError(f"{source}: not a CSV file ({exc})") from None
    header = [h.strip() for h in rows[0]]
    missing = [f for f in REQUIRED if f not in header]
    if missing:
        raise PlotError(
            f"{source}: missing column(s) {', '.join(missing)}; the header is {','.join(header)!r} "
            f"(a curve needs {', '.join(REQUIRED)})"
        )
    index = {name: i for i, name in enumerate(header)}
    by_games: dict[int, tuple[int, int, int]] = {}
    opponents: list[str] = []
    for line, row in enumerate(rows[1:], start=2):
        if not row or not any(cell.strip() for cell in row):
            continue  # a blank line
        where = f"{source} line {line}"
        if len(row) != len(header):
            raise PlotError(f"{where}: {len(row)} fields, but the header has {len(header)}")
        games = _count(row[index["games"]], "games", where)
        w, d, lo = (_count(row[index[f]], f, where) for f in ("wins", "draws", "losses"))
        if w + d + lo == 0:
            raise PlotError(f"{where}: no evaluation games (wins, draws and losses are all 0)")
        by_games[games] = (w, d, lo)
        if "opponent" in index:
            opponent = row[index["opponent"]].strip()
            if opponent and opponent not in opponents:
                opponents.append(opponent)
    if not by_games:
        raise PlotError(f"{source}: no evaluation rows yet (train with --eval-every K to record some)")
    order = sorted(by_games)
    counts = np.array([by_games[g] for g in order], dtype=np.int64)
    return Curve(
        source=source,
        label=label if label is not None else default_label(path),
        games=np.array(order, dtype=np.int64),
        wins=counts[:, 0],
        draws=counts[:, 1],
        losses=counts[:, 2],
        opponents=tuple(opponents),
    )


def _pooled(values: np.ndarray, k: int) -> np.ndarray:
    """Trailing sums over windows of ``k`` (shorter at the start)."""
    total = np.concatenate(([0], np.cumsum(values)))
    idx = np.arange(1, len(values) + 1)
    return total[idx] - total[np.maximum(idx - k, 0)]


def series(curve: Curve, metric: str = "score", smooth: int = 1) -> Series:
    """The line of one run: ``metric`` with its 95% interval, pooled over ``smooth`` evaluations."""
    if metric not in PLOT_METRICS:
        raise PlotError(f"unknown metric {metric!r}; choose from {', '.join(PLOT_METRICS)}")
    if smooth < 1:
        raise PlotError(f"--smooth must be 1 or more, not {smooth}")
    w, d, lo = (_pooled(a, smooth) for a in (curve.wins, curve.draws, curve.losses))
    points = []
    for wi, di, li in zip(w.tolist(), d.tolist(), lo.tolist()):
        n = wi + di + li
        if metric == "score":
            points.append(score_interval(wi, di, li))
        else:  # a win (draw) rate: the same interval with draws 0 is the binomial likelihood-ratio interval
            hits = wi if metric == "wins" else di
            points.append(score_interval(hits, 0, n - hits))
    y, low, high = (np.array(v, dtype=float) for v in zip(*points))
    return Series(curve.label, curve.games.astype(float), y, low, high)


def average(label: str, group: list[Series], curves: list[Curve], statistic: str = "iqm") -> Series:
    """The ``statistic`` (interquartile mean by default) of runs evaluated at the same game counts, with
    its bootstrap 95% band at each point (:func:`sumito.learn.bands.interval_estimate`)."""
    first = curves[0]
    for curve in curves[1:]:
        if not np.array_equal(curve.games, first.games):
            raise PlotError(
                f"cannot average {curve.source} with {first.source}: they were evaluated at different game counts "
                f"({_describe(curve.games)} against {_describe(first.games)})"
            )
    ys = np.stack([s.y for s in group])
    estimates = [interval_estimate(ys[:, i], statistic) for i in range(ys.shape[1])]
    y, low, high = (np.array(v, dtype=float) for v in zip(*((e.value, e.low, e.high) for e in estimates)))
    return Series(label, group[0].x, y, low, high, runs=len(group), statistic=statistic, members=tuple(group))


def _describe(games: np.ndarray) -> str:
    shown = ",".join(str(g) for g in games[:4].tolist())
    more = f",… ({len(games)} evaluations)" if len(games) > 4 else ""
    return shown + more


def _opponent(curves: list[Curve]) -> str | None:
    """The single evaluation opponent of all ``curves``, or None when there is none or several."""
    names = {o for c in curves for o in c.opponents}
    return names.pop() if len(names) == 1 else None


def build_series(
    curves: list[Curve], metric: str = "score", smooth: int = 1, average_runs: bool = False, statistic: str = "iqm"
) -> list[Series]:
    """The lines to draw: one per run, or one per label (runs sharing a label averaged) with ``average_runs``."""
    lines = [series(c, metric, smooth) for c in curves]
    if not average_runs:
        return lines
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(curves):
        groups.setdefault(c.label, []).append(i)
    out = []
    for label, members in groups.items():
        group_curves = [curves[i] for i in members]
        if len({o for c in group_curves for o in c.opponents}) > 1:
            names = sorted({o for c in group_curves for o in c.opponents})
            raise PlotError(f"cannot average the runs labelled {label!r}: evaluated against {', '.join(names)}")
        out.append(average(label, [lines[i] for i in members], group_curves, statistic))
    return out


def render(lines: list[Series], curves: list[Curve], metric: str, fmt: str, title: str | None = None) -> bytes:
    """The figure as ``fmt`` (``png`` or ``svg``) bytes; in SVG line n is group ``curve-<n>``, its band ``band-<n>``."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        raise PlotError("plotting needs matplotlib (pip install matplotlib)") from None

    opponent = _opponent(curves)
    name = METRIC_NAMES[metric]
    averaged = [s for s in lines if s.runs > 1]
    band = f"{_STAT_NAMES[averaged[0].statistic]} over runs, bootstrap 95% band" if averaged else "95% interval"
    with matplotlib.rc_context({"svg.hashsalt": "sumito", "svg.fonttype": "none"}):
        fig = Figure(figsize=(8, 5), dpi=100, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        for n, s in enumerate(lines):
            label = s.label if s.runs == 1 else f"{s.label} ({_STAT_NAMES[s.statistic]} of {s.runs} runs)"
            if opponent is None:
                own = {o for c in curves if c.label == s.label for o in c.opponents}
                if len(own) == 1:
                    label += f" vs {own.pop()}"
            (line,) = ax.plot(s.x, s.y, marker="o", markersize=3, linewidth=1.5, label=label, zorder=3)
            line.set_gid(f"curve-{n}")
            for k, member in enumerate(s.members):  # each run faintly behind its aggregate
                ax.plot(member.x, member.y, color=line.get_color(), alpha=0.25, linewidth=0.7,
                        zorder=1)[0].set_gid(f"run-{n}-{k}")
            ax.fill_between(s.x, s.low, s.high, color=line.get_color(), alpha=0.2, linewidth=0).set_gid(f"band-{n}")
        ax.set_xlabel("training games")
        against = f" against {opponent}" if opponent else ""
        ax.set_ylabel(f"{name}{against}\n({band})", fontsize="small")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlim(left=0)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        ax.set_title(title or f"Evaluation {name}{against}")
        buffer = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {}
        fig.savefig(buffer, format=fmt, metadata=metadata)
    return buffer.getvalue()


def draw_band(ax, xs: Sequence[float], estimates: Sequence[Estimate], runs: Iterable[Mapping[float, float]] = (),
              **line) -> str:
    """One arm of an experiment's plot on ``ax``: the statistic over its runs (``estimates``, one a point of
    ``xs``) as a line with its band, and each run's own curve (``runs``: x -> y) faintly behind in the same
    colour; ``line`` goes to the line (label, linestyle, colour). Returns the colour."""
    (drawn,) = ax.plot(xs, [e.value for e in estimates], marker="o", zorder=3, **line)
    color = drawn.get_color()
    ax.fill_between(xs, [e.low for e in estimates], [e.high for e in estimates], alpha=0.15, color=color)
    for curve in runs:
        ax.plot(list(curve), list(curve.values()), color=color, alpha=0.2, linewidth=0.6, zorder=1)
    return color


def save_figure(fig, path: str | Path, dpi: int = 110) -> Path:
    """Write a matplotlib figure atomically, in the format its suffix names (PNG by default), so a killed
    experiment never leaves half a picture; returns the path."""
    path = Path(path)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=path.suffix.lstrip(".") or "png", dpi=dpi)
    atomic_write_bytes(path, buffer.getvalue())
    return path


def plot_runs(
    runs: list[str],
    out: str | Path,
    labels: list[str] | None = None,
    metric: str = "score",
    smooth: int = 1,
    average_runs: bool = False,
    title: str | None = None,
    statistic: str = "iqm",
) -> list[Series]:
    """Read the runs' curves, draw them and write ``out`` atomically; returns the lines drawn."""
    out = Path(out)
    fmt = FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise PlotError(f"{out}: unknown image format {out.suffix or '(no suffix)'!r}; use .png or .svg")
    if not runs:
        raise PlotError("give at least one run folder or curve.csv file")
    labels = list(labels or [])
    if labels and len(labels) != len(runs) and not (average_runs and len(labels) == 1):
        need = "one per run, or one for all with --average" if average_runs else "one per run"
        raise PlotError(f"{len(labels)} --label value(s) for {len(runs)} run(s); give {need}")
    if len(labels) == 1 and len(runs) > 1:
        labels = labels * len(runs)
    if not labels and average_runs:
        labels = ["all runs" if len(runs) > 1 else default_label(runs[0])] * len(runs)
    curves = [load_curve(run, labels[i] if labels else None) for i, run in enumerate(runs)]
    if not labels:  # the folder names, unless two are the same: then the paths as given
        names = [c.label for c in curves]
        if len(set(names)) < len(names):
            for c, run in zip(curves, runs):
                c.label = str(run)
    lines = build_series(curves, metric, smooth, average_runs, statistic)
    atomic_write_bytes(out, render(lines, curves, metric, fmt, title))
    return lines


