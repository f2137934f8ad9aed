"""The experiment scripts' own machinery: a killed learning run resumes at its last checkpoint with
the same results as an uninterrupted one, and the win-rate intervals widen with run-to-run spread."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from sumito.learn.network import ValueNetwork

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

import learning_curves as lc


def job(folder: Path) -> tuple:
    arm = lc.Arm("tiny", dict(encoding="abalearn2", regime="self", max_plies=30))
    return ("test", arm, 7, {}, (2, 4), folder, ("random",), 2, "td:net={net}")


def test_a_killed_run_resumes_at_its_last_checkpoint_with_the_same_rows(tmp_path, monkeypatch):
    whole = lc.run_arm(job(tmp_path / "whole"))
    calls = []
    real = lc.evaluate

    def dies_at_the_second_checkpoint(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(lc, "evaluate", dies_at_the_second_checkpoint)
    with pytest.raises(KeyboardInterrupt):
        lc.run_arm(job(tmp_path / "killed"))
    assert (tmp_path / "killed" / "trainer.npz").exists() and not (tmp_path / "killed" / "rows.csv").exists()
    monkeypatch.setattr(lc, "evaluate", real)
    resumed = lc.run_arm(job(tmp_path / "killed"))
    def strip(rows: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "train_seconds"} for r in rows]

    assert len(whole) == 2 and strip(resumed) == strip(whole)
    # the resumed training is the uninterrupted one, weight for weight
    a, b = (ValueNetwork.load(tmp_path / run / "net-4.npz") for run in ("whole", "killed"))
    assert np.array_equal(a.theta, b.theta)
    assert not (tmp_path / "killed" / "trainer.npz").exists()


def test_win_rate_interval_takes_the_spread_of_the_runs():
    def row(wins: int) -> dict:
        return {"wins": wins, "eval_games": 100}

    even = lc.win_rate([row(50), row(50), row(50)])
    spread = lc.win_rate([row(10), row(50), row(90)])
    assert even[0] == spread[0] == pytest.approx(0.5)
    assert spread[2] - spread[1] > 2 * (even[2] - even[1])
    none = lc.win_rate([row(0)])
    assert none[0] == 0.0 and none[1] == 0.0 and 0.0 < none[2] < 0.05
