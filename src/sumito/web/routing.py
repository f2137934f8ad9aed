"""What every route of the API shares: the error answers it declares, the request bodies, the owner token.

Each router (:mod:`sumito.web.routes`) declares its error statuses with :func:`errors`, so the OpenAPI
description lists them with the ``{"detail": …}`` body; a request body is one of the models here, which
refuse unknown fields and bound every string and number before a handler sees it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Header, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field

from sumito.web.errors import WebError
from sumito.web.hall import (
    HINT_SECONDS,
    MAX_ANALYSIS_PAGE,
    MAX_CLOCK,
    MAX_HINT_SECONDS,
    MAX_INCREMENT,
    MAX_SPEED,
    GameHall,
)
from sumito.web.limits import MAX_IMPORT_BYTES, valid_token
from sumito.web.session import GameSession, request_client

Side = Literal["black", "white"]
MAX_STORED_ID = 2**63 - 1  # SQLite's integers
StoredId = Annotated[int, PathParam(ge=1, le=MAX_STORED_ID)]
TOKEN_HEADER = "X-Sumito-Token"
Token = Annotated[
    str | None,
    Header(alias=TOKEN_HEADER, max_length=200, description="the game's owner token, as its creation returned it"),
]


# --------------------------------------------------------------------------- answers
class ErrorBody(BaseModel):
    """Every error answer: one line naming what is wrong."""

    detail: str = Field(description="one line naming what is wrong", examples=["there is no game 'g-0123'"])


ERROR_MEANINGS = {
    400: "bad input: a malformed body, field, token, move, position, spec or record; a player beyond the "
    "server's limits; a Host header that does not name this server",
    403: "a change without the game's owner token (X-Sumito-Token), or asked for by a page of another site",
    404: "no such game or stored game",
    409: "the request does not fit the game's state (not a person's turn, the game is over, nothing to undo)",
    413: "the request body (or an imported record) is larger than the server takes",
    429: "past this client's caps: games with a computer playing (--max-games) or searches queued or "
    "running (--max-queued); nothing was changed",
}
#: what a request that changes something can always get: a page of another site (403), a body too large (413)
CHANGES = (403, 413)


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route for OpenAPI: 400 (any request: the Host check) and ``statuses``."""
    return {code: {"model": ErrorBody, "description": ERROR_MEANINGS[code]} for code in sorted({400, *statuses})}


# --------------------------------------------------------------------------- request bodies
class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ClockBody(Body):
    initial: float = Field(gt=0, le=MAX_CLOCK, description="seconds on each clock at the start (e.g. 300)")
    increment: float = Field(0.0, ge=0, le=MAX_INCREMENT, description="seconds added after each move")


class NewGame(Body):
    black: str = Field("human", max_length=200, description="'human', a preset id or a player spec")
    white: str = Field("beginner", max_length=200, description="'human', a preset id or a player spec")
    layout: str = Field("standard", max_length=40, description="a layout name (GET /api/layouts)")
    position: str | None = Field(None, max_length=400, description="a position string; overrides layout")
    speed: float = Field(1.0, ge=0, le=MAX_SPEED, description="seconds between moves when two computers play")
    win_threshold: int | None = Field(None, ge=1, le=100, description="marbles to push off to win")
    inline_only: bool | None = Field(None, description="the reduced game without broadside moves")
    clock: ClockBody | None = Field(None, description="a time control: seconds each and an increment; none: untimed")


class MoveBody(Body):
    move: str = Field(max_length=40, description="a move in notation, e.g. a1b2 or c3c5d4")


class ResignBody(Body):
    side: Side | None = Field(None, description="who resigns (default: the person's side)")


class SpeedBody(Body):
    speed: float = Field(ge=0, le=MAX_SPEED, description="seconds between computer moves in watch mode")


class RecordBody(Body):
    text: str = Field(
        max_length=2 * MAX_IMPORT_BYTES,  # the exact limit is in bytes, checked with a 413 by the hall
        description="one game record (the format of `sumito game --out`), at most 256 KiB",
    )


class HintBody(Body):
    seconds: float = Field(
        HINT_SECONDS, gt=0, le=MAX_HINT_SECONDS, description="seconds of search (at most the server's --max-time)"
    )


class AnalysisBody(Body):
    start: int = Field(0, ge=0, le=10**6, description="the first ply of the page")
    count: int = Field(
        10, ge=1, le=MAX_ANALYSIS_PAGE, description=f"positions in the page (at most {MAX_ANALYSIS_PAGE})"
    )


class PositionBody(Body):
    position: str = Field(max_length=400, description="a position string")


# --------------------------------------------------------------------------- who asks, and for which game
def hall(request: Request) -> GameHall:
    """The app's games in progress (made when the app starts)."""
    return request.app.state.hall


async def state_of(request: Request, game_id: str) -> GameSession:
    """The game in progress ``game_id`` (404 when there is none)."""
    return hall(request).session(game_id)


async def owned(request: Request, game_id: str, token: str | None) -> GameSession:
    """The game, if ``token`` is its owner token (404 first: a game that does not exist has no owner)."""
    session = await state_of(request, game_id)
    GameHall.authorize(session, checked_token(token))
    return session


def checked_token(token: str | None) -> str | None:
    """``token`` if it is a well-formed owner token (400 else); ``None`` stays ``None``."""
    if token is not None and not valid_token(token):
        raise WebError(f"{TOKEN_HEADER} must be 16 to 128 characters A-Z, a-z, 0-9, '-' or '_'")
    return token


def client_of(request: Request, token: str | None) -> str:
    """Who a request comes from, for the caps and fair shares: its address (the one a trusted proxy
    names, else the connecting one), and inside it its owner token."""
    return request_client(request.client.host if request.client else "unknown", token)
