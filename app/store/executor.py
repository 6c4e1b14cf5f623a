"""What a repository needs from a store: run a named statement in a namespace."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

Row = dict[str, Any]


class Executor(Protocol):
    engine: str

    async def read(self, name: str, params: Mapping[str, Any], *, namespace: str) -> list[Row]: ...

    async def write(self, name: str, params: Mapping[str, Any], *, namespace: str) -> list[Row]: ...

    def similarity(self, raw_score: float) -> float:
        """The engine's vector score as cosine similarity."""
        ...

    async def searchable(self, namespace: str) -> bool:
        """Whether the namespace answers by meaning: False when it has no vector index yet
        (never written to) or its vector indexes are being built (after a start)."""
        ...

    async def search_readiness(self, namespace: str) -> tuple[bool, bool]:
        """Whether the namespace answers by words (False: never written to), and by
        meaning (``searchable``), from one look at its indexes."""
        ...

    async def namespaces(self) -> list[str]:
        """Every namespace written to, sorted."""
        ...


def vector_list(value: Any) -> list[float]:
    """An embedding read back from either engine, as plain floats."""
    return [float(x) for x in value] if value is not None else []
