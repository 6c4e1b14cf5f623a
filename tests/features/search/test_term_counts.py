"""Remembered word counts (app/retrieval/term_counts.py): fresh for a minute, zeros never
remembered, oldest forgotten first; and through a real engine, a word that matched
nothing is counted again, so a thought written since is found by it."""

from __future__ import annotations

from tests.retrieval_support import Writer
from tests.support import LoopThread
from thoughtgraph.domain.models import TimeView, now_ms
from thoughtgraph.domain.retrieval import SearchFilter, UsagePolicy
from thoughtgraph.features.search.repository import RetrievalRepository
from thoughtgraph.features.search.term_counts import TTL_S, TermCounts
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.params import filter_params


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_counts_are_remembered_for_a_minute_and_zeros_not_at_all() -> None:
    clock = Clock()
    counts = TermCounts(clock=clock)
    counts.remember("ns", {"deploy": 1001, "canary": 3, "nothing": 0})
    assert counts.known("ns", ["deploy", "canary", "nothing"]) == {"deploy": 1001, "canary": 3}
    assert counts.known("other", ["deploy"]) == {}  # per namespace
    clock.now += TTL_S - 1
    assert counts.known("ns", ["deploy"]) == {"deploy": 1001}
    clock.now += 2
    assert counts.known("ns", ["deploy", "canary"]) == {}


def test_the_oldest_counts_go_first_past_the_limit() -> None:
    counts = TermCounts(clock=Clock(), max_entries=2)
    counts.remember("ns", {"a": 1, "b": 2})
    counts.remember("ns", {"c": 3})
    assert counts.known("ns", ["a", "b", "c"]) == {"b": 2, "c": 3}


def test_a_word_that_matched_nothing_finds_a_thought_written_since(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, ns: str
) -> None:
    writer = Writer(loop, store, local_embedder, ns)
    writer.thought("an unrelated note", created_at_ms=now_ms())
    repository = RetrievalRepository(store)  # one repository: its counts are remembered
    vector = writer.embed("zyxwords")
    params = filter_params(SearchFilter(), None, UsagePolicy())

    def found() -> list[str]:
        rows = loop.run(
            repository.text_candidates(
                ns, "zyxwords note", vector, 10, TimeView(now_ms=now_ms()), params, narrows=False
            )
        )
        return [row.thought.content for row in rows]

    assert found() == ["an unrelated note"]
    writer.thought("zyxwords arrived", created_at_ms=now_ms())
    assert "zyxwords arrived" in found()
