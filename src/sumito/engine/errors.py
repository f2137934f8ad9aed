"""Errors raised for bad input. Each carries a one-line message that names what is wrong."""


class SumitoError(ValueError):
    """Base class: bad input from a user, a file or another program."""


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


class FileWriteError(SumitoError):
    """A file that cannot be written (no such folder, no permission, disk full...)."""
