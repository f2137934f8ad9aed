"""How far a long command has got, on stderr: a bar on a terminal, a plain line every few seconds elsewhere.

Every command that runs for minutes (``match``, ``tournament``, ``sprt``, ``train``, ``nnue gen`` and
``nnue train``, ``alphalone-td``, ``bg match``, ``bg train``, ``analyse`` of a game, the RL examples) reports
through one :class:`Progress`, so that a run whose stderr goes to a log file or a cluster's job output says
how far it is, how fast it goes and when it will end. On a terminal it is rich's progress bar; elsewhere it
is a line such as ::

    match 7: 12/100 games (12%), 2.5 games/min, elapsed 0:04:50, ETA 0:35:12; A 5  draws 2  B 5

printed every :data:`DEFAULT_INTERVAL` seconds (the environment variable ``SUMITO_PROGRESS_INTERVAL``
sets another interval; 0 prints a line at every step) — also while no item ends, so that a slow first
game or chunk is never a silence — and once more when the work is done, each line flushed as it is
written. ``quiet`` shows nothing. The rate and the ETA count only the work done since the
reporter started (a resumed run's earlier games do not make it look fast).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING

from sumito.errors import SumitoError

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID

#: seconds between two plain progress lines when stderr is not a terminal
DEFAULT_INTERVAL = 10.0
#: the environment variable that sets that interval (seconds; 0: a line at every step)
INTERVAL_ENV = "SUMITO_PROGRESS_INTERVAL"
#: the longest interval it may set
MAX_INTERVAL = 24 * 3600.0


def interval_from_env() -> float:
    """The interval between plain lines: ``$SUMITO_PROGRESS_INTERVAL`` seconds, else :data:`DEFAULT_INTERVAL`."""
    text = os.environ.get(INTERVAL_ENV, "").strip()
    if not text:
        return DEFAULT_INTERVAL
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= MAX_INTERVAL:  # also refuses nan
        raise SumitoError(f"{INTERVAL_ENV} must be seconds from 0 to {MAX_INTERVAL:g}, not {text[:40]!r}")
    return value


def clock_text(seconds: float) -> str:
    """``H:MM:SS`` (``Nd H:MM:SS`` past a day)."""
    if not math.isfinite(seconds):
        return "?"
    s = max(round(seconds), 0)
    days, s = divmod(s, 86400)
    text = f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{days}d {text}" if days else text


def rate_text(per_second: float, unit: str) -> str:
    """``12.3 games/s`` from one a second up, ``2.5 games/min`` below."""
    value, per = (per_second, "s") if per_second >= 1.0 else (per_second * 60.0, "min")
    return f"{value:.0f} {unit}/{per}" if value >= 100 else f"{value:.3g} {unit}/{per}"


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False


class Progress:
    """The progress of ``total`` items (``unit``: games, chunks, steps…) under ``label``; a context manager.

    ``update(done)`` (or ``update(advance=1)``) after each item, with a short ``status`` to show beside it.
    ``done`` is the count already done when the reporter starts (a resumed run's); None: the first update
    gives it (for work that counts what it finds done itself). ``total`` may come with an update, too.
    ``total_is_limit``: the work may stop before ``total`` (an SPRT), so the ETA is a most. ``terminal``
    (default: whether stderr is one) picks the bar or the lines; ``interval`` (default
    :func:`interval_from_env`) spaces the lines; ``clock`` is the time in seconds (tests give a fake one).
    """

    def __init__(
        self,
        label: str,
        total: int | None = None,
        unit: str = "games",
        *,
        done: int | None = 0,
        status: str = "",
        quiet: bool = False,
        total_is_limit: bool = False,
        interval: float | None = None,
        terminal: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.done = done or 0
        self.status = status
        self.quiet = quiet
        self.total_is_limit = total_is_limit
        self.interval = interval_from_env() if interval is None else interval
        self.terminal = _stderr_is_terminal() if terminal is None else terminal
        self.clock = clock
        self.started = clock()
        # the rate counts from here: (time, items done then)
        self._base: tuple[float, int] | None = None if done is None else (self.started, self.done)
        self._last_line_at = self.started
        self._last_line_done: int | None = None  # items done at the last plain line (None: no line yet)
        self._bar: RichProgress | None = None
        self._task: TaskID | None = None
        self._ended = False
        self._lock = threading.Lock()  # the heartbeat thread and update() both write lines
        self._stop_beat = threading.Event()
        self._beat: threading.Thread | None = None

    # ------------------------------------------------------------------ the context
    def __enter__(self) -> Progress:
        if not self.quiet and self.terminal:
            # rich is imported only when a bar is drawn: commands in a log or a pipe never load it
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            columns = (
                TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                TextColumn(self.unit, markup=False), TimeElapsedColumn(),
                TextColumn("ETA" + (" at most" if self.total_is_limit else ""), markup=False),
                TimeRemainingColumn(), TextColumn("{task.fields[status]}", markup=False),
            )
            self._bar = RichProgress(*columns, console=Console(stderr=True, highlight=False), get_time=self.clock)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total, completed=self.done, status=self.status)
        elif not self.quiet and self.interval > 0 and self.clock is time.monotonic:
            # (a fake clock, in tests, gets no heartbeat: its lines come from update() alone)
            self._beat = threading.Thread(target=self._heartbeat, name="sumito-progress", daemon=True)
            self._beat.start()
        return self

    def _heartbeat(self) -> None:
        """A line whenever ``interval`` seconds pass without one, until :meth:`close`."""
        while True:
            with self._lock:
                wait = self._last_line_at + self.interval - self.clock()
                if wait <= 0:
                    self._line(self.clock())
                    wait = self.interval
            if self._stop_beat.wait(wait):
                return

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close(finished=kind is None)

    def close(self, finished: bool = True) -> None:
        """Stop the bar; in plain lines, the last line (``finished``: the work ended rather than stopped)."""
        if self._beat is not None:
            self._stop_beat.set()
            self._beat.join()
            self._beat = None
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        elif finished and not self.quiet and not self.terminal and self._last_line_done != self.done:
            self._ended = True  # nothing is left, even where the work ended before its total (an SPRT's bound)
            self._line(self.clock())  # the last count, unless the last line showed it

    # ------------------------------------------------------------------ updates
    def update(
        self,
        done: int | None = None,
        *,
        advance: int = 0,
        total: int | None = None,
        status: str | None = None,
        kept: bool = False,
    ) -> None:
        """``done`` items are done now (or ``advance`` more); ``total`` and ``status`` change when given.
        ``kept``: these items were not done now but found done (a resumed run's, given back one by one):
        the rate counts from here."""
        now = self.clock()
        if total is not None:
            self.total = total
        if done is not None:
            self.done = done
        self.done += advance
        if status is not None:
            self.status = status
        if self._base is None or kept:
            self._base = (now, self.done)
        if self.quiet:
            return
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self.done, total=self.total, status=self.status)
        elif not self.terminal:
            with self._lock:
                if now - self._last_line_at >= self.interval:
                    self._line(now)

    def rate(self, now: float | None = None) -> float | None:
        """Items a second since the reporter started; None before the first."""
        if self._base is None:
            return None
        now = self.clock() if now is None else now
        start, done = self._base
        if self.done <= done or now <= start:
            return None
        return (self.done - done) / (now - start)

    def line(self, now: float | None = None) -> str:
        """The plain progress line: done/total, the rate, the time elapsed and the ETA, then the status."""
        now = self.clock() if now is None else now
        rate = self.rate(now)
        if self.total:
            # (work that overshoots its total, a rollout past the last step, still reads 100%)
            parts = [f"{self.done:,}/{self.total:,} {self.unit} ({min(100 * self.done // self.total, 100)}%)"]
        else:
            parts = [f"{self.done:,}" + (f"/{self.total:,}" if self.total is not None else "") + f" {self.unit}"]
        parts.append(rate_text(rate, self.unit) if rate is not None else f"? {self.unit}/s")
        parts.append(f"elapsed {clock_text(now - self.started)}")
        if self.total is not None:
            left = 0 if self._ended else max(self.total - self.done, 0)
            eta = "0:00:00" if left == 0 else "?" if rate is None else clock_text(left / rate)
            parts.append(f"ETA {eta}" + (" at most" if self.total_is_limit and left else ""))
        text = f"{self.label}: " + ", ".join(parts)
        return f"{text}; {self.status}" if self.status else text

    def _line(self, now: float) -> None:
        print(self.line(now), file=sys.stderr, flush=True)
        self._last_line_at = now
        self._last_line_done = self.done


__all__ = ["DEFAULT_INTERVAL", "INTERVAL_ENV", "Progress", "clock_text", "interval_from_env", "rate_text"]
