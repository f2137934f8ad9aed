"""The web app: the JSON API of docs/web-api.md under ``/api``, and the static page at ``/``.

Handlers only translate between HTTP and :mod:`sumito.web.sessions`; the rules stay in the
engine. Every error a client can cause is a 4xx answer ``{"detail": "one line"}``: a
:class:`~sumito.games.abalone.SumitoError` (a malformed move, position, spec or record) is a 400 with
its own message, unless it says otherwise (``status`` 404 or 409), and a malformed request body
is a 400 naming the field.

What a client may do is bounded (see :mod:`sumito.web.limits`): request bodies are counted
before they are read (413 past the limit); a ``Host`` header that does not name this server is
refused (DNS rebinding), and so is a change requested by a page of another origin; a game can be
changed only with the owner token it was created with (header ``X-Sumito-Token``); replays are
paged; each client (its token, else its address) has caps on its computer games and searches
(429 past them) and a fair share of the thinking workers.

The OpenAPI description lists, for every route, the error statuses it can answer, each with the
``{"detail": …}`` body; FastAPI's 422 is not among them, since a malformed request is a 400 here.
``OPTIONS`` on an API path answers 204 with the methods it takes in ``Allow``, and another method
the path does not take is a 405 with the same header.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Header, Query, Request, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from sumito.arena.db import GameArchive, StoredGame, default_db_path
from sumito.arena.errors import ArchiveError
from sumito.arena.match import start_position
from sumito.errors import SumitoError
from sumito.games.abalone import LAYOUTS, Position, get_layout
from sumito.web.limits import MAX_IMPORT_BYTES, MAX_REPLAY_PAGE, WebLimits, valid_token
from sumito.web.serialize import board_json, layout_of
from sumito.web.sessions import (
    HINT_SECONDS,
    MAX_ANALYSIS_PAGE,
    MAX_CLOCK,
    MAX_HINT_SECONDS,
    MAX_INCREMENT,
    MAX_SPEED,
    MAX_WAIT,
    PRESETS,
    GameHall,
    GameNotFoundError,
    GameSession,
    WebError,
    WebStore,
    default_web_db_path,
    new_token,
    owner_hash,
    player_name,
    request_client,
)
from sumito.web.thinking import ThinkingPool

log = logging.getLogger("sumito.web")

STATIC = Path(__file__).with_name("static")
PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sumito</title></head>
<body><h1>Sumito</h1><p>The page is not built yet; the API is at <a href="/docs">/docs</a>.</p></body></html>
"""
ARCHIVE_RESULTS = ("1-0", "0-1", "1/2-1/2")
Side = Literal["black", "white"]
#: the biggest request body (a record import is JSON around the record: escapes may double it)
MAX_BODY_BYTES = 64 * 1024
MAX_RECORD_BODY_BYTES = 2 * MAX_IMPORT_BYTES + 4096
MAX_STORED_ID = 2**63 - 1  # SQLite's integers
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


# --------------------------------------------------------------------------- errors
def _field(loc: tuple) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts)


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's 422 list of errors, as a 400 with one line about the first one."""
    errors = exc.errors()
    if not errors:
        return JSONResponse({"detail": "malformed request"}, status_code=400)
    first = errors[0]
    kind = first.get("type", "")
    where = _field(tuple(first.get("loc", ())))
    if kind == "json_invalid":
        message = "the request body is not valid JSON"
    elif kind == "missing" and not where:
        message = "the request needs a JSON body"
    elif not where and kind in ("model_attributes_type", "dict_type", "model_type"):
        message = "the request body must be a JSON object (with Content-Type: application/json)"
    elif kind == "extra_forbidden":
        message = f"unknown field {where!r}"
    elif kind == "missing":
        message = f"{where}: required"
    else:
        message = f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg", "invalid"))
    return JSONResponse({"detail": message}, status_code=400)


async def _sumito_error(request: Request, exc: SumitoError) -> JSONResponse:
    status = getattr(exc, "status", 400)
    return JSONResponse({"detail": _one_line(exc)}, status_code=status)


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    log.exception("internal error on %s %s", request.method, request.url.path)
    return JSONResponse({"detail": f"internal error: {_one_line(exc)}"}, status_code=500)


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _checked_token(token: str | None) -> str | None:
    if token is not None and not valid_token(token):
        raise WebError(f"{TOKEN_HEADER} must be 16 to 128 characters A-Z, a-z, 0-9, '-' or '_'")
    return token


def _client(request: Request, token: str | None) -> str:
    """Who a request comes from, for the caps and fair shares: its address (the one a trusted proxy
    names, else the connecting one), and inside it its owner token."""
    return request_client(request.client.host if request.client else "unknown", token)


# --------------------------------------------------------------------------- guards before any handler
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
SAFE_METHODS = (b"GET", b"HEAD", b"OPTIONS")
#: methods no route of the API takes as such: OPTIONS is answered with the path's methods, the rest with a 405
OTHER_METHODS = ("OPTIONS", "HEAD", "GET", "POST", "PUT", "PATCH", "DELETE")


class _BodyTooLarge(Exception):
    pass


class RequestGuard:
    """ASGI middleware: the allowed-hosts check, the cross-origin check and the body size limit.

    It runs before FastAPI reads anything, so a huge body is refused from its ``Content-Length``
    (or, sent in chunks, as soon as the count passes the limit) without being held in memory.
    """

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], limits: WebLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        host = headers.get(b"host", b"").decode("latin-1")
        if host and not self.limits.host_allowed(host):
            shown = host if len(host) <= 60 else host[:57] + "..."
            await _answer(send, 400, f"the host {shown!r} is not this server's (sumito serve --allowed-hosts)")
            return
        origin = headers.get(b"origin")
        if origin is not None and scope.get("method", "GET").encode() not in SAFE_METHODS:
            origin_host = origin.decode("latin-1").partition("://")[2]
            if not origin_host or not self.limits.host_allowed(origin_host):
                await _answer(send, 403, "a page of another site may not change games on this server")
                return
        limit = MAX_RECORD_BODY_BYTES if scope.get("path") == "/api/records" else MAX_BODY_BYTES
        too_large = f"the request body is larger than this server takes ({limit} bytes)"
        length = headers.get(b"content-length")
        ascii_digits = length is not None and length.isascii() and length.isdigit()  # '²'.isdigit() is true
        if length is not None and (not ascii_digits or len(length) > 15 or int(length) > limit):
            if ascii_digits:
                await _answer(send, 413, too_large)
            else:
                await _answer(send, 400, "the Content-Length header is not a number")
            return
        received = 0
        exceeded = False
        started = False

        async def counted_receive() -> MutableMapping[str, Any]:
            nonlocal received, exceeded
            message = await receive()
            if message.get("type") == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise _BodyTooLarge
            return message

        async def guarded_send(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            if exceeded:  # the app's answer to a body it could not read: ours instead
                if message.get("type") == "http.response.start" and not started:
                    started = True
                    await _answer(send, 413, too_large)
                return
            if message.get("type") == "http.response.start":
                started = True
            await send(message)

        with contextlib.suppress(_BodyTooLarge):  # FastAPI may also turn it into a 400, which guarded_send drops
            await self.app(scope, counted_receive, guarded_send)
        if exceeded and not started:
            await _answer(send, 413, too_large)


async def _answer(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


# --------------------------------------------------------------------------- the app
def create_app(
    db_path: str | Path | None = None,
    archive_path: str | Path | None = None,
    *,
    workers: int | None = None,
    warm: bool = True,
    limits: WebLimits | None = None,
) -> FastAPI:
    """The web app. ``db_path``: games in progress (default ``$XDG_DATA_HOME/sumito/web.sqlite``);
    ``archive_path``: the arena's game archive (default its usual file); ``workers``: processes
    that choose computer moves (default: the cores, at most 4); ``warm``: have each worker load
    every player's kernels as it starts (a few seconds of background work; tests switch it off);
    ``limits``: what clients may ask (``sumito serve``'s caps, model folder and allowed hosts)."""
    db = Path(db_path) if db_path is not None else default_web_db_path()
    archive = Path(archive_path) if archive_path is not None else default_db_path()
    limits = limits or WebLimits()
    store = WebStore(db)  # a bad file fails here, before the server starts

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pool = ThinkingPool(workers, warm)
        pool.start()
        hall = GameHall(store, archive, pool, limits)
        app.state.hall = hall
        try:
            await hall.resume()
            yield
        finally:
            pool.stop_replacing()  # the moves cancelled next must not fork new workers
            await hall.close()
            pool.close()
            store.close()

    app = FastAPI(
        title="Sumito",
        summary="Play Abalone against the computer, watch computers play, browse and replay stored games.",
        version="1",
        lifespan=lifespan,
    )
    app.state.archive_path = archive
    app.state.limits = limits
    app.add_middleware(RequestGuard, limits=limits)
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(SumitoError, _sumito_error)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, _unexpected_error)

    def hall(request: Request) -> GameHall:
        return request.app.state.hall

    async def state_of(request: Request, game_id: str) -> GameSession:
        return hall(request).session(game_id)

    # ----------------------------------------------------------------- reference data
    @app.get("/api/presets", tags=["players"], responses=errors())
    async def presets() -> list[dict[str, str | None]]:
        """Players the page offers by name: beginner, ABLA, Alphalone, the TD network, the engine, and perfect
        play on the mini board (``layout``: the one layout a preset plays on) once its table is built."""
        return [p.to_json() for p in PRESETS if p.offered()]

    @app.get("/api/layouts", tags=["positions"], responses=errors())
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

    @app.post("/api/position", tags=["positions"], responses=errors(*CHANGES))
    async def position(body: PositionBody) -> dict[str, Any]:
        """The Board of a position string (400 with the reason when it is malformed)."""
        pos = Position.from_string(body.position)
        return board_json(pos, layout_of(pos))

    # ----------------------------------------------------------------- games in progress
    async def owned(request: Request, game_id: str, token: str | None) -> GameSession:
        """The game, if ``token`` is its owner token (404 first: a game that does not exist has no owner)."""
        session = await state_of(request, game_id)
        GameHall.authorize(session, _checked_token(token))
        return session

    @app.post("/api/games", status_code=201, tags=["games"], responses=errors(*CHANGES, 429))
    async def new_game(body: NewGame, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
        """A new game; a computer that is to move starts thinking at once (429 past the client's caps).

        The answer's ``token`` is the game's owner token, needed (header ``X-Sumito-Token``) to move,
        undo, redo, resign, change the speed or delete it. A client may send its own token in that
        header (16 to 128 URL-safe characters) to own all its games with one token; else one is made.
        """
        sent = _checked_token(x_sumito_token)
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
            client=_client(request, sent),
        )
        return {**session.state(), "token": token}

    @app.get("/api/games", tags=["games"], responses=errors())
    async def games(request: Request, x_sumito_token: Token = None) -> list[dict[str, Any]]:
        """The games of the client's token (header ``X-Sumito-Token``): in progress, or finished in the
        last day, most recently changed first; none without a token."""
        return hall(request).games(_checked_token(x_sumito_token))

    @app.get("/api/games/{game_id}", tags=["games"], responses=errors(404))
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

    @app.get("/api/games/{game_id}/legal", tags=["games"], responses=errors(404))
    async def legal(game_id: str, request: Request) -> list[dict[str, Any]]:
        """The legal moves of the side to move (none when the game is over)."""
        return hall(request).legal_moves(await state_of(request, game_id))

    @app.post("/api/games/{game_id}/moves", tags=["games"], responses=errors(*CHANGES, 404, 409, 429))
    async def move(game_id: str, body: MoveBody, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
        """Play a person's move; 400 names what is wrong with it, 409 when it is not a person's turn."""
        session = await owned(request, game_id, x_sumito_token)
        await hall(request).play(session, body.move)
        return session.state()

    @app.post("/api/games/{game_id}/undo", tags=["games"], responses=errors(*CHANGES, 404, 409))
    async def undo(game_id: str, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
        """Take back the person's last move (and the computer's reply); 409 once the game is over."""
        session = await owned(request, game_id, x_sumito_token)
        await hall(request).undo(session)
        return session.state()

    @app.post("/api/games/{game_id}/redo", tags=["games"], responses=errors(*CHANGES, 404, 409, 429))
    async def redo(game_id: str, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
        """Play again what the last undo took back."""
        session = await owned(request, game_id, x_sumito_token)
        await hall(request).redo(session)
        return session.state()

    @app.post("/api/games/{game_id}/resign", tags=["games"], responses=errors(*CHANGES, 404, 409))
    async def resign(
        game_id: str, request: Request, body: ResignBody | None = None, x_sumito_token: Token = None
    ) -> dict[str, Any]:
        """End the game with ``side`` losing (default: the person's side)."""
        session = await owned(request, game_id, x_sumito_token)
        await hall(request).resign(session, body.side if body else None)
        return session.state()

    @app.post("/api/games/{game_id}/speed", tags=["games"], responses=errors(*CHANGES, 404))
    async def speed(game_id: str, body: SpeedBody, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
        """Watch mode: the seconds between two computer moves."""
        session = await owned(request, game_id, x_sumito_token)
        await hall(request).set_speed(session, body.speed)
        return session.state()

    @app.post("/api/games/{game_id}/hint", tags=["games"], responses=errors(*CHANGES, 404, 409, 429))
    async def hint(
        game_id: str, request: Request, body: HintBody | None = None, x_sumito_token: Token = None
    ) -> dict[str, Any]:
        """The best move and its score of the game's position now, from the learned engine in the
        worker pool searching ``seconds`` (default 0.3, at most ``--max-time``) or as long and deep as
        the computer opponent, if that is more (``player`` names it): a hint and the evaluation bar."""
        session = await owned(request, game_id, x_sumito_token)
        return await hall(request).hint(session, (body or HintBody()).seconds)

    @app.delete("/api/games/{game_id}", status_code=204, tags=["games"], responses=errors(*CHANGES, 404))
    async def delete_game(game_id: str, request: Request, x_sumito_token: Token = None) -> Response:
        """Delete the game; a computer thinking on it stops. A finished game stays in the archive."""
        session = await owned(request, game_id, x_sumito_token)
        await hall(request).delete(session)
        return Response(status_code=204)

    @app.get("/api/games/{game_id}/record", response_class=PlainTextResponse, tags=["records"], responses=errors(404))
    async def game_record(game_id: str, request: Request) -> PlainTextResponse:
        """The game as a record (result ``*`` while it goes on)."""
        session = await state_of(request, game_id)
        return PlainTextResponse(session.record().to_text())

    @app.post("/api/records", status_code=201, tags=["records"], responses=errors(*CHANGES, 429))
    async def import_record(body: RecordBody, request: Request, x_sumito_token: Token = None) -> dict[str, Any]:
        """A record imported as a new game between two people, at its last position; ``token`` is
        its owner token (as for a new game). At most 256 KiB and 2,000 plies (413 beyond)."""
        sent = _checked_token(x_sumito_token)
        token = sent or new_token()
        session = await hall(request).import_record(body.text, token=token, client=_client(request, sent))
        return {"game": session.state(), "token": token}

    # ----------------------------------------------------------------- the arena's archive
    def summaries(request: Request, token: str | None, rows: list[StoredGame]) -> list[dict[str, Any]]:
        """The stored games' summaries, with the names the requesting client knows its own web games by."""
        token = _checked_token(token)
        own = hall(request).store.archived_names(owner_hash(token), [g.id for g in rows]) if token else {}
        return [_stored_summary(g, own.get(g.id)) for g in rows]

    @app.get("/api/archive", tags=["archive"], responses=errors())
    async def archive_list(
        request: Request,
        player: Annotated[str | None, Query(max_length=200, description="part of either player's spec")] = None,
        layout: Annotated[str | None, Query(max_length=40)] = None,
        result: Annotated[str | None, Query(max_length=10, description="1-0, 0-1 or 1/2-1/2")] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        x_sumito_token: Token = None,
    ) -> dict[str, Any]:
        """Stored games, newest first: the arena's matches and tournaments and finished web games;
        with the client's token, its own web games name a person "You"."""
        filters = _archive_filters(player, layout, result)
        total, rows = await asyncio.to_thread(_archive_rows, request, filters, limit, offset)
        return {"total": total, "games": summaries(request, x_sumito_token, rows)}

    @app.get("/api/archive/{stored_id}", tags=["archive"], responses=errors(404))
    async def archive_game(
        stored_id: StoredId,
        request: Request,
        start: Annotated[int, Query(ge=0, le=10**9, description="the first ply of the page")] = 0,
        count: Annotated[
            int, Query(ge=1, le=MAX_REPLAY_PAGE, description=f"boards in the page (at most {MAX_REPLAY_PAGE})")
        ] = MAX_REPLAY_PAGE,
        x_sumito_token: Token = None,
    ) -> dict[str, Any]:
        """A page of a stored game, for replay: ``boards`` are the positions after ``start`` ..
        ``start + count - 1`` plies (those that exist), ``moves`` the moves played from each of them."""
        stored = await asyncio.to_thread(_stored_game, request, stored_id)
        moves, boards = await asyncio.to_thread(_replay_page, stored, start, count)
        (summary,) = summaries(request, x_sumito_token, [stored])
        return {"game": summary, "start": start, "moves": moves, "boards": boards}

    @app.post("/api/archive/{stored_id}/analysis", tags=["archive"], responses=errors(*CHANGES, 404, 429))
    async def archive_analysis(
        stored_id: StoredId, request: Request, body: AnalysisBody | None = None, x_sumito_token: Token = None
    ) -> dict[str, Any]:
        """One page of a stored game's analysis: the positions after plies ``start`` .. ``start +
        count − 1``, each searched briefly in the worker pool: the engine's best move and score,
        and the move the game played. Ask page after page; a client that goes away stops its page.
        The searches count as the client's (its ``X-Sumito-Token``, else its address)."""
        body = body or AnalysisBody()
        client = _client(request, _checked_token(x_sumito_token))
        stored = await asyncio.to_thread(_stored_game, request, stored_id)
        try:
            start = start_position(stored.start_position, stored.win_threshold, stored.inline_only)
        except SumitoError as exc:
            raise ArchiveError(f"stored game {stored.id} is damaged: {_one_line(exc)}") from None
        page = await hall(request).analyse_moves(
            start, stored.moves.split(), body.start, body.count, request.is_disconnected, client
        )
        (summary,) = summaries(request, x_sumito_token, [stored])
        return {"game": summary, **page}

    @app.get(
        "/api/archive/{stored_id}/record", response_class=PlainTextResponse, tags=["archive"], responses=errors(404)
    )
    def archive_record(stored_id: StoredId, request: Request) -> PlainTextResponse:
        """A stored game as a record."""
        return PlainTextResponse(_stored_game(request, stored_id).to_record().to_text())

    # ----------------------------------------------------------------- methods of the API's paths
    api_methods = [route for route in app.routes if isinstance(route, APIRoute) and route.path.startswith("/api/")]

    @app.api_route("/api/{rest:path}", methods=list(OTHER_METHODS), include_in_schema=False)
    async def other_method(rest: str, request: Request) -> Response:
        """OPTIONS on an API path: 204 with the methods it takes; another method it does not take: 405."""
        path = request.url.path
        allowed = sorted({m for r in api_methods if r.path_regex.match(path) for m in (r.methods or ())})
        if not allowed:
            shown = path if len(path) <= 60 else path[:57] + "..."
            return JSONResponse({"detail": f"there is no API path {shown!r}"}, status_code=404)
        allow = {"Allow": ", ".join([*allowed, "OPTIONS"])}
        if request.method == "OPTIONS":
            return Response(status_code=204, headers=allow)
        detail = f"{request.method} is not a method of {path[:60]!r}; it takes {', '.join(allowed)}"
        return JSONResponse({"detail": detail}, status_code=405, headers=allow)

    def openapi() -> dict[str, Any]:
        """FastAPI's description without its 422 answers: a malformed request is a 400 here."""
        if app.openapi_schema is None:
            schema = FastAPI.openapi(app)
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    responses = operation.get("responses", {})
                    responses.pop("422", None)
                    for status, answer in responses.items():
                        content = answer.get("content", {})
                        if status.startswith("4") and "text/plain" in content:  # a record's errors are JSON too
                            content["application/json"] = content.pop("text/plain")
            for name in ("HTTPValidationError", "ValidationError"):
                schema.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    # ----------------------------------------------------------------- the page
    if not STATIC.exists():
        STATIC.mkdir(parents=True)
        (STATIC / "index.html").write_text(PLACEHOLDER)
    app.mount("/", StaticFiles(directory=STATIC, html=True), name="page")
    return app


def _replay_page(stored: StoredGame, start: int, count: int) -> tuple[list[str], list[dict[str, Any]]]:
    """The moves and boards of one page of a stored game: only the window's boards are built (a
    40,000-ply game would be 164 MB of JSON in one answer), stepping through the moves before it."""
    moves = stored.moves.split()
    stop = min(start + count, len(moves) + 1)  # boards 0 .. len(moves)
    boards: list[dict[str, Any]] = []
    try:
        position = start_position(stored.start_position, stored.win_threshold, stored.inline_only)
        for ply in range(stop):
            if ply >= start:
                boards.append(board_json(position, stored.layout))
            if ply + 1 < stop:
                position = position.play(moves[ply])
    except SumitoError as exc:
        raise ArchiveError(f"stored game {stored.id} is damaged: {_one_line(exc)}") from None
    return moves[start : min(start + count, len(moves))], boards


def _archive_filters(player: str | None, layout: str | None, result: str | None) -> dict[str, Any]:
    if result and result not in ARCHIVE_RESULTS:
        raise WebError(f"result must be one of {', '.join(ARCHIVE_RESULTS)}, not {result!r}")
    return {
        "player": player or None,
        "layout": get_layout(layout).name if layout else None,
        "result": result or None,
    }


def _archive_rows(request: Request, filters: dict[str, Any], limit: int, offset: int) -> tuple[int, list[StoredGame]]:
    """How many stored games match ``filters``, and the page of them from ``offset``, newest first."""
    archive = _open_archive(request)
    if archive is None:
        return 0, []
    with archive:
        return archive.count(**filters), archive.games(limit=offset + limit, newest_first=True, **filters)[offset:]


def _open_archive(request: Request) -> GameArchive | None:
    """The arena's archive, read-only; ``None`` when there is none yet (no game stored)."""
    path: Path = request.app.state.archive_path
    if not path.exists():
        return None
    try:
        return GameArchive(path, create=False)
    except ArchiveError as exc:
        if "empty database" in str(exc):
            return None
        raise


StoredId = Annotated[int, PathParam(ge=1, le=MAX_STORED_ID)]


def _stored_game(request: Request, stored_id: int) -> StoredGame:
    archive = _open_archive(request)
    if archive is None:
        raise GameNotFoundError(f"there is no stored game {stored_id} (the archive is empty)")
    with archive:
        if archive.count(ids=[stored_id]) == 0:
            raise GameNotFoundError(f"there is no stored game {stored_id}")
        return archive.game(stored_id)


def _stored_summary(g: StoredGame, names: dict[str, str] | None = None) -> dict[str, Any]:
    """A stored game as the archive lists it; ``names``: the seat names of the client's own web game."""
    return {
        "id": g.id,
        "black": g.black_played,
        "white": g.white_played,
        # the names the page shows: the client's own seat names, else the specs as given (a match's
        # derived seeds left out) under the names the page knows them by
        "names": names or {"black": player_name(g.black, you=False), "white": player_name(g.white, you=False)},
        "layout": g.layout,
        "result": g.result,
        "reason": g.reason,
        "plies": g.plies,
        "finished": g.finished,
        "run": f"{g.run_kind} {g.run_id}",
        "lost": {"black": g.lost_black, "white": g.lost_white},
        "win_threshold": g.win_threshold,
        "inline_only": g.inline_only,
    }
