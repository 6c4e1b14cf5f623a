"""Everything both engines share: the store operations written once over named statements.

An adapter supplies only how a statement runs (``_read``/``_write``), how its vector score
maps to cosine similarity, and how its schema is created, store-wide and per namespace.
All query logic lives here and in ``cypher/``, so the two engines cannot drift apart.

Every statement runs in a scope: a namespace, or None for the store-wide catalog (schema
records). Each namespace has vector indexes of its own (a graph per namespace on
FalkorDB, a label and index per namespace on Neo4j), created before its first write, so a
namespace's search never depends on what the others hold.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Mapping
from typing import Any

from thoughtgraph.domain.errors import SchemaMismatchError, StoreError
from thoughtgraph.domain.models import (
    SchemaState,
    StoreHealth,
    now_ms,
)
from thoughtgraph.domain.vector_space import VectorSpace, VectorSpaces, is_text_only, settings_text
from thoughtgraph.observability.statements import UNOBSERVED, StatementObserver
from thoughtgraph.ports.vector_slots import current_slot, pin, pinned, pinned_slot
from thoughtgraph.store.cypher import StatementLibrary

Row = dict[str, Any]

# How old a process's copy of the vector-space record may be when a request pins its
# slot: a switch reaches every process within this time.
SPACES_FRESH_S = 1.0

# 2: vector indexes per namespace (1 had one index for every namespace).
# 3: on FalkorDB, thoughts' vectors indexed on nodes of their own (upgraded in place).
# 4: thoughts indexed by kind (both engines) and by tag (FalkorDB), for listings; on
#    FalkorDB, change events by revision (Neo4j had (namespace, revision)).
SCHEMA_VERSION = 4
# A readiness probe answers within this: an engine that takes longer is busy (a write
# waiting out an index build holds the embedded engine's lock), and is reported so.
HEALTH_PING_S = 2.0
UPGRADABLE_FROM = 2


class CypherGraphStore(abc.ABC):
    engine: str

    def __init__(self, statements: StatementLibrary) -> None:
        self._statements = statements
        self.observer: StatementObserver = UNOBSERVED  # the runtime's telemetry, once open
        self._schema: SchemaState | None = None
        self._prepared_namespaces: set[tuple[str, int]] = set()
        self._namespace_locks: dict[str, asyncio.Lock] = {}
        self._spaces: VectorSpaces | None = None
        self._spaces_read_at = float("-inf")
        self._spaces_reading: asyncio.Task[VectorSpaces] | None = None
        self._prepared_spaces: set[int] = set()  # slots whose store-wide indexes exist

    # --- what an adapter supplies ------------------------------------------------------
    @abc.abstractmethod
    async def _read(
        self, name: str, params: Mapping[str, Any], *, namespace: str | None
    ) -> list[Row]:
        """Run a read statement in a namespace's scope (None: the store-wide catalog)."""

    @abc.abstractmethod
    async def _write(
        self, name: str, params: Mapping[str, Any], *, namespace: str | None
    ) -> list[Row]:
        """Run a write statement in a namespace's scope (None: the store-wide catalog)."""

    @abc.abstractmethod
    async def _create_namespace_schema(self, namespace: str) -> None:
        """Create the namespace's own indexes if they do not exist yet (idempotent: another
        process may be doing the same)."""

    # --- the executor repositories run on (app/store/repositories) ------------------------
    async def read(self, name: str, params: Mapping[str, Any], *, namespace: str) -> list[Row]:
        await self.pin_space()
        return await self._read(name, params, namespace=namespace)

    async def write(self, name: str, params: Mapping[str, Any], *, namespace: str) -> list[Row]:
        """A write statement in a namespace, its schema created first if needed."""
        await self.pin_space()
        await self._prepare_namespace(namespace)
        return await self._write(name, params, namespace=namespace)

    def similarity(self, raw_score: float) -> float:
        return self._similarity(raw_score)

    async def searchable(self, namespace: str) -> bool:
        await self.pin_space()
        return await self._namespace_searchable(namespace)

    async def search_readiness(self, namespace: str) -> tuple[bool, bool]:
        await self.pin_space()
        return await self._search_readiness(namespace)

    async def _prepare_namespace(self, namespace: str) -> None:
        """Before every write to a namespace: its schema in the request's vector space,
        created once per process."""
        key = (namespace, current_slot())
        if key in self._prepared_namespaces:
            return
        if self._spaces is not None and self._spaces.space(key[1]) is None:
            return  # a retired space's indexes are being dropped: never created again
        lock = self._namespace_locks.setdefault(namespace, asyncio.Lock())
        async with lock:
            if key not in self._prepared_namespaces:
                if key[1] not in self._prepared_spaces:  # a space new to this process
                    await self._create_schema(self.embedding_dimension)
                    self._prepared_spaces.add(key[1])
                await self._create_namespace_schema(namespace)
                self._prepared_namespaces.add(key)

    async def _namespace_searchable(self, namespace: str) -> bool:
        """False when the namespace has no vector index yet (it was never written to)."""
        del namespace
        return True

    async def _search_readiness(self, namespace: str) -> tuple[bool, bool]:
        """By words, by meaning: both False until the namespace is written to."""
        searchable = await self._namespace_searchable(namespace)
        return searchable, searchable

    @abc.abstractmethod
    def _engine_similarity(self, raw_score: float) -> float:
        """Convert the engine's vector score to cosine similarity."""

    def _similarity(self, raw_score: float) -> float:
        # float32 vectors put identical texts a hair outside [-1, 1]; clamp once, here.
        return max(-1.0, min(1.0, self._engine_similarity(raw_score)))

    async def _upgrade_layout(self, stored_version: int) -> None:
        """Bring a store built with an older (upgradable) layout up to this one, in place;
        idempotent, as a crash may repeat it. Nothing to do unless an engine says so."""
        del stored_version

    @abc.abstractmethod
    async def _create_schema(self, dimension: int) -> None:
        """Create the store-wide schema (catalog, shared indexes) idempotently."""

    @property
    def schema(self) -> SchemaState | None:
        """What the store was built with, once ``bootstrap`` ran."""
        return self._schema

    @property
    def embedding_dimension(self) -> int:
        """The dimension of the vectors of the request's space."""
        if self._schema is None:
            raise StoreError("the store is not bootstrapped yet")
        space = self._spaces.space(current_slot()) if self._spaces is not None else None
        if space is not None and space.dimension:
            return space.dimension
        return self._schema.embedding_dimension

    # --- vector spaces (app/ports/vector_slots.py, docs/reembedding.md) ---------------
    async def spaces(self, *, fresh: bool = False) -> VectorSpaces:
        """The vector-space record, read again once older than SPACES_FRESH_S (``fresh``:
        read now). Requests that find it stale together share one read: every request
        pins its slot here, and a read each would multiply under many agents."""
        loop = asyncio.get_running_loop()
        if fresh:
            return await self._read_spaces()
        if self._spaces is not None and loop.time() - self._spaces_read_at <= SPACES_FRESH_S:
            return self._spaces
        if self._spaces_reading is None or self._spaces_reading.done():
            self._spaces_reading = asyncio.create_task(self._read_spaces())
        # Shielded: a request that gives up must not cancel the others' read.
        return await asyncio.shield(self._spaces_reading)

    async def _read_spaces(self) -> VectorSpaces:
        started = asyncio.get_running_loop().time()
        rows = await self._read("reembedding.spaces", {}, namespace=None)
        found = VectorSpaces.from_row(rows[0] if rows else {})
        # A read that started before the kept one (a shared read overtaken by a fresh
        # one) answers its callers but does not replace the newer record.
        if started >= self._spaces_read_at:
            self._spaces, self._spaces_read_at = found, started
        return found

    async def pin_space(self) -> int:
        slot = pinned_slot()
        if slot is None:
            slot = (await self.spaces()).active.slot
            pin(slot)
        return slot

    async def begin_space(self, space: VectorSpace) -> bool:
        rows = await self._write(
            "reembedding.begin",
            {
                "slot": space.slot,
                "embedder": space.embedder,
                "dimension": space.dimension,
                "settings": settings_text(space.settings or {}),
                "now": now_ms(),
            },
            namespace=None,
        )
        await self.spaces(fresh=True)
        return bool(rows)

    async def prepare_space(self, namespace: str, slot: int, dimension: int) -> None:
        with pinned(slot):
            if (namespace, slot) in self._prepared_namespaces:
                return
            if slot not in self._prepared_spaces:
                await self._create_schema(dimension)
                self._prepared_spaces.add(slot)
            await self._create_namespace_schema(namespace)
            self._prepared_namespaces.add((namespace, slot))

    async def switch_space(self, slot: int) -> bool:
        rows = await self._write(
            "reembedding.switch", {"slot": slot, "now": now_ms()}, namespace=None
        )
        await self.spaces(fresh=True)
        return bool(rows)

    async def drop_space(self, namespace: str, slot: int) -> None:
        with pinned(slot):
            await self._drop_space_schema(namespace)
            self._prepared_namespaces.discard((namespace, slot))
            self._prepared_spaces.discard(slot)

    async def forget_retired(self, slot: int) -> None:
        await self._write("reembedding.retired", {"slot": slot}, namespace=None)
        await self.spaces(fresh=True)

    @abc.abstractmethod
    async def _drop_space_schema(self, namespace: str) -> None:
        """Drop the pinned slot's vector indexes of ``namespace`` and the store-wide ones
        (idempotent: a resumed drop meets indexes already gone)."""

    @abc.abstractmethod
    async def namespaces(self) -> list[str]:
        """Every namespace written to, sorted (scheduled maintenance visits each)."""

    @abc.abstractmethod
    async def _ping(self) -> str: ...

    @abc.abstractmethod
    async def close(self) -> None: ...

    @abc.abstractmethod
    def describe(self) -> dict[str, str]: ...

    # --- schema ------------------------------------------------------------------------
    async def bootstrap(self, *, embedding_dimension: int, embedder: str) -> SchemaState:
        """Check the store was built for ``embedder`` (its active space's) and create what
        its schema lacks, in the active space."""
        active = (await self.spaces()).active.slot  # read at most a second ago, or now
        with pinned(active):
            return await self._bootstrap(embedding_dimension, embedder)

    async def _bootstrap(self, embedding_dimension: int, embedder: str) -> SchemaState:
        rows = await self._read("schema.meta_read", {}, namespace=None)
        existing = rows[0] if rows else {}
        built_with = existing.get("embeddingDimension")
        layout = existing.get("schemaVersion")
        if layout is not None and int(layout) < UPGRADABLE_FROM:
            raise SchemaMismatchError(
                f"this store was built with schema version {layout}, which kept every "
                f"namespace in one vector index; this release ({SCHEMA_VERSION}) gives each "
                "namespace its own and cannot read the old layout: start with a new data "
                "dir/database",
                stored_schema_version=int(layout),
                schema_version=SCHEMA_VERSION,
            )
        stored_embedder = str(existing.get("embedder") or "")
        if is_text_only(stored_embedder) and not is_text_only(embedder):
            raise SchemaMismatchError(
                f"this store was built without an embedder ({stored_embedder}): its vectors "
                f"are placeholders, which {embedder} cannot search; keep TG_EMBEDDER=none and "
                "give it vectors with `thoughtgraph reembed` (the service keeps serving), or "
                "export it and import it into a new data dir/database with the embedder",
                stored_embedder=stored_embedder,
                embedder=embedder,
            )
        if built_with is not None and int(built_with) != embedding_dimension:
            raise SchemaMismatchError(
                f"this store was built for {built_with}-dimensional embeddings "
                f"({existing.get('embedder')}), but the configured embedder produces "
                f"{embedding_dimension}; use the same embedder or a new data dir/database",
                stored_dimension=int(built_with),
                embedder_dimension=embedding_dimension,
            )
        await self._create_schema(embedding_dimension)
        self._prepared_spaces.add(current_slot())
        row = (
            await self._write(
                "schema.meta_write",
                {
                    "dimension": embedding_dimension,
                    "embedder": embedder,
                    "schemaVersion": SCHEMA_VERSION,
                    "now": now_ms(),
                },
                namespace=None,
            )
        )[0]
        self._schema = SchemaState(
            engine=self.engine,
            embedding_dimension=int(row["embeddingDimension"]),
            embedder=str(row["embedder"]),
            created_now=bool(row["createdNow"]),
        )
        if layout is not None and int(layout) < SCHEMA_VERSION:
            await self._upgrade_layout(int(layout))
            await self._write(
                "schema.meta_version", {"schemaVersion": SCHEMA_VERSION}, namespace=None
            )
        await self.spaces(fresh=True)  # the record exists now
        return self._schema

    async def health(self) -> StoreHealth:
        """Whether the engine answers, is ready to serve (schema built, every index
        usable) and accepts writes; never raises."""
        base = {"engine": self.engine}
        try:
            detail = await asyncio.wait_for(self._ping(), HEALTH_PING_S)
        except TimeoutError:
            reason = f"the engine did not answer within {HEALTH_PING_S:g} s: it is busy"
            return StoreHealth(**base, ok=True, reason=reason, detail="ping timed out")
        except Exception as exc:  # health must report, never raise
            return StoreHealth(
                **base, ok=False, reason="the engine does not answer", detail=str(exc)
            )
        if self._schema is None:
            return StoreHealth(**base, ok=True, reason="the schema is not built yet", detail=detail)
        try:
            pending = await self._indexes_not_ready()
        except Exception as exc:
            return StoreHealth(
                **base, ok=True, reason="the indexes cannot be checked", detail=f"{detail}; {exc}"
            )
        if pending:
            reason = f"{len(pending)} index(es) are being built"
            return StoreHealth(**base, ok=True, reason=reason, detail=f"{detail}; {pending}")
        refusal = self._write_refusal()
        return StoreHealth(
            **base,
            ok=True,
            ready=True,
            writable=refusal is None,
            reason=refusal,
            degraded=self._degraded(),
            detail=detail,
        )

    async def _indexes_not_ready(self) -> list[str]:
        """Indexes that exist but cannot answer yet (being built or rebuilt)."""
        return []

    def _write_refusal(self) -> str | None:
        """Why writes are refused right now, if they are."""
        return None

    def _degraded(self) -> str | None:
        """What the store serves in a lesser way right now, if anything."""
        return None
