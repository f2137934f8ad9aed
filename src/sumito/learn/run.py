"""An Abalone training run on disk: its folder, atomic checkpoints, the learning curve and kept networks.

The folder itself (refusing to overwrite a run, ``config.json``, the atomic ``curve.csv``, removing what a
kill left) is the shared :class:`sumito.learn.runfolder.RunFolder`, which backgammon's runs use too; the
checkpoint's contents are Abalone's trainer's.

``runs/NAME/`` holds ``config.json`` (the configuration and seed), ``checkpoint.npz`` (written
atomically every K games: weights, both sides' traces, ε, the RNG state and the game count, so
that ``--resume`` continues exactly where a killed run stopped), ``curve.csv`` (one row per
evaluation), ``net-<games>.npz`` (networks sampled at chosen game counts), ``best.npz`` (the best
network by evaluation so far) and ``network.npz`` (the latest). Opening the folder again removes
the temporary files a kill between a write and its rename left (:func:`~sumito.fileio.remove_stale_temps`).
"""

from __future__ import annotations

import io
import json
import math
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from sumito.fileio import NpzArchive, atomic_write_bytes, check_weights, load_json, open_regular, reason_of, shown_path
from sumito.learn.runfolder import RunFolder as Folder
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


#: the most a training checkpoint's arrays may inflate to: two learners' weights and traces at the largest
#: network a config allows (hidden 4096) take well under a tenth of it
MAX_CHECKPOINT_BYTES = 512 * 2**20


def load_checkpoint(path: Path) -> dict[str, Any]:
    """The checkpoint's contents: ``config`` (a dict) and the trainer ``state``."""
    if not os.path.lexists(path):
        raise TrainingError(f"no checkpoint at {path}")
    try:
        # a regular file, opened without blocking; the sizes its arrays declare bounded before any is inflated
        with open_regular(path, MAX_CHECKPOINT_BYTES, "training checkpoint") as fh, \
                NpzArchive(fh, path, MAX_CHECKPOINT_BYTES, "training checkpoint") as archive:
            header = archive.text("meta")
            arrays = {k: archive.array(k) for k in archive.names if k != "meta"}
    except ValueError as exc:
        reason = reason_of(exc, path, "training checkpoint")
        raise TrainingError(f"{shown_path(path)}: not a readable training checkpoint ({reason})") from None
    try:
        meta = load_json(header, path, "the training checkpoint's 'meta' header")  # its nesting bounded
    except ValueError as exc:
        raise TrainingError(str(exc)) from None
    # the learners' weights finite and within MAX_WEIGHT, their eligibility traces finite
    check_weights({k: a for k, a in arrays.items() if not k.partition("_")[2].startswith("trace")}, path, TrainingError)
    check_weights({k: a for k, a in arrays.items() if k.partition("_")[2].startswith("trace")}, path, TrainingError,
                  limit=math.inf)
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


class RunFolder(Folder):
    """The files of one Abalone training run (the shared folder of :mod:`sumito.learn.runfolder`, with
    Abalone's curve columns; a folder holds a run once it has a checkpoint)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, CURVE_FIELDS, TrainingError, started_by=("checkpoint.npz",))

    def create(self, config: TrainingConfig, resume: bool) -> None:
        self.check(resume, "use --resume to continue it or another --out")
        self.open()
        if not resume:
            self.write_config(asdict(config))
            self.write_curve([])

    def best_score(self) -> float:
        scores = [float(r["score"]) for r in self.curve_rows() if r.get("score")]
        return max(scores) if scores else -1.0
