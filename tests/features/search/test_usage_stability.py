"""Usage cannot move a search's answer: recording hits as shown (lastAccessedAt,
accessCount) rewrites the thoughts' nodes but must change neither which candidates come
nor how they rank. Retrievals stay out of the score (app/domain/ranking/scoring.py), and
the full-text side takes every match of the words that bring its candidates, so which
come does not hang on the engine's own scores (app/store/fulltext.py, planned_query's
budget). `thoughtgraph eval replay` measures the same on a conversation benchmark."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.retrieval_support import SetClock, Writer, search_service
from tests.support import LoopThread, repos
from thoughtgraph.domain.models import now_ms
from thoughtgraph.domain.retrieval import RetrievalOptions
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.store.cypher_store import CypherGraphStore

ACTIVITIES = (
    "went hiking near the lake",
    "baked bread for the neighbours",
    "fixed the bike's brakes",
    "read a novel about sailors",
    "painted the fence blue",
    "visited the farmers market",
    "practised the violin",
    "planted tomatoes",
)
QUESTIONS = (
    "What did Jon paint?",
    "Where did Gina go hiking?",
    "Who practised the violin and what did Jon bake?",
)


@pytest.fixture
def conversation(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, ns: str
) -> list[str]:
    """Two speakers whose names open every turn (each name matches most of the
    namespace, as in any chat log), saying a few things many times over."""
    writer = Writer(loop, store, local_embedder, ns)
    start = now_ms() - 10_000
    ids = []
    for n in range(200):
        speaker = "Jon" if n % 2 else "Gina"
        text = f"{speaker}: on day {n} I {ACTIVITIES[n % len(ACTIVITIES)]}"
        ids.append(writer.thought(text, created_at_ms=start + n).id)
    return ids


def test_search_answers_the_same_after_its_hits_were_recorded_as_shown(
    loop: LoopThread,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    ns: str,
    conversation: list[str],
) -> None:
    service = search_service(store, local_embedder, SetClock(now_ms()))
    quiet = RetrievalOptions(record_access=False)

    def answers() -> list[list[str]]:
        return [
            [hit.thought.id for hit in loop.run(service.search(ns, q, k=10, options=quiet))]
            for q in QUESTIONS
        ]

    before = answers()
    retention = repos(store).retention
    for round_ in range(3):  # every thought shown, some more often: their nodes rewritten
        shown = Counter({tid: 1 + (i + round_) % 3 for i, tid in enumerate(conversation)})
        loop.run(retention.touch(ns, shown, now_ms()))
    assert answers() == before
