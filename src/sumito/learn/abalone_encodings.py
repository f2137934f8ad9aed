"""Re-exports :mod:`sumito.models.abalone_encodings` for one release: the models of learning sit below the players
(docs/architecture.md)."""

from sumito.models.abalone_encodings import *  # noqa: F403
