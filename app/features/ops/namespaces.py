"""Which namespaces scheduled maintenance visits."""

from __future__ import annotations

from thoughtgraph.runtime import Runtime


async def active_namespaces(runtime: Runtime) -> list[str]:
    return await runtime.repos.executor.namespaces()
