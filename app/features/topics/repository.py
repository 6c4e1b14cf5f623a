"""Topics: creation, membership (BELONGS_TO), lazy summaries (cypher/topic)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.knowledge import Topic
from thoughtgraph.domain.models import Thought
from thoughtgraph.store.executor import Executor, vector_list
from thoughtgraph.store.model_rows import topic_from_row
from thoughtgraph.store.params import change_params
from thoughtgraph.store.rows import thought_from_row


class TopicVector:
    """A topic's id, name, centroid and size: what assignment compares thoughts with."""

    def __init__(self, id: str, name: str, embedding: list[float], count: int) -> None:
        self.id = id
        self.name = name
        self.embedding = embedding
        self.count = count


def _topic_vector(row: dict[str, Any]) -> TopicVector:
    return TopicVector(
        row["id"], row["name"], vector_list(row["embedding"]), int(row["thoughtCount"] or 0)
    )


class TopicRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def create(
        self,
        namespace: str,
        topic_id: str,
        name: str,
        embedding: Sequence[float],
        *,
        actor: Actor,
        at_ms: int,
        first_thought_id: str,
    ) -> bool:
        """False when it exists already."""
        rows = await self._x.write(
            "topic.create",
            {
                "namespace": namespace,
                "id": topic_id,
                "name": name,
                "embedding": list(embedding),
                **change_params(
                    ChangeKind.TOPIC_CREATED,
                    SubjectKind.TOPIC,
                    topic_id,
                    actor=actor,
                    at_ms=at_ms,
                    related_ids=[first_thought_id],
                ),
            },
            namespace=namespace,
        )
        return bool(rows)

    async def vectors(self, namespace: str) -> list[TopicVector]:
        rows = await self._x.read("topic.all", {"namespace": namespace}, namespace=namespace)
        return [_topic_vector(r) for r in rows]

    async def assign_many(
        self,
        namespace: str,
        assignments: Sequence[tuple[str, Sequence[str], Sequence[float]]],
        *,
        actor: Actor,
        at_ms: int,
    ) -> dict[str, tuple[int, TopicVector]]:
        """Thoughts in no topic yet join their topic, which takes the given centroid as
        its embedding; many topics in one statement: (topic id, thought ids, centroid)
        each. For each topic that gained thoughts: how many, and the topic as stored after
        (topics that gained none are left out, unchanged)."""
        if not assignments:
            return {}
        rows = await self._x.write(
            "topic.assign_many",
            {
                "namespace": namespace,
                "topics": [
                    {
                        "topicId": topic_id,
                        "thoughtIds": list(thought_ids),
                        "centroid": list(centroid),
                        "eventId": f"{topic_id}:{ChangeKind.ASSIGNED.value}:{at_ms}",
                    }
                    for topic_id, thought_ids, centroid in assignments
                ],
                "at": at_ms,
                "actorId": actor.id,
                "actorName": actor.name,
                "actorKeyId": actor.key_id,
            },
            namespace=namespace,
        )
        return {r["id"]: (int(r["assigned"]), _topic_vector(r)) for r in rows}

    async def recent(self, namespace: str, limit: int) -> list[Topic]:
        rows = await self._x.read(
            "topic.list", {"namespace": namespace, "limit": limit}, namespace=namespace
        )
        return [topic_from_row(r) for r in rows]

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, Topic]:
        if not ids:
            return {}
        rows = await self._x.read(
            "topic.get_many", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        return {r["id"]: topic_from_row(r) for r in rows}

    async def due_for_summary(
        self, namespace: str, min_unsummarised: int, limit: int
    ) -> list[Topic]:
        rows = await self._x.read(
            "topic.due",
            {"namespace": namespace, "minUnsummarised": min_unsummarised, "limit": limit},
            namespace=namespace,
        )
        return [topic_from_row(r) for r in rows]

    async def members(
        self, namespace: str, topic_id: str, limit: int, *, with_embeddings: bool = False
    ) -> list[tuple[Thought, list[float]]]:
        rows = await self._x.read(
            "topic.members",
            {
                "namespace": namespace,
                "topicId": topic_id,
                "limit": limit,
                "withEmbeddings": with_embeddings,
            },
            namespace=namespace,
        )
        return [(thought_from_row(r), vector_list(r.get("embedding"))) for r in rows]

    async def members_many(
        self, namespace: str, topic_ids: Sequence[str], limit: int, *, with_embeddings: bool
    ) -> dict[str, list[tuple[Thought, list[float]]]]:
        """``members`` of many topics in one statement, each newest first."""
        found: dict[str, list[tuple[Thought, list[float]]]] = {tid: [] for tid in topic_ids}
        if not topic_ids:
            return found
        rows = await self._x.read(
            "topic.members_many",
            {
                "namespace": namespace,
                "topicIds": list(topic_ids),
                "limit": limit,
                "withEmbeddings": with_embeddings,
            },
            namespace=namespace,
        )
        for r in rows:
            found[r["memberOf"]].append((thought_from_row(r), vector_list(r.get("embedding"))))
        return found

    async def summarise(
        self,
        namespace: str,
        topic_id: str,
        summary: str,
        *,
        summariser: str,
        actor: Actor,
        at_ms: int,
        name: str | None = None,
    ) -> bool:
        """The summary, and the name when given (None keeps the name it has)."""
        params: dict[str, Any] = {
            "namespace": namespace,
            "topicId": topic_id,
            "summary": summary,
            "name": name,
            "summariser": summariser,
            **change_params(
                ChangeKind.SUMMARISED, SubjectKind.TOPIC, topic_id, actor=actor, at_ms=at_ms
            ),
        }
        return bool(await self._x.write("topic.summarise", params, namespace=namespace))
