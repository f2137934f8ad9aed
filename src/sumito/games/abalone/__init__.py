"""The rules of Abalone: geometry, positions, moves and notation, games and records.

This layer knows nothing of players. The numba kernels in :mod:`sumito.games.abalone.kernels` are the
fast path for search and learning; the classes here are the convenient one.

The names below load their modules when first used (PEP 562), so that a module that needs only the light
ones (the layouts and variants, the draw rules, the errors) does not load numpy and numba with the
kernels: ``sumito COMMAND --help`` reads the layouts and draw rules without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sumito.games.abalone.draws import DrawCounters, DrawRules
    from sumito.games.abalone.errors import (
        GameOverError,
        IllegalMoveError,
        LayoutError,
        NotationError,
        PositionError,
        RecordError,
    )
    from sumito.games.abalone.game import Game, Outcome
    from sumito.games.abalone.geometry import BLACK, EMPTY, WHITE, Color, geometry
    from sumito.games.abalone.move import Move
    from sumito.games.abalone.position import Position
    from sumito.games.abalone.record import GameRecord, parse_records, read_records, write_records
    from sumito.games.abalone.render import render
    from sumito.games.abalone.variants import LAYOUTS, Layout, Variant, get_layout

#: each public name and the module that defines it
_HOMES = {
    **dict.fromkeys(("DrawCounters", "DrawRules"), "draws"),
    **dict.fromkeys(("GameOverError", "IllegalMoveError", "LayoutError", "NotationError", "PositionError",
                     "RecordError"), "errors"),
    **dict.fromkeys(("Game", "Outcome"), "game"),
    **dict.fromkeys(("BLACK", "EMPTY", "WHITE", "Color", "geometry"), "geometry"),
    "Move": "move",
    "Position": "position",
    **dict.fromkeys(("GameRecord", "parse_records", "read_records", "write_records"), "record"),
    "render": "render",
    **dict.fromkeys(("LAYOUTS", "Layout", "Variant", "get_layout"), "variants"),
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # found once; later uses read the module's dict
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
