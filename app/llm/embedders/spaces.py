"""The services' embedder across vector spaces (app/ports/vector_slots.py).

Each request embeds with the embedder of the space it is pinned to, so the vectors it
compares and the index it asks are always of one space. The embedder of a space a
re-embed created is built from the settings the store recorded for it, the first time a
request needs it: a running service follows a switch without a restart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.domain.vector_space import VectorSpace, settings_text
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.llm.embedders.factory import build_embedder
from thoughtgraph.ports.vector_slots import SpaceRecords, last_pinned_slot
from thoughtgraph.settings import EmbedderKind, Settings


def settings_with(settings: Settings, overrides: Mapping[str, Any]) -> Settings:
    """``settings`` with a space's embedder settings in place of the configured ones."""
    update = dict(overrides)
    if "embedder" in update:
        update["embedder"] = EmbedderKind(update["embedder"])
    return settings.model_copy(update=update)


async def build_for(settings: Settings, overrides: Mapping[str, Any]) -> TextEmbedder:
    """The embedder ``overrides`` name over ``settings``, built now."""
    return await build_embedder(settings_with(settings, overrides))


class EmbedderBuilder:
    """Embedders by settings overrides (kind, model, dimension, API base) over the
    process's settings, each built once: no overrides is the configured embedder."""

    def __init__(self, settings: Settings, configured: TextEmbedder) -> None:
        self._settings = settings
        self._built: dict[str, TextEmbedder] = {settings_text({}): configured}
        self._spaces: dict[tuple[int, str], TextEmbedder] = {}
        self._lock = asyncio.Lock()

    async def __call__(self, overrides: Mapping[str, Any]) -> TextEmbedder:
        key = settings_text(overrides)
        async with self._lock:
            found = self._built.get(key)
            if found is None:
                found = await build_for(self._settings, overrides)
                self._built[key] = found
        return found

    async def for_space(self, space: VectorSpace) -> TextEmbedder:
        """The embedder that made ``space``'s vectors (looked up without a lock once
        built: every query embedding asks)."""
        known = self._spaces.get((space.slot, space.embedder))
        if known is not None:
            return known
        embedder = await self(space.settings or {})
        if space.settings is None:
            # The space the store was built in: its embedder is the configured one, which
            # the store's bootstrap accepted (same dimension; the name may differ).
            self._spaces[(space.slot, space.embedder)] = embedder
            return embedder
        if embedder.name != space.embedder or embedder.dimension != space.dimension:
            raise ConfigurationError(
                f"the vectors in slot {space.slot} were made by {space.embedder} "
                f"({space.dimension} dimensions), but this service's embedder is "
                f"{embedder.name} ({embedder.dimension}); configure {space.embedder}",
                setting="embedder",
            )
        self._spaces[(space.slot, space.embedder)] = embedder
        return embedder


class SpaceEmbedder:
    """An ``Embeddings`` that embeds with the pinned space's embedder."""

    def __init__(
        self,
        records: SpaceRecords,
        builder: EmbedderBuilder,
        active: VectorSpace,
        embedder: TextEmbedder,
    ) -> None:
        self._records = records
        self._builder = builder
        self._last: dict[int, TextEmbedder] = {active.slot: embedder}  # by slot, last used
        self._last_slot = active.slot

    @property
    def name(self) -> str:
        return self._now().name

    @property
    def dimension(self) -> int:
        return self._now().dimension

    async def async_embed_query(self, text: str) -> list[float]:
        return await (await self._pinned()).async_embed_query(text)

    async def async_embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return await (await self._pinned()).async_embed_documents(texts)

    async def _pinned(self) -> TextEmbedder:
        slot = await self._records.pin_space()
        space = (await self._records.spaces()).space(slot)
        if space is not None:
            found = await self._builder.for_space(space)
            self._last[slot], self._last_slot = found, slot
            return found
        # Retired by a switch after this request pinned it: it finishes in its own space.
        last = self._last.get(slot)
        if last is None:
            raise ConfigurationError(f"the store has no vector space in slot {slot}")
        return last

    def _now(self) -> TextEmbedder:
        """Without waiting: the embedder of the space the request's statements run in (its
        last pin's, also once lapsed), else the one used last."""
        slot = last_pinned_slot()
        return (
            self._last.get(self._last_slot if slot is None else slot) or self._last[self._last_slot]
        )
