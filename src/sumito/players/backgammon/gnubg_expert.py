"""GNU Backgammon's neural nets as an expert player and evaluator, through the optional package ``gnubg-nn``.

Why: gnubg is the standard strong backgammon program; its 0-ply (and deeper) move choices make a yardstick
for our players and its evaluations make learning targets. ``gnubg-nn`` is GPL: Sumito only calls it (it is
the optional extra ``sumito[gnubg]``) and copies none of its code. Its Python module is ``gnubg_nn``.

gnubg's board (checked empirically, see ``tests/test_gnubg_expert.py``) is two 25-entry lists
``[side not on roll, side on roll]``; in each list, index ``i < 24`` is that side's own point ``i + 1``
(it bears off from points 1-6) and index 24 is its bar. Borne-off checkers are not stored (15 minus the
rest). Our board is always from the side to move's view, so the side to move is gnubg's side on roll
(the second list). gnubg's moves are ``(from, to)`` pairs in the mover's numbering, one per die, with
25 for the bar and 0 (or less) for bearing off.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sumito.games.backgammon.board import (
    BAR,
    N_CHECKERS,
    N_POINTS,
    N_SLOTS,
    OFF,
    OPP_BAR,
    OPP_OFF,
    BackgammonPosition,
    swap_array,
)
from sumito.games.backgammon.game import game_result

MISSING_MESSAGE = "the GNU Backgammon expert needs the optional package gnubg-nn: pip install 'sumito[gnubg]'"


def _gnubg():
    """The ``gnubg_nn`` module, imported on first use (never when this module is imported)."""
    try:
        import gnubg_nn
    except ImportError as exc:
        raise ImportError(MISSING_MESSAGE) from exc
    return gnubg_nn


def _array(board: BackgammonPosition | np.ndarray | Sequence[int]) -> np.ndarray:
    if isinstance(board, BackgammonPosition):
        return board.board
    return np.asarray(board, dtype=np.int8).reshape(N_SLOTS)


def to_gnubg(board: BackgammonPosition | np.ndarray) -> tuple[list[int], list[int]]:
    """gnubg's ``(side not on roll, side on roll)`` lists for our board (the side to move is on roll)."""
    b = _array(board)
    mover = [max(int(b[i]), 0) for i in range(N_POINTS)] + [int(b[BAR])]
    opponent = [max(-int(b[N_POINTS - 1 - i]), 0) for i in range(N_POINTS)] + [int(b[OPP_BAR])]
    return opponent, mover


def from_gnubg(lists: Sequence[Sequence[int]]) -> BackgammonPosition:
    """Our position (gnubg's side on roll to move) for gnubg's ``(side not on roll, side on roll)`` lists."""
    opponent, mover = lists
    if len(opponent) != 25 or len(mover) != 25:
        raise ValueError("gnubg boards are two lists of 25 counts")
    b = np.zeros(N_SLOTS, dtype=np.int8)
    for i in range(N_POINTS):
        mine, theirs = int(mover[i]), int(opponent[N_POINTS - 1 - i])
        if mine and theirs:
            raise ValueError(f"both sides on the mover's point {i + 1}")
        b[i] = mine - theirs
    b[BAR], b[OPP_BAR] = int(mover[24]), int(opponent[24])
    b[OFF] = N_CHECKERS - sum(int(c) for c in mover)
    b[OPP_OFF] = N_CHECKERS - sum(int(c) for c in opponent)
    return BackgammonPosition(b)


def apply_gnubg_move(board: np.ndarray, move: Sequence[Sequence[int]]) -> np.ndarray:
    """The (unswapped) afterstate of gnubg's move ``((from, to), ...)`` on our board (no legality check)."""
    after = np.array(board, dtype=np.int8)
    for frm, to in move:
        src = BAR if frm == 25 else frm - 1
        if after[src] <= 0:
            raise ValueError(f"gnubg move {move} moves from an empty point {frm}")
        after[src] -= 1
        if to <= 0:
            after[OFF] += 1
            continue
        dst = to - 1
        if after[dst] == -1:  # a hit: the blot goes to the opponent's bar
            after[dst] = 0
            after[OPP_BAR] += 1
        elif after[dst] < -1:
            raise ValueError(f"gnubg move {move} lands on a made point {to}")
        after[dst] += 1
    return after


def equity(probabilities: np.ndarray) -> np.ndarray:
    """Cubeless money equity from gnubg's probabilities ``(win, win g, win bg, lose g, lose bg)`` (last axis)."""
    p = np.asarray(probabilities, dtype=np.float64)
    return 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def _over_probabilities(result: int) -> np.ndarray:
    """Exact probabilities for a finished game whose value is ``result`` from the view being reported."""
    won, size = result > 0, abs(result)
    out = np.zeros(5)
    if won:
        out[0], out[1], out[2] = 1.0, float(size >= 2), float(size >= 3)
    else:
        out[3], out[4] = float(size >= 2), float(size >= 3)
    return out


class GnubgExpert:
    """GNU Backgammon (its neural nets, cubeless money play) as a move chooser and position evaluator.

    ``ply`` is gnubg's search depth: 0 is the plain net, 1 and 2 look ahead (much slower).
    """

    def __init__(self, ply: int = 0) -> None:
        if ply < 0:
            raise ValueError(f"ply is 0 or more, not {ply}")
        self.ply = int(ply)
        self._g = _gnubg()

    def evaluate(self, boards: np.ndarray | BackgammonPosition) -> np.ndarray:
        """Probabilities float64[n, 5] ``(win, win gammon, win backgammon, lose gammon, lose backgammon)``,
        cumulative as in gnubg (a gammon win counts in ``win`` too), each row from the view of **the side to
        move in that row, before it rolls** (gnubg's side on roll).

        To score an afterstate (``generate_plays`` rows, not swapped) for the player who just moved, evaluate
        its :func:`swap_array` and read it as the opponent's view. Finished games get exact values.
        """
        arr = boards.board if isinstance(boards, BackgammonPosition) else np.asarray(boards, dtype=np.int8)
        arr = arr.reshape(-1, N_SLOTS)
        out = np.empty((arr.shape[0], 5))
        for r in range(arr.shape[0]):
            result = int(game_result(arr[r]))
            if result != 0:
                out[r] = _over_probabilities(result)
            else:
                out[r] = self._g.probabilities(list(to_gnubg(arr[r])), self.ply)
        return out

    def evaluate_equity(self, boards: np.ndarray | BackgammonPosition) -> np.ndarray:
        """Cubeless money equity float64[n] of each board, from the side to move's view (see :meth:`evaluate`)."""
        return equity(self.evaluate(boards))

    def choose(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        """The row of ``afterstates`` (our unswapped afterstates of ``board`` for the rolled dice) that gnubg
        rates best at ``self.ply``: each afterstate is scored by gnubg's evaluation of it from the opponent's
        view (then on roll), and the one worst for the opponent is chosen, as gnubg's ``best_move`` does
        without its move filters. A play that ends the game wins outright (bigger wins first)."""
        scores = np.empty(afterstates.shape[0])
        for r in range(afterstates.shape[0]):
            result = int(game_result(afterstates[r]))
            if result != 0:
                scores[r] = 10.0 + result
            else:
                probs = self._g.probabilities(list(to_gnubg(swap_array(afterstates[r]))), self.ply)
                scores[r] = -float(equity(np.asarray(probs)))
        return int(np.argmax(scores))

    def __call__(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        return self.choose(board, afterstates)

    def best_move(self, board: np.ndarray | BackgammonPosition, dice: tuple[int, int]) -> tuple[tuple[int, int], ...]:
        """gnubg's own ``best_move`` for ``dice`` at ``self.ply`` (with its move filters), as gnubg's
        ``((from, to), ...)`` pairs in the mover's numbering."""
        d1, d2 = dice
        move = self._g.best_move(list(to_gnubg(_array(board))), int(d1), int(d2), n=self.ply)
        return tuple((int(a), int(b)) for a, b in move)

    def choose_dice(self, board: np.ndarray, afterstates: np.ndarray, dice: tuple[int, int]) -> int:
        """The row of ``afterstates`` that gnubg's :meth:`best_move` for ``dice`` leads to.

        Raises ``ValueError`` if gnubg's play is not among our afterstates (a rules disagreement).
        """
        after = apply_gnubg_move(_array(board), self.best_move(board, dice))
        rows = np.flatnonzero((afterstates == after).all(axis=1))
        if rows.size != 1:
            raise ValueError(f"gnubg's play {self.best_move(board, dice)} for {dice} is not one of our afterstates")
        return int(rows[0])


__all__ = [
    "MISSING_MESSAGE",
    "GnubgExpert",
    "apply_gnubg_move",
    "equity",
    "from_gnubg",
    "to_gnubg",
]
