"""The change log: every write to any node type appends one event naming its subject."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class SubjectKind(StrEnum):
    THOUGHT = "thought"
    TOPIC = "topic"
    CONTRADICTION = "contradiction"
    EPISODE = "episode"
    CONSOLIDATION_RUN = "consolidation_run"
    MERGE_PROPOSAL = "merge_proposal"
    CONSENT_REQUEST = "consent_request"
    CHECKPOINT = "checkpoint"


class ChangeKind(StrEnum):
    CREATED = "created"
    REFINED = "refined"
    CONSOLIDATED = "consolidated"
    SUPERSEDED = "superseded"
    CONTRADICTION_DETECTED = "contradiction_detected"
    CONTRADICTION_RESOLVED = "contradiction_resolved"
    MERGED = "merged"
    UNMERGED = "unmerged"
    LINKED = "linked"
    TOPIC_CREATED = "topic_created"
    ASSIGNED = "assigned"
    SUMMARISED = "summarised"
    EPISODE_INGESTED = "episode_ingested"
    SOFT_DELETED = "soft_deleted"
    RESTORED = "restored"
    PURGED = "purged"
    PINNED = "pinned"
    UNPINNED = "unpinned"
    MERGE_PROPOSED = "merge_proposed"
    MERGE_DECIDED = "merge_decided"
    CONSENT_REQUESTED = "consent_requested"
    CONSENT_DECIDED = "consent_decided"
    CHECKPOINT_SAVED = "checkpoint_saved"
    CHECKPOINTS_DELETED = "checkpoints_deleted"


class Actor(BaseModel):
    """Who made a change: an agent through the API, or the service's own maintenance."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    key_id: str | None = None

    @classmethod
    def maintenance(cls, detector: str = "maintenance") -> Actor:
        return cls(id="thoughtgraph", name=detector)


class ChangeEvent(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    revision: int
    kind: ChangeKind
    subject_kind: SubjectKind
    subject_id: str
    source_ids: tuple[str, ...]  # the other subjects the change involved
    actor_id: str
    actor_name: str
    at_ms: int
    actor_key_id: str | None = None

    @property
    def thought_id(self) -> str | None:
        return self.subject_id if self.subject_kind is SubjectKind.THOUGHT else None
