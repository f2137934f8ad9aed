"""Re-exports :mod:`sumito.rlcore.openspiel_game` (its home below the players since the layering of issue 25)."""

from sumito.rlcore.openspiel_game import *  # noqa: F403
