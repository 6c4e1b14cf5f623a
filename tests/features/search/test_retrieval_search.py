"""Hybrid search over the real engines (both, through the `store` fixture) with the
local embedder: filters inside the store, fusion, explanations, retention modes, cite and
ignore, two-tier results."""

from __future__ import annotations

from typing import Any

import pytest

from tests.observability_support import CountingObserver
from tests.retrieval_support import (
    DAY_MS,
    SetClock,
    Writer,
    at_cosine,
    cosine,
    near,
    search_service,
)
from tests.support import LoopThread, repos
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.models import ThoughtKind, ThoughtState, new_thought_id
from thoughtgraph.domain.ranking.near_duplicates import newer_first
from thoughtgraph.domain.ranking.retention import retention_score
from thoughtgraph.domain.ranking.scoring import PRIOR_FLOOR, WEIGHTS
from thoughtgraph.domain.retrieval import (
    DetailLevel,
    RetentionTier,
    RetrievalMode,
    RetrievalOptions,
    SearchFilter,
)
from thoughtgraph.features.search.repository import RetrievalRepository
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.params import filter_params

QUERY = "how are the deployment pipelines monitored"
ACTOR = Actor(id="tester", name="Tester")


@pytest.fixture
def clock() -> SetClock:
    from thoughtgraph.domain.models import now_ms

    return SetClock(now_ms())


@pytest.fixture
def writer(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, ns: str
) -> Writer:
    return Writer(loop, store, local_embedder, ns)


def options(mode: RetrievalMode = RetrievalMode.STANDARD, **filters: object) -> RetrievalOptions:
    return RetrievalOptions(
        filter=SearchFilter(**filters), mode=mode, hybrid=True, record_access=False
    )


def ids(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [hit.thought.id for hit in hits]


# --- filters, inside the store ----------------------------------------------------------

FILTER_CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "kinds": ({"kind": ThoughtKind.DECISION}, {"kinds": (ThoughtKind.DECISION,)}),
    "categories": ({"category": "ops"}, {"categories": ("ops",)}),
    "tags": ({"tags": ("deploy", "ci")}, {"tags": ("deploy", "ci")}),
    "agent": ({"agent_id": "agent-7"}, {"agent_id": "agent-7"}),
    "importance": ({"importance": 5}, {"importance_min": 5, "importance_max": 5}),
    "pinned": ({"pinned": True}, {"pinned": True}),
}


@pytest.mark.parametrize("case", sorted(FILTER_CASES))
def test_each_filter_runs_inside_the_store(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    local_embedder: TextEmbedder,
    ns: str,
    case: str,
) -> None:
    """60 non-matching thoughts closer to the query than the one that matches: a filter
    applied after the vector index's top candidates would lose it; in the store it is
    found by both candidate lists."""
    matching_fields, search_filter = FILTER_CASES[case]
    query_vector = writer.embed(QUERY)
    for i in range(60):
        writer.thought(
            f"deployment pipelines are monitored by dashboard {i}",
            embedding=near(query_vector, 0.2, i),
            created_at_ms=clock.now - i,
            tags=("deploy",),
        )
    target = writer.thought(
        "the deployment pipelines are monitored with alerts",
        embedding=near(query_vector, 1.5, 99),
        created_at_ms=clock.now - 100,
        **matching_fields,
    )
    service = search_service(store, local_embedder, clock)
    hits = loop.run(service.search(ns, QUERY, k=5, options=options(**search_filter)))
    assert ids(hits) == [target.id]
    # Each candidate list on its own, straight from the repository, holds only matches.
    repo = RetrievalRepository(store)
    params = filter_params(SearchFilter(**search_filter), None, service.policy)
    view = service.view()
    vector_rows = loop.run(repo.vector_candidates(ns, query_vector, 5, view, params, narrows=True))
    text_rows = loop.run(
        repo.text_candidates(ns, "monitored", query_vector, 5, view, params, narrows=True)
    )
    assert [r.thought.id for r in vector_rows] == [target.id]
    assert [r.thought.id for r in text_rows] == [target.id]


def test_time_and_state_filters(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    old = writer.thought("pipelines monitored by cron", created_at_ms=clock.now - 5 * DAY_MS)
    new = writer.thought("pipelines monitored by alerts", created_at_ms=clock.now - DAY_MS)
    gone = writer.thought("pipelines monitored by people", created_at_ms=clock.now - DAY_MS)
    loop.run(
        repos(store).retention.set_state(
            ns, gone.id, ThoughtState.SOFT_DELETED, purge_at_ms=None, actor=ACTOR, at_ms=clock.now
        )
    )
    service = search_service(store, local_embedder, clock)
    after = options(updated_after_ms=clock.now - 2 * DAY_MS)
    assert ids(loop.run(service.search(ns, QUERY, options=after))) == [new.id]
    before = options(updated_before_ms=clock.now - 2 * DAY_MS)
    assert ids(loop.run(service.search(ns, QUERY, options=before))) == [old.id]
    forgotten = options(RetrievalMode.EXHAUSTIVE, states=(ThoughtState.SOFT_DELETED,))
    assert ids(loop.run(service.search(ns, QUERY, options=forgotten))) == [gone.id]
    everything = loop.run(service.search(ns, QUERY, options=options(RetrievalMode.EXHAUSTIVE)))
    assert set(ids(everything)) == {old.id, new.id, gone.id}


def test_current_only_leaves_superseded_out_and_threshold_drops_weak_hits(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    older = writer.thought(
        "deployment pipelines are monitored by cron", created_at_ms=clock.now - 2
    )
    newer = writer.thought(
        "deployment pipelines are monitored by alerts", created_at_ms=clock.now - 1
    )
    weak = writer.thought("a recipe for tomato soup", created_at_ms=clock.now - 3)
    vector = writer.embed("monitored by alerts now")
    loop.run(
        repos(store).supersession.supersede(
            ns,
            newer.id,
            older.id,
            reason="alerts now",
            reason_embedding=vector,
            detector="test",
            confidence=1.0,
            actor=ACTOR,
            at_ms=clock.now,
        )
    )
    service = search_service(store, local_embedder, clock)
    hits = loop.run(service.search(ns, QUERY, options=options()))
    assert ids(hits)[:2] == [newer.id, older.id]
    assert hits[1].superseded and hits[1].superseded_by == newer.id
    assert hits[1].explanation is not None and hits[1].explanation.supersession_factor == 0.5
    current = loop.run(service.search(ns, QUERY, options=options(current_only=True)))
    assert older.id not in ids(current)
    strong = loop.run(service.search(ns, QUERY, threshold=0.4, options=options()))
    assert weak.id not in ids(strong) and newer.id in ids(strong)
    assert all(hit.similarity >= 0.4 for hit in strong)


# --- fusion and explanations -------------------------------------------------------------


def test_fusion_finds_an_exact_keyword_match_vector_search_misses(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    """When the embedding finds nothing better than weak matches, the one thought that
    holds the query's rare word comes from the full-text list and its BM25 puts it first
    (the vector side never saw it: fifty weak matches, all about as close, fill its
    candidates, and a gap of a few hundredths in cosine does not outweigh the keyword)."""
    query = "zorblax rotation schedule"
    query_vector = writer.embed(query)
    target_vector = writer.embed("tomato soup recipe with basil")
    weak = cosine(query_vector, target_vector) + 0.04
    for i in range(50):
        writer.thought(
            f"on-call handover notes for week {i}",
            embedding=at_cosine(query_vector, weak, i),
            created_at_ms=clock.now - i,
        )
    target = writer.thought(
        "ZORBLAX keys are replaced every ninety days",
        embedding=target_vector,
        created_at_ms=clock.now - 100,
    )
    service = search_service(store, local_embedder, clock)
    plain = loop.run(
        service.search(ns, query, k=3, options=RetrievalOptions(hybrid=False, record_access=False))
    )
    assert target.id not in ids(plain)
    hybrid = loop.run(service.search(ns, query, k=3, options=options()))
    assert ids(hybrid)[0] == target.id
    found = hybrid[0]
    assert found.explanation is not None
    assert found.explanation.text_rank == 1 and found.explanation.vector_rank is None


def test_explanations_add_up(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    writer.thought(
        "deployment pipelines are monitored by alerts",
        created_at_ms=clock.now - DAY_MS,
        salience=0.9,
        pheromone_weight=3.0,
    )
    writer.thought("pipelines monitored with dashboards", created_at_ms=clock.now - 40 * DAY_MS)
    writer.thought("the monitoring of pipelines is manual", created_at_ms=clock.now)
    service = search_service(store, local_embedder, clock)
    hits = loop.run(service.search(ns, QUERY, options=options(RetrievalMode.DEEP)))
    assert len(hits) == 3
    # Score order, but for near-duplicates (these three are), the newer in the better place.
    by_score = sorted(hits, key=lambda h: h.score, reverse=True)
    assert ids(hits) == ids(newer_first(by_score))
    for hit in hits:
        e = hit.explanation
        assert e is not None
        prior = sum(WEIGHTS[name] * getattr(e, name) for name in WEIGHTS)
        assert e.prior == pytest.approx(prior)
        assert e.prior_factor == pytest.approx(PRIOR_FLOOR + (1 - PRIOR_FLOOR) * prior)
        expected = min(1.0, e.relevance * e.prior_factor * e.lineage_factor) * e.supersession_factor
        assert hit.score == pytest.approx(expected) == pytest.approx(e.score)
        assert 0.0 <= hit.score <= 1.0 and 0.0 <= hit.similarity <= 1.0
        assert 0.0 <= e.relevance <= 1.0


# --- retention tiers and modes -----------------------------------------------------------


def test_modes_reach_their_tiers(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    # Half-life 30 days: 0 days -> 1.0 hot, 30 -> 0.5 warm, 60 -> 0.25 cold, 200 -> archived.
    ages = {"hot": 0, "warm": 30, "cold": 60, "archived": 200}
    made = {
        tier: writer.thought(
            f"deployment pipelines monitored, {tier}", created_at_ms=clock.now - days * DAY_MS
        )
        for tier, days in ages.items()
    }
    forgotten = writer.thought("deployment pipelines monitored, forgotten", created_at_ms=clock.now)
    loop.run(
        repos(store).retention.set_state(
            ns,
            forgotten.id,
            ThoughtState.SOFT_DELETED,
            purge_at_ms=None,
            actor=ACTOR,
            at_ms=clock.now,
        )
    )
    pinned_old = writer.thought(
        "deployment pipelines monitored, pinned",
        created_at_ms=clock.now - 400 * DAY_MS,
        pinned=True,
    )
    service = search_service(store, local_embedder, clock)

    def reached(mode: RetrievalMode) -> set[str]:
        return set(ids(loop.run(service.search(ns, QUERY, k=20, options=options(mode)))))

    hot = {made["hot"].id, pinned_old.id}
    assert reached(RetrievalMode.REFLEXIVE) == hot
    assert reached(RetrievalMode.STANDARD) == hot | {made["warm"].id}
    assert reached(RetrievalMode.DEEP) == hot | {made["warm"].id, made["cold"].id}
    assert reached(RetrievalMode.EXHAUSTIVE) == hot | {
        made["warm"].id,
        made["cold"].id,
        made["archived"].id,
        forgotten.id,
    }
    tiers = {
        hit.thought.id: hit.tier
        for hit in loop.run(
            service.search(ns, QUERY, k=20, options=options(RetrievalMode.EXHAUSTIVE))
        )
    }
    assert tiers[made["warm"].id] is RetentionTier.WARM
    assert tiers[made["archived"].id] is RetentionTier.ARCHIVED
    assert tiers[pinned_old.id] is RetentionTier.HOT


def test_store_and_python_retention_agree(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    for days in (0, 3, 17, 45, 90):
        writer.thought(
            f"deployment pipelines monitored {days}", created_at_ms=clock.now - days * DAY_MS
        )
    service = search_service(store, local_embedder, clock, retention_half_life_days=10)
    hits = loop.run(service.search(ns, QUERY, k=20, options=options(RetrievalMode.EXHAUSTIVE)))
    assert len(hits) == 5
    for hit in hits:
        assert hit.retention == pytest.approx(
            retention_score(hit.thought, clock.now, service.policy)
        )


# --- usage: cite and ignore --------------------------------------------------------------


def test_cite_and_ignore_change_the_ranking(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    vector = writer.embed(QUERY)
    first = writer.thought(
        "deployment pipelines are monitored", embedding=vector, created_at_ms=clock.now - 2 * DAY_MS
    )
    second = writer.thought(
        "deployment pipelines are monitored", embedding=vector, created_at_ms=clock.now - 2 * DAY_MS
    )
    service = search_service(store, local_embedder, clock)

    def order() -> list[str]:
        return ids(loop.run(service.search(ns, QUERY, options=options())))

    tied = order()
    lower = tied[1]
    cited = loop.run(service.cite(ns, lower, "used it to fix the monitor"))
    assert cited.cite_count == 1 and cited.last_accessed_at_ms == clock.now
    assert order()[0] == lower
    for _ in range(3):
        ignored = loop.run(service.ignore(ns, lower))
    assert ignored.ignore_count == 3
    assert order()[0] != lower
    assert {first.id, second.id} == set(tied)


def test_cite_and_ignore_refuse_unknown_thoughts(
    loop: LoopThread,
    store: CypherGraphStore,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    from thoughtgraph.domain.errors import ThoughtNotFoundError

    service = search_service(store, local_embedder, clock)
    with pytest.raises(ThoughtNotFoundError):
        loop.run(service.cite(ns, new_thought_id(), "anything"))
    with pytest.raises(ThoughtNotFoundError):
        loop.run(service.ignore(ns, new_thought_id()))


# --- two tiers ----------------------------------------------------------------------------


def test_two_tier_results_put_topic_summaries_first(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    member = writer.thought("deployment pipelines are monitored by alerts", created_at_ms=clock.now)
    topic_id = f"topic-{new_thought_id()}"
    loop.run(
        repos(store).topics.create(
            ns,
            topic_id,
            "deployment monitoring",
            writer.embed("deployment monitoring"),
            actor=ACTOR,
            at_ms=clock.now,
            first_thought_id=member.id,
        )
    )
    unsummarised = f"topic-{new_thought_id()}"
    loop.run(
        repos(store).topics.create(
            ns,
            unsummarised,
            "deployment pipelines",
            writer.embed(QUERY),
            actor=ACTOR,
            at_ms=clock.now,
            first_thought_id=member.id,
        )
    )
    loop.run(
        repos(store).topics.summarise(
            ns,
            topic_id,
            "Pipelines are monitored by alerts.",
            summariser="test",
            actor=ACTOR,
            at_ms=clock.now,
        )
    )
    service = search_service(store, local_embedder, clock)
    full = loop.run(service.search_tiered(ns, QUERY, options=options()))
    assert [t.topic.id for t in full.topics] == [topic_id]  # only summarised topics
    assert ids(list(full.thoughts)) == [member.id]
    summary = loop.run(service.search_tiered(ns, QUERY, detail_level=DetailLevel.SUMMARY))
    assert [t.topic.id for t in summary.topics] == [topic_id] and summary.thoughts == ()


def test_the_vector_side_widens_when_the_tiers_leave_too_few(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    """130 archived thoughts nearer the query than the one hot thought: the first beam
    (40 candidates for one result) holds only archived ones, so the store asks again, wider."""
    query_vector = writer.embed(QUERY)
    for i in range(130):
        writer.thought(
            f"old note {i}",
            embedding=near(query_vector, 0.2, i),
            created_at_ms=clock.now - 400 * DAY_MS,
        )
    hot = writer.thought(
        "fresh note", embedding=near(query_vector, 1.2, 999), created_at_ms=clock.now
    )
    service = search_service(store, local_embedder, clock)
    repo = RetrievalRepository(store)
    params = filter_params(SearchFilter(), service.policy.warm_threshold, service.policy)
    rows = loop.run(
        repo.vector_candidates(ns, query_vector, 1, service.view(), params, narrows=False)
    )
    assert [r.thought.id for r in rows] == [hot.id]


def test_an_unsaturated_answer_with_nothing_passed_is_not_widened(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    ns: str,
    local_embedder: TextEmbedder,
) -> None:
    """Three thoughts and a filter none passes: each side saw fewer candidates than it
    asked for, so asking again, wider, cannot find more; one read each. The same filter
    in a namespace where the first beam is saturated still widens, from a narrower first
    beam when the search does not say it narrows."""
    query_vector = writer.embed(QUERY)
    # A word of this namespace alone: Neo4j's full-text index spans the test's namespaces.
    word = "probe" + ns.replace("-", "").replace("_", "")[-12:]
    for i in range(3):
        writer.thought(f"pipelines {word} by dashboard {i}", created_at_ms=clock.now - i)
    service = search_service(store, local_embedder, clock)
    repo = RetrievalRepository(store)
    params = filter_params(SearchFilter(agent_id="nobody"), None, service.policy)
    view = service.view()
    counting = CountingObserver()
    before, store.observer = store.observer, counting
    try:
        vector_rows = loop.run(
            repo.vector_candidates(ns, query_vector, 5, view, params, narrows=True)
        )
        text_rows = loop.run(
            repo.text_candidates(ns, word, query_vector, 5, view, params, narrows=True)
        )
        assert vector_rows == [] and text_rows == []
        assert counting.counts.get("search.vector_candidates") == 1
        assert counting.counts.get("search.text_candidates") == 1
        # Saturated: 210 matches of the word, the first beam 200 of them, none passing.
        for i in range(3, 210):
            writer.thought(f"pipelines {word} by dashboard {i}", created_at_ms=clock.now - i)
        counting.counts.clear()
        wider = loop.run(
            repo.text_candidates(ns, word, query_vector, 5, view, params, narrows=True)
        )
        assert wider == []
        assert counting.counts.get("search.text_candidates") == 2
        # A search that does not narrow starts the full-text side at 20 (need x 1.5, at
        # least 20): every match passing, one read; the same rejecting filter unannounced
        # widens 20, 80, 320 (past the 210).
        no_filter = filter_params(SearchFilter(), None, service.policy)
        counting.counts.clear()
        passing = loop.run(
            repo.text_candidates(ns, word, query_vector, 5, view, no_filter, narrows=False)
        )
        assert len(passing) == 5 and all(word in r.thought.content for r in passing)
        assert counting.counts.get("search.text_candidates") == 1
        # The first beam changes the reads, not the answer: the default read's candidates
        # are the ones of a read that starts from 200 (texts of different lengths, so no
        # two share a text score; tied scores at the beam's edge may fall either way).
        ranked = "rank" + ns.replace("-", "").replace("_", "")[-12:]
        for i in range(80):
            writer.thought(f"{ranked} noted " + "again " * i, created_at_ms=clock.now - i)
        default_read = loop.run(
            repo.text_candidates(ns, ranked, query_vector, 30, view, no_filter, narrows=False)
        )
        wide_read = loop.run(
            repo.text_candidates(ns, ranked, query_vector, 30, view, no_filter, narrows=True)
        )
        assert len(default_read) == 30
        assert [r.thought.id for r in default_read] == [r.thought.id for r in wide_read]
        counting.counts.clear()
        unannounced = loop.run(
            repo.text_candidates(ns, word, query_vector, 5, view, params, narrows=False)
        )
        assert unannounced == []
        assert counting.counts.get("search.text_candidates") == 3
    finally:
        store.observer = before


@pytest.mark.parametrize("hybrid", [True, False], ids=["hybrid", "plain"])
def test_a_hit_is_the_whole_thought_a_read_by_id_gives(
    loop: LoopThread,
    store: CypherGraphStore,
    writer: Writer,
    clock: SetClock,
    local_embedder: TextEmbedder,
    ns: str,
    hybrid: bool,
) -> None:
    """Candidates are ranked on a few of their properties (``ranking_fields``); the hits
    come back whole: every field as a read by id returns it, the ranked order kept."""
    rich = writer.thought(
        "the deployment pipelines are monitored with alerts",
        created_at_ms=clock.now - DAY_MS,
        context="ops review",
        session_id="session-9",
        tags=("deploy", "ci"),
        category="ops",
        importance=5,
        pinned=True,
        salience=0.8,
        valid_from_ms=clock.now - 2 * DAY_MS,
        about="pipelines",
    )
    plain = writer.thought("pipelines monitored by cron", created_at_ms=clock.now - 3 * DAY_MS)
    service = search_service(store, local_embedder, clock)
    chosen = RetrievalOptions(hybrid=hybrid, record_access=False)
    hits = loop.run(service.search(ns, QUERY, k=5, options=chosen))
    assert set(ids(hits)) == {rich.id, plain.id}
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    stored = loop.run(repos(store).thoughts.get_many(ns, [rich.id, plain.id]))
    for hit in hits:
        assert hit.thought == stored[hit.thought.id]
    assert stored[rich.id].tags == ("deploy", "ci") and stored[rich.id].about == "pipelines"
