"""Opens the configured store: Neo4j when TG_NEO4J_URI is set, else the embedded engine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog

from app.settings import Settings
from app.store.cypher import StatementLibrary
from app.store.cypher_store import CypherGraphStore
from app.store.falkordb.adapter import FalkorDBGraphStore
from app.store.falkordb.engine import EmbeddedFalkorDB

log = structlog.get_logger(__name__)


def check_store_available(settings: Settings) -> None:
    """Raise now if the configured store certainly cannot be opened (a data dir that
    cannot be written, or is locked), so a service fails before it loads models or binds
    ports."""
    if not settings.neo4j_uri:
        EmbeddedFalkorDB(settings.data_dir).check_available()


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[CypherGraphStore]:
    """Start or connect to the engine, yield its store, and shut everything down after."""
    statements = StatementLibrary.load(settings.cypher_dir, settings.engine)
    if settings.neo4j_uri:
        from app.store.neo4j.adapter import Neo4jGraphStore

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

    engine = EmbeddedFalkorDB(
        settings.data_dir,
        fsync=settings.falkordb_fsync,
        start_timeout_s=settings.falkordb_start_timeout_s,
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
    )
    store.start_supervision(settings.engine_watch_interval_s)
    try:
        yield store
    finally:
        await store.close()
        engine.stop()
        log.info("store.closed", engine="falkordb", data_dir=str(settings.data_dir))
