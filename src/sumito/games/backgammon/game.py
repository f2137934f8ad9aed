"""Backgammon game flow: dice, plays at the API edge, and the end of the game with its value.

Why here: the learning core needs, per position, the afterstates of a roll and whether each ends the
game and for how many points; the rules kernels stay free of dice and scoring.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sumito.games.backgammon.board import N_CHECKERS, BackgammonPosition
from sumito.games.backgammon.kernels import BAR, OFF, OPP_BAR, generate_plays
from sumito.jit import njit

OPP_OFF = 27

#: The 21 distinct rolls (high die first) with their probabilities (a non-double is 2 of the 36 throws).
ALL_ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
ROLL_PROBABILITIES: np.ndarray = np.array([1 / 36 if a == b else 2 / 36 for a, b in ALL_ROLLS])

SINGLE, GAMMON, BACKGAMMON = 1, 2, 3


def roll_dice(rng: np.random.Generator) -> tuple[int, int]:
    """Two fair dice from ``rng`` (same seed, same game)."""
    a, b = rng.integers(1, 7, size=2)
    return int(a), int(b)


def opening_roll(rng: np.random.Generator) -> tuple[int, tuple[int, int]]:
    """The opening: each side throws one die, ties are thrown again; the higher die moves first, playing
    both numbers. Returns ``(first, (die_a, die_b))`` where ``first`` is 0 or 1 (the side with die_a)."""
    while True:
        a, b = roll_dice(rng)
        if a != b:
            return (0 if a > b else 1), (a, b)


@njit(cache=True)
def game_result(board: np.ndarray) -> int:
    """The game's value from the mover's view: 0 while it goes on, else ±1 (single), ±2 (gammon: the loser
    has borne off none) or ±3 (backgammon: a gammon where the loser also still has a checker on the bar
    or in the winner's home board). Positive when the mover has borne off all 15 checkers."""
    if board[OFF] == N_CHECKERS:
        if board[OPP_OFF] > 0:
            return 1
        if board[OPP_BAR] > 0:
            return 3
        for i in range(6):  # the mover's home board: its points 1..6
            if board[i] < 0:
                return 3
        return 2
    if board[OPP_OFF] == N_CHECKERS:
        if board[OFF] > 0:
            return -1
        if board[BAR] > 0:
            return -3
        for i in range(18, 24):  # the opponent's home board: the mover's points 19..24
            if board[i] > 0:
                return -3
        return -2
    return 0


@njit(cache=True)
def game_results(boards: np.ndarray) -> np.ndarray:
    """:func:`game_result` of each row (a batch of afterstates), as int8."""
    out = np.empty(boards.shape[0], dtype=np.int8)
    for r in range(boards.shape[0]):
        out[r] = game_result(boards[r])
    return out


def is_over(position: BackgammonPosition) -> bool:
    """Whether one side has borne off all its checkers."""
    return game_result(position.board) != 0


@dataclass(frozen=True)
class Play:
    """One legal play at the API edge: the afterstate (mover's view, not swapped) and one way to reach
    it as ``(from, to)`` checker moves in the mover's numbering (25 = bar, 0 = off); empty for a pass."""

    afterstate: BackgammonPosition
    moves: tuple[tuple[int, int], ...]

    def notation(self) -> str:
        """Like ``13/10 10/9``, ``bar/22``, ``3/off``, or ``pass``."""
        if not self.moves:
            return "pass"
        name = {25: "bar", 0: "off"}
        return " ".join(f"{name.get(a, a)}/{name.get(b, b)}" for a, b in self.moves)


def afterstate_arrays(position: BackgammonPosition, dice: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """All distinct afterstates (int8[n, 28]) and move rows (int8[n, 8]) for ``dice``; see the kernel."""
    a, b = dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"dice are 1..6, not {dice}")
    return generate_plays(position.board, a, b)


def legal_plays(position: BackgammonPosition, dice: tuple[int, int]) -> list[Play]:
    """The legal plays for ``dice`` as small values (for people and tests, not for hot loops)."""
    boards, moves = afterstate_arrays(position, dice)
    out = []
    for r in range(boards.shape[0]):
        pairs = tuple((int(moves[r, 2 * j]), int(moves[r, 2 * j + 1])) for j in range(4) if moves[r, 2 * j] >= 0)
        out.append(Play(BackgammonPosition(boards[r], check=False), pairs))
    return out


def random_position(rng: np.random.Generator, max_plies: int = 200) -> BackgammonPosition:
    """A position from a random game, 0..``max_plies`` plies in (not over), with the side to move to roll.

    Used by tests and benchmarks as a varied supply of reachable positions (hits, bar, bear-offs).
    """
    position = BackgammonPosition.start()
    plies = int(rng.integers(0, max_plies + 1))
    for _ in range(plies):
        boards, _ = afterstate_arrays(position, roll_dice(rng))
        after = boards[int(rng.integers(boards.shape[0]))]
        if game_result(after) != 0:
            break
        position = BackgammonPosition(after, check=False).swap()
    return position


#: A move chooser: ``(board before the move, afterstates of the roll) -> row index``.
Chooser = Callable[[np.ndarray, np.ndarray], int]


def play_game(first: Chooser, second: Chooser, rng: np.random.Generator, start: np.ndarray,
              first_mover: int | None = None) -> int:
    """One game (no cube) from ``start`` with ``first`` as side 0; returns the winner's value from side 0's
    view: +1/+2/+3 when side 0 wins a single/gammon/backgammon, negative when side 1 does. The opening roll
    decides who moves first, unless ``first_mover`` (0 or 1) names the side that plays it (matches alternate
    the opening this way; the opening roll's dice are the same either way)."""
    choosers = (first, second)
    mover, dice = opening_roll(rng)
    if first_mover is not None:
        mover = int(first_mover)
    board = np.array(start, dtype=np.int8)
    while True:
        afterstates, _ = generate_plays(board, dice[0], dice[1])
        after = afterstates[choosers[mover](board, afterstates)]
        result = int(game_result(after))
        if result != 0:
            return result if mover == 0 else -result
        board = np.empty_like(after)
        board[:24] = -after[23::-1]
        board[24], board[25], board[26], board[27] = after[25], after[24], after[27], after[26]
        mover = 1 - mover
        dice = roll_dice(rng)


def win_rate(a: Chooser, b: Chooser, games: int, rng: np.random.Generator, start: np.ndarray) -> float:
    """Fraction of ``games`` that ``a`` wins against ``b`` (the opening roll picks who starts)."""
    wins = sum(play_game(a, b, rng, start) > 0 for _ in range(games))
    return wins / games
