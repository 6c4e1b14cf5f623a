"""Pick and build the configured embedder."""

from __future__ import annotations

import asyncio

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.llm.embedders.hashing import HashEmbedder
from thoughtgraph.llm.embedders.litellm_embedder import LiteLLMEmbedder
from thoughtgraph.llm.embedders.local import LocalEmbedder
from thoughtgraph.llm.embedders.text_only import TextOnlyEmbedder
from thoughtgraph.settings import EmbedderKind, Settings


async def build_embedder(settings: Settings) -> TextEmbedder:
    """The embedder ``settings.embedder`` names, ready to use.

    ``local`` loads the model in a worker thread (a few seconds, off the event loop);
    ``litellm`` may embed one probe string to learn the dimension; ``hash`` and ``none``
    (placeholders, app/llm/embedders/text_only.py) are instant.
    Raises :class:`ConfigurationError` for settings that cannot work and
    :class:`EmbeddingError` when the model cannot be loaded or reached.
    """
    kind = EmbedderKind(settings.embedder)
    if kind is EmbedderKind.HASH:
        return HashEmbedder.from_settings(settings)
    if kind is EmbedderKind.NONE:
        return TextOnlyEmbedder.from_settings(settings)
    if kind is EmbedderKind.LITELLM:
        return await LiteLLMEmbedder.create(settings)
    if kind is EmbedderKind.LOCAL:
        embedder = await asyncio.to_thread(LocalEmbedder.load, settings)
        wanted = settings.embedding_dimension
        if wanted is not None and wanted != embedder.dimension:
            raise ConfigurationError(
                f"embedding_dimension is {wanted} but the local model {embedder.name} "
                f"produces {embedder.dimension}-dimensional vectors; unset it or make it match",
                setting="embedding_dimension",
            )
        return embedder
    raise ConfigurationError(f"unknown embedder {settings.embedder!r}", setting="embedder")
