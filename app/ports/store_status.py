"""What the service reports about its store: health for the probes, what it was built with."""

from __future__ import annotations

from typing import Protocol

from thoughtgraph.domain.models import SchemaState, StoreHealth


class StoreStatus(Protocol):
    engine: str

    @property
    def schema(self) -> SchemaState | None: ...

    async def health(self) -> StoreHealth:
        """Whether the engine answers, is ready (schema built, indexes usable) and accepts
        writes; never raises."""
        ...

    def describe(self) -> dict[str, str]:
        """Where the store is (data dir, socket or URI), for the start-up log."""
        ...
