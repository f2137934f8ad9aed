"""Re-exports :mod:`sumito.rlcore.openspiel_game` for one release: the RL action space and games sit below
the players (docs/architecture.md)."""

from sumito.rlcore.openspiel_game import *  # noqa: F403
