"""The smallest job: proves a worker reached the store (used by health checks and tests)."""

from __future__ import annotations

from typing import Any

from thoughtgraph.runtime import Runtime


async def ping(runtime: Runtime) -> dict[str, Any]:
    health = await runtime.store.health()
    return {"engine": health.engine, "ok": health.ok, "ready": health.ready}
