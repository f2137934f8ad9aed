"""Parsing move notation against a position, with an explanation when the move is illegal.

See :mod:`sumito.games.abalone.move` for the notation itself.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sumito.bounds import MAX_NOTATION_CHARS
from sumito.games.abalone import kernels as K
from sumito.games.abalone.errors import IllegalMoveError, NotationError
from sumito.games.abalone.geometry import COLOR_NAMES, EMPTY, OFF, Geometry, board_name, opposite
from sumito.games.abalone.move import Move

if TYPE_CHECKING:
    from sumito.games.abalone.position import Position

_CELL = re.compile(r"[a-z][0-9]{1,2}")


def parse_move(position: Position, text: str) -> Move:
    """The legal move of ``position`` that ``text`` names, or a :class:`NotationError` saying why not."""
    if len(text) > MAX_NOTATION_CHARS:
        raise NotationError(f"{text[:20]!r}... is not a move: {len(text):,} characters (a move has at most six)")
    raw = text.strip()
    cleaned = raw.lower().replace("-", "").replace(" ", "")
    cells = _CELL.findall(cleaned)
    if not cleaned or "".join(cells) != cleaned or len(cells) not in (2, 3):
        raise NotationError(
            f"{raw!r} is not a move: write an inline move as the trailing marble's cell and the cell it "
            "moves to (a1a2), a broadside move as both end marbles and the first one's destination (e6e8f6)"
        )
    geo = position.geometry
    unknown = [c for c in cells if c not in geo.name_to_grid]
    if unknown:
        raise NotationError(f"{raw}: there is no cell {unknown[0]} on the {board_name(geo.side)} board")
    grid_cells = [geo.name_to_grid[c] for c in cells]
    if len(cells) == 2:
        return _parse_inline(position, geo, raw, *grid_cells)
    return _parse_broadside(position, geo, raw, *grid_cells)


def _illegal(raw: str, why: str) -> IllegalMoveError:
    return IllegalMoveError(f"{raw} is not legal: {why}")


def _check_game_on(position: Position, raw: str) -> None:
    winner = position.winner()
    if winner is not None:
        raise _illegal(raw, f"the game is over ({COLOR_NAMES[winner]} has won)")


def _parse_inline(position: Position, geo: Geometry, raw: str, frm: int, to: int) -> Move:
    d = geo.direction_between(frm, to)
    if d is None:
        raise NotationError(
            f"{raw}: {geo.name(frm)} and {geo.name(to)} are not neighbours; an inline move names the "
            "trailing marble's cell and the next cell in the direction of the move"
        )
    _check_game_on(position, raw)
    code = K.encode_move(frm, d, 0, False, d, 0, False)
    found = _find(position, code, inline=True)
    if found is not None:
        return found
    raise _illegal(raw, _why_inline_illegal(position, geo, frm, d))


def _why_inline_illegal(position: Position, geo: Geometry, frm: int, d: int) -> str:
    grid = position.grid
    side = position.side_to_move
    opp = 3 - side
    mover = COLOR_NAMES[side]
    if grid[frm] == EMPTY:
        return f"there is no marble on {geo.name(frm)}"
    if grid[frm] == opp:
        return f"the marble on {geo.name(frm)} is {COLOR_NAMES[opp]}'s and {mover} is to move"
    step = int(geo.offsets[d])
    k, c = 1, frm + step
    while grid[c] == side:
        k += 1
        c += step
    if k > 3:
        return f"a line of {k} marbles cannot move (at most 3)"
    if grid[c] == OFF:
        return f"{mover}'s marble would leave the board (a player never pushes their own marble off)"
    p = 0
    while grid[c] == opp:
        p += 1
        c += step
    if p >= k:
        return f"{k} marble{'s' if k > 1 else ''} cannot push {p} (a push needs more marbles than it moves)"
    if grid[c] == side:
        return f"the push is blocked by {mover}'s own marble on {geo.name(c)}"
    return "no such move"  # unreachable when the generator is right


def _parse_broadside(position: Position, geo: Geometry, raw: str, end1: int, end2: int, dest: int) -> Move:
    names = geo.name
    line = None
    length = 0
    for a in range(6):
        off = int(geo.offsets[a])
        if end1 + off == end2:
            line, length = a, 2
        elif end1 + 2 * off == end2:
            line, length = a, 3
    if line is None:
        raise NotationError(
            f"{raw}: {names(end1)} and {names(end2)} are not the ends of a line of two or three marbles"
        )
    d = geo.direction_between(end1, dest)
    if d is None:
        raise NotationError(f"{raw}: {names(dest)} is not next to {names(end1)}")
    if d in (line, opposite(line)):
        raise NotationError(
            f"{raw}: the marbles would move along their own line; write that as an inline move, "
            "the trailing marble's cell and the cell it moves to"
        )
    _check_game_on(position, raw)
    start, axis = (end1, line) if line < 3 else (end2, opposite(line))
    code = K.encode_move(start, d, length, True, axis, 0, False)
    found = _find(position, code, inline=False)
    if found is not None:
        return found
    if position.variant.inline_only:
        raise _illegal(raw, "broadside moves are not allowed in the inline-only game")
    grid = position.grid
    side = position.side_to_move
    step = int(geo.offsets[d])
    marbles = [start + i * int(geo.offsets[axis]) for i in range(length)]
    for m in marbles:
        if grid[m] != side:
            raise _illegal(raw, f"there is no {COLOR_NAMES[side]} marble on {names(m)}")
    for m in marbles:
        target = m + step
        if grid[target] == OFF:
            raise _illegal(raw, f"the marble on {names(m)} would leave the board")
        if grid[target] != EMPTY:
            raise _illegal(raw, f"a broadside move needs empty cells, and {names(target)} is occupied")
    raise _illegal(raw, "no such move")  # unreachable when the generator is right


def _find(position: Position, code: int, inline: bool) -> Move | None:
    """The legal move matching ``code`` on start, direction, kind and (broadside) line and count."""
    # an inline move is identified by trailing marble and direction (the board gives the count);
    # a broadside one by all of start, direction, count and line
    inline_key = K.START_MASK | (7 << K.DIR_SHIFT) | K.BROADSIDE_BIT
    key_mask = inline_key if inline else (1 << K.PUSH_SHIFT) - 1
    key = code & key_mask
    for c in position.legal_move_codes():
        c = int(c)
        if c & key_mask == key:
            return Move(c, position.variant.side)
    return None
