"""The game state as a value: marbles, side to move, marbles lost, move number and hash.

Position strings (one line, like chess FEN)::

    wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1

are the board rows from the top row (``i`` on the standard board) down to ``a``, each row's cells
in increasing diagonal number, ``b`` a black marble, ``w`` a white one, a number a run of empty
cells; then the side to move (``b``/``w``), the marbles Black has lost, the marbles White has
lost, and the move number (starting at 1, counted up after each White move). The number of rows
gives the board size: 9 rows standard, 7 the side-4 "small" board, 5 the side-3 "mini" board.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from sumito.bounds import MAX_POSITION_CHARS
from sumito.games.abalone import kernels as K
from sumito.games.abalone.errors import IllegalMoveError, NotationError, PositionError
from sumito.games.abalone.geometry import BLACK, COLOR_NAMES, EMPTY, WHITE, Color, Geometry, board_name, geometry
from sumito.games.abalone.move import Move
from sumito.games.abalone.notation import parse_move
from sumito.games.abalone.variants import Variant, default_variant, get_layout
from sumito.stopping import STOP, call_stoppable

_SIDE_CHARS = {"b": BLACK, "w": WHITE}


class Position:
    """An Abalone position. Treat it as immutable: :meth:`play` returns a new position.

    Build one with :meth:`start` (a named layout) or :meth:`from_string`. Equal positions compare
    equal and hash alike; ``zobrist`` identifies the arrangement of marbles plus the side to move
    (what repetition rules compare).
    """

    __slots__ = ("_grid", "lost", "move_number", "side_to_move", "variant", "zobrist")

    def __init__(
        self,
        grid: np.ndarray,
        side_to_move: int,
        lost: tuple[int, int],
        move_number: int,
        variant: Variant,
        zobrist: int | None = None,
    ) -> None:
        geo = geometry(variant.side)
        if grid.shape != (geo.width * geo.width,) or grid.dtype != np.int8:
            raise PositionError("internal: grid does not match the board size")
        grid.flags.writeable = False
        self._grid = grid
        self.side_to_move = side_to_move
        self.lost = (int(lost[0]), int(lost[1]))
        self.move_number = move_number
        self.variant = variant
        if zobrist is None:
            zobrist = int(K.compute_hash(grid, side_to_move, geo.cells, geo.zobrist))
        self.zobrist = zobrist

    # ----------------------------------------------------------------- construction
    @classmethod
    def start(
        cls, layout: str = "standard", *, win_threshold: int | None = None, inline_only: bool | None = None
    ) -> Position:
        """The starting position of a named layout (see :mod:`sumito.games.abalone.variants`)."""
        lay = get_layout(layout)
        variant = lay.variant.with_options(win_threshold=win_threshold, inline_only=inline_only)
        return cls.from_string(lay.position_string, variant)

    @classmethod
    def from_string(cls, text: str, variant: Variant | None = None) -> Position:
        """Parse a position string; ``variant`` defaults to the board size's default rules."""
        if len(text) > MAX_POSITION_CHARS:
            raise PositionError(f"a position string has at most {MAX_POSITION_CHARS} characters, not {len(text)}")
        fields = text.split()
        if len(fields) != 5:
            raise PositionError(
                f"a position string has 5 fields (rows, side to move, marbles lost by Black, by White, "
                f"move number), not {len(fields)}: {text.strip()!r}"
            )
        rows_text, side_text, lost_b_text, lost_w_text, number_text = fields
        rows = rows_text.split("/")
        if len(rows) % 2 == 0 or not 3 <= len(rows) <= 17:
            raise PositionError(
                f"the board has {len(rows)} rows; a board has an odd number of rows "
                "(9 for the standard board, 7 for small, 5 for mini)"
            )
        side = (len(rows) + 1) // 2
        if variant is None:
            variant = default_variant(side)
        elif variant.side != side:
            raise PositionError(
                f"the position has {len(rows)} rows (a side-{side} board) but the rules are for a "
                f"side-{variant.side} board"
            )
        geo = geometry(side)
        grid = geo.empty_grid
        for i, row_text in enumerate(rows):
            row = len(rows) - 1 - i
            values = _parse_row(row_text, geo, row)
            for diag, value in zip(geo.row_range(row), values):
                grid[geo.grid_index(row, diag)] = value
        if side_text not in _SIDE_CHARS:
            raise PositionError(f"side to move must be 'b' or 'w', not {side_text!r}")
        lost = (
            _parse_count(lost_b_text, "marbles lost by Black", variant.marbles),
            _parse_count(lost_w_text, "marbles lost by White", variant.marbles),
        )
        move_number = _parse_count(number_text, "move number", MAX_MOVE_NUMBER)
        if move_number < 1:
            raise PositionError("move number must be at least 1")
        for color, lost_count in zip((BLACK, WHITE), lost):
            on_board = int(np.count_nonzero(grid == color))
            if on_board + lost_count > variant.marbles:
                name = COLOR_NAMES[color]
                raise PositionError(
                    f"{name} has {on_board} marbles on the board and {lost_count} lost; "
                    f"a side has at most {variant.marbles} on the {board_name(side)} board"
                )
        return cls(grid, _SIDE_CHARS[side_text], lost, move_number, variant)

    def to_string(self) -> str:
        geo = self.geometry
        rows = [self.row_text(row) for row in range(geo.rows - 1, -1, -1)]
        side = "b" if self.side_to_move == BLACK else "w"
        return f"{'/'.join(rows)} {side} {self.lost[0]} {self.lost[1]} {self.move_number}"

    # ----------------------------------------------------------------- queries

    def row_text(self, row: int, black: str = "b", white: str = "w") -> str:
        """Row ``row`` (0 = a) in position-string form: marbles as ``black``/``white``, runs of empty
        cells as digits, from the lowest diagonal up (other programs' strings use other letters)."""
        geo = self.geometry
        out = []
        run = 0
        for diag in geo.row_range(row):
            v = self._grid[geo.grid_index(row, diag)]
            if v == EMPTY:
                run += 1
                continue
            if run:
                out.append(str(run))
                run = 0
            out.append(black if v == BLACK else white)
        if run:
            out.append(str(run))
        return "".join(out)

    @property
    def geometry(self) -> Geometry:
        return geometry(self.variant.side)

    @property
    def grid(self) -> np.ndarray:
        """The padded grid (read-only ``int8``: 0 empty, 1 black, 2 white, 3 off board)."""
        return self._grid

    def cell(self, name: str) -> int:
        """What stands on the cell ``name``: ``EMPTY``, ``BLACK`` or ``WHITE``."""
        return int(self._grid[self._grid_index(name)])

    def marbles(self, color: int) -> list[str]:
        """Names of the cells holding ``color``'s marbles, in board order (a1, a2, ...)."""
        geo = self.geometry
        return [geo.names[i] for i, g in enumerate(geo.cells) if self._grid[g] == color]

    def marble_count(self, color: int) -> int:
        return int(np.count_nonzero(self._grid == color))

    @property
    def turn(self) -> Color:
        """The side to move, as a :class:`~sumito.games.abalone.geometry.Color` (``side_to_move``: an int)."""
        return Color(self.side_to_move)

    def winner(self) -> Color | None:
        """The side that has pushed off enough marbles to win, if any."""
        threshold = self.variant.win_threshold
        if self.lost[1] >= threshold:
            return Color.BLACK
        if self.lost[0] >= threshold:
            return Color.WHITE
        return None

    def legal_move_codes(self) -> np.ndarray:
        """Encoded legal moves as an ``int32`` array (the fast path; see :mod:`~sumito.games.abalone.kernels`).

        A position that is won has no legal moves.
        """
        if self.winner() is not None:
            return np.empty(0, dtype=np.int32)
        geo = self.geometry
        out = np.empty(K.MAX_MOVES, dtype=np.int32)
        # a writable copy of the (read-only) grid: the searches call the kernel with writable boards, and
        # one array type means one compiled specialisation, not two, on a fresh install
        n = K.generate_moves(self._grid.copy(), self.side_to_move, geo.offsets, geo.cells, self.variant.inline_only,
                             out)
        return out[:n].copy()

    def legal_moves(self) -> list[Move]:
        side = self.variant.side
        return [Move(int(c), side) for c in self.legal_move_codes()]

    def count_legal_moves(self) -> int:
        if self.winner() is not None:
            return 0
        geo = self.geometry
        return int(K.count_moves(self._grid, self.side_to_move, geo.offsets, geo.cells, self.variant.inline_only))

    def is_legal(self, move: Move) -> bool:
        return move.board_side == self.variant.side and move.code in set(self.legal_move_codes().tolist())

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` names; a clear error says why when there is none."""
        return parse_move(self, text)

    def perft(self, depth: int) -> int:
        """Leaf positions ``depth`` plies below this one (won positions have no children)."""
        geo = self.geometry
        return int(
            call_stoppable(
                K.perft,
                self._grid,
                self.side_to_move,
                self.lost[0],
                self.lost[1],
                depth,
                self.variant.win_threshold,
                geo.offsets,
                geo.cells,
                geo.zobrist,
                self.variant.inline_only,
                STOP,
                short=depth <= 3,  # at most about 100,000 leaves: a few milliseconds
            )
        )

    # ----------------------------------------------------------------- moves
    def play(self, move: Move | str) -> Position:
        """The position after ``move`` (a :class:`Move` or its notation); raises if illegal."""
        if isinstance(move, str):
            move = self.parse_move(move)
        elif not self.is_legal(move):
            raise IllegalMoveError(f"{move.notation()} is not a legal move in this position")
        return self._after(move.code)

    def _after(self, code: int) -> Position:
        """The position after the legal encoded move ``code`` (not checked)."""
        geo = self.geometry
        grid = self._grid.copy()
        delta = int(K.make_move(grid, code, self.side_to_move, geo.offsets, geo.zobrist))
        return self._child(code, grid, self.zobrist ^ delta)

    def _child(self, code: int, grid: np.ndarray, zobrist: int) -> Position:
        """The position after ``code``, given the grid and hash it leads to."""
        side = self.side_to_move
        lost = list(self.lost)
        if code & K.PUSH_OFF_BIT:
            lost[2 - side] += 1  # the opponent loses it: Black moving -> lost[1] (White's)
        number = self.move_number + (1 if side == WHITE else 0)
        return Position(grid, 3 - side, (lost[0], lost[1]), number, self.variant, zobrist)

    def successor_grids(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All successors at once: (move codes, grids ``[n, W*W]``, Zobrist hashes), built in one kernel call."""
        geo = self.geometry
        codes = self.legal_move_codes()
        grids = np.empty((len(codes), geo.width * geo.width), dtype=np.int8)
        deltas = K.expand(self._grid, self.side_to_move, codes, geo.offsets, geo.zobrist, grids)
        return codes, grids, deltas ^ np.uint64(self.zobrist)

    def successors(self) -> list[tuple[Move, Position]]:
        """Every legal move with the position it leads to."""
        codes, grids, hashes = self.successor_grids()
        side = self.variant.side
        return [
            (Move(code, side), self._child(code, grid, h))
            for code, grid, h in zip(codes.tolist(), grids, hashes.tolist())
        ]

    # ----------------------------------------------------------------- value semantics
    def _grid_index(self, name: str) -> int:
        geo = self.geometry
        try:
            return geo.name_to_grid[name.strip().lower()]
        except KeyError:
            raise PositionError(f"no cell {name!r} on the {board_name(geo.side)} board") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.variant == other.variant
            and self.side_to_move == other.side_to_move
            and self.lost == other.lost
            and self.move_number == other.move_number
            and bool(np.array_equal(self._grid, other._grid))
        )

    def __hash__(self) -> int:
        return hash((self.zobrist, self.lost, self.move_number, self.variant))

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"Position({self.to_string()!r})"

    def __reduce__(self) -> tuple:
        return (_from_string_and_variant, (self.to_string(), self.variant))


def _from_string_and_variant(text: str, variant: Variant) -> Position:
    return Position.from_string(text, variant)


def _parse_row(text: str, geo: Geometry, row: int) -> list[int]:
    letter = "abcdefghijklmnopq"[row]
    expected = len(geo.row_range(row))
    values: list[int] = []
    # ASCII digits only ('²'.isdigit() is true), and a run is read only once it is short enough to fit a row
    for token in _ROW_TOKEN.findall(text):
        if token in "bB":
            values.append(BLACK)
        elif token in "wW":
            values.append(WHITE)
        elif token.isascii() and token.isdigit():
            if len(token) > 2 or int(token) == 0:
                shown = token if len(token) <= 8 else token[:8] + "..."
                raise PositionError(f"row {letter}: {shown!r} is not a run of empty cells (1 to {expected})")
            values.extend([EMPTY] * int(token))
        else:
            raise PositionError(f"row {letter}: unexpected character {token[0]!r} (use b, w or a digit)")
    if len(values) != expected:  # at most 99 cells a run and 1,000 characters: the list stays small
        raise PositionError(f"row {letter} has {len(values)} cells, but that row has {expected}: {text[:40]!r}")
    return values


#: a row is runs of ASCII digits, single marbles, or one other character (an error)
_ROW_TOKEN = re.compile(r"[0-9]+|[bBwW]|.", re.DOTALL)
#: the highest move number a position string may carry
MAX_MOVE_NUMBER = 10**9


def _parse_count(text: str, what: str, high: int) -> int:
    if not re.fullmatch(r"[0-9]+", text):
        shown = text if len(text) <= 20 else text[:17] + "..."
        raise PositionError(f"{what} must be a whole number written in digits 0-9, not {shown!r}")
    if len(text.lstrip("0")) > len(str(high)) or int(text) > high:
        raise PositionError(f"{what} must be at most {high}, not {text if len(text) <= 20 else text[:17] + '...'}")
    return int(text)


def positions_after(start: Position, moves: Iterable[str | Move]) -> Position:
    """The position reached by playing ``moves`` (notation or Move values) from ``start``."""
    pos = start
    for i, mv in enumerate(moves, 1):
        try:
            pos = pos.play(mv)
        except NotationError as exc:
            raise type(exc)(f"move {i}: {exc}") from None
    return pos
