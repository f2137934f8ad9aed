"""Re-exports :mod:`sumito.models.td` for one release: the models of learning sit below the players
(docs/architecture.md)."""

from sumito.models.td import *  # noqa: F403
