"""Re-exports :mod:`sumito.models.tdleaf` for one release: the models of learning sit below the players
(docs/architecture.md)."""

from sumito.models.tdleaf import *  # noqa: F403
