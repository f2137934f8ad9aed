"""The API's routes, one router per OpenAPI tag, in the order the description lists them.

:func:`sumito.web.app.create_app` includes :data:`ROUTERS`; each module holds the handlers of one tag,
which only translate between HTTP and :class:`~sumito.web.hall.GameHall` (or the arena's archive).
"""

from __future__ import annotations

from fastapi import APIRouter

from sumito.web.routes import archive, games, players, positions, records

#: every router of the API, in the order its paths appear in the OpenAPI description
ROUTERS: tuple[APIRouter, ...] = (players.router, positions.router, games.router, records.router, archive.router)
