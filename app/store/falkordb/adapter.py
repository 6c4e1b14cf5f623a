"""FalkorDB adapter: runs the shared statements over the falkordb client.

FalkorDB differs from Neo4j in three ways handled here: its vector score is a cosine
*distance* (0 = same direction, 2 = opposite), unique constraints are created with the
``GRAPH.CONSTRAINT`` command rather than Cypher, and index creation is not idempotent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import structlog
from falkordb.asyncio import FalkorDB
from redis import exceptions as redis_errors

from app.domain.errors import StoreError
from app.store.cypher import StatementLibrary
from app.store.cypher_store import CypherGraphStore, Row
from app.store.falkordb.engine import EmbeddedFalkorDB

# (label, property) pairs that must be unique; each needs an exact-match index first,
# which schema.bootstrap creates.
UNIQUE_PROPERTIES: tuple[tuple[str, str], ...] = (
    ("Thought", "id"),
    ("ChangeEvent", "id"),
    ("ChangeLog", "namespace"),
    ("SchemaMeta", "key"),
)
log = structlog.get_logger(__name__)
_ALREADY_EXISTS = ("already indexed", "already exists")


class FalkorDBGraphStore(CypherGraphStore):
    engine = "falkordb"

    def __init__(
        self,
        statements: StatementLibrary,
        *,
        socket_path: str,
        graph_name: str,
        embedded: EmbeddedFalkorDB | None = None,
    ) -> None:
        super().__init__(statements)
        self._socket_path = socket_path
        self._graph_name = graph_name
        self._embedded = embedded
        self._client = FalkorDB(unix_socket_path=socket_path)
        self._graph = self._client.select_graph(graph_name)
        self._recovery = asyncio.Lock()

    # --- execution ---------------------------------------------------------------------
    async def _read(self, name: str, params: Mapping[str, Any]) -> list[Row]:
        return await self._run(name, params, read_only=True)

    async def _write(self, name: str, params: Mapping[str, Any]) -> list[Row]:
        return await self._run(name, params, read_only=False)

    async def _run(self, name: str, params: Mapping[str, Any], *, read_only: bool) -> list[Row]:
        text = self._statements.get(name)
        try:
            return await self._execute(text, params, read_only=read_only)
        except (redis_errors.ConnectionError, redis_errors.TimeoutError) as exc:
            # Every statement is safe to repeat (deterministic ids, guarded creates), so
            # after bringing a crashed engine back the statement is simply run again.
            await self._recover(exc)
            return await self._execute(text, params, read_only=read_only)

    async def _execute(self, text: str, params: Mapping[str, Any], *, read_only: bool) -> list[Row]:
        try:
            query = self._graph.ro_query if read_only else self._graph.query
            result = await query(text, dict(params))
        except redis_errors.ResponseError as exc:
            if read_only and "empty key" in str(exc):
                return []  # the graph does not exist until its first write
            raise StoreError(f"FalkorDB rejected a statement: {exc}") from exc
        columns = [column[1] for column in result.header]
        return [dict(zip(columns, record, strict=True)) for record in result.result_set]

    async def _recover(self, cause: Exception) -> None:
        if self._embedded is None:
            raise StoreError(f"FalkorDB is unreachable: {cause}") from cause
        async with self._recovery:
            # Blocking the loop is right here: nothing can be served until it is back.
            if self._embedded.ensure_running():
                log.warning("engine.restarted", cause=str(cause), pid=self._embedded.pid)
            await self._client.connection.connection_pool.disconnect()

    # --- engine specifics --------------------------------------------------------------
    def _engine_similarity(self, raw_score: float) -> float:
        # FalkorDB reports cosine distance = 1 - cosine similarity.
        return 1.0 - raw_score

    async def _create_schema(self, dimension: int) -> None:
        for text in self._statements.get_all("schema.bootstrap"):
            try:
                await self._graph.query(text, {"dimension": dimension})
            except redis_errors.ResponseError as exc:
                if not any(marker in str(exc) for marker in _ALREADY_EXISTS):
                    raise StoreError(f"schema bootstrap failed: {exc}") from exc
        existing = {
            (c["label"], tuple(c["properties"]))
            for c in await self._graph.list_constraints()
            if c.get("type") == "UNIQUE"
        }
        for label, prop in UNIQUE_PROPERTIES:
            if (label, (prop,)) in existing:
                continue
            await self._graph.create_node_unique_constraint(label, prop)
        await self._await_constraints()

    async def _await_constraints(self) -> None:
        """Unique constraints build in the background; writes must wait until they hold."""
        for _ in range(500):
            pending = [
                c
                for c in await self._graph.list_constraints()
                if c.get("status") not in ("OPERATIONAL", None)
            ]
            if not pending:
                return
            await asyncio.sleep(0.02)
        raise StoreError("FalkorDB unique constraints did not become operational")

    async def _ping(self) -> str:
        pong = await self._client.connection.ping()
        where = f"unix:{self._socket_path}"
        pid = self._embedded.pid if self._embedded else None
        return f"{where} ping={'ok' if pong else 'no'}" + (f" pid={pid}" if pid else "")

    def describe(self) -> dict[str, str]:
        if self._embedded is not None:
            return {"data_dir": str(self._embedded.data_dir)}
        return {"socket": self._socket_path}

    async def close(self) -> None:
        await self._client.aclose()
