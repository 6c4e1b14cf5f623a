"""FalkorDB adapter: runs the shared statements over the falkordb client.

FalkorDB differs from Neo4j in three ways handled here: its vector score is a cosine
*distance* (0 = same direction, 2 = opposite), unique constraints are created with the
``GRAPH.CONSTRAINT`` command rather than Cypher, and index creation is not idempotent.

Every namespace is a graph of its own, ``<graph>:ns:<namespace>``, with its own indexes,
created before its first write; the catalog graph ``<graph>`` holds what the store was
built with. FalkorDB's vector index cannot filter while it searches, so one graph for all
namespaces made a small namespace's search slower as the others grew and, past the
candidates asked for, incomplete. Namespace names are validated upstream
(``thoughtgraph.domain.validation.require_namespace``) and name a key, never statement text.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

import structlog
from falkordb.asyncio import FalkorDB
from falkordb.asyncio.graph import AsyncGraph
from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, UnixDomainSocketConnection

from thoughtgraph.domain.errors import StoreError, StoreFullError, StoreTimeoutError
from thoughtgraph.domain.models import SchemaState
from thoughtgraph.ports.vector_slots import current_slot
from thoughtgraph.store.cypher import StatementLibrary
from thoughtgraph.store.cypher_store import CypherGraphStore, Row
from thoughtgraph.store.falkordb.engine import EmbeddedFalkorDB
from thoughtgraph.store.falkordb.indexes import (
    create_indexes,
    create_unique_constraints,
    drop_indexes,
    indexes_building,
)
from thoughtgraph.store.falkordb.params import RecentVectors, cypher_header
from thoughtgraph.store.falkordb.restarts import (
    BUILD_WAIT_S,
    DEGRADED,
    create_vector_indexes,
    shed_vector_indexes,
    until_built,
)
from thoughtgraph.store.falkordb.results import run_statement
from thoughtgraph.store.falkordb.supervisor import EngineSupervisor

# (label, property) pairs that must be unique; each needs an exact-match index first,
# which schema.bootstrap (catalog) and schema.namespace (each namespace) create.
CATALOG_UNIQUE: tuple[tuple[str, str], ...] = (("SchemaMeta", "key"),)
NAMESPACE_UNIQUE: tuple[tuple[str, str], ...] = (
    ("Thought", "id"),
    ("ChangeEvent", "id"),
    ("ChangeLog", "namespace"),
    ("Topic", "id"),
    ("Contradiction", "id"),
    ("Episode", "id"),
    ("ConsolidationRun", "id"),
    ("PairCheck", "id"),
    ("MergeProposal", "id"),
    ("ConsentRequest", "id"),
    ("ExtractionQuota", "id"),
    ("Checkpoint", "id"),
)
log = structlog.get_logger(__name__)
_LOST = (redis_errors.ConnectionError, redis_errors.TimeoutError)
# How long a statement waits for a restarting engine (loading a large log takes seconds).
RESTART_WAIT_S = 60.0
# Connections to the engine per process. The engine runs 2 queries at a time and queues
# the rest, so more connections only move the queue from this process into the engine;
# a statement past the limit waits for a free connection (up to the statement timeout).
# redis-py's default pool instead *refused* the 101st concurrent statement with a
# ConnectionError, which was taken for a lost engine (see ``_run_observed``).
POOL_CONNECTIONS = 64
# How long the client waits for a statement's answer, beyond the engine's own statement
# timeout (which stops reads; writes run to the end). redis-py's default of 5 s gave up
# on a 1,000-thought bulk write that took longer on a large store under load; the engine
# still committed it, and the statement run again after the "lost" connection collided
# with it (a unique-constraint violation at about 349,000 thoughts).
ANSWER_GRACE_S = 60.0
_POOL_EXHAUSTED = "No connection available"


class FalkorDBGraphStore(CypherGraphStore):
    engine = "falkordb"

    def __init__(
        self,
        statements: StatementLibrary,
        *,
        socket_path: str,
        graph_name: str,
        embedded: EmbeddedFalkorDB | None = None,
        statement_timeout_s: float = 10.0,
        min_free_disk_bytes: int = 0,
        index_build_wait_s: float = BUILD_WAIT_S,
    ) -> None:
        super().__init__(statements)
        self._timeout_ms = max(1, int(statement_timeout_s * 1000))
        self._socket_path = socket_path
        self._graph_name = graph_name
        self._embedded = embedded
        self._pool = BlockingConnectionPool(
            connection_class=UnixDomainSocketConnection,
            path=socket_path,
            max_connections=POOL_CONNECTIONS,
            timeout=statement_timeout_s,
            socket_timeout=statement_timeout_s + ANSWER_GRACE_S,
            decode_responses=True,  # as FalkorDB's own client asks for
        )
        self._client = FalkorDB(connection_pool=self._pool)
        self._catalog = self._client.select_graph(graph_name)
        self._graphs: dict[str, AsyncGraph] = {}
        self._recent_vectors = RecentVectors()
        # (namespace, slot) seen with every index built
        self._searchable: set[tuple[str, int]] = set()
        self._vector_rebuild: asyncio.Task[None] | None = None  # after a start (restarts.py)
        self._index_build_wait_s = index_build_wait_s
        self._supervisor = (
            EngineSupervisor(
                embedded,
                min_free_bytes=min_free_disk_bytes,
                reconnect=self._reconnect,
                wait_for_indexes=self._wait_for_indexes,
            )
            if embedded is not None
            else None
        )

    def start_supervision(self, interval_s: float) -> None:
        """Watch the engine process and restart it when it dies (needs a running loop)."""
        if self._supervisor is not None:
            self._supervisor.start_watching(interval_s)

    async def namespaces(self) -> list[str]:
        prefix = f"{self._graph_name}:ns:"
        graphs = await self._client.list_graphs()
        return sorted(name[len(prefix) :] for name in graphs if name.startswith(prefix))

    def namespace_graph_name(self, namespace: str) -> str:
        return f"{self._graph_name}:ns:{namespace}"

    def namespace_graph(self, namespace: str) -> AsyncGraph:
        return self._graph(namespace)

    def _graph(self, namespace: str | None) -> AsyncGraph:
        if namespace is None:
            return self._catalog
        graph = self._graphs.get(namespace)
        if graph is None:
            graph = self._graphs[namespace] = self._client.select_graph(
                self.namespace_graph_name(namespace)
            )
        return graph

    # --- execution ---------------------------------------------------------------------
    async def _read(
        self, name: str, params: Mapping[str, Any], *, namespace: str | None
    ) -> list[Row]:
        return await self._run(name, params, self._graph(namespace), read_only=True)

    async def _write(
        self, name: str, params: Mapping[str, Any], *, namespace: str | None
    ) -> list[Row]:
        # Data writes (a namespace's) keep to the disk reserve; the catalog's schema record,
        # written once and a no-op after, does not (a full disk must not stop a start).
        guard_disk = namespace is not None
        return await self._run(
            name, params, self._graph(namespace), read_only=False, guard_disk=guard_disk
        )

    async def _run(
        self,
        name: str,
        params: Mapping[str, Any],
        graph: AsyncGraph,
        *,
        read_only: bool,
        guard_disk: bool = False,
    ) -> list[Row]:
        with self.observer.statement(name, write=not read_only):
            return await self._run_observed(
                name, params, graph, read_only=read_only, guard_disk=guard_disk
            )

    async def _run_observed(
        self,
        name: str,
        params: Mapping[str, Any],
        graph: AsyncGraph,
        *,
        read_only: bool,
        guard_disk: bool,
    ) -> list[Row]:
        text = self._statements.get(name)
        supervisor = self._supervisor
        if supervisor is not None:
            await supervisor.until_serving(RESTART_WAIT_S)
            if guard_disk:
                supervisor.refuse_write_if_full()
        try:
            return await self._execute(graph, text, params, read_only=read_only)
        except _LOST as exc:
            self._searchable.clear()  # a restarted engine may be building its indexes
            if _POOL_EXHAUSTED in str(exc):  # busy, not lost: every connection stayed in use
                raise StoreTimeoutError(
                    f"FalkorDB was busy: no free connection for {name} within {self._timeout_ms} ms"
                ) from exc
            # The client has already dropped the broken connection; the supervisor tells a
            # live engine (nothing more to do) from a dead one (restart, fresh connections).
            # Every statement is safe to repeat (deterministic ids, guarded creates), so
            # after bringing a crashed engine back the statement is simply run again;
            # a write that met a full disk is not (it would crash the engine again).
            if supervisor is None:
                raise StoreError(f"FalkorDB is unreachable: {exc}") from exc
            try:
                if read_only:
                    await supervisor.recover(exc)
                else:
                    await supervisor.recover_from_failed_write(exc)
            except _LOST as again:  # the engine died again while coming back
                raise StoreError(f"FalkorDB is not coming back: {again}") from again
            try:
                return await self._execute(graph, text, params, read_only=read_only)
            except _LOST as again:
                raise StoreError(f"FalkorDB failed twice running {name}: {again}") from again

    async def _execute(
        self, graph: AsyncGraph, text: str, params: Mapping[str, Any], *, read_only: bool
    ) -> list[Row]:
        try:
            return await run_statement(
                graph,
                cypher_header(params, self._recent_vectors) + text,
                read_only=read_only,
                timeout_ms=self._timeout_ms,
            )
        except redis_errors.ResponseError as exc:
            if read_only and "empty key" in str(exc):
                return []  # the graph does not exist until its first write
            if str(exc).startswith("MISCONF"):  # the engine cannot write its log: disk full
                raise StoreFullError(f"FalkorDB refused a write: {exc}") from exc
            if "timed out" in str(exc).lower():
                raise StoreTimeoutError(
                    f"FalkorDB stopped a statement after {self._timeout_ms} ms: {exc}"
                ) from exc
            raise StoreError(f"FalkorDB rejected a statement: {exc}") from exc

    # --- namespaces --------------------------------------------------------------------
    async def _create_namespace_schema(self, namespace: str) -> None:
        if self._supervisor is not None:  # creating indexes appends to the log too
            self._supervisor.refuse_write_if_full()
        graph = self._graph(namespace)
        dimension = {"dimension": self.embedding_dimension}
        try:  # the full-text index last (schema.namespace_searchable)
            await create_indexes(
                graph, self._statements.get_all("schema.namespace_vectors"), dimension
            )
            await create_indexes(graph, self._statements.get_all("schema.namespace"), dimension)
            await create_unique_constraints(graph, NAMESPACE_UNIQUE)
        except _LOST as exc:
            # Not retried here: the next write prepares the namespace again (idempotent).
            raise StoreError(f"FalkorDB was lost creating namespace {namespace!r}: {exc}") from exc

    async def _namespace_searchable(self, namespace: str) -> bool:
        return (await self._search_readiness(namespace))[1]

    async def _search_readiness(self, namespace: str) -> tuple[bool, bool]:
        """Whether the namespace answers by words, and by meaning: its indexes may be
        being created by another process (the worker, another API), or its vector
        indexes built again after a restart. Asked of the engine until both hold."""
        key = (namespace, current_slot())
        if key in self._searchable:
            return True, True
        rows = await self._read("schema.namespace_searchable", {}, namespace=namespace)
        row = rows[0] if rows else {}
        text = int(row.get("textReady") or 0) > 0
        vectors = text and int(row.get("vectorIndexed") or 0) > 0 and not row.get("building")
        if vectors:
            self._searchable.add(key)
        return text, vectors

    async def _drop_space_schema(self, namespace: str) -> None:
        texts = [
            *self._statements.get_all("schema.drop_namespace_vectors"),
            *self._statements.get_all("schema.drop_namespace_space"),
        ]
        await drop_indexes(self._graph(namespace), texts, doing="dropping a retired index")
        self._searchable.discard((namespace, current_slot()))

    # --- restarts (restarts.py) ----------------------------------------------------------
    async def bootstrap(self, *, embedding_dimension: int, embedder: str) -> SchemaState:
        schema = await super().bootstrap(embedding_dimension=embedding_dimension, embedder=embedder)
        if self._embedded is not None and self._vector_rebuild is None:
            await create_vector_indexes(self, self._statements)
            self._vector_rebuild = asyncio.create_task(until_built(self._indexes_building))
            await asyncio.wait([self._vector_rebuild], timeout=self._index_build_wait_s)
        return schema

    def _degraded(self) -> str | None:
        building = self._vector_rebuild is not None and not self._vector_rebuild.done()
        return DEGRADED if building else None

    async def shed_vector_indexes(self) -> None:
        """Before a clean stop (restarts.py); not on a disk under its reserve."""
        if self._write_refusal() is None:
            self._searchable.clear()
            await shed_vector_indexes(self, self._statements, self._client.connection)

    # --- supervision ------------------------------------------------------------------
    async def _reconnect(self) -> None:
        # After a restart: the idle connections lead to the old process. Connections in use
        # are left to their statements (each drops its own when it fails): closing them
        # here broke statements already running on the new process.
        await self._pool.disconnect(inuse_connections=False)

    async def _indexes_not_ready(self) -> list[str]:
        # Readiness asks this on every probe. The supervisor waits for the indexes after
        # every start and restart before statements run, so while it serves they are
        # usable; asking every graph would cost a query per namespace per probe.
        if self._supervisor is not None:
            return [] if self._supervisor.serving else ["the engine is starting or restarting"]
        return await self._indexes_building()

    async def _indexes_building(self) -> list[str]:
        """Indexes of any graph that cannot answer yet (built, or rebuilt from the log)."""
        names = await self._client.list_graphs()
        graphs = [(name, self._client.select_graph(name)) for name in names]
        text = self._statements.get("schema.index_states")
        return await indexes_building(graphs, text, self._timeout_ms)

    async def _wait_for_indexes(self) -> None:
        """After a restart the engine answers before its indexes are usable (it rebuilds
        them from the log): a search then would fail. Wait for them."""
        deadline = asyncio.get_running_loop().time() + RESTART_WAIT_S
        while await self._indexes_building():
            if asyncio.get_running_loop().time() > deadline:
                raise StoreError("FalkorDB's indexes did not come back in time")
            await asyncio.sleep(0.05)

    def _write_refusal(self) -> str | None:
        return self._supervisor.write_refusal() if self._supervisor is not None else None

    # --- engine specifics --------------------------------------------------------------
    def _engine_similarity(self, raw_score: float) -> float:
        # FalkorDB reports cosine distance = 1 - cosine similarity.
        return 1.0 - raw_score

    async def _upgrade_layout(self, stored_version: int) -> None:
        """From 2: each namespace's thought vectors move to their own indexed nodes, and the
        vector indexes on thoughts and topics themselves go. From 3: the namespace indexes
        added since (kind, tags) are built, as a new namespace gets them."""
        for namespace in await self.namespaces():
            graph = self._graph(namespace)
            if stored_version < 3:
                texts = self._statements.get_all("schema.drop_old_vector_indexes")
                await drop_indexes(graph, texts, doing="upgrading the store")
            await self._create_namespace_schema(namespace)
            if stored_version < 3:
                await graph.query(self._statements.get("schema.thought_vectors"))

    async def _create_schema(self, dimension: int) -> None:
        del dimension  # vector indexes are per namespace (schema.namespace)
        await create_indexes(self._catalog, self._statements.get_all("schema.bootstrap"), {})
        await create_unique_constraints(self._catalog, CATALOG_UNIQUE)

    async def _ping(self) -> str:
        pong = await self._client.connection.ping()
        where = f"unix:{self._socket_path}"
        pid = self._embedded.pid if self._embedded else None
        return f"{where} ping={'ok' if pong else 'no'}" + (f" pid={pid}" if pid else "")

    def describe(self) -> dict[str, str]:
        if self._embedded is not None:
            described = {"data_dir": str(self._embedded.data_dir)}
            if self._embedded.pid is not None:
                described["engine_pid"] = str(self._embedded.pid)
            return described
        return {"socket": self._socket_path}

    async def close(self) -> None:
        if self._vector_rebuild is not None:
            self._vector_rebuild.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._vector_rebuild
        if self._supervisor is not None:
            await self._supervisor.stop_watching()
        await self._client.aclose()
