"""Search with the graph expansion (``RetrievalOptions(expand=True)``) on both engines:
a turn the base search ranks out of its pool comes back through its session neighbour,
and a newcomer is held to the search's filters like any hit (a category the search does
not read never comes in through the graph)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.retrieval_support import SetClock, Writer, at_cosine, search_service
from tests.support import LoopThread
from thoughtgraph.domain.models import SearchHit, now_ms
from thoughtgraph.domain.retrieval import RankedHit, RetrievalOptions, SearchFilter
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.store.cypher_store import CypherGraphStore

QUERY = "what did Bob paint?"
DISTRACTORS = 60  # more than the pool the expansion starts from (50)


def _ids(hits: Sequence[SearchHit]) -> list[str]:
    return [hit.thought.id for hit in hits]


def test_expansion_brings_a_session_neighbour_within_the_filters(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    ns: str,
) -> None:
    writer = Writer(loop, store, local_embedder, ns)
    at = now_ms() - 3_600_000
    query_vector = writer.embed(QUERY)
    question = writer.thought(
        "Ann: did you finish the painting?",
        embedding=at_cosine(query_vector, 0.9, 1),
        created_at_ms=at,
        session_id="s1",
        category="art",
    )
    answer = writer.thought(
        "yes, a sunset over the lake",
        embedding=at_cosine(query_vector, 0.05, 2),
        created_at_ms=at + 1000,
        session_id="s1",
        category="art",
    )
    secret = writer.thought(
        "my bank PIN is 4321",
        embedding=at_cosine(query_vector, 0.05, 3),
        created_at_ms=at + 2000,
        session_id="s1",
        category="private",
    )
    for i in range(DISTRACTORS):  # each closer to the query than the answer, no session
        writer.thought(
            f"note number {i}",
            embedding=at_cosine(query_vector, 0.08, 100 + i),
            created_at_ms=at - 10_000 - i,
            category="art",
        )
    service = search_service(store, local_embedder, SetClock(now_ms()))
    art = SearchFilter(categories=("art",))

    def search(**options: Any) -> list[RankedHit]:
        chosen = RetrievalOptions(record_access=False, **options)
        return list(loop.run(service.search(ns, QUERY, k=5, options=chosen)))

    base = _ids(search(filter=art))
    assert base[0] == question.id and answer.id not in base
    expanded = search(filter=art, expand=True)
    assert _ids(expanded)[0] == question.id
    assert answer.id in _ids(expanded)  # only reachable through the session
    assert secret.id not in _ids(expanded)  # a neighbour, but outside the filter
    newcomer = next(hit for hit in expanded if hit.thought.id == answer.id)
    assert newcomer.tier is not None and 0.0 <= newcomer.retention <= 1.0
    # Without the filter the same neighbour link brings the other category in too: the
    # filter, not the ranking, is what kept it out.
    assert secret.id in _ids(search(expand=True))
