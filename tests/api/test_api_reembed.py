"""A service without an embedder (TG_EMBEDDER=none), end to end over real HTTP on both
engines: contribute works, search, two-tier search and context assembly answer from full
text alone, a search by meaning only is refused with a clear code, and a store built so
refuses an embedder until its vectors are real (docs/reembedding.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from tests.api.test_api_lineage import CONTRIBUTE, agent
from tests.support import GraphQLClient, serve_in_thread
from thoughtgraph.domain.errors import SchemaMismatchError
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.runtime import open_runtime
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

SEARCH = """
query($q: String!, $ns: String!, $hybrid: Boolean) {
  search(query: $q, namespace: $ns, hybrid: $hybrid, k: 10) { id similarity }
}"""
TIERED = """
query($q: String!, $ns: String!) {
  searchTiered(query: $q, namespace: $ns) { topics { summary similarity } hits { id } }
}"""
CHANGES = """
query($q: String!, $ns: String!) { searchChanges(query: $q, namespace: $ns) { reason } }"""
ASSEMBLE = """
query($q: String!, $ns: String!) {
  assembleContext(namespace: $ns, budget: 2000, signals: {query: $q}) { ids text }
}"""
NOTES = {
    "backups": "Backups run nightly at two in the morning",
    "webhooks": "The billing service retries failed webhooks three times",
    "deploys": "Deploys go out through the GitHub Actions pipeline",
}


def _write_notes(api: GraphQLClient, ns: str) -> dict[str, str]:
    ids = {}
    for name, text in NOTES.items():
        written = api.data(CONTRIBUTE, input=agent(ns, text))["contribute"]
        ids[name] = written["thought"]["id"]
    return ids


async def _consolidate(settings: Settings, ns: str) -> None:
    """The consolidation job (topics and their summaries), as a worker runs it."""
    async with open_runtime(settings) as runtime:
        run = await runtime.services.consolidation.request(ns, dry_run=False, trigger="test")
        await run_consolidation(runtime, ns, run.id, dry_run=False)


def test_full_text_only_service_end_to_end(
    engine: str, engine_settings: Callable[..., Settings], ns: str, request: pytest.FixtureRequest
) -> None:
    if engine == "neo4j":
        # The session's database is shared: built by the contract suite's store first, so
        # this service (allowed on a store with an embedder) does not record `none` for all.
        request.getfixturevalue("neo4j_store")
    settings = engine_settings(embedder=EmbedderKind.NONE, topic_summary_min_unsummarised=1)
    with serve_in_thread(create_app(settings)) as base_url:
        api = GraphQLClient(base_url, engine)
        health = api.http.get("/healthz").json()
        assert health["embedder"] == {"name": "none:384", "dimension": 384}
        ids = _write_notes(api, ns)
        # Only thoughts sharing a word with the query: no vector side brings the others.
        for hybrid in (None, False):
            hits = api.data(SEARCH, q="when do backups run", ns=ns, hybrid=hybrid)["search"]
            assert [h["id"] for h in hits] == [ids["backups"]], hybrid
            assert hits[0]["similarity"] == 0.0  # no cosine without an embedder
        tiered = api.data(TIERED, q="failed webhooks", ns=ns)["searchTiered"]
        assert [h["id"] for h in tiered["hits"]] == [ids["webhooks"]]
        context = api.data(ASSEMBLE, q="GitHub Actions deploys", ns=ns)["assembleContext"]
        assert ids["deploys"] in context["ids"] and "GitHub Actions" in context["text"]
        assert api.error_codes(CHANGES, q="why", ns=ns) == ["VECTOR_SEARCH_UNAVAILABLE"]
        api.close()
    asyncio.run(_consolidate(settings, ns))
    with serve_in_thread(create_app(settings)) as base_url:
        api = GraphQLClient(base_url, engine)
        topics = api.data(TIERED, q="billing webhooks", ns=ns)["searchTiered"]["topics"]
        api.close()
    # Topics are found by the words of their summaries (each thought is a topic of its own:
    # assignment by similarity has nothing to go on without an embedder).
    assert len(topics) == 1 and topics[0]["summary"].startswith(NOTES["webhooks"])
    assert topics[0]["similarity"] == 1.0


# The embedded engine only: the check is the shared store's (store/cypher_store.py), and
# the tests' one Neo4j database is built by the contract suite's embedder.
@pytest.mark.parametrize("engine", ["falkordb"])
def test_a_store_built_without_an_embedder_refuses_one(
    engine_settings: Callable[..., Settings], engine: str
) -> None:
    asyncio.run(_open(engine_settings(embedder=EmbedderKind.NONE)))
    with pytest.raises(SchemaMismatchError, match="built without an embedder"):
        asyncio.run(_open(engine_settings(embedder=EmbedderKind.HASH)))


async def _open(settings: Settings) -> Any:
    async with open_runtime(settings) as runtime:
        return runtime.store.schema
