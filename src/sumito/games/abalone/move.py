"""Moves as small values, and their standard notation.

Notation (the AbaPro / Wikipedia style):

* an **inline** move is the trailing marble's cell and the cell it moves to: ``a1a2`` moves the
  line that starts with the marble on a1 one step towards a2 (a single marble is always inline);
  pushes need no extra mark, the position says what is pushed;
* a **broadside** move is the two end marbles of the line and the cell the first one moves to:
  ``e6e8f6`` moves e6, e7, e8 to f6, f7, f8; ``e6e7f6`` moves two marbles.

Formatting writes first the end marble on the lower row (on one row, the lower diagonal);
parsing accepts either order.
"""

from __future__ import annotations

from dataclasses import dataclass

from sumito.games.abalone import kernels as K  # bit layout of the move code
from sumito.games.abalone.geometry import DIRECTION_NAMES, Geometry, geometry


def _start(code: int) -> int:
    return code & K.START_MASK


def _dir(code: int) -> int:
    return (code >> K.DIR_SHIFT) & 7


def _count(code: int) -> int:
    return (code >> K.COUNT_SHIFT) & 3


def _line(code: int) -> int:
    return (code >> K.LINE_SHIFT) & 7


def _is_broadside(code: int) -> bool:
    return bool(code & K.BROADSIDE_BIT)


@dataclass(frozen=True, order=True)
class Move:
    """One legal move, as generated in a position.

    ``code`` is the kernels' integer encoding (see :mod:`sumito.games.abalone.kernels`), which also says
    how many opposing marbles it pushes; ``board_side`` is the board size the code refers to.
    Moves are built by a position (``Position.legal_moves()``, ``Position.parse_move()``), not
    by hand.
    """

    code: int
    board_side: int = 5

    @property
    def geometry(self) -> Geometry:
        return geometry(self.board_side)

    @property
    def start(self) -> str:
        """Cell of the trailing marble (inline) or of the first end marble (broadside)."""
        return self.geometry.name(_start(self.code))

    @property
    def direction(self) -> int:
        """Direction index 0-5 (E, NE, NW, W, SW, SE) the marbles move in."""
        return _dir(self.code)

    @property
    def direction_name(self) -> str:
        return DIRECTION_NAMES[self.direction]

    @property
    def count(self) -> int:
        """How many of the mover's marbles move (1-3)."""
        return _count(self.code)

    @property
    def is_broadside(self) -> bool:
        return _is_broadside(self.code)

    @property
    def is_inline(self) -> bool:
        return not self.is_broadside

    @property
    def pushed(self) -> int:
        """How many opposing marbles the move pushes (0-2)."""
        return (self.code >> K.PUSH_SHIFT) & 3

    @property
    def is_push(self) -> bool:
        return self.pushed > 0

    @property
    def is_push_off(self) -> bool:
        """True when the move pushes an opposing marble off the board."""
        return bool(self.code & K.PUSH_OFF_BIT)

    def _grid_cells(self) -> list[int]:
        g = self.geometry
        start = _start(self.code)
        line = g.offsets[_line(self.code)]
        return [int(start + i * line) for i in range(self.count)]

    @property
    def marbles(self) -> tuple[str, ...]:
        """Cells of the marbles that move, from the trailing (or first end) marble on."""
        return tuple(self.geometry.name(c) for c in self._grid_cells())

    @property
    def destinations(self) -> tuple[str, ...]:
        """Cells the moving marbles end on, in the order of :attr:`marbles`."""
        step = self.geometry.offsets[self.direction]
        return tuple(self.geometry.name(int(c + step)) for c in self._grid_cells())

    def notation(self) -> str:
        return format_move(self.code, self.geometry)

    def __eq__(self, other: object) -> bool:
        """Moves are equal when they are the same move; a move also equals its notation, so that
        ``"a1b2" in position.legal_moves()`` reads as it should (case, spaces and '-' aside)."""
        if isinstance(other, Move):
            return (self.code, self.board_side) == (other.code, other.board_side)
        if isinstance(other, str):
            return other.strip().lower().replace("-", "").replace(" ", "") == self.notation()
        return NotImplemented

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        kind = "broadside" if self.is_broadside else "inline"
        extra = f", pushes {self.pushed}" + (" off" if self.is_push_off else "") if self.pushed else ""
        return f"Move({self.notation()!r}, {kind}, {self.count} marble(s){extra})"


def format_move(code: int, geo: Geometry) -> str:
    """Standard notation of an encoded move on the board ``geo``."""
    start = _start(code)
    step = geo.offsets[_dir(code)]
    if _is_broadside(code):
        end = start + (_count(code) - 1) * geo.offsets[_line(code)]
        return geo.name(start) + geo.name(int(end)) + geo.name(int(start + step))
    return geo.name(start) + geo.name(int(start + step))
