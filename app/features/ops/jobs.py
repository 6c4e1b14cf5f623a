"""The smallest job: proves a worker reached the store (used by health checks and tests)."""

from __future__ import annotations

from typing import Any

from thoughtgraph.features.services import JobRuntime


async def ping(runtime: JobRuntime) -> dict[str, Any]:
    health = await runtime.services.ops.store.health()
    return {"engine": health.engine, "ok": health.ok, "ready": health.ready}
