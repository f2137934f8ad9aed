"""The observation space both environments share (Gymnasium's spaces; PettingZoo uses them too)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from sumito.rlcore.core import CHANNELS, ArrayGame


def observation_space(game: ArrayGame) -> spaces.Dict:
    """``{"observation": float32 planes (rows, rows, 10) in [0, 1], "action_mask": int8 (n,)}``
    (the channels: :mod:`sumito.rlcore.core`)."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, 1.0, (game.rows, game.rows, CHANNELS), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (game.space.n,), dtype=np.int8),
    })
