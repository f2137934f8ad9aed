"""Errors raised for bad input. Each carries a one-line message that names what is wrong.
The rules' errors derive from :class:`sumito.errors.SumitoError`, which lives at the ground so that the
helpers below the rules can raise it too."""

from sumito.errors import SumitoError

__all__ = [
    "GameOverError",
    "IllegalMoveError",
    "LayoutError",
    "NotationError",
    "PositionError",
    "RecordError",
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
