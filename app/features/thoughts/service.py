"""Contributing thoughts: originals, refinements and consolidations, with guidance toward
the nearest existing thought and the change event each write appends."""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.consent import ConsentRequest
from thoughtgraph.domain.errors import (
    InvalidInputError,
    MutualExclusionError,
    StoreError,
    ThoughtgraphError,
    ThoughtNotFoundError,
)
from thoughtgraph.domain.models import (
    CHANGE_FOR_TYPE,
    Contribution,
    Thought,
    ThoughtRecord,
    ThoughtType,
    TimeView,
    new_thought_id,
)
from thoughtgraph.domain.ops import OpsNode, acting_as
from thoughtgraph.domain.rules import inherited_pheromone
from thoughtgraph.domain.scopes import ScopePolicy, Viewer
from thoughtgraph.features.access import (
    Action,
    Principal,
    check_access,
    seen,
    viewer_of,
    written_as,
)
from thoughtgraph.features.consent.gate import FieldChanges
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.after_write import AfterWrite
from thoughtgraph.features.thoughts.batch import write_batch
from thoughtgraph.features.thoughts.guidance import beside_write, guidance_for
from thoughtgraph.features.thoughts.inputs import (
    BatchWrite,
    ThoughtInput,
    ValidatedInput,
    new_thought,
    validate_input,
)
from thoughtgraph.ports.clock import Clock, SystemClock
from thoughtgraph.ports.jobs import JobQueue, NoJobQueue
from thoughtgraph.ports.services import Embeddings

log = structlog.get_logger(__name__)

# Originals one contributeMany call may carry; the CLI import writes batches this size too.
MAX_BATCH = 100


class ThoughtService:
    def __init__(
        self,
        repos: Repositories,
        embedder: Embeddings,
        *,
        clock: Clock | None = None,
        queue: JobQueue | None = None,
        after_write: AfterWrite | None = None,
        scopes: ScopePolicy | None = None,
        fields: FieldChanges,
        extract_min_chars: int | None = None,
    ) -> None:
        self._repos = repos
        self.scopes = scopes or ScopePolicy()  # each namespace's default scope
        self._embedder = embedder
        self._clock = clock or SystemClock()
        self._fields = fields  # the one gate of changes to person fields
        self._queue = queue or NoJobQueue()
        # What follows each single write; shared with the other features that write a
        # thought (procedures), so that they do the same after it.
        self.after_write = after_write or AfterWrite()
        self._extract_min_chars = extract_min_chars  # None: no model, no extraction

    async def contribute(
        self,
        data: ThoughtInput,
        *,
        refines: str | None = None,
        consolidates: Sequence[str] | None = None,
        reason: str | None = None,
        extract: bool = False,
        caller: Principal | None = None,
    ) -> Contribution:
        """Store an original, or route to refine/consolidate when their ids are given.
        ``extract``: also split a long original into facts, in the background."""
        check_access(caller, Action.WRITE, data.namespace)
        data = self._written_as(caller, data)
        if refines is not None and consolidates is not None:
            raise MutualExclusionError(
                "give either refines or consolidates, not both", field="refines"
            )
        viewer = viewer_of(caller)
        if refines is not None:
            return await self._derive(
                ThoughtType.REFINEMENT, data, [refines], reason, field="refines", viewer=viewer
            )
        if consolidates is not None:
            return await self._derive(
                ThoughtType.CONSOLIDATION,
                data,
                consolidates,
                reason,
                field="consolidates",
                viewer=viewer,
            )
        validated = validate_input(data, reason)
        held = await self._fields.held(validated, user=caller.user if caller else None)
        if held is not None:
            return self._held(validated, held)
        written = await self._write(ThoughtType.ORIGINAL, validated, (), viewer=viewer)
        return await self._extract_later(written) if extract else written

    async def _extract_later(self, written: Contribution) -> Contribution:
        """Queue the fact extraction of a written original (features/extraction): never
        fails the write, which is stored as it is whatever happens to the extraction."""
        thought = written.thought
        if self._extract_min_chars is None or len(thought.content) < self._extract_min_chars:
            return written
        try:
            queued = await self._queue.enqueue_extraction(thought.namespace, thought.id)
        except ThoughtgraphError as exc:
            log.warning("extraction.not_queued", id=thought.id, error=exc.message)
            queued = False
        return written.model_copy(update={"extraction_queued": queued})

    def _written_as(self, caller: Principal | None, data: ThoughtInput) -> ThoughtInput:
        """The input as the caller writes it: agent, scope and owner from the key, and the
        person a person field is about."""
        data = written_as(caller, data, self.scopes)
        return self._fields.with_person(data, caller.user if caller is not None else None)

    def _held(self, data: ValidatedInput, request: ConsentRequest) -> Contribution:
        """A contribution held for consent: the thought it will be, not written."""
        thought = new_thought(data, ThoughtType.ORIGINAL, request.thought_id, self._clock.now_ms())
        return Contribution(thought=thought, consent_request=request)

    async def refine(
        self,
        data: ThoughtInput,
        source_id: str,
        *,
        reason: str | None = None,
        caller: Principal | None = None,
    ) -> Contribution:
        check_access(caller, Action.WRITE, data.namespace)
        data = self._written_as(caller, data)
        return await self._derive(
            ThoughtType.REFINEMENT,
            data,
            [source_id],
            reason,
            field="sourceId",
            viewer=viewer_of(caller),
        )

    async def consolidate(
        self,
        data: ThoughtInput,
        source_ids: Sequence[str],
        *,
        reason: str | None = None,
        caller: Principal | None = None,
    ) -> Contribution:
        check_access(caller, Action.WRITE, data.namespace)
        data = self._written_as(caller, data)
        return await self._derive(
            ThoughtType.CONSOLIDATION,
            data,
            source_ids,
            reason,
            field="sourceIds",
            viewer=viewer_of(caller),
        )

    async def _derive(
        self,
        kind: ThoughtType,
        data: ThoughtInput,
        source_ids: Sequence[str],
        reason: str | None,
        *,
        field: str,
        viewer: Viewer,
        thought_id: str | None = None,
    ) -> Contribution:
        """A refinement or consolidation; ``field`` names the ids in errors."""
        minimum = check.MIN_CONSOLIDATION_SOURCES if kind is ThoughtType.CONSOLIDATION else 1
        sources = check.require_source_ids(source_ids, minimum=minimum, field=field)
        return await self._write(
            kind, validate_input(data, reason), sources, viewer=viewer, thought_id=thought_id
        )

    async def write_derived(
        self,
        kind: ThoughtType,
        data: ThoughtInput,
        source_ids: Sequence[str],
        *,
        reason: str,
        thought_id: str,
    ) -> Contribution:
        """A refinement or consolidation with a deterministic id (maintenance retries
        find what their first attempt wrote)."""
        return await self._derive(
            kind,
            data,
            source_ids,
            reason,
            field="sourceIds",
            viewer=Viewer.everyone(),
            thought_id=thought_id,
        )

    async def write_original(
        self,
        data: ThoughtInput,
        *,
        thought_id: str,
        node: OpsNode = OpsNode.EPISODIC,
        taken_from: Sequence[str] = (),
    ) -> Contribution:
        """An original with a deterministic id (episodes; insights and extracted facts, as
        the worker). ``taken_from``: source ids without a lineage edge (they stay current)."""
        with acting_as(node):
            return await self._write(
                ThoughtType.ORIGINAL,
                validate_input(data, None),
                tuple(taken_from),
                viewer=Viewer.everyone(),
                thought_id=thought_id,
            )

    async def _write(
        self,
        kind: ThoughtType,
        data: ValidatedInput,
        source_ids: tuple[str, ...],
        *,
        viewer: Viewer,
        thought_id: str | None = None,
    ) -> Contribution:
        """Sources the writer cannot see are missing; guidance points only at thoughts
        it sees."""
        sources = await self._existing_sources(data.namespace, source_ids, viewer)
        self._fields.refuse_guarded(sources.values(), f"a {kind.value} of these thoughts")
        texts = [data.content] if data.reason is None else [data.content, data.reason]
        vectors = await self._embedder.async_embed_documents(texts)
        embedding = vectors[0]
        thought = new_thought(
            data,
            kind,
            thought_id or new_thought_id(),
            self._clock.now_ms(),
            source_ids=source_ids,
            pheromone_weight=inherited_pheromone(
                kind, [sources[sid].pheromone_weight for sid in source_ids]
            ),
            episode_id=data.episode_id,
        )
        record = ThoughtRecord(
            thought=thought,
            embedding=tuple(embedding),
            reason=data.reason,
            reason_embedding=tuple(vectors[1]) if data.reason is not None else None,
            actor_key_id=data.key_id,
        )
        change = CHANGE_FOR_TYPE[kind]
        guidance_read = None
        if kind is ThoughtType.ORIGINAL:
            view = TimeView(now_ms=self._clock.now_ms(), viewer=viewer)
            guidance_read = guidance_for(
                self._repos, data.namespace, embedding, view, new_id=thought.id
            )
        revision, guidance = await beside_write(
            self._repos.thoughts.create(
                record, event_id=f"{thought.id}:{change.value}", event_kind=change.value
            ),
            guidance_read,
        )
        stored_already = revision is None
        if revision is None:
            revision = await self._after_unwritten(thought)
        self.after_write.written(
            thought,
            revision=revision,
            stored_already=stored_already,
            similarity=guidance.similarity if guidance is not None else None,
        )
        return Contribution(
            thought=thought.model_copy(update={"revision": revision}),
            guidance=guidance,
        )

    async def _existing_sources(
        self, namespace: str, source_ids: tuple[str, ...], viewer: Viewer
    ) -> dict[str, Thought]:
        stored = await self._repos.thoughts.get_many(namespace, source_ids)
        found = seen(stored, viewer)
        missing = [sid for sid in source_ids if sid not in found]
        if missing:
            raise ThoughtNotFoundError(missing)
        return found

    async def _after_unwritten(self, thought: Thought) -> int:
        """The guarded create wrote nothing: a retry that already landed, or a lost source."""
        stored = await self._repos.thoughts.get_many(thought.namespace, [thought.id])
        if thought.id in stored:
            return stored[thought.id].revision
        await self._existing_sources(thought.namespace, thought.source_ids, Viewer.everyone())
        raise StoreError("the thought was not written; nothing was changed")

    # --- batches -----------------------------------------------------------------------
    async def contribute_many(
        self,
        items: Sequence[ThoughtInput],
        *,
        thought_ids: Sequence[str] | None = None,
        limit: int = MAX_BATCH,
        caller: Principal | None = None,
    ) -> BatchWrite:
        """Store many originals: every item is validated before anything is written (one
        bad item writes nothing), all are embedded in one batch call and written with one
        statement per namespace. ``thought_ids`` (deterministic ids, e.g. an import's) make
        a retried batch safe: an id already stored is not written again. Guidance is not
        computed (a search per item would cost more than the batch's write); RELATED_TO
        edges, topics and contradictions come from the scan, queued as after a contribute.
        """
        for namespace in dict.fromkeys(item.namespace for item in items):
            check_access(caller, Action.WRITE, namespace)
        items = [self._written_as(caller, item) for item in items]
        if not items:
            raise InvalidInputError("give at least one thought", field="inputs")
        if len(items) > limit:
            raise InvalidInputError(
                f"at most {limit} thoughts per call, {len(items)} given", field="inputs"
            )
        if thought_ids is not None and len(thought_ids) != len(items):
            raise InvalidInputError("one id per thought", field="ids")
        validated = [validate_input(item, None) for item in items]
        ids = list(thought_ids) if thought_ids is not None else [new_thought_id() for _ in items]
        if len(set(ids)) != len(ids):
            raise InvalidInputError("the same id twice in one batch", field="ids")
        user = caller.user if caller is not None else None
        held = dict(zip(ids, await self._fields.held_many(validated, user=user), strict=True))
        kept = [(v, tid) for v, tid in zip(validated, ids, strict=True) if held[tid] is None]
        vectors = await self._embedder.async_embed_documents([v.content for v, _ in kept])
        now = self._clock.now_ms()
        records = [
            ThoughtRecord(
                thought=new_thought(v, ThoughtType.ORIGINAL, tid, now),
                embedding=tuple(vector),
                actor_key_id=v.key_id,
            )
            for (v, tid), vector in zip(kept, vectors, strict=True)
        ]
        written = await write_batch(
            self._repos, records, events=self.after_write.events, queue=self.after_write.scans
        )
        by_id = {c.thought.id: c for c in written.contributions}
        contributions = [
            by_id[tid] if (request := held[tid]) is None else self._held(v, request)
            for v, tid in zip(validated, ids, strict=True)
        ]
        return BatchWrite(contributions=contributions, written=written.written)

    # --- reads -------------------------------------------------------------------------
    async def get(
        self, namespace: str, thought_id: str, *, caller: Principal | None = None
    ) -> Thought | None:
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("id", thought_id)
        found = (await self._repos.thoughts.get_many(namespace, [tid])).get(tid)
        return found if found is not None and found.seen_by(viewer_of(caller)) else None


__all__ = ["MAX_BATCH", "BatchWrite", "ThoughtInput", "ThoughtService"]
