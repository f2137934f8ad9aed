"""The web app: the JSON API of docs/web-api.md under ``/api``, and the static page at ``/``.

The routes are in :mod:`sumito.web.routes`, one router per OpenAPI tag; handlers only translate between HTTP and
:mod:`sumito.web.hall` (the games in progress), and the rules stay in the games' own packages.
Every error a client can cause is a 4xx answer ``{"detail": "one line"}``: a
:class:`~sumito.errors.SumitoError` (a malformed move, position, spec or record) is a 400 with
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

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles

from sumito.arena.db import default_db_path
from sumito.errors import SumitoError
from sumito.web.hall import GameHall
from sumito.web.limits import MAX_IMPORT_BYTES, WebLimits, same_origin
from sumito.web.routes import ROUTERS
from sumito.web.session import one_line
from sumito.web.store import WebStore, default_web_db_path
from sumito.web.thinking import ThinkingPool

log = logging.getLogger("sumito.web")

STATIC = Path(__file__).with_name("static")
PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sumito</title></head>
<body><h1>Sumito</h1><p>The page is not built yet; the API is at <a href="/docs">/docs</a>.</p></body></html>
"""
#: the biggest request body (a record import is JSON around the record: escapes may double it)
MAX_BODY_BYTES = 64 * 1024
MAX_RECORD_BODY_BYTES = 2 * MAX_IMPORT_BYTES + 4096


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
    return JSONResponse({"detail": one_line(exc)}, status_code=status)


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    log.exception("internal error on %s %s", request.method, request.url.path)
    return JSONResponse({"detail": f"internal error: {one_line(exc)}"}, status_code=500)


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
        send = _with_security_headers(send, scope.get("path", ""))
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        host = headers.get(b"host", b"").decode("latin-1")
        if host and not self.limits.host_allowed(host):
            shown = host if len(host) <= 60 else host[:57] + "..."
            await _answer(send, 400, f"the host {shown!r} is not this server's (sumito serve --allowed-hosts)")
            return
        origin = headers.get(b"origin")
        changes = scope.get("method", "GET").encode() not in SAFE_METHODS
        if origin is not None and changes and not same_origin(origin.decode("latin-1"), host):
            await _answer(send, 403, "a page of another site (another host or port) may not change games on "
                                     "this server")
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


#: what a browser may load for the page: its own files only (no inline script or style, no other site), and
#: no page may frame it (clickjacking)
PAGE_POLICY = ("default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
#: FastAPI's API pages (/docs, /redoc) load Swagger UI and ReDoc from their CDN, with inline script and style
API_PAGES_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
                    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
                    "font-src https://fonts.gstatic.com; img-src 'self' data: https:; worker-src blob:; "
                    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
#: on every answer: the policy, no guessing of content types, no framing for browsers without CSP, and no
#: address of this server's pages in requests to others
SECURITY_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"same-origin"))


def _with_security_headers(send: Send, path: str) -> Send:
    """``send`` with the security headers added to the start of every answer (the app's and the guard's)."""
    policy = (API_PAGES_POLICY if path in ("/docs", "/redoc") or path.startswith("/docs/") else PAGE_POLICY).encode()

    async def secured(message: MutableMapping[str, Any]) -> None:
        if message.get("type") == "http.response.start":
            headers = list(message.get("headers", []))
            present = {name.lower() for name, _ in headers}
            headers += [(name, value) for name, value in ((b"content-security-policy", policy), *SECURITY_HEADERS)
                        if name not in present]
            message = {**message, "headers": headers}
        await send(message)

    return secured


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

    for router in ROUTERS:
        app.include_router(router)

    # ----------------------------------------------------------------- methods of the API's paths
    # (the routers' own routes: FastAPI keeps an included router as one entry of app.routes)
    api_methods = [route for router in ROUTERS for route in router.routes if isinstance(route, APIRoute)]

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
