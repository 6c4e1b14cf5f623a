"""Index and constraint plumbing of FalkorDB: creating and dropping indexes (neither is
idempotent in FalkorDB), unique constraints (the ``GRAPH.CONSTRAINT`` command, built in
the background), which indexes are still being built, and rewriting the engine's log
(before a clean stop, restarts.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

from falkordb.asyncio.graph import AsyncGraph
from redis import exceptions as redis_errors
from redis.asyncio import Redis

from thoughtgraph.domain.errors import StoreError

_ALREADY_EXISTS = ("already indexed", "already exists")
_NO_SUCH_INDEX = "no such index"
# How long a clean stop waits for the log rewrite; past it the engine stops anyway (its
# old log stays whole: the next start is then slow, never wrong).
LOG_REWRITE_WAIT_S = 120.0


async def create_indexes(
    graph: AsyncGraph, texts: Iterable[str], params: Mapping[str, Any]
) -> None:
    """Run CREATE INDEX statements; an index that exists already is success."""
    for text in texts:
        try:
            await graph.query(text, dict(params))
        except redis_errors.ResponseError as exc:
            if not any(marker in str(exc) for marker in _ALREADY_EXISTS):
                raise StoreError(f"FalkorDB schema setup failed: {exc}") from exc


async def drop_indexes(graph: AsyncGraph, texts: Iterable[str], *, doing: str) -> None:
    """Run DROP INDEX statements; an index that is gone already is success."""
    for text in texts:
        try:
            await graph.query(text)
        except redis_errors.ResponseError as exc:
            if _NO_SUCH_INDEX not in str(exc):
                raise StoreError(f"FalkorDB failed {doing}: {exc}") from exc


async def create_unique_constraints(graph: AsyncGraph, wanted: tuple[tuple[str, str], ...]) -> None:
    existing = {
        (c["label"], tuple(c["properties"]))
        for c in await graph.list_constraints()
        if c.get("type") == "UNIQUE"
    }
    for label, prop in wanted:
        if (label, (prop,)) in existing:
            continue
        try:
            await graph.create_node_unique_constraint(label, prop)
        except redis_errors.ResponseError as exc:
            if not any(marker in str(exc) for marker in _ALREADY_EXISTS):
                raise StoreError(f"FalkorDB constraint setup failed: {exc}") from exc
    await _await_constraints(graph)


async def _await_constraints(graph: AsyncGraph) -> None:
    """Unique constraints build in the background; writes must wait until they hold."""
    for _ in range(500):
        pending = [
            c
            for c in await graph.list_constraints()
            if c.get("status") not in ("OPERATIONAL", None)
        ]
        if not pending:
            return
        await asyncio.sleep(0.02)
    raise StoreError("FalkorDB unique constraints did not become operational")


async def indexes_building(
    graphs: Iterable[tuple[str, AsyncGraph]], states_text: str, timeout_ms: int
) -> list[str]:
    """``graph:label`` of every index that cannot answer yet (built, or rebuilt)."""
    pending: list[str] = []
    for name, graph in graphs:
        result = await graph.ro_query(states_text, timeout=timeout_ms)
        pending += [
            f"{name}:{label}" for label, status in result.result_set if status != "OPERATIONAL"
        ]
    return pending


async def rewrite_log(connection: Redis, wait_s: float = LOG_REWRITE_WAIT_S) -> bool:
    """Rewrite the engine's append-only log from what it holds now and wait for it:
    True once a rewrite finished well, False if it failed or took longer than ``wait_s``."""
    try:
        await connection.bgrewriteaof()
    except redis_errors.ResponseError as exc:
        if "already in progress" not in str(exc):
            return False
    deadline = asyncio.get_running_loop().time() + wait_s
    while asyncio.get_running_loop().time() < deadline:
        info = await connection.info("persistence")
        busy = int(info.get("aof_rewrite_in_progress", 0)) or int(
            info.get("aof_rewrite_scheduled", 0)
        )
        if not busy:
            return str(info.get("aof_last_bgrewrite_status")) == "ok"
        await asyncio.sleep(0.05)
    return False
