"""Errors of the arena: each carries a one-line message for ``sumito: error: …``."""

from sumito.errors import SumitoError


class ArenaError(SumitoError):
    """A match or tournament that cannot be set up or played (bad options, a failing player)."""


class ArchiveError(ArenaError):
    """The game database cannot be opened, read or written (not SQLite, another schema, locked, …)."""
