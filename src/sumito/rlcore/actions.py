"""A fixed action space for each board size: every move that can ever be legal has one index.

Moves are named as the standard notation names them (:mod:`sumito.games.abalone.move`), so an action
is a notation and back:

* **inline** actions, one per (trailing marble's cell, direction) whose next cell is on the
  board: ``a1a2`` is "the line that starts on a1 moves one step towards a2". How many marbles
  move (1-3) and what they push follow from the position, as in the notation, so one index serves
  them all;
* **broadside** actions, one per (first end's cell, line axis E/NE/NW, 2 or 3 marbles, one of
  the four sideways directions) whose marbles and destinations are all on the board:
  ``e6e8f6`` moves e6, e7, e8 to f6, f7, f8.

Indices run over the inline actions first, cell by cell in board order (a1, a2, …) and
direction by direction (E, NE, NW, W, SW, SE), then the broadside ones by cell, axis, count and
direction. The standard board has 312 inline and 960 broadside actions (1,272 in all), the small
one 180 + 504 (684), the mini one 84 + 192 (276); the inline-only game uses the same space, with
the broadside actions never legal.

The legal-action mask comes from the move generator in one compiled call
(:func:`fill_action_mask`), which also keeps each legal action's full move code (with what it
pushes), so playing an action needs no search through the move list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from sumito.games.abalone import IllegalMoveError, Move, Position
from sumito.games.abalone import kernels as K
from sumito.games.abalone.geometry import Geometry, geometry
from sumito.games.abalone.move import format_move
from sumito.jit import njit

#: the bits of a move code that say which move it is (the push fields follow from the position)
KEY_MASK = K.START_MASK | (7 << K.DIR_SHIFT) | (3 << K.COUNT_SHIFT) | K.BROADSIDE_BIT | (7 << K.LINE_SHIFT)
INLINE_KEY_MASK = KEY_MASK & ~(3 << K.COUNT_SHIFT)  # an inline move is its start and direction
LOOKUP_SIZE = 1 << 18  # every key fits below bit 18


@njit(cache=True, inline="always")
def move_key(code):
    """The action-lookup key of a move code: what identifies the move, without what it pushes."""
    if code & K.BROADSIDE_BIT:
        return code & KEY_MASK
    return code & INLINE_KEY_MASK


@njit(cache=True)
def fill_action_mask(board, side, offsets, cells, inline_only, lookup, mask, codes, legal):
    """Set ``mask[a] = 1`` for each legal action ``a`` of ``side`` (0 elsewhere) and ``codes[a]``
    to its move code, and write the legal actions in increasing order into ``legal`` (``K.MAX_MOVES``
    long, also the generator's scratch); return how many there are."""
    mask[:] = 0
    n = K.generate_moves(board, side, offsets, cells, inline_only, legal)
    for i in range(n):
        code = legal[i]
        a = lookup[move_key(code)]
        mask[a] = 1
        codes[a] = code
    k = 0
    for a in range(mask.shape[0]):  # in action order, as OpenSpiel wants its legal actions
        if mask[a]:
            legal[k] = a
            k += 1
    return n


@dataclass(frozen=True, eq=False)
class ActionSpace:
    """The actions of one board size (see the module's docstring); build it with :func:`action_space`."""

    side: int
    keys: np.ndarray = field(repr=False)  # int32 [n]: each action's move key (inline: count bits 0)
    lookup: np.ndarray = field(repr=False)  # int32 [LOOKUP_SIZE]: action of each key, -1 where none
    n_inline: int
    notations: tuple[str, ...] = field(repr=False)

    @property
    def n(self) -> int:
        """The number of actions."""
        return len(self.keys)

    def __len__(self) -> int:
        return self.n

    @property
    def geometry(self) -> Geometry:
        return geometry(self.side)

    def is_broadside(self, action: int) -> bool:
        return action >= self.n_inline

    def notation(self, action: int) -> str:
        """The action's notation (``a1a2``, ``e6e8f6``), whatever the position."""
        return self.notations[self._checked(action)]

    def from_notation(self, text: str) -> int:
        """The action a notation names; an inline move's notation names one action whatever it pushes."""
        key = text.strip().lower().replace("-", "").replace(" ", "")
        try:
            return self._by_notation[key]
        except KeyError:
            raise IllegalMoveError(f"{text[:40]!r} names no move on the side-{self.side} board") from None

    def move_to_action(self, move: Move | int) -> int:
        """The action of a :class:`~sumito.games.abalone.Move` (or a move code) on this board."""
        if isinstance(move, Move):
            if move.board_side != self.side:
                raise IllegalMoveError(f"{move} is a side-{move.board_side} board's move, not a side-{self.side} one's")
            move = move.code
        action = int(self.lookup[move_key(int(move) & ((1 << 21) - 1))])
        if action < 0:
            raise IllegalMoveError(f"move code {move} names no move on the side-{self.side} board")
        return action

    def action_to_move(self, action: int, position: Position) -> Move:
        """The legal move ``action`` plays in ``position``; an error naming it when it is not legal there."""
        action = self._checked(action)
        if position.variant.side != self.side:
            raise IllegalMoveError(f"a side-{self.side} board's action, played on a side-{position.variant.side} board")
        for code in position.legal_move_codes().tolist():
            if self.lookup[move_key(code)] == action:
                return Move(code, self.side)
        raise IllegalMoveError(f"action {action} ({self.notations[action]}) is not a legal move in this position")

    def mask(self, position: Position) -> np.ndarray:
        """The legal-action mask (``int8`` [n]) of ``position``."""
        geo = self.geometry
        mask = np.zeros(self.n, dtype=np.int8)
        if position.winner() is None:
            codes = np.zeros(self.n, dtype=np.int32)
            fill_action_mask(position.grid, position.side_to_move, geo.offsets, geo.cells,
                             position.variant.inline_only, self.lookup, mask, codes, np.empty(K.MAX_MOVES, np.int32))
        return mask

    def _checked(self, action: int) -> int:
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            raise IllegalMoveError(f"an action is a whole number, not {type(action).__name__}")
        if not 0 <= action < self.n:
            raise IllegalMoveError(
                f"action {action} is out of range: the side-{self.side} board has actions 0..{self.n - 1}"
            )
        return int(action)

    @property
    def _by_notation(self) -> dict[str, int]:
        return _notation_index(self.side)


@cache
def _notation_index(side: int) -> dict[str, int]:
    space = action_space(side)
    index = {text: a for a, text in enumerate(space.notations)}
    # a broadside move may be written from either end (as parse_move accepts): e8e6f8 is e6e8f6
    geo = space.geometry
    for a in range(space.n_inline, space.n):
        code = int(space.keys[a])
        count = (code >> K.COUNT_SHIFT) & 3
        start = code & K.START_MASK
        line = geo.offsets[(code >> K.LINE_SHIFT) & 7]
        end = int(start + (count - 1) * line)
        step = geo.offsets[(code >> K.DIR_SHIFT) & 7]
        index.setdefault(geo.name(end) + geo.name(start) + geo.name(int(end + step)), a)
    return index


@cache
def action_space(side: int) -> ActionSpace:
    """The action space of the board with ``side`` cells a side (5 standard, 4 small, 3 mini)."""
    geo = geometry(side)
    on_board = np.zeros(geo.width * geo.width, dtype=bool)
    on_board[geo.cells] = True
    keys: list[int] = []
    for m in geo.cells.tolist():
        for d in range(6):
            if on_board[m + geo.offsets[d]]:
                keys.append(int(K.encode_move(m, d, 0, False, d, 0, False)))
    n_inline = len(keys)
    for m in geo.cells.tolist():
        for axis in range(3):
            for count in (2, 3):
                marbles = [m + i * int(geo.offsets[axis]) for i in range(count)]
                if not all(on_board[c] for c in marbles):
                    continue
                for d in range(6):
                    if d % 3 == axis % 3:
                        continue
                    if all(on_board[c + geo.offsets[d]] for c in marbles):
                        keys.append(int(K.encode_move(m, d, count, True, axis, 0, False)))
    lookup = np.full(LOOKUP_SIZE, -1, dtype=np.int32)
    for a, key in enumerate(keys):
        lookup[key] = a
    notations = []
    for a, key in enumerate(keys):
        # an inline key has no count: notation needs only the start and the direction
        notations.append(format_move(key | (1 << K.COUNT_SHIFT) if a < n_inline else key, geo))
    return ActionSpace(side, np.array(keys, dtype=np.int32), lookup, n_inline, tuple(notations))
