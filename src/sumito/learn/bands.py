"""Aggregates over runs as reinforcement-learning research reports them (Agarwal et al. 2021,
"Deep RL at the edge of the statistical precipice", the method of the ``rliable`` library):

* the **interquartile mean** (IQM): the mean of the middle half of the runs (a quarter of them,
  rounded down, dropped at each end, as ``scipy.stats.trim_mean(x, 0.25)``), less sensitive to a
  collapsed or lucky run than the mean, less coarse than the median;
* a **95% bootstrap band**: the statistic of :data:`RESAMPLES` resamples of the runs (drawn with
  replacement, as many as there are), and the 2.5th and 97.5th percentiles of those (the
  percentile bootstrap). The resampling generator is seeded, so the band is the same every time.

Every run is one number here (a rate at one checkpoint); a curve's band is computed at each
checkpoint on its own.

The lab's verdict interval for a cell of several runs is another thing: the interval of the pooled test
games, widened where Student's t interval over the runs' own values is wider (:func:`widened`), so that
the spread between training runs counts as well as the test games' noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sumito.defaults import BAND_STATISTICS
from sumito.errors import SumitoError

#: Student's t, 97.5% quantile, by degrees of freedom (index); the last entry stands for df >= 30
T975 = (np.inf, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
        2.048, 2.045, 2.042)
RESAMPLES = 2000
SEED = 2021  # the band's resampling generator


class BandError(SumitoError):
    """An aggregate asked of no runs, or of an unknown statistic."""


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    runs: int


def iqm(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """The interquartile mean along ``axis``: the mean after dropping ``n // 4`` values at each end."""
    v = np.sort(np.asarray(values, dtype=np.float64), axis=axis)
    n = v.shape[axis]
    cut = n // 4
    return np.take(v, np.arange(cut, n - cut), axis=axis).mean(axis=axis)


def statistic(values: np.ndarray, name: str, axis: int = -1) -> np.ndarray:
    if name == "iqm":
        return iqm(values, axis)
    if name == "median":
        return np.median(values, axis=axis)
    if name == "mean":
        return np.mean(values, axis=axis)
    raise BandError(f"unknown statistic {name!r}; choose from {', '.join(BAND_STATISTICS)}")


def interval_estimate(values, name: str = "iqm", resamples: int = RESAMPLES, seed: int = SEED) -> Estimate:
    """``name`` of the runs' ``values`` with its percentile-bootstrap 95% band (one run: no band)."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise BandError("an aggregate needs at least one run")
    value = float(statistic(x, name))
    if x.size == 1:
        return Estimate(value, value, value, 1)
    rng = np.random.default_rng(seed)
    draws = x[rng.integers(0, x.size, size=(resamples, x.size))]
    stats = np.sort(statistic(draws, name, axis=1))
    # the percentiles by rank (no interpolation): a band of values the statistic actually took
    low = float(stats[int(0.025 * (resamples - 1))])
    high = float(stats[int(np.ceil(0.975 * (resamples - 1)))])
    return Estimate(value, low, high, int(x.size))


def widened(low: float, high: float, per_run) -> tuple[float, float]:
    """The interval (``low``, ``high``) of a cell's pooled test games, widened to Student's t 95% interval
    over the runs' own values ``per_run`` where that one reaches further (one run: unchanged)."""
    x = np.asarray(per_run, dtype=np.float64).reshape(-1)
    if x.size < 2:
        return low, high
    half = T975[min(x.size - 1, len(T975) - 1)] * float(x.std(ddof=1)) / float(np.sqrt(x.size))
    return min(low, float(x.mean()) - half), max(high, float(x.mean()) + half)
