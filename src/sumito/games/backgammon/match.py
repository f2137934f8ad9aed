"""Matches between two backgammon choosers: cubeless money games with alternating starts, scored as equity
(points per game) with a 95% interval."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sumito.games.backgammon.board import BackgammonPosition
from sumito.games.backgammon.pubeval import Chooser, play_game


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
