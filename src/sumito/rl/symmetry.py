"""Re-exports :mod:`sumito.rlcore.symmetry` (the board's 12 symmetries on observations and actions)."""

from sumito.rlcore.symmetry import *  # noqa: F403
