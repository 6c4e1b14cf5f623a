"""Scalar projections, registered with the other macros in app/store/cypher.py: every
statement returns the same named columns for a node type (no driver object leaves an
adapter; embeddings never leave the store), written once here.
"""

from __future__ import annotations

from collections.abc import Callable

THOUGHT_FIELDS = (
    ("id", "id"),
    ("namespace", "namespace"),
    ("type", "type"),
    ("content", "content"),
    ("agentId", "agentId"),
    ("agentName", "agentName"),
    ("context", "context"),
    ("sessionId", "sessionId"),
    ("tags", "tags"),
    ("pheromoneWeight", "pheromoneWeight"),
    ("createdAt", "createdAt"),
    ("sourceIds", "sourceIds"),
    ("revision", "revision"),
    ("kind", "kind"),
    ("salience", "salience"),
    ("importance", "importance"),
    ("pinned", "pinned"),
    ("category", "category"),
    ("lastAccessedAt", "lastAccessedAt"),
    ("accessCount", "accessCount"),
    ("citeCount", "citeCount"),
    ("ignoreCount", "ignoreCount"),
    ("lastCitedAt", "lastCitedAt"),
    ("state", "state"),
    ("purgeAt", "purgeAt"),
    ("validFrom", "validFrom"),
    ("validTo", "validTo"),
    ("supersededAt", "supersededAt"),
    ("supersededBy", "supersededBy"),
    ("episodeId", "episodeId"),
    ("topicId", "topicId"),
    ("scope", "scope"),
    ("ownerId", "ownerId"),
    ("about", "about"),
)


# What ranking a search's candidates reads of each (app/domain/ranking/scoring.py,
# ``RankingThought``): a hybrid search ranks a few hundred candidates and returns k, so
# only its hits are read whole, afterwards.
RANKING_FIELDS = (
    "id",
    "content",
    "kind",
    "salience",
    "createdAt",
    "validFrom",
    "citeCount",
    "ignoreCount",
    "pheromoneWeight",
    "sourceIds",
    "supersededBy",
)


def _thought_fields(engine: str, var: str) -> str:
    """The scalar projection every statement returning thoughts uses."""
    del engine
    return ", ".join(f"{var}.{prop} AS {alias}" for prop, alias in THOUGHT_FIELDS)


def _ranking_fields(engine: str, var: str) -> str:
    """The projection of a search candidate before it is ranked (RANKING_FIELDS)."""
    del engine
    return ", ".join(f"{var}.{prop} AS {prop}" for prop in RANKING_FIELDS)


CHANGE_FIELDS = (
    "{e}.id AS id, {e}.namespace AS namespace, {e}.revision AS revision, {e}.kind AS kind, "
    "coalesce({e}.subjectKind, 'thought') AS subjectKind, "
    "coalesce({e}.subjectId, {e}.thoughtId) AS subjectId, {e}.sourceIds AS sourceIds, "
    "{e}.actorId AS actorId, {e}.actorName AS actorName, {e}.at AS at, "
    "{e}.actorKeyId AS actorKeyId"
)


def _change_fields(engine: str, var: str) -> str:
    """The scalar projection of a change event (events written before subjects were
    generalised concern a thought, named by thoughtId)."""
    del engine
    return CHANGE_FIELDS.format(e=var)


# Scalar projections of the maintained node types: (property, alias) pairs.
NODE_FIELDS: dict[str, tuple[str, ...]] = {
    "topic": (
        "id",
        "namespace",
        "name",
        "summary",
        "thoughtCount",
        "unsummarisedCount",
        "createdAt",
        "updatedAt",
        "summarisedAt",
    ),
    "contradiction": (
        "id",
        "namespace",
        "thoughtAId",
        "thoughtBId",
        "status",
        "relation",
        "detectedAt",
        "detector",
        "confidence",
        "explanation",
        "resolution",
        "note",
        "resolvedBy",
        "resolvedAt",
        "mergedThoughtId",
    ),
    "episode": (
        "id",
        "namespace",
        "title",
        "narrative",
        "summary",
        "compressed",
        "indexLabel",
        "artifactKinds",
        "artifactRefs",
        "thoughtIds",
        "createdAt",
        "extractor",
        "scope",
        "ownerId",
    ),
    "proposal": (
        "id",
        "namespace",
        "status",
        "thoughtIds",
        "ownerIds",
        "decisions",
        "similarity",
        "createdAt",
        "decidedAt",
        "mergedThoughtId",
    ),
    "consent": (
        "id",
        "namespace",
        "person",
        "field",
        "sensitivity",
        "status",
        "value",
        "patch",
        "thoughtId",
        "replacesIds",
        "evidence",
        "proposedById",
        "proposedByName",
        "proposedByUser",
        "signals",
        "createdAt",
        "expiresAt",
        "decidedAt",
        "decidedBy",
        "note",
    ),
    "checkpoint": (
        "id",
        "checkpointId",
        "namespace",
        "user",
        "threadId",
        "parentId",
        "data",
        "metadata",
        "sizeBytes",
        "createdAt",
        "revision",
    ),
    "run": (
        "id",
        "namespace",
        "status",
        "dryRun",
        "trigger",
        "requestedAt",
        "startedAt",
        "finishedAt",
        "attempts",
        "counts",
        "usage",
        "error",
    ),
}


def _fields(kind: str) -> Callable[[str, str], str]:
    def project(engine: str, var: str) -> str:
        del engine
        return ", ".join(f"{var}.{prop} AS {prop}" for prop in NODE_FIELDS[kind])

    return project


PROJECTION_MACROS: dict[str, Callable[..., str]] = {
    "thought_fields": _thought_fields,
    "ranking_fields": _ranking_fields,
    "change_fields": _change_fields,
    "topic_fields": _fields("topic"),
    "contradiction_fields": _fields("contradiction"),
    "episode_fields": _fields("episode"),
    "run_fields": _fields("run"),
    "proposal_fields": _fields("proposal"),
    "consent_fields": _fields("consent"),
    "checkpoint_fields": _fields("checkpoint"),
}
