"""How a one-ply value network picks its move: the readings of the Abalearn paper that decide it
(which value ranks the afterstates, whose view a value takes, where a push's reward goes) and
:func:`move_scores`. Below the players, so that the ``td`` player plays a network exactly as the
lab trained it (:mod:`sumito.learn.training` uses the same function)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sumito.models.game import Afterstates
from sumito.models.network import NetworkError

CHOICES = ("value", "reward")  # how greedy play ranks afterstates (see move_scores)
VIEWS = ("mover", "black")  # whose view a value takes: each mover's, or Black's for the whole game
CREDITS = ("transition", "afterstate")  # where a push's reward goes in the TD targets
# what runs saved before these choices existed did: a resumed old run goes on as it began
LEGACY_READINGS = {"choice": "reward", "trace_decay": "gamma-lambda"}


def move_scores(
    options: Afterstates, values: np.ndarray, gamma: float, end_only: bool, choice: str = "value",
    reward_scale: float = 1.0, take_wins: bool = False,
) -> np.ndarray:
    """How greedy play ranks the moves (the highest is played).

    ``choice="value"`` (the Abalearn paper's reading): the network's value of the afterstate, a
    move that wins outright above every other (the game's end is known from the rules, not
    learned). Pushing a marble off is then worth only what the network has learned it is worth.

    ``choice="reward"``: what the move is worth to the mover, its immediate reward plus γ times
    the value of the afterstate (a won game's afterstate is terminal, worth nothing more). The
    network estimates the rewards still to come *after* an afterstate, so this adds back the
    marble a push-off takes at once; with a sigmoid output any push then outranks any quiet move.
    Rewards count ``reward_scale`` each.

    ``take_wins``: a move that wins outright above every other under ``choice="reward"`` too (with
    ``choice="value"`` it always is).
    """
    if choice == "value" or take_wins:
        scores = values if choice == "value" else move_scores(options, values, gamma, end_only, choice, reward_scale)
        return np.where(options.wins, np.inf, scores)
    if end_only:
        return np.where(options.wins, reward_scale, gamma * values)
    gains = reward_scale * options.gains
    return np.where(options.wins, gains + reward_scale, gains + gamma * values)


def recorded_reward_scale(metadata: dict[str, Any], source: str) -> float:
    """What one marble (and the result) was worth while the network trained: its ``reward_scale``
    metadata, 1 for networks saved before the scale was recorded (all were trained at 1)."""
    scale = metadata.get("reward_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not (math.isfinite(scale) and scale > 0):
        raise NetworkError(f"{source}: metadata 'reward_scale' is {scale!r}, not a number above 0")
    return float(scale)
