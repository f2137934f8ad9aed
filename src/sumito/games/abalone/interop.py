"""Other programs' formats: PlayStrategy's Abalone FEN and moves, and AbaPro / Nacre move notation.

What follows is what the sources say, where each detail comes from, and what had to be guessed.

PlayStrategy (playstrategy.org, the lichess fork of github.com/Mind-Sports-Games)
------------------------------------------------------------------------------------
The server side is the Scala library ``Mind-Sports-Games/strategygames`` (``src/main/scala/abalone``);
the browser side's notation code is ``Mind-Sports-Games/stratops`` (``src/variants/abalone``). The
code changed a lot over time; this module follows the newest versions found, checked against their
own tests.

**Cells.** ``strategygames`` ``geometry/Cell.scala``: a cell (x, y) is named by the row letter
``'a' + y`` and the number ``x + 1``; ``BoardType.scala``/``norm/N6.scala`` put the hexagon of side 5
in a 9 x 9 square with the corners ``|x - y| > 4`` cut. So a PlayStrategy key is our cell name:
row ``a`` (Black's side) at the bottom, the NW-SE diagonals numbered 1-9 (``stratops`` ``util.ts``
``pos2key`` agrees). *Older* code (``Pos.scala`` with ``officialNotationKey``) used transposed keys,
letter = diagonal and digit = row: Nacre's axes (below). The older ``AbaloneReplayTest.scala`` game
(``a1d4 e9e6 b1d3 e1e4 c2e4 ...``, with a "FIXME Wtf?" at ``e9e6``) is Nacre's notation in Nacre's
axes: :func:`parse_foreign_move` with ``axes="nacre"`` plays it through to exactly the final
position of the newer version of the same test game in today's notation (a test here).

**FEN** (``format/FEN.scala``, ``format/Forsyth.scala``)::

    SS1ss/SSSsss/1SS1ss1/8/9/8/1ss1SS1/sssSSS/ss1SS 0 0 b 0 1

is the Belgian Daisy start (``variant/Abalone.scala`` ``initialFen``). Fields: the board; the score
of player 1 (Black); the score of player 2 (White); the side to move, ``b`` (player 1, Black, who
starts) or ``w``; the plies since the last push-off (``halfMovesSinceLastCapture``); the move number
(``fullMove``, counted up after each White move as in chess). The board runs "from bottom left to top
right" (comment in ``FEN.scala``; the writer walks ``BoardType.cellList`` with y, the row, rising):
row ``a`` first, each row by increasing diagonal, rows separated by ``/``. ``S`` (upper case) is a
player-1 (Black) marble, ``s`` a White one, a number a run of empty cells. A score counts the
*opponent's* marbles pushed off: ``AbaloneFenTest.scala`` checks "P1's marbles on the board +
player2Score == 14" (on a FEN from a version that wrote player 1 in lower case, initial FEN
``ss1SS/...``; today's code and tests write it in upper case). ``AbaloneForsythTest.scala`` confirms
the orientation and the counters: from the start above, after a1-d4, i5-f5, b2-e5 the FEN is
``1S1ss/S1Ssss/1SS1ss1/3S4/4S4/3s4/1ss1SS1/sssSSS/1s1SS 0 0 w 3 2`` (``tests/test_interop.py``
reproduces it). The newest ``FEN.scala`` also reads an optional 7th field, "plies remaining this
turn", which only Grand Abalone (hex-6 board, two moves a turn) uses; this reader accepts it only as
``1`` (a turn of one move) and refuses Grand Abalone's 11-row board. Not confirmed: whether the
server writes that 7th field for standard Abalone (this writer leaves it out, as ``Forsyth.scala``
does). Older FENs started the move number at 0 (``... b 0 0``); PlayStrategy clamps it to at least 1
when reading (``Forsyth.<<<``), and so does this reader. PlayStrategy's own reader zips the cells
of all rows without checking row lengths; this one wants every row complete. Still older versions
wrote the rows from the top (a commented-out ``Forsyth.scala`` walks ``Rank.allReversed``) with
``P``/``p`` (initial FEN ``pp1PP/...``); those are not read.

**Moves** ("UCI", the ``actionStrs`` of a game, two cells, origin then destination). The move
generator in ``variant/Variant.scala`` (its comment: "'a' to 'G' would move three marbles ... the same
as if 'a' jumped over 'b' and 'c'", "side moves can only be described starting from the right
origin") and ``AbaloneReplayTest.scala`` (two games, replayed here in ``tests/test_interop.py``; its
comments write ``b5xb1`` and ``c5xa3`` for push-offs) give:

- inline: the trailing marble's cell, then the first empty cell beyond the line of marbles, the
  pushed ones included (``b3e6``: b3, c4 push d5 to e6); when the line runs off the board (a
  push-off), the last cell on the board instead (``c5a3``: c5, b4 push a3 off);
- broadside: the end marble from which the move's direction is 60 degrees off the line towards the
  other end, then the other end's destination (``c7d6`` moves c6, c7 to d6, d7).

The displayed notation (``stratops`` ``GameFamily.ts`` ``computeMoveNotationCore``, style
``PlayStrategy``) is the same two cells with ``×`` between them for a push-off (older ``stratops``
code and the Scala test comments use ``x``). :func:`playstrategy_move` writes the stored form, or with
``display=True`` the shown one with ``×``; the reader takes ``x``, ``X``, ``×`` or nothing, and
refuses the mark on a move that pushes nothing off.

AbaPro and Nacre
----------------
**AbaPro** (the Aba-Pro program; the notation of most published games and of Sumito itself). The
Wikipedia text mirrored at reference.com/browse/Othello+(board+game), "Abalone (board game) / Move
notation": rows lettered A-I from Black's side, NW-SE diagonals numbered 1-9; "An inline move can
be denoted by the movement of the trailing marble. Broadside moves can be denoted by the initial
positions of the two extremities of the row followed by the final position of the first one (thus
... each broadside move has two notations possible)". onlineabalone.wordpress.com, "Comprendre la
notation Aba-Pro", describes the same coordinates. The final of the 2015 Abalone World Championship,
published in "Aba-Pro notation" at abaloneonline.wordpress.com/category/games/, plays through
Sumito's parser move by move (a test here). So AbaPro tokens are Sumito's notation, in any case.

**Nacre** (an Abalone program by the forum user "nacre"). Its author's "Notation Standard Proposal"
(27 Oct 2005, Abalone-Theory-Forum, http://148009.aceboard.net/148009-1838-971-0-Notation-Systems.htm)
says: coordinates "similar to AbaPro, but with axes reversed: A1 is still bottom left, but A2 is in
the clockwise direction" (so Nacre's A2 is our b1: letter and number swap), and "Moves always use two
locations: FromFirst and ToLast (of your own pieces)". The proposal's details (in a linked post, not
found) would say which end of a broadside line is "first"; not confirmed. ``stratops`` implements a
"Nacre" style in AbaPro's coordinates: inline, the trailing marble and the cell the leading own
marble moves to; broadside, PlayStrategy's two cells (the 60-degree end, then the other end's
destination), which is the reading taken here: with it, two cells always name one move.

:func:`parse_foreign_move` reads a token in any of these forms: three cells are an AbaPro broadside;
two cells are an AbaPro inline move (trailing marble, next cell), a Nacre inline move (trailing
marble, the leading marble's destination), a PlayStrategy inline move (trailing marble, end of the
pushed line) or a Nacre/PlayStrategy broadside. In one coordinate system these readings never name
two different legal moves: the inline readings share their trailing marble and direction; a
broadside's two cells are not on one line; and the two broadside lines one pair of cells could
mean (``a1b3``: a1, a2 moving up-right, or a1, b2 moving right) each need empty the cell the other
needs occupied. Where the source is unknown, ``axes="either"`` reads the cells in AbaPro's and in
Nacre's axes; when that names two legal moves (``b1c2`` at the start: b1 to c2, or a2, b3, c4 up
the diagonal), the token is refused with :class:`AmbiguousMoveError`, which lists both in Sumito
notation.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from sumito.bounds import MAX_NOTATION_CHARS, MAX_POSITION_CHARS, parse_count
from sumito.defaults import NOTATIONS
from sumito.games.abalone.errors import IllegalMoveError, NotationError, PositionError
from sumito.games.abalone.game import Game
from sumito.games.abalone.geometry import BLACK, COLOR_NAMES, EMPTY, OFF, ROW_LETTERS, Geometry, board_name, geometry
from sumito.games.abalone.move import Move
from sumito.games.abalone.position import MAX_MOVE_NUMBER, Position

if TYPE_CHECKING:
    from sumito.games.abalone.game import Game
    from sumito.games.abalone.variants import Variant

__all__ = [
    "AXES",
    "NOTATIONS",
    "AmbiguousMoveError",
    "PlayStrategyFEN",
    "from_playstrategy_fen",
    "is_playstrategy_fen",
    "parse_foreign_move",
    "parse_move_as",
    "parse_playstrategy_move",
    "playstrategy_fen",
    "playstrategy_move",
    "playstrategy_moves",
    "read_playstrategy_fen",
]

#: cell naming: ``standard`` (row letter, diagonal number: AbaPro, PlayStrategy today, Sumito),
#: ``nacre`` (letter and number swapped: Nacre's proposal, PlayStrategy's early moves), or ``either``
#: (both tried; only :func:`parse_foreign_move` takes it)
AXES = ("standard", "nacre", "either")


class AmbiguousMoveError(NotationError):
    """A move token that names more than one legal move; ``candidates`` holds them."""

    def __init__(self, message: str, candidates: tuple[Move, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


class PlayStrategyFEN(NamedTuple):
    """A PlayStrategy FEN read: the position and the plies since the last push-off (which a
    :class:`Position` does not keep)."""

    position: Position
    halfmove_clock: int


# ====================================================================== FEN
#: the most plies since a push-off a FEN may claim (as many as the move number allows)
MAX_HALFMOVE_CLOCK = 2 * MAX_MOVE_NUMBER
_FEN_FIELDS = (
    "board, marbles pushed off by Black, by White, side to move, plies since the last push-off, move number"
)
_FEN_ROW_TOKEN = re.compile(r"[0-9]+|[Ss]|.", re.DOTALL)


def _shown(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_playstrategy_fen(text: str) -> bool:
    """Whether ``text`` is meant as a PlayStrategy FEN rather than a Sumito position string.

    Decided on the form alone, never by trying both: the board holds ``S``/``s`` (Sumito's uses
    ``b``/``w``), or there are 6 or 7 fields (Sumito's has 5) and no ``b``/``w`` on the board. A
    malformed FEN still counts as one, so that its error speaks of FEN fields.
    """
    if not isinstance(text, str) or len(text) > MAX_POSITION_CHARS:
        return False
    fields = text.split()
    if not fields:
        return False
    board = fields[0]
    if any(c in "bBwW" for c in board):
        return False
    return any(c in "Ss" for c in board) or len(fields) in (6, 7)


def read_playstrategy_fen(text: str, variant: Variant | None = None) -> PlayStrategyFEN:
    """Parse a PlayStrategy Abalone FEN (see the module notes) into a position and its half-move clock.

    ``variant`` defaults to the board size's default rules (PlayStrategy's Abalone is the standard
    game). Errors are :class:`PositionError` with a one-line message starting ``PlayStrategy FEN:``.
    """
    if not isinstance(text, str):
        raise PositionError(f"PlayStrategy FEN: expected text, not {type(text).__name__}")
    if len(text) > MAX_POSITION_CHARS:
        raise PositionError(f"PlayStrategy FEN: at most {MAX_POSITION_CHARS} characters, not {len(text)}")
    fields = text.split()
    if len(fields) == 7:
        if fields[6] != "1":
            raise PositionError(
                f"PlayStrategy FEN: a 7th field ({_shown(fields[6], 20)!r}, moves left in the turn) other than 1 "
                "belongs to Grand Abalone, which Sumito does not play"
            )
        fields = fields[:6]
    if len(fields) != 6:
        raise PositionError(f"PlayStrategy FEN: 6 fields ({_FEN_FIELDS}), not {len(fields)}: {_shown(text.strip())!r}")
    board, black_score, white_score, side_text, clock_text, number_text = fields
    rows = board.split("/")
    if len(rows) == 11:
        raise PositionError(
            "PlayStrategy FEN: 11 rows is Grand Abalone's hex-6 board (two moves a turn), which Sumito does not play"
        )
    if len(rows) % 2 == 0 or not 3 <= len(rows) <= 17:
        raise PositionError(
            f"PlayStrategy FEN: the board has {len(rows)} rows; a board has an odd number of rows (9 for Abalone)"
        )
    geo = geometry((len(rows) + 1) // 2)
    ours = [_fen_row_to_ours(row_text, geo, row) for row, row_text in enumerate(rows)]  # bottom row first
    if side_text not in ("b", "w"):
        raise PositionError(f"PlayStrategy FEN: side to move must be 'b' or 'w', not {_shown(side_text, 20)!r}")
    black_off = parse_count(black_score, "PlayStrategy FEN: marbles pushed off by Black", high=99, error=PositionError)
    white_off = parse_count(white_score, "PlayStrategy FEN: marbles pushed off by White", high=99, error=PositionError)
    clock = parse_count(
        clock_text, "PlayStrategy FEN: plies since the last push-off", high=MAX_HALFMOVE_CLOCK, error=PositionError
    )
    number = parse_count(number_text, "PlayStrategy FEN: move number", high=MAX_MOVE_NUMBER, error=PositionError)
    number = max(1, number)  # older FENs start at 0; PlayStrategy reads that as 1
    # Sumito's string: rows from the top, side, marbles lost by Black, by White, move number
    string = f"{'/'.join(reversed(ours))} {side_text} {white_off} {black_off} {number}"
    try:
        position = Position.from_string(string, variant)
    except PositionError as exc:
        raise PositionError(f"PlayStrategy FEN: {exc}") from None
    return PlayStrategyFEN(position, clock)


def _fen_row_to_ours(text: str, geo: Geometry, row: int) -> str:
    """One FEN row in Sumito's letters (``S`` -> ``b``, ``s`` -> ``w``), checked cell by cell."""
    letter = ROW_LETTERS[row]
    expected = len(geo.row_range(row))
    out: list[str] = []
    cells = 0
    for token in _FEN_ROW_TOKEN.findall(text):
        if token == "S" or token == "s":
            out.append("b" if token == "S" else "w")
            cells += 1
        elif token.isascii() and token.isdigit():
            if len(token) > 2 or int(token) == 0:
                shown = _shown(token, 11)
                raise PositionError(
                    f"PlayStrategy FEN: row {letter}: {shown!r} is not a run of empty cells (1 to {expected})"
                )
            out.append(token)
            cells += int(token)
        else:
            raise PositionError(
                f"PlayStrategy FEN: row {letter}: unexpected character {token[0]!r} "
                "(S for a Black marble, s for a White one, a digit for empty cells)"
            )
    if cells != expected:
        raise PositionError(
            f"PlayStrategy FEN: row {letter} (the {_ordinal(row + 1)} from the bottom) has {cells} cells, "
            f"but that row has {expected}: {_shown(text)!r}"
        )
    return "".join(out)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def from_playstrategy_fen(text: str, variant: Variant | None = None) -> Position:
    """The position a PlayStrategy FEN describes (its half-move clock dropped; see :func:`read_playstrategy_fen`)."""
    return read_playstrategy_fen(text, variant).position


def playstrategy_fen(position: Position | Game, halfmove_clock: int | None = None) -> str:
    """``position`` as a PlayStrategy FEN.

    Given a :class:`~sumito.games.abalone.game.Game`, the half-move clock is counted from its moves; given a
    position, it is ``halfmove_clock`` (default 0: a position does not remember its last push-off).
    PlayStrategy has only the standard board for Abalone; other sizes are written by the same rules.
    """
    if isinstance(position, Game):
        if halfmove_clock is None:
            halfmove_clock = 0
            for move in reversed(position.moves):
                if move.is_push_off:
                    break
                halfmove_clock += 1
        position = position.position
    if halfmove_clock is None:
        halfmove_clock = 0
    if not 0 <= halfmove_clock <= MAX_HALFMOVE_CLOCK:
        raise ValueError(f"halfmove_clock must be from 0 to {MAX_HALFMOVE_CLOCK}, not {halfmove_clock}")
    geo = position.geometry
    rows = [position.row_text(row, "S", "s") for row in range(geo.rows)]  # bottom row first
    side = "b" if position.side_to_move == BLACK else "w"
    lost_black, lost_white = position.lost
    return f"{'/'.join(rows)} {lost_white} {lost_black} {side} {halfmove_clock} {position.move_number}"


# ====================================================================== moves
_TOKEN = re.compile(r"([a-z][0-9]{1,2})([x×]?)([a-z][0-9]{1,2})")
_CELLS3 = re.compile(r"[a-z][0-9]{1,2}[a-z][0-9]{1,2}[a-z][0-9]{1,2}")


def _legal_move(position: Position, move: Move | str) -> Move:
    if isinstance(move, str):
        return position.parse_move(move)
    if not position.is_legal(move):
        raise IllegalMoveError(f"{move.notation()} is not a legal move in this position")
    return move


def _cells(move: Move) -> list[int]:
    geo = move.geometry
    return [geo.name_to_grid[n] for n in move.marbles]


def _playstrategy_cells(position: Position, move: Move) -> tuple[int, int]:
    """Grid indices of PlayStrategy's origin and destination for the legal ``move``."""
    geo = position.geometry
    marbles = _cells(move)
    step = int(geo.offsets[move.direction])
    if move.is_inline:
        dest = marbles[0] + (move.count + move.pushed) * step
        if position.grid[dest] == OFF:  # a push-off: the last cell on the board
            dest -= step
        return marbles[0], dest
    line = geo.direction_between(marbles[0], marbles[1])
    if (move.direction - line) % 6 in (1, 5):  # 60 degrees off the line from the first end
        return marbles[0], marbles[-1] + step
    return marbles[-1], marbles[0] + step


def playstrategy_move(position: Position, move: Move | str, *, display: bool = False) -> str:
    """The legal ``move`` (a :class:`Move` or Sumito notation) in PlayStrategy's notation.

    The default is the stored form (``a1d4``), what PlayStrategy's game data and engines exchange;
    ``display=True`` gives the shown form, which marks a push-off with ``×`` (``b5×b1``).
    """
    move = _legal_move(position, move)
    orig, dest = _playstrategy_cells(position, move)
    geo = position.geometry
    sep = "×" if display and move.is_push_off else ""
    return f"{geo.name(orig)}{sep}{geo.name(dest)}"


def playstrategy_moves(start: Position, moves: list[Move | str]) -> list[str]:
    """A game's moves from ``start`` (Moves or Sumito notation) in PlayStrategy's stored notation."""
    out = []
    pos = start
    for i, mv in enumerate(moves, 1):
        try:
            move = _legal_move(pos, mv)
        except NotationError as exc:
            raise type(exc)(f"move {i}: {exc}") from None
        out.append(playstrategy_move(pos, move))
        pos = pos.play(move)
    return out


def _transpose(name: str) -> str:
    """A cell name read in Nacre's axes (letter = diagonal, number = row), as Sumito names that cell."""
    number = int(name[1:])
    if not 1 <= number <= len(ROW_LETTERS):
        return "?"
    return f"{ROW_LETTERS[number - 1]}{ROW_LETTERS.index(name[0]) + 1}"


def _tokenize(text: str, axes: str, what: str) -> tuple[str, list[str], bool]:
    """``(shown text, cell names as written, push-off mark)`` of a move token, or a NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"a move is text, not {type(text).__name__}")
    if len(text) > MAX_NOTATION_CHARS:
        raise NotationError(f"{text[:20]!r}... is not a move: {len(text):,} characters (a move has at most six)")
    if axes not in AXES:
        raise ValueError(f"axes must be one of {', '.join(AXES)}, not {axes!r}")
    raw = " ".join(text.split())  # one line in any message
    cleaned = re.sub(r"[\s\-:]", "", raw.lower())
    match = _TOKEN.fullmatch(cleaned)
    if match:
        return raw, [match.group(1), match.group(3)], bool(match.group(2))
    if _CELLS3.fullmatch(cleaned):
        return raw, re.findall(r"[a-z][0-9]{1,2}", cleaned), False
    raise NotationError(f"{_shown(raw, 30)!r} is not a move in {what}")


def _in_axes(position: Position, raw: str, names: list[str], axes: str) -> list[str]:
    """``names`` as Sumito names the cells, read in ``axes``; a NotationError for a cell off the board."""
    geo = position.geometry
    out = [_transpose(n) if axes == "nacre" else n for n in names]
    for name, cell in zip(names, out):
        if cell not in geo.name_to_grid:
            where = " in Nacre's axes" if axes == "nacre" else ""
            raise NotationError(f"{raw}: there is no cell {name}{where} on the {board_name(geo.side)} board")
    return out


def _check_mark(raw: str, move: Move, mark: bool) -> Move:
    if mark and not move.is_push_off:
        raise IllegalMoveError(f"{raw} is marked as a push-off, but {move.notation()} pushes no marble off")
    return move


def _why_not(position: Position, raw: str, origin: str) -> IllegalMoveError:
    """Why no legal move starts at ``origin`` the way a token says."""
    winner = position.winner()
    if winner is not None:
        return IllegalMoveError(f"{raw} is not legal: the game is over ({COLOR_NAMES[winner]} has won)")
    mover = COLOR_NAMES[position.side_to_move]
    held = position.cell(origin)
    if held == EMPTY:
        return IllegalMoveError(f"{raw} is not legal: there is no marble on {origin}")
    if held != position.side_to_move:
        owner = COLOR_NAMES[held]
        return IllegalMoveError(f"{raw} is not legal: the marble on {origin} is {owner}'s and {mover} is to move")
    return IllegalMoveError(f"{raw} is not legal: no legal move of {mover}'s marbles from {origin} is written so")


def parse_playstrategy_move(position: Position, text: str) -> Move:
    """The legal move that a PlayStrategy move names (stored ``a1d4`` or shown ``b5×b1`` / ``b5xb1``).

    PlayStrategy writes every move one way, so a token names at most one move. (PlayStrategy's early
    moves, in Nacre's axes and rule, are read by :func:`parse_foreign_move` with ``axes="nacre"``.)
    """
    raw, written, mark = _tokenize(text, "standard", "PlayStrategy notation (two cells, like a1d4)")
    if len(written) != 2:
        raise NotationError(f"{raw} is not a move in PlayStrategy notation: it names two cells (like a1d4), not three")
    names = _in_axes(position, raw, written, "standard")
    geo = position.geometry
    want = (geo.name_to_grid[names[0]], geo.name_to_grid[names[1]])
    for move in _moves_from(position, names[0]):
        if _playstrategy_cells(position, move) == want:
            return _check_mark(raw, move, mark)
    raise _why_not(position, raw, names[0])


def _moves_from(position: Position, cell: str) -> list[Move]:
    """The legal moves with a marble on ``cell`` at one end of the moving line (every token starts there)."""
    out = []
    for move in position.legal_moves():
        marbles = move.marbles
        if cell == marbles[0] or cell == marbles[-1]:
            out.append(move)
    return out


def _readings(position: Position, move: Move) -> set[tuple[int, int]]:
    """The two-cell tokens (as grid-index pairs) that AbaPro, Nacre or PlayStrategy write for ``move``."""
    marbles = _cells(move)
    if move.is_broadside:
        return {_playstrategy_cells(position, move)}  # Nacre and PlayStrategy: the 60-degree end
    step = int(position.geometry.offsets[move.direction])
    trail = marbles[0]
    return {
        (trail, trail + step),  # AbaPro: the trailing marble and its next cell
        (trail, marbles[-1] + step),  # Nacre: FromFirst, ToLast of one's own marbles
        _playstrategy_cells(position, move),  # PlayStrategy: the end of the pushed line
    }


def _candidates(position: Position, raw: str, names: list[str], mark: bool) -> tuple[list[Move], NotationError | None]:
    """The legal moves the cells ``names`` (Sumito's names) stand for, or the reason there is none."""
    if len(names) == 3:  # AbaPro's broadside form, which is Sumito's
        try:
            return [position.parse_move("".join(names))], None
        except NotationError as exc:
            return [], exc
    geo = position.geometry
    want = (geo.name_to_grid[names[0]], geo.name_to_grid[names[1]])
    found = [m for m in _moves_from(position, names[0]) if want in _readings(position, m)]
    if mark:
        found = [m for m in found if m.is_push_off] or found
    if found:
        return found, None
    if geo.direction_between(*want) is not None:  # neighbours: AbaPro's inline reading says why best
        try:
            position.parse_move("".join(names))
        except NotationError as exc:
            return [], exc
    return [], _why_not(position, raw, names[0])


def _describe(move: Move) -> str:
    kind = "broadside" if move.is_broadside else "inline"
    return f"{move.notation()} ({kind}: {', '.join(move.marbles)} to {', '.join(move.destinations)})"


def parse_foreign_move(position: Position, text: str, *, axes: str = "standard") -> Move:
    """The legal move an AbaPro, Nacre or PlayStrategy token names (see the module notes).

    Three cells are an AbaPro broadside move (Sumito's notation); two cells are read every way these
    programs write two-cell moves. ``axes`` says how cells are named: ``standard`` (AbaPro's, which
    PlayStrategy and Sumito use), ``nacre`` (letter and number swapped, as Nacre's proposal has it),
    or ``either``, for a token from an unknown source: it is read both ways, and when the readings
    name different legal moves the token is refused with :class:`AmbiguousMoveError`, which lists
    them in Sumito notation.
    """
    raw, written, mark = _tokenize(text, "standard" if axes == "either" else axes, "AbaPro or Nacre notation")
    systems = ("standard", "nacre") if axes == "either" else (axes,)
    found: dict[Move, str] = {}
    errors: list[NotationError] = []
    for system in systems:
        try:
            names = _in_axes(position, raw, written, system)
        except NotationError as exc:
            errors.append(exc)
            continue
        moves, error = _candidates(position, raw, names, mark)
        if error is not None:
            errors.append(error)
        for move in moves:
            found.setdefault(move, system)
    if len(found) == 1:
        return _check_mark(raw, next(iter(found)), mark)
    if found:
        how = {"standard": "with AbaPro's axes", "nacre": "with Nacre's axes"}
        listed = "; ".join(
            (f"{how[system]}, " if axes == "either" else "") + _describe(move) for move, system in found.items()
        )
        raise AmbiguousMoveError(
            f"{raw} is ambiguous: it names {len(found)} legal moves: {listed}; write the one meant in Sumito notation",
            tuple(found),
        )
    error = errors[0]
    if len(errors) > 1:
        raise type(error)(f"{error} (nor does it name a legal move in Nacre's axes)")
    raise error


def parse_move_as(position: Position, text: str, notation: str = "sumito", *, axes: str = "standard") -> Move:
    """``text`` read in ``notation``: ``sumito`` (= AbaPro), ``playstrategy``, or ``auto`` (any of them)."""
    if notation == "sumito":
        if axes != "standard":
            raise ValueError("Sumito notation uses the standard axes")
        return position.parse_move(text)
    if notation == "playstrategy":
        if axes != "standard":
            raise ValueError("PlayStrategy notation uses the standard axes")
        return parse_playstrategy_move(position, text)
    if notation == "auto":
        return parse_foreign_move(position, text, axes=axes)
    raise ValueError(f"notation must be one of {', '.join(NOTATIONS)}, not {notation!r}")
