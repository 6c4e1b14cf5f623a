"""Nightly decay: forget what is stale and unimportant, purge what was forgotten long
enough ago."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtgraph.features.services import JobRuntime


class RetentionResult(BaseModel):
    namespace: str
    forgotten: int
    purged: int


async def forget_and_purge(runtime: JobRuntime, namespace: str) -> RetentionResult:
    retention = runtime.services.retention
    forgotten = await retention.forget_due(namespace)
    purged = await retention.purge_due(namespace)
    return RetentionResult(namespace=namespace, forgotten=forgotten, purged=purged)
