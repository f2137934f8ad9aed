"""Evaluations: board features and the named hand-made evaluation functions of the papers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sumito.evaluation.alphalone import default_weights
from sumito.evaluation.features import (
    ALPHALONE_FEATURES,
    EVAL_ABLA,
    EVAL_ALPHALONE,
    EVAL_HEURISTIC,
    EVAL_LINEAR,
    LINEAR_TERMS,
)

__all__ = [
    "ALPHALONE_FEATURES",
    "EVAL_ABLA",
    "EVAL_ALPHALONE",
    "EVAL_HEURISTIC",
    "EVAL_LINEAR",
    "LINEAR_TERMS",
    "OFF_DISTANCE",
    "Evaluation",
    "evaluation_names",
    "named_evaluation",
]

# Where a pushed-off marble stands in the heuristic's and ABLA's distance sums. Neither paper says.
# A marble that simply dropped out of the sums (distance 0) made pushing an edge marble off *cost*
# the pusher, and neither player could then win a game, against the papers' own results (ABLA's
# Table 1 has 6-2 and 6-1 games; Abalearn's heuristic player beats its risk-neutral agents). Ours:
# a marble off the board counts at three times the standard board's radius, 12, so that pushing an
# edge marble off (ring 4 to 12: +8 for the loser, at most +3 for the pusher's line moving out)
# outscores any quiet move (at most three marbles one ring in: 3), and a hanging marble is taken.
# docs/reproductions.md compares 0, 8 and 12; the players' ``off`` option sets another.
OFF_DISTANCE = 12.0

# The engine's hand-set weights (own minus opponent): a marble is worth far more than any shape,
# then centre, cohesion and the edge, in the order the ABLA and Alphalone papers rank them.
LINEAR_DEFAULT = (1000.0, 6.0, 2.0, 4.0, 2.0, 0.0, 0.0)


@dataclass(frozen=True)
class Evaluation:
    """An evaluation kind (see :mod:`sumito.evaluation.features`) and its parameter vector."""

    name: str
    kind: int
    params: np.ndarray = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", np.ascontiguousarray(self.params, dtype=np.float64))


def named_evaluation(name: str) -> Evaluation:
    """The evaluation called ``name`` (one of :func:`evaluation_names`)."""
    key = name.strip().lower()
    if key == "heuristic":
        return Evaluation("heuristic", EVAL_HEURISTIC, np.array([OFF_DISTANCE]))
    if key in ("abla", "abla-combined", "combined"):
        return Evaluation("abla", EVAL_ABLA, np.array([-1.0, 1.0, OFF_DISTANCE]))
    if key in ("abla-single", "single"):
        return Evaluation("abla-single", EVAL_ABLA, np.array([-1.0, 0.0, OFF_DISTANCE]))
    if key == "alphalone":
        return Evaluation("alphalone", EVAL_ALPHALONE, default_weights().vector())
    if key in ("linear", "engine"):
        return Evaluation("linear", EVAL_LINEAR, np.array(LINEAR_DEFAULT))
    raise ValueError(f"unknown evaluation {name!r}; known: {', '.join(evaluation_names())}")


def evaluation_names() -> list[str]:
    return ["heuristic", "abla", "abla-single", "alphalone", "linear"]
