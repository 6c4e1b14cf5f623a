"""Nearest thoughts of many subjects at once (cypher/neighbours): a scan asks for a whole
page's neighbours in one statement instead of one vector search per thought."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from thoughtgraph.domain.errors import StoreError
from thoughtgraph.domain.models import ScoredThought, Thought, TimeView
from thoughtgraph.domain.scopes import Partition
from thoughtgraph.store.executor import Executor, vector_list
from thoughtgraph.store.params import view_params
from thoughtgraph.store.rows import thought_from_row


class NeighbourRepository:
    """``oversample`` and ``min_candidates``: the beam of the store's single search, so
    each subject's answer is the one its own search would give."""

    def __init__(self, executor: Executor, *, oversample: int, min_candidates: int) -> None:
        self._x = executor
        self._oversample = oversample
        self._min_candidates = min_candidates

    async def nearest(
        self,
        namespace: str,
        subjects: Sequence[tuple[str, Sequence[float]]],
        k: int,
        min_similarity: float,
        view: TimeView,
        partitions: Mapping[str, Partition] | None = None,
    ) -> dict[str, list[ScoredThought]]:
        """For each (id, embedding), what ``vector_search(embedding, k, min_similarity,
        view)`` finds, nearest first, without the subject itself. Every subject gets an
        entry (empty when nothing is near). The namespace must have been written to (its
        vector index exists): the subjects are its thoughts. ``partitions``: each subject's
        own; its k nearest are then of that partition only, chosen within the same beam."""
        found: dict[str, list[ScoredThought]] = {sid: [] for sid, _ in subjects}
        if not subjects:
            return found
        if not await self._x.searchable(namespace):  # maintenance retries (StoreError)
            raise StoreError(f"the vector indexes of {namespace!r} are being built; try again")
        rows = await self._x.read(
            "neighbours.nearest",
            {
                "namespace": namespace,
                **view_params(view),
                "subjects": [_subject(sid, e, (partitions or {}).get(sid)) for sid, e in subjects],
                "candidates": max(k * self._oversample, self._min_candidates),
                "k": k,
            },
            namespace=namespace,
        )
        # A page's thoughts are each other's neighbours: each is read into a Thought once.
        thoughts: dict[str, Thought] = {}
        for row in sorted(rows, key=lambda r: (r["subjectId"], int(r["rank"]))):
            similarity = self._x.similarity(float(row["rawScore"]))
            subject_id, thought_id = row["subjectId"], row["id"]
            if similarity < min_similarity or thought_id == subject_id:
                continue
            thought = thoughts.get(thought_id)
            if thought is None:
                thought = thoughts[thought_id] = thought_from_row(row)
            found[subject_id].append(ScoredThought(thought=thought, similarity=similarity))
        return found

    async def vectors_page(
        self, namespace: str, *, after: str, limit: int
    ) -> list[tuple[Thought, list[float]]]:
        """Up to ``limit`` current thoughts with their embeddings, in id order after
        ``after``."""
        rows = await self._x.read(
            "neighbours.vectors",
            {"namespace": namespace, "after": after, "limit": limit},
            namespace=namespace,
        )
        return [(thought_from_row(row), vector_list(row["embedding"])) for row in rows]

    async def visible(self, namespace: str, ids: Sequence[str], view: TimeView) -> set[str]:
        """The ids among ``ids`` that ``view`` shows (the filter of ``nearest``)."""
        if not ids:
            return set()
        rows = await self._x.read(
            "neighbours.visible",
            {"namespace": namespace, "ids": list(ids), **view_params(view)},
            namespace=namespace,
        )
        return {row["id"] for row in rows}


def _subject(
    subject_id: str, embedding: Sequence[float], partition: Partition | None
) -> dict[str, object]:
    scope, owner = partition if partition is not None else (None, None)
    return {
        "id": subject_id,
        "embedding": list(embedding),
        "scope": None if scope is None else scope.value,
        "ownerId": owner,
    }
