"""Backgammon, the second game on Sumito's learning core: board, rules kernels, position IDs, results.

Self-contained (numpy and numba only): nothing here imports Abalone's rules, the arena or the players.
"""

from sumito.games.backgammon.board import BackgammonPosition, PositionIdError, from_position_id, position_id
from sumito.games.backgammon.game import (
    ALL_ROLLS,
    ROLL_PROBABILITIES,
    Play,
    afterstate_arrays,
    game_result,
    is_over,
    legal_plays,
    opening_roll,
    random_position,
    roll_dice,
)

__all__ = [
    "ALL_ROLLS",
    "ROLL_PROBABILITIES",
    "BackgammonPosition",
    "Play",
    "PositionIdError",
    "afterstate_arrays",
    "from_position_id",
    "game_result",
    "is_over",
    "legal_plays",
    "opening_roll",
    "position_id",
    "random_position",
    "roll_dice",
]
