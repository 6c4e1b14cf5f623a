"""How the application asks for background work, whatever carries it (Celery in
deployments; nothing at all where no worker runs).

Publishing never blocks or fails the request that asks: the write that triggered a scan
is already acknowledged, and a lost scan is redone by the scheduled one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class JobQueue(Protocol):
    def scan_after_write(self, namespace: str, thought_ids: Sequence[str]) -> None:
        """Ask for a contradiction scan of freshly written thoughts; returns at once."""
        ...

    async def enqueue_consolidation(self, namespace: str, run_id: str, dry_run: bool) -> None:
        """Queue a consolidation run (its ConsolidationRun node exists already)."""
        ...

    async def enqueue_namespace_scan(self, namespace: str) -> None:
        """Queue a contradiction scan of the namespace's recent thoughts."""
        ...

    async def enqueue_insights(self, namespace: str) -> bool:
        """Queue the insights job for the namespace: True once queued, False when nothing
        takes jobs here."""
        ...

    async def enqueue_extraction(self, namespace: str, thought_id: str) -> bool:
        """Queue the fact extraction of a contribution: True once queued."""
        ...

    async def enqueue_reembed(self, overrides: Mapping[str, Any]) -> bool:
        """Re-embed the store with the embedder ``overrides`` name (features.reembedding);
        False when no worker will run it."""
        ...

    def close(self) -> None: ...


class NoJobQueue:
    """No worker: background work is not queued (tests of the API alone, benchmarks with
    scanning off). Runs can still be executed in-process by the CLI."""

    def scan_after_write(self, namespace: str, thought_ids: Sequence[str]) -> None:
        del namespace, thought_ids

    async def enqueue_consolidation(self, namespace: str, run_id: str, dry_run: bool) -> None:
        del namespace, run_id, dry_run

    async def enqueue_namespace_scan(self, namespace: str) -> None:
        del namespace

    async def enqueue_insights(self, namespace: str) -> bool:
        del namespace
        return False  # nothing runs it

    async def enqueue_extraction(self, namespace: str, thought_id: str) -> bool:
        del namespace, thought_id
        return False  # nothing runs it

    async def enqueue_reembed(self, overrides: Mapping[str, Any]) -> bool:
        del overrides
        return False  # nothing runs it

    def close(self) -> None:
        pass
