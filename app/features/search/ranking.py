"""Ranking a search's candidates: plain vector search with lineage and supersession, and
hybrid search (vector and full-text candidates, each scored by its cosine and by BM25 of
the query's words and the two fused, then weighted by salience, age, usage, links,
lineage and supersession; the pure scoring is ``domain.ranking``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace

from thoughtgraph.domain.models import TimeView
from thoughtgraph.domain.procedures import searched_kinds
from thoughtgraph.domain.ranking import keywords, scoring
from thoughtgraph.domain.ranking.fusion import Fused, reciprocal_rank_fusion
from thoughtgraph.domain.ranking.near_duplicates import NEAR_DUPLICATE_COSINE, newer_first
from thoughtgraph.domain.ranking.retention import min_retention, tier_of
from thoughtgraph.domain.retrieval import RankedHit, RetrievalOptions, UsagePolicy
from thoughtgraph.domain.rules import rank_with_lineage, rank_with_supersession
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.store.params import filter_params

# Each list brings this many candidates per result asked for (at least MIN_POOL), so
# fusion and the priors have something to reorder.
POOL_FACTOR = 3
MIN_POOL = 30
MAX_POOL = 150
# The full-text side brings at least this many: BM25 re-scores them all, and the engine's
# own order (another scorer, another analyser) is only how they are picked.
MIN_TEXT_POOL = 100
# Newer first by meaning looks at the vectors of this many best hits (by words: all).
MEANING_WINDOW = 20


class Ranking:
    def __init__(
        self,
        repos: Repositories,
        policy: UsagePolicy,
        *,
        superseded_factor: float,
        insight_factor: float,
    ) -> None:
        self._repos = repos
        self._retrieval = repos.retrieval
        self.policy = policy
        self._superseded_factor = superseded_factor
        self._insight_factor = insight_factor

    async def by_words_only(
        self, namespace: str, placeholder_vectors: Callable[[], bool]
    ) -> bool | None:
        """None: nothing to search (never written to). True: by words alone, as its
        vectors are placeholders (asked once the check has pinned the request's space)
        or being indexed after a start."""
        by_words, by_meaning = await self._repos.executor.search_readiness(namespace)
        if by_meaning:
            return placeholder_vectors()
        return True if by_words else None

    def params(self, options: RetrievalOptions) -> dict[str, object]:
        f = options.filter  # procedural kinds only when asked for (domain/procedures.py)
        kinds = searched_kinds(f.kinds, f.categories)
        return filter_params(f, min_retention(options.mode, self.policy), self.policy, kinds=kinds)

    async def base(
        self,
        namespace: str,
        text: str,
        embedding: Sequence[float],
        k: int,
        threshold: float,
        view: TimeView,
        options: RetrievalOptions,
        full_text: bool,
    ) -> list[RankedHit]:
        """A search's hits before any expansion: hybrid, or the full-text side alone
        (``full_text``: no embedder), or plain vector search when hybrid is off."""
        if full_text or options.hybrid:
            return await self.hybrid(
                namespace, text, embedding, k, threshold, view, options, vectors=not full_text
            )
        return await self.plain(namespace, embedding, k, threshold, view, options)

    async def plain(
        self,
        namespace: str,
        embedding: Sequence[float],
        k: int,
        threshold: float,
        view: TimeView,
        options: RetrievalOptions,
    ) -> list[RankedHit]:
        """Vector search with the lineage and supersession adjustments only:
        the baseline hybrid search is measured against."""
        found = await self._retrieval.vector_hits(
            namespace, embedding, k, view, self.params(options), narrows=options.filter.narrows
        )
        found = [(hit, retention) for hit, retention in found if hit.similarity >= threshold]
        retention_of = {hit.thought.id: retention for hit, retention in found}
        scored = [hit for hit, _ in found]
        newest, superseders = await self.lineage(namespace, list(retention_of), view.viewer)
        if view.current_only:
            scored = [s for s in scored if s.thought.id not in newest]
        ranked = rank_with_supersession(
            rank_with_lineage(scored, newest), superseders, self._superseded_factor
        )
        hits = [
            RankedHit(
                **hit.model_dump(exclude={"score"}),
                score=hit.score * scoring.kind_factor(hit.thought, self._insight_factor),
                retention=min(1.0, retention_of[hit.thought.id]),
                tier=tier_of(retention_of[hit.thought.id], self.policy),
            )
            for hit in ranked
        ]
        hits.sort(key=lambda h: h.score, reverse=True)  # stable: ties keep the ranked order
        return hits

    async def newer_first(
        self, namespace: str, hits: Sequence[RankedHit], *, vectors: bool = True
    ) -> list[RankedHit]:
        """``hits`` with each group of near-duplicates newest first (domain.ranking.
        near_duplicates), by words and, with real ``vectors``, by the meaning of the best
        MEANING_WINDOW hits."""
        close: set[frozenset[str]] = set()
        if vectors and len(hits) > 1:
            ids = [hit.thought.id for hit in hits[:MEANING_WINDOW]]
            close = await self._repos.thoughts.close_pairs(namespace, ids, NEAR_DUPLICATE_COSINE)
        return newer_first(hits, close=close)

    async def lineage(
        self, namespace: str, ids: list[str], viewer: Viewer
    ) -> tuple[dict[str, str], dict[str, str]]:
        """Newest refiner (the viewer sees) of each refined id, and the superseder of each
        superseded one: one batched lookup each, never one per hit."""
        refiners, superseders = await asyncio.gather(
            self._repos.lineage.refiners(namespace, ids, viewer),
            self._repos.supersession.superseders(namespace, ids),
        )
        newest = {tid: found[0] for tid, found in refiners.items() if found}
        return newest, superseders

    async def hybrid(
        self,
        namespace: str,
        text: str,
        embedding: Sequence[float],
        k: int,
        threshold: float,
        view: TimeView,
        options: RetrievalOptions,
        *,
        vectors: bool = True,
    ) -> list[RankedHit]:
        """Without ``vectors`` (the request's vectors are placeholders: no embedder): the
        full-text side alone, its placeholder cosines counted as 0 and the threshold (a
        cosine) not applied."""
        pool = min(MAX_POOL, max(k * POOL_FACTOR, MIN_POOL))
        params = self.params(options)
        if not vectors:
            statistics, found = await self._keyword_candidates(
                namespace, text, embedding, pool, view, params, narrows=options.filter.narrows
            )
            vector_rows: list[scoring.Candidate] = []
            text_rows = [replace(row, similarity=0.0) for row in found]
        else:
            vector_rows, (statistics, text_rows) = await asyncio.gather(
                self._retrieval.vector_candidates(
                    namespace, embedding, pool, view, params, narrows=options.filter.narrows
                ),
                self._keyword_candidates(
                    namespace, text, embedding, pool, view, params, narrows=options.filter.narrows
                ),
            )
            # A vector candidate is held to the threshold as in plain search; a full-text
            # match the embedding finds unrelated (negative cosine) counts as 0.
            vector_rows = [row for row in vector_rows if row.similarity >= threshold]
            text_rows = [row for row in text_rows if max(0.0, row.similarity) >= threshold]
        candidates = candidates_of(vector_rows, text_rows)
        fused = reciprocal_rank_fusion(
            [[r.thought.id for r in vector_rows], [r.thought.id for r in text_rows]]
        )
        relevance, keyword_scores = fused_relevance(text, candidates, statistics)
        ids = [f.id for f in fused]
        (newest, superseders), links = await asyncio.gather(
            self.lineage(namespace, ids, view.viewer),
            self._retrieval.related_among(namespace, ids),
        )
        if view.current_only:  # a refined thought is not current either
            fused = [f for f in fused if f.id not in newest]
        in_result = {f.id for f in fused}
        related = scoring.strongest_links(links, in_result)
        refined = set(newest) & in_result
        factors: dict[str, tuple[float, float, str | None, float]] = {}
        scores: list[tuple[float, Fused]] = []
        for f in fused:
            thought = candidates[f.id].thought
            supersession, superseded_by = scoring.supersession_factor(
                thought, superseders, self._superseded_factor
            )
            lineage = scoring.lineage_factor(thought, refined, in_result)
            kind = scoring.kind_factor(thought, self._insight_factor)
            factors[f.id] = (lineage, supersession, superseded_by, kind)
            score = scoring.score_of(
                thought,
                now_ms=view.now_ms,
                policy=self.policy,
                relevance=relevance[f.id],
                related=related.get(f.id, 0.0),
                lineage=lineage,
                supersession=supersession,
                kind=kind,
            )
            scores.append((score, f))
        scores.sort(key=lambda s: s[0], reverse=True)  # stable: ties keep the fused order
        best = [f for _, f in scores[:k]]
        # The candidates carry what ranking reads; the k hits are read whole and explained.
        whole = await self._repos.thoughts.get_many(namespace, [f.id for f in best])
        hits: list[RankedHit] = []
        for f in best:
            if f.id not in whole:  # deleted since the candidates were read: left out
                continue
            candidate = candidates[f.id]
            lineage, supersession, superseded_by, kind = factors[f.id]
            explanation = scoring.explain(
                candidate,
                f,
                now_ms=view.now_ms,
                policy=self.policy,
                relevance=relevance[f.id],
                keyword_score=keyword_scores[f.id],
                related=related.get(f.id, 0.0),
                lineage=lineage,
                supersession=supersession,
                kind=kind,
            )
            hits.append(
                RankedHit(
                    thought=whole[f.id],
                    similarity=max(0.0, candidate.similarity),
                    score=explanation.score,
                    refined_by=newest.get(f.id),
                    superseded=f.id in newest or superseded_by is not None,
                    superseded_by=superseded_by,
                    retention=min(1.0, candidate.retention),
                    tier=tier_of(candidate.retention, self.policy),
                    explanation=explanation,
                )
            )
        return hits

    async def _keyword_candidates(
        self,
        namespace: str,
        text: str,
        embedding: Sequence[float],
        pool: int,
        view: TimeView,
        params: dict[str, object],
        *,
        narrows: bool,
    ) -> tuple[keywords.KeywordStatistics, list[scoring.Candidate]]:
        statistics = await self._retrieval.keyword_statistics(namespace, text)
        rows = await self._retrieval.text_candidates(
            namespace,
            text,
            embedding,
            max(pool, MIN_TEXT_POOL),
            view,
            params,
            statistics,
            narrows=narrows,
        )
        return statistics, rows


def fused_relevance(
    text: str,
    candidates: dict[str, scoring.Candidate],
    statistics: keywords.KeywordStatistics,
) -> tuple[dict[str, float], dict[str, float]]:
    """Each candidate's relevance (its scaled cosine and scaled BM25 fused) and its BM25."""
    ids = list(candidates)
    bm25 = keywords.bm25_scores(text, {i: candidates[i].thought.content for i in ids}, statistics)
    closeness = scoring.closeness([max(0.0, candidates[i].similarity) for i in ids])
    keyword = keywords.normalised([bm25[i] for i in ids])
    relevance = {
        i: scoring.relevance_of(near, word)
        for i, near, word in zip(ids, closeness, keyword, strict=True)
    }
    return relevance, bm25


def candidates_of(
    vector_rows: list[scoring.Candidate], text_rows: list[scoring.Candidate]
) -> dict[str, scoring.Candidate]:
    """One candidate per thought: the vector side's, with its full-text score joined."""
    found = {row.thought.id: row for row in text_rows}
    for row in vector_rows:
        text = found.get(row.thought.id)
        found[row.thought.id] = row if text is None else replace(row, text_score=text.text_score)
    return found
