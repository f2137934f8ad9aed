"""Re-exports :mod:`sumito.rlcore.core` for one release: the RL action space and games sit below
the players (docs/architecture.md)."""

from sumito.rlcore.core import *  # noqa: F403
