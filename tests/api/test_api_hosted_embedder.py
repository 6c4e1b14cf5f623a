"""The service with TG_EMBEDDER=litellm, end to end: every embedding goes over HTTP to an
OpenAI-compatible server (a real one the test starts), through litellm."""

from __future__ import annotations

from collections.abc import Callable

from tests.api.test_api_lineage import CONTRIBUTE, REFINE, SEARCH, agent
from tests.fakes.openai_server import FakeOpenAIServer, openai_server_fixture
from tests.support import GraphQLClient, serve_in_thread
from thoughtgraph.server import create_app
from thoughtgraph.settings import Settings

# The contract suite's dimension: on Neo4j the session shares one database.
openai_server = openai_server_fixture(dimension=384)


def test_contribute_refine_and_search_with_a_hosted_embedder(
    openai_server: FakeOpenAIServer, engine_settings: Callable[..., Settings], ns: str
) -> None:
    settings = engine_settings(**openai_server.embedder_settings())
    with serve_in_thread(create_app(settings)) as base_url:
        api = GraphQLClient(base_url)
        health = api.http.get("/healthz").json()
        assert health["embedder"] == {
            "name": "litellm:openai/text-embedding-fake",
            "dimension": 384,
        }
        openai_server.reset()
        source = api.data(CONTRIBUTE, input=agent(ns, "cache for ten minutes"))
        source_id = source["contribute"]["thought"]["id"]
        api.data(
            REFINE,
            input=agent(ns, "cache for one minute", sourceId=source_id, reason="stale prices"),
        )
        hits = api.data(SEARCH, query="cache for ten minutes", namespace=ns)["search"]
        api.close()
    inputs = [request.json["input"] for request in openai_server.embedding_requests]
    # Content once per write (with the reason in the same request), the query once.
    assert inputs == [
        ["cache for ten minutes"],
        ["cache for one minute", "stale prices"],
        ["cache for ten minutes"],
    ]
    assert all(
        r.headers["authorization"] == "Bearer test-key" for r in openai_server.embedding_requests
    )
    # The fake server's vectors are a function of the text: an identical text is a perfect hit.
    top = {hit["id"]: hit for hit in hits}[source_id]
    assert top["similarity"] > 0.999
    assert top["superseded"] is True
