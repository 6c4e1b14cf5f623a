"""Episodes: a narrative and the thoughts extracted from it (cypher/episode)."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain.changes import Actor, ChangeKind, SubjectKind
from thoughtgraph.domain.knowledge import Episode
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.model_rows import episode_from_row
from thoughtgraph.store.params import change_params


class EpisodeRepository:
    def __init__(self, executor: Executor) -> None:
        self._x = executor

    async def create(self, episode: Episode, embedding: Sequence[float], *, actor: Actor) -> bool:
        """False when it exists (the same transcript ingested before)."""
        rows = await self._x.write(
            "episode.create",
            {
                "namespace": episode.namespace,
                "id": episode.id,
                "title": episode.title,
                "narrative": episode.narrative,
                "summary": episode.summary,
                "compressed": episode.compressed,
                "indexLabel": episode.index_label,
                "artifactKinds": [a.kind for a in episode.artifacts],
                "artifactRefs": [a.ref for a in episode.artifacts],
                "thoughtIds": list(episode.thought_ids),
                "extractor": episode.extractor,
                "scope": episode.scope.value,
                "ownerId": episode.owner_id,
                "embedding": list(embedding),
                **change_params(
                    ChangeKind.EPISODE_INGESTED,
                    SubjectKind.EPISODE,
                    episode.id,
                    actor=actor,
                    at_ms=episode.created_at_ms,
                    related_ids=episode.thought_ids,
                ),
            },
            namespace=episode.namespace,
        )
        return bool(rows)

    async def recent(self, namespace: str, limit: int) -> list[Episode]:
        rows = await self._x.read(
            "episode.list", {"namespace": namespace, "limit": limit}, namespace=namespace
        )
        return [episode_from_row(r) for r in rows]

    async def get_many(self, namespace: str, ids: Sequence[str]) -> dict[str, Episode]:
        if not ids:
            return {}
        rows = await self._x.read(
            "episode.get_many", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        return {r["id"]: episode_from_row(r) for r in rows}
