"""The store side of hybrid search (cypher/search): filtered vector and full-text
candidates, RELATED_TO links among them, topic summaries, and usage (cite, ignore).

Over-fetching the vector side: an HNSW index answers its nearest ``candidates`` before a
filter can apply, so a selective filter (a rare tag, a cold tier) may leave fewer than
the search needs. The first query asks for ``max(need x OVERSAMPLE, MIN_CANDIDATES)``
(x8 and 200 when the search narrows, x4 and 40 otherwise: ``first_beam``); when fewer
than ``need`` passed and the index was saturated (it answered every candidate asked for:
the statements' ``seen``, also on a last row without a thought when few passed), the
query is repeated with four times the candidates, up to MAX_CANDIDATES. A filter that
selects one thought in a million-thought namespace is therefore answered from the
full-text side and the widest vector beam only, which is the honest limit of a
post-filtered ANN index. The full-text side is taken the same way (its best matches by
text score, widened), because a common word matches most of a namespace and every
filter reads properties node by node; its index is exact, so its first beam when the
search does not narrow is need x 1.5 (at least 20: ``first_text_beam``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from thoughtgraph.domain.knowledge import Topic
from thoughtgraph.domain.models import ScoredThought, Thought, TimeView
from thoughtgraph.domain.ranking.keywords import KeywordStatistics
from thoughtgraph.domain.ranking.scoring import Candidate
from thoughtgraph.features.search.term_counts import TermCounts
from thoughtgraph.store.beam import MIN_CANDIDATES, OVERSAMPLE
from thoughtgraph.store.executor import Executor
from thoughtgraph.store.fulltext import UNION_BUDGET, escaped_terms, planned_query, query_terms
from thoughtgraph.store.model_rows import topic_from_row
from thoughtgraph.store.params import view_params
from thoughtgraph.store.rows import candidate_rows, ranking_thought_from_row, thought_from_row

NARROW_OVERSAMPLE = 8
NARROW_MIN_CANDIDATES = 200
# The full-text side's first beam when the search does not narrow: need + need / 2.
TEXT_SLACK_DIVISOR = 2
TEXT_MIN_CANDIDATES = 20
WIDEN = 4
MAX_CANDIDATES = 4096
TOPIC_CANDIDATES = 100  # Neo4j's topic index spans namespaces
# BM25's N, counted up to this (a read on the search path once a minute per namespace):
# past it every counted word (at most UNION_BUDGET + 1 matches) is rare, and N moves the
# words' weights little.
NAMESPACE_SIZE_CAP = 10_000


def first_beam(need: int, *, narrows: bool) -> int:
    """How many candidates a side reads first for ``need`` results: a filter that narrows
    may reject many, so it starts wider; otherwise most pass and widening covers the
    rest (the answer is the same either way, only the reads differ)."""
    if narrows:
        return max(need * NARROW_OVERSAMPLE, NARROW_MIN_CANDIDATES)
    return max(need * OVERSAMPLE, MIN_CANDIDATES)


def first_text_beam(need: int, *, narrows: bool) -> int:
    """The full-text side's first read: its index is exact (every match, ranked by text
    score), so a wider beam finds nothing a narrower one misses; the slack is only for
    the filters (forgotten, superseded, out-of-scope thoughts), and widening covers more."""
    if narrows:
        return first_beam(need, narrows=True)
    return max(need + need // TEXT_SLACK_DIVISOR, TEXT_MIN_CANDIDATES)


class RetrievalRepository:
    def __init__(self, executor: Executor, term_counts: TermCounts | None = None) -> None:
        self._x = executor
        self._term_counts = term_counts or TermCounts()

    async def vector_candidates(
        self,
        namespace: str,
        embedding: Sequence[float],
        need: int,
        view: TimeView,
        params: dict[str, Any],
        *,
        narrows: bool,
    ) -> list[Candidate]:
        """The nearest filtered thoughts, projected for ranking (``ranking_fields``)."""
        rows = await self._vector_rows(
            "search.vector_candidates", namespace, embedding, need, view, params, narrows
        )
        return [
            Candidate(
                thought=ranking_thought_from_row(r),
                similarity=self._x.similarity(float(r["rawScore"])),
                retention=float(r["retention"]),
            )
            for r in rows
        ]

    async def vector_hits(
        self,
        namespace: str,
        embedding: Sequence[float],
        need: int,
        view: TimeView,
        params: dict[str, Any],
        *,
        narrows: bool,
    ) -> list[tuple[ScoredThought, float]]:
        """The same nearest thoughts read whole, each with its retention: what a plain
        vector search returns as it is (k rows, nothing to rank away)."""
        rows = await self._vector_rows(
            "search.vector_thoughts", namespace, embedding, need, view, params, narrows
        )
        return [
            (
                ScoredThought(
                    thought=thought_from_row(r),
                    similarity=self._x.similarity(float(r["rawScore"])),
                ),
                float(r["retention"]),
            )
            for r in rows
        ]

    async def _vector_rows(
        self,
        statement: str,
        namespace: str,
        embedding: Sequence[float],
        need: int,
        view: TimeView,
        params: dict[str, Any],
        narrows: bool,
    ) -> list[dict[str, Any]]:
        return await self._widening_read(
            statement,
            namespace,
            {**view_params(view), **params, "embedding": list(embedding)},
            "candidates",
            first_beam(need, narrows=narrows),
            need,
        )

    async def keyword_statistics(self, namespace: str, text: str) -> KeywordStatistics:
        """The namespace's size and how many thoughts each query word matches: what the
        keyword side's BM25 needs (app/domain/ranking/keywords.py), and what
        text_candidates plans its query from."""
        matches = await self._term_matches(namespace, text)
        size = await self._namespace_size(namespace)
        counted = dict(zip(query_terms(text), matches.values(), strict=True))
        return KeywordStatistics(namespace_size=size, matches=counted)

    async def text_candidates(
        self,
        namespace: str,
        text: str,
        embedding: Sequence[float],
        need: int,
        view: TimeView,
        params: dict[str, Any],
        statistics: KeywordStatistics | None = None,
        *,
        narrows: bool,
    ) -> list[Candidate]:
        """Full-text matches for the words of ``text`` (escaped for this engine; none
        when no word is left or none matches), common words only ranking when a union
        would hold more than ``need`` (planned_query, from ``statistics``' counts: the
        rarest words bring the candidates, every match of theirs), widened like the
        vector side: the first beam of best matches is filtered, more when too few
        passed."""
        if statistics is None:
            statistics = await self.keyword_statistics(namespace, text)
        counts = [statistics.matches.get(word, 0) for word in query_terms(text)]
        text_query = planned_query(
            dict(zip(escaped_terms(text), counts, strict=True)),
            self._x.engine,
            budget=need,
        )
        if text_query is None:
            return []
        rows = await self._widening_read(
            "search.text_candidates",
            namespace,
            {
                **view_params(view),
                **params,
                "textQuery": text_query,
                "embedding": list(embedding),
            },
            "textCandidates",
            first_text_beam(need, narrows=narrows),
            need,
        )
        return [
            Candidate(
                thought=ranking_thought_from_row(r),
                similarity=max(-1.0, min(1.0, float(r["similarity"]))),
                retention=float(r["retention"]),
                text_score=float(r["textScore"]),
            )
            for r in rows
        ]

    async def _namespace_size(self, namespace: str) -> int:
        """How many thoughts the namespace holds (up to NAMESPACE_SIZE_CAP), remembered
        beside the word counts."""
        known = self._term_counts.known_size(namespace)
        if known is not None:
            return known
        rows = await self._x.read(
            "search.namespace_size",
            {"namespace": namespace, "cap": NAMESPACE_SIZE_CAP},
            namespace=namespace,
        )
        size = int(rows[0]["size"]) if rows else 0
        self._term_counts.remember_size(namespace, size)
        return size

    async def _term_matches(self, namespace: str, text: str) -> dict[str, int]:
        """Each escaped word of ``text`` and how many thoughts it matches, up to
        UNION_BUDGET + 1 (past that it is common, however common), in the query's order;
        counted in the engine unless remembered (app/features/search/term_counts.py)."""
        terms = escaped_terms(text)
        known = self._term_counts.known(namespace, terms)
        missing = [term for term in terms if term not in known]
        if missing:
            rows = await self._x.read(
                "search.term_matches",
                {"namespace": namespace, "terms": missing, "cap": UNION_BUDGET + 1},
                namespace=namespace,
            )
            counted = {row["term"]: int(row["matches"]) for row in rows}
            self._term_counts.remember(namespace, counted)
            known.update(counted)
        return {term: known.get(term, 0) for term in terms}

    async def _widening_read(
        self,
        statement: str,
        namespace: str,
        params: dict[str, Any],
        beam_param: str,
        beam: int,
        need: int,
    ) -> list[dict[str, Any]]:
        """Run a candidates statement, its beam (``beam_param``) widened by WIDEN up to
        MAX_CANDIDATES while fewer than ``need`` rows passed the filters and the beam was
        saturated (the statement's ``seen``: how many it took before filtering)."""
        beam = min(MAX_CANDIDATES, beam)
        while True:
            answered = await self._x.read(
                statement,
                {"namespace": namespace, **params, beam_param: beam, "rowLimit": need + 1},
                namespace=namespace,
            )
            rows = candidate_rows(answered)
            saturated = bool(answered) and int(answered[0]["seen"]) >= beam
            if len(rows) >= need or not saturated or beam >= MAX_CANDIDATES:
                return rows[:need]
            beam = min(MAX_CANDIDATES, beam * WIDEN)

    async def admitted(
        self, namespace: str, ids: Sequence[str], view: TimeView, params: dict[str, Any]
    ) -> dict[str, float]:
        """Which of ``ids`` the search's filters and view admit, with their retention."""
        if not ids:
            return {}
        rows = await self._x.read(
            "search.admitted",
            {"namespace": namespace, **view_params(view), **params, "ids": list(ids)},
            namespace=namespace,
        )
        return {r["id"]: float(r["retention"]) for r in rows}

    async def related_among(
        self, namespace: str, ids: Sequence[str]
    ) -> list[tuple[str, str, float]]:
        if len(ids) < 2:
            return []
        rows = await self._x.read(
            "search.related_among", {"namespace": namespace, "ids": list(ids)}, namespace=namespace
        )
        return [(r["a"], r["b"], float(r["strength"] or 0.0)) for r in rows]

    async def topics(
        self, namespace: str, embedding: Sequence[float], k: int
    ) -> list[tuple[Topic, float]]:
        rows = await self._x.read(
            "search.topics",
            {
                "namespace": namespace,
                "embedding": list(embedding),
                "candidates": max(TOPIC_CANDIDATES, k * OVERSAMPLE),
                "k": k,
            },
            namespace=namespace,
        )
        return [(topic_from_row(r), self._x.similarity(float(r["rawScore"]))) for r in rows]

    async def cite(
        self, namespace: str, thought_id: str, action: str, at_ms: int
    ) -> Thought | None:
        rows = await self._x.write(
            "search.cite",
            {"namespace": namespace, "id": thought_id, "action": action, "at": at_ms},
            namespace=namespace,
        )
        return thought_from_row(rows[0]) if rows else None

    async def ignore(self, namespace: str, thought_id: str) -> Thought | None:
        rows = await self._x.write(
            "search.ignore", {"namespace": namespace, "id": thought_id}, namespace=namespace
        )
        return thought_from_row(rows[0]) if rows else None
