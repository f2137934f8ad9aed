"""Routes ``records``: a game in progress as a record, and a record imported as a new game."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from sumito.web.routing import CHANGES, RecordBody, Token, checked_token, client_of, errors, hall, state_of
from sumito.web.session import new_token

router = APIRouter(tags=["records"])


@router.get("/api/games/{game_id}/record", response_class=PlainTextResponse, responses=errors(404))
async def game_record(game_id: str, request: Request) -> PlainTextResponse:
    """The game as a record (result ``*`` while it goes on)."""
    session = await state_of(request, game_id)
    return PlainTextResponse(session.record().to_text())


@router.post("/api/records", status_code=201, responses=errors(*CHANGES, 429))
async def import_record(body: RecordBody, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
    """A record imported as a new game between two people, at its last position; ``token`` is
    its owner token (as for a new game). At most 256 KiB and 2,000 plies (413 beyond)."""
    sent = checked_token(x_sumito_token)
    token = sent or new_token()
    session = await hall(request).import_record(body.text, token=token, client=client_of(request, sent))
    return {"game": session.state(), "token": token}
