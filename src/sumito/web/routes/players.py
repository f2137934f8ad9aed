"""Route ``players``: the players the page offers by name."""

from __future__ import annotations

from fastapi import APIRouter

from sumito.web.routing import errors
from sumito.web.seats import PRESETS

router = APIRouter(tags=["players"])


@router.get("/api/presets", responses=errors())
async def presets() -> list[dict[str, str | None]]:
    """Players the page offers by name: beginner, ABLA, Alphalone, the TD network, the engine, and perfect
    play on the mini board (``layout``: the one layout a preset plays on) once its table is built."""
    return [p.to_json() for p in PRESETS if p.offered()]
