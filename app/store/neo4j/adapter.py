"""Neo4j adapter: runs the named statements over Bolt (reads auto-commit, writes in managed
transactions).

All query logic lives in ``CypherGraphStore`` and ``cypher/``; this module only knows how a
statement reaches the server, how Neo4j scores vectors and how its schema comes online.
Statements project plain scalars, so a row never carries a driver object out (``records``).

Namespaces: each one's thoughts carry a label of its own covered by a vector index of its
own (see ``namespaces``), created before the namespace's first write; statements get both names as
the ``$namespaceLabel`` and ``$namespaceIndex`` parameters. One shared index would make a
small namespace's search wade through every other namespace's vectors (slower as they
grow, and incomplete once its hits fall outside the candidates asked for).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from neo4j import (
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    NotificationDisabledClassification,
    NotificationMinimumSeverity,
    unit_of_work,
)
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConstraintError,
    DatabaseError,
    DriverError,
    Neo4jError,
    TransientError,
)

from thoughtgraph.domain.errors import ConfigurationError, StoreError, StoreTimeoutError
from thoughtgraph.ports.vector_slots import current_slot, spaced
from thoughtgraph.store.cypher import NAMESPACE_LABEL_SLOT, StatementLibrary, fill_namespace_label
from thoughtgraph.store.cypher_store import CypherGraphStore, Row
from thoughtgraph.store.neo4j.group_commit import GroupCounts, Statement, WriteGroups
from thoughtgraph.store.neo4j.reads import ReadTarget, read_rows
from thoughtgraph.store.neo4j.records import row_of
from thoughtgraph.store.neo4j_names import namespace_index, namespace_label

# Failures that mean "the store is not usable right now", as opposed to a faulty statement
# (other ClientErrors), which is a bug and propagates unchanged. ServiceUnavailable and
# SessionExpired are DriverErrors; TransientErrors surface here only once the managed
# transaction's retries are exhausted.
_UNAVAILABLE = (DriverError, TransientError, DatabaseError)
_TIMED_OUT = ("TransactionTimedOut", "LockClientStopped")
INDEX_ONLINE_TIMEOUT_S = 300
# Schema commands wait for index population: they get the population's own timeout.
SCHEMA_TIMEOUT_S = INDEX_ONLINE_TIMEOUT_S + 30
# The driver's HTTP (Query API) transport is a preview without managed transactions.
BOLT_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")


class Neo4jGraphStore(CypherGraphStore):
    engine = "neo4j"

    def __init__(
        self,
        driver: AsyncDriver,
        *,
        database: str,
        statements: StatementLibrary,
        statement_timeout_s: float = 10.0,
    ) -> None:
        """Wrap a driver; no I/O here. Use ``connect`` to build and check one."""
        if statements.engine != self.engine:
            raise ConfigurationError(
                f"Neo4jGraphStore needs the neo4j statement library, got {statements.engine!r}"
            )
        super().__init__(statements)
        self._driver = driver
        self._database = database
        self._timeout_s = statement_timeout_s
        # Every session shares one bookmark manager, so a read always sees the writes
        # acknowledged before it, also on a cluster where reads go to another member.
        self._bookmarks = AsyncGraphDatabase.bookmark_manager()
        self._reads = ReadTarget(driver, database, self._bookmarks)
        # Writes to one namespace go in groups, one transaction each (group_commit).
        self._write_groups = WriteGroups(
            self._execute_many, kept_for_each=lambda exc: isinstance(exc, _UNAVAILABLE)
        )

    @classmethod
    async def connect(
        cls,
        *,
        uri: str,
        user: str,
        password: str,
        database: str,
        statements: StatementLibrary,
        statement_timeout_s: float = 10.0,
    ) -> Neo4jGraphStore:
        """Build the driver and prove the database answers; ``StoreError`` if it does not."""
        if not uri.startswith(BOLT_SCHEMES):
            raise StoreError(f"Neo4j URI {uri!r} must use a Bolt scheme: {', '.join(BOLT_SCHEMES)}")
        try:
            driver = AsyncGraphDatabase.driver(
                uri,
                auth=(user, password),
                # Information notices ("index already exists") and warnings about labels
                # a fresh database has not seen yet would flood the log on every start.
                notifications_min_severity=NotificationMinimumSeverity.WARNING,
                notifications_disabled_classifications=[
                    NotificationDisabledClassification.UNRECOGNIZED
                ],
            )
        except (ValueError, DriverError) as exc:
            raise StoreError(f"invalid Neo4j URI {uri!r}: {exc}", uri=uri) from exc
        try:
            store = cls(
                driver,
                database=database,
                statements=statements,
                statement_timeout_s=statement_timeout_s,
            )
            await driver.verify_connectivity()
            # A real read proves the database exists and the user may read it.
            await store._execute(statements.get("schema.meta_read"), {}, write=False)
        except BaseException as exc:
            await driver.close()
            if isinstance(exc, AuthError):
                raise StoreError(
                    f"Neo4j at {uri} rejected the credentials of user {user!r}: {exc.message}",
                    uri=uri,
                ) from exc
            if isinstance(exc, DriverError | Neo4jError):
                raise StoreError(
                    f"cannot use Neo4j database {database!r} at {uri}: {exc}", uri=uri
                ) from exc
            raise
        return store

    # --- how a statement runs ------------------------------------------------------------
    async def _read(
        self, name: str, params: Mapping[str, Any], *, namespace: str | None
    ) -> list[Row]:
        text, scoped = self._statements.get(name), self._scoped(params, namespace)
        return await self._run(name, self._execute(text, scoped, write=False), write=False)

    async def _write(
        self, name: str, params: Mapping[str, Any], *, namespace: str | None
    ) -> list[Row]:
        # Writes to one namespace wait here for the next transaction of its writes: in
        # Neo4j they take turns anyway (each appends to the namespace's change log, one
        # node, one lock), but a transaction waiting there for the lock spends its
        # timeout waiting. Under 50 clients on a fresh service, writes queued behind the
        # lock past 10 s were stopped (LockClientStopped) and 142 of 3,398 contributes
        # failed. The metric's time includes the wait.
        text, scoped = self._statements.get(name), self._scoped(params, namespace)
        try:
            return await self._run(
                name, self._write_groups.write(namespace, text, scoped), write=True
            )
        except ConstraintError:
            # Every write statement creates only what is absent and returns no row when
            # it exists already; a unique-constraint conflict is the concurrent form of
            # that outcome (another writer got there first), and it wrote nothing.
            return []

    @staticmethod
    def _scoped(params: Mapping[str, Any], namespace: str | None) -> dict[str, Any]:
        scoped = dict(params)
        if namespace is not None:
            scoped["namespaceLabel"] = namespace_label(namespace)
            scoped["namespaceIndex"] = spaced(namespace_index(namespace), current_slot())
        return scoped

    async def _run(self, name: str, running: Awaitable[list[Row]], *, write: bool) -> list[Row]:
        try:
            with self.observer.statement(name, write=write):
                return await running
        except ClientError as exc:
            # Stopped by the timeout while running, or while waiting for a lock.
            if any(code in (exc.code or "") for code in _TIMED_OUT):
                raise StoreTimeoutError(
                    f"Neo4j stopped {name} after {self._timeout_s} s: {exc}", statement=name
                ) from exc
            raise
        except _UNAVAILABLE as exc:
            raise StoreError(f"Neo4j failed running {name}: {exc}", statement=name) from exc

    # --- namespaces --------------------------------------------------------------------
    async def _create_namespace_schema(self, namespace: str) -> None:
        label = namespace_label(namespace)
        index = spaced(namespace_index(namespace), current_slot())
        params = {
            "indexName": index,
            "dimension": self.embedding_dimension,
            "timeoutSeconds": INDEX_ONLINE_TIMEOUT_S,
        }
        for text in self._statements.get_all("schema.namespace"):
            statement = fill_namespace_label(text, label) if NAMESPACE_LABEL_SLOT in text else text
            try:
                await self._execute(statement, params, write=True, timeout_s=SCHEMA_TIMEOUT_S)
            except (DriverError, Neo4jError) as exc:
                # Another process may have created the same index a moment earlier. Its
                # index may still be populating: the awaitIndex statement that follows
                # the create waits for it; a failed wait is fine only once it is online.
                state = await self._index_state(index)
                waiting = "db.awaitIndex" in statement
                if state == "ONLINE" or (state == "POPULATING" and not waiting):
                    continue
                raise StoreError(
                    f"Neo4j could not create the vector index of namespace {namespace!r}: {exc}",
                    namespace=namespace,
                ) from exc

    async def _namespace_searchable(self, namespace: str) -> bool:
        key = (namespace, current_slot())
        if key in self._prepared_namespaces:
            return True
        if await self._index_exists(spaced(namespace_index(namespace), current_slot())):
            self._prepared_namespaces.add(key)
            return True
        return False  # never written to: nothing to find, and no index to ask

    async def _drop_space_schema(self, namespace: str) -> None:
        index = spaced(namespace_index(namespace), current_slot())
        texts = [
            *self._statements.get_all("schema.drop_namespace_space"),
            *self._statements.get_all("schema.drop_space"),
        ]
        for text in texts:
            try:
                await self._execute(
                    text, {"indexName": index}, write=True, timeout_s=SCHEMA_TIMEOUT_S
                )
            except (DriverError, Neo4jError) as exc:
                raise StoreError(f"Neo4j could not drop a retired vector index: {exc}") from exc

    async def _indexes_not_ready(self) -> list[str]:
        rows = await self._execute(self._statements.get("schema.indexes_pending"), {}, write=False)
        return [f"{row['name']} ({row['state']})" for row in rows]

    async def _index_exists(self, index: str) -> bool:
        return await self._index_state(index) == "ONLINE"

    async def _index_state(self, index: str) -> str | None:
        """ONLINE, POPULATING or FAILED; None when no index has this name."""
        try:
            rows = await self._execute(
                self._statements.get("schema.index_state"), {"indexName": index}, write=False
            )
        except _UNAVAILABLE as exc:
            raise StoreError(f"Neo4j failed looking up index {index}: {exc}") from exc
        return str(rows[0]["state"]) if rows else None

    async def _execute(
        self,
        text: str,
        params: Mapping[str, Any],
        *,
        write: bool,
        timeout_s: float | None = None,
    ) -> list[Row]:
        """One statement: a read as an auto-commit transaction (reads.read_rows), a write
        in one managed transaction; both retry transient failures.

        ``text`` comes from the files in cypher/, never from input (see thoughtgraph.store.cypher).
        """
        if not write:
            return await read_rows(self._reads, text, params, timeout_s or self._timeout_s)
        parameters = dict(params)

        # The server stops the transaction after the timeout (TransactionTimedOut).
        @unit_of_work(timeout=timeout_s or self._timeout_s)
        async def work(tx: AsyncManagedTransaction) -> list[Row]:
            result = await tx.run(text, parameters)
            return [row_of(record) async for record in result]

        async with self._driver.session(
            database=self._database, bookmark_manager=self._bookmarks
        ) as session:
            return await session.execute_write(work)

    async def _execute_many(self, steps: Sequence[Statement]) -> list[list[Row]]:
        """Write statements in one managed transaction, in order; each one's rows."""

        @unit_of_work(timeout=self._timeout_s)
        async def work(tx: AsyncManagedTransaction) -> list[list[Row]]:
            found = []
            for text, params in steps:
                result = await tx.run(text, dict(params))
                found.append([row_of(record) async for record in result])
            return found

        async with self._driver.session(
            database=self._database, bookmark_manager=self._bookmarks
        ) as session:
            return await session.execute_write(work)

    def _engine_similarity(self, raw_score: float) -> float:
        # Neo4j reports cosine vector scores as (1 + cos) / 2 in [0, 1].
        return 2.0 * raw_score - 1.0

    async def _create_schema(self, dimension: int) -> None:
        # Schema commands cannot share a transaction with writes: each gets its own.
        steps = [
            (statement, {"dimension": dimension})
            for statement in self._statements.get_all("schema.bootstrap")
        ]
        # Vector and full-text indexes populate asynchronously; wait until all are ONLINE.
        steps.append(
            (
                self._statements.get("schema.await_indexes"),
                {"timeoutSeconds": INDEX_ONLINE_TIMEOUT_S},
            )
        )
        for text, params in steps:
            try:
                await self._execute(text, params, write=True, timeout_s=SCHEMA_TIMEOUT_S)
            except (DriverError, Neo4jError) as exc:
                raise StoreError(
                    f"Neo4j schema setup failed: {exc}", statement=text.splitlines()[0]
                ) from exc

    async def _ping(self) -> str:
        try:
            info = await self._driver.get_server_info()
        except (DriverError, Neo4jError) as exc:
            raise StoreError(f"Neo4j is unreachable: {exc}") from exc
        major, minor = info.protocol_version
        return f"{info.agent} at {info.address}, Bolt {major}.{minor}, database {self._database}"

    async def namespaces(self) -> list[str]:
        rows = await self._read("changes.namespaces", {}, namespace=None)
        return [str(row["namespace"]) for row in rows]

    def describe(self) -> dict[str, str]:
        return {"database": self._database}

    @property
    def write_groups(self) -> GroupCounts:
        """How many transactions the writes took, and how many statements they held."""
        return self._write_groups.counts

    async def close(self) -> None:
        await self._write_groups.close()
        await self._driver.close()
