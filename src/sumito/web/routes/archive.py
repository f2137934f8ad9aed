"""Routes ``archive``: the arena's stored games — list, replay page by page, analyse, the record.

The archive is the arena's SQLite file, opened read-only for each request (in a thread: a page of a long
game is stepped through in Python); an archive that does not exist yet is an empty one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse

from sumito.arena.db import GameArchive, StoredGame
from sumito.arena.errors import ArchiveError
from sumito.arena.match import start_position
from sumito.errors import SumitoError
from sumito.games.abalone import get_layout
from sumito.web.errors import GameNotFoundError, WebError
from sumito.web.limits import MAX_REPLAY_PAGE
from sumito.web.routing import CHANGES, AnalysisBody, StoredId, Token, checked_token, client_of, errors, hall
from sumito.web.seats import player_name
from sumito.web.serialize import board_json
from sumito.web.session import one_line, owner_hash

router = APIRouter(tags=["archive"])
ARCHIVE_RESULTS = ("1-0", "0-1", "1/2-1/2")


@router.get("/api/archive", responses=errors())
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
    return {"total": total, "games": _summaries(request, x_sumito_token, rows)}


@router.get("/api/archive/{stored_id}", responses=errors(404))
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
    (summary,) = _summaries(request, x_sumito_token, [stored])
    return {"game": summary, "start": start, "moves": moves, "boards": boards}


@router.post("/api/archive/{stored_id}/analysis", responses=errors(*CHANGES, 404, 429))
async def archive_analysis(
    stored_id: StoredId, request: Request, body: AnalysisBody | None = None, x_sumito_token: Token = None
) -> dict[str, Any]:
    """One page of a stored game's analysis: the positions after plies ``start`` .. ``start +
    count − 1``, each searched briefly in the worker pool: the engine's best move and score,
    and the move the game played. Ask page after page; a client that goes away stops its page.
    The searches count as the client's (its ``X-Sumito-Token``, else its address)."""
    body = body or AnalysisBody()
    client = client_of(request, checked_token(x_sumito_token))
    stored = await asyncio.to_thread(_stored_game, request, stored_id)
    try:
        start = start_position(stored.start_position, stored.win_threshold, stored.inline_only)
    except SumitoError as exc:
        raise ArchiveError(f"stored game {stored.id} is damaged: {one_line(exc)}") from None
    page = await hall(request).analyse_moves(
        start, stored.moves.split(), body.start, body.count, request.is_disconnected, client
    )
    (summary,) = _summaries(request, x_sumito_token, [stored])
    return {"game": summary, **page}


@router.get("/api/archive/{stored_id}/record", response_class=PlainTextResponse, responses=errors(404))
def archive_record(stored_id: StoredId, request: Request) -> PlainTextResponse:
    """A stored game as a record."""
    return PlainTextResponse(_stored_game(request, stored_id).to_record().to_text())


def _summaries(request: Request, token: str | None, rows: list[StoredGame]) -> list[dict[str, Any]]:
    """The stored games' summaries, with the names the requesting client knows its own web games by."""
    token = checked_token(token)
    own = hall(request).store.archived_names(owner_hash(token), [g.id for g in rows]) if token else {}
    return [_stored_summary(g, own.get(g.id)) for g in rows]


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
        raise ArchiveError(f"stored game {stored.id} is damaged: {one_line(exc)}") from None
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
