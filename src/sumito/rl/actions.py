"""Re-exports :mod:`sumito.rlcore.actions` (its home below the players since the layering of issue 25)."""

from sumito.rlcore.actions import *  # noqa: F403
