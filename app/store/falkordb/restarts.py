"""Restarts in seconds: FalkorDB keeps no index on disk and rebuilds every one while it
loads, answering nothing meanwhile, and the vector indexes are nearly all of that time.
So a clean stop drops every namespace's vector indexes and rewrites the log without
them; the next start loads in seconds, creates them again, and they build while the
service serves, searching by words until they are built (docs/guide/embedded-engine.md,
"Restarts", has the figures). After a crash the log still holds them and the engine
rebuilds them while it loads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol

import structlog
from falkordb.asyncio.graph import AsyncGraph
from redis.asyncio import Redis

from thoughtgraph.domain.vector_space import VectorSpace, VectorSpaces
from thoughtgraph.ports.vector_slots import pinned
from thoughtgraph.store.cypher import StatementLibrary
from thoughtgraph.store.falkordb.indexes import create_indexes, drop_indexes, rewrite_log

log = structlog.get_logger(__name__)

BUILD_POLL_S = 0.5  # how often a start asks whether the vector indexes are built
# How long a start waits for them before it serves by words (TG_FALKORDB_INDEX_BUILD_WAIT_S):
# a small store (a few thousand thoughts) is then whole when it starts, a large one
# serves within seconds.
BUILD_WAIT_S = 2.0
DEGRADED = (
    "the vector indexes are being built after the start: searches rank by words alone, "
    "and near-duplicates are not found, until they are"
)


class NamespaceGraphs(Protocol):
    @property
    def embedding_dimension(self) -> int: ...

    async def spaces(self, *, fresh: bool = False) -> VectorSpaces: ...

    async def namespaces(self) -> list[str]: ...

    def namespace_graph(self, namespace: str) -> AsyncGraph: ...


def _live(spaces: VectorSpaces) -> list[VectorSpace]:
    """The spaces whose indexes exist: the active one and the one a re-embed fills."""
    return [space for space in (spaces.active, spaces.next) if space is not None]


async def create_vector_indexes(store: NamespaceGraphs, statements: StatementLibrary) -> None:
    """Every namespace's vector indexes in every live space: those a clean stop dropped
    are created (and build in the background); the others exist already."""
    namespaces = await store.namespaces()
    for space in _live(await store.spaces()):
        dimension = {"dimension": space.dimension or store.embedding_dimension}
        with pinned(space.slot):
            texts = statements.get_all("schema.namespace_vectors")
            for namespace in namespaces:
                await create_indexes(store.namespace_graph(namespace), texts, dimension)


async def shed_vector_indexes(
    store: NamespaceGraphs, statements: StatementLibrary, connection: Redis
) -> None:
    """Before a clean stop: drop the vector indexes and rewrite the log without them. A
    failure only costs the next start its speed: the engine stops anyway."""
    started = asyncio.get_running_loop().time()
    try:
        await _drop_vector_indexes(store, statements)
        rewritten = await rewrite_log(connection)
    except Exception as exc:  # the log keeps the indexes: the next load rebuilds them
        log.warning("engine.indexes_kept", error=str(exc))
        return
    seconds = round(asyncio.get_running_loop().time() - started, 2)
    log.info("engine.indexes_shed", log_rewritten=rewritten, seconds=seconds)


async def _drop_vector_indexes(store: NamespaceGraphs, statements: StatementLibrary) -> None:
    namespaces = await store.namespaces()
    for space in _live(await store.spaces(fresh=True)):
        with pinned(space.slot):
            texts = statements.get_all("schema.drop_namespace_vectors")
            for namespace in namespaces:
                graph = store.namespace_graph(namespace)
                await drop_indexes(graph, texts, doing="dropping an index before a stop")


async def until_built(building: Callable[[], Awaitable[list[str]]]) -> None:
    """Wait until no index is being built, and say in the log how long it took."""
    started = asyncio.get_running_loop().time()
    try:
        while pending := await building():
            log.debug("engine.indexes_building", indexes=len(pending))
            await asyncio.sleep(BUILD_POLL_S)
    except Exception as exc:  # a lost engine: its supervisor waits for the indexes
        log.warning("engine.indexes_unknown", error=str(exc))
        return
    seconds = round(asyncio.get_running_loop().time() - started, 2)
    log.info("engine.indexes_ready", seconds=seconds)
