"""The rules of Abalone: geometry, positions, moves and notation, games and records.

This layer knows nothing of players. The numba kernels in :mod:`sumito.games.abalone.kernels` are the
fast path for search and learning; the classes here are the convenient one.
"""

from sumito.games.abalone.errors import (
    GameOverError,
    IllegalMoveError,
    LayoutError,
    NotationError,
    PositionError,
    RecordError,
)
from sumito.games.abalone.game import DrawCounters, DrawRules, Game, Outcome
from sumito.games.abalone.geometry import BLACK, EMPTY, WHITE, Color, geometry
from sumito.games.abalone.move import Move
from sumito.games.abalone.position import Position
from sumito.games.abalone.record import GameRecord, parse_records, read_records, write_records
from sumito.games.abalone.render import render
from sumito.games.abalone.variants import LAYOUTS, Layout, Variant, get_layout

__all__ = [
    "BLACK",
    "EMPTY",
    "LAYOUTS",
    "WHITE",
    "Color",
    "DrawCounters",
    "DrawRules",
    "Game",
    "GameOverError",
    "GameRecord",
    "IllegalMoveError",
    "Layout",
    "LayoutError",
    "Move",
    "NotationError",
    "Outcome",
    "Position",
    "PositionError",
    "RecordError",
    "Variant",
    "geometry",
    "get_layout",
    "parse_records",
    "read_records",
    "render",
    "write_records",
]
