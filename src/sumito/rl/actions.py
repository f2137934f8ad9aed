"""Re-exports :mod:`sumito.rlcore.actions` for one release: the RL action space and games sit below
the players (docs/architecture.md)."""

from sumito.rlcore.actions import *  # noqa: F403
