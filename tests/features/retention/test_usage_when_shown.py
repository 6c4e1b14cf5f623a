"""Usage is counted when a thought is shown to the caller, not when it passed through a
candidate pool, and being shown does not lift a thought in later rankings (citing does):
so answering questions cannot erode what the next question finds. Both engines."""

from __future__ import annotations

from pathlib import Path

from tests.knowledge_support import contribute, make_runtime
from tests.support import LoopThread
from thoughtgraph.domain.context.model import Signals
from thoughtgraph.domain.ranking.scoring import usage
from thoughtgraph.domain.retrieval import UsagePolicy
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.store.cypher_store import CypherGraphStore

NOTES = [
    f"The {town} office moved its weekly planning meeting to {day} mornings."
    for town, day in [
        ("Lisbon", "Monday"),
        ("Oslo", "Tuesday"),
        ("Quito", "Wednesday"),
        ("Hanoi", "Thursday"),
        ("Accra", "Friday"),
        ("Lima", "Saturday"),
    ]
]


def test_context_counts_what_it_packed_only(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> None:
    runtime = make_runtime(store, local_embedder, tmp_path)
    services = runtime.services
    ids = [contribute(loop, runtime, ns, note) for note in NOTES]
    signals = Signals(query="When does the Lisbon office plan its week?")
    # A budget for a few items: the search hands the packer more candidates than fit.
    assembled = loop.run(services.context.assemble(ns, budget=40, signals=signals))
    shown = set(assembled.packing.ids) & set(ids)
    assert shown and shown != set(ids), assembled.packing.ids
    assert assembled.candidates > len(shown)
    loop.run(services.access.flush())
    counts = {
        t.id: t.access_count
        for t in loop.run(services.browse.get_many(ns, ids, Viewer.everyone())).values()
    }
    assert {tid for tid, n in counts.items() if n > 0} == shown, counts
    # A prediction shows nothing: it counts nothing.
    loop.run(services.context.predict(ns, signals=signals, budget=40))
    loop.run(services.access.flush())
    again = {
        t.id: t.access_count
        for t in loop.run(services.browse.get_many(ns, ids, Viewer.everyone())).values()
    }
    assert again == counts


def test_search_counts_its_hits_and_retrievals_do_not_lift_the_ranking(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> None:
    runtime = make_runtime(store, local_embedder, tmp_path)
    services = runtime.services
    ids = [contribute(loop, runtime, ns, note) for note in NOTES]
    question = "Which office plans on Thursday?"
    first = [hit.thought.id for hit in loop.run(services.search.search(ns, question, k=2))]
    loop.run(services.access.flush())
    counted = {
        t.id
        for t in loop.run(services.browse.get_many(ns, ids, Viewer.everyone())).values()
        if t.access_count
    }
    assert counted == set(first)
    # Other questions' hits, shown many times over, do not climb past this question's.
    for _ in range(5):
        loop.run(services.search.search(ns, "Which office plans on Monday?", k=3))
    loop.run(services.access.flush())
    later = [hit.thought.id for hit in loop.run(services.search.search(ns, question, k=2))]
    assert later == first


def test_only_citations_weigh_in_the_usage_prior() -> None:
    from tests.domain.test_retrieval_units import thought

    policy = UsagePolicy()
    recently_shown = thought(access_count=500, last_accessed_at_ms=10**12)
    assert usage(recently_shown, policy) == usage(thought(), policy)
    assert usage(thought(cite_count=2), policy) > usage(thought(), policy)
    assert usage(thought(ignore_count=2), policy) < usage(thought(), policy)
