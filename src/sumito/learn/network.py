"""Re-exports :mod:`sumito.models.network` for one release: the models of learning sit below the players
(docs/architecture.md)."""

from sumito.models.network import *  # noqa: F403
