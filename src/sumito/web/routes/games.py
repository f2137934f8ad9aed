"""Routes ``games``: the games in progress — create, list, watch, move, undo, redo, resign, hint, delete.

A change needs the game's owner token (header ``X-Sumito-Token``); reading a game does not.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from sumito.web.hall import MAX_WAIT
from sumito.web.routing import (
    CHANGES,
    HintBody,
    MoveBody,
    NewGame,
    ResignBody,
    SpeedBody,
    Token,
    checked_token,
    client_of,
    errors,
    hall,
    owned,
    state_of,
)
from sumito.web.session import new_token

router = APIRouter(tags=["games"])


@router.post("/api/games", status_code=201, responses=errors(*CHANGES, 429))
async def new_game(body: NewGame, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
    """A new game; a computer that is to move starts thinking at once (429 past the client's caps).

    The answer's ``token`` is the game's owner token, needed (header ``X-Sumito-Token``) to move,
    undo, redo, resign, change the speed or delete it. A client may send its own token in that
    header (16 to 128 URL-safe characters) to own all its games with one token; else one is made.
    """
    sent = checked_token(x_sumito_token)
    token = sent or new_token()
    session = await hall(request).create(
        body.black,
        body.white,
        layout=body.layout,
        position=body.position,
        speed=body.speed,
        win_threshold=body.win_threshold,
        inline_only=body.inline_only,
        token=token,
        clock=(body.clock.initial, body.clock.increment) if body.clock is not None else None,
        client=client_of(request, sent),
    )
    return {**session.state(), "token": token}


@router.get("/api/games", responses=errors())
async def games(request: Request, x_sumito_token: Token = None) -> list[dict[str, Any]]:
    """The games of the client's token (header ``X-Sumito-Token``): in progress, or finished in the
    last day, most recently changed first; none without a token."""
    return hall(request).games(checked_token(x_sumito_token))


@router.get("/api/games/{game_id}", responses=errors(404))
async def game_state(
    game_id: str,
    request: Request,
    wait: Annotated[float, Query(ge=0, le=MAX_WAIT, description="seconds to wait for a change")] = 0,
    ply: Annotated[int | None, Query(ge=0, description="wait only while the game is at this ply")] = None,
) -> dict[str, Any]:
    """The game's state; with ``wait``, first wait up to that long for a change while a computer thinks."""
    session = await state_of(request, game_id)
    await session.wait_for_change(wait, ply)
    return session.state()


@router.get("/api/games/{game_id}/legal", responses=errors(404))
async def legal(game_id: str, request: Request) -> list[dict[str, Any]]:
    """The legal moves of the side to move (none when the game is over)."""
    return hall(request).legal_moves(await state_of(request, game_id))


@router.post("/api/games/{game_id}/moves", responses=errors(*CHANGES, 404, 409, 429))
async def move(game_id: str, body: MoveBody, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
    """Play a person's move; 400 names what is wrong with it, 409 when it is not a person's turn."""
    session = await owned(request, game_id, x_sumito_token)
    await hall(request).play(session, body.move)
    return session.state()


@router.post("/api/games/{game_id}/undo", responses=errors(*CHANGES, 404, 409))
async def undo(game_id: str, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
    """Take back the person's last move (and the computer's reply); 409 once the game is over."""
    session = await owned(request, game_id, x_sumito_token)
    await hall(request).undo(session)
    return session.state()


@router.post("/api/games/{game_id}/redo", responses=errors(*CHANGES, 404, 409, 429))
async def redo(game_id: str, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
    """Play again what the last undo took back."""
    session = await owned(request, game_id, x_sumito_token)
    await hall(request).redo(session)
    return session.state()


@router.post("/api/games/{game_id}/resign", responses=errors(*CHANGES, 404, 409))
async def resign(
    game_id: str, request: Request, body: ResignBody | None = None, x_sumito_token: Token = None
) -> dict[str, Any]:
    """End the game with ``side`` losing (default: the person's side)."""
    session = await owned(request, game_id, x_sumito_token)
    await hall(request).resign(session, body.side if body else None)
    return session.state()


@router.post("/api/games/{game_id}/speed", responses=errors(*CHANGES, 404))
async def speed(game_id: str, body: SpeedBody, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
    """Watch mode: the seconds between two computer moves."""
    session = await owned(request, game_id, x_sumito_token)
    await hall(request).set_speed(session, body.speed)
    return session.state()


@router.post("/api/games/{game_id}/hint", responses=errors(*CHANGES, 404, 409, 429))
async def hint(
    game_id: str, request: Request, body: HintBody | None = None, x_sumito_token: Token = None
) -> dict[str, Any]:
    """The best move and its score of the game's position now, from the learned engine in the
    worker pool searching ``seconds`` (default 0.3, at most ``--max-time``) or as long and deep as
    the computer opponent, if that is more (``player`` names it): a hint and the evaluation bar."""
    session = await owned(request, game_id, x_sumito_token)
    return await hall(request).hint(session, (body or HintBody()).seconds)


@router.delete("/api/games/{game_id}", status_code=204, responses=errors(*CHANGES, 404))
async def delete_game(game_id: str, request: Request, x_sumito_token: Token = None) -> Response:
    """Delete the game; a computer thinking on it stops. A finished game stays in the archive."""
    session = await owned(request, game_id, x_sumito_token)
    await hall(request).delete(session)
    return Response(status_code=204)
