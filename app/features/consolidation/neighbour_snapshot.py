"""A consolidation run's neighbours, found in memory.

Asking the engine's vector index for a page's neighbours costs a beam search per thought
(about 6 ms each on the embedded engine, a minute at 10,000 thoughts). A run instead reads
the namespace's current vectors once and compares each page with all of them in one
matrix product: exact cosine, not an approximate beam. The thoughts come with the vectors
(a thought's content never changes: a change is a new thought); each page's hits are
checked through the same time view as ``neighbours/nearest`` (``neighbours/visible``, ids
only), so a thought merged, superseded or forgotten since the vectors were read is
nobody's neighbour; the thoughts a run creates (merges) are added as it goes. Answers
match the engine's query: the k nearest visible thoughts within the same beam, the subject
itself counted and then left out, equal scores in id order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from thoughtgraph.domain.models import ScoredThought, Thought, TimeView
from thoughtgraph.domain.scopes import Partition
from thoughtgraph.features.search.neighbours_repository import NeighbourRepository
from thoughtgraph.store.beam import MIN_CANDIDATES, OVERSAMPLE

PAGE = 2000  # vectors read per statement
# Reading a thought's vector costs about a tenth of asking the engine for one subject's
# neighbours (0.5 against 6 ms on the embedded engine at 10,000 thoughts): a snapshot pays
# when the run's candidates are at least this share of the namespace.
MIN_CANDIDATE_SHARE = 0.1
BLOCK = 256  # subjects compared at once (bounds the score matrix at BLOCK x namespace)

Matrix = npt.NDArray[np.float32]


class NeighbourSource(Protocol):
    async def nearest(
        self,
        namespace: str,
        subjects: Sequence[tuple[str, Sequence[float]]],
        k: int,
        min_similarity: float,
        view: TimeView,
        partitions: Mapping[str, Partition] | None = None,
    ) -> dict[str, list[ScoredThought]]: ...


def _unit_rows(vectors: Sequence[Sequence[float]], dimension: int) -> Matrix:
    matrix = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), dimension)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0  # a zero vector stays zero: similar to nothing
    unit: Matrix = (matrix / norms).astype(np.float32, copy=False)
    return unit


def _ranks(ids: list[str]) -> npt.NDArray[np.int64]:
    """Each row's place in id order (ties between equal scores go by id)."""
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
    return ranks


class VectorSnapshot:
    """The namespace's current vectors, unit length, one row per thought id."""

    def __init__(
        self, repository: NeighbourRepository, thoughts: list[Thought], matrix: Matrix
    ) -> None:
        self._repository = repository
        self._ids = [t.id for t in thoughts]
        self._thoughts = {t.id: t for t in thoughts}
        self._row = {tid: i for i, tid in enumerate(self._ids)}
        self._matrix = matrix
        self._id_rank = _ranks(self._ids)
        self._added: list[tuple[Thought, Sequence[float]]] = []

    @staticmethod
    def worth_loading(candidates: int, current: int, *, max_thoughts: int) -> bool:
        """Whether a run over ``candidates`` of ``current`` thoughts should take a
        snapshot: not above ``max_thoughts``, nor for a few candidates in a large
        namespace."""
        return 0 < current <= max_thoughts and candidates >= current * MIN_CANDIDATE_SHARE

    @classmethod
    async def load(
        cls, repository: NeighbourRepository, namespace: str, *, max_thoughts: int
    ) -> VectorSnapshot | None:
        """The snapshot, or None when the namespace holds more than ``max_thoughts``
        current thoughts (or none): the engine answers then."""
        thoughts: list[Thought] = []
        vectors: list[list[float]] = []
        after = ""
        while True:
            page = await repository.vectors_page(namespace, after=after, limit=PAGE)
            for thought, vector in page:
                if vector:
                    thoughts.append(thought)
                    vectors.append(vector)
            if len(thoughts) > max_thoughts:
                return None
            if len(page) < PAGE:
                break
            after = page[-1][0].id
        if not thoughts:
            return None
        return cls(repository, thoughts, _unit_rows(vectors, len(vectors[0])))

    def __len__(self) -> int:
        return len(self._ids) + len(self._added)

    def get(self, thought_id: str) -> list[float] | None:
        """The thought's embedding (unit length, plain floats: it may be written back,
        as a merged thought's), None when not in the snapshot."""
        self._absorb_added()
        row = self._row.get(thought_id)
        return None if row is None else list(self._matrix[row].tolist())

    def entry(self, thought_id: str) -> tuple[Thought, list[float]] | None:
        """The thought as read when the snapshot was taken, with ``get``'s embedding."""
        vector = self.get(thought_id)
        return None if vector is None else (self._thoughts[thought_id], vector)

    def add(self, thought: Thought, embedding: Sequence[float]) -> None:
        """A thought created during the run (a merge): a neighbour from now on."""
        if thought.id not in self._row and embedding:
            self._added.append((thought, embedding))

    def _absorb_added(self) -> None:
        if not self._added:
            return
        rows = _unit_rows([e for _, e in self._added], self._matrix.shape[1])
        for thought, _ in self._added:
            self._row[thought.id] = len(self._ids)
            self._ids.append(thought.id)
            self._thoughts[thought.id] = thought
        self._matrix = np.vstack([self._matrix, rows])
        self._id_rank = _ranks(self._ids)
        self._added = []

    def _candidates(
        self, subjects: Sequence[tuple[str, Sequence[float]]], beam: int, floor: float
    ) -> dict[str, list[tuple[float, str]]]:
        """Each subject's ``beam`` most similar rows at or above ``floor``, nearest first,
        equal scores in id order."""
        self._absorb_added()
        found: dict[str, list[tuple[float, str]]] = {}
        width = min(beam, len(self._ids))
        for start in range(0, len(subjects), BLOCK):
            block = subjects[start : start + BLOCK]
            queries = _unit_rows([e for _, e in block], self._matrix.shape[1])
            scores = queries @ self._matrix.T
            top = np.argpartition(-scores, width - 1, axis=1)[:, :width]
            for (sid, _), row, cols in zip(block, scores, top, strict=True):
                near = row[cols]
                kept = cols[near >= floor]
                order = np.lexsort((self._id_rank[kept], -row[kept]))
                chosen = kept[order]
                ids = [self._ids[c] for c in chosen]
                found[sid] = list(zip(row[chosen].tolist(), ids, strict=True))
        return found

    async def _visible(
        self,
        namespace: str,
        candidates: dict[str, list[tuple[float, str]]],
        k: int,
        view: TimeView,
    ) -> set[str]:
        """Which candidates the view shows: each subject's k nearest first, then the rest
        of the beam only for subjects that lost one of them (merged or superseded during
        the run), so most pages check a fraction of the beam."""
        shown: set[str] = set()
        checked: set[str] = set()
        for depth in (k, None):
            wanted = {
                tid
                for hits in candidates.values()
                if depth is not None or any(t not in shown for _, t in hits[:k])
                for _, tid in hits[:depth]
            } - checked
            if wanted:
                shown |= await self._repository.visible(namespace, sorted(wanted), view)
                checked |= wanted
        return shown

    async def nearest(
        self,
        namespace: str,
        subjects: Sequence[tuple[str, Sequence[float]]],
        k: int,
        min_similarity: float,
        view: TimeView,
        partitions: Mapping[str, Partition] | None = None,
    ) -> dict[str, list[ScoredThought]]:
        """What ``NeighbourRepository.nearest`` answers, from memory."""
        found: dict[str, list[ScoredThought]] = {sid: [] for sid, _ in subjects}
        if not subjects:
            return found
        beam = max(k * OVERSAMPLE, MIN_CANDIDATES)
        candidates = self._candidates(subjects, beam, min_similarity)
        if partitions is not None:  # the subject's own partition only, within the beam
            candidates = {
                sid: [
                    (score, tid)
                    for score, tid in hits
                    if sid not in partitions or self._thoughts[tid].partition == partitions[sid]
                ]
                for sid, hits in candidates.items()
            }
        shown = await self._visible(namespace, candidates, k, view)
        for sid, hits in candidates.items():
            near = [(score, tid) for score, tid in hits if tid in shown][:k]
            found[sid] = [
                ScoredThought(thought=self._thoughts[tid], similarity=min(1.0, score))
                for score, tid in near
                if tid != sid
            ]
        return found
