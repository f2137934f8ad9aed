"""Round-robin tournaments: the cross table, the standings and maximum-likelihood Elo ratings.

The schedule is :func:`sumito.arena.match.schedule` (every pair plays N games, colours
alternating, each pair of games from one random opening); this module turns finished games into
tables. The ratings are :func:`sumito.arena.ratings.fit_elo` (Bradley–Terry, draws count half).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sumito.arena.match import GameResult
from sumito.arena.ratings import Ratings, connected, fit_elo


@dataclass
class Standing:
    """One player's totals over a tournament."""

    player: int
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    marbles_won: int = 0
    marbles_lost: int = 0
    time: float = 0.0
    moves: int = 0

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else float("nan")

    @property
    def move_time(self) -> float:
        return self.time / self.moves if self.moves else float("nan")


@dataclass
class TournamentSummary:
    players: list[str]
    games: np.ndarray  # games[i, j]: games between i and j
    points: np.ndarray  # points[i, j]: i's score against j
    standings: list[Standing]
    endings: Counter = field(default_factory=Counter)  # reason -> games
    plies: int = 0
    ratings: Ratings | None = None  # None when no game has finished

    @property
    def total_games(self) -> int:
        return int(self.games.sum() // 2)


def summarize_tournament(
    players: Sequence[str],
    results: Sequence[GameResult],
    anchor: str = "mean",
    adjudicate: bool = False,
    prior_draws: float = 0.0,
) -> TournamentSummary:
    """Standings, cross table and ratings (``adjudicate``: games without a winner are scored on
    marbles, see :meth:`GameResult.score_of`; ``prior_draws``: virtual draws a pair, see
    :func:`~sumito.arena.ratings.fit_elo`)."""
    n = len(players)
    games = np.zeros((n, n))
    points = np.zeros((n, n))
    standings = [Standing(i) for i in range(n)]
    endings: Counter = Counter()
    plies = 0
    for result in sorted(results, key=lambda r: r.task.index):
        b, w = result.task.black_id, result.task.white_id
        endings[result.reason] += 1
        plies += result.plies
        for me, other in ((b, w), (w, b)):
            score = result.score_of(me, adjudicate)
            games[me, other] += 1
            points[me, other] += score
            st = standings[me]
            st.games += 1
            st.wins += score == 1.0
            st.draws += score == 0.5
            st.losses += score == 0.0
            st.marbles_won += result.marbles_lost_by(other)
            st.marbles_lost += result.marbles_lost_by(me)
            times = result.move_times_of(me)
            st.time += sum(times)
            st.moves += len(times)
    ratings = None
    if results and connected(games):
        ratings = fit_elo(list(players), games, points, anchor=anchor, prior_draws=prior_draws)
    return TournamentSummary(list(players), games, points, standings, endings, plies, ratings)
