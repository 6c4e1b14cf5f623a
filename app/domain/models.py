"""Pydantic models of the thought graph: what services accept and what stores return."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

# Re-exported: the change log lives in changes.py.
from thoughtgraph.domain.changes import ChangeEvent as ChangeEvent
from thoughtgraph.domain.changes import ChangeKind as ChangeKind
from thoughtgraph.domain.consent import ConsentRequest
from thoughtgraph.domain.scopes import DEFAULT_SCOPE, Partition, Scope, Viewer, partition

DEFAULT_NAMESPACE = "default"
PREVIEW_CHARS = 80


class ThoughtType(StrEnum):
    ORIGINAL = "original"
    REFINEMENT = "refinement"
    CONSOLIDATION = "consolidation"


class ThoughtKind(StrEnum):
    """What a thought is about."""

    FACT = "fact"
    DECISION = "decision"
    PREFERENCE = "preference"
    TASK = "task"
    RISK = "risk"
    CODE_REF = "code_ref"
    INSIGHT = "insight"
    PROCEDURE = "procedure"
    WORKFLOW = "workflow"  # ordered steps with a trigger and a hint (domain/procedures.py)
    CODE_PATTERN = "code_pattern"  # a repeated code structure: trigger, template, hint, files
    EPISODE_NOTE = "episode_note"


class ThoughtState(StrEnum):
    ACTIVE = "active"
    SOFT_DELETED = "soft_deleted"  # forgotten: restorable until purgeAt


class LineageRelation(StrEnum):
    """Edge types from a newer thought to each of its sources."""

    REFINES = "REFINES"
    CONSOLIDATES = "CONSOLIDATES"
    SUPERSEDES = "SUPERSEDES"  # a newer thought retiring an older one (not lineage walks)


RELATION_FOR_TYPE: dict[ThoughtType, LineageRelation] = {
    ThoughtType.REFINEMENT: LineageRelation.REFINES,
    ThoughtType.CONSOLIDATION: LineageRelation.CONSOLIDATES,
}

CHANGE_FOR_TYPE: dict[ThoughtType, ChangeKind] = {
    ThoughtType.ORIGINAL: ChangeKind.CREATED,
    ThoughtType.REFINEMENT: ChangeKind.REFINED,
    ThoughtType.CONSOLIDATION: ChangeKind.CONSOLIDATED,
}


def new_thought_id() -> str:
    return str(uuid.uuid4())


def now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def ms_to_datetime(epoch_ms: int) -> datetime:
    return datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class Thought(_Frozen):
    id: str
    namespace: str
    type: ThoughtType
    content: str
    agent_id: str
    agent_name: str
    context: str | None = None
    session_id: str | None = None
    tags: tuple[str, ...] = ()
    pheromone_weight: float
    created_at_ms: int
    source_ids: tuple[str, ...] = ()
    revision: int = 0  # the namespace revision that created it: strictly increasing
    kind: ThoughtKind = ThoughtKind.FACT
    salience: float = 0.5  # 0..1: how much it matters for future work
    importance: int = 3  # 1..5: forgetting spares what is important
    pinned: bool = False  # never forgotten
    category: str | None = None
    last_accessed_at_ms: int | None = None
    access_count: int = 0
    cite_count: int = 0  # times an agent said it influenced an action (cite)
    ignore_count: int = 0  # times an agent said it was retrieved but not used (ignore)
    last_cited_at_ms: int | None = None
    state: ThoughtState = ThoughtState.ACTIVE
    purge_at_ms: int | None = None
    # World time: when it was true. Service time: created_at_ms (learned) and
    # superseded_at_ms (retired by a newer thought).
    valid_from_ms: int | None = None  # None: since created_at_ms
    valid_to_ms: int | None = None  # None: still true
    superseded_at_ms: int | None = None
    superseded_by: str | None = None
    episode_id: str | None = None
    topic_id: str | None = None
    scope: Scope = DEFAULT_SCOPE
    owner_id: str | None = None  # the user a private thought belongs to
    about: str | None = None  # the person a person field is about (thoughtgraph.domain.consent)

    @property
    def partition(self) -> Partition:
        return partition(self.scope, self.owner_id)

    def seen_by(self, viewer: Viewer) -> bool:
        return viewer.sees(self.scope, self.owner_id)

    @property
    def preview(self) -> str:
        return self.content[:PREVIEW_CHARS]

    @property
    def effective_valid_from_ms(self) -> int:
        return self.valid_from_ms if self.valid_from_ms is not None else self.created_at_ms

    @property
    def is_current(self) -> bool:
        """Active and not superseded: what a caller asking for current knowledge gets."""
        return self.state is ThoughtState.ACTIVE and self.superseded_at_ms is None


class ThoughtRecord(_Frozen):
    """Everything a store needs to write one new thought atomically with its edges and event."""

    thought: Thought
    embedding: tuple[float, ...]
    reason: str | None = None
    reason_embedding: tuple[float, ...] | None = None
    actor_key_id: str | None = None  # the API key that wrote it (None: open local mode)


class ScoredThought(_Frozen):
    """A vector or full-text hit: similarity is cosine in [-1, 1] whatever the engine."""

    thought: Thought
    similarity: float


class SearchHit(_Frozen):
    thought: Thought
    similarity: float  # raw cosine similarity from the index
    score: float  # after lineage adjustment
    refined_by: str | None = None
    superseded: bool = False  # refined, consolidated, or superseded by a newer thought
    superseded_by: str | None = None  # the thought that SUPERSEDES it, if one does


class Guidance(_Frozen):
    similar_thought_id: str
    similarity: float
    message: str


class Contribution(_Frozen):
    thought: Thought
    guidance: Guidance | None = None
    # Set when the write would change a field about a person: the thought is not written
    # (``thought`` is what it will be once the request is approved or corroborated).
    consent_request: ConsentRequest | None = None
    # A contribution written with extract: true whose fact extraction was queued.
    extraction_queued: bool = False

    @property
    def revision(self) -> int:
        """The namespace revision of this write."""
        return self.thought.revision


class LineageNode(_Frozen):
    thought_id: str
    type: ThoughtType
    content_preview: str
    contributor: str
    agent_id: str
    created_at_ms: int
    source_ids: tuple[str, ...]
    depth: int  # sources negative, refinements positive, the queried thought 0


class LineageWalk(_Frozen):
    """Signed distances from one thought (sources negative, refinements positive), found
    breadth-first; ``truncated`` when lineage goes on past the depth or the node budget."""

    depths: dict[str, int]
    truncated: bool


class Lineage(_Frozen):
    thought_id: str
    chain: tuple[LineageNode, ...]
    truncated: bool


class LineageEdgeHit(_Frozen):
    """A REFINES or CONSOLIDATES edge found by the meaning of its reason."""

    from_id: str  # the newer thought
    to_id: str  # the source it refines or consolidates
    relation: LineageRelation
    reason: str
    created_at_ms: int
    similarity: float


class TimeView(_Frozen):
    """Which thoughts a read sees. The default: active and valid now (superseded ones
    included, marked). ``valid_at``: what was true in the world then; ``known_at``: what
    the service knew then (created before, not yet superseded)."""

    now_ms: int
    valid_at_ms: int | None = None
    known_at_ms: int | None = None
    current_only: bool = False  # leave superseded thoughts out
    include_forgotten: bool = False  # soft-deleted ones too (restore, audit)
    viewer: Viewer = Viewer()  # whose private thoughts it sees (default: nobody's)


class ThoughtFilter(_Frozen):
    type: ThoughtType | None = None
    tag: str | None = None
    agent_id: str | None = None
    kind: ThoughtKind | None = None
    topic_id: str | None = None


class PageCursor(_Frozen):
    """Keyset position: thoughts are listed newest first, ties broken by id."""

    created_at_ms: int
    thought_id: str


class ThoughtPage(_Frozen):
    thoughts: tuple[Thought, ...]
    has_next_page: bool


class SchemaState(_Frozen):
    engine: str
    embedding_dimension: int
    embedder: str
    created_now: bool


class StoreHealth(_Frozen):
    engine: str
    ok: bool  # the engine answers
    ready: bool = False  # it answers, the schema is built and every index is usable
    writable: bool = False  # ready, and writes are accepted (the disk has room)
    reason: str | None = None  # why it is not ready or not writable (no paths, no pids)
    degraded: str | None = None  # ready, but serving something in a lesser way, and what
    detail: str = ""  # where it runs: for logs and operators, never for clients
