"""Routes ``positions``: the starting layouts, and the board of a position string."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from sumito.games.abalone import LAYOUTS, Position
from sumito.games.abalone.variants import layout_of
from sumito.web.routing import CHANGES, PositionBody, errors
from sumito.web.serialize import board_json

router = APIRouter(tags=["positions"])


@router.get("/api/layouts", responses=errors())
async def layouts() -> list[dict[str, Any]]:
    """Every starting layout of the engine, the small boards included."""
    return [
        {
            "name": name,
            "side": lay.variant.side,
            "win_threshold": lay.variant.win_threshold,
            "marbles": lay.variant.marbles,
            "inline_only": lay.variant.inline_only,
            "description": lay.description,
            "position": lay.position_string,
        }
        for name, lay in LAYOUTS.items()
    ]


@router.post("/api/position", responses=errors(*CHANGES))
async def position(body: PositionBody) -> dict[str, Any]:
    """The Board of a position string (400 with the reason when it is malformed)."""
    pos = Position.from_string(body.position)
    return board_json(pos, layout_of(pos))
