"""The first tier of a two-tier search without an embedder (TG_EMBEDDER=none): the
namespace's summarised topics ranked by BM25 of the query's words over each topic's name
and summary, in place of the vector index (whose vectors are placeholders then)."""

from __future__ import annotations

from thoughtgraph.domain.knowledge import Topic
from thoughtgraph.domain.ranking import keywords
from thoughtgraph.features.repositories import Repositories

# A namespace has few topics (tens to hundreds); the most recently updated are ranked.
MAX_TOPICS_RANKED = 1000


async def topics_by_words(
    repos: Repositories, namespace: str, text: str, k: int
) -> list[tuple[Topic, float]]:
    """Up to ``k`` summarised topics sharing a word with ``text``, best first, each with
    its BM25 scaled to 0..1 over the ranked topics (1: the best match)."""
    topics = [t for t in await repos.topics.recent(namespace, MAX_TOPICS_RANKED) if t.summary]
    documents = {t.id: f"{t.name}\n{t.summary}" for t in topics}
    stems = {doc_id: set(keywords.words(doc)) for doc_id, doc in documents.items()}
    matches = {
        word: sum(1 for found in stems.values() if keywords.stem(word) in found)
        for word in keywords.query_words(text)
    }
    statistics = keywords.KeywordStatistics(namespace_size=len(topics), matches=matches)
    scores = keywords.bm25_scores(text, documents, statistics)
    ranked = sorted((t for t in topics if scores[t.id] > 0), key=lambda t: (-scores[t.id], t.id))[
        :k
    ]
    scaled = keywords.normalised([scores[t.id] for t in ranked])
    return list(zip(ranked, scaled, strict=True))
