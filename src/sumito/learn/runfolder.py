"""A training run's folder on disk, for any game: the piece that Abalone's runs (:mod:`sumito.learn.run`) and
backgammon's (:mod:`sumito.learn.backgammon.run`) share.

``FOLDER/`` holds ``config.json`` (the run's settings, written once: a resume that changes one is refused by
:meth:`RunFolder.check_settings`, the one check of :func:`sumito.fileio.refuse_changed`), ``checkpoint.npz``
(the trainer, written by the game's own trainer, always atomically) and ``curve.csv`` (one row per evaluation).
Every write is atomic (a temporary file renamed over the old one, :mod:`sumito.fileio`), so a kill leaves either
the old file or the new one; opening the folder again removes the temporary files a kill between a write and
its rename left (:func:`~sumito.fileio.remove_stale_temps`). What a checkpoint holds, and what the curve's columns are,
is the game's: the trainers differ (Abalone's online TD(λ) with traces, Wiering's modular networks learning
offline), so each game writes its own checkpoint.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sumito.errors import SumitoError
from sumito.fileio import (
    atomic_write_text,
    read_json_file,
    read_rows,
    read_text_file,
    refuse_changed,
    remove_stale_temps,
)


class RunFolder:
    """The files of one training run. ``curve_fields``: the columns of a new ``curve.csv``; ``error``: the
    one-line error raised for a bad folder; ``started_by``: the files whose presence means the folder already
    holds a run (which a new run must not overwrite)."""

    def __init__(self, path: str | Path, curve_fields: Sequence[str], error: type[SumitoError] = SumitoError,
                 started_by: Sequence[str] = ("checkpoint.npz", "config.json")) -> None:
        self.path = Path(path)
        self.curve_fields = tuple(curve_fields)
        self.error = error
        self.started_by = tuple(started_by)

    @property
    def checkpoint(self) -> Path:
        return self.path / "checkpoint.npz"

    @property
    def curve(self) -> Path:
        return self.path / "curve.csv"

    @property
    def config_file(self) -> Path:
        return self.path / "config.json"

    def holds_run(self) -> bool:
        return any((self.path / name).exists() for name in self.started_by)

    def check(self, resume: bool, hint: str) -> None:
        """Refuse a path that is a file, a resume of nothing, or a new run over an old one (``hint`` says what
        to do instead)."""
        if self.path.exists() and not self.path.is_dir():
            raise self.error(f"{self.path} exists and is not a folder")
        if resume and not self.holds_run():
            raise self.error(f"{self.path} holds no run to resume")
        if not resume and self.holds_run():
            raise self.error(f"{self.path} already holds a run; {hint}")

    def open(self) -> None:
        """Make the folder and remove what a kill between a write and its rename left behind."""
        self.path.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(self.path)

    def write_config(self, config: dict[str, Any]) -> None:
        atomic_write_text(self.config_file, json.dumps(config, indent=2) + "\n")

    def check_settings(self, wanted: Mapping[str, Any], flags: Mapping[str, str] | None = None,
                       advice: str | None = None) -> None:
        """Refuse a resume whose settings ``wanted`` differ from those in config.json (:func:`refuse_changed`)."""
        refuse_changed(self.path, self.saved_config(), wanted, self.error, flags, advice)

    def saved_config(self) -> dict[str, Any]:
        try:
            data = read_json_file(self.config_file, "run settings file")  # bounded in size and nesting
        except ValueError as exc:
            raise self.error(str(exc)) from None
        if not isinstance(data, dict):
            raise self.error(f"{self.path}: config.json does not hold a run's settings")
        return data

    def curve_rows(self) -> list[dict[str, str]]:
        if not os.path.lexists(self.curve):
            return []
        return read_rows(self.curve, "training curve")  # a regular file of bounded size

    def write_curve(self, rows: Sequence[dict[str, Any]]) -> None:
        """The whole curve, rewritten atomically (the header and then ``rows``)."""
        out = io.StringIO()
        writer = csv.DictWriter(out, self.curve_fields, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
        atomic_write_text(self.curve, out.getvalue())

    def append_curve(self, row: dict[str, Any]) -> None:
        """Add one evaluation row (rewriting the file atomically, so a kill never leaves half a row). A curve
        begun by an older Sumito keeps its own columns."""
        text = read_text_file(self.curve, "training curve") if os.path.lexists(self.curve) \
            else ",".join(self.curve_fields) + "\n"
        header = next(csv.reader(io.StringIO(text)), None) or list(self.curve_fields)
        out = io.StringIO()
        csv.DictWriter(out, header, lineterminator="\n", extrasaction="ignore").writerow(row)
        atomic_write_text(self.curve, text + out.getvalue())
