"""Re-exports :mod:`sumito.rlcore.core` (its home below the players since the layering of issue 25)."""

from sumito.rlcore.core import *  # noqa: F403
