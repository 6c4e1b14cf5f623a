"""Hybrid search over thoughts (full-text and vector candidates fused, then weighted by
salience, age, usage, links, lineage and supersession), two-tier search with topic
summaries first, usage signals (cite, ignore), and search over the reasons of changes.

The ranking is pure (``domain.ranking``); the reads are this feature's repository's.
Every filter runs inside the store, on both candidate lists.
"""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.access import Principal
from thoughtgraph.domain.allowlist import AllowlistPolicy
from thoughtgraph.domain.errors import ThoughtNotFoundError, VectorSearchUnavailableError
from thoughtgraph.domain.models import LineageEdgeHit, Thought, TimeView
from thoughtgraph.domain.ops import NO_OPS_EVENTS, OpsEvents, OpsNode, current_node
from thoughtgraph.domain.ranking.retention import includes_forgotten
from thoughtgraph.domain.retrieval import (
    DEFAULT_SEARCH_K,
    DEFAULT_TIERED_K,
    DEFAULT_TOPIC_LIMIT,
    MAX_LIMIT,
    MAX_TOPIC_LIMIT,
    DetailLevel,
    RankedHit,
    RetrievalMode,
    RetrievalOptions,
    SearchFilter,
    TieredResult,
    TopicHit,
)
from thoughtgraph.domain.vector_space import is_text_only
from thoughtgraph.features.access import (
    Action,
    check_access,
    ids_seen,
    require_seen,
    scoped,
    viewer_of,
)
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.retention.service import AccessRecorder
from thoughtgraph.features.search.expanded import EXPANSION_POOL, ExpandedSearch, from_sessions
from thoughtgraph.features.search.options import (
    caller_options,
    checked_options,
    checked_query,
    usage_policy,
    within_allowlist,
)
from thoughtgraph.features.search.ranking import Ranking
from thoughtgraph.features.search.text_topics import topics_by_words
from thoughtgraph.ports.clock import Clock, SystemClock
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.settings import Settings

MAX_ACTION_CHARS = 500
MAX_CONTEXT_K = 200  # what one context assembly may ask for (app/features/context/gathering.py)


class SearchService:
    def __init__(
        self,
        repos: Repositories,
        embedder: Embeddings,
        *,
        clock: Clock | None = None,
        access: AccessRecorder | None = None,
        settings: Settings | None = None,
        events: OpsEvents = NO_OPS_EVENTS,
        allowlist: AllowlistPolicy | None = None,
    ) -> None:
        self._repos = repos
        self._allowlist = allowlist or AllowlistPolicy.unrestricted()
        self._embedder = embedder
        self._events = events
        self._clock = clock or SystemClock()
        self._access = access
        factors = {  # how much lower a superseded hit and an insight rank
            name: getattr(settings, setting) if settings else Settings.model_fields[setting].default
            for name, setting in (
                ("superseded_factor", "superseded_rank_factor"),
                ("insight_factor", "insight_rank_factor"),
            )
        }
        self.policy = usage_policy(settings)
        self._retrieval = repos.retrieval
        self._ranking = Ranking(repos, self.policy, **factors)
        self._expansion = ExpandedSearch(repos, embedder, policy=self.policy, **factors)

    @property
    def full_text_only(self) -> bool:
        """Whether the request's vectors are placeholders (no embedder until a re-embed:
        docs/reembedding.md): read after embedding the query, which pins its space."""
        return is_text_only(self._embedder.name)

    def view(
        self,
        *,
        current_only: bool = False,
        valid_at_ms: int | None = None,
        known_at_ms: int | None = None,
    ) -> TimeView:
        return TimeView(
            now_ms=self._clock.now_ms(),
            current_only=current_only,
            valid_at_ms=valid_at_ms,
            known_at_ms=known_at_ms,
        )

    # --- search ---------------------------------------------------------------------------
    async def search(
        self,
        namespace: str,
        query: str,
        *,
        k: int = 10,
        threshold: float = 0.0,
        view: TimeView | None = None,
        options: RetrievalOptions | None = None,
    ) -> list[RankedHit]:
        """The k best thoughts for the query (hybrid unless ``options.hybrid`` is off, the
        graph expansion when ``options.expand``, or when it is None and the hits come from
        conversation sessions), in the retrieval mode's tiers, filtered in the store;
        refined and superseded ones are marked and ranked below their successors (left
        out when current only). ``threshold`` drops hits less similar (cosine) than it."""
        text = checked_query(namespace, query, k, threshold)
        options = checked_options(options)
        embedding = await self._embedder.async_embed_query(text)
        hits = await self._search(namespace, text, embedding, k, threshold, view, options)
        self._record_search(namespace, hits)
        return hits

    async def search_for_context(
        self, namespace: str, query: str, *, k: int = 10, view: TimeView | None = None
    ) -> list[RankedHit]:
        """``search`` for context assembly, which packs by tokens rather than by count: up
        to MAX_CONTEXT_K hits (a caller's search stops at MAX_K)."""
        text = checked_query(namespace, query, 1, 0.0)
        check.require_int_range("k", k, 1, MAX_CONTEXT_K)
        # The default (hybrid) search, as a caller's. Not counted as retrieved: the context
        # service counts what it packs, what the agent is shown.
        options = RetrievalOptions(record_access=False)
        embedding = await self._embedder.async_embed_query(text)
        return await self._search(namespace, text, embedding, k, 0.0, view, options)

    async def search_embedded(
        self,
        namespace: str,
        query: str,
        embedding: Sequence[float],
        *,
        k: int = 10,
        threshold: float = 0.0,
        view: TimeView | None = None,
        options: RetrievalOptions | None = None,
    ) -> list[RankedHit]:
        """``search`` with the query's embedding already made (a caller searching several
        times for one text embeds it once; the benchmark times search without it)."""
        text = checked_query(namespace, query, k, threshold)
        return await self._search(
            namespace, text, embedding, k, threshold, view, checked_options(options)
        )

    async def search_tiered(
        self,
        namespace: str,
        query: str,
        *,
        k: int = 7,
        topic_k: int = DEFAULT_TOPIC_LIMIT,
        detail_level: DetailLevel = DetailLevel.FULL,
        threshold: float = 0.0,
        view: TimeView | None = None,
        options: RetrievalOptions | None = None,
    ) -> TieredResult:
        """The two tiers: the topic summaries nearest the query first, then (at
        ``full``) the thoughts of a search. One query embedding serves both."""
        text = checked_query(namespace, query, k, threshold)
        check.require_int_range("topicLimit", topic_k, 0, check.MAX_K)
        options = checked_options(options)
        full_text = await self._ranking.by_words_only(namespace, lambda: self.full_text_only)
        if full_text is None:  # never written to: nothing to find
            return TieredResult(topics=(), thoughts=(), detail_level=detail_level)
        embedding = await self._embedder.async_embed_query(text)
        topics: list[TopicHit] = []
        if topic_k:
            found = await (  # without an embedder: BM25 scaled, not cosines (no threshold)
                topics_by_words(self._repos, namespace, text, topic_k)
                if full_text
                else self._retrieval.topics(namespace, embedding, topic_k)
            )
            floor = min(threshold, 0.0) if full_text else threshold
            topics = [
                TopicHit(topic=topic, similarity=max(0.0, sim))
                for topic, sim in found
                if sim >= floor
            ]
        thoughts: list[RankedHit] = []
        if detail_level is DetailLevel.FULL:
            thoughts = await self._search(namespace, text, embedding, k, threshold, view, options)
        self._record_search(namespace, thoughts)
        return TieredResult(
            topics=tuple(topics), thoughts=tuple(thoughts), detail_level=detail_level
        )

    # --- what a caller asks for: its allowlist and every default applied here, once ------
    async def search_for(
        self,
        caller: Principal,
        namespace: str,
        query: str,
        *,
        agent: str | None = None,
        k: int | None = None,
        threshold: float | None = None,
        view: TimeView | None = None,
        filter: SearchFilter | None = None,
        mode: RetrievalMode | None = None,
        hybrid: bool | None = None,
        expand: bool | None = None,
    ) -> list[RankedHit]:
        """A caller's search, within the allowlist of the agent it reads as (AGENT_MISMATCH
        for a claimed agent its key is not, CATEGORY_NOT_ALLOWED for a category outside
        it); an argument left out (None) takes its default."""
        check_access(caller, Action.READ, namespace)
        options = self._readable(caller, agent, caller_options(filter, mode, hybrid, expand))
        if options is None:
            return []
        return await self.search(
            namespace,
            query,
            k=DEFAULT_SEARCH_K if k is None else k,
            threshold=0.0 if threshold is None else threshold,
            view=scoped(view, caller, self._clock.now_ms()),
            options=options,
        )

    async def search_tiered_for(
        self,
        caller: Principal,
        namespace: str,
        query: str,
        *,
        agent: str | None = None,
        limit: int | None = None,
        topic_limit: int | None = None,
        detail_level: DetailLevel | None = None,
        threshold: float | None = None,
        view: TimeView | None = None,
        filter: SearchFilter | None = None,
        mode: RetrievalMode | None = None,
    ) -> TieredResult:
        """``search_tiered`` for a caller, as ``search_for``; an agent with an allowlist gets
        no topics (a topic's summary draws on thoughts of any category)."""
        check_access(caller, Action.READ, namespace)
        size = DEFAULT_TIERED_K if limit is None else limit
        check.require_int_range("limit", size, 1, MAX_LIMIT)
        topics = DEFAULT_TOPIC_LIMIT if topic_limit is None else topic_limit
        check.require_int_range("topicLimit", topics, 0, MAX_TOPIC_LIMIT)
        level = detail_level or DetailLevel.FULL
        options = self._readable(caller, agent, caller_options(filter, mode, True, False))
        if options is None:
            return TieredResult(topics=(), thoughts=(), detail_level=level)
        if self._allowlist.readable_by(caller.agent, agent) is not None:
            topics = 0
        return await self.search_tiered(
            namespace,
            query,
            k=size,
            topic_k=topics,
            detail_level=level,
            threshold=0.0 if threshold is None else threshold,
            view=scoped(view, caller, self._clock.now_ms()),
            options=options,
        )

    def _readable(
        self, caller: Principal, agent: str | None, options: RetrievalOptions
    ) -> RetrievalOptions | None:
        allowed = self._allowlist.readable_by(caller.agent, agent, options.filter.categories)
        return within_allowlist(options, allowed)

    def _record_search(self, namespace: str, hits: Sequence[RankedHit]) -> None:
        """The search event: the best hit and its similarity. A search that found
        nothing leaves none: its namespace may never have been written, and an event would
        create it. The context assembler's searches are its own one event."""
        if not hits or current_node() is OpsNode.CONTEXT:
            return
        best = hits[0]
        self._events.record(
            namespace,
            "search",
            memory_id=best.thought.id,
            category=best.thought.category,
            similarity=best.similarity,
        )

    async def _search(
        self,
        namespace: str,
        text: str,
        embedding: Sequence[float],
        k: int,
        threshold: float,
        view: TimeView | None,
        options: RetrievalOptions,
    ) -> list[RankedHit]:
        view = self._view_for(view, options)
        full_text = await self._ranking.by_words_only(namespace, lambda: self.full_text_only)
        if full_text is None:  # else True: no vectors to expand by
            return []
        expand = bool(options.expand) and not full_text
        pool = max(k, EXPANSION_POOL) if expand else k
        base = self._ranking.base
        hits = await base(namespace, text, embedding, pool, threshold, view, options, full_text)
        if options.expand is None and not full_text and from_sessions(hits):
            expand = True  # the default: expand hits from conversations
            pool = max(k, EXPANSION_POOL)
            hits = await base(namespace, text, embedding, pool, threshold, view, options, False)
        if expand:
            hits = await self._expansion.rerank(
                namespace,
                text,
                embedding,
                hits,
                k,
                threshold=threshold,
                view=view,
                params=self._ranking.params(options),
                lineage=self._ranking.lineage,
            )
        # Near-duplicates: the newer first, before any judge.
        hits = await self._ranking.newer_first(namespace, hits, vectors=not full_text)
        if self._access is not None and options.record_access:
            self._access.record(namespace, [hit.thought.id for hit in hits])
        return hits

    def _view_for(self, view: TimeView | None, options: RetrievalOptions) -> TimeView:
        view = view or self.view()
        return view.model_copy(
            update={
                "current_only": view.current_only or options.filter.current_only,
                "include_forgotten": view.include_forgotten or includes_forgotten(options.mode),
            }
        )

    # --- usage ----------------------------------------------------------------------------
    async def cite(
        self, namespace: str, thought_id: str, action: str, *, caller: Principal | None = None
    ) -> Thought:
        """An agent acted on this thought: its retention rises."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("thoughtId", thought_id)
        what = check.require_text("action", action, MAX_ACTION_CHARS)
        await require_seen(self._repos, namespace, tid, caller)
        found = await self._retrieval.cite(namespace, tid, what, self._clock.now_ms())
        if found is None:
            raise ThoughtNotFoundError([tid])
        return found

    async def ignore(
        self, namespace: str, thought_id: str, *, caller: Principal | None = None
    ) -> Thought:
        """An agent was given this thought and did not use it: it sinks toward cold."""
        check_access(caller, Action.WRITE, namespace)
        check.require_namespace(namespace)
        tid = check.require_thought_id("thoughtId", thought_id)
        await require_seen(self._repos, namespace, tid, caller)
        found = await self._retrieval.ignore(namespace, tid)
        if found is None:
            raise ThoughtNotFoundError([tid])
        return found

    # --- reasons of changes ---------------------------------------------------------------
    async def search_changes(
        self,
        namespace: str,
        query: str,
        *,
        k: int | None = None,
        caller: Principal | None = None,
    ) -> list[LineageEdgeHit]:
        """REFINES/CONSOLIDATES/SUPERSEDES edges whose reason is closest to the query."""
        check_access(caller, Action.READ, namespace)
        k = DEFAULT_SEARCH_K if k is None else k
        check.require_namespace(namespace)
        text = check.require_text("query", query, check.MAX_QUERY_CHARS)
        check.require_int_range("k", k, 1, check.MAX_K)
        embedding = await self._embedder.async_embed_query(text)
        if self.full_text_only:
            raise VectorSearchUnavailableError("searching the reasons of changes")
        hits = await self._repos.lineage.search_reasons(namespace, embedding, k)
        ends = [i for hit in hits for i in (hit.from_id, hit.to_id)]
        shown = await ids_seen(self._repos, namespace, ends, viewer_of(caller))
        return [hit for hit in hits if hit.from_id in shown and hit.to_id in shown]
