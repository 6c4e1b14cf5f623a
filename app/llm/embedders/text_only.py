"""The embedder of a service configured without one (``TG_EMBEDDER=none``).

Search then runs on full text alone (app/features/search/service.py). Every stored record
still gets a vector, so the schema, the vector indexes and every write stay as they are
with an embedder: a *placeholder*, the hash of the text (equal texts meet, different ones
are unrelated), which nothing ranks by. A later ``thoughtgraph reembed`` replaces them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from thoughtgraph.domain.vector_space import TEXT_ONLY_PREFIX
from thoughtgraph.llm.embedders.hashing import DEFAULT_HASH_DIMENSION, HashEmbedder

if TYPE_CHECKING:
    from thoughtgraph.settings import Settings


class TextOnlyEmbedder(HashEmbedder):
    """Hash placeholders named ``none:<dimension>``: no meaning survives in them, so the
    services that know they run without an embedder never rank by them."""

    def __init__(self, dimension: int = DEFAULT_HASH_DIMENSION, *, batch_size: int = 256) -> None:
        super().__init__(dimension, batch_size=batch_size)
        self.name = f"{TEXT_ONLY_PREFIX}{dimension}"

    @classmethod
    def from_settings(cls, settings: Settings) -> TextOnlyEmbedder:
        return cls(
            settings.embedding_dimension or DEFAULT_HASH_DIMENSION,
            batch_size=settings.embedding_batch_size,
        )
