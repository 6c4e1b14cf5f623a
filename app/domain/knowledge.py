"""Nodes the service maintains around thoughts: topics, contradictions, episodes, and the
runs that keep them current."""

from __future__ import annotations

import hashlib
import uuid
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from thoughtgraph.domain.scopes import DEFAULT_SCOPE, Scope, Viewer


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


def stable_id(prefix: str, *parts: str) -> str:
    """A deterministic id: a retried job MERGEs onto what its first attempt wrote."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]
    return f"{prefix}-{digest}"


def stable_thought_id(*parts: str) -> str:
    """A deterministic thought id, shaped like every other thought id (a UUID)."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]
    return str(uuid.UUID(hex=digest))


def new_run_id() -> str:
    return f"run-{uuid.uuid4()}"


def pair_fingerprint(namespace: str, first_id: str, second_id: str) -> str:
    """One id per unordered pair of thoughts."""
    low, high = sorted((first_id, second_id))
    return stable_id("pair", namespace, low, high)


class Topic(_Frozen):
    id: str
    namespace: str
    name: str
    summary: str | None = None
    thought_count: int = 0
    unsummarised_count: int = 0
    created_at_ms: int
    updated_at_ms: int
    summarised_at_ms: int | None = None


class ContradictionStatus(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"


class Resolution(StrEnum):
    A_WINS = "a_wins"
    B_WINS = "b_wins"
    BOTH_VALID = "both_valid"
    MERGED = "merged"


class Contradiction(_Frozen):
    """Two thoughts that cannot both be current. ``a`` is the older, ``b`` the newer."""

    id: str
    namespace: str
    thought_a_id: str
    thought_b_id: str
    status: ContradictionStatus
    relation: str  # update | conflict: what the judge saw
    detected_at_ms: int
    detector: str  # "rules" or the model name
    confidence: float
    explanation: str
    resolution: Resolution | None = None
    note: str | None = None
    resolved_by: str | None = None
    resolved_at_ms: int | None = None
    merged_thought_id: str | None = None


class Artifact(_Frozen):
    kind: str  # commit | pr | adr | file
    ref: str


class Episode(_Frozen):
    id: str
    namespace: str
    title: str
    narrative: str
    summary: str
    compressed: str  # one line
    index_label: str
    artifacts: tuple[Artifact, ...] = ()
    thought_ids: tuple[str, ...] = ()
    created_at_ms: int
    extractor: str  # "offline" or the model name
    scope: Scope = DEFAULT_SCOPE  # its thoughts' scope: a private episode is one user's
    owner_id: str | None = None

    def seen_by(self, viewer: Viewer) -> bool:
        return viewer.sees(self.scope, self.owner_id)


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class RunCounts(_Frozen):
    candidates: int = 0
    deduped: int = 0
    assigned: int = 0
    summarised: int = 0
    superseded: int = 0
    forgotten: int = 0
    purged: int = 0
    contradictions_found: int = 0
    links: int = 0
    pairs_judged: int = 0


class RunUsage(_Frozen):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class ConsolidationRun(_Frozen):
    id: str
    namespace: str
    status: RunStatus
    dry_run: bool
    trigger: str  # api | schedule | cli
    requested_at_ms: int
    started_at_ms: int | None = None
    finished_at_ms: int | None = None
    attempts: int = 0
    counts: RunCounts = Field(default_factory=RunCounts)
    usage: RunUsage = Field(default_factory=RunUsage)
    error: str | None = None

    @property
    def duration_ms(self) -> int | None:
        if self.started_at_ms is None or self.finished_at_ms is None:
            return None
        return self.finished_at_ms - self.started_at_ms


class RelatedThought(_Frozen):
    thought_id: str
    strength: float
