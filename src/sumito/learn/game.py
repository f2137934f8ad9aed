"""Re-exports :mod:`sumito.models.game` for one release: the models of learning sit below the players
(docs/architecture.md)."""

from sumito.models.game import *  # noqa: F403
