"""Opens the configured store: Neo4j when TG_NEO4J_URI is set, else the embedded engine."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError

from thoughtgraph.domain.errors import EngineUnavailableError
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher import StatementLibrary
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.falkordb.adapter import FalkorDBGraphStore
from thoughtgraph.store.falkordb.engine import EmbeddedFalkorDB

log = structlog.get_logger(__name__)


def check_store_available(settings: Settings) -> None:
    """Raise now if the configured store certainly cannot be opened (a data dir that
    cannot be written, or is locked), so a service fails before it loads models or binds
    ports."""
    if not settings.neo4j_uri:
        EmbeddedFalkorDB(settings.data_dir).check_available()


def embedded_socket_path(settings: Settings) -> Path:
    """Where the embedded engine of the configured data dir listens (no I/O)."""
    return EmbeddedFalkorDB(settings.data_dir).socket_path


async def _wait_for_engine(socket_path: Path, timeout_s: float) -> None:
    """Until the owner's engine answers on its socket (a worker may start first)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            client = Redis(unix_socket_path=str(socket_path))
            try:
                await client.ping()
                return
            finally:
                await client.aclose()
        except (OSError, RedisError) as exc:
            if time.monotonic() > deadline:
                raise EngineUnavailableError(
                    f"no embedded engine answers at {socket_path}: start `thoughtgraph serve` "
                    "on this data dir first (a worker attaches to the engine it owns)"
                ) from exc
            await asyncio.sleep(0.2)


@asynccontextmanager
async def open_store(
    settings: Settings, *, attach: bool = False
) -> AsyncIterator[CypherGraphStore]:
    """Start or connect to the engine, yield its store, and shut everything down after.

    ``attach``: on the embedded engine, connect to the engine another process (the
    service) started on the data dir instead of starting one; the data dir lock, the
    engine process and its supervision stay with that owner. Workers attach.
    """
    statements = StatementLibrary.load(settings.cypher_dir, settings.engine)
    if settings.neo4j_uri:
        from thoughtgraph.store.neo4j.adapter import Neo4jGraphStore

        neo4j_store = await Neo4jGraphStore.connect(
            uri=settings.neo4j_uri,
            user=settings.neo4j_user,
            password=settings.neo4j_password.get_secret_value(),
            database=settings.neo4j_database,
            statements=statements,
            statement_timeout_s=settings.statement_timeout_s,
        )
        log.info("store.opened", engine="neo4j", uri=settings.neo4j_uri)
        try:
            yield neo4j_store
        finally:
            await neo4j_store.close()
        return

    if attach:
        socket_path = embedded_socket_path(settings)
        await _wait_for_engine(socket_path, settings.falkordb_start_timeout_s)
        attached = FalkorDBGraphStore(
            statements,
            socket_path=str(socket_path),
            graph_name=settings.falkordb_graph,
            statement_timeout_s=settings.statement_timeout_s,
        )
        log.info("store.attached", engine="falkordb", socket=str(socket_path))
        try:
            yield attached
        finally:
            await attached.close()
        return

    engine = EmbeddedFalkorDB(
        settings.data_dir,
        fsync=settings.falkordb_fsync,
        start_timeout_s=settings.falkordb_start_timeout_s,
        load_timeout_s=settings.falkordb_load_timeout_s,
    )
    engine.start()
    log.info(
        "store.opened",
        engine="falkordb",
        data_dir=str(settings.data_dir),
        socket=str(engine.socket_path),
        pid=engine.pid,
        fsync=settings.falkordb_fsync.value,
    )
    store = FalkorDBGraphStore(
        statements,
        socket_path=str(engine.socket_path),
        graph_name=settings.falkordb_graph,
        embedded=engine,
        statement_timeout_s=settings.statement_timeout_s,
        min_free_disk_bytes=settings.min_free_disk_bytes,
        index_build_wait_s=settings.falkordb_index_build_wait_s,
    )
    store.start_supervision(settings.engine_watch_interval_s)
    try:
        yield store
    finally:
        await store.shed_vector_indexes()  # the next start loads in seconds (restarts.py)
        await store.close()
        engine.stop()
        log.info("store.closed", engine="falkordb", data_dir=str(settings.data_dir))
