"""Backgammon in the arena: matches between two backgammon choosers, cubeless money games with alternating
starts, scored as equity (points per game) with a 95% interval.

This is the game-specific part; the work runs on the arena's own executors (:mod:`sumito.arena.executor`:
inline, a local process pool that dies with its parent, or Ray), as Abalone's matches do. What stays
backgammon's own, and why: the unit of work is a *chunk* of :data:`BACKGAMMON_CHUNK_GAMES` games rather than one game
(a backgammon game takes about a millisecond, far less than handing a task to a worker), and the score is
points per game (±1/2/3) rather than wins and draws, so Abalone's :class:`~sumito.arena.match.GameTask` and
its Elo statistics do not fit.

Chunks are fixed and each has its own generators seeded from ``(seed, chunk)``, so a match's games depend on
its seed and game count only, never on how many workers played them, nor where.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sumito.arena.executor import Executor, make_executor
from sumito.defaults import BACKGAMMON_CHUNK_GAMES
from sumito.games.backgammon.board import BackgammonPosition
from sumito.games.backgammon.game import Chooser, play_game
from sumito.players.backgammon.players import make_bg_player


@dataclass
class MatchResult:
    """The first player's tally over ``games`` games (points ±1/2/3 a game, its view)."""

    games: int = 0
    points_sum: int = 0
    points_sq: int = 0
    wins: int = 0
    gammons_won: int = 0  # gammons and backgammons
    gammons_lost: int = 0
    backgammons_won: int = 0
    backgammons_lost: int = 0

    def add(self, points: int) -> None:
        self.games += 1
        self.points_sum += points
        self.points_sq += points * points
        self.wins += points > 0
        self.gammons_won += points >= 2
        self.gammons_lost += points <= -2
        self.backgammons_won += points == 3
        self.backgammons_lost += points == -3

    @classmethod
    def of(cls, points: list[int]) -> MatchResult:
        result = cls()
        for p in points:
            result.add(int(p))
        return result

    @property
    def equity(self) -> float:
        """Points per game."""
        return self.points_sum / self.games if self.games else 0.0

    @property
    def half_width(self) -> float:
        """Half the 95% interval of the equity, 1.96·sd/√n (normal approximation)."""
        if self.games < 2:
            return math.inf
        mean = self.equity
        var = max(self.points_sq / self.games - mean * mean, 0.0) * self.games / (self.games - 1)
        return 1.96 * math.sqrt(var / self.games)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def match_points(first: Chooser, second: Chooser, games: int, rng: np.random.Generator,
                 start: np.ndarray | None = None, offset: int = 0) -> list[int]:
    """``games`` games of ``first`` against ``second`` with alternating starts: ``first`` plays the opening roll
    in even-numbered games (counting from ``offset``), ``second`` in odd ones, so neither gets the edge of
    moving first more often (the dice of the opening are a non-double, as in the rules)."""
    board = BackgammonPosition.start().board if start is None else np.asarray(start, dtype=np.int8)
    return [play_game(first, second, rng, board, first_mover=i % 2) for i in range(offset, offset + int(games))]


def play_match(first: Chooser, second: Chooser, games: int, rng: np.random.Generator,
               start: np.ndarray | None = None) -> MatchResult:
    """:func:`match_points` tallied: ``first``'s results."""
    return MatchResult.of(match_points(first, second, games, rng, start))


# --------------------------------------------------------------------------- matches between player specs
def _chunk_seed(seed: int, chunk: int, role: int) -> int:
    """A seed for one chunk's dice (role 0) or player (1, 2), from the match seed alone."""
    return int(np.random.SeedSequence([seed, chunk, role]).generate_state(1)[0])


def _play_chunk(job: tuple[str, str, int, int, int, int]) -> list[int]:
    """Games ``start .. stop - 1`` of a match (a worker's unit of work): player 1's points in each."""
    spec1, spec2, seed, chunk, start, stop = job
    p1 = make_bg_player(spec1, rng_seed=_chunk_seed(seed, chunk, 1))
    p2 = make_bg_player(spec2, rng_seed=_chunk_seed(seed, chunk, 2))
    rng = np.random.default_rng(_chunk_seed(seed, chunk, 0))
    # alternating starts, counted over the whole match: player 1 opens the even-numbered games
    return match_points(p1, p2, stop - start, rng, offset=start)


def run_match(
    spec1: str, spec2: str, games: int, seed: int, workers: int = 1, executor: Executor | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[int]:
    """Player 1's points in each of ``games`` games, in game order; the same for any ``workers`` (a local
    process pool, :func:`~sumito.arena.executor.make_executor`), and with an ``executor`` (e.g. Ray's), which then
    plays the chunks instead. ``progress(done)`` sees the number of games finished after each chunk."""
    jobs = [
        (spec1, spec2, seed, c, start, min(start + BACKGAMMON_CHUNK_GAMES, games))
        for c, start in enumerate(range(0, games, BACKGAMMON_CHUNK_GAMES))
    ]
    executor = executor or make_executor(min(max(workers, 1), max(len(jobs), 1)))
    chunks: list[list[int]] = [[] for _ in jobs]
    done = 0
    with contextlib.closing(executor.run(_play_chunk, jobs)) as stream:  # Ctrl-C: the pool or the tasks stop
        for i, chunk in stream:
            chunks[i] = chunk
            done += len(chunk)
            if progress is not None:
                progress(done)
    return [points for chunk in chunks for points in chunk]
