"""Which namespaces scheduled maintenance visits."""

from __future__ import annotations

from thoughtgraph.features.services import JobRuntime


async def active_namespaces(runtime: JobRuntime) -> list[str]:
    return await runtime.repos.executor.namespaces()
