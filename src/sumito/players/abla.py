"""The ABLA player (the ABLA paper, section 4): alpha-beta with eval = w1*f1 + w2*f2.

f1 is the difference of the summed hex (Manhattan) distances of each side's marbles to the
centre, own minus opponent's; f2 the difference of the summed same-colour neighbour counts.
The paper's "combined" heuristic is w1 = -1, w2 = 1 and its "single" heuristic w1 = -1, w2 = 0;
it plays at 3 and 4 plies (4 by default). Moves are searched in generation order with no
tables, as the paper describes; ties go to the first move found. A won or lost position scores
beyond any evaluation. The paper does not say how a pushed-off marble counts; in f1 it counts at
``off`` (default :data:`~sumito.evaluation.OFF_DISTANCE`) from the centre, and in f2 it has no
neighbours. Had it simply dropped out of f1, pushing an edge marble off would cost the pusher,
and the paper's Table 1 (6-2 and 6-1 games) could not occur; ``off=0`` gives that reading.
"""

from __future__ import annotations

import math

import numpy as np

from sumito.evaluation import EVAL_ABLA, OFF_DISTANCE, Evaluation
from sumito.players.base import MAX_PLAYER_DEPTH, Option, PlayerKind, PlayerSpecError, register
from sumito.players.heuristic import TIE_OPTIONS, AlphaBetaPlayer, check_off

HEURISTICS = {"combined": (-1.0, 1.0), "single": (-1.0, 0.0)}


def abla_player(
    depth: int = 4,
    heuristic: str = "combined",
    w1: float | None = None,
    w2: float | None = None,
    ties: str = "first",
    seed: int | None = None,
    off: float = OFF_DISTANCE,
) -> AlphaBetaPlayer:
    key = heuristic.strip().lower()
    if key not in HEURISTICS:
        raise PlayerSpecError(f"abla heuristic must be one of {', '.join(HEURISTICS)}, not {heuristic!r}")
    d1, d2 = HEURISTICS[key]
    if not all(math.isfinite(w) for w in (w1, w2) if w is not None):
        raise PlayerSpecError("abla weights w1 and w2 must be finite numbers")
    weights = (d1 if w1 is None else w1, d2 if w2 is None else w2)
    name = f"abla:depth={depth},heuristic={key}"
    if w1 is not None or w2 is not None:
        name = f"abla:depth={depth},w1={weights[0]:g},w2={weights[1]:g}"
    if off != OFF_DISTANCE:
        name += f",off={off:g}"
    player = AlphaBetaPlayer(name, "abla", depth, ties, seed)
    player.evaluation = Evaluation(name, EVAL_ABLA, np.array([*weights, check_off("abla", off)]))
    return player


register(
    PlayerKind(
        name="abla",
        factory=abla_player,
        options={
            "depth": Option(int, 4, "search depth in plies (the paper: 3 or 4)", low=1, high=MAX_PLAYER_DEPTH),
            "heuristic": Option(str, "combined", "combined (w1=-1, w2=1) or single (w1=-1, w2=0)"),
            "w1": Option(float, None, "weight of f1, the centre-distance difference (overrides heuristic)"),
            "w2": Option(float, None, "weight of f2, the adjacency difference (overrides heuristic)"),
            "off": Option(float, OFF_DISTANCE, "distance from the centre a pushed-off marble counts at in f1"),
            **TIE_OPTIONS,
        },
        help="the ABLA paper's alpha-beta player with its two-feature heuristic",
    )
)
