"""The web games' errors: each one a one-line message and the HTTP status the app answers with."""

from __future__ import annotations

import logging

from sumito.errors import SumitoError

log = logging.getLogger("sumito.web")



class WebError(SumitoError):
    """A request that cannot be served; ``status`` is the HTTP status it gets (400 bad input)."""

    status = 400


class GameNotFoundError(WebError):
    status = 404


class ForbiddenError(WebError):
    """A change to a game by a client without its owner token."""

    status = 403


class TooLargeError(WebError):
    status = 413


class ConflictError(WebError):
    """A request that does not fit the game's state (not your turn, game over, nothing to undo)."""

    status = 409


class TooBusyError(WebError):
    """A request past the client's caps (``--max-games``, ``--max-queued``): nothing was changed."""

    status = 429


class WebStoreError(SumitoError):
    """The database of games in progress cannot be opened (not SQLite, another program's, …)."""
