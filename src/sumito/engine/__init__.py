"""The rules of Abalone: geometry, positions, moves and notation, games and records.

This layer knows nothing of players. The numba kernels in :mod:`sumito.engine.kernels` are the
fast path for search and learning; the classes here are the convenient one.
"""

from sumito.engine.errors import (
    GameOverError,
    IllegalMoveError,
    LayoutError,
    NotationError,
    PositionError,
    RecordError,
    SumitoError,
)
from sumito.engine.game import DrawCounters, DrawRules, Game, Outcome
from sumito.engine.geometry import BLACK, EMPTY, WHITE, Color, geometry
from sumito.engine.move import Move
from sumito.engine.position import Position
from sumito.engine.record import GameRecord, parse_records, read_records, write_records
from sumito.engine.render import render
from sumito.engine.variants import LAYOUTS, Layout, Variant, get_layout

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
    "SumitoError",
    "Variant",
    "geometry",
    "get_layout",
    "parse_records",
    "read_records",
    "render",
    "write_records",
]
