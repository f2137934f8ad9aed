"""Matches, tournaments and ratings, the SQLite game archive, and the executor that runs games in parallel.

Work goes through :mod:`sumito.arena.executor` as plain data (:class:`GameTask`), results come
back as plain data (:class:`GameResult`), and the parent process stores them
(:class:`GameArchive`).
"""

from sumito.arena.db import GameArchive, StoredGame, default_db_path, load_record
from sumito.arena.errors import ArchiveError, ArenaError
from sumito.arena.executor import Executor, InlineExecutor, ProcessExecutor, make_executor
from sumito.arena.match import (
    DEFAULT_RULES,
    ArenaSettings,
    GameResult,
    GameTask,
    PairSummary,
    play_game,
    schedule,
    summarize_pair,
)
from sumito.arena.ratings import Ratings, elo_from_score, fit_elo, score_interval
from sumito.arena.tournament import TournamentSummary, summarize_tournament

__all__ = [
    "DEFAULT_RULES",
    "ArchiveError",
    "ArenaError",
    "ArenaSettings",
    "Executor",
    "GameArchive",
    "GameResult",
    "GameTask",
    "InlineExecutor",
    "PairSummary",
    "ProcessExecutor",
    "Ratings",
    "StoredGame",
    "TournamentSummary",
    "default_db_path",
    "elo_from_score",
    "fit_elo",
    "load_record",
    "make_executor",
    "play_game",
    "schedule",
    "score_interval",
    "summarize_pair",
    "summarize_tournament",
]
