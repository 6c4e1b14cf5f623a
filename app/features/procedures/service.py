"""Procedural memory: recording workflows and code patterns, extracting code patterns from
a code base, and reading them back (thoughtgraph.domain.procedures for the rules).

Each is a thought of its own kind, written with its structure and change event in one
statement (cypher/procedures/create), then followed by what follows every thought write
(features/thoughts/after_write: the scan of the new thought, the log line, the operational
event). Lineage is a thought's: a workflow or pattern refines one of its own kind
(``refines``); superseding goes through the supersession service like any thought's.
Procedural thoughts are filed under the ``procedural`` category unless the caller names
another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace

import structlog

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.allowlist import AllowlistPolicy
from thoughtgraph.domain.code_shapes import group_shapes
from thoughtgraph.domain.errors import (
    InvalidInputError,
    NotFoundError,
    StoreError,
    ThoughtNotFoundError,
)
from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.domain.models import CHANGE_FOR_TYPE, ThoughtKind, TimeView, new_thought_id
from thoughtgraph.domain.procedures import (
    PROCEDURAL_CATEGORY,
    STRUCTURED_KINDS,
    LLMNotConfiguredError,
    NoWorkflowFoundError,
    Procedure,
    ProcedureSpec,
    TemplateSlot,
    WorkflowStep,
    pattern_spec,
    workflow_spec,
)
from thoughtgraph.domain.scopes import ScopePolicy, Viewer
from thoughtgraph.features.access import Action, Principal, check_access, viewer_of, written_as
from thoughtgraph.features.procedures.drafts import Draft, Vectors, embed_drafts
from thoughtgraph.features.procedures.extraction import SourceFile, read_shapes
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.thoughts.after_write import AfterWrite
from thoughtgraph.features.thoughts.inputs import ThoughtInput, validate_input
from thoughtgraph.llm.client import LLMClient
from thoughtgraph.llm.prompts import workflow_steps
from thoughtgraph.ports.clock import Clock, SystemClock
from thoughtgraph.ports.services import Embeddings

log = structlog.get_logger(__name__)

DEFAULT_LIST = 20
MAX_LIST = 100
MAX_PATTERNS = 50  # patterns one extraction stores and returns (the most places first)


@dataclass(frozen=True)
class Authoring:
    """Who writes a procedure and how it is filed (as a contribution's input)."""

    namespace: str
    agent_id: str
    agent_name: str
    tags: Sequence[str] = ()
    importance: int = 3
    category: str | None = None  # None: "procedural"
    reason: str | None = None  # why it refines its source
    context: str | None = None  # where it came from (the episode a workflow was read from)


@dataclass(frozen=True)
class Extraction:
    """What one extractPatterns call found: the patterns (new or stored already) and
    how much code it read."""

    patterns: list[Procedure]
    created: int
    files: int
    functions: int


class ProcedureService:
    def __init__(
        self,
        repos: Repositories,
        embedder: Embeddings,
        *,
        scopes: ScopePolicy,
        after_write: AfterWrite,
        clock: Clock | None = None,
        llm: LLMClient | None = None,
        llm_calls: int | None = None,
        allowlist: AllowlistPolicy | None = None,
    ) -> None:
        # Reads return only the categories the key's agent may read (TG_ALLOWLIST_FILE).
        self._allowlist = allowlist or AllowlistPolicy.unrestricted()
        self._llm = llm  # None: offline, workflows are recorded explicitly only
        self._llm_calls = llm_calls  # per request (None: no budget)
        self._repos = repos
        self._embedder = embedder
        self._scopes = scopes
        self._clock = clock or SystemClock()
        self._after_write = after_write  # the thought service's: the same after every write

    # --- writes ------------------------------------------------------------------------
    async def record_workflow(
        self,
        author: Authoring,
        trigger: str,
        steps: Sequence[WorkflowStep],
        *,
        hint: str | None = None,
        refines: str | None = None,
        caller: Principal | None = None,
    ) -> Procedure:
        """A workflow; with ``refines``, a refinement of that workflow."""
        check_access(caller, Action.WRITE, author.namespace)
        spec = workflow_spec(trigger, steps, hint)
        return await self._record(author, spec, refines=refines, caller=caller)

    async def record_workflow_from_episode(
        self,
        author: Authoring,
        episode_id: str,
        *,
        trigger: str | None = None,
        hint: str | None = None,
        refines: str | None = None,
        caller: Principal | None = None,
    ) -> Procedure:
        """A workflow the language model reads off an episode: the stable sequence of
        actions as numbered imperative steps. Only on this explicit request, never as a
        side effect of ingesting; offline it is LLM_NOT_CONFIGURED, and an episode with
        no such sequence NO_WORKFLOW_FOUND, nothing written either way."""
        check_access(caller, Action.WRITE, author.namespace)
        check.require_namespace(author.namespace)
        if self._llm is None:
            raise LLMNotConfiguredError(
                "a workflow from an episode needs a language model (TG_LLM_MODEL);"
                " record its steps with recordWorkflow instead",
                field="episodeId",
            )
        eid = check.require_identifier("episodeId", episode_id)
        found = (await self._repos.episodes.get_many(author.namespace, [eid])).get(eid)
        if found is None or not found.seen_by(viewer_of(caller)):
            raise NotFoundError("episode", eid)
        usage = UsageMeter(max_calls=self._llm_calls, namespace=author.namespace)
        answer = await self._llm.complete(workflow_steps.PROMPT, usage, found.narrative)
        if not answer.steps:
            raise NoWorkflowFoundError(
                f"episode {eid} holds no stable sequence of actions", field="episodeId"
            )
        steps = [WorkflowStep(text=s.text, detail=s.detail) for s in answer.steps]
        spec = workflow_spec(trigger or answer.trigger, steps, hint)
        sourced = replace(author, context=author.context or f"from episode {eid}")
        return await self._record(sourced, spec, refines=refines, caller=caller)

    async def record_pattern(
        self,
        author: Authoring,
        trigger: str,
        template: Sequence[TemplateSlot],
        *,
        hint: str | None = None,
        files: Sequence[str] = (),
        refines: str | None = None,
        caller: Principal | None = None,
    ) -> Procedure:
        """A code pattern; with ``refines``, a refinement of that pattern."""
        check_access(caller, Action.WRITE, author.namespace)
        spec = pattern_spec(trigger, template, hint, files)
        return await self._record(author, spec, refines=refines, caller=caller)

    async def extract_patterns(
        self, author: Authoring, files: Sequence[SourceFile], *, caller: Principal | None = None
    ) -> Extraction:
        """Code patterns from the files: every repeated function shape (domain/code_shapes)
        stored as a pattern with its trigger, template, hint and files. Every file is
        checked and parsed before anything is written; a shape stored already (the same
        id: namespace and shape) is returned as stored."""
        check_access(caller, Action.WRITE, author.namespace)
        check.require_namespace(author.namespace)
        shapes = await asyncio.to_thread(read_shapes, files)
        groups = group_shapes(shapes)[:MAX_PATTERNS]
        specs = [
            pattern_spec(group.trigger, group.template, group.hint, group.files) for group in groups
        ]
        ids = [group.pattern_id(author.namespace) for group in groups]
        stored = await self._repos.procedures.get_many(author.namespace, ids)
        new = [(spec, pid) for spec, pid in zip(specs, ids, strict=True) if pid not in stored]
        drafts = [await self._draft(author, spec, refines=None, caller=caller) for spec, _ in new]
        # Every new pattern embedded in one call, then written one statement each.
        vectors = await embed_drafts(self._embedder, drafts)
        written = {
            pid: await self._write(draft, vector, pid)
            for draft, vector, (_, pid) in zip(drafts, vectors, new, strict=True)
        }
        patterns = [stored[pid] if pid in stored else written[pid] for pid in ids]
        created = len(written)
        log.info(
            "procedures.extracted",
            namespace=author.namespace,
            files=len(files),
            functions=len(shapes),
            patterns=len(patterns),
            created=created,
        )
        return Extraction(
            patterns=patterns, created=created, files=len(files), functions=len(shapes)
        )

    async def _record(
        self,
        author: Authoring,
        spec: ProcedureSpec,
        *,
        refines: str | None,
        caller: Principal | None,
    ) -> Procedure:
        draft = await self._draft(author, spec, refines=refines, caller=caller)
        (vectors,) = await embed_drafts(self._embedder, [draft])
        return await self._write(draft, vectors, new_thought_id())

    async def _draft(
        self,
        author: Authoring,
        spec: ProcedureSpec,
        *,
        refines: str | None,
        caller: Principal | None,
    ) -> Draft:
        """The procedure as the caller writes it (agent, scope and owner from the key),
        checked; with ``refines``, the source checked too. Nothing is written."""
        data = written_as(
            caller,
            ThoughtInput(
                content=spec.content,
                agent_id=author.agent_id,
                agent_name=author.agent_name,
                namespace=author.namespace,
                context=author.context,
                tags=author.tags,
                kind=spec.kind,
                importance=author.importance,
                category=author.category or PROCEDURAL_CATEGORY,
            ),
            self._scopes,
        )
        validated = validate_input(data, author.reason if refines is not None else None)
        if refines is None:
            return Draft(data=validated, spec=spec)
        source = await self._source(author.namespace, refines, spec.kind, viewer_of(caller))
        return Draft(data=validated, spec=spec, source=source)

    async def _write(self, draft: Draft, vectors: Vectors, thought_id: str) -> Procedure:
        """One statement: the thought with its structure, lineage edge and change event;
        then what follows every thought write (a retry's stored procedure is the answer)."""
        record = draft.record(vectors, thought_id, self._clock.now_ms())
        thought, kind = record.thought, record.thought.type
        change = CHANGE_FOR_TYPE[kind]
        revision = await self._repos.procedures.create(
            record, draft.spec, event_id=f"{thought.id}:{change.value}", event_kind=change.value
        )
        if revision is None:
            stored = await self._unwritten(thought.namespace, thought.id, thought.source_ids)
            self._after_write.written(
                thought, revision=stored.thought.revision, stored_already=True
            )
            return stored
        self._after_write.written(thought, revision=revision, stored_already=False)
        return Procedure(thought=thought.model_copy(update={"revision": revision}), spec=draft.spec)

    async def _source(
        self, namespace: str, source_id: str, kind: ThoughtKind, viewer: Viewer
    ) -> Procedure:
        """The procedure refined: one the caller sees, of the same kind."""
        tid = check.require_thought_id("refines", source_id)
        found = (await self._repos.procedures.get_many(namespace, [tid])).get(tid)
        if found is None or not found.thought.seen_by(viewer):
            plain = await self._repos.thoughts.get_many(namespace, [tid])
            if tid in plain and plain[tid].seen_by(viewer):
                raise InvalidInputError(
                    f"{tid} is a {plain[tid].kind.value}, not a {kind.value}", field="refines"
                )
            raise ThoughtNotFoundError([tid])
        if found.spec.kind is not kind:
            raise InvalidInputError(
                f"{tid} is a {found.spec.kind.value}, not a {kind.value}", field="refines"
            )
        return found

    async def _unwritten(
        self, namespace: str, thought_id: str, sources: tuple[str, ...]
    ) -> Procedure:
        """The guarded create wrote nothing: the id is stored already, or the source went."""
        stored = await self._repos.procedures.get_many(namespace, [thought_id])
        if thought_id in stored:
            return stored[thought_id]
        if sources and not await self._repos.thoughts.get_many(namespace, sources):
            raise ThoughtNotFoundError(list(sources))
        raise StoreError("the procedure was not written; nothing was changed")

    # --- reads -------------------------------------------------------------------------
    async def get(
        self, namespace: str, procedure_id: str, *, caller: Principal | None = None
    ) -> Procedure | None:
        """A workflow or pattern by id (superseded or refined ones too), None when there
        is none the caller sees."""
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("id", procedure_id)
        found = (await self._repos.procedures.get_many(namespace, [tid])).get(tid)
        return found if found is not None and self._readable(found, caller) else None

    async def listing(
        self,
        namespace: str,
        kind: ThoughtKind,
        *,
        first: int | None = None,
        include_retired: bool = False,
        caller: Principal | None = None,
    ) -> list[Procedure]:
        """The newest workflows or patterns; current ones only (not superseded, refined
        or forgotten) unless ``include_retired``."""
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        if kind not in STRUCTURED_KINDS:
            raise InvalidInputError("kind must be WORKFLOW or CODE_PATTERN", field="kind")
        limit = check.page_size("first", first, DEFAULT_LIST, MAX_LIST)
        view = TimeView(
            now_ms=self._clock.now_ms(),
            current_only=not include_retired,
            viewer=viewer_of(caller),
        )
        # What the caller may not read is left out by the read, before its limit.
        allowed = self._allowlist.categories_for(caller.agent if caller is not None else None)
        return await self._repos.procedures.newest(
            namespace, kind, view, limit=limit, include_retired=include_retired, categories=allowed
        )

    def _readable(self, found: Procedure, caller: Principal | None) -> bool:
        """Seen by the caller, and of a category its key's agent may read."""
        allowed = self._allowlist.categories_for(caller.agent if caller is not None else None)
        return found.thought.seen_by(viewer_of(caller)) and self._allowlist.allows(
            allowed, found.thought.category
        )
