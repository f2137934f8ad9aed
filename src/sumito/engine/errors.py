"""Errors raised for bad input. Each carries a one-line message that names what is wrong.

:class:`SumitoError` and :class:`FileWriteError` live in :mod:`sumito.errors` (below the engine, so
that the helpers the engine uses can raise them); they are re-exported here."""

from sumito.errors import FileWriteError, SumitoError

__all__ = [
    "FileWriteError",
    "GameOverError",
    "IllegalMoveError",
    "LayoutError",
    "NotationError",
    "PositionError",
    "RecordError",
    "SumitoError",
]


class PositionError(SumitoError):
    """A malformed or impossible position string."""


class NotationError(SumitoError):
    """A move string that is malformed or names no legal move."""


class IllegalMoveError(NotationError):
    """A well-formed move that is not legal in the position."""


class GameOverError(SumitoError):
    """A move was played in a game that has already ended."""


class RecordError(SumitoError):
    """A malformed game record."""


class LayoutError(SumitoError):
    """An unknown layout or variant setting."""
