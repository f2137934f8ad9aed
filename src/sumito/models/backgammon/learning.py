"""Backgammon as a :class:`~sumito.models.game.LearningGame`, so the game-independent TD trainer
(:class:`sumito.learn.training.Trainer`) can learn it.

The state is a small mutable :class:`BackgammonState`: the board from the side to move's view, that side
(1 or 2), the dice of its turn and the distinct afterstates of that roll. The dice are thrown inside
:meth:`BackgammonLearningGame.start` (the opening roll) and :meth:`~BackgammonLearningGame.play` (every
later turn) from the RNG given to ``start`` — the trainer's — so a seeded run replays exactly.

Encoding ``"tesauro198"`` (TD-Gammon's raw encoding, every afterstate from the mover's view):

* ``[0:96]`` the mover's checkers on its points 1..24, 4 units a point (point ``p`` at ``4(p-1)``):
  ``n >= 1``, ``n >= 2``, ``n >= 3``, ``(n - 3) / 2`` when ``n > 3``;
* ``[96:192]`` the opponent's checkers the same way, on the points in the **opponent's own** numbering
  (its point ``q`` is the mover's ``25 - q``), so encoding a position and its :func:`swap` just exchange
  the two halves;
* ``[192]`` mover's bar / 2, ``[193]`` opponent's bar / 2, ``[194]`` mover's off / 15, ``[195]`` opponent's
  off / 15;
* ``[196:198]`` Tesauro's two side-to-move units: an afterstate always has the opponent to move, so they
  are the constants 0 (mover to move) and 1 (opponent to move).

Moves are row indices into the afterstates; gains are zeros (no intermediate rewards); a move wins when
it bears off the mover's last checker. No pieces are ever lost, so ``losses_of`` is 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sumito.games.backgammon.board import BackgammonPosition, swap_array
from sumito.games.backgammon.game import game_results, opening_roll, roll_dice
from sumito.games.backgammon.kernels import generate_plays
from sumito.jit import njit
from sumito.models.game import Afterstates

N_INPUTS = 198
ENCODING = "tesauro198"


@njit(cache=True)
def tesauro_units(out: np.ndarray, r: int, base: int, n: int) -> None:
    """Tesauro's four units of a count n at out[r, base:base + 4]: n >= 1, n >= 2, n >= 3, (n - 3) / 2."""
    if n >= 1:
        out[r, base] = 1.0
    if n >= 2:
        out[r, base + 1] = 1.0
    if n >= 3:
        out[r, base + 2] = 1.0
    if n > 3:
        out[r, base + 3] = (n - 3) / 2.0


@njit(cache=True)
def encode_afterstates(boards: np.ndarray) -> np.ndarray:
    """The ``tesauro198`` inputs (float64 [n, 198]) of each afterstate row (mover's view, not swapped)."""
    n = boards.shape[0]
    out = np.zeros((n, N_INPUTS), dtype=np.float64)
    for r in range(n):
        for i in range(24):
            c = np.int64(boards[r, i])
            if c > 0:
                tesauro_units(out, r, 4 * i, c)
            elif c < 0:
                tesauro_units(out, r, 96 + 4 * (23 - i), -c)  # the mover's point i+1 is the opponent's 24-i
        out[r, 192] = boards[r, 24] / 2.0
        out[r, 193] = boards[r, 25] / 2.0
        out[r, 194] = boards[r, 26] / 15.0
        out[r, 195] = boards[r, 27] / 15.0
        out[r, 197] = 1.0  # the opponent is to move after the mover's play
    return out


@dataclass
class BackgammonState:
    """One game in progress: ``board`` is from ``side``'s view, ``dice`` its roll, ``boards`` the distinct
    afterstates of that roll (mover's view, not swapped); ``winner`` is set once the game is over."""

    board: np.ndarray
    side: int
    dice: tuple[int, int]
    boards: np.ndarray
    winner: int | None = None
    result: int = 0  # 1 single, 2 gammon, 3 backgammon (for the winner), once over
    plies: int = 0


class BackgammonLearningGame:
    """Backgammon for :class:`~sumito.learn.training.Trainer` (money-game play without the cube)."""

    n_inputs = N_INPUTS
    encoding = ENCODING

    def __init__(self, start: BackgammonPosition | None = None) -> None:
        self.start_board = (start or BackgammonPosition.start()).board.copy()
        self.rng: np.random.Generator | None = None

    def start(self, rng: np.random.Generator) -> BackgammonState:
        """A new game: the opening roll (from ``rng``, kept for the later rolls) picks side 1 or 2."""
        self.rng = rng
        first, dice = opening_roll(rng)
        board = self.start_board.copy()
        return BackgammonState(board, 1 + first, dice, generate_plays(board, dice[0], dice[1])[0])

    def side_to_move(self, state: BackgammonState) -> int:
        return state.side

    def outcome(self, state: BackgammonState) -> int | None:
        return state.winner

    def afterstates(self, state: BackgammonState) -> Afterstates:
        boards = state.boards
        n = boards.shape[0]
        return Afterstates(
            moves=np.arange(n, dtype=np.int64),
            inputs=encode_afterstates(boards),
            gains=np.zeros(n, dtype=np.float64),
            wins=game_results(boards) > 0,
        )

    def play(self, state: BackgammonState, move: int) -> BackgammonState:
        """Play afterstate row ``move`` of the current roll; then the other side rolls (unless it is over)."""
        if state.winner is not None:
            raise ValueError("the game is over")
        after = state.boards[int(move)]
        result = int(game_results(after[None, :])[0])
        state.plies += 1
        if result != 0:
            state.board = after.copy()
            state.winner = state.side
            state.result = result
            return state
        if self.rng is None:
            raise ValueError("start the game with start(rng) first")
        state.board = swap_array(after)
        state.side = 3 - state.side
        state.dice = roll_dice(self.rng)
        state.boards = generate_plays(state.board, state.dice[0], state.dice[1])[0]
        return state

    def losses_of(self, state: BackgammonState, side: int) -> int:
        return 0


class NetworkPlayer:
    """Greedy one-ply play with a value network over ``tesauro198`` afterstates (a winning play first);
    a :data:`~sumito.games.backgammon.game.Chooser`."""

    def __init__(self, network) -> None:
        self.network = network

    def __call__(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        wins = np.flatnonzero(game_results(afterstates) > 0)
        if wins.size:
            return int(wins[0])
        return int(np.argmax(self.network.values(encode_afterstates(afterstates))))
