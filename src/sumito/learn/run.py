"""A training run on disk: its folder, atomic checkpoints, the learning curve and kept networks.

``runs/NAME/`` holds ``config.json`` (the configuration and seed), ``checkpoint.npz`` (written
atomically every K games: weights, both sides' traces, ε, the RNG state and the game count, so
that ``--resume`` continues exactly where a killed run stopped), ``curve.csv`` (one row per
evaluation), ``net-<games>.npz`` (networks sampled at chosen game counts), ``best.npz`` (the best
network by evaluation so far) and ``network.npz`` (the latest). Opening the folder again removes
the temporary files a kill between a write and its rename left (:func:`~sumito.fileio.remove_stale_temps`).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from sumito.fileio import atomic_write_bytes, atomic_write_text, remove_stale_temps
from sumito.learn.training import Trainer, TrainingConfig, TrainingError

CHECKPOINT_VERSION = 1
CURVE_FIELDS = ("games", "epsilon", "opponent", "adjudicate", "eval_games", "wins", "draws", "losses", "score")


def save_checkpoint(path: Path, trainer: Trainer | dict[str, Any]) -> None:
    """Write a trainer's state (or a :meth:`Trainer.state_dict` taken earlier) atomically."""
    state = trainer if isinstance(trainer, dict) else trainer.state_dict()
    arrays: dict[str, np.ndarray] = {}
    numbers: dict[str, dict[str, Any]] = {}
    for side, learner_state in state["learners"].items():
        numbers[str(side)] = {}
        for key, value in learner_state.items():
            if isinstance(value, np.ndarray):
                arrays[f"side{side}_{key}"] = value
            else:
                numbers[str(side)][key] = value
    meta = {
        "format": "sumito-training-checkpoint",
        "version": CHECKPOINT_VERSION,
        "config": state["config"],
        "learners": numbers,
        "epsilon": state["epsilon"],
        "games": state["games"],
        "rng": state["rng"],
        "metadata": state["metadata"],
    }
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.array(json.dumps(meta)), **arrays)
    atomic_write_bytes(path, buffer.getvalue())


def load_checkpoint(path: Path) -> dict[str, Any]:
    """The checkpoint's contents: ``config`` (a dict) and the trainer ``state``."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {k: data[k] for k in data.files if k != "meta"}
    except FileNotFoundError:
        raise TrainingError(f"no checkpoint at {path}") from None
    except Exception as exc:
        raise TrainingError(f"{path}: not a readable training checkpoint ({type(exc).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != "sumito-training-checkpoint" or (
        meta.get("version") != CHECKPOINT_VERSION
    ):
        raise TrainingError(f"{path}: not a version-{CHECKPOINT_VERSION} Sumito training checkpoint")
    try:
        learners = {}
        for side in (1, 2):
            state = dict(meta["learners"][str(side)])
            prefix = f"side{side}_"
            state.update({k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)})
            learners[side] = state
        state = {
            "learners": learners,
            "epsilon": meta["epsilon"],
            "games": meta["games"],
            "rng": meta["rng"],
            "metadata": meta["metadata"],
        }
        return {"config": dict(meta["config"]), "state": state}
    except (KeyError, TypeError, ValueError) as exc:
        raise TrainingError(f"{path}: a damaged training checkpoint ({type(exc).__name__}: {exc})") from None


class RunFolder:
    """The files of one training run."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @property
    def checkpoint(self) -> Path:
        return self.path / "checkpoint.npz"

    @property
    def curve(self) -> Path:
        return self.path / "curve.csv"

    def create(self, config: TrainingConfig, resume: bool) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise TrainingError(f"{self.path} exists and is not a folder")
        if not resume and self.checkpoint.exists():
            raise TrainingError(f"{self.path} already holds a run; use --resume to continue it or another --out")
        self.path.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(self.path)  # what a kill between a write and its rename left behind
        if not resume:
            atomic_write_text(self.path / "config.json", json.dumps(asdict(config), indent=2) + "\n")
            atomic_write_text(self.curve, ",".join(CURVE_FIELDS) + "\n")

    def saved_config(self) -> dict[str, Any]:
        try:
            return json.loads((self.path / "config.json").read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise TrainingError(f"{self.path}: cannot read config.json ({exc})") from None

    def append_curve(self, row: dict[str, Any]) -> None:
        """Add one evaluation row (rewriting the file atomically, so a kill never leaves half a row)."""
        text = self.curve.read_text() if self.curve.exists() else ",".join(CURVE_FIELDS) + "\n"
        # a run begun by an older Sumito keeps its own columns
        header = next(csv.reader(io.StringIO(text)), None) or list(CURVE_FIELDS)
        out = io.StringIO()
        csv.DictWriter(out, header, lineterminator="\n", extrasaction="ignore").writerow(row)
        atomic_write_text(self.curve, text + out.getvalue())

    def curve_rows(self) -> list[dict[str, str]]:
        if not self.curve.exists():
            return []
        with self.curve.open(newline="") as f:
            return list(csv.DictReader(f))

    def best_score(self) -> float:
        scores = [float(r["score"]) for r in self.curve_rows() if r.get("score")]
        return max(scores) if scores else -1.0
