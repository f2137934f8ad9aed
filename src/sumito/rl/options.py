"""Re-exports :mod:`sumito.rlcore.options` for one release: the RL action space and games sit below
the players (docs/architecture.md)."""

from sumito.rlcore.options import *  # noqa: F403
