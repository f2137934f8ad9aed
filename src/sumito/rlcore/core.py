"""A game in progress as flat arrays, for the reinforcement-learning environments.

:class:`ArrayGame` is what the PettingZoo, Gymnasium and OpenSpiel wrappers share: the padded
board, side to move, lost marbles, the repetition counts and, after every move, the legal-action
mask and each legal action's move code (one compiled call, :func:`~sumito.rlcore.actions.fill_action_mask`).
It plays actions of the fixed action space (:mod:`sumito.rlcore.actions`) with the engine's own
make-move kernel and ends games by the engine's own rules (:func:`sumito.games.abalone.game.judge`), so
an environment's game is exactly a :class:`~sumito.games.abalone.Game`'s, without a Python object per
move. :meth:`ArrayGame.position` gives the :class:`~sumito.games.abalone.Position` at any time, for
players, rendering and notation.

Observations (:meth:`ArrayGame.observe`) are ``float32`` planes of shape ``(rows, rows, 10)``:
the board's cells at (row, diagonal) — a1 at ``[0, 0]``, the off-board corners of the square
zero in the first three planes — and the channels

=====  =================================================================
0      the observer's marbles
1      the opponent's marbles
2      empty cells
3      1 everywhere when the observer plays Black
4      1 everywhere when it is the observer's turn
5      the observer's lost marbles / the marbles needed to win
6      the opponent's lost marbles / the marbles needed to win
7      (times the current position has occurred − 1) / (repetitions − 1):
       0 the first time, 1 at the drawing repetition; 0 with the rule off
8      plies left before the ply cap / ``max_plies`` (1 with no cap)
9      plies left before the no-push-off draw / ``no_capture_plies``
       (1 with the rule off)
=====  =================================================================

Channels 3-9 are constant planes. With 7-9 the observation holds everything the rules look at
(the position, the repetition count of the current position, the ply counters), so that what
follows from it (the legal actions, when the game ends, the rewards) is a function of it, as in
chess's repetition and move-count planes. (How often each *other* position has occurred, which a
move into it could make a repetition, is not shown, as chess does not show it either.)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sumito.games.abalone import BLACK, DrawCounters, DrawRules, IllegalMoveError, Position
from sumito.games.abalone import kernels as K
from sumito.games.abalone.draws import DEFAULT_RULES
from sumito.games.abalone.game import PLY_CAP, Outcome, judge
from sumito.games.abalone.geometry import geometry
from sumito.jit import njit
from sumito.rlcore.actions import action_space, fill_action_mask, move_key

CHANNELS = 10
ILLEGAL_ACTION = "illegal-action"  # why a game ended that a side forfeited by an illegal action

#: the arena's draw rules: threefold repetition, a draw after 400 plies


class IllegalActionError(IllegalMoveError, ValueError):
    """An action that is not legal in the position (a :class:`ValueError` too, as Gymnasium expects)."""


@njit(cache=True)
def fill_planes(board, cells, plane_cell, observer, to_move, lost_own, lost_opp, win, counters, out):
    """Write the observation planes of ``observer`` (1 Black, 2 White) into ``out`` (float32 [rows*rows, 10]);
    ``counters`` are the values of the repetition and ply-counter planes 7, 8, 9."""
    out[:, :] = 0.0
    opp = 3 - observer
    for i in range(cells.shape[0]):
        v = board[cells[i]]
        j = plane_cell[i]
        if v == observer:
            out[j, 0] = 1.0
        elif v == opp:
            out[j, 1] = 1.0
        else:
            out[j, 2] = 1.0
    if observer == 1:
        out[:, 3] = 1.0
    if to_move == observer:
        out[:, 4] = 1.0
    out[:, 5] = lost_own / win
    out[:, 6] = lost_opp / win
    for k in range(counters.shape[0]):
        out[:, 7 + k] = counters[k]


class ArrayGame:
    """A game from ``start`` under ``rules``, played by action index (see the module's docstring)."""

    def __init__(self, start: Position, rules: DrawRules = DEFAULT_RULES) -> None:
        self.start = start
        self.rules = rules
        self.variant = start.variant
        self.geometry = geo = geometry(start.variant.side)
        self.space = action_space(start.variant.side)
        self.rows = geo.rows
        self.plane_cell = np.array([r * geo.rows + d for r, d in (geo.row_diag(int(g)) for g in geo.cells)],
                                   dtype=np.int64)
        self.board = np.empty(geo.width * geo.width, dtype=np.int8)
        self.mask = np.zeros(self.space.n, dtype=np.int8)
        self.codes = np.zeros(self.space.n, dtype=np.int32)
        self._legal = np.empty(K.MAX_MOVES, dtype=np.int32)  # the legal actions, in order: the first n_legal
        self.reset()

    # ----------------------------------------------------------------- state
    def reset(
        self, position: Position | None = None, *, history: Iterable[int] = (), draw: DrawCounters | None = None
    ) -> None:
        """Back to the start (or to ``position``, which must be on the same board). ``history``, the Zobrist
        hashes of the positions before it (oldest first, as players get it), counts for the repetition rule,
        and ``draw`` (as players get it) sets the ply counters, so that a player in the middle of a game
        sees the observation an environment would show it there."""
        position = self.start if position is None else position
        if position.variant.side != self.variant.side:
            raise IllegalMoveError(f"a side-{position.variant.side} position in a side-{self.variant.side} game")
        self.variant = position.variant
        self.board[:] = position.grid
        self.side = position.side_to_move
        self.lost = [position.lost[0], position.lost[1]]
        self.move_number = position.move_number
        self.hash = position.zobrist
        self.plies = 0 if draw is None else draw.plies
        self.quiet = 0 if draw is None else draw.quiet_plies  # plies since the last push-off
        self.seen: dict[int, int] = {self.hash: 1}
        for h in history:
            self.seen[int(h)] = self.seen.get(int(h), 0) + 1
        self._played: list[tuple[int, int, int]] = []  # (move code, hash, quiet) before each ply, for undo
        self._after_move()

    def _after_move(self) -> None:
        winner = self.winner()
        if winner is None:
            geo = self.geometry
            self.n_legal = int(fill_action_mask(self.board, self.side, geo.offsets, geo.cells, self.variant.inline_only,
                                                self.space.lookup, self.mask, self.codes, self._legal))
        else:
            self.mask[:] = 0
            self.n_legal = 0
        n = self.n_legal
        self.outcome: Outcome | None = judge(self.rules, winner, self.seen[self.hash], self.quiet, self.plies,
                                             self.side, lambda: n)
        if self.outcome is not None:
            self.mask[:] = 0

    def winner(self) -> int | None:
        threshold = self.variant.win_threshold
        if self.lost[1] >= threshold:
            return BLACK
        if self.lost[0] >= threshold:
            return 3 - BLACK
        return None

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def truncated(self) -> bool:
        """Over by the ply cap (a time limit, not the game's own end)."""
        return self.outcome is not None and self.outcome.reason == PLY_CAP

    def legal_actions(self) -> np.ndarray:
        """The legal actions, in increasing order (none once the game is over)."""
        return self._legal[: self.n_legal if self.outcome is None else 0].copy()

    def position(self) -> Position:
        """The current position, as the engine's value type."""
        return Position(self.board.copy(), self.side, (self.lost[0], self.lost[1]), self.move_number, self.variant,
                        self.hash)

    def clone(self) -> ArrayGame:
        """An independent copy (OpenSpiel clones states often: a few microseconds)."""
        other = object.__new__(ArrayGame)
        other.__dict__.update(self.__dict__)  # the fixed tables are shared
        other.board = self.board.copy()
        other._legal = self._legal.copy()
        other.mask = self.mask.copy()
        other.codes = self.codes.copy()
        other.lost = self.lost.copy()
        other.seen = self.seen.copy()
        other._played = self._played.copy()
        return other

    # ----------------------------------------------------------------- moves
    def is_action(self, action: object) -> bool:
        """Whether ``action`` is one of this board's actions (a whole number in 0..n-1), legal now or not."""
        return isinstance(action, (np.integer, int)) and not isinstance(action, bool) and 0 <= action < self.space.n

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is one of this board's actions and legal now."""
        return self.is_action(action) and bool(self.mask[action])

    def forfeit(self, loser: int, reason: str) -> None:
        """End the game for a reason the board does not show (an illegal action): ``loser`` loses, and
        no action is legal any more; the marbles stay as they are."""
        self.outcome = Outcome(3 - loser, reason)
        self.mask[:] = 0

    def check(self, action: int) -> int:
        """``action`` as an int when it is legal now; an :class:`IllegalActionError` naming it otherwise."""
        space = self.space
        if self.is_legal(action):
            return int(action)
        if self.is_action(action):
            action = int(action)
            why = "the game is over" if self.outcome is not None else "it is not a legal move in this position"
            raise IllegalActionError(f"action {action} ({space.notations[action]}) cannot be played: {why}")
        shown = repr(action)[:40]
        raise IllegalActionError(f"action {shown} is not one of the side-{space.side} board's actions 0..{space.n - 1}")

    def step(self, action: int) -> int:
        """Play the legal ``action`` for the side to move; return the marbles it pushed off (0 or 1)."""
        code = int(self.codes[self.check(action)])
        geo = self.geometry
        side = self.side
        self._played.append((code, self.hash, self.quiet))
        self.hash ^= int(K.make_move(self.board, code, side, geo.offsets, geo.zobrist))
        pushed_off = 1 if code & K.PUSH_OFF_BIT else 0
        if pushed_off:
            self.lost[2 - side] += 1
            self.quiet = 0
        else:
            self.quiet += 1
        if side != BLACK:
            self.move_number += 1
        self.side = 3 - side
        self.plies += 1
        self.seen[self.hash] = self.seen.get(self.hash, 0) + 1
        self._after_move()
        return pushed_off

    def undo(self) -> int:
        """Take back the last action played (and a forfeit after it, which is no action); return it."""
        if not self._played:
            raise IllegalActionError("no action to take back: the game is at its start")
        code, hash_before, quiet_before = self._played.pop()
        count = self.seen[self.hash] - 1
        if count:
            self.seen[self.hash] = count
        else:
            del self.seen[self.hash]
        side = 3 - self.side  # the side that played it
        K.unmake_move(self.board, code, side, self.geometry.offsets)
        if code & K.PUSH_OFF_BIT:
            self.lost[2 - side] -= 1
        if side != BLACK:
            self.move_number -= 1
        self.side = side
        self.plies -= 1
        self.quiet = quiet_before
        self.hash = hash_before
        self._after_move()
        return int(self.space.lookup[move_key(code)])

    def notation(self, action: int) -> str:
        return self.space.notations[action]

    # ----------------------------------------------------------------- observations
    def observe(self, observer: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation planes (``float32`` [rows, rows, 10]) for ``observer`` (1 Black, 2 White)."""
        rows = self.rows
        if out is None:
            out = np.empty((rows, rows, CHANNELS), dtype=np.float32)
        elif out.shape != (rows, rows, CHANNELS) or out.dtype != np.float32 or not out.flags.c_contiguous:
            # a reshape of anything else would be a copy, and the planes would silently go nowhere
            raise ValueError(f"out must be a C-contiguous float32 array of shape {(rows, rows, CHANNELS)}")
        lost_own, lost_opp = self.lost[observer - 1], self.lost[2 - observer]
        fill_planes(self.board, self.geometry.cells, self.plane_cell, observer, self.side, lost_own, lost_opp,
                    float(self.variant.win_threshold), self.counter_planes(), out.reshape(rows * rows, CHANNELS))
        return out

    def counter_planes(self) -> np.ndarray:
        """The values of planes 7, 8 and 9: the repetition count and the plies left to the two ply-counting draws."""
        rules = self.rules
        repeats = 0.0 if rules.repetitions is None else (self.seen[self.hash] - 1) / (rules.repetitions - 1)

        def left(limit: int | None, used: int) -> float:
            return 1.0 if limit is None else max(limit - used, 0) / limit

        counters = (min(repeats, 1.0), left(rules.max_plies, self.plies), left(rules.no_capture_plies, self.quiet))
        return np.array(counters, dtype=np.float32)
