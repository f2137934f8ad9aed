"""Re-exports :mod:`sumito.rlcore.options` (its home below the players since the layering of issue 25)."""

from sumito.rlcore.options import *  # noqa: F403
