"""The errors every layer shares, at the ground so that the small helpers below the engine
(:mod:`sumito.bounds`, :mod:`sumito.fileio`) can raise them without importing the engine. Each
carries a one-line message that names what is wrong; :mod:`sumito.games.abalone.errors` adds the rules' own."""


class SumitoError(ValueError):
    """Base class: bad input from a user, a file or another program."""


class FileWriteError(SumitoError):
    """A file that cannot be written (no such folder, no permission, disk full...)."""
